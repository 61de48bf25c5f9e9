//! A finger over the page: the photos in ../shared/data with a fingertip drawn across the
//! grid's bottom border into its last row, as when the page is held by the thumb. What shows of
//! a clue under a fingertip can look like another digit; the solution drawn must then be the
//! right one or none, never another one.

mod common;

use common::{Sample, pipeline, wicht};
use opencv::core::{Mat, Point, Scalar};
use opencv::imgproc;
use sudoku_ar::geometry::Quad;
use sudoku_ar::grid::Grid;
use sudoku_ar::photo::{self, StageTimes};

/// Skin in BGR, as a finger under indoor light.
const SKIN: [f64; 3] = [120.0, 150.0, 200.0];

/// Draws a finger coming from below the grid: `at` along the bottom border (0 left, 1 right),
/// reaching `reach` of the grid's side into it, `width` of the side wide.
fn with_finger(image: &Mat, corners: &Quad, at: f64, reach: f64, width: f64) -> Mat {
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

/// The truth's solution: the clues of the dataset, solved.
fn true_solution(sample: &Sample) -> Option<Grid> {
    let mut clues = Grid::EMPTY;
    for (cell, truth) in clues.0.iter_mut().zip(&sample.cells) {
        *cell = truth.expected_digit();
    }
    sudoku_ar::solve::solve(&clues).ok()
}

#[test]
fn a_finger_over_a_clue_never_gets_a_wrong_solution_drawn() {
    let samples = wicht();
    // Every photo, the finger at one of five places along the border.
    let picked: Vec<&Sample> = samples.iter().collect();
    let mut pipeline = pipeline();
    let (mut right, mut none, mut wrong, mut seen) = (0, 0, Vec::new(), 0);
    for (k, sample) in picked.iter().enumerate() {
        let (Some(corners), Some(truth)) = (sample.corners, true_solution(sample)) else {
            continue;
        };
        let image = photo::load_image(&sample.path).unwrap();
        let at = [0.3, 0.4, 0.5, 0.6, 0.7][k % 5];
        let picture = with_finger(&image, &corners, at, 0.12, 0.07);
        let puzzle = pipeline
            .process(&picture, &mut StageTimes::default())
            .unwrap();
        // The finger is seen where it crosses a line beside the last two rows.
        if puzzle
            .as_ref()
            .is_some_and(|p| (63..81).any(|i| p.reading.0[i].hidden))
        {
            seen += 1;
        }
        match puzzle.and_then(|p| p.solution) {
            Some(solution) if solution == truth => right += 1,
            Some(_) => wrong.push(sample.path.display().to_string()),
            None => none += 1,
        }
    }
    println!(
        "finger over the bottom row: {} photos, finger seen in {seen}, right solution {right}, none {none}, wrong {}",
        picked.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "wrong solutions: {wrong:?}");
    assert!(
        seen * 2 >= picked.len(),
        "the finger seen in only {seen} of {}",
        picked.len()
    );
    assert!(
        right * 3 >= picked.len() * 2,
        "only {right} of {} solved",
        picked.len()
    );
}
