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
//! same place is noticed. A grid printed in coloured ink, faint in gray, is searched for now
//! and then, read and checked against the print in the frame's darkest colour ([`crate::video::colour`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use opencv::core::Mat;

use crate::bend::Bend;
use crate::error::Result;
use crate::geometry::{Homography, Quad, distance};
use crate::grid::Grid;
use crate::raster::{gray_of, too_dark_to_read};
use crate::recognize::detect::{self, Detection, Ink, Look};
use crate::recognize::ink;
use crate::recognize::read::{DigitReader, GridReading};
use crate::recognize::verdict::{
    AsRead, Evidence, Judged, MAX_READING_FRAMES, Status, agreed_digits, judge_frames,
    judge_picture,
};
use crate::recognize::{Follow, Orientation, Recognition, RecognizeTimes, recognize};
use crate::solve::check_clues;
use crate::video::anchor::Alignment;
pub use crate::video::colour::Colours;
use crate::video::colour::{
    colour_search_due, search_in_colour, settle_coloured_ink, view_in_colour,
};
pub use crate::video::known::Known;
use crate::video::known::{contradicts, entries_seen_in, replaced, same_puzzle, still_shows};
use crate::video::track::{self, TrackFrame};
use crate::video::tracked::{
    DRAW_UNANCHORED, Identity, STEADY_FOR_CHECK, Track, inside_frame, moving, on_frame,
    steadier_than_anchor, view_of, whole_in_view,
};

/// A shown puzzle is read again every this many frames, to notice a replaced puzzle.
const RECHECK_EVERY: u32 = 15;
/// A solved grid's digits are compared with the anchor's on frames it moves at most this
/// share of its side (see [`Anchor::align`](crate::video::anchor::Anchor::align)): the hand's
/// wobble moved pages swapped in place 1.4-3.1% a frame, which the routine re-reading waits
/// out ([`STEADY_FOR_CHECK`]).
const STEADY_FOR_DIGITS: f64 = 0.05;
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

    pub(super) fn of(status: Status) -> LiveState {
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
    pub(super) fn add_detect(&mut self, spent: Duration) {
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

/// A track anchored while the grid moved is read again from a steadier frame's outline found
/// within this many cells of it (an outline found on a smeared frame lies up to a quarter cell
/// off), and one anchored on a smeared frame is anchored again on it.
const ANCHOR_AGAIN_CELLS: f64 = 0.5;

/// A solved grid the print check finds drawn off is read again, on every frame until it shows
/// on, from the frame's own outline found within this many cells of the track (a corner put
/// half a cell off by lines followed astray).
const OFF_PRINT_CELLS: f64 = 1.0;

/// The grid's outline found on this frame (`found`), named like the track's corners `quad`, if
/// it is sharp and lies within [`ANCHOR_AGAIN_CELLS`] of them.
///
/// Why: read from the track's own corners, the lines along a border that fades at a corner
/// (image23's newspaper border, light at the top left) go where those corners put them, so a
/// track anchored a hair off on a moving frame stayed so, "confirmed" by its own lines on every
/// reading (pan:image23 after coming back into view: 1.5-3% of the side for 19 s).
fn outline_near(found: Option<Detection>, quad: &Quad, cells: f64) -> Option<Quad> {
    let cell = quad.mean_side() / 9.0;
    found
        .filter(|d| !d.smeared)
        .map(|d| d.quad.turned_like(quad))
        .filter(|q| q.max_corner_distance(quad) <= cells * cell)
}

/// The outline search ([`detect::find_grid`]) on one frame, run at most once however many
/// steps ask for it: following a grid just found, searching again for one being read and
/// reading from a steadier frame's outline can all want it on the same frame.
struct FrameOutline<'a> {
    gray: &'a Mat,
    /// The one ink looked for, if not both (see [`Vision::looking_beside`]).
    ink: Option<Ink>,
    found: Option<Option<Detection>>,
}

impl<'a> FrameOutline<'a> {
    fn new(gray: &'a Mat) -> FrameOutline<'a> {
        FrameOutline {
            gray,
            ink: None,
            found: None,
        }
    }

    /// The same, looking only for a grid printed in `ink` when given.
    fn in_ink(self, ink: Option<Ink>) -> FrameOutline<'a> {
        FrameOutline { ink, ..self }
    }

    /// The grid the search finds on the frame, searched on the first asking.
    fn found(&mut self, times: &mut VisionTimes) -> Result<Option<Detection>> {
        if let Some(found) = self.found {
            return Ok(found);
        }
        let start = Instant::now();
        let found = match self.ink {
            None => detect::find_grid(self.gray, Look::OneOfMany)?,
            Some(ink) => detect::find_large_grid(self.gray, ink, Look::OneOfMany)?,
        };
        times.add_detect(start.elapsed());
        self.found = Some(found);
        Ok(found)
    }

    /// Whether a grid `found` is whole in view (see [`whole_in_view`]), its outline not cut
    /// by the frame's edge (see [`detect::outline_cut_by_the_edge`]: its corner there was
    /// refined onto the border that shows, half a cell from where it is printed, and the
    /// border showed along most of that side).
    fn whole(&self, found: &Detection) -> bool {
        !found.cut && whole_in_view(&found.quad, self.gray, found.ink)
    }
}

/// Every how many frames searched in vain the finer search ([`detect::find_small_grid`]) looks
/// for a puzzle held far from the camera.
const FINE_SEARCH_EVERY: u32 = 4;
/// The ink the finer search looks in after `searched_in_vain` frames searched in vain: dark
/// first (print, and an app in a light theme), then light (an app in a dark theme), in turn.
/// Both on one frame took it 25-30 ms at 1080p, the dearest frame of a live search.
fn fine_search_ink(searched_in_vain: u32) -> Ink {
    if (searched_in_vain / FINE_SEARCH_EVERY) % 2 == 1 {
        Ink::Dark
    } else {
        Ink::Light
    }
}

/// Every how many frames searched in vain the search for a grid with no border line
/// ([`detect::find_borderless_grid_in_frame`]) looks, in each of its two looks.
const BORDERLESS_SEARCH_EVERY: u32 = 16;

/// Which look of the search for a grid with no border line runs after `searched_in_vain`
/// frames searched in vain, if any: its first two frames after the finer search (see
/// [`FINE_SEARCH_EVERY`]), its second half way round.
fn borderless_look(searched_in_vain: u32) -> Option<usize> {
    match searched_in_vain % BORDERLESS_SEARCH_EVERY {
        2 => Some(0),
        10 => Some(1),
        _ => None,
    }
}

/// A grid found again within this many cells of where the track slipped off it is where it
/// was (a slip is a cell).
const SAME_PLACE_CELLS: f64 = 0.25;

/// See [`Vision::beside_another`]: clean printed grids score 0.8-0.9, blurred ones less.
const BESIDE_LEAST_SCORE: f64 = 0.5;

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
    /// The one ink searched for, set on a stage looking beside a puzzle followed (see
    /// [`Vision::looking_beside`]); None: both.
    searched_ink: Option<Ink>,
    /// Grids other stages follow (see [`Vision::leave_alone`]).
    left_alone: Vec<Quad>,
    /// Where the track last was, and how its paper bent, when the anchor said it slipped off
    /// the printed grid: for the grid found again at once (see [`Vision::search`]).
    slipped: Option<(Quad, Bend)>,
    /// Frames processed so far: names each frame in the logs.
    frames: u64,
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
            searched_ink: None,
            left_alone: Vec::new(),
            slipped: None,
            frames: 0,
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

    /// Makes a stage looking for another puzzle (see [`Vision::beside_another`]) search only
    /// for a grid printed in `ink`, as the puzzle followed beside it is: a second puzzle on a
    /// page is printed as the first, and a search in one ink costs half (the other-puzzle
    /// search was a tenth of a 1080p replay's time).
    pub fn looking_beside(&mut self, ink: Ink) {
        self.searched_ink = Some(ink);
    }

    /// The ink the grid followed is printed in; None when none is followed.
    pub fn followed_ink(&self) -> Option<Ink> {
        self.track.as_ref().map(|t| t.ink)
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

    /// After a frame that failed half way: lets go of the grid, and of the frame before (which
    /// the track's state may no longer match); the puzzles learnt stay.
    pub fn start_over(&mut self) {
        self.track = None;
        self.previous = None;
        self.slipped = None;
    }

    /// Finds or follows the puzzle in a BGR frame.
    pub fn process(&mut self, frame: &Mat) -> Result<FrameView> {
        let start = Instant::now();
        let mut view = self.process_in(&gray_of(frame)?, Colours::of_bgr(frame))?;
        view.times.total = start.elapsed();
        Ok(view)
    }

    /// Finds or follows the puzzle in a frame in gray (a grid printed in coloured ink is read
    /// in gray then).
    pub fn process_gray(&mut self, gray: &Mat) -> Result<FrameView> {
        self.process_in(gray, Colours::none())
    }

    /// Finds or follows the puzzle in a frame in `gray`, whose `colours` a grid printed in
    /// coloured ink is read in.
    pub fn process_in(&mut self, gray: &Mat, mut colours: Colours) -> Result<FrameView> {
        let start = Instant::now();
        // Every message about this frame says which it is (counted from 0 as this stage saw
        // them: in a replay, the video's own frame number).
        let _frame = tracing::debug_span!("frame", n = self.frames).entered();
        self.frames += 1;
        let mut times = VisionTimes::default();
        let current = TrackFrame::new(gray)?;
        let mut outline = FrameOutline::new(gray).in_ink(self.searched_ink);
        self.follow(&current, &mut outline, &mut times)?;
        match self.track.as_ref().map(|t| &t.identity) {
            None => self.search(&current, &mut outline, &mut colours, &mut times)?,
            Some(Identity::Reading(_)) => self.search_again(&current, &mut outline, &mut times)?,
            Some(Identity::Known(_)) => {
                self.look_for_another_puzzle(&current, &mut outline, &mut times)?
            }
        }
        if self.track.is_some() {
            self.read(&current, &mut outline, &mut colours, &mut times)?;
        }
        self.previous = Some(current);
        // Part of tracking: whether the grid drawn where the track has it lies on the print.
        let checked = Instant::now();
        let looked_at = self.previous.as_ref();
        let puzzle = match self.track.as_mut() {
            Some(track) if track.coloured_ink == Some(true) => {
                Some(view_in_colour(track, gray, &mut colours)?)
            }
            Some(track) => Some(view_of(track, gray, looked_at)),
            None => None,
        };
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

    /// Follows the tracked grid from the last frame to `current` by the flow, aligned to the
    /// anchor taken on the printed grid; a grid just found is looked for again first (see
    /// [`second_look`]). The track is let go when the grid is lost or slipped off the print.
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
            match second_look(track, outline, times)? {
                SecondLook::Clearer(found) => {
                    self.track = Track::start(current, &found)?;
                    return Ok(());
                }
                SecondLook::Moved => return Ok(()),
                SecondLook::Nothing => {}
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
        // A solved grid's digits are compared with the anchor's while it is steady: only a
        // routine re-reading would otherwise see another puzzle of the same pattern laid there.
        let compare_digits = track.confirmed
            && matches!(&track.identity, Identity::Known(k) if k.solution.is_some())
            && moving(track, &track::quad_of(&track.image_from_grid)) <= STEADY_FOR_DIGITS;
        let alignment = match &track.anchor {
            Some(anchor) => anchor.align(current, &tracked.image_from_grid, compare_digits)?,
            None => Alignment::Unsure,
        };
        times.track = Some(start.elapsed());
        if matches!(alignment, Alignment::Replaced) {
            // Nothing of the grid read is carried over: not its bend, nor its solution.
            tracing::debug!("another page lies where the grid was; searching again");
            self.track = None;
            return Ok(());
        }
        let aligned = aligned(track, alignment, tracked.image_from_grid);
        let jumped = track.motion.is_some() && aligned.is_some_and(|h| jumped(&predicted, &h));
        let Some(image_from_grid) = aligned.filter(|_| !jumped) else {
            tracing::debug!(
                jumped,
                "the track slipped off the printed grid; searching again"
            );
            let quad = track::quad_of(&track.image_from_grid);
            self.slipped = track.bend.map(|bend| (quad, bend));
            self.track = None;
            return Ok(());
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
        colours: &mut Colours,
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
            // first at 1080p: not every frame, and in one ink at a time.
            let start = Instant::now();
            let ink = fine_search_ink(self.searched_in_vain);
            found = detect::find_small_grid_in(outline.gray, ink, Look::OneOfMany)?;
            times.add_detect(start.elapsed());
        }
        if found.is_none()
            && self.searches_finely
            && let Some(look) = borderless_look(self.searched_in_vain)
        {
            // An app's grid with no border line on a phone or a monitor filmed: its search
            // costs several frames' detection, so it runs now and then, a look at a time.
            let start = Instant::now();
            found = detect::find_borderless_grid_in_frame(outline.gray, look)?;
            times.add_detect(start.elapsed());
        }
        if found.is_none() && self.searches_finely && colour_search_due(self.searched_in_vain) {
            found = search_in_colour(colours, outline.gray, times)?;
        }
        let found = found.filter(|d| outline.whole(d) && d.score >= self.least_score);
        if found.is_some() {
            self.searched_in_vain = 0;
        }
        self.track = match found {
            Some(detection) => Track::start(current, &detection)?,
            None => None,
        };
        // Found again where the track was when the anchor said it slipped, named from the
        // same corner: the slip was the anchor's false alarm (a page curled into a gutter,
        // its cells narrowing there, matched its reference better a cell over), and the paper
        // still bends as it did. Without its bend, and with every reading taking the cells by
        // the gutter for covered (so taking no bend), the grid was drawn by its corners 0.35 of
        // a cell off.
        let slipped = self.slipped.take();
        if let Some(track) = self.track.as_mut() {
            let found = track::quad_of(&track.image_from_grid);
            if let Some(bend) = bend_over_a_slip(&found, slipped) {
                tracing::debug!("found again where it slipped: its bend is kept");
                track.bend = Some(bend);
            }
        }
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
        let found = outline.found(times)?.filter(|d| outline.whole(d));
        let tracked = track::quad_of(&track.image_from_grid);
        let Some(found) = found.filter(|d| {
            let cell = tracked.mean_side() / 9.0;
            d.quad.turned_like(&tracked).max_corner_distance(&tracked) > ELSEWHERE_CELLS * cell
                && !part_of(&track.image_from_grid, &d.quad)
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
            outline.whole(d) && beside(&d.quad, &tracked) && !followed_elsewhere(&d.quad)
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
        colours: &mut Colours,
        times: &mut VisionTimes,
    ) -> Result<()> {
        let Some(track) = self.track.as_mut() else {
            return Ok(());
        };
        let quad = track::quad_of(&track.image_from_grid);
        if !due_for_reading(track, &quad, frame_outline.gray) {
            return Ok(());
        }
        if too_dark_to_read(frame_outline.gray)? {
            tracing::trace!("too dark to read");
            return Ok(());
        }
        let orientation = if track.oriented {
            Orientation::Known
        } else {
            Orientation::Unknown
        };
        let outline = outline_to_read_from(track, &quad, frame_outline, times)?;
        let mut steps = RecognizeTimes::default();
        let mut negative = Mat::default();
        settle_coloured_ink(track, frame_outline.gray, colours)?;
        let shown = colours.shown_for(track, frame_outline.gray)?;
        let gray = track.ink.as_dark(shown, &mut negative)?;
        let mut recognition = recognize(
            &mut self.reader,
            gray,
            outline.as_ref().unwrap_or(&quad),
            track.edge,
            Follow::Once,
            orientation,
            &mut steps,
        )?;
        times.read = Some(steps.rectify + steps.read);
        let way_up = which_way_up(track, &quad, &mut recognition);
        if matches!(way_up, WayUp::NotTaken) {
            return Ok(());
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
        // A smeared frame whose lines could not be followed is cut by the track's corners
        // alone: on a page bowed 0.45 of a cell, the cells near the bow were cut across the
        // printed lines and their clues read surely as blank, the reading was taken for another
        // puzzle, and the overlay went until the grid was read afresh (`cargo bench --bench
        // curved -- --bows 0.05`, noise seeds 1-6: 1495 -> 1649 frames drawn).
        let read_at = recognition.quad;
        let seen = Seen {
            cut_blind: !recognition.on_lines && recognition.reading.smeared(),
            reading: recognition.reading,
            agrees,
            doubtful,
            on_lines: recognition.on_lines,
            turned: recognition.turned,
        };
        let after = match track.identity {
            Identity::Known(_) => reread_known(track, &mut self.known, &seen),
            Identity::Reading(_) => {
                let start = Instant::now();
                let ink = track.ink;
                let apart = |reading: &GridReading| apart_by_ink(colours, &read_at, ink, reading);
                let after = take_new_reading(
                    track,
                    &mut self.known,
                    &mut self.next_id,
                    &seen,
                    way_up,
                    &apart,
                );
                if after == AfterReading::Judged {
                    times.solve = Some(start.elapsed());
                }
                after
            }
        };
        if after == AfterReading::LetGo {
            self.track = None;
        }
        Ok(())
    }
}

/// One reading of a tracked grid, and how it sits with the track.
struct Seen {
    reading: GridReading,
    /// Its lines agree with the track (see [`Track::take_lines`]).
    agrees: bool,
    /// Its lines are doubtful (something over the grid, see [`Track::take_lines`]).
    doubtful: bool,
    /// Read where the printed lines were followed to cross, at some corners.
    on_lines: bool,
    /// Read turned from the track's corners.
    turned: bool,
    /// Cut by the track's corners alone on a smeared frame (its lines not followed).
    cut_blind: bool,
}

/// What a reading leaves of the track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterReading {
    /// The track goes on.
    Kept,
    /// The track goes on, its puzzle just judged (the time spent judging it is counted).
    Judged,
    /// The track is let go: another puzzle is in view, or the readings never add up.
    LetGo,
}

/// Whether the tracked grid at `quad` is read on this frame (`gray`), counting the frames
/// since a known puzzle's last reading.
fn due_for_reading(track: &mut Track, quad: &Quad, gray: &Mat) -> bool {
    if let Identity::Known(known) = &track.identity {
        track.since_check += 1;
        // A confirming reading is taken at once, and so is one of a puzzle judged without a
        // solution (it is provisional: a thumb that hid a clue may have let go) and one that
        // sets the anchor again on a steadier frame than it was set on, and one of a grid
        // the print check found off (read from the frame's outline, see
        // `outline_to_read_from`); a routine one waits for a steady grid.
        let due = !track.confirmed
            || known.solution.is_none()
            || track.print_check.found_off()
            || steadier_than_anchor(track, quad)
            || (track.since_check >= RECHECK_EVERY && moving(track, quad) <= STEADY_FOR_CHECK);
        if !due {
            return false;
        }
    }
    // Cells cut off by the frame's edge would be read as empty; and a grid not known yet
    // may have been outlined where the frame's edge cuts it. A known one not drawn until a
    // reading confirms its track is read with its corners anywhere on the frame: a few pixels
    // of its border beyond the edge cut no digit (a page held close, its corner 2-5 px from
    // the edge for 20 frames after it was solved, waited that long to be drawn). Not one
    // drawn already: such a reading, its grid not all in view, let the anchor go, and the
    // overlay with it (a page 2-6 px beyond the edge, 70 frames withheld).
    match track.identity {
        Identity::Known(_) if !track.confirmed => on_frame(quad, gray),
        Identity::Known(_) => inside_frame(quad, gray),
        Identity::Reading(_) => whole_in_view(quad, gray, track.ink),
    }
}

/// The frame's own outline of the grid tracked at `quad`, when the grid is to be read from it
/// rather than from the track's corners.
///
/// A track anchored while the grid moved (or smeared) is read, once steadier, from the
/// frame's own outline, as a photo is; and so is a solved one the print check found off,
/// whose lines, followed from its own corners, would only put it back where it is: on
/// `01_20` bowed half a cell, one reading's lines put a corner half a cell in along a
/// shadowed border, the next ones agreed from there, and the grid, withheld, was never
/// drawn again (`cargo bench --bench curved -- --bowed 0.5`, noise 3: 2 -> 163 frames).
fn outline_to_read_from(
    track: &Track,
    quad: &Quad,
    frame_outline: &mut FrameOutline,
    times: &mut VisionTimes,
) -> Result<Option<Quad>> {
    let near = if track.anchor_motion.is_infinite() || steadier_than_anchor(track, quad) {
        ANCHOR_AGAIN_CELLS
    } else if matches!(track.identity, Identity::Known(_)) && track.print_check.found_off() {
        OFF_PRINT_CELLS
    } else {
        return Ok(None);
    };
    let found = frame_outline.found(times)?;
    Ok(outline_near(
        found.filter(|d| frame_outline.whole(d)),
        quad,
        near,
    ))
}

/// Which way up a reading of a grid not yet read as a puzzle is taken.
enum WayUp {
    /// As read: added to the readings so far.
    AsRead,
    /// Turned: the readings so far, turned, with this one (see [`Track::turned_taken`]).
    Turned(Box<Evidence>),
    /// Not at all: it reads more plausibly turned, but not surely.
    NotTaken,
}

/// Which way up `recognition` of the grid tracked at `quad` is taken (a known puzzle's is
/// settled), taking its turned reading where it offers one that the readings turned alike
/// add up with.
///
/// A blurred frame (the page still sliding in) can read more plausibly turned than the
/// right way up, and the readings of a grid named turned never add up (handheld:01_08
/// was read so for 6 frames): a grid not yet read as a puzzle is turned by a sure
/// reading, as a page held sideways gives on a sharp frame, or by readings turned alike
/// that add up to a puzzle. A smeared frame's turned reading only so, and meanwhile its
/// upright one counts as any other: a page sideways sliding in was read only once it
/// stopped, 11 frames after the same page upright.
fn which_way_up(track: &mut Track, quad: &Quad, recognition: &mut Recognition) -> WayUp {
    if matches!(track.identity, Identity::Known(_)) {
        return WayUp::AsRead;
    }
    let way_up = if let Some(turned) = recognition.turned_instead.take() {
        match track.turned_taken(quad, &turned, false) {
            Some(readings) => {
                tracing::debug!("readings turned add up to a puzzle: it is turned");
                *recognition = *turned;
                WayUp::Turned(readings)
            }
            None => WayUp::AsRead,
        }
    } else if recognition.turned {
        match track.turned_taken(quad, recognition, true) {
            Some(readings) => WayUp::Turned(readings),
            None => {
                tracing::debug!("read more plausibly turned, but not surely: not taken");
                return WayUp::NotTaken;
            }
        }
    } else {
        WayUp::AsRead
    };
    track.oriented |= matches!(way_up, WayUp::Turned(_));
    way_up
}

/// Takes a reading of a puzzle the track knows already: it confirms the track, notes the
/// entries written in, or says the puzzle was misread (withdrawn from `known_puzzles` on a
/// second such reading) or replaced.
fn reread_known(
    track: &mut Track,
    known_puzzles: &mut Vec<Arc<Known>>,
    seen: &Seen,
) -> AfterReading {
    let Identity::Known(known) = &track.identity else {
        return AfterReading::Kept;
    };
    let known = known.clone();
    let reading = &seen.reading;
    track.since_check = 0;
    // A confirming reading must have its lines followed (a reading cut by the
    // outline's corners puts the grid nowhere new) and show the puzzle: glare over
    // image42 broke its outline, the grid was found again 0.9 cell off, and read
    // there it confirmed itself.
    let shows = still_shows(&known, reading);
    let contradicted =
        known.solution.is_some() && seen.agrees && seen.on_lines && contradicts(&known, reading);
    track.confirmed |= seen.agrees && seen.on_lines && !seen.turned && shows && !contradicted;
    if !seen.doubtful && shows {
        let before = Some((track.entries, track.wrong));
        (track.entries, track.wrong) = entries_seen_in(reading, &known, before);
    }
    if known.solution.is_none() {
        // Unsolved: perhaps misread; read it again rather than hold on to that,
        // still saying what it was judged until a new verdict.
        let judged = LiveState::of(known.status);
        track.read_again(reading, Some(judged));
    } else if !seen.cut_blind && replaced(&known, reading) {
        // Start afresh: the new puzzle's grid may not line up with the old one's.
        tracing::debug!(id = known.id, "a different puzzle is in view");
        return AfterReading::LetGo;
    } else if contradicted && !track.doubted {
        // Read where the grid is, a printed clue surely shows another digit: the
        // puzzle may have been misread, or this one frame may be. Held back and read
        // again at once: a handwritten 7 taken as printed read once as a 1 (p 0.91)
        // on a frame of a heavily compressed video, and the right solution went for
        // 56 frames while the grid was read afresh at a steep angle.
        tracing::debug!(
            id = known.id,
            "a clue surely reads as another digit: held back"
        );
        track.doubted = true;
        track.confirmed = false;
    } else if contradicted {
        // A second reading says so: the puzzle was misread. Withdrawn and read
        // again, and not recognised again.
        tracing::debug!(
            id = known.id,
            "a clue surely reads as another digit again: reading again"
        );
        known_puzzles.retain(|k| k.id != known.id);
        track.read_again(reading, None);
    }
    AfterReading::Kept
}

/// Takes a reading of a grid not yet read as a puzzle: one of `known_puzzles` seen again, or
/// added to the readings so far (which `way_up` may turn) and judged; a puzzle judged is
/// numbered from `next_id`, and kept in `known_puzzles` when solved.
fn take_new_reading(
    track: &mut Track,
    known_puzzles: &mut Vec<Arc<Known>>,
    next_id: &mut u64,
    seen: &Seen,
    way_up: WayUp,
    apart: &dyn Fn(&GridReading) -> Option<(GridReading, Judged)>,
) -> AfterReading {
    let mut reading = &seen.reading;
    if let Some(known) = known_puzzles.iter().find(|k| same_puzzle(k, reading)) {
        tracing::debug!(id = known.id, "puzzle seen before");
        (track.entries, track.wrong) = entries_seen_in(reading, known, None);
        track.identity = Identity::Known(known.clone());
        // One reading's corners: drawn once the next reading agrees.
        track.confirmed = false;
        return AfterReading::Kept;
    }
    let Identity::Reading(evidence) = &mut track.identity else {
        return AfterReading::Kept;
    };
    if evidence.frames() >= GIVE_UP_READING && track.agreed.is_none() {
        // Readings that never add up to a puzzle: the grid may have been found a
        // cell off (a fully filled grid found while partly out of view looks like
        // a grid shifted by a column). Find it afresh. Not while they agree on
        // digits (a finger over a needed clue): a grid a column off never does.
        tracing::debug!(
            frames = evidence.frames(),
            "no puzzle in the readings; searching again"
        );
        return AfterReading::LetGo;
    }
    match way_up {
        // The readings so far were of the grid another way up.
        WayUp::Turned(turned) => *evidence = turned,
        _ => evidence.add(reading),
    }
    let mut judged = judge_frames(evidence);
    let told;
    // As a photo of this frame would be: an app's game with a wrong entry typed in reads as
    // clues that break the rules (or that no solution fits) until its digits are told apart by
    // their inks. Looked at only then: it warps the frame and groups its digits' colours.
    let unsolved = match &judged {
        Some(j) => j.solution.is_none(),
        None => check_clues(&reading.all_printed().printed()).is_err(),
    };
    if unsolved {
        match apart(reading) {
            Some((apart_reading, apart_judged))
                if track.apart_solution.is_some()
                    && track.apart_solution == apart_judged.solution =>
            {
                tracing::debug!(
                    givens = apart_judged.clues.filled(),
                    "solved with the digits of other inks as entries"
                );
                told = apart_reading;
                reading = &told;
                judged = Some(apart_judged);
            }
            Some((_, apart_judged)) => track.apart_solution = apart_judged.solution,
            None => track.apart_solution = None,
        }
    }
    match &judged {
        Some(j) if j.solution.is_some() => track.agreed = None,
        // Judged without a solution: what every solution agrees on still holds.
        Some(_) => {}
        None => {
            let agreed = agreed_digits(evidence);
            let unsettled = seen.doubtful || !seen.agrees;
            *next_id += track.agree(agreed, reading, *next_id, unsettled);
        }
    }
    let Some(judged) = judged else {
        return AfterReading::Kept;
    };
    let known = Arc::new(Known::new(*next_id, judged));
    *next_id += 1;
    tracing::debug!(id = known.id, status = ?known.status, clues = %known.clues, "puzzle read");
    if known.solution.is_some() {
        known_puzzles.push(known.clone());
    }
    (track.entries, track.wrong) = entries_seen_in(reading, &known, None);
    track.identity = Identity::Known(known);
    track.since_check = 0;
    // Drawn at once where this reading's lines agree with the track; where
    // they moved it, once the next reading's agree. Lines followed from an
    // outline a cell off at a corner (its border washed out, or hidden by a
    // finger) come back only part of the way on each reading
    // (thumb:image13, NOISE_SEED=28: a corner moved 0.15 cell a reading, and
    // the grid was drawn 9% of its side off for 15 frames).
    track.confirmed = !seen.doubtful && seen.agrees;
    AfterReading::Judged
}

/// An unsolved puzzle's `reading`, read at `quad` (in the puzzle's orientation), told apart by
/// its digits' inks in the frame's `colours` as a photo of the frame is ([`ink::told_apart`]);
/// None for a frame in gray, or when they do not tell it apart.
fn apart_by_ink(
    colours: &Colours,
    quad: &Quad,
    ink: Ink,
    reading: &GridReading,
) -> Option<(GridReading, Judged)> {
    let judge = |r: &GridReading| judge_picture(r, AsRead::Stands);
    let told = colours.bgr().and_then(|bgr| match bgr {
        Some(bgr) => ink::told_apart(&bgr, quad, ink, reading, judge),
        None => Ok(None),
    });
    told.unwrap_or_else(|err| {
        tracing::debug!(%err, "the digits' inks not measured");
        None
    })
}

/// What a second look at a grid just found (its motion not known yet) found.
enum SecondLook {
    /// The grid, more clearly in another shape: to be followed from there.
    Clearer(Detection),
    /// The grid, moved: the track moved with it, its motion taken from the two detections.
    Moved,
    /// Nothing to go by: the grid is followed by the flow.
    Nothing,
}

/// Looks for a grid just found (`track`, its motion not known yet) again on this frame: how fast
/// the grid moves is not known yet, and flow on a repeating grid can't tell a fast move from
/// a slow one to the neighbouring cell, so the motion is taken from two detections.
fn second_look(
    track: &mut Track,
    outline: &mut FrameOutline,
    times: &mut VisionTimes,
) -> Result<SecondLook> {
    let found = outline.found(times)?.filter(|d| outline.whole(d));
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
        return Ok(SecondLook::Clearer(found));
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
        return Ok(SecondLook::Moved);
    }
    Ok(SecondLook::Nothing)
}

/// How far (share of the grid's side) the grid followed may lie from where the last frame's
/// motion, carried on, put it: half a cell. A grid repeats, and the flow can follow it a cell
/// over when the picture changes under it more than the paper moves (a screen filmed, its
/// backlight's flicker rolling bands down the frame: tracked a row up, the anchor's ink
/// unsure with the bands over the cells, drawn there); a hand's moves speed up and slow down
/// over several frames (7 of 14,152 tracked frames of the simulated hand-held camera jump
/// more).
const MOST_JUMP: f64 = 0.06;

/// Whether the grid at `image_from_grid` lies more than [`MOST_JUMP`] from where `predicted`
/// put it.
fn jumped(predicted: &Homography, image_from_grid: &Homography) -> bool {
    let (expected, found) = (track::quad_of(predicted), track::quad_of(image_from_grid));
    found.max_corner_distance(&expected) / found.mean_side() > MOST_JUMP
}

/// Where the grid the flow followed to `tracked` is, once `alignment` to the anchor says how
/// far that is from the printed grid (noted in `track`); None when the track slipped off it.
fn aligned(track: &mut Track, alignment: Alignment, tracked: Homography) -> Option<Homography> {
    match alignment {
        Alignment::Anchored(a) => {
            tracing::trace!(inliers = a.inliers, "aligned to the anchor");
            if a.digits_unlike {
                // Another puzzle of the same pattern laid where the grid was: every cell's
                // ink as before, only the digits differ (compared only on a confirmed track).
                // Held back, and read again at once.
                tracing::debug!("the digits are not the anchor's: held back, read again");
                track.confirmed = false;
            }
            track.unanchored_for = 0;
            track.covered_now = a.under;
            let under = track.under_something(&a.over);
            track.print_check.covered_now(&under);
            let (was, aligned) = (track::quad_of(&tracked), track::quad_of(&a.image_from_grid));
            track.correction = aligned.max_corner_distance(&was) / aligned.mean_side();
            Some(a.image_from_grid)
        }
        Alignment::Unsure => {
            track.unanchored_for += 1;
            track.correction = 0.0;
            Some(tracked)
        }
        Alignment::Slipped | Alignment::Replaced => None,
    }
}

/// The bend of a track that `slipped` (where it was, how its paper bent) for the grid `found`
/// again at once, when that is where the track was, named from the same corner.
fn bend_over_a_slip(found: &Quad, slipped: Option<(Quad, Bend)>) -> Option<Bend> {
    let (quad, bend) = slipped?;
    let same_place = found.max_corner_distance(&quad) <= SAME_PLACE_CELLS * quad.mean_side() / 9.0;
    (found.turned_like(&quad) == *found && same_place).then_some(bend)
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
/// outside it for the quad to be part of it: a box found on a frame smeared sideways can be cut
/// short or pushed out by 0.05 of the grid's side (`handheld:01_01`, read as the grid for three
/// frames), while the grid outlined a column off lies a ninth (0.11) out.
const INSIDE_BY: f64 = 0.08;

/// A quad inside the tracked grid covering at most this share of it is part of it: a box is a
/// ninth, a blob of blurred digits two boxes across a sixth; the grid outlined a column or a
/// row off (first found on a blurred frame) covers 8/9 of it.
const PART_AREA_MOST: f64 = 0.5;

/// Whether `quad` outlines part of the grid at `image_from_grid`: every corner inside it
/// (within [`INSIDE_BY`]) and at most [`PART_AREA_MOST`] of its area. No puzzle is printed
/// inside another, but on a frame blurred by the camera's motion part of one can frame "more
/// clearly" than the whole grid: one 3x3 box of it (the search again took `handheld:01_01`'s
/// middle-right box for the grid, and read it for 4 frames), or the outline of handwritten
/// digits run together across the bottom rows (`handheld:01_04`, at 0.35 against the whole
/// grid's 0.17, which the track had found the frame before; read for 3 frames).
fn part_of(image_from_grid: &Homography, quad: &Quad) -> bool {
    let Some(grid_from_image) = image_from_grid.inverse() else {
        return false;
    };
    let in_grid = Quad(quad.0.map(|c| grid_from_image.apply(c)));
    let inside = -INSIDE_BY..=1.0 + INSIDE_BY;
    in_grid
        .0
        .iter()
        .all(|c| inside.contains(&c[0]) && inside.contains(&c[1]))
        && in_grid.area() <= PART_AREA_MOST
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
    if shape_kept
        || found.score < track.found_score + CLEARER_BY
        || part_of(&track.image_from_grid, &found.quad)
    {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::detect::{Edge, Ink};
    use crate::recognize::verdict::Judged;
    use crate::recognize::verdict::tests::{PUZZLE, reading_of};
    use crate::video::tracked::tests::{found_at, read_at, track_on_drawn_grid};

    #[test]
    fn the_finer_search_looks_in_dark_ink_first_then_in_each_ink_in_turn() {
        let inks: Vec<Ink> = (1..=5)
            .map(|k| fine_search_ink(k * FINE_SEARCH_EVERY))
            .collect();
        assert_eq!(
            inks,
            [Ink::Dark, Ink::Light, Ink::Dark, Ink::Light, Ink::Dark]
        );
    }

    #[test]
    fn a_grid_followed_a_cell_off_where_the_last_motion_put_it_jumped_and_a_few_pixels_did_not() {
        // A 450 px grid (cells of 50 px) expected at (100, 100).
        let at = |x: f64, y: f64| Homography::translation(x, y).after(&Homography::scaling(450.0));
        let predicted = at(100.0, 100.0);
        assert!(!jumped(&predicted, &at(100.0, 108.0)));
        assert!(!jumped(&predicted, &at(120.0, 100.0)));
        assert!(jumped(&predicted, &at(100.0, 50.0)), "a row up");
        assert!(jumped(&predicted, &at(135.0, 100.0)));
    }

    #[test]
    fn a_grid_found_again_where_its_track_slipped_keeps_its_bend_and_elsewhere_does_not() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // Paper whose middle rows' lines bow 9 px (a quarter of a cell) to the right.
        let mut bowed = crate::bend::Lattice::flat(&right).unwrap();
        for (r, row) in bowed.0.iter_mut().enumerate() {
            let v = r as f64 / 9.0;
            for p in row.iter_mut() {
                p[0] += 36.0 * v * (1.0 - v);
            }
        }
        let bend = Bend::fit(&bowed, &right).unwrap();
        let current = TrackFrame::new(&page).unwrap();
        let found_again = |slipped: Quad| {
            let mut vision = Vision::new(DigitReader::builtin().unwrap());
            vision.slipped = Some((slipped, bend));
            let mut times = VisionTimes::default();
            vision
                .search(
                    &current,
                    &mut FrameOutline::new(&page),
                    &mut Colours::none(),
                    &mut times,
                )
                .unwrap();
            let track = vision.track.expect("the drawn grid is found");
            assert!(track::quad_of(&track.image_from_grid).max_corner_distance(&right) < 3.0);
            track.bend
        };
        // The anchor's false alarm: found again where the track was.
        let near = Quad(right.0.map(|[x, y]| [x + 3.0, y - 2.0]));
        assert_eq!(found_again(near), Some(bend));
        // A real slip: the track was a column off.
        let column_off = Quad(right.0.map(|[x, y]| [x + 36.0, y]));
        assert_eq!(found_again(column_off), None);
        // Named from another corner (read turned): the bend would have to be turned too.
        let turned = Quad(std::array::from_fn(|i| near.0[(i + 1) % 4]));
        assert_eq!(found_again(turned), None);
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
            edge: Edge::Line,
            cut: false,
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
            let outline = outline_near(found, &track, ANCHOR_AGAIN_CELLS).expect("outline");
            assert!(
                outline.max_corner_distance(&right.turned_like(&track)) < 2.0,
                "{outline:?}"
            );
        }
        // A track a column off is another grid as far as this is concerned.
        let column_off = Quad(right.0.map(|[x, y]| [x + 36.0, y]));
        assert_eq!(outline_near(found, &column_off, ANCHOR_AGAIN_CELLS), None);
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

    /// `vision` following `track` on the frame `page` (`current`), after one reading of it,
    /// which must have been taken.
    fn read_once(mut vision: Vision, page: &Mat, current: &TrackFrame, track: Track) -> Vision {
        vision.track = Some(track);
        let mut times = VisionTimes::default();
        vision
            .read(
                current,
                &mut FrameOutline::new(page),
                &mut Colours::none(),
                &mut times,
            )
            .unwrap();
        assert!(times.read.is_some(), "not read again");
        vision
    }

    #[test]
    fn a_puzzle_judged_without_a_solution_is_read_again_at_once_and_still_shows_its_verdict() {
        let (page, current, _, mut track) = track_on_drawn_grid(false);
        let vision = Vision::new(DigitReader::builtin().unwrap());
        // Judged ambiguous (a thumb over a clue it needs), confirmed, and just checked: a
        // solved puzzle would wait RECHECK_EVERY frames for its next reading.
        track.identity = Identity::Known(Arc::new(Known {
            id: 0,
            clues: Grid::EMPTY,
            solution: None,
            status: Status::Multiple,
        }));
        track.confirmed = true;
        let mut vision = read_once(vision, &page, &current, track);
        let track = vision.track.as_mut().unwrap();
        assert!(matches!(track.identity, Identity::Reading(_)));
        assert_eq!(view_of(track, &page, None).state, LiveState::Multiple);
    }

    #[test]
    fn a_solved_grid_at_the_frames_edge_is_read_to_confirm_its_track_and_not_to_recheck_it() {
        let (page, _, _, mut track) = track_on_drawn_grid(false);
        track.identity = Identity::Known(Arc::new(Known {
            id: 0,
            clues: Grid::EMPTY,
            solution: Some(Grid::EMPTY),
            status: Status::Solved,
        }));
        // Its left corners 1 px from the frame's edge, inside 0.5% of the frame (3.2 px).
        let at_edge = Quad([[1.0, 80.0], [325.0, 80.0], [325.0, 404.0], [1.0, 404.0]]);
        let beyond = Quad([[-2.0, 80.0], [322.0, 80.0], [322.0, 404.0], [-2.0, 404.0]]);
        track.confirmed = false;
        assert!(due_for_reading(&mut track, &at_edge, &page));
        assert!(!due_for_reading(&mut track, &beyond, &page));
        // Drawn already, due for its routine check: that waits for the grid to be inside.
        track.confirmed = true;
        track.since_check = RECHECK_EVERY;
        assert!(!due_for_reading(&mut track, &at_edge, &page));
        let inside = Quad([[10.0, 80.0], [334.0, 80.0], [334.0, 404.0], [10.0, 404.0]]);
        assert!(due_for_reading(&mut track, &inside, &page));
    }

    /// The drawn grid of [`track_on_drawn_grid`] with `clues` printed in (a 36 px cell each).
    fn printed(clues: &Grid) -> Mat {
        let mut page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        for (i, &digit) in clues.0.iter().enumerate().filter(|(_, d)| **d != 0) {
            let (r, c) = ((i / 9) as i32, (i % 9) as i32);
            let at = opencv::core::Point::new(150 + 36 * c + 9, 80 + 36 * r + 29);
            let ink = opencv::core::Scalar::all(20.0);
            let font = opencv::imgproc::FONT_HERSHEY_DUPLEX;
            let line = opencv::imgproc::LINE_AA;
            opencv::imgproc::put_text(
                &mut page,
                &digit.to_string(),
                at,
                font,
                0.9,
                ink,
                2,
                line,
                false,
            )
            .unwrap();
        }
        page
    }

    /// The track of [`track_on_drawn_grid`] with `clues` known as its solved puzzle, drawn and
    /// due its routine reading.
    fn known_and_due(clues: Grid) -> Track {
        let (_, _, _, mut track) = track_on_drawn_grid(false);
        track.identity = Identity::Known(Arc::new(Known {
            id: 0,
            clues,
            solution: Some(Grid::EMPTY),
            status: Status::Solved,
        }));
        track.confirmed = true;
        track.on_lines = true;
        track.since_check = RECHECK_EVERY;
        track
    }

    /// `clues` with the first one another digit.
    fn first_clue_changed(clues: Grid) -> Grid {
        let first = clues.0.iter().position(|&d| d != 0).unwrap();
        let mut changed = clues;
        changed.0[first] = if clues.0[first] == 8 { 3 } else { 8 };
        changed
    }

    #[test]
    fn a_clue_read_once_as_another_digit_holds_the_drawing_back_and_twice_withdraws_it() {
        let clues: Grid = PUZZLE.parse().unwrap();
        // The puzzle known with its first clue another digit than printed (a misreading, or a
        // frame misread now).
        let track = known_and_due(first_clue_changed(clues));
        let page = printed(&clues);
        let current = TrackFrame::new(&page).unwrap();
        let reader = DigitReader::builtin().unwrap();
        // Read once: still the puzzle, not drawn, read again on the next frame.
        let mut vision = read_once(Vision::new(reader), &page, &current, track);
        let track = vision.track.take().unwrap();
        assert!(
            matches!(track.identity, Identity::Known(_)),
            "withdrawn at once"
        );
        assert!(!track.confirmed && track.doubted);
        // Read so again: withdrawn, read afresh.
        let vision = read_once(vision, &page, &current, track);
        let track = vision.track.as_ref().unwrap();
        assert!(matches!(track.identity, Identity::Reading(_)));
        assert!(vision.known.iter().all(|k| k.id != 0), "still known");
    }

    #[test]
    fn a_clue_read_once_as_another_digit_and_then_as_itself_is_drawn_again() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let track = known_and_due(clues);
        let (misprinted, page) = (printed(&first_clue_changed(clues)), printed(&clues));
        let first_frame = TrackFrame::new(&misprinted).unwrap();
        let next = TrackFrame::new(&page).unwrap();
        let reader = DigitReader::builtin().unwrap();
        let mut vision = read_once(Vision::new(reader), &misprinted, &first_frame, track);
        let track = vision.track.take().unwrap();
        assert!(!track.confirmed && track.doubted);
        let vision = read_once(vision, &page, &next, track);
        let track = vision.track.as_ref().unwrap();
        assert!(matches!(track.identity, Identity::Known(_)) && track.confirmed);
    }

    #[test]
    fn a_solved_grid_found_drawn_off_the_print_is_read_again_at_once_where_the_frame_shows_it() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // Followed with its bottom-left corner 0.4 of a cell in (lines followed beside a
        // shadow put it there, and the next reading, followed from there, agreed): confirmed,
        // just checked, and found off by the print check.
        let mut corner_in = right;
        corner_in.0[3] = [164.0, 404.0];
        track.image_from_grid = Homography::from_quads(&Quad::UNIT, &corner_in).unwrap();
        track.identity = Identity::Known(Arc::new(Known {
            id: 0,
            clues: Grid::EMPTY,
            solution: Some(Grid::EMPTY),
            status: Status::Solved,
        }));
        track.confirmed = true;
        track.since_check = 0;
        track.print_check.hold_until_on();
        let vision = read_once(
            Vision::new(DigitReader::builtin().unwrap()),
            &page,
            &current,
            track,
        );
        let track = vision.track.as_ref().expect("still followed");
        // A blank grid reads the same any way up: named from whichever corner.
        let tracked = track::quad_of(&track.image_from_grid).turned_like(&right);
        assert!(
            tracked.max_corner_distance(&right) < 3.0,
            "still at {tracked:?}"
        );
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
            settles_which_way_up(&read_at(quad, reading, turned))
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
    fn a_part_of_the_grid_is_not_taken_for_a_grid_elsewhere() {
        let grid = Quad([
            [100.0, 100.0],
            [400.0, 110.0],
            [410.0, 400.0],
            [95.0, 405.0],
        ]);
        let image_from_grid = Homography::from_quads(&Quad::UNIT, &grid).unwrap();
        let in_grid = |q: [[f64; 2]; 4]| Quad(q.map(|p| image_from_grid.apply(p)));
        let (third, ninth) = (1.0 / 3.0, 1.0 / 9.0);
        // The middle-right box, its corners a little off (a blurred frame).
        let middle_right = in_grid([
            [2.0 * third + 0.01, third],
            [1.0, third - 0.01],
            [1.0 - 0.01, 2.0 * third],
            [2.0 * third, 2.0 * third + 0.01],
        ]);
        assert!(part_of(&image_from_grid, &middle_right));
        // The same box cut short on the right by the smear of a page sliding in sideways.
        let cut_short = in_grid([
            [0.686, 0.346],
            [0.955, 0.341],
            [0.952, 0.675],
            [0.662, 0.674],
        ]);
        assert!(part_of(&image_from_grid, &cut_short));
        assert!(part_of(
            &image_from_grid,
            &in_grid([[0.0, 0.0], [third, 0.0], [third, third], [0.0, third]])
        ));
        // Handwritten digits run together across the bottom rows of a blurred frame, outlined
        // as a slanting quad (handheld:01_04's frame 28, against the grid's true corners).
        let blob = in_grid([
            [0.027, 0.678],
            [0.697, 0.682],
            [0.355, 0.987],
            [0.021, 0.993],
        ]);
        assert!(part_of(&image_from_grid, &blob));
        // The grid itself, the grid a column off either way, and a grid beside it: not.
        assert!(!part_of(&image_from_grid, &grid));
        assert!(!part_of(
            &image_from_grid,
            &in_grid([
                [ninth, 0.0],
                [1.0 + ninth, 0.0],
                [1.0 + ninth, 1.0],
                [ninth, 1.0]
            ])
        ));
        assert!(!part_of(
            &image_from_grid,
            &in_grid([[ninth, 0.0], [1.0, 0.0], [1.0, 1.0], [ninth, 1.0]])
        ));
        assert!(!part_of(&image_from_grid, &grid.translated(320.0, 0.0)));
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
