//! Recognition: the one path from a grid's corners in a picture to the puzzle it shows, shared
//! by still photos ([`crate::photo`]) and live video ([`crate::video::vision`]), so that a
//! video frame is read exactly as well as the same picture would be as a photo.
//!
//! [`detect`] finds a grid's corners; [`recognize`] cuts the cells along the printed lines
//! ([`lines`], [`cells`]), reads them ([`read`]) and turns the grid the right way up when it
//! reads better turned ([`orient`]); [`verdict`] judges which puzzle the reading shows, with
//! [`decode`] choosing the most likely one the rules allow.

pub mod cells;
pub mod decode;
pub mod detect;
pub mod lines;
pub mod orient;
pub mod read;
pub mod verdict;

use std::time::{Duration, Instant};

use opencv::core::Mat;

use crate::error::Result;
use crate::geometry::Quad;
use read::{DigitReader, GridReading};

/// Whether which way up the grid is still needs finding out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// Read it turned too when the upright reading is unsure or breaks the rules.
    Unknown,
    /// Already settled (a tracked grid read before): read it as it is.
    Known,
}

/// A grid as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Recognition {
    /// Corners in the picture's pixels, in the puzzle's own orientation (top-left first): where
    /// the printed border lines cross when they could be followed, else the corners given.
    pub quad: Quad,
    pub reading: GridReading,
    /// Whether the grid was read turned from the corners' order.
    pub turned: bool,
    /// Whether `quad` is, at some corners, where the printed border lines were found to cross
    /// (else it is the corners given, turned when `turned`).
    pub on_lines: bool,
}

/// Time spent in [`recognize`], by step.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecognizeTimes {
    /// Following the printed lines and cutting the cells.
    pub rectify: Duration,
    /// The digit model, including any turned readings.
    pub read: Duration,
}

/// Reads the grid whose corners in `gray` are `quad`.
///
/// The cells are cut from between the printed lines around each (right on curved paper and
/// when `quad` is a little off), or by the corners alone when the lines can't be followed.
pub fn recognize(
    reader: &mut DigitReader,
    gray: &Mat,
    quad: &Quad,
    orientation: Orientation,
    times: &mut RecognizeTimes,
) -> Result<Recognition> {
    let start = Instant::now();
    // The cells are cut along whatever lines were followed; a corner of the outline is taken
    // from the lines only where both border lines through it were seen (a border next to a
    // dark table or a screen's bezel may not be), else from the corners given.
    let (rectified, quad, on_lines) = match cells::rectify_along_lines(gray, quad)? {
        Some(fitted) => {
            let [top, right, bottom, left] = fitted.border_seen;
            let seen = [top && left, top && right, bottom && right, bottom && left];
            let corners = Quad(std::array::from_fn(|i| {
                if seen[i] { fitted.quad.0[i] } else { quad.0[i] }
            }));
            (fitted.rectified, corners, seen.iter().any(|&s| s))
        }
        None => (cells::rectify(gray, quad)?, *quad, false),
    };
    times.rectify = start.elapsed();
    let start = Instant::now();
    let reading = reader.read_grid(cells::cell_batch(&rectified)?.view())?;
    let mut recognition = Recognition {
        quad,
        reading,
        turned: false,
        on_lines,
    };
    if orientation == Orientation::Unknown
        && needs_turning(&recognition.reading)
        && let Some((turned_quad, turned)) =
            orient::read_turned(reader, &rectified, &quad, &recognition.reading)?
    {
        tracing::debug!("grid is turned; reading it the right way up");
        recognition = Recognition {
            quad: turned_quad,
            reading: turned,
            turned: true,
            on_lines,
        };
    }
    times.read = start.elapsed();
    Ok(recognition)
}

/// Whether an upright reading is doubtful enough to try the other three ways up.
fn needs_turning(reading: &GridReading) -> bool {
    !reading.is_confident() || crate::solve::solve(&reading.printed()).is_err()
}
