//! Drawing the missing digits onto the picture, in perspective, as if printed on the paper.
//!
//! The digits are rendered once per puzzle into a mask in grid space ([`render_digits`]); each
//! picture then gets the mask warped by its own `image_from_grid` and blended in ([`draw`]).

use opencv::core::{CV_8UC1, Mat, Point, Rect, Scalar, Size, Vec3b};
use opencv::imgproc;
use opencv::prelude::*;

use crate::bend::{Bend, Lattice};
use crate::error::Result;
use crate::geometry::{Homography, Quad, warp};
use crate::grid::Grid;

/// Side of a cell in the rendered mask; large enough that warping up stays smooth.
const MASK_CELL: i32 = 64;
/// Green (BGR): stands out from black or red print and from white, grey or blue paper.
pub const SOLUTION_COLOUR: [u8; 3] = [30, 160, 0];
/// Red-orange (BGR) for handwritten entries that contradict the solution.
pub const WRONG_COLOUR: [u8; 3] = [20, 40, 235];

/// The digits of `solution` that `clues` leaves empty, as an 8-bit coverage mask of the grid.
pub fn render_digits(clues: &Grid, solution: &Grid) -> Result<Mat> {
    let side = 9 * MASK_CELL;
    let mut mask = Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(0.0))?;
    let font = imgproc::FONT_HERSHEY_DUPLEX;
    let thickness = (MASK_CELL / 14).max(1);
    let mut baseline = 0;
    let unit = imgproc::get_text_size("8", font, 1.0, thickness, &mut baseline)?;
    let scale = 0.62 * MASK_CELL as f64 / unit.height as f64;
    for cell in 0..81 {
        if clues.0[cell] != 0 || solution.0[cell] == 0 {
            continue;
        }
        let text = solution.0[cell].to_string();
        let size = imgproc::get_text_size(&text, font, scale, thickness, &mut baseline)?;
        let (row, col) = ((cell / 9) as i32, (cell % 9) as i32);
        let origin = Point::new(
            col * MASK_CELL + (MASK_CELL - size.width) / 2,
            row * MASK_CELL + (MASK_CELL + size.height) / 2,
        );
        imgproc::put_text(
            &mut mask,
            &text,
            origin,
            font,
            scale,
            Scalar::all(255.0),
            thickness,
            imgproc::LINE_AA,
            false,
        )?;
    }
    Ok(mask)
}

/// A ring around each of `cells` (indices 0-80), as a coverage mask of the grid like
/// [`render_digits`]: how a wrong handwritten entry is pointed out.
pub fn render_marks(cells: &[usize]) -> Result<Mat> {
    let side = 9 * MASK_CELL;
    let mut mask = Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(0.0))?;
    for &cell in cells.iter().filter(|&&c| c < 81) {
        let (row, col) = ((cell / 9) as i32, (cell % 9) as i32);
        let centre = Point::new(
            col * MASK_CELL + MASK_CELL / 2,
            row * MASK_CELL + MASK_CELL / 2,
        );
        imgproc::circle(
            &mut mask,
            centre,
            MASK_CELL * 2 / 5,
            Scalar::all(255.0),
            (MASK_CELL / 12).max(1),
            imgproc::LINE_AA,
            0,
        )?;
    }
    Ok(mask)
}

/// Where the cells are drawn on the grid at `quad`: between these crossings of the printed
/// lines, bent with the paper (`bend`) or by the homography of the corners; None when the
/// corners make no homography.
pub fn drawn_lattice(quad: &Quad, bend: Option<&Bend>) -> Option<Lattice> {
    let image_from_grid = Homography::from_quads(&Quad::UNIT, quad)?;
    match bend {
        Some(bend) => Some(bend.lattice(&image_from_grid)),
        None => Lattice::flat(quad),
    }
}

/// Warps `mask` (from [`render_digits`] or [`render_marks`]) onto the grid at `quad` in `image`
/// (BGR) and blends it in `colour`: by the homography of the corners, or, on curved paper
/// (`bend`), each cell between its own crossings of the printed lines. Only the pixels around
/// the grid (or the cells with something to draw) are warped, so the cost follows their size.
pub fn draw(
    image: &mut Mat,
    mask: &Mat,
    quad: &Quad,
    bend: Option<&Bend>,
    colour: [u8; 3],
) -> Result<()> {
    let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, quad) else {
        return Ok(());
    };
    let Some(bend) = bend else {
        let image_from_mask = image_from_grid.after(&Homography::scaling(1.0 / mask.cols() as f64));
        return blend_warped(image, mask, &image_from_mask, quad, colour);
    };
    let lattice = bend.lattice(&image_from_grid);
    let cell = mask.cols() / 9;
    for row in 0..9 {
        for col in 0..9 {
            let from = Rect::new(col as i32 * cell, row as i32 * cell, cell, cell);
            let cell_mask = Mat::roi(mask, from)?;
            if opencv::core::count_non_zero(&cell_mask)? == 0 {
                continue;
            }
            // Only the cells with something to draw are copied out for the warp.
            let cell_mask = cell_mask.try_clone()?;
            let at = &lattice.0;
            let corners = Quad([
                at[row][col],
                at[row][col + 1],
                at[row + 1][col + 1],
                at[row + 1][col],
            ]);
            let Some(image_from_cell) = Homography::from_quads(&Quad::UNIT, &corners) else {
                continue;
            };
            let image_from_mask = image_from_cell.after(&Homography::scaling(1.0 / cell as f64));
            blend_warped(image, &cell_mask, &image_from_mask, &corners, colour)?;
        }
    }
    Ok(())
}

/// Warps `mask` by `image_from_mask` into the part of `image` around `quad` (where the mask
/// lands) and blends it in `colour`.
fn blend_warped(
    image: &mut Mat,
    mask: &Mat,
    image_from_mask: &Homography,
    quad: &Quad,
    colour: [u8; 3],
) -> Result<()> {
    let bounds = Rect::new(0, 0, image.cols(), image.rows());
    let Some(region) = bounding_box(quad, bounds) else {
        return Ok(());
    };
    let region_from_mask =
        Homography::translation(-region.x as f64, -region.y as f64).after(image_from_mask);
    let coverage = warp(
        mask,
        &region_from_mask,
        Size::new(region.width, region.height),
        false,
    )?;
    let mut target = Mat::roi_mut(image, region)?;
    for y in 0..region.height {
        let alpha_row = coverage.at_row::<u8>(y)?;
        let pixels = target.at_row_mut::<Vec3b>(y)?;
        for (pixel, &alpha) in pixels.iter_mut().zip(alpha_row) {
            if alpha == 0 {
                continue;
            }
            let a = alpha as u32;
            for ch in 0..3 {
                pixel[ch] =
                    ((pixel[ch] as u32 * (255 - a) + colour[ch] as u32 * a + 127) / 255) as u8;
            }
        }
    }
    Ok(())
}

/// Outlines `quad` in `image`, for puzzles that were found but could not be solved.
pub fn outline(image: &mut Mat, quad: &Quad, colour: [u8; 3], thickness: i32) -> Result<()> {
    let points: opencv::core::Vector<Point> = quad
        .0
        .iter()
        .map(|p| Point::new(p[0].round() as i32, p[1].round() as i32))
        .collect();
    let colour = Scalar::new(colour[0] as f64, colour[1] as f64, colour[2] as f64, 0.0);
    imgproc::polylines(image, &points, true, colour, thickness, imgproc::LINE_AA, 0)?;
    Ok(())
}

/// The pixels of `bounds` that the quad covers, or None when it lies outside.
fn bounding_box(quad: &Quad, bounds: Rect) -> Option<Rect> {
    let x0 = quad
        .0
        .iter()
        .map(|p| p[0])
        .fold(f64::MAX, f64::min)
        .floor()
        .max(bounds.x as f64) as i32;
    let y0 = quad
        .0
        .iter()
        .map(|p| p[1])
        .fold(f64::MAX, f64::min)
        .floor()
        .max(bounds.y as f64) as i32;
    let x1 = (quad.0.iter().map(|p| p[0]).fold(f64::MIN, f64::max).ceil() as i32 + 1)
        .min(bounds.x + bounds.width);
    let y1 = (quad.0.iter().map(|p| p[1]).fold(f64::MIN, f64::max).ceil() as i32 + 1)
        .min(bounds.y + bounds.height);
    (x1 > x0 && y1 > y0).then(|| Rect::new(x0, y0, x1 - x0, y1 - y0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::CV_8UC3;

    fn green_pixels_in(image: &Mat, rect: Rect) -> usize {
        let roi = Mat::roi(image, rect).unwrap();
        let mut count = 0;
        for y in 0..rect.height {
            for p in roi.at_row::<Vec3b>(y).unwrap() {
                if p[1] > 100 && p[0] < 100 && p[2] < 100 {
                    count += 1;
                }
            }
        }
        count
    }

    #[test]
    fn draws_only_the_missing_digits_in_their_cells() {
        let mut clues = Grid::EMPTY;
        let mut solution = Grid::EMPTY;
        solution.0[0] = 4; // missing: drawn in the top-left cell
        solution.0[80] = 7;
        clues.0[80] = 7; // given: not drawn
        let mask = render_digits(&clues, &solution).unwrap();
        let mut image =
            Mat::new_rows_cols_with_default(400, 500, CV_8UC3, Scalar::all(255.0)).unwrap();
        let quad = Quad([[50.0, 20.0], [410.0, 20.0], [410.0, 380.0], [50.0, 380.0]]);
        draw(&mut image, &mask, &quad, None, SOLUTION_COLOUR).unwrap();
        assert!(green_pixels_in(&image, Rect::new(50, 20, 40, 40)) > 50);
        assert_eq!(green_pixels_in(&image, Rect::new(370, 340, 40, 40)), 0);
        assert_eq!(green_pixels_in(&image, Rect::new(90, 20, 320, 320)), 0);
    }

    #[test]
    fn marks_ring_the_named_cells_only() {
        let marks = render_marks(&[40]).unwrap();
        let mut image =
            Mat::new_rows_cols_with_default(360, 360, CV_8UC3, Scalar::all(255.0)).unwrap();
        let quad = Quad([[0.0, 0.0], [360.0, 0.0], [360.0, 360.0], [0.0, 360.0]]);
        draw(&mut image, &marks, &quad, None, [0, 200, 0]).unwrap();
        assert!(
            green_pixels_in(&image, Rect::new(160, 160, 40, 40)) > 30,
            "ring around the centre cell"
        );
        assert_eq!(green_pixels_in(&image, Rect::new(0, 0, 150, 150)), 0);
    }

    #[test]
    fn a_grid_partly_outside_the_picture_is_clipped() {
        let mask = render_digits(&Grid::EMPTY, &Grid([5; 81])).unwrap();
        let mut image =
            Mat::new_rows_cols_with_default(100, 100, CV_8UC3, Scalar::all(255.0)).unwrap();
        let quad = Quad([
            [-50.0, -50.0],
            [150.0, -40.0],
            [160.0, 150.0],
            [-40.0, 160.0],
        ]);
        draw(&mut image, &mask, &quad, None, SOLUTION_COLOUR).unwrap();
        assert!(green_pixels_in(&image, Rect::new(0, 0, 100, 100)) > 0);
        let far = Quad([
            [500.0, 500.0],
            [600.0, 500.0],
            [600.0, 600.0],
            [500.0, 600.0],
        ]);
        draw(&mut image, &mask, &far, None, SOLUTION_COLOUR).unwrap();
    }
}
