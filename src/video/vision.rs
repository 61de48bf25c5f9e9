//! The vision stage of live video: find the grid once, track it, read the puzzle over a few
//! frames until the reading is stable, solve it once, and remember it.
//!
//! Per frame, [`Vision::process`] either tracks the grid it already has ([`track`]) or, when
//! there is none or it was lost, searches the whole frame ([`detect::find_grid`]). A newly
//! found grid is read every frame and the evidence (log-probabilities per cell) is summed until
//! one puzzle is clearly the likeliest (see [`judge_frames`]); then it is solved. Until then, the
//! digits every solution of the clues read surely agrees on are drawn ([`agreed_digits`]: a
//! finger over a clue the puzzle needs). Solved puzzles are kept, so one that comes back into
//! view is recognised from a single reading and not solved again.
//! While a puzzle is shown, it is re-read now and then, so that a different puzzle laid in the
//! same place is noticed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use opencv::core::Mat;

use crate::bend::Bend;
use crate::error::Result;
use crate::geometry::{Homography, Quad, distance};
use crate::grid::Grid;
use crate::on_print::PrintCheck;
use crate::raster::{GrayView, gray_of};
use crate::recognize::detect::{self, Detection, Ink, Look};
use crate::recognize::lines;
use crate::recognize::read::{DigitReader, GridReading};
use crate::recognize::verdict::{
    Evidence, Judged, MAX_READING_FRAMES, Status, WrongMarks, agreed_digits, judge_frames,
};
use crate::recognize::{Follow, Orientation, Recognition, RecognizeTimes, recognize};
pub use crate::video::known::Known;
use crate::video::known::{contradicts, entries_seen_in, replaced, same_puzzle, still_shows};
use crate::video::track::{self, Alignment, Anchor, TrackFrame};

/// A shown puzzle is read again every this many frames, to notice a replaced puzzle.
const RECHECK_EVERY: u32 = 15;
/// A grid read this many times without any verdict is searched for again.
const GIVE_UP_READING: u32 = 2 * MAX_READING_FRAMES;
/// A grid being read without a verdict is searched for again every this many frames.
const SEARCH_AGAIN_EVERY: u32 = 3;
/// A grid found again more than this many cells from the track lies elsewhere.
const ELSEWHERE_CELLS: f64 = 0.5;
/// A grid found again on the frame after it was found is taken as it is found only if its
/// corners lie within this many cells of a rigid move (with scaling) of the track's (one
/// corner cut a cell short on a blurred frame: 0.55; at the frame's edge: 0.37); else the
/// track moves with three corners that moved together to within `THREE_MOVED_CELLS`.
const MOVE_MISFIT_CELLS: f64 = 0.3;
const THREE_MOVED_CELLS: f64 = 0.1;
/// A re-reading puts the grid within this many cells of the track: the same place.
const CONFIRM_CELLS: f64 = 0.15;
/// And every crossing of its lines, bent as it read them, within this many cells of where the
/// track draws it (see `Track::cells_agree`). At 0.2, a real curved page drawn by its corners
/// under a thumb, its digits inside their cells, was held back on 14% of its frames
/// (`thumb:02_10_honor_view_10_0`, hand-held bench set 1).
const CELLS_AGREE: f64 = 0.3;
/// Lines within this many cells of a grid just found are taken over its outline even beside
/// something over the grid (see `Track::take_lines`).
const OUTLINE_OFF_CELLS: f64 = 0.3;
/// Readings in a row whose lines, followed beside something over the grid, disagree with the
/// track but put the grid in the same place on the paper every time, after which the lines are
/// taken: it is the track that is off (an outline found at a smeared paper edge, `image36`,
/// held 3-4% off by its own anchor and never drawn). Lines pulled onto strokes beside a glare
/// spot or a finger move with it over the paper and do not add up.
const OVERRULE_AFTER: u32 = 8;
/// How close (share of a cell) the lines of two such readings must put the grid on the paper.
const SAME_PLACE_CELLS: f64 = 0.1;
/// A grid partly out of view that moves more than this (share of its side per frame) is not
/// drawn.
const LEAVING_MOTION: f64 = 0.05;
/// A due re-check waits while the grid moves more than this (share of its side per frame):
/// lines smeared by motion are followed off the printed ones, and the track would be reset
/// onto them (a page coming back into view was drawn 3-5% off until the next check).
const STEADY_FOR_CHECK: f64 = 0.02;
/// No overlay while the grid moves more than this (share of its side per frame), also in full
/// view: the page is a smear then, and the flow lags the paper (pages swept out of view in the
/// 30 s pans, up to 16% a frame, were drawn 2.0-2.3% off). 10% would also blank the quicker
/// moves of the 8 s clips (2% of their frames), which are drawn within 1.5%.
const BLUR_MOTION: f64 = 0.12;
/// No overlay on a frame where the grid moves more than `FAST_MOTION` (share of its side per
/// frame) and the anchor moved the tracked grid by more than `DISPUTED_CORRECTION` of its side:
/// on a fast frame the anchor's sharp picture, aligned to the smeared frame, now and then puts
/// one corner 5-7 px off (2.0-2.1% of the side at 10-12% a frame, single frames of the 8 s
/// clips' quick move), while on most such frames it is what keeps the grid on the paper (keeping
/// the tracked grid on every fast frame drew up to 2.7% off). Flow and anchor disagreeing that
/// much on a fast frame means one of them is off, and which is not known. A steady frame's
/// correction is the anchor doing its work (drift taken out) and is drawn.
const FAST_MOTION: f64 = 0.05;
const DISPUTED_CORRECTION: f64 = 0.01;

/// What the vision stage says about one frame.
#[derive(Debug, Clone, Default)]
pub struct FrameView {
    pub puzzle: Option<PuzzleView>,
    /// Other puzzles in view whose solution is drawn on this frame
    /// ([`crate::video::several`]).
    pub others: Vec<PuzzleView>,
    pub times: VisionTimes,
}

/// The puzzle in a frame.
#[derive(Debug, Clone)]
pub struct PuzzleView {
    /// Corners in this frame's pixels, in the puzzle's own orientation (top-left first).
    pub quad: Quad,
    /// How the printed lines bend between the corners (curved paper), when they clearly do.
    pub bend: Option<Bend>,
    /// The clues as read so far.
    pub clues: Grid,
    pub state: LiveState,
    /// Set exactly when the solution is to be drawn on this frame.
    pub solved: Option<Arc<Known>>,
    /// Digits somebody wrote into the grid, as last read: the solution is not drawn over them.
    pub entries: Grid,
    /// Those of `entries` the solution contradicts (0 elsewhere), read surely: circled.
    pub wrong: Grid,
    /// Whether, while the puzzle is read, something over the paper (a finger) hides part of
    /// the grid: the puzzle may not be read until it moves.
    pub covered: bool,
}

/// Where a puzzle in view stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveState {
    Reading,
    Solved,
    /// Read, but the clues have no solution (also when a digit repeats in a unit).
    Unsolvable,
    Multiple,
    /// Being read, with the digits every solution of the clues read so far agrees on drawn
    /// (a finger over a clue the puzzle needs).
    Partial,
}

impl LiveState {
    pub fn as_str(self) -> &'static str {
        match self {
            LiveState::Reading => "reading",
            LiveState::Solved => "solved",
            LiveState::Unsolvable => "unsolvable",
            LiveState::Multiple => "multiple",
            LiveState::Partial => "partial",
        }
    }

    fn of(status: Status) -> LiveState {
        match status {
            Status::Solved => LiveState::Solved,
            Status::Invalid | Status::Unsolvable => LiveState::Unsolvable,
            Status::Multiple => LiveState::Multiple,
            Status::Unsure => LiveState::Reading,
            Status::Partial => LiveState::Partial,
        }
    }
}

/// Time spent on a frame, by step; a step not taken is None.
#[derive(Debug, Clone, Copy, Default)]
pub struct VisionTimes {
    pub total: Duration,
    pub detect: Option<Duration>,
    pub track: Option<Duration>,
    pub read: Option<Duration>,
    pub solve: Option<Duration>,
}

impl VisionTimes {
    /// Counts `spent` on detection, with what this frame spent on it already.
    fn add_detect(&mut self, spent: Duration) {
        self.detect = Some(self.detect.unwrap_or_default() + spent);
    }

    /// Adds what another stage spent on the same frame on detection, tracking and reading.
    pub fn add_stage(&mut self, other: &VisionTimes) {
        let add = |mine: &mut Option<Duration>, theirs: Option<Duration>| {
            if let Some(theirs) = theirs {
                *mine = Some(mine.unwrap_or_default() + theirs);
            }
        };
        add(&mut self.detect, other.detect);
        add(&mut self.track, other.track);
        add(&mut self.read, other.read);
    }
}

enum Identity {
    /// Boxed: the summed readings are large, a known puzzle is a pointer.
    Reading(Box<Evidence>),
    Known(Arc<Known>),
}

struct Track {
    image_from_grid: Homography,
    /// How the grid moved from the frame before last to the last: this frame's first guess.
    motion: Option<Homography>,
    identity: Identity,
    /// Whether the grid's orientation was settled by a sure reading.
    oriented: bool,
    /// Frames since the puzzle was last read again (known) or the grid searched for again
    /// (being read).
    since_check: u32,
    /// Whether two readings have put the grid in the same place since it was recognised from
    /// one reading as a puzzle seen before; nothing is drawn until they have.
    confirmed: bool,
    /// The grid as first seen, that every frame is aligned to.
    anchor: Option<Anchor>,
    /// Frames since the track was last aligned to the anchor.
    unanchored_for: u32,
    /// How far the anchor moved the tracked grid on this frame (share of its side): flow from
    /// the last frame and the anchor disagree when one of them is off.
    correction: f64,
    /// How fast the grid moved (share of its side per frame) on the frame the anchor was last
    /// set on, infinite for a frame smeared by the camera's motion: lines followed on a moving
    /// frame, and so the anchor, may lie a little off. The grid is read again, and the anchor
    /// set again, once it moves at most half as fast (see [`steadier_than_anchor`]).
    anchor_motion: f64,
    /// Whether the grid is printed dark on light or light on dark (a dark-mode screen).
    ink: Ink,
    /// How clearly the outline it was found by framed a grid (`Detection::score`).
    found_score: f64,
    /// Whether the track has been on the printed lines since the grid was found: before, it is
    /// where the outline search put it, which a thumb or a glare spot over the border pulls off.
    on_lines: bool,
    /// Where the last readings' lines, doubtful beside something over the grid, put the grid
    /// in the track's own coordinates, and how many readings in a row did so.
    disputed: Option<(Quad, u32)>,
    /// While an unsolved puzzle is read again: what it was judged (unsolvable, multiple).
    provisional: Option<LiveState>,
    /// While the puzzle is read: the digits every solution of the clues read surely agrees on
    /// (see [`agreed_digits`]), drawn until it is solved.
    agreed: Option<Arc<Known>>,
    /// Digits somebody wrote into the grid, as the last reading that showed the puzzle saw them.
    entries: Grid,
    /// Entries read surely wrong, in readings in a row (see [`PuzzleView::wrong`]).
    wrong: WrongMarks,
    /// Frames in a row the grid has been cut by the frame's edge.
    cut_for: u32,
    /// How the printed lines bend between the corners (curved paper), in grid units, as the
    /// last clear reading (nothing over the grid, not smeared) followed them: the paper's curve
    /// travels with it, so each frame draws the cells through its own homography.
    bend: Option<Bend>,
    /// Whether the cells drawn lie on the printed lines, looked at over the last frames drawn.
    print_check: PrintCheck,
    /// Whether the last reading that could tell (lines followed on a sharp frame) put the cells
    /// elsewhere than the track draws them (see [`Track::cells_agree`]).
    cells_disputed: bool,
    /// While the grid is read: its recent readings turned (each more plausible than upright,
    /// none taken yet), and which corner of the track's outline they take for the puzzle's
    /// top-left. When they add up to a puzzle, the puzzle's rules say that way is up.
    turned_readings: Option<(usize, Box<Evidence>)>,
}

impl Track {
    /// A track of a grid just found, to be read; None if its corners make no homography.
    fn start(current: &TrackFrame, found: &Detection) -> Result<Option<Track>> {
        let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, &found.quad) else {
            return Ok(None);
        };
        tracing::debug!(score = found.score, "found a grid");
        Ok(Some(Track {
            image_from_grid,
            motion: None,
            identity: Identity::Reading(Box::new(Evidence::new())),
            oriented: false,
            since_check: 0,
            confirmed: false,
            anchor: Anchor::new(current, &image_from_grid)?,
            unanchored_for: 0,
            correction: 0.0,
            anchor_motion: if found.smeared { f64::INFINITY } else { 0.0 },
            ink: found.ink,
            found_score: found.score,
            on_lines: false,
            disputed: None,
            provisional: None,
            agreed: None,
            entries: Grid::EMPTY,
            wrong: WrongMarks::NONE,
            cut_for: 0,
            bend: None,
            print_check: PrintCheck::default(),
            cells_disputed: false,
            turned_readings: None,
        }))
    }

    /// Whether lines that disagree with the track have, `OVERRULE_AFTER` readings in a row, put
    /// the grid in the same place on the paper (seen from the track); counts this reading.
    fn lines_hold_their_place(&mut self, lines: &Quad) -> bool {
        let Some(grid_from_image) = self.image_from_grid.inverse() else {
            return false;
        };
        let on_paper = Quad(lines.0.map(|p| grid_from_image.apply(p)));
        let same = |q: &Quad| q.max_corner_distance(&on_paper) <= SAME_PLACE_CELLS / 9.0;
        let count = match self.disputed {
            Some((q, n)) if same(&q) => n + 1,
            _ => 1,
        };
        self.disputed = Some((on_paper, count));
        if count >= OVERRULE_AFTER {
            tracing::debug!(
                readings = count,
                "lines that disagree with the track hold their place: taking them"
            );
            self.disputed = None;
            return true;
        }
        false
    }

    /// Moves the track (tracked at `quad`) onto the printed lines of `recognition` where they
    /// can be trusted; says whether they agree with the track, and so may confirm it (its cells
    /// too, see [`Track::cells_agree`]; not a reading across a smear of a grid never yet on its
    /// lines), and whether they are doubtful.
    ///
    /// The printed lines are the absolute truth of where the grid is: where they were followed
    /// (or the grid was turned), the track and its anchor start again from them. Except while
    /// something lies over the grid and they disagree with the track: where a glare spot or a
    /// finger hides a line, it can be followed onto the strokes beside it (a glare spot drifting
    /// over image36's page put the drawn grid 4% of its side off), and a grid just found may be
    /// outlined off. Neither is trusted then: nothing is drawn until a reading's lines agree
    /// with the track again, hold their place long enough to overrule it, or lie on the printed
    /// border clearly more than the track does (see [`on_border_more_clearly`]).
    fn take_lines(
        &mut self,
        gray: &Mat,
        current: &TrackFrame,
        quad: &Quad,
        recognition: &Recognition,
    ) -> Result<(bool, bool)> {
        let cell = quad.mean_side() / 9.0;
        // A turned reading names the corners from another one: where the grid is, is compared
        // with the track's corners named the same way.
        let placed = quad.turned_like(&recognition.quad);
        let agrees = recognition.quad.max_corner_distance(&placed) <= CONFIRM_CELLS * cell;
        let cells_agree = self.cells_agree(quad, recognition);
        let covered = recognition.reading.hidden().contains(&true);
        tracing::trace!(?quad, lines = ?recognition.quad, on_lines = recognition.on_lines, agrees, covered, "read");
        // A track not yet on the lines is only the outline search's guess, pulled off by the
        // thumb over the border that the lines were followed past: lines near it are the better
        // guess (thumb:image1038 was held back 7 frames, its outline 0.17 cell off).
        let outline_off = !self.on_lines
            && recognition.quad.max_corner_distance(&placed) <= OUTLINE_OFF_CELLS * cell;
        let doubtful = covered
            && recognition.on_lines
            && !agrees
            && !outline_off
            && !on_border_more_clearly(gray, &recognition.quad, &placed, recognition)?
            && !self.lines_hold_their_place(&recognition.quad);
        if doubtful {
            tracing::debug!("lines beside something over the grid disagree with the track");
            self.confirmed = false;
            // The track stays where it is, but is named the way the grid was read: the readings
            // it adds up are of the grid that way up (named as before, a blurred frame's turned
            // reading had the solution drawn turned).
            if recognition.turned && self.start_again_at(current, &placed)? {
                self.disputed = None;
            }
        } else {
            self.disputed = None;
            let motion = if recognition.reading.smeared() {
                f64::INFINITY
            } else {
                moving(self, quad)
            };
            if (recognition.on_lines || recognition.turned)
                && self.start_again_at(current, &recognition.quad)?
            {
                self.unanchored_for = 0;
                self.on_lines |= recognition.on_lines;
                self.anchor_motion = motion;
                if !agrees || !cells_agree {
                    // Lines that moved the grid are drawn once the next reading's agree: one
                    // reading's lines can be followed off at a corner (a pencil note beside it
                    // under a steep view put a steady, anchored grid 4.5% off for a frame).
                    self.confirmed = false;
                }
                // Lines followed beside a finger or across a smear may bend where the paper
                // does not: the bend read before stays.
                if !covered && !recognition.reading.smeared() {
                    self.bend = recognition.bend;
                }
            }
        }
        // A grid never yet placed on its printed lines is where the outline search and the flow
        // put it; across a smear, that is only roughly where it is, and a reading that could not
        // follow the lines there agrees with it by construction: it starts no drawing (a page
        // sliding in at 5% of its side a frame was first drawn 4.2% off so).
        let settles = self.confirmed || self.on_lines || !recognition.reading.smeared();
        Ok((agrees && cells_agree && settles, doubtful))
    }

    /// Whether the cells `recognition` read lie where the track (at `quad`, bent as it is)
    /// draws them, within [`CELLS_AGREE`] of a cell at every crossing of the lines; a reading
    /// whose lines were not followed, or were followed across a smear, says nothing of it.
    ///
    /// The corners can agree while the cells between them do not: on a page curved beyond
    /// what the lines followed once a frame reach, most readings took cells near the bowed
    /// border for covered, their bend was not kept (see [`Track::take_lines`]), and the grid
    /// drawn by its corners lay up to 0.48 of a cell off its printed cells.
    ///
    /// A reading that says nothing of the cells leaves the last word to the last one that did:
    /// a smeared reading of a page bowed by 0.45 of a cell, taken as the camera began to move,
    /// confirmed a grid every sharp reading before had put 0.44 of a cell off, and it was drawn
    /// so (noise seed 2, session 32).
    fn cells_agree(&mut self, quad: &Quad, recognition: &Recognition) -> bool {
        if !recognition.on_lines || recognition.reading.smeared() {
            return !self.cells_disputed;
        }
        let drawn = crate::overlay::drawn_lattice(quad, self.bend.as_ref());
        let read = crate::overlay::drawn_lattice(&recognition.quad, recognition.bend.as_ref());
        let (Some(drawn), Some(read)) = (drawn, read) else {
            return false;
        };
        let read = read.turned_like(quad);
        let apart = drawn
            .0
            .iter()
            .flatten()
            .zip(read.0.iter().flatten())
            .map(|(&a, &b)| distance(a, b))
            .fold(0.0, f64::max);
        self.cells_disputed = apart > CELLS_AGREE * quad.mean_side() / 9.0;
        !self.cells_disputed
    }

    /// Sets the anchor again on `outline`, the grid's sharp outline found near the track (at
    /// `quad`) on this frame: for a track anchored on a smeared frame, where the lines could not
    /// be followed on a sharp one.
    fn anchor_on_outline(
        &mut self,
        current: &TrackFrame,
        outline: &Quad,
        quad: &Quad,
    ) -> Result<()> {
        let motion = moving(self, quad);
        if self.start_again_at(current, outline)? {
            tracing::debug!("anchored again on a sharp frame's outline");
            self.anchor_motion = motion;
            self.unanchored_for = 0;
        }
        Ok(())
    }

    /// Puts the track, and the anchor it is aligned to, at `quad`; false (and left as it is)
    /// when its corners make no homography.
    fn start_again_at(&mut self, current: &TrackFrame, quad: &Quad) -> Result<bool> {
        let Some(h) = Homography::from_quads(&Quad::UNIT, quad) else {
            return Ok(false);
        };
        // A grid now named from another corner (read turned) would have its bend turned too.
        let was = track::quad_of(&self.image_from_grid);
        if was.turned_like(quad) != was {
            self.bend = None;
        }
        self.image_from_grid = h;
        self.anchor = Anchor::new(current, &h)?;
        Ok(true)
    }

    /// Takes `agreed` (see [`agreed_digits`]) as the digits to draw while the puzzle is read,
    /// as a puzzle numbered `id` when they changed; returns how many ids it used. They are
    /// drawn where the lines read put the grid (`doubtful`: not).
    ///
    /// Readings that agree on nothing this time (a clue read unsurely on one blurred frame, a
    /// puzzle just read again) keep the digits agreed on before, unless `reading` shows another
    /// puzzle or surely another digit where one of their clues is: they follow from those clues
    /// alone (thumb:image1086 lost them for 6-26 frames at a time).
    fn agree(
        &mut self,
        agreed: Option<Judged>,
        reading: &GridReading,
        id: u64,
        doubtful: bool,
    ) -> u64 {
        let Some(agreed) = agreed else {
            if self
                .agreed
                .as_ref()
                .is_some_and(|k| replaced(k, reading) || contradicts(k, reading))
            {
                tracing::debug!("the digits agreed on no longer hold");
                self.agreed = None;
            }
            return 0;
        };
        self.confirmed = !doubtful;
        if self
            .agreed
            .as_ref()
            .is_some_and(|k| k.solution == agreed.solution && k.clues == agreed.clues)
        {
            return 0;
        }
        tracing::debug!(
            id,
            digits = agreed.solution.map_or(0, |s| s.filled()),
            "digits every solution agrees on"
        );
        self.agreed = Some(Arc::new(Known::new(id, agreed)));
        1
    }

    /// Adds `turned`, a reading of the grid turned (outlined at `quad` by the track), to the
    /// recent ones turned the same way, and returns them when they add up to a solved puzzle
    /// or, if `sure_alone`, when it is sure; else keeps them for the next.
    fn turned_taken(
        &mut self,
        quad: &Quad,
        turned: &Recognition,
        sure_alone: bool,
    ) -> Option<Box<Evidence>> {
        let top_left = turned.quad.0[0];
        let turn = (0..4)
            .min_by(|&a, &b| {
                distance(top_left, quad.0[a]).total_cmp(&distance(top_left, quad.0[b]))
            })
            .unwrap_or(0);
        let mut evidence = match self.turned_readings.take() {
            Some((was, evidence)) if was == turn => evidence,
            _ => Box::new(Evidence::new()),
        };
        evidence.add(&turned.reading);
        if (sure_alone && turned.reading.is_confident())
            || judge_frames(&evidence).is_some_and(|j| j.solution.is_some())
        {
            return Some(evidence);
        }
        self.turned_readings = Some((turn, evidence));
        None
    }

    /// Reads the grid as a puzzle not yet known, from `reading` on, saying `provisional` (the
    /// verdict it had, if any) until a new one.
    fn read_again(&mut self, reading: &GridReading, provisional: Option<LiveState>) {
        self.provisional = provisional;
        let mut evidence = Evidence::new();
        evidence.add(reading);
        self.identity = Identity::Reading(Box::new(evidence));
    }
}

/// How much more clearly (ratio of [`lines::border_contrast`]) the followed lines' corners
/// must put a side of the grid on the printed border than the track's, to be taken over it
/// while something lies over the grid.
const BORDER_CLEARER: f64 = 1.5;
/// The faintest border (share of the paper's brightness) that can tell so.
const MIN_BORDER_CONTRAST: f64 = 0.05;

/// Whether the followed lines (`lines`) put the grid's sides on the printed border clearly
/// more than the track (at `tracked`), looking only beside cells the reading saw in view: on
/// some side clearly more, and on none clearly less. Then it is the track that is off
/// (thumb:image44's outline, found as the page slid in, had its bottom side cut along the thumb
/// over the bottom row, a corner 0.7 cell in, and the right lines waited 8 readings to overrule
/// it).
fn on_border_more_clearly(
    gray: &Mat,
    lines: &Quad,
    tracked: &Quad,
    recognition: &Recognition,
) -> Result<bool> {
    let view = GrayView::new(gray)?;
    let hidden = recognition.reading.hidden();
    let by_lines = lines::border_contrast(&view, lines, &hidden);
    let by_track = lines::border_contrast(&view, tracked, &hidden);
    tracing::trace!(
        ?by_lines,
        ?by_track,
        "border contrast where lines and track disagree"
    );
    let clearer = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => a >= MIN_BORDER_CONTRAST && a > BORDER_CLEARER * b.max(0.0),
        _ => false,
    };
    let sides = by_lines.iter().zip(&by_track);
    let lines_clearer = sides.clone().any(|(&l, &t)| clearer(l, t));
    let track_clearer = sides.clone().any(|(&l, &t)| clearer(t, l));
    Ok(lines_clearer && !track_clearer)
}

/// A track anchored while the grid moved is read again from a steadier frame's outline found
/// within this many cells of it (an outline found on a smeared frame lies up to a quarter cell
/// off), and one anchored on a smeared frame is anchored again on it.
const ANCHOR_AGAIN_CELLS: f64 = 0.5;

/// The grid's outline found on this frame (`found`), named like the track's corners `quad`, if
/// it is sharp and lies within [`ANCHOR_AGAIN_CELLS`] of them.
///
/// Why: read from the track's own corners, the lines along a border that fades at a corner
/// (image23's newspaper border, light at the top left) go where those corners put them, so a
/// track anchored a hair off on a moving frame stayed so, "confirmed" by its own lines on every
/// reading (pan:image23 after coming back into view: 1.5-3% of the side for 19 s).
fn outline_near(found: Option<Detection>, quad: &Quad) -> Option<Quad> {
    let cell = quad.mean_side() / 9.0;
    found
        .filter(|d| !d.smeared)
        .map(|d| d.quad.turned_like(quad))
        .filter(|q| q.max_corner_distance(quad) <= ANCHOR_AGAIN_CELLS * cell)
}

/// The outline search ([`detect::find_grid`]) on one frame, run at most once however many
/// steps ask for it: following a grid just found, searching again for one being read and
/// reading from a steadier frame's outline can all want it on the same frame.
struct FrameOutline<'a> {
    gray: &'a Mat,
    found: Option<Option<Detection>>,
}

impl<'a> FrameOutline<'a> {
    fn new(gray: &'a Mat) -> FrameOutline<'a> {
        FrameOutline { gray, found: None }
    }

    /// The grid the search finds on the frame, searched on the first asking.
    fn found(&mut self, times: &mut VisionTimes) -> Result<Option<Detection>> {
        if let Some(found) = self.found {
            return Ok(found);
        }
        let start = Instant::now();
        let found = detect::find_grid(self.gray, Look::OneOfMany)?;
        times.add_detect(start.elapsed());
        self.found = Some(found);
        Ok(found)
    }

    /// Whether a grid outlined at `quad` is whole in view (see [`whole_in_view`]).
    fn whole(&self, quad: &Quad) -> bool {
        whole_in_view(quad, self.gray)
    }
}

/// Every how many frames searched in vain the finer search ([`detect::find_small_grid`]) looks
/// for a puzzle held far from the camera.
const FINE_SEARCH_EVERY: u32 = 4;

/// See [`Vision::beside_another`]: clean printed grids score 0.8-0.9, blurred ones less.
const BESIDE_LEAST_SCORE: f64 = 0.5;

/// Frames the overlay stays up without being aligned to the anchor (finger, blur, part of the
/// grid out of view): flow from an aligned frame holds that long; after it, nothing is drawn
/// until the grid is aligned again.
const DRAW_UNANCHORED: u32 = 2;

/// The vision thread's state; feed it every frame in order.
pub struct Vision {
    reader: DigitReader,
    known: Vec<Arc<Known>>,
    track: Option<Track>,
    previous: Option<TrackFrame>,
    next_id: u64,
    /// Frames searched in a row without finding a grid.
    searched_in_vain: u32,
    /// Whether a grid not found is also looked for by the finer search now and then (a puzzle
    /// held far away).
    searches_finely: bool,
    /// The least score ([`detect::grid_score`]) of a grid found to be followed.
    least_score: f64,
    /// Grids other stages follow (see [`Vision::leave_alone`]).
    left_alone: Vec<Quad>,
}

impl Vision {
    pub fn new(reader: DigitReader) -> Vision {
        Vision {
            reader,
            known: Vec::new(),
            track: None,
            previous: None,
            next_id: 0,
            searched_in_vain: 0,
            searches_finely: true,
            least_score: detect::MIN_GRID_SCORE,
            left_alone: Vec::new(),
        }
    }

    /// Grids that other stages follow, as last seen: a puzzle cut by the frame's edge does not
    /// give way to one of them (see [`crate::video::several`]), which is drawn already.
    pub fn leave_alone(&mut self, quads: Vec<Quad>) {
        self.left_alone = quads;
    }

    /// The same, as a stage looking for another puzzle beside one followed (see
    /// [`crate::video::several`]): it follows only a grid found clearly (scored 0.5 or more)
    /// and does without the finer search (another puzzle on the page
    /// is about as large). It looks again and again, and on a frame with the puzzle followed
    /// covered, a finger beside the paper framed grids at 0.30-0.34 that it read for 30 frames.
    pub fn beside_another(self) -> Vision {
        Vision {
            searches_finely: false,
            least_score: BESIDE_LEAST_SCORE,
            ..self
        }
    }

    /// The same, numbering the puzzles it reads from `first_id` on: puzzles read by different
    /// stages (several puzzles in view, [`crate::video::several`]) never share an id.
    pub fn numbering_from(self, first_id: u64) -> Vision {
        Vision {
            next_id: first_id,
            ..self
        }
    }

    /// Puzzles solved so far: the cache.
    pub fn known(&self) -> &[Arc<Known>] {
        &self.known
    }

    /// The digit reader.
    pub fn reader(&self) -> &DigitReader {
        &self.reader
    }

    /// Whether a grid is being followed.
    pub fn is_following(&self) -> bool {
        self.track.is_some()
    }

    /// Whether the grid followed is a puzzle solved.
    pub fn follows_a_solved_puzzle(&self) -> bool {
        matches!(
            self.track.as_ref().map(|t| &t.identity),
            Some(Identity::Known(known)) if known.solution.is_some()
        )
    }

    /// Stops following the grid (another stage follows it); what was learnt stays.
    pub fn let_go(&mut self) {
        self.track = None;
    }

    /// Finds or follows the puzzle in a BGR frame.
    pub fn process(&mut self, frame: &Mat) -> Result<FrameView> {
        let start = Instant::now();
        let mut view = self.process_gray(&gray_of(frame)?)?;
        view.times.total = start.elapsed();
        Ok(view)
    }

    /// Finds or follows the puzzle in a frame in gray.
    pub fn process_gray(&mut self, gray: &Mat) -> Result<FrameView> {
        let start = Instant::now();
        let mut times = VisionTimes::default();
        let current = TrackFrame::new(gray)?;
        let mut outline = FrameOutline::new(gray);
        self.follow(&current, &mut outline, &mut times)?;
        match self.track.as_ref().map(|t| &t.identity) {
            None => self.search(&current, &mut outline, &mut times)?,
            Some(Identity::Reading(_)) => self.search_again(&current, &mut outline, &mut times)?,
            Some(Identity::Known(_)) => {
                self.look_for_another_puzzle(&current, &mut outline, &mut times)?
            }
        }
        if self.track.is_some() {
            self.read(&current, &mut outline, &mut times)?;
        }
        self.previous = Some(current);
        // Part of tracking: whether the grid drawn where the track has it lies on the print.
        let checked = Instant::now();
        let looked_at = self.previous.as_ref();
        let puzzle = self.track.as_mut().map(|t| view_of(t, gray, looked_at));
        if let Some(track_time) = times.track.as_mut() {
            *track_time += checked.elapsed();
        }
        times.total = start.elapsed();
        Ok(FrameView {
            puzzle,
            others: Vec::new(),
            times,
        })
    }

    fn follow(
        &mut self,
        current: &TrackFrame,
        outline: &mut FrameOutline,
        times: &mut VisionTimes,
    ) -> Result<()> {
        let (Some(track), Some(previous)) = (self.track.as_mut(), self.previous.as_ref()) else {
            self.track = None;
            return Ok(());
        };
        if track.motion.is_none() {
            // Just found: how fast the grid moves is not known yet, and flow on a repeating
            // grid can't tell a fast move from a slow one to the neighbouring cell. Detect once
            // more and take the motion from the two detections.
            let found = outline.found(times)?.filter(|d| outline.whole(&d.quad));
            // Detection orders corners by the picture, the track by the puzzle (it may be turned).
            let tracked = track::quad_of(&track.image_from_grid);
            let cell = tracked.mean_side() / 9.0;
            if let Some(found) = found
                && clearer_in_another_shape(track, &found, &tracked, outline.gray)?
            {
                tracing::debug!(
                    found = found.score,
                    before = track.found_score,
                    "found again more clearly in another shape: starting from there"
                );
                self.track = Track::start(current, &found)?;
                return Ok(());
            }
            let again = found.map(|d| d.quad.turned_like(&tracked));
            if let Some(found) = again
                .filter(|q| q.max_corner_distance(&tracked) < 0.25 * q.sides()[0])
                .and_then(|q| moved_like(&tracked, &q, cell))
                && let Some(h) = Homography::from_quads(&Quad::UNIT, &found)
            {
                track.motion = track.image_from_grid.inverse().map(|g| h.after(&g));
                track.image_from_grid = h;
                // Not drawn where this outline puts the grid: found on a smeared frame (the
                // page sliding in) it can lie 4-5% of the side off (`image21`). The next frame
                // is followed and aligned to the anchor as any other.
                track.unanchored_for = DRAW_UNANCHORED + 1;
                return Ok(());
            }
        }
        let start = Instant::now();
        let predicted = track
            .motion
            .map_or(track.image_from_grid, |m| m.after(&track.image_from_grid));
        let tracked = track::track(previous, current, &track.image_from_grid, &predicted)?;
        let Some(tracked) = tracked else {
            tracing::debug!("lost the grid");
            self.track = None;
            return Ok(());
        };
        tracing::trace!(inliers = tracked.inliers, "tracked");
        let alignment = match &track.anchor {
            Some(anchor) => anchor.align(current, &tracked.image_from_grid)?,
            None => Alignment::Unsure,
        };
        times.track = Some(start.elapsed());
        let image_from_grid = match alignment {
            Alignment::Anchored(a) => {
                tracing::trace!(inliers = a.inliers, "aligned to the anchor");
                track.unanchored_for = 0;
                let (was, aligned) = (
                    track::quad_of(&tracked.image_from_grid),
                    track::quad_of(&a.image_from_grid),
                );
                track.correction = aligned.max_corner_distance(&was) / aligned.mean_side();
                a.image_from_grid
            }
            Alignment::Unsure => {
                track.unanchored_for += 1;
                track.correction = 0.0;
                tracked.image_from_grid
            }
            Alignment::Slipped => {
                tracing::debug!("the track slipped off the printed grid; searching again");
                self.track = None;
                return Ok(());
            }
        };
        track.motion = track
            .image_from_grid
            .inverse()
            .map(|grid_from_last| image_from_grid.after(&grid_from_last));
        track.image_from_grid = image_from_grid;
        Ok(())
    }

    fn search(
        &mut self,
        current: &TrackFrame,
        outline: &mut FrameOutline,
        times: &mut VisionTimes,
    ) -> Result<()> {
        let mut found = outline.found(times)?;
        self.searched_in_vain += 1;
        if found.is_none()
            && self.searches_finely
            && self.searched_in_vain.is_multiple_of(FINE_SEARCH_EVERY)
        {
            // A puzzle held far from the camera (a sixth of a 1080p frame across) only shows
            // its cell lines to the finer search, which looks at 3.5 times the pixels of the
            // first at 1080p: not every frame.
            let start = Instant::now();
            found = detect::find_small_grid(outline.gray, Look::OneOfMany)?;
            times.add_detect(start.elapsed());
        }
        let found = found.filter(|d| outline.whole(&d.quad) && d.score >= self.least_score);
        if found.is_some() {
            self.searched_in_vain = 0;
        }
        self.track = match found {
            Some(detection) => Track::start(current, &detection)?,
            None => None,
        };
        Ok(())
    }

    /// Searches the frame again for a grid that is being read without adding up to a puzzle
    /// yet, and starts over from the grid found if it lies elsewhere and shows more clearly
    /// as a grid on this frame: a grid first found on a blurred frame (the page still
    /// moving) can be outlined a column off, and every reading of it then breaks the rules.
    fn search_again(
        &mut self,
        current: &TrackFrame,
        outline: &mut FrameOutline,
        times: &mut VisionTimes,
    ) -> Result<()> {
        let Some(track) = self.track.as_mut() else {
            return Ok(());
        };
        track.since_check += 1;
        // A grid found on a smeared frame may be outlined off (lines not followed, readings
        // that never add up): searched again on every frame until the anchor is set sharp.
        let every = if track.anchor_motion.is_infinite() {
            1
        } else {
            SEARCH_AGAIN_EVERY
        };
        if track.since_check < every {
            return Ok(());
        }
        track.since_check = 0;
        let found = outline.found(times)?.filter(|d| outline.whole(&d.quad));
        let tracked = track::quad_of(&track.image_from_grid);
        let Some(found) = found.filter(|d| {
            let cell = tracked.mean_side() / 9.0;
            d.quad.turned_like(&tracked).max_corner_distance(&tracked) > ELSEWHERE_CELLS * cell
                && !a_box_of(&track.image_from_grid, &d.quad)
        }) else {
            return Ok(());
        };
        let start = Instant::now();
        let mut negative = Mat::default();
        let tracked_score = detect::grid_score(
            track.ink.as_dark(outline.gray, &mut negative)?,
            &tracked,
            Look::OneOfMany,
        )?;
        times.add_detect(start.elapsed());
        if found.score > tracked_score {
            tracing::debug!(
                found = found.score,
                tracked = tracked_score,
                "the grid shows more clearly elsewhere; reading it there"
            );
            self.track = Track::start(current, &found)?;
        }
        Ok(())
    }

    /// While the puzzle followed is cut by the frame's edge, looks every few frames for another
    /// grid whole in view and clear of it, and follows that one instead: the camera turned to
    /// the next puzzle on the page (newspapers print two side by side), the one now meant. The
    /// puzzle left stays known, recognised at once when the camera turns back to it.
    fn look_for_another_puzzle(
        &mut self,
        current: &TrackFrame,
        outline: &mut FrameOutline,
        times: &mut VisionTimes,
    ) -> Result<()> {
        let Some(track) = self.track.as_mut() else {
            return Ok(());
        };
        let tracked = track::quad_of(&track.image_from_grid);
        if inside_frame(&tracked, outline.gray) {
            track.cut_for = 0;
            return Ok(());
        }
        track.cut_for += 1;
        if !track.cut_for.is_multiple_of(ANOTHER_PUZZLE_EVERY) {
            return Ok(());
        }
        let followed_elsewhere = |quad: &Quad| {
            self.left_alone
                .iter()
                .any(|other| detect::overlapping(other, quad))
        };
        let Some(found) = outline.found(times)?.filter(|d| {
            outline.whole(&d.quad) && beside(&d.quad, &tracked) && !followed_elsewhere(&d.quad)
        }) else {
            return Ok(());
        };
        tracing::debug!(
            score = found.score,
            "another grid whole in view beside the puzzle cut by the frame's edge: following it"
        );
        self.track = Track::start(current, &found)?;
        Ok(())
    }

    /// Reads the tracked grid when its puzzle is not known yet, or is due a check.
    fn read(
        &mut self,
        current: &TrackFrame,
        frame_outline: &mut FrameOutline,
        times: &mut VisionTimes,
    ) -> Result<()> {
        let gray = frame_outline.gray;
        let Some(track) = self.track.as_mut() else {
            return Ok(());
        };
        let quad = track::quad_of(&track.image_from_grid);
        if let Identity::Known(known) = &track.identity {
            track.since_check += 1;
            // A confirming reading is taken at once, and so is one of a puzzle judged without a
            // solution (it is provisional: a thumb that hid a clue may have let go) and one that
            // sets the anchor again on a steadier frame than it was set on; a routine one waits
            // for a steady grid.
            let due = !track.confirmed
                || known.solution.is_none()
                || steadier_than_anchor(track, &quad)
                || (track.since_check >= RECHECK_EVERY && moving(track, &quad) <= STEADY_FOR_CHECK);
            if !due {
                return Ok(());
            }
        }
        // Cells cut off by the frame's edge would be read as empty; and a grid not known yet
        // may have been outlined where the frame's edge cuts it.
        let in_view = match track.identity {
            Identity::Known(_) => inside_frame(&quad, gray),
            Identity::Reading(_) => whole_in_view(&quad, gray),
        };
        if !in_view {
            return Ok(());
        }
        let orientation = if track.oriented {
            Orientation::Known
        } else {
            Orientation::Unknown
        };
        // A track anchored while the grid moved (or smeared) is read, once steadier, from the
        // frame's own outline, as a photo is.
        let outline = if track.anchor_motion.is_infinite() || steadier_than_anchor(track, &quad) {
            let found = frame_outline.found(times)?;
            outline_near(found.filter(|d| frame_outline.whole(&d.quad)), &quad)
        } else {
            None
        };
        let mut steps = RecognizeTimes::default();
        let mut negative = Mat::default();
        let gray = track.ink.as_dark(gray, &mut negative)?;
        let mut recognition = recognize(
            &mut self.reader,
            gray,
            outline.as_ref().unwrap_or(&quad),
            Follow::Once,
            orientation,
            &mut steps,
        )?;
        times.read = Some(steps.rectify + steps.read);
        // A blurred frame (the page still sliding in) can read more plausibly turned than the
        // right way up, and the readings of a grid named turned never add up (handheld:01_08
        // was read so for 6 frames): a grid not yet read as a puzzle is turned by a sure
        // reading, as a page held sideways gives on a sharp frame, or by readings turned alike
        // that add up to a puzzle. A smeared frame's turned reading only so, and meanwhile its
        // upright one counts as any other: a page sideways sliding in was read only once it
        // stopped, 11 frames after the same page upright.
        let mut turned_readings = None;
        if matches!(track.identity, Identity::Reading(_)) {
            if let Some(turned) = recognition.turned_instead.take() {
                turned_readings = track.turned_taken(&quad, &turned, false);
                if turned_readings.is_some() {
                    tracing::debug!("readings turned add up to a puzzle: it is turned");
                    recognition = *turned;
                }
            } else if recognition.turned {
                turned_readings = track.turned_taken(&quad, &recognition, true);
                if turned_readings.is_none() {
                    tracing::debug!("read more plausibly turned, but not surely: not taken");
                    return Ok(());
                }
            }
            track.oriented |= turned_readings.is_some();
        }
        let (agrees, doubtful) = track.take_lines(gray, current, &quad, &recognition)?;
        if track.anchor_motion.is_infinite()
            && !recognition.on_lines
            && !recognition.reading.smeared()
            && let Some(outline) = &outline
        {
            track.anchor_on_outline(current, outline, &quad)?;
        }
        track.oriented |= settles_which_way_up(&recognition);
        let reading = recognition.reading;
        match &mut track.identity {
            Identity::Known(known) => {
                track.since_check = 0;
                // A confirming reading must have its lines followed (a reading cut by the
                // outline's corners puts the grid nowhere new) and show the puzzle: glare over
                // image42 broke its outline, the grid was found again 0.9 cell off, and read
                // there it confirmed itself.
                let shows = still_shows(known, &reading);
                track.confirmed |= agrees && recognition.on_lines && !recognition.turned && shows;
                if !doubtful && shows {
                    let before = Some((track.entries, track.wrong));
                    (track.entries, track.wrong) = entries_seen_in(&reading, known, before);
                }
                if known.solution.is_none() {
                    // Unsolved: perhaps misread; read it again rather than hold on to that,
                    // still saying what it was judged until a new verdict.
                    let judged = LiveState::of(known.status);
                    track.read_again(&reading, Some(judged));
                } else if replaced(known, &reading) {
                    // Start afresh: the new puzzle's grid may not line up with the old one's.
                    tracing::debug!(id = known.id, "a different puzzle is in view");
                    self.track = None;
                } else if agrees && recognition.on_lines && contradicts(known, &reading) {
                    // Read where the grid is, a printed clue surely shows another digit: the
                    // puzzle was misread. Withdrawn and read again, and not recognised again.
                    let id = known.id;
                    tracing::debug!(id, "a clue surely reads as another digit: reading again");
                    self.known.retain(|k| k.id != id);
                    track.read_again(&reading, None);
                }
            }
            Identity::Reading(evidence) => {
                if let Some(known) = self.known.iter().find(|k| same_puzzle(k, &reading)) {
                    tracing::debug!(id = known.id, "puzzle seen before");
                    (track.entries, track.wrong) = entries_seen_in(&reading, known, None);
                    track.identity = Identity::Known(known.clone());
                    // One reading's corners: drawn once the next reading agrees.
                    track.confirmed = false;
                    return Ok(());
                }
                if evidence.frames() >= GIVE_UP_READING && track.agreed.is_none() {
                    // Readings that never add up to a puzzle: the grid may have been found a
                    // cell off (a fully filled grid found while partly out of view looks like
                    // a grid shifted by a column). Find it afresh. Not while they agree on
                    // digits (a finger over a needed clue): a grid a column off never does.
                    tracing::debug!(
                        frames = evidence.frames(),
                        "no puzzle in the readings; searching again"
                    );
                    self.track = None;
                    return Ok(());
                }
                match turned_readings {
                    // The readings so far were of the grid another way up.
                    Some(turned) => *evidence = turned,
                    None => evidence.add(&reading),
                }
                let start = Instant::now();
                let judged = judge_frames(evidence);
                match &judged {
                    Some(j) if j.solution.is_some() => track.agreed = None,
                    // Judged without a solution: what every solution agrees on still holds.
                    Some(_) => {}
                    None => {
                        let agreed = agreed_digits(evidence);
                        let unsettled = doubtful || !agrees;
                        self.next_id += track.agree(agreed, &reading, self.next_id, unsettled);
                    }
                }
                if let Some(judged) = judged {
                    let known = Arc::new(Known::new(self.next_id, judged));
                    self.next_id += 1;
                    tracing::debug!(id = known.id, status = ?known.status, clues = %known.clues, "puzzle read");
                    if known.solution.is_some() {
                        self.known.push(known.clone());
                    }
                    (track.entries, track.wrong) = entries_seen_in(&reading, &known, None);
                    track.identity = Identity::Known(known);
                    track.since_check = 0;
                    // Drawn at once where this reading's lines agree with the track; where
                    // they moved it, once the next reading's agree. Lines followed from an
                    // outline a cell off at a corner (its border washed out, or hidden by a
                    // finger) come back only part of the way on each reading
                    // (thumb:image13, NOISE_SEED=28: a corner moved 0.15 cell a reading, and
                    // the grid was drawn 9% of its side off for 15 frames).
                    track.confirmed = !doubtful && agrees;
                    times.solve = Some(start.elapsed());
                }
            }
        }
        Ok(())
    }
}

/// Whether `recognition` settles which way up the grid is. A reading turned does when sure: a
/// blurred one (the page still sliding in) can read more plausibly turned, and a grid read
/// turned ever after never adds up. One read upright does unless smeared: a smeared grid is not
/// read turned at all (see [`recognize`]), and a page turned sideways, first read while it
/// turned, was read upright, its digits as empty cells, for 30 frames.
fn settles_which_way_up(recognition: &Recognition) -> bool {
    if recognition.turned {
        recognition.reading.is_confident()
    } else {
        !recognition.reading.smeared()
    }
}

/// Every how many frames a puzzle cut by the frame's edge looks for another one whole in view
/// (a search costs 3-4 ms on a 960x540 frame).
const ANOTHER_PUZZLE_EVERY: u32 = 5;

/// Whether `found` is another puzzle printed beside the `tracked` one: their centres at least
/// 0.9 of their mean side apart (a grid found a column off, or a box of it, lies well inside),
/// and about as large (a small grid in the background, another page's, is not what the camera
/// is brought close to the paper for).
fn beside(found: &Quad, tracked: &Quad) -> bool {
    let side = 0.5 * (found.mean_side() + tracked.mean_side());
    distance(found.centroid(), tracked.centroid()) >= 0.9 * side
        && found.mean_side() >= 0.6 * tracked.mean_side()
}

/// How far (share of the grid's side) a corner of a quad found inside the tracked grid may lie
/// from a corner of one of its boxes for the quad to be that box: a box found on a frame smeared
/// sideways can be cut short by 0.05 of the grid's side (`handheld:01_01`, read as the grid for
/// three frames), while a quad across two boxes lies half a box (0.17) off.
const ON_BOX_CORNER: f64 = 0.08;

/// Whether `quad` outlines one 3x3 box of the grid at `image_from_grid`: each corner on a corner
/// of the same box. A box is a small grid of its own (a thick border, lines across), and on a
/// frame blurred by the camera's motion it can frame "more clearly" than the whole grid: the
/// search again took `handheld:01_01`'s middle-right box for the grid, and read it for 4 frames.
fn a_box_of(image_from_grid: &Homography, quad: &Quad) -> bool {
    let Some(grid_from_image) = image_from_grid.inverse() else {
        return false;
    };
    let corners = quad.0.map(|c| grid_from_image.apply(c));
    let (x0, y0) = corners
        .iter()
        .fold((f64::MAX, f64::MAX), |(x, y), c| (x.min(c[0]), y.min(c[1])));
    let origin = [(x0 * 3.0).round() / 3.0, (y0 * 3.0).round() / 3.0];
    let inside = (0.0..=2.0 / 3.0 + ON_BOX_CORNER).contains(&origin[0])
        && (0.0..=2.0 / 3.0 + ON_BOX_CORNER).contains(&origin[1]);
    let box_corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
        .map(|[u, v]| [origin[0] + u / 3.0, origin[1] + v / 3.0]);
    inside
        && corners.iter().all(|c| {
            box_corners
                .iter()
                .any(|b| distance(*c, *b) <= ON_BOX_CORNER)
        })
}

/// A grid found again this much more clearly (`Detection::score`) than the track was found by,
/// in a shape no move of the track's makes, was first outlined off.
const CLEARER_BY: f64 = 0.1;

/// Whether `found`, on the frame after the grid was found, frames it more clearly than the
/// outline the track (now at `tracked`) started from, in a shape no move, turn and scaling of
/// it makes: the first outline was cut short (a thumb over the border, a blurred frame), and
/// kept with "three corners moved together" its readings never add up (thumb:image13 read
/// nothing for 3 frames with a corner a cell in).
///
/// It must also frame the grid more clearly than the track's own shape does on this frame
/// (moved as three corners moved to the found ones): the first reading's lines may have put
/// the track right already, and an outline cut short by a border washed out by light scores
/// well too (thumb:image13, NOISE_SEED=28: a right track was given up for an outline a cell
/// in at one corner, then drawn 8-11% off for 115 frames).
fn clearer_in_another_shape(
    track: &Track,
    found: &Detection,
    tracked: &Quad,
    gray: &Mat,
) -> Result<bool> {
    let cell = tracked.mean_side() / 9.0;
    let shape_kept = similarity(tracked, &found.quad.turned_like(tracked), &[0, 1, 2, 3])
        .is_some_and(|(_, misfit)| misfit < MOVE_MISFIT_CELLS * cell);
    if shape_kept || found.score < track.found_score + CLEARER_BY {
        return Ok(false);
    }
    let Some((moved, _)) = moved_by_three(tracked, &found.quad.turned_like(tracked)) else {
        return Ok(true);
    };
    let mut negative = Mat::default();
    let tracked_score = detect::grid_score(
        track.ink.as_dark(gray, &mut negative)?,
        &moved,
        Look::OneOfMany,
    )?;
    Ok(found.score >= tracked_score + CLEARER_BY)
}

/// `from` moved, turned and scaled as the three of its corners that fit `to` best moved, and
/// how far (pixels) those three are left from `to`'s at most.
fn moved_by_three(from: &Quad, to: &Quad) -> Option<(Quad, f64)> {
    let (moved, misfit) = (0..4)
        .filter_map(|out| {
            let three: Vec<usize> = (0..4).filter(|&k| k != out).collect();
            similarity(from, to, &three)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    Some((Quad(from.0.map(&moved)), misfit))
}

/// Where the grid outlined by `from` is, found again a frame later as `to`: `to` itself when its
/// corners lie where a move, turn and scaling of `from` puts them (to within
/// [`MOVE_MISFIT_CELLS`] of a cell); else `from` moved as three of the corners moved together,
/// the fourth being off (cut short on a blurred frame, or at the frame's edge); else None.
fn moved_like(from: &Quad, to: &Quad, cell: f64) -> Option<Quad> {
    let (_, misfit) = similarity(from, to, &[0, 1, 2, 3])?;
    if misfit < MOVE_MISFIT_CELLS * cell {
        return Some(*to);
    }
    let (moved, misfit) = moved_by_three(from, to)?;
    (misfit < THREE_MOVED_CELLS * cell).then_some(moved)
}

/// The move, turn and scaling that best takes corners `which` of `from` onto those of `to`
/// (least squares), and how far (pixels) it leaves them at most.
fn similarity(
    from: &Quad,
    to: &Quad,
    which: &[usize],
) -> Option<(impl Fn([f64; 2]) -> [f64; 2] + use<>, f64)> {
    let n = which.len() as f64;
    let centre = |q: &Quad| {
        let [x, y] = which
            .iter()
            .fold([0.0, 0.0], |a, &k| [a[0] + q.0[k][0], a[1] + q.0[k][1]]);
        [x / n, y / n]
    };
    let (cf, ct) = (centre(from), centre(to));
    let (mut dot, mut cross, mut norm) = (0.0, 0.0, 0.0);
    for &k in which {
        let (x, y) = (from.0[k][0] - cf[0], from.0[k][1] - cf[1]);
        let (u, v) = (to.0[k][0] - ct[0], to.0[k][1] - ct[1]);
        dot += x * u + y * v;
        cross += x * v - y * u;
        norm += x * x + y * y;
    }
    if norm == 0.0 {
        return None;
    }
    let (a, b) = (dot / norm, cross / norm);
    let moved = move |[x, y]: [f64; 2]| {
        let (x, y) = (x - cf[0], y - cf[1]);
        [ct[0] + a * x - b * y, ct[1] + b * x + a * y]
    };
    let misfit = which
        .iter()
        .map(|&k| distance(moved(from.0[k]), to.0[k]))
        .fold(0.0, f64::max);
    Some((moved, misfit))
}

/// Whether the grid, at `quad`, moves at most half as fast as when the anchor was set on a
/// moving frame: the page coming to rest after sliding in is anchored again on a sharper frame
/// (handheld:01_22 anchored while it still moved 3.5% of its side a frame, a hair off, was
/// drawn 2.8% off on a quick move two seconds later).
fn steadier_than_anchor(track: &Track, quad: &Quad) -> bool {
    track.anchor_motion > STEADY_FOR_CHECK && moving(track, quad) <= track.anchor_motion / 2.0
}

/// How far the grid moved from the frame before to this one, as a share of its side.
fn moving(track: &Track, quad: &Quad) -> f64 {
    let Some(motion) = track.motion else {
        return 0.0;
    };
    // The last frame's motion, carried on: where the grid will be next.
    let next = track::quad_of(&motion.after(&track.image_from_grid));
    quad.max_corner_distance(&next) / quad.mean_side()
}

/// Whether all of `quad` lies inside the frame, off its edges (0.5% of the frame).
fn inside_frame(quad: &Quad, gray: &Mat) -> bool {
    use opencv::prelude::MatTraitConst;
    inside_by(quad, gray, 0.005 * gray.cols().max(gray.rows()) as f64)
}

/// Whether a grid outlined at `quad` is whole in view, for the outline to be followed or read
/// from, or the grid followed to be read before its puzzle is known (once known, it is read
/// while merely inside the frame): every corner [`EDGE_CELLS`] of a cell inside the frame at
/// least (and 0.5% of the frame). A grid cut by the frame's edge is outlined where it is cut,
/// a little inside the frame rather than on its edge: a page held with its border 0.15-0.5 of
/// a cell beyond the frame's edge was found with a corner 3-25 px (up to half a cell) inside,
/// and the track started from it kept the grid half a cell short once the page was whole in
/// view (never drawn again), or drew it with a corner 0.4 of a cell off. With a third of a
/// cell such a corner still passed now and then.
fn whole_in_view(quad: &Quad, gray: &Mat) -> bool {
    use opencv::prelude::MatTraitConst;
    let frame = 0.005 * gray.cols().max(gray.rows()) as f64;
    inside_by(quad, gray, frame.max(EDGE_CELLS * quad.mean_side() / 9.0))
}

/// Whether every corner of `quad` lies at least `margin` pixels inside the frame.
fn inside_by(quad: &Quad, gray: &Mat, margin: f64) -> bool {
    use opencv::prelude::MatTraitConst;
    let (w, h) = (gray.cols() as f64, gray.rows() as f64);
    quad.0
        .iter()
        .all(|&[x, y]| x >= margin && y >= margin && x <= w - 1.0 - margin && y <= h - 1.0 - margin)
}

/// See [`whole_in_view`].
const EDGE_CELLS: f64 = 0.5;

/// Whether the solution is drawn where `track` has the grid (`quad`) on this frame: only while
/// the track is held to the printed grid, and not while the grid is swept out of view (flow and
/// anchor then see a smeared part of it, and the hidden corners were extrapolated 3-5% off),
/// moves too fast to be drawn well or is disputed on a fast frame (see [`FAST_MOTION`]).
fn held_to_print(track: &mut Track, quad: &Quad, gray: &Mat, small: Option<&TrackFrame>) -> bool {
    let motion = moving(track, quad);
    let leaving = motion > LEAVING_MOTION && !inside_frame(quad, gray);
    let disputed = motion > FAST_MOTION && track.correction > DISPUTED_CORRECTION;
    track.anchor.is_some()
        && track.unanchored_for <= DRAW_UNANCHORED
        && track.confirmed
        && !leaving
        && !disputed
        && motion <= BLUR_MOTION
        && !drawn_off_the_print(track, quad, gray, small)
}

/// Whether the cells drawn where `track` has the grid (`quad`, bent as the track's paper) lie
/// clearly beside the printed lines on this frame (see [`PrintCheck`]): looked at on the frame
/// shrunk for tracking (`small`) when there is one, whose pixels lie closer together (a 1080p
/// frame's tracking cost with the check, p50 4.63 -> 4.20 ms).
fn drawn_off_the_print(
    track: &mut Track,
    quad: &Quad,
    gray: &Mat,
    small: Option<&TrackFrame>,
) -> bool {
    let Some(lattice) = crate::overlay::drawn_lattice(quad, track.bend.as_ref()) else {
        return true;
    };
    let scale = small.map_or(1.0, |s| s.scale());
    let picture = small.map_or(gray, |s| s.small());
    let lattice = lattice.scaled(1.0 / scale);
    let [x, y] = moved_since_last_frame(track, quad);
    let Ok(view) = GrayView::new(picture) else {
        return false;
    };
    let off = track
        .print_check
        .drawn_off(&view, &lattice, [x / scale, y / scale]);
    if off {
        let cells_moved = x.hypot(y) / (quad.mean_side() / 9.0);
        tracing::trace!(
            cells_moved,
            "the cells would be drawn beside the printed lines: not drawn"
        );
    }
    off
}

/// How far the middle of the grid at `quad` moved since the last frame, in pixels (none known
/// for a grid just found).
fn moved_since_last_frame(track: &Track, quad: &Quad) -> [f64; 2] {
    let now = quad.centroid();
    match track.motion.and_then(|m| m.inverse()) {
        Some(last_from_now) => {
            let before = last_from_now.apply(now);
            [now[0] - before[0], now[1] - before[1]]
        }
        None => [0.0; 2],
    }
}

fn view_of(track: &mut Track, gray: &Mat, small: Option<&TrackFrame>) -> PuzzleView {
    track.print_check.next_frame();
    let quad = track::quad_of(&track.image_from_grid);
    match &track.identity {
        Identity::Reading(evidence) => {
            let (clues, covered) = (evidence.clues(), evidence.covered());
            let provisional = track.provisional.unwrap_or(LiveState::Reading);
            let (state, solved) = unsolved_view(track, &quad, gray, small, provisional);
            PuzzleView {
                quad,
                bend: track.bend,
                clues,
                state,
                solved,
                entries: Grid::EMPTY,
                wrong: Grid::EMPTY,
                covered,
            }
        }
        Identity::Known(known) => {
            let known = known.clone();
            let (state, solved) = match known.solution {
                Some(_) => (
                    LiveState::of(known.status),
                    held_to_print(track, &quad, gray, small).then(|| known.clone()),
                ),
                None => unsolved_view(track, &quad, gray, small, LiveState::of(known.status)),
            };
            PuzzleView {
                quad,
                bend: track.bend,
                clues: known.clues,
                state,
                solved,
                entries: track.entries,
                wrong: track.wrong.circled(),
                covered: false,
            }
        }
    }
}

/// A puzzle with no solution yet: `state` and nothing drawn, or, while the readings agree on
/// digits (a finger over a needed clue), [`LiveState::Partial`] and those digits.
fn unsolved_view(
    track: &mut Track,
    quad: &Quad,
    gray: &Mat,
    small: Option<&TrackFrame>,
    state: LiveState,
) -> (LiveState, Option<Arc<Known>>) {
    match track.agreed.clone() {
        Some(agreed) => (
            LiveState::Partial,
            held_to_print(track, quad, gray, small).then_some(agreed),
        ),
        None => (state, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::verdict::tests::{PUZZLE, reading_of};

    #[test]
    fn a_grid_is_whole_in_view_with_a_share_of_a_cell_to_spare() {
        // 36 px cells: half a cell is 18 px, more than 0.5% of the frame (3.2 px).
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let quad = |x: f64| Quad([[x, 80.0], [x + 324.0, 80.0], [x + 324.0, 404.0], [x, 404.0]]);
        assert!(!whole_in_view(&quad(4.0), &page));
        assert!(!whole_in_view(&quad(17.0), &page));
        assert!(whole_in_view(&quad(19.0), &page));
        assert!(!whole_in_view(&quad(640.0 - 1.0 - 324.0 - 17.0), &page));
        // Merely inside the frame, as a grid followed must be to be drawn while it moves.
        assert!(inside_frame(&quad(4.0), &page));
    }

    #[test]
    fn a_grid_found_a_column_off_is_found_again_where_it_is() {
        // A drawn grid 324 px square (36 px cells), tracked one column to the right of it, as
        // after a detection on a blurred frame.
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let off = Quad(right.0.map(|[x, y]| [x + 36.0, y]));
        let current = TrackFrame::new(&page).unwrap();
        let mut vision = Vision::new(DigitReader::builtin().unwrap());
        let found = found_at(off, false);
        vision.track = Track::start(&current, &found).unwrap();
        let tracked =
            |vision: &Vision| track::quad_of(&vision.track.as_ref().unwrap().image_from_grid);
        let mut times = VisionTimes::default();
        for _ in 1..SEARCH_AGAIN_EVERY {
            vision
                .search_again(&current, &mut FrameOutline::new(&page), &mut times)
                .unwrap();
        }
        assert!(
            tracked(&vision).max_corner_distance(&off) < 1.0,
            "searched before it was due"
        );
        vision
            .search_again(&current, &mut FrameOutline::new(&page), &mut times)
            .unwrap();
        let distance = tracked(&vision).max_corner_distance(&right);
        assert!(distance < 3.0, "still {distance:.1} px off");
        // Found again in the same place: the track is kept.
        for _ in 0..SEARCH_AGAIN_EVERY {
            vision
                .search_again(&current, &mut FrameOutline::new(&page), &mut times)
                .unwrap();
        }
        assert!(tracked(&vision).max_corner_distance(&right) < 3.0);
    }

    #[test]
    fn a_grid_found_again_more_clearly_in_another_shape_starts_over_and_a_moved_one_does_not() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // Found with its bottom-left corner a cell in (a thumb over the border).
        let mut cut = right;
        cut.0[3] = [186.0, 404.0];
        let first = Detection {
            quad: cut,
            score: 0.6,
            ink: Ink::Dark,
            smeared: false,
        };
        let track = Track::start(&current, &first).unwrap().unwrap();
        let again = |quad: Quad, score: f64| Detection {
            quad,
            score,
            ..first
        };
        let clearer = |track: &Track, found: Detection, tracked: &Quad| {
            clearer_in_another_shape(track, &found, tracked, &page).unwrap()
        };
        let cut_score = detect::grid_score(&page, &cut, Look::OneOfMany).unwrap();
        let right_score = detect::grid_score(&page, &right, Look::OneOfMany).unwrap();
        assert!(right_score >= cut_score + CLEARER_BY);
        assert!(clearer(&track, again(right, right_score), &cut));
        // Not clearer by enough: kept.
        assert!(!clearer(&track, again(right, 0.65), &cut));
        // The same shape moved (the page sliding on): kept, and followed.
        let moved = Quad(cut.0.map(|[x, y]| [x + 20.0, y + 5.0]));
        assert!(!clearer(&track, again(moved, 0.9), &cut));
        // A track found unclearly but right (its first reading's lines put it there) is not
        // given up for an outline cut short that scores better than it was found by, but no
        // better than its own shape on this frame.
        let found_right = Detection {
            quad: right,
            score: cut_score - CLEARER_BY,
            ..first
        };
        let right_track = Track::start(&current, &found_right).unwrap().unwrap();
        assert!(!clearer(&right_track, again(cut, cut_score), &right));
    }

    #[test]
    fn a_steadier_frame_is_read_from_its_own_outline_near_the_track_and_not_one_far_off() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // The track a hair off at one corner (0.3 cell, as the lines along a faded border put
        // it on a moving frame): the frame's outline is taken, named as the track's corners.
        let mut hair_off = right;
        hair_off.0[0] = [150.0, 91.0];
        let turned = Quad([hair_off.0[1], hair_off.0[2], hair_off.0[3], hair_off.0[0]]);
        let found = detect::find_grid(&page, Look::OneOfMany).unwrap();
        for track in [hair_off, turned] {
            let outline = outline_near(found, &track).expect("outline");
            assert!(
                outline.max_corner_distance(&right.turned_like(&track)) < 2.0,
                "{outline:?}"
            );
        }
        // A track a column off is another grid as far as this is concerned.
        let column_off = Quad(right.0.map(|[x, y]| [x + 36.0, y]));
        assert_eq!(outline_near(found, &column_off), None);
    }

    #[test]
    fn lines_that_hold_their_place_overrule_the_track_and_wandering_ones_do_not() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        // The track's outline has its top-left corner 12 px low (0.33 cell).
        let found = found_at(
            Quad([[150.0, 92.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]),
            false,
        );
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // Lines pulled beside a spot that drifts over the paper: a different place each time.
        for k in 0..2 * OVERRULE_AFTER {
            let pulled = Quad(right.0.map(|[x, y]| [x, y + 6.0 * (k % 3 + 1) as f64]));
            assert!(!track.lines_hold_their_place(&pulled), "reading {k}");
        }
        // The same place every time: taken on the OVERRULE_AFTER-th reading.
        let taken: Vec<bool> = (0..OVERRULE_AFTER)
            .map(|_| track.lines_hold_their_place(&right))
            .collect();
        assert_eq!(taken.iter().filter(|&&t| t).count(), 1);
        assert_eq!(taken.last(), Some(&true));
    }

    /// PUZZLE read with its lines followed to `quad`, `hidden` beside something over the grid.
    fn read_beside_a_finger(quad: Quad, hidden: usize, turned: bool) -> Recognition {
        let mut reading = reading_of(&PUZZLE.parse().unwrap(), 0.9);
        reading.0[hidden] = reading.0[hidden].hidden(0.3);
        Recognition {
            quad,
            reading,
            turned,
            on_lines: true,
            bend: None,
            lattice: None,
            turned_instead: None,
        }
    }

    #[test]
    fn a_doubtful_reading_of_the_grid_turned_names_the_track_as_read_and_leaves_it_in_place() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        // Tracked where the grid is; read turned a quarter, beside a finger, with the lines
        // pulled a third of a cell off at the top-left corner: doubtful.
        let tracked = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let found = found_at(tracked, false);
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        // Followed on the lines before (a grid just found takes lines near its outline).
        track.on_lines = true;
        let pulled = Quad([[150.0, 92.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let turned = Quad(std::array::from_fn(|i| pulled.0[(i + 1) % 4]));
        let recognition = read_beside_a_finger(turned, 40, true);
        let (agrees, doubtful) = track
            .take_lines(&page, &current, &tracked, &recognition)
            .unwrap();
        assert!(!agrees && doubtful);
        // Not moved onto the doubtful lines, but its corners named from the same one as the
        // reading's: the solution is drawn the way up the puzzle was read.
        let now = track::quad_of(&track.image_from_grid);
        let expected = Quad(std::array::from_fn(|i| tracked.0[(i + 1) % 4]));
        assert!(now.max_corner_distance(&expected) < 0.5, "track at {now:?}");
    }

    #[test]
    fn lines_that_move_a_drawn_grid_are_taken_but_drawn_only_once_the_next_reading_agrees() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        track.on_lines = true;
        track.confirmed = true;
        // Nothing over the grid; the lines followed 12 px (a third of a cell) off at one corner.
        let recognition = Recognition {
            quad: right,
            reading: reading_of(&PUZZLE.parse().unwrap(), 0.9),
            turned: false,
            on_lines: true,
            bend: None,
            lattice: None,
            turned_instead: None,
        };
        let pulled = Quad([[150.0, 92.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let off = Recognition {
            quad: pulled,
            ..recognition.clone()
        };
        let (agrees, doubtful) = track.take_lines(&page, &current, &right, &off).unwrap();
        assert!(!agrees && !doubtful);
        assert!(track::quad_of(&track.image_from_grid).max_corner_distance(&pulled) < 0.5);
        assert!(!track.confirmed, "drawn where one reading's lines moved it");
        // The next reading's lines lie where the grid is: they move it back, and are drawn
        // once a reading agrees with them.
        let (agrees, _) = track
            .take_lines(&page, &current, &pulled, &recognition)
            .unwrap();
        assert!(!agrees && !track.confirmed);
        let (agrees, _) = track
            .take_lines(&page, &current, &right, &recognition)
            .unwrap();
        assert!(agrees);
    }

    #[test]
    fn the_bend_of_a_clear_reading_travels_with_the_track_until_the_grid_is_read_turned() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // The paper bowed: its middle rows' lines 9 px (a quarter of a cell) to the right.
        let bend = bowed_by(&right, 0.25);
        assert!(bend.is_some());
        let clear = Recognition {
            quad: right,
            reading: reading_of(&PUZZLE.parse().unwrap(), 0.9),
            turned: false,
            on_lines: true,
            bend,
            lattice: None,
            turned_instead: None,
        };
        track.take_lines(&page, &current, &right, &clear).unwrap();
        assert_eq!(track.bend, bend);
        // A reading beside a finger, or smeared, bends where the paper may not: the bend stays.
        let mut covered = reading_of(&PUZZLE.parse().unwrap(), 0.9);
        covered.0[80] = covered.0[80].hidden(0.3);
        let beside_a_finger = Recognition {
            reading: covered,
            bend: None,
            ..clear.clone()
        };
        track
            .take_lines(&page, &current, &right, &beside_a_finger)
            .unwrap();
        assert_eq!(track.bend, bend);
        // Read turned, the grid is named from another corner: its bend would be turned too.
        let turned = Quad(std::array::from_fn(|i| right.0[(i + 1) % 4]));
        assert!(track.start_again_at(&current, &turned).unwrap());
        assert_eq!(track.bend, None);
    }

    #[test]
    fn a_reading_whose_cells_lie_off_the_drawn_ones_is_not_agreed_with_though_its_corners_are() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // Read beside a finger on paper bowed by 0.4 of a cell in its middle rows: the corners
        // lie where the track has them, the bend is not kept (lines beside a finger), and the
        // track, drawn by its corners, would put the middle cells 0.4 of a cell off.
        let far = Recognition {
            bend: bowed_by(&right, 0.4),
            ..read_beside_a_finger(right, 80, false)
        };
        assert!(far.bend.is_some());
        let (agrees, doubtful) = track.take_lines(&page, &current, &right, &far).unwrap();
        assert!(!agrees && !doubtful && !track.confirmed);
        assert_eq!(track.bend, None);
        // Bowed by a fifth of a cell, the cells lie near enough the drawn ones.
        track.confirmed = true;
        let near = Recognition {
            bend: bowed_by(&right, 0.2),
            ..far.clone()
        };
        assert!(near.bend.is_some());
        let (agrees, _) = track.take_lines(&page, &current, &right, &near).unwrap();
        assert!(agrees && track.confirmed);
    }

    #[test]
    fn a_smeared_reading_does_not_settle_cells_a_sharp_one_put_elsewhere() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // A sharp reading whose cells, bowed by 0.35 of a cell, lie off the drawn ones.
        let far = Recognition {
            bend: bowed_by(&right, 0.35),
            ..read_beside_a_finger(right, 80, false)
        };
        let (agrees, _) = track.take_lines(&page, &current, &right, &far).unwrap();
        assert!(!agrees);
        // Then the camera moves: the lines followed across the smear say nothing of the cells,
        // and the corners agreeing is not enough.
        let mut smeared = read_beside_a_finger(right, 80, false);
        for cell in &mut smeared.reading.0 {
            cell.smeared = true;
        }
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(!agrees);
        // A sharp reading whose cells lie where the track draws them settles it.
        let sharp = read_beside_a_finger(right, 80, false);
        let (agrees, _) = track.take_lines(&page, &current, &right, &sharp).unwrap();
        assert!(agrees);
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(agrees);
    }

    #[test]
    fn a_grid_never_on_its_lines_is_not_first_drawn_on_a_reading_across_a_smear() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // Where the outline search and the flow put it; read across a smear, the lines not
        // followed: cut at the track's own corners, the reading agrees with it by construction.
        let mut smeared = read_beside_a_finger(right, 80, false);
        smeared.on_lines = false;
        for cell in &mut smeared.reading.0 {
            cell.smeared = true;
        }
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(!agrees);
        // Drawn already, it stays drawn over such a reading.
        track.confirmed = true;
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(agrees);
        // Once placed on its lines, such a reading may start a drawing again.
        track.confirmed = false;
        let sharp = read_beside_a_finger(right, 80, false);
        track.take_lines(&page, &current, &right, &sharp).unwrap();
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(agrees);
    }

    #[test]
    fn beside_something_over_the_grid_lines_near_a_grid_just_found_are_taken_and_later_not() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // Outlined with its bottom-left corner 6 px (a sixth of a cell) out, by a thumb over the
        // border; read with a cell beside the thumb hidden and the lines where the grid is.
        let outlined = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [144.0, 404.0]]);
        let found = found_at(outlined, false);
        let recognition = read_beside_a_finger(right, 72, false);
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        let (agrees, doubtful) = track
            .take_lines(&page, &current, &outlined, &recognition)
            .unwrap();
        assert!(!agrees && !doubtful);
        let now = track::quad_of(&track.image_from_grid);
        assert!(now.max_corner_distance(&right) < 0.5, "track at {now:?}");
        // Once on the lines, lines as far off beside the thumb are doubtful.
        let pulled = Recognition {
            quad: outlined,
            ..recognition
        };
        let (agrees, doubtful) = track.take_lines(&page, &current, &right, &pulled).unwrap();
        assert!(!agrees && doubtful);
        assert!(track::quad_of(&track.image_from_grid).max_corner_distance(&right) < 0.5);
    }

    #[test]
    fn beside_something_over_the_grid_lines_on_the_border_overrule_a_track_cut_off_it() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // Outlined with its bottom-right corner 0.7 cell up (an outline cut along a thumb over
        // the bottom row), and already taken for on the lines; read beside the thumb with the
        // lines where the grid is. Without looking at the border this waited for 8 readings.
        let cut = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 379.0], [150.0, 404.0]]);
        let found = found_at(cut, false);
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        track.on_lines = true;
        let recognition = read_beside_a_finger(right, 76, false);
        let (agrees, doubtful) = track
            .take_lines(&page, &current, &cut, &recognition)
            .unwrap();
        assert!(!agrees && !doubtful);
        let now = track::quad_of(&track.image_from_grid);
        assert!(now.max_corner_distance(&right) < 0.5, "track at {now:?}");
        // On a blank frame the border tells nothing, and the lines are doubtful as before.
        let blank = Mat::new_rows_cols_with_default(
            480,
            640,
            opencv::core::CV_8UC1,
            opencv::core::Scalar::all(235.0),
        )
        .unwrap();
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        track.on_lines = true;
        let (agrees, doubtful) = track
            .take_lines(&blank, &current, &cut, &recognition)
            .unwrap();
        assert!(!agrees && doubtful);
    }

    #[test]
    fn a_grid_found_again_moved_is_taken_and_one_with_a_corner_cut_short_moves_with_the_other_three()
     {
        let grid = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let (turn, scale) = (0.05f64, 1.04);
        let moved = Quad(grid.0.map(|[x, y]| {
            let (x, y) = (x - 312.0, y - 242.0);
            [
                330.0 + scale * (x * turn.cos() - y * turn.sin()),
                230.0 + scale * (x * turn.sin() + y * turn.cos()),
            ]
        }));
        // Taken as found.
        assert_eq!(moved_like(&grid, &moved, 36.0), Some(moved));
        // Its top-left corner on the first inner column line (36 px cells): the grid moves with
        // the other three corners.
        let mut cut = moved;
        cut.0[0] = [moved.0[0][0] + 36.0, moved.0[0][1]];
        let taken = moved_like(&grid, &cut, 36.0).expect("moved with three corners");
        assert!(taken.max_corner_distance(&moved) < 0.5, "{taken:?}");
        // Every corner somewhere else: not taken.
        let scattered = Quad(std::array::from_fn(|i| {
            let [x, y] = moved.0[i];
            [
                x + [0.0, 40.0, -30.0, 20.0][i],
                y + [30.0, 0.0, 25.0, -40.0][i],
            ]
        }));
        assert_eq!(moved_like(&grid, &scattered, 36.0), None);
    }

    /// A drawn grid 324 px square (36 px cells) at (150, 80) in a 640 x 480 picture, the
    /// picture for tracking, the grid's corners, and a track of it just found (on a smeared
    /// frame or not).
    fn track_on_drawn_grid(smeared: bool) -> (Mat, TrackFrame, Quad, Track) {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        let quad = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let track = Track::start(&current, &found_at(quad, smeared))
            .unwrap()
            .unwrap();
        (page, current, quad, track)
    }

    /// The bend of paper whose grid, at `quad` (36 px cells), has its middle rows' lines bowed
    /// `cells` of a cell to the right.
    fn bowed_by(quad: &Quad, cells: f64) -> Option<Bend> {
        let mut bowed = crate::bend::Lattice::flat(quad).unwrap();
        for (r, row) in bowed.0.iter_mut().enumerate() {
            let v = r as f64 / 9.0;
            for p in row.iter_mut() {
                p[0] += 4.0 * cells * 36.0 * v * (1.0 - v);
            }
        }
        Bend::fit(&bowed, quad)
    }

    /// A dark grid found at `quad`, as clearly as a grid need be.
    fn found_at(quad: Quad, smeared: bool) -> Detection {
        Detection {
            quad,
            score: detect::MIN_GRID_SCORE,
            ink: Ink::Dark,
            smeared,
        }
    }

    #[test]
    fn an_anchor_set_while_the_grid_moved_is_set_again_once_it_moves_half_as_fast() {
        let (_, _, quad, mut track) = track_on_drawn_grid(true);
        // Found smeared: any steadier frame will do.
        track.motion = Some(Homography::translation(10.0, 0.0));
        assert!(steadier_than_anchor(&track, &quad));
        // Anchored while moving 4% of the side a frame: 3% is not steadier enough, 1.5% is.
        track.anchor_motion = 0.04;
        track.motion = Some(Homography::translation(0.03 * 324.0, 0.0));
        assert!(!steadier_than_anchor(&track, &quad));
        track.motion = Some(Homography::translation(0.015 * 324.0, 0.0));
        assert!(steadier_than_anchor(&track, &quad));
        // Anchored on a steady frame: never due on that account.
        track.anchor_motion = 0.01;
        track.motion = None;
        assert!(!steadier_than_anchor(&track, &quad));
    }

    #[test]
    fn a_fast_frame_on_which_flow_and_anchor_disagree_is_not_drawn_and_a_steady_one_is() {
        let (page, _, quad, mut track) = track_on_drawn_grid(false);
        track.confirmed = true;
        let mut drawn = |motion: f64, correction: f64| {
            track.motion = Some(Homography::translation(motion * 324.0, 0.0));
            track.correction = correction;
            held_to_print(&mut track, &quad, &page, None)
        };
        // Moving 7% of the side a frame: drawn while the anchor agrees with the flow, not
        // where it moved the grid 1.5% of the side.
        assert!(drawn(0.07, 0.003));
        assert!(!drawn(0.07, 0.015));
        // Steady, the same correction is the anchor taking out drift: drawn.
        assert!(drawn(0.01, 0.015));
        // Faster than the page can be drawn on at all: not drawn, agreeing or not.
        assert!(!drawn(0.13, 0.0));
    }

    #[test]
    fn a_puzzle_judged_without_a_solution_is_read_again_at_once_and_still_shows_its_verdict() {
        let (page, current, _, mut track) = track_on_drawn_grid(false);
        let mut vision = Vision::new(DigitReader::builtin().unwrap());
        // Judged ambiguous (a thumb over a clue it needs), confirmed, and just checked: a
        // solved puzzle would wait RECHECK_EVERY frames for its next reading.
        track.identity = Identity::Known(Arc::new(Known {
            id: 0,
            clues: Grid::EMPTY,
            solution: None,
            status: Status::Multiple,
        }));
        track.confirmed = true;
        vision.track = Some(track);
        let mut times = VisionTimes::default();
        vision
            .read(&current, &mut FrameOutline::new(&page), &mut times)
            .unwrap();
        assert!(times.read.is_some(), "not read again");
        let track = vision.track.as_mut().unwrap();
        assert!(matches!(track.identity, Identity::Reading(_)));
        assert_eq!(view_of(track, &page, None).state, LiveState::Multiple);
    }

    #[test]
    fn a_puzzle_cut_by_the_edge_gives_way_to_another_whole_in_view_and_a_whole_one_does_not() {
        // Another grid whole in view on the right; the puzzle followed at `tracked`.
        let page = detect::tests::drawn_grid(640, 480, 330, 100, 280);
        let current = TrackFrame::new(&page).unwrap();
        let other = Quad([
            [330.0, 100.0],
            [610.0, 100.0],
            [610.0, 380.0],
            [330.0, 380.0],
        ]);
        let followed_after = |tracked: Quad, frames: u32| {
            let mut vision = Vision::new(DigitReader::builtin().unwrap());
            let mut track = Track::start(&current, &found_at(tracked, false))
                .unwrap()
                .unwrap();
            track.identity = Identity::Known(Arc::new(Known {
                id: 0,
                clues: PUZZLE.parse().unwrap(),
                solution: None,
                status: Status::Solved,
            }));
            vision.track = Some(track);
            for _ in 0..frames {
                let mut outline = FrameOutline::new(&page);
                vision
                    .look_for_another_puzzle(&current, &mut outline, &mut VisionTimes::default())
                    .unwrap();
            }
            track::quad_of(&vision.track.unwrap().image_from_grid)
        };
        // Cut by the left edge: the other grid is followed from the ANOTHER_PUZZLE_EVERY-th
        // frame on.
        let cut = Quad([
            [-150.0, 90.0],
            [130.0, 90.0],
            [130.0, 370.0],
            [-150.0, 370.0],
        ]);
        let before = followed_after(cut, ANOTHER_PUZZLE_EVERY - 1);
        assert!(before.max_corner_distance(&cut) < 0.5, "left at {before:?}");
        let after = followed_after(cut, ANOTHER_PUZZLE_EVERY);
        assert!(
            after.max_corner_distance(&other) < 6.0,
            "followed {after:?}"
        );
        // Whole in view, it stays followed however long.
        let whole = Quad([[20.0, 90.0], [300.0, 90.0], [300.0, 370.0], [20.0, 370.0]]);
        let kept = followed_after(whole, 3 * ANOTHER_PUZZLE_EVERY);
        assert!(kept.max_corner_distance(&whole) < 0.5, "left at {kept:?}");
    }

    #[test]
    fn a_grid_beside_another_is_beside_it_and_one_a_column_off_a_box_of_it_or_small_is_not() {
        let grid = Quad([
            [100.0, 100.0],
            [370.0, 100.0],
            [370.0, 370.0],
            [100.0, 370.0],
        ]);
        assert!(beside(&grid.translated(290.0, 10.0), &grid));
        assert!(!beside(&grid.translated(30.0, 0.0), &grid));
        let top_left_box = Quad([
            [100.0, 100.0],
            [190.0, 100.0],
            [190.0, 190.0],
            [100.0, 190.0],
        ]);
        assert!(!beside(&top_left_box, &grid));
        // A third as large, well clear of it: a grid in the background.
        assert!(!beside(&top_left_box.translated(400.0, 0.0), &grid));
    }

    #[test]
    fn which_way_up_is_settled_by_a_sure_turned_reading_or_an_upright_one_not_smeared() {
        let quad = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let read = |sureness: f32, turned: bool, smeared: bool| {
            let mut reading = reading_of(&PUZZLE.parse().unwrap(), sureness);
            for cell in &mut reading.0 {
                cell.smeared = smeared;
            }
            settles_which_way_up(&Recognition {
                quad,
                reading,
                turned,
                on_lines: true,
                bend: None,
                lattice: None,
                turned_instead: None,
            })
        };
        assert!(read(0.5, false, false));
        assert!(
            !read(0.95, false, true),
            "settled upright on a smeared frame"
        );
        assert!(read(0.95, true, false));
        assert!(!read(0.5, true, false));
    }

    #[test]
    fn a_box_of_the_grid_is_not_taken_for_a_grid_elsewhere() {
        let grid = Quad([
            [100.0, 100.0],
            [400.0, 110.0],
            [410.0, 400.0],
            [95.0, 405.0],
        ]);
        let image_from_grid = Homography::from_quads(&Quad::UNIT, &grid).unwrap();
        let in_grid = |q: [[f64; 2]; 4]| Quad(q.map(|p| image_from_grid.apply(p)));
        let third = 1.0 / 3.0;
        // The middle-right box, its corners a little off (a blurred frame).
        let middle_right = in_grid([
            [2.0 * third + 0.01, third],
            [1.0, third - 0.01],
            [1.0 - 0.01, 2.0 * third],
            [2.0 * third, 2.0 * third + 0.01],
        ]);
        assert!(a_box_of(&image_from_grid, &middle_right));
        // The same box cut short on the right by the smear of a page sliding in sideways.
        let cut_short = in_grid([
            [0.686, 0.346],
            [0.955, 0.341],
            [0.952, 0.675],
            [0.662, 0.674],
        ]);
        assert!(a_box_of(&image_from_grid, &cut_short));
        assert!(a_box_of(
            &image_from_grid,
            &in_grid([[0.0, 0.0], [third, 0.0], [third, third], [0.0, third]])
        ));
        // The grid itself, the grid a column off, and a box-sized quad across two boxes: not.
        assert!(!a_box_of(&image_from_grid, &grid));
        let ninth = 1.0 / 9.0;
        assert!(!a_box_of(
            &image_from_grid,
            &in_grid([
                [ninth, 0.0],
                [1.0 + ninth, 0.0],
                [1.0 + ninth, 1.0],
                [ninth, 1.0]
            ])
        ));
        assert!(!a_box_of(
            &image_from_grid,
            &in_grid([
                [third / 2.0, 0.0],
                [third * 1.5, 0.0],
                [third * 1.5, third],
                [third / 2.0, third]
            ])
        ));
    }

    #[test]
    fn digits_agreed_on_stay_through_a_reading_that_agrees_on_nothing_and_go_with_another_puzzle() {
        let (page, _, _, mut track) = track_on_drawn_grid(false);
        let clues: Grid = PUZZLE.parse().unwrap();
        let mut seen = clues;
        seen.0[0] = 0; // under a thumb
        seen.0[1] = 0;
        let agreed = || Judged {
            clues: seen,
            solution: crate::solve::forced(&seen, 256),
            status: Status::Partial,
            corrections: Vec::new(),
            margin: None,
        };
        assert!(
            agreed()
                .solution
                .is_some_and(|g| g.filled() > seen.filled())
        );
        let reading = reading_of(&seen, 0.95);
        assert_eq!(track.agree(Some(agreed()), &reading, 7, false), 1);
        assert_eq!(view_of(&mut track, &page, None).state, LiveState::Partial);
        // The same digits again: no new puzzle for the display to render.
        assert_eq!(track.agree(Some(agreed()), &reading, 8, false), 0);
        // A blurred reading that agrees on nothing, with a clue in it read unsurely as another
        // digit: kept.
        let clue = (0..81).find(|&c| seen.0[c] != 0).unwrap();
        let mut misread = seen;
        misread.0[clue] = seen.0[clue] % 9 + 1;
        track.agree(None, &reading_of(&misread, 0.6), 9, false);
        assert_eq!(track.agreed.as_ref().map(|k| k.id), Some(7));
        // The same clue surely read so: the digits built on it go.
        track.agree(None, &reading_of(&misread, 0.95), 9, false);
        assert!(track.agreed.is_none());
        // And so do they when another puzzle is laid in its place.
        track.agree(Some(agreed()), &reading, 10, false);
        let other: Grid = crate::recognize::verdict::tests::SEVENTEEN.parse().unwrap();
        track.agree(None, &reading_of(&other, 0.95), 11, false);
        assert!(track.agreed.is_none());
        assert_eq!(view_of(&mut track, &page, None).state, LiveState::Reading);
    }
}
