//! Rectifying the grid and cutting it into the 81 cell images the digit model reads.
//!
//! `models/train.py` cuts its training cells with the same steps (its `rectify`); change both
//! together.

use ndarray::Array4;
use opencv::core::{Mat, Rect, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::error::Result;
use crate::geometry::{Homography, Quad, warp};
use crate::raster::GrayView;

/// Side of one cell in the rectified grid, in pixels, and of the digit model's input.
pub const CELL: i32 = 32;
/// Side of the rectified grid.
pub const GRID: i32 = 9 * CELL;

/// Warps the grid inside `quad` (in `gray`'s pixels) to a `GRID` x `GRID` image.
///
/// A grid more than twice that size is first shrunk with area averaging, region only, because
/// a bilinear warp that skips pixels would alias thin strokes.
pub fn rectify(gray: &Mat, quad: &Quad) -> Result<Mat> {
    let longest = quad.sides().into_iter().fold(0.0, f64::max);
    let shrunk;
    let (source, quad) = if longest > 2.0 * GRID as f64 {
        let (region, image_from_region) = region_around(gray, quad)?;
        let factor = 1.5 * GRID as f64 / longest;
        let size = Size::new(
            ((region.cols() as f64 * factor).round() as i32).max(1),
            ((region.rows() as f64 * factor).round() as i32).max(1),
        );
        let mut small = Mat::default();
        imgproc::resize(&region, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        let sx = size.width as f64 / region.cols() as f64;
        let sy = size.height as f64 / region.rows() as f64;
        let region_quad = Quad(quad.0.map(|[x, y]| [(x - image_from_region.0) * sx, (y - image_from_region.1) * sy]));
        shrunk = small;
        (&shrunk, region_quad)
    } else {
        (gray, *quad)
    };
    let grid_px = Quad::UNIT.scaled(GRID as f64);
    let rectified_from_image = Homography::from_quads(&quad, &grid_px).ok_or_else(|| {
        opencv::Error::new(opencv::core::StsBadArg, "degenerate grid corners")
    })?;
    Ok(warp(source, &rectified_from_image, Size::new(GRID, GRID), true)?)
}

/// The part of `gray` that holds `quad` plus a small margin, and the region's top-left corner.
fn region_around(gray: &Mat, quad: &Quad) -> Result<(Mat, (f64, f64))> {
    let xs = quad.0.map(|p| p[0]);
    let ys = quad.0.map(|p| p[1]);
    let min = |v: [f64; 4]| v.into_iter().fold(f64::MAX, f64::min);
    let max = |v: [f64; 4]| v.into_iter().fold(f64::MIN, f64::max);
    let x0 = ((min(xs).floor() - 2.0).max(0.0) as i32).min(gray.cols() - 1);
    let y0 = ((min(ys).floor() - 2.0).max(0.0) as i32).min(gray.rows() - 1);
    let x1 = ((max(xs).ceil() + 3.0) as i32).clamp(x0 + 1, gray.cols());
    let y1 = ((max(ys).ceil() + 3.0) as i32).clamp(y0 + 1, gray.rows());
    let region = Mat::roi(gray, Rect::new(x0, y0, x1 - x0, y1 - y0))?.try_clone()?;
    Ok((region, (x0 as f64, y0 as f64)))
}

/// The 81 cells of a rectified grid, row by row, as the model's input: `[81, 1, CELL, CELL]`
/// raw gray values 0 to 255.
pub fn cell_batch(rectified: &Mat) -> Result<Array4<f32>> {
    let view = GrayView::new(rectified)?;
    let c = CELL as usize;
    Ok(Array4::from_shape_fn((81, 1, c, c), |(i, _, y, x)| view.get((i % 9) * c + x, (i / 9) * c + y) as f32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC1, Point, Scalar};

    #[test]
    fn cells_come_out_row_by_row() {
        let mut grid = Mat::new_rows_cols_with_default(GRID, GRID, CV_8UC1, Scalar::all(255.0)).unwrap();
        // Darken cell (row 2, column 7) only.
        let rect = Rect::new(7 * CELL, 2 * CELL, CELL, CELL);
        imgproc::rectangle(&mut grid, rect, Scalar::all(0.0), -1, imgproc::LINE_8, 0).unwrap();
        let batch = cell_batch(&grid).unwrap();
        assert_eq!(batch.shape(), &[81, 1, CELL as usize, CELL as usize]);
        for i in 0..81 {
            let expected = if i == 2 * 9 + 7 { 0.0 } else { 255.0 };
            assert_eq!(batch[[i, 0, 5, 5]], expected, "cell {i}");
        }
    }

    #[test]
    fn rectify_straightens_a_tilted_square_and_shrinks_a_large_one() {
        for scale in [1.0, 6.0] {
            let side = (600.0 * scale) as i32;
            let mut page = Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(255.0)).unwrap();
            let s = scale;
            let quad = Quad([[100.0 * s, 80.0 * s], [500.0 * s, 120.0 * s], [480.0 * s, 520.0 * s], [90.0 * s, 500.0 * s]]);
            // A dark dot at the grid's centre cell.
            let centre = Homography::from_quads(&Quad::UNIT, &quad).unwrap().apply([0.5, 0.5]);
            let at = Point::new(centre[0] as i32, centre[1] as i32);
            imgproc::circle(&mut page, at, (12.0 * s) as i32, Scalar::all(0.0), -1, imgproc::LINE_8, 0).unwrap();
            let rectified = rectify(&page, &quad).unwrap();
            assert_eq!((rectified.cols(), rectified.rows()), (GRID, GRID));
            let view = GrayView::new(&rectified).unwrap();
            let mid = (GRID / 2) as usize;
            assert!(view.get(mid, mid) < 60, "scale {scale}: centre is {}", view.get(mid, mid));
            assert!(view.get(10, 10) > 200, "scale {scale}");
        }
    }
}
