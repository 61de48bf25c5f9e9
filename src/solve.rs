//! Exact Sudoku solver: bitmask constraint propagation (naked and hidden singles) with
//! depth-first search on the cell with the fewest candidates.
//!
//! It looks for a second solution as well, so that a misread or ambiguous puzzle is reported
//! instead of being "solved" into one arbitrary answer.

use crate::grid::Grid;

/// Why a set of clues has no single solution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// Two clues break the rules outright (same digit twice in a row, column or box).
    #[error("invalid clues: digit {digit} appears twice in one {unit} (cells {first} and {second})")]
    Invalid { digit: u8, unit: &'static str, first: usize, second: usize },
    #[error("no solution")]
    Unsolvable,
    #[error("more than one solution")]
    Multiple { first: Box<Grid>, second: Box<Grid> },
}

/// Solves `puzzle` and checks that the solution is unique.
///
/// ```
/// use sudoku_ar::{grid::Grid, solve::{solve, SolveError}};
/// let puzzle: Grid = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
///     .parse().unwrap();
/// let solution = solve(&puzzle).unwrap();
/// assert_eq!(solution.to_string()[..9], *"534678912");
/// assert!(matches!(solve(&Grid::EMPTY), Err(SolveError::Multiple { .. })));
/// ```
pub fn solve(puzzle: &Grid) -> Result<Grid, SolveError> {
    check_clues(puzzle)?;
    let mut state = State::new();
    for (cell, &digit) in puzzle.0.iter().enumerate() {
        if digit != 0 && !state.assign(cell, digit) {
            return Err(SolveError::Unsolvable);
        }
    }
    let mut found = Vec::with_capacity(2);
    search(state, &mut found);
    match found.len() {
        0 => Err(SolveError::Unsolvable),
        1 => Ok(found[0]),
        _ => Err(SolveError::Multiple { first: Box::new(found[0]), second: Box::new(found[1]) }),
    }
}

/// Reports the first digit that appears twice in a row, column or box.
pub fn check_clues(puzzle: &Grid) -> Result<(), SolveError> {
    for (u, unit) in UNITS.iter().enumerate() {
        let mut seen = [usize::MAX; 10];
        for &cell in unit {
            let digit = puzzle.0[cell];
            if digit == 0 {
                continue;
            }
            if seen[digit as usize] != usize::MAX {
                let unit = ["row", "column", "box"][u / 9];
                return Err(SolveError::Invalid { digit, unit, first: seen[digit as usize], second: cell });
            }
            seen[digit as usize] = cell;
        }
    }
    Ok(())
}

const ALL: u16 = 0x1FF;

/// Candidates per cell as bit masks (bit d-1 for digit d), plus the digits already placed.
#[derive(Clone, Copy)]
struct State {
    candidates: [u16; 81],
    values: [u8; 81],
}

impl State {
    fn new() -> Self {
        State { candidates: [ALL; 81], values: [0; 81] }
    }

    /// Places `digit` in `cell` and propagates naked singles; false on a contradiction.
    fn assign(&mut self, cell: usize, digit: u8) -> bool {
        let mut stack = [(0u8, 0u8); 81];
        let mut len = 0;
        stack[len] = (cell as u8, digit);
        len += 1;
        while len > 0 {
            len -= 1;
            let (cell, digit) = (stack[len].0 as usize, stack[len].1);
            let bit = 1u16 << (digit - 1);
            if self.values[cell] == digit {
                continue;
            }
            if self.values[cell] != 0 || self.candidates[cell] & bit == 0 {
                return false;
            }
            self.values[cell] = digit;
            self.candidates[cell] = bit;
            for &peer in &PEERS[cell] {
                let peer = peer as usize;
                let before = self.candidates[peer];
                if before & bit == 0 {
                    continue;
                }
                let after = before & !bit;
                if after == 0 {
                    return false;
                }
                self.candidates[peer] = after;
                if self.values[peer] == 0 && after.count_ones() == 1 {
                    stack[len] = (peer as u8, after.trailing_zeros() as u8 + 1);
                    len += 1;
                }
            }
        }
        true
    }

    /// Places every digit that has only one possible cell in some unit, until none is left.
    fn hidden_singles(&mut self) -> bool {
        loop {
            let mut progress = false;
            for unit in &UNITS {
                let (mut once, mut twice) = (0u16, 0u16);
                for &cell in unit {
                    let c = self.candidates[cell];
                    twice |= once & c;
                    once |= c;
                }
                if once != ALL {
                    return false;
                }
                let mut singles = once & !twice;
                while singles != 0 {
                    let bit = singles & singles.wrapping_neg();
                    singles &= singles - 1;
                    let digit = bit.trailing_zeros() as u8 + 1;
                    let Some(&cell) = unit.iter().find(|&&cell| self.candidates[cell] & bit != 0) else {
                        continue;
                    };
                    if self.values[cell] == 0 {
                        if !self.assign(cell, digit) {
                            return false;
                        }
                        progress = true;
                    }
                }
            }
            if !progress {
                return true;
            }
        }
    }

    /// The empty cell with the fewest candidates, or None when the board is full.
    fn most_constrained(&self) -> Option<usize> {
        let mut best = None;
        let mut best_count = 10;
        for cell in 0..81 {
            if self.values[cell] == 0 {
                let count = self.candidates[cell].count_ones();
                if count < best_count {
                    best = Some(cell);
                    best_count = count;
                    if count == 2 {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// Collects solutions into `found` until it holds two.
fn search(mut state: State, found: &mut Vec<Grid>) {
    if !state.hidden_singles() {
        return;
    }
    let Some(cell) = state.most_constrained() else {
        found.push(Grid(state.values));
        return;
    };
    let mut options = state.candidates[cell];
    while options != 0 && found.len() < 2 {
        let digit = options.trailing_zeros() as u8 + 1;
        options &= options - 1;
        let mut next = state;
        if next.assign(cell, digit) {
            search(next, found);
        }
    }
}

/// Rows, then columns, then boxes.
const UNITS: [[usize; 9]; 27] = units();
/// The 20 cells sharing a unit with each cell.
const PEERS: [[u8; 20]; 81] = peers();

const fn units() -> [[usize; 9]; 27] {
    let mut units = [[0; 9]; 27];
    let mut i = 0;
    while i < 9 {
        let mut j = 0;
        while j < 9 {
            units[i][j] = i * 9 + j;
            units[9 + i][j] = j * 9 + i;
            units[18 + i][j] = (i / 3 * 3 + j / 3) * 9 + i % 3 * 3 + j % 3;
            j += 1;
        }
        i += 1;
    }
    units
}

const fn peers() -> [[u8; 20]; 81] {
    let mut peers = [[0u8; 20]; 81];
    let mut cell = 0;
    while cell < 81 {
        let (r, c) = (cell / 9, cell % 9);
        let mut n = 0;
        let mut other = 0;
        while other < 81 {
            let (r2, c2) = (other / 9, other % 9);
            let same_box = r / 3 == r2 / 3 && c / 3 == c2 / 3;
            if other != cell && (r == r2 || c == c2 || same_box) {
                peers[cell][n] = other as u8;
                n += 1;
            }
            other += 1;
        }
        cell += 1;
    }
    peers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Grid {
        text.parse().unwrap()
    }

    /// True when `solution` is a full valid board that keeps every clue of `puzzle`.
    fn is_solution_of(solution: &Grid, puzzle: &Grid) -> bool {
        let keeps_clues = puzzle.0.iter().zip(solution.0).all(|(&p, s)| p == 0 || p == s);
        let full = UNITS.iter().all(|unit| unit.iter().map(|&c| 1u16 << solution.0[c]).fold(0, |a, b| a | b) == ALL << 1);
        keeps_clues && full
    }

    /// Hard published puzzles, shared with the solver bench.
    pub(crate) fn hard_puzzles() -> Vec<Grid> {
        include_str!("../tests/puzzles/hard.txt")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(grid)
            .collect()
    }

    #[test]
    fn solves_hard_puzzles_uniquely() {
        let puzzles = hard_puzzles();
        assert_eq!(puzzles.len(), 5);
        for puzzle in puzzles {
            let solution = solve(&puzzle).unwrap_or_else(|e| panic!("{puzzle}: {e}"));
            assert!(is_solution_of(&solution, &puzzle), "{puzzle}");
        }
    }

    #[test]
    fn reports_repeated_digit() {
        let mut puzzle = hard_puzzles()[1];
        puzzle.0[1] = 8; // row 0 already has an 8 in cell 0
        assert_eq!(solve(&puzzle), Err(SolveError::Invalid { digit: 8, unit: "row", first: 0, second: 1 }));
    }

    #[test]
    fn reports_unsolvable() {
        // Valid clues, but cell 8 can hold nothing: its row has 1-8 and its column a 9.
        let mut cells = [0u8; 81];
        cells[..8].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        cells[9 * 4 + 8] = 9;
        assert_eq!(solve(&Grid(cells)), Err(SolveError::Unsolvable));
    }

    #[test]
    fn reports_unsolvable_found_only_by_search() {
        // Valid clues and no empty cell without candidates, yet no solution (needs search).
        let puzzle = grid("..9.287..8.6..4..5..3.....46.........2.71345.........23.....5..9..4..8.7..125.3..");
        assert_eq!(solve(&puzzle), Err(SolveError::Unsolvable));
    }

    #[test]
    fn reports_multiple_solutions_with_two_of_them() {
        let mut puzzle = hard_puzzles()[4];
        puzzle.0[7] = 0; // a 17-clue puzzle minus one clue is no longer unique
        match solve(&puzzle) {
            Err(SolveError::Multiple { first, second }) => {
                assert_ne!(first, second);
                assert!(is_solution_of(&first, &puzzle) && is_solution_of(&second, &puzzle));
            }
            other => panic!("expected two solutions, got {other:?}"),
        }
    }

    #[test]
    fn full_valid_board_is_its_own_solution() {
        let solution = solve(&hard_puzzles()[0]).unwrap();
        assert_eq!(solve(&solution), Ok(solution));
    }
}
