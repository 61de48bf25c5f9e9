//! `sudoku-ar replay` and `sudoku-ar live` as a user runs them: bad input, output files, the
//! window under Xvfb.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn video(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testvideos")
        .join(name)
}

fn sudoku_ar(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sudoku-ar"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .output()
        .expect("run sudoku-ar")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The one line a failed run ends with.
fn error_line(out: &Output) -> String {
    let text = stderr(out);
    let last = text
        .lines()
        .rfind(|l| l.starts_with("sudoku-ar:"))
        .unwrap_or_default()
        .to_string();
    assert!(!text.contains("panicked"), "panic: {text}");
    last
}

#[test]
fn bad_video_files_are_one_line_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.mp4");
    std::fs::write(&empty, b"").unwrap();
    let text = dir.path().join("notes.mp4");
    std::fs::write(&text, b"this is not a video at all\n".repeat(100)).unwrap();
    let missing = dir.path().join("missing.mp4");
    for (path, says) in [
        (&empty, "empty"),
        (&text, "not a video"),
        (&missing, "no such file"),
    ] {
        let out = sudoku_ar(&["replay", "--headless", path.to_str().unwrap()]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{}: {}",
            path.display(),
            stderr(&out)
        );
        let line = error_line(&out);
        assert!(
            line.contains(path.to_str().unwrap()) && line.contains(says),
            "{line}"
        );
    }
}

/// FFmpeg takes a name as a URL: "concat:take.mp4" in the folder at hand named its concat
/// protocol, and the file was "not a video" (through OpenCV too).
#[test]
fn a_video_named_like_a_protocol_is_read_as_the_file_it_is() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(video("steady.mp4"), dir.path().join("concat:take.mp4")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sudoku-ar"))
        .args(["replay", "--headless", "--frames", "5", "concat:take.mp4"])
        .current_dir(dir.path())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .output()
        .expect("run sudoku-ar");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("5 frames"), "{}", stderr(&out));
}

/// A Matroska recording whose sound runs 3 s past its 8 s of video ends cleanly: its frames
/// were counted from the file's length, sound included, and the end taken for a cut (through
/// OpenCV too: "only 240 of 330 frames could be decoded", exit 1).
#[test]
fn a_recording_whose_sound_runs_on_is_not_called_cut_short() {
    let dir = tempfile::tempdir().unwrap();
    let mkv = dir.path().join("recording.mkv");
    let made = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(video("steady.mp4"))
        .args(["-f", "lavfi", "-i", "sine=frequency=440:duration=11"])
        .args(["-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "flac"])
        .arg(&mkv)
        .status()
        .expect("run ffmpeg (installed by .ci/setup)");
    assert!(made.success());
    let out = sudoku_ar(&["replay", "--headless", mkv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("240 frames"), "{}", stderr(&out));
}

#[test]
fn truncated_video_keeps_what_was_read_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(video("steady.mp4")).unwrap();
    let cut = dir.path().join("cut.mp4");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let jsonl = dir.path().join("cut.jsonl");
    let out = sudoku_ar(&[
        "replay",
        "--headless",
        "--jsonl",
        jsonl.to_str().unwrap(),
        cut.to_str().unwrap(),
    ]);
    let line = error_line(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        line.contains("cut.mp4") && line.contains("truncated"),
        "{line}"
    );
    let rows = std::fs::read_to_string(&jsonl).unwrap().lines().count();
    assert!(rows > 20 && rows < 240, "{rows} frames kept");
}

#[test]
fn missing_camera_lists_the_cameras_and_does_not_hang() {
    let start = Instant::now();
    let out = sudoku_ar(&["live", "--headless", "--camera", "7"]);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let line = error_line(&out);
    assert!(
        line.contains("no camera 7") && line.contains("cameras present:"),
        "{line}"
    );
}

#[test]
fn replay_writes_video_and_one_json_line_per_frame_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (mp4, jsonl) = (dir.path().join("out.mp4"), dir.path().join("out.jsonl"));
    // No --headless and no display: falls back to headless and says so.
    let out = sudoku_ar(&[
        "replay",
        "--output",
        mp4.to_str().unwrap(),
        "--jsonl",
        jsonl.to_str().unwrap(),
        "--frames",
        "90",
        video("finger.mp4").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(text.contains("running headless"), "{text}");
    assert!(
        text.contains("90 frames")
            && text.contains("p50")
            && text.contains("p99")
            && text.contains("dropped"),
        "{text}"
    );
    assert!(
        text.contains(mp4.to_str().unwrap()),
        "says where the video went: {text}"
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 90);
    let solved = &lines[60]["puzzle"];
    assert_eq!(solved["status"], "solved");
    assert_eq!(solved["solution"].as_str().map(str::len), Some(81));
    assert_eq!(solved["corners"].as_array().map(Vec::len), Some(4));
    let written =
        opencv::videoio::VideoCapture::from_file(mp4.to_str().unwrap(), opencv::videoio::CAP_ANY)
            .unwrap();
    use opencv::prelude::VideoCaptureTraitConst;
    assert_eq!(
        written.get(opencv::videoio::CAP_PROP_FRAME_COUNT).unwrap() as u64,
        90
    );
}

/// The window under Xvfb: a screenshot taken while it plays shows the green solution digits.
#[test]
fn window_shows_the_overlay_under_xvfb() {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("shot.png");
    let script = format!(
        "{bin} replay --realtime {video} & pid=$!; sleep 5; import -window root {shot}; kill $pid; wait $pid; true",
        bin = env!("CARGO_BIN_EXE_sudoku-ar"),
        video = video("finger.mp4").display(),
        shot = shot.display()
    );
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1600x900x24", "bash", "-c", &script])
        .output()
        .expect("xvfb-run (Debian package xvfb; .ci/setup installs it)");
    assert!(shot.is_file(), "no screenshot: {}", stderr(&out));
    let image =
        opencv::imgcodecs::imread(shot.to_str().unwrap(), opencv::imgcodecs::IMREAD_COLOR).unwrap();
    use opencv::prelude::*;
    let bytes = image.data_bytes().unwrap();
    // The solution colour, blended: strongly green, little red or blue (paper and table are not).
    let green = bytes
        .chunks_exact(3)
        .filter(|p| p[1] > 110 && p[0] < 90 && p[2] < 90)
        .count();
    assert!(
        green > 2000,
        "{green} green pixels in the screenshot; {}",
        stderr(&out)
    );
}
