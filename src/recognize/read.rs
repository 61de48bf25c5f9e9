//! Reading the 81 cells with the digit model through ONNX Runtime.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ndarray::ArrayView4;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::TensorRef;

use crate::error::{Error, Result};
use crate::grid::Grid;

/// The model trained by `models/train.py`, built into the binary so that it runs from anywhere.
pub static BUILTIN_MODEL: &[u8] = include_bytes!("../../models/digits.onnx");
/// What a cell can hold: 0 for empty, 1 to 9 for the digits.
pub const CLASSES: usize = 10;
/// A model with this many outputs also tells printed from handwritten digits: 0 empty, 1-9
/// printed, 10-18 handwritten. One with [`CLASSES`] outputs reads every digit as printed.
pub const CLASSES_WITH_STYLE: usize = 19;

/// What the model sees in one cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellReading {
    /// 0 for empty, else the digit.
    pub digit: u8,
    /// Whether the digit looks handwritten rather than printed.
    pub handwritten: bool,
    /// The model's probability for `digit` (printed and handwritten together).
    pub confidence: f32,
    /// Probability of each digit (printed and handwritten together), 0 for empty.
    pub probabilities: [f32; CLASSES],
    /// The cell as a printed clue: probability of each printed digit, and at 0 of no printed
    /// digit (empty or handwritten).
    pub as_clue: [f32; CLASSES],
    /// Whether a grid line beside the cell was hidden (a finger, glare): what the model saw
    /// may not be all of the cell, and the probabilities were made less sure.
    pub hidden: bool,
    /// Whether the grid was read smeared by the camera's motion: the model is sure of the cells
    /// more often than it is right (a smeared 9 can read surely as an empty cell).
    pub smeared: bool,
    /// Whether the cell lies partly under something on the paper (a pen; also `hidden`): the
    /// same pen over the same cell frame after frame is one piece of evidence, not many.
    pub under: bool,
    /// Whether the digit was told an entry by its ink (an app's typed digits beside its
    /// givens), not by its style: then surely one, where the model's call may not be.
    pub entry_by_ink: bool,
}

impl CellReading {
    /// The reading of a cell partly hidden, made less sure: every probability raised to
    /// `power` (below 1) and normalised again, so that what it favours still leads, by less
    /// (the model is sure of what it sees, not of what it cannot).
    pub fn hidden(&self, power: f32) -> CellReading {
        let temper = |p: &[f32; CLASSES]| -> [f32; CLASSES] {
            let raised: [f32; CLASSES] = std::array::from_fn(|d| p[d].max(1e-12).powf(power));
            let sum: f32 = raised.iter().sum();
            raised.map(|v| v / sum)
        };
        let probabilities = temper(&self.probabilities);
        CellReading {
            confidence: probabilities[self.digit as usize],
            probabilities,
            as_clue: temper(&self.as_clue),
            hidden: true,
            ..*self
        }
    }
}

/// All 81 cells, row by row.
#[derive(Debug, Clone, PartialEq)]
pub struct GridReading(pub Vec<CellReading>);

impl GridReading {
    /// Whether every digit was read with some confidence; a turned or misframed grid is not.
    pub fn is_confident(&self) -> bool {
        let digits: Vec<f32> = self
            .0
            .iter()
            .filter(|c| c.digit != 0)
            .map(|c| c.confidence)
            .collect();
        let mean = digits.iter().sum::<f32>() / digits.len().max(1) as f32;
        !digits.is_empty() && mean >= 0.85 && digits.iter().all(|&c| c >= 0.4)
    }

    /// How surely the printed digits were read, on average (1 when none was).
    pub fn printed_sureness(&self) -> f32 {
        let printed: Vec<f32> = self
            .0
            .iter()
            .filter(|c| c.digit != 0 && !c.handwritten)
            .map(|c| c.confidence)
            .collect();
        if printed.is_empty() {
            return 1.0;
        }
        printed.iter().sum::<f32>() / printed.len() as f32
    }

    /// Mean log-probability of the chosen classes: higher when the cells look like what the
    /// model was trained on, which is how the right way up is told from the other three.
    pub fn plausibility(&self) -> f32 {
        plausibility(&self.0)
    }

    /// The printed digits only: the puzzle as it was published.
    pub fn printed(&self) -> Grid {
        self.grid_of(|r| if r.handwritten { 0 } else { r.digit })
    }

    /// The handwritten digits only: what somebody filled in.
    pub fn handwritten(&self) -> Grid {
        self.grid_of(|r| if r.handwritten { r.digit } else { 0 })
    }

    /// Which cells were read under something lying on the paper ([`CellReading::under`]).
    pub fn under(&self) -> [bool; 81] {
        std::array::from_fn(|i| self.0.get(i).is_some_and(|cell| cell.under))
    }

    /// Which cells were read beside a hidden stretch of grid line ([`CellReading::hidden`]).
    pub fn hidden(&self) -> [bool; 81] {
        std::array::from_fn(|i| self.0.get(i).is_some_and(|cell| cell.hidden))
    }

    /// Whether the grid was read smeared by the camera's motion ([`CellReading::smeared`]).
    pub fn smeared(&self) -> bool {
        self.0.iter().any(|cell| cell.smeared)
    }

    /// Whether any digit was read as handwritten.
    pub fn has_handwriting(&self) -> bool {
        self.0.iter().any(|r| r.handwritten)
    }

    /// The reading with every digit taken as printed: for a print the model took for
    /// handwriting (an unfamiliar font on a screen, which has no handwriting at all). Except in
    /// cells read hidden: a stroke there taken for handwriting is as likely the edge of what
    /// hides it (a pen's highlight read as a written 1 made a puzzle with one solution, the
    /// wrong one) as a print the model does not know.
    pub fn all_printed(&self) -> GridReading {
        GridReading(
            self.0
                .iter()
                .map(|r| {
                    if r.hidden {
                        *r
                    } else {
                        CellReading {
                            handwritten: false,
                            as_clue: r.probabilities,
                            ..*r
                        }
                    }
                })
                .collect(),
        )
    }

    fn grid_of(&self, digit: impl Fn(&CellReading) -> u8) -> Grid {
        let mut grid = Grid::EMPTY;
        for (cell, reading) in grid.0.iter_mut().zip(&self.0) {
            *cell = digit(reading);
        }
        grid
    }
}

/// Mean log-probability of the chosen classes of `cells`; see [`GridReading::plausibility`].
pub fn plausibility(cells: &[CellReading]) -> f32 {
    cells
        .iter()
        .map(|c| c.confidence.max(1e-6).ln())
        .sum::<f32>()
        / cells.len().max(1) as f32
}

/// The likeliest class of a cell's probabilities or log-likelihoods.
pub fn argmax(values: &[f32; CLASSES]) -> usize {
    (0..CLASSES)
        .max_by(|&a, &b| values[a].total_cmp(&values[b]))
        .unwrap_or(0)
}

/// The digit model, ready to run.
pub struct DigitReader {
    session: Session,
    /// The model, and its name for errors: another reader is made from them.
    model: Arc<[u8]>,
    name: PathBuf,
}

impl DigitReader {
    /// Loads the model built into the binary.
    pub fn builtin() -> Result<Self> {
        Self::from_bytes(BUILTIN_MODEL, Path::new("<built-in digits.onnx>"))
    }

    /// Loads a model from an `.onnx` file.
    pub fn from_file(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| Error::Model {
            path: path.into(),
            reason: e.to_string(),
        })?;
        Self::from_bytes(&bytes, path)
    }

    fn from_bytes(bytes: &[u8], name: &Path) -> Result<Self> {
        let environment = environment()?;
        let model_error = |e: ort::Error| Error::Model {
            path: name.into(),
            reason: e.to_string(),
        };
        let session = Session::builder(environment)
            .and_then(|b| {
                b.with_optimization_level(GraphOptimizationLevel::Level3)
                    .map_err(Into::into)
            })
            .and_then(|b| b.with_intra_threads(1).map_err(Into::into))
            .map_err(model_error)?
            .commit_from_memory(bytes)
            .map_err(model_error)?;
        Ok(DigitReader {
            session,
            model: bytes.into(),
            name: name.into(),
        })
    }

    /// Another reader of the same model (a session of its own), for another puzzle followed in
    /// live video.
    pub fn try_clone(&self) -> Result<Self> {
        Self::from_bytes(&self.model, &self.name)
    }

    /// Classifies a batch of cells shaped `[N, 1, CELL, CELL]`, values 0 to 255.
    pub fn read(&mut self, cells: ArrayView4<f32>) -> Result<Vec<CellReading>> {
        let n = cells.shape()[0];
        let input = TensorRef::from_array_view(cells)?;
        let outputs = self.session.run(ort::inputs![input])?;
        let logits = outputs[0].try_extract_array::<f32>()?;
        let width = logits.shape().get(1).copied().unwrap_or(0);
        if logits.shape()[0] != n || (width != CLASSES && width != CLASSES_WITH_STYLE) {
            return Err(Error::Inference(format!(
                "model gave output of shape {:?}, expected [{n}, {CLASSES}] or [{n}, {CLASSES_WITH_STYLE}]",
                logits.shape()
            )));
        }
        Ok(logits
            .outer_iter()
            .map(|row| match row.as_slice() {
                Some(values) => reading_from_logits(values),
                None => reading_from_logits(&row.iter().copied().collect::<Vec<f32>>()),
            })
            .collect())
    }

    /// Reads a whole grid: the 81 cells from [`crate::recognize::cells::cell_batch`].
    pub fn read_grid(&mut self, cells: ArrayView4<f32>) -> Result<GridReading> {
        Ok(GridReading(self.read(cells)?))
    }
}

fn reading_from_logits(logits: &[f32]) -> CellReading {
    let max = logits.iter().copied().fold(f32::MIN, f32::max);
    let mut p: Vec<f32> = logits.iter().map(|&l| (l - max).exp()).collect();
    let sum: f32 = p.iter().sum();
    p.iter_mut().for_each(|v| *v /= sum);
    let handwritten_of = |d: usize| {
        if p.len() == CLASSES_WITH_STYLE && d > 0 {
            p[d + 9]
        } else {
            0.0
        }
    };
    let probabilities: [f32; CLASSES] = std::array::from_fn(|d| p[d] + handwritten_of(d));
    let mut as_clue: [f32; CLASSES] = std::array::from_fn(|d| p[d]);
    as_clue[0] += (1..CLASSES).map(handwritten_of).sum::<f32>();
    let (digit, &confidence) = probabilities
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap_or((0, &0.0));
    let handwritten = digit > 0 && handwritten_of(digit) > p[digit];
    CellReading {
        digit: digit as u8,
        handwritten,
        confidence,
        probabilities,
        as_clue,
        hidden: false,
        smeared: false,
        under: false,
        entry_by_ink: false,
    }
}

/// ONNX Runtime's one environment per process, loaded on first use from the first library
/// found by [`runtime_candidates`].
fn environment() -> Result<&'static ort::environment::Environment> {
    static ENVIRONMENT: OnceLock<std::result::Result<ort::environment::Environment, String>> =
        OnceLock::new();
    ENVIRONMENT
        .get_or_init(load_environment)
        .as_ref()
        .map_err(|reason| Error::Runtime {
            reason: reason.clone(),
        })
}

fn load_environment() -> std::result::Result<ort::environment::Environment, String> {
    let candidates = runtime_candidates();
    let Some(path) = candidates.iter().find(|p| p.is_file()) else {
        let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        return Err(format!("no libonnxruntime.so at {}", tried.join(", ")));
    };
    tracing::debug!(path = %path.display(), "loading ONNX Runtime");
    let builder = ort::init_from(path).map_err(|e| format!("{}: {e}", path.display()))?;
    builder
        .with_name("sudoku-ar")
        .build()
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Where the ONNX Runtime library is looked for, in order: `ORT_DYLIB_PATH` when set (and then
/// only there), next to the executable, in `target/onnxruntime/` beside a binary built by cargo,
/// and in this checkout's `target/onnxruntime/`, where `.ci/setup` puts it.
pub fn runtime_candidates() -> Vec<PathBuf> {
    const NAME: &str = "libonnxruntime.so";
    if let Some(path) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        return vec![PathBuf::from(path)];
    }
    let mut candidates = Vec::new();
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        candidates.push(dir.join(NAME));
        // target/release/sudoku-ar and target/debug/deps/<test> both sit below target/.
        for up in dir.ancestors().skip(1).take(2) {
            candidates.push(up.join("onnxruntime").join(NAME));
        }
    }
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/onnxruntime")
            .join(NAME),
    );
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_picks_the_largest_logit() {
        let mut logits = [0.0f32; CLASSES];
        logits[7] = 5.0;
        logits[1] = 3.0;
        let reading = reading_from_logits(&logits);
        assert_eq!((reading.digit, reading.handwritten), (7, false));
        assert!((reading.probabilities.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!(reading.confidence > 0.8 && reading.probabilities[1] > reading.probabilities[2]);
        assert_eq!(reading.as_clue, reading.probabilities);
    }

    #[test]
    fn printed_and_handwritten_classes_add_up_per_digit() {
        let mut logits = [0.0f32; CLASSES_WITH_STYLE];
        logits[4] = 2.0; // printed 4
        logits[9 + 4] = 2.5; // handwritten 4
        logits[9 + 9] = 2.8; // handwritten 9, likelier than either 4 alone but not than both
        let reading = reading_from_logits(&logits);
        assert_eq!((reading.digit, reading.handwritten), (4, true));
        assert!(reading.probabilities[4] > reading.probabilities[9]);
        // As a printed clue the cell is most likely "no clue" (empty or handwritten).
        assert!(reading.as_clue[0] > reading.as_clue[4]);
        assert!((reading.as_clue.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn corrupt_model_is_a_model_error() {
        match DigitReader::from_bytes(b"not a model", Path::new("junk.onnx")) {
            Err(Error::Model { path, .. }) => assert_eq!(path, Path::new("junk.onnx")),
            other => panic!("expected a model error, got {:?}", other.map(|_| ())),
        }
    }
}
