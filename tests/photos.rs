//! End to end on real photos: the bundled one, and the two datasets in ../shared/data.
//!
//! The floors below are regression guards set a little under what was measured (see the README's
//! figures and `cargo bench --bench photos`), not targets.

mod common;

use common::{Truth, evaluate, kubiesa_val, pipeline, wicht, wicht_held_out};
use opencv::core;
use opencv::prelude::*;
use sudoku_ar::photo::{self, StageTimes};
use sudoku_ar::recognize::verdict::Status;

fn require_data<T>(samples: Vec<T>, name: &str, at_least: usize) -> Vec<T> {
    assert!(
        samples.len() >= at_least,
        "{name}: found {} photos under {}, expected {at_least}; the datasets live in ../shared/data (or set SUDOKU_DATA)",
        samples.len(),
        common::data_dir().display()
    );
    samples
}

#[test]
fn bundled_newspaper_photo_is_read_and_solved() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/photos/");
    let image = photo::load_image(format!("{dir}newspaper.jpg").as_ref()).unwrap();
    let truth = std::fs::read_to_string(format!("{dir}newspaper.dat")).unwrap();
    let truth: String = truth
        .lines()
        .skip(2)
        .flat_map(|l| l.split_whitespace())
        .collect();
    let puzzle = pipeline()
        .process(&image, &mut StageTimes::default())
        .unwrap()
        .expect("a puzzle");
    assert_eq!(puzzle.clues.to_string(), truth);
    assert_eq!(puzzle.status, Status::Solved);
    let solution = puzzle.solution.unwrap().to_string();
    assert!(
        truth
            .chars()
            .zip(solution.chars())
            .all(|(t, s)| t == '0' || t == s)
    );
}

/// A library caller may hand the pipeline a picture in gray, or with an alpha channel: it is
/// read as its BGR is (a gray one was an OpenCV error on the colour conversion until session
/// 84).
#[test]
fn the_bundled_photo_in_gray_or_bgra_is_read_as_in_bgr() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/photos/");
    let image = photo::load_image(format!("{dir}newspaper.jpg").as_ref()).unwrap();
    let mut pipeline = pipeline();
    let mut solve = |image: &core::Mat| {
        pipeline
            .process(image, &mut StageTimes::default())
            .unwrap()
            .and_then(|p| p.solution)
    };
    let expected = solve(&image).expect("solved in BGR");
    for code in [
        opencv::imgproc::COLOR_BGR2GRAY,
        opencv::imgproc::COLOR_BGR2BGRA,
    ] {
        let mut other = core::Mat::default();
        opencv::imgproc::cvt_color(&image, &mut other, code, 0).unwrap();
        assert_eq!(solve(&other), Some(expected), "conversion {code}");
    }
}

#[test]
fn turned_photo_is_read_the_right_way_up() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/photos/");
    let image = photo::load_image(format!("{dir}newspaper.jpg").as_ref()).unwrap();
    let upright = pipeline()
        .process(&image, &mut StageTimes::default())
        .unwrap()
        .expect("a puzzle");
    let mut pipeline = pipeline();
    for code in [
        core::ROTATE_90_CLOCKWISE,
        core::ROTATE_180,
        core::ROTATE_90_COUNTERCLOCKWISE,
    ] {
        let mut turned = core::Mat::default();
        core::rotate(&image, &mut turned, code).unwrap();
        let puzzle = pipeline
            .process(&turned, &mut StageTimes::default())
            .unwrap()
            .expect("a puzzle");
        assert_eq!(puzzle.clues, upright.clues, "turn {code}");
        assert_eq!(puzzle.status, Status::Solved);
        // The puzzle's top-left corner is where the printed top-left went.
        let (w, h) = (image.cols() as f64, image.rows() as f64);
        let [x, y] = upright.quad.0[0];
        let expected = match code {
            core::ROTATE_90_CLOCKWISE => [h - 1.0 - y, x],
            core::ROTATE_180 => [w - 1.0 - x, h - 1.0 - y],
            _ => [y, w - 1.0 - x],
        };
        let got = puzzle.quad.0[0];
        assert!(
            (got[0] - expected[0]).hypot(got[1] - expected[1]) < 3.0,
            "turn {code}: {got:?} vs {expected:?}"
        );
    }
}

#[test]
fn wicht_newspaper_photos_floor() {
    let all = require_data(wicht(), "wicht-v2-train", 159);
    let held_out: Vec<_> = all.iter().filter(|s| wicht_held_out(&s.path)).collect();
    let every: Vec<_> = all.iter().collect();
    let mut pipeline = pipeline();
    let held = evaluate(&mut pipeline, &held_out);
    println!("{}", held.summary("wicht held-out"));
    assert!(held.found >= 30, "{}", held.summary("wicht held-out"));
    assert!(held.perfect >= 29, "{}", held.summary("wicht held-out"));
    assert!(
        held.cell_accuracy() >= 0.995,
        "{}",
        held.summary("wicht held-out")
    );

    let whole = evaluate(&mut pipeline, &every);
    println!("{}", whole.summary("wicht all"));
    assert!(whole.found >= 160, "{}", whole.summary("wicht all"));
    assert!(whole.perfect >= 156, "{}", whole.summary("wicht all"));
    // Newspaper puzzles are printed: hardly anything may read as handwritten.
    assert!(whole.handwritten <= 10, "{}", whole.summary("wicht all"));
}

/// A blurred newspaper page darkened towards its bottom (the light falling off from 1.1 of it
/// at the top to 0.35-0.55 at the bottom, its levels rounded or cut): the firm ink outlines it
/// down to its second box line on some, the six rows above pass the grid check as nine (a
/// curled ruling) and read as no puzzle, and nothing was found. Outlined once more in the
/// fainter ink, it is read whole: solved 7 of these 10 times, 3 before (session 75; the same
/// page lit unevenly across, tinted and saved as JPEG, was the one of Wicht's 160 so treated
/// that was not solved).
#[test]
fn a_blurred_page_darkened_towards_its_bottom_is_outlined_whole() {
    let samples = require_data(wicht(), "wicht-v2-train", 159);
    let sample = samples
        .iter()
        .find(|s| s.path.ends_with("image209.jpg"))
        .expect("image209 in the Wicht photos");
    let image = photo::load_image(&sample.path).unwrap();
    let rows = image.rows();
    let corners = sample.corners.expect("published corners");
    let mut pipeline = pipeline();
    let mut solved = 0;
    for bottom in [0.35, 0.4, 0.45, 0.5, 0.55] {
        for cut in [0.0, -0.5] {
            let mut darkened = image.clone();
            for y in 0..rows {
                let gain = 1.1 - (1.1 - bottom) * y as f64 / (rows - 1) as f64;
                let mut row = darkened.row_mut(y).unwrap();
                image
                    .row(y)
                    .unwrap()
                    .convert_to(&mut row, -1, gain, cut)
                    .unwrap();
            }
            let puzzle = pipeline
                .process(&darkened, &mut StageTimes::default())
                .unwrap();
            let Some((puzzle, solution)) = puzzle.and_then(|p| p.solution.map(|s| (p, s))) else {
                println!("darkened to {bottom} (cut {cut}): not solved");
                continue;
            };
            for (cell, truth) in sample.cells.iter().enumerate() {
                if let Truth::Digit(d) = truth {
                    assert_eq!(solution.0[cell], *d, "darkened to {bottom}: cell {cell}");
                }
            }
            // Wicht's outlines of the 640x480 pages lie about 2% of the side outside the border.
            let off = puzzle.quad.max_corner_distance(&corners) / corners.mean_side();
            assert!(
                off < 0.04,
                "darkened to {bottom}: a corner {:.1}% off",
                100.0 * off
            );
            solved += 1;
        }
    }
    println!("image209 darkened towards its bottom: {solved} of 10 solved");
    assert!(solved >= 6, "{solved} of 10");
}

/// Wicht's newspaper pages blurred as if out of focus (a Gaussian of 2.5 px on a 640 px
/// picture, scaled with the photo): the lines lie only a few gray levels below the paper around
/// them. Whatever is solved must agree with every printed clue; before a photo where nothing
/// was found was searched again for fainter ink (`detect::Pass::Faint`), 21 of 160 pages gave
/// no grid at all.
#[test]
fn newspaper_pages_blurred_out_of_focus_are_found_and_never_read_wrong() {
    use opencv::imgproc;
    let samples = require_data(wicht(), "wicht-v2-train", 159);
    let mut pipeline = pipeline();
    let (mut solved, mut none) = (0, 0);
    for sample in &samples {
        let image = photo::load_image(&sample.path).unwrap();
        let sigma = 2.5 * image.cols().max(image.rows()) as f64 / 640.0;
        let mut blurred = core::Mat::default();
        imgproc::gaussian_blur_def(&image, &mut blurred, core::Size::new(0, 0), sigma).unwrap();
        let Some(puzzle) = pipeline
            .process(&blurred, &mut StageTimes::default())
            .unwrap()
        else {
            none += 1;
            continue;
        };
        let Some(solution) = puzzle.solution else {
            continue;
        };
        for (cell, truth) in sample.cells.iter().enumerate() {
            if let Truth::Digit(d) = truth {
                assert_eq!(
                    solution.0[cell],
                    *d,
                    "{}: cell {cell}",
                    sample.path.display()
                );
            }
        }
        solved += 1;
    }
    println!(
        "blurred pages: {solved} of {} solved right, {none} with no grid found",
        samples.len()
    );
    // Measured: 149 of 160 solved, 11 with no grid (session 56, cell lines faded by the blur
    // taken where they show well above the middles; 145 and 15 before, 139 and 21 before the
    // fainter look).
    assert!(solved >= 140, "only {solved} of {} solved", samples.len());
}

/// `image` with Gaussian noise of `sigma` gray levels on each colour (seeded), saved as a
/// JPEG of `quality`: a phone's photo in poor light, as a messaging app passes it on.
fn grainy(image: &core::Mat, sigma: f64, quality: i32, seed: i32) -> core::Mat {
    use opencv::core::Scalar;
    let mut noise =
        core::Mat::new_size_with_default(image.size().unwrap(), core::CV_32FC3, Scalar::all(0.0))
            .unwrap();
    core::set_rng_seed(seed).unwrap();
    core::randn(&mut noise, &Scalar::all(0.0), &Scalar::all(sigma)).unwrap();
    let mut noisy = core::Mat::default();
    core::add(image, &noise, &mut noisy, &core::no_array(), core::CV_8UC3).unwrap();
    common::as_jpeg(&noisy, quality)
}

/// Grainy photos: the grain counted as ink in the cells' middles and the grid check took the
/// grid for none. A small one saved as a rough JPEG keeps its grain only in blotches (noise
/// 9-10 gray levels measured at full size, 12-13 at half size), a large one in every pixel
/// (26-28): each is smoothed at its grain's scale before the search (`photo::picture_gray`).
#[test]
fn grainy_photos_are_found_and_never_read_wrong() {
    let wicht = require_data(wicht(), "wicht-v2-train", 159);
    let kubiesa = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let mut solved = |samples: Vec<&common::Sample>, quality: i32| {
        let mut right = 0;
        for (k, sample) in samples.iter().enumerate() {
            let image = photo::load_image(&sample.path).unwrap();
            let noisy = grainy(&image, 40.0, quality, k as i32 + 1);
            let case = format!("{} grainy", sample.path.display());
            right += usize::from(solved_right(&mut pipeline, &noisy, sample, &case).is_some());
        }
        right
    };
    let small = solved(wicht.iter().step_by(4).collect(), 30);
    let large = solved(kubiesa.iter().step_by(8).collect(), 60);
    println!(
        "grainy: newspaper pages, JPEG 30: {small} of 40 solved; phone photos, JPEG 60: {large} of 10"
    );
    // Measured: 27 of 40 (9 before the coarse grain was smoothed, session 73) and 10 of 10.
    assert!(small >= 24, "newspaper pages: only {small} of 40 solved");
    assert!(large >= 9, "phone photos: only {large} of 10 solved");
}

/// Puzzles printed in coloured ink: every 4th Wicht page printed in green (`common::in_green`:
/// its green channel set to 204 of 255 throughout, black ink at 132 of 255 in gray). In gray the digits were faint; a picture not solved so is
/// read again in its darkest colour (`photo::PhotoPipeline::process`).
#[test]
fn a_puzzle_printed_in_green_is_read_in_its_darkest_colour() {
    let samples = require_data(wicht(), "wicht-v2-train", 159);
    let mut pipeline = pipeline();
    let mut right = 0;
    let some: Vec<_> = samples.iter().step_by(4).collect();
    for sample in &some {
        let image = photo::load_image(&sample.path).unwrap();
        let printed_green = common::in_green(&image).unwrap();
        let case = format!("{} in green", sample.path.display());
        right += usize::from(solved_right(&mut pipeline, &printed_green, sample, &case).is_some());
    }
    println!("printed in green: {right} of {} solved", some.len());
    // Measured: 39 of 40 (28 in gray alone, session 73).
    assert!(right >= 36, "only {right} of {} solved", some.len());
}

#[test]
fn kubiesa_phone_photos_floor() {
    let samples = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let samples: Vec<_> = samples.iter().collect();
    let score = evaluate(&mut pipeline(), &samples);
    println!("{}", score.summary("kubiesa"));
    // Every photo holds a whole grid; the target is 99.5% of cells (measured 99.75%).
    assert!(score.found >= 80, "{}", score.summary("kubiesa"));
    assert!(
        score.cell_accuracy() >= 0.995,
        "{}",
        score.summary("kubiesa")
    );
    assert!(
        score.pencil_right == score.pencil,
        "pencil marks must read as empty: {}",
        score.summary("kubiesa")
    );
    assert!(
        score.digits_right as f64 >= 0.99 * score.digits as f64,
        "{}",
        score.summary("kubiesa")
    );
    // Solutions come from the printed clues, so misread handwriting does not stop them.
    assert!(score.solved >= 77, "{}", score.summary("kubiesa"));
    // These puzzles were filled in by hand: a good share of digits must read as handwritten.
    assert!(
        score.handwritten * 4 >= score.digits,
        "{}",
        score.summary("kubiesa")
    );
    // "Check my work" must not accuse right answers.
    assert!(score.false_alarms <= 2, "{}", score.summary("kubiesa"));
    // The truth distinguishes pencil marks; make sure the set really has them.
    assert!(
        samples
            .iter()
            .any(|s| s.cells.contains(&Truth::PencilMarks))
    );
}

#[test]
fn photos_without_a_sudoku_give_no_puzzle() {
    // Kubiesa's cell crops are photos of single cells: no 9x9 grid in them.
    let dir = common::data_dir().join("kubiesa/cells-train/5");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("kubiesa cells")
        .flatten()
        .take(5)
        .collect();
    assert_eq!(files.len(), 5);
    let mut pipeline = pipeline();
    for entry in files {
        let image = photo::load_image(&entry.path()).unwrap();
        let found = pipeline
            .process(&image, &mut StageTimes::default())
            .unwrap();
        assert!(found.is_none(), "{}: {found:?}", entry.path().display());
    }
}

/// The page beside a newspaper's puzzle: from each Wicht photo, the widest strip between the
/// grid's published outline and the photo's edge, if 150 px or wider (text, headlines, a
/// photo, another day's solution grid). A grid found there must add up (yesterday's solution
/// printed whole is one): small outlines in the text had passed the grid check and were
/// reported as `invalid` or `multiple` puzzles, 4 of 47 strips of the first 60 photos
/// (session 40; borderless candidates in 17 more before that session's lattice test).
#[test]
fn the_page_beside_a_puzzle_gives_no_puzzle() {
    use opencv::core::Rect;
    let wicht = require_data(common::wicht(), "wicht", 160);
    let mut pipeline = pipeline();
    let (mut strips, mut reported) = (0, Vec::new());
    for sample in wicht.iter().take(60) {
        let Some(corners) = sample.corners else {
            continue;
        };
        let photo = photo::load_image(&sample.path).unwrap();
        let (w, h) = (photo.cols(), photo.rows());
        let xs = corners.0.map(|p| p[0]);
        let ys = corners.0.map(|p| p[1]);
        let min = |v: [f64; 4]| v.iter().copied().fold(f64::MAX, f64::min) as i32 - 5;
        let max = |v: [f64; 4]| v.iter().copied().fold(f64::MIN, f64::max) as i32 + 5;
        let beside = [
            Rect::new(0, 0, min(xs), h),
            Rect::new(max(xs), 0, w - max(xs), h),
            Rect::new(0, 0, w, min(ys)),
            Rect::new(0, max(ys), w, h - max(ys)),
        ];
        let widest = beside
            .into_iter()
            .max_by_key(|r| if r.width == w { r.height } else { r.width })
            .unwrap();
        if widest.width.min(widest.height) < 150 {
            continue;
        }
        strips += 1;
        let strip = opencv::core::Mat::roi(&photo, widest)
            .unwrap()
            .try_clone()
            .unwrap();
        let found = pipeline
            .process_all(&strip, &mut StageTimes::default())
            .unwrap();
        for puzzle in found.iter().filter(|p| p.solution.is_none()) {
            reported.push(format!("{}: {:?}", sample.path.display(), puzzle.status));
        }
    }
    println!("the page beside the puzzle: {strips} strips, reported {reported:?}");
    assert!(strips >= 40, "{strips} strips");
    assert!(reported.is_empty(), "{reported:?}");
}

/// A puzzle held far from the camera: every fourth of Kubiesa's photos shrunk so that its grid
/// (by the published corners) is 180 px across (20 px cells), laid on a gray 1920x1080 picture.
/// A puzzle solved must be where the published corners, shrunk and moved alike, put it (within
/// 3% of the side) with the solution the truth's; none may be drawn anywhere else.
#[test]
fn puzzles_held_far_from_the_camera_are_found() {
    let all = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let (mut found, mut right, mut wrong) = (0, 0, Vec::new());
    let samples: Vec<_> = all
        .iter()
        .filter(|s| s.corners.is_some())
        .step_by(4)
        .collect();
    for sample in &samples {
        let (frame, expected) = common::far_away(sample, 180.0);
        let Some(puzzle) = pipeline
            .process(&frame, &mut StageTimes::default())
            .unwrap()
        else {
            continue;
        };
        found += 1;
        let off = puzzle.quad.max_corner_distance(&expected) / expected.mean_side();
        // Kubiesa's grids are all filled in rightly by hand: every digit in the truth is the
        // solution's.
        let agrees = puzzle.solution.is_some_and(|solution| {
            sample.cells.iter().zip(solution.0).all(|(t, d)| match t {
                Truth::Digit(digit) => *digit == d,
                _ => true,
            })
        });
        match (puzzle.status, off < 0.03 && agrees) {
            (Status::Solved, true) => right += 1,
            (Status::Solved, false) => wrong.push(format!(
                "{}: solved, corners {:.1}% off, solution agrees with the truth: {agrees}",
                sample.path.display(),
                100.0 * off
            )),
            _ => {}
        }
    }
    println!(
        "far from the camera: {found} of {} found, {right} solved where they are",
        samples.len()
    );
    // Measured: 20 of 20 (7 before the finer search, following the lines until settled and the
    // second look when the first grid does not add up, or since session 56 adds up off the
    // print: with a border rule tried then, `02_10_honor_view_10_0`, outlined with a corner 1.9
    // cells out, was solved with it 0.6 of a cell out, which counts as wrong here).
    assert!(wrong.is_empty(), "drawn in the wrong place: {wrong:?}");
    assert!(
        right >= 19,
        "{right} of {} solved where they are",
        samples.len()
    );
}

/// A whole photo so small that its grid is 125 or 140 pixels across (cells of 14-16 px; a
/// thumbnail, a picture sent shrunk), saved as JPEG 75: all 239 dataset photos with a solution.
/// Digits this small read surely and wrong now and then, and the puzzle may still have one
/// solution: a photo's reading that solves as read is taken only when no other puzzle is half as
/// likely. Before (session 84), `image90` at 125 px and `image44` at 140 px were solved wrong
/// (a 3 read as a 2, the other puzzle 0.40-0.45 nats behind).
#[test]
fn a_photo_too_small_to_read_surely_gets_no_wrong_solution() {
    let wicht = require_data(wicht(), "wicht", 160);
    let kubiesa = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let all: Vec<_> = wicht.iter().chain(&kubiesa).collect();
    let mut pipeline = pipeline();
    let mut right = 0;
    for side in [125.0, 140.0] {
        let shrink = |image: &core::Mat, corners: &sudoku_ar::geometry::Quad, _: usize| {
            common::as_jpeg(&common::resized(image, side / corners.mean_side()), 75)
        };
        let outcomes = common::cover::solve_covered(&mut pipeline, &all, shrink);
        println!(
            "grid {side} px across: {} photos, right {}, none {}, wrong {:?}",
            outcomes.photos, outcomes.right, outcomes.none, outcomes.wrong
        );
        assert!(outcomes.wrong.is_empty(), "{side} px: {:?}", outcomes.wrong);
        right += outcomes.right;
    }
    // Measured: 201 and 228 of 239 (202 and 229 before, with the 2 wrong).
    assert!(right >= 410, "{right} of 478 solved");
}

/// A newspaper prints the crossword beside the Sudoku: every eighth Kubiesa photo, its grid 360
/// pixels across, with a larger crossword (15, 13 or 17 squares a side, 520 pixels) printed to
/// its left. The crossword's lines near ninths of its side made it pass for a grid, and being
/// the larger it was searched first: the puzzle read was the crossword's (its clue numbers read
/// as digits, `invalid`), and in a video the Sudoku beside it was only read once the crossword
/// left the frame.
#[test]
fn a_crossword_printed_beside_the_puzzle_is_passed_over() {
    let all = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let samples: Vec<_> = all
        .iter()
        .filter(|s| s.corners.is_some())
        .step_by(8)
        .collect();
    let (mut right, mut wrong) = (0, Vec::new());
    for (k, sample) in samples.iter().enumerate() {
        let (mut frame, expected) = common::far_away(sample, 360.0);
        common::draw_crossword(&mut frame, [100, 240], 520, [15, 13, 17][k % 3]);
        let puzzle = pipeline
            .process(&frame, &mut StageTimes::default())
            .unwrap();
        let name = sample.path.display();
        let Some(puzzle) = puzzle else {
            wrong.push(format!("{name}: no grid found"));
            continue;
        };
        let off = puzzle.quad.max_corner_distance(&expected) / expected.mean_side();
        match puzzle.status {
            Status::Solved if off < 0.03 => right += 1,
            status => wrong.push(format!("{name}: {status:?}, {:.1}% off", 100.0 * off)),
        }
    }
    println!(
        "beside a crossword: {right} of {} solved where they are",
        samples.len()
    );
    // Measured: 10 of 10 (7 before: three had the crossword read instead).
    assert!(right >= 9, "{right} of {}: {wrong:?}", samples.len());
}

/// A newspaper page photographed whole by a 12- or 5-megapixel phone: the puzzle 250 or 350 px
/// across in a 4032x3024 picture full of text, 220 in a 2592x1944 one. Shrunk for the first two
/// searches, its thin lines were lost, and it was outlined too small for them anyway (none found
/// before session 35).
#[test]
fn a_puzzle_small_in_a_large_photo_is_found() {
    use opencv::{core::Point, core::Scalar, imgproc};
    let all = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let samples: Vec<_> = all
        .iter()
        .filter(|s| s.corners.is_some())
        .skip(3)
        .step_by(8)
        .collect();
    let page_of = |width: i32, height: i32| {
        let mut page =
            core::Mat::new_rows_cols_with_default(height, width, core::CV_8UC3, Scalar::all(190.0))
                .unwrap();
        for y in (40..height).step_by(36) {
            let line = "the council said markets weather league report city new year ".repeat(3);
            let (font, ink) = (imgproc::FONT_HERSHEY_SIMPLEX, Scalar::all(40.0));
            let at = Point::new(20, y);
            imgproc::put_text(
                &mut page,
                &line,
                at,
                font,
                0.9,
                ink,
                2,
                imgproc::LINE_8,
                false,
            )
            .unwrap();
        }
        page
    };
    let mut pipeline = pipeline();
    let (mut right, mut wrong) = (0, Vec::new());
    // 12 and 5 megapixels.
    let cases = [
        ((4032, 3024), 250.0),
        ((4032, 3024), 350.0),
        ((2592, 1944), 220.0),
    ];
    for ((width, height), side) in cases {
        let page = page_of(width, height);
        for sample in &samples {
            let at = (width / 2 - 200, height / 2 - 300);
            let (photo, expected) = common::far_away_on(sample, side, page.clone(), at);
            let puzzle = pipeline
                .process(&photo, &mut StageTimes::default())
                .unwrap();
            let name = format!("{} at {side} px", sample.path.display());
            let Some(puzzle) = puzzle else {
                wrong.push(format!("{name}: not found"));
                continue;
            };
            let off = puzzle.quad.max_corner_distance(&expected) / expected.mean_side();
            match (puzzle.solution.is_some(), puzzle.off_print) {
                (true, false) if off < 0.03 => right += 1,
                (true, false) => panic!("{name}: drawn {:.1}% off", 100.0 * off),
                _ => wrong.push(format!(
                    "{name}: {:?}, {:.1}% off",
                    puzzle.status,
                    100.0 * off
                )),
            }
        }
    }
    let total = cases.len() * samples.len();
    println!("small in a large photo: {right} of {total} solved in place: {wrong:?}");
    // Two such puzzles on the page: the second is looked for as finely as the first was found.
    let pair: Vec<_> = ["01_11_iphone_14_1.jpg", "02_02_iphone_14_1.jpg"]
        .iter()
        .filter_map(|name| all.iter().find(|s| s.path.ends_with(name)))
        .collect();
    let (photo, first) = common::far_away_on(pair[0], 350.0, page_of(4032, 3024), (900, 1000));
    let (photo, second) = common::far_away_on(pair[1], 350.0, photo, (2300, 1100));
    let puzzles = pipeline
        .process_all(&photo, &mut StageTimes::default())
        .unwrap();
    let solved: Vec<f64> = puzzles
        .iter()
        .filter(|p| p.solution.is_some())
        .map(|p| common::off_nearest(&p.quad, &[first, second]))
        .collect();
    // Measured: both, 0.5% off (before: the first alone).
    assert!(
        solved.len() == 2 && solved.iter().all(|&off| off < 0.03),
        "{solved:?}"
    );
    // Measured: 26 of 30, 0 drawn off (not found: a shadow over one page's bottom-left corner,
    // and one page's faint lines, at 220-250 px).
    assert!(right + 6 >= total, "{right} of {total}: {wrong:?}");
}

/// Several real puzzles in one picture (a puzzle book's page): every one is found, solved and
/// placed on its own grid. Before session 35 only the first (the largest) was read.
#[test]
fn every_puzzle_in_a_picture_is_solved_where_it_is() {
    let all = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let samples: Vec<_> = all
        .iter()
        .filter(|s| s.corners.is_some())
        .step_by(10)
        .collect();
    let mut pipeline = pipeline();
    let (mut right, mut total, mut elsewhere) = (0, 0, Vec::new());
    for (group, per_row, side) in [(&samples[..4], 2, 320.0), (&samples[4..], 3, 260.0)] {
        let (picture, truth) = common::puzzles_together(group, side, per_row);
        let puzzles = pipeline
            .process_all(&picture, &mut StageTimes::default())
            .unwrap();
        total += truth.len();
        for puzzle in puzzles.iter().filter(|p| p.solution.is_some()) {
            let nearest = common::off_nearest(&puzzle.quad, &truth);
            if nearest < 0.03 {
                right += 1;
            } else {
                elsewhere.push(format!("{:.1}% off", 100.0 * nearest));
            }
        }
    }
    println!("several in a picture: {right} of {total} solved where they are");
    // Measured: 8 of 8.
    assert!(elsewhere.is_empty(), "solved off its grid: {elsewhere:?}");
    assert!(
        right + 1 >= total,
        "{right} of {total} solved where they are"
    );
}

/// The largest grid in a picture may read as no puzzle (here its digits are wiped off); a solved
/// puzzle beside it is reported first (`puzzle` in the JSON), the grid after.
#[test]
fn a_solved_puzzle_comes_before_a_larger_grid_that_reads_as_none() {
    use opencv::core::{Point, Scalar, Vector};
    use sudoku_ar::geometry::{Homography, Quad};
    let all = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let with_corners: Vec<_> = all.iter().filter(|s| s.corners.is_some()).collect();
    let frame =
        core::Mat::new_rows_cols_with_default(1080, 1920, core::CV_8UC3, Scalar::all(110.0))
            .unwrap();
    let (frame, wiped) = common::far_away_on(with_corners[0], 420.0, frame, (20, 20));
    let (mut frame, solved) = common::far_away_on(with_corners[40], 300.0, frame, (1000, 300));
    // Paper over the middle of every cell of the larger grid: its lines stay, its digits go.
    let image_from_grid = Homography::from_quads(&Quad::UNIT, &wiped).unwrap();
    for cell in 0..81 {
        let (x, y) = ((cell % 9) as f64 / 9.0, (cell / 9) as f64 / 9.0);
        let middle = Quad([
            [x, y],
            [x + 1.0 / 9.0, y],
            [x + 1.0 / 9.0, y + 1.0 / 9.0],
            [x, y + 1.0 / 9.0],
        ]);
        let points: Vector<Point> = middle
            .grown(-0.2)
            .0
            .iter()
            .map(|&p| image_from_grid.apply(p))
            .map(|[x, y]| Point::new(x.round() as i32, y.round() as i32))
            .collect();
        let paper = Scalar::all(225.0);
        opencv::imgproc::fill_convex_poly(&mut frame, &points, paper, opencv::imgproc::LINE_8, 0)
            .unwrap();
    }
    let puzzles = pipeline()
        .process_all(&frame, &mut StageTimes::default())
        .unwrap();
    let first = puzzles.first().expect("a puzzle");
    assert!(first.solution.is_some(), "first: {:?}", first.status);
    let off = common::off_nearest(&first.quad, &[solved]);
    assert!(
        off < 0.03,
        "the solved puzzle drawn {:.1}% off",
        100.0 * off
    );
    // The wiped grid, if reported, comes after it, unsolved.
    assert!(puzzles[1..].iter().all(|p| p.solution.is_none()));
}

/// Small, soft photos (640x480) of a newspaper page with a crossword of 17 or 21 squares printed
/// beside a smaller Sudoku (`tests/photos/crossword_beside_*.jpg`, rendered by the script there,
/// truth from the renderer). Outlined askew (a black square cut its corner short), the
/// crossword's lines crossed the cells at a slant, along no whole row, and it passed for the
/// grid: the page was read as the crossword (`multiple`).
#[test]
fn a_small_photo_of_a_crossword_beside_the_puzzle_is_read_right() {
    #[derive(serde::Deserialize)]
    struct PageTruth {
        solution: String,
        corners: [[f64; 2]; 4],
    }
    let mut pipeline = pipeline();
    for squares in [17, 21] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/photos");
        let path = dir.join(format!("crossword_beside_{squares}.jpg"));
        let text = std::fs::read_to_string(path.with_extension("truth.json")).unwrap();
        let truth: PageTruth = serde_json::from_str(&text).unwrap();
        let photo = photo::load_image(&path).unwrap();
        let puzzle = pipeline
            .process(&photo, &mut StageTimes::default())
            .unwrap()
            .unwrap_or_else(|| panic!("{}: no grid found", path.display()));
        let solution: String = puzzle
            .solution
            .map(|s| s.0.iter().map(|d| char::from(b'0' + d)).collect())
            .unwrap_or_default();
        assert_eq!(
            solution,
            truth.solution,
            "{}: {:?}",
            path.display(),
            puzzle.status
        );
        let corners = sudoku_ar::geometry::Quad(truth.corners);
        let off = puzzle.quad.max_corner_distance(&corners) / corners.mean_side();
        assert!(off < 0.015, "{}: {:.2}% off", path.display(), 100.0 * off);
    }
}

/// The first puzzle in `image` (a warped copy of `sample`'s photo), when solved (else None,
/// said why); its solution must agree with every printed digit of `sample`.
fn solved_right(
    pipeline: &mut photo::PhotoPipeline,
    image: &core::Mat,
    sample: &common::Sample,
    case: &str,
) -> Option<photo::Puzzle> {
    let puzzle = match pipeline.process(image, &mut StageTimes::default()) {
        Ok(Some(puzzle)) => puzzle,
        Ok(None) => {
            println!("{case}: no grid found");
            return None;
        }
        Err(err @ sudoku_ar::Error::TooDark) => {
            println!("{case}: {err}");
            return None;
        }
        Err(err) => panic!("{case}: {err}"),
    };
    let Some(solution) = puzzle.solution else {
        println!("{case}: {:?}", puzzle.status);
        return None;
    };
    for (cell, truth) in sample.cells.iter().enumerate() {
        if let Truth::Digit(d) = truth {
            assert_eq!(solution.0[cell], *d, "{case}: cell {cell}");
        }
    }
    Some(puzzle)
}

/// Real pages folded along a line across the grid (see [`common::curved::Gutter::folded`]): one
/// side tilted 19 degrees towards or away from the camera, lit differently, and a crease (a
/// line a tenth of a cell wide, a fifth darker) running across the whole photo. The crease
/// joins the grid's outline to the photo's edges: before, that outline's hull was taken for the
/// grid (framing it at 0.38-0.40, above the 0.3 a grid needs), and 11 of 20 were not solved;
/// now each solid part of such a spiky outline competes with its hull (`detect::SPIKY`). A
/// digit drawn must lie near the middle of its printed cell, which the fold's own geometry
/// gives.
#[test]
fn a_folded_page_with_a_crease_is_read_and_drawn_in_its_cells_or_not_at_all() {
    use common::curved::{Gutter, MovedPage};
    let kubiesa = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let (mut cases, mut right, mut drawn, mut worst_drawn) = (0, 0, 0, 0.0f64);
    for (k, sample) in kubiesa.iter().enumerate().step_by(4) {
        let corners = sample.corners.expect("published corners");
        let photo = photo::load_image(&sample.path).unwrap();
        let (turn, at) = ((k / 4) % 4, [0.5, 0.35, 0.65, 0.45][(k / 16) % 4]);
        let (tilt, light) = if k % 8 == 0 {
            (-0.35, 1.1)
        } else {
            (0.35, 0.85)
        };
        let fold = Gutter::folded(&corners, turn, at, tilt, light);
        let case = format!(
            "{} folded at {at} from side {turn}, tilted {tilt}",
            sample.path.display()
        );
        cases += 1;
        let Some(puzzle) = solved_right(&mut pipeline, &fold.apply(&photo), sample, &case) else {
            continue;
        };
        right += 1;
        let worst = fold.worst_cell_drawn(&puzzle);
        println!(
            "{case}: solved, cells at most {worst:.2} of a cell off, drawn {}",
            !puzzle.off_print
        );
        if !puzzle.off_print {
            drawn += 1;
            worst_drawn = worst_drawn.max(worst);
        }
    }
    println!(
        "folded pages: {right} of {cases} solved, {drawn} drawn, at most {worst_drawn:.2} of a cell off"
    );
    assert!(
        worst_drawn < 0.3,
        "a cell drawn {worst_drawn:.2} of a cell off"
    );
    assert!(right >= 18, "only {right} of {cases} folded pages solved");
}

/// Every Kubiesa photo with a dark pen lying on the page, its tip 2.5 or 4.5 cells inside the
/// grid, a third or 0.6 of a cell wide, coming in over one side. The pen hides the digits under
/// it and cuts others so that they look like other digits (a 9 cut as a 1), and shows no gap in
/// the lines it lies over, as a finger does: it is found as something dark broader than any
/// print (`occlusion`), and the cells under it are read as hidden. Measured: 99 of 160 solved,
/// none wrong; before the cells under it were hidden (session 36), 115 solved and 3 wrong.
#[test]
fn a_pen_lying_across_the_grid_never_gives_a_wrong_solution() {
    use sudoku_ar::geometry::{Homography, Quad};
    let kubiesa = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let (mut cases, mut right, mut wrong) = (0, 0, Vec::new());
    for (k, sample) in kubiesa.iter().enumerate() {
        let corners = sample.corners.expect("published corners");
        let photo = photo::load_image(&sample.path).unwrap();
        let image_from_grid = Homography::from_quads(&Quad::UNIT, &corners).unwrap();
        for (width, depth) in [(1.0 / 3.0, 2.5), (0.6, 4.5)] {
            // Along side k % 4, somewhere along it; the pen leaves at a slant.
            let along = 0.2 + 0.6 * ((k * 37) % 100) as f64 / 100.0;
            let slant = 0.4 * (((k * 53) % 100) as f64 / 50.0 - 1.0);
            let (inside, tip, end) = (depth / 9.0, along, along + slant);
            let (tip, end) = match k % 4 {
                0 => ([tip, inside], [end, -1.2]),
                1 => ([1.0 - inside, tip], [2.2, end]),
                2 => ([tip, 1.0 - inside], [end, 2.2]),
                _ => ([inside, tip], [-1.2, end]),
            };
            let point = |p: [f64; 2]| {
                let [x, y] = image_from_grid.apply(p);
                core::Point::new(x.round() as i32, y.round() as i32)
            };
            let mut with_pen = photo.clone();
            let thickness = (width * corners.mean_side() / 9.0).round() as i32;
            opencv::imgproc::line(
                &mut with_pen,
                point(tip),
                point(end),
                core::Scalar::new(90.0, 30.0, 25.0, 0.0),
                thickness,
                opencv::imgproc::LINE_AA,
                0,
            )
            .unwrap();
            cases += 1;
            let Some(puzzle) = pipeline
                .process(&with_pen, &mut StageTimes::default())
                .unwrap()
            else {
                continue;
            };
            let Some(solution) = puzzle.solution else {
                continue;
            };
            let agrees = sample
                .cells
                .iter()
                .enumerate()
                .all(|(cell, truth)| match truth {
                    Truth::Digit(d) => solution.0[cell] == *d,
                    _ => true,
                });
            if agrees {
                right += 1;
            } else {
                wrong.push(format!("{} pen {width:.2} wide", sample.path.display()));
            }
        }
    }
    println!("pen across the grid: {right} of {cases} solved, wrong {wrong:?}");
    assert!(wrong.is_empty(), "wrong solutions: {wrong:?}");
    assert!(right >= 95, "only {right} of {cases} solved");
}

/// Real pages curling into a book's gutter beside one border (see [`common::curved::Gutter`]),
/// by 0.15 and 0.25 of the grid's side at the spine: the cells narrow towards the gutter and
/// the lines across it bow. Each digit drawn must lie near the middle of its printed cell, which
/// the curl's own geometry gives. Before, 01_28 curled 0.25 on its bottom side had a row drawn
/// 0.41 of a cell off (the outline's corner kept on a border the lines did not see, and the
/// corners' homography, which cannot bend), 01_31 on the same side 0.34: now drawn along the
/// lines followed, within 0.14, because drawn by the outline they lie off the print.
#[test]
fn a_page_curling_into_a_books_gutter_is_drawn_in_its_cells_or_not_at_all() {
    let names = ["01_28_iphone_14_1.jpg", "01_31_iphone_14_0.jpg"];
    let curled = curled_into_a_gutter(&names, &[0.15, 0.25]);
    println!(
        "curled pages: {} of {} drawn, at most {:.2} of a cell off",
        curled.drawn, curled.cases, curled.worst_drawn
    );
    // Measured: 16 of 16 drawn, 0.25 at most (01_31 curled 0.15 on its left side); 15 before
    // the grid check looked for lines run smoothly off their ninths (session 41). Session 50:
    // 15 of 16, at most 0.17. Session 54: the same; 01_28 curled 0.25 on its right side, its
    // bottom-left corner now refined right, was drawn flat with rows 0.31 of a cell off (the
    // lines followed disputed its corners) until such a grid had to show every box on.
    assert!(
        curled.worst_drawn < 0.27,
        "a cell drawn {:.2} of a cell off",
        curled.worst_drawn
    );
    assert!(
        curled.drawn >= 12,
        "only {} of 16 curled pages drawn",
        curled.drawn
    );
}

/// The same pages curled harder, by 0.35 of the grid's side at the spine: the rows or columns
/// beside the gutter narrow to two thirds, and the lines inside run up to a third of a cell off
/// where the corners' homography puts them. Before the grid check looked for lines run smoothly
/// off their ninths, most such grids were not found at all.
#[test]
fn a_page_curled_hard_into_a_books_gutter_is_found_and_drawn_in_its_cells_or_not_at_all() {
    let names = [
        "01_28_iphone_14_1.jpg",
        "01_31_iphone_14_0.jpg",
        "02_02_honor_view_10_0.jpg",
    ];
    let curled = curled_into_a_gutter(&names, &[0.35]);
    println!(
        "pages curled hard: {} of {} solved, {} drawn, at most {:.2} of a cell off",
        curled.solved, curled.cases, curled.drawn, curled.worst_drawn
    );
    // Measured: 9 of 12 solved, 8 drawn, at most 0.18 of a cell off (session 54: with a refined
    // corner not taken where the border runs on beyond it, 01_31 on its top side is no longer
    // found, on its left side solved and drawn instead of judged invalid, and on its right
    // side withheld, 0.43 of a cell off). 9 and 9 in session 50; 8 and 7
    // before the lines followed again had to show as clearly as the first ones (and 6 and 6
    // in between, session 49: the margin's paper in view, the corners moved out onto the
    // border bowing beyond them and the lines followed again from there onto the digits); 1
    // solved before session 41; 4 drawn before session 42 followed the lines along their curve.
    assert!(
        curled.worst_drawn < 0.3,
        "a cell drawn {:.2} of a cell off",
        curled.worst_drawn
    );
    assert!(curled.solved >= 8, "only {} of 12 solved", curled.solved);
    assert!(curled.drawn >= 8, "only {} of 12 drawn", curled.drawn);
}

/// Real pages lifted at one side, their lines up to half a cell off the corners' homography
/// and the last column narrowed to a third of a cell (see [`common::curved::Lifted`]). The
/// border there was taken for one not seen, and the lines followed from a cell further out saw
/// a "border" at the paper's edge: `01_15_iphone_14_1` lifted 62 degrees at its right was
/// solved with its last column beyond the grid (0.56 of a cell off; `01_25_honor_view_10_0`
/// at 64 degrees 0.42), withheld from the overlay by the on-print check only. Cells added
/// beyond an unseen border must now be ruled.
#[test]
fn a_page_lifted_at_one_side_is_never_read_beyond_its_border() {
    use common::curved::{Lifted, MovedPage};
    let kubiesa = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let (mut cases, mut drawn) = (0, 0);
    let (mut worst_solved, mut worst_drawn) = (0.0f64, 0.0f64);
    for name in [
        "01_15_iphone_14_1.jpg",
        "01_25_honor_view_10_0.jpg",
        "02_07_iphone_14_0.jpg",
    ] {
        let (sample, corners, photo) = kubiesa_page(&kubiesa, name);
        for side in [0, 1] {
            for steepest in [55.0, 62.0, 64.0] {
                cases += 1;
                let lifted = Lifted::new(&corners, side, steepest);
                let case = format!("{name} lifted {steepest} degrees on side {side}");
                let Some(puzzle) =
                    solved_right(&mut pipeline, &lifted.apply(&photo), sample, &case)
                else {
                    continue;
                };
                let worst = lifted.worst_cell_drawn(&puzzle);
                println!(
                    "{case}: cells at most {worst:.2} of a cell off, drawn {}",
                    !puzzle.off_print
                );
                worst_solved = worst_solved.max(worst);
                if !puzzle.off_print {
                    drawn += 1;
                    worst_drawn = worst_drawn.max(worst);
                }
            }
        }
    }
    println!(
        "pages lifted: {drawn} of {cases} drawn, at most {worst_drawn:.2} of a cell off \
         ({worst_solved:.2} solved)"
    );
    // Measured: 7 of 18 drawn, at most 0.15 of a cell off; solved at most 0.30 (0.56 before).
    // Before session 46 also 01_25_honor_view_10_0 lifted 62 and 64 degrees at its top, drawn
    // bent 0.29-0.30 of a cell off: now withheld, their boxes not all showing their lines.
    assert!(
        worst_solved < 0.4,
        "solved with a cell {worst_solved:.2} of a cell off"
    );
    assert!(
        worst_drawn < 0.2,
        "a cell drawn {worst_drawn:.2} of a cell off"
    );
    assert!(drawn >= 7, "only {drawn} of {cases} drawn");
}

/// Real pages bowed across one way by a third and a half of a cell (see
/// [`common::curved::Bowed`]): the lines running the other way, borders too, bulge alike
/// between the corners. A border bulging so was not seen where the corners put it, the lines
/// followed again from a cell further out found it bulging there, and took it for a border a
/// cell out: `01_06_honor_view_10_0` bowed 0.35 of a cell to the right had its last column
/// drawn beyond the grid, 0.71 of a cell off. Bowed half a cell, beyond the lines' reach, it and
/// `01_25_honor_view_10_0` were drawn bent with a side's boxes half a cell off (0.53, 0.59);
/// since session 51 the grid is checked and its lines are followed along the bow all of them
/// show together.
#[test]
fn a_page_bowed_across_is_drawn_in_its_cells_or_not_at_all() {
    use common::curved::{Bowed, MovedPage};
    let kubiesa = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let (mut cases, mut drawn, mut worst_drawn) = (0, 0, 0.0f64);
    for name in [
        "01_01_honor_view_10_0.jpg",
        "01_06_honor_view_10_0.jpg",
        "01_20_honor_view_10_0.jpg",
        "01_25_honor_view_10_0.jpg",
        "01_28_honor_view_10_0.jpg",
        "02_12_honor_view_10_0.jpg",
    ] {
        let (sample, corners, photo) = kubiesa_page(&kubiesa, name);
        for across in [0, 1] {
            for cells in [-0.5, -0.35, 0.35, 0.5] {
                cases += 1;
                let bowed = Bowed::new(&corners, across, cells);
                let case = format!("{name} bowed {cells} of a cell across {across}");
                let Some(puzzle) = solved_right(&mut pipeline, &bowed.apply(&photo), sample, &case)
                else {
                    continue;
                };
                let worst = bowed.worst_cell_drawn(&puzzle);
                println!(
                    "{case}: cells at most {worst:.2} of a cell off, drawn {}",
                    !puzzle.off_print
                );
                if !puzzle.off_print {
                    drawn += 1;
                    worst_drawn = worst_drawn.max(worst);
                }
            }
        }
    }
    println!("pages bowed: {drawn} of {cases} drawn, at most {worst_drawn:.2} of a cell off");
    // Measured: 47 of 48 drawn, at most 0.24 of a cell off (session 54, `01_20` added: 42 before
    // the print check looked between its offsets and a corner refined off its bowed border was
    // no longer taken). 37 of 40, at most 0.24, since session 51 checks the grid and
    // follows its lines along the bow they show together (29, at most 0.18, with the following
    // alone; 19, at most 0.25, before; 20, at most 0.71, before session 46).
    assert!(
        worst_drawn < 0.3,
        "a cell drawn {worst_drawn:.2} of a cell off"
    );
    assert!(drawn >= 44, "only {drawn} of {cases} drawn");
}

/// The Kubiesa sample named `name`, its published corners and its photo.
fn kubiesa_page<'a>(
    kubiesa: &'a [common::Sample],
    name: &str,
) -> (&'a common::Sample, sudoku_ar::geometry::Quad, core::Mat) {
    let sample = kubiesa
        .iter()
        .find(|s| s.path.ends_with(name))
        .unwrap_or_else(|| panic!("{name} missing"));
    let corners = sample.corners.expect("published corners");
    let photo = photo::load_image(&sample.path).unwrap();
    (sample, corners, photo)
}

/// Real pages curled into a book's gutter, as read: how many, solved right, drawn, and how far
/// (share of a cell) the worst cell drawn lies from its printed middle.
struct Curled {
    cases: usize,
    solved: usize,
    drawn: usize,
    worst_drawn: f64,
}

/// The Kubiesa photos `names` curled into a gutter on each side by each of `depths` (see
/// [`common::curved::Gutter`]), read by the photo pipeline.
fn curled_into_a_gutter(names: &[&str], depths: &[f64]) -> Curled {
    use common::curved::{Gutter, MovedPage};
    let kubiesa = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let mut curled = Curled {
        cases: 0,
        solved: 0,
        drawn: 0,
        worst_drawn: 0.0,
    };
    for name in names {
        let (sample, corners, photo) = kubiesa_page(&kubiesa, name);
        for turn in 0..4 {
            for &depth in depths {
                curled.cases += 1;
                let gutter = Gutter::new(&corners, turn, depth);
                let case = format!("{name} curled {depth} on side {turn}");
                let Some(puzzle) =
                    solved_right(&mut pipeline, &gutter.apply(&photo), sample, &case)
                else {
                    continue;
                };
                curled.solved += 1;
                let worst = gutter.worst_cell_drawn(&puzzle);
                println!(
                    "{case}: cells at most {worst:.2} of a cell off, drawn {}",
                    !puzzle.off_print
                );
                if !puzzle.off_print {
                    curled.drawn += 1;
                    curled.worst_drawn = curled.worst_drawn.max(worst);
                }
            }
        }
    }
    curled
}

/// Real photos cropped so that the picture's edge cuts the grid a third or two thirds of a cell
/// inside its border, on each side in turn. A grid drawn must have its cells where they are
/// printed, the cut column too (its corners beyond the picture, where the lines inside put
/// them): before, the outline along the cut was kept and the cut column was drawn squeezed into
/// what is left of it, a corner 0.3-0.6 of a cell off (9 of these 40 photos).
#[test]
fn a_grid_cut_by_the_photos_edge_is_drawn_in_its_cells_or_not_at_all() {
    let samples = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let (mut drawn, mut off_by_more) = (0, Vec::new());
    for (i, sample) in samples.iter().enumerate().step_by(2) {
        let corners = sample.corners.expect("published corners");
        let image = photo::load_image(&sample.path).unwrap();
        let (width, height) = (image.cols() as f64, image.rows() as f64);
        let cut = [0.3, 0.6][(i / 2) % 2] * corners.mean_side() / 9.0;
        let xs = corners.0.map(|p| p[0]);
        let ys = corners.0.map(|p| p[1]);
        let min = |v: [f64; 4]| v.into_iter().fold(f64::MAX, f64::min);
        let max = |v: [f64; 4]| v.into_iter().fold(f64::MIN, f64::max);
        let (mut x0, mut y0, mut x1, mut y1) = (0.0, 0.0, width, height);
        match (i / 4) % 4 {
            0 => x0 = min(xs) + cut,
            1 => x1 = max(xs) - cut,
            2 => y0 = min(ys) + cut,
            _ => y1 = max(ys) - cut,
        }
        let rect = core::Rect::new(x0 as i32, y0 as i32, (x1 - x0) as i32, (y1 - y0) as i32);
        let cropped = core::Mat::roi(&image, rect).unwrap().try_clone().unwrap();
        let case = format!(
            "{} cut {cut:.0} px on side {}",
            sample.path.display(),
            (i / 4) % 4
        );
        let Some(puzzle) = solved_right(&mut pipeline, &cropped, sample, &case) else {
            continue;
        };
        if puzzle.off_print {
            continue;
        }
        let truth = corners.translated(-(rect.x as f64), -(rect.y as f64));
        let cell = truth.mean_side() / 9.0;
        let off = puzzle.quad.turned_like(&truth).max_corner_distance(&truth) / cell;
        println!("{case}: drawn, a corner {off:.2} of a cell off");
        drawn += 1;
        if off > 0.27 {
            off_by_more.push(format!("{case}: {off:.2}"));
        }
    }
    println!(
        "cut grids: {drawn} of 40 drawn, {} with a corner over 0.27 of a cell off",
        off_by_more.len()
    );
    // Measured: 34 of 40 drawn (33 before session 49), all within 0.18 of a cell (the rest, cut
    // 0.6 of a cell inside, are not found). Before session 48, 30 drawn, 3 at 0.34-0.57: the
    // lines followed from the outline along the cut latched onto digits beside their places, or
    // a corner of the outline was kept on the cut. Drawn by the outline whatever the lines said (before session 37), 9 were
    // over 0.27.
    assert!(off_by_more.is_empty(), "drawn off: {off_by_more:?}");
    assert!(drawn >= 30, "only {drawn} of 40 drawn");
}

/// Real pages as a scanner or a cropping app leaves them: each of every fourth Kubiesa photo
/// (20) warped by its published corners onto a 900 px square, cropped 0.04-0.2 of a cell inside
/// the border line on each side, so that its cells run on to the picture's edges. Before session
/// 76, 10 of these 20 were solved (an outline through the page's digits and lines was taken,
/// or nothing found); the picture, framing the grid, is now taken as its outline: 18. The pages are
/// curved, so that the corners their published ones give are no truth to a tenth of a cell:
/// only the solution is checked.
#[test]
fn a_page_scanned_and_cropped_inside_its_border_is_read() {
    let samples = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let mut solved = 0;
    let side = 900.0;
    for (i, sample) in samples.iter().enumerate().step_by(4) {
        let corners = sample.corners.expect("published corners");
        let image = photo::load_image(&sample.path).unwrap();
        let cell = side / 9.0;
        let inset = |k: usize| (0.04 + 0.16 * ((i * 7 + k * 3) % 10) as f64 / 9.0) * cell;
        let (l, t, r, b) = (inset(0), inset(1), inset(2), inset(3));
        let square = sudoku_ar::geometry::Quad([
            [-l, -t],
            [side - 1.0 + r, -t],
            [side - 1.0 + r, side - 1.0 + b],
            [-l, side - 1.0 + b],
        ]);
        let scan_from_photo =
            sudoku_ar::geometry::Homography::from_quads(&corners, &square).expect("a homography");
        let size = core::Size::new(side as i32, side as i32);
        let scan = sudoku_ar::geometry::warp(&image, &scan_from_photo, size, true).unwrap();
        let case = format!(
            "{} cropped inside by {l:.0} {t:.0} {r:.0} {b:.0} px",
            sample.path.display()
        );
        if solved_right(&mut pipeline, &scan, sample, &case).is_some() {
            solved += 1;
        }
    }
    println!("pages scanned and cropped inside the border: {solved} of 20 solved");
    assert!(solved >= 17, "only {solved} of 20 solved");
}

/// `image` with the print washed out across `corners`' corner `at` (glare, or a sheen over a
/// fold): a soft-edged band beyond the line from `along_next` cells along the side to the next
/// corner to `along_previous` cells along the side to the previous one, blended nine tenths of
/// the way to white.
fn washed_out_corner(
    image: &core::Mat,
    corners: &sudoku_ar::geometry::Quad,
    at: usize,
    along_next: f64,
    along_previous: f64,
) -> core::Mat {
    use opencv::imgproc;
    let p = corners.0[at];
    let (next, previous) = (corners.0[(at + 1) % 4], corners.0[(at + 3) % 4]);
    let toward = |q: [f64; 2], cells: f64| {
        [
            p[0] + (q[0] - p[0]) * cells / 9.0,
            p[1] + (q[1] - p[1]) * cells / 9.0,
        ]
    };
    let (a, b) = (toward(next, along_next), toward(previous, along_previous));
    // Out beyond the corner, a cell or so, and wide enough to take in both borders there.
    let out = [
        p[0] + 0.8 * (p[0] - (a[0] + b[0]) / 2.0),
        p[1] + 0.8 * (p[1] - (a[1] + b[1]) / 2.0),
    ];
    let wide = [0.3 * (a[0] - b[0]), 0.3 * (a[1] - b[1])];
    let point = |q: [f64; 2]| core::Point::new(q[0].round() as i32, q[1].round() as i32);
    let band = core::Vector::<core::Point>::from_iter([
        point(a),
        point([out[0] + wide[0], out[1] + wide[1]]),
        point([out[0] - wide[0], out[1] - wide[1]]),
        point(b),
    ]);
    let mut mask = core::Mat::zeros(image.rows(), image.cols(), core::CV_32FC1)
        .unwrap()
        .to_mat()
        .unwrap();
    imgproc::fill_poly_def(
        &mut mask,
        &core::Vector::<core::Vector<core::Point>>::from_iter([band]),
        core::Scalar::all(0.9),
    )
    .unwrap();
    let soft = (0.15 * corners.mean_side() / 9.0).max(3.0);
    let mut weights = core::Mat::default();
    imgproc::gaussian_blur_def(&mask, &mut weights, core::Size::new(0, 0), soft).unwrap();
    common::cover::lifted(image, &weights)
}

/// Real photos with the print washed out across one corner of the grid, a cell or so along one
/// side and two to three along the other. The ink's outline then cuts across that corner, too
/// shallowly at times for the outline's first look, which put the corner where the cut begins:
/// on `01_31_iphone_14_0` washed out across the bottom-left corner, the grid was drawn with that
/// corner 0.69 of a cell up the left border, the last rows squeezed (session 47). A grid drawn
/// must have its corners within 0.3 of a cell of the published ones.
#[test]
fn a_grid_washed_out_across_a_corner_is_drawn_in_its_cells_or_not_at_all() {
    let samples = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let (mut drawn, mut off) = (0, Vec::new());
    for (k, sample) in samples.iter().step_by(2).enumerate() {
        let corners = sample.corners.expect("published corners");
        let image = photo::load_image(&sample.path).unwrap();
        let (short, long) = (0.8 + 0.1 * (k % 9) as f64, 1.8 + 0.15 * (k % 9) as f64);
        let (next, previous) = if k % 8 < 4 {
            (short, long)
        } else {
            (long, short)
        };
        let washed = washed_out_corner(&image, &corners, k % 4, next, previous);
        let case = format!("{} washed out at corner {}", sample.path.display(), k % 4);
        let Some(puzzle) = solved_right(&mut pipeline, &washed, sample, &case) else {
            continue;
        };
        if puzzle.off_print {
            continue;
        }
        let cell = corners.mean_side() / 9.0;
        let worst = puzzle
            .quad
            .turned_like(&corners)
            .max_corner_distance(&corners)
            / cell;
        println!("{case}: drawn, a corner {worst:.2} of a cell off");
        drawn += 1;
        if worst > 0.3 {
            off.push(format!("{case}: {worst:.2}"));
        }
    }
    println!("washed-out corners: {drawn} of 40 drawn, {} off", off.len());
    assert!(off.is_empty(), "drawn off: {off:?}");
    assert!(drawn >= 27, "only {drawn} of 40 drawn");
}

/// `photo` as a camera in a dim room takes it: its light scaled by `light` under a warm lamp
/// (blue 0.6, green 0.85, red 1.0), sensor noise of `noise` gray levels (a fixed sequence) and
/// JPEG at 85.
fn in_a_dim_room(photo: &core::Mat, light: f64, noise: f64, seed: u64) -> core::Mat {
    let mut dim = photo.try_clone().unwrap();
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let cast = [0.6, 0.85, 1.0];
    for (i, v) in dim.data_bytes_mut().unwrap().iter_mut().enumerate() {
        // The sum of three uniforms, centred: near enough a Gaussian of `noise` deviation.
        let n = (uniform() + uniform() + uniform() - 1.5) * 2.0 * noise;
        *v = (*v as f64 * light * cast[i % 3] + n)
            .round()
            .clamp(0.0, 255.0) as u8;
    }
    let mut jpeg = core::Vector::<u8>::new();
    let params = core::Vector::from_slice(&[opencv::imgcodecs::IMWRITE_JPEG_QUALITY, 85]);
    opencv::imgcodecs::imencode(".jpg", &dim, &mut jpeg, &params).unwrap();
    opencv::imgcodecs::imdecode(&jpeg, opencv::imgcodecs::IMREAD_COLOR).unwrap()
}

/// Every fourth Kubiesa photo taken in a dim room (see [`in_a_dim_room`]), its paper at 20-35
/// gray levels, darker than any photo of the datasets (the dimmest shows it at 101). The ink
/// and line thresholds are gray levels, so before such a picture was brightened (`raster::
/// gray_of`) the thin lines fell under them. Measured (session 63): at 0.13 of the light 20 of
/// 20 solved and drawn, at 0.16 19 (one judged invalid), every corner within 1.27% of the
/// published one; before, 3 and 10 drawn, 12 and 5 solved but withheld by the print check (its
/// thresholds are gray levels too), 5 and 5 not found.
#[test]
fn a_photo_taken_in_a_dim_room_is_read_and_drawn_in_place() {
    let kubiesa = require_data(kubiesa_val(), "kubiesa photos-val", 80);
    let mut pipeline = pipeline();
    let mut cases = 0;
    // How far off each puzzle drawn is (percent of the side).
    let mut drawn_off = Vec::new();
    for light in [0.13, 0.16] {
        for (k, sample) in kubiesa.iter().enumerate().step_by(4) {
            let corners = sample.corners.expect("published corners");
            let photo = photo::load_image(&sample.path).unwrap();
            let dim = in_a_dim_room(&photo, light, 4.0, k as u64);
            let case = format!("{} at {light} of the light", sample.path.display());
            cases += 1;
            let Some(puzzle) = solved_right(&mut pipeline, &dim, sample, &case) else {
                continue;
            };
            let off = puzzle.quad.max_corner_distance(&corners) / corners.mean_side() * 100.0;
            let withheld = if puzzle.off_print { ", withheld" } else { "" };
            println!("{case}: solved, corners {off:.2}% off{withheld}");
            drawn_off.extend((!puzzle.off_print).then_some(off));
        }
    }
    let (drawn, worst) = (
        drawn_off.len(),
        drawn_off.iter().copied().fold(0.0, f64::max),
    );
    println!("dim rooms: {drawn} of {cases} drawn, corners at most {worst:.2}% of the side off");
    assert!(worst < 2.0, "a corner drawn {worst:.2}% of the side off");
    assert!(drawn >= 36, "only {drawn} of {cases} dim photos drawn");
}
