//! Decoding a picture file into BGR: OpenCV for what it reads, the `image` crate for GIF and
//! animated WebP, libheif for HEIC and AVIF ([`super::heif`]); a transparent picture laid on
//! the paper its ink stands out from.

use std::path::Path;

use opencv::core::{self, Mat, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;

use super::{MIN_SIDE, heif};
use crate::error::{Error, Result, io_reason};

/// A picture decoded, and whether its file ends early.
pub struct Picture {
    /// BGR.
    pub image: Mat,
    /// The file is a JPEG cut short (a download or a copy that stopped): only its top part
    /// decoded, the rest is gray.
    pub cut_short: bool,
}

/// Decodes the picture at `path` into BGR, with errors that name the file.
pub fn load_image(path: &Path) -> Result<Mat> {
    load_picture(path).map(|picture| picture.image)
}

/// Decodes the picture at `path` as [`load_image`] does, and says whether the file ends early.
pub fn load_picture(path: &Path) -> Result<Picture> {
    let bytes = std::fs::read(path).map_err(|e| Error::Unreadable {
        path: path.into(),
        reason: io_reason(&e),
    })?;
    let cut_short = jpeg_cut_short(&bytes);
    decoded(path, &bytes).map(|image| Picture { image, cut_short })
}

/// The picture `bytes` (the file at `path`) into BGR.
fn decoded(path: &Path, bytes: &[u8]) -> Result<Mat> {
    if bytes.is_empty() {
        return Err(Error::NotAnImage { path: path.into() });
    }
    let decoded = imgcodecs::imdecode(&Vector::<u8>::from_slice(bytes), imgcodecs::IMREAD_COLOR);
    let image = match decoded {
        Ok(image) if !image.empty() => transparent_laid_down(bytes, &image)?.unwrap_or(image),
        _ if heif::is_heif(bytes) => {
            let (width, height, rgba) = heif::decode_rgba(bytes).map_err(|reason| Error::Heif {
                path: path.into(),
                reason,
            })?;
            laid_down(width, height, &rgba)?
        }
        _ => first_frame_of(bytes)?.ok_or_else(|| Error::NotAnImage { path: path.into() })?,
    };
    let image = upright_webp(bytes, image)?;
    if image.cols() < MIN_SIDE || image.rows() < MIN_SIDE {
        return Err(Error::TooSmall {
            path: path.into(),
            width: image.cols(),
            height: image.rows(),
            min: MIN_SIDE,
        });
    }
    Ok(image)
}

/// Whether `bytes`, a JPEG file, end before its end-of-image marker. Its segments are
/// stepped over by their lengths (an EXIF thumbnail's own markers inside one are not looked
/// at), its entropy-coded data up to the next marker; bytes after the end marker (a phone's
/// trailer) do not matter. Not a JPEG, or not laid out as one: false.
fn jpeg_cut_short(bytes: &[u8]) -> bool {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return false;
    }
    let mut i = 2;
    loop {
        // Fill bytes (0xFF) may pad a marker.
        while bytes.get(i) == Some(&0xFF) && bytes.get(i + 1) == Some(&0xFF) {
            i += 1;
        }
        let marker = match (bytes.get(i), bytes.get(i + 1)) {
            (None, _) | (Some(0xFF), None) => return true,
            (Some(0xFF), Some(&marker)) => marker,
            _ => return false,
        };
        i += 2;
        match marker {
            0xD9 => return false,
            0x01 | 0xD0..=0xD7 => continue,
            _ => {}
        }
        let Some(length) = bytes.get(i..i + 2) else {
            return true;
        };
        i += usize::from(u16::from_be_bytes([length[0], length[1]]));
        if marker == 0xDA {
            // The scan's data, up to a marker: 0xFF not followed by a stuffed 0 or a restart.
            loop {
                let Some(at) = bytes
                    .get(i..)
                    .and_then(|rest| rest.iter().position(|&b| b == 0xFF))
                else {
                    return true;
                };
                i += at;
                match bytes.get(i + 1) {
                    None => return true,
                    Some(0x00 | 0xD0..=0xD7) => i += 2,
                    Some(_) => break,
                }
            }
        }
    }
}

/// A PNG, WebP or TIFF picture with transparent parts, laid down as [`laid_down`] does; None
/// for one that has none, or that OpenCV turned by its EXIF orientation (`color`, its colour
/// decoding, differs in size). OpenCV's colour decoding drops the alpha channel and keeps what
/// lies under it: a puzzle exported from a web page as black ink on transparent pixels that
/// are black underneath came out all black ("too dark to read").
fn transparent_laid_down(bytes: &[u8], color: &Mat) -> Result<Option<Mat>> {
    const MAY_BE_TRANSPARENT: [&[u8]; 4] = [b"\x89PNG", b"RIFF", b"II*\0", b"MM\0*"];
    if !MAY_BE_TRANSPARENT.iter().any(|m| bytes.starts_with(m)) {
        return Ok(None);
    }
    let Ok(full) = imgcodecs::imdecode(
        &Vector::<u8>::from_slice(bytes),
        imgcodecs::IMREAD_UNCHANGED,
    ) else {
        return Ok(None);
    };
    if full.channels() != 4 || full.size()? != color.size()? {
        return Ok(None);
    }
    let mut bgra = Mat::default();
    match full.depth() {
        opencv::core::CV_8U => bgra = full,
        opencv::core::CV_16U => {
            full.convert_to(&mut bgra, opencv::core::CV_8U, 1.0 / 257.0, 0.0)?
        }
        _ => return Ok(None),
    }
    let bgra = if bgra.is_continuous() {
        bgra
    } else {
        bgra.try_clone()?
    };
    let pixels = bgra.data_bytes()?;
    if pixels.chunks_exact(4).all(|p| p[3] == 255) {
        return Ok(None);
    }
    let rgba: Vec<u8> = pixels
        .chunks_exact(4)
        .flat_map(|p| [p[2], p[1], p[0], p[3]])
        .collect();
    laid_down(bgra.cols() as usize, bgra.rows() as usize, &rgba).map(Some)
}

fn is_webp(bytes: &[u8]) -> bool {
    bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP"
}

/// A WebP picture turned as its EXIF orientation says, as a browser shows it: OpenCV turns a
/// JPEG by its orientation, not a WebP (a phone's photo saved as WebP was read lying on its
/// side, its corners given in the sideways picture). Any other picture as it is.
fn upright_webp(bytes: &[u8], image: Mat) -> Result<Mat> {
    use image::ImageDecoder;
    use image::metadata::Orientation;
    if !is_webp(bytes) {
        return Ok(image);
    }
    let exif = image::codecs::webp::WebPDecoder::new(std::io::Cursor::new(bytes))
        .and_then(|mut decoder| decoder.exif_metadata())
        .ok()
        .flatten()
        .unwrap_or_default();
    // The chunk holds the EXIF's TIFF structure; some writers put JPEG's "Exif" header first.
    let tiff = exif.strip_prefix(b"Exif\0\0").unwrap_or(&exif);
    let (rotate, flip) = match Orientation::from_exif_chunk(tiff) {
        None | Some(Orientation::NoTransforms) => return Ok(image),
        Some(Orientation::Rotate90) => (Some(core::ROTATE_90_CLOCKWISE), None),
        Some(Orientation::Rotate180) => (Some(core::ROTATE_180), None),
        Some(Orientation::Rotate270) => (Some(core::ROTATE_90_COUNTERCLOCKWISE), None),
        Some(Orientation::FlipHorizontal) => (None, Some(1)),
        Some(Orientation::FlipVertical) => (None, Some(0)),
        Some(Orientation::Rotate90FlipH) => (Some(core::ROTATE_90_CLOCKWISE), Some(1)),
        Some(Orientation::Rotate270FlipH) => (Some(core::ROTATE_90_COUNTERCLOCKWISE), Some(1)),
    };
    let mut image = image;
    if let Some(code) = rotate {
        let mut turned = Mat::default();
        core::rotate(&image, &mut turned, code)?;
        image = turned;
    }
    if let Some(code) = flip {
        let mut flipped = Mat::default();
        core::flip(&image, &mut flipped, code)?;
        image = flipped;
    }
    Ok(image)
}

/// The first frame of a GIF or animated WebP picture as BGR, laid down as [`laid_down`] does
/// (a puzzle saved from a web page or a chat); None for bytes that are neither. The Debian
/// OpenCV decodes neither (a still WebP it does).
fn first_frame_of(bytes: &[u8]) -> Result<Option<Mat>> {
    let format = if bytes.starts_with(b"GIF8") {
        image::ImageFormat::Gif
    } else if is_webp(bytes) {
        image::ImageFormat::WebP
    } else {
        return Ok(None);
    };
    let Ok(picture) = image::load_from_memory_with_format(bytes, format) else {
        return Ok(None);
    };
    let rgba = picture.to_rgba8();
    let (width, height) = (rgba.width() as usize, rgba.height() as usize);
    laid_down(width, height, rgba.as_raw()).map(Some)
}

/// A picture given as RGBA rows, as BGR laid on white where it is transparent, or on black
/// when what shows of it is light (white ink made for a dark page): either way its ink stands
/// out from the paper as a page viewed in a browser shows it.
fn laid_down(width: usize, height: usize, rgba: &[u8]) -> Result<Mat> {
    let background = if light_where_opaque(rgba) { 0 } else { 255 };
    let mut bgr = Mat::new_rows_cols_with_default(
        height as i32,
        width as i32,
        opencv::core::CV_8UC3,
        opencv::core::Scalar::all(0.0),
    )?;
    let blend = |v: u8, alpha: u8| {
        let a = u32::from(alpha);
        ((u32::from(v) * a + background * (255 - a) + 127) / 255) as u8
    };
    for (out, pixel) in bgr
        .data_bytes_mut()?
        .chunks_exact_mut(3)
        .zip(rgba.chunks_exact(4))
    {
        let &[r, g, b, a] = pixel else { continue };
        out.copy_from_slice(&[blend(b, a), blend(g, a), blend(r, a)]);
    }
    Ok(bgr)
}

/// Whether the pixels of `rgba` that are mostly opaque but not the whole picture's are
/// light on the whole. A picture opaque all over (a photo) is as it is: false.
fn light_where_opaque(rgba: &[u8]) -> bool {
    let (mut sum, mut opaque, mut all) = (0u64, 0u64, 0u64);
    for p in rgba.chunks_exact(4) {
        all += 1;
        if p[3] >= 128 {
            opaque += 1;
            sum += u64::from(p[0]) + u64::from(p[1]) + u64::from(p[2]);
        }
    }
    opaque > 0 && opaque < all && sum / (3 * opaque) >= 128
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WebP stored turned, with the EXIF orientation that turns it back (as the EXIF's TIFF
    /// structure alone, or after JPEG's "Exif" header), is loaded as it is shown.
    #[test]
    fn a_webp_is_turned_by_its_exif_orientation() {
        use image::ImageEncoder;
        let bundled = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/photos/newspaper.jpg");
        let upright = load_image(Path::new(bundled)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let turns = [
            (core::ROTATE_90_COUNTERCLOCKWISE, 6u8, &b""[..]),
            (core::ROTATE_180, 3, &b"Exif\0\0"[..]),
            (core::ROTATE_90_CLOCKWISE, 8, &b""[..]),
        ];
        for (stored_turn, tag, header) in turns {
            let mut stored = Mat::default();
            core::rotate(&upright, &mut stored, stored_turn).unwrap();
            let mut rgb = Mat::default();
            opencv::imgproc::cvt_color(&stored, &mut rgb, opencv::imgproc::COLOR_BGR2RGB, 0)
                .unwrap();
            let mut exif = header.to_vec();
            exif.extend([
                b'I', b'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 1, 3, 0, 1, 0, 0, 0,
            ]);
            exif.extend([tag, 0, 0, 0, 0, 0, 0, 0]);
            let mut bytes = Vec::new();
            let mut encoder = image::codecs::webp::WebPEncoder::new_lossless(&mut bytes);
            encoder.set_exif_metadata(exif).unwrap();
            let (w, h) = (rgb.cols() as u32, rgb.rows() as u32);
            encoder
                .write_image(
                    rgb.data_bytes().unwrap(),
                    w,
                    h,
                    image::ExtendedColorType::Rgb8,
                )
                .unwrap();
            let path = dir.path().join(format!("turned{tag}.webp"));
            std::fs::write(&path, bytes).unwrap();
            let loaded = load_image(&path).unwrap();
            assert_eq!(loaded.size().unwrap(), upright.size().unwrap(), "tag {tag}");
            let mut difference = Mat::default();
            core::absdiff(&loaded, &upright, &mut difference).unwrap();
            let off = core::sum_elems(&difference).unwrap();
            assert_eq!(
                off[0] + off[1] + off[2],
                0.0,
                "tag {tag}: not the picture shown"
            );
        }
    }

    #[test]
    fn missing_empty_and_garbage_files_are_named_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.jpg");
        let err = load_image(&missing).unwrap_err().to_string();
        assert!(
            err.contains("missing.jpg") && err.contains("no such file"),
            "{err}"
        );

        let empty = dir.path().join("empty.png");
        std::fs::write(&empty, b"").unwrap();
        assert!(matches!(load_image(&empty), Err(Error::NotAnImage { .. })));

        let text = dir.path().join("notes.jpg");
        std::fs::write(&text, b"this is not a picture").unwrap();
        assert!(
            load_image(&text)
                .unwrap_err()
                .to_string()
                .contains("notes.jpg")
        );

        assert!(
            load_image(dir.path())
                .unwrap_err()
                .to_string()
                .contains("cannot read")
        );
    }

    #[test]
    fn a_gif_is_decoded_on_white_where_transparent_and_a_cut_one_is_no_image() {
        // 120 x 100: the left half opaque red, the right half transparent.
        let picture = image::RgbaImage::from_fn(120, 100, |x, _| {
            if x < 60 {
                image::Rgba([200, 10, 10, 255])
            } else {
                image::Rgba([0, 0, 0, 0])
            }
        });
        let mut bytes = std::io::Cursor::new(Vec::new());
        picture
            .write_to(&mut bytes, image::ImageFormat::Gif)
            .unwrap();
        let bytes = bytes.into_inner();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.gif");
        std::fs::write(&path, &bytes).unwrap();
        let bgr = load_image(&path).unwrap();
        assert_eq!((bgr.cols(), bgr.rows()), (120, 100));
        let at = |x: i32| *bgr.at_2d::<opencv::core::Vec3b>(50, x).unwrap();
        assert_eq!(at(10).0, [10, 10, 200]);
        assert_eq!(at(100).0, [255, 255, 255]);

        let cut = dir.path().join("cut.gif");
        std::fs::write(&cut, &bytes[..bytes.len() / 3]).unwrap();
        let err = load_image(&cut).unwrap_err();
        assert!(
            matches!(&err, Error::NotAnImage { .. }) && err.to_string().contains("cut.gif"),
            "{err}"
        );
    }

    #[test]
    fn tiny_picture_is_too_small() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny.png");
        let tiny = Mat::new_rows_cols_with_default(
            8,
            8,
            opencv::core::CV_8UC3,
            opencv::core::Scalar::all(9.0),
        )
        .unwrap();
        imgcodecs::imwrite(path.to_str().unwrap(), &tiny, &Vector::new()).unwrap();
        match load_image(&path) {
            Err(Error::TooSmall {
                width: 8,
                height: 8,
                ..
            }) => {}
            other => panic!("expected TooSmall, got {other:?}"),
        }
    }

    #[test]
    fn a_jpeg_cut_short_is_told_from_a_whole_one() {
        let whole = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/photos/newspaper.jpg"
        ))
        .unwrap();
        assert!(!jpeg_cut_short(&whole));
        for share in [0.001, 0.1, 0.5, 0.9, 0.999] {
            let cut = &whole[..(whole.len() as f64 * share) as usize];
            assert!(jpeg_cut_short(cut), "cut at {share}");
        }
        // A trailer after the end marker (phones add some), and no JPEG at all.
        let mut trailed = whole.clone();
        trailed.extend_from_slice(b"SEFT trailer \xFF\xD8 not an image");
        assert!(!jpeg_cut_short(&trailed));
        assert!(!jpeg_cut_short(b"\x89PNG\r\n\x1a\n"));
        assert!(!jpeg_cut_short(&[]));
    }

    #[test]
    fn transparent_ink_is_laid_on_the_paper_it_stands_out_from() {
        // Black ink on transparent black, as exported from a web page: on white.
        let mut rgba = vec![0u8; 4 * 100];
        rgba[3] = 255;
        let bgr = laid_down(10, 10, &rgba).unwrap();
        let pixels = bgr.data_bytes().unwrap();
        assert_eq!(&pixels[..3], &[0, 0, 0]);
        assert!(pixels[3..].iter().all(|&v| v == 255));
        // White ink for a dark page: on black.
        let mut rgba = vec![0u8; 4 * 100];
        rgba[..4].copy_from_slice(&[255, 255, 255, 255]);
        let bgr = laid_down(10, 10, &rgba).unwrap();
        let pixels = bgr.data_bytes().unwrap();
        assert_eq!(&pixels[..3], &[255, 255, 255]);
        assert!(pixels[3..].iter().all(|&v| v == 0));
        // Opaque all over: as it is.
        let rgba: Vec<u8> = (0..100).flat_map(|i| [200, 100, i as u8, 255]).collect();
        let bgr = laid_down(10, 10, &rgba).unwrap();
        assert_eq!(&bgr.data_bytes().unwrap()[..6], &[0, 100, 200, 1, 100, 200]);
    }
}
