//! Step 1 of finding a grid ([`super`]): the largest four-cornered outlines of dark shapes in a
//! picture's adaptive threshold, an outline with a corner or two cut off taken as the
//! quadrilateral it was cut from (also when the cut is too shallow for the first look, by a
//! closer one), and a spiky shape also outlined by its solid parts.

use opencv::core::{Mat, Point, Scalar, Size, Vector};
use opencv::imgproc;
use opencv::prelude::*;

use super::corners::intersect;
use super::{MIN_GRID_SCORE, Scale};
use crate::error::Result;
use crate::geometry::{Quad, distance};
use crate::raster::morphed;

/// How many of the largest outlines are checked before giving up.
const MAX_CANDIDATES: usize = 12;

/// The four-cornered outlines of dark shapes in `gray`, largest first.
pub fn outline_candidates(gray: &Mat) -> Result<Vec<Quad>> {
    Ok(outlines(&ink_mask(gray)?, Scale::COARSE.smallest)?
        .into_iter()
        .flatten()
        .map(|outline| outline.quad)
        .collect())
}

/// One four-cornered outline of a shape, to be checked for a grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Outline {
    pub quad: Quad,
    /// A corner the first look smoothed over was put back by a closer one (see [`CLOSER`]):
    /// extrapolated along the sides beside the cut, it is taken only where it frames a grid
    /// clearly (a bowed border's chord, extended, frames one vaguely).
    pub corner_put_back: bool,
}

impl Outline {
    /// How clearly this outline must frame a grid to be taken.
    pub fn least_score(&self) -> f64 {
        if self.corner_put_back {
            MIN_PUT_BACK_SCORE
        } else {
            MIN_GRID_SCORE
        }
    }
}

/// How clearly an outline with a corner put back must frame a grid: a faded corner of a
/// blurred grid sliding into view or of a photo washed out there, put back, framed it at
/// 0.86-0.92; the chord of a border bowed by 0.45 of a cell, extended into its corner, at 0.61,
/// and was then followed half a cell off.
const MIN_PUT_BACK_SCORE: f64 = 0.75;

/// Printed strokes in `gray` as a binary mask: locally dark and thin.
fn ink_mask(gray: &Mat) -> Result<Mat> {
    Ok(masks(gray)?.1)
}

/// How much darker (gray levels) than the mean around it a pixel must be to be ink.
const INK_BELOW_MEAN: f64 = 7.0;

/// The same for a photo where nothing was found at [`INK_BELOW_MEAN`]: on a page blurred out of
/// focus the printed lines lie only a few gray levels below the mean around them, and were
/// marked in dashes that outlined no grid (Wicht's newspaper pages blurred by 2.5 px on 640:
/// 21 of 160 gave no grid, 8 of them are found and solved right at this level; see
/// `photos::newspaper_pages_blurred_out_of_focus...`).
pub(super) const FAINT_INK_BELOW_MEAN: f64 = 4.0;

/// What is darker than its surroundings in `gray`, broad or thin, and (see [`ink_mask`]) only
/// the thin strokes of it.
pub(super) fn masks(gray: &Mat) -> Result<(Mat, Mat)> {
    masks_below(gray, INK_BELOW_MEAN)
}

/// [`masks`], marking what lies `below` gray levels under the mean around it.
pub(super) fn masks_below(gray: &Mat, below: f64) -> Result<(Mat, Mat)> {
    let (width, height) = (gray.cols(), gray.rows());
    let mut blurred = Mat::default();
    imgproc::gaussian_blur(
        gray,
        &mut blurred,
        Size::new(5, 5),
        0.0,
        0.0,
        opencv::core::BORDER_DEFAULT,
    )?;
    let block = (width.max(height) / 40) | 1;
    let mut binary = Mat::default();
    imgproc::adaptive_threshold(
        &blurred,
        &mut binary,
        255.0,
        imgproc::ADAPTIVE_THRESH_MEAN_C,
        imgproc::THRESH_BINARY_INV,
        block.clamp(11, 51),
        below,
    )?;
    // Keep only thin dark strokes (lines and digits): a black-hat picks out what is darker than
    // its surroundings within a window wider than any printed line, so the edges of broad
    // shadows and dark table tops, which the adaptive threshold also marks, drop out.
    let window = (width.max(height) / 64).clamp(9, 25) | 1;
    let strokes = morphed(
        &blurred,
        imgproc::MORPH_BLACKHAT,
        imgproc::MORPH_RECT,
        window,
        opencv::core::BORDER_REPLICATE,
    )?;
    let mut stroke_mask = Mat::default();
    imgproc::threshold(
        &strokes,
        &mut stroke_mask,
        6.0,
        255.0,
        imgproc::THRESH_BINARY,
    )?;
    let mut ink = Mat::default();
    opencv::core::bitwise_and(&binary, &stroke_mask, &mut ink, &opencv::core::no_array())?;
    Ok((binary, ink))
}

/// The four-cornered outlines in a binary mask, largest first: per shape, its hull's four
/// corners, the same with a corner put back where a closer look shows it cut (see [`CLOSER`])
/// and, when the shape is spiky, the outlines of its solid parts (see [`SPIKY`]), to be told
/// apart by how clearly each frames a grid.
pub(super) fn outlines(binary: &Mat, smallest: f64) -> Result<Vec<Vec<Outline>>> {
    let (width, height) = (binary.cols(), binary.rows());
    let mut contours = Vector::<Vector<Point>>::new();
    imgproc::find_contours(
        binary,
        &mut contours,
        imgproc::RETR_LIST,
        imgproc::CHAIN_APPROX_SIMPLE,
        Point::new(0, 0),
    )?;

    let min_side = (width.min(height) as f64 * smallest).max(54.0);
    let mut sized = Vec::new();
    for contour in contours.iter() {
        let area = imgproc::contour_area(&contour, false)?;
        if area >= min_side * min_side {
            sized.push((area, contour));
        }
    }
    sized.sort_by(|a, b| b.0.total_cmp(&a.0));

    let mut found: Vec<Vec<Outline>> = Vec::new();
    let mut seen: Vec<Quad> = Vec::new();
    for (area, contour) in sized.iter().take(MAX_CANDIDATES * 3) {
        // One hull for every look at the shape.
        let hull = hull_of(contour)?;
        let mut rivals: Vec<Outline> = quad_of(&hull, COARSE)?
            .map(|quad| Outline {
                quad,
                corner_put_back: false,
            })
            .into_iter()
            .collect();
        let again = |o: &Outline, q: &Quad| o.quad.max_corner_distance(q) < 0.03 * q.mean_side();
        // A shape of strokes only (text, a scribble) has no part left solid once they are cut
        // away: its area is small against its outline's length.
        let strokes_only = *area < imgproc::arc_length(contour, true)? * min_side / 20.0;
        if !strokes_only && *area < SPIKY * imgproc::contour_area(&hull, false)? {
            // A part that is the hull's quad again (its corners a little rounded) is not
            // checked twice.
            for part in solid_parts(contour, min_side)? {
                if !rivals.iter().any(|o| again(o, &part)) && part.area() >= BULK * area {
                    rivals.push(Outline {
                        quad: part,
                        corner_put_back: false,
                    });
                }
            }
        }
        // A corner cut short by less than the coarse look's tolerance is smoothed over, the
        // quad's corner left where the cut begins (a blurred grid's border faded along a box):
        // looked at closer, the cut shows and is put back, unless a solid part outlines the
        // same quad plainly.
        if let Some(closer) = quad_of(&hull, CLOSER)?
            && !rivals.iter().any(|o| again(o, &closer))
        {
            rivals.push(Outline {
                quad: closer,
                corner_put_back: true,
            });
        }
        rivals.retain(|Outline { quad, .. }| {
            let duplicate = seen
                .iter()
                .any(|q| q.max_corner_distance(quad) < min_side * 0.02);
            !duplicate && quad.sides().iter().all(|&s| s >= min_side)
        });
        // A corner put back only rivals a plain outline of the same shape: a shape with none
        // left takes no place among the candidates.
        if rivals.iter().all(|o| o.corner_put_back) {
            continue;
        }
        // A corner put back is a guess, held to a higher score: the same quad outlined plainly
        // by another shape (its corner printed there) is still checked as plain.
        seen.extend(rivals.iter().filter(|o| !o.corner_put_back).map(|o| o.quad));
        found.push(rivals);
        if found.len() == MAX_CANDIDATES {
            break;
        }
    }
    found.sort_by(|a, b| b[0].quad.area().total_cmp(&a[0].quad.area()));
    Ok(found)
}

/// A contour filling less than this share of its hull has thin spikes: a grid joined to a
/// line that runs on past it (a fold's crease across the page, a column rule, a pen's shadow),
/// whose hull would take in where the line ends.
const SPIKY: f64 = 0.95;

/// A solid part of a spiky shape is a rival to its hull's quad only when it is the bulk of the
/// shape (this share of its area, at least): what is cut from a grid is thin.
const BULK: f64 = 0.5;

/// A contour's convex hull.
fn hull_of(contour: &Vector<Point>) -> Result<Vector<Point>> {
    let mut hull = Vector::<Point>::new();
    imgproc::convex_hull(contour, &mut hull, false, true)?;
    Ok(hull)
}

/// The four-cornered outlines of what a spiky contour encloses once its thin parts (lines,
/// strokes: narrower than a sixth of the smallest grid side) are cut away: the grid a line
/// runs on from. Filled, the contour's own inside counts as solid, so a grid's cells do.
fn solid_parts(contour: &Vector<Point>, min_side: f64) -> Result<Vec<Quad>> {
    let bounds = imgproc::bounding_rect(contour)?;
    let mut filled = Mat::zeros(bounds.height, bounds.width, opencv::core::CV_8UC1)?.to_mat()?;
    imgproc::fill_poly(
        &mut filled,
        &Vector::<Vector<Point>>::from_iter([contour.clone()]),
        Scalar::all(255.0),
        imgproc::LINE_8,
        0,
        Point::new(-bounds.x, -bounds.y),
    )?;
    let width = ((min_side / 6.0).round() as i32).max(3) | 1;
    let solid = morphed(
        &filled,
        imgproc::MORPH_OPEN,
        imgproc::MORPH_RECT,
        width,
        opencv::core::BORDER_CONSTANT,
    )?;
    let mut parts = Vector::<Vector<Point>>::new();
    imgproc::find_contours(
        &solid,
        &mut parts,
        imgproc::RETR_EXTERNAL,
        imgproc::CHAIN_APPROX_SIMPLE,
        Point::new(bounds.x, bounds.y),
    )?;
    let mut quads = Vec::new();
    for part in parts.iter() {
        if imgproc::contour_area(&part, false)? >= min_side * min_side
            && let Some(quad) = quad_of(&hull_of(&part)?, COARSE)?
        {
            quads.push(quad);
        }
    }
    quads.sort_by(|a, b| b.area().total_cmp(&a.area()));
    Ok(quads)
}

/// How far (a share of its perimeter) a hull's approximation may stray from it: the first
/// look, which smooths over rounded corners and ragged edges.
const COARSE: f64 = 0.03;

/// The same for a closer look, which keeps a cut across a corner as a side of its own when
/// its ends lie more than this share of the perimeter (a third of a grid's cell) off the chord
/// the first look drew: a grid's border faded over a cell or so along one side and two or
/// three along the other (the first look put the corner 0.7 of a cell up the border), to be
/// put back.
const CLOSER: f64 = 0.01;

/// The convex quadrilateral that approximates a contour's `hull` to within `tolerance` of its
/// perimeter, if it has four corners, or is a quadrilateral with a corner or two cut off (see
/// [`corner_uncut`]): a grid whose border fades at a corner has an ink outline that turns in
/// across the corner.
fn quad_of(hull: &Vector<Point>, tolerance: f64) -> Result<Option<Quad>> {
    let perimeter = imgproc::arc_length(hull, true)?;
    let mut approx = Vector::<Point>::new();
    imgproc::approx_poly_dp(hull, &mut approx, tolerance * perimeter, true)?;
    let mut points: Vec<[f64; 2]> = approx.iter().map(|p| [p.x as f64, p.y as f64]).collect();
    while (5..=6).contains(&points.len()) {
        match corner_uncut(&points) {
            Some(fewer) => points = fewer,
            None => return Ok(None),
        }
    }
    Ok(quad_from(&points))
}

/// The quadrilateral with these four corners, if it is convex and no side is more than 2.5
/// times another (no Sudoku seen at a sensible angle is).
fn quad_from(points: &[[f64; 2]]) -> Option<Quad> {
    let [a, b, c, d] = points else {
        return None;
    };
    let quad = Quad::from_unordered([*a, *b, *c, *d]);
    let sides = quad.sides();
    let (shortest, longest) = sides
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &s| (lo.min(s), hi.max(s)));
    (quad.is_convex() && shortest * 2.5 >= longest).then_some(quad)
}

/// The largest share of a pentagon's area that [`corner_uncut`] adds back.
const CUT_CORNER_MOST: f64 = 0.12;

/// The four corners of a convex pentagon that is a quadrilateral with one corner cut off (a
/// grid's border faded or broken near a corner, so its ink outline turns in early): the
/// shortest side is dropped and the two sides beside it are extended to meet. None when that
/// would add more than [`CUT_CORNER_MOST`] of the area: then it was no cut corner.
fn corner_uncut(points: &[[f64; 2]]) -> Option<Vec<[f64; 2]>> {
    let n = points.len();
    let at = |i: usize| points[i % n];
    let cut = (0..n)
        .min_by(|&i, &j| distance(at(i), at(i + 1)).total_cmp(&distance(at(j), at(j + 1))))?;
    let line = |from: [f64; 2], to: [f64; 2]| {
        let length = distance(from, to).max(1e-9);
        (
            from,
            [(to[0] - from[0]) / length, (to[1] - from[1]) / length],
        )
    };
    let corner = intersect(
        line(at(cut + n - 1), at(cut)),
        line(at(cut + 2), at(cut + 1)),
    )?;
    // The triangle the new corner adds, against the pentagon's area; it must lie outside the
    // dropped side, on the other side from the pentagon's middle.
    let (a, b) = (at(cut), at(cut + 1));
    let side_of = |p: [f64; 2]| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    let middle = at(cut + 3);
    if side_of(corner) * side_of(middle) >= 0.0 {
        return None;
    }
    let added = 0.5 * side_of(corner).abs();
    let area = 0.5
        * (0..n)
            .map(|i| at(i)[0] * at(i + 1)[1] - at(i + 1)[0] * at(i)[1])
            .sum::<f64>()
            .abs();
    if added > CUT_CORNER_MOST * area {
        return None;
    }
    let mut fewer = points.to_vec();
    fewer[cut] = corner;
    fewer.remove((cut + 1) % n);
    Some(fewer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pentagon_with_one_corner_cut_off_is_taken_as_its_quadrilateral_and_others_are_not() {
        // A square of side 100 with its top-left corner cut 15 along each side.
        let cut = [
            [15.0, 0.0],
            [100.0, 0.0],
            [100.0, 100.0],
            [0.0, 100.0],
            [0.0, 15.0],
        ];
        let quad = corner_uncut(&cut).expect("a cut corner");
        assert_eq!(quad.len(), 4);
        assert!(
            quad.iter().any(|p| distance(*p, [0.0, 0.0]) < 1e-6),
            "{quad:?}"
        );
        // A house: the sides beside its shortest (a wall) meet far below the floor's corner.
        let house = [
            [0.0, 40.0],
            [50.0, 0.0],
            [100.0, 40.0],
            [100.0, 100.0],
            [0.0, 100.0],
        ];
        assert_eq!(corner_uncut(&house), None);
        // A regular pentagon's sides meet far out: no quadrilateral cut short.
        let regular: Vec<[f64; 2]> = (0..5)
            .map(|i| {
                let a = i as f64 * std::f64::consts::TAU / 5.0;
                [50.0 * a.cos(), 50.0 * a.sin()]
            })
            .collect();
        assert_eq!(corner_uncut(&regular), None);
    }

    #[test]
    fn an_outline_with_a_corner_cut_off_gives_the_whole_quadrilateral() {
        // The ink outline of a grid (400 px) whose border faded across its top-left corner, a
        // third of the side along each way, with a ragged edge where the fade begins.
        let contour = Vector::<Point>::from_iter([
            Point::new(233, 100),
            Point::new(500, 100),
            Point::new(500, 500),
            Point::new(100, 500),
            Point::new(100, 233),
            Point::new(140, 190),
            Point::new(190, 140),
        ]);
        let hull = hull_of(&contour).unwrap();
        let quad = quad_of(&hull, COARSE).unwrap().expect("a quadrilateral");
        let truth = Quad([
            [100.0, 100.0],
            [500.0, 100.0],
            [500.0, 500.0],
            [100.0, 500.0],
        ]);
        assert!(quad.max_corner_distance(&truth) < 1.0, "{quad:?}");
    }

    #[test]
    fn a_corner_cut_short_within_the_coarse_tolerance_is_put_back_by_the_closer_look() {
        // The ink outline's hull of a blurred newspaper grid sliding into a hand-held camera's
        // view (hand-held bench, `image21`, frame 28, 960x540): the top-left box's outer lines
        // faded, so the hull cuts across from the top border 1.3 cells in to the left border
        // 2.7 cells down. The sides beside the cut meet at about (263.3, 144.2).
        let points = [
            (576, 102),
            (578, 104),
            (598, 206),
            (632, 431),
            (635, 454),
            (632, 457),
            (613, 458),
            (285, 469),
            (271, 469),
            (269, 468),
            (268, 466),
            (265, 244),
            (265, 239),
            (309, 138),
            (327, 134),
            (339, 132),
            (358, 129),
            (515, 108),
            (523, 107),
            (565, 102),
        ];
        let contour = Vector::<Point>::from_iter(points.map(|(x, y)| Point::new(x, y)));
        let corner = [263.3, 144.2];
        let nearest = |quad: Quad| {
            quad.0
                .iter()
                .map(|&p| distance(p, corner))
                .fold(f64::MAX, f64::min)
        };
        let hull = hull_of(&contour).unwrap();
        let coarse = quad_of(&hull, COARSE).unwrap().expect("a quadrilateral");
        assert!(nearest(coarse) > 40.0, "{coarse:?}");
        let closer = quad_of(&hull, CLOSER).unwrap().expect("a quadrilateral");
        assert!(nearest(closer) < 1.5, "{closer:?}");
    }
}
