//! No input panics: random and corrupted pictures through the photo pipeline, corrupted videos
//! through the decoder, random frames of changing sizes through the vision stage (property tests
//! with a fixed seed, so a failure reproduces).

mod common;

use common::camera::Random;
use opencv::core::{self, Mat, Scalar, Size};
use opencv::imgproc;
use sudoku_ar::photo;
use sudoku_ar::recognize::read::DigitReader;
use sudoku_ar::video::several::Visions;

/// A random picture: noise, a flat colour, stripes, or a grid-like pattern, at a random size.
fn random_picture(random: &mut Random) -> Mat {
    let width = random.between(1.0, 700.0) as i32;
    let height = random.between(1.0, 500.0) as i32;
    let size = Size::new(width, height);
    let mut picture =
        Mat::new_size_with_default(size, core::CV_8UC3, Scalar::all(random.between(0.0, 255.0)))
            .unwrap();
    match (random.unit() * 4.0) as u32 {
        0 => core::randu(&mut picture, &Scalar::all(0.0), &Scalar::all(255.0)).unwrap(),
        1 => {}
        2 => {
            let step = random.between(2.0, 40.0) as i32;
            for x in (0..width).step_by(step as usize) {
                imgproc::line(
                    &mut picture,
                    core::Point::new(x, 0),
                    core::Point::new(x, height),
                    Scalar::all(0.0),
                    2,
                    imgproc::LINE_8,
                    0,
                )
                .unwrap();
            }
        }
        _ => {
            // Nested squares of lines, like a grid with no digits, at a random angle.
            let step = random.between(4.0, 60.0) as i32;
            for k in 0..10 {
                let p = 10 + k * step;
                imgproc::line(
                    &mut picture,
                    core::Point::new(p, 10),
                    core::Point::new(p, 10 + 9 * step),
                    Scalar::all(0.0),
                    2,
                    imgproc::LINE_8,
                    0,
                )
                .unwrap();
                imgproc::line(
                    &mut picture,
                    core::Point::new(10, p),
                    core::Point::new(10 + 9 * step, p),
                    Scalar::all(0.0),
                    2,
                    imgproc::LINE_8,
                    0,
                )
                .unwrap();
            }
        }
    }
    picture
}

#[test]
fn random_pictures_never_panic_the_photo_pipeline() {
    let mut pipeline = common::pipeline();
    let mut random = Random::new(7);
    for _ in 0..150 {
        let picture = random_picture(&mut random);
        let mut times = Default::default();
        // Any result is fine (most have no puzzle); a panic fails the test.
        let _ = pipeline.process_all(&picture, &mut times);
    }
}

/// `original` cut at a random length when `cut`, then with up to `flips` random bytes changed.
fn corrupted(original: &[u8], cut: bool, flips: f64, random: &mut Random) -> Vec<u8> {
    let mut bytes = original.to_vec();
    if cut {
        bytes.truncate(random.between(0.0, original.len() as f64) as usize);
    }
    for _ in 0..(random.unit() * flips) as usize {
        let at = random.between(0.0, bytes.len().max(1) as f64) as usize;
        if let Some(b) = bytes.get_mut(at) {
            *b = random.between(0.0, 256.0) as u8;
        }
    }
    bytes
}

#[test]
fn corrupted_photos_are_errors_or_readings_never_panics() {
    let original = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/photos/newspaper.jpg"
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut pipeline = common::pipeline();
    let mut random = Random::new(11);
    for case in 0..40 {
        let bytes = corrupted(&original, case % 2 == 0, 30.0, &mut random);
        let path = dir.path().join(format!("corrupt{case}.jpg"));
        std::fs::write(&path, &bytes).unwrap();
        match photo::load_image(&path) {
            Ok(image) => {
                let mut times = Default::default();
                let _ = pipeline.process_all(&image, &mut times);
            }
            Err(e) => assert!(
                e.to_string().contains(&format!("corrupt{case}.jpg")),
                "error does not name the file: {e}"
            ),
        }
    }
}

/// Corrupted and cut copies of a bundled video through the decoder, each frame made gray and
/// colour: errors that name the file, or frames, never a panic.
#[test]
fn corrupted_videos_are_errors_or_frames_never_panics() {
    use sudoku_ar::video::capture::FrameSource;
    use sudoku_ar::video::file::VideoFile;
    let original = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testvideos/finger.mp4"
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut random = Random::new(17);
    let (mut frames, mut errors) = (0, 0);
    for case in 0..12 {
        let bytes = corrupted(&original, case % 3 == 0, 200.0, &mut random);
        let path = dir.path().join(format!("corrupt{case}.mp4"));
        std::fs::write(&path, &bytes).unwrap();
        let mut names_the_file = |e: sudoku_ar::Error| {
            errors += 1;
            assert!(
                e.to_string().contains(&format!("corrupt{case}.mp4")),
                "error does not name the file: {e}"
            )
        };
        let mut video = match VideoFile::open(&path, false) {
            Ok(video) => video,
            Err(e) => {
                names_the_file(e);
                continue;
            }
        };
        // Every 10th frame in colour too, as a replay writing its video makes it.
        for index in 0.. {
            match video.next_frame() {
                Ok(Some(mut picture)) => {
                    frames += 1;
                    let _ = picture.gray();
                    if index % 10 == 0 {
                        let _ = picture.bgr_mut();
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    names_the_file(e);
                    break;
                }
            }
        }
    }
    eprintln!("{frames} frames decoded, {errors} errors");
    assert!(frames > 0 && errors > 0, "both kinds of ending were tried");
}

#[test]
fn random_frames_of_changing_sizes_never_panic_the_vision_stage() {
    let mut vision = Visions::new(DigitReader::builtin().unwrap());
    let mut random = Random::new(13);
    // A real page among the noise, so that tracking and reading run too, cut by resolution
    // changes mid-stream.
    let page = opencv::imgcodecs::imread(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/photos/newspaper.jpg"),
        opencv::imgcodecs::IMREAD_COLOR,
    )
    .unwrap();
    for i in 0..200 {
        let frame = if (i / 20) % 2 == 0 {
            let scale = [1.0, 0.5, 1.5][(i / 40) % 3];
            let mut resized = Mat::default();
            imgproc::resize(
                &page,
                &mut resized,
                Size::new(0, 0),
                scale,
                scale,
                imgproc::INTER_AREA,
            )
            .unwrap();
            resized
        } else {
            random_picture(&mut random)
        };
        let _ = vision.process(&frame);
    }
}
