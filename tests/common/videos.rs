//! The test videos in testvideos/ with their per-frame truth, and how a replay's JSON lines
//! score against it. Shared by tests/videos.rs and benches/replay.rs.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// A truth line of `<video>.truth.jsonl` (written by testvideos/generate.py).
#[derive(Debug, Deserialize)]
pub struct TruthFrame {
    pub frame: u64,
    pub puzzles: Vec<TruthPuzzle>,
}

#[derive(Debug, Deserialize)]
pub struct TruthPuzzle {
    pub id: String,
    pub corners: [[f64; 2]; 4],
    pub clues: String,
    pub solution: String,
    /// All four corners inside the frame.
    pub whole: bool,
    pub occluded: bool,
    /// A finger covers, or a glare spot washes out, a clue the puzzle needs: the clues in view
    /// have several solutions (simulated camera only).
    #[serde(default)]
    pub needed_hidden: bool,
}

/// A line of `sudoku-ar replay --jsonl`.
#[derive(Debug, Deserialize)]
pub struct SeenFrame {
    pub frame: u64,
    pub puzzle: Option<SeenPuzzle>,
    /// Other puzzles in view, solved and drawn (absent when there are none).
    #[serde(default)]
    pub others: Vec<SeenPuzzle>,
}

impl SeenFrame {
    /// The puzzles whose solution (or some of its digits) the frame draws.
    pub fn drawn(&self) -> impl Iterator<Item = &SeenPuzzle> {
        self.puzzle
            .iter()
            .chain(&self.others)
            .filter(|p| p.solution.is_some())
    }
}

#[derive(Debug, Deserialize)]
pub struct SeenPuzzle {
    pub corners: [[f64; 2]; 4],
    pub clues: String,
    pub solution: Option<String>,
    pub status: String,
    /// Cells circled as wrong entries (absent from older JSON lines).
    #[serde(default)]
    pub wrong_entries: Vec<usize>,
}

pub fn videos_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testvideos")
}

/// The bundled videos, by name.
pub fn videos() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(videos_dir())
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_str()?
                        .strip_suffix(".truth.jsonl")
                        .map(String::from)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

pub fn read_lines<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display())))
        .collect()
}

pub fn truth(name: &str) -> Vec<TruthFrame> {
    read_lines(&videos_dir().join(format!("{name}.truth.jsonl")))
}

/// Largest corner distance as a share of the true grid's mean side.
pub fn corner_error(seen: &[[f64; 2]; 4], truth: &[[f64; 2]; 4]) -> f64 {
    let d = |a: [f64; 2], b: [f64; 2]| ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt();
    let side = (0..4).map(|i| d(truth[i], truth[(i + 1) % 4])).sum::<f64>() / 4.0;
    (0..4).map(|i| d(seen[i], truth[i])).fold(0.0, f64::max) / side
}

/// Corner error within which the drawn digits count as in the right place.
pub const RIGHT_PLACE: f64 = 0.02;
/// Corner error beyond which some digit lands in a neighbouring cell (half a cell is 5.6%).
pub const WRONG_PLACE: f64 = 0.05;

/// How one appearance of a puzzle went.
#[derive(Debug, Clone)]
pub struct Appearance {
    pub id: String,
    /// First frame the whole grid was in view.
    pub whole_from: Option<u64>,
    /// Frames from `whole_from` to the first frame with the right solution in the right place.
    pub lock_delay: Option<u64>,
    /// Frames from `whole_from` to the first frame with right digits in the right place: the
    /// whole solution, or the digits every solution of the clues in view agrees on (a finger
    /// over a clue the puzzle needs).
    pub digits_delay: Option<u64>,
    /// Frames after lock with the whole grid in view, and how many of them were right.
    pub after_lock: u64,
    pub right_after_lock: u64,
}

#[derive(Debug, Default)]
pub struct VideoScore {
    pub frames: u64,
    pub appearances: Vec<Appearance>,
    /// Frames that show a solution that is not the puzzle's, or far from where it belongs.
    pub wrong_frames: Vec<u64>,
    /// Frames with no puzzle in view that show a solution anyway.
    pub phantom_frames: Vec<u64>,
    /// Largest corner error on frames that draw the right puzzle's solution.
    pub worst_corner_error: f64,
    pub corner_errors: Vec<f64>,
}

impl VideoScore {
    pub fn right_share(&self) -> f64 {
        let after: u64 = self.appearances.iter().map(|a| a.after_lock).sum();
        let right: u64 = self.appearances.iter().map(|a| a.right_after_lock).sum();
        if after == 0 {
            0.0
        } else {
            right as f64 / after as f64
        }
    }
}

/// Whether the digits drawn (`drawn`, '0' where none is) are all `solution`'s; a whole solution
/// only when `whole`.
pub fn drawn_of(drawn: &str, solution: &str, whole: bool) -> bool {
    drawn.len() == solution.len()
        && drawn
            .bytes()
            .zip(solution.bytes())
            .all(|(d, s)| d == s || (d == b'0' && !whole))
}

/// Scores a replay's lines against the truth. A frame drawing digits that are not all of the
/// puzzle's solution, or far from where it belongs, is a wrong frame, whether it draws the whole
/// solution or the digits agreed on while a clue is hidden.
pub fn score(truth: &[TruthFrame], seen: &[SeenFrame]) -> VideoScore {
    let seen_at: BTreeMap<u64, &SeenFrame> = seen.iter().map(|s| (s.frame, s)).collect();
    let mut score = VideoScore {
        frames: truth.len() as u64,
        ..VideoScore::default()
    };
    // Whether a frame draws truth puzzle `p`'s solution (`whole`, or some of its digits)
    // within `within`.
    let drawn_right = |frame: u64, p: &TruthPuzzle, within: f64, whole: bool| -> bool {
        seen_at.get(&frame).is_some_and(|s| {
            s.drawn().any(|s| {
                s.solution
                    .as_deref()
                    .is_some_and(|d| drawn_of(d, &p.solution, whole))
                    && corner_error(&s.corners, &p.corners) <= within
            })
        })
    };
    for t in truth {
        let Some(seen) = seen_at.get(&t.frame) else {
            continue;
        };
        let mut wrong = false;
        for d in seen.drawn() {
            if t.puzzles.is_empty() {
                score.phantom_frames.push(t.frame);
                break;
            }
            let matching = t.puzzles.iter().find(|p| {
                d.solution
                    .as_deref()
                    .is_some_and(|d| drawn_of(d, &p.solution, false))
            });
            match matching {
                Some(p) => {
                    let e = corner_error(&d.corners, &p.corners);
                    score.corner_errors.push(e);
                    score.worst_corner_error = score.worst_corner_error.max(e);
                    wrong |= e > WRONG_PLACE;
                }
                None => wrong = true,
            }
        }
        if wrong {
            score.wrong_frames.push(t.frame);
        }
    }
    // Appearances: runs of consecutive frames in which a puzzle is (partly) in view.
    let mut open: BTreeMap<String, Appearance> = BTreeMap::new();
    let mut locked: BTreeMap<String, bool> = BTreeMap::new();
    for t in truth {
        let present: Vec<&str> = t.puzzles.iter().map(|p| p.id.as_str()).collect();
        let gone: Vec<String> = open
            .keys()
            .filter(|id| !present.contains(&id.as_str()))
            .cloned()
            .collect();
        for id in gone {
            score.appearances.extend(open.remove(&id));
            locked.remove(&id);
        }
        for p in &t.puzzles {
            let a = open.entry(p.id.clone()).or_insert_with(|| Appearance {
                id: p.id.clone(),
                whole_from: None,
                lock_delay: None,
                digits_delay: None,
                after_lock: 0,
                right_after_lock: 0,
            });
            if p.whole && a.whole_from.is_none() {
                a.whole_from = Some(t.frame);
            }
            let right = drawn_right(t.frame, p, RIGHT_PLACE, true);
            let is_locked = locked.entry(p.id.clone()).or_insert(false);
            if let Some(from) = a.whole_from {
                if a.digits_delay.is_none() && drawn_right(t.frame, p, RIGHT_PLACE, false) {
                    a.digits_delay = Some(t.frame - from);
                }
                if !*is_locked && right {
                    *is_locked = true;
                    a.lock_delay = Some(t.frame - from);
                }
                if *is_locked && p.whole {
                    a.after_lock += 1;
                    a.right_after_lock += right as u64;
                    if !right && std::env::var_os("SUDOKU_BENCH_NOT_RIGHT").is_some() {
                        eprintln!("{} frame {}: not right after lock", p.id, t.frame);
                    }
                }
            }
        }
    }
    score.appearances.extend(open.into_values());
    score
}
