//! Cells hidden under something lying on the paper: a finger or a thumb holding the page, a
//! pen. What shows of a digit under a fingertip can look like another digit, and the model is
//! sure of it; but the printed lines vanish under the finger too, and they are known to be
//! there. A cell whose lines are gone is read as unknown rather than as what shows. A dark pen
//! leaves the lines it lies over as dark as they were: it is found instead as something darker
//! than the paper and broader than any print ([`under_something_broad`]).

use std::ops::Range;

use opencv::core::Mat;

use crate::error::Result;
use crate::raster::{GrayView, Histogram, morphed};
use crate::recognize::cells::CELL;

/// A line stretch (or half of one) darker than the paper beside it by less than this share of
/// what the grid's lines of its kind (cell or box lines) usually show, or those running its way
/// where they show less, is hidden. Under a finger or a glare spot a line shows next to
/// nothing; lines in a dim, unevenly printed corner (image209) show a quarter to a third of the
/// usual.
const HIDDEN_SHARE: f64 = 0.2;
/// A hidden stretch is smooth: the gray across it and beside it deviates from its mean by
/// less than this share of the usual line contrast (strokes of handwriting along a line are
/// not smooth).
const SMOOTH_SHARE: f64 = 0.15;
/// Lines darker than the paper by less than this share of its brightness are too faint to
/// tell hidden ones (12 gray levels on white paper).
const MIN_LINE_CONTRAST: f64 = 0.05;

/// One stretch of an inner grid line between two neighbouring cells.
#[derive(Debug, Clone, Copy)]
struct Stretch {
    /// The line's index, 1-8, across (horizontal) or down (vertical).
    line: usize,
    /// Which cell along the line, 0-8.
    along: usize,
    horizontal: bool,
}

impl Stretch {
    /// Every stretch: the horizontal lines' first, line by line, then the vertical ones'.
    fn all() -> impl Iterator<Item = Stretch> {
        // Plain loops into a list, not nested `flat_map`s over `[true, false]`: in one build
        // by rustc 1.95 valgrind saw that iterator's state read before it was written (a
        // jump on an uninitialised value made in `hidden_cells`' stack frame), and the answer
        // hung on the binary's layout: the same frame, read at its true corners, had 26 cells
        // by box lines taken for hidden in that build and none in one of the same source
        // built in another folder (hand-held bench, `handheld:image43` frame 18). With the
        // loops valgrind is clean and every build agrees.
        let mut all = Vec::with_capacity(2 * 8 * 9);
        for horizontal in [true, false] {
            for line in 1..9 {
                for along in 0..9 {
                    all.push(Stretch {
                        line,
                        along,
                        horizontal,
                    });
                }
            }
        }
        all.into_iter()
    }

    fn is_box_line(&self) -> bool {
        self.line.is_multiple_of(3)
    }

    /// The two cells (row-major indices) the stretch lies between.
    fn cells(&self) -> [usize; 2] {
        if self.horizontal {
            [(self.line - 1) * 9 + self.along, self.line * 9 + self.along]
        } else {
            [self.along * 9 + self.line - 1, self.along * 9 + self.line]
        }
    }

    /// The middle of the stretch, away from the crossings where other lines are (positions
    /// along the line), and its two halves: a glare spot or a fingertip's edge may wash out
    /// half a stretch only.
    fn spans(&self) -> [Range<usize>; 3] {
        let start = self.along * CELL as usize;
        let (from, mid, to) = (
            start + 6,
            start + CELL as usize / 2,
            start + CELL as usize - 6,
        );
        [from..to, from..mid, mid..to]
    }

    /// The gray at position `t` along the line, `offset` pixels across it.
    fn gray(&self, grid: &GrayView, t: usize, offset: isize) -> f64 {
        let across = (self.line * CELL as usize) as isize + offset;
        let (x, y) = if self.horizontal {
            (t, across as usize)
        } else {
            (across as usize, t)
        };
        grid.get(x, y) as f64
    }

    /// How much the gray varies across `span` of the stretch and beside it: the mean absolute
    /// deviation, as a share of the mean (as [`Stretch::contrast`]). Smooth under a finger or
    /// in glare; not where strokes of handwriting cross or run along the line.
    fn texture(&self, grid: &GrayView, span: Range<usize>) -> f64 {
        let values: Vec<f64> = span
            .flat_map(|t| (-6isize..=5).map(move |offset| self.gray(grid, t, offset)))
            .collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let deviation = values.iter().map(|v| (v - mean).abs()).sum::<f64>() / values.len() as f64;
        deviation / mean.max(1.0)
    }

    /// How much darker the line is than the paper on both sides of it, as a share of the
    /// paper's brightness: the median over `span` of the stretch. A share, because a shadow
    /// dims lines and paper alike (image209: lines in its dim corner show a quarter of the
    /// usual gray levels, a normal share), while glare lifts the paper and washes the line out,
    /// and a finger shows no line at all.
    fn contrast(&self, grid: &GrayView, span: Range<usize>) -> f64 {
        let mut values: Vec<f64> = span
            .map(|t| {
                let at = |offset: isize| self.gray(grid, t, offset);
                let line = (-2..=1).map(at).fold(f64::MAX, f64::min);
                // The lighter side: a digit touching the line darkens one side only.
                let before = (at(-6) + at(-5)) / 2.0;
                let after = (at(4) + at(5)) / 2.0;
                let paper = before.min(after);
                (paper - line) / paper.max(1.0)
            })
            .collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    }
}

/// Which of the 81 cells of a rectified grid (`cells::GRID` square, lines at the cells'
/// edges) have a line beside them that is hidden where the grid's other lines show.
pub fn hidden_cells(rectified: &Mat) -> Result<[bool; 81]> {
    let grid = GrayView::new(rectified)?;
    // Each stretch's contrast over its middle; its halves' only when looked at.
    let stretches: Vec<(Stretch, f64)> = Stretch::all()
        .map(|s| (s, s.contrast(&grid, s.spans()[0].clone())))
        .collect();
    // The median contrast of the stretches `keep` keeps.
    let median = |keep: &dyn Fn(&Stretch) -> bool| {
        let mut c: Vec<f64> = stretches
            .iter()
            .filter(|(s, _)| keep(s))
            .map(|&(_, c)| c)
            .collect();
        c.sort_by(f64::total_cmp);
        c[c.len() / 2]
    };
    // What lines of a stretch's kind (cell or box lines) usually show, or what those running
    // its way show where that is less: the camera's motion smears the lines across it and
    // leaves those along it sharp (a page sliding in had all 36 cells beside its box lines
    // across the motion taken as hidden). Judged by its way's lines alone, two glare photos of
    // the photos bench were no longer solved; the lesser never marks more than its kind did.
    let mut usual = [[0.0; 2]; 2];
    for box_line in [false, true] {
        let kind = median(&|s| s.is_box_line() == box_line);
        for horizontal in [false, true] {
            let way = median(&|s| s.is_box_line() == box_line && s.horizontal == horizontal);
            usual[usize::from(box_line)][usize::from(horizontal)] = kind.min(way);
        }
    }
    let mut hidden = [false; 81];
    for &(stretch, middle_contrast) in &stretches {
        let usual = usual[usize::from(stretch.is_box_line())][usize::from(stretch.horizontal)];
        if usual < MIN_LINE_CONTRAST {
            continue;
        }
        let washed_out = |contrast: f64, span: Range<usize>| {
            contrast < HIDDEN_SHARE * usual && stretch.texture(&grid, span) < SMOOTH_SHARE * usual
        };
        let [middle, first_half, second_half] = stretch.spans();
        let hidden_here = washed_out(middle_contrast, middle)
            || [first_half, second_half]
                .into_iter()
                .any(|half| washed_out(stretch.contrast(&grid, half.clone()), half));
        if hidden_here {
            for cell in stretch.cells() {
                hidden[cell] = true;
            }
        }
    }
    Ok(hidden)
}

/// How clearly a rectified grid's inner lines show where it was cut to have them: the mean,
/// over every stretch of line between two cells, of how much darker it is than the paper beside
/// it (a share of the paper's brightness, as [`hidden_cells`] weighs it). A grid cut with its
/// lines a few pixels off shows less; one cut with rows or columns a line off, far less.
pub fn lines_shown(rectified: &Mat) -> Result<f64> {
    let grid = GrayView::new(rectified)?;
    let (sum, count) = Stretch::all().fold((0.0, 0), |(sum, count), s| {
        (sum + s.contrast(&grid, s.spans()[0].clone()), count + 1)
    });
    Ok(sum / count as f64)
}

/// How clearly the lines across the outermost row or column of cells on `side` (0 top, 1 right,
/// 2 bottom, 3 left) of a rectified grid show: the median, over the stretches of line there
/// crossing it at the ninths `lines` (`1..9` for all 8; from the side's start, its left or top
/// end), of each one's contrast as a share of what the grid's other lines that way usually
/// show. About 1 where the grid goes on out to that side; near 0 across paper beyond the grid;
/// 1 when the grid's lines are too faint to tell (darker than the paper by less than 5%), or
/// when `lines` holds none of the ninths 1-8.
pub fn edge_cells_ruled(rectified: &Mat, side: usize, lines: Range<usize>) -> Result<f64> {
    let grid = GrayView::new(rectified)?;
    let (horizontal, along) = match side {
        0 => (false, 0),
        1 => (true, 8),
        2 => (false, 8),
        _ => (true, 0),
    };
    let contrast = |s: &Stretch| s.contrast(&grid, s.spans()[0].clone());
    let mut usual: Vec<f64> = Stretch::all()
        .filter(|s| s.horizontal == horizontal && s.along != along)
        .map(|s| contrast(&s))
        .collect();
    usual.sort_by(f64::total_cmp);
    let usual = usual[usual.len() / 2];
    if usual < MIN_LINE_CONTRAST {
        return Ok(1.0);
    }
    let mut shares: Vec<f64> = lines
        .filter(|line| (1..9).contains(line))
        .map(|line| {
            contrast(&Stretch {
                line,
                along,
                horizontal,
            }) / usual
        })
        .collect();
    shares.sort_by(f64::total_cmp);
    Ok(shares.get(shares.len() / 2).copied().unwrap_or(1.0))
}

/// Print is thin: no line or stroke of a printed or written digit is this wide (share of a
/// cell; a bold app face's strokes are about 0.15).
const BROADER_THAN_PRINT: f64 = 0.28;
/// What is dark and broad over this many cells' length lies on the paper (a pen, a pencil);
/// a blot of ink in one cell does not.
const LONG: f64 = 1.5;
/// Dark, for [`under_something_broad`]: darker than the paper around it by this share of what
/// the darkest print shows.
const DARK_SHARE: f64 = 0.5;
/// How far in from the grid's edges (share of a cell) nothing counts as lying on the paper.
const EDGE_BAND: f64 = 0.3;
/// A cell this much (share of its area) under something broad is hidden.
const UNDER_SHARE: f64 = 0.04;

/// Which cells of a rectified grid lie partly under something dark, broader than any print
/// and long: a pen lying across the page. Over a grid line a dark pen shows no gap, as a
/// finger does, so [`hidden_cells`]' line test misses it; and what shows of a digit beside it
/// can be read as another (a 9 cut by the pen as a 1) or as empty.
pub fn under_something_broad(rectified: &Mat) -> Result<[bool; 81]> {
    use opencv::core::Size;
    use opencv::imgproc;
    // Looked for at half the size: a pen is broad, and this runs on every reading.
    let cell = CELL / 2;
    let mut half = Mat::default();
    imgproc::resize(
        rectified,
        &mut half,
        Size::new(9 * cell, 9 * cell),
        0.0,
        0.0,
        imgproc::INTER_AREA,
    )?;
    let Some(dark) = dark_as_ink(&half, cell)? else {
        return Ok([false; 81]);
    };
    // Too little dark to make one pen: nothing to look for.
    let width = (BROADER_THAN_PRINT * cell as f64).round() as i32 | 1;
    if (opencv::core::count_non_zero(&dark)? as f64) < LONG * (cell * width) as f64 {
        return Ok([false; 81]);
    }
    // An opening as wide as the broadest print leaves only what is broader.
    let broad = morphed(
        &dark,
        imgproc::MORPH_OPEN,
        imgproc::MORPH_ELLIPSE,
        width,
        opencv::core::BORDER_CONSTANT,
    )?;
    cells_under_long_shapes(&broad, cell)
}

/// Where the grid `half` (rectified, `cell` pixels a cell) is both darker than the paper
/// around it and dark as ink is, left out a band along its edges; None when nothing in it is
/// dark as print.
fn dark_as_ink(half: &Mat, cell: i32) -> Result<Option<Mat>> {
    use opencv::imgproc;
    use opencv::prelude::*;
    // Darkness against the paper around it: what a closing wider than any pen leaves minus the
    // grid, so that a shadow over part of the grid is not dark.
    let darkness = morphed(
        half,
        imgproc::MORPH_BLACKHAT,
        imgproc::MORPH_RECT,
        cell * 3 / 2,
        opencv::core::BORDER_REPLICATE,
    )?;
    let darkest_print = Histogram::of(&GrayView::new(&darkness)?, 1).level_at(0.98);
    if darkest_print < 20.0 {
        return Ok(None);
    }
    let mut darker = Mat::default();
    imgproc::threshold(
        &darkness,
        &mut darker,
        DARK_SHARE * darkest_print,
        255.0,
        imgproc::THRESH_BINARY,
    )?;
    // And dark as ink is: paper between two glare spots is darker than both, not dark.
    let grid = Histogram::of(&GrayView::new(half)?, 1);
    let (ink, paper) = (grid.level_at(0.02), grid.level_at(0.5));
    let mut inky = Mat::default();
    imgproc::threshold(
        half,
        &mut inky,
        (ink + paper) / 2.0,
        255.0,
        imgproc::THRESH_BINARY_INV,
    )?;
    // The outer border, thick in some prints, with the table beyond it where the grid was cut
    // a little wide, is no pen: a band along the edges is left out.
    let band = (EDGE_BAND * cell as f64).round() as i32;
    let inside = opencv::core::Rect::new(band, band, 9 * cell - 2 * band, 9 * cell - 2 * band);
    let mut dark = Mat::zeros(9 * cell, 9 * cell, half.typ())?.to_mat()?;
    opencv::core::bitwise_and(
        &Mat::roi(&darker, inside)?,
        &Mat::roi(&inky, inside)?,
        &mut Mat::roi_mut(&mut dark, inside)?,
        &opencv::core::no_array(),
    )?;
    Ok(Some(dark))
}

/// The cells of a grid `cell` pixels a cell that shapes of `broad` at least [`LONG`] cells
/// long lie over, on [`UNDER_SHARE`] of each cell or more.
fn cells_under_long_shapes(broad: &Mat, cell: i32) -> Result<[bool; 81]> {
    use opencv::imgproc;
    use opencv::prelude::*;
    let (mut labels, mut stats, mut centroids) = (Mat::default(), Mat::default(), Mat::default());
    let count = imgproc::connected_components_with_stats(
        broad,
        &mut labels,
        &mut stats,
        &mut centroids,
        8,
        opencv::core::CV_32S,
    )?;
    let long: Vec<bool> = (0..count)
        .map(|label| {
            let size = |column| *stats.at_2d::<i32>(label, column).unwrap_or(&0);
            let longest = size(imgproc::CC_STAT_WIDTH).max(size(imgproc::CC_STAT_HEIGHT));
            label > 0 && longest as f64 >= LONG * cell as f64
        })
        .collect();
    let mut hidden = [false; 81];
    if !long.contains(&true) {
        return Ok(hidden);
    }
    let mut under = [0usize; 81];
    for y in 0..labels.rows() {
        for x in 0..labels.cols() {
            let label = *labels.at_2d::<i32>(y, x)?;
            if long[label as usize] {
                under[(y / cell) as usize * 9 + (x / cell) as usize] += 1;
            }
        }
    }
    for (cell_index, &count) in under.iter().enumerate() {
        hidden[cell_index] = count as f64 >= UNDER_SHARE * (cell * cell) as f64;
    }
    Ok(hidden)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::cells::GRID;
    use opencv::core::{CV_8UC1, Rect, Scalar};
    use opencv::imgproc;
    use opencv::prelude::*;

    #[test]
    fn every_stretch_of_inner_line_comes_once_in_order() {
        let all: Vec<(bool, usize, usize)> = Stretch::all()
            .map(|s| (s.horizontal, s.line, s.along))
            .collect();
        let mut expected = Vec::new();
        for horizontal in [true, false] {
            for line in 1..9 {
                for along in 0..9 {
                    expected.push((horizontal, line, along));
                }
            }
        }
        assert_eq!(all, expected);
    }

    /// A rectified grid: paper at 200, lines at the cells' edges (box lines thicker).
    fn rectified_grid() -> Mat {
        let mut grid =
            Mat::new_rows_cols_with_default(GRID, GRID, CV_8UC1, Scalar::all(200.0)).unwrap();
        for k in 1..9 {
            let at = k * CELL;
            let (from, width) = if k % 3 == 0 { (at - 2, 4) } else { (at - 1, 2) };
            for rect in [
                Rect::new(from, 0, width, GRID),
                Rect::new(0, from, GRID, width),
            ] {
                imgproc::rectangle(&mut grid, rect, Scalar::all(60.0), -1, imgproc::LINE_8, 0)
                    .unwrap();
            }
        }
        grid
    }

    fn hidden_list(grid: &Mat) -> Vec<usize> {
        let hidden = hidden_cells(grid).unwrap();
        let under = under_something_broad(grid).unwrap();
        (0..81).filter(|&i| hidden[i] || under[i]).collect()
    }

    #[test]
    fn a_grid_cut_with_rows_off_its_lines_shows_them_less() {
        let grid = rectified_grid();
        let shown = lines_shown(&grid).unwrap();
        assert!(shown > 0.5, "{shown}");
        // The bottom three rows cut a third of a cell off (a box line followed onto digits):
        // their lines lie a third of a cell below where the cut puts them, on paper.
        let mut off = grid.clone();
        let rows = 3 * CELL;
        let below = Mat::roi(&grid, Rect::new(0, GRID - rows - CELL / 3, GRID, rows))
            .unwrap()
            .try_clone()
            .unwrap();
        let mut bottom = Mat::roi_mut(&mut off, Rect::new(0, GRID - rows, GRID, rows)).unwrap();
        below.copy_to(&mut bottom).unwrap();
        let off_shown = lines_shown(&off).unwrap();
        assert!(off_shown < 0.9 * shown, "{off_shown} of {shown}");
    }

    #[test]
    fn the_cells_at_an_edge_are_ruled_where_the_grid_goes_on_and_not_across_blank_paper() {
        let mut grid = rectified_grid();
        for side in 0..4 {
            let ruled = edge_cells_ruled(&grid, side, 1..9).unwrap();
            assert!(ruled > 0.9, "side {side}: {ruled}");
        }
        // The right-hand column blank paper (an outline taken a cell beyond the border): not
        // ruled there, and the left-hand column still is.
        imgproc::rectangle(
            &mut grid,
            Rect::new(8 * CELL + 2, 0, CELL - 2, GRID),
            Scalar::all(200.0),
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        assert!(edge_cells_ruled(&grid, 1, 1..9).unwrap() < 0.1);
        assert!(edge_cells_ruled(&grid, 3, 1..9).unwrap() > 0.9);
        // Only its lower half blank (an outline with one corner moved a cell beyond the border
        // takes in slivers of the grid's own cells at the other end): ruled over all 8 stretches,
        // not over the 4 next to the moved corner.
        let mut wedge = rectified_grid();
        let half = Rect::new(8 * CELL + 2, 4 * CELL + 2, CELL - 2, 5 * CELL - 2);
        imgproc::rectangle(&mut wedge, half, Scalar::all(200.0), -1, imgproc::LINE_8, 0).unwrap();
        assert!(edge_cells_ruled(&wedge, 1, 1..9).unwrap() > 0.9);
        assert!(edge_cells_ruled(&wedge, 1, 5..9).unwrap() < 0.1);
        assert!(edge_cells_ruled(&wedge, 1, 1..5).unwrap() > 0.9);
        // A thumb over two stretches of the left-hand column leaves it ruled all the same.
        let mut thumb = rectified_grid();
        imgproc::rectangle(
            &mut thumb,
            Rect::new(CELL / 2, 3 * CELL - CELL / 2, CELL, 2 * CELL),
            Scalar::all(150.0),
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        assert!(edge_cells_ruled(&thumb, 3, 1..9).unwrap() > 0.9);
    }

    #[test]
    fn a_clean_grid_has_nothing_hidden() {
        assert!(hidden_list(&rectified_grid()).is_empty());
    }

    /// A smooth fingertip from below over the middle of the bottom row's fifth cell (76),
    /// reaching over the line above it into cell 67.
    fn put_a_fingertip_over(grid: &mut Mat) {
        let finger = Rect::new(4 * CELL + 6, 7 * CELL + 12, 20, 2 * CELL - 12);
        imgproc::rectangle(grid, finger, Scalar::all(170.0), -1, imgproc::LINE_8, 0).unwrap();
    }

    #[test]
    fn a_fingertip_over_a_cell_hides_the_line_beside_it() {
        let mut grid = rectified_grid();
        put_a_fingertip_over(&mut grid);
        assert_eq!(hidden_list(&grid), vec![67, 76]);
    }

    #[test]
    fn lines_smeared_by_the_camera_s_motion_are_not_hidden_and_a_fingertip_still_is() {
        // Smeared sideways over a quarter of a cell: the lines down the grid fade, those
        // across it stay sharp (a page sliding in; the 36 cells beside the box lines down it
        // were taken as hidden against the sharp ones). Smeared over a third of a cell, the
        // lines down show too little to tell a fingertip's (as before).
        let mut smeared = Mat::default();
        imgproc::blur_def(
            &rectified_grid(),
            &mut smeared,
            opencv::core::Size::new(CELL / 4, 1),
        )
        .unwrap();
        assert!(
            hidden_list(&smeared).is_empty(),
            "{:?}",
            hidden_list(&smeared)
        );
        put_a_fingertip_over(&mut smeared);
        assert_eq!(hidden_list(&smeared), vec![67, 76]);
    }

    #[test]
    fn a_shadow_over_a_corner_hides_nothing() {
        // The bottom-left box in a shadow at a quarter of the light (image209's dim corner):
        // lines and paper darken together, the lines there show a quarter of the usual gray
        // levels.
        let mut grid = rectified_grid();
        let mut corner = Mat::roi_mut(
            &mut grid,
            Rect::new(0, 6 * CELL - 6, 3 * CELL + 6, 3 * CELL + 6),
        )
        .unwrap();
        let mut dimmed = Mat::default();
        corner.convert_to(&mut dimmed, -1, 0.25, 0.0).unwrap();
        dimmed.copy_to(&mut corner).unwrap();
        assert!(hidden_list(&grid).is_empty(), "{:?}", hidden_list(&grid));
    }

    #[test]
    fn a_glare_spot_hides_the_lines_it_washes_out() {
        // The paper lifted to white and the lines with it, over the line between cells 40 and
        // 41, keeping 15% of the line's contrast.
        let mut grid = rectified_grid();
        let spot = Rect::new(4 * CELL + 18, 4 * CELL + 6, 28, CELL - 12);
        let mut washed = Mat::roi_mut(&mut grid, spot).unwrap();
        let mut lifted = Mat::default();
        washed.convert_to(&mut lifted, -1, 0.15, 215.0).unwrap();
        lifted.copy_to(&mut washed).unwrap();
        assert_eq!(hidden_list(&grid), vec![40, 41]);
    }

    #[test]
    fn a_pen_lying_across_cells_hides_them_and_a_thick_border_does_not() {
        // A dark pen, a third of a cell wide, from the right edge over cells 44, 43 and 42;
        // the grid's outer border printed thick all round.
        let mut grid = rectified_grid();
        imgproc::rectangle(
            &mut grid,
            Rect::new(0, 0, GRID, GRID),
            Scalar::all(60.0),
            6,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        assert!(hidden_list(&grid).is_empty(), "{:?}", hidden_list(&grid));
        let pen = Rect::new(6 * CELL + 4, 4 * CELL + 11, 3 * CELL - 4, CELL / 3);
        imgproc::rectangle(&mut grid, pen, Scalar::all(40.0), -1, imgproc::LINE_8, 0).unwrap();
        assert_eq!(hidden_list(&grid), vec![42, 43, 44]);
    }

    #[test]
    fn bold_digits_are_no_pen() {
        // A row of bold strokes (a fifth of a cell wide, a cell long), as a heavy face prints
        // a 1: print, however dark.
        let mut grid = rectified_grid();
        for cell in 0..9 {
            let stroke = Rect::new(cell * CELL + 13, 4 * CELL + 4, CELL / 5, CELL - 8);
            imgproc::rectangle(&mut grid, stroke, Scalar::all(20.0), -1, imgproc::LINE_8, 0)
                .unwrap();
        }
        assert!(hidden_list(&grid).is_empty(), "{:?}", hidden_list(&grid));
    }

    #[test]
    fn handwriting_along_a_line_is_no_finger() {
        // Pen strokes running along both sides of the line between cells 67 and 76, as big
        // handwriting does: the line is no darker than the ink beside it, but nothing smooth
        // lies over it.
        let mut grid = rectified_grid();
        for offset in [-6, 4] {
            let stroke = Rect::new(4 * CELL + 2, 8 * CELL + offset, CELL - 4, 2);
            imgproc::rectangle(&mut grid, stroke, Scalar::all(60.0), -1, imgproc::LINE_8, 0)
                .unwrap();
        }
        assert!(hidden_list(&grid).is_empty(), "{:?}", hidden_list(&grid));
    }
}
