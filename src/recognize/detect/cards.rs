//! A photo's last searches ([`super::find_grid`], and in windows of the picture
//! [`find_small_borderless_grid`]), and live video's now and then: a grid printed
//! with no outer border line, as apps draw it: a white card with pale cell lines on a tinted
//! background, or its nine boxes as separate tiles with the background showing between them.
//! The other searches outline dark strokes, and such a grid has none around it: its outline is
//! where the card's (or the tiles') plain colour meets the background's. And a photo's very
//! last ([`find_picture_filling_grid`]): a grid filling the picture, its outline the picture's.

use opencv::core::{Mat, Point2f, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use super::check::{GridCheck, check_grid};
use super::corners::{Line, intersect, line_through, parabola_peak};
use super::outlines::outlines;
use super::{Detection, Edge, Ink, Look, MIN_GRID_SCORE, Scale, WORK_SIDE, shrink_factor};
use crate::error::Result;
use crate::geometry::{Homography, Quad, distance, warp};
use crate::raster::{GrayView, morphed};

/// Finds the grid in `gray` outlined by a plain card or tiles lighter (or darker) than what lies
/// around them; None when there is none.
///
/// The picture, shrunk to [`WORK_SIDE`], is blurred until digits and lines are gone (a median
/// over a few hundredths of its side, narrower again when nothing is found), split into its
/// lighter and darker parts (Otsu, and locally), and each part closed over a fortieth of its
/// side, so that tiles a gap apart make one shape. The four-cornered outlines of those shapes
/// are checked as any candidate (eight evenly spaced lines each way inside, the tiles' gaps
/// counting as box lines), on the picture's departures from its plain colours either way (a
/// dark mode's cell lines are lighter than its tiles, the gaps between them darker), and must
/// be about square (`squarish`) and show the lattice of its inner lines each way
/// (`lattice_ends`: a frame of sensor noise, amplified against its plain colour, checked as a
/// grid at 0.69, and strips of text at 0.3-0.6). The corners are where lines fitted along the
/// card's edge meet, at full resolution, each side then moved onto that lattice.
pub fn find_borderless_grid(gray: &Mat) -> Result<Option<Detection>> {
    detection(gray, search(gray, WORK_SIDE, &PLAIN_OVER, Plain::Sharp)?)
}

/// [`find_borderless_grid`] on a video frame: one of its medians (`look` 0 the wider, 1 the
/// narrower), the plain colour taken at half the working resolution. Searched as a photo is,
/// both medians at the working resolution, it took 62 ms on a 1280x720 frame every 16th frame
/// searched in vain: live, two frames' time, the picture shown stalling while the camera looks
/// for a puzzle. A frame of the next look comes a few frames later.
pub fn find_borderless_grid_in_frame(gray: &Mat, look: usize) -> Result<Option<Detection>> {
    let median = [PLAIN_OVER[look.min(PLAIN_OVER.len() - 1)]];
    detection(gray, search(gray, WORK_SIDE, &median, Plain::Coarse)?)
}

/// How finely the plain colour of the card and the page around it is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plain {
    /// By a median over the shrunk picture.
    Sharp,
    /// By the same median over the picture shrunk by half again, enlarged back: a quarter of
    /// the pixels (a median over tens of pixels was most of a search), its steps at the card's
    /// edge a pixel softer (the corners are placed on the picture itself, see `edges_met`).
    Coarse,
}

/// [`find_borderless_grid`] for a grid small in its picture (a screenshot laid small on a page,
/// a phone photographed from afar), searched for in windows of the picture
/// (`search_windows`): a photo's very last search, costing several searches of the whole
/// (0.15 s more for a 1920x1280 photo with no puzzle in it).
pub fn find_small_borderless_grid(gray: &Mat) -> Result<Option<Detection>> {
    detection(gray, search_windows(gray)?)
}

/// A photo's very last search: the picture itself as the grid's outline. A screenshot cropped
/// to the grid inside its border line (or an app's grid with none, cropped at its cells) has
/// its cells run on to the picture's edges: no outline, nor a card's edge, to find. Taken when
/// the picture is about square (sides within 1.12 of each other), frames a grid, dark on light
/// or light on dark, and shows the lattice of its inner lines each way, onto which its sides
/// are moved.
pub fn find_picture_filling_grid(gray: &Mat) -> Result<Option<Detection>> {
    let (w, h) = (f64::from(gray.cols()), f64::from(gray.rows()));
    if w.max(h) > FILLING_ASPECT * w.min(h) {
        return Ok(None);
    }
    let scale = shrink_factor(w.max(h), WORK_SIDE);
    let mut work = Mat::default();
    let size = Size::new((w / scale).round() as i32, (h / scale).round() as i32);
    imgproc::resize(gray, &mut work, size, 0.0, 0.0, imgproc::INTER_AREA)?;
    let frame = |width: f64, height: f64| {
        Quad([
            [0.0, 0.0],
            [width - 1.0, 0.0],
            [width - 1.0, height - 1.0],
            [0.0, height - 1.0],
        ])
    };
    let shrunk = frame(f64::from(size.width), f64::from(size.height));
    for ink in [Ink::Dark, Ink::Light] {
        let mut negative = Mat::default();
        let dark = ink.as_dark(&work, &mut negative)?;
        let check = check_grid(dark, &shrunk, Look::Only)?;
        tracing::trace!(?ink, score = check.score, "the picture as a grid");
        if check.score < MIN_GRID_SCORE || !lattice_shows(dark, &shrunk)? {
            continue;
        }
        let mut negative = Mat::default();
        return Ok(Some(Detection {
            quad: on_the_lattice(ink.as_dark(gray, &mut negative)?, &frame(w, h))?,
            score: check.score,
            ink,
            smeared: false,
            edge: Edge::Card,
            cut: false,
        }));
    }
    Ok(None)
}

/// The detection of what [`search`] found, its sides moved onto the lattice inside.
fn detection(gray: &Mat, found: Option<(Quad, GridCheck, Ink)>) -> Result<Option<Detection>> {
    let Some((quad, check, ink)) = found else {
        return Ok(None);
    };
    Ok(Some(Detection {
        quad: on_the_lattice(gray, &quad)?,
        score: check.score,
        ink,
        smeared: false,
        edge: Edge::Card,
        cut: super::outline_cut_by_the_edge(&quad, gray),
    }))
}

/// The borderless grid in `gray` (see [`find_borderless_grid`]), its corners where its edges
/// meet, before they are moved onto its lattice; searched shrunk to `work_side`.
fn search(
    gray: &Mat,
    work_side: f64,
    medians: &[f64],
    plain: Plain,
) -> Result<Option<(Quad, GridCheck, Ink)>> {
    let (width, height) = (gray.cols(), gray.rows());
    let longest = width.max(height);
    let scale = shrink_factor(longest as f64, work_side);
    let mut work = Mat::default();
    let size = Size::new(
        (width as f64 / scale).round() as i32,
        (height as f64 / scale).round() as i32,
    );
    imgproc::resize(gray, &mut work, size, 0.0, 0.0, imgproc::INTER_AREA)?;
    let side = size.width.max(size.height) as f64;
    let mut best = None;
    for plain_over in medians {
        best = outlined(&work, ((plain_over * side) as i32) | 1, plain)?;
        if best.is_some() {
            break;
        }
    }
    let Some((quad, check, ink)) = best else {
        return Ok(None);
    };
    let quad = quad.scaled(scale);
    let view = GrayView::new(gray)?;
    let quad = edges_met(&view, &quad, edge_reach(&quad, scale)).unwrap_or(quad);
    Ok(Some((quad, check, ink)))
}

/// [`search`] in windows of the picture, each [`WINDOWS`] of its longer side, half a window
/// apart: a grid small in its picture (a screenshot laid small on a page) is found in the
/// window about twice its size, where the median and the closing are as wide against its
/// cells as in a picture it fills. The grid that frames most clearly, away from its window's
/// edges (where a window cuts a card, its outline there is the cut).
fn search_windows(gray: &Mat) -> Result<Option<(Quad, GridCheck, Ink)>> {
    let (width, height) = (gray.cols(), gray.rows());
    let longest = width.max(height) as f64;
    let mut best: Option<(Quad, GridCheck, Ink)> = None;
    for share in WINDOWS {
        let window = (share * longest).round() as i32;
        if window < SMALLEST_WINDOW {
            break;
        }
        for y in starts(height, window) {
            for x in starts(width, window) {
                let rect = opencv::core::Rect::new(x, y, window.min(width), window.min(height));
                let part = Mat::roi(gray, rect)?.try_clone()?;
                let found = search(&part, WINDOW_WORK_SIDE, &PLAIN_OVER, Plain::Sharp)?;
                let Some((quad, check, ink)) = found else {
                    continue;
                };
                // A corner within a few pixels of an edge the window shares with no picture edge.
                let cut = |p: [f64; 2]| {
                    let near = |v: f64, from: i32, to: i32, whole: i32| {
                        (from > 0 && v < 2.0) || (to < whole && v > (to - from) as f64 - 3.0)
                    };
                    near(p[0], x, x + rect.width, width) || near(p[1], y, y + rect.height, height)
                };
                if quad.0.iter().any(|&p| cut(p)) {
                    continue;
                }
                if best.as_ref().is_none_or(|(_, c, _)| check.score > c.score) {
                    best = Some((quad.translated(x as f64, y as f64), check, ink));
                }
            }
        }
        if best.is_some() {
            break;
        }
    }
    Ok(best)
}

/// Where windows `window` wide start along a side `length` long, half a window apart, the
/// last one flush with the end.
fn starts(length: i32, window: i32) -> Vec<i32> {
    if window >= length {
        return vec![0];
    }
    let step = (window / 2).max(1);
    let mut starts: Vec<i32> = (0..length - window).step_by(step as usize).collect();
    starts.push(length - window);
    starts
}

/// The outline in the shrunk picture `work` that most clearly frames a borderless grid, with
/// the picture's plain colours taken by a median over `window` pixels (`how` finely); and the
/// grid's ink.
fn outlined(work: &Mat, window: i32, how: Plain) -> Result<Option<(Quad, GridCheck, Ink)>> {
    let size = work.size()?;
    let side = size.width.max(size.height) as f64;
    let plain = plain_colour(work, window, how)?;
    // Lines and gaps as dark on light whichever way they differ from the plain colour: on a
    // dark mode's tiles the gaps are darker and the cell lines lighter than the tiles.
    let mut apart = Mat::default();
    opencv::core::absdiff(work, &plain, &mut apart)?;
    let mut lines = Mat::default();
    apart.convert_to(&mut lines, opencv::core::CV_8U, -LINES_GAIN, 255.0)?;
    let work_view = GrayView::new(work)?;
    let whole = (size.width * size.height) as f64;
    let mut best: Option<(Quad, GridCheck, Ink)> = None;
    for (lighter, darker) in parts(&plain, side)? {
        for part in [&lighter, &darker] {
            // Beyond the picture's edge is neither part: a card near it keeps its own edge.
            let closed = morphed(
                part,
                imgproc::MORPH_CLOSE,
                imgproc::MORPH_RECT,
                ((GAP_BRIDGED * side) as i32) | 1,
                opencv::core::BORDER_CONSTANT,
            )?;
            // The background's own outline is the picture's (tiles and digits are holes in it).
            let candidates = outlines(&closed, Scale::COARSE.smallest)?
                .into_iter()
                .flatten()
                .filter(|o| o.quad.area() < MOST_OF_THE_PICTURE * whole && squarish(&o.quad));
            for candidate in candidates {
                // A card shows its edge all round (a crossword's black squares, closed into a
                // shape, framed a grid at 0.3 but have none); and, its corners cut round, the
                // outline's sides may lie a few pixels askew of it.
                let reach = edge_reach(&candidate.quad, 1.0);
                let Some(outline) = edges_met(&work_view, &candidate.quad, reach) else {
                    continue;
                };
                // Not for pale cell lines: those of an app's card are drawn, not printed.
                let check = match check_grid(&lines, &outline, Look::Only)? {
                    check if check.pale => GridCheck::NONE,
                    check => check,
                };
                tracing::trace!(?outline, score = check.score, "borderless grid candidate");
                if check.score >= candidate.least_score()
                    && best.as_ref().is_none_or(|(_, c, _)| check.score > c.score)
                    && lattice_shows(work, &outline)?
                {
                    best = Some((outline, check, ink_on(&plain, &outline)?));
                }
            }
        }
    }
    Ok(best)
}

/// `work` blurred by a median over `window` pixels until digits and lines are gone: the plain
/// colours of a card or tiles and of the page around them.
fn plain_colour(work: &Mat, window: i32, how: Plain) -> Result<Mat> {
    let mut plain = Mat::default();
    match how {
        Plain::Sharp => imgproc::median_blur(work, &mut plain, window)?,
        Plain::Coarse => {
            let size = work.size()?;
            let half = Size::new((size.width + 1) / 2, (size.height + 1) / 2);
            let mut small = Mat::default();
            imgproc::resize(work, &mut small, half, 0.0, 0.0, imgproc::INTER_AREA)?;
            let mut small_plain = Mat::default();
            imgproc::median_blur(&small, &mut small_plain, (window / 2) | 1)?;
            imgproc::resize(
                &small_plain,
                &mut plain,
                size,
                0.0,
                0.0,
                imgproc::INTER_LINEAR,
            )?;
        }
    }
    Ok(plain)
}

/// Whether `quad`'s longest side is at most [`CARD_ASPECT`] times its shortest. A phone's
/// whole screen, lighter than the table, passed the grid check (its number pad read as a row,
/// a quad twice as tall as wide) and stood in for the card inside it.
fn squarish(quad: &Quad) -> bool {
    let sides = quad.sides();
    let shortest = sides.iter().copied().fold(f64::MAX, f64::min);
    let longest = sides.iter().copied().fold(0.0, f64::max);
    longest <= CARD_ASPECT * shortest
}

/// How the digits are printed on the plain colour inside `quad` in `plain`: light on a dark card
/// or tiles (a dark mode), dark on a light one.
fn ink_on(plain: &Mat, quad: &Quad) -> Result<Ink> {
    let view = GrayView::new(plain)?;
    let centre = quad.centroid();
    let cell = quad.mean_side() / 9.0;
    // Around the middle cell's corners, off its digit.
    let level: f64 = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]
        .iter()
        .map(|[dx, dy]| view.sample(centre[0] + dx * 0.35 * cell, centre[1] + dy * 0.35 * cell))
        .sum::<f64>()
        / 4.0;
    Ok(if level < 128.0 { Ink::Light } else { Ink::Dark })
}

/// How far from `quad`'s sides their edge is looked for, in a picture `scale` times the size
/// of the one it was outlined in: [`EDGE_REACH`] of a cell, and two of those pixels.
fn edge_reach(quad: &Quad, scale: f64) -> f64 {
    (EDGE_REACH * quad.mean_side() / 9.0).max(2.0 * scale + 3.0)
}

/// The corners where lines fitted along the plain colour's edge near each side of `quad` meet
/// (the edge looked for within `reach` pixels either side of it, along the middle of each side,
/// clear of a card's rounded corners and mostly of the tiles' gaps); None when a side shows no
/// edge along most of it. Outlined at the shrunk picture's resolution and with its rounded
/// corners cut, the card's corners lay up to 14 px inside a 1000 px grid.
fn edges_met(gray: &GrayView, quad: &Quad, reach: f64) -> Option<Quad> {
    let sides: Vec<Line> = (0..4)
        .map(|i| edge_along(gray, quad.0[i], quad.0[(i + 1) % 4], reach))
        .collect::<Option<_>>()?;
    tracing::trace!(?sides, "edges");
    let corners: Vec<[f64; 2]> = (0..4)
        .map(|i| intersect(sides[(i + 3) % 4], sides[i]))
        .collect::<Option<_>>()?;
    let met = Quad([corners[0], corners[1], corners[2], corners[3]]);
    tracing::trace!(
        ?quad,
        ?met,
        "a borderless grid's corners where its edges meet"
    );
    (met.max_corner_distance(quad) <= 0.5 * quad.mean_side() / 9.0).then_some(met)
}

/// A line fitted through the outermost step of brightness across the side from `a` to `b`, at
/// most `reach` pixels from it, along the side's middle.
fn edge_along(gray: &GrayView, a: [f64; 2], b: [f64; 2], reach: f64) -> Option<Line> {
    const SAMPLES: usize = 48;
    let length = distance(a, b);
    let along = [(b[0] - a[0]) / length, (b[1] - a[1]) / length];
    let normal = [-along[1], along[0]];
    let steps = (2.0 * reach) as usize + 1;
    let mut points = Vector::<Point2f>::new();
    for j in 0..SAMPLES {
        let s = EDGE_FROM + (1.0 - 2.0 * EDGE_FROM) * j as f64 / (SAMPLES - 1) as f64;
        let p = [a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s];
        let at = |k: usize| {
            let t = k as f64 - reach;
            gray.sample(p[0] + normal[0] * t, p[1] + normal[1] * t)
        };
        let slope: Vec<f64> = (1..steps - 1)
            .map(|k| (at(k + 1) - at(k - 1)).abs())
            .collect();
        // The outermost step: a digit in an outer cell steps more steeply, further in.
        let Some(k) = (1..slope.len() - 1).find(|&k| {
            slope[k] >= 2.0 * MIN_STEP && slope[k] >= slope[k - 1] && slope[k] >= slope[k + 1]
        }) else {
            continue;
        };
        let t = (k + 1) as f64 - reach + parabola_peak(slope[k - 1], slope[k], slope[k + 1]);
        points.push(Point2f::new(
            (p[0] + normal[0] * t) as f32,
            (p[1] + normal[1] * t) as f32,
        ));
    }
    if points.len() < SAMPLES / 2 {
        return None;
    }
    line_through(&points)
}

/// `quad` with each side moved to where the grid's inner lines, evenly spaced, put it, when it
/// lies more than [`LATTICE_SLACK`] of a cell off that place (and at most [`LATTICE_REACH`]).
/// A card's edge is a step, not a printed line: on a phone's screen a strip of the app's page
/// between the card and the screen's edge, photographed, joined the card into one plain shape
/// (the outline a quarter of a cell wide on that side), and the steepest step near it was the
/// screen's own edge.
fn on_the_lattice(gray: &Mat, quad: &Quad) -> Result<Quad> {
    let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, quad) else {
        return Ok(*quad);
    };
    let [columns, rows] = lattices(gray, quad)?;
    // Where the first and last lines of the lattice fall, as a share of the side, or the side
    // itself where its lines do not tell clearly.
    let ends = |lattice: Option<(f64, f64)>| {
        let (first, last) = lattice.unwrap_or((0.0, 1.0));
        // Off by more than half a cell, the lattice is not the card's: the side stays.
        let moved = |off: f64| (LATTICE_SLACK / 9.0..=LATTICE_REACH / 9.0).contains(&off.abs());
        (
            if moved(first) { first } else { 0.0 },
            if moved(last - 1.0) { last } else { 1.0 },
        )
    };
    let ((left, right), (top, bottom)) = (ends(columns), ends(rows));
    let moved = Quad([[left, top], [right, top], [right, bottom], [left, bottom]]);
    tracing::trace!(
        ?moved,
        "a borderless grid's sides on its lattice (grid coordinates)"
    );
    Ok(Quad(moved.0.map(|p| image_from_grid.apply(p))))
}

/// Whether the lattice of a grid's eight inner lines, evenly spaced, shows both ways inside
/// `quad` in `gray`, darker or lighter than the plain colour around them: not in noise, nor in
/// a block of text.
pub fn lattice_shows(gray: &Mat, quad: &Quad) -> Result<bool> {
    Ok(lattices(gray, quad)?.iter().all(Option::is_some))
}

/// The ends of the lattice of lines inside `quad` in `gray` (see [`lattice_ends`]), down the
/// columns and along the rows, in shares of the side; None a way its lines do not show clearly.
fn lattices(gray: &Mat, quad: &Quad) -> Result<[Option<(f64, f64)>; 2]> {
    let Some(grid_from_image) = Homography::from_quads(&Quad::UNIT, quad).and_then(|h| h.inverse())
    else {
        return Ok([None, None]);
    };
    let mut ends = lattice_ends_each_way(&rectified(gray, &grid_from_image, 1.0)?)?;
    // Sampled at a 24th of a cell, an app's cell lines a pixel or two wide in a 985 px
    // screenshot fell between the samples: a grid showing all of them was taken for none. A
    // way whose lines do not show so is looked at again, rectified near the picture's own
    // resolution and averaged down (not always: averaged, faint lines fade against the edges
    // of a highlighted row or column, which a line sampled whole outweighs).
    let finer = (quad.mean_side() / (9 * LATTICE_CELL) as f64)
        .round()
        .clamp(1.0, LATTICE_FINER);
    if finer > 1.0 && ends.iter().any(Option::is_none) {
        let again = lattice_ends_each_way(&rectified(gray, &grid_from_image, finer)?)?;
        for (end, again) in ends.iter_mut().zip(again) {
            *end = end.or(again);
        }
    }
    Ok(ends)
}

/// [`lattices`] of a grid rectified into `rectified`, down its columns and along its rows.
fn lattice_ends_each_way(rectified: &Mat) -> Result<[Option<(f64, f64)>; 2]> {
    let view = GrayView::new(rectified)?;
    let cell = LATTICE_CELL as f64;
    Ok([true, false].map(|columns| lattice_ends(&median_profile(&view, columns), cell)))
}

/// The grid of `gray` rectified by `grid_from_image` at [`LATTICE_CELL`] pixels a cell: warped
/// `finer` times as fine and each block of pixels averaged, where `finer` is more than 1.
fn rectified(gray: &Mat, grid_from_image: &Homography, finer: f64) -> Result<Mat> {
    let side = 9 * LATTICE_CELL as i32;
    let fine_side = (finer * f64::from(side)).round() as i32;
    // Pixel centres: the block averaged into pixel i has its middle at i * finer + (finer - 1) / 2.
    let shift = (finer - 1.0) / 2.0;
    let fine_from_image = Homography::translation(shift, shift)
        .after(&Homography::scaling(f64::from(fine_side)))
        .after(grid_from_image);
    let fine = warp(
        gray,
        &fine_from_image,
        Size::new(fine_side, fine_side),
        true,
    )?;
    if fine_side == side {
        return Ok(fine);
    }
    let mut averaged = Mat::default();
    imgproc::resize(
        &fine,
        &mut averaged,
        Size::new(side, side),
        0.0,
        0.0,
        imgproc::INTER_AREA,
    )?;
    Ok(averaged)
}

/// For each column (or, `columns` false, each row) of `view`, its median: a line running the
/// grid's length, not the digits crossing it.
fn median_profile(view: &GrayView, columns: bool) -> Vec<f64> {
    let (along, across) = if columns {
        (view.width, view.height)
    } else {
        (view.height, view.width)
    };
    (0..along)
        .map(|i| {
            let mut values: Vec<u8> = (0..across)
                .map(|j| {
                    if columns {
                        view.get(i, j)
                    } else {
                        view.get(j, i)
                    }
                })
                .collect();
            let middle = values.len() / 2;
            f64::from(*values.select_nth_unstable(middle).1)
        })
        .collect()
}

/// Where the lattice of the eight inner lines in `profile` (lighter or darker than the plain
/// colour around them, each near its ninth, `cell` samples apart) puts its two ends, as shares
/// of the profile's length; None unless most of them show clearly on a straight fit.
fn lattice_ends(profile: &[f64], cell: f64) -> Option<(f64, f64)> {
    let n = profile.len();
    let plain: Vec<f64> = (0..n)
        .map(|i| {
            let reach = (cell / 3.0) as usize;
            let mut around: Vec<f64> =
                profile[i.saturating_sub(reach)..(i + reach + 1).min(n)].to_vec();
            let middle = around.len() / 2;
            *around.select_nth_unstable_by(middle, f64::total_cmp).1
        })
        .collect();
    let apart: Vec<f64> = profile
        .iter()
        .zip(&plain)
        .map(|(p, q)| (p - q).abs())
        .collect();
    let mut found = Vec::new();
    for k in 1..9 {
        let from = ((k as f64 - 0.4) * cell) as usize;
        let to = (((k as f64 + 0.4) * cell) as usize).min(n - 2);
        let peak = (from.max(1)..=to).max_by(|&a, &b| apart[a].total_cmp(&apart[b]))?;
        let mut window: Vec<f64> = apart[from..=to].to_vec();
        let middle = window.len() / 2;
        let typical = *window.select_nth_unstable_by(middle, f64::total_cmp).1;
        if apart[peak] >= MIN_LINE && apart[peak] >= 3.0 * typical {
            let at = peak as f64 + parabola_peak(apart[peak - 1], apart[peak], apart[peak + 1]);
            found.push((k as f64, at));
        }
    }
    // Least squares, position = first + k * spacing, dropping the line furthest off it while
    // it lies too far (a highlighted column's edge taken for its line) and six are left.
    loop {
        if found.len() < 6 {
            return None;
        }
        let (first, spacing) = straight_fit(&found);
        let off = |&(k, at): &(f64, f64)| (at - first - spacing * k).abs();
        let (worst_at, worst) = found
            .iter()
            .map(off)
            .enumerate()
            .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
        tracing::trace!(?found, first, spacing, worst, "lattice");
        if worst <= LATTICE_FIT * cell {
            return ((spacing / cell - 1.0).abs() <= 0.1)
                .then(|| (first / n as f64, (first + 9.0 * spacing) / n as f64));
        }
        found.remove(worst_at);
    }
}

/// The least-squares line `at = first + k * spacing` through `found` (k, at): (first, spacing).
fn straight_fit(found: &[(f64, f64)]) -> (f64, f64) {
    let count = found.len() as f64;
    let (mean_k, mean_at) = found.iter().fold((0.0, 0.0), |(a, b), (k, at)| {
        (a + k / count, b + at / count)
    });
    let (covariance, variance) = found.iter().fold((0.0, 0.0), |(c, v), (k, at)| {
        (c + (k - mean_k) * (at - mean_at), v + (k - mean_k).powi(2))
    });
    let spacing = covariance / variance;
    (mean_at - spacing * mean_k, spacing)
}

/// [`on_the_lattice`]: the rectified grid's cell (pixels); how far off its lattice (share of
/// a cell) a side is left where it is (the cells are drawn by the lattice: at 0.1, a 16 px
/// cell's screenshot kept its edge 0.9 px off, where the lattice put it within 0.2) and the
/// farthest it is moved; how far off the straight fit (share of a cell) any line found may lie;
/// and the faintest line taken (gray levels from the plain colour around it).
const LATTICE_CELL: usize = 24;
const LATTICE_SLACK: f64 = 0.03;
const LATTICE_REACH: f64 = 0.5;
const LATTICE_FIT: f64 = 0.08;
const MIN_LINE: f64 = 4.0;
/// At most how many times finer than the lattice's cells a grid is rectified before they are
/// averaged down to them (see [`lattices`]).
const LATTICE_FINER: f64 = 4.0;

/// Where along each side (share of it, from either end) the edge is looked for: clear of an
/// app's rounded corners.
const EDGE_FROM: f64 = 0.12;
/// The plain picture's lighter and darker parts: split at each of [`split_levels`], and split
/// locally (lighter or darker than the mean around, over [`LOCAL_OVER`] of the side: a card's
/// rim, and the page's along it) for a photographed screen whose light falls off across it.
fn parts(plain: &Mat, side: f64) -> Result<Vec<(Mat, Mat)>> {
    let mut parts = Vec::new();
    for level in split_levels(&GrayView::new(plain)?) {
        let mut lighter = Mat::default();
        imgproc::threshold(plain, &mut lighter, level, 255.0, imgproc::THRESH_BINARY)?;
        let mut darker = Mat::default();
        opencv::core::bitwise_not(&lighter, &mut darker, &opencv::core::no_array())?;
        parts.push((lighter, darker));
    }
    let block = ((LOCAL_OVER * side) as i32) | 1;
    let local = |kind, c| -> Result<Mat> {
        let mut part = Mat::default();
        imgproc::adaptive_threshold(
            plain,
            &mut part,
            255.0,
            imgproc::ADAPTIVE_THRESH_MEAN_C,
            kind,
            block.max(3),
            c,
        )?;
        Ok(part)
    };
    parts.push((
        local(imgproc::THRESH_BINARY, -LOCAL_STEP)?,
        local(imgproc::THRESH_BINARY_INV, LOCAL_STEP)?,
    ));
    Ok(parts)
}

/// See [`parts`]: the window, as a share of the shrunk picture's longer side, and how much
/// lighter or darker than its mean (gray levels) a pixel must be. Over 0.1 of the side,
/// borderless screens photographed off a monitor were drawn 6 of 16 (screens test), 0.03-0.07
/// drew 9; with other puzzles and seeds 7 either way.
const LOCAL_OVER: f64 = 0.05;
const LOCAL_STEP: f64 = 3.0;

/// The levels a picture's plain colours are split at: its two main parts' (Otsu), and each
/// part's own split again: a photographed screen's bright part is the screen against its dark
/// bezel, and the card within it is lighter again than the app's tinted page.
fn split_levels(plain: &GrayView) -> Vec<f64> {
    let mut histogram = [0.0f64; 256];
    for y in 0..plain.height {
        for x in 0..plain.width {
            histogram[plain.get(x, y) as usize] += 1.0;
        }
    }
    let first = otsu(&histogram, 0, 256);
    let mut levels = vec![first as f64];
    for (from, to) in [(0, first + 1), (first + 1, 256)] {
        let level = otsu(&histogram, from, to);
        if level > from && level + 1 < to {
            levels.push(level as f64);
        }
    }
    levels
}

/// The level within `from..to` of `histogram` that splits it with the largest variance between
/// the two sides (Otsu's method); the values at or below it are the darker side.
fn otsu(histogram: &[f64; 256], from: usize, to: usize) -> usize {
    let total: f64 = histogram[from..to].iter().sum();
    let sum: f64 = (from..to).map(|v| v as f64 * histogram[v]).sum();
    let (mut below, mut below_sum) = (0.0, 0.0);
    let (mut best, mut level) = (-1.0, from);
    for (v, &count) in histogram.iter().enumerate().take(to).skip(from) {
        below += count;
        below_sum += v as f64 * count;
        let above = total - below;
        if below == 0.0 || above == 0.0 {
            continue;
        }
        let between = below * above * (below_sum / below - (sum - below_sum) / above).powi(2);
        if between > best {
            (best, level) = (between, v);
        }
    }
    level
}

/// The windows [`search_windows`] looks in, as shares of the picture's longer side, larger
/// first.
const WINDOWS: [f64; 2] = [0.5, 0.3];
/// The smallest window searched (pixels): a grid half as wide has cells of 11 px, hardly read;
/// a smaller picture's grid is found, if at all, by the whole picture's search.
const SMALLEST_WINDOW: i32 = 200;
/// The longest side a window is searched at: a grid that fills half of it has cells of 20 px
/// and more there (its corners are then placed at full resolution).
const WINDOW_WORK_SIDE: f64 = 512.0;
/// How much a line's difference from the plain colour is strengthened for the grid check.
const LINES_GAIN: f64 = 2.0;
/// An outline covering more of the picture than this is the background around the grid.
const MOST_OF_THE_PICTURE: f64 = 0.9;
/// How far from the outline (share of a cell) the edge is looked for: its rounded corners cut,
/// a side of the outline lay up to 0.13 of a cell off the card's edge at one end.
const EDGE_REACH: f64 = 0.2;
/// How much longer than its shortest side a card's longest may look: a screen turned 50
/// degrees from the camera (a printed page's outlines may be more oblique, see
/// `outlines::quad_of`).
const CARD_ASPECT: f64 = 1.6;
/// How much longer than its shorter side a picture the grid fills may be: cropped half a cell
/// unevenly, 1.06.
const FILLING_ASPECT: f64 = 1.12;
/// The faintest step (gray levels per pixel) taken for the card's edge.
const MIN_STEP: f64 = 4.0;

/// The medians that leave a card or a tile plain, as a share of the shrunk picture's longer
/// side, tried in turn: wider than a digit's stroke, a cell line and the gap between tiles
/// (a narrower one left an 8 px gap in a 900 px picture as it was), narrower than a tile; and
/// narrower again for a small picture (a screenshot 320 px wide, its cells 16 px).
const PLAIN_OVER: [f64; 2] = [0.025, 0.012];
/// The widest gap between tiles bridged, as a share of the shrunk picture's longer side.
const GAP_BRIDGED: f64 = 0.025;

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC1, Point, Rect, Scalar};

    /// A 700x900 tinted page (gray 200) with a 448 px grid at (120, 200): a white card with
    /// pale lines (box lines a little darker), or (`tiles`) nine white tiles 8 px apart, and a
    /// few digit-like blobs; with `lines` false, a blank card.
    fn app_page(tiles: bool, lines: bool) -> Mat {
        let (x, y, side) = (120, 200, 448);
        let mut page =
            Mat::new_rows_cols_with_default(900, 700, CV_8UC1, Scalar::all(200.0)).unwrap();
        let white = Scalar::all(255.0);
        if tiles {
            let tile = (side - 2 * 8) / 3;
            for r in 0..3 {
                for c in 0..3 {
                    let rect = Rect::new(x + c * (tile + 8), y + r * (tile + 8), tile, tile);
                    imgproc::rectangle(&mut page, rect, white, -1, imgproc::LINE_8, 0).unwrap();
                }
            }
        } else {
            let rect = Rect::new(x, y, side, side);
            imgproc::rectangle(&mut page, rect, white, -1, imgproc::LINE_8, 0).unwrap();
        }
        if lines {
            for k in 1..9 {
                if tiles && k % 3 == 0 {
                    continue;
                }
                let (colour, t) = if k % 3 == 0 { (150.0, 2) } else { (215.0, 1) };
                let at = x + k * side / 9;
                let line = |p: &mut Mat, a: Point, b: Point| {
                    imgproc::line(p, a, b, Scalar::all(colour), t, imgproc::LINE_8, 0).unwrap()
                };
                line(&mut page, Point::new(at, y), Point::new(at, y + side));
                let at = y + k * side / 9;
                line(&mut page, Point::new(x, at), Point::new(x + side, at));
            }
            for (r, c) in [(0, 1), (2, 5), (4, 4), (6, 8), (8, 2)] {
                let centre = Point::new(x + c * 50 + 25, y + r * 50 + 25);
                imgproc::circle(
                    &mut page,
                    centre,
                    12,
                    Scalar::all(30.0),
                    3,
                    imgproc::LINE_8,
                    0,
                )
                .unwrap();
            }
        }
        page
    }

    const TRUTH: Quad = Quad([
        [119.5, 199.5],
        [567.5, 199.5],
        [567.5, 647.5],
        [119.5, 647.5],
    ]);

    #[test]
    fn a_card_or_tiles_on_a_tinted_page_are_found_where_their_edges_meet() {
        for tiles in [false, true] {
            let found = find_borderless_grid(&app_page(tiles, true))
                .unwrap()
                .unwrap_or_else(|| panic!("tiles {tiles}: not found"));
            // Pixel centres: the card's first column is at 120, its edge at 119.5.
            let off = found.quad.max_corner_distance(&TRUTH);
            assert!(
                off < 1.0,
                "tiles {tiles}: {:?} ({off:.2} px off)",
                found.quad
            );
            assert_eq!(found.ink, Ink::Dark);
        }
    }

    #[test]
    fn a_card_a_strip_of_page_away_from_a_dark_bezel_is_found_by_its_lines() {
        // The screen's bezel, black, a quarter of a cell (12 px) left of the card: the page's
        // strip between them is one plain shape with the card on its left side.
        let mut page = app_page(false, true);
        let bezel = Rect::new(0, 0, 108, 900);
        imgproc::rectangle(&mut page, bezel, Scalar::all(15.0), -1, imgproc::LINE_8, 0).unwrap();
        let found = find_borderless_grid(&page).unwrap().expect("found");
        let off = found.quad.max_corner_distance(&TRUTH);
        assert!(off < 1.5, "{:?} ({off:.2} px off)", found.quad);
        // An outline that takes in the strip is moved onto the lines inside.
        let mut wide = TRUTH;
        (wide.0[0][0], wide.0[3][0]) = (107.5, 107.5);
        let moved = on_the_lattice(&page, &wide).unwrap();
        let off = moved.max_corner_distance(&TRUTH);
        assert!(off < 1.0, "{moved:?} ({off:.2} px off)");
        // One already on them stays.
        assert!(
            on_the_lattice(&page, &TRUTH)
                .unwrap()
                .max_corner_distance(&TRUTH)
                < 0.5
        );
    }

    #[test]
    fn a_video_frame_s_looks_find_a_card_or_tiles_where_a_photo_s_search_does() {
        for tiles in [false, true] {
            let page = app_page(tiles, true);
            for look in [0, 1] {
                let found = find_borderless_grid_in_frame(&page, look)
                    .unwrap()
                    .unwrap_or_else(|| panic!("tiles {tiles}, look {look}: not found"));
                // The plain colour taken coarsely, the corners are still placed on the picture.
                let off = found.quad.max_corner_distance(&TRUTH);
                assert!(off < 1.0, "tiles {tiles}, look {look}: {off:.2} px off");
            }
            assert!(
                find_borderless_grid_in_frame(&app_page(tiles, false), 0)
                    .unwrap()
                    .is_none()
            );
        }
    }

    #[test]
    fn a_blank_card_is_no_grid() {
        assert!(
            find_borderless_grid(&app_page(false, false))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_picture_of_noise_or_a_tall_screen_is_no_card() {
        // A plain wall filmed in dim light: the sensor's noise, amplified against the plain
        // colour, is "lines" everywhere, at the ninths too (a whole frame passed at 0.69).
        let mut noise =
            Mat::new_rows_cols_with_default(720, 1280, CV_8UC1, Scalar::all(128.0)).unwrap();
        let mut rng = Mat::default();
        noise.copy_to(&mut rng).unwrap();
        opencv::core::randn(&mut rng, &Scalar::all(128.0), &Scalar::all(12.0)).unwrap();
        rng.convert_to(&mut noise, CV_8UC1, 1.0, 0.0).unwrap();
        assert!(find_borderless_grid(&noise).unwrap().is_none());
        for look in [0, 1] {
            assert!(
                find_borderless_grid_in_frame(&noise, look)
                    .unwrap()
                    .is_none()
            );
        }
        // A phone's whole screen, twice as tall as wide, is no card however it checks.
        let tall = Quad([[0.0, 0.0], [500.0, 0.0], [500.0, 1080.0], [0.0, 1080.0]]);
        assert!(!squarish(&tall));
        assert!(squarish(&TRUTH));
    }

    #[test]
    fn the_lattice_leaves_out_a_line_off_its_place() {
        // Eight lines 24 apart from 24, one (a highlighted column's edge) at 33.5 for 24.
        let mut profile = vec![100.0; 216];
        for k in 1..9 {
            let at = if k == 1 { 33 } else { 24 * k };
            profile[at] = 140.0;
        }
        let (first, last) = lattice_ends(&profile, 24.0).expect("a lattice");
        assert!(
            first.abs() < 0.01 && (last - 1.0).abs() < 0.01,
            "{first} {last}"
        );
    }

    /// A `side` px picture filled by a grid whose border would lie `inset` px beyond each edge:
    /// white, cell lines 1 px of 200, box lines 3 px of 60, a digit-like ring in a few cells.
    fn grid_filling(side: i32, inset: f64) -> (Mat, Quad) {
        let mut page =
            Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(255.0)).unwrap();
        let cell = (f64::from(side - 1) + 2.0 * inset) / 9.0;
        let at = |k: i32| (f64::from(k) * cell - inset).round() as i32;
        for k in 1..9 {
            let (colour, t) = if k % 3 == 0 { (60.0, 3) } else { (200.0, 1) };
            let line = |p: &mut Mat, a: Point, b: Point| {
                imgproc::line(p, a, b, Scalar::all(colour), t, imgproc::LINE_8, 0).unwrap()
            };
            line(&mut page, Point::new(at(k), 0), Point::new(at(k), side));
            line(&mut page, Point::new(0, at(k)), Point::new(side, at(k)));
        }
        for (r, c) in [(0, 0), (2, 5), (4, 4), (6, 8), (8, 2), (8, 8)] {
            let centre = Point::new(at(c) + (cell / 2.0) as i32, at(r) + (cell / 2.0) as i32);
            let radius = (cell / 4.0) as i32;
            imgproc::circle(
                &mut page,
                centre,
                radius,
                Scalar::all(30.0),
                3,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        let (a, b) = (-inset, f64::from(side - 1) + inset);
        (page, Quad([[a, a], [b, a], [b, b], [a, b]]))
    }

    #[test]
    fn thin_lines_of_a_large_grid_show_as_its_lattice() {
        // 1 px cell lines 105-115 px apart: sampled at a 24th of a cell, most fell between the
        // samples, at one size or another.
        for (k, side) in (950..1040).step_by(9).enumerate() {
            // The lines lie off the picture's own ninths, where the samples fall.
            let (page, _) = grid_filling(side, 0.5 * k as f64);
            let last = f64::from(side - 1);
            let picture = Quad([[0.0, 0.0], [last, 0.0], [last, last], [0.0, last]]);
            assert!(lattice_shows(&page, &picture).unwrap(), "{side} px");
        }
    }

    #[test]
    fn a_grid_filling_the_picture_is_outlined_by_it_on_its_lattice() {
        for (side, inset) in [(990, 6.0), (420, 2.0), (600, 0.0)] {
            let (page, truth) = grid_filling(side, inset);
            let found = find_picture_filling_grid(&page)
                .unwrap()
                .unwrap_or_else(|| panic!("{side} px, {inset} px inside: not found"));
            let off = found.quad.max_corner_distance(&truth);
            let cell = truth.mean_side() / 9.0;
            assert!(
                off < 0.05 * cell,
                "{side}: {:?} ({off:.2} px off)",
                found.quad
            );
            assert_eq!(found.ink, Ink::Dark);
            // In the negative (a dark mode), the same.
            let mut negative = Mat::default();
            opencv::core::bitwise_not(&page, &mut negative, &opencv::core::no_array()).unwrap();
            let found = find_picture_filling_grid(&negative)
                .unwrap()
                .expect("found");
            assert_eq!(found.ink, Ink::Light);
        }
    }

    #[test]
    fn a_blank_a_wide_or_a_ruled_picture_is_no_grid_filling_it() {
        let blank = Mat::new_rows_cols_with_default(500, 500, CV_8UC1, Scalar::all(255.0)).unwrap();
        assert!(find_picture_filling_grid(&blank).unwrap().is_none());
        // The grid with a strip added below: a screenshot's whole screen, not its grid.
        let (page, _) = grid_filling(500, 0.0);
        let mut tall = Mat::default();
        opencv::core::copy_make_border(
            &page,
            &mut tall,
            0,
            100,
            0,
            0,
            opencv::core::BORDER_CONSTANT,
            Scalar::all(255.0),
        )
        .unwrap();
        assert!(find_picture_filling_grid(&tall).unwrap().is_none());
        // Ruled paper: lines one way only.
        let mut ruled = blank.clone();
        for k in 1..9 {
            let y = k * 500 / 9;
            imgproc::line(
                &mut ruled,
                Point::new(0, y),
                Point::new(500, y),
                Scalar::all(80.0),
                2,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        assert!(find_picture_filling_grid(&ruled).unwrap().is_none());
    }

    #[test]
    fn a_card_small_in_a_large_picture_is_found_in_a_window() {
        // The app page shrunk to a third on a 2400x1600 gray picture: its cells are 17 px, the
        // whole picture's median (a fortieth of it) 60 px wide.
        let mut small = Mat::default();
        let page = app_page(false, true);
        imgproc::resize(
            &page,
            &mut small,
            Size::new(233, 300),
            0.0,
            0.0,
            imgproc::INTER_AREA,
        )
        .unwrap();
        let mut picture =
            Mat::new_rows_cols_with_default(1600, 2400, CV_8UC1, Scalar::all(90.0)).unwrap();
        let (x, y) = (1500, 900);
        small
            .copy_to(&mut Mat::roi_mut(&mut picture, Rect::new(x, y, 233, 300)).unwrap())
            .unwrap();
        let found = find_small_borderless_grid(&picture)
            .unwrap()
            .expect("found in a window");
        let truth = Quad(TRUTH.0.map(|[u, v]| {
            [
                x as f64 + (u + 0.5) / 3.0 - 0.5,
                y as f64 + (v + 0.5) / 3.0 - 0.5,
            ]
        }));
        let off = found.quad.max_corner_distance(&truth);
        assert!(off < 1.5, "{:?} ({off:.2} px off)", found.quad);
    }

    #[test]
    fn windows_cover_the_side_half_a_window_apart() {
        assert_eq!(starts(1000, 400), vec![0, 200, 400, 600]);
        assert_eq!(starts(1000, 500), vec![0, 250, 500]);
        assert_eq!(starts(300, 400), vec![0]);
    }

    #[test]
    fn otsu_splits_two_levels_between_them() {
        let mut histogram = [0.0; 256];
        histogram[40] = 100.0;
        histogram[200] = 300.0;
        let level = otsu(&histogram, 0, 256);
        assert!((40..200).contains(&level), "{level}");
    }
}
