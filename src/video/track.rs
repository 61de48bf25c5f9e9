//! Following a found grid from frame to frame without searching the whole picture again.
//!
//! The 100 crossings of the grid's lines are predicted in the new frame from the last
//! `image_from_grid`, found there by pyramidal Lucas-Kanade optical flow, and a homography is
//! fitted to them with RANSAC. Fitting grid coordinates (not last frame's points) to the
//! measured positions keeps errors from adding up; RANSAC ignores crossings hidden by a finger.
//! Snapping the border onto the printed line (as detection does) was tried and dropped: with
//! part of the grid out of view it pulled the border onto the next inner line, a little more
//! each frame.

use opencv::core::{Mat, Point2f, Size, TermCriteria, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::Result;
use crate::geometry::{Homography, Quad};

/// Frames are tracked at most this wide or high: enough for sub-pixel flow on a grid that
/// fills a fair part of the view, and a quarter of the work of 1080p.
pub const TRACK_SIDE: f64 = 960.0;
/// Crossings that must move consistently for the grid to count as still there.
const MIN_INLIERS: usize = 30;
/// RANSAC tolerance, in tracking pixels.
const INLIER_DISTANCE: f64 = 2.5;
/// Share of the grid that must be in the frame: a grid mostly gone can't be verified.
const MIN_VISIBLE: f64 = 0.5;

/// A tracking-resolution copy of a frame, kept for the next frame's flow.
pub struct TrackFrame {
    small: Mat,
    /// Full-resolution pixels per tracking pixel.
    scale: f64,
}

impl TrackFrame {
    /// Shrinks `gray` (the full frame) for tracking.
    pub fn new(gray: &Mat) -> Result<TrackFrame> {
        let scale = (gray.cols().max(gray.rows()) as f64 / TRACK_SIDE).max(1.0);
        if scale == 1.0 {
            return Ok(TrackFrame {
                small: gray.try_clone()?,
                scale,
            });
        }
        let size = Size::new(
            (gray.cols() as f64 / scale).round() as i32,
            (gray.rows() as f64 / scale).round() as i32,
        );
        let mut small = Mat::default();
        imgproc::resize(gray, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        Ok(TrackFrame { small, scale })
    }
}

/// Where the grid went: the new `image_from_grid` (unit square to full-resolution pixels) and
/// how many crossings agreed.
#[derive(Debug, Clone, Copy)]
pub struct Tracked {
    pub image_from_grid: Homography,
    pub inliers: usize,
}

/// Moves the grid at `image_from_grid` in `previous` to `current`, starting the search where
/// `predicted` puts it (the last frame's motion, continued); None when the grid was lost (left
/// the view, covered, or the flow disagreed).
///
/// The prediction matters: a grid is a repeating pattern, and a crossing searched for more than
/// half a cell from where it went is found at its neighbour's place.
pub fn track(
    previous: &TrackFrame,
    current: &TrackFrame,
    image_from_grid: &Homography,
    predicted: &Homography,
) -> Result<Option<Tracked>> {
    let width = current.small.cols() as f32;
    let height = current.small.rows() as f32;
    let small_from_image = Homography::scaling(1.0 / current.scale);
    let crossings = crossings();
    let points_under = |h: &Homography| -> Vector<Point2f> {
        let small_from_grid = small_from_image.after(h);
        crossings
            .iter()
            .map(|&p| {
                let [x, y] = small_from_grid.apply(p);
                Point2f::new(x as f32, y as f32)
            })
            .collect()
    };
    let last = points_under(image_from_grid);
    let predicted = points_under(predicted);
    let inside = predicted
        .iter()
        .filter(|p| p.x >= 0.0 && p.y >= 0.0 && p.x < width && p.y < height)
        .count();
    if (inside as f64) < MIN_VISIBLE * crossings.len() as f64 {
        tracing::trace!(inside, "grid mostly out of view");
        return Ok(None);
    }
    let mut found = predicted;
    let mut status = Vector::<u8>::new();
    let mut error = Vector::<f32>::new();
    let criteria = TermCriteria::new(
        opencv::core::TermCriteria_COUNT + opencv::core::TermCriteria_EPS,
        20,
        0.03,
    )?;
    opencv::video::calc_optical_flow_pyr_lk(
        &previous.small,
        &current.small,
        &last,
        &mut found,
        &mut status,
        &mut error,
        Size::new(15, 15),
        3,
        criteria,
        opencv::video::OPTFLOW_USE_INITIAL_FLOW,
        1e-4,
    )?;
    // Fit grid coordinates to where the crossings were found.
    let mut from = Vector::<Point2f>::new();
    let mut to = Vector::<Point2f>::new();
    for (i, p) in found.iter().enumerate() {
        if status.get(i)? == 1 && p.x >= 0.0 && p.y >= 0.0 && p.x < width && p.y < height {
            let [gx, gy] = crossings[i];
            from.push(Point2f::new(
                (gx * GRID_UNITS) as f32,
                (gy * GRID_UNITS) as f32,
            ));
            to.push(p);
        }
    }
    if from.len() < MIN_INLIERS {
        return Ok(None);
    }
    let mut mask = Mat::default();
    let fitted = opencv::calib3d::find_homography(
        &from,
        &to,
        &mut mask,
        opencv::calib3d::RANSAC,
        INLIER_DISTANCE,
    )?;
    if fitted.empty() {
        return Ok(None);
    }
    let inliers = opencv::core::count_non_zero(&mask)? as usize;
    if inliers < MIN_INLIERS {
        tracing::trace!(inliers, "too few crossings agree");
        return Ok(None);
    }
    let mut h = [0.0; 9];
    for (k, value) in h.iter_mut().enumerate() {
        *value = *fitted.at_2d::<f64>((k / 3) as i32, (k % 3) as i32)?;
    }
    let small_from_units = Homography(h);
    let image_from_grid = Homography::scaling(current.scale)
        .after(&small_from_units)
        .after(&Homography::scaling(GRID_UNITS));
    let quad = quad_of(&image_from_grid);
    if !quad.is_convex() {
        return Ok(None);
    }
    Ok(Some(Tracked {
        image_from_grid,
        inliers,
    }))
}

/// Grid coordinates are fitted in ninths (cells), which keeps RANSAC's numbers well scaled.
const GRID_UNITS: f64 = 9.0;

/// The 10 x 10 crossings of the grid's lines, in unit-square coordinates.
fn crossings() -> [[f64; 2]; 100] {
    std::array::from_fn(|i| [(i % 10) as f64 / 9.0, (i / 10) as f64 / 9.0])
}

/// The grid's corners under `image_from_grid`.
pub fn quad_of(image_from_grid: &Homography) -> Quad {
    Quad(Quad::UNIT.0.map(|p| image_from_grid.apply(p)))
}
