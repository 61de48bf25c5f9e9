//! Live-pipeline figures: `cargo bench --bench replay [-- --quick | --tracking-only]`.
//!
//! Prints, for the performance targets:
//! - headless replay of the 1080p test video vs `ffmpeg -threads 1 -i V -f null -` (wall time,
//!   median of 3 runs each, side by side), with and without writing the overlaid video;
//! - per-frame tracking cost on 1080p frames (OpenCV on one thread; per frame the median of 3
//!   passes, so the VM's stalls are not counted as the code's) and full detection's (as it runs);
//! - lock delay over all test videos (frames from the grid being whole in view to the right
//!   solution drawn in the right place);
//! - capture-to-display latency when replaying at the video's own 30 fps (as live does);
//! - resident memory over a 10,000-frame looped replay (skipped with --quick).

#[path = "../tests/common/videos.rs"]
mod videos;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use opencv::prelude::*;
use sudoku_ar::recognize::read::DigitReader;
use sudoku_ar::video::capture::{FrameSource, Pacing};
use sudoku_ar::video::file::VideoFile;
use sudoku_ar::video::live::{self, Options, percentile};
use sudoku_ar::video::vision::Vision;

fn binary() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/sudoku-ar")
}

fn median_wall(runs: usize, mut command: impl FnMut() -> Command) -> Duration {
    let mut walls: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let status = command()
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("run");
            assert!(status.success(), "{:?} failed", command());
            start.elapsed()
        })
        .collect();
    walls.sort();
    walls[runs / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn replay_vs_decode(video: &Path) {
    let build = Command::new("cargo")
        .args(["build", "--release", "--quiet"])
        .status()
        .expect("cargo build");
    assert!(build.success());
    let decode = median_wall(3, || {
        let mut c = Command::new("ffmpeg");
        c.args(["-hide_banner", "-loglevel", "error", "-threads", "1", "-i"])
            .arg(video)
            .args(["-f", "null", "-"]);
        c
    });
    let out = std::env::temp_dir().join("sudoku-ar-bench.mp4");
    let replay = median_wall(3, || {
        let mut c = Command::new(binary());
        c.args(["replay", "--headless"]).arg(video);
        c
    });
    let replay_out = median_wall(3, || {
        let mut c = Command::new(binary());
        c.args(["replay", "--headless", "--output"])
            .arg(&out)
            .arg(video);
        c
    });
    let _ = std::fs::remove_file(&out);
    println!("replay vs single-threaded decode ({}):", video.display());
    println!("  ffmpeg -threads 1 -f null       {:8.0} ms", ms(decode));
    println!(
        "  replay --headless               {:8.0} ms  ratio {:.2}",
        ms(replay),
        ms(replay) / ms(decode)
    );
    println!(
        "  replay --headless --output mp4  {:8.0} ms  ratio {:.2}",
        ms(replay_out),
        ms(replay_out) / ms(decode)
    );
}

/// Passes over the video for the tracking cost: each frame's cost is the median of its passes,
/// so that a pause of the whole machine (this is a VM: 4-5 ms stalls hit ~1% of frames in any
/// single pass, whatever the code) is not counted as the code's cost.
const TRACK_PASSES: usize = 3;

fn stage_costs(video: &Path) {
    // One core, as the target says (OpenCV would otherwise spread some steps over its threads).
    opencv::core::set_num_threads(1).expect("set OpenCV threads");
    let mut frames = Vec::new();
    let mut source = VideoFile::open(video, false).expect("open video");
    while let Ok(Some(frame)) = source.next_frame() {
        frames.push(frame.gray().expect("gray"));
    }
    let passes: Vec<Vec<Option<Duration>>> = (0..TRACK_PASSES)
        .map(|_| {
            let mut vision = Vision::new(DigitReader::builtin().expect("model"));
            frames
                .iter()
                .map(|frame| vision.process_gray(frame).expect("vision").times.track)
                .collect()
        })
        .collect();
    let mut track = Vec::new();
    let mut single_pass = Vec::new();
    for i in 0..frames.len() {
        let mut costs: Vec<Duration> = passes.iter().filter_map(|p| p[i]).collect();
        single_pass.extend(costs.first());
        if costs.len() == TRACK_PASSES {
            costs.sort();
            track.push(costs[TRACK_PASSES / 2]);
        }
    }
    // Full detection with OpenCV's threads, as it runs (it is not the tracking target's).
    opencv::core::set_num_threads(-1).expect("set OpenCV threads");
    let mut detect = Vec::new();
    // Full detection on every frame, as when nothing is tracked.
    for gray in frames.iter().step_by(5) {
        let start = Instant::now();
        let _ = sudoku_ar::recognize::detect::find_grid(
            gray,
            sudoku_ar::recognize::detect::Look::OneOfMany,
        )
        .expect("detect");
        detect.push(start.elapsed());
    }
    let size = frames
        .first()
        .map(|f| format!("{}x{}", f.cols(), f.rows()))
        .unwrap_or_default();
    println!(
        "per-frame cost on {size} ({} frames, one thread):",
        frames.len()
    );
    println!(
        "  tracking        p50 {:6.2} ms  p99 {:6.2} ms  (median of {TRACK_PASSES} passes per frame; one pass: p50 {:.2} ms, p99 {:.2} ms)",
        ms(percentile(&track, 0.5)),
        ms(percentile(&track, 0.99)),
        ms(percentile(&single_pass, 0.5)),
        ms(percentile(&single_pass, 0.99))
    );
    println!(
        "  full detection  p50 {:6.2} ms  p99 {:6.2} ms",
        ms(percentile(&detect, 0.5)),
        ms(percentile(&detect, 0.99))
    );
}

fn lock_delays() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut delays = Vec::new();
    let mut right = (0u64, 0u64);
    for name in videos::videos() {
        let jsonl = dir.path().join(format!("{name}.jsonl"));
        let video = videos::videos_dir().join(format!("{name}.mp4"));
        let status = Command::new(binary())
            .args(["replay", "--headless", "--jsonl"])
            .arg(&jsonl)
            .arg(&video)
            .stderr(Stdio::null())
            .status();
        assert!(status.is_ok_and(|s| s.success()));
        let score = videos::score(&videos::truth(&name), &videos::read_lines(&jsonl));
        for a in &score.appearances {
            if a.whole_from.is_some() {
                delays.push(a.lock_delay.unwrap_or(u64::MAX));
            }
            right.0 += a.right_after_lock;
            right.1 += a.after_lock;
        }
        let e = &score.corner_errors;
        let mut sorted = e.clone();
        sorted.sort_by(f64::total_cmp);
        let p50 = sorted.get(sorted.len() / 2).copied().unwrap_or(0.0);
        println!(
            "  {name:<8} lock delays {:?}, corner error p50 {:.2}% max {:.2}%, wrong-digit frames {}, phantom frames {}",
            score
                .appearances
                .iter()
                .map(|a| a.lock_delay)
                .collect::<Vec<_>>(),
            100.0 * p50,
            100.0 * score.worst_corner_error,
            score.wrong_frames.len(),
            score.phantom_frames.len()
        );
    }
    delays.sort();
    println!(
        "lock delay over {} appearances: median {} frames, max {} frames; right digits in place on {:.2}% of frames after lock",
        delays.len(),
        delays.get(delays.len() / 2).copied().unwrap_or(0),
        delays.last().copied().unwrap_or(0),
        100.0 * right.0 as f64 / right.1.max(1) as f64
    );
}

fn realtime_latency(video: &Path) {
    let path = video.to_path_buf();
    let options = Options {
        window: false,
        output: None,
        jsonl: None,
        pacing: Pacing::NewestWins,
        realtime: true,
        max_frames: None,
        on_frame: None,
    };
    let open = move || VideoFile::open(&path, false).map(|v| Box::new(v) as Box<dyn FrameSource>);
    let summary = live::run(open, DigitReader::builtin, options).expect("run");
    let l = &summary.timings.latency;
    println!(
        "capture-to-display latency at 30 fps (--realtime, {}): p50 {:.1} ms, p99 {:.1} ms (frame interval 33.3 ms), {} of {} frames dropped",
        video.display(),
        ms(percentile(l, 0.5)),
        ms(percentile(l, 0.99)),
        summary.dropped,
        summary.frames + summary.dropped
    );
}

fn rss_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

fn memory_over_long_replay(video: &Path) {
    let dir = tempfile::tempdir().expect("temp dir");
    let jsonl = dir.path().join("long.jsonl");
    let mut child = Command::new(binary())
        .args([
            "replay",
            "--headless",
            "--loop",
            "--frames",
            "10000",
            "--jsonl",
        ])
        .arg(&jsonl)
        .arg(video)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn replay");
    let start = Instant::now();
    let mut samples = Vec::new();
    let mut peak = 0;
    while child.try_wait().ok().flatten().is_none() {
        if let Some((rss, hwm)) = rss_kib(child.id()) {
            samples.push((start.elapsed().as_secs_f64(), rss));
            peak = peak.max(hwm);
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    let frames = std::fs::read_to_string(&jsonl)
        .map(|t| t.lines().count())
        .unwrap_or(0);
    let at = |share: f64| {
        samples
            .get(((samples.len() as f64 * share) as usize).min(samples.len().saturating_sub(1)))
            .map_or(0, |s| s.1)
    };
    println!(
        "memory over a {frames}-frame looped replay ({:.0} s): RSS at 10% {} MiB, 50% {} MiB, 90% {} MiB; peak {} MiB",
        start.elapsed().as_secs_f64(),
        at(0.1) / 1024,
        at(0.5) / 1024,
        at(0.9) / 1024,
        peak / 1024
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let dir = videos::videos_dir();
    let hd = dir.join("hd.mp4");
    if std::env::args().any(|a| a == "--tracking-only") {
        // The per-frame costs alone (40 s): for comparing changes to tracking back to back.
        stage_costs(&hd);
        return;
    }
    replay_vs_decode(&hd);
    stage_costs(&hd);
    lock_delays();
    realtime_latency(&dir.join("steady.mp4"));
    realtime_latency(&hd);
    if !quick {
        memory_over_long_replay(&dir.join("steady.mp4"));
    }
}
