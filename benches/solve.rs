//! Solver speed on the hardest published puzzles (target: under 1 ms each).
//! Run: `cargo bench --bench solve`

use criterion::{Criterion, criterion_group, criterion_main};
use sudoku_ar::grid::Grid;
use sudoku_ar::solve::solve;

fn hard_puzzles() -> Vec<(String, Grid)> {
    let mut name = String::new();
    let mut out = Vec::new();
    for line in include_str!("../tests/puzzles/hard.txt").lines() {
        if let Some(comment) = line.strip_prefix("# ") {
            name = comment.to_string();
        } else if let Ok(grid) = line.parse() {
            out.push((name.clone(), grid));
        }
    }
    out
}

fn bench_solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("solve");
    for (name, puzzle) in hard_puzzles() {
        group.bench_function(name, |b| b.iter(|| solve(std::hint::black_box(&puzzle))));
    }
    group.finish();
}

criterion_group!(benches, bench_solve);
criterion_main!(benches);
