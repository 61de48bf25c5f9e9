//! Following the printed grid lines, so that every cell is cut where it really is, also on
//! curved or folded paper and when the outer corners are a little off.
//!
//! Works on the grid rectified with a margin (see [`crate::recognize::cells::rectify_along_lines`]): each of
//! the 10 lines each way is followed through the 9 strips it crosses by dynamic programming
//! over a ridge response (dark line between lighter paper), which keeps the path smooth and
//! away from digit strokes beside it. The result is the 10 x 10 crossings of the lines.

use crate::bend::{Bend, clearest_bow, clearest_curve};
use crate::error::Result;
use crate::geometry::{Homography, Point, Quad};
use crate::raster::GrayView;
use crate::recognize::detect::{Edge, parabola_peak};
use opencv::core::Mat;

/// How far, as a share of a cell, a box line (every third line, printed thick) may be from
/// where the outer corners put it, and a cell line from where the box lines around it put it.
const BOX_REACH: f64 = 0.4;
/// How far (share of a cell) a border line may be from where the lines inside it place it.
const BORDER_STEP: f64 = 0.25;
const CELL_REACH: f64 = 0.18;
/// How far (share of a cell) lines on curled paper are looked for off their places, and how far
/// off the curve they make must put a box line (near [`BOX_REACH`]) for them to be looked for
/// along it ([`curled_guess`]).
const CURL_REACH: f64 = 0.6;
const CURL_GUESS_FROM: f64 = 0.35;
/// How much each line must show along that curve, as a share of the mean of its kind (box or
/// cell lines).
const CURL_EVERY_LINE: f64 = 0.5;
/// How near their places (share of a cell) the borders must lie all along for that: paper bowed
/// bends its borders too, and lines followed there along such a curve drew a page bowed 0.45 of
/// a cell 0.9 of a cell off.
const CURL_BORDERS_AT: f64 = 0.12;
/// How much nearer (pixels on average) to where the lines inside put it a border's reading by
/// the table-side rule must be to replace the plain one (see [`in_step_better`]).
const BORDER_BETTER: f64 = 0.5;
/// How far out (share of a cell, on average) a screen's border line may lie from where the
/// lines inside put it before it is put there (`Edge::ScreenLine`): the ridge of a strip of the
/// app's page between the grid and a phone's dark bezel lay 0.1 of a cell out, its outer edge
/// taken for the corners (drawn up to 3% of the side off); a screen draws its cells exactly
/// even. Only out, and by some pixels of the picture: on screenshots shrunk to 14-21 px cells
/// (JPEG), the lines inside put a border that was right up to 3 px off, in or out.
const SCREEN_BORDER_OFF: f64 = 0.05;
const SCREEN_BORDER_PIXELS: f64 = 3.5;
/// How near (share of a cell, on average) to where the lines inside put it that reading must
/// lie: lines inside that disagree among themselves (followed onto digits on a blurred frame)
/// put the border nowhere in particular, and nothing is changed on their word.
const BORDER_FIT: f64 = 0.05;
/// How far apart (share of a cell) the two readings must lie somewhere for the table-side one to
/// be taken: it is there to stop a bend out onto a table, not to place a border within its own
/// width (on a tinted page it lay 1 px inside all along, and a corner moved 0.3 -> 0.8%).
const BORDER_BEND: f64 = 0.06;
/// How dark, against the line, the far outside must be for `Sides::Border`'s table: at least
/// this share of the near outside's darkness (a table goes on; a thick line's other half or a
/// tinted page's step does not).
const DARK_ON: f64 = 0.5;
/// Half the width of the ridge filter, as a share of a cell: wider than a thick box line's half.
const RIDGE_HALF_WIDTH: f64 = 0.13;
/// The weakest mean ridge response (gray levels) along a path that is taken for a printed line.
const MIN_RESPONSE: f64 = 6.0;
/// Cost per squared pixel of a path moving between neighbouring strips, and per pixel of
/// straying from the expected place, in gray levels of ridge response.
const BEND_COST: f64 = 3.0;
const STRAY_COST: f64 = 0.5;
/// The response of a place too near the image's edge to tell a ridge: never taken.
const OUTSIDE: f64 = -1e9;

/// Where the printed lines cross, in pixels of the rectified image they were found in:
/// `at[row_line][column_line]`, both 0 to 9.
#[derive(Debug, Clone, PartialEq)]
pub struct Crossings {
    pub at: [[Point; 10]; 10],
    /// Which outer border lines were followed: top, right, bottom, left. One that was not is
    /// placed from the lines inside it (see `recognize::outline` for how its corners are
    /// chosen).
    pub border_seen: [bool; 4],
}

/// The layout of a grid rectified with a margin: `cell` pixels per cell, the grid's top-left
/// corner `margin` pixels in from the image's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    pub cell: usize,
    pub margin: usize,
    /// Pixels of the picture the grid was rectified from per pixel here (about).
    pub source_pixel: f64,
}

impl Layout {
    /// Side of the rectified image.
    pub fn side(&self) -> usize {
        9 * self.cell + 2 * self.margin
    }

    /// Where line `k` (0 to 9) would be if the corners were exact and the paper flat.
    fn expected(&self, k: usize) -> usize {
        self.margin + k * self.cell
    }
}

/// Finds the grid's lines in `rectified` (laid out as `layout` says); None when fewer than
/// seven lines each way can be followed, which is left to the caller's straight rectification.
/// The border lines are followed only where `edge` says they are printed: an app's card has
/// none, and a row of pencil marks along its edge was followed as its border (a row drawn a
/// third of a cell squeezed).
pub fn find_crossings(rectified: &Mat, layout: Layout, edge: Edge) -> Result<Option<Crossings>> {
    let view = GrayView::new(rectified)?;
    if view.width != layout.side() || view.height != layout.side() {
        return Ok(None);
    }
    let Some((columns, columns_border)) = follow_lines(&view, layout, false, edge) else {
        return Ok(None);
    };
    let Some((rows, rows_border)) = follow_lines(&view, layout, true, edge) else {
        return Ok(None);
    };
    let mut at = [[[0.0; 2]; 10]; 10];
    for (l, row) in at.iter_mut().enumerate() {
        for (k, point) in row.iter_mut().enumerate() {
            *point = crossing(&columns[k], &rows[l], layout, k, l);
        }
    }
    Ok(Some(Crossings {
        at,
        border_seen: [
            rows_border[0],
            columns_border[1],
            rows_border[1],
            columns_border[0],
        ],
    }))
}

/// A followed line: its offset across the line at each strip's centre, in pixels from where it
/// was expected.
type Path = [f64; 9];

/// Follows the 10 lines across (`across` = true: the row lines) or down: first the four thick
/// box lines near where the corners put them, then each thin cell line near where the box lines
/// around it put it (so that a faint cell line cannot wander off onto digit strokes). A line
/// that cannot be followed is placed between its neighbours. Also says whether the first and
/// the last (outer) line were followed (never when `edge` is a card's).
fn follow_lines(
    view: &GrayView,
    layout: Layout,
    across: bool,
    edge: Edge,
) -> Option<([Path; 10], [bool; 2])> {
    let strips = Strips::new(view, layout, across);
    let cell = strips.cell();
    let mut found: [Option<Path>; 10] = [None; 10];
    // The border lines' other reading (see `Sides::Border`), weighed once the lines inside
    // them are known.
    let mut table_side: [Option<Path>; 2] = [None; 2];
    let borders: &[usize] = match edge {
        Edge::Line | Edge::ScreenLine => &[0, 9],
        Edge::Card => &[],
    };
    for &k in borders {
        // A border printed right at the paper's edge, next to a darker table, is no darker than
        // what lies outside it: when no line stands out on both sides, the border is looked
        // for as darker than its two sides on average.
        found[k] = strips
            .box_line_off(k, 0.0, Sides::Both)
            .or_else(|| strips.box_line_off(k, 0.0, Sides::Mean));
        let paper_after = k == 0;
        table_side[k / 9] = strips.box_line_off(k, 0.0, Sides::Border { paper_after });
    }
    let curled;
    ([found[3], found[6]], curled) = box_lines(&strips, &found);
    // Asked for every grid: a box line beyond reach was not seen missing, the path staying
    // within reach on a digit's strokes.
    let mut shared_bow = false;
    if !curled
        && !borders.is_empty()
        && let Some(bowed) = along_bow(&strips)
    {
        [found[0], found[3], found[6], found[9]] = bowed.lines;
        table_side = bowed.table_side;
        shared_bow = true;
    }
    ordered(&mut found, cell);
    if [0, 3, 6, 9].iter().filter(|&&k| found[k].is_some()).count() < 3 {
        return None;
    }
    let mut boxes = found;
    strips.cell_lines(&boxes, &mut found, 0..10);
    ordered(&mut found, cell);
    borders_put_in_step(&strips, &mut found, &mut boxes, table_side, shared_bow);
    if edge == Edge::ScreenLine {
        screen_borders_on_the_lattice(&mut found, layout);
    }
    let border_seen = [found[0].is_some(), found[9].is_some()];
    let paths = std::array::from_fn(|k| found[k].unwrap_or_else(|| interpolated(&found, k)));
    Some((paths, border_seen))
}

/// The box lines 3 and 6, and whether they were followed along a curve. On paper lifted or
/// curled far the box lines lie beyond reach of their places. When one is not found there, or
/// only at the edge of reach, and the borders (in `found`) lie where the corners put them, both
/// are looked for where the lines show along the smooth curve they make through the borders,
/// and taken so when both are found there (a corner off puts the lines off their places too,
/// and was moved onto a title above the grid along such a curve; a blurred flat page sliding in
/// showed one box line along some curve, and locked later).
fn box_lines(strips: &Strips, found: &[Option<Path>; 10]) -> ([Option<Path>; 2], bool) {
    let at_place = [3, 6].map(|k| strips.box_line_off(k, 0.0, Sides::Both));
    let reach = strips.box_reach() as f64;
    let beyond = at_place
        .iter()
        .any(|path| path.is_none_or(|path| path.iter().any(|o| o.abs() >= reach - 1.0)));
    let along_curve = (beyond && borders_in_place(found, strips.cell()))
        .then(|| curled_guess(&strips.profiles, strips.layout, strips.half))
        .flatten()
        .map(|offsets| [3, 6].map(|k| strips.box_line_off(k, offsets[k], Sides::Both)))
        .filter(|both| both.iter().all(Option::is_some));
    match along_curve {
        Some(along) => (along, true),
        None => (at_place, false),
    }
}

/// The borders and box lines (0, 3, 6, 9) followed along the bow the ten lines show together
/// ([`bowed_guess`]), when all four are found there, with the borders' other reading along it
/// (see `Sides::Border`). On paper bowed across the lines, every line (borders too) bends
/// alike, beyond reach of its place at the middle while its ends stay.
fn along_bow(strips: &Strips) -> Option<AlongBow> {
    let offsets = bowed_guess(&strips.profiles, strips.layout, strips.half)?;
    let bow = Guess {
        offsets,
        shaped: true,
    };
    let lines = [0, 3, 6, 9].map(|k| strips.box_line(k, &bow, Sides::Both));
    if !lines.iter().all(Option::is_some) {
        return None;
    }
    let table_side = [
        strips.box_line(0, &bow, Sides::Border { paper_after: true }),
        strips.box_line(9, &bow, Sides::Border { paper_after: false }),
    ];
    Some(AlongBow { lines, table_side })
}

/// The lines [`along_bow`] found.
struct AlongBow {
    /// Lines 0, 3, 6 and 9, each found.
    lines: [Option<Path>; 4],
    /// The borders' other reading along the bow.
    table_side: [Option<Path>; 2],
}

/// Each border takes its other reading (`table_side`) where that lies in step with the lines
/// inside better ([`in_step_better`]); a border still out of step is dropped, and the cell
/// lines next to it followed again from the box line inside alone. `shared_bow`: the borders
/// were followed along the bow all the lines share ([`along_bow`]), and are judged strip by
/// strip (see [`border_in_step`]).
fn borders_put_in_step(
    strips: &Strips,
    found: &mut [Option<Path>; 10],
    boxes: &mut [Option<Path>; 10],
    table_side: [Option<Path>; 2],
    shared_bow: bool,
) {
    let cell = strips.cell();
    for outer in [0, 9] {
        if let Some(path) = table_side[outer / 9]
            && in_step_better(found, outer, path, cell)
        {
            found[outer] = Some(path);
            boxes[outer] = Some(path);
            ordered(found, cell);
        }
    }
    for outer in [0, 9] {
        if !border_in_step(found, outer, cell, shared_bow) {
            // The cell lines next to it were looked for near where it put them: again, from
            // the box line inside alone.
            found[outer] = None;
            boxes[outer] = None;
            let next_to = if outer == 0 { 1..3 } else { 7..9 };
            strips.cell_lines(boxes, found, next_to);
            ordered(found, cell);
        }
    }
}

/// The strips the lines of one way cross ([`strip_profiles`]), and how their lines are looked
/// for.
struct Strips {
    profiles: Vec<Vec<f64>>,
    layout: Layout,
    /// Half a ridge's width across, in pixels: how far to each side the paper is taken.
    half: usize,
}

impl Strips {
    fn new(view: &GrayView, layout: Layout, across: bool) -> Strips {
        let half = ((RIDGE_HALF_WIDTH * layout.cell as f64).round() as usize).max(2);
        Strips {
            profiles: strip_profiles(view, layout, across),
            layout,
            half,
        }
    }

    fn cell(&self) -> f64 {
        self.layout.cell as f64
    }

    /// How far off a box line's or border's guess it is looked for, in pixels.
    fn box_reach(&self) -> usize {
        (BOX_REACH * self.cell()).round() as usize
    }

    /// Box line or border `k` looked for near `guess`, its ends put back on the line.
    fn box_line(&self, k: usize, guess: &Guess, sides: Sides) -> Option<Path> {
        follow_line(
            &self.profiles,
            Some(self.cell()),
            self.layout.expected(k),
            guess,
            self.box_reach(),
            self.half,
            sides,
        )
    }

    /// Box line or border `k` looked for `offset` pixels off its place all along.
    fn box_line_off(&self, k: usize, offset: f64, sides: Sides) -> Option<Path> {
        self.box_line(k, &Guess::off_by(offset), sides)
    }

    /// Follows the thin cell lines among `lines` near where the box lines (`boxes`) around them
    /// put them, into `found`.
    fn cell_lines(
        &self,
        boxes: &[Option<Path>; 10],
        found: &mut [Option<Path>; 10],
        lines: std::ops::Range<usize>,
    ) {
        let reach = (CELL_REACH * self.cell()).round() as usize;
        for k in lines.filter(|k| k % 3 != 0) {
            let guess = Guess {
                offsets: interpolated(boxes, k),
                shaped: false,
            };
            // Looked for near where the box lines put it, a cell line's end cannot stray far:
            // it is left where the path put it (put back on the line, the cells of two Kubiesa
            // photos were cut differently and two handwritten entries misread).
            found[k] = follow_line(
                &self.profiles,
                None,
                self.layout.expected(k),
                &guess,
                reach,
                self.half,
                Sides::Both,
            );
        }
    }
}

/// For each of the 9 strips a line crosses, the summed darkness of each position across it,
/// per row of the strip; rows near the crossing lines are left out.
fn strip_profiles(view: &GrayView, layout: Layout, across: bool) -> Vec<Vec<f64>> {
    let side = layout.side();
    let trim = layout.cell / 6;
    (0..9)
        .map(|j| {
            let from = layout.expected(j) + trim;
            let to = layout.expected(j + 1) - trim;
            let mut profile = vec![0.0; side];
            for along in from..to {
                for (t, value) in profile.iter_mut().enumerate() {
                    let pixel = if across {
                        view.get(along, t)
                    } else {
                        view.get(t, along)
                    };
                    *value += 255.0 - pixel as f64;
                }
            }
            let rows = (to - from).max(1) as f64;
            profile.iter_mut().for_each(|v| *v /= rows);
            profile
        })
        .collect()
}

/// Whether both border lines were followed, each straight and in its place: within
/// [`CURL_BORDERS_AT`] of a cell of it all along.
fn borders_in_place(found: &[Option<Path>; 10], cell: f64) -> bool {
    [found[0], found[9]].iter().all(|border| {
        border.is_some_and(|path| path.iter().all(|o| o.abs() <= CURL_BORDERS_AT * cell))
    })
}

/// Where the lines lie (offsets in pixels from where the corners put them) along the smooth
/// curve through the borders that they show most along as a whole ([`clearest_curve`]), when
/// that puts a box line at least [`CURL_GUESS_FROM`] of a cell off and shows the lines more than
/// their places do; else None (they are looked for at their places).
fn curled_guess(profiles: &[Vec<f64>], layout: Layout, half: usize) -> Option<[f64; 10]> {
    let side = layout.side();
    let cell = layout.cell as f64;
    // The mean over the strips of how much darker each position is than both sides.
    let shown: Vec<f64> = (0..side)
        .map(|t| {
            if t < half || t + half >= side {
                return 0.0;
            }
            let ridge = |p: &Vec<f64>| (p[t] - p[t - half]).min(p[t] - p[t + half]).max(0.0);
            profiles.iter().map(ridge).sum::<f64>() / profiles.len() as f64
        })
        .collect();
    let reach = (CURL_REACH * cell).round() as i64;
    let curve = clearest_curve(&shown, layout.margin, layout.cell, reach);
    let offsets: [f64; 10] = std::array::from_fn(|k| curve[k] as f64 - layout.expected(k) as f64);
    let largest = offsets[3].abs().max(offsets[6].abs());
    let along = |lines: [usize; 10]| (1..9).map(|k| shown[lines[k]]).sum::<f64>();
    let places = std::array::from_fn(|k| layout.expected(k));
    // Every line shows along it, as much as half the mean of its kind (box lines are printed
    // thicker): under glare that washed a box line out, a curve through the digits beside it was
    // taken on a flat page (locked 4 frames later).
    let every_line = |kind: &[usize]| {
        // Within a pixel of the curve: a thin line a pixel off shows little where it is not.
        let near = |t: usize| {
            let around = &shown[t.saturating_sub(1)..=(t + 1).min(shown.len() - 1)];
            around.iter().copied().fold(0.0, f64::max)
        };
        let each: Vec<f64> = kind.iter().map(|&k| near(curve[k])).collect();
        let mean = each.iter().sum::<f64>() / each.len() as f64;
        each.iter().all(|&s| s >= CURL_EVERY_LINE * mean)
    };
    (largest >= CURL_GUESS_FROM * cell
        && along(curve) > along(places)
        && every_line(&[3, 6])
        && every_line(&[1, 2, 4, 5, 7, 8]))
    .then_some(offsets)
}

/// How far (share of a cell) all the lines together are looked for off their places, strip by
/// strip, on paper bowed across them ([`bowed_guess`]), and how far off the bow must put them
/// somewhere to be looked for along it.
const BOW_REACH: f64 = 0.6;
const BOW_GUESS_FROM: f64 = 0.3;
/// How far (share of a cell) the bow may lie off the corners there (see [`clearest_bow`]).
const BOW_SLACK: f64 = 0.2;

/// The offsets (pixels, per strip) by which all ten lines together ("a comb" of ten lines a cell
/// apart, moved as one) lie off their places along the bow that shows them most
/// ([`clearest_bow`]), when that puts them at least [`BOW_GUESS_FROM`] of a cell off somewhere
/// and shows them more than their places do; else None. Why: paper curving up from a table bows
/// every line running along the curve, borders too, between corners that stay put; half a cell
/// at the middle put every line there beyond reach of its place, and the cells were cut across
/// the lines (a page photographed so read as an invalid puzzle).
fn bowed_guess(profiles: &[Vec<f64>], layout: Layout, half: usize) -> Option<Path> {
    let cell = layout.cell as f64;
    // How much the ten lines show, darker than both sides, in strip `j` all moved by `by`.
    let comb = |j: usize, by: i64| -> f64 {
        let p = &profiles[j];
        let ridge = |t: i64| {
            let Ok(t) = usize::try_from(t) else {
                return 0.0;
            };
            if t < half || t + half >= p.len() {
                return 0.0;
            }
            (p[t] - p[t - half]).min(p[t] - p[t + half]).max(0.0)
        };
        (0..10).map(|k| ridge(layout.expected(k) as i64 + by)).sum()
    };
    let reach = (BOW_REACH * cell).round() as i64;
    let slack = (BOW_SLACK * cell).round() as i64;
    let bow = clearest_bow(comb, reach, slack);
    let along: f64 = (0..9).map(|j| comb(j, bow[j])).sum();
    let at_places: f64 = (0..9).map(|j| comb(j, 0)).sum();
    let largest = bow.iter().map(|by| by.abs()).max().unwrap_or(0) as f64;
    (largest >= BOW_GUESS_FROM * cell && along > at_places).then(|| bow.map(|by| by as f64))
}

/// How a line must stand out from the paper on its two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sides {
    /// Darker than each side.
    Both,
    /// A border line (the paper inside it further along the profile when `paper_after`):
    /// darker than each side, but where the outside is darker still and stays so (a table
    /// right beyond the paper's edge) that counts as no line there rather than against one, so
    /// the path carries on straight from where the border shows. With `Both` alone it bent out
    /// onto the table's edge there (pan:image23 under `NOISE_SEED` 14 and 40: drawn up to 2.5
    /// and 3% of the side off). Taken only where it lies in step with the lines inside
    /// ([`in_step_better`]): around a grid of white cells on a tinted page it can run onto a
    /// digit's stroke beside a blurred border.
    Border { paper_after: bool },
    /// Darker than the two sides on average.
    Mean,
}

impl Sides {
    /// How much the point `t` of profile `p` stands out as a line, against the paper `half`
    /// pixels to each side (`t` at least `half` from both ends): darker than the paper around
    /// it, and (`Both`) on both sides: a step from a dark surround to the light page (a
    /// screen's bezel just outside the border) is no line.
    fn response(self, p: &[f64], t: usize, half: usize) -> f64 {
        let (before, after) = (p[t] - p[t - half], p[t] - p[t + half]);
        // Only where the point is darker than the paper inside (a point on the paper just
        // inside the border still counts as lighter than the border beside it) and the dark
        // outside goes on as far again, at least DARK_ON as dark (a table; a thick border line
        // beside the point does not).
        let dark_on = |near: f64, far: f64| far - p[t] >= DARK_ON * (near - p[t]);
        let (before, after) = match self {
            Sides::Border { paper_after: true }
                if after > 0.0 && t >= 2 * half && dark_on(p[t - half], p[t - 2 * half]) =>
            {
                (before.max(0.0), after)
            }
            Sides::Border { paper_after: false }
                if before > 0.0
                    && t + 2 * half < p.len()
                    && dark_on(p[t + half], p[t + 2 * half]) =>
            {
                (before, after.max(0.0))
            }
            _ => (before, after),
        };
        let mean = 0.5 * (before + after);
        match self {
            Sides::Both | Sides::Border { .. } => mean.min(2.0 * before.min(after)),
            Sides::Mean => mean,
        }
    }
}

/// Where a line is looked for: `offsets` in pixels off its place, per strip, and whether its path
/// may bend as they do at no cost (`shaped`: a bow the lines were seen to make together) or pays
/// for every bend (a place worked out from the lines around it, which may be off: a cell line
/// placed between box lines followed onto handwriting).
#[derive(Debug, Clone, Copy)]
struct Guess {
    offsets: Path,
    shaped: bool,
}

impl Guess {
    /// The same offset all along.
    fn off_by(offset: f64) -> Guess {
        Guess {
            offsets: [offset; 9],
            shaped: false,
        }
    }
}

/// The smoothest bright-to-dark-to-bright ridge path within `reach` pixels of `guess` (offsets
/// from `expected`, per strip) through the strips, by dynamic programming; with `ends_cell` (the
/// cell's side in pixels), its ends are put back on the line where it left it
/// ([`ends_onto_the_line`]). None when the ridge is too faint to be a printed line.
fn follow_line(
    profiles: &[Vec<f64>],
    ends_cell: Option<f64>,
    expected: usize,
    guess: &Guess,
    reach: usize,
    half: usize,
    sides: Sides,
) -> Option<Path> {
    let Guess { offsets, shaped } = *guess;
    let guess = offsets;
    let side = profiles.first()?.len() as isize;
    let width = 2 * reach + 1;
    // Position across the line of candidate `o` in strip `j`.
    let position = |j: usize, o: usize| {
        expected as isize + guess[j].round() as isize + o as isize - reach as isize
    };
    // Candidates too near the image's edge for a ridge are left out; a strip with none left
    // gives no line.
    let inside = |j: usize, o: usize| {
        let t = position(j, o);
        t >= half as isize && t + (half as isize) < side
    };
    if (0..profiles.len()).any(|j| !(0..width).any(|o| inside(j, o))) {
        return None;
    }
    let response = |j: usize, o: usize, sides: Sides| {
        sides.response(&profiles[j], position(j, o) as usize, half)
    };
    let ridge = |j: usize, o: usize| {
        if inside(j, o) {
            response(j, o, sides)
        } else {
            OUTSIDE
        }
    };
    let stray = |j: usize, o: usize| {
        STRAY_COST * (position(j, o) as f64 - expected as f64 - guess[j]).abs()
    };
    // How far the path moves across between strips, against the guess's own moves if shaped.
    let bend = |j: usize, o: usize, p: usize| {
        if shaped {
            o as isize - p as isize
        } else {
            position(j, o) - position(j - 1, p)
        }
    };
    let bend_cost = |j: usize, o: usize, p: usize| BEND_COST * bend(j, o, p).pow(2) as f64;
    let mut chosen = smoothest_path(profiles.len(), width, ridge, stray, bend_cost)?;
    if let (Sides::Both, Some(cell)) = (sides, ends_cell) {
        ends_onto_the_line(&mut chosen, &ridge, &position, width, cell);
    }
    let mut path = [0.0; 9];
    let mut total = 0.0;
    for j in (0..profiles.len()).rev() {
        let o = chosen[j];
        let sub = if o > 0 && o + 1 < width && inside(j, o - 1) && inside(j, o + 1) {
            // Placed within the pixel by the line's own ridge, darker than each side: a
            // border's neighbours counted as no line (see `Sides::Border`) would pull it
            // toward them (taken on every border, it put Kubiesa's corners 0.53 -> 0.75% of
            // the side off at the median).
            let own = match sides {
                Sides::Border { .. } => Sides::Both,
                other => other,
            };
            let ridge = |o| response(j, o, own);
            parabola_peak(ridge(o - 1), ridge(o), ridge(o + 1))
        } else {
            0.0
        };
        path[j] = (position(j, o) - expected as isize) as f64 + sub;
        total += ridge(j, o);
    }
    (total / profiles.len() as f64 >= MIN_RESPONSE).then_some(path)
}

/// The path through `strips` strips of `width` candidates each (at most 9 strips) that gains
/// the most `ridge` less `stray` summed over its strips, less `bend_cost(j, o, p)` for each step
/// from candidate `p` in strip `j - 1` to `o` in strip `j`: the Viterbi search of
/// [`follow_line`]. None when there are no candidates.
fn smoothest_path(
    strips: usize,
    width: usize,
    ridge: impl Fn(usize, usize) -> f64,
    stray: impl Fn(usize, usize) -> f64,
    bend_cost: impl Fn(usize, usize, usize) -> f64,
) -> Option<[usize; 9]> {
    let mut score: Vec<f64> = (0..width).map(|o| ridge(0, o) - stray(0, o)).collect();
    let mut back = vec![vec![0usize; width]; strips];
    for (j, back_j) in back.iter_mut().enumerate().skip(1) {
        let mut next = vec![0.0; width];
        for o in 0..width {
            let (best, from) = (0..width)
                .map(|p| (score[p] - bend_cost(j, o, p), p))
                .fold((f64::MIN, 0), |a, b| if b.0 > a.0 { b } else { a });
            next[o] = best + ridge(j, o) - stray(j, o);
            back_j[o] = from;
        }
        score = next;
    }
    let mut o = (0..width).max_by(|&a, &b| score[a].total_cmp(&score[b]))?;
    let mut chosen = [0usize; 9];
    for j in (0..strips).rev() {
        chosen[j] = o;
        o = back[j][o];
    }
    Some(chosen)
}

/// Puts an end of a followed line (`chosen`: the candidate taken in each strip, out of `width`;
/// `ridge` its response, `position` where it lies across the line) back onto the line where
/// the smooth path left it: a line clear along its length ([`END_CLEAR_LINE`] times
/// [`MIN_RESPONSE`] at the median) that shows none at its end strip ([`END_LOST`] of the
/// median), while a ridge as clear as [`END_FOUND`] of it lies within [`END_REACH`] of a cell
/// of where the two strips before put it (the line carried on straight), is moved onto that
/// ridge. Why: the path's cost for bending keeps it from following a line that turns fast
/// near its end, and an end strip has a neighbour on one side only: on paper bowed by 0.45
/// of a cell, a border line turning in over its last cell was left for blank paper 0.2 of a
/// cell beyond it, and the corner, carried on from there, put 0.4-0.6 of a cell out onto the
/// paper (`cargo bench --bench curved -- --bows 0.05 --seeds 9`: drawn so for 45 frames).
fn ends_onto_the_line(
    chosen: &mut [usize; 9],
    ridge: &impl Fn(usize, usize) -> f64,
    position: &impl Fn(usize, usize) -> isize,
    width: usize,
    cell: f64,
) {
    let mut strengths: [f64; 9] = std::array::from_fn(|j| ridge(j, chosen[j]));
    strengths.sort_by(f64::total_cmp);
    let median = strengths[4];
    if median < END_CLEAR_LINE * MIN_RESPONSE {
        return;
    }
    // Each end strip, and the two before it inward.
    for (end, next, after) in [(0, 1, 2), (8, 7, 6)] {
        if ridge(end, chosen[end]) >= END_LOST * median {
            continue;
        }
        let aim = 2 * position(next, chosen[next]) - position(after, chosen[after]);
        let near = |o: usize| ((position(end, o) - aim) as f64).abs() <= END_REACH * cell;
        let best = (0..width)
            .filter(|&o| near(o))
            .max_by(|&a, &b| ridge(end, a).total_cmp(&ridge(end, b)));
        // A ridge peaking within the window, not one rising beyond it: a stroke or the
        // paper's edge beside a border hidden at its end lay 8-10 px (0.3 of a cell) from
        // where the line carried on straight, and was taken at the window's edge.
        let peaks = |o: usize| o > 0 && near(o - 1) && o + 1 < width && near(o + 1);
        if let Some(best) = best.filter(|&o| peaks(o) && ridge(end, o) >= END_FOUND * median) {
            chosen[end] = best;
        }
    }
}

/// See [`ends_onto_the_line`].
const END_CLEAR_LINE: f64 = 2.0;
const END_LOST: f64 = 0.25;
const END_FOUND: f64 = 0.5;
const END_REACH: f64 = 0.2;

/// Drops lines that come closer than half a cell to, or cross, a neighbour: one of them has
/// latched onto something else, and the one further from where it was expected goes.
fn ordered(found: &mut [Option<Path>; 10], cell: f64) {
    for k in 0..9 {
        let (Some(a), Some(b)) = (found[k], found[k + 1]) else {
            continue;
        };
        let too_close = (0..9).any(|j| cell + b[j] - a[j] < 0.5 * cell);
        if too_close {
            let stray = |p: &Path| p.iter().map(|v| v.abs()).sum::<f64>();
            let worse = if stray(&a) > stray(&b) { k } else { k + 1 };
            found[worse] = None;
        }
    }
}

/// The straight line fitted, strip by strip, through the offsets of the four lines inside the
/// border line `outer` against their distance from it (cells are evenly spaced), when at least
/// three of them were followed: per strip, the offset it puts at the border and its change per
/// line inward.
fn lattice_fit(found: &[Option<Path>; 10], outer: usize) -> Option<(Path, Path)> {
    let inside: Vec<(f64, Path)> = (1..=4)
        .map(|d| if outer == 0 { d } else { 9 - d })
        .filter_map(|k| found[k].map(|p| (k.abs_diff(outer) as f64, p)))
        .collect();
    if inside.len() < 3 {
        return None;
    }
    let n = inside.len() as f64;
    let mean_d = inside.iter().map(|(d, _)| d).sum::<f64>() / n;
    let spread: f64 = inside.iter().map(|(d, _)| (d - mean_d).powi(2)).sum();
    let mut slope = [0.0; 9];
    let at_border: Path = std::array::from_fn(|j| {
        let mean_o = inside.iter().map(|(_, p)| p[j]).sum::<f64>() / n;
        slope[j] = inside
            .iter()
            .map(|(d, p)| (d - mean_d) * (p[j] - mean_o))
            .sum::<f64>()
            / spread;
        mean_o - slope[j] * mean_d
    });
    Some((at_border, slope))
}

/// The mean distance (pixels) between two paths over the strips.
fn misfit(a: &Path, b: &Path) -> f64 {
    (0..9).map(|j| (a[j] - b[j]).abs()).sum::<f64>() / 9.0
}

/// Where the lines inside the border line `outer` put it ([`lattice_fit`]), when each of them
/// lies within [`BORDER_FIT`] of a cell, on average, of that fit.
fn lattice_border(found: &[Option<Path>; 10], outer: usize, cell: f64) -> Option<Path> {
    let (at_border, slope) = lattice_fit(found, outer)?;
    let agree = (1..=4).all(|d| {
        let k = if outer == 0 { d } else { 9 - d };
        found[k].is_none_or(|p| {
            let fitted: Path = std::array::from_fn(|j| at_border[j] + slope[j] * d as f64);
            misfit(&p, &fitted) <= BORDER_FIT * cell
        })
    });
    agree.then_some(at_border)
}

/// Puts each border line of a screen's grid that lies further out than [`SCREEN_BORDER_OFF`]
/// of a cell (and [`SCREEN_BORDER_PIXELS`] of the picture) from where the lines inside put it
/// ([`lattice_border`]) there.
fn screen_borders_on_the_lattice(found: &mut [Option<Path>; 10], layout: Layout) {
    let cell = layout.cell as f64;
    let least = (SCREEN_BORDER_OFF * cell).max(SCREEN_BORDER_PIXELS / layout.source_pixel);
    for outer in [0, 9] {
        let outward = if outer == 0 { -1.0 } else { 1.0 };
        if let (Some(path), Some(lattice)) = (found[outer], lattice_border(found, outer, cell)) {
            let out = (0..9)
                .map(|j| outward * (path[j] - lattice[j]))
                .sum::<f64>()
                / 9.0;
            if out > least {
                found[outer] = Some(lattice);
            }
        }
    }
}

/// Whether `other`, a second reading of the border line `outer`, lies clearly nearer than the
/// one in `found` to where the four lines inside it put the border (a straight line fitted, strip
/// by strip, through their offsets and carried on: cells are evenly spaced), by at least
/// [`BORDER_BETTER`] pixels on average over the strips, lies near it ([`BORDER_FIT`]), and bends
/// away from the plain reading somewhere ([`BORDER_BEND`]). Which of the two ridge rules fits a
/// border differs with what lies beyond it: a darker table right at the paper's edge
/// (`Sides::Border`), or a tinted page around a grid whose cells are printed white, the border
/// blurred into the tint (`Sides::Both`); the cells' even spacing tells them apart where the
/// border's own ridge cannot. Four lines, not two: a cell line drawn onto handwriting is off
/// by a few pixels.
fn in_step_better(found: &[Option<Path>; 10], outer: usize, other: Path, cell: f64) -> bool {
    let (Some(current), Some((predicted, _))) = (found[outer], lattice_fit(found, outer)) else {
        return false;
    };
    let fit = misfit(&other, &predicted);
    let bend = (0..9)
        .map(|j| (other[j] - current[j]).abs())
        .fold(0.0, f64::max);
    bend >= BORDER_BEND * cell
        && fit <= BORDER_FIT * cell
        && fit + BORDER_BETTER < misfit(&current, &predicted)
}

/// Whether the border line `outer` is where the lines inside it place it, to within
/// [`BORDER_STEP`] of a cell all along it (unknown: yes): carried on from the two nearest lines
/// inside it that were followed (a cell from the line inside as that one lies from the next), or
/// from the two box lines inside (as far out again from the box line three in as that one is from
/// the next). Cells are evenly spaced also on tilted and mildly curved
/// paper; a border "followed" where neither places it is something else (a row of digits, when
/// the printed border is beyond reach at the paper's edge): it is dropped and placed from the
/// lines inside. Either alone is not enough: a thin inner line drawn onto handwriting breaks the
/// first, a strongly curved page the second.
///
/// With `strip_by_strip`, for a border followed along the bow all the lines share, it is also
/// in step where, in every strip, one witness or the other places it: on a bowed page filled in
/// by hand, lines 1 and 2 ran onto the handwriting in the middle strips and box line 6 onto a
/// digit in the last, each witness was off somewhere, and the border, followed right, was
/// dropped and carried on from the lines inside to a corner 0.3-0.65 of a cell low
/// (`oblique.py 01_04_iphone_14_1 --bend 0.034`: drawn 3.7-4.5% of the side off on 60 frames).
/// Not for every border: so judged, a puzzle shrunk to a 220 px grid was drawn 4.2% off, and a
/// page lifted at one side was read beyond its border (`tests/photos.rs`).
fn border_in_step(
    found: &[Option<Path>; 10],
    outer: usize,
    cell: f64,
    strip_by_strip: bool,
) -> bool {
    let (inside, box_in, box_next) = if outer == 0 {
        ([1, 2, 3], 3, 6)
    } else {
        ([8, 7, 6], 6, 3)
    };
    let Some(o) = found[outer] else { return true };
    // Where lines `a` and `b` (a the nearer) put the border, carried on straight.
    let extended = |a: usize, b: usize, j: usize| -> Option<f64> {
        let (pa, pb) = (found[a]?[j], found[b]?[j]);
        let (da, db) = (a.abs_diff(outer) as f64, b.abs_diff(outer) as f64);
        Some(pa + (pa - pb) * da / (db - da))
    };
    let worst = |predicted: &dyn Fn(usize) -> Option<f64>| -> Option<f64> {
        (0..9)
            .map(|j| predicted(j).map(|p| (o[j] - p).abs() / cell))
            .try_fold(0.0, |w: f64, d| d.map(|d| w.max(d)))
    };
    // The two nearest lines inside that were followed (a missing one was dropped or is faint).
    let mut near = inside.into_iter().filter(|&k| found[k].is_some());
    let Some((a, b)) = near.next().zip(near.next()) else {
        return true;
    };
    let by_step = worst(&|j| extended(a, b, j));
    let by_boxes = worst(&|j| extended(box_in, box_next, j));
    let (Some(by_step), Some(by_boxes)) = (by_step, by_boxes) else {
        return true;
    };
    let each_strip = || {
        (0..9).all(|j| {
            [extended(a, b, j), extended(box_in, box_next, j)]
                .into_iter()
                .flatten()
                .any(|p| (o[j] - p).abs() <= BORDER_STEP * cell)
        })
    };
    by_step <= BORDER_STEP || by_boxes <= BORDER_STEP || (strip_by_strip && each_strip())
}

/// A missing line's path, linear between the nearest found lines on either side (or copied
/// from the nearest one at the ends).
fn interpolated(found: &[Option<Path>; 10], k: usize) -> Path {
    let before = (0..k).rev().find_map(|i| found[i].map(|p| (i, p)));
    let after = (k + 1..10).find_map(|i| found[i].map(|p| (i, p)));
    match (before, after) {
        (Some((i, a)), Some((m, b))) => {
            let w = (k - i) as f64 / (m - i) as f64;
            std::array::from_fn(|j| a[j] * (1.0 - w) + b[j] * w)
        }
        (Some((_, p)), None) | (None, Some((_, p))) => p,
        (None, None) => [0.0; 9],
    }
}

/// A path's offset at position `t` along it (pixels), linear between strip centres and
/// extended past the end strips.
fn offset_at(path: &Path, t: f64, layout: Layout) -> f64 {
    let s = (t - layout.margin as f64) / layout.cell as f64 - 0.5;
    let j = (s.floor() as isize).clamp(0, 7) as usize;
    let w = s - j as f64;
    path[j] * (1.0 - w) + path[j + 1] * w
}

/// Where column line `k` (path `column`) meets row line `l` (path `row`).
fn crossing(column: &Path, row: &Path, layout: Layout, k: usize, l: usize) -> Point {
    let (x0, y0) = (layout.expected(k) as f64, layout.expected(l) as f64);
    let (mut x, mut y) = (x0, y0);
    for _ in 0..4 {
        x = x0 + offset_at(column, y, layout);
        y = y0 + offset_at(row, x, layout);
    }
    [x, y]
}

/// Steps along each side of the border at which [`border_contrast`] looks (4 per cell).
const BORDER_SAMPLES: usize = 36;
/// How far beside the border (share of a cell) the paper is looked at: past a thick line's
/// half width, short of a digit in the cell.
const PAPER_BESIDE: f64 = 0.22;

/// How much darker than the paper beside it `gray` is along each side of `quad` (top, right,
/// bottom, left), bowed as the paper's `bend` bows them, as a share of the paper's
/// brightness, over the stretches whose cell inside is not `hidden`; None for a side mostly
/// hidden or out of view.
///
/// Why: where the followed lines and the outline a grid was tracked from put the grid in
/// different places, the one whose sides lie on the printed border is right; a thumb over the
/// border cuts an outline's corner, and glare pulls a followed line onto strokes beside it.
/// A corner off moves one or two sides off the border; side by side, those tell (a side
/// across the camera's motion is faint under both). On curved paper the border bows between
/// its corners: looked for along the straight side, it showed more clearly between corners a
/// quarter of a cell off, where the chord comes nearer the bow (session 79).
pub fn border_contrast(
    gray: &GrayView,
    quad: &Quad,
    bend: Option<&Bend>,
    hidden: &[bool; 81],
) -> [Option<f64>; 4] {
    let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, quad) else {
        return [None; 4];
    };
    let (w, h) = (gray.width as f64, gray.height as f64);
    let inside = |[x, y]: Point| x >= 0.0 && y >= 0.0 && x <= w - 1.0 && y <= h - 1.0;
    let sample = |[x, y]: Point| gray.sample(x, y);
    let beside = PAPER_BESIDE / 9.0;
    std::array::from_fn(|side| {
        let (mut dark, mut paper, mut samples) = (0.0, 0.0, 0);
        for step in 0..BORDER_SAMPLES {
            let t = (step as f64 + 0.5) / BORDER_SAMPLES as f64;
            let along = ((t * 9.0) as usize).min(8);
            // The point on the side, the cell inside it, and the way out of the grid.
            let (point, cell, out) = match side {
                0 => ([t, 0.0], along, [0.0, -1.0]),
                1 => ([1.0, t], along * 9 + 8, [1.0, 0.0]),
                2 => ([t, 1.0], 72 + along, [0.0, 1.0]),
                _ => ([0.0, t], along * 9, [-1.0, 0.0]),
            };
            if hidden[cell] {
                continue;
            }
            let [du, dv] = bend.map_or([0.0, 0.0], |b| b.offset_at(point));
            let at = |k: f64| {
                image_from_grid.apply([
                    point[0] + du + k * beside * out[0],
                    point[1] + dv + k * beside * out[1],
                ])
            };
            let (line, outer, inner) = (at(0.0), at(1.0), at(-1.0));
            if !(inside(line) && inside(outer) && inside(inner)) {
                continue;
            }
            let around = 0.5 * (sample(outer) + sample(inner));
            dark += around - sample(line);
            paper += around;
            samples += 1;
        }
        (2 * samples >= BORDER_SAMPLES && paper > 0.0).then(|| dark / paper)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{CV_8UC1, Point as CvPoint, Scalar};
    use opencv::imgproc;

    const LAYOUT: Layout = Layout {
        cell: 32,
        margin: 20,
        source_pixel: 1.0,
    };

    /// A dark mode's card in the negative, as rectified: light cells with dark lines inside and
    /// no border line, a 7 px strip of the app's page (gray) round it, then the phone's bezel
    /// (white in the negative).
    fn card_with_a_strip_to_the_bezel() -> Mat {
        let side = LAYOUT.side() as i32;
        let mut image =
            Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(250.0)).unwrap();
        let (from, to) = (LAYOUT.expected(0) as i32, LAYOUT.expected(9) as i32);
        let strip = opencv::core::Rect::new(from - 7, from - 7, to - from + 14, to - from + 14);
        imgproc::rectangle(
            &mut image,
            strip,
            Scalar::all(150.0),
            -1,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let card = opencv::core::Rect::new(from, from, to - from, to - from);
        imgproc::rectangle(&mut image, card, Scalar::all(225.0), -1, imgproc::LINE_8, 0).unwrap();
        for k in 1..9 {
            let at = LAYOUT.expected(k) as i32;
            let thickness = if k % 3 == 0 { 2 } else { 1 };
            let dark = Scalar::all(120.0);
            let line = |image: &mut Mat, a: CvPoint, b: CvPoint| {
                imgproc::line(image, a, b, dark, thickness, imgproc::LINE_8, 0).unwrap()
            };
            line(&mut image, CvPoint::new(at, from), CvPoint::new(at, to));
            line(&mut image, CvPoint::new(from, at), CvPoint::new(to, at));
        }
        image
    }

    #[test]
    fn a_screens_border_is_put_on_its_lattice_not_on_the_strip_beside_it() {
        let image = card_with_a_strip_to_the_bezel();
        let left = |edge: Edge| {
            let found = find_crossings(&image, LAYOUT, edge)
                .unwrap()
                .expect("lines");
            found.at[4][0][0] - LAYOUT.expected(0) as f64
        };
        // Followed as printed, the strip's ridge is taken for the border, 3-4 px out.
        assert!(left(Edge::Line) < -2.0, "{}", left(Edge::Line));
        // On a screen the cells are even: the border goes where the lines inside put it.
        assert!(
            left(Edge::ScreenLine).abs() < 1.0,
            "{}",
            left(Edge::ScreenLine)
        );
    }

    /// A rectified grid whose column lines bow sideways by up to `bow` pixels (curved paper)
    /// and whose row lines sit `shift` pixels low, with a blob in some cells.
    fn bowed_grid(bow: f64, shift: i32) -> Mat {
        let side = LAYOUT.side() as i32;
        let mut image =
            Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(220.0)).unwrap();
        let black = Scalar::all(30.0);
        for k in 0..10 {
            let thickness = if k % 3 == 0 { 4 } else { 1 };
            let at = LAYOUT.expected(k) as i32;
            let y = at + shift;
            imgproc::line(
                &mut image,
                CvPoint::new(0, y),
                CvPoint::new(side, y),
                black,
                thickness,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
            let mut previous = None;
            for y in 0..side {
                let t = y as f64 / side as f64;
                let x = at + (bow * 4.0 * t * (1.0 - t)).round() as i32;
                let point = CvPoint::new(x, y);
                if let Some(p) = previous {
                    imgproc::line(&mut image, p, point, black, thickness, imgproc::LINE_8, 0)
                        .unwrap();
                }
                previous = Some(point);
            }
        }
        for (r, c) in [(0, 1), (3, 3), (4, 7), (8, 0)] {
            let centre = CvPoint::new(
                LAYOUT.expected(c) as i32 + 16,
                LAYOUT.expected(r) as i32 + 16,
            );
            imgproc::circle(&mut image, centre, 7, black, 3, imgproc::LINE_8, 0).unwrap();
        }
        image
    }

    /// Asserts that every crossing found lies within `tolerance` pixels each way of
    /// `expected(l, k)` (row line `l`, column line `k`).
    fn assert_crossings_near(
        found: &Crossings,
        tolerance: f64,
        expected: impl Fn(usize, usize) -> [f64; 2],
    ) {
        for l in 0..10 {
            for k in 0..10 {
                let ([x, y], [ex, ey]) = (found.at[l][k], expected(l, k));
                assert!(
                    (x - ex).abs() < tolerance && (y - ey).abs() < tolerance,
                    "crossing {l},{k} at {x:.1},{y:.1}, expected {ex:.1},{ey:.1}"
                );
            }
        }
    }

    #[test]
    fn follows_straight_lines_to_the_pixel() {
        let found = find_crossings(&bowed_grid(0.0, 0), LAYOUT, Edge::Line)
            .unwrap()
            .expect("lines");
        assert_crossings_near(&found, 1.0, |l, k| {
            [LAYOUT.expected(k) as f64, LAYOUT.expected(l) as f64]
        });
    }

    #[test]
    fn follows_bowed_and_shifted_lines() {
        let bow = 6.0;
        let found = find_crossings(&bowed_grid(bow, 5), LAYOUT, Edge::Line)
            .unwrap()
            .expect("lines");
        let side = LAYOUT.side() as f64;
        assert_crossings_near(&found, 1.5, |l, k| {
            let ey = LAYOUT.expected(l) as f64 + 5.0;
            let t = ey / side;
            let ex = LAYOUT.expected(k) as f64 + bow * 4.0 * t * (1.0 - t);
            [ex, ey]
        });
    }

    #[test]
    fn follows_lines_lifted_beyond_reach_of_their_places_along_their_curve() {
        // Columns lifted towards the right: at u - 0.16 (u - u^3), lines 3 and 6 14 and 17 px
        // (0.43 and 0.53 of a cell) left of their places, beyond a box line's reach.
        let side = LAYOUT.side() as i32;
        let grid = 9.0 * LAYOUT.cell as f64;
        let column = |k: usize| {
            let u = k as f64 / 9.0;
            LAYOUT.margin as f64 + grid * (u - 0.16 * (u - u * u * u))
        };
        let mut image =
            Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(220.0)).unwrap();
        let black = Scalar::all(30.0);
        for k in 0..10 {
            let thickness = if k % 3 == 0 { 4 } else { 1 };
            let (x, y) = (column(k).round() as i32, LAYOUT.expected(k) as i32);
            let mut line = |a: CvPoint, b: CvPoint| {
                imgproc::line(&mut image, a, b, black, thickness, imgproc::LINE_8, 0).unwrap()
            };
            line(CvPoint::new(x, 0), CvPoint::new(x, side));
            line(CvPoint::new(0, y), CvPoint::new(side, y));
        }
        let found = find_crossings(&image, LAYOUT, Edge::Line)
            .unwrap()
            .expect("lines");
        assert_crossings_near(&found, 1.5, |l, k| [column(k), LAYOUT.expected(l) as f64]);
    }

    /// A grid rectified as `LAYOUT` on paper of gray `paper`, its lines of gray `ink` (box
    /// lines 3 px, cell lines 1), column line `k` at `column(k, y)` down the picture, each row
    /// line straight between the outer columns.
    fn columns_along(column: &dyn Fn(f64, f64) -> f64, paper: f64, ink: f64) -> Mat {
        let side = LAYOUT.side() as i32;
        let mut image =
            Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(paper)).unwrap();
        let (first, last) = (LAYOUT.expected(0) as i32, LAYOUT.expected(9) as i32);
        let at = |k: f64, y: i32| CvPoint::new(column(k, y as f64).round() as i32, y);
        for k in 0..10 {
            let thickness = if k % 3 == 0 { 3 } else { 1 };
            let mut line = |a: CvPoint, b: CvPoint| {
                let ink = Scalar::all(ink);
                imgproc::line(&mut image, a, b, ink, thickness, imgproc::LINE_AA, 0).unwrap()
            };
            let y = LAYOUT.expected(k) as i32;
            line(at(0.0, y), at(9.0, y));
            for y in first..last {
                line(at(k as f64, y), at(k as f64, y + 1));
            }
        }
        image
    }

    /// Where line `k` (fractional between lines) lies in `LAYOUT`, unbent.
    fn place(k: f64) -> f64 {
        LAYOUT.margin as f64 + k * LAYOUT.cell as f64
    }

    /// How far down the grid (0 at its top border, 1 at its bottom) `y` lies in `LAYOUT`.
    fn down_the_grid(y: f64) -> f64 {
        ((y - LAYOUT.margin as f64) / (9.0 * LAYOUT.cell as f64)).clamp(0.0, 1.0)
    }

    #[test]
    fn a_border_turning_in_fast_at_its_end_is_followed_to_its_corner() {
        // Paper bowed by 0.45 of a cell: every column line bulges right by 14 px at the middle
        // and turns back over the last cell at each end, ending on the corners; the lines stop
        // there, with paper beyond them. Faint and blurred, as on a frame filmed: the path's
        // cost for bending then outweighs the line's ridge at the ends, and without looking
        // again there the corners were put 13 px right, on the paper.
        let bow = 14.0;
        let column = |k: f64, y: f64| {
            let t = down_the_grid(y);
            place(k) + bow * 4.0 * t * (1.0 - t)
        };
        let image = columns_along(&column, 200.0, 170.0);
        let mut blurred = Mat::default();
        imgproc::gaussian_blur_def(&image, &mut blurred, opencv::core::Size::new(5, 5), 1.5)
            .unwrap();
        let found = find_crossings(&blurred, LAYOUT, Edge::Line)
            .unwrap()
            .expect("lines");
        for (l, k) in [(0, 0), (0, 9), (9, 9), (9, 0)] {
            let [x, y] = found.at[l][k];
            let (ex, ey) = (LAYOUT.expected(k) as f64, LAYOUT.expected(l) as f64);
            assert!(
                (x - ex).abs() < 1.5 && (y - ey).abs() < 1.5,
                "corner {l},{k} at {x:.1},{y:.1}, expected {ex:.1},{ey:.1}"
            );
        }
    }

    #[test]
    fn follows_lines_bowed_half_a_cell_beyond_reach_of_their_places() {
        // Paper curving up from the table, seen from its side: every column line, borders too,
        // bows right by 15 px (0.47 of a cell) at the middle as sin(pi t), its ends on the
        // corners; a box line's reach is 13 px. Ones printed in some cells (upright strokes
        // half a cell from the lines) must not be taken for them.
        let bow = 15.0;
        let column =
            |k: f64, y: f64| place(k) + bow * (std::f64::consts::PI * down_the_grid(y)).sin();
        let mut image = columns_along(&column, 215.0, 40.0);
        let first = LAYOUT.expected(0) as i32;
        let at = |k: f64, y: i32| CvPoint::new(column(k, y as f64).round() as i32, y);
        let ones = [
            (0, 2),
            (1, 5),
            (3, 0),
            (4, 4),
            (4, 7),
            (6, 1),
            (7, 8),
            (8, 3),
        ];
        for (row, col) in ones {
            let (from, to) = (first + row * 32 + 7, first + row * 32 + 25);
            let (k, ink) = (col as f64 + 0.5, Scalar::all(40.0));
            imgproc::line(
                &mut image,
                at(k, from),
                at(k, to),
                ink,
                2,
                imgproc::LINE_AA,
                0,
            )
            .unwrap();
        }
        let found = find_crossings(&image, LAYOUT, Edge::Line)
            .unwrap()
            .expect("lines");
        assert_crossings_near(&found, 1.5, |l, k| {
            let ey = LAYOUT.expected(l) as f64;
            let ex = column(k as f64, ey);
            [ex, ey]
        });
    }

    /// Lines found at `offsets` (the same offset all along each line).
    fn straight(offsets: [Option<f64>; 10]) -> [Option<Path>; 10] {
        offsets.map(|o| o.map(|o| [o; 9]))
    }

    #[test]
    fn a_border_in_step_with_the_lines_inside_is_kept() {
        // Evenly spaced, and a little wider spaced towards the bottom (tilt): all in step.
        let even = straight([Some(0.0); 10]);
        let tilted = straight(std::array::from_fn(|k| Some(0.3 * (k * k) as f64)));
        for found in [even, tilted] {
            assert!(border_in_step(&found, 0, 32.0, false));
            assert!(border_in_step(&found, 9, 32.0, false));
        }
    }

    #[test]
    fn a_border_out_of_step_with_both_the_next_line_and_the_boxes_is_dropped() {
        // The top "border" followed 14 px (0.44 cell) inside where lines 1-3 and 3-6 put it:
        // a row of digits, the printed border being at the paper's edge, beyond reach.
        let mut offsets = [Some(-10.0); 10];
        offsets[0] = Some(4.0);
        assert!(!border_in_step(&straight(offsets), 0, 32.0, false));
    }

    #[test]
    fn a_border_is_judged_from_the_lines_inside_that_were_followed() {
        // Wicht image1049: the bottom "border" followed 13 px (0.4 cell) inside, on the last
        // row; line 8 then missing. Lines 7 and 6 place the border, as do the box lines.
        let mut offsets = [Some(1.5); 10];
        offsets[8] = None;
        offsets[9] = Some(-13.0);
        assert!(!border_in_step(&straight(offsets), 9, 32.0, false));
        offsets[9] = Some(1.0);
        assert!(border_in_step(&straight(offsets), 9, 32.0, false));
    }

    #[test]
    fn a_border_out_of_step_with_one_witness_only_is_kept() {
        // Line 1 drawn onto handwriting (8 px off): the border still agrees with the box lines.
        let mut offsets = [Some(0.0); 10];
        offsets[1] = Some(-8.0);
        assert!(border_in_step(&straight(offsets), 0, 32.0, false));
        // A curved page: box lines bend (3 at 0, 6 at 10), lines 0-2 are in step.
        let curved = straight([0.0, 0.0, 0.0, 0.0, 3.0, 6.0, 10.0, 10.0, 10.0, 10.0].map(Some));
        assert!(border_in_step(&curved, 0, 32.0, false));
    }

    #[test]
    fn a_border_along_the_shared_bow_is_judged_strip_by_strip_by_either_witness() {
        // Measured on a bowed page filled in by hand (`oblique.py 01_04_iphone_14_1`): the top
        // border followed right along the bow of half a cell all the lines share; lines 1 and 2
        // drawn onto the big handwritten digits in the middle strips, box line 6 onto a digit
        // in the last strip. Each witness puts the border 10-13 px off somewhere; strip by
        // strip, one of them agrees everywhere.
        let mut found: [Option<Path>; 10] = [None; 10];
        found[0] = Some([4.0, 8.0, 12.0, 15.0, 16.0, 16.0, 13.0, 9.0, 3.0]);
        found[1] = Some([5.0, 8.0, 11.0, 13.0, 10.0, 8.0, 8.0, 5.0, 6.0]);
        found[2] = Some([9.0, 9.0, 10.0, 12.0, 9.0, 10.0, 11.0, 9.0, 10.0]);
        found[3] = Some([3.0, 5.0, 8.0, 10.0, 12.0, 11.0, 10.0, 8.0, 5.0]);
        found[6] = Some([-1.0, 2.0, 3.0, 4.0, 4.0, 4.0, 3.0, 2.0, -6.0]);
        assert!(border_in_step(&found, 0, 32.0, true));
        // Not followed along a shared bow: judged by each witness all along, and dropped.
        assert!(!border_in_step(&found, 0, 32.0, false));
        // One strip 0.4 of a cell further in (onto the digits below) is off both: dropped.
        found[0] = Some([4.0, 8.0, 12.0, 15.0, 29.0, 16.0, 13.0, 9.0, 3.0]);
        assert!(!border_in_step(&found, 0, 32.0, true));
    }

    #[test]
    fn a_border_reading_in_step_with_the_lines_inside_replaces_one_that_is_not() {
        // Lines 1-4 evenly spaced (tilted a little: 0.2 px a line) put the top border at 0; it
        // was read 1.5-4 px inside at one end, as beside a table darker than the border (0.94
        // px on average): the reading on the line wins.
        let mut found = straight(std::array::from_fn(|k| Some(0.2 * k as f64)));
        let mut off = [0.0; 9];
        off[..3].copy_from_slice(&[4.0, 3.0, 1.5]);
        found[0] = Some(off);
        assert!(in_step_better(&found, 0, [0.0; 9], 32.0));
        // Not the other way round.
        let mut on_line = found;
        on_line[0] = Some([0.0; 9]);
        assert!(!in_step_better(&on_line, 0, off, 32.0));
        // Nor for less than BORDER_BETTER nearer on average (0.44 px).
        let mut slightly = [0.0; 9];
        slightly[0] = 4.5;
        assert!(!in_step_better(&found, 0, slightly, 32.0));
        // Nor one that lies 1 px apart all along, though nearer by 1 px: that is where within
        // its own width a border is placed (a tinted page), which the plain reading does better.
        let mut within = found;
        within[0] = Some([-1.5; 9]);
        assert!(!in_step_better(&within, 0, [-0.5; 9], 32.0));
        // The bottom border is judged from lines 5-8 the same way.
        let mut bottom = straight(std::array::from_fn(|k| Some(0.2 * k as f64)));
        bottom[9] = Some(off.map(|v| v + 1.8));
        assert!(in_step_better(&bottom, 9, [1.8; 9], 32.0));
        // Lines inside followed astray (spaced 1.5 px wider a line) put the border 6 px out
        // (pan:image23, `NOISE_SEED=42`, a blurred frame: 3.7 px on average, and the top-left
        // corner drawn 4.8% off): nearer is not near, and nothing changes.
        let mut astray = found;
        for (k, line) in astray.iter_mut().enumerate().take(5).skip(1) {
            *line = Some([-6.0 + 1.5 * k as f64; 9]);
        }
        assert!(!in_step_better(&astray, 0, [0.0; 9], 32.0));
        // Too few lines inside to judge: the plain reading stays.
        found[2] = None;
        found[3] = None;
        assert!(!in_step_better(&found, 0, [0.0; 9], 32.0));
    }

    #[test]
    fn a_border_at_the_papers_edge_beside_a_darker_table_is_followed_on_the_line() {
        // The top border (a grey line, lighter than the table) printed at the paper's edge,
        // a table right above its left four cells (the paper goes on beyond the rest), and a
        // little blur: there each point on the border is lighter than the table beside it, so
        // no ridge darker than both sides is seen, and the plain reading bent 6.5 px out onto
        // the table's edge (pan:image23 under `NOISE_SEED` 14 and 40, drawn 2.5-3% off).
        let mut image = bowed_grid(0.0, 0);
        let top = LAYOUT.expected(0) as i32;
        let side = LAYOUT.side() as i32;
        let table = opencv::core::Rect::new(0, 0, 150, top - 1);
        imgproc::rectangle(
            &mut image,
            table,
            Scalar::all(60.0),
            imgproc::FILLED,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        imgproc::line(
            &mut image,
            CvPoint::new(0, top),
            CvPoint::new(side, top),
            Scalar::all(110.0),
            3,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let mut blurred = Mat::default();
        imgproc::gaussian_blur_def(&image, &mut blurred, opencv::core::Size::new(0, 0), 1.2)
            .unwrap();
        let found = find_crossings(&blurred, LAYOUT, Edge::Line)
            .unwrap()
            .expect("lines");
        for k in 0..10 {
            let y = found.at[0][k][1];
            assert!(
                (y - top as f64).abs() < 1.0,
                "top border at column {k}: {y:.1}, printed at {top}"
            );
        }
    }

    #[test]
    fn blank_image_has_no_lines() {
        let side = LAYOUT.side() as i32;
        let blank =
            Mat::new_rows_cols_with_default(side, side, CV_8UC1, Scalar::all(200.0)).unwrap();
        assert!(
            find_crossings(&blank, LAYOUT, Edge::Line)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn the_border_is_darkest_under_the_sides_on_it_and_hidden_cells_are_passed_over() {
        // 324 px square (36 px cells) at (150, 80).
        let page = crate::recognize::detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let view = GrayView::new(&page).unwrap();
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // The bottom-right corner 0.7 cell up, as an outline cut by a thumb: the bottom side
        // leaves the border, the others stay on it.
        let mut cut = right;
        cut.0[2] = [474.0, 404.0 - 25.0];
        let none = [false; 81];
        let on = border_contrast(&view, &right, None, &none).map(Option::unwrap);
        let off = border_contrast(&view, &cut, None, &none).map(Option::unwrap);
        assert!(on.iter().all(|&c| c > 0.5), "on the border {on:.2?}");
        assert!(
            on[2] > 2.0 * off[2],
            "bottom on the border {:.2}, cut {:.2}",
            on[2],
            off[2]
        );
        for side in [0, 3] {
            assert!((on[side] - off[side]).abs() < 0.05, "{on:.2?} {off:.2?}");
        }
        // With the bottom row hidden, the bottom side is passed over.
        let mut hidden = none;
        hidden[72..].fill(true);
        assert_eq!(border_contrast(&view, &cut, None, &hidden)[2], None);
        // A quad with no border in view tells nothing.
        let away = right.translated(2000.0, 0.0);
        assert_eq!(border_contrast(&view, &away, None, &none), [None; 4]);
    }

    /// A page whose columns bow `bow` px to the right at mid-height, 36 px cells at (150, 80),
    /// the lines drawn as dark 4 px borders and 1 px cell lines; and where its lines cross.
    fn page_bowed_right(bow: f64) -> (Mat, crate::bend::Lattice) {
        // Column line `c` at `v` of the way down.
        let on_column = |c: f64, v: f64| {
            [
                150.0 + 36.0 * c + 4.0 * bow * v * (1.0 - v),
                80.0 + 324.0 * v,
            ]
        };
        let at = |c: usize, r: usize| on_column(c as f64, r as f64 / 9.0);
        let mut page =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(235.0)).expect("page");
        let point = |[x, y]: Point| CvPoint::new(x.round() as i32, y.round() as i32);
        for k in 0..=9 {
            let thickness = if k % 3 == 0 { 4 } else { 1 };
            // Down each column line in 36 steps, so that it bows smoothly; rows run straight.
            let column: opencv::core::Vector<CvPoint> = (0..=36)
                .map(|s| point(on_column(k as f64, s as f64 / 36.0)))
                .collect();
            let row: opencv::core::Vector<CvPoint> =
                [at(0, k), at(9, k)].into_iter().map(point).collect();
            for line in [column, row] {
                let lines: opencv::core::Vector<opencv::core::Vector<CvPoint>> =
                    std::iter::once(line).collect();
                imgproc::polylines(
                    &mut page,
                    &lines,
                    false,
                    Scalar::all(20.0),
                    thickness,
                    imgproc::LINE_8,
                    0,
                )
                .expect("line");
            }
        }
        let lattice =
            crate::bend::Lattice(std::array::from_fn(|r| std::array::from_fn(|c| at(c, r))));
        (page, lattice)
    }

    #[test]
    fn a_bowed_border_is_looked_for_along_its_bow_not_the_chord_between_its_corners() {
        // Bowed a quarter of a cell; the corners stay put.
        let (page, lattice) = page_bowed_right(9.0);
        let view = GrayView::new(&page).unwrap();
        let right = lattice.corners();
        let bend = Bend::fit(&lattice, &right).expect("a bend");
        // The right corners a quarter of a cell out: the chord between them runs nearer the
        // bowed border than the one between the printed corners.
        let mut out = right;
        out.0[1][0] += 9.0;
        out.0[2][0] += 9.0;
        let none = [false; 81];
        let straight = |q: &Quad| border_contrast(&view, q, None, &none)[1].unwrap();
        let bowed = |q: &Quad| border_contrast(&view, q, Some(&bend), &none)[1].unwrap();
        assert!(
            straight(&out) > straight(&right),
            "straight: out {:.2}, printed {:.2}",
            straight(&out),
            straight(&right)
        );
        assert!(
            bowed(&right) > 0.5 && bowed(&right) > 2.0 * bowed(&out).max(0.0),
            "bowed: printed {:.2}, out {:.2}",
            bowed(&right),
            bowed(&out)
        );
    }
}
