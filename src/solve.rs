//! Exact Sudoku solver on band bitboards, always proving uniqueness.
//!
//! It looks for a second solution as well, so that a misread or ambiguous puzzle is reported
//! instead of being "solved" into one arbitrary answer.
//!
//! The technique is the one of the fastest published solvers (JCZSolve, by zhouyundong_2012 with
//! champagne and JasonLion on the enjoysudoku forum): candidates are kept per digit and per band
//! of three rows, 27 bits each. Within one band a digit sits exactly once in each of the three
//! rows and once in each of the three boxes, so the rows must pick the boxes as a permutation;
//! one table lookup on the 9 "mini-rows" (row x box) that still have candidates removes every
//! candidate outside all possible permutations, which is claiming and pointing locked candidates
//! at once. A box stack with a single possible column takes that column away from the other two
//! bands. A row left with one cell is a placed digit. Naked singles are found by counting
//! candidates per cell across the 9 digit boards with three bitwise accumulators. When logic
//! stalls it guesses on a cell with two candidates (nearly always there is one), else three,
//! else the first unsolved cell.

use crate::grid::Grid;

/// Why a set of clues has no single solution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    /// Two clues break the rules outright (same digit twice in a row, column or box).
    #[error(
        "invalid clues: digit {digit} appears twice in one {unit} (cells {first} and {second})"
    )]
    Invalid {
        digit: u8,
        unit: &'static str,
        first: usize,
        second: usize,
    },
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
    let mut found = Found::up_to(2);
    // Placing a clue fails only where a peer holds the same digit: then say which.
    let Some(mut board) = Board::from_clues(puzzle) else {
        check_clues(puzzle)?;
        return Err(SolveError::Unsolvable);
    };
    if board.propagate() {
        board.search(&mut found);
    }
    match found.count {
        0 => Err(SolveError::Unsolvable),
        1 => Ok(found.grids[0]),
        _ => Err(SolveError::Multiple {
            first: Box::new(found.grids[0]),
            second: Box::new(found.grids[1]),
        }),
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
                return Err(SolveError::Invalid {
                    digit,
                    unit,
                    first: seen[digit as usize],
                    second: cell,
                });
            }
            seen[digit as usize] = cell;
        }
    }
    Ok(())
}

/// The digits every solution of `puzzle` agrees on (0 in the cells where two solutions
/// differ), when it has at least one solution and at most `limit`; None otherwise.
///
/// Why: while a finger hides a clue the puzzle needs, the clues in view have a few solutions,
/// and every one of them is the printed puzzle's where they all agree: those digits can be
/// drawn before the finger lets go.
///
/// ```
/// use sudoku_ar::{grid::Grid, solve::{forced, solve}};
/// let puzzle: Grid = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
///     .parse().unwrap();
/// let mut fewer = puzzle;
/// fewer.0[0] = 0; // the 5 in the corner hidden
/// let agreed = forced(&fewer, 100).unwrap();
/// let solution = solve(&puzzle).unwrap();
/// assert!((0..81).all(|c| agreed.0[c] == 0 || agreed.0[c] == solution.0[c]));
/// assert_eq!(forced(&Grid::EMPTY, 100), None);
/// ```
pub fn forced(puzzle: &Grid, limit: usize) -> Option<Grid> {
    let mut found = Found::up_to(limit.saturating_add(1));
    let mut board = Board::from_clues(puzzle)?;
    if board.propagate() {
        board.search(&mut found);
    }
    (1..=limit).contains(&found.count).then_some(found.agreed)
}

/// The solutions found so far; the search stops at `limit` of them. Solving stops at two: one
/// is the answer, two prove it is not unique.
struct Found {
    grids: [Grid; 2],
    count: usize,
    limit: usize,
    /// The digits all solutions so far agree on, 0 where two differ.
    agreed: Grid,
}

impl Found {
    fn up_to(limit: usize) -> Found {
        Found {
            grids: [Grid::EMPTY; 2],
            count: 0,
            limit,
            agreed: Grid::EMPTY,
        }
    }

    fn add(&mut self, solution: Grid) {
        if self.count < 2 {
            self.grids[self.count] = solution;
        }
        if self.count == 0 {
            self.agreed = solution;
        } else {
            for (agreed, digit) in self.agreed.0.iter_mut().zip(solution.0) {
                if *agreed != digit {
                    *agreed = 0;
                }
            }
        }
        self.count += 1;
    }
}

/// All 27 cells of a band: bit `row_in_band * 9 + column`.
const BAND: u32 = 0o777_777_777;
/// One row of a band.
const ROW: u32 = 0o777;
/// One cell in each row of a band, in column 0.
const COLUMN: u32 = 0o001_001_001;

/// Candidates per digit and band: `candidates[digit * 3 + band]` has a bit for each cell of the
/// band where `digit + 1` may still go. A placed digit keeps its own cell as its only candidate
/// in that row.
#[derive(Clone, Copy)]
struct Board {
    candidates: [u32; 27],
    /// `candidates` as they were when last propagated: equal means nothing new to learn.
    propagated: [u32; 27],
    /// Cells not yet known, per band.
    unsolved: [u32; 3],
    /// Cells with exactly two candidates, per band, as of the last count.
    pairs: [u32; 3],
    /// Cells with exactly three candidates, per band, as of the last count.
    triples: [u32; 3],
}

impl Board {
    /// The board with every clue placed; None when two clues contradict each other.
    fn from_clues(puzzle: &Grid) -> Option<Board> {
        let mut board = Board {
            candidates: [BAND; 27],
            propagated: [0; 27],
            unsolved: [BAND; 3],
            pairs: [0; 3],
            triples: [0; 3],
        };
        for (cell, &digit) in puzzle.0.iter().enumerate() {
            if digit != 0 && !board.place_clue(cell, digit) {
                return None;
            }
        }
        Some(board)
    }

    /// Places a clue and removes what it rules out at once, in its band and its column.
    fn place_clue(&mut self, cell: usize, digit: u8) -> bool {
        let band = cell / 27;
        let at = cell % 27;
        let bit = 1u32 << at;
        let board = (digit as usize - 1) * 3 + band;
        if self.candidates[board] & bit == 0 {
            return false;
        }
        self.unsolved[band] &= !bit;
        for digit in 0..9 {
            self.candidates[digit * 3 + band] &= !bit;
        }
        self.candidates[board] = (self.candidates[board] | bit) & KEEP_IN_BAND[at];
        let column = BAND & !(COLUMN << (at % 9));
        let (a, b) = OTHER_BANDS[board];
        self.candidates[a] &= column;
        self.candidates[b] &= column;
        true
    }

    /// Places the digit of `board` in the one cell of `bit`, removing it from the cell's row and
    /// box; the rest (other digits of the cell, the column) follows in `update`.
    fn place(&mut self, board: usize, bit: u32) {
        self.candidates[board] &= KEEP_IN_BAND[bit.trailing_zeros() as usize];
    }

    /// Logic until nothing changes: locked candidates and placements per band, then naked
    /// singles. False on a contradiction.
    fn propagate(&mut self) -> bool {
        loop {
            if !self.update() {
                return false;
            }
            if self.unsolved == [0; 3] {
                return true;
            }
            match self.naked_singles() {
                None => return false,
                Some(true) => {}
                Some(false) if self.pairs == [0; 3] && self.column_singles() => {}
                Some(false) => return true,
            }
        }
    }

    /// Applies the band rules to every digit board that changed, until none does.
    fn update(&mut self) -> bool {
        // Unrolled, so that each board's index arithmetic and table offsets are constants:
        // this loop is where the solver spends most of its time.
        macro_rules! each_board {
            ($changed:ident; $($board:literal)*) => {$(
                if self.candidates[$board] != self.propagated[$board] {
                    $changed = true;
                    if !self.update_board($board) {
                        return false;
                    }
                }
            )*};
        }
        loop {
            let mut changed = false;
            each_board!(changed; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26);
            if !changed {
                return true;
            }
        }
    }

    /// The band rules for one digit in one band.
    #[inline(always)]
    fn update_board(&mut self, board: usize) -> bool {
        let old = self.candidates[board];
        let minirows = MINIROWS[(old & ROW) as usize] as usize
            | (MINIROWS[(old >> 9 & ROW) as usize] as usize) << 3
            | (MINIROWS[(old >> 18 & ROW) as usize] as usize) << 6;
        let now = old & PERMUTATIONS[minirows & 511];
        if now == 0 {
            return false;
        }
        self.candidates[board] = now;
        self.propagated[board] = now;

        let columns = (now | now >> 9 | now >> 18) & ROW;
        let (a, b) = OTHER_BANDS[board];
        let keep = COLUMNS_LEFT[(columns & ROW) as usize];
        self.candidates[a] &= keep;
        self.candidates[b] &= keep;

        let placed = single_rows(now);
        let band = board % 3;
        // Unconditional: cheaper than the branch, which is hard to predict.
        self.unsolved[band] &= !placed;
        for digit in 0..9 {
            self.candidates[digit * 3 + band] &= !placed;
        }
        self.candidates[board] |= placed;
        true
    }

    /// Places every cell left with one candidate; notes the cells with two and three.
    /// None when a cell has no candidate left; Some(true) when anything was placed.
    fn naked_singles(&mut self) -> Option<bool> {
        let mut placed_any = false;
        for band in 0..3 {
            let (mut one, mut two, mut three, mut four) = (0u32, 0u32, 0u32, 0u32);
            for digit in 0..9 {
                let c = self.candidates[digit * 3 + band];
                four |= three & c;
                three |= two & c;
                two |= one & c;
                one |= c;
            }
            if one != BAND {
                return None;
            }
            self.pairs[band] = two & !three;
            self.triples[band] = three & !four;
            let mut singles = one & !two & self.unsolved[band];
            while singles != 0 {
                let bit = singles & singles.wrapping_neg();
                singles &= singles - 1;
                let board = (0..9)
                    .map(|digit| digit * 3 + band)
                    .find(|&b| self.candidates[b] & bit != 0)?;
                self.place(board, bit);
                placed_any = true;
            }
        }
        Some(placed_any)
    }

    /// Places each digit that has one cell left in a column (the band rules find the hidden
    /// singles of rows and boxes, not of columns); true when any was placed. Run only when
    /// the rest of the logic has stalled with no two-candidate cell to guess on: cheaper than
    /// a wide guess, but dearer than it saves before a binary one.
    fn column_singles(&mut self) -> bool {
        let mut placed_any = false;
        for digit in 0..9 {
            let (mut once, mut twice, mut placed) = (0u32, 0u32, 0u32);
            for band in 0..3 {
                let c = self.candidates[digit * 3 + band];
                let open = c & self.unsolved[band];
                let done = c & !self.unsolved[band];
                placed |= done | done >> 9 | done >> 18;
                for shift in [0, 9, 18] {
                    let row = open >> shift & ROW;
                    twice |= once & row;
                    once |= row;
                }
            }
            let mut singles = once & !twice & !placed & ROW;
            while singles != 0 {
                let column = COLUMN << singles.trailing_zeros();
                singles &= singles - 1;
                for band in 0..3 {
                    let board = digit * 3 + band;
                    let cell = self.candidates[board] & self.unsolved[band] & column;
                    if cell != 0 {
                        self.place(board, cell);
                        placed_any = true;
                    }
                }
            }
        }
        placed_any
    }

    /// Depth-first search for up to two solutions; `self` has been propagated.
    fn search(&mut self, found: &mut Found) {
        if self.unsolved == [0; 3] {
            found.add(self.grid());
            return;
        }
        let (band, bit) = self.guess_cell();
        let mut options = [0usize; 9];
        let mut n = 0;
        for digit in 0..9 {
            let board = digit * 3 + band;
            if self.candidates[board] & bit != 0 {
                options[n] = board;
                n += 1;
            }
        }
        let Some((&last, rest)) = options[..n].split_last() else {
            return;
        };
        for &board in rest {
            let mut next = *self;
            next.place(board, bit);
            if next.propagate() {
                next.search(found);
            }
            if found.count >= found.limit {
                return;
            }
            self.candidates[board] &= !bit;
        }
        self.place(last, bit);
        if self.propagate() {
            self.search(found);
        }
    }

    /// The cell to guess on: one with two candidates, else three, else the first unsolved one.
    fn guess_cell(&self) -> (usize, u32) {
        for cells in [&self.pairs, &self.triples, &self.unsolved] {
            let mut best: Option<usize> = None;
            for (band, &cell) in cells.iter().enumerate() {
                if cell != 0
                    && best.is_none_or(|b| {
                        self.unsolved[band].count_ones() > self.unsolved[b].count_ones()
                    })
                {
                    best = Some(band);
                }
            }
            if let Some(band) = best {
                return (band, cells[band] & cells[band].wrapping_neg());
            }
        }
        (0, 0)
    }

    fn grid(&self) -> Grid {
        let mut cells = [0u8; 81];
        for (board, &mask) in self.candidates.iter().enumerate() {
            let mut mask = mask;
            while mask != 0 {
                cells[board % 3 * 27 + mask.trailing_zeros() as usize] = (board / 3) as u8 + 1;
                mask &= mask - 1;
            }
        }
        Grid(cells)
    }
}

/// The cells of the rows of a band board that have exactly one candidate left.
#[inline(always)]
fn single_rows(board: u32) -> u32 {
    let mut placed = 0;
    for shift in [0, 9, 18] {
        let row = board >> shift & ROW;
        let single = (row & row.wrapping_sub(1) == 0) as u32;
        placed |= (row & single.wrapping_neg()) << shift;
    }
    placed
}

/// For each 9-bit row of a band: which of its 3 mini-rows (one per box) hold a candidate.
static MINIROWS: [u8; 512] = minirows();
/// For each set of possible mini-rows (bit `row * 3 + box`): the cells on mini-rows that some
/// row-to-box permutation uses; 0 when no permutation fits (the digit cannot go in the band).
static PERMUTATIONS: [u32; 512] = permutations();
/// For the columns a digit may use in one band: the cells left to it in the other two bands
/// (a box stack with one possible column takes that column).
static COLUMNS_LEFT: [u32; 512] = columns_left();
/// For each cell of a band: the band's cells outside its row and box, plus itself.
static KEEP_IN_BAND: [u32; 27] = keep_in_band();
/// The same digit's boards in the two other bands.
static OTHER_BANDS: [(usize, usize); 27] = other_bands();

const fn minirows() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut row = 0;
    while row < 512 {
        let mut mini = 0;
        while mini < 3 {
            if row & (7 << (3 * mini)) != 0 {
                table[row] |= 1 << mini;
            }
            mini += 1;
        }
        row += 1;
    }
    table
}

const fn permutations() -> [u32; 512] {
    const ORDERS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut table = [0u32; 512];
    let mut minis = 0;
    while minis < 512 {
        let mut k = 0;
        while k < 6 {
            let order = ORDERS[k];
            let mut fits = true;
            let mut cells = 0u32;
            let mut row = 0;
            while row < 3 {
                fits = fits && minis & (1 << (row * 3 + order[row])) != 0;
                cells |= 7 << (row * 9 + order[row] * 3);
                row += 1;
            }
            if fits {
                table[minis] |= cells;
            }
            k += 1;
        }
        minis += 1;
    }
    table
}

const fn columns_left() -> [u32; 512] {
    let mut table = [0u32; 512];
    let mut columns = 0;
    while columns < 512 {
        let mut keep = BAND;
        let mut stack = 0;
        while stack < 3 {
            let in_stack = (columns >> (3 * stack)) & 7;
            if in_stack != 0 && in_stack & (in_stack - 1) == 0 {
                keep &= !(COLUMN << (3 * stack + (in_stack as u32).trailing_zeros() as usize));
            }
            stack += 1;
        }
        table[columns] = keep;
        columns += 1;
    }
    table
}

const fn keep_in_band() -> [u32; 27] {
    let mut table = [0u32; 27];
    let mut at = 0;
    while at < 27 {
        let (row, box_) = (at / 9, at % 9 / 3);
        let box_cells = (7 << (3 * box_)) * (1 | 1 << 9 | 1 << 18);
        table[at] = (BAND & !(ROW << (9 * row)) & !box_cells) | 1 << at;
        at += 1;
    }
    table
}

const fn other_bands() -> [(usize, usize); 27] {
    let mut table = [(0, 0); 27];
    let mut board = 0;
    while board < 27 {
        let base = board / 3 * 3;
        table[board] = (base + (board + 1) % 3, base + (board + 2) % 3);
        board += 1;
    }
    table
}

/// Rows, then columns, then boxes.
const UNITS: [[usize; 9]; 27] = units();

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

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(text: &str) -> Grid {
        text.parse().unwrap()
    }

    /// True when `solution` is a full valid board that keeps every clue of `puzzle`.
    fn is_solution_of(solution: &Grid, puzzle: &Grid) -> bool {
        let keeps_clues = puzzle
            .0
            .iter()
            .zip(solution.0)
            .all(|(&p, s)| p == 0 || p == s);
        let full = UNITS.iter().all(|unit| {
            unit.iter()
                .map(|&c| 1u16 << solution.0[c])
                .fold(0, |a, b| a | b)
                == 0x3FE
        });
        keeps_clues && full
    }

    /// The puzzles of one file in `tests/puzzles/`.
    fn puzzles(text: &str) -> Vec<Grid> {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(grid)
            .collect()
    }

    /// A fixed pseudo-random sequence (xorshift64) from `seed`.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// A plain backtracking count of solutions (up to 2), independent of the band logic.
    fn brute_force_count(puzzle: &mut Grid, limit: usize) -> usize {
        let Some(cell) = puzzle.0.iter().position(|&d| d == 0) else {
            return 1;
        };
        let mut count = 0;
        for digit in 1..=9 {
            puzzle.0[cell] = digit;
            if check_clues(puzzle).is_ok() {
                count += brute_force_count(puzzle, limit - count);
            }
            if count >= limit {
                break;
            }
        }
        puzzle.0[cell] = 0;
        count
    }

    #[test]
    fn solves_every_published_set_uniquely() {
        for (name, text, size) in [
            ("hard", include_str!("../tests/puzzles/hard.txt"), 5),
            ("top95", include_str!("../tests/puzzles/top95.txt"), 95),
            ("hardest", include_str!("../tests/puzzles/hardest.txt"), 11),
            ("17-clue", include_str!("../tests/puzzles/clue17.txt"), 100),
        ] {
            let set = puzzles(text);
            assert_eq!(set.len(), size, "{name}");
            for puzzle in set {
                let solution = solve(&puzzle).unwrap_or_else(|e| panic!("{name} {puzzle}: {e}"));
                assert!(is_solution_of(&solution, &puzzle), "{name} {puzzle}");
            }
        }
    }

    #[test]
    fn agrees_with_brute_force_on_clues_taken_away_and_changed() {
        // Puzzles near the edge of uniqueness: a full solution with most cells blanked in a
        // fixed pseudo-random order, and some clues changed to break it. The brute force count
        // is the independent truth for "unique", "several" and "none".
        let solution = solve(&puzzles(include_str!("../tests/puzzles/top95.txt"))[3]).unwrap();
        let mut next = xorshift(0x2545F4914F6CDD1D);
        let mut outcomes = [0usize; 3];
        for _ in 0..150 {
            let mut puzzle = solution;
            let keep = 24 + (next() % 10) as usize;
            while puzzle.filled() > keep {
                puzzle.0[(next() % 81) as usize] = 0;
            }
            if next().is_multiple_of(3) {
                let cell = (next() % 81) as usize;
                puzzle.0[cell] = (next() % 9) as u8 + 1;
            }
            if check_clues(&puzzle).is_err() {
                continue;
            }
            let expected = brute_force_count(&mut puzzle.clone(), 2);
            let got = match solve(&puzzle) {
                Ok(s) => {
                    assert!(is_solution_of(&s, &puzzle));
                    1
                }
                Err(SolveError::Unsolvable) => 0,
                Err(SolveError::Multiple { first, second }) => {
                    assert!(
                        first != second
                            && is_solution_of(&first, &puzzle)
                            && is_solution_of(&second, &puzzle)
                    );
                    2
                }
                Err(e) => panic!("{puzzle}: {e}"),
            };
            assert_eq!(got, expected, "{puzzle}");
            outcomes[got] += 1;
        }
        assert!(
            outcomes.iter().all(|&n| n > 0),
            "every outcome seen: {outcomes:?}"
        );
    }

    /// Every solution of `puzzle` by plain backtracking, up to `limit` of them.
    fn brute_force_all(puzzle: &mut Grid, limit: usize, out: &mut Vec<Grid>) {
        let Some(cell) = puzzle.0.iter().position(|&d| d == 0) else {
            out.push(*puzzle);
            return;
        };
        for digit in 1..=9 {
            puzzle.0[cell] = digit;
            if check_clues(puzzle).is_ok() {
                brute_force_all(puzzle, limit, out);
            }
            if out.len() >= limit {
                break;
            }
        }
        puzzle.0[cell] = 0;
    }

    #[test]
    fn the_digits_forced_in_every_solution_agree_with_brute_force() {
        // Published puzzles' solutions blanked down to about 30 clues with one solution, in a
        // fixed pseudo-random order, then one or two clues taken away (a finger over them): a
        // few solutions, and the cells they all agree on, counted independently by plain
        // backtracking.
        let mut next = xorshift(0x9E3779B97F4A7C15);
        let mut outcomes = (0, 0);
        for puzzle in puzzles(include_str!("../tests/puzzles/top95.txt"))
            .iter()
            .take(30)
        {
            let solution = solve(puzzle).unwrap();
            let mut fewer = solution;
            for _ in 0..200 {
                let cell = (next() % 81) as usize;
                let mut less = fewer;
                less.0[cell] = 0;
                if fewer.filled() > 30 && solve(&less).is_ok() {
                    fewer = less;
                }
            }
            for _ in 0..1 + next() % 2 {
                let clues: Vec<usize> = (0..81).filter(|&c| fewer.0[c] != 0).collect();
                fewer.0[clues[(next() as usize) % clues.len()]] = 0;
            }
            let mut all = Vec::new();
            brute_force_all(&mut fewer.clone(), 21, &mut all);
            let Some(agreed) = forced(&fewer, 20) else {
                assert!(all.len() > 20, "{fewer}: {} solutions", all.len());
                outcomes.1 += 1;
                continue;
            };
            assert!(all.len() <= 20, "{fewer}");
            for cell in 0..81 {
                let same = all.iter().all(|s| s.0[cell] == all[0].0[cell]);
                assert_eq!(agreed.0[cell], if same { all[0].0[cell] } else { 0 });
                assert!(agreed.0[cell] == 0 || agreed.0[cell] == solution.0[cell]);
            }
            outcomes.0 += 1;
        }
        assert!(
            outcomes.0 >= 5 && outcomes.1 >= 1,
            "within and over the limit: {outcomes:?}"
        );
        // Only one solution: all of it. None: None.
        let unique = puzzles(include_str!("../tests/puzzles/hard.txt"))[0];
        let solution = solve(&unique).unwrap();
        assert_eq!(forced(&unique, 1), Some(solution));
        let mut twice = unique;
        let empty = (0..81).find(|&c| unique.0[c] == 0).unwrap();
        twice.0[empty] = solution.0[empty] % 9 + 1;
        let mut all = Vec::new();
        brute_force_all(&mut twice.clone(), 1, &mut all);
        assert_eq!(forced(&twice, 10).is_none(), all.is_empty());
    }

    #[test]
    fn reports_repeated_digit() {
        let mut puzzle = puzzles(include_str!("../tests/puzzles/hard.txt"))[1];
        puzzle.0[1] = 8; // row 0 already has an 8 in cell 0
        assert_eq!(
            solve(&puzzle),
            Err(SolveError::Invalid {
                digit: 8,
                unit: "row",
                first: 0,
                second: 1
            })
        );
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
        let puzzle = grid(
            "..9.287..8.6..4..5..3.....46.........2.71345.........23.....5..9..4..8.7..125.3..",
        );
        assert_eq!(solve(&puzzle), Err(SolveError::Unsolvable));
    }

    #[test]
    fn reports_multiple_solutions_with_two_of_them() {
        let mut puzzle = puzzles(include_str!("../tests/puzzles/hard.txt"))[4];
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
        let solution = solve(&puzzles(include_str!("../tests/puzzles/hard.txt"))[0]).unwrap();
        assert_eq!(solve(&solution), Ok(solution));
    }
}
