//! End to end on the bundled test videos: `sudoku-ar replay --headless --jsonl`, scored against
//! each video's per-frame truth (testvideos/*.truth.jsonl).

#[path = "common/videos.rs"]
mod videos;

use std::path::Path;
use std::process::Command;

use videos::{SeenFrame, VideoScore};

fn replay(name: &str, dir: &Path) -> Vec<SeenFrame> {
    let video = videos::videos_dir().join(format!("{name}.mp4"));
    let jsonl = dir.join(format!("{name}.jsonl"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_sudoku-ar"));
    command
        .args(["replay", "--headless", "--jsonl"])
        .arg(&jsonl)
        .arg(&video);
    // A candidate model can be checked before it replaces the built-in one.
    if let Some(model) = std::env::var_os("SUDOKU_MODEL") {
        command.arg("--model").arg(model);
    }
    let out = command.output().expect("run sudoku-ar");
    assert!(
        out.status.success(),
        "replay {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    videos::read_lines(&jsonl)
}

fn scored(name: &str) -> VideoScore {
    let dir = tempfile::tempdir().expect("temp dir");
    let truth = videos::truth(name);
    let seen = replay(name, dir.path());
    assert_eq!(seen.len(), truth.len(), "{name}: one JSON line per frame");
    for (i, s) in seen.iter().enumerate() {
        assert_eq!(s.frame, i as u64, "{name}: lines in frame order");
    }
    let score = videos::score(&truth, &seen);
    eprintln!(
        "{name}: right after lock {:.2}%, worst corner error {:.2}%, appearances {:?}",
        100.0 * score.right_share(),
        100.0 * score.worst_corner_error,
        score.appearances
    );
    score
}

fn check(name: &str) {
    let score = scored(name);
    assert!(
        score.wrong_frames.is_empty(),
        "{name}: wrong digits drawn on frames {:?}",
        score.wrong_frames
    );
    assert!(
        score.phantom_frames.is_empty(),
        "{name}: overlay with no puzzle in view on frames {:?}",
        score.phantom_frames
    );
    for a in &score.appearances {
        if a.whole_from.is_some() {
            let delay = a
                .lock_delay
                .unwrap_or_else(|| panic!("{name}: puzzle {} never locked: {a:?}", a.id));
            assert!(
                delay <= 10,
                "{name}: puzzle {} locked {delay} frames after it was whole in view",
                a.id
            );
        }
    }
    assert!(
        score.right_share() >= 0.98,
        "{name}: right digits in the right place on {:.2}% of frames after lock",
        100.0 * score.right_share()
    );
}

#[test]
fn every_bundled_video_has_truth() {
    let names = videos::videos();
    assert!(names.len() >= 4, "testvideos/ holds {names:?}");
    for name in names {
        assert!(
            videos::videos_dir().join(format!("{name}.mp4")).is_file(),
            "{name}.mp4 missing"
        );
    }
}

#[test]
fn steady_hand_held_puzzle() {
    check("steady");
}

#[test]
fn finger_across_a_newspaper_puzzle() {
    check("finger");
}

#[test]
fn puzzle_swapped_for_another_and_back() {
    check("swap");
}

#[test]
fn full_hd_puzzle() {
    check("hd");
}
