//! `sudoku-ar solve`: typed puzzles in, one answer line per puzzle out.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use sudoku_ar::grid::Grid;
use sudoku_ar::solve::solve;

pub fn run(file: Option<&Path>) -> anyhow::Result<ExitCode> {
    // `-` is standard input, as for most tools.
    let file = file.filter(|path| *path != Path::new("-"));
    let (input, name): (Box<dyn BufRead>, String) = match (file, file.and_then(typed)) {
        (_, Some(puzzle)) => (
            Box::new(std::io::Cursor::new(puzzle)),
            "the puzzle given".to_string(),
        ),
        (Some(path), None) => {
            let f = std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            (
                Box::new(std::io::BufReader::new(f)),
                path.display().to_string(),
            )
        }
        (None, None) => (Box::new(std::io::stdin().lock()), "stdin".to_string()),
    };
    let mut out = std::io::stdout().lock();
    let mut failed = 0;
    let mut puzzles = PuzzleLines::default();
    let mut answer = |out: &mut dyn Write, puzzle: Puzzle| -> std::io::Result<()> {
        let solved = puzzle
            .cells
            .and_then(|cells| cells.parse::<Grid>().map_err(|e| e.to_string()))
            .and_then(|g| solve(&g).map_err(|e| e.to_string()));
        match solved {
            Ok(solution) => writeln!(out, "{solution}"),
            Err(reason) => {
                failed += 1;
                writeln!(out, "{name}:{}: {reason}", puzzle.line)
            }
        }
    };
    for (number, line) in input.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {name}"))?;
        for puzzle in puzzles.line(number + 1, &line) {
            answer(&mut out, puzzle)?;
        }
    }
    if let Some(puzzle) = puzzles.end() {
        answer(&mut out, puzzle)?;
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The argument as a puzzle typed on the command line (`sudoku-ar solve 53..7....`): digits
/// and empty-cell marks only (see `Grid`'s `FromStr`), where no file of that name exists (a
/// cell too few is then said so, not "no such file").
fn typed(argument: &Path) -> Option<String> {
    let text = argument.to_str()?.trim();
    let cells = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '_' | '*' | 'x' | 'X' | '?'));
    (cells && !argument.exists()).then(|| text.to_string())
}

/// One puzzle as typed: the line it starts on, and its cells (or why they are not a puzzle).
struct Puzzle {
    line: usize,
    cells: Result<String, String>,
}

/// Puzzles typed one per line (81 cells), or as 9 lines of 9 cells, as printed: what stands
/// between cells (see `is_between_cells`), and lines of `-`, `+`, `|` or `=` between boxes, are
/// left out.
#[derive(Default)]
struct PuzzleLines {
    /// Rows of a grid typed as 9 lines: where it starts, and the rows so far.
    rows: Option<(usize, Vec<String>)>,
}

impl PuzzleLines {
    /// The puzzles that line `number`, `line`, completes (none, one, or two when it ends a
    /// grid typed in rows too early).
    fn line(&mut self, number: usize, line: &str) -> Vec<Puzzle> {
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') || is_rule(text) {
            return Vec::new();
        }
        let cells: String = text.chars().filter(|c| !is_between_cells(*c)).collect();
        // A bracket or a quote alone on its line (a JSON array spread over lines) holds no cell.
        if cells.is_empty() {
            return Vec::new();
        }
        if cells.chars().count() == 9 {
            let (_, rows) = self.rows.get_or_insert_with(|| (number, Vec::new()));
            rows.push(cells);
            if rows.len() < 9 {
                return Vec::new();
            }
            return self.end().into_iter().collect();
        }
        let mut done: Vec<Puzzle> = self.end().into_iter().collect();
        done.push(Puzzle {
            line: number,
            cells: Ok(cells),
        });
        done
    }

    /// The grid typed in rows so far, if any: whole, or said to be short.
    fn end(&mut self) -> Option<Puzzle> {
        let (line, rows) = self.rows.take()?;
        let cells = if rows.len() == 9 {
            Ok(rows.concat())
        } else {
            Err(format!("expected 9 rows of 9 cells, found {}", rows.len()))
        };
        Some(Puzzle { line, cells })
    }
}

/// Whether `c` stands between cells as typed, not for one: spaces and `|` as printed, commas
/// and semicolons as in a spreadsheet's rows, brackets and quotes as in a JSON array of rows.
fn is_between_cells(c: char) -> bool {
    c.is_whitespace() || matches!(c, '|' | ',' | ';' | '[' | ']' | '"' | '\'')
}

/// Whether a line only draws the boxes' edges (`------+-------+------`).
fn is_rule(text: &str) -> bool {
    text.chars()
        .all(|c| matches!(c, '-' | '+' | '|' | '=') || c.is_whitespace())
}
