//! The live pipeline with fake sources that fail mid-stream, stall, change resolution or give a
//! frame the vision stage cannot take: a clear end, never a hang, and the output written so far
//! kept.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;
use sudoku_ar::Error;
use sudoku_ar::recognize::read::DigitReader;
use sudoku_ar::video::capture::{CaptureEnd, FrameSource, Pacing};
use sudoku_ar::video::display::{JsonLines, VideoOut};
use sudoku_ar::video::live::{self, Options, Summary};
use sudoku_ar::video::picture::Picture;

/// What the fake source does, and from which frame.
#[derive(Clone, Copy)]
enum Fault {
    /// Fails at this frame.
    Fail(u64),
    /// Sleeps this long before this frame.
    Stall(u64, Duration),
    /// Doubles the frame size from this frame on.
    Resize(u64),
    /// Gives a frame of two channels here, which the vision stage cannot take.
    Odd(u64),
}

struct Fake {
    page: Mat,
    frame: u64,
    frames: u64,
    fault: Fault,
}

impl FrameSource for Fake {
    fn next_frame(&mut self) -> sudoku_ar::Result<Option<Picture>> {
        let i = self.frame;
        self.frame += 1;
        if i >= self.frames {
            return Ok(None);
        }
        let mut scale = 1.0;
        match self.fault {
            Fault::Fail(at) if i == at => {
                return Err(Error::Camera {
                    index: 7,
                    reason: "device unplugged".into(),
                });
            }
            Fault::Stall(at, pause) if i == at => std::thread::sleep(pause),
            Fault::Resize(at) if i >= at => scale = 2.0,
            Fault::Odd(at) if i == at => {
                let size = self.page.size()?;
                return Ok(Some(
                    Mat::new_size_with_default(
                        size,
                        opencv::core::CV_8UC2,
                        opencv::core::Scalar::all(0.0),
                    )?
                    .into(),
                ));
            }
            _ => {}
        }
        let mut frame = Mat::default();
        imgproc::resize(
            &self.page,
            &mut frame,
            Size::new(0, 0),
            scale,
            scale,
            imgproc::INTER_LINEAR,
        )?;
        Ok(Some(frame.into()))
    }
    fn fps(&self) -> f64 {
        30.0
    }
    fn frame_count(&self) -> Option<u64> {
        None
    }
    fn describe(&self) -> String {
        "fake camera 7".into()
    }
}

/// Runs the pipeline over a fake source with JSON lines and a video written to `dir`, with a
/// deadline: a hang fails the test instead of blocking it.
fn run_fake(fault: Fault, frames: u64, dir: &Path) -> sudoku_ar::Result<Summary> {
    let page = opencv::imgcodecs::imread(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/photos/newspaper.jpg"),
        opencv::imgcodecs::IMREAD_COLOR,
    )?;
    let options = Options {
        window: false,
        output: Some(VideoOut::new(&dir.join("out.mp4"), 30.0)?),
        jsonl: Some(JsonLines::create(&dir.join("out.jsonl"))?),
        pacing: Pacing::EveryFrame,
        realtime: false,
        max_frames: None,
        on_frame: None,
    };
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let open = move || {
            Ok(Box::new(Fake {
                page,
                frame: 0,
                frames,
                fault,
            }) as Box<dyn FrameSource>)
        };
        let _ = done_tx.send(live::run(open, DigitReader::builtin, options));
    });
    done_rx
        .recv_timeout(Duration::from_secs(120))
        .expect("the pipeline hung")
}

fn lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("out.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn a_source_failing_mid_stream_ends_the_run_with_its_message_and_keeps_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let summary = run_fake(Fault::Fail(20), 60, dir.path()).expect("the run itself completes");
    match &summary.capture_end {
        CaptureEnd::Failed(message) => assert!(
            message.contains("camera 7") && message.contains("unplugged"),
            "{message}"
        ),
        other => panic!("expected a failed capture, got {other:?}"),
    }
    assert_eq!(summary.frames, 20);
    assert_eq!(
        lines(dir.path()),
        20,
        "the frames before the failure are kept"
    );
    assert!(
        std::fs::metadata(dir.path().join("out.mp4"))
            .map(|m| m.len() > 0)
            .unwrap_or(false),
        "the video so far is written"
    );
}

#[test]
fn a_stall_of_seconds_is_waited_out() {
    let dir = tempfile::tempdir().unwrap();
    let summary = run_fake(Fault::Stall(10, Duration::from_secs(3)), 30, dir.path()).expect("run");
    assert_eq!(summary.capture_end, CaptureEnd::Finished);
    assert_eq!((summary.frames, lines(dir.path())), (30, 30));
}

#[test]
fn a_change_of_resolution_mid_stream_is_followed_or_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    match run_fake(Fault::Resize(15), 40, dir.path()) {
        Ok(summary) => {
            eprintln!("resolution change followed: {} frames", summary.frames);
            assert_eq!(summary.frames, 40);
        }
        // Acceptable only as one clear line that says what happened.
        Err(e) => {
            let message = e.to_string();
            eprintln!("resolution change ended the run: {message}");
            assert!(
                !message.contains('\n') && message.contains("size"),
                "{message}"
            );
            assert_eq!(
                lines(dir.path()),
                15,
                "the frames before the change are kept"
            );
        }
    }
}

#[test]
fn a_frame_the_vision_stage_fails_on_is_passed_over_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let summary = run_fake(Fault::Odd(10), 30, dir.path()).expect("one odd frame ends nothing");
    assert_eq!(summary.capture_end, CaptureEnd::Finished);
    assert_eq!((summary.frames, lines(dir.path())), (30, 30));
    let last = std::fs::read_to_string(dir.path().join("out.jsonl")).unwrap();
    let last = last.lines().last().unwrap_or_default();
    assert!(last.contains("\"solved\""), "solved again after it: {last}");
}
