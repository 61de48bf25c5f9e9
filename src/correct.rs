//! Correcting misread cells with the puzzle's own rules.
//!
//! A single misread clue makes a puzzle invalid, unsolvable or ambiguous. When that happens the
//! least confident cells are given their next-best readings, one cell and then two at a time,
//! and a correction is accepted only when it leaves exactly one solution and is clearly more
//! likely than any other correction that does.

use crate::grid::Grid;
use crate::read::CLASSES;
use crate::solve::solve;

/// How many of the least confident cells are reconsidered.
const SUSPECTS: usize = 8;
/// Cells read at least this surely are left alone.
const SURE: f32 = 0.97;
/// Alternatives less likely than this are not tried.
const MIN_ALTERNATIVE: f32 = 0.01;
/// The best correction must be this many times likelier than the runner-up.
const MARGIN: f32 = 3.0;

/// One cell whose reading was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Correction {
    /// Index 0-80, row by row.
    pub cell: usize,
    /// What the model read first (0 = empty).
    pub read: u8,
    /// What the cell was corrected to.
    pub now: u8,
}

/// A corrected set of clues and its unique solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Corrected {
    pub clues: Grid,
    pub solution: Grid,
    pub corrections: Vec<Correction>,
}

/// Tries to turn `clues` into a puzzle with exactly one solution by changing one or two doubtful
/// cells. `likelihoods[i][d]` is how likely cell `i` holds clue `d` (0 = no clue), as the reader
/// saw it; `allowed` says which cells may change.
pub fn correct(clues: &Grid, likelihoods: &[[f32; CLASSES]], allowed: impl Fn(usize) -> bool) -> Option<Corrected> {
    let current = |cell: usize| likelihoods[cell][clues.0[cell] as usize];
    let mut suspects: Vec<usize> = (0..81.min(likelihoods.len())).filter(|&i| allowed(i) && current(i) < SURE).collect();
    suspects.sort_by(|&a, &b| current(a).total_cmp(&current(b)));
    suspects.truncate(SUSPECTS);

    // (cell, digit, likelihood ratio of that digit to the current one)
    let options: Vec<(usize, u8, f32)> = suspects
        .iter()
        .flat_map(|&cell| {
            let p = likelihoods[cell];
            let now = clues.0[cell] as usize;
            (0..CLASSES)
                .filter(move |&d| d != now && p[d] >= MIN_ALTERNATIVE)
                .map(move |d| (cell, d as u8, p[d] / p[now].max(1e-6)))
        })
        .collect();

    let mut found: Vec<(f32, Corrected)> = Vec::new();
    for (i, &(cell, digit, ratio)) in options.iter().enumerate() {
        try_change(clues, &[(cell, digit)], ratio, &mut found);
        for &(cell2, digit2, ratio2) in &options[i + 1..] {
            if cell2 != cell {
                try_change(clues, &[(cell, digit), (cell2, digit2)], ratio * ratio2, &mut found);
            }
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    match found.as_slice() {
        [] => None,
        [(_, only)] => Some(only.clone()),
        [(best, first), (second, _), ..] => (*best >= MARGIN * *second).then(|| first.clone()),
    }
}

fn try_change(clues: &Grid, changes: &[(usize, u8)], likelihood: f32, found: &mut Vec<(f32, Corrected)>) {
    let mut changed = *clues;
    for &(cell, digit) in changes {
        changed.0[cell] = digit;
    }
    if let Ok(solution) = solve(&changed) {
        let corrections = changes.iter().map(|&(cell, now)| Correction { cell, read: clues.0[cell], now }).collect();
        found.push((likelihood, Corrected { clues: changed, solution, corrections }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str = "000000010400000000020000000000050407008000300001090000300400200050100000000806000";

    fn sure(digit: u8) -> [f32; CLASSES] {
        let mut p = [0.0; CLASSES];
        p[digit as usize] = 0.999;
        p
    }

    fn doubtful(read: u8, truth: u8, p_read: f32) -> [f32; CLASSES] {
        let mut p = [0.0; CLASSES];
        p[read as usize] = p_read;
        p[truth as usize] = 1.0 - p_read;
        p
    }

    /// The puzzle with `cell` misread as `read` (probability `p_read`, the rest on the truth),
    /// every other cell read surely: (truth, what was read, likelihoods).
    fn misread(cell: usize, read: u8, p_read: f32) -> (Grid, Grid, Vec<[f32; CLASSES]>) {
        let truth: Grid = PUZZLE.parse().unwrap();
        let mut readings: Vec<[f32; CLASSES]> = truth.0.iter().map(|&d| sure(d)).collect();
        readings[cell] = doubtful(read, truth.0[cell], p_read);
        let mut clues = truth;
        clues.0[cell] = read;
        (truth, clues, readings)
    }

    #[test]
    fn fixes_a_misread_clue_with_its_second_reading() {
        // The 1 in cell 7 was read as a 7 (a common confusion), not very surely.
        let (truth, clues, readings) = misread(7, 7, 0.6);
        assert!(solve(&clues).is_err());
        let fixed = correct(&clues, &readings, |_| true).expect("a correction");
        assert_eq!(fixed.clues, truth);
        assert_eq!(fixed.corrections, vec![Correction { cell: 7, read: 7, now: 1 }]);
        assert_eq!(Ok(fixed.solution), solve(&truth));
    }

    #[test]
    fn restores_a_clue_read_as_empty() {
        let (_, clues, readings) = misread(9, 0, 0.55);
        let fixed = correct(&clues, &readings, |_| true).expect("a correction");
        assert_eq!(fixed.corrections, vec![Correction { cell: 9, read: 0, now: 4 }]);
    }

    #[test]
    fn leaves_sure_cells_and_forbidden_cells_alone() {
        let (_, clues, readings) = misread(7, 7, 0.6);
        let sure_readings: Vec<[f32; CLASSES]> = clues.0.iter().map(|&d| sure(d)).collect();
        assert_eq!(correct(&clues, &sure_readings, |_| true), None, "every reading is sure");
        assert_eq!(correct(&clues, &readings, |cell| cell != 7), None);
    }
}
