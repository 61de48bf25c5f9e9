//! `sudoku-ar solve`: typed puzzles in, one answer line per puzzle out.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use sudoku_ar::grid::Grid;
use sudoku_ar::solve::solve;

pub fn run(file: Option<&Path>) -> anyhow::Result<ExitCode> {
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
    for (number, line) in input.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {name}"))?;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let answer = text
            .parse::<Grid>()
            .map_err(|e| e.to_string())
            .and_then(|g| solve(&g).map_err(|e| e.to_string()));
        match answer {
            Ok(solution) => writeln!(out, "{solution}")?,
            Err(reason) => {
                failed += 1;
                writeln!(out, "{name}:{}: {reason}", number + 1)?;
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The argument as a puzzle typed on the command line (`sudoku-ar solve 53..7....`): digits
/// and dots only, where no file of that name exists (a cell too few is then said so, not "no
/// such file").
fn typed(argument: &Path) -> Option<String> {
    let text = argument.to_str()?.trim();
    let cells = !text.is_empty() && text.chars().all(|c| c.is_ascii_digit() || c == '.');
    (cells && !argument.exists()).then(|| text.to_string())
}
