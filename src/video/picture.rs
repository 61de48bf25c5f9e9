//! A frame's pixels as its source gave them: BGR from a camera, or a video file's decoded
//! planes. The vision stage asks for gray and the display for colour, and each is made only
//! when asked: a decoded frame's gray is its luma plane, and a replay that draws nothing never
//! makes colour. (Through OpenCV's `VideoCapture` every 1080p frame was turned into BGR, and
//! the vision stage turned it back into gray.)

use ffmpeg_next::format::Pixel;
use ffmpeg_next::frame;
use ffmpeg_next::software::scaling;
use ffmpeg_next::util::color::Range;
use opencv::core::{self, CV_8UC1, CV_8UC3, Mat, Rect};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::{Error, Result};
use crate::raster::{brightened, gray_of};

/// One frame's pixels.
pub struct Picture(Pixels);

enum Pixels {
    Bgr(Mat),
    Decoded { frame: frame::Video, turn: Turn },
}

/// How a stored video frame is turned to stand upright, as its file's display matrix says
/// (a phone held sideways stores its frames turned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    Upright,
    Clockwise,
    HalfWay,
    Anticlockwise,
}

impl Turn {
    /// The turn for a display matrix's rotation, `degrees` anticlockwise (FFmpeg's
    /// `av_display_rotation_get`); a matrix that is no quarter turn is taken as none.
    pub fn from_anticlockwise(degrees: f64) -> Turn {
        match (-degrees).round().rem_euclid(360.0) as i32 {
            90 => Turn::Clockwise,
            180 => Turn::HalfWay,
            270 => Turn::Anticlockwise,
            _ => Turn::Upright,
        }
    }

    fn apply(self, image: Mat) -> Result<Mat> {
        let code = match self {
            Turn::Upright => return Ok(image),
            Turn::Clockwise => core::ROTATE_90_CLOCKWISE,
            Turn::HalfWay => core::ROTATE_180,
            Turn::Anticlockwise => core::ROTATE_90_COUNTERCLOCKWISE,
        };
        let mut turned = Mat::default();
        core::rotate(&image, &mut turned, code)?;
        Ok(turned)
    }
}

impl From<Mat> for Picture {
    /// A BGR image.
    fn from(bgr: Mat) -> Picture {
        Picture(Pixels::Bgr(bgr))
    }
}

impl Picture {
    /// A frame as a video decoder gave it, to be shown turned by `turn`.
    pub fn decoded(frame: frame::Video, turn: Turn) -> Picture {
        Picture(Pixels::Decoded { frame, turn })
    }

    /// Width and height as shown.
    pub fn size(&self) -> (i32, i32) {
        match &self.0 {
            Pixels::Bgr(bgr) => (bgr.cols(), bgr.rows()),
            Pixels::Decoded { frame, turn } => {
                let (w, h) = (frame.width() as i32, frame.height() as i32);
                match turn {
                    Turn::Clockwise | Turn::Anticlockwise => (h, w),
                    Turn::Upright | Turn::HalfWay => (w, h),
                }
            }
        }
    }

    /// The picture in gray as [`gray_of`] makes it from BGR: a decoded frame's luma, stretched
    /// from video range (16-235) to 0-255 as the conversion to BGR stretched it.
    pub fn gray(&self) -> Result<Mat> {
        match &self.0 {
            Pixels::Bgr(bgr) => Ok(gray_of(bgr)?),
            Pixels::Decoded { frame, turn } => {
                let gray = match luma_of(frame)? {
                    Some(luma) => luma,
                    None => {
                        let mut gray = Mat::default();
                        let bgr = bgr_of(frame)?;
                        imgproc::cvt_color(&bgr, &mut gray, imgproc::COLOR_BGR2GRAY, 0)?;
                        gray
                    }
                };
                Ok(brightened(turn.apply(gray)?)?)
            }
        }
    }

    /// The picture in BGR, to look at its colours: a decoded frame is converted, each time asked
    /// (the vision stage asks on the frames it reads a grid printed in coloured ink on, and when
    /// an unsolved puzzle's digits are told apart by their inks).
    pub fn bgr(&self) -> Result<std::borrow::Cow<'_, Mat>> {
        match &self.0 {
            Pixels::Bgr(bgr) => Ok(std::borrow::Cow::Borrowed(bgr)),
            Pixels::Decoded { frame, turn } => {
                Ok(std::borrow::Cow::Owned(turn.apply(bgr_of(frame)?)?))
            }
        }
    }

    /// The picture in BGR, to draw on; a decoded frame is converted once, here.
    pub fn bgr_mut(&mut self) -> Result<&mut Mat> {
        if let Pixels::Decoded { .. } = &self.0 {
            self.0 = Pixels::Bgr(self.bgr()?.into_owned());
        }
        match &mut self.0 {
            Pixels::Bgr(bgr) => Ok(bgr),
            Pixels::Decoded { .. } => unreachable!("converted just above"),
        }
    }
}

/// The luma plane of a frame whose first plane is luma ([`luma_levels`]), stretched to 0-255;
/// None for other pixel formats (RGB, big-endian...), or a plane not laid out as expected.
fn luma_of(frame: &frame::Video) -> Result<Option<Mat>> {
    let Some(levels) = luma_levels(frame.format(), frame.color_range()) else {
        return Ok(None);
    };
    let (width, height) = (frame.width() as i32, frame.height() as i32);
    let bytes = frame.data(0);
    let stride = frame.stride(0);
    let rows = if levels.deep {
        // Samples of 16 bits, in the machine's order (the formats taken are little-endian).
        let Ok(samples) = bytemuck::try_cast_slice::<u8, u16>(bytes) else {
            return Ok(None);
        };
        Mat::new_rows_cols_with_data(height, (stride / 2) as i32, samples)?
    } else {
        Mat::new_rows_cols_with_data(height, stride as i32, bytes)?
    };
    let plane = rows.roi(Rect::new(0, 0, width, height))?;
    let gain = 255.0 / (levels.white - levels.black);
    // Video range, less what swscale's BGR loses: the vision stage's gray levels were set on
    // frames that went through it.
    let darker = match (levels.full, levels.deep) {
        (true, _) => 0.0,
        (false, false) => SWSCALE_DARKER,
        (false, true) => SWSCALE_DARKER_DEEP,
    };
    let mut gray = Mat::default();
    plane.convert_to(&mut gray, CV_8UC1, gain, -levels.black * gain - darker)?;
    Ok(Some(gray))
}

/// How much darker than the luma stretched to 0-255 swscale's BGR of a video-range frame is in
/// gray, on average: 1.43 and 1.45 levels on the first frames of `hd.mp4` and `steady.mp4`
/// (its fast conversion rounds down). Taken off, the two grays differ by 0.13-0.18 levels.
const SWSCALE_DARKER: f64 = 1.4;
/// The same for 10-bit frames: 0.28 and 0.77 levels on colour bars and on `hd.mp4` re-encoded
/// in 10-bit HEVC (its conversion from 10 bits rounds otherwise).
const SWSCALE_DARKER_DEEP: f64 = 0.5;

/// Where black and white lie in a luma plane.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Levels {
    /// Samples of 16 bits, else 8.
    deep: bool,
    /// Black at the lowest sample value, white at the highest (JPEG's range).
    full: bool,
    black: f64,
    white: f64,
}

/// Where black and white lie in the first plane of a frame of `format`, when that plane is
/// luma: 8-bit, 10- or 12-bit in the low bits of 16 (phones' HDR and HEVC videos), or 10-bit in
/// the high bits (P010); video range (16-235 in 8 bits) unless `range` or the format says full.
fn luma_levels(format: Pixel, range: Range) -> Option<Levels> {
    let (bits, deep, full_format) = match format {
        Pixel::YUVJ420P | Pixel::YUVJ422P | Pixel::YUVJ444P | Pixel::YUVJ440P | Pixel::GRAY8 => {
            (8, false, true)
        }
        Pixel::YUV420P
        | Pixel::YUV422P
        | Pixel::YUV444P
        | Pixel::YUV440P
        | Pixel::YUV411P
        | Pixel::YUV410P
        | Pixel::YUVA420P
        | Pixel::NV12
        | Pixel::NV21
        | Pixel::NV16 => (8, false, false),
        Pixel::YUV420P10LE | Pixel::YUV422P10LE | Pixel::YUV444P10LE => (10, true, false),
        Pixel::YUV420P12LE | Pixel::YUV422P12LE | Pixel::YUV444P12LE => (12, true, false),
        Pixel::P010LE | Pixel::P016LE => (16, true, false),
        _ => return None,
    };
    let full = full_format || range == Range::JPEG;
    let unit = f64::from(1u32 << (bits - 8));
    let (black, white) = if full {
        (0.0, f64::from((1u32 << bits) - 1))
    } else {
        (16.0 * unit, 235.0 * unit)
    };
    Some(Levels {
        deep,
        full,
        black,
        white,
    })
}

/// The frame in BGR, converted as OpenCV's `VideoCapture` converted it (swscale, bicubic).
fn bgr_of(frame: &frame::Video) -> Result<Mat> {
    let (width, height) = (frame.width(), frame.height());
    let mut scaler = scaling::Context::get(
        frame.format(),
        width,
        height,
        Pixel::BGR24,
        width,
        height,
        scaling::Flags::BICUBIC,
    )
    .map_err(|e| odd_frame(&format!("cannot convert to colour: {e}")))?;
    let mut converted = frame::Video::empty();
    scaler
        .run(frame, &mut converted)
        .map_err(|e| odd_frame(&format!("cannot convert to colour: {e}")))?;
    let row = width as usize * 3;
    let stride = converted.stride(0);
    let mut bgr = Mat::new_rows_cols_with_default(
        height as i32,
        width as i32,
        CV_8UC3,
        core::Scalar::all(0.0),
    )?;
    let pixels = bgr.data_bytes_mut()?;
    for (to, from) in pixels
        .chunks_exact_mut(row)
        .zip(converted.data(0).chunks(stride))
    {
        to.copy_from_slice(&from[..row]);
    }
    Ok(bgr)
}

fn odd_frame(reason: &str) -> Error {
    Error::Pipeline(format!("a decoded video frame: {reason}"))
}

#[cfg(test)]
mod tests {
    use opencv::videoio::{CAP_FFMPEG, VideoCapture};

    use super::*;
    use crate::video::capture::FrameSource;
    use crate::video::file::VideoFile;

    fn video(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testvideos")
            .join(name)
    }

    fn mean_difference(a: &Mat, b: &Mat) -> f64 {
        let mut difference = Mat::default();
        core::absdiff(a, b, &mut difference).unwrap();
        let mean = core::mean(&difference, &core::no_array()).unwrap();
        (0..a.channels() as usize).map(|c| mean[c]).sum::<f64>() / f64::from(a.channels())
    }

    /// Gray and colour levels apart, on average, between the first frames of `path` as decoded
    /// here and as OpenCV's own decoding gives them (the vision stage's thresholds were set on
    /// those).
    fn apart_from_opencv(path: &std::path::Path) -> (f64, f64) {
        let mut capture = VideoCapture::from_file(path.to_str().unwrap(), CAP_FFMPEG).unwrap();
        let mut ours = VideoFile::open(path, false).unwrap();
        let (mut gray, mut colour) = (0.0f64, 0.0f64);
        for _ in 0..3 {
            let mut theirs = Mat::default();
            assert!(capture.read(&mut theirs).unwrap());
            let mut picture = ours.next_frame().unwrap().unwrap();
            assert_eq!(picture.size(), (theirs.cols(), theirs.rows()));
            let their_gray = gray_of(&theirs).unwrap();
            gray = gray.max(mean_difference(&picture.gray().unwrap(), &their_gray));
            colour = colour.max(mean_difference(picture.bgr_mut().unwrap(), &theirs));
        }
        (gray, colour)
    }

    /// Colour to the level, gray within a third of a level (it skips the round trip through
    /// BGR and its rounding).
    #[test]
    fn a_decoded_frame_is_the_frame_opencv_decodes() {
        let (gray, colour) = apart_from_opencv(&video("hd.mp4"));
        assert!(gray < 0.35, "gray {gray:.2} levels apart");
        assert!(colour < 0.05, "colour {colour:.3} levels apart");
    }

    /// Three frames of FFmpeg's colour bars, made into `name` in `dir` with `args`.
    fn bars(dir: &std::path::Path, name: &str, args: &[&str]) -> std::path::PathBuf {
        let path = dir.join(name);
        let made = std::process::Command::new("ffmpeg")
            .args([
                "-v",
                "error",
                "-f",
                "lavfi",
                "-i",
                "testsrc2=size=640x360:rate=30",
            ])
            .args(["-frames:v", "3"])
            .args(args)
            .arg(&path)
            .status()
            .expect("run ffmpeg (installed by .ci/setup)");
        assert!(made.success());
        path
    }

    /// A phone's 10-bit video (HEVC): its gray too is taken from the luma plane, within a level
    /// (swscale dithers 10 bits down to 8: 0.8 levels apart on average, 0.2 by the signed mean).
    #[test]
    fn a_ten_bit_frame_is_the_frame_opencv_decodes() {
        let dir = tempfile::tempdir().unwrap();
        let args = ["-c:v", "libx265", "-pix_fmt", "yuv420p10le"];
        let path = bars(dir.path(), "bars.mp4", &args);
        let (gray, colour) = apart_from_opencv(&path);
        assert!(gray < 1.0, "gray {gray:.2} levels apart");
        assert!(colour < 0.05, "colour {colour:.3} levels apart");
    }

    /// A video stored in RGB (PNG frames), dark (its white at a twelfth): gray through colour,
    /// brightened once, as OpenCV's frame is.
    #[test]
    fn a_dark_rgb_frame_is_the_frame_opencv_decodes() {
        let dir = tempfile::tempdir().unwrap();
        let args = ["-vf", "lutrgb=r=val/12:g=val/12:b=val/12", "-c:v", "png"];
        let path = bars(dir.path(), "bars.mkv", &args);
        let (gray, colour) = apart_from_opencv(&path);
        assert!(gray < 0.05, "gray {gray:.2} levels apart");
        assert!(colour < 0.05, "colour {colour:.3} levels apart");
    }

    #[test]
    fn a_turned_frame_is_sized_as_shown() {
        let path = video("steady.mp4");
        let frame = |turn| {
            let mut file = VideoFile::open(&path, false).unwrap();
            let Some(Picture(Pixels::Decoded { frame, .. })) = file.next_frame().unwrap() else {
                panic!("a decoded frame");
            };
            Picture::decoded(frame, turn)
        };
        for (turn, size) in [(Turn::Clockwise, (720, 1280)), (Turn::HalfWay, (1280, 720))] {
            let mut picture = frame(turn);
            assert_eq!(picture.size(), size);
            let gray = picture.gray().unwrap();
            assert_eq!((gray.cols(), gray.rows()), size);
            let bgr = picture.bgr_mut().unwrap();
            assert_eq!((bgr.cols(), bgr.rows()), size);
        }
        assert_eq!(Turn::from_anticlockwise(-90.0), Turn::Clockwise);
        assert_eq!(Turn::from_anticlockwise(90.0), Turn::Anticlockwise);
        assert_eq!(Turn::from_anticlockwise(180.0), Turn::HalfWay);
        assert_eq!(Turn::from_anticlockwise(-180.0), Turn::HalfWay);
        assert_eq!(Turn::from_anticlockwise(30.0), Turn::Upright);
    }
}
