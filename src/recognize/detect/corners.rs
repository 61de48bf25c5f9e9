//! Step 3 of finding a grid ([`super`]): its corners at full resolution, where lines fitted
//! through the centre of the printed border meet; an outline corner cut short on an inner line
//! moved out to the border.

use opencv::core::{Point2f, Vec4f, Vector};
use opencv::imgproc;

use crate::geometry::{Homography, Quad, distance};
use crate::raster::GrayView;

/// How much darker (gray levels) a straight stretch is than the paper on either side of it, at
/// `ALONG` points from `from` to `to` (grid coordinates of `image_from_grid`): how much darker
/// the darkest point near the stretch is than the darker of the two points `ACROSS` cells to
/// either side along `across` (so that a step from paper to a dark table is no line), at least
/// 0. None where a point falls outside the image.
fn darker_along(
    view: &GrayView,
    image_from_grid: &Homography,
    (from, to): ([f64; 2], [f64; 2]),
    across: [f64; 2],
) -> Option<Vec<f64>> {
    const ALONG: usize = 36;
    const ACROSS: f64 = 0.3;
    let (width, height) = (view.width as f64, view.height as f64);
    let at = |p: [f64; 2], o: f64| {
        let [x, y] = image_from_grid.apply([p[0] + across[0] * o, p[1] + across[1] * o]);
        ((0.0..width).contains(&x) && (0.0..height).contains(&y)).then(|| view.sample(x, y))
    };
    (0..ALONG)
        .map(|j| {
            let t = 0.05 + 0.9 * j as f64 / (ALONG - 1) as f64;
            let p = [
                from[0] + (to[0] - from[0]) * t,
                from[1] + (to[1] - from[1]) * t,
            ];
            let mut centre = f64::MAX;
            for o in [-0.1, -0.05, 0.0, 0.05, 0.1] {
                centre = centre.min(at(p, o)?);
            }
            Some((at(p, -ACROSS)?.min(at(p, ACROSS)?) - centre).max(0.0))
        })
        .collect()
}

/// A side is weak, and a corner through it may have been cut short, when it is less than this
/// share as dark along as the clearest side.
const WEAK_SIDE: f64 = 0.4;
/// A side moved out at one corner is a printed border when it is at least `UNCUT_GAIN` times as
/// dark along as before, between `WEAK_SIDE` and `UNCUT_MOST` times as dark as the clearest
/// side (a dark stripe or the edge of a finger is no border), and a line all along: at
/// `UNCUT_ALL_ALONG` of its points at least `WEAK_SIDE` times as dark as the clearest side.
const UNCUT_GAIN: f64 = 2.0;
const UNCUT_MOST: f64 = 1.5;
const UNCUT_ALL_ALONG: f64 = 0.8;

/// `quad`, with a corner that was cut short along a side (a blurred border fading at the corner,
/// so that the outline turned in along the first inner line) moved out to the printed border:
/// where a side is weak, its corners are tried one and two cells further out along the other
/// side through each, and the move that makes the weak side a printed line is taken.
pub(super) fn uncut(view: &GrayView, quad: &Quad) -> Quad {
    let grid = Quad::UNIT.scaled(9.0).0;
    let Some(image_from_grid) = Homography::from_quads(&Quad(grid), quad) else {
        return *quad;
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    // Side i runs from corner i to corner i + 1; across it, outward, is the way its corner i
    // would move along side i - 1, and the same way for corner i + 1 along side i + 1.
    let outward = |c: usize, along: usize| {
        let (p, q) = (grid[c], grid[along]);
        [(p[0] - q[0]) / 9.0, (p[1] - q[1]) / 9.0]
    };
    let sides: Vec<Option<f64>> = (0..4)
        .map(|i| {
            let ends = (grid[i], grid[(i + 1) % 4]);
            darker_along(view, &image_from_grid, ends, outward(i, (i + 3) % 4)).map(|d| mean(&d))
        })
        .collect();
    let strongest = sides.iter().flatten().fold(0.0, |a: f64, &b| a.max(b));
    let mut best: Option<(f64, usize, [f64; 2])> = None;
    for (i, side) in sides.iter().enumerate() {
        let Some(now) = *side else { continue };
        if now >= WEAK_SIDE * strongest {
            continue;
        }
        for (c, fixed) in [(i, (i + 1) % 4), ((i + 1) % 4, i)] {
            let along = if c == i { (i + 3) % 4 } else { (i + 2) % 4 };
            let out = outward(c, along);
            // Cut one or two cells short, the side along holds 8 or 7 of the outline's ninths
            // where it was cut, and 9 at its other end: the border is looked for from 0.8 to
            // 1.4 ninths out, or 1.8 to 2.7.
            let steps = (16..=28).chain(36..=54).map(|n| n as f64 * 0.05);
            for ninths in steps {
                let moved = [grid[c][0] + out[0] * ninths, grid[c][1] + out[1] * ninths];
                let Some(then) = darker_along(view, &image_from_grid, (grid[fixed], moved), out)
                else {
                    continue;
                };
                let dark = mean(&then);
                let all_along = then.iter().filter(|&&d| d >= WEAK_SIDE * strongest).count() as f64
                    / then.len() as f64;
                let border = dark >= UNCUT_GAIN * now
                    && (WEAK_SIDE * strongest..=UNCUT_MOST * strongest).contains(&dark)
                    && all_along >= UNCUT_ALL_ALONG;
                if border && best.is_none_or(|b| dark > b.0) {
                    best = Some((dark, c, moved));
                }
            }
        }
    }
    let Some((dark, c, moved)) = best else {
        return *quad;
    };
    tracing::debug!(
        corner = c,
        strongest,
        dark,
        ?moved,
        ?quad,
        "an outline corner cut short: moved out to the border"
    );
    let mut uncut = *quad;
    uncut.0[c] = image_from_grid.apply(moved);
    uncut
}

/// Moves each side of `quad` onto the centre of the printed border line, measured at full
/// resolution, and returns where the fitted sides meet. `scale` is how much coarser the image
/// was where `quad` came from, which bounds how far the true border can be. A corner the border
/// runs on beyond, where it ended at the corner of `quad`, is left where `quad` has it: a side
/// fitted off a border bowed beyond reach can meet the other side inside the grid.
pub fn refine_corners(gray: &GrayView, quad: &Quad, scale: f64) -> Quad {
    let reach = 2.0 * scale + 3.0;
    let centre = quad.centroid();
    let mut lines = [None; 4];
    for (i, line) in lines.iter_mut().enumerate() {
        let (a, b) = (quad.0[i], quad.0[(i + 1) % 4]);
        *line = fit_side(gray, a, b, centre, reach);
    }
    let mut refined = *quad;
    for i in 0..4 {
        let (before, after) = (lines[(i + 3) % 4], lines[i]);
        if let (Some(l1), Some(l2)) = (before, after)
            && let Some(p) = intersect(l1, l2)
        {
            refined.0[i] = p;
        }
    }
    let longest = quad.sides().into_iter().fold(0.0, f64::max);
    let limit = reach + 0.06 * longest;
    if refined.max_corner_distance(quad) > limit || !refined.is_convex() {
        return *quad;
    }
    for i in 0..4 {
        let goes_on = |quad: &Quad| border_goes_on(gray, quad, i, reach);
        if goes_on(&refined) == Some(true) && goes_on(quad) == Some(false) {
            tracing::trace!(
                corner = i,
                ?quad,
                ?refined,
                "a refined corner cut short: kept"
            );
            refined.0[i] = quad.0[i];
        }
    }
    if !refined.is_convex() {
        return *quad;
    }
    refined
}

/// Where beyond a corner, along each side through it, and where before it, [`border_goes_on`]
/// looks: the reach of the refinement (beyond a thick border's blurred end) and these shares
/// of a cell further.
const BEYOND_CORNER: [f64; 4] = [0.0, 0.025, 0.05, 0.075];
/// The border goes on beyond a corner where it is at least this share as dark there as before
/// it, at all but one of the points looked at.
const GOES_ON: f64 = 0.7;
/// The least darkness (gray levels below the paper) a border must show before a corner to be
/// looked for beyond it.
const BORDER_SHOWS: f64 = 20.0;

/// Whether the dark border along either side through corner `i` of `quad` goes on beyond it,
/// from the refinement's `reach` to a further 0.075 of a cell: then the corner lies inside the
/// grid, along its border. None when that cannot be told (a point beyond the picture, or no
/// border shown before the corner on a side where it does not go on). A side fitted along a
/// border bowed beyond `reach` mid-side (curved paper) is fitted to what lies nearer, a column
/// of digits or a shadow's edge, and met the other side a third of a cell in along a bowed
/// page's bottom border, while the outline's corner it was refined from lay on the printed
/// corner (`01_20` bowed half a cell, `cargo bench --bench curved -- --bowed-stills 0.5`).
fn border_goes_on(gray: &GrayView, quad: &Quad, i: usize, reach: f64) -> Option<bool> {
    let corner = quad.0[i];
    let cell = quad.mean_side() / 9.0;
    let goes_on = |other: [f64; 2]| -> Option<bool> {
        let length = distance(corner, other).max(1e-9);
        let out = [
            (corner[0] - other[0]) / length,
            (corner[1] - other[1]) / length,
        ];
        let normal = [-out[1], out[0]];
        // How much darker the darkest point within reach across the side is than the lighter
        // of the two points a quarter of a cell to either side.
        let darkness = |along: f64| -> Option<f64> {
            let p = [corner[0] + out[0] * along, corner[1] + out[1] * along];
            let at = |t: f64| {
                let q = [p[0] + normal[0] * t, p[1] + normal[1] * t];
                gray.contains(q).then(|| gray.sample(q[0], q[1]))
            };
            let paper = at(-0.25 * cell)?.max(at(0.25 * cell)?);
            let steps = (2.0 * reach).ceil() as usize;
            let mut darkest = f64::MAX;
            for k in 0..=steps {
                darkest = darkest.min(at(-reach + k as f64)?);
            }
            Some((paper - darkest).max(0.0))
        };
        let (mut before, mut beyond) = (Vec::new(), Vec::new());
        for share in BEYOND_CORNER {
            let along = reach + share * cell;
            before.push(darkness(-along)?);
            beyond.push(darkness(along)?);
        }
        let border = before.iter().sum::<f64>() / before.len() as f64;
        let dark_beyond = beyond.iter().filter(|&&d| d >= GOES_ON * border).count();
        (border >= BORDER_SHOWS).then_some(dark_beyond + 1 >= beyond.len())
    };
    match [quad.0[(i + 3) % 4], quad.0[(i + 1) % 4]].map(goes_on) {
        [Some(true), _] | [_, Some(true)] => Some(true),
        [Some(false), Some(false)] => Some(false),
        _ => None,
    }
}

pub(super) use crate::geometry::{Line, intersect};

/// Fits a line through the centre of the dark border near the side from `a` to `b`.
fn fit_side(
    gray: &GrayView,
    a: [f64; 2],
    b: [f64; 2],
    centre: [f64; 2],
    reach: f64,
) -> Option<Line> {
    const SAMPLES: usize = 48;
    const STEP: f64 = 0.5;
    let length = distance(a, b);
    let dir = [(b[0] - a[0]) / length, (b[1] - a[1]) / length];
    let mut normal = [-dir[1], dir[0]];
    let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    if (centre[0] - mid[0]) * normal[0] + (centre[1] - mid[1]) * normal[1] < 0.0 {
        normal = [-normal[0], -normal[1]];
    }
    let thickest = 0.04 * length + 2.0;
    let steps = ((2.0 * reach + thickest) / STEP) as usize + 3;
    let mut points = Vector::<Point2f>::new();
    let mut profile = vec![0.0; steps];
    for j in 0..SAMPLES {
        let s = 0.06 + 0.88 * j as f64 / (SAMPLES - 1) as f64;
        let p = [a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s];
        for (k, value) in profile.iter_mut().enumerate() {
            let t = -reach + k as f64 * STEP;
            *value = gray.sample(p[0] + normal[0] * t, p[1] + normal[1] * t);
        }
        if let Some(offset) = border_centre(&profile, reach, thickest, STEP) {
            points.push(Point2f::new(
                (p[0] + normal[0] * offset) as f32,
                (p[1] + normal[1] * offset) as f32,
            ));
        }
    }
    if points.len() < SAMPLES / 3 {
        return None;
    }
    line_through(&points)
}

/// The line through `points`, fitted robustly (a Huber loss: a few points on a digit's stroke
/// beside the border count little).
pub(super) fn line_through(points: &Vector<Point2f>) -> Option<Line> {
    let mut fitted = Vec4f::default();
    imgproc::fit_line(points, &mut fitted, imgproc::DIST_HUBER, 0.0, 0.01, 0.01).ok()?;
    let [vx, vy, x0, y0] = fitted.0.map(|v| v as f64);
    Some(([x0, y0], [vx, vy]))
}

/// Where along an inward profile (starting `reach` outside the side) the dark border line's
/// centre lies, relative to the side: midway between its outer (light to dark) and inner
/// (dark to light) edges, each found to sub-sample precision.
fn border_centre(profile: &[f64], reach: f64, thickest: f64, step: f64) -> Option<f64> {
    let n = profile.len();
    let slope: Vec<f64> = (0..n)
        .map(|k| {
            if k == 0 || k + 1 == n {
                0.0
            } else {
                (profile[k + 1] - profile[k - 1]) / (2.0 * step)
            }
        })
        .collect();
    let outer_end = ((2.0 * reach) / step) as usize;
    let outer = (1..outer_end.min(n - 1)).min_by(|&i, &j| slope[i].total_cmp(&slope[j]))?;
    if slope[outer] > -3.0 {
        return None;
    }
    let inner_end = (outer + (thickest / step) as usize + 1).min(n - 1);
    let inner = (outer + 1..inner_end).max_by(|&i, &j| slope[i].total_cmp(&slope[j]))?;
    if slope[inner] < 0.3 * -slope[outer] {
        return None;
    }
    let position =
        |k: usize| -reach + (k as f64 + parabola_peak(slope[k - 1], slope[k], slope[k + 1])) * step;
    Some((position(outer) + position(inner)) / 2.0)
}

/// Offset of a peak from the middle of three samples, by the parabola through them.
pub(crate) fn parabola_peak(left: f64, mid: f64, right: f64) -> f64 {
    let curvature = left - 2.0 * mid + right;
    if curvature.abs() < 1e-9 {
        0.0
    } else {
        (0.5 * (left - right) / curvature).clamp(-0.5, 0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::detect::tests::drawn_grid;
    use opencv::core::{Mat, Size};

    #[test]
    fn an_outline_corner_cut_short_on_an_inner_line_is_moved_out_to_the_border() {
        // 40 px cells; blurred as a moving frame is.
        let sharp = drawn_grid(640, 480, 100, 60, 360);
        let mut page = Mat::default();
        imgproc::gaussian_blur_def(&sharp, &mut page, Size::new(9, 9), 3.0).unwrap();
        let view = GrayView::new(&page).unwrap();
        let truth = Quad([[100.0, 60.0], [460.0, 60.0], [460.0, 420.0], [100.0, 420.0]]);
        // Bottom-left corner on the first inner column line; top-left on the first row line.
        let mut cut_left = truth;
        cut_left.0[3] = [140.0, 420.0];
        let mut cut_top = truth;
        cut_top.0[0] = [100.0, 100.0];
        // Two cells short: moved out two.
        let mut two_short = truth;
        two_short.0[3] = [180.0, 420.0];
        for cut in [cut_left, cut_top, two_short] {
            // Moved out near the border, then onto it as every outline is (`find_dark_grid`).
            let moved = uncut(&view, &cut);
            assert!(
                moved.max_corner_distance(&truth) < 8.0,
                "{cut:?} -> {moved:?}"
            );
            let refined = refine_corners(&view, &moved, 1.0);
            assert!(
                refined.max_corner_distance(&truth) < 1.5,
                "{cut:?} -> {refined:?}"
            );
        }
        // Whole: left alone.
        assert_eq!(uncut(&view, &truth), truth);
    }

    #[test]
    fn a_corner_is_not_refined_along_a_border_when_its_side_is_fitted_off_a_bowed_border() {
        // 40 px cells from (100, 60); the left border bows 18 px out mid-side (paper curving),
        // beyond the refinement's reach, and a dark line (a shadow's edge, a column of digits)
        // runs inside it, slanting from 2 px in at row 2 to 14 px in at the bottom. The side
        // fitted there tilts onto it and met the bottom border 6 px (0.16 of a cell) in; the
        // outline's corner, on the printed corner, is kept instead.
        let mut sharp = drawn_grid(640, 480, 100, 60, 360);
        let ink = opencv::core::Scalar::all(20.0);
        let paper = opencv::core::Scalar::all(235.0);
        let straight = opencv::core::Rect::new(99, 62, 3, 356);
        imgproc::rectangle(&mut sharp, straight, paper, -1, imgproc::LINE_8, 0).unwrap();
        let bowed: Vector<opencv::core::Point> = (0..=60)
            .map(|k| {
                let t = k as f64 / 60.0;
                let x = 100.0 - 18.0 * (std::f64::consts::PI * t).sin();
                opencv::core::Point::new(x.round() as i32, (60.0 + 360.0 * t).round() as i32)
            })
            .collect();
        let mut lines = Vector::<Vector<opencv::core::Point>>::new();
        lines.push(bowed);
        imgproc::polylines(&mut sharp, &lines, false, ink, 4, imgproc::LINE_8, 0).unwrap();
        let edge = (
            opencv::core::Point::new(102, 140),
            opencv::core::Point::new(114, 418),
        );
        imgproc::line(&mut sharp, edge.0, edge.1, ink, 3, imgproc::LINE_8, 0).unwrap();
        let mut page = Mat::default();
        imgproc::gaussian_blur_def(&sharp, &mut page, Size::new(3, 3), 0.8).unwrap();
        let view = GrayView::new(&page).unwrap();
        let truth = Quad([[100.0, 60.0], [460.0, 60.0], [460.0, 420.0], [100.0, 420.0]]);
        let refined = refine_corners(&view, &truth, 1.0);
        assert!(
            distance(refined.0[3], truth.0[3]) < 2.0,
            "bottom-left {:?}",
            refined.0[3]
        );
        assert!(refined.max_corner_distance(&truth) < 2.0, "{refined:?}");
    }

    #[test]
    fn parabola_peak_finds_the_vertex() {
        // Samples of -(x - 0.25)^2 at -1, 0, 1.
        let f = |x: f64| -(x - 0.25f64).powi(2);
        assert!((parabola_peak(f(-1.0), f(0.0), f(1.0)) - 0.25).abs() < 1e-9);
    }
}
