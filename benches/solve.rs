//! Solver speed side by side with the fastest solver crate we can run here (`sudoku`, a port
//! of JCZSolve), on several sets of published puzzles. Both must prove the solution unique:
//! ours through `solve`, the peer through `Sudoku::solution`. Prints per set the mean time
//! per puzzle of each (median over rounds, the two solvers interleaved so that load hits both
//! alike) and the ratio ours / peer (goal: at most 1.0).
//!
//! Then the time `forced` takes (the digits every solution agrees on, drawn while a finger hides
//! a clue): on the 17-clue puzzles with one clue taken away, which have more solutions than the
//! vision stage's limit of 256 (the worst case: 257 solutions are enumerated), and on the top95
//! solutions blanked to 30 clues with one solution, less one (a few solutions).
//!
//! Run: `cargo bench --bench solve` (`-- --rounds N` to change the number of rounds).

use std::hint::black_box;
use std::time::{Duration, Instant};

use sudoku::Sudoku;
use sudoku_ar::grid::Grid;
use sudoku_ar::solve::{forced, solve};

const SETS: [(&str, &str); 4] = [
    (
        "top95 (Norvig's 95 hard)",
        include_str!("../tests/puzzles/top95.txt"),
    ),
    (
        "17-clue (Royle, first 100)",
        include_str!("../tests/puzzles/clue17.txt"),
    ),
    (
        "hardest (Norvig's 11)",
        include_str!("../tests/puzzles/hardest.txt"),
    ),
    (
        "hard (Escargot, Inkala 2012, Easter Monster, Golden Nugget, 17-clue)",
        include_str!("../tests/puzzles/hard.txt"),
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(31usize);
    println!(
        "{:<70} {:>7} {:>12} {:>12} {:>7}",
        "set", "puzzles", "ours us", "peer us", "ratio"
    );
    for (name, text) in SETS {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .collect();
        let ours: Vec<Grid> = lines.iter().map(|l| l.parse().expect("puzzle")).collect();
        let peer: Vec<Sudoku> = lines
            .iter()
            .map(|l| Sudoku::from_str_line(l).expect("puzzle"))
            .collect();
        for (a, b) in ours.iter().zip(&peer) {
            let mine = solve(a).ok().map(|g| g.to_string());
            let theirs = b
                .solution()
                .map(|s| s.to_str_line().replace('.', "0").to_string());
            assert_eq!(mine, theirs, "the solvers disagree on {a}");
        }
        let (mut t_ours, mut t_peer) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            t_ours.push(time(|| {
                ours.iter().filter(|p| solve(black_box(p)).is_ok()).count()
            }));
            t_peer.push(time(|| {
                peer.iter()
                    .filter(|p| black_box(**p).solution().is_some())
                    .count()
            }));
        }
        let per = |t: Vec<Duration>| median(t).as_secs_f64() * 1e6 / lines.len() as f64;
        let (o, p) = (per(t_ours), per(t_peer));
        println!(
            "{name:<70} {:>7} {o:>12.2} {p:>12.2} {:>7.2}",
            lines.len(),
            o / p
        );
        if lines.len() <= 11 {
            for (i, (a, b)) in ours.iter().zip(&peer).enumerate() {
                let o = median(
                    (0..rounds)
                        .map(|_| time(|| solve(black_box(a)).is_ok() as usize))
                        .collect(),
                );
                let p = median(
                    (0..rounds)
                        .map(|_| time(|| black_box(*b).solution().is_some() as usize))
                        .collect(),
                );
                let (o, p) = (o.as_secs_f64() * 1e6, p.as_secs_f64() * 1e6);
                println!(
                    "  #{:<67} {:>7} {o:>12.2} {p:>12.2} {:>7.2}",
                    i + 1,
                    1,
                    o / p
                );
            }
        }
    }
    let seventeen: Vec<Grid> = parse(SETS[1].1)
        .iter()
        .enumerate()
        .map(|(k, p)| less_one(p, k))
        .collect();
    time_forced("17-clue less one (over 256 solutions)", &seventeen, rounds);
    let thirty: Vec<Grid> = thirty_clue(SETS[0].1)
        .iter()
        .enumerate()
        .map(|(k, p)| less_one(p, k))
        .collect();
    time_forced("30-clue less one (a few solutions)", &thirty, rounds);
}

/// Mean and slowest time of `forced(p, 256)` over `puzzles`, in microseconds (median over rounds).
fn time_forced(name: &str, puzzles: &[Grid], rounds: usize) {
    let mut each: Vec<f64> = puzzles
        .iter()
        .map(|p| {
            let t = median(
                (0..rounds)
                    .map(|_| time(|| forced(black_box(p), 256).map_or(0, |g| g.filled())))
                    .collect(),
            );
            t.as_secs_f64() * 1e6
        })
        .collect();
    each.sort_by(f64::total_cmp);
    let agreed: usize = puzzles
        .iter()
        .map(|p| forced(p, 256).map_or(0, |g| g.filled() - p.filled()))
        .sum();
    println!(
        "forced, {name:<58} {:>7} mean {:>8.1} us, slowest {:>8.1} us; {:.1} cells agreed on per puzzle",
        puzzles.len(),
        each.iter().sum::<f64>() / each.len().max(1) as f64,
        each.last().copied().unwrap_or(0.0),
        agreed as f64 / puzzles.len().max(1) as f64
    );
}

/// `puzzle` with its `k`-th clue taken away.
fn less_one(puzzle: &Grid, k: usize) -> Grid {
    let mut fewer = *puzzle;
    if let Some(cell) = (0..81)
        .filter(|&c| puzzle.0[c] != 0)
        .nth(k % puzzle.filled().max(1))
    {
        fewer.0[cell] = 0;
    }
    fewer
}

/// The top95 solutions blanked to 30 clues with one solution, in a fixed pseudo-random order.
fn thirty_clue(text: &str) -> Vec<Grid> {
    let mut state = 0x9E3779B97F4A7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    parse(text)
        .iter()
        .filter_map(|p| solve(p).ok())
        .map(|solution| {
            let mut fewer = solution;
            for _ in 0..400 {
                let mut less = fewer;
                less.0[(next() % 81) as usize] = 0;
                if fewer.filled() > 30 && solve(&less).is_ok() {
                    fewer = less;
                }
            }
            fewer
        })
        .collect()
}

fn parse(text: &str) -> Vec<Grid> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.parse().ok())
        .collect()
}

fn time(f: impl Fn() -> usize) -> Duration {
    let start = Instant::now();
    black_box(f());
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}
