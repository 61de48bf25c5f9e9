//! The paper's curve: how a grid's printed lines bend away from where the homography of its four
//! corners puts them.
//!
//! A newspaper folded or curled, a book's page near the spine: the corners are right, but a
//! homography through them cannot bend, and the middle cells' digits were drawn up to a third of a
//! cell off, across the printed lines (Wicht `image1020`). Reading already cuts every cell along
//! the lines it follows ([`crate::recognize::lines`]); a [`Bend`] keeps where those lines cross,
//! as offsets in grid units from the flat grid, so that the overlay draws each cell between its
//! own crossings. In grid units the curve travels with the paper: a video frame whose homography
//! comes from tracking places the same offsets through its own `image_from_grid`.

use crate::geometry::{Homography, Point, Quad, distance, solve_augmented};

/// Where a grid's printed lines cross, in picture pixels: `0[row_line][column_line]`, both 0 to
/// 9, row line 0 running from the first corner of the grid's quad to its second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lattice(pub [[Point; 10]; 10]);

impl Lattice {
    /// The four outer crossings, in the order of a [`Quad`].
    pub fn corners(&self) -> Quad {
        Quad([self.0[0][0], self.0[0][9], self.0[9][9], self.0[9][0]])
    }

    /// The crossings of a flat grid with corners `quad`; None when three of them are collinear.
    pub fn flat(quad: &Quad) -> Option<Lattice> {
        let image_from_grid = Homography::from_quads(&Quad::UNIT, quad)?;
        Some(Lattice(std::array::from_fn(|r| {
            std::array::from_fn(|c| image_from_grid.apply([c as f64 / 9.0, r as f64 / 9.0]))
        })))
    }

    /// These crossings when they lie as printed lines on paper do, flat or bending smoothly
    /// between the lattice's own corners (near the smooth surface [`Bend::fit`] fits, within its
    /// bounds), each one followed astray (0.08 of a cell or more off that surface) put on
    /// it; None when they do not lie so. Such a lattice says where the cells are even when its
    /// corners are not the ones the grid is drawn by (a corner given kept on a border the lines
    /// did not see).
    pub fn smoothed(&self) -> Option<Lattice> {
        let cell = 1.0 / 9.0;
        let corners = self.corners();
        let (bend, astray) = Bend::fit_smoothly(self, &corners, &[[true; 10]; 10])?;
        if astray > SMOOTH_WITHIN * cell || bend.largest() > AT_MOST * cell {
            return None;
        }
        let fitted = bend.lattice(&Homography::from_quads(&Quad::UNIT, &corners)?);
        let far = SMOOTH_WITHIN * corners.mean_side() / 9.0;
        Some(Lattice(std::array::from_fn(|r| {
            std::array::from_fn(|c| {
                let (followed, smooth) = (self.0[r][c], fitted.0[r][c]);
                if distance(followed, smooth) < far {
                    followed
                } else {
                    smooth
                }
            })
        })))
    }

    /// The crossings in a picture `factor` times the size.
    pub fn scaled(&self, factor: f64) -> Lattice {
        Lattice(self.0.map(|row| row.map(|[x, y]| [x * factor, y * factor])))
    }

    /// The same crossings indexed from the corner nearest `quad`'s first one: a grid read turned
    /// names its corners from the puzzle's top-left, not from the corner it was found with.
    pub fn turned_like(&self, quad: &Quad) -> Lattice {
        let mut turned = *self;
        let mut best = *self;
        for _ in 0..3 {
            turned = Lattice(std::array::from_fn(|r| {
                std::array::from_fn(|c| turned.0[c][9 - r])
            }));
            if turned.corners().max_corner_distance(quad) < best.corners().max_corner_distance(quad)
            {
                best = turned;
            }
        }
        best
    }
}

/// Neighbouring cells of paper curling smoothly differ in width by at most this share of a cell
/// (a real page lifted at one side: 0.15). A box around the grid, its sides no lines of it
/// (a panel from the puzzle beside it to the page's edge), puts them along such a curve too, but
/// its first and last cells half a cell wider or narrower than the next.
const CELLS_STEP: f64 = 0.3;

/// The lines 0 to 9 (line k at `first + k * cell` on flat paper), placed along the curve
/// k(9 - k)(a + b k) of offsets (pixels, at most `reach`; 0 at the borders, as paper curling
/// smoothly bends them) where `shown`, each position's share covered by a line, sums highest
/// over lines 1 to 8; the straightest among equals. Taken as a whole, so that a line more than
/// half a cell off its ninth is not found where its neighbour lies. The curve is named by its
/// offsets at lines 3 and 6, searched pixel by pixel.
pub(crate) fn clearest_curve(shown: &[f64], first: usize, cell: usize, reach: i64) -> [usize; 10] {
    let last = shown.len().saturating_sub(1) as f64;
    let flat = |k: usize| first + k * cell;
    let at = |k: usize, a: f64, b: f64| {
        if k.is_multiple_of(9) {
            return flat(k);
        }
        let kf = k as f64;
        let offset = kf * (9.0 - kf) * (a + b * kf);
        (flat(k) as f64 + offset).round().clamp(0.0, last) as usize
    };
    let mut best = (f64::MIN, std::array::from_fn(flat));
    for o3 in -reach..=reach {
        for o6 in -reach..=reach {
            // 18(a + 3b) = o3 and 18(a + 6b) = o6.
            let b = (o6 - o3) as f64 / 54.0;
            let a = o3 as f64 / 18.0 - 3.0 * b;
            let lines: [usize; 10] = std::array::from_fn(|k| at(k, a, b));
            let off = |k: usize| lines[k].abs_diff(flat(k));
            let width = |k: usize| lines[k + 1] as f64 - lines[k] as f64;
            // Every line towards the same side (a pixel's sway at line 1 or 8 aside): no page
            // curls its lines both ways.
            let (a1, a8) = (a + b, a + 8.0 * b);
            if (1..9).any(|k| off(k) as i64 > reach)
                || (0..8).any(|k| (width(k + 1) - width(k)).abs() > CELLS_STEP * cell as f64)
                || a1 * a8 < 0.0 && a1.abs().min(a8.abs()) * 8.0 > 1.0
            {
                continue;
            }
            // A pixel of bend weighs less than any line's share showing more.
            let bent: usize = (1..9).map(off).sum();
            let score = (1..9)
                .map(|k| shown.get(lines[k]).copied().unwrap_or(0.0))
                .sum::<f64>()
                - 1e-6 * bent as f64;
            if score > best.0 {
                best = (score, lines);
            }
        }
    }
    best.1
}

/// How far (pixels) all the lines of one way lie off their places in each of the 9 stretches
/// they cross, on paper bowed across them: along the bow `c + b (t - 1/2) + a sin(pi t)` (t from
/// 0 to 1 along the lines, at the stretches' middles) through which they show most, `shown(j,
/// by)` being how much they show in stretch `j` moved by `by` pixels; `a` within `reach` either
/// way, `b` and `c` (the corners a little off) within `slack`; the least bent among equals.
/// Taken as a whole, like [`clearest_curve`]: lines bowed half a cell show as well half a cell
/// the other way (the next line's place) stretch by stretch, and a stretch's digits can show a
/// comb of their own; only the bow through all of them tells.
pub(crate) fn clearest_bow(shown: impl Fn(usize, i64) -> f64, reach: i64, slack: i64) -> [i64; 9] {
    let most = reach + 2 * slack;
    let table: Vec<Vec<f64>> = (0..9)
        .map(|j| (-most..=most).map(|by| shown(j, by)).collect())
        .collect();
    let bow = |a: i64, b: i64, c: i64| -> [i64; 9] {
        std::array::from_fn(|j| {
            let t = (j as f64 + 0.5) / 9.0;
            let by = c as f64 + b as f64 * (t - 0.5) + a as f64 * (std::f64::consts::PI * t).sin();
            (by.round() as i64).clamp(-most, most)
        })
    };
    let mut best = (f64::MIN, [0; 9]);
    for a in -reach..=reach {
        for b in -slack..=slack {
            for c in -slack..=slack {
                let moves = bow(a, b, c);
                let bent = (a.abs() + b.abs() + c.abs()) as f64;
                let score = (0..9)
                    .map(|j| table[j][(moves[j] + most) as usize])
                    .sum::<f64>()
                    - 1e-6 * bent;
                if score > best.0 {
                    best = (score, moves);
                }
            }
        }
    }
    best.1
}

/// Per crossing of the printed lines, how far (grid units: the side is 1) it lies from where the
/// homography of the grid's corners puts it, smoothed: see the module's doc.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bend([[Point; 10]; 10]);

/// The lattice's outer crossings must lie this near (share of a cell) the quad's corners: else
/// the quad was not taken from these lines (a border not seen), and their offsets would move the
/// whole overlay rather than bend it.
const CORNERS_AGREE: f64 = 0.1;
/// Offsets that differ from a smooth surface by more than this (share of a cell, root mean
/// square) are lines followed astray (onto digits, on a blurred frame), not paper bending.
const SMOOTH_WITHIN: f64 = 0.08;
/// A fit spoiled by at most this many crossings lying farther than `STRAY` (share of a cell)
/// off its surface is fitted again without them: on a page filled in by hand, big digits beside
/// pale lines, the lines were followed onto a stroke at four or five crossings, 0.2-0.3 of a
/// cell off, and a bend the rest showed within 0.15 of a cell (root mean square 0.085 with
/// them) was thrown away: the grid, drawn flat on paper bowed a third of a cell, was withheld
/// for 20 frames (`oblique.py 01_04_iphone_14_1.jpg --bend 0.034`). Lines followed astray
/// along a stretch leave more than that, or a surface the rest still lie off.
const STRAYS_AT_MOST: usize = 6;
const STRAY: f64 = 0.16;
/// A bend is fitted to at least this many of the 100 crossings (a cubic surface each way has
/// 10 terms; the crossings around a finger over a box and a half leave some 70).
const KEPT_AT_LEAST: usize = 50;
/// A bend smaller than this everywhere (share of a cell) is flat paper: drawn by the corners.
const FLAT_BELOW: f64 = 0.05;
/// A bend larger than this somewhere (share of a cell) is not believed: the lines cannot have
/// been followed that far from where the corners put them (see `recognize::lines`' reach: a box
/// line 0.4 of a cell from its place, or from the curve the lines make on paper lifted far, up
/// to 0.6 off; real pages lifted so, their middle lines 0.55 of a cell off, bend 0.62). 0.5
/// before session 42.
const AT_MOST: f64 = 0.75;

/// Whether the outer crossings of `lattice` lie within a tenth of a cell of the
/// corners of `quad`.
pub fn corners_agree(lattice: &Lattice, quad: &Quad) -> bool {
    lattice.corners().max_corner_distance(quad) <= CORNERS_AGREE * quad.mean_side() / 9.0
}

impl Bend {
    /// The bend of the paper whose printed lines cross at `lattice`, given the grid's corners
    /// `quad` (the same picture); None when it is flat, or when the crossings do not describe
    /// a smooth bend between those corners (then the corners alone place the overlay).
    ///
    /// ```
    /// use sudoku_ar::bend::{Bend, Lattice};
    /// use sudoku_ar::geometry::Quad;
    /// // A page bowed 6 px to the right in its middle rows, 360 px across.
    /// let lattice = Lattice(std::array::from_fn(|r| std::array::from_fn(|c| {
    ///     let v = r as f64 / 9.0;
    ///     [40.0 * c as f64 + 24.0 * v * (1.0 - v), 40.0 * r as f64]
    /// })));
    /// let quad = lattice.corners();
    /// let bend = Bend::fit(&lattice, &quad).unwrap();
    /// assert!((bend.largest() * 360.0 - 6.0).abs() < 0.2);
    /// ```
    pub fn fit(lattice: &Lattice, quad: &Quad) -> Option<Bend> {
        Bend::fit_leaving_out(lattice, quad, &[false; 81])
    }

    /// [`Bend::fit`] to the crossings around the cells not `left_out` (cells in reading
    /// order, named from the grid's top-left as `lattice` is): the lines beside something over
    /// the paper (a finger, handwriting across a line) are followed where the paper does not
    /// bend, but the crossings away from it still say how it does.
    ///
    /// ```
    /// use sudoku_ar::bend::{Bend, Lattice};
    /// // A page bowed 6 px to the right in its middle rows, 360 px across; the lines followed
    /// // beside a finger over four cells in the middle put the crossings around them 20 px off.
    /// let bowed = |r: usize, c: usize| {
    ///     let v = r as f64 / 9.0;
    ///     [40.0 * c as f64 + 24.0 * v * (1.0 - v), 40.0 * r as f64]
    /// };
    /// let mut lattice = Lattice(std::array::from_fn(|r| std::array::from_fn(|c| bowed(r, c))));
    /// let mut finger = [false; 81];
    /// for (r, c) in [(4, 4), (4, 5), (5, 4), (5, 5)] {
    ///     finger[r * 9 + c] = true;
    /// }
    /// for r in 4..=6 {
    ///     for c in 4..=6 {
    ///         lattice.0[r][c][0] += 20.0;
    ///     }
    /// }
    /// let quad = lattice.corners();
    /// assert!(Bend::fit(&lattice, &quad).is_none());
    /// let bend = Bend::fit_leaving_out(&lattice, &quad, &finger).unwrap();
    /// assert!((bend.largest() * 360.0 - 6.0).abs() < 0.3);
    /// ```
    pub fn fit_leaving_out(lattice: &Lattice, quad: &Quad, left_out: &[bool; 81]) -> Option<Bend> {
        let cell = 1.0 / 9.0;
        if !corners_agree(lattice, quad) {
            return None;
        }
        let mut kept = [[true; 10]; 10];
        for (i, _) in left_out.iter().enumerate().filter(|(_, out)| **out) {
            let (r, c) = (i / 9, i % 9);
            for [dr, dc] in [[0, 0], [0, 1], [1, 0], [1, 1]] {
                kept[r + dr][c + dc] = false;
            }
        }
        // The corners place the grid; a bend needs crossings enough across it to be fitted.
        if kept_count(&kept) < KEPT_AT_LEAST {
            return None;
        }
        let (mut bend, mut astray) = Bend::fit_smoothly(lattice, quad, &kept)?;
        if astray > SMOOTH_WITHIN * cell
            && let Some(trimmed) = without_strays(lattice, quad, &kept, &bend)
        {
            // A few crossings followed onto a digit's stroke beside a pale line spoil the fit
            // of a bend all the others show.
            (bend, astray) = Bend::fit_smoothly(lattice, quad, &trimmed)?;
            tracing::trace!(
                strays = kept_count(&kept) - kept_count(&trimmed),
                "bend fitted again without the crossings followed astray"
            );
        }
        let largest = bend.largest();
        tracing::trace!(
            astray = astray / cell,
            largest = largest / cell,
            "bend of the printed lines (cells)"
        );
        (astray <= SMOOTH_WITHIN * cell
            && largest >= FLAT_BELOW * cell
            && largest <= AT_MOST * cell)
            .then_some(bend)
    }

    /// The smooth surface of offsets of `lattice` from the flat grid at `quad`, and how far (grid
    /// units, root mean square) the crossings lie from it; None when it cannot be solved.
    fn fit_smoothly(
        lattice: &Lattice,
        quad: &Quad,
        kept: &[[bool; 10]; 10],
    ) -> Option<(Bend, f64)> {
        let cell = 1.0 / 9.0;
        let grid_from_image = Homography::from_quads(quad, &Quad::UNIT)?;
        let offsets: [[Point; 10]; 10] = std::array::from_fn(|r| {
            std::array::from_fn(|c| {
                let [u, v] = grid_from_image.apply(lattice.0[r][c]);
                [u - c as f64 * cell, v - r as f64 * cell]
            })
        });
        let surface = Surface::fit(&offsets, kept)?;
        let bend = Bend(std::array::from_fn(|r| {
            std::array::from_fn(|c| surface.at([c as f64 * cell, r as f64 * cell]))
        }));
        let (mut squared, mut n) = (0.0, 0);
        for ((row, fitted), kept) in offsets.iter().zip(&bend.0).zip(kept) {
            for ((&o, &f), _) in row.iter().zip(fitted).zip(kept).filter(|(_, k)| **k) {
                squared += distance(o, f).powi(2);
                n += 1;
            }
        }
        Some((bend, (squared / n as f64).sqrt()))
    }

    /// The largest offset, in grid units.
    pub fn largest(&self) -> f64 {
        self.0
            .iter()
            .flatten()
            .map(|&o| distance(o, [0.0, 0.0]))
            .fold(0.0, f64::max)
    }

    /// How far grid point `[x, y]` (the side is 1) lies from where the homography of the
    /// corners puts it: the offsets at the four crossings around it, interpolated.
    ///
    /// ```
    /// use sudoku_ar::bend::{Bend, Lattice};
    /// // A page bowed 6 px to the right in its middle rows, 360 px across.
    /// let lattice = Lattice(std::array::from_fn(|r| std::array::from_fn(|c| {
    ///     let v = r as f64 / 9.0;
    ///     [40.0 * c as f64 + 24.0 * v * (1.0 - v), 40.0 * r as f64]
    /// })));
    /// let bend = Bend::fit(&lattice, &lattice.corners()).unwrap();
    /// let [dx, dy] = bend.offset_at([1.0, 0.5]);
    /// assert!((dx * 360.0 - 6.0).abs() < 0.2 && dy.abs() < 0.01);
    /// ```
    pub fn offset_at(&self, [x, y]: Point) -> Point {
        let at = |v: f64| {
            let v = (v * 9.0).clamp(0.0, 9.0);
            let i = (v.floor() as usize).min(8);
            (i, v - i as f64)
        };
        let ((c, u), (r, v)) = (at(x), at(y));
        let o = &self.0;
        std::array::from_fn(|k| {
            let top = o[r][c][k] * (1.0 - u) + o[r][c + 1][k] * u;
            let bottom = o[r + 1][c][k] * (1.0 - u) + o[r + 1][c + 1][k] * u;
            top * (1.0 - v) + bottom * v
        })
    }

    /// Where the lines cross in a picture whose homography of the grid's corners is
    /// `image_from_grid`.
    pub fn lattice(&self, image_from_grid: &Homography) -> Lattice {
        Lattice(std::array::from_fn(|r| {
            std::array::from_fn(|c| {
                let [du, dv] = self.0[r][c];
                image_from_grid.apply([c as f64 / 9.0 + du, r as f64 / 9.0 + dv])
            })
        }))
    }
}

/// `kept` without the crossings of `lattice` lying more than [`STRAY`] of a cell off `bend`
/// (fitted to `kept`, the grid's corners at `quad`): None when there are none, more than
/// [`STRAYS_AT_MOST`], or too few crossings would be left.
fn without_strays(
    lattice: &Lattice,
    quad: &Quad,
    kept: &[[bool; 10]; 10],
    bend: &Bend,
) -> Option<[[bool; 10]; 10]> {
    let fitted = bend.lattice(&Homography::from_quads(&Quad::UNIT, quad)?);
    let far = STRAY * quad.mean_side() / 9.0;
    let mut trimmed = *kept;
    let mut strays = 0;
    for (r, row) in trimmed.iter_mut().enumerate() {
        for (c, keep) in row.iter_mut().enumerate().filter(|(_, k)| **k) {
            if distance(lattice.0[r][c], fitted.0[r][c]) > far {
                *keep = false;
                strays += 1;
            }
        }
    }
    (strays > 0 && strays <= STRAYS_AT_MOST && kept_count(&trimmed) >= KEPT_AT_LEAST)
        .then_some(trimmed)
}

/// How many crossings `kept` keeps.
fn kept_count(kept: &[[bool; 10]; 10]) -> usize {
    kept.iter().flatten().filter(|k| **k).count()
}

/// A smooth offset (a cubic surface each way) over grid coordinates: how the paper's curve moves
/// each point of the grid.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Surface {
    across: [f64; 10],
    down: [f64; 10],
}

impl Surface {
    /// The least-squares surface through `offsets`, given at the lines' crossings
    /// (`offsets[row_line][column_line]`, in grid units); None when it cannot be solved.
    fn fit(offsets: &[[Point; 10]; 10], kept: &[[bool; 10]; 10]) -> Option<Surface> {
        Some(Surface {
            across: fit_cubic(offsets, kept, 0)?,
            down: fit_cubic(offsets, kept, 1)?,
        })
    }

    /// The offset at grid point `[u, v]` (0 to 1 across the grid; beside it, as at its edge,
    /// where a cubic would run away).
    fn at(&self, [u, v]: Point) -> Point {
        let (x, y) = (u.clamp(0.0, 1.0) - 0.5, v.clamp(0.0, 1.0) - 0.5);
        [cubic(&self.across, x, y), cubic(&self.down, x, y)]
    }
}

/// The ten terms of a cubic surface at (x, y).
fn cubic_terms(x: f64, y: f64) -> [f64; 10] {
    [
        1.0,
        x,
        y,
        x * x,
        x * y,
        y * y,
        x * x * x,
        x * x * y,
        x * y * y,
        y * y * y,
    ]
}

fn cubic(coefficients: &[f64; 10], x: f64, y: f64) -> f64 {
    cubic_terms(x, y)
        .iter()
        .zip(coefficients)
        .map(|(t, c)| t * c)
        .sum()
}

/// The least-squares cubic surface through coordinate `k` of the offsets `kept`, over grid
/// coordinates centred on the grid's middle.
fn fit_cubic(offsets: &[[Point; 10]; 10], kept: &[[bool; 10]; 10], k: usize) -> Option<[f64; 10]> {
    let mut normal = [[0.0; 11]; 10];
    for (r, row) in offsets.iter().enumerate() {
        for (c, offset) in row.iter().enumerate().filter(|(c, _)| kept[r][*c]) {
            let terms = cubic_terms(c as f64 / 9.0 - 0.5, r as f64 / 9.0 - 0.5);
            for i in 0..10 {
                for j in 0..10 {
                    normal[i][j] += terms[i] * terms[j];
                }
                normal[i][10] += terms[i] * offset[k];
            }
        }
    }
    let solved = solve_augmented(&mut normal)?;
    Some(std::array::from_fn(|i| solved[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid 360 px across at (20, 30), its lines bowed by `bow` pixels (rightwards, largest
    /// in the middle rows), and its corners.
    fn bowed(bow: f64) -> (Lattice, Quad) {
        let lattice = Lattice(std::array::from_fn(|r| {
            std::array::from_fn(|c| {
                let v = r as f64 / 9.0;
                [
                    20.0 + 40.0 * c as f64 + 4.0 * bow * v * (1.0 - v),
                    30.0 + 40.0 * r as f64,
                ]
            })
        }));
        (lattice, lattice.corners())
    }

    #[test]
    fn a_bowed_page_is_drawn_along_its_lines() {
        let (lattice, quad) = bowed(8.0);
        let bend = Bend::fit(&lattice, &quad).expect("a clear bend");
        let image_from_grid = Homography::from_quads(&Quad::UNIT, &quad).unwrap();
        let drawn = bend.lattice(&image_from_grid);
        for (row, truth) in drawn.0.iter().zip(&lattice.0) {
            for (&d, &t) in row.iter().zip(truth) {
                assert!(distance(d, t) < 0.3, "{d:?} vs {t:?}");
            }
        }
    }

    #[test]
    fn flat_paper_and_lines_followed_astray_are_drawn_by_the_corners() {
        let (flat, quad) = bowed(0.5);
        assert_eq!(Bend::fit(&flat, &quad), None);
        // One line followed onto the digits beside it, a third of a cell off, the rest flat:
        // no smooth bend does that.
        let (mut astray, quad) = bowed(0.0);
        for r in 1..9 {
            astray.0[r][4][0] += 13.0 * if r % 2 == 0 { 1.0 } else { -1.0 };
        }
        assert_eq!(Bend::fit(&astray, &quad), None);
    }

    #[test]
    fn a_bend_all_but_a_few_crossings_show_is_fitted_without_them() {
        let (truth, quad) = bowed(8.0);
        let image_from_grid = Homography::from_quads(&Quad::UNIT, &quad).unwrap();
        // Every crossing followed within a pixel and a half, and some onto a digit's stroke
        // beside the line, 0.35 of a cell off.
        let followed = |strays: &[(usize, usize)]| {
            let mut lattice = truth;
            for (r, row) in lattice.0.iter_mut().enumerate() {
                for (c, p) in row.iter_mut().enumerate() {
                    p[0] += if (r + c) % 2 == 0 { 1.5 } else { -1.5 };
                }
            }
            for &(r, c) in strays {
                lattice.0[r][c][1] += 14.0;
            }
            lattice
        };
        let six = [(0, 8), (2, 9), (6, 9), (9, 8), (4, 3), (1, 5)];
        let bend = Bend::fit(&followed(&six), &quad).expect("a bend all but six crossings show");
        let drawn = bend.lattice(&image_from_grid);
        for (row, truth) in drawn.0.iter().zip(&truth.0) {
            for (&d, &t) in row.iter().zip(truth) {
                assert!(distance(d, t) < 3.0, "{d:?} vs {t:?}");
            }
        }
        // Ten so are no bend the paper shows.
        let ten = [six.as_slice(), &[(3, 3), (5, 5), (7, 2), (8, 6)]].concat();
        assert_eq!(Bend::fit(&followed(&ten), &quad), None);
    }

    #[test]
    fn crossings_off_the_corners_given_are_no_bend() {
        // The quad was cut on the first inner line (a border not seen): a cell off.
        let (lattice, mut quad) = bowed(8.0);
        quad.0[0] = lattice.0[1][1];
        assert_eq!(Bend::fit(&lattice, &quad), None);
    }

    #[test]
    fn a_lattice_followed_smoothly_keeps_its_crossings_and_puts_one_astray_on_its_curve() {
        let (bowed, _) = bowed(8.0);
        assert_eq!(bowed.smoothed(), Some(bowed));
        // One crossing followed onto a digit, 0.6 of a cell off: put back on the curve.
        let mut one_astray = bowed;
        one_astray.0[4][5][1] += 24.0;
        let smoothed = one_astray.smoothed().expect("smooth but for one crossing");
        assert!(distance(smoothed.0[4][5], bowed.0[4][5]) < 4.0);
        assert_eq!(smoothed.0[6][2], bowed.0[6][2]);
        // A line followed astray along its length is no curve of the paper.
        let (mut astray, _) = self::bowed(0.0);
        for r in 1..9 {
            astray.0[r][4][0] += 13.0 * if r % 2 == 0 { 1.0 } else { -1.0 };
        }
        assert_eq!(astray.smoothed(), None);
    }

    #[test]
    fn a_lattice_is_turned_to_the_puzzle_s_corners() {
        let (lattice, quad) = bowed(8.0);
        // The puzzle's top-left is the found grid's top-right corner.
        let turned_quad = Quad(std::array::from_fn(|i| quad.0[(i + 1) % 4]));
        let turned = lattice.turned_like(&turned_quad);
        assert_eq!(turned.corners(), turned_quad);
        assert_eq!(turned.0[0][1], lattice.0[1][9]);
    }

    #[test]
    fn lines_are_followed_along_one_smooth_curve_even_where_each_lies_nearer_its_neighbours_ninth()
    {
        // Lines 4, 7, 9, 11, 11, 10, 8, 5 pixels past their ninths (cell 20): line 4, at 91, lies
        // nearer line 5's ninth (100) than its own (80).
        let truth = [0, 24, 47, 69, 91, 111, 130, 148, 165, 180];
        let mut shown = vec![0.05; 181];
        for &t in &truth[1..9] {
            shown[t - 1..=t + 1].fill(0.9);
        }
        let lines = clearest_curve(&shown, 0, 20, 12);
        assert!(
            (0..10).all(|k| lines[k].abs_diff(truth[k]) <= 1),
            "{lines:?}"
        );
        // Lines the curve cannot reach (a crossword's, every 12 pixels) leave it near the ninths.
        let mut crossword = vec![0.05; 181];
        for t in (0..181).step_by(12) {
            crossword[t] = 0.9;
        }
        let lines = clearest_curve(&crossword, 0, 20, 12);
        let on_lines = (1..9).filter(|&k| crossword[lines[k]] > 0.5).count();
        assert!(on_lines < 8, "{lines:?}");
    }
}
