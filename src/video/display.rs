//! The display stage: draws each frame's solution with that frame's own homography, and shows
//! it in a window, writes it to a video, and logs it as JSON lines.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use opencv::core::{Mat, Point, Scalar, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;
use opencv::videoio::VideoWriter;
use serde::Serialize;

use crate::error::io_reason;
use crate::error::{Error, Result};
use crate::grid::Grid;
use crate::overlay;
use crate::video::vision::{FrameView, LiveState, PuzzleView};

/// Outline colours (BGR): a grid being read (or solved, its digits held back this frame), and
/// one judged without a single solution.
const READING_COLOUR: [u8; 3] = [0, 165, 255];
const UNSOLVED_COLOUR: [u8; 3] = [40, 40, 230];

/// Rendered digit masks, one per solved puzzle: rendering is done once, warping every frame.
#[derive(Default)]
pub struct Painter {
    /// By puzzle and the entries left out (rendered again when somebody writes in a digit).
    masks: HashMap<(u64, Grid), Mat>,
    /// Circles around wrong entries, by the entries circled.
    marks: HashMap<Grid, Mat>,
}

impl Painter {
    /// Draws `view` onto `image`: the solution's digits when they are to be drawn, else a thin
    /// outline of the grid being read or solved (orange) or judged unsolvable or ambiguous (red);
    /// and the digits of the other puzzles in view solved.
    pub fn paint(&mut self, image: &mut Mat, view: &FrameView) -> Result<()> {
        for puzzle in view.puzzle.iter().chain(&view.others) {
            self.paint_puzzle(image, puzzle)?;
        }
        Ok(())
    }

    fn paint_puzzle(&mut self, image: &mut Mat, puzzle: &PuzzleView) -> Result<()> {
        if let Some(known) = &puzzle.solved
            && let Some(solution) = &known.solution
        {
            // Not drawn over digits somebody wrote in, as on a photo (`photo::annotate`).
            let key = (known.id, puzzle.entries);
            let mask = match self.masks.get(&key) {
                Some(mask) => mask,
                None => {
                    let filled = known.clues.merged(&puzzle.entries);
                    let mask = overlay::render_digits(&filled, solution)?;
                    self.masks.entry(key).or_insert(mask)
                }
            };
            overlay::draw(
                image,
                mask,
                &puzzle.quad,
                puzzle.bend.as_ref(),
                overlay::SOLUTION_COLOUR,
            )?;
            if puzzle.wrong != Grid::EMPTY {
                // "Check my work": entries the solution contradicts are circled, as on a photo.
                let marks = match self.marks.get(&puzzle.wrong) {
                    Some(marks) => marks,
                    None => {
                        let marks = overlay::render_marks(&puzzle.wrong.filled_cells())?;
                        self.marks.entry(puzzle.wrong).or_insert(marks)
                    }
                };
                overlay::draw(
                    image,
                    marks,
                    &puzzle.quad,
                    puzzle.bend.as_ref(),
                    overlay::WRONG_COLOUR,
                )?;
            }
            return Ok(());
        }
        let colour = match puzzle.state {
            // Being read, or solved but not drawn on this frame (the page moves too fast, or the
            // track is being aligned again): still at work, orange; not the red of a verdict.
            LiveState::Reading | LiveState::Solved | LiveState::Partial => READING_COLOUR,
            LiveState::Unsolvable | LiveState::Multiple => UNSOLVED_COLOUR,
        };
        let thickness = (image.cols().max(image.rows()) / 500).max(2);
        overlay::outline(image, &puzzle.quad, colour, thickness)
    }
}

/// One line of `--jsonl`.
#[derive(Debug, Serialize)]
pub struct JsonFrame {
    pub frame: u64,
    pub puzzle: Option<JsonPuzzle>,
    /// Other puzzles in view, solved and drawn on the frame; left out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<JsonPuzzle>,
}

#[derive(Debug, Serialize)]
pub struct JsonPuzzle {
    /// Top-left, top-right, bottom-right, bottom-left, in frame pixels.
    pub corners: [[f64; 2]; 4],
    pub clues: String,
    /// Present exactly when the solution is drawn on the frame.
    pub solution: Option<String>,
    pub status: &'static str,
    /// Whether something over the paper hides part of the grid while it is read.
    pub covered: bool,
    /// Cells (0-80, row by row) whose handwritten entry the drawn solution contradicts
    /// (circled in red); empty unless the solution is drawn.
    pub wrong_entries: Vec<usize>,
    /// Where the printed lines are taken to cross (`[row line][column line]`, both 0-9, in
    /// frame pixels), each digit drawn between its cell's four: present exactly when the
    /// solution is drawn. On flat paper the homography of `corners` puts them; on curved paper
    /// they follow the bend.
    pub lattice: Option<[[[f64; 2]; 10]; 10]>,
}

impl JsonFrame {
    pub fn new(frame: u64, view: &FrameView) -> JsonFrame {
        JsonFrame {
            frame,
            puzzle: view.puzzle.as_ref().map(JsonPuzzle::from),
            others: view.others.iter().map(JsonPuzzle::from).collect(),
        }
    }
}

impl From<&PuzzleView> for JsonPuzzle {
    fn from(p: &PuzzleView) -> Self {
        JsonPuzzle {
            corners: p
                .quad
                .0
                .map(|[x, y]| [(x * 100.0).round() / 100.0, (y * 100.0).round() / 100.0]),
            clues: p.clues.to_string(),
            solution: p
                .solved
                .as_ref()
                .and_then(|k| k.solution)
                .map(|s| s.to_string()),
            status: p.state.as_str(),
            covered: p.covered,
            wrong_entries: match p.solved {
                Some(_) => p.wrong.filled_cells(),
                None => Vec::new(),
            },
            lattice: p
                .solved
                .as_ref()
                .and_then(|_| overlay::drawn_lattice(&p.quad, p.bend.as_ref()))
                .map(|l| {
                    l.0.map(|row| row.map(|c| c.map(|v| (v * 100.0).round() / 100.0)))
                }),
        }
    }
}

/// `--jsonl FILE`: one line per frame, flushed at the end.
pub struct JsonLines {
    path: PathBuf,
    out: BufWriter<File>,
}

impl JsonLines {
    pub fn create(path: &Path) -> Result<JsonLines> {
        let file = File::create(path).map_err(|e| Error::Output {
            path: path.into(),
            reason: io_reason(&e),
        })?;
        Ok(JsonLines {
            path: path.into(),
            out: BufWriter::new(file),
        })
    }

    pub fn write(&mut self, row: &JsonFrame) -> Result<()> {
        let line = serde_json::to_string(row).map_err(|e| Error::Output {
            path: self.path.clone(),
            reason: e.to_string(),
        })?;
        writeln!(self.out, "{line}").map_err(|e| Error::Output {
            path: self.path.clone(),
            reason: io_reason(&e),
        })
    }

    pub fn finish(mut self) -> Result<()> {
        self.out.flush().map_err(|e| Error::Output {
            path: self.path.clone(),
            reason: io_reason(&e),
        })
    }
}

/// `--output FILE`: the overlaid frames as an MPEG-4 video, opened at the first frame's size.
pub struct VideoOut {
    path: PathBuf,
    fps: f64,
    writer: Option<VideoWriter>,
}

impl VideoOut {
    /// Checks that `path` can be written before any work is done.
    pub fn new(path: &Path, fps: f64) -> Result<VideoOut> {
        File::create(path).map_err(|e| Error::Output {
            path: path.into(),
            reason: io_reason(&e),
        })?;
        Ok(VideoOut {
            path: path.into(),
            fps,
            writer: None,
        })
    }

    /// The frame rate written into the file; the source's, once it is known.
    pub fn set_fps(&mut self, fps: f64) {
        self.fps = fps;
    }

    pub fn write(&mut self, image: &Mat) -> Result<()> {
        let writer = match &mut self.writer {
            Some(w) => w,
            None => {
                let fourcc = VideoWriter::fourcc('m', 'p', '4', 'v')?;
                let size = Size::new(image.cols(), image.rows());
                let w = VideoWriter::new(&self.path, fourcc, self.fps, size, true)?;
                if !w.is_opened()? {
                    return Err(Error::Output {
                        path: self.path.clone(),
                        reason: "OpenCV cannot encode MPEG-4 video here".into(),
                    });
                }
                self.writer.insert(w)
            }
        };
        writer.write(image)?;
        Ok(())
    }

    pub fn finish(mut self) -> Result<()> {
        if let Some(mut w) = self.writer.take() {
            w.release()?;
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What the window asks of the run after a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Continue,
    Quit,
}

/// The live window (minifb), with a status line and keys: q or Esc quit, space pause,
/// s save a screenshot.
pub struct Window {
    window: minifb::Window,
    buffer: Vec<u32>,
    paused: bool,
    screenshots: u32,
    last_shown: Option<Instant>,
    fps: f64,
}

impl Window {
    /// Opens a window; fails (with the reason) when there is no display.
    pub fn open(title: &str, width: usize, height: usize) -> Result<Window> {
        if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
            return Err(Error::Window("no display (DISPLAY is not set)".into()));
        }
        let options = minifb::WindowOptions {
            resize: true,
            ..minifb::WindowOptions::default()
        };
        let window = minifb::Window::new(title, width, height, options)
            .map_err(|e| Error::Window(e.to_string()))?;
        Ok(Window {
            window,
            buffer: Vec::new(),
            paused: false,
            screenshots: 0,
            last_shown: None,
            fps: 0.0,
        })
    }

    /// Shows `image` (BGR) with a status line, and handles keys. While paused the last frame
    /// stays up and this waits, which holds the pipeline (replay) or drops frames (live).
    pub fn show(&mut self, image: &Mat, state: &str, latency_ms: f64) -> Result<Request> {
        let now = Instant::now();
        if let Some(last) = self.last_shown {
            let dt = now.duration_since(last).as_secs_f64().max(1e-6);
            self.fps = if self.fps == 0.0 {
                1.0 / dt
            } else {
                0.9 * self.fps + 0.1 / dt
            };
        }
        self.last_shown = Some(now);
        let mut shown = image.try_clone()?;
        let status = format!("{:.1} fps | {state} | {latency_ms:.0} ms", self.fps);
        status_line(&mut shown, &status)?;
        self.fill_buffer(&shown)?;
        loop {
            let (w, h) = (shown.cols() as usize, shown.rows() as usize);
            self.window
                .update_with_buffer(&self.buffer, w, h)
                .map_err(|e| Error::Window(e.to_string()))?;
            if !self.window.is_open()
                || self.window.is_key_down(minifb::Key::Escape)
                || self.window.is_key_down(minifb::Key::Q)
            {
                return Ok(Request::Quit);
            }
            if self
                .window
                .is_key_pressed(minifb::Key::S, minifb::KeyRepeat::No)
            {
                self.screenshots += 1;
                let path = PathBuf::from(format!(
                    "sudoku-ar-{}-{}.png",
                    std::process::id(),
                    self.screenshots
                ));
                save_png(&path, &shown)?;
                tracing::info!("saved screenshot {}", path.display());
                eprintln!("saved screenshot {}", path.display());
            }
            if self
                .window
                .is_key_pressed(minifb::Key::Space, minifb::KeyRepeat::No)
            {
                self.paused = !self.paused;
            }
            if !self.paused {
                return Ok(Request::Continue);
            }
            std::thread::sleep(std::time::Duration::from_millis(15));
        }
    }

    fn fill_buffer(&mut self, image: &Mat) -> Result<()> {
        let (w, h) = (image.cols() as usize, image.rows() as usize);
        self.buffer.resize(w * h, 0);
        let bytes = image.data_bytes()?;
        for (pixel, bgr) in self.buffer.iter_mut().zip(bytes.chunks_exact(3)) {
            *pixel = (bgr[2] as u32) << 16 | (bgr[1] as u32) << 8 | bgr[0] as u32;
        }
        Ok(())
    }
}

/// Encodes BGR frames as PNG, for screenshots.
pub fn save_png(path: &Path, image: &Mat) -> Result<()> {
    let mut bytes = Vector::<u8>::new();
    opencv::imgcodecs::imencode(".png", image, &mut bytes, &Vector::new())?;
    std::fs::write(path, bytes.as_slice()).map_err(|e| Error::Output {
        path: path.into(),
        reason: io_reason(&e),
    })
}

/// White text on a dark band across the top of the frame.
fn status_line(image: &mut Mat, text: &str) -> Result<()> {
    let scale = (image.cols() as f64 / 1280.0).max(0.5) * 0.7;
    let band = (28.0 * scale / 0.7) as i32;
    let rect = opencv::core::Rect::new(0, 0, image.cols(), band.min(image.rows()));
    imgproc::rectangle(
        image,
        rect,
        Scalar::new(0.0, 0.0, 0.0, 0.0),
        -1,
        imgproc::LINE_8,
        0,
    )?;
    let origin = Point::new(8, band - band / 4);
    let white = Scalar::new(255.0, 255.0, 255.0, 0.0);
    imgproc::put_text(
        image,
        text,
        origin,
        imgproc::FONT_HERSHEY_SIMPLEX,
        scale,
        white,
        1,
        imgproc::LINE_AA,
        false,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Quad;
    use crate::recognize::verdict::Status;
    use crate::recognize::verdict::tests::PUZZLE;
    use crate::video::vision::{Known, VisionTimes};
    use opencv::core::{CV_8UC3, Rect};
    use std::sync::Arc;

    /// Pixels of the solution's colour in cell `cell` of a grid drawn at 90 px cells from (45, 45).
    fn green_in(image: &Mat, cell: usize) -> usize {
        count_in(image, cell, |p| p[1] > 100 && p[0] < 80 && p[2] < 80)
    }

    fn red_in(image: &Mat, cell: usize) -> usize {
        count_in(image, cell, |p| p[2] > 150 && p[0] < 120 && p[1] < 120)
    }

    fn count_in(image: &Mat, cell: usize, counts: impl Fn(opencv::core::Vec3b) -> bool) -> usize {
        let (row, col) = ((cell / 9) as i32, (cell % 9) as i32);
        let region = Mat::roi(image, Rect::new(45 + col * 90, 45 + row * 90, 90, 90)).unwrap();
        let mut green = 0;
        for y in 0..region.rows() {
            for x in 0..region.cols() {
                let p = region.at_2d::<opencv::core::Vec3b>(y, x).unwrap();
                green += usize::from(counts(*p));
            }
        }
        green
    }

    #[test]
    fn the_solution_is_not_drawn_over_a_digit_somebody_wrote_in_and_a_wrong_one_is_circled() {
        let clues: Grid = PUZZLE.parse().unwrap();
        let solution = crate::solve::solve(&clues).unwrap();
        let empty: Vec<usize> = (0..81).filter(|&i| clues.0[i] == 0).collect();
        let (written, left) = (empty[0], empty[1]);
        let mut entries = Grid::EMPTY;
        entries.0[written] = solution.0[written];
        let known = Arc::new(Known {
            id: 0,
            clues,
            solution: Some(solution),
            status: Status::Solved,
        });
        let quad = Quad([[45.0, 45.0], [855.0, 45.0], [855.0, 855.0], [45.0, 855.0]]);
        let view = |entries: Grid, wrong: Grid| FrameView {
            puzzle: Some(PuzzleView {
                quad,
                bend: None,
                clues,
                state: LiveState::Solved,
                solved: Some(known.clone()),
                entries,
                wrong,
                covered: false,
            }),
            others: Vec::new(),
            times: VisionTimes::default(),
        };
        let mut painter = Painter::default();
        let blank =
            || Mat::new_rows_cols_with_default(900, 900, CV_8UC3, Scalar::all(255.0)).unwrap();
        let mut image = blank();
        painter
            .paint(&mut image, &view(entries, Grid::EMPTY))
            .unwrap();
        assert_eq!(green_in(&image, written), 0);
        assert!(green_in(&image, left) > 50);
        assert_eq!(red_in(&image, written), 0);
        // Rubbed out again: drawn there too.
        let mut image = blank();
        painter
            .paint(&mut image, &view(Grid::EMPTY, Grid::EMPTY))
            .unwrap();
        assert!(green_in(&image, written) > 50);
        // A wrong digit written in: circled in red, nothing drawn over it.
        let mut entries = Grid::EMPTY;
        entries.0[written] = solution.0[written] % 9 + 1;
        let mut image = blank();
        painter.paint(&mut image, &view(entries, entries)).unwrap();
        assert!(red_in(&image, written) > 50);
        assert_eq!(green_in(&image, written), 0);
        assert_eq!(red_in(&image, left), 0);
    }

    #[test]
    fn other_puzzles_are_in_the_json_line_only_when_there_are_some() {
        let view = FrameView::default();
        let line = serde_json::to_string(&JsonFrame::new(7, &view)).unwrap();
        assert_eq!(line, r#"{"frame":7,"puzzle":null}"#);
        let other = PuzzleView {
            quad: Quad([[0.0, 0.0], [9.0, 0.0], [9.0, 9.0], [0.0, 9.0]]),
            bend: None,
            clues: Grid::EMPTY,
            state: LiveState::Solved,
            solved: None,
            entries: Grid::EMPTY,
            wrong: Grid::EMPTY,
            covered: false,
        };
        let view = FrameView {
            others: vec![other],
            ..FrameView::default()
        };
        let line = serde_json::to_string(&JsonFrame::new(7, &view)).unwrap();
        assert!(
            line.contains(r#""others":[{"corners":[[0.0,0.0]"#),
            "{line}"
        );
    }

    #[test]
    fn a_solved_puzzle_whose_digits_are_held_back_is_outlined_as_at_work_not_as_unsolvable() {
        let quad = Quad([[45.0, 45.0], [855.0, 45.0], [855.0, 855.0], [45.0, 855.0]]);
        let outline_of = |state| {
            let view = FrameView {
                puzzle: Some(PuzzleView {
                    quad,
                    bend: None,
                    clues: Grid::EMPTY,
                    state,
                    solved: None,
                    entries: Grid::EMPTY,
                    wrong: Grid::EMPTY,
                    covered: false,
                }),
                others: Vec::new(),
                times: VisionTimes::default(),
            };
            let mut image =
                Mat::new_rows_cols_with_default(900, 900, CV_8UC3, Scalar::all(255.0)).unwrap();
            Painter::default().paint(&mut image, &view).unwrap();
            let p = *image.at_2d::<opencv::core::Vec3b>(450, 45).unwrap();
            [p[0], p[1], p[2]]
        };
        assert_eq!(outline_of(LiveState::Solved), READING_COLOUR);
        assert_eq!(outline_of(LiveState::Reading), READING_COLOUR);
        assert_eq!(outline_of(LiveState::Multiple), UNSOLVED_COLOUR);
    }
}
