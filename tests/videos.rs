//! End to end on the bundled test videos: `sudoku-ar replay --headless --jsonl`, scored against
//! each video's per-frame truth (testvideos/*.truth.jsonl).

#[path = "common/videos.rs"]
mod videos;

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use videos::{SeenFrame, VideoScore};

fn replay(video: &Path, dir: &Path) -> Vec<SeenFrame> {
    let name = video.display();
    let jsonl = dir.join("replay.jsonl");
    let mut command = Command::new(env!("CARGO_BIN_EXE_sudoku-ar"));
    command
        .args(["replay", "--headless", "--jsonl"])
        .arg(&jsonl)
        .arg(video);
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

/// Runs `ffmpeg` (installed by .ci/setup) quietly on `args`, overwriting its output.
fn ffmpeg<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .output()
        .expect("run ffmpeg (installed by .ci/setup)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn scored(name: &str) -> VideoScore {
    let dir = tempfile::tempdir().expect("temp dir");
    let video = videos::videos_dir().join(format!("{name}.mp4"));
    score_replay(name, videos::truth(name), &replay(&video, dir.path()))
}

fn score_replay(name: &str, truth: Vec<videos::TruthFrame>, seen: &[SeenFrame]) -> VideoScore {
    assert_eq!(seen.len(), truth.len(), "{name}: one JSON line per frame");
    for (i, s) in seen.iter().enumerate() {
        assert_eq!(s.frame, i as u64, "{name}: lines in frame order");
    }
    let score = videos::score(&truth, seen);
    eprintln!(
        "{name}: right after lock {:.2}%, worst corner error {:.2}%, appearances {:?}",
        100.0 * score.right_share(),
        100.0 * score.worst_corner_error,
        score.appearances
    );
    score
}

fn check(name: &str) {
    check_score(name, &scored(name));
}

fn check_score(name: &str, score: &VideoScore) {
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

/// Two recordings joined, the second at another size (`steady` to 3 s at 1280x720, then on at
/// 960x540, as MPEG-TS): on the first smaller frame the grid was followed at the last frame's
/// pixels, drawn a quarter of the grid off; it is found again there instead.
#[test]
fn a_video_changing_size_part_way_is_drawn_where_the_grid_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = videos::videos_dir().join("steady.mp4");
    let part = |name: &str, args: &[&str]| {
        let path = dir.path().join(name);
        let to = ["-c:v", "libx264", "-f", "mpegts"].map(OsStr::new);
        ffmpeg(
            args.iter()
                .map(OsStr::new)
                .chain(to)
                .chain([path.as_os_str()]),
        );
        std::fs::read(path).expect("read the part")
    };
    let source = source.to_str().expect("a UTF-8 path");
    let mut joined = part("a.ts", &["-i", source, "-t", "3"]);
    joined.extend(part(
        "b.ts",
        &["-ss", "3", "-i", source, "-vf", "scale=960:540"],
    ));
    let video = dir.path().join("joined.ts");
    std::fs::write(&video, joined).expect("write the joined video");
    let mut truth = videos::truth("steady");
    for frame in truth.iter_mut().filter(|f| f.frame >= 90) {
        for puzzle in &mut frame.puzzles {
            puzzle.corners = puzzle
                .corners
                .map(|[x, y]| [(x + 0.5) * 0.75 - 0.5, (y + 0.5) * 0.75 - 0.5]);
        }
    }
    let name = "steady joined to itself at 960x540";
    let score = score_replay(name, truth, &replay(&video, dir.path()));
    check_score(name, &score);
}

/// A phone held sideways films the page turned: the file says so by its display matrix, and the
/// frames come turned. The steady video stored with a rotation of each quarter (stream copied,
/// no new encoding): locked as soon as upright, in the right place. A turned grid used to wait
/// for the page to stop sliding (11 frames later), because a smeared grid was never read turned.
#[test]
fn video_stored_turned_is_read_the_right_way_up() {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = videos::videos_dir().join("steady.mp4");
    // The rotation tag and where a pixel of the stored 1280x720 frame lands in the frame shown,
    // as FFmpeg shows it (`ffmpeg -i steady_90.mp4 -frames:v 1 f.png` is the stored frame
    // turned anticlockwise, to the pixel). OpenCV 4.6 turned such files the other way, upside
    // down (opencv/opencv#22088), and this test said so until the video was decoded by FFmpeg
    // directly.
    type Shown = fn(f64, f64) -> [f64; 2];
    let turns: [(u32, Shown); 3] = [
        (90, |x, y| [y, 1279.0 - x]),
        (180, |x, y| [1279.0 - x, 719.0 - y]),
        (270, |x, y| [719.0 - y, x]),
    ];
    for (degrees, shown) in turns {
        let video = dir.path().join(format!("steady_{degrees}.mp4"));
        let tag = format!("rotate={degrees}");
        ffmpeg([
            OsStr::new("-i"),
            source.as_os_str(),
            OsStr::new("-c"),
            OsStr::new("copy"),
            OsStr::new("-metadata:s:v:0"),
            OsStr::new(&tag),
            video.as_os_str(),
        ]);
        let mut truth = videos::truth("steady");
        for frame in &mut truth {
            for puzzle in &mut frame.puzzles {
                puzzle.corners = puzzle.corners.map(|[x, y]| shown(x, y));
            }
        }
        let name = format!("steady turned {degrees}");
        let score = score_replay(&name, truth, &replay(&video, dir.path()));
        check_score(&name, &score);
    }
}
