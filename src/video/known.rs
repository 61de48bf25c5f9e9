//! Puzzles the vision stage has read and judged, and whether a reading of the grid in view shows
//! one of them: the same puzzle come back into view, the same puzzle still (a re-check), or
//! another laid in its place; and the entries somebody wrote into a known puzzle's grid.

use crate::grid::Grid;
use crate::recognize::read::{CellReading, GridReading, argmax};
use crate::recognize::verdict::{Judged, SURE, Status, WrongMarks, entries_of, entries_seen};

/// More confidently different cells than this means the puzzle in view is another one.
const REPLACED_CELLS: usize = 8;
/// A reading confirming where a puzzle recognised from one reading is may confidently differ
/// from it in this many cells at most (a smudge, an entry taken for print).
const STILL_SHOWS_DIFFERING: usize = 2;

/// A puzzle that has been read and judged; kept for when it comes back.
#[derive(Debug, Clone, PartialEq)]
pub struct Known {
    /// Unique within a run; the display renders each puzzle's digits once, by this key.
    pub id: u64,
    pub clues: Grid,
    pub solution: Option<Grid>,
    pub status: Status,
}

impl Known {
    pub(super) fn new(id: u64, judged: Judged) -> Known {
        Known {
            id,
            clues: judged.clues,
            solution: judged.solution,
            status: judged.status,
        }
    }
}

/// Whether a single reading shows `known`, with the digits read as handwritten left out of the
/// clues or (as the puzzle may have been judged) taken as printed.
pub(super) fn same_puzzle(known: &Known, reading: &GridReading) -> bool {
    shows_clues(known, reading)
        || (reading.has_handwriting() && shows_clues(known, &reading.all_printed()))
}

/// Whether the puzzle in view is confidently a different one from `known`, whichever way its
/// handwritten-looking digits are taken.
pub(super) fn replaced(known: &Known, reading: &GridReading) -> bool {
    shows_other_clues(known, reading)
        && (!reading.has_handwriting() || shows_other_clues(known, &reading.all_printed()))
}

/// Whether the reading's clues are `known`'s: no cell confidently reads otherwise, and few are
/// unsure.
fn shows_clues(known: &Known, reading: &GridReading) -> bool {
    let mut unsure = 0;
    for (cell, r) in reading.0.iter().enumerate() {
        let expected = known.clues.0[cell] as usize;
        if reads_otherwise(known, cell, r) {
            return false;
        }
        if right_entry(known, cell, r) {
            continue;
        }
        if r.as_clue[expected] < 0.5 {
            unsure += 1;
        }
    }
    unsure <= 4
}

/// Whether more than a few cells confidently read other clues than `known`'s.
fn shows_other_clues(known: &Known, reading: &GridReading) -> bool {
    differing(known, reading) > REPLACED_CELLS
}

/// Whether hardly any cell confidently reads another clue than `known`'s, whichever way its
/// handwritten-looking digits are taken; unsure cells do not count (glare, a finger).
pub(super) fn still_shows(known: &Known, reading: &GridReading) -> bool {
    differing(known, reading) <= STILL_SHOWS_DIFFERING
        || (reading.has_handwriting()
            && differing(known, &reading.all_printed()) <= STILL_SHOWS_DIFFERING)
}

/// Whether a reading surely shows another digit, in whichever style, where `known` has a clue:
/// no entry can be written over a printed clue, so the puzzle was misread. Cells read hidden (a
/// finger, glare) or smeared are passed over, and so are clues read as empty.
///
/// Why: two frames that read a 1 as 3 and a 6 as 8 the same way as the page slid in
/// (handheld:image43, `NOISE_SEED=11`) gave a puzzle with one solution, the wrong one; every
/// later sharp reading differed in just those two cells, which [`still_shows`] allows, and the
/// wrong digits stayed drawn for the rest of the clip. Whichever style: a puzzle judged with
/// the handwritten entries taken as printed (only then one solution) on one smeared frame of
/// a hand-filled page had a handwritten 2 read as 5 (thumb:01_31, `NOISE_SEED=21`, `--set 1`);
/// later frames read it surely as a handwritten 2, which the printed clues alone do not show.
pub(super) fn contradicts(known: &Known, reading: &GridReading) -> bool {
    reading.0.iter().zip(known.clues.0).any(|(r, clue)| {
        let best = argmax(&r.probabilities);
        clue != 0
            && best != 0
            && best != clue as usize
            && r.probabilities[best] >= SURE
            && !r.hidden
            && !r.smeared
    })
}

/// Cells that confidently read another clue than `known`'s.
fn differing(known: &Known, reading: &GridReading) -> usize {
    (reading.0.iter().enumerate())
        .filter(|&(cell, r)| reads_otherwise(known, cell, r))
        .count()
}

/// Whether `cell` (read `r`) confidently shows another clue than `known`'s: not when it shows
/// the solution's digit where the puzzle has none, somebody's right entry in a print-like hand
/// or typed into an app (typed entries look printed: an app's recording, an entry every few
/// seconds, was taken for another puzzle after 9 of them, and meanwhile for a puzzle no longer
/// in view, its entries not looked at, so the solution was drawn over the newest ones).
fn reads_otherwise(known: &Known, cell: usize, r: &CellReading) -> bool {
    let best = argmax(&r.as_clue);
    best != known.clues.0[cell] as usize && r.as_clue[best] >= SURE && !right_entry(known, cell, r)
}

/// Whether `cell` (read `r`) shows, as printed, the solution's digit where `known` has no clue.
fn right_entry(known: &Known, cell: usize, r: &CellReading) -> bool {
    let best = argmax(&r.as_clue);
    known.clues.0[cell] == 0
        && best != 0
        && known.solution.is_some_and(|s| s.0[cell] as usize == best)
}

/// The entries somebody wrote into `known`'s grid, and the marks of those the solution
/// contradicts, as `reading` shows them; cells it hides keep what was seen `before` (None for
/// the first reading of the puzzle on a track).
pub(super) fn entries_seen_in(
    reading: &GridReading,
    known: &Known,
    before: Option<(Grid, WrongMarks)>,
) -> (Grid, WrongMarks) {
    let (entries, marks_before) = match before {
        Some((entries, marks)) => (entries_seen(reading, &known.clues, &entries), marks),
        None => (entries_of(reading, &known.clues), WrongMarks::NONE),
    };
    let marks = match &known.solution {
        Some(solution) => marks_before.see(reading, &entries, solution),
        None => WrongMarks::NONE,
    };
    if marks.circled() != marks_before.circled() {
        tracing::debug!(circled = %marks.circled(), "entries circled as wrong");
    }
    (entries, marks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::verdict::tests::{PUZZLE, reading_of};

    fn known_with(clues: Grid) -> Known {
        Known {
            id: 0,
            clues,
            solution: None,
            status: Status::Solved,
        }
    }

    #[test]
    fn recognises_a_known_puzzle_and_a_replaced_one() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let known = known_with(clues);
        assert!(same_puzzle(&known, &reading_of(&clues, 0.97)));
        assert!(!replaced(&known, &reading_of(&clues, 0.97)));
        let other: Grid =
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
                .parse()
                .unwrap();
        assert!(!same_puzzle(&known, &reading_of(&other, 0.97)));
        assert!(replaced(&known, &reading_of(&other, 0.97)));
    }

    #[test]
    fn entries_typed_in_print_are_the_same_puzzle_filled_in_and_wrong_ones_are_not() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let solution = crate::solve::solve(&clues).unwrap();
        let known = Known {
            solution: Some(solution),
            ..known_with(clues)
        };
        // Twelve empty cells filled with the solution's digits, read as printed (an app's
        // typed entries): the puzzle still shows, filled in.
        let empty: Vec<usize> = (0..81).filter(|&i| clues.0[i] == 0).take(12).collect();
        let mut filled = clues;
        for &i in &empty {
            filled.0[i] = solution.0[i];
        }
        let reading = reading_of(&filled, 0.97);
        assert!(same_puzzle(&known, &reading) && still_shows(&known, &reading));
        assert!(!replaced(&known, &reading));
        // The same cells filled with other digits: not this puzzle.
        let mut other = clues;
        for &i in &empty {
            other.0[i] = solution.0[i] % 9 + 1;
        }
        let reading = reading_of(&other, 0.97);
        assert!(!same_puzzle(&known, &reading) && !still_shows(&known, &reading));
        assert!(replaced(&known, &reading));
        // Unsolved, nothing tells a right entry: as before, another puzzle.
        assert!(replaced(&known_with(clues), &reading_of(&filled, 0.97)));
    }

    #[test]
    fn a_clue_surely_read_as_another_digit_contradicts_a_known_puzzle_and_an_entry_does_not() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let known = known_with(clues);
        assert!(!contradicts(&known, &reading_of(&clues, 0.97)));
        // The printed 5 in the first cell surely reads as 3: misread when judged.
        let mut other = clues;
        other.0[0] = 3;
        assert!(contradicts(&known, &reading_of(&other, 0.97)));
        // Not when read unsurely, beside a finger, or smeared.
        assert!(!contradicts(&known, &reading_of(&other, 0.8)));
        let mut hidden = reading_of(&other, 0.97);
        hidden.0[0].hidden = true;
        assert!(!contradicts(&known, &hidden));
        let mut smeared = reading_of(&other, 0.97);
        smeared.0[0].smeared = true;
        assert!(!contradicts(&known, &smeared));
        // A clue read as empty (glare) and a digit in an empty cell (an entry) are no
        // contradiction.
        let mut faded = clues;
        faded.0[0] = 0;
        assert!(!contradicts(&known, &reading_of(&faded, 0.97)));
        let mut entry = clues;
        entry.0[2] = 4;
        assert!(!contradicts(&known, &reading_of(&entry, 0.97)));
        // A 3 read as handwritten where the puzzle has its 5 (judged with the entries taken as
        // printed, the 5 a misread entry): whichever style, another digit.
        let mut written = reading_of(&other, 0.97);
        written.0[0].handwritten = true;
        written.0[0].as_clue = reading_of(&Grid::EMPTY, 0.97).0[0].as_clue;
        assert!(contradicts(&known, &written));
    }
}
