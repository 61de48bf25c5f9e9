//! The simulated hand-held camera over real pages (tests/common/camera.rs): per clip, the lock
//! delay, the share of frames right after lock, frames drawn more than 5% of the side off, the
//! corner error, drift on the 30 s pans, and the tracking time.
//!
//! `cargo bench --bench handheld` prints them; `-- --crops DIR` also writes each page's truth
//! corners zoomed (published corner blue, truth red) to check by eye; `-- --frames DIR` writes
//! a few frames of each clip (`--at 20,25` those frames; of the writing clips with `--clips
//! writing`); `-- --only NAME` runs only the clips whose name contains NAME;
//! `-- --set 1` films 32 other pages (`camera::page_set`); `-- --clips writing` films a hand
//! writing in the digits over each page instead of the usual clips; `-- --ink green` films the
//! pages printed in green ink.
//! `SUDOKU_BENCH_ERRORS=1` adds each clip's corner error on every frame with a solution drawn;
//! `SUDOKU_BENCH_NOT_RIGHT=1` names the frames after lock not drawn right (to stderr).

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::PathBuf;

use common::camera::{self, Camera};
use common::handheld;
use opencv::prelude::*;

fn main() {
    // RUST_LOG=sudoku_ar=debug shows what the vision stage decides, frame by frame; with
    // `,handheld=info` each line names its clip and frame.
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    // `--set 1` films 32 other pages (see `camera::page_set`).
    let set = common::bench_arg("--set")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut pages = camera::page_set(set);
    // `--ink green` films every page printed in green ink (`camera::printed_in_green`).
    if common::bench_arg("--ink").as_deref() == Some("green") {
        pages = pages
            .iter()
            .map(|p| camera::printed_in_green(p).expect("page in green"))
            .collect();
    }
    eprintln!(
        "{} pages: {}",
        pages.len(),
        pages
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    );
    if let Some(dir) = common::bench_arg("--crops").map(PathBuf::from) {
        std::fs::create_dir_all(&dir).expect("crops dir");
        for page in &pages {
            let crops = camera::corner_crops(page).expect("crops");
            // Diagnostics only: how far the truth moved from the published corners, and how far
            // the project's own detector is from it (never used as truth).
            let side = page.corners.mean_side();
            let mut pipeline = common::pipeline();
            let mut times = Default::default();
            let ours = pipeline
                .process(&page.image, &mut times)
                .ok()
                .flatten()
                .map(|p| {
                    (0..4)
                        .map(|k| {
                            sudoku_ar::geometry::Quad(std::array::from_fn(|i| {
                                p.quad.0[(i + k) % 4]
                            }))
                            .max_corner_distance(&page.corners)
                        })
                        .fold(f64::MAX, f64::min)
                });
            println!(
                "{:<28} {}x{}  published to truth {:.2}%  detector to truth {}",
                page.name,
                page.image.cols(),
                page.image.rows(),
                100.0 * page.published.max_corner_distance(&page.corners) / side,
                ours.map_or("none".into(), |d| format!("{:.2}%", 100.0 * d / side))
            );
            let path = dir.join(format!("{}.png", page.name.trim_end_matches(".jpg")));
            opencv::imgcodecs::imwrite(
                path.to_str().unwrap(),
                &crops,
                &opencv::core::Vector::new(),
            )
            .expect("write");
        }
    }
    if let Some(dir) = common::bench_arg("--frames").map(PathBuf::from) {
        std::fs::create_dir_all(&dir).expect("frames dir");
        let only = common::bench_arg("--only");
        // `--at 20,25,30` writes those frames instead of every 45th.
        let at: Option<Vec<usize>> = common::bench_arg("--at")
            .map(|list| list.split(',').filter_map(|n| n.parse().ok()).collect());
        for clip in clips_asked(&pages, only.as_deref()) {
            let camera = Camera::new(&pages, &clip).expect("camera");
            let frames: Vec<usize> = at
                .clone()
                .unwrap_or_else(|| (0..clip.frames).step_by(45).collect());
            for i in frames.into_iter().filter(|&i| i < clip.frames) {
                let (frame, _) = camera.frame(i).expect("frame");
                let path = dir.join(format!(
                    "{}-{i:04}.png",
                    clip.name.replace([':', '+'], "_").replace(".jpg", "")
                ));
                opencv::imgcodecs::imwrite(
                    path.to_str().unwrap(),
                    &frame,
                    &opencv::core::Vector::new(),
                )
                .expect("write");
            }
        }
        return;
    }
    if let Some(range) = common::bench_arg("--probe") {
        // `--probe 15,35`: each clip's frames 15..35 read at their true corners.
        let bounds: Vec<usize> = range.split(',').filter_map(|n| n.parse().ok()).collect();
        let [from, to] = bounds[..] else {
            panic!("--probe takes two frame numbers: A,B");
        };
        let only = common::bench_arg("--only");
        let mut reader = common::pipeline_reader();
        for clip in camera::clips_named(&pages, only.as_deref()) {
            let camera = Camera::new(&pages, &clip).expect("camera");
            println!("{}", clip.name);
            for i in from..to {
                if let Some(line) = camera::probe(&mut reader, &camera, i) {
                    println!("  {line}");
                }
            }
        }
        return;
    }
    let only = common::bench_arg("--only");
    let pages_run = pages;
    let clips = clips_asked(&pages_run, only.as_deref());
    let results = handheld::run_all(&pages_run, &clips, 2);
    // DUMP_CORNERS=N prints frame N's drawn and true corners, per clip.
    if let Some(n) = std::env::var("DUMP_CORNERS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        for r in &results {
            let drawn = r.run.seen.get(n).and_then(|s| s.puzzle.as_ref());
            let truth = r.run.truth.get(n).and_then(|t| t.puzzles.first());
            println!(
                "{} frame {n}: drawn {:?} clues {:?}; truth {:?}",
                r.clip.name,
                drawn.map(|p| p.corners),
                drawn.map(|p| p.clues.as_str()),
                truth.map(|p| p.corners)
            );
        }
    }
    if std::env::var_os("DUMP_STATES").is_some() {
        for r in &results {
            let states: Vec<String> = r
                .run
                .seen
                .iter()
                .map(|s| match &s.puzzle {
                    None => "-".into(),
                    Some(p) => format!(
                        "{}{}",
                        &p.status[..2],
                        if p.solution.is_some() { "*" } else { "" }
                    ),
                })
                .collect();
            println!("{}: {}", r.clip.name, states.join(" "));
        }
    }
    println!();
    for r in &results {
        println!("{}", r.line());
    }
    let totals = handheld::totals(&pages_run, &results);
    println!("\n{}", totals.summary());
    let mut track: Vec<_> = results
        .iter()
        .flat_map(|r| r.run.track_times.iter().copied())
        .collect();
    track.sort();
    if !track.is_empty() {
        let at = |q: f64| track[((track.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
        println!(
            "tracking per 960x540 frame (two clips at once on 2 cores): p50 {:.2} ms, p99 {:.2} ms",
            at(0.5),
            at(0.99)
        );
    }
}

/// The clips over `pages` named `only` (all when None): the hand-held ones, or with `--clips
/// writing` a hand writing over each page instead (`Script::Writing`).
fn clips_asked(pages: &[camera::Page], only: Option<&str>) -> Vec<camera::Clip> {
    match common::bench_arg("--clips").as_deref() {
        Some("writing") => camera::named(camera::writing_clips(pages), only),
        Some(other) => panic!("--clips takes writing, not {other}"),
        None => camera::clips_named(pages, only),
    }
}
