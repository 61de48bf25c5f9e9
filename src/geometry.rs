//! Points, the grid's four corners and homographies, in plain `f64` so that they can be tested,
//! composed and inverted without OpenCV.
//!
//! Naming follows the `a_from_b` convention: `image_from_grid` maps grid coordinates to image
//! pixels. Grid coordinates run from (0, 0) at the top-left corner to (1, 1) at the bottom-right.

use opencv::core::{Mat, Point2f, Vector};
use opencv::prelude::*;

pub type Point = [f64; 2];

/// The most a grid's far corner may lie farther from the camera than its near one for it to
/// be a page in view ([`Quad::depth_ratio`]): the 240 dataset photos' grids are at most 1.53,
/// real pages photographed 60 degrees from straight on 1.95. A box's outline whose corner was
/// refined onto a smeared frame's digits made a kite of 5.9 that passed the grid check, and a
/// video followed it for 160 frames.
pub const MOST_DEPTH_RATIO: f64 = 3.0;

/// The puzzle's outer corners in image pixels: top-left, top-right, bottom-right, bottom-left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quad(pub [Point; 4]);

impl Quad {
    /// The unit square's corners in the same order, the grid's own coordinates.
    pub const UNIT: Quad = Quad([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);

    pub fn translated(&self, dx: f64, dy: f64) -> Quad {
        Quad(self.0.map(|[x, y]| [x + dx, y + dy]))
    }

    pub fn scaled(&self, factor: f64) -> Quad {
        Quad(self.0.map(|[x, y]| [x * factor, y * factor]))
    }

    /// The quad moved out from its centroid by `share` of its size on every side (in by a
    /// negative share).
    ///
    /// ```
    /// use sudoku_ar::geometry::Quad;
    /// let square = Quad([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]);
    /// assert_eq!(square.grown(0.1).0[0], [-1.0, -1.0]);
    /// ```
    pub fn grown(&self, share: f64) -> Quad {
        let [cx, cy] = self.centroid();
        let factor = 1.0 + 2.0 * share;
        Quad(
            self.0
                .map(|[x, y]| [cx + (x - cx) * factor, cy + (y - cy) * factor]),
        )
    }

    /// Area by the shoelace formula (positive for any simple quad).
    pub fn area(&self) -> f64 {
        let mut twice = 0.0;
        for i in 0..4 {
            let (a, b) = (self.0[i], self.0[(i + 1) % 4]);
            twice += a[0] * b[1] - b[0] * a[1];
        }
        twice.abs() / 2.0
    }

    /// Side lengths: top, right, bottom, left.
    pub fn sides(&self) -> [f64; 4] {
        std::array::from_fn(|i| distance(self.0[i], self.0[(i + 1) % 4]))
    }

    /// The mean side length: the grid's size, against which errors and motion are measured.
    pub fn mean_side(&self) -> f64 {
        self.sides().iter().sum::<f64>() / 4.0
    }

    /// The largest distance between a corner of `self` and the same corner of `other`.
    pub fn max_corner_distance(&self, other: &Quad) -> f64 {
        (0..4)
            .map(|i| distance(self.0[i], other.0[i]))
            .fold(0.0, f64::max)
    }

    /// `self` with its corners turned (not moved) so that each lies nearest the same corner of
    /// `like`: for comparing two outlines of one grid whose corner order may differ.
    pub fn turned_like(&self, like: &Quad) -> Quad {
        (0..4)
            .map(|k| Quad(std::array::from_fn(|i| self.0[(i + k) % 4])))
            .min_by(|a, b| {
                a.max_corner_distance(like)
                    .total_cmp(&b.max_corner_distance(like))
            })
            .unwrap_or(*self)
    }

    pub fn centroid(&self) -> Point {
        let sum = self
            .0
            .iter()
            .fold([0.0, 0.0], |acc, p| [acc[0] + p[0], acc[1] + p[1]]);
        [sum[0] / 4.0, sum[1] / 4.0]
    }

    /// Whether `p` lies inside this convex quadrilateral (on the same side of every side).
    ///
    /// ```
    /// use sudoku_ar::geometry::Quad;
    /// let square = Quad([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]);
    /// assert!(square.contains([5.0, 5.0]));
    /// assert!(!square.contains([11.0, 5.0]));
    /// ```
    pub fn contains(&self, p: Point) -> bool {
        let signs: Vec<f64> = (0..4)
            .map(|i| {
                let (a, b) = (self.0[i], self.0[(i + 1) % 4]);
                (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
            })
            .collect();
        signs.iter().all(|&s| s > 0.0) || signs.iter().all(|&s| s < 0.0)
    }

    /// How many times farther from the camera the farthest corner is than the nearest, were
    /// the quad a flat square seen through a pinhole; None when no view of a square shows it so
    /// (a corner would lie behind the camera).
    ///
    /// Under a pinhole the third coordinate of a plane's homography to the image is the depth of
    /// each point, whatever the lens's focal length: a page seen straight on is 1, one tilted 60
    /// degrees and filling the picture under 2. A quad with a corner pushed in nearly onto the
    /// diagonal is a square only seen from inches off its plane.
    ///
    /// ```
    /// use sudoku_ar::geometry::Quad;
    /// let straight = Quad([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]);
    /// assert!((straight.depth_ratio().unwrap() - 1.0).abs() < 1e-9);
    /// let kite = Quad([[184.0, 97.0], [310.0, 91.0], [302.0, 205.0], [225.0, 155.0]]);
    /// assert!(kite.depth_ratio().unwrap() > 5.0);
    /// ```
    pub fn depth_ratio(&self) -> Option<f64> {
        let h = Homography::from_quads(&Quad::UNIT, self)?.0;
        let depths = Quad::UNIT.0.map(|[x, y]| h[6] * x + h[7] * y + h[8]);
        let nearest = depths.iter().copied().fold(f64::MAX, f64::min);
        let farthest = depths.iter().copied().fold(f64::MIN, f64::max);
        (nearest > 0.0).then(|| farthest / nearest)
    }

    /// Whether a page could be seen so: its far corner at most [`MOST_DEPTH_RATIO`] times as far
    /// from the camera as its near one ([`Quad::depth_ratio`]).
    pub fn in_plausible_view(&self) -> bool {
        self.depth_ratio()
            .is_some_and(|ratio| ratio <= MOST_DEPTH_RATIO)
    }

    /// Whether every corner is convex and turns the same way (no bow-ties).
    pub fn is_convex(&self) -> bool {
        let signs: Vec<f64> = (0..4)
            .map(|i| {
                let (a, b, c) = (self.0[i], self.0[(i + 1) % 4], self.0[(i + 2) % 4]);
                (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
            })
            .collect();
        signs.iter().all(|&s| s > 0.0) || signs.iter().all(|&s| s < 0.0)
    }

    /// Orders four points as the puzzle reads: clockwise on screen, starting at the corner nearest
    /// the image's top-left (the smallest x + y).
    pub fn from_unordered(points: [Point; 4]) -> Quad {
        let c = Quad(points).centroid();
        let mut sorted = points;
        // Image y grows downwards, so increasing atan2 angle is clockwise on screen.
        sorted.sort_by(|a, b| {
            let angle = |p: &Point| (p[1] - c[1]).atan2(p[0] - c[0]);
            angle(a).total_cmp(&angle(b))
        });
        let start = (0..4).min_by(|&i, &j| {
            (sorted[i][0] + sorted[i][1]).total_cmp(&(sorted[j][0] + sorted[j][1]))
        });
        let start = start.unwrap_or(0);
        Quad(std::array::from_fn(|i| sorted[(start + i) % 4]))
    }

    /// This quad with the sides (top, right, bottom, left) marked in `take` replaced by those of
    /// `other`, each corner where its two sides meet; None where two sides that meet are parallel.
    ///
    /// ```
    /// use sudoku_ar::geometry::Quad;
    /// let square = Quad([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]);
    /// let wider = Quad([[0.0, 0.0], [12.0, 0.0], [12.0, 10.0], [0.0, 10.0]]);
    /// let right_of_wider = square.with_sides_of(&wider, [false, true, false, false]);
    /// assert_eq!(right_of_wider, Some(wider));
    /// ```
    pub fn with_sides_of(&self, other: &Quad, take: [bool; 4]) -> Option<Quad> {
        let side = |i: usize| -> Line {
            let q = if take[i] { other } else { self };
            let (a, b) = (q.0[i], q.0[(i + 1) % 4]);
            (a, [b[0] - a[0], b[1] - a[1]])
        };
        let mut corners = self.0;
        for (c, corner) in corners.iter_mut().enumerate() {
            let before = (c + 3) % 4;
            *corner = match (take[before], take[c]) {
                (false, false) => self.0[c],
                (true, true) => other.0[c],
                _ => intersect(side(before), side(c))?,
            };
        }
        Some(Quad(corners))
    }

    pub fn to_cv(&self) -> [Point2f; 4] {
        self.0.map(|[x, y]| Point2f::new(x as f32, y as f32))
    }
}

pub fn distance(a: Point, b: Point) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// A line as a point on it and its direction.
pub type Line = (Point, [f64; 2]);

/// Where two lines meet; None if they are parallel.
pub fn intersect((p, d): Line, (q, e): Line) -> Option<Point> {
    let cross = d[0] * e[1] - d[1] * e[0];
    if cross.abs() < 1e-9 {
        return None;
    }
    let t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / cross;
    Some([p[0] + d[0] * t, p[1] + d[1] * t])
}

/// A 3x3 projective transform, row-major, acting on column vectors (x, y, 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography(pub [f64; 9]);

impl Homography {
    /// The transform taking each point of `from` to the same corner of `to`, or None when three
    /// of the points are collinear.
    ///
    /// ```
    /// use sudoku_ar::geometry::{Homography, Quad};
    /// let paper = Quad([[10.0, 20.0], [110.0, 25.0], [105.0, 130.0], [5.0, 120.0]]);
    /// let image_from_grid = Homography::from_quads(&Quad::UNIT, &paper).unwrap();
    /// let [x, y] = image_from_grid.apply([1.0, 1.0]);
    /// assert!((x - 105.0).abs() < 1e-9 && (y - 130.0).abs() < 1e-9);
    /// ```
    pub fn from_quads(from: &Quad, to: &Quad) -> Option<Homography> {
        // Eight equations in h0..h7 with h8 = 1.
        let mut a = [[0.0f64; 9]; 8];
        for i in 0..4 {
            let ([x, y], [u, v]) = (from.0[i], to.0[i]);
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        let h = solve_augmented(&mut a)?;
        Some(Homography([
            h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0,
        ]))
    }

    pub fn apply(&self, [x, y]: Point) -> Point {
        let h = &self.0;
        let w = h[6] * x + h[7] * y + h[8];
        [
            (h[0] * x + h[1] * y + h[2]) / w,
            (h[3] * x + h[4] * y + h[5]) / w,
        ]
    }

    /// `self` after `other`: (self * other)(p) = self(other(p)).
    pub fn after(&self, other: &Homography) -> Homography {
        let (a, b) = (&self.0, &other.0);
        Homography(std::array::from_fn(|k| {
            let (r, c) = (k / 3, k % 3);
            (0..3).map(|i| a[r * 3 + i] * b[i * 3 + c]).sum()
        }))
    }

    pub fn inverse(&self) -> Option<Homography> {
        let m = &self.0;
        let cof = [
            m[4] * m[8] - m[5] * m[7],
            m[2] * m[7] - m[1] * m[8],
            m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8],
            m[0] * m[8] - m[2] * m[6],
            m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6],
            m[1] * m[6] - m[0] * m[7],
            m[0] * m[4] - m[1] * m[3],
        ];
        let det = m[0] * cof[0] + m[1] * cof[3] + m[2] * cof[6];
        if det.abs() < 1e-12 {
            return None;
        }
        Some(Homography(cof.map(|c| c / det)))
    }

    /// Scales grid coordinates: maps (x, y) to (x * s, y * s).
    pub fn scaling(s: f64) -> Homography {
        Homography([s, 0.0, 0.0, 0.0, s, 0.0, 0.0, 0.0, 1.0])
    }

    pub fn translation(dx: f64, dy: f64) -> Homography {
        Homography([1.0, 0.0, dx, 0.0, 1.0, dy, 0.0, 0.0, 1.0])
    }

    /// The homography taking `from` to `to` (point by point), fitted robustly (USAC), and how
    /// many points lie within `distance` of where it puts them; None when fewer than
    /// `min_inliers` do.
    pub fn fit(
        from: &Vector<Point2f>,
        to: &Vector<Point2f>,
        distance: f64,
        min_inliers: usize,
    ) -> opencv::Result<Option<(Homography, usize)>> {
        if from.len() < min_inliers {
            return Ok(None);
        }
        let mut mask = Mat::default();
        let fitted = opencv::calib3d::find_homography(
            from,
            to,
            &mut mask,
            opencv::calib3d::USAC_FAST,
            distance,
        )?;
        if fitted.empty() {
            return Ok(None);
        }
        let inliers = opencv::core::count_non_zero(&mask)? as usize;
        if inliers < min_inliers {
            return Ok(None);
        }
        let mut h = [0.0; 9];
        for (k, value) in h.iter_mut().enumerate() {
            *value = *fitted.at_2d::<f64>((k / 3) as i32, (k % 3) as i32)?;
        }
        Ok(Some((Homography(h), inliers)))
    }

    /// The 3x3 `CV_64F` matrix OpenCV's warping functions take.
    pub fn to_mat(&self) -> opencv::Result<Mat> {
        Mat::new_rows_cols_with_data(3, 3, &self.0).map(|m| m.try_clone())?
    }
}

/// Warps `src` by `dst_from_src` into a `size` image, bilinear; pixels from outside `src` repeat
/// its edge (`replicate_edge`) or are 0.
pub fn warp(
    src: &Mat,
    dst_from_src: &Homography,
    size: opencv::core::Size,
    replicate_edge: bool,
) -> opencv::Result<Mat> {
    let border = if replicate_edge {
        opencv::core::BORDER_REPLICATE
    } else {
        opencv::core::BORDER_CONSTANT
    };
    let mut dst = Mat::default();
    opencv::imgproc::warp_perspective(
        src,
        &mut dst,
        &dst_from_src.to_mat()?,
        size,
        opencv::imgproc::INTER_LINEAR,
        border,
        opencv::core::Scalar::default(),
    )?;
    Ok(dst)
}

/// Gaussian elimination with partial pivoting on an n x n system given as n rows [a | b] of
/// `M` = n + 1 numbers; None when it is singular.
pub(crate) fn solve_augmented<const M: usize>(a: &mut [[f64; M]]) -> Option<Vec<f64>> {
    let n = a.len();
    if M != n + 1 {
        return None;
    }
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        for row in 0..n {
            if row != col {
                let f = a[row][col] / a[col][col];
                let pivot_row = a[col];
                for (value, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                    *value -= f * p;
                }
            }
        }
    }
    Some((0..n).map(|i| a[i][n] / a[i][i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Point, b: Point) -> bool {
        distance(a, b) < 1e-6
    }

    #[test]
    fn homography_maps_corners_and_inverts() {
        let paper = Quad([[100.0, 50.0], [400.0, 80.0], [380.0, 420.0], [60.0, 390.0]]);
        let image_from_grid = Homography::from_quads(&Quad::UNIT, &paper).unwrap();
        for i in 0..4 {
            assert!(close(image_from_grid.apply(Quad::UNIT.0[i]), paper.0[i]));
        }
        let grid_from_image = image_from_grid.inverse().unwrap();
        let p = [0.3, 0.7];
        assert!(close(grid_from_image.apply(image_from_grid.apply(p)), p));
        assert!(close(
            image_from_grid.after(&grid_from_image).apply([123.0, 45.0]),
            [123.0, 45.0]
        ));
    }

    #[test]
    fn turns_corners_to_match_another_order() {
        let upright = Quad([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]);
        let turned = Quad([[10.0, 0.0], [10.0, 10.0], [0.0, 10.0], [0.0, 0.0]]);
        assert_eq!(upright.turned_like(&turned), turned);
        assert_eq!(turned.turned_like(&upright), upright);
    }

    #[test]
    fn degenerate_quad_has_no_homography() {
        let line = Quad([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]);
        assert!(Homography::from_quads(&Quad::UNIT, &line).is_none());
    }

    #[test]
    fn orders_corners_clockwise_from_top_left() {
        let shuffled = [[90.0, 95.0], [10.0, 12.0], [8.0, 90.0], [100.0, 5.0]];
        let quad = Quad::from_unordered(shuffled);
        assert_eq!(
            quad.0,
            [[10.0, 12.0], [100.0, 5.0], [90.0, 95.0], [8.0, 90.0]]
        );
        assert!(quad.is_convex());
        assert!((Quad::UNIT.area() - 1.0).abs() < 1e-12);
    }
}
