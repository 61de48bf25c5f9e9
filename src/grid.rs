//! The 9x9 board as digits, with the 81-character text form used on the command line and in JSON.

use std::fmt;
use std::str::FromStr;

/// A 9x9 Sudoku board, row by row; 0 marks an empty cell.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid(pub [u8; 81]);

/// Why a line of text is not a puzzle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseGridError {
    #[error("expected 81 cells, found {0}")]
    WrongLength(usize),
    #[error("cell {index} is {found:?}: use 1-9 for a digit, 0 . _ * x or ? for an empty cell")]
    BadCell { index: usize, found: char },
}

impl Grid {
    pub const EMPTY: Grid = Grid([0; 81]);

    /// The digit in row `row`, column `col` (both 0-based), 0 when empty.
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.0[row * 9 + col]
    }

    /// How many cells hold a digit.
    pub fn filled(&self) -> usize {
        self.0.iter().filter(|&&d| d != 0).count()
    }

    /// The cells (0-80, row by row) that hold a digit.
    pub fn filled_cells(&self) -> Vec<usize> {
        (0..81).filter(|&i| self.0[i] != 0).collect()
    }

    /// This grid's digits with `other`'s in the cells this one leaves empty.
    pub fn merged(&self, other: &Grid) -> Grid {
        Grid(std::array::from_fn(|i| {
            if self.0[i] != 0 {
                self.0[i]
            } else {
                other.0[i]
            }
        }))
    }
}

impl FromStr for Grid {
    type Err = ParseGridError;

    /// Parses 81 cells (1-9 a digit; 0, `.`, `_`, `*`, `x` or `?` an empty cell); white space
    /// between cells is ignored so that 9 lines of 9 also parse.
    ///
    /// ```
    /// use sudoku_ar::grid::Grid;
    /// let g: Grid = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
    ///     .parse().unwrap();
    /// assert_eq!(g.get(0, 0), 5);
    /// assert_eq!(g.filled(), 30);
    /// ```
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut cells = [0u8; 81];
        let mut n = 0;
        for ch in text.chars().filter(|c| !c.is_whitespace()) {
            let digit = match ch {
                // Other puzzle sites and books mark empty cells with these too. Not `-`: a
                // line of it between boxes is a rule (`sudoku-ar solve` leaves those out).
                '0' | '.' | '_' | '*' | 'x' | 'X' | '?' => 0,
                '1'..='9' => ch as u8 - b'0',
                _ => {
                    return Err(ParseGridError::BadCell {
                        index: n,
                        found: ch,
                    });
                }
            };
            if n < 81 {
                cells[n] = digit;
            }
            n += 1;
        }
        if n != 81 {
            return Err(ParseGridError::WrongLength(n));
        }
        Ok(Grid(cells))
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in self.0 {
            write!(f, "{}", (b'0' + d) as char)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_text() {
        let text =
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000";
        let grid: Grid = text.parse().unwrap();
        assert_eq!(grid.to_string(), text);
        assert_eq!(grid.filled(), 17);
    }

    #[test]
    fn accepts_nine_lines_and_dots() {
        let text = ".........\n".repeat(9);
        assert_eq!(text.parse::<Grid>().unwrap(), Grid::EMPTY);
    }

    #[test]
    fn accepts_the_empty_cell_marks_other_sites_use() {
        let dots =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        let want: Grid = dots.parse().unwrap();
        for mark in ["_", "*", "x", "X", "?"] {
            assert_eq!(dots.replace('.', mark).parse::<Grid>(), Ok(want), "{mark}");
        }
    }

    #[test]
    fn rejects_wrong_length_and_bad_characters() {
        assert_eq!("123".parse::<Grid>(), Err(ParseGridError::WrongLength(3)));
        let mut text = "0".repeat(81);
        text.replace_range(5..6, "a");
        assert_eq!(
            text.parse::<Grid>(),
            Err(ParseGridError::BadCell {
                index: 5,
                found: 'a'
            })
        );
    }
}
