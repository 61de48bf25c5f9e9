//! Rectifying the grid and cutting it into the 81 cell images the digit model reads.
//!
//! `models/train.py` cuts its training cells with the same steps as [`rectify`] (its `rectify`,
//! from the published or rendered corners, jittered); change both together. Cutting along the
//! printed lines ([`rectify_along_lines`]) only brings each cell nearer to where those corners
//! would put it on flat paper, so the model needs no retraining for it.

use ndarray::Array4;
use opencv::core::{Mat, Rect, Size};
use opencv::imgproc;
use opencv::prelude::*;

use crate::bend::Lattice;
use crate::error::Result;
use crate::geometry::{Homography, Quad, warp};
use crate::raster::GrayView;
use crate::recognize::detect::Edge;
use crate::recognize::lines;

/// Side of one cell in the rectified grid, in pixels, and of the digit model's input.
pub const CELL: i32 = 32;
/// Side of the rectified grid.
pub const GRID: i32 = 9 * CELL;

/// Warps the grid inside `quad` (in `gray`'s pixels) to a `GRID` x `GRID` image.
pub fn rectify(gray: &Mat, quad: &Quad) -> Result<Mat> {
    let source = Source::new(gray, quad, 0.0)?;
    let grid_px = Quad::UNIT.scaled(GRID as f64);
    let rectified_from_source =
        Homography::from_quads(&source.quad, &grid_px).ok_or_else(degenerate)?;
    Ok(warp(
        source.image(),
        &rectified_from_source,
        Size::new(GRID, GRID),
        true,
    )?)
}

/// A grid cut along its printed lines, as [`lines`] follows them.
#[derive(Debug)]
pub struct Fitted {
    /// `GRID` x `GRID`, each cell warped from between its own four line crossings.
    pub rectified: Mat,
    /// Which border lines were followed: top, right, bottom, left (a corner of `quad` on one
    /// that was not is placed from the lines inside it).
    pub border_seen: [bool; 4],
    /// Where all the lines cross, in `gray`'s pixels; the outer border lines cross at its
    /// `corners()`.
    pub lattice: Lattice,
}

/// Like [`rectify`], but each cell is cut from between the printed lines around it, found near
/// where `quad` puts them: right also on curved paper and when `quad` is a little off. None
/// when the lines cannot be followed (then [`rectify`] is what there is). The border lines are
/// followed where `edge` says they are printed.
pub fn rectify_along_lines(gray: &Mat, quad: &Quad, edge: Edge) -> Result<Option<Fitted>> {
    // The margin leaves room to search for the outer lines on both sides of where `quad` has them.
    let layout = lines::Layout {
        cell: CELL as usize,
        margin: CELL as usize * 5 / 8,
        source_pixel: (quad.mean_side() / 9.0 / CELL as f64).max(f64::EPSILON),
    };
    let margin_cells = layout.margin as f64 / layout.cell as f64;
    let source = Source::new(gray, quad, margin_cells)?;
    let side = layout.side() as f64;
    let grid_in_layout = Quad::UNIT
        .scaled(9.0 * CELL as f64)
        .translated(layout.margin as f64, layout.margin as f64);
    let layout_from_source =
        Homography::from_quads(&source.quad, &grid_in_layout).ok_or_else(degenerate)?;
    let source_from_layout = layout_from_source.inverse().ok_or_else(degenerate)?;
    let margined = warp(
        source.image(),
        &layout_from_source,
        Size::new(side as i32, side as i32),
        true,
    )?;
    let Some(crossings) = lines::find_crossings(&margined, layout, edge)? else {
        return Ok(None);
    };

    // Each output pixel, in grid cells, is placed between its cell's four crossings.
    let zeros = || {
        Mat::new_size_with_default(
            Size::new(GRID, GRID),
            opencv::core::CV_32FC1,
            opencv::core::Scalar::all(0.0),
        )
    };
    let (mut map_x, mut map_y) = (zeros()?, zeros()?);
    for y in 0..GRID {
        let gy = y as f64 / CELL as f64;
        // Whole cells by integer division: `floor` is a call into libm per pixel.
        let r = (y / CELL).min(8) as usize;
        let v = gy - r as f64;
        let xs = map_x.at_row_mut::<f32>(y)?;
        let mut row = Vec::with_capacity(GRID as usize);
        for (x, value) in xs.iter_mut().enumerate() {
            let gx = x as f64 / CELL as f64;
            let c = (x / CELL as usize).min(8);
            let u = gx - c as f64;
            let at = &crossings.at;
            let mix = |i: usize| {
                (1.0 - v) * ((1.0 - u) * at[r][c][i] + u * at[r][c + 1][i])
                    + v * ((1.0 - u) * at[r + 1][c][i] + u * at[r + 1][c + 1][i])
            };
            let [sx, sy] = source_from_layout.apply([mix(0), mix(1)]);
            *value = sx as f32;
            row.push(sy as f32);
        }
        map_y.at_row_mut::<f32>(y)?.copy_from_slice(&row);
    }
    let mut rectified = Mat::default();
    imgproc::remap(
        source.image(),
        &mut rectified,
        &map_x,
        &map_y,
        imgproc::INTER_LINEAR,
        opencv::core::BORDER_REPLICATE,
        opencv::core::Scalar::default(),
    )?;
    let lattice = Lattice(
        crossings
            .at
            .map(|row| row.map(|p| source.to_image(source_from_layout.apply(p)))),
    );
    Ok(Some(Fitted {
        rectified,
        border_seen: crossings.border_seen,
        lattice,
    }))
}

fn degenerate() -> crate::Error {
    opencv::Error::new(opencv::core::StsBadArg, "degenerate grid corners").into()
}

/// The picture a grid is cut from: the gray image itself, or, for a grid more than twice
/// `GRID`, the region around it shrunk with area averaging, because a bilinear warp that skips
/// pixels would alias thin strokes.
struct Source<'a> {
    whole: &'a Mat,
    shrunk: Option<Mat>,
    /// The region's top-left corner in the whole image, and the shrink factor on each axis.
    offset: (f64, f64),
    factor: (f64, f64),
    /// The grid's corners in `image()`'s pixels.
    quad: Quad,
}

impl<'a> Source<'a> {
    /// The picture around `quad` and `margin` cells (of its longest side's) beyond it.
    fn new(gray: &'a Mat, quad: &Quad, margin: f64) -> Result<Self> {
        let longest = quad.sides().into_iter().fold(0.0, f64::max);
        if longest <= 2.0 * GRID as f64 {
            return Ok(Source {
                whole: gray,
                shrunk: None,
                offset: (0.0, 0.0),
                factor: (1.0, 1.0),
                quad: *quad,
            });
        }
        let (region, offset) = region_around(gray, quad, margin * longest / 9.0)?;
        let factor = 1.5 * GRID as f64 / longest;
        let size = Size::new(
            ((region.cols() as f64 * factor).round() as i32).max(1),
            ((region.rows() as f64 * factor).round() as i32).max(1),
        );
        let mut small = Mat::default();
        imgproc::resize(&region, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
        let factor = (
            size.width as f64 / region.cols() as f64,
            size.height as f64 / region.rows() as f64,
        );
        let quad = Quad(
            quad.0
                .map(|[x, y]| [(x - offset.0) * factor.0, (y - offset.1) * factor.1]),
        );
        Ok(Source {
            whole: gray,
            shrunk: Some(small),
            offset,
            factor,
            quad,
        })
    }

    fn image(&self) -> &Mat {
        self.shrunk.as_ref().unwrap_or(self.whole)
    }

    /// A point of `image()` in the whole image's pixels.
    fn to_image(&self, [x, y]: [f64; 2]) -> [f64; 2] {
        [
            x / self.factor.0 + self.offset.0,
            y / self.factor.1 + self.offset.1,
        ]
    }
}

/// The part of `gray` that holds `quad` plus `margin` pixels and a few more, and the region's
/// top-left corner. The margin must take in all the picture rectified around the grid: beyond
/// the region its edge is repeated, and the paper beyond a border cut so (the region at the
/// grid's outermost corner) was a band of the border's own gray.
fn region_around(gray: &Mat, quad: &Quad, margin: f64) -> Result<(Mat, (f64, f64))> {
    let margin = margin.ceil() + 2.0;
    let xs = quad.0.map(|p| p[0]);
    let ys = quad.0.map(|p| p[1]);
    let min = |v: [f64; 4]| v.into_iter().fold(f64::MAX, f64::min);
    let max = |v: [f64; 4]| v.into_iter().fold(f64::MIN, f64::max);
    let x0 = ((min(xs).floor() - margin).max(0.0) as i32).min(gray.cols() - 1);
    let y0 = ((min(ys).floor() - margin).max(0.0) as i32).min(gray.rows() - 1);
    let x1 = ((max(xs).ceil() + margin + 1.0) as i32).clamp(x0 + 1, gray.cols());
    let y1 = ((max(ys).ceil() + margin + 1.0) as i32).clamp(y0 + 1, gray.rows());
    let region = Mat::roi(gray, Rect::new(x0, y0, x1 - x0, y1 - y0))?.try_clone()?;
    Ok((region, (x0 as f64, y0 as f64)))
}

/// The 81 cells of a rectified grid, row by row, as the model's input: `[81, 1, CELL, CELL]`
/// raw gray values 0 to 255.
pub fn cell_batch(rectified: &Mat) -> Result<Array4<f32>> {
    let view = GrayView::new(rectified)?;
    let c = CELL as usize;
    Ok(Array4::from_shape_fn((81, 1, c, c), |(i, _, y, x)| {
        view.get((i % 9) * c + x, (i / 9) * c + y) as f32
    }))
}

/// The cells `which` of a `[81, 1, CELL, CELL]` batch, each picture turned in place a quarter
/// clockwise, a half and three quarters: `[3 * which.len(), 1, CELL, CELL]`, turn by turn, the
/// same turns as OpenCV's `ROTATE_90_CLOCKWISE`, `ROTATE_180`, `ROTATE_90_COUNTERCLOCKWISE`.
pub fn turned_cells(batch: &Array4<f32>, which: &[usize]) -> Array4<f32> {
    let c = CELL as usize;
    let m = which.len();
    Array4::from_shape_fn((3 * m, 1, c, c), |(k, _, y, x)| {
        let cell = which[k % m];
        let (sy, sx) = match k / m {
            0 => (c - 1 - x, y),
            1 => (c - 1 - y, c - 1 - x),
            _ => (x, c - 1 - y),
        };
        batch[[cell, 0, sy, sx]]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC1, Point, Scalar};

    #[test]
    fn cells_come_out_row_by_row() {
        let mut grid =
            Mat::new_rows_cols_with_default(GRID, GRID, CV_8UC1, Scalar::all(255.0)).unwrap();
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
    fn cells_turn_as_opencv_turns_the_grid() {
        let mut grid =
            Mat::new_rows_cols_with_default(GRID, GRID, CV_8UC1, Scalar::all(0.0)).unwrap();
        for y in 0..GRID {
            for x in 0..GRID {
                *grid.at_2d_mut::<u8>(y, x).unwrap() = ((x * 7 + y * 13) % 251) as u8;
            }
        }
        let batch = cell_batch(&grid).unwrap();
        let which = [0, 40, 80, 7];
        let turned = turned_cells(&batch, &which);
        let codes = [
            opencv::core::ROTATE_90_CLOCKWISE,
            opencv::core::ROTATE_180,
            opencv::core::ROTATE_90_COUNTERCLOCKWISE,
        ];
        for (t, code) in codes.into_iter().enumerate() {
            let mut whole = Mat::default();
            opencv::core::rotate(&grid, &mut whole, code).unwrap();
            let whole = cell_batch(&whole).unwrap();
            for (j, &cell) in which.iter().enumerate() {
                // Where the cell went when the whole grid turned.
                let (r, col) = (cell / 9, cell % 9);
                let moved = match t {
                    0 => col * 9 + (8 - r),
                    1 => (8 - r) * 9 + (8 - col),
                    _ => (8 - col) * 9 + r,
                };
                let a = turned.index_axis(ndarray::Axis(0), t * which.len() + j);
                let b = whole.index_axis(ndarray::Axis(0), moved);
                assert_eq!(a, b, "turn {t}, cell {cell}");
            }
        }
    }

    #[test]
    fn rectify_straightens_a_tilted_square_and_shrinks_a_large_one() {
        for scale in [1.0, 6.0] {
            let side = (600.0 * scale) as i32;
            let mut page =
                Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(255.0)).unwrap();
            let s = scale;
            let quad = Quad([
                [100.0 * s, 80.0 * s],
                [500.0 * s, 120.0 * s],
                [480.0 * s, 520.0 * s],
                [90.0 * s, 500.0 * s],
            ]);
            // A dark dot at the grid's centre cell.
            let centre = Homography::from_quads(&Quad::UNIT, &quad)
                .unwrap()
                .apply([0.5, 0.5]);
            let at = Point::new(centre[0] as i32, centre[1] as i32);
            imgproc::circle(
                &mut page,
                at,
                (12.0 * s) as i32,
                Scalar::all(0.0),
                -1,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
            let rectified = rectify(&page, &quad).unwrap();
            assert_eq!((rectified.cols(), rectified.rows()), (GRID, GRID));
            let view = GrayView::new(&rectified).unwrap();
            let mid = (GRID / 2) as usize;
            assert!(
                view.get(mid, mid) < 60,
                "scale {scale}: centre is {}",
                view.get(mid, mid)
            );
            assert!(view.get(10, 10) > 200, "scale {scale}");
        }
    }

    #[test]
    fn a_large_grid_is_cut_with_the_paper_its_margin_shows() {
        // A grid 900 px across in a larger picture: shrunk from a region that must hold the
        // margin's paper, or the region's edge is repeated over it.
        let gray =
            Mat::new_rows_cols_with_default(1200, 1200, CV_8UC1, Scalar::all(200.0)).unwrap();
        let quad = Quad::UNIT.scaled(900.0).translated(150.0, 150.0);
        let (region, offset) = region_around(&gray, &quad, 0.75 * 100.0).unwrap();
        assert_eq!(offset, (73.0, 73.0));
        assert_eq!((region.cols(), region.rows()), (1055, 1055));
        // Without a margin, a few pixels only.
        let (_, offset) = region_around(&gray, &quad, 0.0).unwrap();
        assert_eq!(offset, (148.0, 148.0));
    }
}
