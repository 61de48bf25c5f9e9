//! The library's error type. Each variant says what failed and, where a user can act, what to do.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {}: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error("{}: not an image (empty, truncated, or a format not read here; JPEG, PNG, WebP, TIFF, BMP, GIF, HEIC and AVIF are)", path.display())]
    NotAnImage { path: PathBuf },
    /// A JPEG whose file ends early, with no puzzle in the part that decodes.
    #[error("{}: the file is cut short (its JPEG data ends early) and no Sudoku shows in the part that decodes", path.display())]
    CutShort { path: PathBuf },
    /// A HEIF or AVIF picture (a phone's photo) that libheif did not decode, or no libheif.
    #[error("{}: a HEIF/AVIF picture that could not be decoded: {reason}", path.display())]
    Heif { path: PathBuf, reason: String },
    #[error("{}: image is {width}x{height}, too small to hold a readable Sudoku (at least {min}x{min} needed)", path.display())]
    TooSmall {
        path: PathBuf,
        width: i32,
        height: i32,
        min: i32,
    },
    /// A picture whose paper shows under 20 of 255 even brightened (see
    /// `raster::too_dark_to_read`): its noise could pass for ink, so it is not read at all.
    #[error("too dark to read a puzzle in it surely: take the picture in more light")]
    TooDark,
    #[error(
        "ONNX Runtime library not loaded ({reason}); run `bash .ci/setup` in the repository, \
         or set ORT_DYLIB_PATH to a libonnxruntime.so of version 1.31"
    )]
    Runtime { reason: String },
    #[error("digit model {}: {reason}", path.display())]
    Model { path: PathBuf, reason: String },
    #[error("digit recognition failed: {0}")]
    Inference(String),
    #[error("{}: {reason}", path.display())]
    Video { path: PathBuf, reason: String },
    #[error("no camera {index}; cameras present: {present}")]
    NoCamera { index: u32, present: String },
    #[error("camera {index}: {reason}")]
    Camera { index: u32, reason: String },
    #[error("cannot write {}: {reason}", path.display())]
    Output { path: PathBuf, reason: String },
    #[error("live pipeline: {0}")]
    Pipeline(String),
    #[error("window: {0}")]
    Window(String),
    #[error("OpenCV: {}", one_line(.0))]
    OpenCv(#[from] opencv::Error),
}

/// An OpenCV error on one line: its message spans several, and names the C++ template it
/// failed in, which tells a user nothing.
fn one_line(err: &opencv::Error) -> String {
    let mut parts = Vec::new();
    for line in err.message.lines() {
        let line = line.trim_start_matches(|c: char| c == '>' || c.is_whitespace());
        let line = line
            .split(" in function '")
            .next()
            .unwrap_or(line)
            .trim_end();
        if !line.is_empty() {
            parts.push(line);
        }
    }
    format!("{} (code {})", parts.join(" "), err.code)
}

impl From<ort::Error> for Error {
    fn from(err: ort::Error) -> Self {
        Error::Inference(err.to_string())
    }
}

/// A short reason for an I/O error, for one-line messages that also name the file.
pub(crate) fn io_reason(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "is a directory".into(),
        _ => err.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opencv_error_reads_on_one_line_without_the_template_it_failed_in() {
        let message = "OpenCV(4.6.0) ./modules/imgproc/src/color.simd_helpers.hpp:92: error: \
            (-2:Unspecified error) in function 'cv::impl::CvtHelper<VScn, VDcn>::CvtHelper()'\n\
            > Invalid number of channels in input image:\n\
            >     'VScn::contains(scn)'\n> where\n>     'scn' is 2\n";
        let err = Error::from(opencv::Error::new(-2, message));
        assert_eq!(
            err.to_string(),
            "OpenCV: OpenCV(4.6.0) ./modules/imgproc/src/color.simd_helpers.hpp:92: error: \
             (-2:Unspecified error) Invalid number of channels in input image: \
             'VScn::contains(scn)' where 'scn' is 2 (code -2)"
        );
    }
}
