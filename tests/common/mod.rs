//! The real photos in ../shared/data with their ground truth, and the figures the tests and the
//! `photos` bench report on them. Shared by tests/ and benches/ (see their `#[path]`).
#![allow(dead_code)]

pub mod camera;
pub mod corrupt;
pub mod cover;
pub mod curved;
pub mod handheld;
pub mod screens;
pub mod videos;

use std::path::{Path, PathBuf};
use std::time::Duration;

use opencv::prelude::*;
use sudoku_ar::geometry::Quad;
use sudoku_ar::photo::{self, PhotoPipeline, StageTimes};
use sudoku_ar::recognize::read::DigitReader;

/// The value given after `name` on a bench's command line (`cargo bench --bench B -- name V`).
pub fn bench_arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// What a cell holds according to the dataset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Truth {
    Empty,
    /// Pencil marks (small candidate digits); must read as empty.
    PencilMarks,
    Digit(u8),
}

impl Truth {
    pub fn expected_digit(self) -> u8 {
        match self {
            Truth::Digit(d) => d,
            _ => 0,
        }
    }
}

pub struct Sample {
    pub path: PathBuf,
    pub cells: [Truth; 81],
    pub corners: Option<Quad>,
}

pub fn data_dir() -> PathBuf {
    std::env::var_os("SUDOKU_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"))
}

/// Wicht photos held out of training by models/train.py (their number is a multiple of 5).
pub fn wicht_held_out(path: &Path) -> bool {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let number: u32 = name.trim_start_matches("image").parse().unwrap_or(1);
    number.is_multiple_of(5)
}

/// The 8 numbers from column `skip` on of the CSV line about `file`.
fn csv_numbers(csv: &str, file: &str, skip: usize) -> Option<Vec<f64>> {
    let line = csv.lines().find(|l| l.split(',').next() == Some(file))?;
    let v: Vec<f64> = line
        .split(',')
        .skip(skip)
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    (v.len() == 8).then_some(v)
}

/// The 160 Wicht newspaper photos; only printed clues are labelled.
pub fn wicht() -> Vec<Sample> {
    let dir = data_dir().join("wicht-v2-train");
    let outlines = std::fs::read_to_string(dir.join("outlines.csv")).unwrap_or_default();
    let corners_of = |file: &str| -> Option<Quad> {
        let v = csv_numbers(&outlines, file, 1)?;
        Some(Quad([
            [v[0], v[1]],
            [v[2], v[3]],
            [v[4], v[5]],
            [v[6], v[7]],
        ]))
    };
    let mut samples = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return samples;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jpg") {
            continue;
        }
        let Ok(dat) = std::fs::read_to_string(path.with_extension("dat")) else {
            continue;
        };
        let digits: Vec<u8> = dat
            .lines()
            .skip(2)
            .flat_map(|l| l.split_whitespace())
            .filter_map(|d| d.parse().ok())
            .collect();
        if digits.len() != 81 {
            continue;
        }
        let cells = std::array::from_fn(|i| {
            if digits[i] == 0 {
                Truth::Empty
            } else {
                Truth::Digit(digits[i])
            }
        });
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        samples.push(Sample {
            corners: corners_of(&file),
            path,
            cells,
        });
    }
    samples.sort_by(|a, b| a.path.cmp(&b.path));
    samples
}

/// The 80 Kubiesa validation photos: printed and handwritten digits, pencil marks.
pub fn kubiesa_val() -> Vec<Sample> {
    let dir = data_dir().join("kubiesa/photos-val");
    // metadata.csv: name, ..., then the absolute corners TL, BL, BR, TR in columns 13 to 20.
    let metadata = std::fs::read_to_string(dir.join("metadata.csv")).unwrap_or_default();
    let corners_of = |file: &str| -> Option<Quad> {
        let v = csv_numbers(&metadata, file, 13)?;
        Some(Quad([
            [v[0], v[1]],
            [v[6], v[7]],
            [v[4], v[5]],
            [v[2], v[3]],
        ]))
    };
    let mut samples = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir.join("images")) else {
        return samples;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(stem) = path.file_stem() else {
            continue;
        };
        let label = dir.join("labels").join(stem).with_extension("txt");
        let Ok(text) = std::fs::read_to_string(label) else {
            continue;
        };
        let values: Vec<u8> = text
            .split_whitespace()
            .filter_map(|d| d.parse().ok())
            .collect();
        if values.len() != 81 {
            continue;
        }
        let cells = std::array::from_fn(|i| match values[i] {
            0 => Truth::Empty,
            10 => Truth::PencilMarks,
            d => Truth::Digit(d),
        });
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        samples.push(Sample {
            corners: corners_of(&file),
            path,
            cells,
        });
    }
    samples.sort_by(|a, b| a.path.cmp(&b.path));
    samples
}

/// `sample`'s photo shrunk so that its grid (by the published corners) is `side` pixels across,
/// laid on a gray 1920x1080 picture at (700, 300): a puzzle held far from a 1080p camera. Also
/// the published corners, shrunk and moved alike.
pub fn far_away(sample: &Sample, side: f64) -> (opencv::core::Mat, Quad) {
    let frame = opencv::core::Mat::new_rows_cols_with_default(
        1080,
        1920,
        opencv::core::CV_8UC3,
        opencv::core::Scalar::all(110.0),
    )
    .expect("frame");
    far_away_on(sample, side, frame, (700, 300))
}

/// `sample`'s photo shrunk so that its grid (by the published corners) is `side` pixels across,
/// laid on `frame` (BGR) at `at`, and the published corners shrunk and moved alike.
pub fn far_away_on(
    sample: &Sample,
    side: f64,
    mut frame: opencv::core::Mat,
    (x, y): (i32, i32),
) -> (opencv::core::Mat, Quad) {
    use opencv::core;
    let (small, scale, corners) = shrunk(sample, side);
    let (width, height) = (frame.cols(), frame.rows());
    let roi = core::Rect::new(
        x,
        y,
        small.cols().min(width - x),
        small.rows().min(height - y),
    );
    let part = core::Mat::roi(&small, core::Rect::new(0, 0, roi.width, roi.height)).expect("roi");
    part.copy_to(&mut core::Mat::roi_mut(&mut frame, roi).expect("roi"))
        .expect("copy");
    let moved = Quad(
        corners
            .0
            .map(|[cx, cy]| [cx * scale + x as f64, cy * scale + y as f64]),
    );
    (frame, moved)
}

/// `sample`'s photo shrunk so that its grid (by the published corners) is `side` pixels across,
/// the factor, and the published corners.
fn shrunk(sample: &Sample, side: f64) -> (opencv::core::Mat, f64, Quad) {
    let corners = sample.corners.expect("published corners");
    let image = photo::load_image(&sample.path).expect("photo");
    let scale = side / corners.mean_side();
    (resized(&image, scale), scale, corners)
}

/// `image` scaled by `scale` (under 1: each pixel the mean of those it covers).
pub fn resized(image: &opencv::core::Mat, scale: f64) -> opencv::core::Mat {
    use opencv::{core, imgproc};
    let mut out = core::Mat::default();
    imgproc::resize(
        image,
        &mut out,
        core::Size::new(0, 0),
        scale,
        scale,
        imgproc::INTER_AREA,
    )
    .expect("resize");
    out
}

/// `image` saved as a JPEG of `quality` and read back.
pub fn as_jpeg(image: &opencv::core::Mat, quality: i32) -> opencv::core::Mat {
    use opencv::core::Vector;
    use opencv::imgcodecs;
    let mut jpeg = Vector::<u8>::new();
    let params = Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, quality]);
    imgcodecs::imencode(".jpg", image, &mut jpeg, &params).expect("encode");
    imgcodecs::imdecode(&jpeg, imgcodecs::IMREAD_COLOR).expect("decode")
}

/// How far `quad` lies from the nearest of `truth`: its largest corner distance, as a share of
/// that grid's side.
pub fn off_nearest(quad: &Quad, truth: &[Quad]) -> f64 {
    truth
        .iter()
        .map(|t| quad.max_corner_distance(t) / t.mean_side())
        .fold(f64::INFINITY, f64::min)
}

/// A page of several puzzles: each sample's photo shrunk so that its grid (by the published
/// corners) is `side` pixels across, cut to a square of 1.4 `side` around the grid, and laid
/// in rows of `per_row` on a gray picture. Also each grid's published corners, moved alike.
pub fn puzzles_together(
    samples: &[&Sample],
    side: f64,
    per_row: usize,
) -> (opencv::core::Mat, Vec<Quad>) {
    use opencv::core;
    let tile = (1.4 * side).round() as i32;
    let rows = samples.len().div_ceil(per_row) as i32;
    let mut frame = core::Mat::new_rows_cols_with_default(
        rows * tile + 80,
        per_row as i32 * tile + 80,
        core::CV_8UC3,
        core::Scalar::all(110.0),
    )
    .expect("frame");
    let mut corners = Vec::new();
    for (k, sample) in samples.iter().enumerate() {
        let (small, scale, published) = shrunk(sample, side);
        // The tile around the grid's centre, inside the shrunk photo.
        let [cx, cy] = published.centroid();
        let x0 = ((cx * scale) as i32 - tile / 2).clamp(0, (small.cols() - tile).max(0));
        let y0 = ((cy * scale) as i32 - tile / 2).clamp(0, (small.rows() - tile).max(0));
        let cut = core::Rect::new(x0, y0, tile.min(small.cols()), tile.min(small.rows()));
        let at = [
            40 + (k % per_row) as i32 * tile,
            40 + (k / per_row) as i32 * tile,
        ];
        let part = core::Mat::roi(&small, cut).expect("tile");
        let target = core::Rect::new(at[0], at[1], cut.width, cut.height);
        part.copy_to(&mut core::Mat::roi_mut(&mut frame, target).expect("tile"))
            .expect("copy");
        let (dx, dy) = ((at[0] - x0) as f64, (at[1] - y0) as f64);
        corners.push(Quad(
            published.0.map(|[x, y]| [x * scale + dx, y * scale + dy]),
        ));
    }
    (frame, corners)
}

/// Draws a crossword of `squares` a side, `side` pixels across at (`x`, `y`), onto `frame` (a
/// BGR picture): a white page, thin lines and a fixed scatter of black squares, some in its
/// corners as newspapers print them.
pub fn draw_crossword(frame: &mut opencv::core::Mat, [x, y]: [i32; 2], side: i32, squares: i32) {
    use opencv::core::{Point, Rect, Scalar};
    use opencv::imgproc;
    let page = Rect::new(x - 30, y - 30, side + 60, side + 60);
    imgproc::rectangle(frame, page, Scalar::all(232.0), -1, imgproc::LINE_8, 0).expect("page");
    let black = Scalar::all(25.0);
    let at = |k: i32| k * side / squares;
    for r in 0..squares {
        for c in 0..squares {
            if (r * 7 + c * 3) % 11 == 0 || (r * 5 + c * 2) % 13 == 4 {
                let rect = Rect::new(x + at(c), y + at(r), at(c + 1) - at(c), at(r + 1) - at(r));
                imgproc::rectangle(frame, rect, black, -1, imgproc::LINE_8, 0).expect("square");
            }
        }
    }
    for k in 0..=squares {
        let (down, across) = (
            (Point::new(x + at(k), y), Point::new(x + at(k), y + side)),
            (Point::new(x, y + at(k)), Point::new(x + side, y + at(k))),
        );
        for (from, to) in [down, across] {
            imgproc::line(frame, from, to, black, 2, imgproc::LINE_AA, 0).expect("line");
        }
    }
}

/// Counts over a set of photos.
#[derive(Default)]
pub struct Score {
    pub photos: usize,
    pub found: usize,
    pub perfect: usize,
    pub cells: usize,
    pub cells_right: usize,
    pub pencil: usize,
    pub pencil_right: usize,
    pub digits: usize,
    pub digits_right: usize,
    /// Digit cells read as some digit, right or wrong (not as empty).
    pub digits_seen: usize,
    pub solved: usize,
    /// Entries flagged as contradicting the solution although the truth agrees with it.
    pub false_alarms: usize,
    /// Cells read as handwritten.
    pub handwritten: usize,
    /// Photos where a correction was applied.
    pub corrected: usize,
    /// Largest corner distance from the published corners, as a share of the grid's side.
    pub corner_errors: Vec<f64>,
    pub times: Vec<StageTimes>,
    /// Width and height of each photo in `times`.
    pub sizes: Vec<(i32, i32)>,
    /// One line per photo not read perfectly.
    pub failures: Vec<String>,
    /// The rectified grid of each photo not read perfectly, with its misread cells.
    pub failed_grids: Vec<FailedGrid>,
}

/// A misread photo as the reader saw it, for `cargo bench --bench photos -- --failures`.
pub struct FailedGrid {
    pub name: String,
    pub rectified: opencv::core::Mat,
    pub wrong_cells: Vec<usize>,
}

impl Score {
    pub fn cell_accuracy(&self) -> f64 {
        self.cells_right as f64 / self.cells.max(1) as f64
    }
    pub fn perfect_rate(&self) -> f64 {
        self.perfect as f64 / self.photos.max(1) as f64
    }
    pub fn summary(&self, name: &str) -> String {
        let mut s = format!(
            "{name}: {} photos, grid found {}, read perfectly {} ({:.1}%), solved {} ({} after correction), cells right {}/{} ({:.2}%)",
            self.photos,
            self.found,
            self.perfect,
            100.0 * self.perfect_rate(),
            self.solved,
            self.corrected,
            self.cells_right,
            self.cells,
            100.0 * self.cell_accuracy()
        );
        if self.pencil > 0 {
            s += &format!(
                ", pencil marks read as empty {}/{}",
                self.pencil_right, self.pencil
            );
        }
        s += &format!(
            ", digits right {}/{} (read as a digit {}), read as handwritten {}, right entries flagged wrong {}",
            self.digits_right, self.digits, self.digits_seen, self.handwritten, self.false_alarms
        );
        if !self.corner_errors.is_empty() {
            let mut e = self.corner_errors.clone();
            e.sort_by(f64::total_cmp);
            s += &format!(
                ", corner error median {:.2}% max {:.2}% of side",
                100.0 * e[e.len() / 2],
                100.0 * e[e.len() - 1]
            );
        }
        s
    }
}

/// The photo pipeline with the built-in model, or the one named by `SUDOKU_MODEL` (to compare a
/// freshly trained model before building it in).
pub fn pipeline() -> PhotoPipeline {
    PhotoPipeline::new(pipeline_reader())
}

/// A BGR picture printed in green ink: its green channel set to 204 of 255 throughout, so that
/// black ink comes out green (at about 132 of 255 in gray, on paper at 208) and the paper a
/// little pink.
pub fn in_green(bgr: &opencv::core::Mat) -> opencv::Result<opencv::core::Mat> {
    use opencv::core::{self, Mat, Scalar, Vector};
    let mut channels = Vector::<Mat>::new();
    core::split(bgr, &mut channels)?;
    let green = Mat::new_size_with_default(bgr.size()?, core::CV_8UC1, Scalar::all(204.0))?;
    channels.set(1, green)?;
    let mut printed_green = Mat::default();
    core::merge(&channels, &mut printed_green)?;
    Ok(printed_green)
}

/// The digit model the tests use: `SUDOKU_MODEL` when set, else the built-in one.
pub fn pipeline_reader() -> DigitReader {
    let reader = match std::env::var_os("SUDOKU_MODEL") {
        Some(path) => DigitReader::from_file(Path::new(&path)),
        None => DigitReader::builtin(),
    };
    reader.expect("digit model and ONNX Runtime (run bash .ci/setup)")
}

/// Runs the photo pipeline over `samples` and scores it against the truth.
pub fn evaluate(pipeline: &mut PhotoPipeline, samples: &[&Sample]) -> Score {
    let mut score = Score::default();
    for sample in samples {
        score.photos += 1;
        let name = sample
            .path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let image = match photo::load_image(&sample.path) {
            Ok(image) => image,
            Err(err) => {
                score.failures.push(format!("{name}: {err}"));
                continue;
            }
        };
        let mut times = StageTimes::default();
        let puzzle = match pipeline.process(&image, &mut times) {
            Ok(Some(puzzle)) => puzzle,
            Ok(None) => {
                score.failures.push(format!("{name}: no grid found"));
                score.cells += 81;
                continue;
            }
            Err(err) => {
                score.failures.push(format!("{name}: {err}"));
                continue;
            }
        };
        let start = std::time::Instant::now();
        let mut drawn = image.clone();
        if photo::annotate(&mut drawn, &puzzle).is_ok() {
            times.render = start.elapsed();
        }
        score.times.push(times);
        score.sizes.push((image.cols(), image.rows()));
        score.found += 1;
        if let Some(truth) = sample.corners {
            let side = truth.mean_side();
            // The published corners follow the picture, ours the puzzle (they differ on photos
            // taken sideways), so compare with the best-matching corner order.
            let error = (0..4)
                .map(|k| {
                    Quad(std::array::from_fn(|i| truth.0[(i + k) % 4]))
                        .max_corner_distance(&puzzle.quad)
                })
                .fold(f64::MAX, f64::min);
            score.corner_errors.push(error / side);
        }
        let corner_note = score
            .corner_errors
            .last()
            .filter(|_| sample.corners.is_some());
        let corner_note = corner_note
            .map(|e| format!(" [corners off by {:.1}% of side]", 100.0 * e))
            .unwrap_or_default();
        let mut wrong = Vec::new();
        let mut wrong_cells = Vec::new();
        for (i, (truth, reading)) in sample.cells.iter().zip(&puzzle.reading.0).enumerate() {
            // What the app reports: the reading after any correction.
            let digit = puzzle.clues.0[i].max(puzzle.entries.0[i]);
            let right = digit == truth.expected_digit();
            score.cells += 1;
            score.cells_right += right as usize;
            match truth {
                Truth::PencilMarks => {
                    score.pencil += 1;
                    score.pencil_right += right as usize;
                }
                Truth::Digit(_) => {
                    score.digits += 1;
                    score.digits_right += right as usize;
                    score.digits_seen += (digit != 0) as usize;
                }
                Truth::Empty => {}
            }
            if !right {
                wrong_cells.push(i);
                let style = if reading.handwritten {
                    " handwritten"
                } else {
                    ""
                };
                let runner_up = (0..10u8)
                    .filter(|&d| d != reading.digit)
                    .max_by(|&a, &b| {
                        reading.probabilities[a as usize]
                            .total_cmp(&reading.probabilities[b as usize])
                    })
                    .unwrap_or(0);
                wrong.push(format!(
                    "r{}c{} {:?} read {digit}{style} ({:.2}; next {runner_up} {:.2})",
                    i / 9 + 1,
                    i % 9 + 1,
                    truth,
                    reading.confidence,
                    reading.probabilities[runner_up as usize]
                ));
            }
        }
        score.handwritten += puzzle.entries.filled();
        if let Some(solution) = puzzle.solution {
            score.false_alarms += puzzle
                .wrong_entries()
                .iter()
                .filter(|&&i| sample.cells[i].expected_digit() == solution.0[i])
                .count();
        }
        if !puzzle.corrections.is_empty() {
            score.corrected += 1;
        }
        if wrong.is_empty() {
            score.perfect += 1;
        } else {
            score
                .failures
                .push(format!("{name}{corner_note}: {}", wrong.join(", ")));
            let mut gray = opencv::core::Mat::default();
            if opencv::imgproc::cvt_color(&image, &mut gray, opencv::imgproc::COLOR_BGR2GRAY, 0)
                .is_ok()
                && let Ok(rectified) = sudoku_ar::recognize::cells::rectify(&gray, &puzzle.quad)
            {
                score.failed_grids.push(FailedGrid {
                    name,
                    rectified,
                    wrong_cells,
                });
            }
        }
        score.solved += puzzle.solution.is_some() as usize;
    }
    score
}

pub fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}
