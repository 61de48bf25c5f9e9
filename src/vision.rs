//! The vision stage of live video: find the grid once, track it, read the puzzle over a few
//! frames until the reading is stable, solve it once, and remember it.
//!
//! Per frame, [`Vision::process`] either tracks the grid it already has ([`track`]) or, when
//! there is none or it was lost, searches the whole frame ([`detect::find_grid`]). A newly
//! found grid is read every frame and the evidence (log-probabilities per cell) is summed until
//! the clues stop changing and every cell is sure; then it is solved. Solved puzzles are kept,
//! so one that comes back into view is recognised from a single reading and not solved again.
//! While a puzzle is shown, it is re-read now and then, so that a different puzzle laid in the
//! same place is noticed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use opencv::core::Mat;
use opencv::imgproc;

use crate::cells;
use crate::decode::{Budget, Verdict, decode};
use crate::detect;
use crate::error::Result;
use crate::geometry::{Homography, Quad};
use crate::grid::Grid;
use crate::photo::{Status, read_turned};
use crate::read::{CLASSES, DigitReader, GridReading};
use crate::solve::solve;
use crate::track::{self, TrackFrame};

/// Frames of agreeing readings needed before a puzzle is solved.
const STABLE_FRAMES: u32 = 2;
/// A reading this sure in every cell that still has no single solution is, after a while,
/// judged unsolvable or ambiguous.
const SURE: f32 = 0.9;
/// A sure reading that does not solve is judged unsolvable after this many frames.
const MAX_READING_FRAMES: u32 = 15;
/// A shown puzzle is read again every this many frames, to notice a replaced puzzle.
const RECHECK_EVERY: u32 = 15;
/// More confidently different cells than this means the puzzle in view is another one.
const REPLACED_CELLS: usize = 8;

/// A puzzle that has been read and judged; kept for when it comes back.
#[derive(Debug, Clone, PartialEq)]
pub struct Known {
    /// Unique within a run; the display renders each puzzle's digits once, by this key.
    pub id: u64,
    pub clues: Grid,
    pub solution: Option<Grid>,
    pub status: Status,
}

/// What the vision stage says about one frame.
#[derive(Debug, Clone, Default)]
pub struct FrameView {
    pub puzzle: Option<PuzzleView>,
    pub times: VisionTimes,
}

/// The puzzle in a frame.
#[derive(Debug, Clone)]
pub struct PuzzleView {
    /// Corners in this frame's pixels, in the puzzle's own orientation (top-left first).
    pub quad: Quad,
    /// The clues as read so far.
    pub clues: Grid,
    pub state: LiveState,
    /// Set exactly when the solution is to be drawn on this frame.
    pub solved: Option<Arc<Known>>,
}

/// Where a puzzle in view stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveState {
    Reading,
    Solved,
    /// Read, but the clues have no solution (also when a digit repeats in a unit).
    Unsolvable,
    Multiple,
}

impl LiveState {
    pub fn as_str(self) -> &'static str {
        match self {
            LiveState::Reading => "reading",
            LiveState::Solved => "solved",
            LiveState::Unsolvable => "unsolvable",
            LiveState::Multiple => "multiple",
        }
    }

    fn of(status: Status) -> LiveState {
        match status {
            Status::Solved => LiveState::Solved,
            Status::Invalid | Status::Unsolvable => LiveState::Unsolvable,
            Status::Multiple => LiveState::Multiple,
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

/// Readings summed over this many recent frames: enough to outvote a blurred frame, few enough
/// that the frames read while the camera was still moving are soon forgotten.
const EVIDENCE_FRAMES: usize = 3;

/// The summed readings of one grid over the last few frames it was read in.
#[derive(Debug, Clone)]
struct Evidence {
    recent: std::collections::VecDeque<Vec<[f32; CLASSES]>>,
    log_likelihood: [[f32; CLASSES]; 81],
    frames: u32,
    stable_for: u32,
    last: Grid,
}

impl Evidence {
    fn new() -> Evidence {
        Evidence {
            recent: std::collections::VecDeque::with_capacity(EVIDENCE_FRAMES + 1),
            log_likelihood: [[0.0; CLASSES]; 81],
            frames: 0,
            stable_for: 0,
            last: Grid::EMPTY,
        }
    }

    fn add(&mut self, reading: &GridReading) {
        self.recent.push_back(reading.0.iter().map(|cell| cell.as_clue.map(|p| p.max(1e-6).ln())).collect());
        if self.recent.len() > EVIDENCE_FRAMES {
            self.recent.pop_front();
        }
        self.log_likelihood = [[0.0; CLASSES]; 81];
        for frame in &self.recent {
            for (sum, cell) in self.log_likelihood.iter_mut().zip(frame) {
                for (s, l) in sum.iter_mut().zip(cell) {
                    *s += l;
                }
            }
        }
        self.frames += 1;
        let clues = self.clues();
        self.stable_for = if clues == self.last { self.stable_for + 1 } else { 1 };
        self.last = clues;
    }

    /// Each cell's probabilities given all frames so far.
    fn posteriors(&self) -> Vec<[f32; CLASSES]> {
        self.log_likelihood
            .iter()
            .map(|l| {
                let top = l.iter().copied().fold(f32::MIN, f32::max);
                let e = l.map(|v| (v - top).exp());
                let sum: f32 = e.iter().sum();
                e.map(|v| v / sum)
            })
            .collect()
    }

    fn clues(&self) -> Grid {
        let mut grid = Grid::EMPTY;
        for (cell, l) in grid.0.iter_mut().zip(&self.log_likelihood) {
            *cell = argmax(l) as u8;
        }
        grid
    }

    fn least_sure(&self) -> f32 {
        self.posteriors().iter().map(|p| p.iter().copied().fold(0.0, f32::max)).fold(1.0, f32::min)
    }
}

fn argmax(values: &[f32; CLASSES]) -> usize {
    (0..CLASSES).max_by(|&a, &b| values[a].total_cmp(&values[b])).unwrap_or(0)
}

enum Identity {
    Reading(Evidence),
    Known(Arc<Known>),
}

struct Track {
    image_from_grid: Homography,
    /// How the grid moved from the frame before last to the last: this frame's first guess.
    motion: Option<Homography>,
    identity: Identity,
    /// Whether the grid's orientation was settled by a reading.
    oriented: bool,
    since_check: u32,
}

/// The vision thread's state; feed it every frame in order.
pub struct Vision {
    reader: DigitReader,
    known: Vec<Arc<Known>>,
    track: Option<Track>,
    previous: Option<TrackFrame>,
    next_id: u64,
}

impl Vision {
    pub fn new(reader: DigitReader) -> Vision {
        Vision { reader, known: Vec::new(), track: None, previous: None, next_id: 0 }
    }

    /// Puzzles solved so far: the cache.
    pub fn known(&self) -> &[Arc<Known>] {
        &self.known
    }

    /// Finds or follows the puzzle in a BGR frame.
    pub fn process(&mut self, frame: &Mat) -> Result<FrameView> {
        let start = Instant::now();
        let mut times = VisionTimes::default();
        let mut gray = Mat::default();
        imgproc::cvt_color(frame, &mut gray, imgproc::COLOR_BGR2GRAY, 0)?;
        let current = TrackFrame::new(&gray)?;
        self.follow(&current, &gray, &mut times)?;
        if self.track.is_none() {
            self.search(&gray, &mut times)?;
        }
        self.previous = Some(current);
        if self.track.is_some() {
            self.read(&gray, &mut times)?;
        }
        times.total = start.elapsed();
        Ok(FrameView { puzzle: self.track.as_ref().map(view_of), times })
    }

    fn follow(&mut self, current: &TrackFrame, gray: &Mat, times: &mut VisionTimes) -> Result<()> {
        let (Some(track), Some(previous)) = (self.track.as_mut(), self.previous.as_ref()) else {
            self.track = None;
            return Ok(());
        };
        if track.motion.is_none() {
            // Just found: how fast the grid moves is not known yet, and flow on a repeating
            // grid can't tell a fast move from a slow one to the neighbouring cell. Detect once
            // more and take the motion from the two detections.
            let start = Instant::now();
            let again = detect::find_grid(gray)?.filter(|d| inside_frame(&d.quad, gray));
            times.detect = Some(start.elapsed());
            // Detection orders corners by the picture, the track by the puzzle (it may be turned).
            let tracked = track::quad_of(&track.image_from_grid);
            let again = again.map(|d| d.quad.turned_like(&tracked));
            if let Some(found) = again.filter(|q| q.max_corner_distance(&tracked) < 0.25 * q.sides()[0])
                && let Some(h) = Homography::from_quads(&Quad::UNIT, &found)
            {
                track.motion = track.image_from_grid.inverse().map(|g| h.after(&g));
                track.image_from_grid = h;
                return Ok(());
            }
        }
        let start = Instant::now();
        let predicted = track.motion.map_or(track.image_from_grid, |m| m.after(&track.image_from_grid));
        let tracked = track::track(previous, current, &track.image_from_grid, &predicted)?;
        times.track = Some(start.elapsed());
        match tracked {
            Some(t) => {
                tracing::trace!(inliers = t.inliers, "tracked");
                track.motion = track.image_from_grid.inverse().map(|grid_from_last| t.image_from_grid.after(&grid_from_last));
                track.image_from_grid = t.image_from_grid;
            }
            None => {
                tracing::debug!("lost the grid");
                self.track = None;
            }
        }
        Ok(())
    }

    fn search(&mut self, gray: &Mat, times: &mut VisionTimes) -> Result<()> {
        let start = Instant::now();
        let found = detect::find_grid(gray)?.filter(|d| inside_frame(&d.quad, gray));
        times.detect = Some(start.elapsed());
        self.track = found.and_then(|d| Homography::from_quads(&Quad::UNIT, &d.quad)).map(|image_from_grid| {
            tracing::debug!("found a grid");
            Track { image_from_grid, motion: None, identity: Identity::Reading(Evidence::new()), oriented: false, since_check: 0 }
        });
        Ok(())
    }

    /// Reads the tracked grid when its puzzle is not known yet, or is due a check.
    fn read(&mut self, gray: &Mat, times: &mut VisionTimes) -> Result<()> {
        let Some(track) = self.track.as_mut() else { return Ok(()) };
        if let Identity::Known(_) = track.identity {
            track.since_check += 1;
            if track.since_check < RECHECK_EVERY {
                return Ok(());
            }
        }
        let start = Instant::now();
        let quad = track::quad_of(&track.image_from_grid);
        let rectified = cells::rectify(gray, &quad)?;
        let mut reading = self.reader.read_grid(cells::cell_batch(&rectified)?.view())?;
        if !track.oriented {
            if !reading.is_confident()
                && let Some((turned, turned_reading)) = read_turned(&mut self.reader, &rectified, &quad, &reading)?
                && let Some(h) = Homography::from_quads(&Quad::UNIT, &turned)
            {
                tracing::debug!("grid is turned; reading it the right way up");
                track.image_from_grid = h;
                reading = turned_reading;
            }
            track.oriented = true;
        }
        times.read = Some(start.elapsed());
        match &mut track.identity {
            Identity::Known(known) => {
                track.since_check = 0;
                if known.solution.is_none() {
                    // Unsolved: perhaps misread; read it again rather than hold on to that.
                    let mut evidence = Evidence::new();
                    evidence.add(&reading);
                    track.identity = Identity::Reading(evidence);
                } else if replaced(known, &reading) {
                    // Start afresh: the new puzzle's grid may not line up with the old one's.
                    tracing::debug!(id = known.id, "a different puzzle is in view");
                    self.track = None;
                }
            }
            Identity::Reading(evidence) => {
                if let Some(known) = self.known.iter().find(|k| same_puzzle(k, &reading)) {
                    tracing::debug!(id = known.id, "puzzle seen before");
                    track.identity = Identity::Known(known.clone());
                    return Ok(());
                }
                evidence.add(&reading);
                let start = Instant::now();
                if let Some(known) = judge(evidence, self.next_id) {
                    self.next_id += 1;
                    let known = Arc::new(known);
                    tracing::debug!(id = known.id, status = ?known.status, clues = %known.clues, "puzzle read");
                    if known.solution.is_some() {
                        self.known.push(known.clone());
                    }
                    track.identity = Identity::Known(known);
                    track.since_check = 0;
                    times.solve = Some(start.elapsed());
                }
            }
        }
        Ok(())
    }
}

/// Whether all of `quad` lies inside the frame, off its edges: a grid cut by the frame's edge
/// is outlined where it is cut, not where its corners are, and would be tracked askew.
fn inside_frame(quad: &Quad, gray: &Mat) -> bool {
    use opencv::prelude::MatTraitConst;
    let margin = 0.005 * gray.cols().max(gray.rows()) as f64;
    let (w, h) = (gray.cols() as f64, gray.rows() as f64);
    quad.0.iter().all(|&[x, y]| x >= margin && y >= margin && x <= w - 1.0 - margin && y <= h - 1.0 - margin)
}

/// The puzzle as judged from the evidence, once the evidence is enough; None to keep reading.
///
/// Once two readings agree, the most likely puzzle with one solution is decoded from the summed
/// evidence ([`decode`]): a clue read as empty, an empty cell read as a clue or one digit taken
/// for another is set right when the puzzle's rules single it out. The puzzle is accepted only
/// when no other one is nearly as likely; otherwise it is read again next frame, so that sharper
/// frames can settle it. Only a sure reading that stays without any such puzzle for
/// [`MAX_READING_FRAMES`] frames is judged unsolvable or ambiguous, and even that verdict is
/// provisional: it is read again while the puzzle stays in view.
fn judge(evidence: &Evidence, id: u64) -> Option<Known> {
    if evidence.stable_for < STABLE_FRAMES {
        return None;
    }
    let clues = evidence.clues();
    let verdict = decode(&clues, &evidence.log_likelihood, |_| true, Budget::FRAME);
    if let Verdict::Solved(d) = verdict {
        if !d.corrections.is_empty() {
            tracing::debug!(corrections = ?d.corrections, margin = d.margin, "corrected misread cells");
        }
        return Some(Known { id, clues: d.clues, solution: Some(d.solution), status: Status::Solved });
    }
    tracing::trace!(?verdict, "not sure which puzzle yet");
    let sure = evidence.least_sure() >= SURE && evidence.frames >= MAX_READING_FRAMES;
    match solve(&clues) {
        Err(error) if sure => Some(Known { id, clues, solution: None, status: Status::of(&error) }),
        _ => None,
    }
}

/// Whether a single reading shows `known`: no cell confidently reads otherwise, and few are
/// unsure.
fn same_puzzle(known: &Known, reading: &GridReading) -> bool {
    let mut unsure = 0;
    for (cell, r) in reading.0.iter().enumerate() {
        let expected = known.clues.0[cell] as usize;
        let best = argmax(&r.as_clue);
        if best != expected && r.as_clue[best] >= SURE {
            return false;
        }
        if r.as_clue[expected] < 0.5 {
            unsure += 1;
        }
    }
    unsure <= 4
}

/// Whether the puzzle in view is confidently a different one from `known`.
fn replaced(known: &Known, reading: &GridReading) -> bool {
    let differing = reading
        .0
        .iter()
        .zip(known.clues.0)
        .filter(|(r, expected)| {
            let best = argmax(&r.as_clue);
            best != *expected as usize && r.as_clue[best] >= SURE
        })
        .count();
    differing > REPLACED_CELLS
}

fn view_of(track: &Track) -> PuzzleView {
    let quad = track::quad_of(&track.image_from_grid);
    match &track.identity {
        Identity::Reading(evidence) => PuzzleView { quad, clues: evidence.clues(), state: LiveState::Reading, solved: None },
        Identity::Known(known) => {
            let state = LiveState::of(known.status);
            let solved = (known.solution.is_some()).then(|| known.clone());
            PuzzleView { quad, clues: known.clues, state, solved }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::CellReading;

    fn reading_of(clues: &Grid, sureness: f32) -> GridReading {
        GridReading(
            clues
                .0
                .iter()
                .map(|&d| {
                    let mut p = [(1.0 - sureness) / 9.0; CLASSES];
                    p[d as usize] = sureness;
                    CellReading { digit: d, handwritten: false, confidence: sureness, probabilities: p, as_clue: p }
                })
                .collect(),
        )
    }

    const PUZZLE: &str = "530070000600195000098000060800060003400803001700020006060000280000419005000080079";

    #[test]
    fn solves_only_after_agreeing_frames() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let mut evidence = Evidence::new();
        evidence.add(&reading_of(&clues, 0.95));
        assert!(judge(&evidence, 0).is_none(), "one frame is not enough");
        evidence.add(&reading_of(&clues, 0.95));
        let known = judge(&evidence, 0).expect("two sure frames");
        assert_eq!(known.status, Status::Solved);
        assert_eq!(known.clues, clues);
    }

    /// The 17-clue puzzle of the decoder's tests with its 3 in cell 54 lost.
    const SEVENTEEN_LESS_ONE: &str = "000000010400000000020000000000050407008000300001090000000400200050100000000806000";

    #[test]
    fn reading_torn_between_two_puzzles_is_never_judged() {
        let clues: Grid = SEVENTEEN_LESS_ONE.parse().unwrap();
        let mut reading = reading_of(&clues, 0.99);
        // Cell 55 torn between empty, 3 and 7, frame after frame: a 3 and a 7 each give one
        // solution, different ones. Neither the picture nor the rules can tell.
        let torn = &mut reading.0[55];
        torn.as_clue = [0.0; CLASSES];
        torn.as_clue[0] = 0.5;
        torn.as_clue[3] = 0.25;
        torn.as_clue[7] = 0.25;
        let mut evidence = Evidence::new();
        for _ in 0..3 * MAX_READING_FRAMES {
            evidence.add(&reading);
            assert!(judge(&evidence, 0).is_none());
        }
    }

    #[test]
    fn clue_read_as_empty_is_restored_when_the_rules_point_at_it() {
        // Cell 54's 3 blurred into "empty" at 90%, in every frame: without it the puzzle has
        // many solutions; with it, one.
        let truth: Grid = "000000010400000000020000000000050407008000300001090000300400200050100000000806000".parse().unwrap();
        let clues: Grid = SEVENTEEN_LESS_ONE.parse().unwrap();
        let mut reading = reading_of(&clues, 0.99);
        let faded = &mut reading.0[54];
        faded.as_clue = [0.001; CLASSES];
        faded.as_clue[0] = 0.9;
        faded.as_clue[3] = 0.092;
        let mut evidence = Evidence::new();
        evidence.add(&reading);
        evidence.add(&reading);
        let known = judge(&evidence, 0).expect("judged from two frames");
        assert_eq!((known.clues, known.status), (truth, Status::Solved));
    }

    #[test]
    fn sure_but_broken_reading_is_judged_unsolvable_after_a_while() {
        let mut clues: Grid = PUZZLE.parse().unwrap();
        clues.0[1] = 5; // a repeated 5 in the top row: no solution
        let mut evidence = Evidence::new();
        for frame in 1..=MAX_READING_FRAMES {
            evidence.add(&reading_of(&clues, 0.99));
            let judged = judge(&evidence, 0);
            if frame < MAX_READING_FRAMES {
                assert!(judged.is_none(), "judged at frame {frame}");
            } else {
                assert_eq!(judged.map(|k| k.status), Some(Status::Invalid));
            }
        }
    }

    #[test]
    fn recognises_a_known_puzzle_and_a_replaced_one() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let known = Known { id: 0, clues, solution: None, status: Status::Solved };
        assert!(same_puzzle(&known, &reading_of(&clues, 0.97)));
        assert!(!replaced(&known, &reading_of(&clues, 0.97)));
        let other: Grid = "000000010400000000020000000000050407008000300001090000300400200050100000000806000".parse().unwrap();
        assert!(!same_puzzle(&known, &reading_of(&other, 0.97)));
        assert!(replaced(&known, &reading_of(&other, 0.97)));
    }
}
