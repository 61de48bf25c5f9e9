//! The still-photo pipeline: load, find the grid, recognize it ([`crate::recognize`]), draw.

use std::time::{Duration, Instant};

use opencv::core::Mat;
use opencv::prelude::*;
use serde::Serialize;

mod heif;
mod load;

pub use load::{Picture, load_image, load_picture};

use crate::bend::{self, Bend, Lattice};
use crate::error::{Error, Result};
use crate::geometry::Quad;
use crate::grid::Grid;
use crate::on_print::{Lines, drawn_off_the_print, drawn_on_the_print};
use crate::overlay;
use crate::raster::{self, GrayView, darkest_of, gray_of, in_colour, too_dark_to_read};
use crate::recognize::decode::Correction;
use crate::recognize::detect::{self, Detection, Ink, Look};
use crate::recognize::ink;
use crate::recognize::read::{DigitReader, GridReading};
use crate::recognize::verdict::{self, AsRead, Judged, Status, entries_of, judge_picture};
use crate::recognize::{
    Follow, Orientation, Recognition, RecognizeTimes, beyond_the_edges, recognize,
};

/// The smallest picture worth searching: 9 cells of 10 pixels.
pub const MIN_SIDE: i32 = 90;

/// A puzzle found in a picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Puzzle {
    /// Corners in the picture's pixels.
    pub quad: Quad,
    /// How the printed lines bend between the corners (curved paper), when they do clearly.
    pub bend: Option<Bend>,
    pub reading: GridReading,
    /// The printed clues: the puzzle as published, which the solution is computed from.
    pub clues: Grid,
    /// Digits somebody wrote into the grid (0 elsewhere).
    pub entries: Grid,
    pub solution: Option<Grid>,
    pub status: Status,
    /// Cells whose first reading broke the puzzle and was replaced by a next-best one.
    pub corrections: Vec<Correction>,
    /// When solved: how much less likely (nats) the next puzzle with one solution near the
    /// reading is (at least this much: the decoder searched no further).
    pub margin: Option<f32>,
    /// Whether the cells, drawn by `quad` and `bend`, would lie clearly beside the printed
    /// lines (see [`drawn_off_the_print`]): paper curved more than the lines could be followed,
    /// as a page curling into a book's gutter. The solution is then not drawn.
    pub off_print: bool,
    /// Whether the grid is printed dark on light or light on dark (a screen in dark mode).
    pub ink: Ink,
}

impl Puzzle {
    fn new(
        quad: Quad,
        bend: Option<Bend>,
        reading: GridReading,
        judged: Judged,
        off_print: bool,
        ink: Ink,
    ) -> Puzzle {
        let entries = entries_of(&reading, &judged.clues);
        let Judged {
            clues,
            solution,
            status,
            corrections,
            margin,
        } = judged;
        Puzzle {
            quad,
            bend,
            reading,
            clues,
            entries,
            solution,
            status,
            corrections,
            margin,
            off_print,
            ink,
        }
    }

    /// Whether the puzzle is solved and has cells to fill in (not a solution printed whole).
    pub fn to_fill_in(&self) -> bool {
        self.solution.is_some() && self.clues.filled() < 81
    }

    /// Whether the solution is drawn: solved, and the cells on the printed ones.
    pub fn drawn(&self) -> bool {
        self.solution.is_some() && !self.off_print
    }

    /// Cells whose handwritten entry disagrees with the solution, counting only entries the
    /// reader is sure of: telling somebody a right answer is wrong is worse than missing a slip.
    pub fn wrong_entries(&self) -> Vec<usize> {
        match &self.solution {
            Some(solution) => verdict::wrong_entries(&self.reading, &self.entries, solution),
            None => Vec::new(),
        }
    }
}

/// Time spent in each stage of [`PhotoPipeline::process`].
#[derive(Debug, Clone, Copy, Default)]
pub struct StageTimes {
    pub detect: Duration,
    /// Cutting the cells: following the printed lines and warping.
    pub rectify: Duration,
    /// The digit model, including any turned readings.
    pub read: Duration,
    pub solve: Duration,
    pub render: Duration,
}

impl StageTimes {
    fn add(&mut self, other: &StageTimes) {
        self.detect += other.detect;
        self.rectify += other.rectify;
        self.read += other.read;
        self.solve += other.solve;
        self.render += other.render;
    }
}

/// A still picture in gray ([`gray_of`], or [`darkest_of`] for a second look), smoothed when
/// it is grainy (a phone's photo in poor light, see [`grain_of`]): the grain counts as ink in
/// the cells' middles, and the grid check took the grid for none. Also how far its readings
/// that solve as read are taken.
fn without_grain(gray: Mat) -> Result<(Mat, AsRead)> {
    let Some(grain) = grain_of(&gray)? else {
        return Ok((gray, AsRead::Stands));
    };
    let mut smooth = Mat::default();
    let size = opencv::core::Size::new(0, 0);
    opencv::imgproc::gaussian_blur_def(&gray, &mut smooth, size, grain.sigma())?;
    Ok((smooth, grain.as_read()))
}

/// Whether a second look's puzzle is taken: solved as read, every other puzzle near the
/// reading at least [`CLEAR_LEAD`] less likely. A second look is a second chance for a
/// misreading to pass: a grainy page whose first reading was unsure (a correction ahead by
/// 1.14 nats) was corrected in its darkest colour at 1.64, wrongly.
fn clearly_solved(puzzle: &Puzzle) -> bool {
    puzzle.corrections.is_empty()
        && puzzle.solution.as_ref().is_some_and(|solution| {
            verdict::leads_by(&puzzle.reading, solution, puzzle.margin, CLEAR_LEAD)
        })
}

/// See [`clearly_solved`], in nats: the lead a video frame's evidence must show.
const CLEAR_LEAD: f32 = 3.0;

/// How near (a share of its side, here a quarter of a cell) another look's outline of a grid
/// must lie to the first's for the two to be one grid.
const SAME_GRID: f64 = 1.0 / 36.0;

/// A grainy picture's grain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grain {
    /// In every pixel.
    Fine,
    /// In blotches a few pixels wide.
    Coarse,
}

impl Grain {
    /// The Gaussian's sigma (pixels) that smooths it away: its scale.
    fn sigma(self) -> f64 {
        match self {
            Grain::Fine => 1.0,
            Grain::Coarse => 2.0,
        }
    }

    /// How far a reading that solves as read is taken. Smoothed of coarse grain, blotches are
    /// left that read surely as strokes of a digit, so such a reading must lead any other
    /// puzzle as clearly as a corrected one must: Wicht's 160 pages and 40 Kubiesa ones with
    /// Gaussian noise (sigma 40 a colour) saved as JPEG 30 were solved 148 times, 2 wrong (a
    /// 3 read as a 2, a 6 as a 5, each reading ahead by 0.6 nats), and so 146, none wrong.
    fn as_read(self) -> AsRead {
        match self {
            Grain::Fine => AsRead::Stands,
            Grain::Coarse => AsRead::MustLead,
        }
    }
}

/// The grain of a grainy picture: its noise ([`raster::noise_level`]) over [`GRAINY`] is fine
/// grain; else that noise at half the resolution over [`COARSE_GRAINY`] is coarse. A grainy
/// photo saved small as a JPEG keeps its grain only in blotches (the compression drops the
/// finest): Wicht's pages with Gaussian noise, JPEG 30-40 (full-size noise 3.5-6.7, half-size
/// 8.6-13.1) were solved 71-76 of 200 as they were, 146-176 smoothed by two pixels (one: 95
/// of the first 200). Kubiesa pages with noise 18-41 (JPEG 70-50) go from 10 / 9 / 5 / 3 of 10
/// solved to 10 / 10 / 10 / 9 smoothed by one.
fn grain_of(gray: &Mat) -> Result<Option<Grain>> {
    let noise = raster::noise_level(gray)?;
    if noise > GRAINY {
        tracing::debug!(noise, "a grainy picture: smoothed by a pixel");
        return Ok(Some(Grain::Fine));
    }
    let mut half = Mat::default();
    opencv::imgproc::resize(
        gray,
        &mut half,
        opencv::core::Size::new(0, 0),
        0.5,
        0.5,
        opencv::imgproc::INTER_AREA,
    )?;
    let coarse = raster::noise_level(&half)?;
    if coarse > COARSE_GRAINY {
        tracing::debug!(noise, coarse, "coarse grain: smoothed by two pixels");
        return Ok(Some(Grain::Coarse));
    }
    Ok(None)
}

/// The noise above which a picture is smoothed by a pixel: the dataset photos show 0.0-2.7,
/// the noisiest read as they were 20.
const GRAINY: f64 = 15.0;

/// The noise at half the resolution above which a picture is smoothed by two pixels: the
/// dataset photos show 0.0-2.5 there, grainy ones saved as rough JPEGs 8.6 and more.
const COARSE_GRAINY: f64 = 6.0;

/// The Gaussian's sigma (pixels) that smooths a screen's moire away for a second look (see
/// [`PhotoPipeline::without_stripes`]).
const STRIPES_SIGMA: f64 = 1.0;

/// Finds, reads and solves puzzles in still pictures.
pub struct PhotoPipeline {
    reader: DigitReader,
    /// How far the picture in hand's readings that solve as read are taken.
    as_read: AsRead,
}

impl PhotoPipeline {
    pub fn new(reader: DigitReader) -> Self {
        PhotoPipeline {
            reader,
            as_read: AsRead::Stands,
        }
    }

    /// Finds and solves the puzzle in a BGR picture; None when there is no puzzle, and
    /// [`Error::TooDark`] when the picture is too dark to read one surely.
    /// `times` is set to this call's time per stage.
    pub fn process(&mut self, image: &Mat, times: &mut StageTimes) -> Result<Option<Puzzle>> {
        *times = StageTimes::default();
        let (gray, as_read) = without_grain(gray_of(image)?)?;
        self.as_read = as_read;
        let first = self.first_puzzle(image, &gray, times)?;
        if first.as_ref().is_some_and(|p| p.solution.is_some()) {
            return Ok(first);
        }
        Ok(self.second_look(image, times)?.or(first))
    }

    /// A second look at a picture not solved at the first: in its darkest colour, then
    /// smoothed of fine stripes. Adds to `times`.
    fn second_look(&mut self, image: &Mat, times: &mut StageTimes) -> Result<Option<Puzzle>> {
        if let Some(puzzle) = self.in_darkest_colour(image, times)? {
            return Ok(Some(puzzle));
        }
        self.without_stripes(image, times)
    }

    /// A second look at a picture not solved in gray, smoothed by a pixel: a screen
    /// photographed shows its pixels' moire, fine stripes over the whole picture 2.5-6 px
    /// apart, straight or curved, which cross the cells as lines would, and the grid check
    /// took the grid for none (or a box of it for the grid). The first search alone, as in
    /// [`PhotoPipeline::in_darkest_colour`]; the puzzle found when [`clearly_solved`]. None for
    /// a grainy picture, smoothed already ([`without_grain`]).
    fn without_stripes(&mut self, image: &Mat, times: &mut StageTimes) -> Result<Option<Puzzle>> {
        let gray = gray_of(image)?;
        if grain_of(&gray)?.is_some() {
            return Ok(None);
        }
        let mut smooth = Mat::default();
        let size = opencv::core::Size::new(0, 0);
        opencv::imgproc::gaussian_blur_def(&gray, &mut smooth, size, STRIPES_SIGMA)?;
        let puzzle = self
            .look_again(&smooth, AsRead::Stands, times)?
            .filter(clearly_solved);
        if puzzle.is_some() {
            tracing::debug!("solved smoothed of fine stripes");
        }
        Ok(puzzle)
    }

    /// The puzzle the first search alone finds in `gray` (a second look at a picture), read
    /// with `as_read`, whatever its verdict. Adds to `times`.
    fn look_again(
        &mut self,
        gray: &Mat,
        as_read: AsRead,
        times: &mut StageTimes,
    ) -> Result<Option<Puzzle>> {
        self.as_read = as_read;
        let start = Instant::now();
        let found = detect::find_grid(gray, Look::Only)?;
        times.detect += start.elapsed();
        let Some(found) = found else {
            return Ok(None);
        };
        Ok(Some(self.read(gray, 0.0, &found, times)?))
    }

    /// The puzzle [`PhotoPipeline::process_gray`] finds in `gray`, the BGR `image` in gray,
    /// told apart by its digits' inks where it reads unsolved ([`PhotoPipeline::apart_by_ink`]);
    /// adds to `times`.
    fn first_puzzle(
        &mut self,
        image: &Mat,
        gray: &Mat,
        times: &mut StageTimes,
    ) -> Result<Option<Puzzle>> {
        let first = self.process_gray(gray, times)?;
        match first.map(|puzzle| self.apart_by_ink(image, puzzle)) {
            Some(puzzle) => Ok(Some(self.checked_in_darkest_colour(image, puzzle, times)?)),
            None => Ok(None),
        }
    }

    /// `puzzle`, solved but not [`clearly_solved`] in the BGR `image`'s gray, checked against
    /// the same grid read in the picture's darkest colour: digits printed in colour show faint
    /// in gray, and faint digits under blur and JPEG read as others. Where the two readings
    /// solve differently, the one [`clearly_solved`] is taken, else neither: a red 9 read as a
    /// 3 in gray solved as read, 0.83 nats ahead of the true puzzle, wrong; in its darkest
    /// colour the true puzzle read 2.0 nats ahead, not clearly: unsure. Adds to `times`.
    fn checked_in_darkest_colour(
        &mut self,
        image: &Mat,
        puzzle: Puzzle,
        times: &mut StageTimes,
    ) -> Result<Puzzle> {
        if puzzle.solution.is_none() || clearly_solved(&puzzle) {
            return Ok(puzzle);
        }
        // The second look must not change how the rest of this picture is read.
        let as_read = self.as_read;
        let again = self.read_in_darkest_colour(image, times);
        self.as_read = as_read;
        let Some(again) = again? else {
            return Ok(puzzle);
        };
        // A picture with two puzzles may show the other one first in its darkest colour.
        let same_grid =
            again.quad.max_corner_distance(&puzzle.quad) < SAME_GRID * puzzle.quad.mean_side();
        if !same_grid || again.solution.is_none() || again.solution == puzzle.solution {
            return Ok(puzzle);
        }
        tracing::debug!(
            margin = ?puzzle.margin,
            corrections = ?puzzle.corrections,
            again = ?again.margin,
            "the picture's darkest colour reads another puzzle"
        );
        if clearly_solved(&again) {
            return Ok(again);
        }
        Ok(Puzzle {
            solution: None,
            status: Status::Unsure,
            margin: None,
            ..puzzle
        })
    }

    /// `puzzle`, found in the BGR `image`, solved with the digits of one ink taken as its
    /// givens and those of another as entries (see [`ink`]): a screenshot of an app's game
    /// with a wrong entry typed in, which reads as clues that break the rules, or that the
    /// decoder solves only by changing a digit read (the givens of one ink solve as read).
    /// Taken when `puzzle` is not solved as read; else `puzzle` as it is.
    fn apart_by_ink(&self, image: &Mat, puzzle: Puzzle) -> Puzzle {
        let solved_as_read = puzzle.solution.is_some() && puzzle.corrections.is_empty();
        if solved_as_read || image.typ() != opencv::core::CV_8UC3 {
            return puzzle;
        }
        // A second look only: what goes wrong in it leaves the puzzle as first read.
        let as_read = self.as_read;
        let judge = |r: &GridReading| judge_picture(r, as_read);
        let (reading, judged) =
            match ink::told_apart(image, &puzzle.quad, puzzle.ink, &puzzle.reading, judge) {
                Ok(Some(apart)) => apart,
                Ok(None) => return puzzle,
                Err(err) => {
                    tracing::debug!(%err, "the digits' inks not measured");
                    return puzzle;
                }
            };
        tracing::debug!(
            givens = judged.clues.filled(),
            "solved with the digits of other inks as entries"
        );
        Puzzle::new(
            puzzle.quad,
            puzzle.bend,
            reading,
            judged,
            puzzle.off_print,
            puzzle.ink,
        )
    }

    /// A second look at a picture not solved in gray, in its darkest colour (a puzzle printed
    /// in coloured ink reads faint in gray): the first search alone, which finds such a grid
    /// once its ink shows dark, so that a picture with no puzzle in it costs little more (all
    /// the searches again took 1.6-1.8 times as long). The puzzle found, when
    /// [`clearly_solved`]; None also when the picture is not [`in_colour`] (its gray would give
    /// the same again). Adds to `times`.
    fn in_darkest_colour(&mut self, image: &Mat, times: &mut StageTimes) -> Result<Option<Puzzle>> {
        let puzzle = self
            .read_in_darkest_colour(image, times)?
            .filter(clearly_solved);
        if puzzle.is_some() {
            tracing::debug!("solved in the picture's darkest colour");
        }
        Ok(puzzle)
    }

    /// The puzzle the first search alone finds in the BGR `image`'s darkest colour, whatever
    /// its verdict; None also when the picture is not [`in_colour`]. Adds to `times`.
    fn read_in_darkest_colour(
        &mut self,
        image: &Mat,
        times: &mut StageTimes,
    ) -> Result<Option<Puzzle>> {
        if image.channels() < 3 {
            return Ok(None);
        }
        let darkest = darkest_of(image)?;
        if !in_colour(&gray_of(image)?, &darkest)? {
            return Ok(None);
        }
        let (gray, as_read) = without_grain(darkest)?;
        if too_dark_to_read(&gray)? {
            return Ok(None);
        }
        self.look_again(&gray, as_read, times)
    }

    /// Finds and solves every puzzle in a BGR picture (a page of a puzzle book, a newspaper's
    /// two levels side by side): the first as [`PhotoPipeline::process`] finds it, then the
    /// others, each searched for with the ones found covered over. After the first, a grid is
    /// kept only when solved and not printed full: what is left of a page once its puzzle is
    /// covered is searched too, and there a grid cut by the picture's edge (yesterday's
    /// solution, a calendar) reads as no puzzle, and yesterday's solution printed whole has
    /// nothing to fill in. The solved ones come first, each in the order found (the largest
    /// first, as a rule). `times` is set to the time per stage over all searches.
    pub fn process_all(&mut self, image: &Mat, times: &mut StageTimes) -> Result<Vec<Puzzle>> {
        *times = StageTimes::default();
        let first = self.all_in(image, times)?;
        if first.first().is_some_and(|p| p.solution.is_some()) {
            return Ok(first);
        }
        Ok(match self.second_look(image, times)? {
            Some(again) => vec![again],
            None => first,
        })
    }

    /// [`PhotoPipeline::process_all`] in the picture's brightness; adds to `times`.
    fn all_in(&mut self, image: &Mat, times: &mut StageTimes) -> Result<Vec<Puzzle>> {
        let (mut rest, as_read) = without_grain(gray_of(image)?)?;
        self.as_read = as_read;
        let mut found: Vec<Puzzle> = Vec::new();
        while found.len() < MOST_PUZZLES {
            let mut these = StageTimes::default();
            // Whatever goes wrong looking for more keeps the puzzles found.
            let next = match found.first() {
                None => self.first_puzzle(image, &rest, &mut these)?,
                Some(first) => self
                    .process_more(&rest, first, &mut these)
                    .inspect_err(|err| tracing::warn!(%err, "looking for another puzzle"))
                    .unwrap_or(None),
            };
            times.add(&these);
            let Some(next) = next else { break };
            if found
                .iter()
                .any(|p| detect::overlapping(&p.quad, &next.quad))
            {
                tracing::debug!(quad = ?next.quad, "found again over a puzzle covered: no more");
                break;
            }
            let covered = detect::cover(&mut rest, &next.quad)
                .inspect_err(|err| tracing::warn!(%err, "covering a puzzle found"));
            if found.is_empty() || next.to_fill_in() {
                found.push(next);
            } else {
                tracing::debug!(quad = ?next.quad, status = ?next.status, "another grid, no puzzle");
            }
            if covered.is_err() {
                break;
            }
        }
        // A solved puzzle first: the largest grid found may be one that reads as no puzzle.
        found.sort_by_key(|p| !p.to_fill_in());
        Ok(found)
    }

    /// The next puzzle of a picture in which `first` was found, `gray` with those found
    /// covered: searched once, at the working scale, printed in the same ink as the first; and
    /// when the first is small in the picture (a newspaper page photographed whole) and that
    /// finds no puzzle to fill in, also by the finest search, taken when solved.
    fn process_more(
        &mut self,
        gray: &Mat,
        first: &Puzzle,
        times: &mut StageTimes,
    ) -> Result<Option<Puzzle>> {
        let ink = first.ink;
        let next = self.found_and_read(gray, 0.0, times, |gray| {
            detect::find_large_grid(gray, ink, Look::Only)
        })?;
        let shorter = gray.cols().min(gray.rows()) as f64;
        let small = first.quad.mean_side() < SMALL_IN_THE_PICTURE * shorter;
        if !small || next.as_ref().is_some_and(Puzzle::to_fill_in) {
            return Ok(next);
        }
        // What the working scale found may be the paper around a small puzzle.
        Ok(self.process_smallest(gray, 0.0, times)?.or(next))
    }

    /// The grid `search` finds in `gray` (laid in a `margin`), read; the search's time counted
    /// as detection.
    fn found_and_read(
        &mut self,
        gray: &Mat,
        margin: f64,
        times: &mut StageTimes,
        search: impl FnOnce(&Mat) -> Result<Option<Detection>>,
    ) -> Result<Option<Puzzle>> {
        let start = Instant::now();
        let found = search(gray)?;
        times.detect += start.elapsed();
        found
            .map(|found| self.read(gray, margin, &found, times))
            .transpose()
    }

    /// [`PhotoPipeline::process`] on the picture in gray; adds to `times`.
    fn process_gray(&mut self, gray: &Mat, times: &mut StageTimes) -> Result<Option<Puzzle>> {
        if too_dark_to_read(gray)? {
            return Err(Error::TooDark);
        }
        let start = Instant::now();
        // A grid touching the picture's edge may only be found with paper laid around it.
        let picture = gray;
        let padded;
        let (gray, margin, detection) = match detect::find_grid(gray, Look::Only)? {
            Some(found) => (gray, 0.0, Some(found)),
            None => {
                let margin;
                (padded, margin) = with_margin(gray)?;
                let found = detect::find_grid(&padded, Look::Only)?;
                (&padded, margin, found)
            }
        };
        times.detect += start.elapsed();
        let Some(detection) = detection else {
            if let Some(found) = self.process_smallest(gray, margin, times)? {
                return Ok(Some(found));
            }
            if let Some(found) = self.process_small_card(gray, margin, times)? {
                return Ok(Some(found));
            }
            return self.process_picture_filling(picture, times);
        };
        let puzzle = self.read(gray, margin, &detection, times)?;
        if puzzle.drawn() {
            return Ok(Some(puzzle));
        }
        // What the first search outlined does not add up to a puzzle, or only with its cells
        // beside the printed ones. In a large picture it may be the paper around a puzzle too
        // small for that search to see its cell lines (a puzzle held far away: a page's edge
        // closed into a quad by the dilation passed the grid check at 0.32, or outlined with a
        // corner 1.9 cells out, the lines followed from there putting it 0.6 of a cell out);
        // the finer search may find the grid itself. Or it is an app's grid with no printed
        // border, its cells' lines taken for a grid's in another shape (a box and a half of the
        // tiles outlined by their pale lines), perhaps small in the picture (a screenshot laid
        // on a page: searched in windows of it). A puzzle found elsewhere replaces one solved
        // off the print only when drawn, its outline framing a grid more clearly: one outlined
        // less clearly, with a corner washed out by light, was drawn there 0.32 of a cell off,
        // where the print check could not see the printed lines.
        let searches: [&Search; 3] = [
            &|gray| detect::find_small_grid(gray, Look::Only),
            &detect::find_borderless_grid,
            &detect::find_small_borderless_grid,
        ];
        for search in searches {
            let start = Instant::now();
            let elsewhere = search(gray)?.filter(|found| elsewhere(found, &detection.quad));
            times.detect += start.elapsed();
            if let Some(found) = elsewhere {
                let clearer = found.score > detection.score;
                let again = self.read(gray, margin, &found, times)?;
                let better = match puzzle.solution {
                    None => again.solution.is_some(),
                    Some(_) => again.drawn() && clearer,
                };
                if better {
                    return Ok(Some(again));
                }
            }
        }
        if puzzle.solution.is_some() {
            return Ok(Some(puzzle));
        }
        // Or the firm ink outlined the grid short (see `detect::find_faint_grid`), where the
        // faint ink closes the outline around it all.
        let start = Instant::now();
        let faint =
            detect::find_faint_grid(gray)?.filter(|found| elsewhere(found, &detection.quad));
        times.detect += start.elapsed();
        if let Some(found) = faint {
            let again = self.read(gray, margin, &found, times)?;
            if again.solution.is_some() {
                tracing::debug!("solved in the outline of the fainter ink");
                return Ok(Some(again));
            }
        }
        // Or the grid fills the picture, and what was found is a part of it (a box, with
        // its cells' lines taken for a grid's).
        if let Some(filling) = self.process_picture_filling(picture, times)? {
            return Ok(Some(filling));
        }
        let smallest = self.process_smallest(gray, margin, times)?;
        // A reading with one solution, held back as unsure, is a Sudoku's all the same.
        if smallest.is_none()
            && puzzle.status != Status::Unsure
            && !detect::lattice_shows(gray, &detection.quad)?
        {
            // What reads as no puzzle and shows no evenly spaced lines inside is no grid: small
            // outlines in a newspaper's text passed the grid check and read as `invalid`.
            tracing::debug!(quad = ?detection.quad, status = ?puzzle.status, "no lattice: no grid");
            return Ok(None);
        }
        Ok(Some(smallest.unwrap_or(puzzle)))
    }

    /// The puzzle found by the third, finest search of a large picture
    /// ([`detect::find_smallest_grid`]), when the others found none, or none that adds up, if
    /// it is solved and not printed full: outlines this small are many in a large picture (a
    /// table, a calendar, yesterday's solution), and one that reads as no puzzle is none.
    /// `gray` is laid in a `margin`.
    fn process_smallest(
        &mut self,
        gray: &Mat,
        margin: f64,
        times: &mut StageTimes,
    ) -> Result<Option<Puzzle>> {
        let found = self.found_and_read(gray, margin, times, detect::find_smallest_grid)?;
        Ok(found.filter(Puzzle::to_fill_in))
    }

    /// The puzzle on an app's grid with no border line small in the picture
    /// ([`detect::find_small_borderless_grid`]), searched last when nothing else was found, if
    /// it is solved. `gray` is laid in a `margin`.
    fn process_small_card(
        &mut self,
        gray: &Mat,
        margin: f64,
        times: &mut StageTimes,
    ) -> Result<Option<Puzzle>> {
        let found = self.found_and_read(gray, margin, times, detect::find_small_borderless_grid)?;
        Ok(found.filter(|puzzle| puzzle.solution.is_some()))
    }

    /// The puzzle on a grid filling the picture to its edges, outlined by the picture itself
    /// ([`detect::find_picture_filling_grid`]: a screenshot cropped inside the grid's border),
    /// searched when nothing else found was solved: if it is solved, or holds as many digits as a
    /// Sudoku's clues at least (a game in progress with an entry typed wrong reads invalid, and
    /// may be solved from its givens, see [`PhotoPipeline::apart_by_ink`]).
    fn process_picture_filling(
        &mut self,
        gray: &Mat,
        times: &mut StageTimes,
    ) -> Result<Option<Puzzle>> {
        let found = self.found_and_read(gray, 0.0, times, detect::find_picture_filling_grid)?;
        Ok(found.filter(|puzzle| {
            puzzle.solution.is_some() || puzzle.clues.filled() >= ink::FEWEST_CLUES
        }))
    }

    /// Reads and judges the grid `detection` found in `gray`, laid in a `margin`.
    fn read(
        &mut self,
        gray: &Mat,
        margin: f64,
        detection: &Detection,
        times: &mut StageTimes,
    ) -> Result<Puzzle> {
        tracing::debug!(quad = ?detection.quad, score = detection.score, "grid found");
        let mut negative = Mat::default();
        let gray = detection.ink.as_dark(gray, &mut negative)?;
        let mut steps = RecognizeTimes::default();
        let Recognition {
            quad,
            reading,
            bend,
            lattice,
            ..
        } = recognize(
            &mut self.reader,
            gray,
            &detection.quad,
            detection.edge,
            Follow::AgainIfMoved,
            Orientation::Unknown,
            &mut steps,
        )?;
        times.rectify += steps.rectify;
        times.read += steps.read;
        let start = Instant::now();
        let judged = judge_picture(&reading, self.as_read);
        times.solve += start.elapsed();
        let lines = Lines::from(detection.edge);
        let (quad, bend, off_print) = placed(gray, margin, lines, quad, bend, lattice.as_ref())?;
        if off_print && judged.solution.is_some() {
            tracing::debug!("the cells would be drawn beside the printed lines: not drawn");
        }
        let quad = quad.translated(-margin, -margin);
        Ok(Puzzle::new(
            quad,
            bend,
            reading,
            judged,
            off_print,
            detection.ink,
        ))
    }
}

/// Whether `found` lies elsewhere than `quad`: a corner half a cell or more away.
fn elsewhere(found: &Detection, quad: &Quad) -> bool {
    let cell = found.quad.mean_side() / 9.0;
    found.quad.max_corner_distance(quad) > 0.5 * cell
}

/// A search for a grid in a picture laid in a margin (see [`detect`]).
type Search = dyn Fn(&Mat) -> Result<Option<Detection>>;

/// A puzzle this small (its side, as a share of the picture's shorter side) was likely found
/// by a finer search than the working scale's, which takes outlines down to 0.12 of it: the
/// other puzzles of its page are looked for the same way.
const SMALL_IN_THE_PICTURE: f64 = 0.15;

/// The most puzzles [`PhotoPipeline::process_all`] looks for in one picture: a book's double
/// page holds up to eight.
const MOST_PUZZLES: usize = 8;

/// Where the cells are drawn, and whether that is off the print even so: by `quad` and `bend`,
/// unless they lie beside the printed lines in `gray` and the crossings the lines were followed
/// to (`lattice`) do not. The bend leaves those aside where the outline kept a corner given on
/// a border not seen: on a page curling into a book's gutter, the corner found by the outline
/// search and the corners' homography put a row a third of a cell off, while the lines
/// followed lay within a tenth. Drawn along the lines followed, every box must show the printed
/// lines where they are drawn ([`drawn_on_the_print`]): lines followed on from an outline with
/// a corner cut a cell short (a marker lying across the border) put a box half a cell off,
/// which shows nothing either way. A grid cut by the picture's edge ([`cut_by_the_edge`]) is
/// drawn along the lines followed, or not at all. A grid drawn bent must also show every box's
/// printed lines where they are drawn: a page bowed half a cell across, its border bulging
/// beyond the lines' reach, was drawn bent with a side's boxes half a cell off, where the check
/// for lines clearly beside the drawn ones sees none (0.53 and 0.59 of a cell: `cargo bench
/// --bench curved -- --bowed-stills 0.5`). So must a grid drawn by corners the lines followed
/// dispute (their outer crossings more than a tenth of a cell from them, so no bend is taken):
/// a page curling into a gutter at its right side had the lines followed put its bottom-right
/// corner a fifth of a cell below the corners', and drawn flat by those, the rows beside the
/// gutter 0.2-0.3 of a cell high, which is not clearly off (session 54,
/// `photos::a_page_curling_into_a_books_gutter...`). Only `lines` are looked for.
fn placed(
    gray: &Mat,
    margin: f64,
    lines: Lines,
    quad: Quad,
    bend: Option<Bend>,
    lattice: Option<&Lattice>,
) -> Result<(Quad, Option<Bend>, bool)> {
    let cut = lattice.is_some_and(|l| cut_by_the_edge(gray, margin, &quad, &l.corners()));
    let disputed = lattice.is_some_and(|l| !bend::corners_agree(l, &quad));
    if !cut
        && !drawn_off(gray, &quad, bend.as_ref(), lines)?
        && ((bend.is_none() && !disputed) || drawn_on(gray, &quad, bend.as_ref(), lines)?)
    {
        return Ok((quad, bend, false));
    }
    if let Some(lattice) = lattice {
        let along = lattice.corners();
        let along_bend = Bend::fit(lattice, &along);
        if !drawn_off(gray, &along, along_bend.as_ref(), lines)?
            && drawn_on(gray, &along, along_bend.as_ref(), lines)?
        {
            tracing::debug!(cut, "drawn along the lines followed, not by the outline");
            return Ok((along, along_bend, false));
        }
    }
    Ok((quad, bend, true))
}

/// Whether the grid is cut by the picture's edge (`gray` is the picture laid in a `margin`):
/// the lines followed inside it, a cell apart, put a corner beyond the edge by more than
/// [`BEYOND_THE_EDGE`] of a cell, and the outline (`quad`) lies elsewhere ([`ELSEWHERE`]).
/// Drawn by the outline, the cut column was squeezed into what is left of it (photos cut 0.3-0.6
/// of a cell inside the border: a corner 0.3-0.5 of a cell off); so it was where the outline
/// kept only one corner of the cut side inside, the other being the lines' (0.34 off).
fn cut_by_the_edge(gray: &Mat, margin: f64, quad: &Quad, along: &Quad) -> bool {
    let beyond_each = beyond_the_edges(gray, margin);
    let beyond = |p| beyond_each(p).into_iter().fold(f64::MIN, f64::max);
    let cell = along.mean_side() / 9.0;
    along
        .0
        .iter()
        .any(|&followed| beyond(followed) > BEYOND_THE_EDGE * cell)
        && quad.max_corner_distance(along) > ELSEWHERE * cell
}

/// See [`cut_by_the_edge`]: how far beyond the edge (cells) the lines must put a corner, and
/// how far from them the outline must lie somewhere.
const BEYOND_THE_EDGE: f64 = 0.15;
const ELSEWHERE: f64 = 0.1;

/// Whether the cells, drawn at `quad` along `bend`, would lie clearly beside the printed lines
/// in `gray` (ink dark), of `lines`.
fn drawn_off(gray: &Mat, quad: &Quad, bend: Option<&Bend>, lines: Lines) -> Result<bool> {
    Ok(match overlay::drawn_lattice(quad, bend) {
        Some(lattice) => drawn_off_the_print(&GrayView::new(gray)?, &lattice, lines),
        None => false,
    })
}

/// Whether every box of the cells drawn at `quad` along `bend` shows the printed lines where
/// they are drawn (see [`drawn_on_the_print`]), of `lines`.
fn drawn_on(gray: &Mat, quad: &Quad, bend: Option<&Bend>, lines: Lines) -> Result<bool> {
    Ok(match overlay::drawn_lattice(quad, bend) {
        Some(lattice) => drawn_on_the_print(&GrayView::new(gray)?, &lattice, lines),
        None => false,
    })
}

/// Margin laid around a picture before it is searched, as a share of its longer side.
const EDGE_MARGIN: f64 = 0.03;

/// `gray` inside a margin of its own edge's typical level, and the margin's width: a grid that
/// touches the picture's edge, or whose border is cut by it, then has paper around it as
/// detection and line following expect (the outer line is found where it is, not taken from
/// a smear of the edge's pixels). Corners found in it are `margin` pixels down and right.
fn with_margin(gray: &Mat) -> Result<(Mat, f64)> {
    let view = GrayView::new(gray)?;
    let (w, h) = (view.width, view.height);
    let mut edge: Vec<u8> = (0..w)
        .flat_map(|x| [view.get(x, 0), view.get(x, h - 1)])
        .chain((0..h).flat_map(|y| [view.get(0, y), view.get(w - 1, y)]))
        .collect();
    let middle = edge.len() / 2;
    let level = *edge.select_nth_unstable(middle).1;
    let margin = (EDGE_MARGIN * w.max(h) as f64).round() as i32;
    let mut out = Mat::default();
    opencv::core::copy_make_border(
        gray,
        &mut out,
        margin,
        margin,
        margin,
        margin,
        opencv::core::BORDER_CONSTANT,
        opencv::core::Scalar::all(level as f64),
    )?;
    Ok((out, margin as f64))
}

/// Draws the result on `image`: the missing digits when solved and the cells lie on the print,
/// else a red outline where the puzzle was found.
pub fn annotate(image: &mut Mat, puzzle: &Puzzle) -> Result<()> {
    match puzzle.solution.filter(|_| !puzzle.off_print) {
        Some(solution) => {
            let filled = puzzle.clues.merged(&puzzle.entries);
            let mask = overlay::render_digits(&filled, &solution)?;
            overlay::draw(
                image,
                &mask,
                &puzzle.quad,
                puzzle.bend.as_ref(),
                overlay::SOLUTION_COLOUR,
            )?;
            let wrong = puzzle.wrong_entries();
            if !wrong.is_empty() {
                let marks = overlay::render_marks(&wrong)?;
                overlay::draw(
                    image,
                    &marks,
                    &puzzle.quad,
                    puzzle.bend.as_ref(),
                    overlay::WRONG_COLOUR,
                )?;
            }
            Ok(())
        }
        None => {
            let thickness = (image.cols().max(image.rows()) / 400).max(2);
            overlay::outline(image, &puzzle.quad, [40, 40, 230], thickness)
        }
    }
}

/// One line of `sudoku-ar image --json`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum PhotoReport {
    Read {
        file: String,
        /// The first puzzle found (the largest, as a rule; a solved one before one that is not).
        puzzle: Option<Box<PuzzleReport>>,
        /// Any other puzzles in the picture (a book's page); left out when there are none.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        others: Vec<PuzzleReport>,
        /// Where the photo was written with its puzzles drawn in (`image --output`), if it was.
        #[serde(skip_serializing_if = "Option::is_none")]
        written: Option<String>,
    },
    Failed {
        file: String,
        error: String,
    },
}

/// The `puzzle` object of the JSON output.
#[derive(Debug, Serialize)]
pub struct PuzzleReport {
    pub corners: [[f64; 2]; 4],
    pub clues: String,
    /// 1 where a handwritten digit was read.
    pub handwritten: String,
    /// The handwritten digits (0 elsewhere).
    pub entries: String,
    /// Handwritten entries that contradict the solution, as cell indices 0-80.
    pub wrong_entries: Vec<usize>,
    pub solution: Option<String>,
    pub status: Status,
    /// Cells changed from their first reading to make the puzzle valid and uniquely solvable.
    pub corrected: Vec<Correction>,
    /// When solved: by how much (nats of log-likelihood) the next puzzle with one solution near
    /// the reading is less likely; at least this much.
    pub margin: Option<f32>,
    /// Cells beside a grid line that something lies over (a finger, glare), as cell indices
    /// 0-80: read less surely.
    pub hidden: Vec<usize>,
    /// Whether the cells, as they would be drawn, lie on the printed lines: false on paper
    /// curved more than they could be followed, and the annotated photo then shows no digits.
    pub on_print: bool,
}

impl From<&Puzzle> for PuzzleReport {
    fn from(puzzle: &Puzzle) -> Self {
        let round = |v: f64| (v * 100.0).round() / 100.0;
        PuzzleReport {
            corners: puzzle.quad.0.map(|[x, y]| [round(x), round(y)]),
            clues: puzzle.clues.to_string(),
            handwritten: puzzle
                .entries
                .0
                .iter()
                .map(|&d| if d != 0 { '1' } else { '0' })
                .collect(),
            entries: puzzle.entries.to_string(),
            wrong_entries: puzzle.wrong_entries(),
            solution: puzzle.solution.map(|s| s.to_string()),
            status: puzzle.status,
            corrected: puzzle.corrections.clone(),
            margin: puzzle.margin.map(|m| (m * 100.0).round() / 100.0),
            hidden: (0..81).filter(|&i| puzzle.reading.0[i].hidden).collect(),
            on_print: !puzzle.off_print,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognize::read::CellReading;

    /// A 640x480 page: paper with a grid of dark lines, and Gaussian noise of `noise` (sigma,
    /// gray levels) smoothed by a Gaussian of `blotch` pixels (0: not), as blotches.
    fn page(noise: f64, blotch: f64) -> Mat {
        use opencv::core::{self, Scalar};
        use opencv::imgproc;
        let mut page =
            Mat::new_rows_cols_with_default(480, 640, core::CV_8UC1, Scalar::all(200.0)).unwrap();
        let point = |(x, y)| core::Point::new(x, y);
        for k in 0..10 {
            let at = 60 + 40 * k;
            for (from, to) in [((at + 60, 60), (at + 60, 420)), ((120, at), (480, at))] {
                let ink = Scalar::all(40.0);
                imgproc::line(
                    &mut page,
                    point(from),
                    point(to),
                    ink,
                    2,
                    imgproc::LINE_8,
                    0,
                )
                .unwrap();
            }
        }
        let mut grain =
            Mat::new_rows_cols_with_default(480, 640, core::CV_32FC1, Scalar::all(0.0)).unwrap();
        core::set_rng_seed(7).unwrap();
        core::randn(&mut grain, &Scalar::all(0.0), &Scalar::all(noise)).unwrap();
        if blotch > 0.0 {
            let mut blotches = Mat::default();
            imgproc::gaussian_blur_def(&grain, &mut blotches, core::Size::new(0, 0), blotch)
                .unwrap();
            grain = blotches;
        }
        let mut grainy = Mat::default();
        core::add(&page, &grain, &mut grainy, &core::no_array(), core::CV_8UC1).unwrap();
        grainy
    }

    #[test]
    fn grain_is_told_by_its_scale() {
        assert_eq!(grain_of(&page(0.0, 0.0)).unwrap(), None);
        assert_eq!(grain_of(&page(3.0, 0.0)).unwrap(), None);
        assert_eq!(grain_of(&page(30.0, 0.0)).unwrap(), Some(Grain::Fine));
        // Grain in blotches (as a rough JPEG leaves it) shows at half size (measured 2.5 at
        // full size, 10 at half).
        assert_eq!(grain_of(&page(100.0, 1.0)).unwrap(), Some(Grain::Coarse));
    }

    #[test]
    fn wrong_entries_are_those_that_contradict_the_solution() {
        let clues: Grid =
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
                .parse()
                .unwrap();
        let solution = crate::solve::solve(&clues).unwrap();
        let mut entries = Grid::EMPTY;
        entries.0[0] = solution.0[0]; // right
        entries.0[1] = solution.0[1] % 9 + 1; // wrong
        let puzzle = Puzzle {
            quad: Quad::UNIT,
            bend: None,
            reading: GridReading(Vec::new()),
            clues,
            entries,
            solution: Some(solution),
            status: Status::Solved,
            corrections: Vec::new(),
            margin: None,
            off_print: false,
            ink: Ink::Dark,
        };
        assert_eq!(puzzle.wrong_entries(), vec![1]);

        // The same entry read unsurely, with the right digit a close second, is not accused.
        let mut probabilities = [0.0; crate::recognize::read::CLASSES];
        probabilities[entries.0[1] as usize] = 0.6;
        probabilities[solution.0[1] as usize] = 0.4;
        let doubtful = CellReading {
            digit: entries.0[1],
            handwritten: true,
            confidence: 0.6,
            probabilities,
            as_clue: probabilities,
            hidden: false,
            smeared: false,
            under: false,
            entry_by_ink: false,
        };
        let mut cells = vec![doubtful; 81];
        cells[0].digit = solution.0[0];
        let puzzle = Puzzle {
            reading: GridReading(cells),
            ..puzzle
        };
        assert_eq!(puzzle.wrong_entries(), Vec::<usize>::new());
    }

    #[test]
    fn a_digit_read_surely_but_neither_clearly_printed_nor_written_is_an_entry() {
        use crate::recognize::read::CLASSES;
        let cell = |digit: u8, confidence: f32, printed_share: f32| {
            let mut probabilities = [0.0; CLASSES];
            probabilities[digit as usize] = confidence;
            probabilities[0] += 1.0 - confidence;
            // As a clue: the printed part of the digit, the rest "no clue".
            let mut as_clue = [0.0; CLASSES];
            as_clue[digit as usize] = confidence * printed_share;
            as_clue[0] = 1.0 - as_clue[digit as usize];
            CellReading {
                digit,
                handwritten: false,
                confidence,
                probabilities,
                as_clue,
                hidden: false,
                smeared: false,
                under: false,
                entry_by_ink: false,
            }
        };
        let mut cells = vec![cell(0, 1.0, 1.0); 81];
        cells[5] = cell(7, 0.96, 0.5); // a thin written 7, style unsettled: left out of the clues
        cells[6] = cell(3, 0.6, 0.5); // a smudge that may be a 3: no entry
        cells[7] = cell(4, 0.99, 1.0); // a printed clue
        let mut clues = Grid::EMPTY;
        clues.0[7] = 4;
        let judged = Judged {
            clues,
            solution: None,
            status: Status::Multiple,
            corrections: Vec::new(),
            margin: None,
        };
        let puzzle = Puzzle::new(
            Quad::UNIT,
            None,
            GridReading(cells),
            judged,
            false,
            Ink::Dark,
        );
        let entries: Vec<(usize, u8)> = (0..81)
            .filter(|&i| puzzle.entries.0[i] != 0)
            .map(|i| (i, puzzle.entries.0[i]))
            .collect();
        assert_eq!(entries, vec![(5, 7)]);
    }

    #[test]
    fn json_report_has_the_documented_shape() {
        let report = PhotoReport::Failed {
            file: "a.jpg".into(),
            error: "bad".into(),
        };
        assert_eq!(
            serde_json::to_string(&report).unwrap(),
            r#"{"file":"a.jpg","error":"bad"}"#
        );
        let report = PhotoReport::Read {
            file: "b.jpg".into(),
            puzzle: None,
            others: Vec::new(),
            written: None,
        };
        assert_eq!(
            serde_json::to_string(&report).unwrap(),
            r#"{"file":"b.jpg","puzzle":null}"#
        );
    }
}
