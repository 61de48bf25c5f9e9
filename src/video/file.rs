//! A video file, read and decoded by FFmpeg (the libraries Debian's OpenCV reads video with),
//! its frames handed on as decoded ([`Picture::decoded`]).

use std::path::{Path, PathBuf};

use ffmpeg_next::codec::packet::side_data::Type as SideData;
use ffmpeg_next::codec::threading;
use ffmpeg_next::format::context::Input;
use ffmpeg_next::{Packet, decoder, frame, media};

use crate::error::{Error, Result, io_reason};
use crate::video::capture::FrameSource;
use crate::video::picture::{Picture, Turn};

/// Frames of up to this many pixels (1080p) are decoded on one thread, as FFmpeg decodes in the
/// replay benchmark: the vision thread has the other core, and two decoding threads took more
/// CPU time for the same frames and competed with it (replay of `hd.mp4` 1.22-1.32 s against
/// 1.18-1.29 s on one). Larger frames are decoded on as many threads as FFmpeg picks: there the
/// decoding is the slow stage (a 4K H.264 replay 2.9-3.0 s on one thread, 2.4 s on two).
const ONE_THREAD_UP_TO: u64 = 1920 * 1088;

/// A video file.
pub struct VideoFile {
    path: PathBuf,
    input: Input,
    stream: usize,
    decoder: decoder::Video,
    turn: Turn,
    fps: f64,
    frame_count: Option<Count>,
    looping: bool,
    /// Frames handed on since the start (or the last loop).
    read: u64,
    /// The file is read to its end, and the decoder told so.
    input_ended: bool,
    first: Option<frame::Video>,
}

impl VideoFile {
    /// Opens `path` and decodes its first frame, so that a file that is no video fails here,
    /// with a message naming it. `looping` starts over at the end.
    pub fn open(path: &Path, looping: bool) -> Result<VideoFile> {
        let video_error = |reason: &str| Error::Video {
            path: path.into(),
            reason: reason.into(),
        };
        let meta = std::fs::metadata(path).map_err(|e| Error::Unreadable {
            path: path.into(),
            reason: io_reason(&e),
        })?;
        if meta.is_dir() {
            return Err(Error::Unreadable {
                path: path.into(),
                reason: "is a directory".into(),
            });
        }
        if meta.len() == 0 {
            return Err(video_error("empty file, not a video"));
        }
        // FFmpeg's own messages would break the one-line errors; ours name the file.
        ffmpeg_next::util::log::set_level(ffmpeg_next::util::log::Level::Quiet);
        // FFmpeg takes a file name as UTF-8, and as a URL: "file:" keeps a name with a colon
        // in it from being taken for another protocol.
        let name = path.to_str().ok_or_else(|| {
            video_error("a file name that is not UTF-8 cannot be given to FFmpeg")
        })?;
        let input = ffmpeg_next::format::input(&format!("file:{name}")).map_err(|e| match e {
            ffmpeg_next::Error::InvalidData => {
                video_error("not a video FFmpeg can decode (corrupt, or not a video file)")
            }
            e => video_error(&format!("cannot open as video: {e}")),
        })?;
        let stream = input
            .streams()
            .best(media::Type::Video)
            .ok_or_else(|| video_error("not a video: the file holds no video stream"))?;
        let decoder_on = |threads: usize| {
            let mut context =
                ffmpeg_next::codec::context::Context::from_parameters(stream.parameters())?;
            context.set_threading(threading::Config {
                kind: threading::Type::Frame,
                count: threads,
                ..Default::default()
            });
            context.decoder().video()
        };
        // 0 threads: as many as FFmpeg picks.
        let decoder = decoder_on(1)
            .and_then(|d| match u64::from(d.width()) * u64::from(d.height()) {
                pixels if pixels > ONE_THREAD_UP_TO => decoder_on(0),
                _ => Ok(d),
            })
            .map_err(|e| video_error(&format!("cannot decode its video: {e}")))?;
        let fps = [stream.avg_frame_rate(), stream.rate()]
            .into_iter()
            .map(f64::from)
            .find(|f| f.is_finite() && *f > 0.0)
            .unwrap_or(30.0);
        let mut video = VideoFile {
            path: path.into(),
            stream: stream.index(),
            turn: turn_of(&stream),
            fps,
            frame_count: frame_count(&input, &stream, fps),
            input,
            decoder,
            looping,
            read: 0,
            input_ended: false,
            first: None,
        };
        video.first = video.decode_next();
        if video.first.is_none() {
            return Err(video_error(
                "no frame could be decoded (corrupt or empty video)",
            ));
        }
        Ok(video)
    }

    /// The next decoded frame; None when the file has no more. A packet the decoder refuses
    /// (corrupt data) is passed over, as FFmpeg's player does; a read error ends the input.
    fn decode_next(&mut self) -> Option<frame::Video> {
        loop {
            let mut frame = frame::Video::empty();
            match self.decoder.receive_frame(&mut frame) {
                Ok(()) => return Some(frame),
                Err(ffmpeg_next::Error::Eof) => return None,
                Err(_) if self.input_ended => return None,
                Err(_) => {}
            }
            let mut packet = Packet::empty();
            match packet.read(&mut self.input) {
                Ok(()) if packet.stream() == self.stream => {
                    if let Err(e) = self.decoder.send_packet(&packet) {
                        tracing::trace!(%e, "a video packet that does not decode, passed over");
                    }
                }
                Ok(()) => {}
                Err(e) => {
                    if e != ffmpeg_next::Error::Eof {
                        tracing::debug!(%e, "reading the video stopped");
                    }
                    self.input_ended = true;
                    let _ = self.decoder.send_eof();
                }
            }
        }
    }

    /// Back to the first frame.
    fn rewind(&mut self) -> Result<()> {
        self.input.seek(0, ..1).map_err(|e| Error::Video {
            path: self.path.clone(),
            reason: format!("cannot go back to its start: {e}"),
        })?;
        self.decoder.flush();
        self.input_ended = false;
        self.read = 0;
        Ok(())
    }
}

/// How the file's display matrix turns its frames (a phone's video filmed upright is stored
/// turned, with a matrix that says so).
fn turn_of(stream: &ffmpeg_next::Stream) -> Turn {
    stream
        .side_data()
        .find(|d| d.kind() == SideData::DisplayMatrix)
        .and_then(|d| anticlockwise_degrees(d.data()))
        .map_or(Turn::Upright, Turn::from_anticlockwise)
}

/// The rotation a display matrix (nine 32-bit fixed-point numbers) makes, in degrees
/// anticlockwise, as FFmpeg's `av_display_rotation_get` computes it.
fn anticlockwise_degrees(matrix: &[u8]) -> Option<f64> {
    let at = |i: usize| -> Option<f64> {
        let bytes = matrix.get(i * 4..i * 4 + 4)?.try_into().ok()?;
        Some(f64::from(i32::from_ne_bytes(bytes)) / 65536.0)
    };
    let (a, b, c, d) = (at(0)?, at(1)?, at(3)?, at(4)?);
    let (scale_x, scale_y) = (a.hypot(c), b.hypot(d));
    if scale_x == 0.0 || scale_y == 0.0 {
        return None;
    }
    Some(-(b / scale_y).atan2(a / scale_x).to_degrees())
}

/// How many frames a file holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Count {
    /// As its header says (MP4, MOV, AVI).
    Exact(u64),
    /// From the video's length and frame rate (Matroska, WebM, MPEG-TS): off by a few frames
    /// where the frame rate varies.
    Estimated(u64),
}

impl Count {
    fn frames(self) -> u64 {
        match self {
            Count::Exact(n) | Count::Estimated(n) => n,
        }
    }

    /// Whether a file that ended after `decoded` frames was cut short: any frame missing past
    /// the last from an exact count, a tenth from an estimate.
    fn cut_short(self, decoded: u64) -> bool {
        match self {
            Count::Exact(n) => decoded + 1 < n,
            Count::Estimated(n) => (decoded as f64) < 0.9 * n as f64,
        }
    }
}

/// Frames in the file: as its header says, else from the video's own length and frame rate.
/// Not from the file's length when it holds other streams: a Matroska recording whose sound ran
/// 3 s past its 8 s of video was said to be cut short at its end (through OpenCV too).
fn frame_count(input: &Input, stream: &ffmpeg_next::Stream, fps: f64) -> Option<Count> {
    if stream.frames() > 0 {
        return Some(Count::Exact(stream.frames() as u64));
    }
    let own = (stream.duration() > 0)
        .then(|| stream.duration() as f64 * f64::from(stream.time_base()))
        .or_else(|| stream.metadata().get("DURATION").and_then(seconds_of));
    let alone = input.streams().count() == 1 && input.duration() > 0;
    let seconds = own.or_else(|| {
        alone.then(|| input.duration() as f64 / f64::from(ffmpeg_next::ffi::AV_TIME_BASE))
    })?;
    let count = (seconds * fps).round();
    (count.is_finite() && count >= 1.0).then_some(Count::Estimated(count as u64))
}

/// Seconds from a length written as Matroska's DURATION tag, "01:02:03.5" (hours, minutes,
/// seconds).
fn seconds_of(text: &str) -> Option<f64> {
    let mut seconds = 0.0;
    for part in text.trim().split(':') {
        seconds = seconds * 60.0 + part.parse::<f64>().ok()?;
    }
    (seconds.is_finite() && seconds > 0.0).then_some(seconds)
}

impl FrameSource for VideoFile {
    fn next_frame(&mut self) -> Result<Option<Picture>> {
        let mut frame = self.first.take().or_else(|| self.decode_next());
        if frame.is_none() {
            if let Some(count) = self.frame_count
                && count.cut_short(self.read)
            {
                return Err(Error::Video {
                    path: self.path.clone(),
                    reason: format!(
                        "truncated or corrupt: only {} of {} frames could be decoded",
                        self.read,
                        count.frames()
                    ),
                });
            }
            if self.looping && self.read > 0 {
                self.rewind()?;
                frame = self.decode_next();
            }
        }
        Ok(frame.map(|frame| {
            self.read += 1;
            Picture::decoded(frame, self.turn)
        }))
    }

    fn fps(&self) -> f64 {
        self.fps
    }

    fn frame_count(&self) -> Option<u64> {
        if self.looping {
            None
        } else {
            self.frame_count.map(Count::frames)
        }
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(entries: [i32; 9]) -> Vec<u8> {
        entries.iter().flat_map(|e| e.to_ne_bytes()).collect()
    }

    #[test]
    fn a_file_name_that_is_not_utf8_is_refused_without_a_panic() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let steady = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testvideos/steady.mp4");
        let bytes = std::fs::read(steady).unwrap();
        let latin1 = dir.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9.mp4"));
        std::fs::write(&latin1, &bytes).unwrap();
        let Err(err) = VideoFile::open(&latin1, false) else {
            panic!("a name that is not UTF-8 is opened?");
        };
        assert!(err.to_string().contains("UTF-8"), "{err}");
    }

    #[test]
    fn a_count_from_the_length_allows_for_a_varying_frame_rate() {
        assert!(Count::Exact(240).cut_short(238));
        assert!(!Count::Exact(240).cut_short(239));
        assert!(!Count::Estimated(240).cut_short(220));
        assert!(Count::Estimated(240).cut_short(132));
        assert_eq!(seconds_of("00:00:08.007000000"), Some(8.007));
        assert_eq!(seconds_of("01:02:03.5"), Some(3723.5));
        assert_eq!(seconds_of("8.5"), Some(8.5));
        assert_eq!(seconds_of("eight"), None);
    }

    #[test]
    fn a_display_matrix_tells_the_quarter_turn() {
        let one = 1 << 16;
        // A quarter turn anticlockwise: (a b; c d) = (cos -sin; sin cos) as FFmpeg reads it.
        let anticlockwise_90 = matrix([0, -one, 0, one, 0, 0, 0, 0, 1 << 30]);
        let degrees = anticlockwise_degrees(&anticlockwise_90).unwrap();
        assert!((degrees - 90.0).abs() < 1e-9, "{degrees}");
        assert_eq!(Turn::from_anticlockwise(degrees), Turn::Anticlockwise);
        let upright = matrix([one, 0, 0, 0, one, 0, 0, 0, 1 << 30]);
        assert_eq!(anticlockwise_degrees(&upright), Some(0.0));
        assert_eq!(anticlockwise_degrees(&[0; 8]), None, "too short");
        assert_eq!(anticlockwise_degrees(&matrix([0; 9])), None, "no scale");
    }
}
