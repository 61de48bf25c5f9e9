//! Finding the puzzle's outer square in a photo.
//!
//! 1. Outline candidates: the largest four-cornered outlines in an adaptive threshold of the
//!    image, shrunk to at most [`WORK_SIDE`] pixels so that a 12 MP photo costs what a 1 MP one does
//!    (a photo with no grid found that way is searched again at up to [`FINE_WORK_SIDE`]: a
//!    puzzle held far from the camera can be a sixth of the picture across). A shape with thin
//!    spikes (a grid joined to a fold's crease or a rule that runs on past it) is outlined also
//!    by its solid parts, the spikes cut away; the one that frames a grid more clearly is taken.
//! 2. Verification: each candidate is rectified and must show eight evenly spaced interior lines
//!    each way ([`grid_score`]); a calendar, a chessboard or a text box does not.
//! 3. Refinement at full resolution: along each side the centre of the outer border line is
//!    measured at many points and a robust line is fitted through them; the corners are where
//!    those lines meet, to sub-pixel accuracy.
//!
//! A grid printed light on dark (a screen in dark mode) is searched for in the inverted picture
//! when none is found as it is; the [`Ink`] found tells the rest of recognition which way to
//! look at the picture.

use opencv::core::{Mat, Point, Point2f, Scalar, Size, Vec4f, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::Result;
use crate::geometry::{Homography, Quad, distance, warp};
use crate::raster::{GrayView, Sharpness, morphed};

/// Longest side, in pixels, of the image the outline search works on.
pub const WORK_SIDE: f64 = 1024.0;
/// Longest side of the second, finer search of a photo in which none was found.
pub const FINE_WORK_SIDE: f64 = 2048.0;
/// Longest side of a large photo's third search (see [`find_smallest_grid`]).
pub const FINEST_WORK_SIDE: f64 = 4096.0;
/// Side of the square a candidate is rectified to for verification: 9 cells of 20 pixels.
const CHECK_CELL: i32 = 20;
/// The least [`grid_score`] a Sudoku grid reaches; see its documentation.
pub const MIN_GRID_SCORE: f64 = 0.3;
/// The longest break (pixels at `CHECK_CELL`) bridged in a run of dark: enough for a printed
/// line that is breaking up, too little to join the separate strokes of digits or letters.
const MAX_GAP: usize = 2;
/// How many of the largest outlines are checked before giving up.
const MAX_CANDIDATES: usize = 12;

/// Which way round a grid is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ink {
    /// Dark lines and digits on light paper or a light screen.
    #[default]
    Dark,
    /// Light lines and digits on a dark background: a screen in dark mode.
    Light,
}

impl Ink {
    /// `gray` as recognition wants it, dark ink on light: `gray` itself, or its negative
    /// written into `store`.
    pub fn as_dark<'a>(self, gray: &'a Mat, store: &'a mut Mat) -> Result<&'a Mat> {
        match self {
            Ink::Dark => Ok(gray),
            Ink::Light => {
                opencv::core::bitwise_not(gray, store, &opencv::core::no_array())?;
                Ok(store)
            }
        }
    }
}

/// How sure a search must be that a candidate is a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// A photo: the one look there is. Faint cell lines (an app's pale lines washed out by
    /// glare, light print under a gradient) are accepted while every box line is clear and the
    /// cell lines still show on the whole each way (see [`grid_score`]).
    Only,
    /// A video frame: every cell line must show; a grid too blurred or washed out for that is
    /// found a frame or two later, rather than risk a wrong outline that is then followed.
    OneOfMany,
}

/// A grid found in an image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// Corners in pixels of the image searched, top-left first, clockwise.
    pub quad: Quad,
    /// How clearly the rectified candidate shows a 9x9 grid, from [`grid_score`].
    pub score: f64,
    /// Whether the grid is printed dark on light or light on dark.
    pub ink: Ink,
    /// Whether the picture of the grid is smeared one way by the camera's motion: its cell
    /// lines across the motion faded, its outline less sure (see [`grid_score`]).
    pub smeared: bool,
}

/// Finds the largest Sudoku grid in a gray image, printed dark on light or else light on dark;
/// None when there is none.
///
/// The picture is searched shrunk to [`WORK_SIDE`]; a photo in which nothing is found that way
/// is searched again by [`find_small_grid`] (a video frame every few frames, see
/// [`crate::video::vision`]).
pub fn find_grid(gray: &Mat, look: Look) -> Result<Option<Detection>> {
    match find_grid_at(gray, look, Scale::COARSE)? {
        None if look == Look::Only => find_small_grid(gray, look),
        found => Ok(found),
    }
}

/// [`find_grid`]'s first search alone, at [`WORK_SIDE`] (where a grid a tenth of the picture
/// across or larger shows its cell lines), for a grid printed in `ink`.
pub fn find_large_grid(gray: &Mat, ink: Ink, look: Look) -> Result<Option<Detection>> {
    let mut negative = Mat::default();
    let found = find_dark_grid(ink.as_dark(gray, &mut negative)?, look, Scale::COARSE)?;
    Ok(found.map(|d| Detection { ink, ..d }))
}

/// [`find_grid`]'s second, finer search, at up to [`FINE_WORK_SIDE`], where the cell lines of
/// a grid a sixth of the picture across still show; None at once for a picture no larger than
/// [`WORK_SIDE`] (searched as it is already).
pub fn find_small_grid(gray: &Mat, look: Look) -> Result<Option<Detection>> {
    if gray.cols().max(gray.rows()) as f64 <= WORK_SIDE {
        return Ok(None);
    }
    find_grid_at(gray, look, Scale::FINE)
}

/// A photo's third search, for a grid too small for [`find_small_grid`] (a whole newspaper page
/// at 4000x3000: a puzzle 250-350 px across, its thin lines lost when shrunk to half, and
/// outlined under the smallest size that search takes), at up to [`FINEST_WORK_SIDE`]; None
/// at once for a picture no larger than [`WORK_SIDE`].
pub fn find_smallest_grid(gray: &Mat) -> Result<Option<Detection>> {
    if (gray.cols().max(gray.rows()) as f64) <= WORK_SIDE {
        return Ok(None);
    }
    find_grid_at(gray, Look::Only, Scale::FINEST)
}

/// How a picture is searched: shrunk to at most `side` pixels, for outlines whose every side
/// is at least `smallest` of the shrunk picture's shorter side (and 54 pixels).
#[derive(Debug, Clone, Copy)]
struct Scale {
    side: f64,
    smallest: f64,
}

impl Scale {
    const COARSE: Scale = Scale {
        side: WORK_SIDE,
        smallest: 0.12,
    };
    const FINE: Scale = Scale {
        side: FINE_WORK_SIDE,
        smallest: 0.12,
    };
    /// See [`find_smallest_grid`]: outlines down to 0.04 of the picture's shorter side (120 px
    /// in a 4000x3000 photo, cells of 13 px), where 0.12 would ask 363 px.
    const FINEST: Scale = Scale {
        side: FINEST_WORK_SIDE,
        smallest: 0.04,
    };
}

/// Finds the largest grid, dark on light or else light on dark, in `gray` searched at `scale`.
fn find_grid_at(gray: &Mat, look: Look, scale: Scale) -> Result<Option<Detection>> {
    if let Some(found) = find_dark_grid(gray, look, scale)? {
        return Ok(Some(found));
    }
    let mut negative = Mat::default();
    let found = find_dark_grid(Ink::Light.as_dark(gray, &mut negative)?, look, scale)?;
    Ok(found.map(|d| Detection {
        ink: Ink::Light,
        ..d
    }))
}

/// Finds the largest grid printed dark on light, searching `gray` at `search`.
fn find_dark_grid(gray: &Mat, look: Look, search: Scale) -> Result<Option<Detection>> {
    let (width, height) = (gray.cols(), gray.rows());
    let scale = shrink_factor(width.max(height) as f64, search.side);
    let shrunk;
    let work = if scale > 1.0 {
        let size = Size::new(
            (width as f64 / scale).round() as i32,
            (height as f64 / scale).round() as i32,
        );
        let mut small = Mat::default();
        imgproc::resize(gray, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        shrunk = small;
        &shrunk
    } else {
        gray
    };
    let work_view = GrayView::new(work)?;
    let (dark, ink) = masks(work)?;
    // Faint, blurred grids can have gaps in their outer border; closing them is the fallback
    // because it also joins the grid to print nearby.
    let mut found = first_grid(work, &ink, Pass::Ink, look, search.smallest)?;
    if found.is_none() {
        found = first_grid(work, &dilated(&ink)?, Pass::Closed, look, search.smallest)?;
    }
    // In a photo, broad dark print too: a title bar printed flush against the grid (white
    // letters on black) is outlined with it and left out again (see [`trimmed`]). Its letters
    // can join the grid's ink outline, which then frames no grid, frames one with a corner
    // pulled into the bar (a red bar under the grid: 1.4 cells off, still 0.35 once the lines
    // were followed), or leaves only a box of the grid to be found (an app's pale cell lines,
    // photographed): the grid the bar is left out of is taken instead when it shows more
    // clearly, or holds the one found.
    if look == Look::Only
        && let Some(inside) = first_grid(work, &dark, Pass::WithBars, look, search.smallest)?
        && found
            .as_ref()
            .is_none_or(|f| bar_left_out_instead(f, &inside))
    {
        found = Some(inside);
    }
    let Some((quad, check)) = found else {
        return Ok(None);
    };
    let quad = uncut(&work_view, &quad).scaled(scale);
    let refined = refine_corners(&GrayView::new(gray)?, &quad, scale);
    Ok(Some(Detection {
        quad: refined,
        score: check.score,
        ink: Ink::Dark,
        smeared: check.smeared,
    }))
}

/// By how much a picture whose longest side is `longest` pixels is shrunk to be searched at
/// `side`: by a whole factor when that leaves it at least [`WHOLE_SHRINK_LEAST`] of `side` (a
/// 1080p frame searched at 960 rather than 1024 pixels, a 4032 photo at 1008), as OpenCV
/// averages whole blocks of pixels 50 times faster than fractional ones (0.05 against 3.0 ms
/// for a 1080p frame, half the cost of a search); otherwise exactly down to `side`.
fn shrink_factor(longest: f64, side: f64) -> f64 {
    let exact = (longest / side).max(1.0);
    let whole = exact.ceil();
    if exact > 1.0 && longest / whole >= WHOLE_SHRINK_LEAST * side {
        whole
    } else {
        exact
    }
}

/// See [`shrink_factor`].
const WHOLE_SHRINK_LEAST: f64 = 0.9;

/// Whether `inside`, a grid outlined with a bar and the bar left out, is the grid rather than
/// `found`: the same grid (not another puzzle's under its own bar) framed more clearly, or one
/// holding `found` (a box of it).
fn bar_left_out_instead(found: &(Quad, GridCheck), inside: &(Quad, GridCheck)) -> bool {
    let ((quad, check), (trimmed, trimmed_check)) = (found, inside);
    let same = distance(quad.centroid(), trimmed.centroid()) < 0.25 * quad.mean_side();
    let holds = trimmed.contains(quad.centroid()) && trimmed.area() > 2.0 * quad.area();
    (same && trimmed_check.score > check.score) || holds
}

/// The first (largest) outline in `mask` that frames a grid, and how clearly.
/// `smallest`: see [`Scale`].
fn first_grid(
    work: &Mat,
    mask: &Mat,
    pass: Pass,
    look: Look,
    smallest: f64,
) -> Result<Option<(Quad, GridCheck)>> {
    let work_view = GrayView::new(work)?;
    for rivals in outlines(mask, smallest)? {
        let mut best: Option<(Quad, GridCheck)> = None;
        for outline in rivals {
            // Outlined with the bars, a shape is only what lies inside it once a bar is left
            // out: anything else framing a grid was outlined before.
            let (quad, check) = match pass {
                Pass::WithBars => match trimmed(work, &outline, look)? {
                    Some(inside) => inside,
                    None => continue,
                },
                _ => checked(work, &work_view, &outline, look)?,
            };
            tracing::trace!(?quad, score = check.score, ?pass, "grid candidate");
            if best.as_ref().is_none_or(|(_, b)| check.score > b.score) {
                best = Some((quad, check));
            }
        }
        if let Some(found) = best.filter(|(_, check)| check.score >= MIN_GRID_SCORE) {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// `outline` or the same refined onto the printed border, whichever frames the grid more
/// clearly, and how clearly: refinement usually helps, but can be pulled off by print touching
/// the border.
fn checked(work: &Mat, view: &GrayView, outline: &Quad, look: Look) -> Result<(Quad, GridCheck)> {
    let refined = refine_corners(view, outline, 1.0);
    let (outline_check, refined_check) = (
        check_grid(work, outline, look)?,
        check_grid(work, &refined, look)?,
    );
    Ok(if refined_check.score >= outline_check.score {
        (refined, refined_check)
    } else {
        (*outline, outline_check)
    })
}

/// The masks [`find_dark_grid`] outlines shapes in, in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Thin dark strokes.
    Ink,
    /// The same, gaps closed.
    Closed,
    /// Everything locally dark, broad too.
    WithBars,
}

/// How clearly a grid found by [`trimmed`] must show: twice what other outlines need
/// ([`MIN_GRID_SCORE`]), as an outline of everything dark also takes in whole pages, and a page
/// around a crossword, one side moved in, framed a grid at 0.46 (bars left out of clean grids:
/// 0.9-0.97).
const MIN_TRIMMED_SCORE: f64 = 0.6;

/// Where a line runs across [`trimmed`]'s rectified outline: dark along this share of its width.
const ACROSS_THE_OUTLINE: f64 = 0.9;

/// The grid inside `outline` when a bar printed flush against one of its sides was outlined
/// with it: a newspaper's or an app's title bar (white letters on a dark bar) on top of the
/// puzzle. Each side is moved in, up to 0.4 of the way across, past its own edge to the first
/// rows dark across the whole outline (the bar and the grid's border, run together), and onto
/// the innermost of them that frames a grid, when what it leaves out is a bar ([`is_bar`]) and
/// not more of the grid ([`grid_goes_on`]); of the sides so moved, the clearest grid.
fn trimmed(work: &Mat, outline: &Quad, look: Look) -> Result<Option<(Quad, GridCheck)>> {
    let side = 9 * CHECK_CELL;
    let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, outline) else {
        return Ok(None);
    };
    let Some(grid_from_image) = image_from_grid.inverse() else {
        return Ok(None);
    };
    let check_from_image = Homography::scaling(side as f64).after(&grid_from_image);
    let rectified = warp(work, &check_from_image, Size::new(side, side), true)?;
    let firm = dark_mask(&rectified, 5.0)?;
    let firm = GrayView::new(&firm)?;
    let gray = GrayView::new(&rectified)?;
    let n = side as usize;
    let paper = paper_level(&gray);
    let across = |i: usize, horizontal: bool| {
        let dark: Vec<bool> = (0..n)
            .map(|t| if horizontal { firm.get(t, i) } else { firm.get(i, t) } > 0)
            .collect();
        long_run_share(&dark, CHECK_CELL as usize / 2, MAX_GAP) >= ACROSS_THE_OUTLINE
    };
    let mut best: Option<(Quad, GridCheck)> = None;
    for (horizontal, from_start) in [(true, true), (true, false), (false, true), (false, false)] {
        let at = |d: usize| if from_start { d } else { n - 1 - d };
        // Past the outline's own edge (the border it lies on) to the first line across.
        let Some(first) = (n / 20..n * 2 / 5).find(|&d| across(at(d), horizontal)) else {
            continue;
        };
        let last = (first..n * 2 / 5)
            .take_while(|&d| across(at(d), horizontal))
            .last()
            .unwrap_or(first);
        // The bar's dark rows run into the border's: the grid's side is the innermost of them.
        for d in (first..=last).rev() {
            // What is left out must not be more of the grid: its lines going on past the side
            // moved in (moved onto a cell line, a bar a row high passed for the first row).
            let left_out = if from_start {
                n / 30..at(d)
            } else {
                at(d) + 1..n - n / 30
            };
            if !is_bar(&gray, left_out.clone(), horizontal, paper)
                || grid_goes_on(&firm, left_out, horizontal)
            {
                continue;
            }
            let t = (at(d) as f64 + 0.5) / n as f64;
            let quad =
                Quad(side_moved_to(t, horizontal, from_start).map(|p| image_from_grid.apply(p)));
            let check = check_grid(work, &quad, look)?;
            if check.score >= MIN_TRIMMED_SCORE {
                if best.is_none_or(|(_, b)| check.score > b.score) {
                    best = Some((quad, check));
                }
                break;
            }
        }
    }
    Ok(best)
}

/// The unit square with one side moved to `t`: the top (`horizontal`, `from_start`), the
/// bottom, the left or the right.
fn side_moved_to(t: f64, horizontal: bool, from_start: bool) -> [[f64; 2]; 4] {
    match (horizontal, from_start) {
        (true, true) => [[0.0, t], [1.0, t], [1.0, 1.0], [0.0, 1.0]],
        (true, false) => [[0.0, 0.0], [1.0, 0.0], [1.0, t], [0.0, t]],
        (false, true) => [[t, 0.0], [1.0, 0.0], [1.0, 1.0], [t, 1.0]],
        (false, false) => [[0.0, 0.0], [t, 0.0], [t, 1.0], [0.0, 1.0]],
    }
}

/// Whether the lines of a grid cross the strip `strip` (rows when `horizontal`, else columns)
/// of `dark` (a square mask of a grid's outline): darker where the nine cells' lines cross it
/// than across their middles.
fn grid_goes_on(dark: &GrayView, strip: std::ops::Range<usize>, horizontal: bool) -> bool {
    let n = dark.width;
    if strip.is_empty() {
        return false;
    }
    let share = |at: f64| {
        let at = (at.round() as usize).min(n - 1);
        let near = at.saturating_sub(1)..(at + 2).min(n);
        let hits = strip
            .clone()
            .filter(|&i| {
                near.clone()
                    .any(|a| if horizontal { dark.get(a, i) } else { dark.get(i, a) } > 0)
            })
            .count();
        hits as f64 / strip.len() as f64
    };
    let cell = n as f64 / 9.0;
    let lines = (0..=9).map(|k| share(k as f64 * cell)).sum::<f64>() / 10.0;
    let middles = (0..9).map(|k| share((k as f64 + 0.5) * cell)).sum::<f64>() / 9.0;
    lines - middles > GRID_GOES_ON
}

/// The paper's gray level in `gray`: its 90th percentile.
fn paper_level(gray: &GrayView) -> f64 {
    let mut counts = [0usize; 256];
    for y in 0..gray.height {
        for x in 0..gray.width {
            counts[gray.get(x, y) as usize] += 1;
        }
    }
    let mut above = gray.width * gray.height / 10;
    for level in (0..256).rev() {
        if counts[level] >= above {
            return level as f64;
        }
        above -= counts[level];
    }
    0.0
}

/// Whether the strip `strip` (rows when `horizontal`, else columns) of `gray` is a bar printed
/// dark: most of it below half the `paper`'s level (the letters on it are not).
fn is_bar(gray: &GrayView, strip: std::ops::Range<usize>, horizontal: bool, paper: f64) -> bool {
    if strip.is_empty() {
        return false;
    }
    let n = gray.width;
    let dark = strip
        .clone()
        .flat_map(|i| (0..n).map(move |t| if horizontal { (t, i) } else { (i, t) }))
        .filter(|&(x, y)| (gray.get(x, y) as f64) < paper * 0.5)
        .count();
    dark as f64 / (strip.len() * n) as f64 >= BAR_DARK
}

/// The share of a strip printed dark for [`is_bar`].
const BAR_DARK: f64 = 0.6;

/// How much more of a strip [`grid_goes_on`] must find dark at the lines than at the cells'
/// middles.
const GRID_GOES_ON: f64 = 0.4;

fn dilated(mask: &Mat) -> Result<Mat> {
    let kernel =
        imgproc::get_structuring_element(imgproc::MORPH_RECT, Size::new(3, 3), Point::new(-1, -1))?;
    let mut out = Mat::default();
    imgproc::dilate(
        mask,
        &mut out,
        &kernel,
        Point::new(-1, -1),
        1,
        opencv::core::BORDER_CONSTANT,
        Scalar::all(0.0),
    )?;
    Ok(out)
}

/// How far around a puzzle found [`cover`] covers, as a share of its side: past its border
/// and a corner found a little inside it.
const COVER_MARGIN: f64 = 0.06;

/// Whether two grids found overlap: either's centre inside the other.
pub fn overlapping(a: &Quad, b: &Quad) -> bool {
    a.contains(b.centroid()) || b.contains(a.centroid())
}

/// Covers the grid at `quad` in `gray`, and a margin around it (6% of its side), with the level of
/// the paper just around it, so that a search for another grid (another puzzle on the page)
/// sees none there.
pub fn cover(gray: &mut Mat, quad: &Quad) -> Result<()> {
    let around = quad.grown(COVER_MARGIN);
    let view = GrayView::new(gray)?;
    let (w, h) = (view.width as f64, view.height as f64);
    let mut levels: Vec<u8> = (0..4)
        .flat_map(|k| {
            let (a, b) = (around.0[k], around.0[(k + 1) % 4]);
            (0..100).map(move |i| {
                let t = i as f64 / 100.0;
                [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]
            })
        })
        .filter(|&[x, y]| x >= 0.0 && y >= 0.0 && x < w && y < h)
        .map(|[x, y]| view.get(x as usize, y as usize))
        .collect();
    if levels.is_empty() {
        return Ok(());
    }
    let middle = levels.len() / 2;
    let level = *levels.select_nth_unstable(middle).1;
    let points: Vector<Point> = around
        .0
        .iter()
        .map(|&[x, y]| Point::new(x.round() as i32, y.round() as i32))
        .collect();
    imgproc::fill_convex_poly(gray, &points, Scalar::all(level as f64), imgproc::LINE_8, 0)?;
    Ok(())
}

/// The four-cornered outlines of dark shapes in `gray`, largest first.
pub fn outline_candidates(gray: &Mat) -> Result<Vec<Quad>> {
    Ok(outlines(&ink_mask(gray)?, Scale::COARSE.smallest)?
        .into_iter()
        .flatten()
        .collect())
}

/// Printed strokes in `gray` as a binary mask: locally dark and thin.
fn ink_mask(gray: &Mat) -> Result<Mat> {
    Ok(masks(gray)?.1)
}

/// What is darker than its surroundings in `gray`, broad or thin, and (see [`ink_mask`]) only
/// the thin strokes of it.
fn masks(gray: &Mat) -> Result<(Mat, Mat)> {
    let (width, height) = (gray.cols(), gray.rows());
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(
        gray,
        &mut blurred,
        Size::new(5, 5),
        0.0,
        0.0,
        opencv::core::BORDER_DEFAULT,
    )?;
    let block = (width.max(height) / 40) | 1;
    let mut binary = Mat::default();
    imgproc::adaptive_threshold(
        &blurred,
        &mut binary,
        255.0,
        imgproc::ADAPTIVE_THRESH_MEAN_C,
        imgproc::THRESH_BINARY_INV,
        block.clamp(11, 51),
        7.0,
    )?;
    // Keep only thin dark strokes (lines and digits): a black-hat picks out what is darker than
    // its surroundings within a window wider than any printed line, so the edges of broad
    // shadows and dark table tops, which the adaptive threshold also marks, drop out.
    let window = (width.max(height) / 64).clamp(9, 25) | 1;
    let strokes = morphed(
        &blurred,
        imgproc::MORPH_BLACKHAT,
        imgproc::MORPH_RECT,
        window,
        opencv::core::BORDER_REPLICATE,
    )?;
    let mut stroke_mask = Mat::default();
    imgproc::threshold(
        &strokes,
        &mut stroke_mask,
        6.0,
        255.0,
        imgproc::THRESH_BINARY,
    )?;
    let mut ink = Mat::default();
    opencv::core::bitwise_and(&binary, &stroke_mask, &mut ink, &opencv::core::no_array())?;
    Ok((binary, ink))
}

/// The four-cornered outlines in a binary mask, largest first: per shape, its hull's four
/// corners and, when the shape is spiky, the outlines of its solid parts (see [`SPIKY`]), to be
/// told apart by how clearly each frames a grid.
fn outlines(binary: &Mat, smallest: f64) -> Result<Vec<Vec<Quad>>> {
    let (width, height) = (binary.cols(), binary.rows());
    let mut contours = Vector::<Vector<Point>>::new();
    imgproc::find_contours(
        binary,
        &mut contours,
        imgproc::RETR_LIST,
        imgproc::CHAIN_APPROX_SIMPLE,
        Point::new(0, 0),
    )?;

    let min_side = (width.min(height) as f64 * smallest).max(54.0);
    let mut sized = Vec::new();
    for contour in contours.iter() {
        let area = imgproc::contour_area(&contour, false)?;
        if area >= min_side * min_side {
            sized.push((area, contour));
        }
    }
    sized.sort_by(|a, b| b.0.total_cmp(&a.0));

    let mut found: Vec<Vec<Quad>> = Vec::new();
    let mut seen: Vec<Quad> = Vec::new();
    for (area, contour) in sized.iter().take(MAX_CANDIDATES * 3) {
        let mut rivals: Vec<Quad> = quad_of(contour)?.into_iter().collect();
        // A shape of strokes only (text, a scribble) has no part left solid once they are cut
        // away: its area is small against its outline's length.
        let strokes_only = *area < imgproc::arc_length(contour, true)? * min_side / 20.0;
        if !strokes_only && *area < SPIKY * hull_area(contour)? {
            // A part that is the hull's quad again (its corners a little rounded) is not
            // checked twice.
            for part in solid_parts(contour, min_side)? {
                let again = |q: &Quad| q.max_corner_distance(&part) < 0.03 * q.mean_side();
                if !rivals.iter().any(again) && part.area() >= BULK * area {
                    rivals.push(part);
                }
            }
        }
        rivals.retain(|quad| {
            let duplicate = seen
                .iter()
                .any(|q| q.max_corner_distance(quad) < min_side * 0.02);
            !duplicate && quad.sides().iter().all(|&s| s >= min_side)
        });
        if rivals.is_empty() {
            continue;
        }
        seen.extend(rivals.iter().copied());
        found.push(rivals);
        if found.len() == MAX_CANDIDATES {
            break;
        }
    }
    found.sort_by(|a, b| b[0].area().total_cmp(&a[0].area()));
    Ok(found)
}

/// A contour filling less than this share of its hull has thin spikes: a grid joined to a
/// line that runs on past it (a fold's crease across the page, a column rule, a pen's shadow),
/// whose hull would take in where the line ends.
const SPIKY: f64 = 0.95;

/// A solid part of a spiky shape is a rival to its hull's quad only when it is the bulk of the
/// shape (this share of its area, at least): what is cut from a grid is thin.
const BULK: f64 = 0.5;

/// The area of a contour's convex hull.
fn hull_area(contour: &Vector<Point>) -> Result<f64> {
    let mut hull = Vector::<Point>::new();
    imgproc::convex_hull(contour, &mut hull, false, true)?;
    Ok(imgproc::contour_area(&hull, false)?)
}

/// The four-cornered outlines of what a spiky contour encloses once its thin parts (lines,
/// strokes: narrower than a sixth of the smallest grid side) are cut away: the grid a line
/// runs on from. Filled, the contour's own inside counts as solid, so a grid's cells do.
fn solid_parts(contour: &Vector<Point>, min_side: f64) -> Result<Vec<Quad>> {
    let bounds = imgproc::bounding_rect(contour)?;
    let mut filled = Mat::zeros(bounds.height, bounds.width, opencv::core::CV_8UC1)?.to_mat()?;
    imgproc::fill_poly(
        &mut filled,
        &Vector::<Vector<Point>>::from_iter([contour.clone()]),
        Scalar::all(255.0),
        imgproc::LINE_8,
        0,
        Point::new(-bounds.x, -bounds.y),
    )?;
    let width = ((min_side / 6.0).round() as i32).max(3) | 1;
    let solid = morphed(
        &filled,
        imgproc::MORPH_OPEN,
        imgproc::MORPH_RECT,
        width,
        opencv::core::BORDER_CONSTANT,
    )?;
    let mut parts = Vector::<Vector<Point>>::new();
    imgproc::find_contours(
        &solid,
        &mut parts,
        imgproc::RETR_EXTERNAL,
        imgproc::CHAIN_APPROX_SIMPLE,
        Point::new(bounds.x, bounds.y),
    )?;
    let mut quads = Vec::new();
    for part in parts.iter() {
        if imgproc::contour_area(&part, false)? >= min_side * min_side
            && let Some(quad) = quad_of(&part)?
        {
            quads.push(quad);
        }
    }
    quads.sort_by(|a, b| b.area().total_cmp(&a.area()));
    Ok(quads)
}

/// The convex quadrilateral that approximates a contour's hull, if it has four corners, or is
/// a quadrilateral with a corner or two cut off (see [`corner_uncut`]): a grid whose border
/// fades at a corner has an ink outline that turns in across the corner.
fn quad_of(contour: &Vector<Point>) -> Result<Option<Quad>> {
    let mut hull = Vector::<Point>::new();
    imgproc::convex_hull(contour, &mut hull, false, true)?;
    let perimeter = imgproc::arc_length(&hull, true)?;
    let mut approx = Vector::<Point>::new();
    imgproc::approx_poly_dp(&hull, &mut approx, 0.03 * perimeter, true)?;
    let mut points: Vec<[f64; 2]> = approx.iter().map(|p| [p.x as f64, p.y as f64]).collect();
    while (5..=6).contains(&points.len()) {
        match corner_uncut(&points) {
            Some(fewer) => points = fewer,
            None => return Ok(None),
        }
    }
    Ok(quad_from(&points))
}

/// The quadrilateral with these four corners, if it is convex and no side is more than 2.5
/// times another (no Sudoku seen at a sensible angle is).
fn quad_from(points: &[[f64; 2]]) -> Option<Quad> {
    let [a, b, c, d] = points else {
        return None;
    };
    let quad = Quad::from_unordered([*a, *b, *c, *d]);
    let sides = quad.sides();
    let (shortest, longest) = sides
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &s| (lo.min(s), hi.max(s)));
    (quad.is_convex() && shortest * 2.5 >= longest).then_some(quad)
}

/// The largest share of a pentagon's area that [`corner_uncut`] adds back.
const CUT_CORNER_MOST: f64 = 0.12;

/// The four corners of a convex pentagon that is a quadrilateral with one corner cut off (a
/// grid's border faded or broken near a corner, so its ink outline turns in early): the
/// shortest side is dropped and the two sides beside it are extended to meet. None when that
/// would add more than [`CUT_CORNER_MOST`] of the area: then it was no cut corner.
fn corner_uncut(points: &[[f64; 2]]) -> Option<Vec<[f64; 2]>> {
    let n = points.len();
    let at = |i: usize| points[i % n];
    let cut = (0..n)
        .min_by(|&i, &j| distance(at(i), at(i + 1)).total_cmp(&distance(at(j), at(j + 1))))?;
    let line = |from: [f64; 2], to: [f64; 2]| {
        let length = distance(from, to).max(1e-9);
        (
            from,
            [(to[0] - from[0]) / length, (to[1] - from[1]) / length],
        )
    };
    let corner = intersect(
        line(at(cut + n - 1), at(cut)),
        line(at(cut + 2), at(cut + 1)),
    )?;
    // The triangle the new corner adds, against the pentagon's area; it must lie outside the
    // dropped side, on the other side from the pentagon's middle.
    let (a, b) = (at(cut), at(cut + 1));
    let side_of = |p: [f64; 2]| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    let middle = at(cut + 3);
    if side_of(corner) * side_of(middle) >= 0.0 {
        return None;
    }
    let added = 0.5 * side_of(corner).abs();
    let area = 0.5
        * (0..n)
            .map(|i| at(i)[0] * at(i + 1)[1] - at(i + 1)[0] * at(i)[1])
            .sum::<f64>()
            .abs();
    if added > CUT_CORNER_MOST * area {
        return None;
    }
    let mut fewer = points.to_vec();
    fewer[cut] = corner;
    fewer.remove((cut + 1) % n);
    Some(fewer)
}

/// How clearly `quad` in `gray` frames a 9x9 grid: the mean share of each interior grid line
/// (8 across, 8 down) that is dark, minus the same share along the cell middles between them.
///
/// A printed Sudoku scores 0.5 to 0.9, even when every cell holds a digit; a box of text, a
/// calendar (7 columns) or a chessboard (8x8, no lines at ninths) scores below 0.2.
pub fn grid_score(gray: &Mat, quad: &Quad, look: Look) -> Result<f64> {
    Ok(check_grid(gray, quad, look)?.score)
}

/// What [`check_grid`] tells of a candidate.
#[derive(Debug, Clone, Copy)]
struct GridCheck {
    /// [`grid_score`].
    score: f64,
    /// Whether the candidate is smeared one way by the camera's motion.
    smeared: bool,
}

impl GridCheck {
    const NONE: GridCheck = GridCheck {
        score: 0.0,
        smeared: false,
    };
}

/// [`grid_score`], and whether the candidate is smeared.
fn check_grid(gray: &Mat, quad: &Quad, look: Look) -> Result<GridCheck> {
    let side = 9 * CHECK_CELL;
    let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, quad) else {
        return Ok(GridCheck::NONE);
    };
    let Some(grid_from_image) = image_from_grid.inverse() else {
        return Ok(GridCheck::NONE);
    };
    let check_from_image = Homography::scaling(side as f64).after(&grid_from_image);
    let rectified = warp(gray, &check_from_image, Size::new(side, side), true)?;
    // Lines are looked for in a sensitive threshold, so that faint thin lines stay unbroken;
    // cell middles in a firm one, so that only real ink counts against the grid.
    let faint = dark_mask(&rectified, 2.0)?;
    let firm = dark_mask(&rectified, 5.0)?;
    let (faint, firm) = (GrayView::new(&faint)?, GrayView::new(&firm)?);
    let n = side as usize;
    let cell = CHECK_CELL as usize;
    // Share of positions along a 3-pixel band (rows or columns around `centre`, from `from` to
    // `to`) that lie on a long dark run: a grid line, not the strokes of digits crossing it.
    let coverage =
        |centre: usize, from: usize, to: usize, horizontal: bool, view: &GrayView| -> f64 {
            let band = centre.saturating_sub(1)..(centre + 2).min(n);
            let dark: Vec<bool> = (from..to)
            .map(|t| {
                band.clone().any(|b| if horizontal { view.get(t, b) } else { view.get(b, t) } > 0)
            })
            .collect();
            long_run_share(&dark, cell / 2, MAX_GAP)
        };
    // A printed line may sit a little off its ideal place (corner error), and on curved paper
    // by a different amount in each cell, so each cell's stretch of it finds its own place.
    let line_coverage = |centre: usize, horizontal: bool| -> f64 {
        let stretches = (0..9).map(|j| {
            (centre - 3..=centre + 3)
                .map(|c| coverage(c, j * cell, (j + 1) * cell, horizontal, &faint))
                .fold(0.0, f64::max)
        });
        stretches.sum::<f64>() / 9.0
    };
    let mut lines = Vec::with_capacity(16);
    let mut middles = Vec::with_capacity(18);
    for horizontal in [true, false] {
        lines.extend((1..9).map(|k| line_coverage(k * cell, horizontal)));
        middles.extend((0..9).map(|k| coverage(k * cell + cell / 2, 0, n, horizontal, &firm)));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    // Every box line must be there. A 3x3 table with no cell lines is no Sudoku, nor is part
    // of a grid cut off six rows down, whose rows miss the ninths one way.
    let weakest_box = (0..16)
        .filter(|&i| is_box_line(i))
        .map(|i| lines[i])
        .fold(1.0, f64::min);
    let faint_cell_lines = (0..16)
        .filter(|&i| !is_box_line(i) && lines[i] < 0.3)
        .count();
    let cell_lines = |way: usize| {
        (8 * way..8 * way + 8)
            .filter(|&i| !is_box_line(i))
            .map(|i| lines[i])
            .sum::<f64>()
            / 6.0
    };
    let (across, down) = (cell_lines(0), cell_lines(1));
    let sharpness = GrayView::new(&rectified)?.sharpness_each_way();
    tracing::trace!(
        ?sharpness,
        lines = mean(&lines),
        middles = mean(&middles),
        weakest_box,
        faint_cell_lines,
        across,
        down,
        "grid score"
    );
    // In a video frame every cell line must show. In a photo two may be lost outright, or any
    // number be faint while the cell lines still show on the whole each way and the cells'
    // middles are clean (a pale app grid under glare: 0.17 and 0.05; a 9x6 part of a grid
    // stretched to a square: 0.07 one way; one 3x3 box of a hand-filled grid: 0.13, but
    // handwriting across its middles, 0.10-0.12).
    let cell_lines_hold = match look {
        Look::OneOfMany => faint_cell_lines == 0 || smeared_one_way(&lines, sharpness, weakest_box),
        Look::Only => faint_cell_lines <= 2 || (across.min(down) >= 0.12 && mean(&middles) <= 0.07),
    };
    if weakest_box < 0.3 || !cell_lines_hold {
        return Ok(GridCheck::NONE);
    }
    // Rows and columns of cells crossed along their length by a line of their own, away from
    // the lines around them: a crossword (15 squares a side) has lines there in 12 of the 18,
    // and was taken for the Sudoku printed beside it.
    let inside_cells = |k: usize| k * cell + cell * 3 / 10..=k * cell + cell * 7 / 10;
    let crossed = [true, false]
        .into_iter()
        .flat_map(|horizontal| (0..9).map(move |k| (horizontal, k)))
        .filter(|&(horizontal, k)| {
            inside_cells(k).any(|c| coverage(c, 0, n, horizontal, &firm) >= CROSSED_ALONG)
        })
        .count();
    // The same cell by cell: a crossword outlined askew (its corner cut short by a black square)
    // has its lines in most cells at some slant, none of them along a whole row.
    let crossed_cells = [true, false]
        .into_iter()
        .flat_map(|horizontal| (0..9).flat_map(move |k| (0..9).map(move |j| (horizontal, k, j))))
        .filter(|&(horizontal, k, j)| {
            inside_cells(k)
                .any(|c| coverage(c, j * cell, (j + 1) * cell, horizontal, &firm) >= CROSSED_ALONG)
        })
        .count();
    tracing::trace!(crossed, crossed_cells, "lines inside the cells");
    if crossed >= CROSSED_MOST || crossed_cells >= CROSSED_CELLS_MOST {
        return Ok(GridCheck::NONE);
    }
    Ok(GridCheck {
        score: mean(&lines) - mean(&middles),
        smeared: sharpness.smeared(),
    })
}

/// A row or column of cells is crossed by a line of its own when a dark run covers this share
/// of the grid's side somewhere between 0.3 and 0.7 of the way across its cells.
const CROSSED_ALONG: f64 = 0.8;

/// A candidate with this many of its 18 rows and columns of cells crossed is some other grid: a
/// crossword's outline gave 7 to 17 (fewer where a black square in its corner cut the outline
/// short and tilted the lattice). Over the real photos of both datasets the grids found have at
/// most 3 (image87, the most strongly curved page), and an outline a cell wider, compared with
/// the grid found (see [`crate::recognize`]), 5.
const CROSSED_MOST: usize = 6;

/// A candidate with this many of the 162 stretches of its rows and columns of cells, one cell
/// long, crossed by a line of their own is some other grid: a 17- or 21-square crossword outlined
/// askew in a 640x480 photo had 118-146. Over the real photos of both datasets the grids found
/// have at most 56 (image87, strongly curved; pages filled in by hand in big strokes 42-55).
const CROSSED_CELLS_MOST: usize = 100;

/// Whether line `i` of [`check_grid`]'s 16 (8 across, then 8 down) is a box line.
fn is_box_line(i: usize) -> bool {
    (i % 8 + 1).is_multiple_of(3)
}

/// Box lines of a grid smeared by the camera's motion, thicker than its cell lines, still show
/// at least this much where the cell lines across the motion have faded.
const SMEARED_BOX_LINES: f64 = 0.5;

/// Whether `lines` (coverage of the 8 lines across, then the 8 down) are those of a grid smeared
/// one way by the camera's motion: the cell lines faint one way only, where the picture is
/// blurred (`sharpness`), while every line the other way and every box line shows. Part of a
/// grid stretched to a square (6 of 9 columns) shows no box line where one is looked for, and a
/// sharp table of 9 rows and 3 columns is not blurred one way.
fn smeared_one_way(lines: &[f64], sharpness: Sharpness, weakest_box: f64) -> bool {
    let faint_in = |way: usize| {
        (8 * way..8 * way + 8)
            .filter(|&i| !is_box_line(i) && lines[i] < 0.3)
            .count()
    };
    // Lines across (way 0) fade when the picture is smeared up and down.
    let clear_across = faint_in(0) == 0 && sharpness.smeared_across();
    let clear_down = faint_in(1) == 0 && sharpness.smeared_down();
    weakest_box >= SMEARED_BOX_LINES && (clear_across || clear_down)
}

/// Pixels darker than their cell-sized neighbourhood by more than `by`.
fn dark_mask(rectified: &Mat, by: f64) -> Result<Mat> {
    let mut binary = Mat::default();
    imgproc::adaptive_threshold(
        rectified,
        &mut binary,
        255.0,
        imgproc::ADAPTIVE_THRESH_MEAN_C,
        imgproc::THRESH_BINARY_INV,
        CHECK_CELL + 1,
        by,
    )?;
    Ok(binary)
}

/// The share of `dark` covered by runs at least `min_run` long, where gaps of up to `max_gap`
/// inside a run (a faint, broken printed line) are bridged.
fn long_run_share(dark: &[bool], min_run: usize, max_gap: usize) -> f64 {
    let mut covered = 0;
    let mut start = None; // first dark position of the current run
    let mut last = 0; // last dark position seen
    for (t, &d) in dark.iter().enumerate() {
        if !d {
            continue;
        }
        match start {
            Some(s) if t - last <= max_gap + 1 => {
                let _ = s;
            }
            Some(s) => {
                if last + 1 - s >= min_run {
                    covered += last + 1 - s;
                }
                start = Some(t);
            }
            None => start = Some(t),
        }
        last = t;
    }
    if let Some(s) = start
        && last + 1 - s >= min_run
    {
        covered += last + 1 - s;
    }
    covered as f64 / dark.len().max(1) as f64
}

/// How much darker (gray levels) a straight stretch is than the paper on either side of it, at
/// `ALONG` points from `from` to `to` (grid coordinates of `image_from_grid`): how much darker
/// the darkest point near the stretch is than the darker of the two points `ACROSS` cells to
/// either side along `across` (so that a step from paper to a dark table is no line), at least
/// 0. None where a point falls outside the image.
fn darker_along(
    view: &GrayView,
    image_from_grid: &Homography,
    (from, to): ([f64; 2], [f64; 2]),
    across: [f64; 2],
) -> Option<Vec<f64>> {
    const ALONG: usize = 36;
    const ACROSS: f64 = 0.3;
    let (width, height) = (view.width as f64, view.height as f64);
    let at = |p: [f64; 2], o: f64| {
        let [x, y] = image_from_grid.apply([p[0] + across[0] * o, p[1] + across[1] * o]);
        ((0.0..width).contains(&x) && (0.0..height).contains(&y)).then(|| view.sample(x, y))
    };
    (0..ALONG)
        .map(|j| {
            let t = 0.05 + 0.9 * j as f64 / (ALONG - 1) as f64;
            let p = [
                from[0] + (to[0] - from[0]) * t,
                from[1] + (to[1] - from[1]) * t,
            ];
            let mut centre = f64::MAX;
            for o in [-0.1, -0.05, 0.0, 0.05, 0.1] {
                centre = centre.min(at(p, o)?);
            }
            Some((at(p, -ACROSS)?.min(at(p, ACROSS)?) - centre).max(0.0))
        })
        .collect()
}

/// A side is weak, and a corner through it may have been cut short, when it is less than this
/// share as dark along as the clearest side.
const WEAK_SIDE: f64 = 0.4;
/// A side moved out at one corner is a printed border when it is at least `UNCUT_GAIN` times as
/// dark along as before, between `WEAK_SIDE` and `UNCUT_MOST` times as dark as the clearest
/// side (a dark stripe or the edge of a finger is no border), and a line all along: at
/// `UNCUT_ALL_ALONG` of its points at least `WEAK_SIDE` times as dark as the clearest side.
const UNCUT_GAIN: f64 = 2.0;
const UNCUT_MOST: f64 = 1.5;
const UNCUT_ALL_ALONG: f64 = 0.8;

/// `quad`, with a corner that was cut short along a side (a blurred border fading at the corner,
/// so that the outline turned in along the first inner line) moved out to the printed border:
/// where a side is weak, its corners are tried one and two cells further out along the other
/// side through each, and the move that makes the weak side a printed line is taken.
fn uncut(view: &GrayView, quad: &Quad) -> Quad {
    let grid = Quad::UNIT.scaled(9.0).0;
    let Some(image_from_grid) = Homography::from_quads(&Quad(grid), quad) else {
        return *quad;
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    // Side i runs from corner i to corner i + 1; across it, outward, is the way its corner i
    // would move along side i - 1, and the same way for corner i + 1 along side i + 1.
    let outward = |c: usize, along: usize| {
        let (p, q) = (grid[c], grid[along]);
        [(p[0] - q[0]) / 9.0, (p[1] - q[1]) / 9.0]
    };
    let sides: Vec<Option<f64>> = (0..4)
        .map(|i| {
            let ends = (grid[i], grid[(i + 1) % 4]);
            darker_along(view, &image_from_grid, ends, outward(i, (i + 3) % 4)).map(|d| mean(&d))
        })
        .collect();
    let strongest = sides.iter().flatten().fold(0.0, |a: f64, &b| a.max(b));
    let mut best: Option<(f64, usize, [f64; 2])> = None;
    for (i, side) in sides.iter().enumerate() {
        let Some(now) = *side else { continue };
        if now >= WEAK_SIDE * strongest {
            continue;
        }
        for (c, fixed) in [(i, (i + 1) % 4), ((i + 1) % 4, i)] {
            let along = if c == i { (i + 3) % 4 } else { (i + 2) % 4 };
            let out = outward(c, along);
            // Cut one or two cells short, the side along holds 8 or 7 of the outline's ninths
            // where it was cut, and 9 at its other end: the border is looked for from 0.8 to
            // 1.4 ninths out, or 1.8 to 2.7.
            let steps = (16..=28).chain(36..=54).map(|n| n as f64 * 0.05);
            for ninths in steps {
                let moved = [grid[c][0] + out[0] * ninths, grid[c][1] + out[1] * ninths];
                let Some(then) = darker_along(view, &image_from_grid, (grid[fixed], moved), out)
                else {
                    continue;
                };
                let dark = mean(&then);
                let all_along = then.iter().filter(|&&d| d >= WEAK_SIDE * strongest).count() as f64
                    / then.len() as f64;
                let border = dark >= UNCUT_GAIN * now
                    && (WEAK_SIDE * strongest..=UNCUT_MOST * strongest).contains(&dark)
                    && all_along >= UNCUT_ALL_ALONG;
                if border && best.is_none_or(|b| dark > b.0) {
                    best = Some((dark, c, moved));
                }
            }
        }
    }
    let Some((dark, c, moved)) = best else {
        return *quad;
    };
    tracing::debug!(
        corner = c,
        strongest,
        dark,
        ?moved,
        ?quad,
        "an outline corner cut short: moved out to the border"
    );
    let mut uncut = *quad;
    uncut.0[c] = image_from_grid.apply(moved);
    uncut
}

/// Moves each side of `quad` onto the centre of the printed border line, measured at full
/// resolution, and returns where the fitted sides meet. `scale` is how much coarser the image
/// was where `quad` came from, which bounds how far the true border can be.
pub fn refine_corners(gray: &GrayView, quad: &Quad, scale: f64) -> Quad {
    let reach = 2.0 * scale + 3.0;
    let centre = quad.centroid();
    let mut lines = [None; 4];
    for (i, line) in lines.iter_mut().enumerate() {
        let (a, b) = (quad.0[i], quad.0[(i + 1) % 4]);
        *line = fit_side(gray, a, b, centre, reach);
    }
    let mut refined = *quad;
    for i in 0..4 {
        let (before, after) = (lines[(i + 3) % 4], lines[i]);
        if let (Some(l1), Some(l2)) = (before, after)
            && let Some(p) = intersect(l1, l2)
        {
            refined.0[i] = p;
        }
    }
    let longest = quad.sides().into_iter().fold(0.0, f64::max);
    let limit = reach + 0.06 * longest;
    if refined.max_corner_distance(quad) > limit || !refined.is_convex() {
        return *quad;
    }
    refined
}

/// A line as a point and a unit direction.
type Line = ([f64; 2], [f64; 2]);

/// Fits a line through the centre of the dark border near the side from `a` to `b`.
fn fit_side(
    gray: &GrayView,
    a: [f64; 2],
    b: [f64; 2],
    centre: [f64; 2],
    reach: f64,
) -> Option<Line> {
    const SAMPLES: usize = 48;
    const STEP: f64 = 0.5;
    let length = distance(a, b);
    let dir = [(b[0] - a[0]) / length, (b[1] - a[1]) / length];
    let mut normal = [-dir[1], dir[0]];
    let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    if (centre[0] - mid[0]) * normal[0] + (centre[1] - mid[1]) * normal[1] < 0.0 {
        normal = [-normal[0], -normal[1]];
    }
    let thickest = 0.04 * length + 2.0;
    let steps = ((2.0 * reach + thickest) / STEP) as usize + 3;
    let mut points = Vector::<Point2f>::new();
    let mut profile = vec![0.0; steps];
    for j in 0..SAMPLES {
        let s = 0.06 + 0.88 * j as f64 / (SAMPLES - 1) as f64;
        let p = [a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s];
        for (k, value) in profile.iter_mut().enumerate() {
            let t = -reach + k as f64 * STEP;
            *value = gray.sample(p[0] + normal[0] * t, p[1] + normal[1] * t);
        }
        if let Some(offset) = border_centre(&profile, reach, thickest, STEP) {
            points.push(Point2f::new(
                (p[0] + normal[0] * offset) as f32,
                (p[1] + normal[1] * offset) as f32,
            ));
        }
    }
    if points.len() < SAMPLES / 3 {
        return None;
    }
    let mut fitted = Vec4f::default();
    imgproc::fit_line(&points, &mut fitted, imgproc::DIST_HUBER, 0.0, 0.01, 0.01).ok()?;
    let [vx, vy, x0, y0] = fitted.0.map(|v| v as f64);
    Some(([x0, y0], [vx, vy]))
}

/// Where along an inward profile (starting `reach` outside the side) the dark border line's
/// centre lies, relative to the side: midway between its outer (light to dark) and inner
/// (dark to light) edges, each found to sub-sample precision.
fn border_centre(profile: &[f64], reach: f64, thickest: f64, step: f64) -> Option<f64> {
    let n = profile.len();
    let slope: Vec<f64> = (0..n)
        .map(|k| {
            if k == 0 || k + 1 == n {
                0.0
            } else {
                (profile[k + 1] - profile[k - 1]) / (2.0 * step)
            }
        })
        .collect();
    let outer_end = ((2.0 * reach) / step) as usize;
    let outer = (1..outer_end.min(n - 1)).min_by(|&i, &j| slope[i].total_cmp(&slope[j]))?;
    if slope[outer] > -3.0 {
        return None;
    }
    let inner_end = (outer + (thickest / step) as usize + 1).min(n - 1);
    let inner = (outer + 1..inner_end).max_by(|&i, &j| slope[i].total_cmp(&slope[j]))?;
    if slope[inner] < 0.3 * -slope[outer] {
        return None;
    }
    let position =
        |k: usize| -reach + (k as f64 + parabola_peak(slope[k - 1], slope[k], slope[k + 1])) * step;
    Some((position(outer) + position(inner)) / 2.0)
}

/// Offset of a peak from the middle of three samples, by the parabola through them.
pub(crate) fn parabola_peak(left: f64, mid: f64, right: f64) -> f64 {
    let curvature = left - 2.0 * mid + right;
    if curvature.abs() < 1e-9 {
        0.0
    } else {
        (0.5 * (left - right) / curvature).clamp(-0.5, 0.5)
    }
}

fn intersect((p, d): Line, (q, e): Line) -> Option<[f64; 2]> {
    let cross = d[0] * e[1] - d[1] * e[0];
    if cross.abs() < 1e-9 {
        return None;
    }
    let t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / cross;
    Some([p[0] + d[0] * t, p[1] + d[1] * t])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use opencv::core::{CV_8UC1, Rect};

    /// A white page with a Sudoku-like grid of `side` pixels at (`x`, `y`): thin cell lines,
    /// thick box lines, and a few blobs standing in for digits.
    pub(crate) fn drawn_grid(width: i32, height: i32, x: i32, y: i32, side: i32) -> Mat {
        let mut page =
            Mat::new_rows_cols_with_default(height, width, CV_8UC1, Scalar::all(235.0)).unwrap();
        let black = Scalar::all(20.0);
        for k in 0..=9 {
            let thickness = if k % 3 == 0 { 4 } else { 1 };
            let at = k * side / 9;
            imgproc::line(
                &mut page,
                Point::new(x + at, y),
                Point::new(x + at, y + side),
                black,
                thickness,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
            imgproc::line(
                &mut page,
                Point::new(x, y + at),
                Point::new(x + side, y + at),
                black,
                thickness,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        for (r, c) in [(0, 1), (2, 5), (4, 4), (7, 2), (8, 8)] {
            let cell = side / 9;
            let rect = Rect::new(
                x + c * cell + cell / 3,
                y + r * cell + cell / 4,
                cell / 3,
                cell / 2,
            );
            imgproc::rectangle(&mut page, rect, black, -1, imgproc::LINE_8, 0).unwrap();
        }
        page
    }

    #[test]
    fn pictures_are_shrunk_by_whole_factors_when_that_keeps_them_near_the_search_size() {
        // 1080p frames and phone photos: whole blocks of pixels.
        assert_eq!(shrink_factor(1920.0, WORK_SIDE), 2.0);
        assert_eq!(shrink_factor(4032.0, WORK_SIDE), 4.0);
        assert_eq!(shrink_factor(4032.0, FINE_WORK_SIDE), 2.0);
        // Halving 1280 or 1600 would leave too few pixels: shrunk to the search size itself.
        assert_eq!(shrink_factor(1280.0, WORK_SIDE), 1.25);
        assert_eq!(shrink_factor(1600.0, WORK_SIDE), 1.5625);
        // Small pictures are searched as they are.
        assert_eq!(shrink_factor(640.0, WORK_SIDE), 1.0);
    }

    #[test]
    fn finds_a_drawn_grid_with_subpixel_corners() {
        let page = drawn_grid(640, 480, 100, 60, 360);
        let found = find_grid(&page, Look::Only).unwrap().expect("grid");
        let truth = Quad([[100.0, 60.0], [460.0, 60.0], [460.0, 420.0], [100.0, 420.0]]);
        assert!(
            found.quad.max_corner_distance(&truth) < 1.0,
            "{:?}",
            found.quad
        );
        assert!(found.score > 0.5, "score {}", found.score);
    }

    #[test]
    fn an_outline_corner_cut_short_on_an_inner_line_is_moved_out_to_the_border() {
        // 40 px cells; blurred as a moving frame is.
        let sharp = drawn_grid(640, 480, 100, 60, 360);
        let mut page = Mat::default();
        imgproc::gaussian_blur_def(&sharp, &mut page, Size::new(9, 9), 3.0).unwrap();
        let view = GrayView::new(&page).unwrap();
        let truth = Quad([[100.0, 60.0], [460.0, 60.0], [460.0, 420.0], [100.0, 420.0]]);
        // Bottom-left corner on the first inner column line; top-left on the first row line.
        let mut cut_left = truth;
        cut_left.0[3] = [140.0, 420.0];
        let mut cut_top = truth;
        cut_top.0[0] = [100.0, 100.0];
        // Two cells short: moved out two.
        let mut two_short = truth;
        two_short.0[3] = [180.0, 420.0];
        for cut in [cut_left, cut_top, two_short] {
            // Moved out near the border, then onto it as every outline is (`find_dark_grid`).
            let moved = uncut(&view, &cut);
            assert!(
                moved.max_corner_distance(&truth) < 8.0,
                "{cut:?} -> {moved:?}"
            );
            let refined = refine_corners(&view, &moved, 1.0);
            assert!(
                refined.max_corner_distance(&truth) < 1.5,
                "{cut:?} -> {refined:?}"
            );
        }
        // Whole: left alone.
        assert_eq!(uncut(&view, &truth), truth);
    }

    #[test]
    fn a_pentagon_with_one_corner_cut_off_is_taken_as_its_quadrilateral_and_others_are_not() {
        // A square of side 100 with its top-left corner cut 15 along each side.
        let cut = [
            [15.0, 0.0],
            [100.0, 0.0],
            [100.0, 100.0],
            [0.0, 100.0],
            [0.0, 15.0],
        ];
        let quad = corner_uncut(&cut).expect("a cut corner");
        assert_eq!(quad.len(), 4);
        assert!(
            quad.iter().any(|p| distance(*p, [0.0, 0.0]) < 1e-6),
            "{quad:?}"
        );
        // A house: the sides beside its shortest (a wall) meet far below the floor's corner.
        let house = [
            [0.0, 40.0],
            [50.0, 0.0],
            [100.0, 40.0],
            [100.0, 100.0],
            [0.0, 100.0],
        ];
        assert_eq!(corner_uncut(&house), None);
        // A regular pentagon's sides meet far out: no quadrilateral cut short.
        let regular: Vec<[f64; 2]> = (0..5)
            .map(|i| {
                let a = i as f64 * std::f64::consts::TAU / 5.0;
                [50.0 * a.cos(), 50.0 * a.sin()]
            })
            .collect();
        assert_eq!(corner_uncut(&regular), None);
    }

    #[test]
    fn an_outline_with_a_corner_cut_off_gives_the_whole_quadrilateral() {
        // The ink outline of a grid (400 px) whose border faded across its top-left corner, a
        // third of the side along each way, with a ragged edge where the fade begins.
        let contour = Vector::<Point>::from_iter([
            Point::new(233, 100),
            Point::new(500, 100),
            Point::new(500, 500),
            Point::new(100, 500),
            Point::new(100, 233),
            Point::new(140, 190),
            Point::new(190, 140),
        ]);
        let quad = quad_of(&contour).unwrap().expect("a quadrilateral");
        let truth = Quad([
            [100.0, 100.0],
            [500.0, 100.0],
            [500.0, 500.0],
            [100.0, 500.0],
        ]);
        assert!(quad.max_corner_distance(&truth) < 1.0, "{quad:?}");
    }

    #[test]
    fn finds_a_grid_printed_light_on_dark() {
        let page = drawn_grid(640, 480, 120, 50, 378);
        let mut negative = Mat::default();
        opencv::core::bitwise_not(&page, &mut negative, &opencv::core::no_array()).unwrap();
        let found = find_grid(&negative, Look::Only).unwrap().expect("grid");
        assert_eq!(found.ink, Ink::Light);
        let truth = Quad([[120.0, 50.0], [498.0, 50.0], [498.0, 428.0], [120.0, 428.0]]);
        assert!(
            found.quad.max_corner_distance(&truth) < 1.0,
            "{:?}",
            found.quad
        );
        assert_eq!(
            find_grid(&page, Look::Only).unwrap().expect("grid").ink,
            Ink::Dark
        );
    }

    #[test]
    fn a_grid_smeared_side_to_side_is_found_in_a_frame_and_said_to_be() {
        // Cells of 42 pixels smeared by 12 (the camera moving during the exposure): the thin
        // cell lines down fade below what a frame asks of every cell line, the lines across and
        // the thicker box lines still show.
        let page = drawn_grid(640, 480, 120, 50, 378);
        let mut smeared = Mat::default();
        imgproc::blur_def(&page, &mut smeared, Size::new(12, 1)).unwrap();
        let found = find_grid(&smeared, Look::OneOfMany)
            .unwrap()
            .expect("smeared grid");
        assert!(found.smeared);
        let truth = Quad([[120.0, 50.0], [498.0, 50.0], [498.0, 428.0], [120.0, 428.0]]);
        assert!(
            found.quad.max_corner_distance(&truth) < 3.0,
            "{:?}",
            found.quad
        );
        let sharp = find_grid(&page, Look::OneOfMany).unwrap().expect("grid");
        assert!(!sharp.smeared);
        // Evenly blurred as much, nothing is smeared one way: the faded cell lines fail it.
        let mut blurred = Mat::default();
        imgproc::blur_def(&page, &mut blurred, Size::new(16, 16)).unwrap();
        assert!(find_grid(&blurred, Look::OneOfMany).unwrap().is_none());
    }

    #[test]
    fn faint_cell_lines_pass_in_a_photo_but_not_in_a_frame() {
        // Dark box lines; cell lines that show over only a quarter of their length, the rest
        // washed out (an app's pale lines under glare).
        let mut page =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(235.0)).unwrap();
        let (x, y, side) = (130, 50, 378);
        for k in 0..=9 {
            let at = k * side / 9;
            let (thickness, length) = if k % 3 == 0 { (3, side) } else { (1, side / 4) };
            for (from, to) in [
                (Point::new(x + at, y), Point::new(x + at, y + length)),
                (Point::new(x, y + at), Point::new(x + length, y + at)),
            ] {
                imgproc::line(
                    &mut page,
                    from,
                    to,
                    Scalar::all(40.0),
                    thickness,
                    imgproc::LINE_8,
                    0,
                )
                .unwrap();
            }
        }
        assert!(find_grid(&page, Look::Only).unwrap().is_some());
        assert!(find_grid(&page, Look::OneOfMany).unwrap().is_none());
    }

    #[test]
    fn blank_page_and_chessboard_have_no_grid() {
        let blank = Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(200.0)).unwrap();
        assert!(find_grid(&blank, Look::Only).unwrap().is_none());

        let mut board =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(230.0)).unwrap();
        imgproc::rectangle(
            &mut board,
            Rect::new(119, 39, 402, 402),
            Scalar::all(20.0),
            2,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        for r in 0..8 {
            for c in 0..8 {
                if (r + c) % 2 == 1 {
                    let rect = Rect::new(120 + c * 50, 40 + r * 50, 50, 50);
                    imgproc::rectangle(&mut board, rect, Scalar::all(20.0), -1, imgproc::LINE_8, 0)
                        .unwrap();
                }
            }
        }
        assert!(find_grid(&board, Look::Only).unwrap().is_none());
    }

    #[test]
    fn calendar_page_has_no_grid() {
        // A month: 7 columns, 6 weeks of boxes with a number in each.
        let mut page =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(230.0)).unwrap();
        let (x, y, w, h) = (70, 40, 490, 420);
        let black = Scalar::all(25.0);
        for c in 0..=7 {
            imgproc::line(
                &mut page,
                Point::new(x + c * w / 7, y),
                Point::new(x + c * w / 7, y + h),
                black,
                2,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        for r in 0..=6 {
            imgproc::line(
                &mut page,
                Point::new(x, y + r * h / 6),
                Point::new(x + w, y + r * h / 6),
                black,
                2,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        for day in 0..42 {
            let at = Point::new(x + (day % 7) * w / 7 + 8, y + (day / 7) * h / 6 + 30);
            imgproc::put_text(
                &mut page,
                &format!("{}", day % 31 + 1),
                at,
                imgproc::FONT_HERSHEY_SIMPLEX,
                0.8,
                black,
                2,
                imgproc::LINE_8,
                false,
            )
            .unwrap();
        }
        assert!(find_grid(&page, Look::Only).unwrap().is_none());
    }

    /// Draws a crossword of `squares` a side, `side` pixels across at (`x`, `y`), onto `page`:
    /// thin lines and a scatter of black squares (a fixed, symmetric pattern).
    fn draw_crossword(page: &mut Mat, x: i32, y: i32, side: i32, squares: i32) {
        let black = Scalar::all(20.0);
        for k in 0..=squares {
            let at = k * side / squares;
            for (from, to) in [
                ((x + at, y), (x + at, y + side)),
                ((x, y + at), (x + side, y + at)),
            ] {
                let (from, to) = (Point::new(from.0, from.1), Point::new(to.0, to.1));
                imgproc::line(page, from, to, black, 2, imgproc::LINE_8, 0).unwrap();
            }
        }
        for r in 0..squares {
            for c in 0..squares {
                if (r * 7 + c * 3) % 11 == 0 || (r * 5 + c * 2) % 13 == 4 {
                    let (x0, y0) = (x + c * side / squares, y + r * side / squares);
                    let (x1, y1) = (x + (c + 1) * side / squares, y + (r + 1) * side / squares);
                    let rect = Rect::new(x0, y0, x1 - x0, y1 - y0);
                    imgproc::rectangle(page, rect, black, -1, imgproc::LINE_8, 0).unwrap();
                }
            }
        }
    }

    #[test]
    fn a_crossword_is_no_sudoku_and_the_sudoku_beside_it_is_found() {
        for squares in [13, 15, 17, 21] {
            let mut page =
                Mat::new_rows_cols_with_default(600, 800, CV_8UC1, Scalar::all(235.0)).unwrap();
            draw_crossword(&mut page, 100, 40, 520, squares);
            let found = find_grid(&page, Look::Only).unwrap();
            assert!(
                found.is_none(),
                "a crossword of {squares} squares a side taken for a Sudoku: {:?}",
                found.map(|d| d.quad)
            );
        }
        // Newspapers print them side by side; the crossword, larger, was searched first.
        let mut page = drawn_grid(1000, 600, 560, 90, 400);
        draw_crossword(&mut page, 30, 60, 480, 15);
        let found = find_grid(&page, Look::Only).unwrap().expect("the Sudoku");
        let truth = Quad([[560.0, 90.0], [960.0, 90.0], [960.0, 490.0], [560.0, 490.0]]);
        assert!(
            found.quad.max_corner_distance(&truth) < 4.0,
            "{:?}",
            found.quad
        );
    }

    #[test]
    fn a_grid_under_a_title_bar_printed_flush_against_it_is_found() {
        // A newspaper's heading: white letters on a black bar as wide as the grid, touching
        // its top border. The bar's letters joined the grid's outline, which then framed no grid.
        let (x, y, side) = (150, 170, 420);
        let mut page = drawn_grid(720, 640, x, y, side);
        let bar = Rect::new(x - 2, y - 54, side + 4, 56);
        imgproc::rectangle(&mut page, bar, Scalar::all(20.0), -1, imgproc::LINE_8, 0).unwrap();
        imgproc::put_text(
            &mut page,
            "SUDOKU  No. 4,512  ***",
            Point::new(x + 30, y - 12),
            imgproc::FONT_HERSHEY_DUPLEX,
            1.25,
            Scalar::all(240.0),
            2,
            imgproc::LINE_AA,
            false,
        )
        .unwrap();
        let mut blurred = Mat::default();
        imgproc::gaussian_blur(&page, &mut blurred, Size::new(0, 0), 1.2, 0.0, 4).unwrap();
        let page = blurred;
        let found = find_grid(&page, Look::Only).unwrap().expect("the grid");
        let (x0, y0, x1, y1) = (x as f64, y as f64, (x + side) as f64, (y + side) as f64);
        let truth = Quad([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]);
        // The top border runs into the bar: no line there lies darker than both its sides to
        // refine the corners onto (the photo pipeline then follows the printed lines).
        let off = found.quad.max_corner_distance(&truth) / side as f64;
        assert!(off < 0.015, "{:?}", found.quad);
    }

    #[test]
    fn a_grid_with_a_crease_running_on_across_the_page_is_found() {
        // A fold's crease, fainter than the print, crosses the grid and runs on to the page's
        // edges: it joins the grid's outline, whose hull then reaches to where it ends.
        let (x, y, side) = (200, 150, 360);
        let mut page = drawn_grid(800, 640, x, y, side);
        for (from, to) in [((330, 0), (450, 640)), ((0, 390), (800, 270))] {
            imgproc::line(
                &mut page,
                Point::new(from.0, from.1),
                Point::new(to.0, to.1),
                Scalar::all(150.0),
                3,
                imgproc::LINE_AA,
                0,
            )
            .unwrap();
        }
        let found = find_grid(&page, Look::Only).unwrap().expect("the grid");
        let (x0, y0, x1, y1) = (x as f64, y as f64, (x + side) as f64, (y + side) as f64);
        let truth = Quad([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]);
        let off = found.quad.max_corner_distance(&truth) / side as f64;
        assert!(off < 0.01, "{:?}", found.quad);
    }

    #[test]
    fn framed_text_has_no_grid() {
        // A boxed paragraph of small print, as on a newspaper page next to the puzzle.
        let mut page =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(230.0)).unwrap();
        let black = Scalar::all(25.0);
        imgproc::rectangle(
            &mut page,
            Rect::new(100, 40, 420, 400),
            black,
            3,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let words = [
            "sudoku",
            "puzzle",
            "the",
            "of",
            "weather",
            "today",
            "and",
            "in",
            "a",
            "newspaper",
            "column",
        ];
        for line in 0..26 {
            let text: Vec<&str> = (0..9)
                .map(|w| words[(line * 7 + w * 3) % words.len()])
                .collect();
            let at = Point::new(110, 58 + line as i32 * 15);
            imgproc::put_text(
                &mut page,
                &text.join(" "),
                at,
                imgproc::FONT_HERSHEY_SIMPLEX,
                0.45,
                black,
                1,
                imgproc::LINE_AA,
                false,
            )
            .unwrap();
        }
        assert!(find_grid(&page, Look::Only).unwrap().is_none());
    }

    #[test]
    fn long_runs_count_and_short_strokes_do_not() {
        let parse = |s: &str| s.chars().map(|c| c == '#').collect::<Vec<bool>>();
        // A broken line of 12 with gaps of 2 counts whole; strokes of 3 do not.
        assert_eq!(
            long_run_share(&parse("####..####..####........###....###."), 10, 2),
            16.0 / 35.0
        );
        assert_eq!(long_run_share(&parse("###....###....###"), 10, 2), 0.0);
        assert_eq!(long_run_share(&parse("##########"), 10, 0), 1.0);
    }

    #[test]
    fn parabola_peak_finds_the_vertex() {
        // Samples of -(x - 0.25)^2 at -1, 0, 1.
        let f = |x: f64| -(x - 0.25f64).powi(2);
        assert!((parabola_peak(f(-1.0), f(0.0), f(1.0)) - 0.25).abs() < 1e-9);
    }

    #[test]
    fn a_puzzle_covered_is_not_found_again_and_the_one_beside_it_is() {
        let mut page = drawn_grid(900, 500, 40, 60, 360);
        // A second grid beside the first, smaller.
        let second = drawn_grid(360, 360, 20, 20, 300);
        second
            .copy_to(&mut Mat::roi_mut(&mut page, Rect::new(500, 80, 360, 360)).unwrap())
            .unwrap();
        let find = |gray: &Mat| find_large_grid(gray, Ink::Dark, Look::Only).unwrap();
        let first = find(&page).expect("the larger grid");
        assert!(first.quad.contains([220.0, 240.0]), "{:?}", first.quad);
        cover(&mut page, &first.quad).unwrap();
        let next = find(&page).expect("the grid beside it");
        assert!(next.quad.contains([670.0, 250.0]), "{:?}", next.quad);
        assert!(!overlapping(&first.quad, &next.quad));
        cover(&mut page, &next.quad).unwrap();
        assert_eq!(find(&page), None);
    }
}
