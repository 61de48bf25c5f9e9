//! Live video: the capture, vision and display threads, joined by bounded channels.
//!
//! ```text
//! capture ──Frame──▶ vision ──(Frame, FrameView)──▶ display
//! ```
//! The frame travels with what vision found in it, so the display draws each frame's
//! solution with that frame's homography: the overlay never lags behind the paper.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};

use crate::error::{Error, Result};
use crate::recognize::read::DigitReader;
use crate::video::capture::{self, CaptureEnd, CaptureReport, Frame, FrameSource, Pacing};
use crate::video::display::{JsonFrame, JsonLines, Painter, Request, VideoOut, Window};
use crate::video::several::Visions;
use crate::video::vision::FrameView;

/// How a run is shown and recorded.
pub struct Options {
    /// A window, unless headless (or no display: then headless, with a warning).
    pub window: bool,
    pub output: Option<VideoOut>,
    pub jsonl: Option<JsonLines>,
    pub pacing: Pacing,
    /// Play a file at its own frame rate.
    pub realtime: bool,
    pub max_frames: Option<u64>,
    /// Called after each displayed frame, with its index (progress bars).
    pub on_frame: Option<Box<dyn FnMut(u64) + Send>>,
}

/// Per-stage timings of a run.
#[derive(Debug, Default, Clone)]
pub struct Timings {
    pub decode: Vec<Duration>,
    pub vision: Vec<Duration>,
    pub detect: Vec<Duration>,
    pub track: Vec<Duration>,
    pub read: Vec<Duration>,
    pub display: Vec<Duration>,
    /// From the frame in hand to the frame shown or written.
    pub latency: Vec<Duration>,
}

/// What a run did.
#[derive(Debug)]
pub struct Summary {
    pub frames: u64,
    pub dropped: u64,
    pub wall: Duration,
    pub timings: Timings,
    pub capture_end: CaptureEnd,
    pub puzzles_read: usize,
    /// Whether a window was wanted but not available.
    pub fell_back_to_headless: bool,
}

impl Summary {
    pub fn fps(&self) -> f64 {
        self.frames as f64 / self.wall.as_secs_f64().max(1e-9)
    }

    /// A few lines for the end of a run.
    pub fn report(&self) -> String {
        let t = &self.timings;
        let mut out = format!(
            "{} frames in {:.2} s ({:.1} fps), {} dropped, {} puzzle(s) read\n",
            self.frames,
            self.wall.as_secs_f64(),
            self.fps(),
            self.dropped,
            self.puzzles_read
        );
        out.push_str("stage      frames    p50 ms    p99 ms\n");
        for (name, times) in [
            ("decode", &t.decode),
            ("vision", &t.vision),
            ("  detect", &t.detect),
            ("  track", &t.track),
            ("  read", &t.read),
            ("display", &t.display),
            ("latency", &t.latency),
        ] {
            if !times.is_empty() {
                let (p50, p99) = (percentile(times, 0.5), percentile(times, 0.99));
                out.push_str(&format!(
                    "{name:<9}{:>8}{:>10.2}{:>10.2}\n",
                    times.len(),
                    ms(p50),
                    ms(p99)
                ));
            }
        }
        out
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The `q`-quantile of `times` (nearest rank).
pub fn percentile(times: &[Duration], q: f64) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// Runs the three threads over the source that `open` opens (on the capture thread, since a
/// camera handle may not move between threads) until the source ends or the user quits.
/// `reader` makes the digit reader, on the vision thread, while the source is being opened.
pub fn run<F, R>(open: F, reader: R, mut options: Options) -> Result<Summary>
where
    F: FnOnce() -> Result<Box<dyn FrameSource>> + Send + 'static,
    R: FnOnce() -> Result<DigitReader> + Send + 'static,
{
    let stop = Arc::new(AtomicBool::new(false));
    let capacity = if options.pacing == Pacing::NewestWins {
        1
    } else {
        4
    };
    let (frame_tx, frame_rx) = bounded::<Frame>(capacity);
    let (view_tx, view_rx) = bounded::<(Frame, FrameView)>(capacity);
    let (opened_tx, opened_rx) = bounded::<Result<(f64, Option<u64>)>>(1);
    let start = Instant::now();

    let capture = spawn_capture(
        open,
        (frame_tx, frame_rx.clone()),
        &options,
        opened_tx,
        stop.clone(),
    )?;
    let vision = thread::Builder::new()
        .name("vision".into())
        .spawn(move || vision_loop(reader(), frame_rx, view_tx))
        .map_err(|e| Error::Pipeline(format!("cannot start the vision thread: {e}")))?;
    let opened = opened_rx
        .recv()
        .unwrap_or_else(|_| Err(Error::Pipeline("capture thread ended early".into())));
    let (fps, _) = match opened {
        Ok(info) => info,
        Err(e) => {
            let _ = capture.join();
            let _ = vision.join();
            return Err(e);
        }
    };
    if let Some(out) = options.output.as_mut() {
        out.set_fps(fps);
    }

    let display = {
        let stop = stop.clone();
        thread::Builder::new()
            .name("display".into())
            .spawn(move || display_loop(view_rx, options, &stop))
            .map_err(|e| Error::Pipeline(format!("cannot start the display thread: {e}")))?
    };

    let displayed = joined(display, "display");
    stop.store(true, Ordering::Relaxed);
    let vision_result = joined(vision, "vision")?;
    let report = joined(capture, "capture")?;
    let (mut timings, fell_back) = displayed??;
    let (vision_timings, puzzles_read) = vision_result?;
    timings.vision = vision_timings.vision;
    timings.detect = vision_timings.detect;
    timings.track = vision_timings.track;
    timings.read = vision_timings.read;
    timings.decode = vision_timings.decode;
    Ok(Summary {
        frames: timings.display.len() as u64,
        dropped: report.dropped,
        wall: start.elapsed(),
        timings,
        capture_end: report.end,
        puzzles_read,
        fell_back_to_headless: fell_back,
    })
}

/// Starts the capture thread: it opens the source (saying on `opened` whether it could, and
/// the source's frame rate and length) and sends its frames down `frames`, as `options` pace
/// them, until the source ends or `stop` is set. The other end of the channel drains it when
/// the newest frame wins.
fn spawn_capture<F>(
    open: F,
    (frames, drain): (Sender<Frame>, Receiver<Frame>),
    options: &Options,
    opened: Sender<Result<(f64, Option<u64>)>>,
    stop: Arc<AtomicBool>,
) -> Result<thread::JoinHandle<CaptureReport>>
where
    F: FnOnce() -> Result<Box<dyn FrameSource>> + Send + 'static,
{
    let (pacing, realtime, max) = (options.pacing, options.realtime, options.max_frames);
    thread::Builder::new()
        .name("capture".into())
        .spawn(move || -> CaptureReport {
            let mut source = match open() {
                Ok(source) => source,
                Err(e) => {
                    let end = CaptureEnd::Failed(e.to_string());
                    let _ = opened.send(Err(e));
                    return CaptureReport {
                        frames: 0,
                        dropped: 0,
                        end,
                    };
                }
            };
            let _ = opened.send(Ok((source.fps(), source.frame_count())));
            capture::run(
                source.as_mut(),
                &frames,
                &drain,
                pacing,
                realtime,
                max,
                &stop,
            )
        })
        .map_err(|e| Error::Pipeline(format!("cannot start the capture thread: {e}")))
}

/// What the thread `name` returned, or an error when it panicked.
fn joined<T>(handle: thread::JoinHandle<T>, name: &str) -> Result<T> {
    handle
        .join()
        .map_err(|_| Error::Pipeline(format!("{name} thread panicked")))
}

/// Frames in a row the vision stage may fail on before the run ends (a second of video): a fault
/// that stays is said, not hidden behind frames with nothing drawn.
const GIVE_UP_AFTER: u32 = 30;

/// Processes every frame of `frames` and passes it on with what was found, until the frames
/// end or the display stops taking them. A frame the vision stage fails on goes on with nothing
/// found (see [`GIVE_UP_AFTER`]).
fn vision_loop(
    reader: Result<DigitReader>,
    frames: Receiver<Frame>,
    views: Sender<(Frame, FrameView)>,
) -> Result<(Timings, usize)> {
    let mut vision = Visions::new(reader?);
    let mut timings = Timings::default();
    let mut failed_in_a_row = 0;
    for frame in frames {
        let view = match vision.process_picture(&frame.picture) {
            Ok(view) => {
                failed_in_a_row = 0;
                view
            }
            // One odd frame does not end a live session: it is shown with nothing drawn, and
            // the grids are found afresh on the next. Only a fault that stays ends the run.
            Err(err) => {
                failed_in_a_row += 1;
                if failed_in_a_row >= GIVE_UP_AFTER {
                    return Err(Error::Pipeline(format!(
                        "vision failed on {failed_in_a_row} frames in a row, the last frame {}: {err}",
                        frame.index
                    )));
                }
                tracing::warn!(frame = frame.index, %err, "vision failed on a frame; nothing drawn on it");
                vision.start_over();
                FrameView::default()
            }
        };
        let t = &view.times;
        tracing::trace!(frame = frame.index, ?t, "vision");
        timings.decode.push(frame.decode);
        timings.vision.push(t.total);
        timings.detect.extend(t.detect);
        timings.track.extend(t.track);
        timings.read.extend(t.read);
        if views.send((frame, view)).is_err() {
            break;
        }
    }
    Ok((timings, vision.puzzles_read()))
}

fn display_loop(
    views: Receiver<(Frame, FrameView)>,
    mut options: Options,
    stop: &AtomicBool,
) -> Result<(Timings, bool)> {
    let mut timings = Timings::default();
    let mut painter = Painter::default();
    let mut window: Option<Window> = None;
    let mut want_window = options.window;
    let mut fell_back = false;
    let result = (|| -> Result<()> {
        for (mut frame, view) in views.iter() {
            let start = Instant::now();
            if want_window && window.is_none() {
                let (width, height) = frame.picture.size();
                match Window::open("sudoku-ar", width as usize, height as usize) {
                    Ok(w) => window = Some(w),
                    Err(e) => {
                        eprintln!("sudoku-ar: cannot open a window ({e}); running headless");
                        want_window = false;
                        fell_back = true;
                    }
                }
            }
            // Colour is made only for a frame that is shown or written.
            let image = if window.is_some() || options.output.is_some() {
                let image = frame.picture.bgr_mut()?;
                // A frame the overlay cannot be drawn on is shown as it is: nothing drawn is safe.
                if let Err(err) = painter.paint(image, &view) {
                    tracing::warn!(frame = frame.index, %err, "cannot draw the overlay on a frame");
                }
                Some(&*image)
            } else {
                None
            };
            if let (Some(out), Some(image)) = (options.output.as_mut(), image) {
                out.write(image)?;
            }
            if let Some(jsonl) = options.jsonl.as_mut() {
                jsonl.write(&JsonFrame::new(frame.index, &view))?;
            }
            let state = view.puzzle.as_ref().map_or("searching", |p| {
                if p.covered {
                    "reading (something covers the grid)"
                } else {
                    p.state.as_str()
                }
            });
            let latency = frame.captured.elapsed();
            if let (Some(w), Some(image)) = (window.as_mut(), image)
                && w.show(image, state, latency.as_secs_f64() * 1000.0)? == Request::Quit
            {
                stop.store(true, Ordering::Relaxed);
                timings.display.push(start.elapsed());
                break;
            }
            timings.display.push(start.elapsed());
            timings.latency.push(frame.captured.elapsed());
            if let Some(f) = options.on_frame.as_mut() {
                f(frame.index);
            }
        }
        Ok(())
    })();
    // Whatever happened, finish the files: the frames so far are kept.
    if let Some(out) = options.output.take() {
        out.finish()?;
    }
    if let Some(jsonl) = options.jsonl.take() {
        jsonl.finish()?;
    }
    result.map(|()| (timings, fell_back))
}

#[cfg(test)]
mod tests {
    use opencv::core::{CV_8UC2, Mat, Scalar};
    use opencv::prelude::*;

    use super::*;

    fn page() -> Mat {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/photos/newspaper.jpg");
        opencv::imgcodecs::imread(path, opencv::imgcodecs::IMREAD_COLOR).unwrap()
    }

    /// A frame no stage can take: two channels, which is neither BGR nor gray.
    fn odd_frame(like: &Mat) -> Mat {
        Mat::new_rows_cols_with_default(like.rows(), like.cols(), CV_8UC2, Scalar::all(0.0))
            .unwrap()
    }

    /// What the vision loop found on each of `images`, or how it ended.
    fn views_of(images: Vec<Mat>) -> Result<Vec<FrameView>> {
        let (frame_tx, frame_rx) = bounded(images.len());
        let (view_tx, view_rx) = bounded(images.len());
        for (index, image) in (0..).zip(images) {
            let captured = Instant::now();
            let decode = Duration::ZERO;
            frame_tx
                .send(Frame {
                    index,
                    picture: image.into(),
                    captured,
                    decode,
                })
                .unwrap();
        }
        drop(frame_tx);
        vision_loop(DigitReader::builtin(), frame_rx, view_tx)?;
        Ok(view_rx.try_iter().map(|(_, view)| view).collect())
    }

    fn solved(view: &FrameView) -> bool {
        view.puzzle.as_ref().is_some_and(|p| p.solved.is_some())
    }

    #[test]
    fn a_frame_vision_fails_on_is_passed_on_with_nothing_drawn_and_the_run_goes_on() {
        let page = page();
        let mut images = vec![page.clone(); 8];
        images.push(odd_frame(&page));
        images.extend(vec![page; 8]);
        let views = views_of(images).expect("one odd frame does not end the run");
        assert_eq!(views.len(), 17, "every frame is passed on");
        assert!(solved(&views[7]), "solved before the odd frame");
        assert!(views[8].puzzle.is_none(), "nothing drawn on the odd frame");
        assert!(solved(&views[16]), "solved again after it");
    }

    #[test]
    fn a_fault_that_stays_ends_the_run_with_one_line_that_says_so() {
        let odd = odd_frame(&page());
        let images = vec![odd; GIVE_UP_AFTER as usize];
        let message = match views_of(images) {
            Ok(views) => panic!("{} views from frames no stage can take", views.len()),
            Err(err) => err.to_string(),
        };
        assert!(
            message.contains("30 frames in a row") && !message.contains('\n'),
            "{message}"
        );
    }
}
