//! Which way up a grid is: a photo may be taken sideways or upside down.

use opencv::core::{self, Mat};

use crate::error::Result;
use crate::geometry::Quad;
use crate::recognize::cells;
use crate::recognize::read::{DigitReader, GridReading, plausibility};

/// How many digit cells, at most, are read turned to judge which way up the grid is.
const TURN_SAMPLE: usize = 12;

/// Reads the grid turned by a quarter, half and three quarters; returns the reading, the
/// re-ordered corners and the turned grid of the turn that reads more plausibly than
/// `upright`, if any.
///
/// To keep this cheap, the three turns are first judged on a sample of the digit cells only (in
/// one batch, each cell's picture turned in place); the whole grid is read again only for the
/// winning turn, and that reading must beat `upright` too.
pub fn read_turned(
    reader: &mut DigitReader,
    rectified: &Mat,
    quad: &Quad,
    upright: &GridReading,
) -> Result<Option<(Quad, GridReading, Mat)>> {
    // OpenCV rotation, and which corner of the picture becomes the puzzle's top-left.
    const TURNS: [(i32, usize); 3] = [
        (core::ROTATE_90_CLOCKWISE, 3),
        (core::ROTATE_180, 2),
        (core::ROTATE_90_COUNTERCLOCKWISE, 1),
    ];
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
    Ok(Some((corners, reading, turned)))
}
