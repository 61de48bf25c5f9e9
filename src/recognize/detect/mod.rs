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

use opencv::core::{Mat, Point, Scalar, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::Result;
use crate::geometry::{Homography, Quad, distance, warp};
use crate::raster::{GrayView, Histogram};

mod cards;
mod check;
mod corners;
mod outlines;

pub use cards::{
    find_borderless_grid, find_borderless_grid_in_frame, find_picture_filling_grid,
    find_small_borderless_grid, lattice_shows,
};
pub use check::grid_score;
use check::{GridCheck, check_grid, dark_mask, long_run_share};
pub(crate) use corners::parabola_peak;
pub use corners::refine_corners;
use corners::uncut;
pub use outlines::outline_candidates;
use outlines::{FAINT_INK_BELOW_MEAN, masks, masks_below, outlines};

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
    /// cell lines still show on the whole each way (see [`grid_score`]), or well above what the
    /// cells' middles show (cell lines printed pale, out of focus) where the candidate is no box
    /// of a larger grid.
    Only,
    /// A video frame: every cell line must show, but for cell lines printed pale (as a photo's,
    /// not a box of a larger grid) on a frame not smeared with every box line whole; a grid too
    /// blurred or washed out for that is found a frame or two later, rather than risk a wrong
    /// outline that is then followed.
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
    /// What the outline is.
    pub edge: Edge,
    /// Whether the outline runs onto the picture's edge at a corner: the grid goes on beyond
    /// it, and that corner was put where the edge cuts it, not where it is printed (see
    /// [`outline_cut_by_the_edge`]).
    pub cut: bool,
}

/// What a grid's outline is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    /// Its printed border line.
    Line,
    /// Its border line as a screen draws it, light on dark (a dark mode; paper is not printed
    /// so): the cells exactly even, so that a border lying off the lattice of the lines inside is
    /// something else (the app's page between the grid and a phone's dark bezel, a ridge like a
    /// thick border line in the negative; see `recognize::lines`).
    ScreenLine,
    /// Where an app's card, or its tiles, meet the page around them: no printed line (see
    /// [`find_borderless_grid`]).
    Card,
}

/// Finds the largest Sudoku grid in a gray image, printed dark on light or else light on dark;
/// None when there is none.
///
/// The picture is searched shrunk to [`WORK_SIDE`]; a photo in which nothing is found that way
/// is searched again by [`find_small_grid`] (a video frame every few frames, see
/// [`crate::video::vision`]), and then for a grid with no printed border
/// ([`find_borderless_grid`]: an app's card or tiles).
pub fn find_grid(gray: &Mat, look: Look) -> Result<Option<Detection>> {
    match find_grid_at(gray, look, Scale::COARSE)? {
        None if look == Look::Only => match find_small_grid(gray, look)? {
            None => find_borderless_grid(gray),
            found => Ok(found),
        },
        found => Ok(found),
    }
}

/// [`find_grid`]'s first search alone, at [`WORK_SIDE`] (where a grid a tenth of the picture
/// across or larger shows its cell lines), for a grid printed in `ink`: another puzzle
/// beside one found is printed as it is, and looking in one ink halves the search.
pub fn find_large_grid(gray: &Mat, ink: Ink, look: Look) -> Result<Option<Detection>> {
    find_in_ink(gray, ink, look, Scale::COARSE)
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

/// [`find_small_grid`] for a grid printed in `ink` only: a video frame's finer search looks in
/// one ink at a time, each in turn, as both cost a 1080p frame 25-30 ms.
pub fn find_small_grid_in(gray: &Mat, ink: Ink, look: Look) -> Result<Option<Detection>> {
    if gray.cols().max(gray.rows()) as f64 <= WORK_SIDE {
        return Ok(None);
    }
    find_in_ink(gray, ink, look, Scale::FINE)
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

/// [`find_grid`]'s first search in faint ink only (see `Pass::Faint`), for a photo whose grid
/// the firmer ink outlined short: a blurred page darkened across its bottom boxes, its border
/// there too faint to close the outline, was outlined down to its second box line, the six
/// rows above passed the grid check as nine (curved), and nothing was solved (Wicht's
/// `image209` lit unevenly and tinted, session 75).
pub fn find_faint_grid(gray: &Mat) -> Result<Option<Detection>> {
    find_in_ink(gray, Ink::Dark, Look::Only, Scale::FAINT)
}

/// How a picture is searched: shrunk to at most `side` pixels, for outlines whose every side
/// is at least `smallest` of the shrunk picture's shorter side (and 54 pixels); in faint ink
/// only, or firmer ink first.
#[derive(Debug, Clone, Copy)]
struct Scale {
    side: f64,
    smallest: f64,
    faint_only: bool,
}

impl Scale {
    const COARSE: Scale = Scale {
        side: WORK_SIDE,
        smallest: 0.12,
        faint_only: false,
    };
    const FAINT: Scale = Scale {
        faint_only: true,
        ..Scale::COARSE
    };
    const FINE: Scale = Scale {
        side: FINE_WORK_SIDE,
        smallest: 0.12,
        faint_only: false,
    };
    /// See [`find_smallest_grid`]: outlines down to 0.04 of the picture's shorter side (120 px
    /// in a 4000x3000 photo, cells of 13 px), where 0.12 would ask 363 px.
    const FINEST: Scale = Scale {
        side: FINEST_WORK_SIDE,
        smallest: 0.04,
        faint_only: false,
    };
}

/// Finds the largest grid, dark on light or else light on dark, in `gray` searched at `scale`.
fn find_grid_at(gray: &Mat, look: Look, scale: Scale) -> Result<Option<Detection>> {
    match find_in_ink(gray, Ink::Dark, look, scale)? {
        None => find_in_ink(gray, Ink::Light, look, scale),
        found => Ok(found),
    }
}

/// Finds the largest grid printed in `ink` in `gray` searched at `scale`. A light one is a
/// screen's in dark mode, its border drawn as a screen draws it ([`Edge::ScreenLine`]).
fn find_in_ink(gray: &Mat, ink: Ink, look: Look, scale: Scale) -> Result<Option<Detection>> {
    let mut negative = Mat::default();
    let found = find_dark_grid(ink.as_dark(gray, &mut negative)?, look, scale)?;
    Ok(found.map(|d| match ink {
        Ink::Dark => d,
        Ink::Light => Detection {
            ink,
            edge: Edge::ScreenLine,
            ..d
        },
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
    let mut found = None;
    if !search.faint_only {
        found = first_grid(work, &ink, Pass::Ink, look, search.smallest)?;
        if found.is_none() {
            found = first_grid(work, &dilated(&ink)?, Pass::Closed, look, search.smallest)?;
        }
    }
    // In a photo, broad dark print too: a title bar printed flush against the grid (white
    // letters on black) is outlined with it and left out again (see [`trimmed`]). Its letters
    // can join the grid's ink outline, which then frames no grid, frames one with a corner
    // pulled into the bar (a red bar under the grid: 1.4 cells off, still 0.35 once the lines
    // were followed), or leaves only a box of the grid to be found (an app's pale cell lines,
    // photographed): the grid the bar is left out of is taken instead when it shows more
    // clearly, or holds the one found.
    if look == Look::Only
        && !search.faint_only
        && let Some(inside) = first_grid(work, &dark, Pass::WithBars, look, search.smallest)?
        && found
            .as_ref()
            .is_none_or(|f| bar_left_out_instead(f, &inside))
    {
        found = Some(inside);
    }
    // A photo has one look: fainter ink before giving up (a page out of focus). A video frame
    // waits for a sharper one rather than pay for this on every frame without a grid.
    if look == Look::Only && found.is_none() {
        let (_, faint) = masks_below(work, FAINT_INK_BELOW_MEAN)?;
        found = first_grid(work, &faint, Pass::Faint, look, search.smallest)?;
        if found.is_none() {
            found = first_grid(work, &dilated(&faint)?, Pass::Faint, look, search.smallest)?;
        }
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
        edge: Edge::Line,
        cut: check.cut,
    }))
}

/// Whether a corner of `outline` (pixels of `picture`) lies on the picture's edge, within 1.5
/// pixels: the ink's outline of a grid going on beyond the picture runs along the
/// edge, and its corner there is where the edge cuts the grid. Refined onto the border that
/// shows, such a corner moved further in: a bowed page held with its top-left corner 10-60 px
/// above a video's frame was outlined with that corner at `(232, 0)`, refined to `(245, 13)`,
/// half a cell below where it is printed, and drawn so for 200 frames (`oblique.py
/// 01_13_honor_view_10_1.jpg --bend 0.044 --distance 0.76`).
pub fn outline_cut_by_the_edge(outline: &Quad, picture: &Mat) -> bool {
    let (w, h) = (picture.cols() as f64, picture.rows() as f64);
    outline.0.iter().any(|&[x, y]| {
        x < ON_THE_EDGE || y < ON_THE_EDGE || x > w - 1.0 - ON_THE_EDGE || y > h - 1.0 - ON_THE_EDGE
    })
}

/// See [`outline_cut_by_the_edge`] (pixels of the picture searched).
const ON_THE_EDGE: f64 = 1.5;

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

/// The first (largest) outline in `mask` that frames a grid, and how clearly; in a photo, one
/// running onto the picture's edge only when no grid whole in the picture frames more clearly.
/// `smallest`: see [`Scale`].
fn first_grid(
    work: &Mat,
    mask: &Mat,
    pass: Pass,
    look: Look,
    smallest: f64,
) -> Result<Option<(Quad, GridCheck)>> {
    let work_view = GrayView::new(work)?;
    // A photo's outline running onto the picture's edge, held while the rest are looked at: a
    // pattern the page lies on (graph paper, tiles) has lines near the ninths of any outline
    // over it, and the picture's own frame passed the grid check at 0.55 around the puzzle.
    let mut cut_held: Option<(Quad, GridCheck)> = None;
    for rivals in outlines(mask, smallest)? {
        let mut best: Option<(Quad, GridCheck)> = None;
        for outline in rivals {
            // Outlined with the bars, a shape is only what lies inside it once a bar is left
            // out: anything else framing a grid was outlined before.
            let (quad, mut check) = match pass {
                Pass::WithBars => match trimmed(work, &outline.quad, look)? {
                    Some(inside) => inside,
                    None => continue,
                },
                _ => checked(work, &work_view, &outline.quad, look)?,
            };
            check.cut = outline_cut_by_the_edge(&outline.quad, work);
            tracing::trace!(?quad, score = check.score, ?pass, "grid candidate");
            if check.score >= outline.least_score()
                && best.as_ref().is_none_or(|(_, b)| check.score > b.score)
            {
                best = Some((quad, check));
            }
        }
        let Some(found) = best else { continue };
        match &cut_held {
            None if look == Look::Only && found.1.cut => cut_held = Some(found),
            None => return Ok(Some(found)),
            // A grid whole in the picture and framed more clearly is the puzzle.
            Some((_, held)) if !found.1.cut && !found.1.pale && found.1.score > held.score => {
                tracing::trace!(quad = ?found.0, "a grid inside a pattern running off the picture");
                return Ok(Some(found));
            }
            Some(_) => {}
        }
    }
    Ok(cut_held)
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
    let (quad, check) = if refined_check.score >= outline_check.score {
        (refined, refined_check)
    } else {
        (*outline, outline_check)
    };
    if check.pale && box_of_a_larger_grid(work, view, &quad)? {
        tracing::trace!(
            ?quad,
            "a box of a larger grid, not a grid with pale cell lines"
        );
        return Ok((quad, GridCheck::NONE));
    }
    Ok((quad, check))
}

/// Whether the candidate at `quad` in `work` (`view`) is one 3x3 box of a larger grid: taken
/// for its pale cell lines, a box's cell lines (its ninths) can be its digits' strokes (a bowed
/// page's corner box was taken so, and read as no puzzle: `cargo bench --bench curved --
/// --bowed-stills 0.5`). A box has the grid's lines run on past three or four of its corners;
/// failing that (a line hidden), the larger grid around it, whole in the picture, passes the
/// grid check. That larger grid, extrapolated three times the box's size from its corners,
/// misses the printed one on a bowed page or under strong perspective.
fn box_of_a_larger_grid(work: &Mat, view: &GrayView, quad: &Quad) -> Result<bool> {
    if corners_with_lines_running_on(view, quad) >= 3 {
        return Ok(true);
    }
    let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, quad) else {
        return Ok(false);
    };
    let (width, height) = (work.cols() as f64, work.rows() as f64);
    let inside = |[x, y]: [f64; 2]| (0.0..width).contains(&x) && (0.0..height).contains(&y);
    for (column, row) in (0..3).flat_map(|c| (0..3).map(move |r| (c as f64, r as f64))) {
        let unit = [[0.0, 0.0], [3.0, 0.0], [3.0, 3.0], [0.0, 3.0]];
        let larger = Quad(unit.map(|[u, v]| image_from_grid.apply([u - column, v - row])));
        // The larger grid as a photo's is judged: a video frame's grid under glare shows its
        // cell lines too faint for that look, and one box of it, its cell lines gone, was
        // taken for the grid (`glare:01_01`).
        if larger.0.iter().all(|&p| inside(p)) && check_grid(work, &larger, Look::Only)?.score > 0.0
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// How many corners of `quad` have a side whose printed line runs on beyond them for
/// [`RUN_ON_CELLS`]: a 3x3 box of a larger grid has the grid's lines run on past three or four
/// of its corners, a grid has paper beyond its own.
fn corners_with_lines_running_on(view: &GrayView, quad: &Quad) -> usize {
    let cell = quad.mean_side() / 9.0;
    (0..4)
        .filter(|&i| {
            [quad.0[(i + 3) % 4], quad.0[(i + 1) % 4]]
                .into_iter()
                .any(|other| line_runs_on(view, quad.0[i], other, cell))
        })
        .count()
}

/// How far beyond a corner [`line_runs_on`] follows a line: this many cells, in steps of
/// [`RUN_ON_STEP`], from a start [`RUN_ON_FROM`] out (past a blurred crossing).
const RUN_ON_CELLS: f64 = 2.0;
const RUN_ON_STEP: f64 = 0.125;
const RUN_ON_FROM: f64 = 0.25;
/// A line runs on where it is at least this share as dark beyond the corner as before it...
const RUNS_ON_DARK: f64 = 0.5;
/// ...at this share of the points looked at.
const RUNS_ON_ALONG: f64 = 0.85;
/// The least darkness (gray levels below the paper) a line must show before the corner to be
/// looked for beyond it.
const RUN_ON_LINE_SHOWS: f64 = 20.0;

/// Whether the printed line along the side from `corner` towards `other` runs on beyond
/// `corner` ([`RUN_ON_CELLS`]), as dark as before it ([`RUNS_ON_DARK`]): `cell` is the
/// candidate's cell. The line is followed step by step, a little across at each (the lines of
/// a bowed page curve away from a box's sides). False where a point falls outside the picture
/// or no line shows before the corner.
fn line_runs_on(view: &GrayView, corner: [f64; 2], other: [f64; 2], cell: f64) -> bool {
    let length = distance(corner, other).max(1e-9);
    let out = [
        (corner[0] - other[0]) / length,
        (corner[1] - other[1]) / length,
    ];
    let normal = [-out[1], out[0]];
    let at = |along: f64, across: f64| {
        let q = [
            corner[0] + out[0] * along + normal[0] * across,
            corner[1] + out[1] * along + normal[1] * across,
        ];
        view.contains(q).then(|| view.sample(q[0], q[1]))
    };
    // How much darker the line is `along` (searched within `reach` of `across`) than the
    // lighter of the two points half a cell to either side, and where across it is.
    let darkness = |along: f64, across: f64, reach: f64| -> Option<(f64, f64)> {
        let steps = (2.0 * reach).ceil() as usize;
        let mut darkest = (f64::MAX, across);
        for k in 0..=steps {
            let o = across - reach + 2.0 * reach * k as f64 / steps.max(1) as f64;
            let value = at(along, o)?;
            if value < darkest.0 {
                darkest = (value, o);
            }
        }
        let paper = at(along, darkest.1 - 0.5 * cell)?.max(at(along, darkest.1 + 0.5 * cell)?);
        Some(((paper - darkest.0).max(0.0), darkest.1))
    };
    // Followed from RUN_ON_CELLS before the corner (found there within 0.3 of a cell of the
    // side) to as far beyond it, up to 0.06 of a cell across at each step but where it crosses
    // the line at the corner (all dark there), never more than half a cell off the side.
    let steps = (RUN_ON_CELLS / RUN_ON_STEP).round() as i32;
    let Some((_, mut across)) = darkness(-RUN_ON_CELLS * cell, 0.0, 0.3 * cell) else {
        return false;
    };
    let (mut before, mut beyond) = (Vec::new(), Vec::new());
    for j in -steps..=steps {
        let along = j as f64 * RUN_ON_STEP;
        let reach = if along.abs() < RUN_ON_FROM {
            0.0
        } else {
            (0.06 * cell).max(1.0)
        };
        let Some((dark, found)) = darkness(along * cell, across, reach) else {
            return false;
        };
        across = found.clamp(-0.5 * cell, 0.5 * cell);
        if along <= -RUN_ON_FROM {
            before.push(dark);
        } else if along >= RUN_ON_FROM {
            beyond.push(dark);
        }
    }
    let line = before.iter().sum::<f64>() / before.len() as f64;
    let dark_beyond = beyond.iter().filter(|&&d| d >= RUNS_ON_DARK * line).count();
    line >= RUN_ON_LINE_SHOWS && dark_beyond as f64 >= RUNS_ON_ALONG * beyond.len() as f64
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
    /// Thin strokes only a little darker than around them, in a photo where nothing was found
    /// (a page blurred out of focus).
    Faint,
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
        let dark = (0..n).map(|t| if horizontal { firm.get(t, i) } else { firm.get(i, t) } > 0);
        long_run_share(dark, CHECK_CELL as usize / 2, MAX_GAP) >= ACROSS_THE_OUTLINE
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
    Histogram::of(gray, 1).level_at(0.9)
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
    fn a_grid_going_on_beyond_the_picture_s_edge_is_found_cut() {
        let whole = find_grid(&drawn_grid(640, 480, 60, 40, 360), Look::OneOfMany)
            .unwrap()
            .expect("a grid whole in view");
        assert!(!whole.cut);
        // Its top border 8 px above the picture: outlined along the edge.
        let beyond = find_grid(&drawn_grid(640, 480, 60, -8, 360), Look::OneOfMany)
            .unwrap()
            .expect("a grid cut by the edge");
        assert!(beyond.cut, "{:?}", beyond.quad);
    }

    #[test]
    fn a_grid_on_a_page_laid_on_graph_paper_is_found_not_the_paper() {
        // Graph paper or tiles all round the page, ruled every `spacing` px: its lines fall
        // near the ninths of the picture's own frame, which passed the grid check.
        for spacing in [25, 40, 60, 90] {
            let grid = drawn_grid(1000, 750, 330, 200, 360);
            let mut picture =
                Mat::new_rows_cols_with_default(750, 1000, CV_8UC1, Scalar::all(200.0)).unwrap();
            for at in (0..1000).step_by(spacing) {
                let (a, b) = (Point::new(at, 0), Point::new(at, 750));
                imgproc::line(&mut picture, a, b, Scalar::all(80.0), 2, imgproc::LINE_8, 0)
                    .unwrap();
                let (a, b) = (Point::new(0, at), Point::new(1000, at));
                imgproc::line(&mut picture, a, b, Scalar::all(80.0), 2, imgproc::LINE_8, 0)
                    .unwrap();
            }
            // The page, 80 px of white round the grid, laid on the paper.
            let page = Rect::new(250, 120, 520, 520);
            Mat::roi(&grid, page)
                .unwrap()
                .copy_to(&mut Mat::roi_mut(&mut picture, page).unwrap())
                .unwrap();
            let found = find_grid(&picture, Look::Only)
                .unwrap()
                .unwrap_or_else(|| panic!("ruled every {spacing} px: nothing found"));
            let truth = Quad([
                [330.0, 200.0],
                [690.0, 200.0],
                [690.0, 560.0],
                [330.0, 560.0],
            ]);
            assert!(
                found.quad.max_corner_distance(&truth) < 2.0,
                "ruled every {spacing} px: {:?}",
                found.quad
            );
        }
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
    fn a_grid_whose_border_fades_across_a_corner_is_found_with_that_corner() {
        // Cells of 40 px; the print faded across the top-left corner, from 1.3 cells along the
        // top to 2.7 cells down the left side (a blurred newspaper grid sliding into view):
        // too shallow a cut for the outline's first look, which put the corner where it
        // begins, on the top border, and framed no grid.
        let mut page = drawn_grid(640, 480, 100, 60, 360);
        let faded = Vector::<Point>::from_iter([
            Point::new(152, 60),
            Point::new(152, 20),
            Point::new(60, 20),
            Point::new(60, 168),
            Point::new(100, 168),
        ]);
        imgproc::fill_poly_def(
            &mut page,
            &Vector::<Vector<Point>>::from_iter([faded]),
            Scalar::all(235.0),
        )
        .unwrap();
        let truth = Quad([[100.0, 60.0], [460.0, 60.0], [460.0, 420.0], [100.0, 420.0]]);
        for look in [Look::Only, Look::OneOfMany] {
            let found = find_grid(&page, look).unwrap().expect("grid");
            assert!(
                found.quad.max_corner_distance(&truth) < 2.0,
                "{look:?}: {:?}",
                found.quad
            );
        }
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
    fn a_search_in_one_ink_finds_a_grid_printed_so_as_the_search_in_both_does() {
        let page = drawn_grid(640, 480, 120, 50, 378);
        let mut negative = Mat::default();
        opencv::core::bitwise_not(&page, &mut negative, &opencv::core::no_array()).unwrap();
        for (picture, ink, other) in [
            (&page, Ink::Dark, Ink::Light),
            (&negative, Ink::Light, Ink::Dark),
        ] {
            let both = find_grid(picture, Look::OneOfMany).unwrap().expect("grid");
            let one = find_large_grid(picture, ink, Look::OneOfMany).unwrap();
            // The same grid, said to be printed the same way (a dark-mode screen's border
            // is placed as a screen draws it: `Edge::ScreenLine`).
            assert_eq!(one, Some(both), "{ink:?}");
            let in_other = find_large_grid(picture, other, Look::OneOfMany).unwrap();
            assert!(in_other.is_none(), "{ink:?} found as {in_other:?}");
        }
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

    /// Where [`light_grid_blurred`] has its grid.
    const LIGHT_GRID: Quad = Quad([[200.0, 80.0], [650.0, 80.0], [650.0, 530.0], [200.0, 530.0]]);

    /// A newspaper's grid with its cell lines printed thin and light grey between black box
    /// lines, a clue in a third of the cells, photographed out of focus at half the print's
    /// resolution: the cell lines show along a fifth of their length, the digits across the
    /// cells' middles.
    fn light_grid_blurred() -> Mat {
        let mut page =
            Mat::new_rows_cols_with_default(1200, 1600, CV_8UC1, Scalar::all(235.0)).unwrap();
        let (x, y, side) = (400, 160, 900);
        let cell = side / 9;
        for k in 0..=9 {
            let at = k * side / 9;
            let (thickness, ink) = if k % 3 == 0 { (8, 20.0) } else { (1, 150.0) };
            for (from, to) in [
                (Point::new(x + at, y), Point::new(x + at, y + side)),
                (Point::new(x, y + at), Point::new(x + side, y + at)),
            ] {
                let (ink, line) = (Scalar::all(ink), imgproc::LINE_8);
                imgproc::line(&mut page, from, to, ink, thickness, line, 0).unwrap();
            }
        }
        for i in (0..81).filter(|i| i % 3 == 0) {
            let (r, c) = (i / 9, i % 9);
            let at = Point::new(x + c * cell + cell / 3, y + r * cell + 3 * cell / 4);
            let digit = ((i * 7) % 9 + 1).to_string();
            let font = imgproc::FONT_HERSHEY_DUPLEX;
            let ink = Scalar::all(30.0);
            imgproc::put_text(
                &mut page,
                &digit,
                at,
                font,
                2.0,
                ink,
                4,
                imgproc::LINE_AA,
                false,
            )
            .unwrap();
        }
        let (mut half, mut blurred) = (Mat::default(), Mat::default());
        let size = Size::new(800, 600);
        imgproc::resize(&page, &mut half, size, 0.0, 0.0, imgproc::INTER_AREA).unwrap();
        imgproc::gaussian_blur_def(&half, &mut blurred, Size::new(0, 0), 2.0).unwrap();
        blurred
    }

    #[test]
    fn a_grid_with_light_cell_lines_is_found_out_of_focus() {
        // Its cell lines show 0.15-0.2 each way, the middles 0.08: judged faint until the cell
        // lines were weighed against the middles (score 0).
        let page = light_grid_blurred();
        let score = grid_score(&page, &LIGHT_GRID, Look::Only).unwrap();
        assert!(score > 0.25, "{score}");
        let found = find_grid(&page, Look::Only).unwrap().expect("a grid");
        let off = found.quad.max_corner_distance(&LIGHT_GRID);
        assert!(off < 5.0, "{:?}", found.quad);
    }

    #[test]
    fn a_box_of_a_grid_is_known_for_one_and_the_grid_is_not() {
        let page = light_grid_blurred();
        let view = GrayView::new(&page).unwrap();
        let middle_box = Quad([
            [350.0, 230.0],
            [500.0, 230.0],
            [500.0, 380.0],
            [350.0, 380.0],
        ]);
        let corner_box = Quad([
            [500.0, 380.0],
            [650.0, 380.0],
            [650.0, 530.0],
            [500.0, 530.0],
        ]);
        for a_box in [middle_box, corner_box] {
            assert!(box_of_a_larger_grid(&page, &view, &a_box).unwrap());
            assert!(corners_with_lines_running_on(&view, &a_box) >= 3);
        }
        assert!(!box_of_a_larger_grid(&page, &view, &LIGHT_GRID).unwrap());
        assert_eq!(corners_with_lines_running_on(&view, &LIGHT_GRID), 0);
    }

    #[test]
    fn a_box_of_a_grid_cut_by_the_picture_edge_is_known_for_one_by_its_lines_running_on() {
        // The grid's first column of boxes out of the picture: the larger grid around the
        // middle box cannot be checked, but its lines run on past all four of its corners.
        let page = Mat::roi(&light_grid_blurred(), Rect::new(260, 0, 540, 600))
            .unwrap()
            .try_clone()
            .unwrap();
        let view = GrayView::new(&page).unwrap();
        let middle_box = Quad([[90.0, 230.0], [240.0, 230.0], [240.0, 380.0], [90.0, 380.0]]);
        assert_eq!(corners_with_lines_running_on(&view, &middle_box), 4);
        assert!(box_of_a_larger_grid(&page, &view, &middle_box).unwrap());
    }

    #[test]
    fn faint_cell_lines_pass_in_a_frame_only_with_every_box_line_whole() {
        // Dark box lines; cell lines that show over only a quarter of their length, the rest
        // washed out (an app's pale lines under glare), and with `broken` the first box line
        // each way washed out over a fifth of its length too.
        let page = |broken: bool| {
            let mut page =
                Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(235.0)).unwrap();
            let (x, y, side) = (130, 50, 378);
            for k in 0..=9 {
                let at = k * side / 9;
                let (thickness, length) = match k {
                    3 if broken => (3, side * 4 / 5),
                    _ if k % 3 == 0 => (3, side),
                    _ => (1, side / 4),
                };
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
            page
        };
        // Taken as cell lines printed pale (session 59; before, a frame's check asked for
        // every cell line).
        assert!(find_grid(&page(false), Look::Only).unwrap().is_some());
        assert!(find_grid(&page(false), Look::OneOfMany).unwrap().is_some());
        assert!(find_grid(&page(true), Look::Only).unwrap().is_some());
        assert!(find_grid(&page(true), Look::OneOfMany).unwrap().is_none());
    }

    /// A 378 px grid at (130, 50) on a 640x480 page with its box lines alone (cell lines too
    /// faint to show), holding a digit at each of `cells` (row-major, 0 empty), or, with
    /// `text`, small print across each box.
    fn box_lines_alone(cells: &str, text: bool) -> Mat {
        let mut page =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(235.0)).unwrap();
        let (x, y, side) = (130, 50, 378);
        let cell = side / 9;
        let ink = Scalar::all(30.0);
        for k in (0..=9).step_by(3) {
            let at = k * side / 9;
            for (from, to) in [
                (Point::new(x + at, y), Point::new(x + at, y + side)),
                (Point::new(x, y + at), Point::new(x + side, y + at)),
            ] {
                imgproc::line(&mut page, from, to, ink, 3, imgproc::LINE_8, 0).unwrap();
            }
        }
        for (i, digit) in cells.chars().enumerate().filter(|(_, d)| *d != '0') {
            let (r, c) = (i as i32 / 9, i as i32 % 9);
            let at = Point::new(x + c * cell + 13, y + r * cell + 33);
            let font = imgproc::FONT_HERSHEY_SIMPLEX;
            let digit = digit.to_string();
            imgproc::put_text(
                &mut page,
                &digit,
                at,
                font,
                0.9,
                ink,
                2,
                imgproc::LINE_AA,
                false,
            )
            .unwrap();
        }
        if text {
            let words = [
                "the", "weather", "today", "in", "a", "sudoku", "of", "column",
            ];
            for r in 0..9_usize {
                for b in 0..3_usize {
                    let text: Vec<&str> = (0..2).map(|w| words[(r * 5 + b * 3 + w) % 8]).collect();
                    let at = Point::new(x + b as i32 * 3 * cell + 8, y + r as i32 * cell + 26);
                    let font = imgproc::FONT_HERSHEY_SIMPLEX;
                    let text = text.join(" ");
                    imgproc::put_text(
                        &mut page,
                        &text,
                        at,
                        font,
                        0.5,
                        ink,
                        1,
                        imgproc::LINE_AA,
                        false,
                    )
                    .unwrap();
                }
            }
        }
        page
    }

    #[test]
    fn a_grid_shown_by_its_box_lines_alone_is_found_when_its_digits_sit_in_its_cells() {
        let quad = Quad([[130.0, 50.0], [508.0, 50.0], [508.0, 428.0], [130.0, 428.0]]);
        // A Sudoku's 24 clues (Arto Inkala's "AI Escargot" has 23; one more of its solution).
        let puzzle =
            "100007090030020008009600500005300900010080002600004000300000010040000007007000302";
        for look in [Look::Only, Look::OneOfMany] {
            let found = find_grid(&box_lines_alone(puzzle, false), look).unwrap();
            let found = found.expect("the grid found by its box lines and digits");
            assert!(
                found.quad.max_corner_distance(&quad) < 4.0,
                "{:?}",
                found.quad
            );
            // A 3x3 table: empty, with a digit in the middle of each box, or (in a frame: a
            // photo takes its rows of print for pale cell lines, and reads no puzzle) of text.
            let one_a_box = ["0".repeat(9), "010010010".into(), "0".repeat(9)]
                .concat()
                .repeat(3);
            for (what, cells, text) in [
                ("empty", "", false),
                ("a digit a box", one_a_box.as_str(), false),
                ("text", "", true),
            ] {
                if text && look == Look::Only {
                    continue;
                }
                let page = box_lines_alone(cells, text);
                let found = find_grid(&page, look).unwrap();
                assert!(found.is_none(), "{what}: {found:?}");
            }
        }
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
