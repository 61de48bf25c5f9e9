//! Misread puzzles built from real readings, for the decoder's test and bench.
//!
//! The readings are what the digit model gave on the Wicht newspaper photos (every cell's
//! probabilities), kept only where the model read every clue right, so that the truth is the
//! dataset's and the only errors are the ones put in here: a clue blanked (read as empty), a
//! clue added (an empty cell read as a digit), a clue swapped for another digit, or two of
//! those at once. A misread cell keeps the small probabilities the model gave its other
//! classes; the wrong class takes most of the mass and the true one keeps `q`, drawn between
//! 0.2% and 45% (log-uniform), from a misread the model was nearly sure of to a coin toss.
//!
//! Genuinely ambiguous cases are built too: a clue lost for good (read as surely empty as a
//! real empty cell) and another cell torn evenly between two digits, each of which gives
//! exactly one solution, a different one. Nothing can tell those apart; a decoder must refuse.
#![allow(dead_code)]

use sudoku_ar::grid::Grid;
use sudoku_ar::photo::PhotoPipeline;
use sudoku_ar::recognize::decode::{Budget, Verdict, decode};
use sudoku_ar::recognize::read::{CLASSES, argmax};
use sudoku_ar::solve::solve;

use super::{Sample, photo};

/// One photo's reading, with the truth.
pub struct RealReading {
    pub name: String,
    pub truth: Grid,
    pub solution: Grid,
    /// Per cell: probability of no printed clue (0) and of each printed digit.
    pub probabilities: Vec<[f32; CLASSES]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Blanked,
    Added,
    Swapped,
    TwoAtOnce,
    Ambiguous,
}

pub struct Case {
    pub name: String,
    pub kind: Kind,
    pub read: Grid,
    pub log_likelihoods: Vec<[f32; CLASSES]>,
    pub truth: Grid,
    pub solution: Grid,
}

/// What the decoder made of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Accepted a puzzle whose solution is the truth's: the right digits would be drawn.
    Fixed,
    /// Accepted a puzzle with another solution: wrong digits would be drawn.
    WronglyChanged,
    /// Said the reading is uncertain, or found no puzzle: nothing drawn.
    Refused,
}

/// The photos whose every clue the model read right, with their readings.
pub fn real_readings(pipeline: &mut PhotoPipeline, samples: &[&Sample]) -> Vec<RealReading> {
    let mut out = Vec::new();
    for sample in samples {
        let Ok(image) = photo::load_image(&sample.path) else {
            continue;
        };
        let Ok(Some(puzzle)) = pipeline.process(&image, &mut Default::default()) else {
            continue;
        };
        let truth = Grid(std::array::from_fn(|i| sample.cells[i].expected_digit()));
        let probabilities: Vec<[f32; CLASSES]> =
            puzzle.reading.0.iter().map(|r| r.as_clue).collect();
        let read_right = (0..81).all(|i| argmax(&probabilities[i]) == truth.0[i] as usize);
        let Ok(solution) = solve(&truth) else {
            continue;
        };
        if read_right {
            let name = sample
                .path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push(RealReading {
                name,
                truth,
                solution,
                probabilities,
            });
        }
    }
    out
}

/// `per_reading` misread cases of each kind from every reading, and the ambiguous ones that
/// can be built; deterministic for a `seed`.
pub fn cases(readings: &[RealReading], per_reading: usize, seed: u64) -> Vec<Case> {
    let mut rng = XorShift(seed | 1);
    let mut cases = Vec::new();
    for reading in readings {
        for kind in [Kind::Blanked, Kind::Added, Kind::Swapped, Kind::TwoAtOnce] {
            for _ in 0..per_reading {
                cases.push(misread_case(reading, kind, &mut rng));
            }
        }
        if let Some(case) = ambiguous_case(reading, &mut rng) {
            cases.push(case);
        }
    }
    cases
}

fn misread_case(reading: &RealReading, kind: Kind, rng: &mut XorShift) -> Case {
    let mut p = reading.probabilities.clone();
    let mut read = reading.truth;
    let steps = match kind {
        Kind::TwoAtOnce => vec![
            [Kind::Blanked, Kind::Added, Kind::Swapped][rng.below(3)],
            [Kind::Blanked, Kind::Added, Kind::Swapped][rng.below(3)],
        ],
        kind => vec![kind],
    };
    let mut used = Vec::new();
    for step in steps {
        let clue = |c: usize| reading.truth.0[c] != 0;
        let cell = loop {
            let c = rng.below(81);
            let fits = match step {
                Kind::Added => !clue(c),
                _ => clue(c),
            };
            if fits && !used.contains(&c) {
                break c;
            }
        };
        used.push(cell);
        let truth = reading.truth.0[cell] as usize;
        let wrong = match step {
            Kind::Blanked => 0,
            _ => loop {
                let d = 1 + rng.below(9);
                if d != truth {
                    break d;
                }
            },
        };
        let q = (0.002f32.ln() + rng.unit() * (0.45f32.ln() - 0.002f32.ln())).exp();
        p[cell] = misread(&p[cell], truth, wrong, q);
        read.0[cell] = wrong as u8;
    }
    case(reading, kind, read, &p)
}

fn ambiguous_case(reading: &RealReading, rng: &mut XorShift) -> Option<Case> {
    let clues: Vec<usize> = (0..81).filter(|&c| reading.truth.0[c] != 0).collect();
    let surely_empty = (0..81)
        .find(|&c| reading.truth.0[c] == 0)
        .map(|c| reading.probabilities[c])?;
    let start = rng.below(clues.len());
    for k in 0..clues.len() {
        let lost = clues[(start + k) % clues.len()];
        let mut read = reading.truth;
        read.0[lost] = 0;
        for cell in (0..81).filter(|&c| read.0[c] == 0 && c != lost) {
            let unique: Vec<(u8, Grid)> = (1..=9)
                .filter_map(|d| {
                    let mut g = read;
                    g.0[cell] = d;
                    solve(&g).ok().map(|s| (d, s))
                })
                .collect();
            let Some(&(a, first)) = unique.first() else {
                continue;
            };
            let Some(&(b, _)) = unique.iter().find(|(_, s)| *s != first) else {
                continue;
            };
            let mut p = reading.probabilities.clone();
            p[lost] = surely_empty;
            let mut torn = [0.0005; CLASSES];
            torn[0] = 0.5;
            torn[a as usize] = 0.249;
            torn[b as usize] = 0.249;
            p[cell] = torn;
            return Some(case(reading, Kind::Ambiguous, read, &p));
        }
    }
    None
}

fn case(reading: &RealReading, kind: Kind, read: Grid, p: &[[f32; CLASSES]]) -> Case {
    Case {
        name: reading.name.clone(),
        kind,
        read,
        log_likelihoods: p.iter().map(|c| c.map(|v| v.max(1e-9).ln())).collect(),
        truth: reading.truth,
        solution: reading.solution,
    }
}

/// The cell's real probabilities with `wrong` made the reading and `q` left on `truth`.
fn misread(p: &[f32; CLASSES], truth: usize, wrong: usize, q: f32) -> [f32; CLASSES] {
    let mut out = *p;
    let rest: f32 = (0..CLASSES)
        .filter(|&c| c != truth && c != wrong)
        .map(|c| out[c])
        .sum();
    out[truth] = q;
    out[wrong] = (1.0 - q - rest).max(q + 1e-3);
    out
}

/// The decoder's verdict as the live pipeline takes it: only a clear puzzle is drawn.
pub fn outcome(case: &Case, budget: Budget) -> Outcome {
    match decode(&case.read, &case.log_likelihoods, |_| true, budget) {
        Verdict::Solved(d) if d.solution == case.solution => Outcome::Fixed,
        Verdict::Solved(_) => Outcome::WronglyChanged,
        _ => Outcome::Refused,
    }
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}
