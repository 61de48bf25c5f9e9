//! The still-photo pipeline: load, find the grid, read, solve, draw.

use std::path::Path;
use std::time::{Duration, Instant};

use opencv::core::{self, Mat, Vector};
use opencv::imgcodecs;
use opencv::imgproc;
use opencv::prelude::*;
use serde::Serialize;

use crate::cells;
use crate::decode::{Budget, Correction, Verdict, decode};
use crate::detect;
use crate::error::{Error, Result};
use crate::geometry::Quad;
use crate::grid::Grid;
use crate::overlay;
use crate::read::{CLASSES, DigitReader, GridReading, plausibility};
use crate::solve::{SolveError, solve};

/// The smallest picture worth searching: 9 cells of 10 pixels.
pub const MIN_SIDE: i32 = 90;

/// How the clues that were read turned out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Solved,
    /// A digit repeats in a row, column or box.
    Invalid,
    Unsolvable,
    Multiple,
}

/// A puzzle found in a picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Puzzle {
    /// Corners in the picture's pixels.
    pub quad: Quad,
    pub reading: GridReading,
    /// The printed clues: the puzzle as published, which the solution is computed from.
    pub clues: Grid,
    /// Digits somebody wrote into the grid (0 elsewhere).
    pub entries: Grid,
    pub solution: Option<Grid>,
    pub status: Status,
    /// Cells whose first reading broke the puzzle and was replaced by a next-best one.
    pub corrections: Vec<Correction>,
    /// When solved: how much less likely (nats) the next puzzle with one solution near the
    /// reading is (at least this much: the decoder searched no further).
    pub margin: Option<f32>,
}

impl Puzzle {
    /// Cells whose handwritten entry disagrees with the solution, counting only entries the
    /// reader is sure of: telling somebody a right answer is wrong is worse than missing a slip.
    pub fn wrong_entries(&self) -> Vec<usize> {
        const SURE_OF_ENTRY: f32 = 0.8;
        const SOLUTION_UNLIKELY: f32 = 0.05;
        let Some(solution) = self.solution else { return Vec::new() };
        (0..81)
            .filter(|&i| {
                let entry = self.entries.0[i];
                let sure = self.reading.0.get(i).is_none_or(|r| {
                    r.confidence >= SURE_OF_ENTRY && r.probabilities[solution.0[i] as usize] < SOLUTION_UNLIKELY
                });
                entry != 0 && entry != solution.0[i] && sure
            })
            .collect()
    }
}

/// Time spent in each stage of [`PhotoPipeline::process`].
#[derive(Debug, Clone, Copy, Default)]
pub struct StageTimes {
    pub detect: Duration,
    /// Cutting the cells: following the printed lines and warping.
    pub rectify: Duration,
    /// The digit model, including any turned readings.
    pub read: Duration,
    pub solve: Duration,
    pub render: Duration,
}

/// Decodes the picture at `path` into BGR, with errors that name the file.
pub fn load_image(path: &Path) -> Result<Mat> {
    let bytes = std::fs::read(path).map_err(|e| Error::Unreadable { path: path.into(), reason: io_reason(&e) })?;
    if bytes.is_empty() {
        return Err(Error::NotAnImage { path: path.into() });
    }
    let image = imgcodecs::imdecode(&Vector::<u8>::from_slice(&bytes), imgcodecs::IMREAD_COLOR)
        .map_err(|_| Error::NotAnImage { path: path.into() })?;
    if image.empty() {
        return Err(Error::NotAnImage { path: path.into() });
    }
    if image.cols() < MIN_SIDE || image.rows() < MIN_SIDE {
        return Err(Error::TooSmall { path: path.into(), width: image.cols(), height: image.rows(), min: MIN_SIDE });
    }
    Ok(image)
}

pub(crate) fn io_reason(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "is a directory".into(),
        _ => err.to_string(),
    }
}

/// Solves the clues that were read, mapping each failure to its [`Status`].
pub fn solve_clues(clues: &Grid) -> (Option<Grid>, Status) {
    match solve(clues) {
        Ok(solution) => (Some(solution), Status::Solved),
        Err(e) => (None, Status::of(&e)),
    }
}

impl Status {
    /// The status of clues the solver turned down.
    pub fn of(error: &SolveError) -> Status {
        match error {
            SolveError::Invalid { .. } => Status::Invalid,
            SolveError::Unsolvable => Status::Unsolvable,
            SolveError::Multiple { .. } => Status::Multiple,
        }
    }
}

/// Each cell's log-likelihood of holding no printed clue (0) or a printed 1-9.
pub fn clue_log_likelihoods(reading: &GridReading) -> Vec<[f32; CLASSES]> {
    reading.0.iter().map(|r| r.as_clue.map(|p| p.max(1e-9).ln())).collect()
}

/// Runs `f`, adding the time it took to `total`.
fn timed<T>(total: &mut Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    *total += start.elapsed();
    out
}

/// The puzzle a reading shows: the most likely printed clues with one solution (see
/// [`decode`]). A photo gets no second look, so a reading that solves as it is stands even
/// when another puzzle is nearly as likely; a changed reading must be clearly the likeliest.
fn judged(quad: Quad, reading: GridReading) -> Puzzle {
    let read = reading.printed();
    let mut entries = reading.handwritten();
    let decoded = match decode(&read, &clue_log_likelihoods(&reading), |_| true, Budget::PHOTO) {
        Verdict::Solved(d) => Some(d),
        Verdict::Uncertain(d) if d.corrections.is_empty() => Some(d),
        Verdict::Uncertain(d) => {
            tracing::debug!(corrections = ?d.corrections, margin = d.margin, "a correction was not clear enough");
            None
        }
        Verdict::Failed(_) => None,
    };
    let Some(d) = decoded else {
        let (solution, status) = solve_clues(&read);
        return Puzzle { quad, reading, clues: read, entries, solution, status, corrections: Vec::new(), margin: None };
    };
    if !d.corrections.is_empty() {
        tracing::debug!(corrections = ?d.corrections, margin = d.margin, "corrected misread cells");
    }
    // A cell corrected into a printed clue is no longer a handwritten entry.
    for c in d.corrections.iter().filter(|c| c.now != 0) {
        entries.0[c.cell] = 0;
    }
    Puzzle {
        quad,
        reading,
        clues: d.clues,
        entries,
        solution: Some(d.solution),
        status: Status::Solved,
        corrections: d.corrections,
        margin: Some(d.margin),
    }
}

/// Finds, reads and solves puzzles in still pictures.
pub struct PhotoPipeline {
    reader: DigitReader,
}

impl PhotoPipeline {
    pub fn new(reader: DigitReader) -> Self {
        PhotoPipeline { reader }
    }

    /// Finds and solves the puzzle in a BGR picture; None when there is no puzzle.
    pub fn process(&mut self, image: &Mat, times: &mut StageTimes) -> Result<Option<Puzzle>> {
        let start = Instant::now();
        let mut gray = Mat::default();
        imgproc::cvt_color(image, &mut gray, imgproc::COLOR_BGR2GRAY, 0)?;
        let detection = detect::find_grid(&gray)?;
        times.detect = start.elapsed();
        let Some(detection) = detection else { return Ok(None) };

        let start = Instant::now();
        let (rectified, mut quad) = match cells::rectify_along_lines(&gray, &detection.quad)? {
            Some(fitted) => (fitted.rectified, fitted.quad),
            None => (cells::rectify(&gray, &detection.quad)?, detection.quad),
        };
        times.rectify = start.elapsed();
        let start = Instant::now();
        let mut reading = self.reader.read_grid(cells::cell_batch(&rectified)?.view())?;
        let mut solving = Duration::ZERO;
        let solved = timed(&mut solving, || solve_clues(&reading.printed()));
        if (solved.1 != Status::Solved || !reading.is_confident())
            && let Some((turned_quad, turned)) = read_turned(&mut self.reader, &rectified, &quad, &reading)?
        {
            tracing::debug!("puzzle is turned; reading it the right way up");
            (quad, reading) = (turned_quad, turned);
        }
        let puzzle = timed(&mut solving, || judged(quad, reading));
        times.read = start.elapsed().saturating_sub(solving);
        times.solve = solving;
        Ok(Some(puzzle))
    }
}

/// How many digit cells, at most, are read turned to judge which way up the grid is.
const TURN_SAMPLE: usize = 12;

/// Reads the grid turned by a quarter, half and three quarters; returns the reading and the
/// re-ordered corners of the turn that reads more plausibly than `upright`, if any.
///
/// To keep this cheap, the three turns are first judged on a sample of the digit cells only (in
/// one batch, each cell's picture turned in place); the whole grid is read again only for the
/// winning turn, and that reading must beat `upright` too.
pub fn read_turned(reader: &mut DigitReader, rectified: &Mat, quad: &Quad, upright: &GridReading) -> Result<Option<(Quad, GridReading)>> {
    // OpenCV rotation, and which corner of the picture becomes the puzzle's top-left.
    const TURNS: [(i32, usize); 3] =
        [(core::ROTATE_90_CLOCKWISE, 3), (core::ROTATE_180, 2), (core::ROTATE_90_COUNTERCLOCKWISE, 1)];
    let digits: Vec<usize> = (0..81).filter(|&i| upright.0[i].digit != 0).collect();
    if digits.is_empty() {
        return Ok(None);
    }
    let step = digits.len().div_ceil(TURN_SAMPLE);
    let sample: Vec<usize> = digits.into_iter().step_by(step).collect();
    let batch = cells::cell_batch(rectified)?;
    let turned = cells::turned_cells(&batch, &sample);
    let readings = reader.read(turned.view())?;
    let upright_sample: Vec<_> = sample.iter().map(|&i| upright.0[i]).collect();
    let mut best = (plausibility(&upright_sample), None);
    for (turn, chunk) in readings.chunks(sample.len()).enumerate() {
        let p = plausibility(chunk);
        if p > best.0 {
            best = (p, Some(turn));
        }
    }
    let Some(turn) = best.1 else { return Ok(None) };
    let (code, first_corner) = TURNS[turn];
    let mut turned = Mat::default();
    core::rotate(rectified, &mut turned, code)?;
    let reading = reader.read_grid(cells::cell_batch(&turned)?.view())?;
    if reading.plausibility() <= upright.plausibility() {
        return Ok(None);
    }
    let corners = Quad(std::array::from_fn(|i| quad.0[(i + first_corner) % 4]));
    Ok(Some((corners, reading)))
}

/// Draws the result on `image`: the missing digits when solved, else a red outline where the
/// puzzle was found.
pub fn annotate(image: &mut Mat, puzzle: &Puzzle) -> Result<()> {
    match puzzle.solution {
        Some(solution) => {
            let mut filled = puzzle.clues;
            for (cell, &entry) in filled.0.iter_mut().zip(&puzzle.entries.0) {
                *cell = (*cell).max(entry);
            }
            let mask = overlay::render_digits(&filled, &solution)?;
            overlay::draw(image, &mask, &puzzle.quad, overlay::SOLUTION_COLOUR)?;
            let wrong = puzzle.wrong_entries();
            if !wrong.is_empty() {
                let marks = overlay::render_marks(&wrong)?;
                overlay::draw(image, &marks, &puzzle.quad, overlay::WRONG_COLOUR)?;
            }
            Ok(())
        }
        None => {
            let thickness = (image.cols().max(image.rows()) / 400).max(2);
            overlay::outline(image, &puzzle.quad, [40, 40, 230], thickness)
        }
    }
}

/// One line of `sudoku-ar image --json`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum PhotoReport {
    Read { file: String, puzzle: Option<PuzzleReport> },
    Failed { file: String, error: String },
}

/// The `puzzle` object of the JSON output.
#[derive(Debug, Serialize)]
pub struct PuzzleReport {
    pub corners: [[f64; 2]; 4],
    pub clues: String,
    /// 1 where a handwritten digit was read.
    pub handwritten: String,
    /// The handwritten digits (0 elsewhere).
    pub entries: String,
    /// Handwritten entries that contradict the solution, as cell indices 0-80.
    pub wrong_entries: Vec<usize>,
    pub solution: Option<String>,
    pub status: Status,
    /// Cells changed from their first reading to make the puzzle valid and uniquely solvable.
    pub corrected: Vec<Correction>,
    /// When solved: by how much (nats of log-likelihood) the next puzzle with one solution near
    /// the reading is less likely; at least this much.
    pub margin: Option<f32>,
}

impl From<&Puzzle> for PuzzleReport {
    fn from(puzzle: &Puzzle) -> Self {
        let round = |v: f64| (v * 100.0).round() / 100.0;
        PuzzleReport {
            corners: puzzle.quad.0.map(|[x, y]| [round(x), round(y)]),
            clues: puzzle.clues.to_string(),
            handwritten: puzzle.entries.0.iter().map(|&d| if d != 0 { '1' } else { '0' }).collect(),
            entries: puzzle.entries.to_string(),
            wrong_entries: puzzle.wrong_entries(),
            solution: puzzle.solution.map(|s| s.to_string()),
            status: puzzle.status,
            corrected: puzzle.corrections.clone(),
            margin: puzzle.margin.map(|m| (m * 100.0).round() / 100.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::CellReading;

    #[test]
    fn missing_empty_and_garbage_files_are_named_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.jpg");
        let err = load_image(&missing).unwrap_err().to_string();
        assert!(err.contains("missing.jpg") && err.contains("no such file"), "{err}");

        let empty = dir.path().join("empty.png");
        std::fs::write(&empty, b"").unwrap();
        assert!(matches!(load_image(&empty), Err(Error::NotAnImage { .. })));

        let text = dir.path().join("notes.jpg");
        std::fs::write(&text, b"this is not a picture").unwrap();
        assert!(load_image(&text).unwrap_err().to_string().contains("notes.jpg"));

        assert!(load_image(dir.path()).unwrap_err().to_string().contains("cannot read"));
    }

    #[test]
    fn tiny_picture_is_too_small() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny.png");
        let tiny = Mat::new_rows_cols_with_default(8, 8, opencv::core::CV_8UC3, opencv::core::Scalar::all(9.0)).unwrap();
        imgcodecs::imwrite(path.to_str().unwrap(), &tiny, &Vector::new()).unwrap();
        match load_image(&path) {
            Err(Error::TooSmall { width: 8, height: 8, .. }) => {}
            other => panic!("expected TooSmall, got {other:?}"),
        }
    }

    #[test]
    fn statuses_follow_the_solver() {
        let puzzle: Grid = "000000010400000000020000000000050407008000300001090000300400200050100000000806000".parse().unwrap();
        assert_eq!(solve_clues(&puzzle).1, Status::Solved);
        assert_eq!(solve_clues(&Grid::EMPTY), (None, Status::Multiple));
        let mut twice = puzzle;
        twice.0[0] = 1; // row 0 has a 1 already
        assert_eq!(solve_clues(&twice), (None, Status::Invalid));
    }

    #[test]
    fn wrong_entries_are_those_that_contradict_the_solution() {
        let clues: Grid = "000000010400000000020000000000050407008000300001090000300400200050100000000806000".parse().unwrap();
        let solution = solve(&clues).unwrap();
        let mut entries = Grid::EMPTY;
        entries.0[0] = solution.0[0]; // right
        entries.0[1] = solution.0[1] % 9 + 1; // wrong
        let puzzle = Puzzle {
            quad: Quad::UNIT,
            reading: GridReading(Vec::new()),
            clues,
            entries,
            solution: Some(solution),
            status: Status::Solved,
            corrections: Vec::new(),
            margin: None,
        };
        assert_eq!(puzzle.wrong_entries(), vec![1]);

        // The same entry read unsurely, with the right digit a close second, is not accused.
        let mut probabilities = [0.0; crate::read::CLASSES];
        probabilities[entries.0[1] as usize] = 0.6;
        probabilities[solution.0[1] as usize] = 0.4;
        let doubtful = CellReading { digit: entries.0[1], handwritten: true, confidence: 0.6, probabilities, as_clue: probabilities };
        let mut cells = vec![doubtful; 81];
        cells[0].digit = solution.0[0];
        let puzzle = Puzzle { reading: GridReading(cells), ..puzzle };
        assert_eq!(puzzle.wrong_entries(), Vec::<usize>::new());
    }

    #[test]
    fn json_report_has_the_documented_shape() {
        let report = PhotoReport::Failed { file: "a.jpg".into(), error: "bad".into() };
        assert_eq!(serde_json::to_string(&report).unwrap(), r#"{"file":"a.jpg","error":"bad"}"#);
        let report = PhotoReport::Read { file: "b.jpg".into(), puzzle: None };
        assert_eq!(serde_json::to_string(&report).unwrap(), r#"{"file":"b.jpg","puzzle":null}"#);
    }
}
