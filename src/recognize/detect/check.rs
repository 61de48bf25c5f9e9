//! Step 2 of finding a grid ([`super`]): whether an outline frames a Sudoku grid, eight evenly
//! spaced lines each way counted as long dark runs cell by cell in the rectified candidate, and
//! none running along inside the cells (a crossword's lines fall near ninths too).

use opencv::core::{Mat, Size};
use opencv::imgproc;
use opencv::prelude::{MatTrait, MatTraitConst, MatTraitConstManual};

use super::{CHECK_CELL, Look, MAX_GAP};
use crate::bend::{clearest_bow, clearest_curve};
use crate::error::Result;
use crate::geometry::{Homography, Quad, warp};
use crate::raster::{GrayView, Sharpness};

/// How clearly `quad` in `gray` frames a 9x9 grid: the mean share of each interior grid line
/// (8 across, 8 down) that is dark, minus the same share along the cell middles between them.
///
/// A printed Sudoku scores 0.5 to 0.9, even when every cell holds a digit; a box of text, a
/// calendar (7 columns) or a chessboard (8x8, no lines at ninths) scores below 0.2.
pub fn grid_score(gray: &Mat, quad: &Quad, look: Look) -> Result<f64> {
    Ok(check_grid(gray, quad, look)?.score)
}

/// What [`check_grid`] tells of a candidate.
#[derive(Debug, Clone, Copy)]
pub(super) struct GridCheck {
    /// [`grid_score`].
    pub(super) score: f64,
    /// Whether the candidate is smeared one way by the camera's motion.
    pub(super) smeared: bool,
    /// Whether it passed only for cell lines printed pale (see [`CELL_LINES_OVER_MIDDLES`]),
    /// as a 3x3 box of a grid can, its digits' strokes across its ninths, or for its box lines
    /// and digits alone ([`Masks::digits_sit_in_cells`]); the search then asks whether it is
    /// such a box, and the borderless search does not take it.
    pub(super) pale: bool,
    /// Whether the outline checked runs onto the picture's edge at a corner (see
    /// [`super::outline_cut_by_the_edge`]); told by the search, which saw the outline.
    pub(super) cut: bool,
}

impl GridCheck {
    pub(super) const NONE: GridCheck = GridCheck {
        score: 0.0,
        smeared: false,
        pale: false,
        cut: false,
    };
}

/// [`grid_score`], and whether the candidate is smeared.
pub(super) fn check_grid(gray: &Mat, quad: &Quad, look: Look) -> Result<GridCheck> {
    let side = 9 * CHECK_CELL;
    if !quad.in_plausible_view() {
        return Ok(GridCheck::NONE);
    }
    let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, quad) else {
        return Ok(GridCheck::NONE);
    };
    let Some(grid_from_image) = image_from_grid.inverse() else {
        return Ok(GridCheck::NONE);
    };
    let check_from_image = Homography::scaling(side as f64).after(&grid_from_image);
    let rectified = warp(gray, &check_from_image, Size::new(side, side), true)?;
    // Lines are looked for in a sensitive threshold, so that faint thin lines stay unbroken;
    // cell middles in a firm one, so that only real ink counts against the grid.
    let faint = dark_mask(&rectified, 2.0)?;
    let firm = dark_mask(&rectified, 5.0)?;
    let masks = Masks::new(&faint, &firm, CHECK_CELL as usize)?;
    let sharpness = GrayView::new(&rectified)?.sharpness_each_way();
    let even = Ruling::even(masks.cell);
    let check = masks.judge(&even, sharpness, look, CROSSED_MOST)?;
    if check.score > 0.0 {
        return Ok(check);
    }
    // Paper curled towards a book's gutter or lifted at one side narrows its rows or columns
    // there: the lines run smoothly off their ninths by more than a cell's stretch is looked
    // for (a real page lifted at its bottom, its middle rows 0.28 of a cell off: not found).
    if let Some(curled) = masks.curled_ruling().filter(|curled| *curled != even) {
        let check = masks.judge(&curled, sharpness, look, CROSSED_MOST)?;
        if check.score > 0.0 {
            return Ok(check);
        }
    }
    // Lifted further, so that some line lies nearer its neighbour's ninth than its own (middle
    // lines 0.55 of a cell off): the lines are followed along one curve as a whole, and must then
    // be every line there is (a panel around the grid, from the puzzle beside it to the page's
    // edge, had the grid's own borders crossing its first and last cells and its lines inside
    // along such a curve).
    let check = match masks.far_curled_ruling() {
        Some(far) => masks.judge(&far, sharpness, look, 1)?,
        None => check,
    };
    if check.score > 0.0 {
        return Ok(check);
    }
    // Paper curving up from the table bows every line running along the curve alike, borders
    // too, between corners that stay put: by half a cell at the middle, each line's stretches
    // there lay beyond where they are looked for (a real page bowed so: not found). Lines placed
    // along one bow as a whole must, like those along one far curve, be every line there is.
    // A video frame has many outlines to check (every block of text on a newspaper page;
    // searched for a bow, each of a page of boxed tables took detection from 80 to 108 ms a
    // frame), and looks for a bow only where the lines the other way lie straight, as on
    // paper bent along a cylinder: a real page bowed half a cell across its rows, written
    // over, was never found in video, only a box of it, read as the grid.
    if look != Look::Only && !masks.one_way_straight() {
        return Ok(check);
    }
    match masks.bowed_ruling() {
        Some(bowed) => {
            let bowed = masks.judge(&bowed, sharpness, look, 1)?;
            Ok(if bowed.score > 0.0 { bowed } else { check })
        }
        None => Ok(check),
    }
}

/// Where a candidate's lines are looked for, in pixels of the rectified candidate:
/// `0[way][k]` is line k (0 and 9 the borders) across (way 0: rows) or down (way 1); `1[way][j]`
/// how far (pixels) all of that way's lines are moved in the stretch of them crossing cell `j`
/// (a bow along them, see [`Masks::bowed_ruling`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ruling([[usize; 10]; 2], [[i64; 9]; 2]);

impl Ruling {
    /// Every line at its ninth.
    fn even(cell: usize) -> Ruling {
        Ruling([std::array::from_fn(|k| k * cell); 2], [[0; 9]; 2])
    }
}

/// The rectified candidate's dark pixels, `n` pixels a side, `cell` a cell, in a sensitive
/// threshold (for lines) and a firm one (for what lies in the cells), as 3-pixel bands: the
/// coverages are asked for some 10,000 times a candidate, most of them of outlines framing no
/// grid (text on a newspaper page), and each took its band apart pixel by pixel.
struct Masks {
    /// `bands[firm][horizontal]`, `n + 1` rows of `n`: row `centre` is whether any of the
    /// rows (`horizontal`) or columns within a pixel of `centre` is dark, along it (a centre
    /// one beyond the last pixel still has that pixel in its band).
    bands: [[Vec<u8>; 2]; 2],
    /// The firm mask itself, for the blobs in the cells of a grid shown by its box lines alone
    /// ([`Masks::digits_sit_in_cells`]).
    firm: Mat,
    n: usize,
    cell: usize,
}

impl Masks {
    /// The bands of the `faint` and `firm` masks (square, of the same size), `cell` a cell.
    fn new(faint: &Mat, firm: &Mat, cell: usize) -> Result<Masks> {
        let n = faint.cols() as usize;
        let band = |mask: &Mat, horizontal: bool| -> Result<Vec<u8>> {
            // One more row (or column) beyond, empty, then each pixel the darkest of the three
            // across the line.
            let mut wider = Mat::default();
            let (bottom, right) = if horizontal { (1, 0) } else { (0, 1) };
            opencv::core::copy_make_border(
                mask,
                &mut wider,
                0,
                bottom,
                0,
                right,
                opencv::core::BORDER_CONSTANT,
                opencv::core::Scalar::all(0.0),
            )?;
            let size = if horizontal {
                Size::new(1, 3)
            } else {
                Size::new(3, 1)
            };
            let kernel = imgproc::get_structuring_element(
                imgproc::MORPH_RECT,
                size,
                opencv::core::Point::new(-1, -1),
            )?;
            let mut banded = Mat::default();
            imgproc::dilate(
                &wider,
                &mut banded,
                &kernel,
                opencv::core::Point::new(-1, -1),
                1,
                opencv::core::BORDER_CONSTANT,
                imgproc::morphology_default_border_value()?,
            )?;
            if !horizontal {
                let mut turned = Mat::default();
                opencv::core::transpose(&banded, &mut turned)?;
                banded = turned;
            }
            Ok(banded.data_bytes()?.to_vec())
        };
        Ok(Masks {
            bands: [
                [band(faint, false)?, band(faint, true)?],
                [band(firm, false)?, band(firm, true)?],
            ],
            firm: firm.try_clone()?,
            n,
            cell,
        })
    }

    /// Share of positions along a 3-pixel band (rows or columns around `centre`, from `from` to
    /// `to`) that lie on a long dark run: a grid line, not the strokes of digits crossing it.
    fn coverage(&self, centre: usize, from: usize, to: usize, horizontal: bool, firm: bool) -> f64 {
        let band = &self.bands[usize::from(firm)][usize::from(horizontal)];
        let along = centre * self.n;
        match band.get(along + from..along + to) {
            Some(dark) => long_run_share(dark.iter().map(|&d| d > 0), self.cell / 2, MAX_GAP),
            None => 0.0,
        }
    }

    /// How much of the line near `centre` shows: a printed line may sit a little off its place
    /// (corner error), and on curved paper by a different amount in each cell, so each cell's
    /// stretch of it (between `ends`, the lines across; moved by `bow`) finds its own place.
    fn line_coverage(
        &self,
        centre: usize,
        ends: &[usize; 10],
        bow: &[i64; 9],
        horizontal: bool,
    ) -> f64 {
        let stretches = ends.windows(2).zip(bow).map(|(w, &by)| {
            let Some(centre) = self.moved(centre, by) else {
                return 0.0;
            };
            (centre.saturating_sub(3)..=(centre + 3).min(self.n - 1))
                .map(|c| self.coverage(c, w[0], w[1], horizontal, false))
                .fold(0.0, f64::max)
        });
        stretches.sum::<f64>() / 9.0
    }

    /// `centre` moved by `by` pixels, when that stays in the picture.
    fn moved(&self, centre: usize, by: i64) -> Option<usize> {
        usize::try_from(centre as i64 + by)
            .ok()
            .filter(|&c| c < self.n)
    }

    /// [`Masks::coverage`] along the whole band around `centre`, or where `bow` moves all the
    /// lines of a way, stretch by stretch (between `ends`), the share over the stretches.
    fn coverage_along(
        &self,
        centre: usize,
        ends: &[usize; 10],
        bow: &[i64; 9],
        horizontal: bool,
        firm: bool,
    ) -> f64 {
        if bow.iter().all(|&by| by == 0) {
            return self.coverage(centre, 0, self.n, horizontal, firm);
        }
        let stretches = ends.windows(2).zip(bow).map(|(w, &by)| {
            self.moved(centre, by)
                .map_or(0.0, |c| self.coverage(c, w[0], w[1], horizontal, firm))
        });
        stretches.sum::<f64>() / 9.0
    }

    /// Where the lines lie on paper bowed across them: all of one way moved alike in each
    /// cell's stretch, along the bow they show most along together ([`clearest_bow`]: at most
    /// [`FAR_CURL_REACH`] of a cell at the middle, the ends within [`BOW_SLACK`] of a cell of
    /// the corners), when that is [`BOWED_FROM`] of a cell or more one way or both, and the
    /// border it moves inward shows along it ([`FAR_CURL_BORDERS`]); else None.
    fn bowed_ruling(&self) -> Option<Ruling> {
        let cell = self.cell as f64;
        let reach = (FAR_CURL_REACH * cell).round() as i64;
        let slack = (BOW_SLACK * cell).round() as i64;
        let ninths = Ruling::even(self.cell).0[0];
        let mut ruling = Ruling::even(self.cell);
        for (way, bow) in ruling.1.iter_mut().enumerate() {
            let horizontal = way == 0;
            // How much the ten lines show in stretch `j` moved by `by` (a border moved beyond
            // the candidate, none).
            let shown = |j: usize, by: i64| -> f64 {
                ninths
                    .iter()
                    .filter_map(|&k| self.moved(k, by))
                    .map(|c| self.coverage(c, ninths[j], ninths[j + 1], horizontal, false))
                    .sum()
            };
            let moves = clearest_bow(shown, reach, slack);
            if moves.iter().all(|by| (by.abs() as f64) < BOWED_FROM * cell) {
                continue;
            }
            // The border the bow moves inward must show along it too (the other one lies
            // beyond the candidate): lines inside a straight panel, lifted off their ninths, fit
            // some bow as well, but its straight side does not.
            let inward = if moves[4] > 0 { 0 } else { 9 * self.cell };
            let shows = self.line_coverage(inward, &ninths, &moves, horizontal) >= FAR_CURL_BORDERS;
            if !shows {
                return None;
            }
            *bow = moves;
        }
        (ruling != Ruling::even(self.cell)).then_some(ruling)
    }

    /// Whether every line of one way, borders too, shows at its ninth along most of its length
    /// (paper bowed across the other way's lines leaves these straight).
    fn one_way_straight(&self) -> bool {
        [true, false]
            .into_iter()
            .any(|horizontal| (0..10).all(|k| self.shows_at_ninth(k, horizontal)))
    }

    /// Where the inner lines lie when they run smoothly off their ninths each way, as paper
    /// curling away narrows the cells towards one side: each line at its clearest within
    /// [`CURL_REACH`] of a cell of its ninth, the offsets along a smooth curve through the
    /// borders (within [`CURL_SMOOTH`] of a cell); None when they do not lie so.
    fn curled_ruling(&self) -> Option<Ruling> {
        let cell = self.cell as f64;
        let reach = (CURL_REACH * cell).round() as i64;
        let mut ruling = Ruling::even(self.cell);
        for (way, lines) in ruling.0.iter_mut().enumerate() {
            let offsets: Vec<f64> = (1..9)
                .map(|k| self.clearest_near(k * self.cell, reach, way == 0) as f64)
                .collect();
            let curve = smooth_offsets(&offsets)?;
            if curve
                .iter()
                .zip(&offsets)
                .any(|(c, o)| (c - o).abs() > CURL_SMOOTH * cell)
            {
                return None;
            }
            for (k, o) in curve.iter().enumerate() {
                lines[k + 1] = ((k + 1) as f64 * cell + o)
                    .round()
                    .clamp(0.0, (self.n - 1) as f64) as usize;
            }
            if lines.windows(2).any(|w| w[1] < w[0] + self.cell / 2) {
                return None;
            }
        }
        Some(ruling)
    }

    /// Where the inner lines lie along the smooth curve through the borders, at most
    /// [`FAR_CURL_REACH`] of a cell off their ninths, that they show most along as a whole
    /// ([`clearest_curve`]), when some line lies there beyond [`CURL_REACH`] of its ninth
    /// (nearer lines are found one by one by [`Masks::curled_ruling`]); else None.
    fn far_curled_ruling(&self) -> Option<Ruling> {
        // Asked first: it looks along the 4 borders only, where the search for the curve
        // measures every row and column, and most outlines that get this far frame no grid at
        // all (192 -> 181 ms of detection per picture with no puzzle, session 43).
        if !self.borders_shown() {
            return None;
        }
        let reach = (FAR_CURL_REACH * self.cell as f64).round() as i64;
        let mut ruling = Ruling::even(self.cell);
        for (way, lines) in ruling.0.iter_mut().enumerate() {
            let shown: Vec<f64> = (0..self.n)
                .map(|c| self.coverage(c, 0, self.n, way == 0, false))
                .collect();
            *lines = clearest_curve(&shown, 0, self.cell, reach);
        }
        let beyond = (CURL_REACH * self.cell as f64).round() as usize;
        let far = ruling
            .0
            .iter()
            .any(|lines| (1..9).any(|k| lines[k].abs_diff(k * self.cell) > beyond));
        let apart = ruling
            .0
            .iter()
            .all(|lines| lines.windows(2).all(|w| w[1] >= w[0] + self.cell / 2));
        (far && apart).then_some(ruling)
    }

    /// Whether all four borders show as lines along [`FAR_CURL_BORDERS`] of their length, each
    /// ninth of it finding its own place: a curve through the borders says nothing where a side
    /// is no printed line (the picture's edge cutting the grid, taken with the lines inside it
    /// along a curve, put a corner half a cell off).
    fn borders_shown(&self) -> bool {
        [true, false]
            .into_iter()
            .all(|horizontal| [0, 9].iter().all(|&k| self.shows_at_ninth(k, horizontal)))
    }

    /// Whether line `k` (0 and 9 the borders) across (`horizontal`) or down shows at its ninth
    /// along [`FAR_CURL_BORDERS`] of its length.
    fn shows_at_ninth(&self, k: usize, horizontal: bool) -> bool {
        let even = Ruling::even(self.cell);
        let at = (k * self.cell).min(self.n - 1);
        self.line_coverage(at, &even.0[0], &even.1[0], horizontal) >= FAR_CURL_BORDERS
    }

    /// How far (pixels) from `ninth`, within `reach`, the line there shows most along its whole
    /// length; the nearest among equals (above or left of it first).
    fn clearest_near(&self, ninth: usize, reach: i64, horizontal: bool) -> i64 {
        let mut best = (f64::MIN, 0);
        for o in (0..=reach).flat_map(|o| [-o, o]) {
            let shown = self.coverage((ninth as i64 + o) as usize, 0, self.n, horizontal, false);
            if shown > best.0 {
                best = (shown, o);
            }
        }
        best.1
    }

    /// The candidate judged with its lines looked for at `ruling`: [`grid_score`] and whether
    /// it is smeared, or [`GridCheck::NONE`] (also when `crossed_most` of its rows and columns
    /// of cells are crossed by a line of their own).
    fn judge(
        &self,
        ruling: &Ruling,
        sharpness: Sharpness,
        look: Look,
        crossed_most: usize,
    ) -> Result<GridCheck> {
        let mut lines = Vec::with_capacity(16);
        let mut middles = Vec::with_capacity(18);
        for (way, horizontal) in [true, false].into_iter().enumerate() {
            let (at, ends, bow) = (&ruling.0[way], &ruling.0[1 - way], &ruling.1[way]);
            lines.extend((1..9).map(|k| self.line_coverage(at[k], ends, bow, horizontal)));
            middles.extend((0..9).map(|k| {
                self.coverage_along((at[k] + at[k + 1]) / 2, ends, bow, horizontal, true)
            }));
        }
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        // Every box line must be there. A 3x3 table with no cell lines is no Sudoku (unless its
        // digits sit one to a cell, below), nor is part of a grid cut off six rows down, whose
        // rows miss the ninths one way.
        let weakest_box = (0..16)
            .filter(|&i| is_box_line(i))
            .map(|i| lines[i])
            .fold(1.0, f64::min);
        let faint_cell_lines = (0..16)
            .filter(|&i| !is_box_line(i) && lines[i] < 0.3)
            .count();
        let cell_lines = |way: usize| {
            (8 * way..8 * way + 8)
                .filter(|&i| !is_box_line(i))
                .map(|i| lines[i])
                .sum::<f64>()
                / 6.0
        };
        let (across, down) = (cell_lines(0), cell_lines(1));
        tracing::trace!(
            ?sharpness,
            lines = mean(&lines),
            middles = mean(&middles),
            weakest_box,
            faint_cell_lines,
            across,
            down,
            curled = *ruling != Ruling::even(self.cell),
            "grid score"
        );
        // In a video frame every cell line must show, or they are printed pale (below). In a
        // photo two may be lost outright, or any number be faint while the cell lines still
        // show on the whole each way and the cells' middles are clean (a pale app grid under
        // glare: 0.17 and 0.05; a 9x6 part of a grid stretched to a square: 0.07 one way; one
        // 3x3 box of a hand-filled grid: 0.13, but handwriting across its middles,
        // 0.10-0.12), or they show well above the middles
        // (pale printed cell lines out of focus, the digits in the middles: 0.17 to 0.086; see
        // [`CELL_LINES_OVER_MIDDLES`]; not a box of a larger grid, see `box_of_a_larger_grid`).
        let (cells, middles_shown) = (across.min(down), mean(&middles));
        let light_print = cells >= 0.12 && cells >= CELL_LINES_OVER_MIDDLES * middles_shown;
        let cell_lines_shown = match look {
            Look::OneOfMany => {
                faint_cell_lines == 0 || smeared_one_way(&lines, sharpness, weakest_box)
            }
            Look::Only => faint_cell_lines <= 2 || (cells >= 0.12 && middles_shown <= 0.07),
        };
        // A video frame's grid with its cell lines printed pale must also be a frame not
        // smeared and show every box line whole: a blurred or glared one may be outlined
        // wrong, then followed.
        // (Pale lines out of focus, or an app's 1 px lines in a phone's screen recording at
        // 1080x1920, which fade inside its highlighted row, column and box: 1-2 faint, the
        // cell lines 0.62 each way, every box line whole, the middles 0.0.)
        let pale = !cell_lines_shown
            && light_print
            && (look == Look::Only || (weakest_box >= PALE_BOX_LINES && !sharpness.smeared()));
        // Cell lines printed so thin or pale that they do not show at all (grey hairlines or
        // dots filmed from afar): every box line whole, a picture not smeared, and the digits
        // where a Sudoku's sit, one to a cell (see [`Masks::digits_sit_in_cells`]).
        let box_lines_alone = !(cell_lines_shown || pale)
            && weakest_box >= PALE_BOX_LINES
            && !sharpness.smeared()
            && self.digits_sit_in_cells(ruling)?;
        if weakest_box < 0.3 || !(cell_lines_shown || pale || box_lines_alone) {
            return Ok(GridCheck::NONE);
        }
        let (crossed, crossed_cells) = self.crossed(ruling);
        if crossed >= crossed_most || crossed_cells >= CROSSED_CELLS_MOST {
            return Ok(GridCheck::NONE);
        }
        let score = mean(&lines) - mean(&middles);
        Ok(GridCheck {
            score: if box_lines_alone {
                score.max(BOX_LINES_ALONE_SCORE * weakest_box)
            } else {
                score
            },
            smeared: sharpness.smeared(),
            pale: pale || box_lines_alone,
            cut: false,
        })
    }

    /// Whether the ink inside the cells of `ruling` (box lines left out) lies as a Sudoku's
    /// digits do: tall blobs each within one cell, about its middle, in [`DIGIT_CELLS_LEAST`]
    /// cells or more, and little other ink ([`INK_ACROSS_CELLS`]). A 3x3 table's text runs
    /// across its ninths, its letters anywhere along them; one box of a larger grid has its
    /// digits span two of its ninths, and holds nine at most.
    fn digits_sit_in_cells(&self, ruling: &Ruling) -> Result<bool> {
        let at = &ruling.0;
        // Along a bow the cells are no rectangles of the rectified candidate: not judged so.
        if ruling.1.iter().flatten().any(|&by| by != 0) {
            return Ok(false);
        }
        let inside = self.firm_without_box_lines(at)?;
        let (mut labels, mut stats, mut centroids) =
            (Mat::default(), Mat::default(), Mat::default());
        let count = imgproc::connected_components_with_stats(
            &inside,
            &mut labels,
            &mut stats,
            &mut centroids,
            8,
            opencv::core::CV_32S,
        )?;
        let cell_of = |lines: &[usize; 10], t: i32| lines.windows(2).position(|w| t < w[1] as i32);
        let (mut in_cells, mut across) = (0, 0);
        let mut digit_cells = [false; 81];
        for label in 1..count {
            let stat = |column| stats.at_2d::<i32>(label, column).copied();
            let (x, y) = (stat(imgproc::CC_STAT_LEFT)?, stat(imgproc::CC_STAT_TOP)?);
            let (w, h) = (
                stat(imgproc::CC_STAT_WIDTH)?,
                stat(imgproc::CC_STAT_HEIGHT)?,
            );
            let area = stat(imgproc::CC_STAT_AREA)?;
            let (Some(column), Some(row)) =
                (cell_of(&at[1], x + w / 2), cell_of(&at[0], y + h / 2))
            else {
                continue;
            };
            let (left, right) = (at[1][column] as i32, at[1][column + 1] as i32);
            let (top, bottom) = (at[0][row] as i32, at[0][row + 1] as i32);
            let slack = (self.cell / 10) as i32;
            let within = x >= left - slack
                && x + w <= right + slack
                && y >= top - slack
                && y + h <= bottom + slack;
            let centred = (2 * (x + w / 2) - left - right).abs() <= (right - left) / 2
                && (2 * (y + h / 2) - top - bottom).abs() <= (bottom - top) / 2;
            let tall = h as f64 >= DIGIT_HEIGHT_LEAST * (bottom - top) as f64;
            if within && centred && tall {
                in_cells += area;
                digit_cells[row * 9 + column] = true;
            } else if area >= SPECK {
                across += area;
            }
        }
        let digits = digit_cells.iter().filter(|&&d| d).count();
        tracing::trace!(
            digits,
            in_cells,
            across,
            "ink in the cells of box lines alone"
        );
        Ok(digits >= DIGIT_CELLS_LEAST && (across as f64) <= INK_ACROSS_CELLS * in_cells as f64)
    }

    /// The firm mask with the box lines and borders at `at` (a [`Ruling`]'s lines) painted out,
    /// so that a digit touching one is a blob of its own.
    fn firm_without_box_lines(&self, at: &[[usize; 10]; 2]) -> Result<Mat> {
        let mut inside = self.firm.try_clone()?;
        let reach = (self.cell / 6).max(2) as i32;
        let n = self.n as i32;
        for k in [0, 3, 6, 9] {
            for horizontal in [true, false] {
                let centre = at[usize::from(!horizontal)][k] as i32;
                let band = if horizontal {
                    opencv::core::Rect::new(0, centre - reach, n, 2 * reach + 1)
                } else {
                    opencv::core::Rect::new(centre - reach, 0, 2 * reach + 1, n)
                };
                let band = band & opencv::core::Rect::new(0, 0, n, n);
                if band.width > 0 && band.height > 0 {
                    Mat::roi_mut(&mut inside, band)?
                        .set_to(&opencv::core::Scalar::all(0.0), &opencv::core::no_array())?;
                }
            }
        }
        Ok(inside)
    }

    /// Rows and columns of cells crossed along their length by a line of their own, away from
    /// the lines around them (`ruling`), and the same cell by cell: a crossword (15 squares a
    /// side) has lines there in 12 of the 18, and was taken for the Sudoku printed beside it;
    /// one outlined askew (its corner cut short by a black square) has its lines in most cells
    /// at some slant, none of them along a whole row.
    fn crossed(&self, ruling: &Ruling) -> (usize, usize) {
        let inside_cells = |at: &[usize; 10], k: usize| {
            let width = at[k + 1] - at[k];
            at[k] + width * 3 / 10..=at[k] + width * 7 / 10
        };
        // Counted in plain loops: nested `flat_map`s over `[true, false]` had their state read
        // uninitialised in one build (see `occlusion::Stretch::all`).
        let (mut crossed, mut crossed_cells) = (0, 0);
        for (way, horizontal) in [(0, true), (1, false)] {
            let (ends, bow) = (&ruling.0[1 - way], &ruling.1[way]);
            for k in 0..9 {
                let along = inside_cells(&ruling.0[way], k)
                    .any(|c| self.coverage_along(c, ends, bow, horizontal, true) >= CROSSED_ALONG);
                crossed += usize::from(along);
                for j in 0..9 {
                    let across = inside_cells(&ruling.0[way], k).any(|c| {
                        self.moved(c, ruling.1[way][j]).is_some_and(|c| {
                            self.coverage(c, ends[j], ends[j + 1], horizontal, true)
                                >= CROSSED_ALONG
                        })
                    });
                    crossed_cells += usize::from(across);
                }
            }
        }
        (crossed, crossed_cells)
    }
}

/// How many times the middles' coverage the faint cell lines of a photo's grid must show
/// (each way) where the middles are not clean: a printed grid with light grey cell lines under
/// blur showed 0.17 to 0.086, its digits in the middles; one 3x3 box of a hand-filled grid
/// 0.13 to 0.10-0.12.
const CELL_LINES_OVER_MIDDLES: f64 = 1.75;

/// How much of its length each box line of a video frame's grid with pale cell lines must show.
const PALE_BOX_LINES: f64 = 0.95;

/// A grid shown by its box lines alone frames a grid this clearly (times its weakest box
/// line): above [`super::MIN_GRID_SCORE`], below a printed grid's 0.5 and more.
const BOX_LINES_ALONE_SCORE: f64 = 0.4;

/// The fewest cells holding a digit of a grid shown by its box lines alone: a Sudoku with one
/// solution has 17 clues or more.
const DIGIT_CELLS_LEAST: usize = 17;

/// The most ink not shaped as a digit (a blob within one cell, about its middle), as a share of
/// the digits' ink, in a grid shown by its box lines alone.
const INK_ACROSS_CELLS: f64 = 0.15;

/// The least height of a digit in a grid shown by its box lines alone (share of its cell): print
/// is 0.5-0.7 of it; a line of small print has many blobs lower, and fewer about the middles.
const DIGIT_HEIGHT_LEAST: f64 = 0.4;

/// Blobs smaller than this (pixels at `CHECK_CELL`) are specks of noise, neither digits nor
/// against them.
const SPECK: i32 = 4;

/// Lines of paper curling away are looked for this far (share of a cell) off their ninths.
const CURL_REACH: f64 = 0.45;

/// Lines looked for along one curve as a whole may lie this far (share of a cell) off.
const FAR_CURL_REACH: f64 = 0.6;

/// Share of each border's length that must show as a line for that.
const FAR_CURL_BORDERS: f64 = 0.6;

/// And must lie this near (share of a cell) a smooth curve through the borders.
const CURL_SMOOTH: f64 = 0.1;

/// Lines bowed less than this (share of a cell at the middle) are found where they are
/// looked for straight, each stretch within 3 pixels of its place.
const BOWED_FROM: f64 = 0.2;

/// How far (share of a cell) a bow's ends may lie off the corners (see [`clearest_bow`]).
const BOW_SLACK: f64 = 0.15;

/// The least-squares curve k(9 - k)(a + b k) through `offsets` (of lines 1 to 8; it is 0 at
/// the borders, 0 and 9): how far each line lies off its ninth on paper that curls smoothly.
fn smooth_offsets(offsets: &[f64]) -> Option<Vec<f64>> {
    let basis = |k: f64| [k * (9.0 - k), k * k * (9.0 - k)];
    let (mut aa, mut ab, mut bb, mut ay, mut by) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for (i, &y) in offsets.iter().enumerate() {
        let [p, q] = basis((i + 1) as f64);
        aa += p * p;
        ab += p * q;
        bb += q * q;
        ay += p * y;
        by += q * y;
    }
    let det = aa * bb - ab * ab;
    if det.abs() < 1e-9 {
        return None;
    }
    let (a, b) = ((ay * bb - by * ab) / det, (aa * by - ab * ay) / det);
    Some(
        (1..9)
            .map(|k| {
                let [p, q] = basis(k as f64);
                a * p + b * q
            })
            .collect(),
    )
}

/// A row or column of cells is crossed by a line of its own when a dark run covers this share
/// of the grid's side somewhere between 0.3 and 0.7 of the way across its cells.
const CROSSED_ALONG: f64 = 0.8;

/// A candidate with this many of its 18 rows and columns of cells crossed is some other grid: a
/// crossword's outline gave 7 to 17 (fewer where a black square in its corner cut the outline
/// short and tilted the lattice). Over the real photos of both datasets the grids found have at
/// most 3 (image87, the most strongly curved page), and an outline a cell wider, compared with
/// the grid found (see [`crate::recognize`]), 5.
const CROSSED_MOST: usize = 6;

/// A candidate with this many of the 162 stretches of its rows and columns of cells, one cell
/// long, crossed by a line of their own is some other grid: a 17- or 21-square crossword outlined
/// askew in a 640x480 photo had 118-146. Over the real photos of both datasets the grids found
/// have at most 56 (image87, strongly curved; pages filled in by hand in big strokes 42-55).
const CROSSED_CELLS_MOST: usize = 100;

/// Whether line `i` of [`check_grid`]'s 16 (8 across, then 8 down) is a box line.
fn is_box_line(i: usize) -> bool {
    (i % 8 + 1).is_multiple_of(3)
}

/// Box lines of a grid smeared by the camera's motion, thicker than its cell lines, still show
/// at least this much where the cell lines across the motion have faded.
const SMEARED_BOX_LINES: f64 = 0.5;

/// Whether `lines` (coverage of the 8 lines across, then the 8 down) are those of a grid smeared
/// one way by the camera's motion: the cell lines faint one way only, where the picture is
/// blurred (`sharpness`), while every line the other way and every box line shows. Part of a
/// grid stretched to a square (6 of 9 columns) shows no box line where one is looked for, and a
/// sharp table of 9 rows and 3 columns is not blurred one way.
fn smeared_one_way(lines: &[f64], sharpness: Sharpness, weakest_box: f64) -> bool {
    let faint_in = |way: usize| {
        (8 * way..8 * way + 8)
            .filter(|&i| !is_box_line(i) && lines[i] < 0.3)
            .count()
    };
    // Lines across (way 0) fade when the picture is smeared up and down.
    let clear_across = faint_in(0) == 0 && sharpness.smeared_across();
    let clear_down = faint_in(1) == 0 && sharpness.smeared_down();
    weakest_box >= SMEARED_BOX_LINES && (clear_across || clear_down)
}

/// Pixels darker than their cell-sized neighbourhood by more than `by`.
pub(super) fn dark_mask(rectified: &Mat, by: f64) -> Result<Mat> {
    let mut binary = Mat::default();
    imgproc::adaptive_threshold(
        rectified,
        &mut binary,
        255.0,
        imgproc::ADAPTIVE_THRESH_MEAN_C,
        imgproc::THRESH_BINARY_INV,
        CHECK_CELL + 1,
        by,
    )?;
    Ok(binary)
}

/// The share of `dark` covered by runs at least `min_run` long, where gaps of up to `max_gap`
/// inside a run (a faint, broken printed line) are bridged.
pub(super) fn long_run_share(
    dark: impl ExactSizeIterator<Item = bool>,
    min_run: usize,
    max_gap: usize,
) -> f64 {
    let length = dark.len();
    let mut covered = 0;
    let mut start = None; // first dark position of the current run
    let mut last = 0; // last dark position seen
    for (t, d) in dark.enumerate() {
        if !d {
            continue;
        }
        match start {
            Some(s) if t - last <= max_gap + 1 => {
                let _ = s;
            }
            Some(s) => {
                if last + 1 - s >= min_run {
                    covered += last + 1 - s;
                }
                start = Some(t);
            }
            None => start = Some(t),
        }
        last = t;
    }
    if let Some(s) = start
        && last + 1 - s >= min_run
    {
        covered += last + 1 - s;
    }
    covered as f64 / length.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC1, Point, Scalar};
    use opencv::prelude::MatTrait;

    #[test]
    fn a_band_is_dark_where_any_of_its_three_rows_or_columns_is() {
        // 12 px masks: the faint one dark along row 0 from x = 2 on and down column 11; the
        // firm one empty but for one pixel.
        let mut faint = Mat::new_rows_cols_with_default(12, 12, CV_8UC1, Scalar::all(0.0)).unwrap();
        for t in 2..12 {
            *faint.at_2d_mut::<u8>(0, t).unwrap() = 255;
            *faint.at_2d_mut::<u8>(t, 11).unwrap() = 255;
        }
        let mut firm = Mat::new_rows_cols_with_default(12, 12, CV_8UC1, Scalar::all(0.0)).unwrap();
        *firm.at_2d_mut::<u8>(5, 5).unwrap() = 255;
        let masks = Masks::new(&faint, &firm, 4).unwrap();
        // Rows 0 and 1 have row 0 in their band, row 2 not; columns 10 and 11 have column 11,
        // and so does 12, one beyond the last.
        assert_eq!(masks.coverage(0, 0, 12, true, false), 10.0 / 12.0);
        assert_eq!(masks.coverage(1, 2, 12, true, false), 1.0);
        assert_eq!(masks.coverage(2, 0, 12, true, false), 0.0);
        assert_eq!(masks.coverage(10, 2, 12, false, false), 1.0);
        assert_eq!(masks.coverage(12, 2, 12, false, false), 1.0);
        assert_eq!(masks.coverage(9, 0, 12, false, false), 0.0);
        assert_eq!(masks.coverage(13, 0, 12, false, false), 0.0);
        // A pixel is no run: nothing firm covered.
        assert_eq!(masks.coverage(5, 0, 12, true, true), 0.0);
    }

    /// A 360 px grid at (40, 40) on a 440 px page, its row lines at `rows` (share of the side
    /// from the top, 10 of them), its columns even.
    fn ruled(rows: [f64; 10]) -> Mat {
        ruled_with(rows, &[])
    }

    /// [`ruled`], with thin lines also across at `extra`.
    fn ruled_with(rows: [f64; 10], extra: &[f64]) -> Mat {
        let mut page =
            Mat::new_rows_cols_with_default(440, 440, CV_8UC1, Scalar::all(235.0)).unwrap();
        let black = Scalar::all(20.0);
        let line = |page: &mut Mat, a: Point, b: Point, thickness: i32| {
            imgproc::line(page, a, b, black, thickness, imgproc::LINE_8, 0).unwrap()
        };
        let y = |row: f64| 40 + (360.0 * row).round() as i32;
        for (k, &row) in rows.iter().enumerate() {
            let thickness = if k % 3 == 0 { 4 } else { 2 };
            let x = 40 + 40 * k as i32;
            line(&mut page, Point::new(x, 40), Point::new(x, 400), thickness);
            line(
                &mut page,
                Point::new(40, y(row)),
                Point::new(400, y(row)),
                thickness,
            );
        }
        for &row in extra {
            line(
                &mut page,
                Point::new(40, y(row)),
                Point::new(400, y(row)),
                2,
            );
        }
        page
    }

    #[test]
    fn rows_narrowing_smoothly_towards_one_side_are_a_grid_and_rows_out_of_step_are_not() {
        let quad = Quad([[40.0, 40.0], [400.0, 40.0], [400.0, 400.0], [40.0, 400.0]]);
        // Paper lifted at the bottom: the lines at v - 0.09 (v - v^3), the middle rows up to
        // 0.31 of a cell above their ninths.
        let lifted = ruled(std::array::from_fn(|k| {
            let v = k as f64 / 9.0;
            v - 0.09 * (v - v * v * v)
        }));
        assert!(grid_score(&lifted, &quad, Look::Only).unwrap() > 0.3);
        assert!(grid_score(&lifted, &quad, Look::OneOfMany).unwrap() > 0.3);
        // Lifted further: the middle rows 0.55 of a cell off (v - 0.16 (v - v^3)), beyond
        // reach of their ninths one by one.
        let lifted_far = ruled(std::array::from_fn(|k| {
            let v = k as f64 / 9.0;
            v - 0.16 * (v - v * v * v)
        }));
        assert!(grid_score(&lifted_far, &quad, Look::Only).unwrap() > 0.3);
        assert!(grid_score(&lifted_far, &quad, Look::OneOfMany).unwrap() > 0.3);
        // Lines a third of a cell above and below their ninths in turn: no paper curls so.
        let out_of_step = ruled(std::array::from_fn(|k| {
            let wobble = if k % 9 == 0 {
                0.0
            } else if k % 2 == 0 {
                0.3
            } else {
                -0.3
            };
            (k as f64 + wobble) / 9.0
        }));
        assert_eq!(grid_score(&out_of_step, &quad, Look::Only).unwrap(), 0.0);
    }

    #[test]
    fn offsets_are_fitted_by_a_smooth_curve_through_the_borders() {
        // k(9 - k)(0.1 - 0.01 k): fitted exactly.
        let curve: Vec<f64> = (1..9)
            .map(|k| {
                let k = k as f64;
                k * (9.0 - k) * (0.1 - 0.01 * k)
            })
            .collect();
        let fitted = smooth_offsets(&curve).unwrap();
        for (f, c) in fitted.iter().zip(&curve) {
            assert!((f - c).abs() < 1e-9);
        }
    }

    #[test]
    fn lines_followed_along_one_far_curve_must_be_all_the_lines_there_are() {
        let quad = Quad([[40.0, 40.0], [400.0, 40.0], [400.0, 400.0], [40.0, 400.0]]);
        // Rows lifted 0.55 of a cell off their ninths, with a line across the middle of the first
        // row of cells: a panel around a grid (Wicht image1022, from the puzzle beside it to the
        // page's edge) had the grid's own border there, its lines inside along a curve.
        let rows = std::array::from_fn(|k| {
            let v = k as f64 / 9.0;
            v - 0.16 * (v - v * v * v)
        });
        let crossed = ruled_with(rows, &[0.5 * rows[1]]);
        assert_eq!(grid_score(&crossed, &quad, Look::Only).unwrap(), 0.0);
        assert_eq!(grid_score(&crossed, &quad, Look::OneOfMany).unwrap(), 0.0);
    }

    /// A 9x9 grid of 40 px cells, its row lines (borders too, `cell_lines` or only the box
    /// lines) bowed down by `bow` of a cell at the middle as sin(pi u) between the corners.
    fn bowed_rows(bow: f64, cell_lines: bool) -> Mat {
        let mut page =
            Mat::new_rows_cols_with_default(440, 440, CV_8UC1, Scalar::all(235.0)).unwrap();
        let black = Scalar::all(20.0);
        let row = |k: usize, x: i32| {
            let u = (x - 40) as f64 / 360.0;
            40 + 40 * k as i32 + (40.0 * bow * (std::f64::consts::PI * u).sin()).round() as i32
        };
        for k in (0..10).filter(|k| cell_lines || k % 3 == 0) {
            let thickness = if k % 3 == 0 { 4 } else { 2 };
            let mut line = |a: Point, b: Point| {
                imgproc::line(&mut page, a, b, black, thickness, imgproc::LINE_8, 0).unwrap()
            };
            let x = 40 + 40 * k as i32;
            line(Point::new(x, row(0, x)), Point::new(x, row(9, x)));
            for x in (40..400).step_by(4) {
                line(Point::new(x, row(k, x)), Point::new(x + 4, row(k, x + 4)));
            }
        }
        page
    }

    #[test]
    fn rows_bowed_half_a_cell_are_a_grid_and_a_bowed_table_of_boxes_is_not() {
        // Paper curving up from the table seen from its side: every row line bows alike, half
        // a cell at the middle, beyond where a line's stretch is looked for (3 px of 20).
        let quad = Quad([[40.0, 40.0], [400.0, 40.0], [400.0, 400.0], [40.0, 400.0]]);
        let grid = bowed_rows(0.5, true);
        assert!(grid_score(&grid, &quad, Look::Only).unwrap() > 0.4);
        // A video frame is searched for a bow where the lines the other way lie straight, as
        // paper bent along a cylinder has them.
        assert!(grid_score(&grid, &quad, Look::OneOfMany).unwrap() > 0.4);
        let boxes = bowed_rows(0.5, false);
        assert_eq!(grid_score(&boxes, &quad, Look::Only).unwrap(), 0.0);
        assert_eq!(grid_score(&boxes, &quad, Look::OneOfMany).unwrap(), 0.0);
    }

    #[test]
    fn a_video_frame_looks_for_a_bow_only_where_one_way_lies_straight() {
        // The grid bowed half a cell each way: no bend of paper lying on a table gives that,
        // and a video frame's many outlines (blocks of text) are not searched for one.
        let quad = Quad([[40.0, 40.0], [400.0, 40.0], [400.0, 400.0], [40.0, 400.0]]);
        let rows = bowed_rows(0.5, true);
        let (mut map_x, mut map_y) = (
            Mat::new_rows_cols_with_default(440, 440, opencv::core::CV_32FC1, Scalar::all(0.0))
                .unwrap(),
            Mat::new_rows_cols_with_default(440, 440, opencv::core::CV_32FC1, Scalar::all(0.0))
                .unwrap(),
        );
        for y in 0..440 {
            for x in 0..440 {
                let v = ((y - 40) as f64 / 360.0).clamp(0.0, 1.0);
                let bow = 20.0 * (std::f64::consts::PI * v).sin();
                *map_x.at_2d_mut::<f32>(y, x).unwrap() = (x as f64 - bow) as f32;
                *map_y.at_2d_mut::<f32>(y, x).unwrap() = y as f32;
            }
        }
        let mut both = Mat::default();
        imgproc::remap(
            &rows,
            &mut both,
            &map_x,
            &map_y,
            imgproc::INTER_LINEAR,
            opencv::core::BORDER_REPLICATE,
            Scalar::all(235.0),
        )
        .unwrap();
        assert_eq!(grid_score(&both, &quad, Look::OneOfMany).unwrap(), 0.0);
    }

    #[test]
    fn long_runs_count_and_short_strokes_do_not() {
        let parse = |s: &str| s.chars().map(|c| c == '#').collect::<Vec<bool>>();
        // A broken line of 12 with gaps of 2 counts whole; strokes of 3 do not.
        assert_eq!(
            long_run_share(
                parse("####..####..####........###....###.").into_iter(),
                10,
                2
            ),
            16.0 / 35.0
        );
        assert_eq!(
            long_run_share(parse("###....###....###").into_iter(), 10, 2),
            0.0
        );
        assert_eq!(long_run_share(parse("##########").into_iter(), 10, 0), 1.0);
    }

    /// A 360 px grid at (40, 40) on a 440 px page, the cell lines across at `across` and down
    /// at `down` (1-8) not printed, and with `middle` a line along the middle of the fifth row
    /// of cells.
    fn with_lines_left_out(across: &[usize], down: &[usize], middle: bool) -> Mat {
        let mut page =
            Mat::new_rows_cols_with_default(440, 440, CV_8UC1, Scalar::all(235.0)).unwrap();
        let black = Scalar::all(20.0);
        let mut line = |a: Point, b: Point, thickness: i32| {
            imgproc::line(&mut page, a, b, black, thickness, imgproc::LINE_8, 0).unwrap()
        };
        for k in 0..10 {
            let (thickness, at) = (if k % 3 == 0 { 4 } else { 2 }, 40 + 40 * k as i32);
            if !down.contains(&k) {
                line(Point::new(at, 40), Point::new(at, 400), thickness);
            }
            if !across.contains(&k) {
                line(Point::new(40, at), Point::new(400, at), thickness);
            }
            if middle && k == 4 {
                line(Point::new(40, at + 20), Point::new(400, at + 20), 2);
            }
        }
        page
    }

    #[test]
    fn a_sharp_video_frame_may_miss_cell_lines_that_show_well_above_the_middles() {
        // A screen recording's pale lines fade inside the app's highlighted row and box.
        let quad = Quad([[40.0, 40.0], [400.0, 40.0], [400.0, 400.0], [40.0, 400.0]]);
        let two = with_lines_left_out(&[1], &[5], false);
        assert!(grid_score(&two, &quad, Look::OneOfMany).unwrap() > 0.4);
        // With ink along a middle too (a page written on), the cell lines still show well
        // above the middles.
        let inked = with_lines_left_out(&[1], &[5], true);
        assert!(grid_score(&inked, &quad, Look::OneOfMany).unwrap() > 0.4);
        // All gone, a table of 3x3 boxes is no grid.
        let boxes = with_lines_left_out(&[1, 2, 4, 5, 7, 8], &[1, 2, 4, 5, 7, 8], false);
        assert_eq!(grid_score(&boxes, &quad, Look::OneOfMany).unwrap(), 0.0);
        assert_eq!(grid_score(&boxes, &quad, Look::Only).unwrap(), 0.0);
    }

    #[test]
    fn a_grid_only_a_camera_inches_off_the_paper_could_see_so_is_no_grid() {
        // A flat grid warped onto `quad`, a 400 x 300 picture.
        let seen_at = |quad: &Quad| {
            let flat = crate::recognize::detect::tests::drawn_grid(380, 380, 10, 10, 360);
            let inner = Quad([[10.0, 10.0], [370.0, 10.0], [370.0, 370.0], [10.0, 370.0]]);
            let image_from_flat = Homography::from_quads(&inner, quad).unwrap();
            warp(&flat, &image_from_flat, Size::new(400, 300), true).unwrap()
        };
        // A box's outline whose corner was refined onto a smeared frame's digits: a kite whose
        // far corner would lie 5.9 times as far from the camera as its near one.
        let kite = Quad([[184.0, 97.0], [310.0, 91.0], [302.0, 205.0], [225.0, 155.0]]);
        // Steeper than any real photo here (2.0; pages 60 degrees from straight on, 1.95).
        let steep = Quad([[120.0, 40.0], [280.0, 40.0], [360.0, 260.0], [40.0, 260.0]]);
        assert!(kite.depth_ratio().unwrap() > 5.0);
        assert!((1.5..2.5).contains(&steep.depth_ratio().unwrap()));
        for look in [Look::OneOfMany, Look::Only] {
            assert_eq!(grid_score(&seen_at(&kite), &kite, look).unwrap(), 0.0);
            assert!(grid_score(&seen_at(&steep), &steep, look).unwrap() > 0.4);
        }
    }
}
