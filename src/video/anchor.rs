//! Holding a followed grid on the printed one: every tracked frame is aligned to a reference
//! picture of the grid taken where a reading last followed its printed lines, which also tells
//! a slip of a whole cell, another page laid where the grid was, and what lies over the paper
//! (a hand, glare).

use opencv::core::{Mat, Point, Point2f, Rect, Scalar, Size, Vector, no_array};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::Result;
use crate::geometry::Homography;
use crate::raster::{glare_level, local_mean, morphed};
use crate::video::track::{TrackFrame, crossings, flow, quad_of};

/// The largest correction an alignment may make, in cells, before the track counts as slipped.
const MAX_CORRECTION: f64 = 0.25;
/// Side of a cell in the anchor's reference picture, in pixels.
const ANCHOR_CELL: f64 = 16.0;
/// Margin around the grid in the reference picture, in cells.
const ANCHOR_MARGIN: f64 = 0.5;
/// Points that must agree with the reference for a frame to count as anchored.
const MIN_ANCHORED: usize = 24;
/// Agreement with the reference, in reference pixels.
const ANCHOR_DISTANCE: f64 = 1.5;
/// Window of the flow from the reference to the frame rectified by the tracked homography, in
/// reference pixels. One pyramid level: the tracked grid is meant to be within
/// [`MAX_CORRECTION`] of a cell (4 pixels) of the reference's, which the window's half reaches;
/// a second level cost half as much again and changed nothing on the simulated camera.
const ANCHOR_WINDOW: i32 = 11;
/// How well the cells' ink must match the reference's ([`Anchor::replaced`]) for the page under
/// the track to be the one read: over the simulated hand-held camera's 32,500 frames tracked
/// (two sets of pages, a hand writing in the digits) at least 0.23 (a page still sliding in,
/// a finger over it); a puzzle swapped in place, -0.23 to 0.06.
const SAME_PAGE_LEAST: f64 = 0.15;
/// How much better a neighbouring cell's position must explain where the ink is than the
/// tracked one for the track to count as slipped (correlation of the cells' ink).
const SLIP_MARGIN: f64 = 0.15;
/// [`Anchor::digits_unlike`]: the share of a cell its digit is compared over; how alike a
/// digit must look to its own reference cell (a steady frame of the same page: 0.96 at the
/// median; another digit there 0.83); how much more alike another cell's it must look; and
/// how many digits must be compared for the comparison to say anything.
const DIGIT_WINDOW: f64 = 0.7;
const LIKE_ITS_OWN: f64 = 0.9;
const MORE_LIKE: f64 = 0.05;
const MIN_DIGITS_COMPARED: usize = 9;

/// The grid as it looked when it was found, rectified: every later frame is aligned to it, so
/// the track stays on the printed grid instead of adding up frame-to-frame errors.
///
/// Alignment is Lucas-Kanade flow from the reference's line crossings and the corners of its
/// digits to the new frame rectified by the tracked homography, and a homography fitted to the
/// points that moved consistently (RANSAC: a finger or glare is outvoted). Because a grid
/// repeats, crossings alone cannot tell a slip of a whole cell: the ink of the 81 cells (where
/// the digits are) is compared with the reference's, also one cell over each way, and a better
/// match off by a cell is a slip.
pub struct Anchor {
    reference: Mat,
    points: Vector<Point2f>,
    /// Each cell's level in the reference against its own paper ([`cell_levels_in_place`]):
    /// its ink is taken against the cells open to view in each frame.
    levels: [f64; 81],
    /// Cells a glare spot washed out or ringed when the reference was taken: their ink says
    /// nothing (see [`washed_out_cells`]).
    washed: [bool; 81],
    /// The reference's picture with its ink taken away ([`background`]).
    background: Mat,
    /// How much detail the reference shows around each pixel ([`texture`]).
    texture: Mat,
    /// Whether the ink is darker than the paper (else lighter: a dark-mode screen).
    dark_ink: bool,
    /// Which of `points` lay on a hand over the grid when the reference was taken (empty: none
    /// did). Like those under something over the grid now, they are followed only where they
    /// agree with the open paper's ([`fit`]).
    on_hand: Vec<bool>,
    /// The cells those points lie near: something lay over them when the reference was taken.
    hand: [bool; 81],
    /// Cells with a digit in the reference ([`digit_cells`]).
    digits: [bool; 81],
}

/// A frame aligned to the anchor.
#[derive(Debug, Clone, Copy)]
pub struct Anchored {
    pub image_from_grid: Homography,
    pub inliers: usize,
    /// The cells whose printed detail is gone in this frame and not in the reference, or the
    /// other way round, with the cells they ring (`flat` of `covered_cells`): a hand lies
    /// there, its edge beside their lines. Not where only the level changed: light changing
    /// over a hand-held page does so over most of the grid.
    pub under: [bool; 81],
    /// `under`, and the cells where only the paper's level changed when they are few (at most
    /// a third of the grid: more is the light changing): what the print check leaves to the
    /// rest of a box.
    pub over: [bool; 81],
    /// The digits in view are not the reference's (`Anchor::digits_unlike`).
    pub digits_unlike: bool,
}

/// What the anchor says about a tracked frame.
#[derive(Debug, Clone)]
pub enum Alignment {
    Anchored(Box<Anchored>),
    /// Too little of the grid to align to (out of view, covered, blurred): the tracked
    /// homography is all there is.
    Unsure,
    /// The tracked grid is off by a cell or more.
    Slipped,
    /// Another page lies where the grid was.
    Replaced,
}

impl Anchor {
    /// Takes the reference from `frame` where `image_from_grid` (full-resolution pixels) puts
    /// the grid; None when the grid is not all in view with half a cell around it, or, where
    /// `border_shown` (its printed border shows along each side near the frame's edge), not
    /// all in view itself. The points near the cells the reading it is set on found `hidden`,
    /// and those whose printed detail `before` saw (the anchor it replaces, when settled where
    /// the grid still is) is gone, lie on something over the grid: they are followed only
    /// where they agree with the paper's.
    pub fn new(
        frame: &TrackFrame,
        image_from_grid: &Homography,
        border_shown: bool,
        (hidden, before): (&[bool; 81], Option<&Anchor>),
    ) -> Result<Option<Anchor>> {
        let reference = rectified_for_anchor(frame, image_from_grid)?;
        let Some(reference) = reference else {
            return Ok(None);
        };
        // The margin around the grid may be cut by the frame's edge on one side; on more only
        // where the printed border shows the grid is not cut there (a phone's app fills the
        // screen's width to within a third of a cell, and a page filmed close the frame: the
        // grid was followed and solved, never drawn). A grid cut by the frame's edge is
        // outlined a little inside it, its margin beyond the edge, and shows no border there.
        let outside = if border_shown {
            reference.share_outside(ANCHOR_MARGIN * ANCHOR_CELL, 19)
        } else {
            reference.share_outside(0.0, 21)
        };
        if outside > 0.05 {
            tracing::debug!(
                outside,
                border_shown,
                "no anchor: the grid is not all in view"
            );
            return Ok(None);
        }
        // What lies over the grid now: the cells the reading found hidden, and those whose
        // printed detail the anchor before saw is gone (a hand reaches past the lines it hides).
        let gone = match before {
            Some(before) => covered_cells(before.looks(), reference.looks())?.flat,
            None => [false; 81],
        };
        let hand: [bool; 81] = std::array::from_fn(|i| hidden[i] || gone[i]);
        let dark_ink = is_dark_ink(&cell_levels(&reference.picture)?);
        let levels = cell_levels_in_place(&reference.picture)?;
        let mut points = Vector::<Point2f>::new();
        for [x, y] in crossings() {
            points.push(anchor_point([x, y]));
        }
        // Corners of the digits: they tell a slip along the grid's lines that crossings can't.
        let mut corners = Vector::<Point2f>::new();
        imgproc::good_features_to_track(
            &reference.picture,
            &mut corners,
            40,
            0.05,
            5.0,
            &no_array(),
            3,
            false,
            0.04,
        )?;
        // Not in a margin the frame's edge cut (filled there by its last pixels).
        for c in corners.iter().filter(|&c| reference.sees(c)) {
            points.push(c);
        }
        let on_hand = if hand.contains(&true) {
            tracing::debug!(
                cells = hand.iter().filter(|&&h| h).count(),
                "the anchor follows what lies over the grid only with the paper"
            );
            points.iter().map(|p| near_cells(p, &hand)).collect()
        } else {
            Vec::new()
        };
        let digits = digit_cells(&reference.picture)?;
        Ok(Some(Anchor {
            reference: reference.picture,
            points,
            levels,
            washed: reference.washed,
            background: reference.background,
            texture: reference.texture,
            dark_ink,
            on_hand,
            hand,
            digits,
        }))
    }

    /// The cells something lay over when the reference was taken: those the reading it was
    /// set on found hidden, and those whose printed detail the anchor before saw was gone.
    pub fn hand(&self) -> &[bool; 81] {
        &self.hand
    }

    /// The reference's background and texture, as [`covered_cells`] compares them.
    fn looks(&self) -> (&Mat, &Mat) {
        (&self.background, &self.texture)
    }

    /// Aligns `frame`, where tracking put the grid at `image_from_grid` (full-resolution
    /// pixels), to the reference; and compares its digits with the reference's when
    /// `compare_digits` (a steady frame of a solved grid, see `Anchor::digits_unlike`).
    pub fn align(
        &self,
        frame: &TrackFrame,
        image_from_grid: &Homography,
        compare_digits: bool,
    ) -> Result<Alignment> {
        let Some(current) = rectified_for_anchor(frame, image_from_grid)? else {
            return Ok(Alignment::Unsure);
        };
        let covered = covered_cells(self.looks(), current.looks())?;
        let levels = cell_levels_in_place(&current.picture)?;
        if self.replaced(&levels, &current, &covered.flat) {
            return Ok(Alignment::Replaced);
        }
        if self.slipped(&levels, &current, &covered.any) {
            return Ok(Alignment::Slipped);
        }
        let mut found = self.points.clone();
        let status = flow(
            &self.reference,
            &current.picture,
            &self.points,
            &mut found,
            ANCHOR_WINDOW,
            0,
        )?;
        let mut followed = Vec::new();
        for (i, p) in found.iter().enumerate() {
            let q = self.points.get(i)?;
            if status[i] && current.sees(q) && current.sees(p) {
                let on_hand = self.on_hand.get(i).copied().unwrap_or(false);
                // Under a hand now: where the printed detail is gone, not where the level changed
                // (light changing over a hand-held page took 60-90 of 110 points off the open
                // paper, `handheld:image184`).
                followed.push((q, p, on_hand || near_cells(q, &covered.flat)));
            }
        }
        // Where each reference point is in the current rectified picture.
        let Some((current_from_reference, inliers)) = fit(&followed)? else {
            tracing::trace!(
                followed = followed.len(),
                of = self.points.len(),
                "too few points agree with the anchor"
            );
            return Ok(Alignment::Unsure);
        };
        let tracked = quad_of(image_from_grid);
        let image_from_anchor = image_from_grid.after(&grid_from_anchor());
        let image_from_grid = image_from_anchor
            .after(&current_from_reference)
            .after(&anchor_from_grid());
        let aligned = quad_of(&image_from_grid);
        if !aligned.is_convex() {
            return Ok(Alignment::Unsure);
        }
        // Flow from the last frame is never this far off when it holds: the track has slipped
        // (a fast move, the grid half out of view) and the alignment is as likely a neighbour's.
        let side = tracked.mean_side();
        let correction = aligned.max_corner_distance(&tracked) / (side / 9.0);
        if correction > MAX_CORRECTION {
            tracing::debug!(
                cells = correction,
                "the anchor would move the grid too far: a slip"
            );
            return Ok(Alignment::Slipped);
        }
        let digits_unlike = compare_digits
            && self.digits_unlike(&current, &current_from_reference, &covered.over_the_paper())?;
        Ok(Alignment::Anchored(Box::new(Anchored {
            image_from_grid,
            inliers,
            under: covered.flat,
            over: covered.over_the_paper(),
            digits_unlike,
        })))
    }

    /// Whether the cells' ink in `current` has nothing to do with the reference's: another
    /// page lies where the grid was (a puzzle swapped in place, a page turned). The check for a
    /// slip leaves out the cells whose level changed, as under a hand or a shadow; a page
    /// swapped in place changes them all, and with none left that check said nothing: the
    /// frame-to-frame flow, which follows each frame's detail (`track::level_detail`) and so holds
    /// on through the cut, followed the new page's grid with the old solution drawn on it for 9
    /// frames (`swap:02_04_honor_view_10_0+image16`, `--set 1`). So this one leaves out only
    /// the cells whose detail is gone (a hand as light as the paper), each cell's ink taken
    /// against its own paper, which light does not change ([`cell_levels_in_place`]).
    /// `levels`: `current`'s [`cell_levels_in_place`]; `hidden`: the cells whose detail is gone
    /// ([`Covered::flat`]).
    fn replaced(&self, levels: &[f64; 81], current: &Rectified, hidden: &[bool; 81]) -> bool {
        let Some(here) = self.inks(levels, current, hidden).correlation(0, 0) else {
            return false;
        };
        let replaced = here < SAME_PAGE_LEAST;
        if replaced {
            tracing::debug!(here, "the cells' ink is not the reference's: another page");
        }
        replaced
    }

    /// Whether the digits in `current`, aligned to the reference by `current_from_reference`,
    /// are not the reference's: another puzzle of the same pattern laid where the grid was,
    /// which [`Anchor::replaced`] cannot tell, as every cell holds as much ink as before (a page
    /// relabelled so was drawn with the old solution until the routine re-check, 14 frames).
    /// Of the cells with a digit in the reference, in view and not `covered`, at least half look
    /// unlike their own reference cell, and two thirds look more like another one's. Asked
    /// only on a steady frame: smeared, the digits of one page look like each other too. On
    /// the simulated hand-held set (`NOISE_SEED=3`), up to 62% of the cells did on its quick
    /// moves, at most 43% on frames moving up to 5% of the side (a finger's edge beside a
    /// hand-filled page's digits), and 77-100% on pages relabelled.
    fn digits_unlike(
        &self,
        current: &Rectified,
        current_from_reference: &Homography,
        covered: &[bool; 81],
    ) -> Result<bool> {
        let Some(reference_from_current) = current_from_reference.inverse() else {
            return Ok(false);
        };
        let compared: Vec<usize> = (0..81)
            .filter(|&cell| {
                self.digits[cell]
                    && !covered[cell]
                    && !current.washed[cell]
                    && current.sees_cell(cell)
            })
            .collect();
        // Two thirds must look unlike their own and more like another cell's digit: each
        // search stops as soon as that is settled either way. On a same page held still most
        // cells look like their own and a third of them settles it (this check's p50 on
        // `hd.mp4`, 1080p, 0.48 -> 0.28 ms of the tracking's 2.6). Each unlike cell is held
        // against up to 80 others, and a same page's quick move leaves more than half unlike
        // their own (up to 62%): searched through, such frames cost up to 10 ms more (the track
        // stage's p99 on `steady.mp4` 12-18 ms; 6.5-7.5 ms stopping early).
        let needed = (2 * compared.len()).div_ceil(3);
        if compared.len() < MIN_DIGITS_COMPARED {
            return Ok(false);
        }
        let side = anchor_side();
        let mut aligned = Mat::default();
        imgproc::warp_perspective(
            &current.picture,
            &mut aligned,
            &reference_from_current.to_mat()?,
            Size::new(side, side),
            imgproc::INTER_LINEAR,
            opencv::core::BORDER_REPLICATE,
            Scalar::default(),
        )?;
        let mut unlike = Vec::new();
        for (looked, &cell) in compared.iter().enumerate() {
            if unlike.len() + (compared.len() - looked) < needed {
                return Ok(false);
            }
            let own = likeness(&self.reference, cell, &aligned, cell)?;
            if own < LIKE_ITS_OWN {
                unlike.push((cell, own));
            }
        }
        if unlike.len() < needed {
            return Ok(false);
        }
        let mut elsewhere = 0;
        for (searched, &(cell, own)) in unlike.iter().enumerate() {
            if elsewhere >= needed || elsewhere + (unlike.len() - searched) < needed {
                break;
            }
            for other in (0..81).filter(|&o| o != cell && self.digits[o]) {
                if likeness(&self.reference, other, &aligned, cell)? > own + MORE_LIKE {
                    elsewhere += 1;
                    break;
                }
            }
        }
        tracing::trace!(
            compared = compared.len(),
            unlike = unlike.len(),
            elsewhere,
            "digits against the reference's"
        );
        Ok(elsewhere >= needed)
    }

    /// The cells' ink in the reference and in `current` (its [`cell_levels_in_place`],
    /// `levels`), each against the typical cell of those not `left_out`, in both: under a hand
    /// over a quarter of the grid the typical cell in view was another than the reference's (an
    /// empty one, where most had digits), and no cell matched.
    fn inks(&self, levels: &[f64; 81], current: &Rectified, left_out: &[bool; 81]) -> Inks {
        let typical = |levels: &[f64; 81]| {
            let open: Vec<f64> = (0..81)
                .filter(|&i| !left_out[i])
                .map(|i| levels[i])
                .collect();
            median(&open)
        };
        Inks {
            reference: (
                cell_ink(&self.levels, typical(&self.levels), self.dark_ink),
                self.washed.map(|w| !w),
            ),
            current: (
                cell_ink(levels, typical(levels), self.dark_ink),
                std::array::from_fn(|i| current.sees_cell(i) && !current.washed[i] && !left_out[i]),
            ),
        }
    }

    /// Whether the cells' ink in `current` (its [`cell_levels_in_place`], `levels`) matches
    /// the reference better one cell over than where the track has it.
    /// `covered`: the cells something lies over in one and not the other ([`covered_cells`]).
    fn slipped(&self, levels: &[f64; 81], current: &Rectified, covered: &[bool; 81]) -> bool {
        let inks = self.inks(levels, current, covered);
        let Some(here) = inks.correlation(0, 0) else {
            return false;
        };
        let best_elsewhere = [
            (-1, 0),
            (1, 0),
            (0, -1),
            (0, 1),
            (-1, -1),
            (1, 1),
            (-1, 1),
            (1, -1),
        ]
        .into_iter()
        .filter_map(|(dx, dy)| inks.correlation(dx, dy))
        .fold(f64::MIN, f64::max);
        tracing::trace!(here, best_elsewhere, "the cells' ink against the reference");
        let slipped = best_elsewhere > here + SLIP_MARGIN;
        if slipped {
            tracing::debug!(
                here,
                best_elsewhere,
                "the cells' ink matches better a cell over: a slip"
            );
        }
        slipped
    }
}

/// The cells' ink in the anchor's reference and in a frame, with which cells of each can be
/// compared ([`Anchor::inks`]).
struct Inks {
    reference: ([f64; 81], [bool; 81]),
    current: ([f64; 81], [bool; 81]),
}

impl Inks {
    /// [`correlation`] of the frame's ink `dx`, `dy` cells over with the reference's.
    fn correlation(&self, dx: i32, dy: i32) -> Option<f64> {
        let ((reference, reference_usable), (current, usable)) = (&self.reference, &self.current);
        correlation((reference, reference_usable), (current, usable), dx, dy)
    }
}

/// A frame rectified into the anchor's picture, and where the frame covers it.
struct Rectified {
    picture: Mat,
    /// Cells a glare spot washes out or rings in the picture.
    washed: [bool; 81],
    /// The picture with its ink taken away ([`background`]).
    background: Mat,
    /// How much detail the picture shows around each pixel ([`texture`]).
    texture: Mat,
    /// Where the frame is, seen from the reference picture: which of its pixels it covers.
    image_from_anchor: Homography,
    frame_size: (f64, f64),
}

impl Rectified {
    /// The picture's background and texture, as [`covered_cells`] compares them.
    fn looks(&self) -> (&Mat, &Mat) {
        (&self.background, &self.texture)
    }

    /// Share of the picture, `from` pixels in from its edges, outside the frame: sampled on a
    /// `lattice` x `lattice` lattice (every half cell), exact enough to tell a grid cut by the
    /// frame's edge. Asked only when an anchor is taken, not of every frame aligned to one.
    fn share_outside(&self, from: f64, lattice: usize) -> f64 {
        let step = (anchor_side() as f64 - 2.0 * from) / (lattice - 1) as f64;
        let missing = (0..lattice * lattice)
            .filter(|&k| {
                let (x, y) = ((k % lattice) as f64 * step, (k / lattice) as f64 * step);
                !self.covers(from + x, from + y)
            })
            .count();
        missing as f64 / (lattice * lattice) as f64
    }

    /// Whether reference pixel `(x, y)` lies in the frame (and in front of the camera: a
    /// strongly tilted homography sends far points behind it, to the other side).
    fn covers(&self, x: f64, y: f64) -> bool {
        let h = &self.image_from_anchor.0;
        let w = h[6] * x + h[7] * y + h[8];
        let centre = anchor_side() as f64 / 2.0;
        let w_centre = h[6] * centre + h[7] * centre + h[8];
        if w * w_centre <= 0.0 {
            return false;
        }
        let [u, v] = self.image_from_anchor.apply([x, y]);
        u >= 0.0 && v >= 0.0 && u < self.frame_size.0 && v < self.frame_size.1
    }

    /// Whether the frame shows the neighbourhood of reference point `p` (flow needs its window).
    fn sees(&self, p: Point2f) -> bool {
        let (x, y) = (p.x as f64, p.y as f64);
        let r = 8.0;
        let side = anchor_side() as f64;
        if x < r || y < r || x >= side - r || y >= side - r {
            return false;
        }
        [
            (x - r, y - r),
            (x + r, y - r),
            (x - r, y + r),
            (x + r, y + r),
        ]
        .iter()
        .all(|&(a, b)| self.covers(a, b))
    }

    fn sees_cell(&self, cell: usize) -> bool {
        let [x, y] = anchor_cell_centre(cell);
        self.sees(Point2f::new(x as f32, y as f32))
    }
}

/// Where the reference points `followed` to (with whether each lies under something over the
/// grid: a hand) are in the current rectified picture, and how many agree: RANSAC over the
/// points on the open paper, then again with those under the hand that lie within
/// [`HAND_AGREES`] of where that puts them. A hand held still is followed with the paper (the
/// corner under it had no other points: `writing:01_01` drifted 2% off without them); one that
/// moves, even slowly, is not. Taken in alike, a hand moving off pulled the grid 2.8% off
/// within [`ANCHOR_DISTANCE`] (`writing:image77`), and one coming in over the paper dragged the
/// points under it until the fit moved the grid a third of a cell and the track was dropped as
/// slipped (`writing:image37`). With too few points on the open paper, all are taken alike.
fn fit(followed: &[(Point2f, Point2f, bool)]) -> Result<Option<(Homography, usize)>> {
    let points = |keep: &dyn Fn(&(Point2f, Point2f, bool)) -> bool| {
        let kept = followed.iter().filter(|f| keep(f));
        (
            kept.clone().map(|f| f.0).collect::<Vector<Point2f>>(),
            kept.map(|f| f.1).collect::<Vector<Point2f>>(),
        )
    };
    let alike = || {
        let (from, to) = points(&|_| true);
        Homography::fit(&from, &to, ANCHOR_DISTANCE, MIN_ANCHORED)
    };
    if followed.iter().all(|f| !f.2) {
        return Ok(alike()?);
    }
    let (from, to) = points(&|f| !f.2);
    let Some((paper, _)) = Homography::fit(&from, &to, ANCHOR_DISTANCE, MIN_ANCHORED)? else {
        return Ok(alike()?);
    };
    let agrees = |f: &(Point2f, Point2f, bool)| {
        let [x, y] = paper.apply([f64::from(f.0.x), f64::from(f.0.y)]);
        !f.2 || (x - f64::from(f.1.x)).hypot(y - f64::from(f.1.y)) <= HAND_AGREES
    };
    let (from, to) = points(&agrees);
    let under = followed.iter().filter(|f| f.2).count();
    let taken = under + from.len() - followed.len();
    tracing::trace!(under, taken, "points under something over the grid");
    Ok(Homography::fit(&from, &to, ANCHOR_DISTANCE, MIN_ANCHORED)?)
}

/// Whether `p` (in the anchor's picture) lies in one of the `cells` or within half a cell of it.
fn near_cells(p: Point2f, cells: &[bool; 81]) -> bool {
    let [x, y] = grid_from_anchor().apply([f64::from(p.x), f64::from(p.y)]);
    let (column, row) = (x * 9.0, y * 9.0);
    (0..81).filter(|&i| cells[i]).any(|i| {
        let (c, r) = ((i % 9) as f64, (i / 9) as f64);
        column >= c - 0.5 && column <= c + 1.5 && row >= r - 0.5 && row <= r + 1.5
    })
}

/// Side of the anchor's picture.
fn anchor_side() -> i32 {
    ((9.0 + 2.0 * ANCHOR_MARGIN) * ANCHOR_CELL).round() as i32
}

fn anchor_from_grid() -> Homography {
    let m = ANCHOR_MARGIN * ANCHOR_CELL;
    Homography::translation(m, m).after(&Homography::scaling(9.0 * ANCHOR_CELL))
}

fn grid_from_anchor() -> Homography {
    let m = ANCHOR_MARGIN * ANCHOR_CELL;
    Homography::scaling(1.0 / (9.0 * ANCHOR_CELL)).after(&Homography::translation(-m, -m))
}

fn anchor_point([x, y]: [f64; 2]) -> Point2f {
    let [u, v] = anchor_from_grid().apply([x, y]);
    Point2f::new(u as f32, v as f32)
}

fn anchor_cell_centre(cell: usize) -> [f64; 2] {
    let centre = [
        ((cell % 9) as f64 + 0.5) / 9.0,
        ((cell / 9) as f64 + 0.5) / 9.0,
    ];
    anchor_from_grid().apply(centre)
}

/// The frame rectified into the anchor's picture, contrast normalised (the frame's light
/// changes; the paper's pattern does not); None when the homography is degenerate.
fn rectified_for_anchor(
    frame: &TrackFrame,
    image_from_grid: &Homography,
) -> Result<Option<Rectified>> {
    let side = anchor_side();
    let gray = &frame.small();
    let small_from_grid = Homography::scaling(1.0 / frame.scale()).after(image_from_grid);
    let Some(anchor_from_image) = small_from_grid
        .inverse()
        .map(|g| anchor_from_grid().after(&g))
    else {
        return Ok(None);
    };
    let matrix = anchor_from_image.to_mat()?;
    let size = Size::new(side, side);
    let mut picture = Mat::default();
    imgproc::warp_perspective(
        gray,
        &mut picture,
        &matrix,
        size,
        imgproc::INTER_LINEAR,
        opencv::core::BORDER_REPLICATE,
        Scalar::default(),
    )?;
    let Some(image_from_anchor) = anchor_from_image.inverse() else {
        return Ok(None);
    };
    let normalised = normalised(&picture)?;
    Ok(Some(Rectified {
        washed: washed_out_cells(&picture)?,
        background: background(&picture)?,
        texture: texture(&normalised)?,
        picture: normalised,
        image_from_anchor,
        frame_size: (gray.cols() as f64, gray.rows() as f64),
    }))
}

/// A glare spot is wider than this share of a cell: a digit's stroke is not.
const GLARE_WIDER_THAN: f64 = 0.4;
/// Share of the normalising window ([`normalised`]) a glare spot must fill to ring a cell.
const GLARE_RINGS: f64 = 0.02;

/// Cells a glare spot ([`glare_level`]) washes out or rings, in the picture before
/// [`normalised`]: taking the local mean off leaves a dark ring a cell wide around anything
/// much lighter than the paper, darker than any digit, and it moves with the light, not the
/// paper. Counted as ink, a spot drifting a cell over the page matched the reference better a
/// cell over (`glare:01_01`, a page filled in by hand: the track dropped as slipped seven times;
/// right after lock 84.4 -> 91.2%). A spot is broader than a digit's stroke: the light digits of
/// a dark-mode screen are as light, and are left out by their width.
fn washed_out_cells(picture: &Mat) -> Result<[bool; 81]> {
    let glare = glare_level(typical_level(&cell_levels(picture)?));
    let mut light = Mat::default();
    imgproc::threshold(picture, &mut light, glare, 255.0, imgproc::THRESH_BINARY)?;
    // Most frames have no glare at all: nothing to erode or spread.
    if opencv::core::count_non_zero(&light)? == 0 {
        return Ok([false; 81]);
    }
    let stroke = (GLARE_WIDER_THAN * ANCHOR_CELL) as i32 | 1;
    let spot = morphed(
        &light,
        imgproc::MORPH_ERODE,
        imgproc::MORPH_RECT,
        stroke,
        opencv::core::BORDER_CONSTANT,
    )?;
    if opencv::core::count_non_zero(&spot)? == 0 {
        return Ok([false; 81]);
    }
    ringed_cells(&spot)
}

/// Cells whose middle lies near enough to `mask` (a glare spot, a hand) for [`normalised`]'s
/// local mean to be swayed by it: it fills [`GLARE_RINGS`] of the window around some pixel.
fn ringed_cells(mask: &Mat) -> Result<[bool; 81]> {
    let k = normalising_window();
    let mut near = Mat::default();
    imgproc::blur(
        mask,
        &mut near,
        Size::new(k, k),
        Point::new(-1, -1),
        opencv::core::BORDER_CONSTANT,
    )?;
    let mut ringed = [false; 81];
    for (cell, r) in ringed.iter_mut().enumerate() {
        let mut most = 0.0;
        opencv::core::min_max_loc(
            &Mat::roi(&near, cell_middle(cell))?,
            None,
            Some(&mut most),
            None,
            None,
            &no_array(),
        )?;
        *r = most >= GLARE_RINGS * 255.0;
    }
    Ok(ringed)
}

/// A printed stroke or line is thinner than this share of a cell: [`background`] takes it away.
const STROKE_UNDER: f64 = 0.4;
/// A change of the background by more than this share, against the picture's typical change
/// (the light's), is something over the paper or taken away from it.
const COVER_CHANGE: f64 = 0.1;
/// A cell's surroundings showing less than this share of the detail they showed in the
/// reference (against the typical cell's change) are covered.
const FLAT_TEXTURE: f64 = 0.35;
/// How far (pixels of the anchor's picture, a sixteenth of a cell) a point on a hand over the
/// grid may lie from where the paper's points put it and still be followed ([`fit`]).
const HAND_AGREES: f64 = 1.0;

/// The picture (before [`normalised`]) with its printed strokes and lines taken away, each
/// pixel the lightest near it: the paper's level where the page lies open, and where something
/// broad lies over it (a hand, its shadow, a sleeve; a shaded box) its level ([`for_ratios`]).
fn background(picture: &Mat) -> Result<Mat> {
    let side = (STROKE_UNDER * ANCHOR_CELL) as i32 | 1;
    let lightest = morphed(
        picture,
        imgproc::MORPH_DILATE,
        imgproc::MORPH_RECT,
        side,
        opencv::core::BORDER_REPLICATE,
    )?;
    for_ratios(&lightest)
}

/// How far the [`normalised`] picture's levels stray from the local mean, on average over a
/// cell around each pixel: every such window of the grid holds some of its printed lines, but
/// not where something lies over the paper, whatever its colour ([`for_ratios`]).
fn texture(normalised: &Mat) -> Result<Mat> {
    let mut detail = Mat::default();
    opencv::core::absdiff(normalised, &Scalar::all(128.0), &mut detail)?;
    let k = ANCHOR_CELL as i32 | 1;
    let mut texture = Mat::default();
    imgproc::blur(
        &detail,
        &mut texture,
        Size::new(k, k),
        Point::new(-1, -1),
        opencv::core::BORDER_REPLICATE,
    )?;
    for_ratios(&texture)
}

/// An 8-bit picture as 32-bit float one level up, ready to divide by ([`strayed`]): the
/// anchor's reference is converted once, when it is taken, not on every frame aligned to it.
fn for_ratios(picture: &Mat) -> Result<Mat> {
    let mut out = Mat::default();
    picture.convert_to(&mut out, opencv::core::CV_32F, 1.0, 1.0)?;
    Ok(out)
}

/// Where `current` over `reference` (both 32-bit float) lies under `below` or over `above`
/// times their typical ratio (the median of the cells'): 255 there, else 0.
fn strayed(current: &Mat, reference: &Mat, below: f64, above: f64) -> Result<Mat> {
    let mut ratio = Mat::default();
    opencv::core::divide2(current, reference, &mut ratio, 1.0, opencv::core::CV_32F)?;
    let typical = median(&cell_means(&ratio)?).max(1e-3);
    let (low, high) = (Scalar::all(typical * below), Scalar::all(typical * above));
    let mut within = Mat::default();
    opencv::core::in_range(&ratio, &low, &high, &mut within)?;
    let mut out = Mat::default();
    opencv::core::bitwise_not(&within, &mut out, &no_array())?;
    Ok(out)
}

/// The mean of each cell of a 32-bit float picture of the anchor's (row by row): the grid
/// shrunk to 9 x 9 pixels, one call where 81 cell by cell cost 0.2 ms.
fn cell_means(picture: &Mat) -> Result<Vec<f64>> {
    let margin = (ANCHOR_MARGIN * ANCHOR_CELL) as i32;
    let side = (9.0 * ANCHOR_CELL) as i32;
    let grid = Mat::roi(picture, Rect::new(margin, margin, side, side))?;
    let mut cells = Mat::default();
    imgproc::resize(
        &grid,
        &mut cells,
        Size::new(9, 9),
        0.0,
        0.0,
        imgproc::INTER_AREA,
    )?;
    let mut means = Vec::with_capacity(81);
    for cell in 0..81 {
        means.push(f64::from(*cells.at_2d::<f32>(cell / 9, cell % 9)?));
    }
    Ok(means)
}

/// Cells where something lies over the paper now and did not when the reference was taken,
/// or the other way round, with the cells it rings: where the [`background`] is darker or
/// lighter than the light's change explains by more than [`COVER_CHANGE`], or the [`texture`]
/// is gone (a hand as light as the paper). A hand writing in the digits lies over a quarter
/// of the grid, and its edge, taken for ink, matched the reference's digits better a cell over
/// (`writing.py`: the track dropped as slipped the moment the hand came in, and the puzzle
/// was not drawn for 3 s). Both are the same a cell over on an open page, so a grid slipped
/// a cell still shows as slipped; a shaded box is as dark in both; a sliver along its edge,
/// where the track is a pixel or two off, is not broad.
///
/// Also the cells where only the texture is gone: a hand lies over the paper there, not a
/// shadow across it, which changes the background as much (the simulated camera's moving
/// shadow lay over 40 cells, and its changing light over a hand-held page over most).
fn covered_cells(
    (background, texture): (&Mat, &Mat),
    (current_background, current_texture): (&Mat, &Mat),
) -> Result<Covered> {
    let flat = strayed(current_texture, texture, FLAT_TEXTURE, f64::MAX)?;
    let changed = strayed(
        current_background,
        background,
        1.0 - COVER_CHANGE,
        1.0 + COVER_CHANGE,
    )?;
    let mut any = Mat::default();
    opencv::core::bitwise_or(&changed, &flat, &mut any, &no_array())?;
    Ok(Covered {
        any: broad_cells(&any)?,
        flat: broad_cells(&flat)?,
    })
}

/// Cells something lies over ([`covered_cells`]).
struct Covered {
    /// By the background's level or the texture.
    any: [bool; 81],
    /// By the texture alone.
    flat: [bool; 81],
}

impl Covered {
    /// The cells something lies over by its texture, and those it lies over by the level
    /// alone while they are at most [`LEVEL_CELLS`]. A fingertip over the border is narrower
    /// than the window the texture is taken over, so its edges keep the cells' detail
    /// (`writing.py` `02_07`: a right grid withheld for 13 frames, the fingertip's edge taken
    /// for the border beside the drawn one); light changing over a hand-held page changes the
    /// level over most of the grid, and is no hand.
    fn over_the_paper(&self) -> [bool; 81] {
        let by_level = self.any.iter().filter(|&&c| c).count() <= LEVEL_CELLS;
        std::array::from_fn(|i| self.flat[i] || (by_level && self.any[i]))
    }
}

/// At most this many cells changed in level alone are something over the paper, not the light
/// ([`Covered::over_the_paper`]): a third of the grid.
const LEVEL_CELLS: usize = 27;

/// The cells that `mask` covers broadly, and those they ring; a sliver is not broad.
fn broad_cells(mask: &Mat) -> Result<[bool; 81]> {
    // Most frames: no pixel or a few of noise, no cell to look at.
    if opencv::core::count_non_zero(mask)? == 0 {
        return Ok([false; 81]);
    }
    let sliver = (0.2 * ANCHOR_CELL) as i32 | 1;
    let broad = morphed(
        mask,
        imgproc::MORPH_OPEN,
        imgproc::MORPH_RECT,
        sliver,
        opencv::core::BORDER_REPLICATE,
    )?;
    if opencv::core::count_non_zero(&broad)? == 0 {
        return Ok([false; 81]);
    }
    ringed_cells(&broad)
}

/// Side of the window [`normalised`] takes the local mean over: two cells.
fn normalising_window() -> i32 {
    (2.0 * ANCHOR_CELL) as i32 | 1
}

/// The picture minus its local mean, scaled by its spread, as 8 bits around 128.
fn normalised(picture: &Mat) -> Result<Mat> {
    let local = local_mean(picture, normalising_window())?;
    let mut detail = Mat::default();
    opencv::core::subtract(
        picture,
        &local,
        &mut detail,
        &no_array(),
        opencv::core::CV_16S,
    )?;
    let mut mean = Scalar::default();
    let mut spread = Scalar::default();
    opencv::core::mean_std_dev(&detail, &mut mean, &mut spread, &no_array())?;
    let mut out = Mat::default();
    detail.convert_to(
        &mut out,
        opencv::core::CV_8U,
        40.0 / spread[0].max(1.0),
        128.0,
    )?;
    Ok(out)
}

/// Cells whose middle shows a digit in `picture`: more detail (the spread of its pixels) than
/// halfway from a typical empty cell's to that of the most detailed tenth of the cells.
fn digit_cells(picture: &Mat) -> Result<[bool; 81]> {
    let mut spread = [0.0; 81];
    for (cell, value) in spread.iter_mut().enumerate() {
        let region = Mat::roi(picture, cell_middle(cell))?;
        let mut mean = Scalar::default();
        let mut dev = Scalar::default();
        opencv::core::mean_std_dev(&region, &mut mean, &mut dev, &no_array())?;
        *value = dev[0];
    }
    let mut sorted = spread.to_vec();
    sorted.sort_by(f64::total_cmp);
    // A Sudoku has 17-40 clues: the quarter least detailed are empty, the tenth most are not.
    let (empty, digit) = (sorted[20], sorted[72]);
    Ok(spread.map(|s| s > empty + 0.5 * (digit - empty)))
}

/// How alike the middle of `cell` in `reference` and that of `at` in `current` are: their
/// normalised cross-correlation, the best over shifts of up to a sixth of a cell (what the
/// anchor's fit leaves, and a digit printed off its cell's middle).
fn likeness(reference: &Mat, cell: usize, current: &Mat, at: usize) -> Result<f64> {
    let template = Mat::roi(reference, cell_window(cell, DIGIT_WINDOW))?;
    let around = Mat::roi(current, cell_window(at, DIGIT_WINDOW + 1.0 / 3.0))?;
    let mut result = Mat::default();
    imgproc::match_template(
        &around,
        &template,
        &mut result,
        imgproc::TM_CCOEFF_NORMED,
        &no_array(),
    )?;
    let mut best = 0.0;
    opencv::core::min_max_loc(&result, None, Some(&mut best), None, None, &no_array())?;
    Ok(best)
}

/// A square `share` of a cell across around `cell`'s centre in the anchor's picture.
fn cell_window(cell: usize, share: f64) -> Rect {
    let across = (share * ANCHOR_CELL).round() as i32;
    let [x, y] = anchor_cell_centre(cell);
    let half = f64::from(across) / 2.0;
    Rect::new(
        (x - half).round() as i32,
        (y - half).round() as i32,
        across,
        across,
    )
}

/// A cell's middle in the anchor's picture, where its digit stands: 0.6 of the cell across.
fn cell_middle(cell: usize) -> Rect {
    let inner = (0.6 * ANCHOR_CELL) as i32;
    let [x, y] = anchor_cell_centre(cell);
    Rect::new(x as i32 - inner / 2, y as i32 - inner / 2, inner, inner)
}

/// The mean level of each cell's middle.
fn cell_levels(picture: &Mat) -> Result<[f64; 81]> {
    let mut level = [0.0; 81];
    for (cell, value) in level.iter_mut().enumerate() {
        let region = Mat::roi(picture, cell_middle(cell))?;
        *value = opencv::core::mean(&region, &no_array())?[0];
    }
    Ok(level)
}

/// Each cell's middle ([`cell_middle`]) against the paper around it in the cell (a ring out to
/// 0.9 of the cell, short of its lines): the ink a digit adds, whatever light falls on the
/// cell. Light varying across the grid from row to row (the bands a phone films rolling over a
/// screen, its backlight flickering against the rolling shutter) made the middles' levels
/// follow the bands more than the digits: a track slipped a row was taken as where it was
/// (its ink 0.62 like the reference's, a row over 0.66), and drawn there.
fn cell_levels_in_place(picture: &Mat) -> Result<[f64; 81]> {
    let middles = cell_levels(picture)?;
    let side = (0.9 * ANCHOR_CELL) as i32;
    let mut level = [0.0; 81];
    for (cell, value) in level.iter_mut().enumerate() {
        let [x, y] = anchor_cell_centre(cell);
        let around = Rect::new(x as i32 - side / 2, y as i32 - side / 2, side, side);
        let around_sum = opencv::core::sum_elems(&Mat::roi(picture, around)?)?[0];
        let middle_area = cell_middle(cell).area() as f64;
        let ring =
            (around_sum - middles[cell] * middle_area) / (around.area() as f64 - middle_area);
        *value = middles[cell] - ring;
    }
    Ok(level)
}

/// The typical cell's level: an empty one's (most cells are empty).
fn typical_level(levels: &[f64; 81]) -> f64 {
    median(levels)
}

/// The middle one of `values` (the upper one of an even count); 0 when there are none.
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

/// Whether the digits are darker than the empty cells (print on paper) rather than lighter (a
/// screen in dark mode): whichever way the cells stray further from the typical one.
fn is_dark_ink(levels: &[f64; 81]) -> bool {
    let typical = typical_level(levels);
    let darker: f64 = levels.iter().map(|l| (typical - l).max(0.0)).sum();
    let lighter: f64 = levels.iter().map(|l| (l - typical).max(0.0)).sum();
    darker >= lighter
}

/// How much ink each cell's middle holds: how much darker it is than the `typical` cell. On
/// paper only darker counts: a glare spot that washes cells out towards white is no ink, where
/// counting any difference made the spot look like digits and its cells match a neighbour's
/// digits better (image36 under glare: a false slip). With light ink (a dark-mode screen) any
/// difference counts, as the highlighted cells of an app do too: counting only the lighter way
/// lost the dark-blue phone screen's track more often (right after lock 79.7% -> 68.3%).
fn cell_ink(levels: &[f64; 81], typical: f64, dark_ink: bool) -> [f64; 81] {
    levels.map(|l| {
        let darker = typical - l;
        if dark_ink {
            darker.max(0.0)
        } else {
            darker.abs()
        }
    })
}

/// Correlation of the reference ink with the current ink shifted by (dx, dy) cells, over the
/// pairs of cells usable in both (the current cell seen, neither washed out by glare); None
/// when too few are or the reference has no contrast there.
fn correlation(
    (reference, reference_usable): (&[f64; 81], &[bool; 81]),
    (current, current_usable): (&[f64; 81], &[bool; 81]),
    dx: i32,
    dy: i32,
) -> Option<f64> {
    let mut pairs = Vec::with_capacity(81);
    for row in 0..9i32 {
        for col in 0..9i32 {
            let (r2, c2) = (row + dy, col + dx);
            if !(0..9).contains(&r2) || !(0..9).contains(&c2) {
                continue;
            }
            let (a, b) = ((row * 9 + col) as usize, (r2 * 9 + c2) as usize);
            if reference_usable[a] && current_usable[b] {
                pairs.push((reference[a], current[b]));
            }
        }
    }
    if pairs.len() < 27 {
        return None;
    }
    let n = pairs.len() as f64;
    let (ma, mb) = (
        pairs.iter().map(|p| p.0).sum::<f64>() / n,
        pairs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let cov: f64 = pairs.iter().map(|p| (p.0 - ma) * (p.1 - mb)).sum();
    let va: f64 = pairs.iter().map(|p| (p.0 - ma).powi(2)).sum();
    let vb: f64 = pairs.iter().map(|p| (p.1 - mb).powi(2)).sum();
    (va > 1e-6 && vb > 1e-6).then(|| cov / (va * vb).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cell levels of a page: paper at 200, a faint digit's middle at 170 in the cells listed.
    fn page(digits: &[usize]) -> [f64; 81] {
        let mut levels = [200.0; 81];
        for &d in digits {
            levels[d] = 170.0;
        }
        levels
    }

    const DIGITS: [usize; 26] = [
        0, 4, 8, 10, 12, 16, 20, 22, 24, 28, 30, 33, 36, 40, 44, 47, 50, 52, 56, 58, 60, 64, 68,
        70, 76, 80,
    ];

    #[test]
    fn printed_and_dark_mode_ink_are_told_apart() {
        let levels = page(&DIGITS);
        assert!(is_dark_ink(&levels));
        assert!(!is_dark_ink(&levels.map(|l| 255.0 - l)));
    }

    #[test]
    fn a_glare_spot_is_no_ink_and_no_slip() {
        let reference = cell_ink(&page(&DIGITS), typical_level(&page(&DIGITS)), true);
        // Light over the middle rows, brightest just right of the digits there: it washes
        // them out and lights the empty cells beside them (a cell over, where the reference
        // has its ink) more than the faint digits ever darkened theirs.
        let mut glared = page(&DIGITS);
        for &d in DIGITS.iter().filter(|&&d| (18..54).contains(&d)) {
            glared[d] = 215.0;
            if !DIGITS.contains(&(d + 1)) {
                glared[d + 1] = 255.0;
            }
        }
        let current = cell_ink(&glared, typical_level(&glared), true);
        assert_eq!(current[21], 0.0);
        let all = [true; 81];
        let at = |dx, dy| correlation((&reference, &all), (&current, &all), dx, dy).unwrap();
        let here = at(0, 0);
        for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let there = at(dx, dy);
            assert!(there < here, "({dx}, {dy}): {there} vs here {here}");
        }
    }

    /// The anchor's picture of an empty grid: `paper`, its lines 1 px at `ink`.
    fn ruled_picture(paper: f64, ink: f64) -> Mat {
        let side = anchor_side();
        let margin = (ANCHOR_MARGIN * ANCHOR_CELL) as i32;
        let cell = ANCHOR_CELL as i32;
        let mut picture =
            Mat::new_rows_cols_with_default(side, side, opencv::core::CV_8U, Scalar::all(paper))
                .unwrap();
        for i in 0..10 {
            let at = margin + i * cell;
            let (a, b) = (Point::new(at, margin), Point::new(at, side - margin));
            imgproc::line(&mut picture, a, b, Scalar::all(ink), 1, imgproc::LINE_8, 0).unwrap();
            let (a, b) = (Point::new(margin, at), Point::new(side - margin, at));
            imgproc::line(&mut picture, a, b, Scalar::all(ink), 1, imgproc::LINE_8, 0).unwrap();
        }
        picture
    }

    /// The anchor's picture of a dim page filled in by hand (paper 110, lines 50, faint digits
    /// 95) under a glare spot (white, over a cell across, fading out over 2.5) on cell `glare`.
    fn page_picture(glare: Option<usize>) -> Mat {
        let mut picture = ruled_picture(110.0, 50.0);
        // Filled in by hand: a faint digit in every cell, thicker in some.
        for d in 0..81 {
            let [x, y] = anchor_cell_centre(d);
            let width = if DIGITS.contains(&d) { 4 } else { 2 };
            let stroke = Rect::new(x as i32 - 2, y as i32 - 5, width, 10);
            imgproc::rectangle(
                &mut picture,
                stroke,
                Scalar::all(95.0),
                -1,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        let Some(glare) = glare else { return picture };
        let [x, y] = anchor_cell_centre(glare);
        for r in (10..=20).rev() {
            let level = 110.0 + 145.0 * (20 - r) as f64 / 10.0;
            let centre = Point::new(x as i32, y as i32);
            imgproc::circle(
                &mut picture,
                centre,
                r,
                Scalar::all(level),
                -1,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        picture
    }

    /// The raw picture rectified as [`rectified_for_anchor`] makes it; with `looking` false
    /// nothing washed out or covered is seen in it (its background and texture `open`'s).
    fn rectified(raw: &Mat, looking: bool, open: &Mat) -> Rectified {
        let seen = if looking { raw } else { open };
        Rectified {
            washed: if looking {
                washed_out_cells(raw).unwrap()
            } else {
                [false; 81]
            },
            background: background(seen).unwrap(),
            texture: texture(&normalised(seen).unwrap()).unwrap(),
            picture: normalised(raw).unwrap(),
            image_from_anchor: Homography::translation(0.0, 0.0),
            frame_size: (1e4, 1e4),
        }
    }

    /// The anchor taken from the raw picture `then` (washed-out cells left out when `looking`).
    fn anchor_on(then: &Mat, looking: bool) -> Anchor {
        let reference = rectified(then, looking, &page_picture(None));
        let digits = digit_cells(&reference.picture).unwrap();
        Anchor {
            levels: cell_levels_in_place(&reference.picture).unwrap(),
            dark_ink: is_dark_ink(&cell_levels(&reference.picture).unwrap()),
            washed: reference.washed,
            background: reference.background,
            texture: reference.texture,
            reference: reference.picture,
            points: Vector::new(),
            on_hand: Vec::new(),
            hand: [false; 81],
            digits,
        }
    }

    /// The anchor taken from the raw picture `then`, and `now` as it looks to it: rectified,
    /// what covers it, its cells' levels.
    fn compared(then: &Mat, now: &Mat, looking: bool) -> (Anchor, Rectified, Covered, [f64; 81]) {
        let anchor = anchor_on(then, looking);
        let current = rectified(now, looking, &page_picture(None));
        let covered = covered_cells(anchor.looks(), current.looks()).unwrap();
        let levels = cell_levels_in_place(&current.picture).unwrap();
        (anchor, current, covered, levels)
    }

    /// Whether the anchor taken from the raw picture `then` finds the track slipped in `now`
    /// (washed-out and covered cells left out when `looking`, else neither).
    fn slipped_between(then: &Mat, now: &Mat, looking: bool) -> bool {
        let (anchor, current, covered, levels) = compared(then, now, looking);
        anchor.slipped(&levels, &current, &covered.any)
    }

    /// A page of printed digits, `digit(k)` in the `k`-th cell of [`DIGITS`] (Hershey glyphs
    /// 10 px high, about as the anchor sees a page's digits), a light gradient down it that
    /// keeps 1 - `dimmed` of the light at the bottom.
    fn digits_picture(digit: impl Fn(usize) -> usize, dimmed: f64) -> Mat {
        let mut picture = ruled_picture(200.0, 60.0);
        for (k, &cell) in DIGITS.iter().enumerate() {
            let [x, y] = anchor_cell_centre(cell);
            imgproc::put_text(
                &mut picture,
                &digit(k).to_string(),
                Point::new(x as i32 - 4, y as i32 + 5),
                imgproc::FONT_HERSHEY_SIMPLEX,
                0.4,
                Scalar::all(40.0),
                1,
                imgproc::LINE_AA,
                false,
            )
            .unwrap();
        }
        for y in 0..picture.rows() {
            let gain = 1.0 - dimmed * y as f64 / picture.rows() as f64;
            for x in 0..picture.cols() {
                let v = picture.at_2d_mut::<u8>(y, x).unwrap();
                *v = (*v as f64 * gain).round() as u8;
            }
        }
        picture
    }

    /// Whether the anchor taken from the raw picture `then` finds other digits in `now`, its
    /// picture aligned to the reference's where it is.
    fn digits_unlike_between(then: &Mat, now: &Mat) -> bool {
        let (anchor, current, covered, _) = compared(then, now, true);
        let identity = Homography::translation(0.0, 0.0);
        anchor
            .digits_unlike(&current, &identity, &covered.over_the_paper())
            .unwrap()
    }

    #[test]
    fn other_digits_in_the_same_cells_are_another_puzzle_and_the_same_in_other_light_are_not() {
        let digit = |k: usize| 1 + k % 9;
        let page = digits_picture(digit, 0.0);
        // Relabelled: each digit the next one, as a puzzle of the same pattern.
        let relabelled = digits_picture(|k| 1 + (k + 1) % 9, 0.0);
        assert!(digits_unlike_between(&page, &relabelled));
        // Only two digits swapped (1 and 2), a fifth of the cells: as few as a hand's edge or a
        // smear changes; left to the routine re-reading.
        let swapped = digits_picture(|k| [2, 1, 3, 4, 5, 6, 7, 8, 9][k % 9], 0.0);
        assert!(!digits_unlike_between(&page, &swapped));
        // The same digits dimmed down the page by 40%, and under a hand over a quarter of it.
        assert!(!digits_unlike_between(&page, &digits_picture(digit, 0.4)));
        assert!(!digits_unlike_between(&page, &with_hand(&page, 150.0)));
        assert!(!digits_unlike_between(&page, &page));
    }

    /// Whether the anchor taken from the raw picture `then` finds another page in `now`.
    fn replaced_between(then: &Mat, now: &Mat) -> bool {
        let (anchor, current, covered, levels) = compared(then, now, true);
        anchor.replaced(&levels, &current, &covered.flat)
    }

    #[test]
    fn another_puzzle_where_the_grid_was_is_another_page_and_the_same_under_a_hand_is_not() {
        let read = screen_picture(&DIGITS);
        // Another puzzle as many givens strong, swapped in where the grid was.
        let other_givens: Vec<usize> = DIGITS.iter().map(|&d| (d * 7 + 3) % 81).collect();
        assert!(replaced_between(&read, &screen_picture(&other_givens)));
        // The same puzzle dimmed down the grid by 40%, or under a hand over a quarter of it.
        let mut lit = read.clone();
        for y in 0..lit.rows() {
            let gain = 1.0 - 0.4 * y as f64 / lit.rows() as f64;
            for x in 0..lit.cols() {
                let v = lit.at_2d_mut::<u8>(y, x).unwrap();
                *v = (*v as f64 * gain).round() as u8;
            }
        }
        assert!(!replaced_between(&read, &lit));
        assert!(!replaced_between(&read, &read));
        let page = page_picture(None);
        for level in [70.0, 104.0, 150.0] {
            assert!(
                !replaced_between(&page, &with_hand(&page, level)),
                "hand at {level}"
            );
        }
    }

    /// Whether the anchor taken with the glare on cell `before` finds the track slipped with
    /// the glare moved to `after` and the page still.
    fn slipped_under_moving_glare(before: usize, after: usize, washing: bool) -> bool {
        let (then, now) = (page_picture(Some(before)), page_picture(Some(after)));
        slipped_between(&then, &now, washing)
    }

    /// `picture` with a right hand over the grid's lower right quarter at `level` (the paper
    /// is at 110): a palm round cell (6, 5), the forearm running off past the corner.
    fn with_hand(picture: &Mat, level: f64) -> Mat {
        let mut out = picture.clone();
        let [x, y] = anchor_cell_centre(5 * 9 + 6);
        let cell = ANCHOR_CELL as i32;
        let palm = Point::new(x as i32, y as i32);
        let colour = Scalar::all(level);
        let axes = Size::new(2 * cell, 3 * cell / 2);
        imgproc::ellipse(
            &mut out,
            palm,
            axes,
            40.0,
            0.0,
            360.0,
            colour,
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let far = Point::new(palm.x + 8 * cell, palm.y + 8 * cell);
        imgproc::line(&mut out, palm, far, colour, 3 * cell, imgproc::LINE_8, 0).unwrap();
        out
    }

    /// `picture` moved by a cell to the left: what a track a cell off sees.
    fn a_cell_off(picture: &Mat) -> Mat {
        let shift = Mat::from_slice_2d(&[[1.0f64, 0.0, -ANCHOR_CELL], [0.0, 1.0, 0.0]]).unwrap();
        let mut out = Mat::default();
        imgproc::warp_affine(
            picture,
            &mut out,
            &shift,
            picture.size().unwrap(),
            imgproc::INTER_LINEAR,
            opencv::core::BORDER_REPLICATE,
            Scalar::default(),
        )
        .unwrap();
        out
    }

    /// The anchor's picture of an app's puzzle on a screen: background 200, lines 60, the
    /// givens (a dark stroke) in the cells `givens`, the other cells empty.
    fn screen_picture(givens: &[usize]) -> Mat {
        let mut picture = ruled_picture(200.0, 60.0);
        let dark = Scalar::all(60.0);
        for &d in givens {
            let [x, y] = anchor_cell_centre(d);
            let stroke = Rect::new(x as i32 - 2, y as i32 - 5, 3, 10);
            imgproc::rectangle(&mut picture, stroke, dark, -1, imgproc::LINE_8, 0).unwrap();
        }
        picture
    }

    #[test]
    fn a_digit_s_ink_is_measured_against_its_own_cell_whatever_light_falls_there() {
        // A screen's givens under light falling off down the grid by 40%, from row to row as
        // the bands a rolling shutter films over a flickering screen do.
        let page = screen_picture(&DIGITS);
        let mut lit = page.clone();
        for y in 0..lit.rows() {
            let gain = 1.0 - 0.4 * y as f64 / lit.rows() as f64;
            for x in 0..lit.cols() {
                let v = lit.at_2d_mut::<u8>(y, x).unwrap();
                *v = (*v as f64 * gain).round() as u8;
            }
        }
        // The least ink in a cell with a digit, and the most in an empty one.
        let apart = |levels: [f64; 81]| {
            let ink = cell_ink(&levels, median(&levels), true);
            let least_digit = DIGITS.iter().map(|&d| ink[d]).fold(f64::MAX, f64::min);
            let most_empty = (0..81)
                .filter(|d| !DIGITS.contains(d))
                .map(|d| ink[d])
                .fold(0.0, f64::max);
            (least_digit, most_empty)
        };
        let (digit, empty) = apart(cell_levels_in_place(&lit).unwrap());
        assert!(digit > 4.0 * empty.max(1.0), "{digit} vs {empty}");
        // The middles' levels alone follow the light: a digit low in the grid is as dark as an
        // empty cell high in it.
        let (digit, empty) = apart(cell_levels(&lit).unwrap());
        assert!(digit < empty, "{digit} vs {empty}");
    }

    #[test]
    fn a_hand_over_a_quarter_of_the_grid_is_no_slip_and_a_slip_under_it_still_is() {
        let page = page_picture(None);
        // Skin darker than the paper, about as light, lighter.
        for level in [70.0, 104.0, 150.0] {
            let hand = with_hand(&page, level);
            assert!(!slipped_between(&page, &hand, true), "hand at {level}");
            // The cells left in view still tell a slip.
            let off = with_hand(&a_cell_off(&page), level);
            assert!(
                slipped_between(&page, &off, true),
                "a cell off, hand at {level}"
            );
        }
    }

    /// What the anchor taken on the open page sees over the paper in `now`.
    fn covered_on_open_page(now: &Mat) -> Covered {
        let open = page_picture(None);
        let reference = rectified(&open, true, &open);
        let current = rectified(now, true, &open);
        covered_cells(reference.looks(), current.looks()).unwrap()
    }

    #[test]
    fn a_fingertip_over_the_border_is_over_the_paper_and_light_changing_is_not() {
        // A fingertip (darker than the paper) over the bottom border below cell 76, the
        // finger running down off the picture.
        let mut finger = page_picture(None);
        let cell = ANCHOR_CELL as i32;
        let [x, y] = anchor_cell_centre(76);
        let tip = Point::new(x as i32, y as i32 + cell / 2);
        let axes = Size::new(3 * cell / 4, cell);
        let skin = Scalar::all(70.0);
        imgproc::ellipse(
            &mut finger,
            tip,
            axes,
            0.0,
            0.0,
            360.0,
            skin,
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let far = Point::new(tip.x, tip.y + 4 * cell);
        imgproc::line(
            &mut finger,
            tip,
            far,
            skin,
            3 * cell / 2,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let covered = covered_on_open_page(&finger);
        // Its edges keep the detail of the cells it lies over: only the level tells.
        assert!(!covered.flat[76]);
        let over = covered.over_the_paper();
        assert!(over[76], "{over:?}");
        assert!(over.iter().filter(|&&o| o).count() <= LEVEL_CELLS);
        assert!(!over[0] && !over[40]);
        // The light falling off across the page changes the level over most of the grid.
        let mut dimmed = Mat::default();
        let side = anchor_side();
        let mut ramp =
            Mat::new_rows_cols_with_default(side, side, opencv::core::CV_32F, Scalar::all(0.0))
                .unwrap();
        for row in 0..side {
            for col in 0..side {
                *ramp.at_2d_mut::<f32>(row, col).unwrap() = 1.0 - 0.35 * col as f32 / side as f32;
            }
        }
        opencv::core::multiply(
            &page_picture(None),
            &ramp,
            &mut dimmed,
            1.0,
            opencv::core::CV_8U,
        )
        .unwrap();
        let covered = covered_on_open_page(&dimmed);
        assert!(covered.any.iter().filter(|&&c| c).count() > LEVEL_CELLS);
        assert!(!covered.over_the_paper().contains(&true));
    }

    /// The crossings, where the reference has them and where the current picture does: those
    /// of the right half (a hand there, when `on_hand`) moved `hand_moved` pixels to the right.
    fn followed_with_a_hand(hand_moved: f32, on_hand: bool) -> Vec<(Point2f, Point2f, bool)> {
        crossings()
            .into_iter()
            .map(|c| {
                let p = anchor_point(c);
                let right = c[0] > 0.5;
                let moved = if right { hand_moved } else { 0.0 };
                (p, Point2f::new(p.x + moved, p.y), right && on_hand)
            })
            .collect()
    }

    /// How far `h` moves the grid's far right corner.
    fn far_corner_moved(h: &Homography) -> f64 {
        let corner = anchor_point([1.0, 1.0]);
        let [x, y] = h.apply([f64::from(corner.x), f64::from(corner.y)]);
        (x - f64::from(corner.x)).hypot(y - f64::from(corner.y))
    }

    #[test]
    fn points_on_a_hand_are_followed_only_where_they_agree_with_the_paper() {
        // A hand moving off: taken alike, its points (within reach of the fit) pull the grid.
        let (pulled, _) = fit(&followed_with_a_hand(1.4, false)).unwrap().unwrap();
        assert!(
            far_corner_moved(&pulled) > 0.5,
            "{}",
            far_corner_moved(&pulled)
        );
        let (held, inliers) = fit(&followed_with_a_hand(1.4, true)).unwrap().unwrap();
        assert!(
            far_corner_moved(&held) < 0.05,
            "{}",
            far_corner_moved(&held)
        );
        assert_eq!(inliers, 50, "the paper's points only");
        // A hand held still is followed with the paper.
        let (_, inliers) = fit(&followed_with_a_hand(0.0, true)).unwrap().unwrap();
        assert_eq!(inliers, 100);
        // With too few points on the paper, all are taken alike.
        let mut covered = followed_with_a_hand(0.0, true);
        covered.iter_mut().for_each(|f| f.2 = true);
        assert_eq!(fit(&covered).unwrap().map(|(_, n)| n), Some(100));
    }

    #[test]
    fn an_anchor_taken_under_a_hand_marks_the_points_near_the_cells_it_hides() {
        let hand = with_hand(&page_picture(None), 70.0);
        let frame = TrackFrame::new(&hand).unwrap();
        // The anchor's picture is the frame itself.
        let image_from_grid = anchor_from_grid();
        // The quarter under the hand, as a reading finds it hidden.
        let hidden: [bool; 81] = std::array::from_fn(|i| i / 9 >= 4 && i % 9 >= 4);
        let anchor = Anchor::new(&frame, &image_from_grid, true, (&hidden, None))
            .unwrap()
            .expect("an anchor");
        assert_eq!(anchor.on_hand.len(), anchor.points.len());
        let near = anchor_point([3.5 / 9.0, 3.5 / 9.0]);
        for (p, on_hand) in anchor.points.iter().zip(&anchor.on_hand) {
            let in_quarter = p.x >= near.x && p.y >= near.y;
            assert_eq!(*on_hand, in_quarter, "{p:?}");
        }
        // The paper the anchor before saw, gone under the palm, marks it where no reading did.
        let open_page = TrackFrame::new(&page_picture(None)).unwrap();
        let before = Anchor::new(&open_page, &image_from_grid, true, (&[false; 81], None))
            .unwrap()
            .expect("an anchor on the open page");
        assert!(before.on_hand.is_empty());
        let unread = Anchor::new(
            &frame,
            &image_from_grid,
            true,
            (&[false; 81], Some(&before)),
        )
        .unwrap()
        .expect("an anchor");
        let palm = anchor_point([6.5 / 9.0, 5.5 / 9.0]);
        let at_palm = unread
            .points
            .iter()
            .position(|p| (p.x - palm.x).abs() < 9.0 && (p.y - palm.y).abs() < 9.0);
        assert!(at_palm.is_some_and(|i| unread.on_hand[i]));
    }

    #[test]
    fn a_glare_spot_drifting_a_cell_over_the_page_is_no_slip() {
        let washed = washed_out_cells(&page_picture(Some(40))).unwrap();
        // The spot's cell and the ring around it, none two cells away.
        assert!(
            [30, 31, 32, 39, 40, 41, 48, 49, 50]
                .iter()
                .all(|&c| washed[c])
        );
        assert!(washed.iter().filter(|&&w| w).count() <= 25);
        assert!(!washed[20] && !washed[60] && !washed[0]);
        // The light digits of a dark-mode screen are no glare.
        let side = anchor_side();
        let mut screen =
            Mat::new_rows_cols_with_default(side, side, opencv::core::CV_8U, Scalar::all(30.0))
                .unwrap();
        for &d in &DIGITS {
            let [x, y] = anchor_cell_centre(d);
            let stroke = Rect::new(x as i32 - 2, y as i32 - 5, 4, 10);
            imgproc::rectangle(
                &mut screen,
                stroke,
                Scalar::all(235.0),
                -1,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        assert_eq!(washed_out_cells(&screen).unwrap(), [false; 81]);
        // The ring the local mean leaves around the spot is darker than any digit: counted
        // as ink, it follows the light a cell over.
        let (before, after) = (40, 41);
        assert!(slipped_under_moving_glare(before, after, false));
        assert!(!slipped_under_moving_glare(before, after, true));
        assert!(!slipped_under_moving_glare(30, 39, true));
    }
}
