//! Where frames come from: a video file ([`crate::video::file`]) or a webcam (nokhwa), and the
//! capture loop that feeds them to the vision thread.
//!
//! Two ways to hand frames on ([`Pacing`]): `EveryFrame` waits for the consumer, so a replay
//! processes each frame in order; `NewestWins` never waits: when the consumer is busy the
//! frame waiting in the channel is replaced by the new one and counted as dropped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};
use opencv::core::Mat;
use opencv::prelude::*;

use crate::error::{Error, Result};
use crate::video::picture::Picture;

/// One picture from the source.
pub struct Frame {
    /// Position in the run, from 0, counting every frame read (dropped ones too).
    pub index: u64,
    /// Its pixels.
    pub picture: Picture,
    /// When the frame was in hand, for latency.
    pub captured: Instant,
    /// Time spent reading and decoding it.
    pub decode: Duration,
}

/// Something that yields frames.
pub trait FrameSource {
    /// The next frame; None at the end of the stream.
    fn next_frame(&mut self) -> Result<Option<Picture>>;
    /// Frames per second the source is meant to be played at.
    fn fps(&self) -> f64;
    /// Frames in the source, when known.
    fn frame_count(&self) -> Option<u64>;
    /// For messages: the file or camera.
    fn describe(&self) -> String;
}

/// A webcam through nokhwa, decoded to BGR.
pub struct Camera {
    index: u32,
    camera: nokhwa::Camera,
}

/// The cameras nokhwa can see, as "index: name" for messages.
pub fn cameras_present() -> String {
    match nokhwa::query(nokhwa::utils::ApiBackend::Auto) {
        Ok(list) if list.is_empty() => "none".into(),
        Ok(list) => list
            .iter()
            .map(|c| format!("{}: {}", c.index(), c.human_name()))
            .collect::<Vec<_>>()
            .join(", "),
        Err(e) => format!("none found ({e})"),
    }
}

impl Camera {
    /// Opens camera `index`, at the resolution closest to `resolution` when given.
    pub fn open(index: u32, resolution: Option<(u32, u32)>) -> Result<Camera> {
        use nokhwa::pixel_format::RgbFormat;
        use nokhwa::utils::{
            CameraFormat, CameraIndex, FrameFormat, RequestedFormat, RequestedFormatType,
            Resolution,
        };
        let requested = match resolution {
            Some((w, h)) => RequestedFormat::new::<RgbFormat>(RequestedFormatType::Closest(
                CameraFormat::new(Resolution::new(w, h), FrameFormat::MJPEG, 30),
            )),
            None => {
                RequestedFormat::new::<RgbFormat>(RequestedFormatType::AbsoluteHighestFrameRate)
            }
        };
        let mut camera =
            nokhwa::Camera::new(CameraIndex::Index(index), requested).map_err(|e| {
                tracing::debug!("opening camera {index}: {e}");
                Error::NoCamera {
                    index,
                    present: cameras_present(),
                }
            })?;
        camera.open_stream().map_err(|e| Error::Camera {
            index,
            reason: format!("cannot start streaming: {e}"),
        })?;
        Ok(Camera { index, camera })
    }
}

impl FrameSource for Camera {
    fn next_frame(&mut self) -> Result<Option<Picture>> {
        use nokhwa::pixel_format::RgbFormat;
        let lost = |e: nokhwa::NokhwaError| Error::Camera {
            index: self.index,
            reason: format!("stopped delivering frames: {e}"),
        };
        let buffer = self.camera.frame().map_err(lost)?;
        let rgb = buffer.decode_image::<RgbFormat>().map_err(lost)?;
        let (w, h) = (rgb.width() as i32, rgb.height() as i32);
        let flat = Mat::from_slice(rgb.as_raw())?;
        let rgb_mat = flat.reshape(3, h)?;
        if rgb_mat.cols() != w {
            return Err(Error::Camera {
                index: self.index,
                reason: "frame has an unexpected size".into(),
            });
        }
        let mut bgr = Mat::default();
        opencv::imgproc::cvt_color(&rgb_mat, &mut bgr, opencv::imgproc::COLOR_RGB2BGR, 0)?;
        Ok(Some(bgr.into()))
    }

    fn fps(&self) -> f64 {
        self.camera.frame_rate().max(1) as f64
    }

    fn frame_count(&self) -> Option<u64> {
        None
    }

    fn describe(&self) -> String {
        format!("camera {}", self.index)
    }
}

/// How frames are handed to a consumer that is slower than the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pacing {
    /// Wait for the consumer: every frame is processed, in order.
    EveryFrame,
    /// Never wait: the newest frame replaces one still waiting, which counts as dropped.
    NewestWins,
}

/// How the capture loop ended.
#[derive(Debug, Clone, PartialEq)]
pub enum CaptureEnd {
    /// The source had no more frames.
    Finished,
    /// Stopped by the user or by a consumer that went away, or the frame limit.
    Stopped,
    /// The source failed; the message names it.
    Failed(String),
}

/// What the capture loop did.
#[derive(Debug, Clone)]
pub struct CaptureReport {
    pub frames: u64,
    pub dropped: u64,
    pub end: CaptureEnd,
}

/// Reads frames from `source` and sends them on `to` until the source ends, `stop` is set,
/// `max_frames` were read, or the consumer hangs up. `realtime` plays a file at its own speed.
/// `drain` is the consumer's end of the same channel, used to drop a stale frame under
/// [`Pacing::NewestWins`].
pub fn run(
    source: &mut dyn FrameSource,
    to: &Sender<Frame>,
    drain: &Receiver<Frame>,
    pacing: Pacing,
    realtime: bool,
    max_frames: Option<u64>,
    stop: &AtomicBool,
) -> CaptureReport {
    let mut report = CaptureReport {
        frames: 0,
        dropped: 0,
        end: CaptureEnd::Finished,
    };
    let interval = Duration::from_secs_f64(1.0 / source.fps());
    let started = Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) || max_frames.is_some_and(|m| report.frames >= m) {
            report.end = CaptureEnd::Stopped;
            break;
        }
        if realtime {
            let due = started + interval.mul_f64(report.frames as f64);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
        let start = Instant::now();
        let picture = match source.next_frame() {
            Ok(Some(picture)) => picture,
            Ok(None) => break,
            Err(e) => {
                report.end = CaptureEnd::Failed(e.to_string());
                break;
            }
        };
        let frame = Frame {
            index: report.frames,
            picture,
            captured: Instant::now(),
            decode: start.elapsed(),
        };
        report.frames += 1;
        if !hand_on(frame, to, drain, pacing, &mut report.dropped) {
            report.end = CaptureEnd::Stopped;
            break;
        }
    }
    tracing::debug!(frames = report.frames, dropped = report.dropped, end = ?report.end, "capture ended");
    report
}

/// Sends `frame`; false when the consumer has gone.
fn hand_on(
    frame: Frame,
    to: &Sender<Frame>,
    drain: &Receiver<Frame>,
    pacing: Pacing,
    dropped: &mut u64,
) -> bool {
    match pacing {
        Pacing::EveryFrame => to.send(frame).is_ok(),
        Pacing::NewestWins => {
            let mut frame = frame;
            loop {
                match to.try_send(frame) {
                    Ok(()) => return true,
                    Err(TrySendError::Disconnected(_)) => return false,
                    Err(TrySendError::Full(back)) => {
                        frame = back;
                        if drain.try_recv().is_ok() {
                            *dropped += 1;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter(u64);

    impl FrameSource for Counter {
        fn next_frame(&mut self) -> Result<Option<Picture>> {
            self.0 += 1;
            Ok((self.0 <= 50).then(|| Mat::default().into()))
        }
        fn fps(&self) -> f64 {
            1000.0
        }
        fn frame_count(&self) -> Option<u64> {
            Some(50)
        }
        fn describe(&self) -> String {
            "counter".into()
        }
    }

    #[test]
    fn every_frame_keeps_order_and_drops_nothing() {
        let (tx, rx) = crossbeam_channel::bounded(2);
        let stop = AtomicBool::new(false);
        let drain = rx.clone();
        let consumer =
            std::thread::spawn(move || rx.iter().map(|f: Frame| f.index).collect::<Vec<_>>());
        let report = run(
            &mut Counter(0),
            &tx,
            &drain,
            Pacing::EveryFrame,
            false,
            None,
            &stop,
        );
        drop((tx, drain));
        assert_eq!(consumer.join().unwrap(), (0..50).collect::<Vec<_>>());
        assert_eq!(
            (report.frames, report.dropped, report.end),
            (50, 0, CaptureEnd::Finished)
        );
    }

    #[test]
    fn newest_wins_never_waits_for_a_stalled_consumer() {
        let (tx, rx) = crossbeam_channel::bounded(1);
        let stop = AtomicBool::new(false);
        // Nobody reads until capture is done: all but the last frame are dropped.
        let report = run(
            &mut Counter(0),
            &tx,
            &rx,
            Pacing::NewestWins,
            false,
            None,
            &stop,
        );
        assert_eq!((report.frames, report.dropped), (50, 49));
        assert_eq!(rx.try_recv().map(|f| f.index).ok(), Some(49));
    }

    #[test]
    fn stops_at_the_frame_limit() {
        let (tx, rx) = crossbeam_channel::bounded(100);
        let stop = AtomicBool::new(false);
        let report = run(
            &mut Counter(0),
            &tx,
            &rx,
            Pacing::EveryFrame,
            false,
            Some(10),
            &stop,
        );
        assert_eq!((report.frames, report.end), (10, CaptureEnd::Stopped));
    }
}
