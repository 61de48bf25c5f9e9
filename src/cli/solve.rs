//! `sudoku-ar solve`: typed puzzles in, one answer line per puzzle out.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use sudoku_ar::grid::Grid;
use sudoku_ar::solve::solve;

pub fn run(file: Option<&Path>) -> anyhow::Result<ExitCode> {
    let input: Box<dyn BufRead> = match file {
        Some(path) => {
            let f = std::fs::File::open(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            Box::new(std::io::BufReader::new(f))
        }
        None => Box::new(std::io::stdin().lock()),
    };
    let name = file.map_or_else(|| "stdin".to_string(), |p| p.display().to_string());
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
