//! sudoku-ar: finds a printed Sudoku in a picture, reads it, solves it and draws the missing
//! digits back onto the paper in perspective.
//!
//! One module per pipeline stage:
//! [`detect`] (find the grid) → [`cells`] (rectify and cut, along the lines [`lines`] follows) → [`read`] (digit model) →
//! [`solve`] (with [`decode`] choosing the most likely puzzle when the reading is in doubt) → [`overlay`] (draw), tied together for still pictures by [`photo`].
//!
//! Live video adds [`capture`] (video files and webcams), [`track`] (following the grid frame
//! to frame), [`vision`] (when to detect, read and solve; the solution cache) and [`display`]
//! (window, video and JSON output), run as three threads by [`live`].

pub mod capture;
pub mod cells;
pub mod decode;
pub mod detect;
pub mod display;
pub mod error;
pub mod geometry;
pub mod grid;
pub mod lines;
pub mod live;
pub mod overlay;
pub mod photo;
pub mod raster;
pub mod read;
pub mod solve;
pub mod track;
pub mod vision;

pub use error::{Error, Result};
