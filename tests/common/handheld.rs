//! Running every simulated-camera clip and summing up the figures: shared by
//! tests/handheld.rs (which asserts the targets) and benches/handheld.rs (which prints them).
#![allow(dead_code)]

use std::sync::Mutex;

use super::camera::{self, Camera, Clip, Page, Run, Script};
use super::videos::{self, TruthFrame, VideoScore};

/// One clip's figures.
pub struct ClipResult {
    pub clip: Clip,
    pub score: VideoScore,
    pub run: Run,
}

impl ClipResult {
    /// Every frame with a solution drawn (after the first): its number, the corner error and how
    /// far the grid moved since the frame before (both shares of the side).
    fn drawn_errors(&self) -> Vec<(u64, f64, f64)> {
        let truth = &self.run.truth;
        self.run
            .seen
            .iter()
            .zip(truth)
            .enumerate()
            .filter_map(|(i, (s, t))| {
                let (p, q) = (s.puzzle.as_ref()?, t.puzzles.first()?);
                p.solution.as_ref()?;
                let e = videos::corner_error(&p.corners, &q.corners);
                let moved = truth
                    .get(i.checked_sub(1)?)
                    .and_then(|b| b.puzzles.first())
                    .map_or(0.0, |b| videos::corner_error(&b.corners, &q.corners));
                Some((s.frame, e, moved))
            })
            .collect()
    }

    pub fn line(&self) -> String {
        let mut e = self.score.corner_errors.clone();
        e.sort_by(f64::total_cmp);
        let pct = |q: f64| {
            if e.is_empty() {
                f64::NAN
            } else {
                100.0 * e[((e.len() - 1) as f64 * q).round() as usize]
            }
        };
        let delays: Vec<String> = self
            .score
            .appearances
            .iter()
            .filter(|a| a.whole_from.is_some())
            .map(|a| {
                let lock = a.lock_delay.map_or("never".into(), |d| d.to_string());
                match a.digits_delay {
                    Some(d) if Some(d) != a.lock_delay => format!("{lock} (digits {d})"),
                    _ => lock,
                }
            })
            .collect();
        let mut line = format!(
            "{:<48} lock [{}] right after lock {:6.2}%  >5% off {:3}  corner error p50 {:.2}% p99 {:.2}% max {:.2}%",
            self.clip.name,
            delays.join(","),
            100.0 * self.score.right_share(),
            self.score.wrong_frames.len(),
            pct(0.5),
            pct(0.99),
            pct(1.0),
        );
        let first = |f: &dyn Fn(&super::videos::SeenPuzzle) -> bool| {
            self.run
                .seen
                .iter()
                .find(|s| s.puzzle.as_ref().is_some_and(f))
                .map_or(-1, |s| s.frame as i64)
        };
        let whole = self
            .score
            .appearances
            .first()
            .and_then(|a| a.whole_from)
            .map_or(-1, |w| w as i64);
        let solved_state = self
            .run
            .seen
            .iter()
            .filter(|s| s.puzzle.as_ref().is_some_and(|p| p.status == "solved"))
            .count();
        let legible = self.run.legible_from.map_or(-1, |l| l as i64);
        let hidden = self
            .score
            .appearances
            .first()
            .map_or(0, |a| needed_hidden_frames(&self.run.truth, a));
        line += &format!(
            "  [whole {whole}, legible {legible}, found {}, drawn from {}; {solved_state} frames solved{}]",
            first(&|_| true),
            first(&|p| p.solution.is_some()),
            if hidden > 0 {
                format!("; a needed clue hidden on {hidden} of the first 11 whole")
            } else {
                String::new()
            }
        );
        let circled: Vec<String> = self
            .run
            .seen
            .iter()
            .filter_map(|s| {
                let p = s.puzzle.as_ref()?;
                (!p.wrong_entries.is_empty()).then(|| format!("{}:{:?}", s.frame, p.wrong_entries))
            })
            .collect();
        if !circled.is_empty() {
            line += &format!("  right entries circled: {}", circled.join(" "));
        }
        let drawn = self.drawn_errors();
        let far: Vec<String> = drawn
            .iter()
            .filter(|(_, e, _)| *e > 0.015)
            .map(|(frame, e, moved)| format!("{frame}:{:.1}@{:.0}", 100.0 * e, 100.0 * moved))
            .collect();
        if !far.is_empty() {
            line += &format!("  >1.5%: {}", far.join(" "));
        }
        if std::env::var_os("SUDOKU_BENCH_ERRORS").is_some() {
            let all: Vec<String> = drawn
                .iter()
                .map(|(frame, e, _)| format!("{frame}:{:.2}", 100.0 * e))
                .collect();
            line += &format!("\n  drawn: {}", all.join(" "));
        }
        if !self.score.wrong_frames.is_empty() {
            line += &format!("  >5% off at {:?}", self.score.wrong_frames);
        }
        if self.clip.script == Script::Pan {
            let (first, last) = camera::first_and_last_with_side(&self.run, 5.0);
            let mean = |v: &[(f64, f64)]| {
                100.0 * v.iter().map(|e| e.0).sum::<f64>() / v.len().max(1) as f64
            };
            let pixels =
                |v: &[(f64, f64)]| v.iter().map(|e| e.0 * e.1).sum::<f64>() / v.len().max(1) as f64;
            line += &format!(
                "  drift: first 5 s {:.2}% ({:.2} px), last 5 s {:.2}% ({:.2} px) (mean)",
                mean(&first),
                pixels(&first),
                mean(&last),
                pixels(&last)
            );
        }
        line
    }
}

/// Runs `clips` over `pages` on `threads` threads, each with its own reader.
pub fn run_all(pages: &[Page], clips: &[Clip], threads: usize) -> Vec<ClipResult> {
    let next = Mutex::new(0usize);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(clip) = clips.get(i) else { break };
                    let result = run_clip(pages, clip);
                    eprintln!("{}", result.line());
                    results.lock().unwrap().push((i, result));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Runs one clip with a reader of its own, and scores it.
pub fn run_clip(pages: &[Page], clip: &Clip) -> ClipResult {
    let reader = super::pipeline_reader();
    let camera = Camera::new(pages, clip).expect("camera");
    let run = camera::run(reader, &camera);
    let score = videos::score(&run.truth, &run.seen);
    ClipResult {
        clip: clip.clone(),
        score,
        run,
    }
}

/// Figures over all clips.
pub struct Totals {
    pub clips: usize,
    pub pages: usize,
    pub frames: usize,
    pub lock_delays: Vec<u64>,
    /// Per appearance locked or with digits drawn, frames to the first right digits drawn.
    pub digits_delays: Vec<u64>,
    /// Per clip, frames from its first legible frame (see `Run::legible_from`) to its first
    /// lock.
    pub delays_after_legible: Vec<u64>,
    pub never_locked: usize,
    /// Appearances not locked within 10 frames of whole in view while a finger covered, or a
    /// glare spot washed out, a clue the puzzle needs on every one of those frames: no reader
    /// could have locked them.
    pub needed_hidden: usize,
    pub wrong_frames: usize,
    pub phantom_frames: usize,
    /// Frames circling an entry as wrong: every entry on these pages is right (Kubiesa's
    /// puzzles are filled in rightly, Wicht's not at all), so each is a false alarm.
    pub false_marks: usize,
    pub corner_errors: Vec<f64>,
    pub right_share: f64,
    /// Frames with a grid whole in view, and of them those with right digits (the whole
    /// solution or the digits agreed on while a clue is hidden) drawn in the right place.
    pub whole_frames: usize,
    pub digits_frames: usize,
    /// Of them, those with the whole solution drawn in the right place.
    pub solution_frames: usize,
}

pub fn totals(pages: &[Page], results: &[ClipResult]) -> Totals {
    let mut t = Totals {
        clips: results.len(),
        pages: pages.len(),
        frames: 0,
        lock_delays: Vec::new(),
        digits_delays: Vec::new(),
        delays_after_legible: Vec::new(),
        never_locked: 0,
        needed_hidden: 0,
        wrong_frames: 0,
        phantom_frames: 0,
        false_marks: 0,
        corner_errors: Vec::new(),
        right_share: 0.0,
        whole_frames: 0,
        digits_frames: 0,
        solution_frames: 0,
    };
    let (mut after, mut right) = (0, 0);
    for r in results {
        t.frames += r.run.truth.len();
        t.wrong_frames += r.score.wrong_frames.len();
        t.phantom_frames += r.score.phantom_frames.len();
        t.false_marks += r
            .run
            .seen
            .iter()
            .filter(|s| {
                s.puzzle
                    .as_ref()
                    .is_some_and(|p| !p.wrong_entries.is_empty())
            })
            .count();
        t.corner_errors.extend(&r.score.corner_errors);
        for (seen, truth) in r.run.seen.iter().zip(&r.run.truth) {
            let Some(p) = truth.puzzles.first().filter(|p| p.whole) else {
                continue;
            };
            let drawn = |whole: bool| {
                seen.puzzle.as_ref().is_some_and(|s| {
                    s.solution
                        .as_deref()
                        .is_some_and(|d| videos::drawn_of(d, &p.solution, whole))
                        && videos::corner_error(&s.corners, &p.corners) <= videos::RIGHT_PLACE
                }) as usize
            };
            t.whole_frames += 1;
            t.digits_frames += drawn(false);
            t.solution_frames += drawn(true);
        }
        if let (Some(legible), Some(first)) = (r.run.legible_from, r.score.appearances.first())
            && let (Some(whole), Some(delay)) = (first.whole_from, first.lock_delay)
        {
            t.delays_after_legible
                .push((whole + delay).saturating_sub(legible));
        }
        for a in r
            .score
            .appearances
            .iter()
            .filter(|a| a.whole_from.is_some())
        {
            match a.lock_delay {
                Some(d) => t.lock_delays.push(d),
                None => t.never_locked += 1,
            }
            if a.lock_delay.is_none_or(|d| d > 10) && needed_hidden_throughout(&r.run.truth, a) {
                t.needed_hidden += 1;
            }
            t.digits_delays.extend(a.digits_delay);
            after += a.after_lock;
            right += a.right_after_lock;
        }
    }
    t.corner_errors.sort_by(f64::total_cmp);
    t.lock_delays.sort();
    t.digits_delays.sort();
    t.delays_after_legible.sort();
    t.right_share = right as f64 / after.max(1) as f64;
    t
}

/// Whether a clue `a`'s puzzle needs was hidden (under a finger or washed out by glare) on each of
/// its first 11 frames whole in view (see `TruthPuzzle::needed_hidden`).
fn needed_hidden_throughout(truth: &[TruthFrame], a: &videos::Appearance) -> bool {
    needed_hidden_frames(truth, a) == 11
}

/// On how many of `a`'s first 11 frames whole in view a clue its puzzle needs was hidden.
fn needed_hidden_frames(truth: &[TruthFrame], a: &videos::Appearance) -> usize {
    let Some(whole) = a.whole_from else {
        return 0;
    };
    truth
        .iter()
        .skip(whole as usize)
        .take(11)
        .filter(|f| f.puzzles.iter().any(|p| p.id == a.id && p.needed_hidden))
        .count()
}

impl Totals {
    pub fn error_at(&self, q: f64) -> f64 {
        let e = &self.corner_errors;
        if e.is_empty() {
            0.0
        } else {
            e[((e.len() - 1) as f64 * q).round() as usize]
        }
    }

    pub fn summary(&self) -> String {
        format!(
            "{} clips over {} real pages, {} frames: locked {} appearances (lock delay median {}, max {}), never {}; right after lock {:.2}%; frames >5% off {}, phantom {}, right entries circled {}; corner error p50 {:.2}% p99 {:.2}% max {:.2}% of side",
            self.clips,
            self.pages,
            self.frames,
            self.lock_delays.len(),
            self.lock_delays
                .get(self.lock_delays.len() / 2)
                .copied()
                .unwrap_or(0),
            self.lock_delays.last().copied().unwrap_or(0),
            self.never_locked,
            100.0 * self.right_share,
            self.wrong_frames,
            self.phantom_frames,
            self.false_marks,
            100.0 * self.error_at(0.5),
            100.0 * self.error_at(0.99),
            100.0 * self.error_at(1.0),
        ) + &format!(
            "; locked within 10 frames of whole in view: {} of {} ({} not, a needed clue hidden all along by a finger or glare); right digits drawn within 10: {} of {}, on {:.1}% of frames whole in view (the whole solution on {:.1}%)",
            self.lock_delays.iter().filter(|&&d| d <= 10).count(),
            self.lock_delays.len() + self.never_locked,
            self.needed_hidden,
            self.digits_delays.iter().filter(|&&d| d <= 10).count(),
            self.lock_delays.len() + self.never_locked,
            100.0 * self.digits_frames as f64 / self.whole_frames.max(1) as f64,
            100.0 * self.solution_frames as f64 / self.whole_frames.max(1) as f64,
        ) + &format!(
            "; first locks {} frames after the first legible frame at median, {} at most, {} of {} within 10",
            self.delays_after_legible
                .get(self.delays_after_legible.len() / 2)
                .copied()
                .unwrap_or(0),
            self.delays_after_legible.last().copied().unwrap_or(0),
            self.delays_after_legible
                .iter()
                .filter(|&&d| d <= 10)
                .count(),
            self.delays_after_legible.len(),
        )
    }
}
