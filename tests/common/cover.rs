//! Things lying over a real photo's grid: a fingertip across the bottom border, a glare spot.
//! Shared by tests/occlusion.rs (which asserts that no wrong solution comes out) and
//! benches/photos.rs (which prints how many come out right, none and wrong).
#![allow(dead_code)]

use opencv::core::{self, Mat, Point, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use sudoku_ar::geometry::Quad;
use sudoku_ar::grid::Grid;
use sudoku_ar::photo::{self, PhotoPipeline, StageTimes};

use super::Sample;

/// Skin in BGR, as a finger under indoor light.
const SKIN: [f64; 3] = [120.0, 150.0, 200.0];

/// The photo with a finger coming from below the grid: `at` along the bottom border (0 left,
/// 1 right), reaching `reach` of the grid's side into it, `width` of the side wide.
pub fn with_finger(image: &Mat, corners: &Quad, at: f64, reach: f64, width: f64) -> Mat {
    let mut picture = image.clone();
    let [_, _, bottom_right, bottom_left] = corners.0;
    let side = corners.mean_side();
    let base = [
        bottom_left[0] + at * (bottom_right[0] - bottom_left[0]),
        bottom_left[1] + at * (bottom_right[1] - bottom_left[1]),
    ];
    let point = |p: [f64; 2]| Point::new(p[0].round() as i32, p[1].round() as i32);
    let tip = [base[0], base[1] - reach * side];
    let wrist = [base[0], base[1] + 0.5 * side];
    let thickness = (width * side).round() as i32;
    let skin = Scalar::new(SKIN[0], SKIN[1], SKIN[2], 0.0);
    imgproc::line(
        &mut picture,
        point(wrist),
        point(tip),
        skin,
        thickness,
        imgproc::LINE_AA,
        0,
    )
    .unwrap();
    imgproc::circle(
        &mut picture,
        point(tip),
        thickness / 2,
        skin,
        -1,
        imgproc::LINE_AA,
        0,
    )
    .unwrap();
    picture
}

/// The `k`th photo with a fingertip over the bottom row, at one of five places along it.
pub fn finger_placed(image: &Mat, corners: &Quad, k: usize) -> Mat {
    with_finger(image, corners, [0.3, 0.4, 0.5, 0.6, 0.7][k % 5], 0.12, 0.07)
}

/// The `k`th photo with a glare spot somewhere inside the grid, placed from `k` in one of two
/// sets of places (`set`), so that a change is not tuned to one.
pub fn glare_placed(set: usize, image: &Mat, corners: &Quad, k: usize) -> Mat {
    let (a, b, turn) = [(7, 3, 37), (4, 5, 71)][set % 2];
    let u = 0.2 + 0.6 * ((k * a) % 11) as f64 / 10.0;
    let v = 0.2 + 0.6 * ((k * b) % 7) as f64 / 6.0;
    with_glare(image, corners, u, v, (k * turn % 180) as f64)
}

/// The photo with a glare spot (a soft white ellipse, a quarter of the grid's side long) at
/// `(u, v)` of the grid (0-1 each way), turned by `angle` degrees.
pub fn with_glare(image: &Mat, corners: &Quad, u: f64, v: f64, angle: f64) -> Mat {
    let [top_left, top_right, bottom_right, bottom_left] = corners.0;
    let lerp =
        |a: [f64; 2], b: [f64; 2], t: f64| [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
    let centre = lerp(
        lerp(top_left, top_right, u),
        lerp(bottom_left, bottom_right, u),
        v,
    );
    glare_spot(image, centre, corners.mean_side(), angle)
}

/// How far a glare spot centred at `centre` (pixels), 0.24 x 0.14 of `side` across, turned by
/// `angle` degrees, lifts each pixel of a `size` picture towards white: 1 in its middle, falling
/// softly to 0 at its edge (`CV_32FC1`).
pub fn glare_weights(size: Size, centre: [f64; 2], side: f64, angle: f64) -> Mat {
    let mut mask = Mat::new_size_with_default(size, core::CV_32FC1, Scalar::all(0.0)).unwrap();
    imgproc::ellipse(
        &mut mask,
        Point::new(centre[0].round() as i32, centre[1].round() as i32),
        Size::new((0.12 * side) as i32, (0.07 * side) as i32),
        angle,
        0.0,
        360.0,
        Scalar::all(1.6),
        -1,
        imgproc::LINE_AA,
        0,
    )
    .unwrap();
    let mut soft = Mat::default();
    imgproc::gaussian_blur(
        &mask,
        &mut soft,
        Size::new(0, 0),
        0.03 * side,
        0.0,
        core::BORDER_DEFAULT,
    )
    .unwrap();
    let mut clipped = Mat::default();
    imgproc::threshold(&soft, &mut clipped, 1.0, 1.0, imgproc::THRESH_TRUNC).unwrap();
    clipped
}

/// The picture with a glare spot centred at `centre` (pixels), 0.24 x 0.14 of `side` across,
/// turned by `angle` degrees: blended towards white, fully in the middle, softly at the edge.
pub fn glare_spot(image: &Mat, centre: [f64; 2], side: f64, angle: f64) -> Mat {
    lifted(
        image,
        &glare_weights(image.size().unwrap(), centre, side, angle),
    )
}

/// The picture lifted towards white by `clipped` (see [`glare_weights`]).
pub fn lifted(image: &Mat, clipped: &Mat) -> Mat {
    let mut weights = Mat::default();
    imgproc::cvt_color(clipped, &mut weights, imgproc::COLOR_GRAY2BGR, 0).unwrap();
    let mut picture = Mat::default();
    image
        .convert_to(&mut picture, core::CV_32FC3, 1.0, 0.0)
        .unwrap();
    // Towards white by the spot's weight: picture + w * (250 - picture).
    let mut towards_white = Mat::default();
    core::subtract(
        &Scalar::all(250.0),
        &picture,
        &mut towards_white,
        &core::no_array(),
        -1,
    )
    .unwrap();
    let mut lift = Mat::default();
    core::multiply(&weights, &towards_white, &mut lift, 1.0, -1).unwrap();
    let mut glared = Mat::default();
    core::add(&picture, &lift, &mut glared, &core::no_array(), -1).unwrap();
    let mut out = Mat::default();
    glared
        .convert_to(&mut out, core::CV_8UC3, 1.0, 0.0)
        .unwrap();
    out
}

/// The truth's solution: the clues of the dataset, solved.
pub fn true_solution(sample: &Sample) -> Option<Grid> {
    let mut clues = Grid::EMPTY;
    for (cell, truth) in clues.0.iter_mut().zip(&sample.cells) {
        *cell = truth.expected_digit();
    }
    sudoku_ar::solve::solve(&clues).ok()
}

/// What came out of the covered photos.
#[derive(Debug, Default)]
pub struct Outcomes {
    pub photos: usize,
    pub right: usize,
    pub none: usize,
    /// Photos whose solution is not the truth's: wrong digits would be drawn.
    pub wrong: Vec<String>,
    /// Photos with some cell of the last two rows read as hidden.
    pub seen_low: usize,
}

impl Outcomes {
    /// Asserts that no photo got a wrong solution and at least `share` (numerator,
    /// denominator) of them the right one.
    pub fn assert_never_wrong(&self, share: (usize, usize)) {
        assert!(self.wrong.is_empty(), "wrong solutions: {:?}", self.wrong);
        assert!(
            self.right * share.1 >= self.photos * share.0,
            "only {} of {} solved",
            self.right,
            self.photos
        );
    }

    pub fn summary(&self, name: &str) -> String {
        format!(
            "{name}: {} photos, right solution {}, none {}, wrong {} {:?}",
            self.photos,
            self.right,
            self.none,
            self.wrong.len(),
            self.wrong
        )
    }
}

/// Runs `samples`, each covered by `cover` (photo, truth corners, index), through the photo
/// pipeline and compares the solutions with the truth's.
pub fn solve_covered(
    pipeline: &mut PhotoPipeline,
    samples: &[&Sample],
    cover: impl Fn(&Mat, &Quad, usize) -> Mat,
) -> Outcomes {
    let mut outcomes = Outcomes::default();
    for (k, sample) in samples.iter().enumerate() {
        let (Some(corners), Some(truth)) = (sample.corners, true_solution(sample)) else {
            continue;
        };
        outcomes.photos += 1;
        let image = photo::load_image(&sample.path).unwrap();
        let picture = cover(&image, &corners, k);
        let puzzle = pipeline
            .process(&picture, &mut StageTimes::default())
            .unwrap();
        if puzzle
            .as_ref()
            .is_some_and(|p| (63..81).any(|i| p.reading.0[i].hidden))
        {
            outcomes.seen_low += 1;
        }
        match puzzle.and_then(|p| p.solution) {
            Some(solution) if solution == truth => outcomes.right += 1,
            Some(_) => outcomes.wrong.push(sample.path.display().to_string()),
            None => outcomes.none += 1,
        }
    }
    outcomes
}
