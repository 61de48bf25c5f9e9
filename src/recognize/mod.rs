//! Recognition: the one path from a grid's corners in a picture to the puzzle it shows, shared
//! by still photos ([`crate::photo`]) and live video ([`crate::video::vision`]), so that a
//! video frame is read exactly as well as the same picture would be as a photo.
//!
//! [`detect`] finds a grid's corners; [`recognize`] cuts the cells along the printed lines
//! ([`lines`], [`cells`]), reads them ([`read`]) and turns the grid the right way up when it
//! reads better turned ([`orient`]); [`verdict`] judges which puzzle the reading shows, with
//! [`decode`] choosing the most likely one the rules allow.

pub mod cells;
pub mod decode;
pub mod detect;
pub mod ink;
pub mod lines;
pub mod occlusion;
pub mod orient;
pub mod read;
pub mod verdict;

use std::time::{Duration, Instant};

use opencv::core::{Mat, Point2f, Vector};

use crate::bend::{Bend, Lattice};
use crate::error::Result;
use crate::geometry::{Homography, Point, Quad, distance};
use crate::raster::GrayView;
use detect::Edge;
use read::{DigitReader, GridReading};

/// Whether which way up the grid is still needs finding out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// Read it turned too when the upright reading is unsure or breaks the rules.
    Unknown,
    /// Already settled (a tracked grid read before): read it as it is.
    Known,
}

/// How often [`recognize`] follows the printed lines from the corners given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// A photo: the outline search can put a corner of a small or shadowed grid half a cell
    /// off, and the lines followed from it come only part of the way back; when they move a
    /// corner by over a tenth of a cell, they are followed once more from where they
    /// put it (a grid 180 px across in a 1920 px picture was drawn a third of a cell off at one
    /// corner before).
    AgainIfMoved,
    /// Video: once per frame. The track carries each frame's lines on to the next frame, where
    /// they are followed again from there anyway; following a blurred frame's lines twice
    /// moved the drawn grid further off (hand-held set under NOISE_SEED=3: max corner error
    /// 1.81 -> 1.89%, handheld:image1031's p99 0.84 -> 1.41%).
    Once,
}

/// A grid as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Recognition {
    /// Corners in the picture's pixels, in the puzzle's own orientation (top-left first): where
    /// the printed border lines cross when they could be followed, else the corners given.
    pub quad: Quad,
    pub reading: GridReading,
    /// Whether the grid was read turned from the corners' order.
    pub turned: bool,
    /// Whether `quad` is, at some corners, where the printed border lines were found to cross
    /// (else it is the corners given, turned when `turned`).
    pub on_lines: bool,
    /// How the printed lines bend between the corners (curved paper), where they were followed,
    /// cross at the corners and bend clearly and smoothly (see [`Bend::fit`]); None on flat
    /// paper: the corners place the cells.
    pub bend: Option<Bend>,
    /// Where the printed lines were followed to cross (the picture's pixels, named from the
    /// puzzle's top-left), when they could be: the bend leaves them aside where their corners
    /// are not the outline's (a border not seen, a corner given kept).
    pub lattice: Option<Lattice>,
    /// On a frame smeared by the camera's motion, the grid read turned where that reads more
    /// plausibly than upright: offered, not taken, for a blurred page can read so (image1038
    /// sliding in, under a thumb). The live path takes it once such readings add up to a puzzle.
    pub turned_instead: Option<Box<Recognition>>,
}

/// Time spent in [`recognize`], by step.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecognizeTimes {
    /// Following the printed lines and cutting the cells.
    pub rectify: Duration,
    /// The digit model, including any turned readings.
    pub read: Duration,
}

/// Reads the grid whose corners in `gray` are `quad`, outlined by `edge`.
///
/// The cells are cut from between the printed lines around each (right on curved paper and
/// when `quad` is a little off), or by the corners alone when the lines can't be followed.
/// An app's grid with no border line ([`Edge::Card`]) has its border placed from the lines
/// inside.
pub fn recognize(
    reader: &mut DigitReader,
    gray: &Mat,
    quad: &Quad,
    edge: Edge,
    follow: Follow,
    orientation: Orientation,
    times: &mut RecognizeTimes,
) -> Result<Recognition> {
    let start = Instant::now();
    let (rectified, quad, on_lines, lattice) = match cut_along_lines(gray, quad, edge, follow)? {
        Some(cut) => {
            // A card's border is never seen: there is no line beyond it to look for.
            let wider = match edge {
                Edge::Line | Edge::ScreenLine => beyond_unseen_border(gray, &cut, edge)?,
                Edge::Card => None,
            };
            let cut = wider.unwrap_or(cut);
            (cut.rectified, cut.quad, cut.on_lines, Some(cut.lattice))
        }
        None => (cells::rectify(gray, quad)?, *quad, false, None),
    };
    times.rectify = start.elapsed();
    let start = Instant::now();
    let reading = reader.read_grid(cells::cell_batch(&rectified)?.view())?;
    let reading = mark_hidden(reading, &rectified)?;
    let smeared = GrayView::new(&rectified)?.sharpness_each_way().smeared();
    let reading = if smeared {
        tracing::trace!("grid smeared by the camera's motion");
        mark_smeared(reading)
    } else {
        reading
    };
    let mut recognition = Recognition {
        quad,
        reading,
        turned: false,
        on_lines,
        bend: lattice.and_then(|l| Bend::fit(&l, &quad)),
        lattice,
        turned_instead: None,
    };
    if orientation == Orientation::Unknown
        && needs_turning(&recognition.reading)
        && let Some((turned_quad, turned, turned_grid)) =
            orient::read_turned(reader, &rectified, &quad, &recognition.reading)?
    {
        let turned = Recognition {
            quad: turned_quad,
            reading: mark_hidden(turned, &turned_grid)?,
            turned: true,
            on_lines,
            bend: lattice.and_then(|l| Bend::fit(&l.turned_like(&turned_quad), &turned_quad)),
            lattice: lattice.map(|l| l.turned_like(&turned_quad)),
            turned_instead: None,
        };
        if smeared {
            tracing::trace!("smeared grid reads more plausibly turned");
            let reading = mark_smeared(turned.reading);
            recognition.turned_instead = Some(Box::new(Recognition { reading, ..turned }));
        } else {
            tracing::debug!("grid is turned; reading it the right way up");
            recognition = turned;
        }
    }
    times.read = start.elapsed();
    Ok(recognition)
}

/// A grid cut along its followed lines: the cells, the outline (see [`outline`]), whether any
/// corner of it is the lines', and which border lines were seen (top, right, bottom, left).
struct Cut {
    rectified: Mat,
    quad: Quad,
    on_lines: bool,
    border_seen: [bool; 4],
    lattice: Lattice,
}

/// The grid whose corners are given as `quad`, cut along the lines followed from them; None
/// when they can't be followed.
///
/// A corner of the outline is taken from the lines where both border lines through it were
/// seen. Where one was not (a border next to a dark table or a screen's bezel, or at the
/// paper's edge), the lines place it from the lines inside it, and the corner given is kept if
/// it agrees with that; if it is further off (found on the first inner line, say), the lines'
/// corner is taken: the overlay would otherwise be drawn that far off while the cells read
/// right. Where the outline runs along the picture's edge and the lines inside put the grid
/// beyond it, they are followed again from where they put it ([`beyond_the_picture`]).
fn cut_along_lines(gray: &Mat, quad: &Quad, edge: Edge, follow: Follow) -> Result<Option<Cut>> {
    let Some(cut) = follow_lines(gray, quad, edge)? else {
        return Ok(None);
    };
    if let Some(start) = beyond_the_picture(gray, quad, &cut.lattice)? {
        let cell = start.mean_side() / 9.0;
        let beyond = beyond_the_edges(gray, 0.0);
        let runs_beyond = |quad: &Quad| {
            quad.0
                .iter()
                .any(|&p| beyond(p).iter().any(|&out| out > BEYOND_THE_PICTURE * cell))
        };
        let again = follow_lines(gray, &start, edge)?;
        if let Some(again) = again.filter(|again| runs_beyond(&again.quad)) {
            tracing::debug!(
                ?start,
                "the grid runs beyond the picture's edge: followed again"
            );
            return Ok(Some(again));
        }
        tracing::trace!(
            ?start,
            "followed again, the grid no longer runs beyond the picture"
        );
        // Followed again, a border was "seen" along the cut (0.2 of a cell inside where the
        // lines first put it, the grid no longer beyond the picture): the lines first followed
        // stand, where they gave the corners.
        let followed = cut.lattice.corners();
        if start == followed {
            tracing::debug!("the grid runs beyond the picture's edge: cut by the lines' corners");
            return Ok(Some(Cut {
                quad: followed,
                on_lines: true,
                ..cut
            }));
        }
    }
    // A border not seen where the corners given put it may have been beyond the lines' reach
    // (the corners far off): follow the lines once more from where they put it. So may a
    // border they saw but only reached part of the way to (the corners given half a cell off
    // on a small grid): they put it nearer, and followed again from there, where it is.
    // Followed again, the lines are taken when they see a border more (what they were
    // followed again to find) or show about as clearly as the first ones did: on a page
    // curled hard into a book's gutter, the corners moved out onto the border bowing beyond
    // them put the box lines inside half a cell off, and followed from there the lines
    // latched onto digits (rows cut a line off, the puzzle judged invalid; lines shown 0.77
    // to 0.89 of the first cut's, where followed again on the 240 data photos they show 0.97
    // or more).
    let refollow = moved_on_unseen_border(&cut.quad, quad, cut.border_seen)
        || (follow == Follow::AgainIfMoved
            && cut.quad.max_corner_distance(quad) > REFOLLOW_SEEN * cut.quad.mean_side() / 9.0);
    if refollow && let Some(again) = follow_lines(gray, &cut.quad, edge)? {
        if sees_more(&again.border_seen, &cut.border_seen) {
            return Ok(Some(again));
        }
        let before = occlusion::lines_shown(&cut.rectified)?;
        let after = occlusion::lines_shown(&again.rectified)?;
        if after >= REFOLLOW_SHOWS * before {
            return Ok(Some(again));
        }
        tracing::trace!(
            before,
            after,
            "followed again, the lines show less: the first following stands"
        );
    }
    Ok(Some(cut))
}

/// The grid cut along the lines followed from the corners `given` once, its outline taken from
/// both (see [`outline`]); None when they can't be followed.
fn follow_lines(gray: &Mat, given: &Quad, edge: Edge) -> Result<Option<Cut>> {
    Ok(
        cells::rectify_along_lines(gray, given, edge)?.map(|fitted| {
            let (quad, on_lines) = outline(&fitted.lattice.corners(), fitted.border_seen, given);
            Cut {
                rectified: fitted.rectified,
                quad,
                on_lines,
                border_seen: fitted.border_seen,
                lattice: fitted.lattice,
            }
        }),
    )
}

/// Where the outline `quad` runs along the picture's edge (both corners of a side within
/// [`AT_THE_EDGE`] of a cell of it), the grid may be cut there, the outline running along the
/// cut rather than the border: the corners to follow the lines again from when it is. The lines
/// inside still lie as printed: the homography of their crossings (all but the border lines',
/// fitted robustly) places the corners, and when it puts a corner of such a side beyond the
/// picture ([`BEYOND_THE_PICTURE`]), the grid is cut. The lines' own corners are returned, not
/// the outline's (its corner on the cut was kept as agreeing with them, and the lines followed
/// again from it: a corner 0.34 of a cell off, on the picture's edge); or that homography's,
/// where it puts a corner of the cut side [`INSIDE_MOVES`] further out or in than the lines
/// did, for from the outline along the cut they were looked for up to half a cell off their
/// places and latched onto digits (a photo cut 0.6 of a cell inside its left border: the first
/// box line followed onto an 8 in the top row, the grid drawn 0.57 of a cell off). Only across
/// the edge: along it, that homography carried far may put a corner a fifth of a cell off on
/// paper curving a little, where the lines had it right.
fn beyond_the_picture(gray: &Mat, quad: &Quad, lattice: &Lattice) -> Result<Option<Quad>> {
    let beyond = beyond_the_edges(gray, 0.0);
    let cell = quad.mean_side() / 9.0;
    let ends = [[0, 1], [1, 2], [2, 3], [3, 0]];
    // The picture's edges some side of the outline runs along, with that side's corners.
    let along: Vec<(usize, [usize; 2])> = (0..4)
        .flat_map(|edge| ends.map(|side| (edge, side)))
        .filter(|&(edge, side)| {
            side.iter()
                .all(|&i| beyond(quad.0[i])[edge] > -AT_THE_EDGE * cell)
        })
        .collect();
    if along.is_empty() {
        return Ok(None);
    }
    let (mut from, mut to) = (Vector::<Point2f>::new(), Vector::<Point2f>::new());
    for (r, row) in lattice.0.iter().enumerate().take(9).skip(1) {
        for (c, &[x, y]) in row.iter().enumerate().take(9).skip(1) {
            from.push(Point2f::new(c as f32 / 9.0, r as f32 / 9.0));
            to.push(Point2f::new(x as f32, y as f32));
        }
    }
    let Some((image_from_grid, _)) = Homography::fit(&from, &to, INSIDE_FITS * cell, INSIDE_AGREE)?
    else {
        return Ok(None);
    };
    let inside = Quad(Quad::UNIT.0.map(|p| image_from_grid.apply(p)));
    let followed = lattice.corners();
    let out = |quad: &Quad, i: usize, edge: usize| beyond(quad.0[i])[edge];
    let cut = along.iter().filter(|&&(edge, side)| {
        side.iter()
            .any(|&i| out(&inside, i, edge) > BEYOND_THE_PICTURE * cell)
    });
    let mut start = None;
    for &(edge, side) in cut {
        let by = |i: usize| (out(&inside, i, edge) - out(&followed, i, edge)).abs();
        if side.iter().any(|&i| by(i) > INSIDE_MOVES * cell) {
            return Ok(Some(inside));
        }
        start = Some(followed);
    }
    Ok(start)
}

/// How far beyond each of the edges (left, right, top, bottom) of the picture laid `margin`
/// pixels inside `gray`'s a point lies, in pixels (negative inside).
pub(crate) fn beyond_the_edges(gray: &Mat, margin: f64) -> impl Fn(Point) -> [f64; 4] {
    use opencv::prelude::MatTraitConst;
    let (right, bottom) = (
        gray.cols() as f64 - 1.0 - margin,
        gray.rows() as f64 - 1.0 - margin,
    );
    move |[x, y]: Point| [margin - x, x - right, margin - y, y - bottom]
}

/// See [`beyond_the_picture`]: how near the picture's edge (cells; beyond it counts too) an
/// outline's side must lie to be taken for a cut, how far beyond it (cells) the lines inside
/// must put a corner, and how far from where the lines followed put the corners.
const AT_THE_EDGE: f64 = 0.5;
const BEYOND_THE_PICTURE: f64 = 0.1;
const INSIDE_MOVES: f64 = 0.15;
/// How near (cells) the inner lines' crossings must lie to their homography, and how many of
/// the 64 must.
const INSIDE_FITS: f64 = 0.08;
const INSIDE_AGREE: usize = 40;

/// How much more clearly ([`detect::grid_score`]) an outline a cell wider must frame a grid
/// than the one cut short to be taken over it.
const WIDER_CLEARER_BY: f64 = 0.05;

/// The lines across the cells added beyond an unseen border must show there at least this
/// share of what the grid's other lines show ([`occlusion::edge_cells_ruled`]): the grid goes on
/// there (an outline cut a cell short beside a thumb: 0.75). A page lifted at one side narrows
/// its last column to a third of a cell and its lines run half a cell off the corners'
/// homography; its border, not seen there, was "seen" a cell further out at the paper's edge,
/// across blank paper (0.01), and the last column was read and drawn beyond the grid.
const RULED_BEYOND: f64 = 0.5;

/// Where a border line was not seen, the outline may have been cut a cell short (the border
/// washed out by light, or outlined along the first inner line beside a finger): the lines
/// inside then agree with it, and the grid is drawn a cell off there while its cells read
/// right (thumb:image13 under NOISE_SEED=21 and 28, a corner a cell in). The lines are followed
/// again from the side's corners, or either of them, a cell further out; taken when they see
/// that border there, a cell out ([`cells_moved_out`]), and frame the grid more clearly than
/// before.
fn beyond_unseen_border(gray: &Mat, cut: &Cut, edge: Edge) -> Result<Option<Cut>> {
    if cut.border_seen.iter().all(|&seen| seen) {
        return Ok(None);
    }
    let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, &cut.quad) else {
        return Ok(None);
    };
    let mut score = None;
    for side in (0..4).filter(|&side| !cut.border_seen[side]) {
        // The side's two corners (indices into the quad: top-left, top-right, bottom-right,
        // bottom-left) and the way out of the grid across it, in grid units.
        let (ends, out) = match side {
            0 => ([0, 1], [0.0, -1.0]),
            1 => ([1, 2], [1.0, 0.0]),
            2 => ([2, 3], [0.0, 1.0]),
            _ => ([3, 0], [-1.0, 0.0]),
        };
        for moved in [&ends[..], &ends[..1], &ends[1..]] {
            let mut wider = cut.quad;
            for &corner in moved {
                let [u, v] = Quad::UNIT.0[corner];
                wider.0[corner] = image_from_grid.apply([u + out[0] / 9.0, v + out[1] / 9.0]);
            }
            let Some(fitted) = cells::rectify_along_lines(gray, &wider, edge)? else {
                continue;
            };
            let sees_more = fitted.border_seen[side]
                && (0..4).all(|s| fitted.border_seen[s] || !cut.border_seen[s]);
            if !sees_more {
                continue;
            }
            // A cell further out, not the same border seen again: on paper bowed across the
            // side, the border bulges out between the corners beyond the lines' reach, and
            // followed again from a cell out it was found there, bulging 0.35 of a cell, and
            // taken for a border a cell out (a column drawn beyond the grid, 0.71 of a cell
            // off: `cargo bench --bench curved -- --bowed-stills 0.35`).
            let moved_out = cells_moved_out(&cut.lattice, &fitted.lattice, side, moved);
            if moved_out < MOVED_OUT {
                tracing::trace!(
                    side,
                    moved_out,
                    "the border followed again lies near where it was"
                );
                continue;
            }
            let ruled =
                occlusion::edge_cells_ruled(&fitted.rectified, side, ruled_near(side, moved))?;
            tracing::trace!(
                side,
                ruled,
                "lines across the cells added beyond an unseen border"
            );
            if ruled < RULED_BEYOND {
                continue;
            }
            let (corners, _) = outline(&fitted.lattice.corners(), fitted.border_seen, &wider);
            let before = match score {
                Some(before) => before,
                None => *score.insert(detect::grid_score(gray, &cut.quad, detect::Look::Only)?),
            };
            let after = detect::grid_score(gray, &corners, detect::Look::Only)?;
            tracing::trace!(
                side,
                before,
                after,
                "lines followed a cell beyond an unseen border"
            );
            if after >= before + WIDER_CLEARER_BY {
                tracing::debug!(
                    side,
                    "a border not seen lay a cell further out: cut from there"
                );
                return Ok(Some(Cut {
                    rectified: fitted.rectified,
                    quad: corners,
                    on_lines: true,
                    border_seen: fitted.border_seen,
                    lattice: fitted.lattice,
                }));
            }
        }
    }
    Ok(None)
}

/// How far out (cells, at the median) a border moved a cell further out must lie beyond where
/// the lines put it before (see [`cells_moved_out`]).
const MOVED_OUT: f64 = 0.6;

/// How far the border line across `side` of `after` lies from that of `before` (both the
/// crossings of the lines in the picture), in cells of `before` at each crossing along it, at
/// the median over the crossings on the half of the side near the corners `moved` (all of them
/// when both were).
fn cells_moved_out(before: &Lattice, after: &Lattice, side: usize, moved: &[usize]) -> f64 {
    // The crossing on the border at `k` along the side and the one next inside it.
    let at = |lattice: &Lattice, k: usize, inward: usize| match side {
        0 => lattice.0[inward][k],
        1 => lattice.0[k][9 - inward],
        2 => lattice.0[9 - inward][k],
        _ => lattice.0[k][inward],
    };
    let mut out: Vec<f64> = crossings_near(side, moved)
        .map(|k| {
            let cell = distance(at(before, k, 0), at(before, k, 1)).max(f64::EPSILON);
            distance(at(after, k, 0), at(before, k, 0)) / cell
        })
        .collect();
    out.sort_by(f64::total_cmp);
    out[out.len() / 2]
}

/// The crossings along `side` (0 to 9 from its left or top end) on the half near the corners
/// `moved`: all where both moved.
fn crossings_near(side: usize, moved: &[usize]) -> std::ops::RangeInclusive<usize> {
    match *moved {
        [corner] if at_start(side, corner) => 0..=4,
        [_] => 5..=9,
        _ => 0..=9,
    }
}

/// Whether `corner` (an index into a quad) lies at the left or top end of `side`.
fn at_start(side: usize, corner: usize) -> bool {
    let [u, v] = Quad::UNIT.0[corner];
    (if side.is_multiple_of(2) { u } else { v }) == 0.0
}

/// Which stretches of line across a side's cells (the ninths along it, see
/// [`occlusion::edge_cells_ruled`]) tell whether the grid goes on where the corners `moved`
/// out across `side`: all 8 where both did; where one did, the 4 on its half, for the cells
/// added near the other corner are slivers over the grid's own (a page lifted at its right,
/// its bottom-right corner moved out onto blank paper: 0.73 over all 8, 0.25 over the 4 near
/// it).
fn ruled_near(side: usize, moved: &[usize]) -> std::ops::Range<usize> {
    match *moved {
        [corner] if at_start(side, corner) => 1..5,
        [_] => 5..9,
        _ => 1..9,
    }
}

/// A cell beside a hidden stretch of line is read this much less surely (its probabilities
/// raised to this power): what shows of a digit under a fingertip may be another digit.
pub const HIDDEN_CELL_POWER: f32 = 0.3;

/// The reading of a rectified grid made less sure where a line beside a cell is hidden
/// ([`occlusion::hidden_cells`]) or the cell lies under something on the paper
/// ([`occlusion::under_something_broad`]).
fn mark_hidden(mut reading: GridReading, rectified: &Mat) -> Result<GridReading> {
    let hidden = occlusion::hidden_cells(rectified)?;
    let under = occlusion::under_something_broad(rectified)?;
    if hidden.contains(&true) {
        let cells: Vec<usize> = (0..81).filter(|&i| hidden[i]).collect();
        tracing::debug!(?cells, "lines hidden beside cells: read less surely");
    }
    if under.contains(&true) {
        let cells: Vec<usize> = (0..81).filter(|&i| under[i]).collect();
        tracing::debug!(
            ?cells,
            "cells under something lying on the paper: read less surely"
        );
    }
    for ((cell, hidden), under) in reading.0.iter_mut().zip(hidden).zip(under) {
        if hidden || under {
            *cell = read::CellReading {
                under,
                ..cell.hidden(HIDDEN_CELL_POWER)
            };
        }
    }
    Ok(reading)
}

/// The reading of a grid smeared by the camera's motion, marked so ([`CellReading::smeared`](read::CellReading::smeared)).
fn mark_smeared(mut reading: GridReading) -> GridReading {
    for cell in &mut reading.0 {
        cell.smeared = true;
    }
    reading
}

/// When the lines move a corner given on a border they did not see by more than this many
/// cells, they are followed again from the corners they gave.
const REFOLLOW_AFTER: f64 = 0.2;

/// When the lines move any corner by more than this many cells, they are followed again from
/// the corners they gave.
const REFOLLOW_SEEN: f64 = 0.1;

/// Lines followed again are taken when they show at least this share of what the first ones
/// did ([`occlusion::lines_shown`]).
const REFOLLOW_SHOWS: f64 = 0.95;

/// A corner given within this many cells of where the lines inside place an unseen border's
/// corner agrees with them, and is kept.
const UNSEEN_CORNER_AGREES: f64 = 0.25;

/// A corner given on a border the lines did not see, but beside the other border through it,
/// which they saw, by more than this many cells, is not kept: an app's dark tiles on a page a
/// little lighter, outlined with the page's strip beside them at the bottom, had their
/// bottom-left corner drawn at the strip's edge, 0.2 of a cell left of the left border seen.
/// At 0.1, a page curling into a book's gutter on that side (where the corner given is the
/// better one) was drawn with a cell 0.28 of a cell off, not 0.25.
const SEEN_BORDER_AGREES: f64 = 0.15;

/// The grid's outline from the lines' corners (`lines`, with which border lines were seen:
/// top, right, bottom, left) and the corners `given`; and whether any corner is the lines'.
fn outline(lines: &Quad, border_seen: [bool; 4], given: &Quad) -> (Quad, bool) {
    let [top, right, bottom, left] = border_seen;
    let seen = [top && left, top && right, bottom && right, bottom && left];
    let cell = lines.mean_side() / 9.0;
    // The sides through each corner (indices into `border_seen`), and their ends in `lines`.
    let through = [[0, 3], [0, 1], [2, 1], [2, 3]];
    let ends = [[0, 1], [1, 2], [2, 3], [3, 0]];
    // How far across the seen border through corner `i` the corner given lies.
    let off_a_seen_border = |i: usize| {
        through[i]
            .iter()
            .filter(|&&side| border_seen[side])
            .map(|&side| {
                let [a, b] = ends[side].map(|k| lines.0[k]);
                let along = [b[0] - a[0], b[1] - a[1]];
                let length = along[0].hypot(along[1]).max(f64::EPSILON);
                let [dx, dy] = [given.0[i][0] - lines.0[i][0], given.0[i][1] - lines.0[i][1]];
                (along[0] * dy - along[1] * dx).abs() / length
            })
            .fold(0.0, f64::max)
    };
    let from_lines: [bool; 4] = std::array::from_fn(|i| {
        seen[i]
            || distance(lines.0[i], given.0[i]) > UNSEEN_CORNER_AGREES * cell
            || off_a_seen_border(i) > SEEN_BORDER_AGREES * cell
    });
    let corners = Quad(std::array::from_fn(|i| {
        if from_lines[i] {
            lines.0[i]
        } else {
            given.0[i]
        }
    }));
    (corners, from_lines.iter().any(|&f| f))
}

/// Whether the outline moved a corner on a border line that was not seen by more than
/// [`REFOLLOW_AFTER`] from the corner `given`.
fn moved_on_unseen_border(outline: &Quad, given: &Quad, border_seen: [bool; 4]) -> bool {
    let [top, right, bottom, left] = border_seen;
    let seen = [top && left, top && right, bottom && right, bottom && left];
    let cell = outline.mean_side() / 9.0;
    (0..4).any(|i| !seen[i] && distance(outline.0[i], given.0[i]) > REFOLLOW_AFTER * cell)
}

/// Whether `after` sees a border `before` did not, and every one it did (top, right, bottom,
/// left).
fn sees_more(after: &[bool; 4], before: &[bool; 4]) -> bool {
    after != before
        && after
            .iter()
            .zip(before)
            .all(|(&after, &before)| after || !before)
}

/// Whether an upright reading is doubtful enough to try the other three ways up.
fn needs_turning(reading: &GridReading) -> bool {
    !reading.is_confident() || crate::solve::solve(&reading.printed()).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Rect, Scalar};
    use opencv::imgproc;

    /// A grid cut by a picture's left edge 0.7 of a cell inside its border (700 x 900 px, 80 px
    /// cells): its lines as followed from an outline along the cut, the three columns beside it
    /// squeezed into what is left of them.
    fn cut_on_the_left() -> (Mat, Quad, Lattice, Quad) {
        let picture =
            Mat::new_rows_cols_with_default(900, 700, opencv::core::CV_8UC1, Scalar::all(200.0))
                .unwrap();
        let printed = Quad([
            [-56.0, 100.0],
            [664.0, 110.0],
            [654.0, 830.0],
            [-46.0, 820.0],
        ]);
        let truth = Lattice::flat(&printed).unwrap();
        let outline = Quad([[2.0, 101.0], [664.0, 110.0], [654.0, 830.0], [2.0, 821.0]]);
        let followed = Lattice(std::array::from_fn(|r| {
            std::array::from_fn(|c| {
                let [x, y] = truth.0[r][c];
                if c >= 3 {
                    return [x, y];
                }
                let third = truth.0[r][3][0];
                [2.0 + (third - 2.0) * c as f64 / 3.0, y]
            })
        }));
        (picture, outline, followed, printed)
    }

    #[test]
    fn the_lines_inside_place_a_grid_cut_by_the_pictures_edge_beyond_it() {
        let (picture, outline, followed, printed) = cut_on_the_left();
        let inside = beyond_the_picture(&picture, &outline, &followed)
            .unwrap()
            .expect("the lines inside put the left border beyond the picture");
        assert!(inside.max_corner_distance(&printed) < 1.0, "{inside:?}");
    }

    #[test]
    fn a_grid_whole_in_the_picture_with_its_border_along_the_edge_is_left_as_followed() {
        let (picture, _, _, _) = cut_on_the_left();
        let printed = Quad([[2.0, 100.0], [664.0, 110.0], [654.0, 830.0], [2.0, 820.0]]);
        let followed = Lattice::flat(&printed).unwrap();
        assert_eq!(
            beyond_the_picture(&picture, &printed, &followed).unwrap(),
            None
        );
    }

    #[test]
    fn a_grid_cut_by_the_edge_followed_right_is_followed_again_from_the_lines_not_the_cut() {
        // The lines followed from the cut found the column lines where they are printed, and
        // carried the border on beyond the picture.
        let (picture, outline, _, printed) = cut_on_the_left();
        let followed = Lattice::flat(&printed).unwrap();
        let start = beyond_the_picture(&picture, &outline, &followed).unwrap();
        assert_eq!(start, Some(followed.corners()));
    }

    #[test]
    fn a_border_a_cell_out_is_told_from_one_bulging_between_the_corners() {
        // 36 px cells; the lines followed again put the right border a cell out, or (paper
        // bowed across it) 0.4 of a cell out at its middle and on the corners at its ends.
        let before = Lattice::flat(&Quad([
            [0.0, 0.0],
            [324.0, 0.0],
            [324.0, 324.0],
            [0.0, 324.0],
        ]))
        .unwrap();
        let moved = |by: &dyn Fn(usize) -> f64| {
            let mut after = before;
            for (r, row) in after.0.iter_mut().enumerate() {
                row[9][0] += by(r);
            }
            after
        };
        let a_cell_out = moved(&|_| 36.0);
        let bulging = moved(&|r| 0.4 * 36.0 * (std::f64::consts::PI * r as f64 / 9.0).sin());
        let out = |after: &Lattice, corners: &[usize]| cells_moved_out(&before, after, 1, corners);
        assert!((out(&a_cell_out, &[1, 2]) - 1.0).abs() < 1e-9);
        assert!((out(&a_cell_out, &[1]) - 1.0).abs() < 1e-9);
        assert!(out(&bulging, &[1, 2]) < MOVED_OUT);
        // Near one corner only: the half of the side beside it.
        let top_half_out = moved(&|r| if r <= 4 { 36.0 } else { 0.0 });
        assert!(out(&top_half_out, &[1]) >= MOVED_OUT);
        assert!(out(&top_half_out, &[2]) < MOVED_OUT);
    }

    /// A page with a grid whose left border is washed out (painted over in paper white) from
    /// `from` (share of the side, from the top) down, its right corners and outline.
    fn washed_left_border(from: f64) -> (Mat, Quad) {
        let (x, y, side) = (150, 80, 324);
        let mut page = detect::tests::drawn_grid(640, 480, x, y, side);
        let top = y + (from * side as f64) as i32;
        let rect = Rect::new(x - 4, top, 8, y + side + 4 - top);
        imgproc::rectangle(&mut page, rect, Scalar::all(235.0), -1, imgproc::LINE_8, 0).unwrap();
        let (x, y, side) = (x as f64, y as f64, side as f64);
        let right = Quad([[x, y], [x + side, y], [x + side, y + side], [x, y + side]]);
        (page, right)
    }

    #[test]
    fn an_outline_cut_a_cell_short_at_an_unseen_border_is_cut_from_a_cell_further_out() {
        // The border washed out below its top third; the outline found along the first inner
        // line at the bottom-left corner, a cell (36 px) in, and the lines inside agreeing with
        // it (as on a blurred frame, where they were followed along the strokes beside).
        let (page, right) = washed_left_border(0.3);
        let mut short = right;
        short.0[3][0] += 36.0;
        let cut = Cut {
            rectified: Mat::default(),
            quad: short,
            on_lines: true,
            border_seen: [true, true, true, false],
            lattice: Lattice::flat(&short).unwrap(),
        };
        let wider = beyond_unseen_border(&page, &cut, Edge::Line)
            .unwrap()
            .expect("cut further out");
        assert!(wider.border_seen[3]);
        // Within a sixth of a cell: the washed-out stretch gives the border line nothing to
        // sit on below the top third.
        assert!(
            wider.quad.max_corner_distance(&right) < 6.0,
            "{:?}",
            wider.quad
        );
    }

    #[test]
    fn an_outline_at_a_border_washed_out_all_along_is_not_moved_past_it() {
        let (page, right) = washed_left_border(0.0);
        let cut = cut_along_lines(&page, &right, Edge::Line, Follow::Once)
            .unwrap()
            .unwrap();
        assert!(!cut.border_seen[3]);
        assert!(cut.quad.max_corner_distance(&right) < 3.0);
        assert!(
            beyond_unseen_border(&page, &cut, Edge::Line)
                .unwrap()
                .is_none()
        );
    }

    const LINES: Quad = Quad([
        [100.0, 100.0],
        [460.0, 100.0],
        [460.0, 460.0],
        [100.0, 460.0],
    ]);

    #[test]
    fn corners_on_seen_borders_come_from_the_lines() {
        let given = Quad([[103.0, 98.0], [458.0, 104.0], [461.0, 457.0], [97.0, 462.0]]);
        assert_eq!(outline(&LINES, [true; 4], &given), (LINES, true));
    }

    #[test]
    fn a_corner_on_an_unseen_border_is_kept_only_where_it_agrees_with_the_lines() {
        // Left border not seen (the paper's edge); the given top-left corner is 3 px from the
        // lines' (a tenth of a 40 px cell): kept. The given bottom-left corner sits on the
        // first inner column line, a whole cell in: the lines' corner is taken.
        let given = Quad([
            [102.0, 98.0],
            [460.0, 100.0],
            [460.0, 460.0],
            [140.0, 460.0],
        ]);
        let (outline, on_lines) = outline(&LINES, [true, true, true, false], &given);
        assert_eq!(outline.0[0], given.0[0]);
        assert_eq!(outline.0[3], LINES.0[3]);
        assert_eq!(&outline.0[1..3], &LINES.0[1..3]);
        assert!(on_lines);
    }

    #[test]
    fn a_corner_on_an_unseen_border_is_not_kept_beside_the_seen_one_through_it() {
        // Bottom border not seen (an app's tiles on a page strip); the given bottom-left corner
        // is 8 px (0.2 of a cell) left of the left border the lines saw, at the strip's edge,
        // though within a quarter of a cell of their corner: the lines' corner is taken. The
        // given bottom-right one is 2 px off the right border seen: kept.
        let given = Quad([LINES.0[0], LINES.0[1], [462.0, 458.0], [92.0, 461.0]]);
        let (outline, _) = outline(&LINES, [true, true, false, true], &given);
        assert_eq!(outline.0[3], LINES.0[3]);
        assert_eq!(outline.0[2], given.0[2]);
    }

    #[test]
    fn lines_are_followed_again_only_for_a_corner_moved_far_on_an_unseen_border() {
        // Top-left moved 12 px (0.3 of a 40 px cell).
        let given = Quad([
            [100.0, 112.0],
            [460.0, 100.0],
            [460.0, 460.0],
            [100.0, 460.0],
        ]);
        assert!(moved_on_unseen_border(
            &LINES,
            &given,
            [false, true, true, true]
        ));
        assert!(moved_on_unseen_border(
            &LINES,
            &given,
            [true, true, true, false]
        ));
        // Both borders through it seen: the lines' corner is where the border lines cross.
        assert!(!moved_on_unseen_border(&LINES, &given, [true; 4]));
        // Moved 4 px only.
        let near = Quad([[100.0, 104.0], LINES.0[1], LINES.0[2], LINES.0[3]]);
        assert!(!moved_on_unseen_border(&LINES, &near, [false; 4]));
    }

    #[test]
    fn nothing_seen_and_all_agreeing_keeps_the_given_corners() {
        let given = Quad([
            [101.0, 101.0],
            [459.0, 101.0],
            [459.0, 459.0],
            [101.0, 459.0],
        ]);
        assert_eq!(outline(&LINES, [false; 4], &given), (given, false));
    }

    #[test]
    fn a_single_corner_moved_out_is_judged_by_the_half_of_its_side_next_to_it() {
        // Sides: 0 top, 1 right, 2 bottom, 3 left; corners: top-left, top-right, bottom-right,
        // bottom-left. Stretches run along a side from its left or top end.
        assert_eq!(ruled_near(1, &[2]), 5..9);
        assert_eq!(ruled_near(1, &[1]), 1..5);
        assert_eq!(ruled_near(0, &[1]), 5..9);
        assert_eq!(ruled_near(2, &[3]), 1..5);
        assert_eq!(ruled_near(3, &[0]), 1..5);
        assert_eq!(ruled_near(3, &[3, 0]), 1..9);
    }
}
