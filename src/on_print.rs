//! Whether the cells about to be drawn lie on the printed grid: the last check before a
//! solution is drawn, on a video frame (by the vision stage, every frame) or on a photo.
//!
//! Tracking holds the grid's homography to the print, and the bend of curved paper is measured
//! on clear readings; but on strongly curved paper under a moving camera the outline's corners
//! came from straight lines fitted along bowed borders, and digits were drawn half a cell off
//! for hundreds of frames (curved-paper stress videos, session 27), with nothing in the track
//! disagreeing. This looks at the frame itself: along each drawn line between two crossings,
//! is the printed line where it is drawn, or clearly beside it? A still photo of a page curling
//! into a book's gutter had its cells drawn up to half a cell off just the same (the lines could
//! not all be followed, and the corners' homography cannot bend): it is checked once, by
//! [`drawn_off_the_print`].

use crate::bend::Lattice;
use crate::geometry::{Point, distance};
use crate::raster::{GrayView, glare_level};
use crate::recognize::detect::Edge;

/// How far either side of a drawn line (share of its cell) the printed one is looked for: short
/// of the cell's middle, where a digit's upright stroke stands.
const LOOK: f64 = 0.45;
/// Offsets looked at each side of the drawn line.
const STEPS: usize = 9;
/// The farthest apart (pixels) two points across a line are looked at: a printed line's dark
/// core is 1-3 pixels wide.
const FINEST: f64 = 1.5;
/// How near the drawn line (share of a cell) the printed one counts as where it is drawn, and
/// how far beyond it must lie to count as off: a thin line a fifth of a cell off (2.2% of the
/// side; a curved page drawn by its corners alone under a thumb, its digits inside their cells)
/// is neither, and a grid drawn so is still drawn. With 0.15, that page (`thumb:02_10_honor_view_10_0`,
/// hand-held bench set 1) was withheld on 62% of its frames.
const NEAR: f64 = 0.1;
const OFF_BEYOND: f64 = 0.25;
/// A line seen beside a drawn cell line counts only where the paper this far past it (share of
/// a cell) is lighter again, keeping at most `RIDGE_FALL` of the line's darkness: the edge of a
/// shadow along a drawn line is no line (`glare:01_01` on a quick move: column line 4 found off
/// all along a shadow's edge, and the grid withheld until every box showed on, 18 frames). Not
/// asked of the border, past which a table or a bezel is an edge as well: app pages bowed a
/// quarter of a cell, drawn flat with their border that far inside the printed one, were let
/// through so (`cargo bench --bench curved`, a cell 0.29 of a cell off).
const RIDGE_PAST: f64 = 0.2;
const RIDGE_FALL: f64 = 0.6;
/// How many points along a segment (from a tenth to nine tenths of it) are sampled, and how
/// many of them may be light where a line is: a printed line is dark all along, a digit's
/// stroke beside it only for part of the cell.
const ALONG: usize = 11;
const LIGHT_ALLOWED: usize = 2;
/// The faintest line (gray levels darker than the lightest offset) that counts as seen.
const MIN_CONTRAST: f64 = 12.0;
/// A segment's line is where it is drawn when the darkness near it reaches this share of the
/// darkest offset's (both above the lightest's); it is off when it reaches less than
/// `OFF_SHARE`.
const ON_SHARE: f64 = 0.6;
const OFF_SHARE: f64 = 0.35;
/// A 3x3 box is drawn off the print when at least this many of its 12 segments along row lines
/// (or along column lines) show their line clearly, and more than twice as many of those show it
/// beside the drawn one as on it.
const MIN_DECIDED: usize = 4;
/// A whole line is drawn off the print when at least this many of its 9 segments show their
/// line clearly beside the drawn one (see `a_line_off`).
const LINE_OFF: usize = 7;
/// A line the camera's motion carried across itself by more than this share of a cell since the
/// last frame is not judged again: it keeps what it showed when last seen sharp. Smeared over an
/// eighth of a cell or more (a camera's exposure is about half the frame's interval), a thin
/// line is a faint band, and an edge beyond it (a table past the border, a page's shaded columns)
/// is darker: judged, such lines withheld right overlays on 0.5-8% of the frames of 7 hand-held
/// clips (bench set 1, session 28). At 0.4, the onset of a quick move (a third of a cell a
/// frame) still did on one (`handheld:image1001`).
const SMEARED_ACROSS: f64 = 0.25;

/// Which of the drawn lines are judged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Lines {
    /// All ten each way.
    #[default]
    All,
    /// The eight inside: a grid outlined by the edge of an app's card or tiles, with no printed
    /// border line (see [`crate::recognize::detect::find_borderless_grid`]). Photographed on a
    /// phone's screen, the card's edge lay a quarter of a cell from the screen's dark bezel,
    /// which looked like its border drawn beside it.
    Inside,
}

impl From<Edge> for Lines {
    /// The lines a grid outlined by `edge` is judged on.
    fn from(edge: Edge) -> Lines {
        match edge {
            Edge::Line => Lines::All,
            // A screen's border put on its lattice may lie beside a strip of the app's page.
            Edge::ScreenLine | Edge::Card => Lines::Inside,
        }
    }
}

/// What a segment showed when last looked at, and whether it was sharp then.
#[derive(Debug, Clone, Copy)]
struct Seen {
    segment: Segment,
    sharp: bool,
}

impl Seen {
    const NOTHING: Seen = Seen {
        segment: Segment::Unclear,
        sharp: false,
    };
}

/// What one drawn segment shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segment {
    On,
    Off,
    Unclear,
}

/// The check of one tracked grid, frame after frame: what each drawn segment showed when last
/// looked at. On a frame after one it looked at, only a third of the segments is looked at
/// again (every third cell along each line: a third of each box's), and the boxes are judged
/// on the segments as last seen, at most two frames ago. A segment shows where the drawn line
/// lies on the paper, which a moving camera does not change, so the verdict lags a new slip by
/// at most two frames, for a third of the cost (0.55 ms on a 1080p frame, all looked at).
#[derive(Debug, Clone)]
pub struct PrintCheck {
    /// Along row line r from column line c, and along column line c from row line r.
    along_rows: [[Seen; 9]; 10],
    along_columns: [[Seen; 9]; 10],
    /// Which third of the segments is looked at next.
    turn: usize,
    /// Whether the check looked at the frame before this one, and at this one.
    looked_before: bool,
    looked_now: bool,
    /// Which lines are looked at: the others show nothing either way.
    lines: Lines,
    /// Whether the grid was found off when last looked at.
    off: bool,
    /// The cells something lies over (a hand writing in the digits): the border beside them
    /// does not put a box off on its own (see [`a_box_off`]).
    covered: [bool; 81],
}

impl Default for PrintCheck {
    fn default() -> Self {
        PrintCheck {
            along_rows: [[Seen::NOTHING; 9]; 10],
            along_columns: [[Seen::NOTHING; 9]; 10],
            turn: 0,
            looked_before: false,
            looked_now: false,
            lines: Lines::All,
            off: false,
            covered: [false; 81],
        }
    }
}

impl PrintCheck {
    /// A check that looks at `lines` only.
    pub fn judging(lines: Lines) -> Self {
        PrintCheck {
            lines,
            ..PrintCheck::default()
        }
    }

    /// Judges the grid as found off: it is drawn again only once every box shows it on (see
    /// [`PrintCheck::drawn_off`]).
    pub fn hold_until_on(&mut self) {
        self.off = true;
    }

    /// Whether the grid was found off when last looked at, and has not shown itself on since.
    pub fn found_off(&self) -> bool {
        self.off
    }

    /// Takes `cells` as those something lies over on the frame about to be judged, with the
    /// cells they ring: the grid's border beside them puts a box off only as any other of its
    /// lines does, outvoting the rest of the box (see `a_box_off`). A hand writing in the
    /// digits over the grid's bottom-right corner, its edge a third of a cell inside the hidden
    /// border, showed as the border beside the drawn one along two of a box's three cells, its
    /// other ten segments on; a grid drawn 0.3-0.6% of its side off was withheld until the hand
    /// left (`writing.py` videos: 13, 15 and 30 frames).
    pub fn covered_now(&mut self, cells: &[bool; 81]) {
        self.covered = *cells;
    }

    /// Moves on to the next frame: called once a frame, whether the check looks at it or not.
    pub fn next_frame(&mut self) {
        self.looked_before = std::mem::take(&mut self.looked_now);
    }

    /// Whether some 3x3 box, or some whole line, of the grid drawn at `lattice` lies clearly
    /// beside the printed lines in `gray` (see [`drawn_off_the_print`]), or it was found so and
    /// has not shown itself on since. Every segment is looked at unless the check looked at the
    /// frame before (a grid drawn again after a pause may have moved on the paper meanwhile)
    /// and found the grid on the print, else a third of them; and all the others too when one
    /// of that third now shows its line beside the drawn one and did not before: a slip is
    /// judged on the frame it shows on. A grid found off is judged on every segment until every
    /// box shows it on, as [`drawn_on_the_print`] asks, not only none off, and (drawn along a
    /// bend) its border shows nowhere beside the drawn one: with a third looked at, a page
    /// bowed 0.6 of a cell, followed a cell off at a corner, was found off on every frame but
    /// one, whose third showed its lines unclear beside the bow, and on that frame the digits
    /// were drawn a cell off; looked at whole, the segments there showed nothing either way on
    /// 7 frames of some 100, and on those the digits were drawn a cell off (`cargo bench --bench
    /// curved -- --bowed 0.6`, noise seeds 1 and 3).
    ///
    /// `moved` is how far the grid moved since the last frame, in `gray`'s pixels: a line moved
    /// across itself by more than a quarter of a cell (`SMEARED_ACROSS`) is smeared, and keeps
    /// what it showed when last seen sharp. `bent`: the lattice is drawn along a bend of the
    /// paper, whose corners the bend's fit places least surely (see `border_shows_beside`).
    pub fn drawn_off(
        &mut self,
        gray: &GrayView,
        lattice: &Lattice,
        moved: [f64; 2],
        bent: bool,
    ) -> bool {
        let turn = self.turn;
        let whole = !self.looked_before || self.off;
        let glare = glare_under(gray, lattice);
        let all = whole || self.look(gray, lattice, glare, moved, |i| i % 3 == turn);
        if all {
            // The rest (or every one).
            self.look(gray, lattice, glare, moved, |i| i % 3 != turn || whole);
        }
        self.turn = (self.turn + 1) % 3;
        self.looked_now = true;
        let off = a_box_off(&self.along_rows, &self.along_columns, &self.covered)
            || a_line_off(&self.along_rows)
            || a_line_off(&self.along_columns);
        if off && !self.off {
            tracing::trace!(
                rows = %seen_map(&self.along_rows),
                columns = %seen_map(&self.along_columns),
                covered = ?(0..81).filter(|&i| self.covered[i]).collect::<Vec<_>>(),
                "found off the print (line by line: + on, x off, . unclear)"
            );
        }
        // Found off before, it must now show itself on, not only not off.
        self.off = off || (self.off && !self.shown_on(bent));
        self.off
    }

    /// Whether every box shows its lines on, and, drawn along a bend (`bent`), the border
    /// nowhere beside the drawn one: what a grid found off must show to be drawn again.
    fn shown_on(&self, bent: bool) -> bool {
        let border_off =
            || border_shows_beside(&self.along_rows) || border_shows_beside(&self.along_columns);
        self.every_box_on() && !(bent && border_off())
    }

    /// Whether every 3x3 box shows its printed lines where they are drawn, as last looked at
    /// (see [`drawn_on_the_print`]).
    fn every_box_on(&self) -> bool {
        (0..3).all(|box_row| {
            (0..3).all(|box_col| {
                let rows = box_segments(&self.along_rows, box_row, box_col);
                let columns = box_segments(&self.along_columns, box_col, box_row);
                [rows, columns].iter().all(|seen| {
                    let count = |kind| seen.iter().filter(|&&s| s == kind).count();
                    let (on, off) = (count(Segment::On), count(Segment::Off));
                    on >= MIN_ON_IN_BOX && on > 2 * off
                })
            })
        })
    }

    /// Looks again at the segments whose place along their line (the cell from the line's
    /// start) is `due`, with paper from level `glare` on washed out ([`glare_under`]); whether
    /// one of them now shows its line beside the drawn one and did not before.
    fn look(
        &mut self,
        gray: &GrayView,
        lattice: &Lattice,
        glare: f64,
        moved: [f64; 2],
        due: impl Fn(usize) -> bool,
    ) -> bool {
        let at = &lattice.0;
        let mut newly_off = false;
        let mut see = |seen: &mut Seen, ends: (Point, Point), border: bool| {
            // A smeared line keeps what it showed when last seen sharp: a grid drawn off on
            // curved paper stays off while the camera moves (judged unclear instead, a page
            // bowed by 0.36 cell was drawn 0.42 cell off on a quick move). One not seen sharp
            // since the track began (the page still sliding in) is judged as it is, and
            // again on the next frame.
            let smeared = smeared(ends, moved);
            if smeared && seen.sharp {
                return;
            }
            let segment = look_along(gray, ends, Drawn { border, glare });
            newly_off |= segment == Segment::Off && seen.segment != Segment::Off;
            *seen = Seen {
                segment,
                sharp: !smeared,
            };
        };
        let judged = |line: usize| self.lines == Lines::All || (1..9).contains(&line);
        for (r, line) in self
            .along_rows
            .iter_mut()
            .enumerate()
            .filter(|(r, _)| judged(*r))
        {
            for (c, segment) in line.iter_mut().enumerate().filter(|(c, _)| due(*c)) {
                see(segment, (at[r][c], at[r][c + 1]), r % 9 == 0);
            }
        }
        for (c, line) in self
            .along_columns
            .iter_mut()
            .enumerate()
            .filter(|(c, _)| judged(*c))
        {
            for (r, segment) in line.iter_mut().enumerate().filter(|(r, _)| due(*r)) {
                see(segment, (at[r][c], at[r + 1][c]), c % 9 == 0);
            }
        }
        newly_off
    }
}

/// Whether some 3x3 box, or some whole line, of the grid drawn at `lattice` lies clearly beside
/// the printed lines in `gray`: then the digits would be drawn in the wrong cells, or across the
/// lines, and are better not drawn. A box hidden by a hand, blurred or out of view shows no lines and counts
/// for nothing.
///
/// ```
/// use sudoku_ar::bend::Lattice;
/// use sudoku_ar::geometry::Quad;
/// use sudoku_ar::raster::GrayView;
/// use sudoku_ar::on_print::{Lines, drawn_off_the_print};
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// // Blank paper shows no lines, so nothing speaks against drawing there.
/// let paper = opencv::core::Mat::new_rows_cols_with_default(
///     480, 640, opencv::core::CV_8UC1, opencv::core::Scalar::all(230.0))?;
/// let square = Quad([[100.0, 60.0], [460.0, 60.0], [460.0, 420.0], [100.0, 420.0]]);
/// let lattice = Lattice::flat(&square).ok_or("no lattice")?;
/// assert!(!drawn_off_the_print(&GrayView::new(&paper)?, &lattice, Lines::All));
/// # Ok(())
/// # }
/// ```
pub fn drawn_off_the_print(gray: &GrayView, lattice: &Lattice, lines: Lines) -> bool {
    PrintCheck::judging(lines).drawn_off(gray, lattice, [0.0; 2], false)
}

/// Whether every 3x3 box of the grid drawn at `lattice` shows its printed lines where they are
/// drawn: along its row lines and along its column lines apart, at least `MIN_ON_IN_BOX` (4) of
/// the 12 segments on their line, more than twice as many as beside it. Asked of a grid drawn
/// otherwise than its outline says (the lines followed, when the outline is off the print),
/// which must then show it is right, not only that it is not clearly wrong: a box drawn half a
/// cell off puts each drawn line midway between two printed ones, beyond where
/// [`drawn_off_the_print`] looks, and shows nothing either way (a page with a marker lying
/// across its border was drawn so, its bottom-left box half a cell off).
pub fn drawn_on_the_print(gray: &GrayView, lattice: &Lattice, lines: Lines) -> bool {
    let mut check = PrintCheck::judging(lines);
    check.look(gray, lattice, glare_under(gray, lattice), [0.0; 2], |_| {
        true
    });
    check.every_box_on()
}

/// See [`drawn_on_the_print`].
const MIN_ON_IN_BOX: usize = 4;

/// Whether the segment `(a, b)` was carried across itself by more than [`SMEARED_ACROSS`] of its
/// length by the grid's move `moved`.
fn smeared((a, b): (Point, Point), moved: [f64; 2]) -> bool {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    // |moved x (b - a)| / |b - a| is the move across the segment, |b - a| its cell.
    (moved[0] * dy - moved[1] * dx).abs() > SMEARED_ACROSS * (dx * dx + dy * dy)
}

/// Whether some line of `lines` (segments as seen, `[line][cell]`) lies beside its printed one
/// along most of its length: on [`LINE_OFF`] of its 9 segments or more, and on it along none
/// (a page filled in by hand, big digits beside pale lines, showed 5 off and 1 on now and then). A page curling into a book's gutter, drawn by its corners, had the two cell lines next
/// to the gutter drawn 0.35 of a cell beside the print, all along, the digits between them 0.4
/// of a cell off; every box around them still showed more of its lines on than off.
fn a_line_off(lines: &[[Seen; 9]; 10]) -> bool {
    lines.iter().any(|line| {
        let count = |kind| line.iter().filter(|s| s.segment == kind).count();
        count(Segment::Off) >= LINE_OFF && count(Segment::On) == 0
    })
}

/// Whether the grid's border, along `lines` (segments as seen, `[line][cell]`: the first and the
/// last line), shows beside the drawn one anywhere. Asked of a grid found off before it is
/// drawn again: a box may show most of its lines on while the corner in it lies off, where the
/// bend is least sure and the border, the thickest line, shows it first (`01_20` bowed 0.6 of
/// a cell was drawn again with a corner 0.35 of a cell off, the box there showing 6 of its 12
/// column segments on and 1 off: that one on the border). Not asked of a photo's grid (a corner
/// washed out showed its border's fading edge beside the drawn line, and right grids went
/// undrawn), nor of a flat one (a track's homography moves the whole box with its corner).
fn border_shows_beside(lines: &[[Seen; 9]; 10]) -> bool {
    [&lines[0], &lines[9]]
        .iter()
        .any(|line| line.iter().any(|s| s.segment == Segment::Off))
}

/// The segments as seen, line by line (`[line][cell]`), for a trace: `+` on, `x` off, `.`
/// unclear.
fn seen_map(lines: &[[Seen; 9]; 10]) -> String {
    let mark = |s: &Seen| match s.segment {
        Segment::On => '+',
        Segment::Off => 'x',
        Segment::Unclear => '.',
    };
    lines
        .iter()
        .map(|line| line.iter().map(mark).collect::<String>())
        .collect::<Vec<_>>()
        .join("|")
}

/// Whether the segments as seen (`[line][cell]` along row lines and along column lines) put
/// some 3x3 box beside the printed lines.
fn a_box_off(
    along_rows: &[[Seen; 9]; 10],
    along_columns: &[[Seen; 9]; 10],
    covered: &[bool; 81],
) -> bool {
    (0..3).any(|box_row| {
        (0..3).any(|box_col| {
            // Row lines and column lines apart: a corner off along one side moves only one
            // kind across the print, and the other, still on its lines, must not outvote it.
            let rows = box_segments(along_rows, box_row, box_col);
            let columns = box_segments(along_columns, box_col, box_row);
            // The cell inside the k-th segment of the box's stretch of the border, in the
            // grid's first or last row or column (`edge` 0 or 8).
            let inside = |along_rows: bool, edge: usize, k: usize| {
                if along_rows {
                    edge * 9 + 3 * box_col + k
                } else {
                    (3 * box_row + k) * 9 + edge
                }
            };
            [(rows, box_row, true), (columns, box_col, false)]
                .iter()
                .any(|(seen, at, along_rows)| {
                    let (seen, at, along_rows) = (seen.as_slice(), *at, *along_rows);
                    let count =
                        |which: &[Segment], kind| which.iter().filter(|&&s| s == kind).count();
                    let (on, off) = (count(seen, Segment::On), count(seen, Segment::Off));
                    // The box's stretch of the grid's border (its first or last three segments
                    // when the box lies at that edge): the thickest line, and the one a corner
                    // placed off moves most; seen beside the drawn one along two of the box's
                    // three cells, that is enough (a page with shaded boxes shows its cell lines
                    // only as edges, and a corner half a cell off moved only the last two). Not
                    // beside a cell something lies over, whose edge shows as a line there.
                    let border = |first: bool| {
                        let (stretch, edge) = if first {
                            (&seen[..3], 0)
                        } else {
                            (&seen[9..], 8)
                        };
                        let open_off = |(k, s): (usize, &Segment)| {
                            *s == Segment::Off && !covered[inside(along_rows, edge, k)]
                        };
                        stretch
                            .iter()
                            .enumerate()
                            .filter(|&ks| open_off(ks))
                            .count()
                            >= 2
                    };
                    (on + off >= MIN_DECIDED && off > 2 * on)
                        || (at == 0 && border(true))
                        || (at == 2 && border(false))
                })
        })
    })
}

/// What the 12 segments of one kind around and inside a box show: of `lines` (segments along
/// each line of that kind, `[line][cell]`), the box's four lines from line `3 * across` on, each
/// over the box's three cells from `3 * along` on.
fn box_segments(lines: &[[Seen; 9]; 10], across: usize, along: usize) -> [Segment; 12] {
    std::array::from_fn(|i| lines[3 * across + i / 3][3 * along + i % 3].segment)
}

/// How a segment is drawn: on the grid's border (past which a table or a bezel may lie, an edge
/// and no ridge), and the level from which the paper around it is taken for glare.
#[derive(Debug, Clone, Copy)]
struct Drawn {
    border: bool,
    glare: f64,
}

/// The level from which the paper under the grid drawn at `lattice` is washed out by glare
/// ([`glare_level`]), the paper's taken at the median of every cell's four quarter points,
/// where digits seldom reach.
fn glare_under(gray: &GrayView, lattice: &Lattice) -> f64 {
    let at = &lattice.0;
    let mut levels = Vec::with_capacity(4 * 81);
    for r in 0..9 {
        for c in 0..9 {
            let (o, right, down) = (at[r][c], at[r][c + 1], at[r + 1][c]);
            for (s, t) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                let x = o[0] + s * (right[0] - o[0]) + t * (down[0] - o[0]);
                let y = o[1] + s * (right[1] - o[1]) + t * (down[1] - o[1]);
                levels.push(gray.sample(x, y));
            }
        }
    }
    let middle = levels.len() / 2;
    glare_level(*levels.select_nth_unstable_by(middle, f64::total_cmp).1)
}

/// A drawn segment and the band across it where its printed line is looked for.
struct Across<'a> {
    gray: &'a GrayView<'a>,
    a: Point,
    dir: Point,
    normal: Point,
    /// The segment's length: a cell.
    cell: f64,
    /// The points along the drawn line that are sampled.
    along: [Point; ALONG],
    /// The distance between two offsets across, in pixels, and how many samples stand for each.
    step: f64,
    within: usize,
}

impl<'a> Across<'a> {
    /// The band across the segment `(a, b)`; None when it is too short to tell a line, or the
    /// band reaches past the picture.
    fn new(gray: &'a GrayView<'a>, (a, b): (Point, Point)) -> Option<Across<'a>> {
        let cell = distance(a, b);
        if cell < 4.0 {
            return None;
        }
        let dir = [(b[0] - a[0]) / cell, (b[1] - a[1]) / cell];
        let normal = [-dir[1], dir[0]];
        // Each offset stands for a band a step wide across the drawn line, looked at no more
        // than `FINEST` pixels apart: a thin printed line (3 px on a 1600 px photo whose cells
        // are 90 px, 4.5 px a step) fell between two offsets where the drawn line crossed it at
        // a slant, and a page drawn on its lines was withheld (`cargo bench --bench curved --
        // --bowed-stills 0.5`).
        let step = LOOK / STEPS as f64 * cell;
        let mut across = Across {
            gray,
            a,
            dir,
            normal,
            cell,
            along: [[0.0; 2]; ALONG],
            step,
            within: (step / FINEST).ceil().max(1.0) as usize,
        };
        across.along =
            std::array::from_fn(|j| across.point(0.1 + 0.8 * j as f64 / (ALONG - 1) as f64, 0.0));
        // All samples lie within the corners of the looked-at parallelogram.
        (across.shows(-LOOK) && across.shows(LOOK)).then_some(across)
    }

    /// The point `s` of the way along the segment and `t` cells across it.
    fn point(&self, s: f64, t: f64) -> Point {
        let (a, dir, normal, cell) = (self.a, self.dir, self.normal, self.cell);
        [
            a[0] + (dir[0] * s + normal[0] * t) * cell,
            a[1] + (dir[1] * s + normal[1] * t) * cell,
        ]
    }

    /// Whether the picture holds the stretch `t` cells across the segment that is sampled.
    fn shows(&self, t: f64) -> bool {
        [0.1, 0.9]
            .iter()
            .all(|&s| self.gray.contains(self.point(s, t)))
    }

    /// The darkness at `t` cells across: the (LIGHT_ALLOWED + 1)-th lightest sample along,
    /// which all but that many reach, each the darkest within its band.
    fn darkness_at(&self, t: f64) -> f64 {
        let normal = self.normal;
        let (dx, dy) = (normal[0] * t * self.cell, normal[1] * t * self.cell);
        let band = |k: usize| {
            let o = ((k as f64 + 0.5) / self.within as f64 - 0.5) * self.step;
            [normal[0] * o, normal[1] * o]
        };
        let mut lightest = [f64::INFINITY; LIGHT_ALLOWED + 1];
        for &[x, y] in &self.along {
            let lightest_in_band = (0..self.within)
                .map(band)
                .map(|[bx, by]| self.gray.sample(x + dx + bx, y + dy + by))
                .fold(f64::INFINITY, f64::min);
            let mut dark = 255.0 - lightest_in_band;
            for slot in lightest.iter_mut() {
                if dark < *slot {
                    std::mem::swap(&mut dark, slot);
                }
            }
        }
        lightest[LIGHT_ALLOWED]
    }

    /// Whether glare (level `glare` or lighter) lies over half the segment's length `t` cells
    /// across.
    fn glare_over(&self, t: f64, glare: f64) -> bool {
        let (dx, dy) = (
            self.normal[0] * t * self.cell,
            self.normal[1] * t * self.cell,
        );
        let washed = self
            .along
            .iter()
            .filter(|&&[x, y]| self.gray.sample(x + dx, y + dy) >= glare);
        2 * washed.count() >= ALONG
    }
}

/// Whether the printed line lies on the drawn segment `ends`, clearly beside it, or neither
/// can be told: from the darkness at offsets across it, each the darkness most of the way along
/// (all but [`LIGHT_ALLOWED`] samples), above the lightest offset's.
fn look_along(gray: &GrayView, ends: (Point, Point), drawn: Drawn) -> Segment {
    let Some(across) = Across::new(gray, ends) else {
        return Segment::Unclear;
    };
    let offset = |i: usize| (i as f64 - STEPS as f64) / STEPS as f64 * LOOK;
    let darkness: [f64; 2 * STEPS + 1] = std::array::from_fn(|i| across.darkness_at(offset(i)));
    let lightest = darkness.iter().copied().fold(f64::INFINITY, f64::min);
    let strongest = darkness.iter().copied().fold(0.0, f64::max) - lightest;
    if strongest < MIN_CONTRAST {
        return Segment::Unclear;
    }
    let near_steps = (NEAR / LOOK * STEPS as f64).round() as usize;
    let near = darkness[STEPS - near_steps..=STEPS + near_steps]
        .iter()
        .copied()
        .fold(0.0, f64::max)
        - lightest;
    let peak = (0..darkness.len())
        .max_by(|&i, &j| darkness[i].total_cmp(&darkness[j]))
        .unwrap_or(STEPS);
    // A line where it is drawn, only paler than something darker beside it (an app's pale
    // lines beside the phone's black bezel, a faded border beside a table): darker than the
    // paper between them. It is there, so the drawing is not off: two right photos of a monitor
    // were withheld so.
    let drawn_line_shows = |peak: usize| {
        let between = if peak < STEPS {
            peak..=STEPS - near_steps
        } else {
            STEPS + near_steps..=peak
        };
        let paper = between.map(|i| darkness[i]).fold(f64::INFINITY, f64::min);
        near + lightest - paper >= MIN_CONTRAST
    };
    let peak_at = peak.abs_diff(STEPS) as f64 / STEPS as f64 * LOOK;
    // A printed line is a ridge: past it the paper is lighter again. The edge of a shadow
    // lying along the drawn line darkens the paper on one side and stays so.
    let a_ridge = || {
        let past = if peak < STEPS { -1.0 } else { 1.0 } * (peak_at + RIDGE_PAST);
        drawn.border
            || !across.shows(past)
            || across.darkness_at(past) - lightest <= RIDGE_FALL * (darkness[peak] - lightest)
    };
    // Under a glare spot the print shows nowhere, and beside one the paper darkens away from
    // it as beside a line: a segment with the spot over half its length, on the drawn line or
    // anywhere it is looked along, shows no line beside it.
    let glare_beside = || {
        [-LOOK, -LOOK / 2.0, 0.0, LOOK / 2.0, LOOK]
            .into_iter()
            .any(|t| across.glare_over(t, drawn.glare))
    };
    if near >= ON_SHARE * strongest {
        Segment::On
    } else if near < OFF_SHARE * strongest
        && peak_at >= OFF_BEYOND
        && !drawn_line_shows(peak)
        && a_ridge()
        && !glare_beside()
    {
        Segment::Off
    } else {
        Segment::Unclear
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Quad;
    use crate::recognize::detect::tests::drawn_grid;
    use opencv::core::Mat;

    /// A 640x480 page with nothing printed on it.
    fn blank_paper() -> Mat {
        Mat::new_rows_cols_with_default(
            480,
            640,
            opencv::core::CV_8UC1,
            opencv::core::Scalar::all(230.0),
        )
        .unwrap()
    }

    fn lattice_at(x: f64, y: f64, side: f64) -> Lattice {
        Lattice::flat(&Quad::UNIT.scaled(side).translated(x, y)).expect("a square")
    }

    #[test]
    fn two_cell_lines_drawn_beside_the_print_all_along_are_off_it() {
        // 40 px cells from (100, 60); row lines 7 and 8 drawn 14 px (0.35 cell) low, as a page
        // curling into a gutter below is drawn by its corners. Every box still shows as many
        // lines on as off.
        let page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let view = GrayView::new(&page).unwrap();
        let mut lattice = lattice_at(100.0, 60.0, 360.0);
        for row in [7, 8] {
            for point in lattice.0[row].iter_mut() {
                point[1] += 14.0;
            }
        }
        assert!(drawn_off_the_print(&view, &lattice, Lines::All));
    }

    #[test]
    fn a_grid_found_off_stays_off_until_its_lines_show_it_on() {
        // Found off; then frames on which nothing shows (washed out, or blurred: blank paper
        // here) say nothing for it: still off. Once the print shows it on, drawn.
        let page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let view = GrayView::new(&page).unwrap();
        let paper = blank_paper();
        let washed_out = GrayView::new(&paper).unwrap();
        let (on, off) = (
            lattice_at(100.0, 60.0, 360.0),
            lattice_at(114.0, 60.0, 360.0),
        );
        let mut check = PrintCheck::default();
        let mut frame = |view: &GrayView, lattice: &Lattice| {
            check.next_frame();
            check.drawn_off(view, lattice, [0.0; 2], false)
        };
        assert!(frame(&view, &off));
        for _ in 0..3 {
            assert!(frame(&washed_out, &on));
        }
        assert!(!frame(&view, &on));
        // Nothing showing says nothing against a grid not found off.
        assert!(!frame(&washed_out, &on));
    }

    /// An app's pale lines (gray 170), 40 px cells from (100, 60), and the phone's black bezel
    /// from 0.3 of a cell right of the grid: on a white page (235) with a border line, or
    /// (`card`) with none, a white card on a tinted page (200).
    fn app_screen(card: bool) -> Mat {
        use opencv::core::{CV_8UC1, Point as CvPoint, Rect, Scalar};
        use opencv::imgproc;
        let page_level = if card { 200.0 } else { 235.0 };
        let mut page =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(page_level)).unwrap();
        let white = Scalar::all(235.0);
        let whole = Rect::new(100, 60, 360, 360);
        imgproc::rectangle(&mut page, whole, white, -1, imgproc::LINE_8, 0).unwrap();
        let lines = if card { 1..9 } else { 0..10 };
        for k in lines {
            let (x, y) = (100 + 40 * k, 60 + 40 * k);
            let thickness = if k % 3 == 0 { 3 } else { 1 };
            let pale = Scalar::all(170.0);
            let line = |page: &mut Mat, from: CvPoint, to: CvPoint| {
                imgproc::line(page, from, to, pale, thickness, imgproc::LINE_8, 0).unwrap();
            };
            line(&mut page, CvPoint::new(x, 60), CvPoint::new(x, 420));
            line(&mut page, CvPoint::new(100, y), CvPoint::new(460, y));
        }
        let bezel = Rect::new(472, 0, 168, 480);
        imgproc::rectangle(&mut page, bezel, Scalar::all(10.0), -1, imgproc::LINE_8, 0).unwrap();
        page
    }

    #[test]
    fn a_card_with_no_border_line_is_judged_by_its_lines_inside() {
        let page = app_screen(true);
        let view = GrayView::new(&page).unwrap();
        let right = lattice_at(100.0, 60.0, 360.0);
        // Its right edge beside the bezel looks like a border drawn off its line.
        assert!(drawn_off_the_print(&view, &right, Lines::All));
        assert!(!drawn_off_the_print(&view, &right, Lines::Inside));
        // Drawn 0.4 of a cell off, the lines inside say so.
        assert!(drawn_off_the_print(
            &view,
            &lattice_at(116.0, 60.0, 360.0),
            Lines::Inside
        ));
    }

    /// A 640x480 page of paper at level `paper` with a grid's lines printed at level `ink`:
    /// 40 px cells from (100, 60), box lines 3 px wide, cell lines 1 px.
    fn ruled_page(paper: f64, ink: f64) -> Mat {
        use opencv::core::{CV_8UC1, Point as CvPoint, Scalar};
        use opencv::imgproc;
        let mut page =
            Mat::new_rows_cols_with_default(480, 640, CV_8UC1, Scalar::all(paper)).unwrap();
        for k in 0..10 {
            let (x, y) = (100 + 40 * k, 60 + 40 * k);
            let thickness = if k % 3 == 0 { 3 } else { 1 };
            for (from, to) in [((x, 60), (x, 420)), ((100, y), (460, y))] {
                let (from, to) = (CvPoint::new(from.0, from.1), CvPoint::new(to.0, to.1));
                let ink = Scalar::all(ink);
                imgproc::line(&mut page, from, to, ink, thickness, imgproc::LINE_8, 0).unwrap();
            }
        }
        page
    }

    /// Pale cell lines (200) on paper (230) ([`ruled_page`]), under a shadow (90 darker) whose
    /// edge runs along column line 4, 0.3 of a cell right of it, smeared sideways by 0.2 of a
    /// cell.
    fn shadowed_page() -> Mat {
        use opencv::core::Point as CvPoint;
        use opencv::imgproc;
        use opencv::prelude::MatTrait;
        let mut page = ruled_page(230.0, 200.0);
        for y in 0..480 {
            for x in 272..640 {
                *page.at_2d_mut::<u8>(y, x).unwrap() -= 90;
            }
        }
        // The camera moving sideways smears the column lines into faint bands.
        let mut smeared = Mat::default();
        let (size, anchor) = (opencv::core::Size::new(9, 1), CvPoint::new(-1, -1));
        imgproc::blur(
            &page,
            &mut smeared,
            size,
            anchor,
            opencv::core::BORDER_REPLICATE,
        )
        .unwrap();
        smeared
    }

    #[test]
    fn the_edge_of_a_shadow_along_a_drawn_line_is_no_line_beside_it() {
        let page = shadowed_page();
        let view = GrayView::new(&page).unwrap();
        // The shadow darkens the paper from 0.3 cell beside column line 4 on, where the smeared
        // line hardly shows: taken for the line, it put the whole line off its print.
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(100.0, 60.0, 360.0),
            Lines::All
        ));
        // Drawn 0.3 of a cell low, the row lines show as ridges above the drawn ones.
        assert!(drawn_off_the_print(
            &view,
            &lattice_at(100.0, 72.0, 360.0),
            Lines::All
        ));
    }

    /// A dim page (paper 110, lines 40, [`ruled_page`]) under a lamp's reflection (white 60 px
    /// around, fading to the paper over 4 more) over the right border from row line 3 to row
    /// line 5, ending 0.3 of a cell past it.
    fn page_under_glare() -> Mat {
        use opencv::core::{Point as CvPoint, Scalar};
        use opencv::imgproc;
        let mut page = ruled_page(110.0, 40.0);
        let centre = CvPoint::new(412, 220);
        for r in (60..=64).rev() {
            let level = 255.0 - 145.0 * (r - 60) as f64 / 4.0;
            imgproc::circle(
                &mut page,
                centre,
                r,
                Scalar::all(level),
                -1,
                imgproc::LINE_8,
                0,
            )
            .unwrap();
        }
        page
    }

    #[test]
    fn a_glare_spot_over_the_border_shows_no_line_beside_it() {
        let page = page_under_glare();
        let view = GrayView::new(&page).unwrap();
        // The border under the spot is washed out, and the paper past the spot's edge looked
        // like the border beside the drawn one, along two of the box's three cells.
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(100.0, 60.0, 360.0),
            Lines::All
        ));
        // Drawn 0.3 of a cell low, the row lines away from the spot still say so.
        assert!(drawn_off_the_print(
            &view,
            &lattice_at(100.0, 72.0, 360.0),
            Lines::All
        ));
    }

    #[test]
    fn a_pale_grid_beside_a_dark_bezel_drawn_on_its_lines_is_on_the_print() {
        let page = app_screen(false);
        let view = GrayView::new(&page).unwrap();
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(100.0, 60.0, 360.0),
            Lines::All
        ));
        // Drawn a third of a cell off, it still is off.
        assert!(drawn_off_the_print(
            &view,
            &lattice_at(87.0, 60.0, 360.0),
            Lines::All
        ));
    }

    #[test]
    fn a_grid_drawn_on_its_lines_is_on_the_print_and_one_drawn_off_is_not() {
        // 40 px cells from (100, 60).
        let page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let view = GrayView::new(&page).unwrap();
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(100.0, 60.0, 360.0),
            Lines::All
        ));
        // A few pixels off is on it still: 1.4% of the side, within what is drawn.
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(102.0, 61.0, 360.0),
            Lines::All
        ));
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(105.0, 60.0, 360.0),
            Lines::All
        ));
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(100.0, 55.0, 360.0),
            Lines::All
        ));
        // A third of a cell and half a cell off: the drawn lines run through the cells.
        assert!(drawn_off_the_print(
            &view,
            &lattice_at(113.0, 60.0, 360.0),
            Lines::All
        ));
        assert!(drawn_off_the_print(
            &view,
            &lattice_at(100.0, 80.0, 360.0),
            Lines::All
        ));
        // One corner half a cell off: the boxes beside it are drawn across the lines.
        let skewed = Quad([[100.0, 60.0], [460.0, 60.0], [480.0, 440.0], [100.0, 420.0]]);
        assert!(drawn_off_the_print(
            &view,
            &Lattice::flat(&skewed).unwrap(),
            Lines::All
        ));
    }

    #[test]
    fn a_grid_drawn_on_its_lines_shows_every_box_on_them_and_one_box_half_a_cell_off_does_not() {
        // 40 px cells from (100, 60), thin cell lines: drawn where printed, or a pixel or two
        // off, every box shows its lines.
        let page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let view = GrayView::new(&page).unwrap();
        assert!(drawn_on_the_print(
            &view,
            &lattice_at(100.0, 60.0, 360.0),
            Lines::All
        ));
        assert!(drawn_on_the_print(
            &view,
            &lattice_at(102.0, 61.0, 360.0),
            Lines::All
        ));
        // The bottom-left box half a cell (20 px) right: its column lines run through the
        // middles of its cells (on a real page, where digits and pencil marks stand, nothing
        // clearly beside them may be seen either), and it does not show them on its lines.
        let mut lattice = lattice_at(100.0, 60.0, 360.0);
        for row in lattice.0[6..].iter_mut() {
            for point in row[..4].iter_mut() {
                point[0] += 20.0;
            }
        }
        assert!(!drawn_on_the_print(&view, &lattice, Lines::All));
        // Blank paper shows no lines: nothing shows the grid on it.
        let paper = blank_paper();
        let blank = GrayView::new(&paper).unwrap();
        assert!(!drawn_on_the_print(
            &blank,
            &lattice_at(100.0, 60.0, 360.0),
            Lines::All
        ));
    }

    #[test]
    fn a_grid_found_off_is_drawn_again_only_once_its_border_shows_nowhere_beside_it() {
        // Found off, then drawn with its bottom-left corner 14 px (0.35 cell) right of the
        // printed one, the rest on its lines: the box there shows most of its lines on, but
        // its stretch of the border says the corner is off. Drawn again once it is not.
        let page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let view = GrayView::new(&page).unwrap();
        let right = lattice_at(100.0, 60.0, 360.0);
        let mut corner_off = right;
        corner_off.0[9][0][0] += 14.0;
        corner_off.0[8][0][0] += 10.0;
        let mut check = PrintCheck::default();
        check.hold_until_on();
        let mut frame = |lattice: &Lattice| {
            check.next_frame();
            check.drawn_off(&view, lattice, [0.0; 2], true)
        };
        assert!(frame(&corner_off));
        assert!(!frame(&right));
    }

    #[test]
    fn thin_lines_crossed_at_a_slant_on_a_large_photo_are_seen_where_they_are_drawn() {
        // 100 px cells, every line 1 px thin (a 1600 px phone photo of a grid printed thin):
        // each drawn segment runs from 1.5 px one side of its printed line to 1.5 px the other
        // (a bend fitted a little off the print), between offsets 5 px apart. Looked at only at
        // those offsets, the lines showed nowhere, and no box showed its lines on.
        let mut page = Mat::new_rows_cols_with_default(
            1000,
            1100,
            opencv::core::CV_8UC1,
            opencv::core::Scalar::all(235.0),
        )
        .unwrap();
        for k in 0..=9 {
            let at = 100 * k;
            for (from, to) in [
                ((100 + at, 50), (100 + at, 950)),
                ((100, 50 + at), (1000, 50 + at)),
            ] {
                let point = |(x, y): (i32, i32)| opencv::core::Point::new(x, y);
                let ink = opencv::core::Scalar::all(20.0);
                opencv::imgproc::line(&mut page, point(from), point(to), ink, 1, 8, 0).unwrap();
            }
        }
        let view = GrayView::new(&page).unwrap();
        let mut lattice = lattice_at(100.0, 50.0, 900.0);
        for (r, row) in lattice.0.iter_mut().enumerate() {
            for (c, point) in row.iter_mut().enumerate() {
                let zig = if (r + c) % 2 == 0 { 1.5 } else { -1.5 };
                point[0] += zig;
                point[1] += zig;
            }
        }
        assert!(drawn_on_the_print(&view, &lattice, Lines::All));
        assert!(!drawn_off_the_print(&view, &lattice, Lines::All));
        // A third of a cell off is off; half a cell off does not show itself on.
        let off = lattice_at(130.0, 50.0, 900.0);
        assert!(drawn_off_the_print(&view, &off, Lines::All));
        let halfway = lattice_at(150.0, 50.0, 900.0);
        assert!(!drawn_on_the_print(&view, &halfway, Lines::All));
    }

    #[test]
    fn a_tracked_grid_that_slips_off_its_lines_is_caught_on_the_frame_it_slips() {
        let page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let view = GrayView::new(&page).unwrap();
        let (on, off) = (
            lattice_at(100.0, 60.0, 360.0),
            lattice_at(100.0, 80.0, 360.0),
        );
        let mut check = PrintCheck::default();
        let mut frame = |lattice: &Lattice| {
            check.next_frame();
            check.drawn_off(&view, lattice, [0.0; 2], false)
        };
        // Frames looked at in a row: a third of the segments each after the first.
        for _ in 0..5 {
            assert!(!frame(&on));
        }
        // Half a cell off: caught at once, though a third was due.
        assert!(frame(&off));
        assert!(frame(&off));
        // Back on its lines: every segment is looked at again while it is found off, and it
        // is drawn again at once.
        assert!(!frame(&on));
    }

    #[test]
    fn the_edge_of_a_hand_over_the_border_counts_only_where_no_hand_is_known_to_lie() {
        use opencv::core::{Point as CvPoint, Rect, Scalar};
        use opencv::imgproc;
        // 40 px cells from (100, 60): a hand as light as skin over the bottom border along the
        // last three columns (cells 78-80), from 0.35 of a cell inside it on, its edge a dark
        // line there.
        let mut page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let hand = Rect::new(340, 406, 140, 74);
        imgproc::rectangle(&mut page, hand, Scalar::all(200.0), -1, imgproc::LINE_8, 0).unwrap();
        let edge = (CvPoint::new(340, 406), CvPoint::new(479, 406));
        imgproc::line(
            &mut page,
            edge.0,
            edge.1,
            Scalar::all(70.0),
            3,
            imgproc::LINE_8,
            0,
        )
        .unwrap();
        let view = GrayView::new(&page).unwrap();
        let on = lattice_at(100.0, 60.0, 360.0);
        // Not known to lie there: the hand's edge is taken for the border beside the drawn one.
        assert!(PrintCheck::default().drawn_off(&view, &on, [0.0; 2], false));
        // Known (the cells under it and those it rings): their segments are not judged.
        let mut covered = [false; 81];
        for cell in [68, 69, 70, 71, 77, 78, 79, 80] {
            covered[cell] = true;
        }
        let mut check = PrintCheck::default();
        check.covered_now(&covered);
        assert!(!check.drawn_off(&view, &on, [0.0; 2], false));
        // A grid drawn half a cell off is still caught on the lines in view.
        assert!(check.drawn_off(&view, &lattice_at(120.0, 60.0, 360.0), [0.0; 2], false));
    }

    #[test]
    fn lines_smeared_by_the_cameras_motion_keep_what_they_showed_when_sharp() {
        let page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let view = GrayView::new(&page).unwrap();
        // Drawn a third of a cell to the right: the column lines lie beside the drawn ones.
        let (on, off) = (
            lattice_at(100.0, 60.0, 360.0),
            lattice_at(113.0, 60.0, 360.0),
        );
        let (still, sideways, upwards) = ([0.0, 0.0], [20.0, 0.0], [0.0, 20.0]);
        let frames = |seen: &[(&Lattice, [f64; 2])]| {
            let mut check = PrintCheck::default();
            let mut off = false;
            for (lattice, moved) in seen {
                check.next_frame();
                off = check.drawn_off(&view, lattice, *moved, false);
            }
            off
        };
        assert!(frames(&[(&off, still)]));
        // Never seen sharp (a page sliding in), the lines are judged as they are.
        assert!(frames(&[(&off, sideways)]));
        // Seen off while steady, it stays off while the camera sweeps sideways a quarter cell
        // or more a frame.
        assert!(frames(&[(&off, still), (&off, sideways), (&off, sideways)]));
        // Seen on its lines, the column lines keep that while they are a smear (a smear beside
        // a drawn line is no line); moving up or down, they are sharp and show where they lie.
        assert!(!frames(&[(&on, still), (&off, sideways), (&off, sideways)]));
        assert!(frames(&[(&on, still), (&off, upwards), (&off, upwards)]));
        // A slow move smears nothing.
        assert!(frames(&[
            (&on, still),
            (&off, [8.0, 4.0]),
            (&off, [8.0, 4.0])
        ]));
    }

    #[test]
    fn a_blank_page_or_a_picture_half_out_of_view_says_nothing_against_the_drawing() {
        let blank = blank_paper();
        let view = GrayView::new(&blank).unwrap();
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(100.0, 60.0, 360.0),
            Lines::All
        ));
        // Mostly outside the frame.
        let page: Mat = drawn_grid(640, 480, 100, 60, 360);
        let view = GrayView::new(&page).unwrap();
        assert!(!drawn_off_the_print(
            &view,
            &lattice_at(500.0, 300.0, 360.0),
            Lines::All
        ));
    }
}
