//! Every puzzle in view: a newspaper prints two side by side, a puzzle book four to a page.
//!
//! One [`Vision`] follows one puzzle. [`Visions`] runs one on each frame as it is, exactly the
//! single-puzzle stage (the first puzzle found, the largest as a rule), and one more for each
//! other puzzle in view, each looking at the frame with the grids followed before it covered
//! ([`detect::cover`]), so that none follows a grid another does. A further one looks for
//! another puzzle every few frames while the first is followed. The others' solutions are
//! drawn only once solved: a grid they read without a verdict is not shown at all.

use std::time::Instant;

use opencv::core::Mat;

use crate::error::Result;
use crate::geometry::Quad;
use crate::raster::gray_of;
use crate::recognize::detect::{self, Ink};
use crate::recognize::read::DigitReader;
use crate::video::picture::Picture;
use crate::video::vision::{Colours, FrameView, Vision};

/// The most puzzles followed at once besides the first: a book's double page holds up to
/// eight, of which a camera frames a few.
const MOST_OTHERS: usize = 3;

/// At most every how many frames a stage with no grid looks for another puzzle, while a first
/// one is followed (a search costs 3-15 ms on a 1080p frame).
const LOOK_EVERY: u64 = 5;

/// The ids of each stage's puzzles start this far apart (see [`Vision::numbering_from`]).
const IDS_APART: u64 = 1 << 40;

/// The vision stage for every puzzle in view; feed it every frame in order.
pub struct Visions {
    /// Follows the first puzzle found, on the frames as they are.
    first: Vision,
    /// Follow the other puzzles; the last may be looking for one.
    others: Vec<Vision>,
    /// Stages made so far (their puzzles' ids start `IDS_APART` apart); 0 once one could not
    /// be made.
    made: u64,
    /// Frames since a stage last looked for another puzzle.
    since_look: u64,
    /// Where the other stages' grids were on the last frame.
    followed_by_others: Vec<Quad>,
}

impl Visions {
    pub fn new(reader: DigitReader) -> Visions {
        Visions {
            first: Vision::new(reader),
            others: Vec::new(),
            made: 1,
            since_look: LOOK_EVERY,
            followed_by_others: Vec::new(),
        }
    }

    /// How many puzzles have been read and judged, by all stages.
    pub fn puzzles_read(&self) -> usize {
        self.first.known().len() + self.others.iter().map(|v| v.known().len()).sum::<usize>()
    }

    /// After a frame that failed half way: every stage lets go of its grid and of the frame
    /// before; the puzzles learnt stay.
    pub fn start_over(&mut self) {
        self.first.start_over();
        for other in &mut self.others {
            other.start_over();
        }
        self.followed_by_others.clear();
    }

    /// Finds or follows every puzzle in a BGR frame: the first as [`Vision::process`] would,
    /// the others solved in `others`.
    pub fn process(&mut self, frame: &Mat) -> Result<FrameView> {
        let start = Instant::now();
        self.process_in(&gray_of(frame)?, Colours::of_bgr(frame), start)
    }

    /// As [`Visions::process`], a frame as its source gave it.
    pub fn process_picture(&mut self, frame: &Picture) -> Result<FrameView> {
        let start = Instant::now();
        self.process_in(&frame.gray()?, Colours::of_picture(frame), start)
    }

    /// Finds or follows every puzzle in a frame in `gray` (the first puzzle read in its
    /// `colours` when printed in coloured ink); its time is counted from `start`, so that it
    /// holds the conversion to gray.
    fn process_in(&mut self, gray: &Mat, colours: Colours, start: Instant) -> Result<FrameView> {
        // The first puzzle lost while another is followed solved: that one is followed as the
        // first (not found again by the first stage and read again, while its own lets go).
        if !self.first.is_following()
            && let Some(k) = self.others.iter().position(Vision::follows_a_solved_puzzle)
        {
            std::mem::swap(&mut self.first, &mut self.others[k]);
        }
        // Cut by the frame's edge, the first puzzle gives way to another whole in view, but
        // not to one another stage follows (and draws) already.
        self.first
            .leave_alone(std::mem::take(&mut self.followed_by_others));
        let mut view = self.first.process_in(gray, colours)?;
        let mut followed: Vec<Quad> = view.puzzle.iter().map(|p| p.quad).collect();
        let by_first = followed.len();
        // With nothing followed, the first stage searches the whole frame alone; a search for
        // another puzzle, printed as the first one, waits for a frame on which the first stage
        // only followed its grid (a search and a reading on one 1080p frame took 32 ms).
        self.since_look += 1;
        let look = (self.since_look >= LOOK_EVERY
            && view.times.detect.is_none()
            && view.times.read.is_none())
        .then(|| self.first.followed_ink())
        .flatten();
        if look.is_some() {
            self.since_look = 0;
            self.keep_one_looking();
        }
        self.follow_others(gray, &mut followed, &mut view, look)?;
        self.followed_by_others = followed.split_off(by_first);
        view.times.total = start.elapsed();
        Ok(view)
    }

    /// Makes sure one stage is free to look for another puzzle, up to [`MOST_OTHERS`]. One
    /// that cannot be made (no second model session) leaves the first puzzle followed alone.
    fn keep_one_looking(&mut self) {
        let looking = self.others.iter().filter(|v| !v.is_following()).count();
        if looking > 0 || self.others.len() >= MOST_OTHERS || self.made == 0 {
            return;
        }
        match self.first.reader().try_clone() {
            Ok(reader) => {
                let ids = self.made * IDS_APART;
                self.made += 1;
                let other = Vision::new(reader).numbering_from(ids);
                self.others.push(other.beside_another());
            }
            Err(err) => {
                tracing::warn!(%err, "no stage for other puzzles in view: one followed at a time");
                self.made = 0;
            }
        }
    }

    /// Runs the other stages following a grid on `gray`, and one with none when `look` gives
    /// the ink of the first puzzle (the one it looks for), each with the grids `followed` so
    /// far covered and adding its own; the solved ones' views go to `view`.
    fn follow_others(
        &mut self,
        gray: &Mat,
        followed: &mut Vec<Quad>,
        view: &mut FrameView,
        mut look: Option<Ink>,
    ) -> Result<()> {
        // `gray` with the grids followed so far covered, made on the first stage that runs.
        let mut rest: Option<(Mat, usize)> = None;
        for other in &mut self.others {
            // A stage with no grid needs no frames in between.
            if !other.is_following() {
                let Some(ink) = look.take() else {
                    continue;
                };
                other.looking_beside(ink);
            }
            let (covered, up_to) = match &mut rest {
                Some(rest) => rest,
                None => rest.insert((gray.clone(), 0)),
            };
            for quad in &followed[*up_to..] {
                detect::cover(covered, quad)?;
            }
            *up_to = followed.len();
            let seen = other.process_gray(covered)?;
            view.times.add_stage(&seen.times);
            if let Some(puzzle) = seen.puzzle {
                if followed
                    .iter()
                    .any(|q| detect::overlapping(q, &puzzle.quad))
                {
                    other.let_go();
                    continue;
                }
                followed.push(puzzle.quad);
                // Yesterday's solution printed whole beside the puzzle has nothing to fill in.
                if puzzle.solved.is_some() && puzzle.clues.filled() < 81 {
                    view.others.push(puzzle);
                }
            }
        }
        Ok(())
    }
}
