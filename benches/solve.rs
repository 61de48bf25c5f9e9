//! Solver speed side by side with the fastest solver crate we can run here (`sudoku`, a port
//! of JCZSolve), on several sets of published puzzles. Both must prove the solution unique:
//! ours through `solve`, the peer through `Sudoku::solution`. Prints per set the mean time
//! per puzzle of each (median over rounds, the two solvers interleaved so that load hits both
//! alike) and the ratio ours / peer (goal: at most 1.0).
//!
//! Run: `cargo bench --bench solve` (`-- --rounds N` to change the number of rounds).

use std::hint::black_box;
use std::time::{Duration, Instant};

use sudoku::Sudoku;
use sudoku_ar::grid::Grid;
use sudoku_ar::solve::solve;

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
