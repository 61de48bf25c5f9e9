//! What a reading of a grid amounts to: the puzzle it most likely shows, solved, or why not.
//!
//! A still photo is judged from its one reading ([`judge_picture`]); a grid in live video from
//! the readings of its last few frames summed ([`Evidence`], [`judge_frames`]). Both decode the
//! most likely puzzle with one solution ([`decode`]); they differ only in how sure they must be,
//! because a video can always look again and a photo cannot.

use std::collections::VecDeque;

use serde::Serialize;

use crate::grid::Grid;
use crate::recognize::HIDDEN_CELL_POWER;
use crate::recognize::decode::{Budget, Correction, Decoded, Verdict, decode};
use crate::recognize::read::{CLASSES, GridReading, argmax};
use crate::solve::{SolveError, forced, solve};

/// How the clues that were read turned out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Solved,
    /// A digit repeats in a row, column or box.
    Invalid,
    Unsolvable,
    Multiple,
    /// The clues as read have one solution, but another reading nearly as likely has another
    /// (a digit half washed out by glare, under a finger): none is drawn.
    Unsure,
    /// Not all clues are read yet (a finger over one): the solution holds only the digits
    /// that every solution of the clues read surely agrees on.
    Partial,
}

impl Status {
    /// The status of clues the solver turned down.
    pub fn of(error: &SolveError) -> Status {
        match error {
            SolveError::Invalid { .. } => Status::Invalid,
            SolveError::Unsolvable => Status::Unsolvable,
            SolveError::Multiple { .. } => Status::Multiple,
        }
    }
}

/// The puzzle a reading was judged to show.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The printed clues the solution is computed from (after any corrections).
    pub clues: Grid,
    pub solution: Option<Grid>,
    pub status: Status,
    /// Cells changed from their first reading.
    pub corrections: Vec<Correction>,
    /// How much less likely (nats) the next puzzle with another solution is; None when the
    /// decoder did not choose the puzzle.
    pub margin: Option<f32>,
}

impl Judged {
    fn as_read(clues: Grid) -> Judged {
        let (solution, status) = solve_clues(&clues);
        Judged {
            clues,
            solution,
            status,
            corrections: Vec::new(),
            margin: None,
        }
    }
}

/// Digits somebody wrote into the grid (0 elsewhere), as `reading` shows them beside the printed
/// `clues`. A digit in a cell that is not a clue is somebody's entry: one read as handwritten,
/// and also one read surely as a digit whose style the reader could not settle (a thin written
/// 7 taken for print and for writing about equally, so that the decoder left it out of the
/// clues), which would otherwise be neither, and have the solution drawn over it. A cell judged
/// a printed clue (corrected into one, or read as handwriting but needed as a clue for the
/// puzzle to have one solution) is no entry.
pub fn entries_of(reading: &GridReading, clues: &Grid) -> Grid {
    const SURE_DIGIT: f32 = 0.9;
    let mut entries = Grid::EMPTY;
    for ((entry, r), &clue) in entries.0.iter_mut().zip(&reading.0).zip(&clues.0) {
        if clue == 0 && (r.handwritten || r.confidence >= SURE_DIGIT) {
            *entry = r.digit;
        }
    }
    entries
}

/// [`entries_of`] in video, where the grid is read again and again: a cell beside a hidden
/// stretch of line (a finger over it) keeps its entry from `before`.
pub fn entries_seen(reading: &GridReading, clues: &Grid, before: &Grid) -> Grid {
    let mut entries = entries_of(reading, clues);
    for (i, entry) in entries.0.iter_mut().enumerate() {
        if reading.0.get(i).is_some_and(|r| r.hidden) && clues.0[i] == 0 {
            *entry = before.0[i];
        }
    }
    entries
}

/// Cells whose entry (of `entries`) disagrees with `solution`, counting only entries the
/// reader is sure of: telling somebody a right answer is wrong is worse than missing a slip.
/// "Check my work", on a photo and in video alike.
pub fn wrong_entries(reading: &GridReading, entries: &Grid, solution: &Grid) -> Vec<usize> {
    const SURE_OF_ENTRY: f32 = 0.8;
    // A crossed 7 is read as a 1 with the 7 at 2-5% by the model, again and again in video.
    const SOLUTION_UNLIKELY: f32 = 0.01;
    (0..81)
        .filter(|&i| {
            let entry = entries.0[i];
            let sure = reading.0.get(i).is_none_or(|r| {
                r.confidence >= SURE_OF_ENTRY
                    && r.probabilities[solution.0[i] as usize] < SOLUTION_UNLIKELY
            });
            entry != 0 && entry != solution.0[i] && sure
        })
        .collect()
}

/// Readings in a row that must each be sure an entry is wrong before video circles it.
pub const MARK_AFTER: u8 = 3;

/// [`wrong_entries`] in video, where the grid is read again and again: over hundreds of
/// readings, a blurred frame now and then reads somebody's crossed 7 surely as a 1 (every
/// right entry on the simulated hand-held set's pages was circled in 195 frames when one
/// reading sufficed). An entry is circled once [`MARK_AFTER`] readings in a row are sure it
/// is wrong; then it stays circled while it reads as the same digit, surely or not, or is
/// hidden (a finger over it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongMarks {
    /// Per cell, the entry read surely wrong (0 for none), and in how many readings in a row.
    entry: Grid,
    streak: [u8; 81],
}

impl WrongMarks {
    pub const NONE: WrongMarks = WrongMarks {
        entry: Grid::EMPTY,
        streak: [0; 81],
    };

    /// The marks after one more `reading`, whose `entries` contradict `solution` where they
    /// are wrong.
    pub fn see(&self, reading: &GridReading, entries: &Grid, solution: &Grid) -> WrongMarks {
        let sure = wrong_entries(reading, entries, solution);
        let mut next = WrongMarks::NONE;
        for i in 0..81 {
            let hidden = reading.0.get(i).is_some_and(|r| r.hidden);
            let circled = self.streak[i] >= MARK_AFTER;
            if hidden || (circled && !sure.contains(&i) && entries.0[i] == self.entry.0[i]) {
                (next.entry.0[i], next.streak[i]) = (self.entry.0[i], self.streak[i]);
            } else if sure.contains(&i) {
                let streak = if entries.0[i] == self.entry.0[i] {
                    self.streak[i].saturating_add(1)
                } else {
                    1
                };
                (next.entry.0[i], next.streak[i]) = (entries.0[i], streak);
            }
        }
        next
    }

    /// The entries circled (0 elsewhere).
    pub fn circled(&self) -> Grid {
        Grid(std::array::from_fn(|i| {
            if self.streak[i] >= MARK_AFTER {
                self.entry.0[i]
            } else {
                0
            }
        }))
    }
}

/// Solves the clues that were read, mapping each failure to its [`Status`].
pub fn solve_clues(clues: &Grid) -> (Option<Grid>, Status) {
    match solve(clues) {
        Ok(solution) => (Some(solution), Status::Solved),
        Err(e) => (None, Status::of(&e)),
    }
}

/// Each cell's log-likelihood of holding no printed clue (0) or a printed 1-9.
pub fn clue_log_likelihoods(reading: &GridReading) -> Vec<[f32; CLASSES]> {
    reading
        .0
        .iter()
        .map(|r| r.as_clue.map(|p| p.max(1e-9).ln()))
        .collect()
}

/// The puzzle one picture shows: the most likely printed clues with one solution. A photo gets
/// no second look, so a reading that solves as it is stands even when another puzzle is nearly
/// as likely (unless `as_read` says it must lead too); a changed reading must be clearly the
/// likeliest.
///
/// Whether a digit is printed or handwritten is judged by the whole grid too: when the printed
/// clues alone have no single solution but every digit taken as printed does, the digits taken
/// for handwriting were print in a face the model does not know (a screen has no handwriting),
/// or entries that all agree with the one solution: either way that is the puzzle.
pub fn judge_picture(reading: &GridReading, as_read: AsRead) -> Judged {
    let judged = judge_printed(reading, as_read);
    if judged.status == Status::Solved || !reading.has_handwriting() {
        return judged;
    }
    let every_digit = judge_printed(&reading.all_printed(), as_read);
    if every_digit.status == Status::Solved {
        tracing::debug!(
            "digits read as handwritten are taken as printed: only then is there one solution"
        );
        return every_digit;
    }
    judged
}

/// Whether `solution`, that of a picture's `reading` solved as read (no correction) with
/// `margin`, leads every other puzzle with one solution near the reading by at least `lead`
/// nats. A judgement's margin vouches only as far as its search went (a photo's: 1.6 nats
/// past the best, then it stops); a larger lead is searched for.
pub fn leads_by(reading: &GridReading, solution: &Grid, margin: Option<f32>, lead: f32) -> bool {
    let Some(margin) = margin else {
        return false;
    };
    if margin >= lead {
        return true;
    }
    let further = Budget {
        margin: lead,
        ..Budget::PHOTO
    };
    let read = reading.printed();
    match decode(&read, &clue_log_likelihoods(reading), |_| true, further) {
        Verdict::Solved(d) => d.corrections.is_empty() && d.solution == *solution,
        _ => false,
    }
}

/// Which cells the decoder may change: any, or while part of the grid is hidden (a finger
/// over it), the hidden cells and those read unsurely. A puzzle that needs a clue under the
/// finger has more than one solution as seen, and some surely read clue elsewhere, changed,
/// always makes it unique: that is the likeliest such change, not the finger's clue. But a cell
/// read unsurely is not held as read: a faint speck taken for a written 2 (image1045 under a
/// glare spot, read at 0.22), held as a clue while a faded clue beside the spot was lost, made
/// one puzzle, the wrong one, though its being empty was as likely.
fn open_to_correction<'a>(
    hidden: &'a [bool; 81],
    unsure: impl Fn(usize) -> bool + 'a,
) -> impl Fn(usize) -> bool + 'a {
    let any_hidden = hidden.contains(&true);
    move |cell| !any_hidden || hidden[cell] || unsure(cell)
}

/// A cell whose likeliest reading is less sure than this stays open to correction also while
/// part of the grid is hidden.
const UNSURE_CELL: f32 = 0.5;

/// Whether a picture's reading that solves as it is stands when another puzzle is nearly as
/// likely (see [`judge_picture`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsRead {
    /// It stands: a photo gets no second look.
    Stands,
    /// It must lead every other puzzle as clearly as a corrected reading must: for pictures
    /// whose readings are surer than they are right (smoothed of coarse grain).
    MustLead,
}

/// [`judge_picture`] taking the digits read as handwritten for what the model said.
fn judge_printed(reading: &GridReading, as_read: AsRead) -> Judged {
    let read = reading.printed();
    let hidden = reading.hidden();
    // Where something lies over the grid, the cells around it are read worse than the model
    // knows (glare fades a digit next to the cells it hides): the reading must then be clearly
    // ahead of any other puzzle, even when it solves as read.
    let covered = hidden.contains(&true);
    // A photo smeared one way is corrected as any other: it is the one look there is, and some
    // still photos are less sharp one way by nature (image209, image43: 0.65-0.76 of the other
    // way); refusing their corrections cost 3 of the Wicht photos with a fingertip or glare
    // their (right) solution, and saved none.
    let verdict = decode(
        &read,
        &clue_log_likelihoods(reading),
        open_to_correction(&hidden, |cell| {
            reading
                .0
                .get(cell)
                .is_some_and(|r| r.confidence < UNSURE_CELL)
        }),
        Budget::PHOTO,
    );
    // The reading solves as read, and another puzzle is nearly as likely.
    let lead = if reading.printed_sureness() < READ_WELL {
        POORLY_READ_LEAD
    } else {
        AS_READ_LEAD
    };
    let torn = matches!(
        &verdict,
        Verdict::Uncertain(d) if d.corrections.is_empty() && d.margin < lead
    );
    let decoded = match verdict {
        // As in video (see `refuse_corrections_beside_hidden_cells`), but a photo has no
        // later look: nothing is drawn.
        Verdict::Solved(d) if covered && makes_unique_by_changing_a_digit(&d, &read) => {
            tracing::debug!(corrections = ?d.corrections, "no clue in view changed while a clue may be hidden");
            None
        }
        Verdict::Solved(d) if written_against(reading, &d.clues, &d.solution) => {
            tracing::debug!(corrections = ?d.corrections, "the entries written in say otherwise");
            None
        }
        Verdict::Solved(d) => Some(d),
        Verdict::Uncertain(d)
            if d.corrections.is_empty()
                && !covered
                && !torn
                && as_read == AsRead::Stands
                && !written_against(reading, &d.clues, &d.solution) =>
        {
            Some(d)
        }
        Verdict::Uncertain(d) => {
            tracing::debug!(corrections = ?d.corrections, margin = d.margin, "a correction was not clear enough");
            None
        }
        Verdict::Failed(_) => None,
    };
    let Some(d) = decoded else {
        // Not clearly ahead. Clues that solve as read stand (see above), except where something
        // lies over the grid: then that solution is not drawn (image178 with a glare spot: a
        // 7 beside it, faded, read as a 6 gave a puzzle with one solution, the wrong one);
        // nor where another puzzle is nearly as likely; nor where the picture's readings are
        // not trusted so far; nor where the entries written in say otherwise.
        let mut judged = Judged::as_read(read);
        let doubted = |solution| {
            covered
                || torn
                || as_read == AsRead::MustLead
                || written_against(reading, &read, solution)
        };
        if judged.solution.as_ref().is_some_and(doubted) {
            judged.solution = None;
            judged.status = Status::Unsure;
        }
        return judged;
    };
    if !d.corrections.is_empty() {
        tracing::debug!(corrections = ?d.corrections, margin = d.margin, "corrected misread cells");
    }
    Judged {
        clues: d.clues,
        solution: Some(d.solution),
        status: Status::Solved,
        corrections: d.corrections,
        margin: Some(d.margin),
    }
}

/// How much likelier (nats) than any other puzzle with one solution a photo's reading that
/// solves as read must be to stand: the other at most half as likely. Below it the photo is a
/// coin toss between puzzles: over the 239 dataset photos shrunk until their grid is 110-160 px
/// (cells of 12-18 px, JPEG 75), the readings standing so were right 6 times (0.28-0.64 nats)
/// and wrong 2 (0.40 and 0.45: a 3 read as a 2, the puzzle still of one solution), and an app
/// screenshot that small was solved wrong at 0.11 (an 8 for a 9). At full size no photo's
/// reading standing so leads by less than 1.
const AS_READ_LEAD: f32 = std::f32::consts::LN_2;

/// How much likelier than any other puzzle with one solution a reading that solves as read
/// must be when its printed digits were read less surely than [`READ_WELL`] on average: the
/// other at most a third as likely. The model is surer than it is right on a picture it reads
/// poorly. Over the dataset photos seen by another camera (turned, tilted, unevenly lit,
/// tinted, shrunk to grids of 180-700 px, blurred, noisy, JPEG 30-92; 11,472 pictures over
/// two sets of seeds), the readings standing at 0.69-1.1 nats were wrong 4 times and right 10
/// when read so (each wrong one a digit read as another that still left one solution), and
/// right all 65 times when read better.
const POORLY_READ_LEAD: f32 = 1.0986123; // ln 3

/// See [`POORLY_READ_LEAD`]: a grid's printed digits read at least this surely on average
/// are read well.
const READ_WELL: f32 = 0.93;

/// More entries than this, read surely, that contradict a solution make it doubtful: somebody
/// who filled in the grid is right far more often than not. A creased page, its folds shading
/// the ink, read with a printed 8 as 9 and a written 6 taken for print, solved as read, wrong,
/// against 9 of its entries; on the 80 Kubiesa photos, filled in by hand, the solutions
/// contradict none.
const MOST_ENTRIES_AGAINST: usize = 2;

/// Whether `solution` of `clues` contradicts more than [`MOST_ENTRIES_AGAINST`] of the entries
/// written into the grid `reading` shows, or any one of them told from print by its style where
/// the printed digits were read poorly (less surely than [`READ_WELL`] on average). On such a
/// grid print and handwriting are told apart poorly too, and a printed digit read surely but
/// taken for somebody's entry leaves the puzzle without a clue it needs: a 170 px grid in a
/// squeezed video (CRF 34) read with a 5 as 3, pencil marks as a printed 4, and a printed 7
/// taken for handwriting (0.997) solved, as read and as corrected over three frames, to a
/// solution with no 7 there: the wrong one, drawn for 35 frames (`sweep.py` seed 8703, video
/// 13). Over 5,736 dataset photos seen by another camera (probe of session 88, seeds 100-123),
/// this held back one solution, a wrong one, and no right one.
fn written_against(reading: &GridReading, clues: &Grid, solution: &Grid) -> bool {
    let entries = entries_of(reading, clues);
    let against = wrong_entries(reading, &entries, solution);
    // An app's typed entry, told by its ink, is one whatever the model makes of its style.
    let told_by_style = |&cell: &usize| reading.0.get(cell).is_some_and(|r| !r.entry_by_ink);
    against.len() > MOST_ENTRIES_AGAINST
        || (against.iter().any(told_by_style) && reading.printed_sureness() < READ_WELL)
}

/// How sure (the likeliest class's probability, given the recent frames) every clue of a
/// puzzle that solves as read must be for the photo's margin to do.
const AS_READ_SURE: f32 = 0.7;

/// Whether every clue of `clues` is read at least [`AS_READ_SURE`] surely in `evidence`.
fn clues_read_surely(clues: &Grid, evidence: &Sums) -> bool {
    (0..81).all(|cell| clues.0[cell] == 0 || evidence.sureness(cell) >= AS_READ_SURE)
}

/// Whether every clue of `clues` is read at better than even odds ([`UNSURE_CELL`]): what a
/// puzzle solved on one frame needs. Where one is not, the decoder's margin says only that the
/// other digits there leave no puzzle with one solution, and a misread clue in a puzzle of 25
/// or more still leaves one: thumb:image44 (set 1) was solved on the first frame it was read
/// in with a 3 read as 2 at 0.34, and drawn wrong until a re-check 15 frames later caught the
/// clue (a start over from another outline had hidden that by chance). On the simulated hand-held
/// sets, 5 of 25 puzzles solved on one frame had such a clue (0.34-0.44, all others 0.51 or
/// more); they wait for the next frame.
fn clues_better_than_even(clues: &Grid, evidence: &Sums) -> bool {
    (0..81).all(|cell| clues.0[cell] == 0 || evidence.sureness(cell) >= UNSURE_CELL)
}

/// `verdict`, not taken when it corrects readings of frames smeared by the camera's motion
/// (`smeared`): smeared cells read wrong as surely as right, and where one is sure and wrong the
/// correction falls on another (image1038 sliding in under a thumb: a printed 9 read surely as
/// empty, and the 2 beside the thumb "corrected" to a 9 gave a puzzle with one solution, the
/// wrong one, drawn for the rest of the clip). What solves as read stands; sharper frames come.
fn refuse_smeared_corrections(verdict: Verdict, smeared: bool) -> Verdict {
    match verdict {
        Verdict::Solved(d) if smeared && !d.corrections.is_empty() => {
            tracing::trace!(corrections = ?d.corrections, "no correction of a smeared reading");
            Verdict::Uncertain(d)
        }
        other => other,
    }
}

/// `verdict`, not taken when it changes a digit read into another while something lies over
/// the grid (cells hidden in the recent frames) and the clues as read (`clues`) have several
/// solutions: then the clue they lack most likely lies under the finger, and a clue in view
/// changed to make the puzzle unique is a guess. Cells beside a finger are read less surely, so
/// a clue read right over many frames is cheap to change (thumb:image1086 in `--set 1` under
/// NOISE_SEED=33: its 6 beside the thumb changed to an 8 after 28 frames, margin 3.0, drawn
/// wrong for 15 frames). The digits every solution agrees on are drawn meanwhile
/// ([`agreed_digits`]); the puzzle is solved once the finger moves. A cell read empty under the
/// finger given a digit stays allowed: what shows of the clue there decides it, and on the
/// simulated sets it was right each time (thumb:image11: lock 9 frames after whole in view
/// instead of 101 with every correction refused).
fn refuse_corrections_beside_hidden_cells(
    verdict: Verdict,
    clues: &Grid,
    evidence: &Sums,
) -> Verdict {
    match verdict {
        Verdict::Solved(d)
            if evidence.hidden_recently() && makes_unique_by_changing_a_digit(&d, clues) =>
        {
            tracing::trace!(corrections = ?d.corrections, "no correction while a clue may be hidden");
            Verdict::Uncertain(d)
        }
        other => other,
    }
}

/// Whether `decoded` changes a digit read into another where the clues as read (`clues`) have
/// several solutions: with something over the grid, the clue they lack most likely lies under
/// it, and a clue in view changed to make the puzzle unique is a guess (see
/// [`refuse_corrections_beside_hidden_cells`]). On a photo, a yellow marker laid over three cells
/// hid a 9 and a 1 the puzzle needs, and a 7 half under it was changed to a 9 at a margin of
/// 1.60 nats (the photo's 1.6 asked): one solution, the wrong one
/// (`02_10_honor_view_10_1` under session 36's `pen.py pen4`).
fn makes_unique_by_changing_a_digit(decoded: &Decoded, clues: &Grid) -> bool {
    decoded.corrections.iter().any(|c| c.read != 0)
        && matches!(solve(clues), Err(SolveError::Multiple { .. }))
}

/// Readings summed over this many recent frames: enough to outvote a blurred frame, few enough
/// that the frames read while the camera was still moving are soon forgotten.
const EVIDENCE_FRAMES: u32 = 3;
/// A reading this sure in every cell that still has no single solution is, after a while,
/// judged unsolvable or ambiguous.
pub const SURE: f32 = 0.9;
/// A sure reading that does not solve is judged unsolvable after this many frames.
pub const MAX_READING_FRAMES: u32 = 15;

/// The readings of one grid over the last few frames it was read in, summed twice: with the
/// digits the model took for handwriting left out of the clues, and with every digit taken as
/// printed (see [`judge_picture`] for why); and the newest reading's printed clues alone.
#[derive(Debug, Clone)]
pub struct Evidence {
    recent: Summed,
    newest: Sums,
    /// The newest reading itself: the entries written in, which a solution must not contradict.
    newest_reading: Option<GridReading>,
}

impl Default for Evidence {
    fn default() -> Self {
        Evidence {
            recent: Summed::over(EVIDENCE_FRAMES as usize),
            newest: Sums::over(1),
            newest_reading: None,
        }
    }
}

impl Evidence {
    pub fn new() -> Evidence {
        Evidence::default()
    }

    /// The likeliest printed clues given the recent frames.
    pub fn clues(&self) -> Grid {
        self.recent.printed.clues()
    }

    /// Whether some cell was seen hidden (a finger over the paper) in the readings so far.
    pub fn covered(&self) -> bool {
        self.recent.printed.hidden.contains(&true)
    }

    /// Readings added so far.
    pub fn frames(&self) -> u32 {
        self.recent.printed.frames
    }

    pub fn add(&mut self, reading: &GridReading) {
        self.recent.add(reading);
        self.newest.add(reading);
        self.newest_reading = Some(reading.clone());
    }
}

/// Readings over a window of frames, summed with and without the digits read as handwriting.
#[derive(Debug, Clone)]
struct Summed {
    printed: Sums,
    every_digit: Sums,
    handwriting_seen: bool,
}

impl Summed {
    fn over(window: usize) -> Summed {
        Summed {
            printed: Sums::over(window),
            every_digit: Sums::over(window),
            handwriting_seen: false,
        }
    }

    fn add(&mut self, reading: &GridReading) {
        self.printed.add(reading);
        self.every_digit.add(&reading.all_printed());
        self.handwriting_seen |= reading.has_handwriting();
    }

    /// [`judge_frames`] on these sums: the printed clues, or every digit taken as printed
    /// where only that gives one solution.
    fn judge(&self) -> Option<Judged> {
        let judged = judge_sums(&self.printed);
        if judged.as_ref().is_some_and(|j| j.status == Status::Solved) || !self.handwriting_seen {
            return judged;
        }
        if self.every_digit.smeared && self.every_digit.frames < 2 {
            // Entries taken as printed make a puzzle of many clues, which has one solution
            // however one of them is misread: not on one smeared frame (thumb:01_31,
            // `NOISE_SEED=21`, `--set 1`: a handwritten 2 read as 5 as the page slid in).
            return judged;
        }
        match judge_sums(&self.every_digit) {
            Some(every_digit) if every_digit.status == Status::Solved => {
                tracing::debug!(
                    "digits read as handwritten are taken as printed: only then is there one solution"
                );
                Some(every_digit)
            }
            _ => judged,
        }
    }
}

/// One reading as [`Sums`] keeps it.
#[derive(Debug, Clone)]
struct Frame {
    /// Each cell's clue log-likelihoods.
    clues: Vec<[f32; CLASSES]>,
    /// Cells read beside a hidden line or under something on the paper.
    hidden: [bool; 81],
    /// Cells read under something lying on the paper (a pen).
    under: [bool; 81],
    /// Whether the frame was read smeared.
    smeared: bool,
}

/// The summed clue likelihoods of one grid over its last few readings.
#[derive(Debug, Clone)]
struct Sums {
    /// How many of the newest readings are summed.
    window: usize,
    /// The recent frames, oldest first.
    recent: VecDeque<Frame>,
    log_likelihood: [[f32; CLASSES]; 81],
    /// Cells seen hidden in any frame read so far.
    hidden: [bool; 81],
    /// Whether any of the recent frames was read smeared.
    smeared: bool,
    frames: u32,
}

impl Sums {
    fn over(window: usize) -> Self {
        Sums {
            window,
            recent: VecDeque::with_capacity(window + 1),
            log_likelihood: [[0.0; CLASSES]; 81],
            hidden: [false; 81],
            smeared: false,
            frames: 0,
        }
    }
}

impl Sums {
    fn add(&mut self, reading: &GridReading) {
        let hidden = reading.hidden();
        self.recent.push_back(Frame {
            clues: clue_log_likelihoods(reading),
            hidden,
            under: reading.under(),
            smeared: reading.smeared(),
        });
        if self.recent.len() > self.window {
            self.recent.pop_front();
        }
        self.smeared = self.recent.iter().any(|frame| frame.smeared);
        // A cell once seen hidden is read as surely as a hidden one in every frame: a finger's
        // edge is not seen in every frame, and the frames that miss it read the cell as what
        // shows, surely. Not on a frame smeared by the camera's motion: the lines across the
        // smear fade there, and read as hidden beside every cell (the page sliding in), every
        // later reading of the grid was made less sure.
        if !reading.smeared() {
            for (ever, now) in self.hidden.iter_mut().zip(hidden) {
                *ever |= now;
            }
        }
        // A pen lying over a cell shows the same misleading strokes on every frame: all the
        // frames that saw it there count as one.
        let frames_under: [usize; 81] =
            std::array::from_fn(|i| self.recent.iter().filter(|frame| frame.under[i]).count());
        self.log_likelihood = [[0.0; CLASSES]; 81];
        for frame in &self.recent {
            for (i, (sum, cell)) in self.log_likelihood.iter_mut().zip(&frame.clues).enumerate() {
                let weight = if frame.under[i] {
                    1.0 / frames_under[i] as f32
                } else if self.hidden[i] && !frame.hidden[i] {
                    HIDDEN_CELL_POWER
                } else {
                    1.0
                };
                for (s, l) in sum.iter_mut().zip(cell) {
                    *s += weight * l.max(1e-6f32.ln());
                }
            }
        }
        self.frames += 1;
    }

    /// The likeliest clues given the recent frames.
    fn clues(&self) -> Grid {
        let mut grid = Grid::EMPTY;
        for (cell, l) in grid.0.iter_mut().zip(&self.log_likelihood) {
            *cell = argmax(l) as u8;
        }
        grid
    }

    /// The class every one of the recent frames read `cell` as at least [`AGREED_SURE`]ly, if
    /// the cell was never seen hidden.
    fn read_surely(&self, cell: usize) -> Option<usize> {
        let sure = AGREED_SURE.ln();
        let class = argmax(&self.recent.back()?.clues[cell]);
        (!self.hidden[cell]
            && self
                .recent
                .iter()
                .all(|frame| !frame.hidden[cell] && frame.clues[cell][class] >= sure))
        .then_some(class)
    }

    /// The probability of the likeliest class in the least sure cell.
    /// Whether any cell was hidden in one of the frames summed.
    fn hidden_recently(&self) -> bool {
        self.recent.iter().any(|frame| frame.hidden.contains(&true))
    }

    fn least_sure(&self) -> f32 {
        (0..81).map(|cell| self.sureness(cell)).fold(1.0, f32::min)
    }

    /// The probability of `cell`'s likeliest class, given the recent frames.
    fn sureness(&self, cell: usize) -> f32 {
        let l = &self.log_likelihood[cell];
        let top = l.iter().copied().fold(f32::MIN, f32::max);
        1.0 / l.iter().map(|v| (v - top).exp()).sum::<f32>()
    }
}

/// The puzzle as judged from the evidence of several frames, once it is enough; None to keep
/// reading.
///
/// From the first reading on, the most likely puzzle with one solution is decoded from the summed
/// evidence: a clue read as empty, an empty cell read as a clue or one digit taken for another
/// is set right when the puzzle's rules single it out. It is accepted only when no other puzzle
/// is nearly as likely; otherwise the grid is read again next frame, so that sharper frames can
/// settle it. Only a sure reading that stays without any such puzzle for [`MAX_READING_FRAMES`]
/// frames is judged unsolvable or ambiguous, and the caller treats even that as provisional.
/// Nor is a solution taken that the entries written in, as the newest frame shows them, speak
/// against (one read surely on a grid read poorly, as a photo's judgement asks): the grid is
/// read on.
pub fn judge_frames(evidence: &Evidence) -> Option<Judged> {
    let judged = judge_summed_frames(evidence);
    let against = |j: &Judged| {
        let newest = evidence.newest_reading.as_ref();
        j.solution
            .as_ref()
            .zip(newest)
            .is_some_and(|(solution, reading)| written_against(reading, &j.clues, solution))
    };
    match judged {
        Some(j) if against(&j) => {
            tracing::debug!(corrections = ?j.corrections, "the entries written in say otherwise: reading on");
            None
        }
        other => other,
    }
}

/// [`judge_frames`] before the entries written in are heard.
fn judge_summed_frames(evidence: &Evidence) -> Option<Judged> {
    let judged = evidence.recent.judge();
    if judged.as_ref().is_some_and(|j| j.status == Status::Solved) || evidence.frames() < 2 {
        return judged;
    }
    // The newest frame alone, as a photo of it would be, where its clues solve as read: the
    // frames before it, smeared while the page slid in, read some clues surely as empty, and
    // summed with them the first sharp frame was not clearly ahead (handheld:image1070: margin
    // 0.5 and 1.5 on two frames whose own reading was solved). Corrections still wait for
    // the sum: a single frame's is what the sum guards against. So do the digits read as
    // handwritten: taken as printed on one frame, a page filled in by hand (rightly) read as a
    // puzzle of 81 clues instead of the one printed.
    match judge_sums(&evidence.newest) {
        Some(newest) if newest.status == Status::Solved && newest.corrections.is_empty() => {
            tracing::debug!("the newest frame alone solves as read");
            Some(newest)
        }
        _ => judged,
    }
}

/// How sure each of the last [`EVIDENCE_FRAMES`] readings must read a cell (the likeliest
/// class's probability) for [`agreed_digits`] to build on it: summed, three frames at 0.6 look
/// sure, and two frames read a 1 as 3 at 0.6 and a 6 as 8 at 0.7 (handheld:image43,
/// `NOISE_SEED=11`). At 0.9 a blurry page (thumb:image43) keeps 21 of its 25 clues in view, too
/// few to agree on anything; at 0.7, 24-25.
const AGREED_SURE: f32 = 0.7;
/// The most solutions the surely read clues may have for [`agreed_digits`] to draw what they
/// agree on: a near-minimal puzzle with two clues hidden or left out has some hundred, and
/// still agrees on a third of its cells; past this, on few.
const AGREED_SOLUTIONS: usize = 256;

/// While no puzzle is judged yet: the digits every solution of the clues read surely agrees on,
/// in the cells read surely empty; None when there is no such digit, or the clues read surely
/// have no solution or too many (more than 256).
///
/// Why: a finger or glare over a clue the puzzle needs leaves it with several solutions until
/// it moves (thumb:image43 held the page for 4 s with a needed clue under the thumb: nothing
/// drawn for 100 frames). The printed puzzle's solution is one of the solutions of any of its
/// clues, so where all of those agree it is known, whatever the hidden clue is. Only what each
/// of the last 3 sharp readings read at least 0.7 surely is built on: a
/// clue read as another digit would break that, while a clue left out (unsure, hidden) only
/// leaves more solutions. Cells hidden, or showing a digit of any kind (a clue read unsurely,
/// somebody's entry), get nothing drawn.
pub fn agreed_digits(evidence: &Evidence) -> Option<Judged> {
    let printed = &evidence.recent.printed;
    if printed.frames < EVIDENCE_FRAMES || printed.smeared {
        return None;
    }
    let mut clues = Grid::EMPTY;
    let mut empty = [false; 81];
    for (cell, (clue, empty)) in clues.0.iter_mut().zip(&mut empty).enumerate() {
        match printed.read_surely(cell) {
            Some(0) => *empty = evidence.recent.every_digit.read_surely(cell) == Some(0),
            Some(digit) => *clue = digit as u8,
            None => {}
        }
    }
    let mut agreed = forced(&clues, AGREED_SOLUTIONS)?;
    for (digit, empty) in agreed.0.iter_mut().zip(empty) {
        if !empty {
            *digit = 0;
        }
    }
    if agreed == Grid::EMPTY {
        return None;
    }
    Some(Judged {
        clues,
        solution: Some(agreed),
        status: Status::Partial,
        corrections: Vec::new(),
        margin: None,
    })
}

/// [`judge_frames`] on one way of summing the readings.
fn judge_sums(evidence: &Sums) -> Option<Judged> {
    // Judged from the first reading on: what holds back a verdict on an unsure reading (the page
    // still sliding in, smeared) is the decoder's margin. Waiting for two readings whose likeliest
    // clues agree cost the hand-held clips a frame or two each (29 -> 37 of 62 appearances locked
    // within 10 frames of being whole in view, none drawn wrong).
    if evidence.frames == 0 {
        return None;
    }
    let clues = evidence.clues();
    let verdict = decode(
        &clues,
        &evidence.log_likelihood,
        open_to_correction(&evidence.hidden, |cell| {
            evidence.sureness(cell) < UNSURE_CELL
        }),
        Budget::FRAME,
    );
    // Clues that solve as read need only the margin a photo asks of a change: the frames
    // agree on them, and no change is being made on doubtful evidence. Not while a clue is
    // read unsurely: two frames of a page sliding in read a 1 as 3 (0.6) and a 6 as 8 (0.7) and
    // solved as read with margin 2.6, the wrong puzzle (handheld:image43, NOISE_SEED=11).
    let verdict = match verdict {
        Verdict::Uncertain(d)
            if d.corrections.is_empty()
                && d.margin >= Budget::PHOTO.margin
                && clues_read_surely(&d.clues, evidence) =>
        {
            Verdict::Solved(d)
        }
        other => other,
    };
    let verdict = refuse_smeared_corrections(verdict, evidence.smeared);
    let verdict = refuse_corrections_beside_hidden_cells(verdict, &clues, evidence);
    let verdict = match verdict {
        Verdict::Solved(d)
            if evidence.frames == 1 && !clues_better_than_even(&d.clues, evidence) =>
        {
            tracing::debug!(
                "solved on one frame with a clue read at less than even odds: reading on"
            );
            Verdict::Uncertain(d)
        }
        other => other,
    };
    if let Verdict::Solved(d) = verdict {
        tracing::debug!(frames = evidence.frames, margin = d.margin, corrections = ?d.corrections, "solved");
        return Some(Judged {
            clues: d.clues,
            solution: Some(d.solution),
            status: Status::Solved,
            corrections: d.corrections,
            margin: Some(d.margin),
        });
    }
    tracing::trace!(?verdict, %clues, "not sure which puzzle yet");
    let sure = evidence.least_sure() >= SURE && evidence.frames >= MAX_READING_FRAMES;
    match solve(&clues) {
        Err(error) if sure => Some(Judged {
            clues,
            solution: None,
            status: Status::of(&error),
            corrections: Vec::new(),
            margin: None,
        }),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::recognize::read::CellReading;

    #[test]
    fn entries_are_handwritten_or_sure_digits_beside_the_clues_and_hidden_cells_keep_the_last_seen()
    {
        let clues: Grid = PUZZLE.parse().unwrap();
        let empty: Vec<usize> = (0..81).filter(|&i| clues.0[i] == 0).collect();
        let mut written = clues;
        written.0[empty[0]] = 4;
        written.0[empty[1]] = 7;
        let mut reading = reading_of(&written, 0.95);
        reading.0[empty[1]].handwritten = true;
        reading.0[empty[1]].confidence = 0.6;
        let entries = entries_of(&reading, &clues);
        assert_eq!((entries.0[empty[0]], entries.0[empty[1]]), (4, 7));
        assert_eq!(
            entries.0.iter().filter(|&&d| d != 0).count(),
            2,
            "clues are no entries"
        );
        // A finger over the first: what was seen there before stays; the second, seen empty
        // now, is rubbed out.
        let mut covered = reading_of(&clues, 0.95);
        covered.0[empty[0]] = covered.0[empty[0]].hidden(HIDDEN_CELL_POWER);
        let now = entries_seen(&covered, &clues, &entries);
        assert_eq!((now.0[empty[0]], now.0[empty[1]]), (4, 0));
    }

    #[test]
    fn a_wrong_entry_read_surely_in_readings_in_a_row_is_circled_and_stays_while_blurred_or_hidden()
    {
        let clues: Grid = PUZZLE.parse().unwrap();
        let solution = solve(&clues).unwrap();
        let empty: Vec<usize> = (0..81).filter(|&i| clues.0[i] == 0).collect();
        let (wrong, right) = (empty[0], empty[1]);
        let mut written = clues;
        written.0[wrong] = solution.0[wrong] % 9 + 1;
        written.0[right] = solution.0[right];
        let seen = |reading: &GridReading, before: &WrongMarks| {
            before.see(reading, &entries_of(reading, &clues), &solution)
        };
        let by_hand = |sureness: f32| {
            let mut reading = reading_of(&written, sureness);
            reading.0[wrong].handwritten = true;
            reading.0[right].handwritten = true;
            reading
        };
        // Circled once MARK_AFTER readings in a row are sure of it.
        let mut marks = WrongMarks::NONE;
        for _ in 1..MARK_AFTER {
            marks = seen(&by_hand(0.95), &marks);
            assert_eq!(marks.circled(), Grid::EMPTY);
        }
        marks = seen(&by_hand(0.95), &marks);
        let circled = marks.circled();
        assert_eq!(circled.0[wrong], written.0[wrong]);
        assert_eq!(circled.0.iter().filter(|&&d| d != 0).count(), 1);
        // Read unsurely (a blurred frame): stays circled, but a streak not yet circled is broken.
        let mut blurred = by_hand(0.95);
        blurred.0[wrong].confidence = 0.6;
        assert_eq!(seen(&blurred, &marks).circled(), circled);
        let started = seen(&by_hand(0.95), &WrongMarks::NONE);
        assert_eq!(seen(&blurred, &started), WrongMarks::NONE);
        // Under a finger: kept. Rubbed out: gone.
        let mut covered = reading_of(&clues, 0.95);
        covered.0[wrong] = covered.0[wrong].hidden(HIDDEN_CELL_POWER);
        assert_eq!(seen(&covered, &marks).circled(), circled);
        assert_eq!(
            seen(&reading_of(&clues, 0.95), &marks).circled(),
            Grid::EMPTY
        );
    }

    #[test]
    fn a_cell_once_seen_hidden_is_read_less_surely_in_every_frame() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let mut sums = Sums::over(EVIDENCE_FRAMES as usize);
        let mut first = reading_of(&clues, 0.99);
        first.0[0] = first.0[0].hidden(HIDDEN_CELL_POWER);
        sums.add(&first);
        sums.add(&reading_of(&clues, 0.99));
        let margin = |l: &[f32; CLASSES]| {
            let mut sorted = *l;
            sorted.sort_by(|a, b| b.total_cmp(a));
            sorted[0] - sorted[1]
        };
        // Cell 0 was hidden in the first frame only: the second frame's sure reading of it
        // counts for as little as the first's.
        let sure = margin(&sums.log_likelihood[1]);
        let hidden = margin(&sums.log_likelihood[0]);
        assert!(
            (hidden - HIDDEN_CELL_POWER * sure).abs() < 1e-3 * sure,
            "{hidden} vs {sure}"
        );
        // And only the hidden cell is open to correction: the others are read surely.
        let open = open_to_correction(&sums.hidden, |cell| sums.sureness(cell) < UNSURE_CELL);
        assert!(open(0) && !open(1) && !open(80));
        assert!(open_to_correction(&[false; 81], |_| false)(80));
        // The live view says the grid is covered from the first hidden reading on.
        let mut evidence = Evidence::new();
        evidence.add(&reading_of(&clues, 0.99));
        assert!(!evidence.covered());
        evidence.add(&first);
        evidence.add(&reading_of(&clues, 0.99));
        assert!(evidence.covered());
        // Lines faded by the camera's motion are no finger: a smeared frame's hidden cells are
        // not held against the sharp frames after it.
        let mut smeared = first.clone();
        for cell in &mut smeared.0 {
            cell.smeared = true;
        }
        let mut sums = Sums::over(EVIDENCE_FRAMES as usize);
        sums.add(&smeared);
        sums.add(&reading_of(&clues, 0.99));
        assert!(!sums.hidden.contains(&true));
    }

    #[test]
    fn a_pen_over_the_same_cell_frame_after_frame_is_one_frames_evidence() {
        // Cell 2 (empty) lies under a pen that makes it look like a 1, on every frame: summed,
        // it stays as unsure as one hidden reading, however many frames saw it.
        let clues: Grid = PUZZLE.parse().unwrap();
        let mut penned = reading_of(&clues, 0.99);
        penned.0[2].digit = 1;
        read_as(&mut penned.0[2], {
            let mut p = [0.001; CLASSES];
            p[1] = 0.991;
            p
        });
        penned.0[2] = CellReading {
            under: true,
            ..penned.0[2].hidden(HIDDEN_CELL_POWER)
        };
        let mut once = Sums::over(EVIDENCE_FRAMES as usize);
        once.add(&penned);
        let mut many = Sums::over(EVIDENCE_FRAMES as usize);
        for _ in 0..EVIDENCE_FRAMES {
            many.add(&penned);
        }
        assert!(
            (many.sureness(2) - once.sureness(2)).abs() < 1e-4,
            "{} vs {}",
            many.sureness(2),
            once.sureness(2)
        );
        assert!(many.sureness(2) < AS_READ_SURE);
        // The cells beside it, read the same way each frame, add up as ever.
        assert!(many.sureness(3) >= once.sureness(3));
    }

    #[test]
    fn statuses_follow_the_solver() {
        let puzzle: Grid =
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
                .parse()
                .unwrap();
        assert_eq!(solve_clues(&puzzle).1, Status::Solved);
        assert_eq!(solve_clues(&Grid::EMPTY), (None, Status::Multiple));
        let mut twice = puzzle;
        twice.0[0] = 1; // row 0 has a 1 already
        assert_eq!(solve_clues(&twice), (None, Status::Invalid));
    }

    pub(crate) fn reading_of(clues: &Grid, sureness: f32) -> GridReading {
        GridReading(
            clues
                .0
                .iter()
                .map(|&d| {
                    let mut p = [(1.0 - sureness) / 9.0; CLASSES];
                    p[d as usize] = sureness;
                    CellReading {
                        digit: d,
                        handwritten: false,
                        confidence: sureness,
                        probabilities: p,
                        as_clue: p,
                        hidden: false,
                        smeared: false,
                        under: false,
                        entry_by_ink: false,
                    }
                })
                .collect(),
        )
    }

    /// `cell`, still read as its digit, with these probabilities (printed alike).
    fn read_as(cell: &mut CellReading, probabilities: [f32; CLASSES]) {
        cell.probabilities = probabilities;
        cell.as_clue = probabilities;
        cell.confidence = probabilities[cell.digit as usize];
    }

    pub(crate) const PUZZLE: &str =
        "530070000600195000098000060800060003400803001700020006060000280000419005000080079";

    /// `clues` with clues taken away in turn, from the last, until the rest have more than one
    /// solution, and the cell of the last one taken: a clue the puzzle needs.
    fn without_a_needed_clue(clues: &Grid) -> (Grid, usize) {
        let mut seen = *clues;
        let under = (0..81)
            .rev()
            .filter(|&c| clues.0[c] != 0)
            .find(|&c| {
                seen.0[c] = 0;
                solve(&seen).is_err()
            })
            .expect("some clue is needed");
        (seen, under)
    }

    /// A clue of `clues` and another digit that, put there instead, still leave one solution.
    fn other_digit_with_one_solution(clues: &Grid) -> (usize, u8) {
        (0..81)
            .filter(|&c| clues.0[c] != 0)
            .flat_map(|c| (1..=9u8).map(move |d| (c, d)))
            .find(|&(c, d)| {
                let mut other = *clues;
                other.0[c] = d;
                d != clues.0[c] && solve(&other).is_ok()
            })
            .expect("some other digit in a clue leaves one solution")
    }

    #[test]
    fn while_a_clue_the_puzzle_needs_is_hidden_the_digits_all_its_solutions_agree_on_are_drawn() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let solution = solve(&clues).unwrap();
        // Clues taken away in turn until the rest have more than one solution: the last one
        // lies under a finger, the others read (surely) as empty.
        let (seen, under) = without_a_needed_clue(&clues);
        let mut reading = reading_of(&seen, 0.95);
        reading.0[under] = reading.0[under].hidden(HIDDEN_CELL_POWER);
        let mut evidence = Evidence::new();
        for _ in 1..EVIDENCE_FRAMES {
            evidence.add(&reading);
            assert_eq!(
                agreed_digits(&evidence),
                None,
                "not before {EVIDENCE_FRAMES} readings"
            );
        }
        evidence.add(&reading);
        assert!(judge_frames(&evidence).is_none_or(|j| j.solution.is_none()));
        let agreed = agreed_digits(&evidence).expect("digits agreed on");
        assert_eq!(agreed.status, Status::Partial);
        let digits = agreed.solution.unwrap();
        let drawn: Vec<usize> = (0..81).filter(|&c| digits.0[c] != 0).collect();
        assert!(drawn.len() >= 20, "{} digits", drawn.len());
        for &cell in &drawn {
            assert_eq!(digits.0[cell], solution.0[cell]);
            assert!(
                seen.0[cell] == 0 && cell != under,
                "nothing drawn over a digit or a finger"
            );
        }
        // A clue read as another digit, the same way on every frame but not surely (summed,
        // it looks sure), is left out, not built on: the digits are those of the clues without
        // it.
        let shown = (0..81).find(|&c| seen.0[c] != 0).unwrap();
        let mut misread = reading.clone();
        let mut p = [0.35 / 9.0; CLASSES];
        p[(seen.0[shown] % 9 + 1) as usize] = 0.6;
        p[seen.0[shown] as usize] += 0.05;
        read_as(&mut misread.0[shown], p);
        let mut without = seen;
        without.0[shown] = 0;
        let expected = forced(&without, AGREED_SOLUTIONS).map(|mut g| {
            for cell in 0..81 {
                if seen.0[cell] != 0 || cell == under {
                    g.0[cell] = 0;
                }
            }
            g
        });
        let mut evidence = Evidence::new();
        for _ in 0..EVIDENCE_FRAMES {
            evidence.add(&misread);
        }
        assert!(evidence.recent.printed.sureness(shown) > 0.99);
        assert_eq!(agreed_digits(&evidence).and_then(|j| j.solution), expected);
        // Nothing on a frame smeared by the camera's motion.
        let mut smeared = reading.clone();
        smeared.0[40].smeared = true;
        evidence.add(&smeared);
        assert_eq!(agreed_digits(&evidence), None);
    }

    #[test]
    fn a_sure_reading_is_judged_from_its_first_frame() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let mut evidence = Evidence::new();
        evidence.add(&reading_of(&clues, 0.95));
        let known = judge_frames(&evidence).expect("a sure frame");
        assert_eq!(known.status, Status::Solved);
        assert_eq!(known.clues, clues);
    }

    /// The decoder's 17-clue puzzle, with the clues in `cells` read as surely handwritten
    /// (and one of them changed to `wrong`, when given).
    fn with_print_taken_for_handwriting(cells: &[usize], wrong: Option<u8>) -> (Grid, GridReading) {
        let clues: Grid = SEVENTEEN.parse().unwrap();
        let mut reading = reading_of(&clues, 0.999);
        for (k, &cell) in cells.iter().enumerate() {
            let digit = match wrong {
                Some(w) if k == 0 => w,
                _ => clues.0[cell],
            };
            let r = &mut reading.0[cell];
            r.digit = digit;
            r.handwritten = true;
            r.probabilities = [1e-6; CLASSES];
            r.probabilities[digit as usize] = 0.999;
            r.as_clue = [1e-6; CLASSES];
            r.as_clue[0] = 0.999;
        }
        (clues, reading)
    }

    pub(crate) const SEVENTEEN: &str =
        "000000010400000000020000000000050407008000300001090000300400200050100000000806000";

    #[test]
    fn print_taken_for_handwriting_is_a_clue_when_only_then_the_puzzle_has_one_solution() {
        let (clues, reading) = with_print_taken_for_handwriting(&[7, 9, 19], None);
        assert_eq!(solve_clues(&reading.printed()).1, Status::Multiple);
        let judged = judge_picture(&reading, AsRead::Stands);
        assert_eq!(judged.status, Status::Solved);
        assert_eq!(judged.clues, clues);

        let mut evidence = Evidence::new();
        evidence.add(&reading);
        evidence.add(&reading);
        let judged = judge_frames(&evidence).expect("two agreeing frames");
        assert_eq!((judged.status, judged.clues), (Status::Solved, clues));

        // Not on one frame smeared by the camera's motion; on two, yes.
        let mut smeared = reading.clone();
        smeared.0[40].smeared = true;
        let mut evidence = Evidence::new();
        evidence.add(&smeared);
        assert!(judge_frames(&evidence).is_none_or(|j| j.status != Status::Solved));
        evidence.add(&smeared);
        let judged = judge_frames(&evidence).expect("two agreeing frames");
        assert_eq!((judged.status, judged.clues), (Status::Solved, clues));
    }

    #[test]
    fn handwriting_that_breaks_the_rules_stays_out_of_the_clues() {
        // Cell 7 holds a 1: a 2 written there leaves every digit together without one solution.
        let (_, reading) = with_print_taken_for_handwriting(&[7, 9, 19], Some(2));
        assert_ne!(
            solve_clues(&reading.all_printed().printed()).1,
            Status::Solved
        );
        let judged = judge_picture(&reading, AsRead::Stands);
        assert_eq!(judged.status, Status::Multiple);
        assert_eq!(judged.clues, reading.printed());
    }

    /// The 17-clue puzzle of the decoder's tests with its 3 in cell 54 lost.
    const SEVENTEEN_LESS_ONE: &str =
        "000000010400000000020000000000050407008000300001090000000400200050100000000806000";

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
            assert!(judge_frames(&evidence).is_none());
        }
    }

    /// `clues` read `sure`ly without a clue the puzzle needs (cell `under`, read empty), and with
    /// a clue (cell `beside`) read right at 0.6 against 0.35 for another digit that would make
    /// the clues read a puzzle with one solution; and `[beside, under]`.
    fn a_needed_clue_lacking_beside_a_torn_one(
        clues: &Grid,
        sure: f32,
    ) -> (GridReading, [usize; 2]) {
        let (seen, under) = without_a_needed_clue(clues);
        let (beside, invented) = other_digit_with_one_solution(&seen);
        let mut reading = reading_of(&seen, sure);
        let mut torn = [0.05 / 8.0; CLASSES];
        torn[seen.0[beside] as usize] = 0.6;
        torn[invented as usize] = 0.35;
        read_as(&mut reading.0[beside], torn);
        (reading, [beside, under])
    }

    #[test]
    fn while_a_clue_the_puzzle_needs_is_hidden_no_clue_in_view_is_corrected_to_make_it_unique() {
        // A needed clue under the finger; a clue beside it read right, but less surely (a
        // corner of the fingertip over it), and another digit there would make the clues in
        // view a puzzle with one solution (thumb:image1086, NOISE_SEED=33: a 6 "corrected" to 8).
        let clues: Grid = PUZZLE.parse().unwrap();
        let (mut reading, [beside, under]) = a_needed_clue_lacking_beside_a_torn_one(&clues, 0.95);
        reading.0[beside] = reading.0[beside].hidden(HIDDEN_CELL_POWER);
        reading.0[under] = reading.0[under].hidden(HIDDEN_CELL_POWER);
        let mut evidence = Evidence::new();
        for _ in 0..3 * EVIDENCE_FRAMES {
            evidence.add(&reading);
            let judged = judge_frames(&evidence);
            assert!(
                judged.as_ref().is_none_or(|j| j.solution.is_none()),
                "{judged:?}"
            );
        }
        // The finger gone: solved as read.
        for _ in 0..EVIDENCE_FRAMES {
            evidence.add(&reading_of(&clues, 0.95));
        }
        let judged = judge_frames(&evidence).expect("solved");
        assert_eq!((judged.status, judged.clues), (Status::Solved, clues));
    }

    #[test]
    fn a_photo_with_a_needed_clue_hidden_gets_no_clue_in_view_changed_to_make_it_unique() {
        // As in video above: a needed clue under a marker, a clue half under it read right but
        // less surely, and another digit there would make the clues in view a puzzle with one
        // solution (02_10_honor_view_10_1 under a yellow marker: a 7 "corrected" to a 9).
        let clues: Grid = PUZZLE.parse().unwrap();
        // Read surely elsewhere: a clue under the marker costs more than the one change in view.
        let (mut reading, [beside, under]) = a_needed_clue_lacking_beside_a_torn_one(&clues, 0.99);
        // In plain view nothing says a clue is missing: the one change in view that makes the
        // puzzle unique is taken, as a misread clue is corrected.
        let judged = judge_picture(&reading, AsRead::Stands);
        assert_eq!(judged.status, Status::Solved, "{judged:?}");
        // With the cells under the marker hidden, the clue lacking may lie there: nothing.
        reading.0[beside] = reading.0[beside].hidden(HIDDEN_CELL_POWER);
        reading.0[under] = reading.0[under].hidden(HIDDEN_CELL_POWER);
        let judged = judge_picture(&reading, AsRead::Stands);
        assert_eq!(judged.solution, None, "{judged:?}");
    }

    #[test]
    fn a_puzzle_solved_on_one_frame_with_a_clue_read_at_less_than_even_odds_waits_for_the_next() {
        // A clue misread as another digit that still leaves one solution (thumb:image44: a 3
        // read as 2 at 0.34).
        let clues: Grid = PUZZLE.parse().unwrap();
        let (cell, misread) = other_digit_with_one_solution(&clues);
        let mut wrong = clues;
        wrong.0[cell] = misread;
        let mut first = reading_of(&clues, 0.99);
        let mut unsure = [0.58 / 8.0; CLASSES];
        unsure[misread as usize] = 0.4;
        unsure[clues.0[cell] as usize] = 0.01;
        first.0[cell].digit = misread;
        read_as(&mut first.0[cell], unsure);
        let mut evidence = Evidence::new();
        evidence.add(&first);
        assert_eq!(judge_frames(&evidence), None, "the one frame is not enough");
        // Read sharper on the next frame: the sum is right.
        evidence.add(&reading_of(&clues, 0.95));
        let judged = judge_frames(&evidence).expect("judged on two frames");
        assert_eq!((judged.status, judged.clues), (Status::Solved, clues));
        // The same clue read at better than even odds on the one frame: solved as read.
        let mut sure = first.clone();
        unsure[misread as usize] = 0.6;
        unsure[clues.0[cell] as usize] = 0.01;
        unsure.iter_mut().enumerate().for_each(|(d, p)| {
            if d != misread as usize && d != clues.0[cell] as usize {
                *p = 0.39 / 8.0;
            }
        });
        read_as(&mut sure.0[cell], unsure);
        let mut evidence = Evidence::new();
        evidence.add(&sure);
        let judged = judge_frames(&evidence).expect("solved on one frame");
        assert_eq!((judged.status, judged.clues), (Status::Solved, wrong));
    }

    /// `clues` read surely but for cell 55, read as its digit at `sureness` against a 7.
    fn doubting_cell_55(clues: &Grid, sureness: f32) -> GridReading {
        let mut reading = reading_of(clues, 0.99);
        let mut doubt = [0.0; CLASSES];
        doubt[clues.0[55] as usize] = sureness;
        doubt[7] = 1.0 - sureness;
        read_as(&mut reading.0[55], doubt);
        reading
    }

    #[test]
    fn a_photo_torn_between_two_puzzles_gets_no_solution() {
        // Cell 55 read as a 3 against a 7: with either the puzzle has one solution, different
        // ones.
        let mut clues: Grid = SEVENTEEN_LESS_ONE.parse().unwrap();
        clues.0[55] = 3;
        // In plain view a photo's reading that solves as read stands, there being no second
        // look, when the other puzzle is less than half as likely (70% against 30%)...
        let mut reading = doubting_cell_55(&clues, 0.7);
        let judged = judge_picture(&reading, AsRead::Stands);
        assert_eq!((judged.status, judged.clues), (Status::Solved, clues));
        // ...not when it is torn between them (55% against 45%).
        let judged = judge_picture(&doubting_cell_55(&clues, 0.55), AsRead::Stands);
        assert_eq!((judged.status, judged.solution), (Status::Unsure, None));
        // Nor where the picture's readings are not trusted so far (smoothed of coarse grain)...
        let judged = judge_picture(&reading, AsRead::MustLead);
        assert_eq!((judged.status, judged.solution), (Status::Unsure, None));
        // ...where a reading clearly ahead still stands.
        let judged = judge_picture(&reading_of(&clues, 0.99), AsRead::MustLead);
        assert_eq!((judged.status, judged.clues), (Status::Solved, clues));
        // Beside a finger or glare the cell may show only part of a digit: draw nothing.
        reading.0[55].hidden = true;
        let judged = judge_picture(&reading, AsRead::Stands);
        assert_eq!((judged.status, judged.solution), (Status::Unsure, None));
    }

    #[test]
    fn a_lead_beyond_the_photos_search_is_searched_for() {
        // Cell 55 read as a 3 (88%) against a 7, each leaving one solution: solved, the photo's
        // search stopping 1.6 nats past the reading, and 2 nats behind it lies the other.
        let mut clues: Grid = SEVENTEEN_LESS_ONE.parse().unwrap();
        clues.0[55] = 3;
        let reading = doubting_cell_55(&clues, 0.88);
        let judged = judge_picture(&reading, AsRead::Stands);
        let solution = judged.solution.expect("solved as read");
        assert!(leads_by(&reading, &solution, judged.margin, 1.9));
        assert!(!leads_by(&reading, &solution, judged.margin, 3.0));
        // Read surely, it leads by 3 and more.
        let sure = reading_of(&clues, 0.99);
        let judged = judge_picture(&sure, AsRead::Stands);
        assert!(leads_by(&sure, &solution, judged.margin, 3.0));
    }

    #[test]
    fn a_photo_read_poorly_must_lead_further_to_stand_as_read() {
        // Cell 55 read as a 3 (70%) against a 7, each leaving one solution: read well
        // elsewhere, the reading stands (`a_photo_torn_between_two_puzzles_gets_no_solution`).
        // With every other digit read at 0.9, the model is surer than it is right there too:
        // a reading that far ahead (0.85 nats) is not taken...
        let mut clues: Grid = SEVENTEEN_LESS_ONE.parse().unwrap();
        clues.0[55] = 3;
        let poorly = |sureness| {
            let mut reading = reading_of(&clues, 0.9);
            let mut doubt = [0.0; CLASSES];
            doubt[3] = sureness;
            doubt[7] = 1.0 - sureness;
            read_as(&mut reading.0[55], doubt);
            reading
        };
        assert!(poorly(0.7).printed_sureness() < READ_WELL);
        let judged = judge_picture(&poorly(0.7), AsRead::Stands);
        assert_eq!((judged.status, judged.solution), (Status::Unsure, None));
        // ...one more than three times as likely as the other (80% against 20%) is.
        let judged = judge_picture(&poorly(0.8), AsRead::Stands);
        assert_eq!((judged.status, judged.clues), (Status::Solved, clues));
    }

    /// [`SEVENTEEN_LESS_ONE`] with cell 55 read as a 3: those clues, their one solution, and
    /// the one solution with a 7 there instead.
    fn cell_55_as_3_or_7() -> (Grid, Grid, Grid) {
        let mut clues: Grid = SEVENTEEN_LESS_ONE.parse().unwrap();
        clues.0[55] = 3;
        let as_3 = solve(&clues).unwrap();
        let mut with_7 = clues;
        with_7.0[55] = 7;
        (clues, as_3, solve(&with_7).unwrap())
    }

    /// `cell` read as `digit` written in by hand, `sureness` surely.
    fn written_in(cell: &mut CellReading, digit: u8, sureness: f32) {
        cell.digit = digit;
        cell.handwritten = true;
        cell.confidence = sureness;
        cell.probabilities = [(1.0 - sureness) / 9.0; CLASSES];
        cell.probabilities[digit as usize] = sureness;
        cell.as_clue = [0.0; CLASSES];
        cell.as_clue[0] = 1.0;
    }

    #[test]
    fn a_photo_solving_only_as_read_against_the_entries_written_in_gets_no_solution() {
        // As above: cell 55 read as a 3 (70%) against a 7, each leaving one solution.
        let (clues, as_read, other) = cell_55_as_3_or_7();
        let written = |solution: &Grid, how_many: usize| {
            let mut reading = doubting_cell_55(&clues, 0.7);
            let differ = (0..81).filter(|&c| clues.0[c] == 0 && as_read.0[c] != other.0[c]);
            for cell in differ.take(how_many) {
                written_in(&mut reading.0[cell], solution.0[cell], 0.95);
            }
            judge_picture(&reading, AsRead::Stands)
        };
        // Entries that agree with the solution, or two that do not (slips), leave it standing...
        assert_eq!(written(&as_read, 6).solution, Some(as_read));
        assert_eq!(written(&other, 2).solution, Some(as_read));
        // ...more say the clues were misread: here, taken as print, they settle the torn cell.
        assert_eq!(written(&other, 3).solution, Some(other));
    }

    #[test]
    fn on_a_grid_read_poorly_one_sure_entry_against_the_solution_withholds_it() {
        // Cell 55, a printed 7, read surely as a 3 (one solution, the wrong one); a printed
        // digit of the right solution taken for handwriting, read surely, contradicts it.
        let (clues, wrong, right) = cell_55_as_3_or_7();
        let Some(cell) = (0..81).find(|&c| clues.0[c] == 0 && wrong.0[c] != right.0[c]) else {
            panic!("the two solutions differ beside cell 55");
        };
        let read_with_sureness = |sureness: f32| {
            let mut reading = reading_of(&clues, sureness);
            written_in(&mut reading.0[cell], right.0[cell], 0.997);
            reading
        };
        let judged_in_video = |reading: &GridReading| {
            let mut evidence = Evidence::new();
            for _ in 0..3 {
                evidence.add(reading);
            }
            judge_frames(&evidence).and_then(|j| j.solution)
        };
        // Read well, the one entry against the solution is a slip, to be circled.
        let well = read_with_sureness(0.98);
        assert!(well.printed_sureness() >= READ_WELL);
        assert_eq!(judge_picture(&well, AsRead::Stands).solution, Some(wrong));
        assert_eq!(judged_in_video(&well), Some(wrong));
        // Read poorly, it may as well be a clue the puzzle lacks: nothing is drawn.
        let poorly = read_with_sureness(0.85);
        assert!(poorly.printed_sureness() < READ_WELL);
        let judged = judge_picture(&poorly, AsRead::Stands);
        assert_eq!((judged.solution, judged.status), (None, Status::Unsure));
        assert_eq!(judged_in_video(&poorly), None);
    }

    #[test]
    fn a_faint_mark_away_from_something_over_the_grid_is_no_sure_clue() {
        // Cell 55 read as a 7 at 30% (a speck), empty and a 3 close behind: taken as a clue,
        // the 7 gives one solution, and so would a 3.
        let mut clues: Grid = SEVENTEEN_LESS_ONE.parse().unwrap();
        clues.0[55] = 7;
        let mut reading = reading_of(&clues, 0.99);
        reading.0[80].hidden = true; // a glare spot elsewhere
        let judged = judge_picture(&reading, AsRead::Stands);
        assert_eq!(
            (judged.status, judged.clues),
            (Status::Solved, clues),
            "read surely, it stands"
        );
        let mut speck = [0.2 / 6.0; CLASSES];
        speck[0] = 0.28;
        speck[3] = 0.22;
        speck[7] = 0.3;
        read_as(&mut reading.0[55], speck);
        let judged = judge_picture(&reading, AsRead::Stands);
        assert_eq!((judged.status, judged.solution), (Status::Unsure, None));
    }

    /// A sure reading of `SEVENTEEN_LESS_ONE` whose cell 54 shows its 3 faded: "empty" at 90%,
    /// the 3 at 9%.
    fn faded_three() -> GridReading {
        let clues: Grid = SEVENTEEN_LESS_ONE.parse().unwrap();
        let mut reading = reading_of(&clues, 0.99);
        let faded = &mut reading.0[54];
        faded.as_clue = [0.001; CLASSES];
        faded.as_clue[0] = 0.9;
        faded.as_clue[3] = 0.092;
        reading
    }

    #[test]
    fn clue_read_as_empty_is_restored_when_the_rules_point_at_it() {
        // Cell 54's 3 blurred into "empty" at 90%, in every frame: without it the puzzle has
        // many solutions; with it, one.
        let truth: Grid =
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
                .parse()
                .unwrap();
        let reading = faded_three();
        let mut evidence = Evidence::new();
        evidence.add(&reading);
        evidence.add(&reading);
        let known = judge_frames(&evidence).expect("judged from two frames");
        assert_eq!((known.clues, known.status), (truth, Status::Solved));
    }

    #[test]
    fn a_smeared_reading_is_not_corrected_until_sharp_frames_show_the_same() {
        // The faded 3 of the test above, read on frames smeared by the camera's motion: a
        // smeared cell reads wrong as surely as right, and correcting it can fall on the wrong
        // cell. Judged only once the frames summed are sharp.
        let reading = faded_three();
        let mut smeared = reading.clone();
        for cell in &mut smeared.0 {
            cell.smeared = true;
        }
        assert!(smeared.smeared() && !reading.smeared());
        let mut evidence = Evidence::new();
        for _ in 0..EVIDENCE_FRAMES {
            evidence.add(&smeared);
            assert!(judge_frames(&evidence).is_none());
        }
        for _ in 1..EVIDENCE_FRAMES {
            evidence.add(&reading);
            assert!(
                judge_frames(&evidence).is_none(),
                "a smeared frame is still summed"
            );
        }
        evidence.add(&reading);
        let known = judge_frames(&evidence).expect("sharp frames only");
        assert_eq!(known.status, Status::Solved);
    }

    #[test]
    fn a_sharp_frame_after_smeared_ones_is_judged_alone_when_it_solves_as_read() {
        // Sliding in, the page was read smeared with a clue surely empty (the 17-clue puzzle
        // less one: many solutions); the first sharp frame reads every clue.
        let smeared = |clues: &str| {
            let mut reading = reading_of(&clues.parse().unwrap(), 0.95);
            for cell in &mut reading.0 {
                cell.smeared = true;
            }
            reading
        };
        let mut evidence = Evidence::new();
        for _ in 0..2 {
            evidence.add(&smeared(SEVENTEEN_LESS_ONE));
            assert!(judge_frames(&evidence).is_none());
        }
        let sharp = reading_of(&SEVENTEEN.parse().unwrap(), 0.95);
        evidence.add(&sharp);
        // Summed, the smeared frames outvote it (and a correction of them waits for sharp ones).
        assert!(evidence.recent.judge().is_none());
        let judged = judge_frames(&evidence).expect("the sharp frame alone");
        assert_eq!(judged.status, Status::Solved);
        assert_eq!(judged.clues, SEVENTEEN.parse().unwrap());
        assert!(judged.corrections.is_empty());

        // A sharp frame that itself misses the clue is not corrected on its own.
        let mut evidence = Evidence::new();
        evidence.add(&smeared(SEVENTEEN_LESS_ONE));
        evidence.add(&reading_of(&SEVENTEEN_LESS_ONE.parse().unwrap(), 0.95));
        assert!(judge_frames(&evidence).is_none());
    }

    #[test]
    fn a_puzzle_solving_as_read_on_the_photo_margin_needs_every_clue_read_surely() {
        let clues: Grid = SEVENTEEN.parse().unwrap();
        let first_clue = (0..81).find(|&c| clues.0[c] != 0).unwrap();
        let first_empty = (0..81).find(|&c| clues.0[c] == 0).unwrap();
        let with = |cell: usize, sureness: f32| {
            let mut reading = reading_of(&clues, 0.95);
            let digit = reading.0[cell].digit as usize;
            let mut p = [(1.0 - sureness) / 9.0; CLASSES];
            p[digit] = sureness;
            read_as(&mut reading.0[cell], p);
            let mut sums = Sums::over(1);
            sums.add(&reading);
            sums
        };
        assert!(clues_read_surely(&clues, &with(first_clue, 0.95)));
        // A clue read at 0.6 (handheld:image43 read a 1 as 3 so) asks the frame's margin.
        assert!(!clues_read_surely(&clues, &with(first_clue, 0.6)));
        // An empty cell read unsurely is no clue of the puzzle.
        assert!(clues_read_surely(&clues, &with(first_empty, 0.6)));
    }

    #[test]
    fn sure_but_broken_reading_is_judged_unsolvable_after_a_while() {
        let mut clues: Grid = PUZZLE.parse().unwrap();
        clues.0[1] = 5; // a repeated 5 in the top row: no solution
        let mut evidence = Evidence::new();
        for frame in 1..=MAX_READING_FRAMES {
            evidence.add(&reading_of(&clues, 0.99));
            let judged = judge_frames(&evidence);
            if frame < MAX_READING_FRAMES {
                assert!(judged.is_none(), "judged at frame {frame}");
            } else {
                assert_eq!(judged.map(|k| k.status), Some(Status::Invalid));
            }
        }
    }
}
