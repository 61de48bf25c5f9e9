//! sudoku-ar: finds a printed Sudoku in a picture, reads it, solves it and draws the missing
//! digits back onto the paper in perspective.
//!
//! The folders follow the pipelines:
//! - [`recognize`]: the one recognition path, from a picture to the puzzle it shows (find the
//!   grid, cut its cells along the printed lines, read them, turn the grid upright, judge which
//!   puzzle it is), used by both pipelines;
//! - [`photo`]: still pictures (load, recognize, [`overlay`] the solution);
//! - [`video`]: live video and replays (capture, vision with tracking, display, as threads);
//! - [`solve`] the puzzle's rules; [`grid`], [`geometry`], [`bend`] (curved paper), [`raster`]
//!   and [`error`] are shared basics.

pub mod bend;
pub mod error;
pub mod geometry;
pub mod grid;
pub mod on_print;
pub mod overlay;
pub mod photo;
pub mod raster;
pub mod recognize;
pub mod solve;
pub mod video;

pub use error::{Error, Result};
