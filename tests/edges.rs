//! Grids that touch the picture's edge or whose outer border is cut by it, with all 81 cells
//! in view: crops of the real photos in ../shared/data, truth corners from the datasets.

mod common;

use common::{Sample, kubiesa_val, pipeline};
use opencv::core::{Mat, Rect};
use opencv::prelude::*;
use sudoku_ar::geometry::Quad;
use sudoku_ar::photo::{self, StageTimes};

/// How the crop meets the grid: how far outside (+) or inside (-) the truth corners' bounding box
/// each side of the crop lies, as a share of the grid's side: left, top, right, bottom.
const CROPS: [(&str, [f64; 4]); 4] = [
    ("touching", [0.0, 0.0, 0.0, 0.0]),
    ("border cut", [-0.004, -0.004, -0.004, -0.004]),
    ("left cut", [-0.004, 0.05, 0.05, 0.05]),
    ("top and right cut", [0.05, -0.004, -0.004, 0.05]),
];

fn crop(image: &Mat, corners: &Quad, sides: [f64; 4]) -> (Mat, Quad) {
    let side = corners.mean_side();
    let xs = corners.0.map(|p| p[0]);
    let ys = corners.0.map(|p| p[1]);
    let min = |v: [f64; 4]| v.into_iter().fold(f64::MAX, f64::min);
    let max = |v: [f64; 4]| v.into_iter().fold(f64::MIN, f64::max);
    let x0 = (min(xs) - sides[0] * side).round().max(0.0) as i32;
    let y0 = (min(ys) - sides[1] * side).round().max(0.0) as i32;
    let x1 = ((max(xs) + sides[2] * side).round() as i32).min(image.cols());
    let y1 = ((max(ys) + sides[3] * side).round() as i32).min(image.rows());
    let roi = Mat::roi(image, Rect::new(x0, y0, x1 - x0, y1 - y0))
        .unwrap()
        .try_clone()
        .unwrap();
    let shifted = Quad(corners.0.map(|p| [p[0] - x0 as f64, p[1] - y0 as f64]));
    (roi, shifted)
}

/// How the picked photos fare when each is turned into a test picture by `make` (from the photo
/// and its truth corners, the picture and the truth corners in it): grids found, read perfectly,
/// and the worst corner error (share of the side). Misread pictures go to `EDGES_DIR` if set.
struct Tally {
    found: usize,
    right: usize,
    worst: f64,
}

fn tally(name: &str, picked: &[&Sample], make: impl Fn(&Mat, &Quad) -> (Mat, Quad)) -> Tally {
    let mut pipeline = pipeline();
    let mut tally = Tally {
        found: 0,
        right: 0,
        worst: 0.0,
    };
    for sample in picked {
        let image = photo::load_image(&sample.path).unwrap();
        let Some(corners) = sample.corners else {
            continue;
        };
        let (picture, truth) = make(&image, &corners);
        let puzzle = pipeline
            .process(&picture, &mut StageTimes::default())
            .unwrap();
        let Some(puzzle) = puzzle else {
            println!("{name}: {} not found", sample.path.display());
            continue;
        };
        tally.found += 1;
        let error = puzzle.quad.max_corner_distance(&truth) / truth.mean_side();
        tally.worst = tally.worst.max(error);
        let cells = (0..81)
            .filter(|&i| puzzle.reading.0[i].digit == sample.cells[i].expected_digit())
            .count();
        if cells == 81 {
            tally.right += 1;
            continue;
        }
        println!(
            "{name}: {} {cells}/81 right, corner error {:.2}%",
            sample.path.display(),
            100.0 * error
        );
        if let Some(dir) = std::env::var_os("EDGES_DIR") {
            let stem = sample
                .path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy();
            let path =
                std::path::Path::new(&dir).join(format!("{stem}-{}.jpg", name.replace(' ', "_")));
            let _ = opencv::imgcodecs::imwrite(
                &*path.to_string_lossy(),
                &picture,
                &opencv::core::Vector::new(),
            );
        }
    }
    println!(
        "{name}: found {}/{}, read perfectly {}, worst corner error {:.2}%",
        tally.found,
        picked.len(),
        tally.right,
        100.0 * tally.worst
    );
    tally
}

#[test]
fn grids_at_the_edge_are_found_and_read() {
    let samples = kubiesa_val();
    let picked: Vec<&Sample> = samples.iter().step_by(4).collect();
    for (name, sides) in CROPS {
        let Tally { found, right, .. } =
            tally(name, &picked, |image, corners| crop(image, corners, sides));
        // Floors a little under what was measured (found 20/20 and 16-18 read perfectly in each
        // way of cropping; the misreads left are mostly handwritten entries, as on the whole photos).
        assert_eq!(found, picked.len(), "{name}: every grid must be found");
        assert!(
            right >= 15,
            "{name}: {right}/{} read perfectly",
            picked.len()
        );
    }
}

/// A grid whose top and bottom rows are cut off is no puzzle: not all 81 cells are in view, and
/// a 3x3 box of it (its inner lines at thirds, handwriting across its cells) must not pass for one.
#[test]
fn grid_with_rows_cut_off_is_no_puzzle() {
    let samples = kubiesa_val();
    let sample = samples
        .iter()
        .find(|s| s.path.ends_with("01_18_iphone_14_0.jpg"))
        .expect("Kubiesa photo 01_18_iphone_14_0 in ../shared/data");
    let image = photo::load_image(&sample.path).unwrap();
    let (w, h) = (image.cols(), image.rows());
    let band = Rect::new(0, h * 28 / 100, w, h * 44 / 100);
    let cropped = Mat::roi(&image, band).unwrap().try_clone().unwrap();
    let found = pipeline()
        .process(&cropped, &mut StageTimes::default())
        .unwrap();
    assert!(found.is_none(), "found {:?}", found.map(|p| p.quad));
}

/// How a grid printed right at the paper's edge is surrounded: which sides (left, top, right,
/// bottom) meet a darker table (BGR), as with a page cut at its grid or a phone's bezel.
const SURROUNDS: [(&str, [bool; 4], [f64; 3]); 3] = [
    (
        "table on top",
        [false, true, false, false],
        [60.0, 95.0, 140.0],
    ),
    (
        "table all round",
        [true, true, true, true],
        [60.0, 95.0, 140.0],
    ),
    (
        "black bezel left and right",
        [true, false, true, false],
        [20.0, 20.0, 20.0],
    ),
];

#[test]
fn grids_printed_at_the_papers_edge_next_to_a_darker_surround_are_found_and_read() {
    let samples = kubiesa_val();
    let picked: Vec<&Sample> = samples.iter().step_by(4).collect();
    for (name, sides, colour) in SURROUNDS {
        let Tally {
            found,
            right,
            worst,
        } = tally(name, &picked, |image, corners| {
            framed(image, corners, sides, colour)
        });
        // Measured: found 20/20, read perfectly 16-17 (the rest handwritten misreads, as on the
        // whole photos), worst corner error 1.3-2.2% (before a border "followed" onto the first
        // column's digits was dropped: 3.8%, 9 cells misread).
        assert_eq!(found, picked.len(), "{name}: every grid must be found");
        assert!(
            right >= 15,
            "{name}: {right}/{} read perfectly",
            picked.len()
        );
        assert!(worst <= 0.03, "{name}: corner error {:.2}%", 100.0 * worst);
    }
}

/// The photo cut at the grid on the `sides` (left, top, right, bottom) that meet the table, and
/// framed there by the table's `colour` (BGR); and the truth corners in it.
fn framed(image: &Mat, corners: &Quad, sides: [bool; 4], colour: [f64; 3]) -> (Mat, Quad) {
    let cut = sides.map(|s| if s { 0.0 } else { 0.08 });
    let (cropped, truth) = crop(image, corners, cut);
    let pad = (0.15 * truth.mean_side()).round() as i32;
    let [l, t, r, b] = sides.map(|s| if s { pad } else { 0 });
    let mut framed = Mat::default();
    opencv::core::copy_make_border(
        &cropped,
        &mut framed,
        t,
        b,
        l,
        r,
        opencv::core::BORDER_CONSTANT,
        opencv::core::Scalar::new(colour[0], colour[1], colour[2], 0.0),
    )
    .unwrap();
    let truth = Quad(truth.0.map(|p| [p[0] + l as f64, p[1] + t as f64]));
    (framed, truth)
}
