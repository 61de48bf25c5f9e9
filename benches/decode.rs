//! The decoder on misread puzzles built from real readings (see `tests/common/corrupt.rs`):
//! per kind of misreading, how many it fixes (the right solution accepted), how many it
//! changes wrongly (another solution accepted: wrong digits would be drawn) and how many it
//! refuses; the same for a few margins; and the time per grid.
//!
//! Run: `cargo bench --bench decode`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::corrupt::{Case, Kind, Outcome, cases, outcome, real_readings};
use common::{median, pipeline, wicht};
use sudoku_ar::grid::Grid;
use sudoku_ar::recognize::decode::{Budget, Verdict, decode};
use sudoku_ar::recognize::read::CLASSES;
use sudoku_ar::solve::solve;

fn main() {
    let mut pipeline = pipeline();
    let samples = wicht();
    let samples: Vec<_> = samples.iter().collect();
    let readings = real_readings(&mut pipeline, &samples);
    let cases = cases(&readings, 5, 2026);
    println!(
        "{} Wicht photos read right in every clue; {} misread cases built from their readings",
        readings.len(),
        cases.len()
    );

    for (name, budget) in [("photo", Budget::PHOTO), ("video frame", Budget::FRAME)] {
        println!(
            "\nbudget {name}: margin {} nats, {} solver calls, {:?}",
            budget.margin, budget.solver_calls, budget.time
        );
        println!(
            "{:<12} {:>6} {:>8} {:>8} {:>8}",
            "kind", "cases", "fixed", "wrong", "refused"
        );
        report(&cases, budget);
    }

    println!(
        "\nphoto pipeline policy (a reading that solves as read stands even when not clearly ahead) vs the corrector it replaced"
    );
    println!(
        "{:<12} {:>6} {:>17} {:>17} {:>17}",
        "kind", "cases", "fixed new/old", "wrong new/old", "refused new/old"
    );
    let mut by_kind: BTreeMap<Kind, [[usize; 3]; 2]> = BTreeMap::new();
    for case in &cases {
        let counts = by_kind.entry(case.kind).or_default();
        counts[0][photo_outcome(case) as usize] += 1;
        counts[1][old_outcome(case) as usize] += 1;
    }
    for (kind, [new, old]) in by_kind {
        let pair = |i: usize| format!("{}/{}", new[i], old[i]);
        println!(
            "{:<12} {:>6} {:>17} {:>17} {:>17}",
            format!("{kind:?}"),
            new.iter().sum::<usize>(),
            pair(0),
            pair(1),
            pair(2)
        );
    }

    println!(
        "\nmargin sweep (photo budget otherwise): fixed / wrongly changed / refused over all misread kinds; refused of the ambiguous"
    );
    for margin in [0.5, 1.0, 1.6, 2.3, 3.0, 4.6] {
        let budget = Budget {
            margin,
            ..Budget::PHOTO
        };
        let mut counts = [0usize; 3];
        let (mut ambiguous, mut refused) = (0, 0);
        for case in &cases {
            let o = outcome(case, budget);
            if case.kind == Kind::Ambiguous {
                ambiguous += 1;
                refused += (o == Outcome::Refused) as usize;
            } else {
                counts[o as usize] += 1;
            }
        }
        println!(
            "  margin {margin:>4}: {} / {} / {}; ambiguous refused {refused}/{ambiguous}",
            counts[0], counts[1], counts[2]
        );
    }

    for (name, budget) in [("photo", Budget::PHOTO), ("video frame", Budget::FRAME)] {
        let mut times: Vec<Duration> = cases
            .iter()
            .map(|case| {
                let start = Instant::now();
                std::hint::black_box(decode(&case.read, &case.log_likelihoods, |_| true, budget));
                start.elapsed()
            })
            .collect();
        times.sort();
        let p99 = times[times.len() * 99 / 100];
        let max = times[times.len() - 1];
        println!(
            "decode time per grid, {name} budget: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            ms(median(times)),
            ms(p99),
            ms(max)
        );
    }
}

fn report(cases: &[Case], budget: Budget) {
    let mut by_kind: BTreeMap<Kind, [usize; 3]> = BTreeMap::new();
    for case in cases {
        by_kind.entry(case.kind).or_default()[outcome(case, budget) as usize] += 1;
    }
    for (kind, [fixed, wrong, refused]) in by_kind {
        println!(
            "{:<12} {:>6} {fixed:>8} {wrong:>8} {refused:>8}",
            format!("{kind:?}"),
            fixed + wrong + refused
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

// ---- The corrector this decoder replaced (src/correct.rs before it), as the baseline: the
// 8 least sure cells (under 97%) given their alternatives above 1%, one or two changes,
// accepted with exactly one solution and 3x likelier than the runner-up. Returns the solution.
const SUSPECTS: usize = 8;
const SURE: f32 = 0.97;
const MIN_ALTERNATIVE: f32 = 0.01;
const MARGIN: f32 = 3.0;

fn old_correct(
    clues: &Grid,
    likelihoods: &[[f32; CLASSES]],
    allowed: impl Fn(usize) -> bool,
) -> Option<Grid> {
    let current = |cell: usize| likelihoods[cell][clues.0[cell] as usize];
    let mut suspects: Vec<usize> = (0..81.min(likelihoods.len()))
        .filter(|&i| allowed(i) && current(i) < SURE)
        .collect();
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

    let mut found: Vec<(f32, Grid)> = Vec::new();
    for (i, &(cell, digit, ratio)) in options.iter().enumerate() {
        try_change(clues, &[(cell, digit)], ratio, &mut found);
        for &(cell2, digit2, ratio2) in &options[i + 1..] {
            if cell2 != cell {
                try_change(
                    clues,
                    &[(cell, digit), (cell2, digit2)],
                    ratio * ratio2,
                    &mut found,
                );
            }
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    match found.as_slice() {
        [] => None,
        [(_, only)] => Some(*only),
        [(best, first), (second, _), ..] => (*best >= MARGIN * *second).then_some(*first),
    }
}

fn try_change(
    clues: &Grid,
    changes: &[(usize, u8)],
    likelihood: f32,
    found: &mut Vec<(f32, Grid)>,
) {
    let mut changed = *clues;
    for &(cell, digit) in changes {
        changed.0[cell] = digit;
    }
    if let Ok(solution) = solve(&changed) {
        found.push((likelihood, solution));
    }
}

/// As `sudoku_ar::photo` takes the decoder's verdict.
fn photo_outcome(case: &Case) -> Outcome {
    let accepted = match decode(&case.read, &case.log_likelihoods, |_| true, Budget::PHOTO) {
        Verdict::Solved(d) => Some(d.solution),
        Verdict::Uncertain(d) if d.corrections.is_empty() => Some(d.solution),
        _ => None,
    };
    judge_solution(case, accepted)
}

/// As the photo pipeline took the reading before: as read when it solves, else corrected.
fn old_outcome(case: &Case) -> Outcome {
    let accepted = solve(&case.read).ok().or_else(|| {
        let likelihoods: Vec<[f32; CLASSES]> = case
            .log_likelihoods
            .iter()
            .map(|l| l.map(f32::exp))
            .collect();
        old_correct(&case.read, &likelihoods, |_| true)
    });
    judge_solution(case, accepted)
}

fn judge_solution(case: &Case, accepted: Option<Grid>) -> Outcome {
    match accepted {
        Some(s) if s == case.solution => Outcome::Fixed,
        Some(_) => Outcome::WronglyChanged,
        None => Outcome::Refused,
    }
}
