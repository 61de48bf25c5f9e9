//! Following a found grid from frame to frame without searching the whole picture again.
//!
//! The 100 crossings of the grid's lines are predicted in the new frame from the last
//! `image_from_grid`, found there by pyramidal Lucas-Kanade optical flow, and a homography is
//! fitted to them with RANSAC. Fitting grid coordinates (not last frame's points) to the
//! measured positions keeps errors from adding up; RANSAC ignores crossings hidden by a finger.
//! Snapping the border onto the printed line (as detection does) was tried and dropped: with
//! part of the grid out of view it pulled the border onto the next inner line, a little more
//! each frame. What holds the track on the printed grid is [`super::anchor`].

use opencv::core::{Mat, Point2f, Rect, Size, TermCriteria, Vector, no_array};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::Result;
use crate::geometry::{Homography, Quad};
use crate::raster::local_mean;

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

    /// The frame shrunk for tracking.
    pub fn small(&self) -> &Mat {
        &self.small
    }

    /// Full-resolution pixels per pixel of [`TrackFrame::small`].
    pub fn scale(&self) -> f64 {
        self.scale
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
    // A frame of another size (a camera or a video switching resolution): where the grid lay in
    // the last frame's pixels says nothing of where it lies in this one's, and the flow, asked
    // there, held it where it was (drawn a quarter of the grid off on a 1280x720 video going
    // on at 960x540).
    if previous.small.size()? != current.small.size()? || previous.scale != current.scale {
        tracing::debug!("the frame changed size");
        return Ok(None);
    }
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
    let cell = quad_of(&small_from_image.after(image_from_grid)).mean_side() / 9.0;
    let status = flow_near(&previous.small, &current.small, &last, &mut found, cell)?;
    // Fit grid coordinates to where the crossings were found.
    let mut from = Vector::<Point2f>::new();
    let mut to = Vector::<Point2f>::new();
    for (i, p) in found.iter().enumerate() {
        if status[i] && p.x >= 0.0 && p.y >= 0.0 && p.x < width && p.y < height {
            let [gx, gy] = crossings[i];
            from.push(Point2f::new(
                (gx * GRID_UNITS) as f32,
                (gy * GRID_UNITS) as f32,
            ));
            to.push(p);
        }
    }
    let Some((small_from_units, inliers)) =
        Homography::fit(&from, &to, INLIER_DISTANCE, MIN_INLIERS)?
    else {
        tracing::trace!(found = from.len(), "too few crossings agree");
        return Ok(None);
    };
    let image_from_grid = Homography::scaling(current.scale)
        .after(&small_from_units)
        .after(&Homography::scaling(GRID_UNITS));
    let quad = quad_of(&image_from_grid);
    if !quad.is_convex() || !quad.in_plausible_view() {
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
pub(super) fn crossings() -> [[f64; 2]; 100] {
    std::array::from_fn(|i| [(i % 10) as f64 / 9.0, (i / 10) as f64 / 9.0])
}

/// The grid's corners under `image_from_grid`.
pub fn quad_of(image_from_grid: &Homography) -> Quad {
    Quad(Quad::UNIT.0.map(|p| image_from_grid.apply(p)))
}

/// The flow runs at the finest pyramid level whose cells are still at least this many pixels
/// wide: finer adds cost, not precision (the anchor's alignment refines the track at 16 pixels
/// a cell), so a grid with cells of 32 px or more is followed from a halved picture.
const FLOW_CELL: f64 = 16.0;
/// Window of the frame-to-frame flow, in pixels of its finest level (where cells are 16-32
/// pixels wide). Flow's cost goes with the window's area; at 11 pixels the simulated camera's
/// overlays were drawn right on 0.15% fewer frames than at 15, at 13 as often.
const FLOW_WINDOW: i32 = 13;
/// Pyramid levels of the frame-to-frame flow above the tracking resolution: with the window,
/// how far a crossing may be from its predicted place and still be found.
const FLOW_LEVELS: i32 = 3;

/// Frame-to-frame [`flow`] of the grid's crossings, on the part of the frames around them only
/// (where they were and where they are looked for, plus what the coarsest level's window
/// reaches), and for a grid whose cells are `cell` pixels wide, with the finest pyramid levels
/// skipped down to [`FLOW_CELL`]: building the pyramids is most of flow's cost, and a grid
/// close to the camera fills the view.
fn flow_near(
    from: &Mat,
    to: &Mat,
    points: &Vector<Point2f>,
    found: &mut Vector<Point2f>,
    cell: f64,
) -> Result<Vec<bool>> {
    let skipped = ((cell / FLOW_CELL).max(1.0).log2().floor() as i32).min(FLOW_LEVELS - 1);
    let reach = ((FLOW_WINDOW / 2 + 2) << FLOW_LEVELS) as f32;
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for p in points.iter().chain(found.iter()) {
        x0 = x0.min(p.x);
        y0 = y0.min(p.y);
        x1 = x1.max(p.x);
        y1 = y1.max(p.y);
    }
    // Whole pixels of the coarsest skipped level, so that shrinking keeps pixel centres aligned.
    let unit = 1 << skipped;
    let snap_down =
        |v: f32, limit: i32| (((v - reach).floor() as i32).clamp(0, limit) / unit) * unit;
    let left = snap_down(x0, from.cols());
    let top = snap_down(y0, from.rows());
    let right = ((x1 + reach).ceil() as i32).clamp(left, from.cols());
    let bottom = ((y1 + reach).ceil() as i32).clamp(top, from.rows());
    let window = FLOW_WINDOW;
    if (right - left) >> skipped < window || (bottom - top) >> skipped < window {
        return Ok(vec![false; points.len()]);
    }
    let rect = Rect::new(left, top, right - left, bottom - top);
    let scale = unit as f32;
    let across = (cell as f32 / scale).round() as i32 | 1;
    let (from, to) = (
        level_detail(&shrunk(&Mat::roi(from, rect)?, skipped)?, across)?,
        level_detail(&shrunk(&Mat::roi(to, rect)?, skipped)?, across)?,
    );
    let into = |v: &Vector<Point2f>| -> Vector<Point2f> {
        v.iter()
            .map(|p| Point2f::new((p.x - left as f32) / scale, (p.y - top as f32) / scale))
            .collect()
    };
    let near_points = into(points);
    let mut near_found = into(found);
    let status = flow(
        &from,
        &to,
        &near_points,
        &mut near_found,
        window,
        FLOW_LEVELS - skipped,
    )?;
    *found = near_found
        .iter()
        .map(|p| Point2f::new(p.x * scale + left as f32, p.y * scale + top as f32))
        .collect();
    Ok(status)
}

/// `picture` minus its mean over `across` pixels, around 128: what the flow follows, so that
/// light changing between frames (a screen's flicker rolling down the frame) is not taken for
/// the paper moving. On the frames as seen, a phone screen filmed under bands 15-30% deep lost
/// the grid every other frame and was drawn on 53-65 of 185 frames; on their detail, 160-173.
/// Asked only where the frames as seen lost the grid (session 79), the flow followed the bands
/// on the frames it did not lose: the track slipped, the grid was found again outlined by the
/// screen's margin, and drawn 3.9% of its side off.
fn level_detail(picture: &Mat, across: i32) -> Result<Mat> {
    let local = local_mean(picture, across)?;
    let mut out = Mat::default();
    opencv::core::add_weighted(
        picture,
        1.0,
        &local,
        -1.0,
        128.0,
        &mut out,
        opencv::core::CV_8U,
    )?;
    Ok(out)
}

/// `picture` halved `times` times, as a flow pyramid's levels are made.
fn shrunk(picture: &impl opencv::core::ToInputArray, times: i32) -> Result<Mat> {
    let mut out = Mat::default();
    if times == 0 {
        opencv::core::copy_to(picture, &mut out, &no_array())?;
        return Ok(out);
    }
    imgproc::pyr_down(
        picture,
        &mut out,
        Size::default(),
        opencv::core::BORDER_DEFAULT,
    )?;
    for _ in 1..times {
        let mut half = Mat::default();
        imgproc::pyr_down(
            &out,
            &mut half,
            Size::default(),
            opencv::core::BORDER_DEFAULT,
        )?;
        out = half;
    }
    Ok(out)
}

/// Pyramidal Lucas-Kanade flow of `points` from `from` to `to`, starting at `found` (which
/// receives the result); whether each point was followed.
pub(super) fn flow(
    from: &impl opencv::core::ToInputArray,
    to: &impl opencv::core::ToInputArray,
    points: &Vector<Point2f>,
    found: &mut Vector<Point2f>,
    window: i32,
    levels: i32,
) -> Result<Vec<bool>> {
    // OpenCV fails on an empty list rather than following nothing.
    if points.is_empty() {
        return Ok(Vec::new());
    }
    let mut status = Vector::<u8>::new();
    let mut error = Vector::<f32>::new();
    let criteria = TermCriteria::new(
        opencv::core::TermCriteria_COUNT + opencv::core::TermCriteria_EPS,
        20,
        0.03,
    )?;
    opencv::video::calc_optical_flow_pyr_lk(
        from,
        to,
        points,
        found,
        &mut status,
        &mut error,
        Size::new(window, window),
        levels,
        criteria,
        opencv::video::OPTFLOW_USE_INITIAL_FLOW,
        1e-4,
    )?;
    Ok(status.iter().map(|s| s == 1).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Point, Scalar};

    #[test]
    fn no_points_to_follow_follow_nothing_rather_than_fail() {
        let image =
            Mat::new_rows_cols_with_default(64, 64, opencv::core::CV_8UC1, Scalar::all(128.0))
                .unwrap();
        let mut found = Vector::<Point2f>::new();
        let status = flow(&image, &image, &Vector::new(), &mut found, 21, 2).unwrap();
        assert!(status.is_empty() && found.is_empty());
    }

    /// A grid followed from a 1280x720 frame to the same frame at 960x540 is lost, not held at
    /// its old pixels; to the same frame again it is followed.
    #[test]
    fn a_grid_is_not_followed_onto_a_frame_of_another_size() {
        let mut frame =
            Mat::new_rows_cols_with_default(720, 1280, opencv::core::CV_8U, Scalar::all(200.0))
                .unwrap();
        let (left, top, cell) = (400, 120, 50);
        let mut rule = |a: Point, b: Point, thick: i32| {
            let ink = Scalar::all(40.0);
            imgproc::line(&mut frame, a, b, ink, thick, imgproc::LINE_8, 0).unwrap();
        };
        for i in 0..10 {
            let at = |origin: i32| origin + i * cell;
            let thick = if i % 3 == 0 { 3 } else { 1 };
            let end = |origin: i32| origin + 9 * cell;
            rule(
                Point::new(at(left), top),
                Point::new(at(left), end(top)),
                thick,
            );
            rule(
                Point::new(left, at(top)),
                Point::new(end(left), at(top)),
                thick,
            );
        }
        let (l, t, side) = (f64::from(left), f64::from(top), f64::from(9 * cell));
        let corners = [[l, t], [l + side, t], [l + side, t + side], [l, t + side]];
        let image_from_grid = Homography::from_quads(&Quad::UNIT, &Quad(corners)).unwrap();
        let mut smaller = Mat::default();
        let size = Size::new(960, 540);
        imgproc::resize(&frame, &mut smaller, size, 0.0, 0.0, imgproc::INTER_AREA).unwrap();
        let before = TrackFrame::new(&frame).unwrap();
        let same = TrackFrame::new(&frame).unwrap();
        let resized = TrackFrame::new(&smaller).unwrap();
        let h = &image_from_grid;
        assert!(track(&before, &same, h, h).unwrap().is_some(), "followed");
        assert!(track(&before, &resized, h, h).unwrap().is_none(), "lost");
    }
}
