//! A grid followed from frame to frame by the vision stage ([`super::vision`]): where it is
//! (flow from the last frame, anchored to the printed grid), what is known of its puzzle (being
//! read, or known), and whether its solution may be drawn where it is on this frame (held to
//! the print, whole or merely inside the frame, not moving too fast to be drawn well).

use std::sync::Arc;

use opencv::core::Mat;

use crate::bend::{Bend, Lattice};
use crate::error::Result;
use crate::geometry::{Homography, Quad, distance};
use crate::grid::Grid;
use crate::on_print::{Lines, PrintCheck};
use crate::raster::GrayView;
use crate::recognize::Recognition;
use crate::recognize::detect::{Detection, Edge, Ink};
use crate::recognize::lines;
use crate::recognize::read::GridReading;
use crate::recognize::verdict::{Evidence, Judged, WrongMarks, judge_frames};
use crate::video::anchor::Anchor;
use crate::video::known::{Known, contradicts, replaced};
use crate::video::track::{self, TrackFrame};
use crate::video::vision::{LiveState, PuzzleView};

/// A re-reading puts the grid within this many cells of the track: the same place.
const CONFIRM_CELLS: f64 = 0.15;
/// And every crossing of its lines, bent as it read them, within this many cells of where the
/// track draws it (see `Track::cells_agree`). At 0.2, a real curved page drawn by its corners
/// under a thumb, its digits inside their cells, was held back on 14% of its frames
/// (`thumb:02_10_honor_view_10_0`, hand-held bench set 1). At 0.3, readings of pages bowed by
/// 0.36-0.45 of a cell under a finger, their crossings 0.29 off the drawn ones, confirmed cells
/// drawn 0.33-0.44 of a cell off (`cargo bench --bench curved`; 0.25 leaves both bench sets as
/// they were).
const CELLS_AGREE: f64 = 0.25;
/// Lines that move the grid further than this many cells at a corner must show it on the print
/// before it is drawn again (see `Track::take_lines`).
const MOVED_FAR_CELLS: f64 = 0.3;
/// Lines within this many cells of a grid just found are taken over its outline even beside
/// something over the grid (see `Track::take_lines`).
const OUTLINE_OFF_CELLS: f64 = 0.3;
/// Readings in a row whose lines, followed beside something over the grid, disagree with the
/// track but put the grid in the same place on the paper every time, after which the lines are
/// taken: it is the track that is off (an outline found at a smeared paper edge, `image36`,
/// held 3-4% off by its own anchor and never drawn). Lines pulled onto strokes beside a glare
/// spot or a finger move with it over the paper and do not add up.
const OVERRULE_AFTER: u32 = 8;
/// How close (share of a cell) the lines of two such readings must put the grid on the paper.
const SAME_PLACE_CELLS: f64 = 0.1;
/// A grid partly out of view that moves more than this (share of its side per frame) is not
/// drawn.
const LEAVING_MOTION: f64 = 0.05;
/// A due re-check waits while the grid moves more than this (share of its side per frame):
/// lines smeared by motion are followed off the printed ones, and the track would be reset
/// onto them (a page coming back into view was drawn 3-5% off until the next check).
pub(super) const STEADY_FOR_CHECK: f64 = 0.02;
/// No overlay while the grid moves more than this (share of its side per frame), also in full
/// view: the page is a smear then, and the flow lags the paper (pages swept out of view in the
/// 30 s pans, up to 16% a frame, were drawn 2.0-2.3% off). 10% would also blank the quicker
/// moves of the 8 s clips (2% of their frames), which are drawn within 1.5%.
const BLUR_MOTION: f64 = 0.12;
/// No overlay on a frame where the grid moves more than `FAST_MOTION` (share of its side per
/// frame) and the anchor moved the tracked grid by more than `DISPUTED_CORRECTION` of its side:
/// on a fast frame the anchor's sharp picture, aligned to the smeared frame, now and then puts
/// one corner 5-7 px off (2.0-2.1% of the side at 10-12% a frame, single frames of the 8 s
/// clips' quick move), while on most such frames it is what keeps the grid on the paper (keeping
/// the tracked grid on every fast frame drew up to 2.7% off). Flow and anchor disagreeing that
/// much on a fast frame means one of them is off, and which is not known. A steady frame's
/// correction is the anchor doing its work (drift taken out) and is drawn.
const FAST_MOTION: f64 = 0.05;
const DISPUTED_CORRECTION: f64 = 0.01;

pub(super) enum Identity {
    /// Boxed: the summed readings are large, a known puzzle is a pointer.
    Reading(Box<Evidence>),
    Known(Arc<Known>),
}

pub(super) struct Track {
    pub(super) image_from_grid: Homography,
    /// How the grid moved from the frame before last to the last: this frame's first guess.
    pub(super) motion: Option<Homography>,
    pub(super) identity: Identity,
    /// Whether the grid's orientation was settled by a sure reading.
    pub(super) oriented: bool,
    /// Frames since the puzzle was last read again (known) or the grid searched for again
    /// (being read).
    pub(super) since_check: u32,
    /// Whether two readings have put the grid in the same place since it was recognised from
    /// one reading as a puzzle seen before; nothing is drawn until they have.
    pub(super) confirmed: bool,
    /// Whether a reading of the known puzzle has surely shown another digit where it has a
    /// clue (see [`contradicts`]): held back until a reading confirms it, withdrawn if another
    /// one says so too.
    pub(super) doubted: bool,
    /// The grid as first seen, that every frame is aligned to.
    pub(super) anchor: Option<Anchor>,
    /// Frames since the track was last aligned to the anchor.
    pub(super) unanchored_for: u32,
    /// How far the anchor moved the tracked grid on this frame (share of its side): flow from
    /// the last frame and the anchor disagree when one of them is off.
    pub(super) correction: f64,
    /// How fast the grid moved (share of its side per frame) on the frame the anchor was last
    /// set on, infinite for a frame smeared by the camera's motion: lines followed on a moving
    /// frame, and so the anchor, may lie a little off. The grid is read again, and the anchor
    /// set again, once it moves at most half as fast (see [`steadier_than_anchor`]).
    pub(super) anchor_motion: f64,
    /// Whether the grid is printed dark on light or light on dark (a dark-mode screen).
    pub(super) ink: Ink,
    /// Whether the grid is printed in coloured ink and read in the frame's darkest colour
    /// (see `colour::settle_coloured_ink`); None until its first reading settles it.
    pub(super) coloured_ink: Option<bool>,
    /// What outlines the grid: its printed border (on paper or a screen), or an app's card with
    /// none.
    pub(super) edge: Edge,
    /// How clearly the outline it was found by framed a grid (`Detection::score`).
    pub(super) found_score: f64,
    /// Whether the track has been on the printed lines since the grid was found: before, it is
    /// where the outline search put it, which a thumb or a glare spot over the border pulls off.
    pub(super) on_lines: bool,
    /// Where the last readings' lines, doubtful beside something over the grid, put the grid
    /// in the track's own coordinates, and how many readings in a row did so.
    pub(super) disputed: Option<(Quad, u32)>,
    /// While an unsolved puzzle is read again: what it was judged (unsolvable, multiple).
    pub(super) provisional: Option<LiveState>,
    /// The solution the last reading of an unsolved puzzle gave told apart by its digits' inks
    /// (an app's givens and entries, one entry wrong): taken when the next one gives it too.
    pub(super) apart_solution: Option<Grid>,
    /// While the puzzle is read: the digits every solution of the clues read surely agrees on
    /// (see [`agreed_digits`](crate::recognize::verdict::agreed_digits)), drawn until it is solved.
    pub(super) agreed: Option<Arc<Known>>,
    /// Digits somebody wrote into the grid, as the last reading that showed the puzzle saw them.
    pub(super) entries: Grid,
    /// Entries read surely wrong, in readings in a row (see [`PuzzleView::wrong`]).
    pub(super) wrong: WrongMarks,
    /// Frames in a row the grid has been cut by the frame's edge.
    pub(super) cut_for: u32,
    /// How the printed lines bend between the corners (curved paper), in grid units, as the
    /// last clear reading (nothing over the grid, not smeared) followed them: the paper's curve
    /// travels with it, so each frame draws the cells through its own homography.
    pub(super) bend: Option<Bend>,
    /// Whether the cells drawn lie on the printed lines, looked at over the last frames drawn.
    pub(super) print_check: PrintCheck,
    /// The cells whose printed detail the anchor saw gone on the last frame aligned to it
    /// ([`Anchored::under`](super::anchor::Anchored::under)): a hand lies there.
    pub(super) covered_now: [bool; 81],
    /// Whether the last reading that could tell (lines followed on a sharp frame) put the cells
    /// elsewhere than the track draws them (see [`Track::cells_agree`]).
    pub(super) cells_disputed: bool,
    /// While the grid is read: its recent readings turned (each more plausible than upright,
    /// none taken yet), and which corner of the track's outline they take for the puzzle's
    /// top-left. When they add up to a puzzle, the puzzle's rules say that way is up.
    pub(super) turned_readings: Option<(usize, Box<Evidence>)>,
}

impl Track {
    /// A track of a grid just found, to be read; None if its corners make no homography.
    pub(super) fn start(current: &TrackFrame, found: &Detection) -> Result<Option<Track>> {
        let Some(image_from_grid) = Homography::from_quads(&Quad::UNIT, &found.quad) else {
            return Ok(None);
        };
        tracing::debug!(score = found.score, "found a grid");
        Ok(Some(Track {
            image_from_grid,
            motion: None,
            identity: Identity::Reading(Box::new(Evidence::new())),
            oriented: false,
            since_check: 0,
            confirmed: false,
            doubted: false,
            anchor: Anchor::new(
                current,
                &image_from_grid,
                border_shown(current, &image_from_grid, found.ink),
                (&[false; 81], None),
            )?,
            unanchored_for: 0,
            correction: 0.0,
            anchor_motion: if found.smeared { f64::INFINITY } else { 0.0 },
            ink: found.ink,
            edge: found.edge,
            found_score: found.score,
            on_lines: false,
            disputed: None,
            provisional: None,
            apart_solution: None,
            agreed: None,
            entries: Grid::EMPTY,
            wrong: WrongMarks::NONE,
            cut_for: 0,
            bend: None,
            print_check: PrintCheck::judging(Lines::from(found.edge)),
            covered_now: [false; 81],
            cells_disputed: false,
            turned_readings: None,
            coloured_ink: None,
        }))
    }

    /// The cells something lies over on this frame: `now` (where the anchor sees something
    /// over the paper, [`Anchored::over`](super::anchor::Anchored::over)) and those something
    /// lay over when the anchor was set ([`Anchor::hand`]), but for an anchor set on a reading
    /// smeared by the camera's motion, whose lines were hidden by the smear, not by a hand.
    pub(super) fn under_something(&self, now: &[bool; 81]) -> [bool; 81] {
        let hand = self
            .anchor
            .as_ref()
            .filter(|_| self.anchor_motion.is_finite())
            .map_or(&[false; 81], Anchor::hand);
        std::array::from_fn(|i| now[i] || hand[i])
    }

    /// Whether lines that disagree with the track have, `OVERRULE_AFTER` readings in a row, put
    /// the grid in the same place on the paper (seen from the track); counts this reading.
    fn lines_hold_their_place(&mut self, lines: &Quad) -> bool {
        let Some(grid_from_image) = self.image_from_grid.inverse() else {
            return false;
        };
        let on_paper = Quad(lines.0.map(|p| grid_from_image.apply(p)));
        let same = |q: &Quad| q.max_corner_distance(&on_paper) <= SAME_PLACE_CELLS / 9.0;
        let count = match self.disputed {
            Some((q, n)) if same(&q) => n + 1,
            _ => 1,
        };
        self.disputed = Some((on_paper, count));
        if count >= OVERRULE_AFTER {
            tracing::debug!(
                readings = count,
                "lines that disagree with the track hold their place: taking them"
            );
            self.disputed = None;
            return true;
        }
        false
    }

    /// Moves the track (tracked at `quad`) onto the printed lines of `recognition` where they
    /// can be trusted; says whether they agree with the track, and so may confirm it (its cells
    /// too, see [`Track::cells_agree`]; not a reading across a smear of a grid never yet on its
    /// lines), and whether they are doubtful.
    ///
    /// The printed lines are the absolute truth of where the grid is: where they were followed
    /// (or the grid was turned), the track and its anchor start again from them. Except while
    /// something lies over the grid and they disagree with the track: where a glare spot or a
    /// finger hides a line, it can be followed onto the strokes beside it (a glare spot drifting
    /// over image36's page put the drawn grid 4% of its side off), and a grid just found may be
    /// outlined off. Neither is trusted then: nothing is drawn until a reading's lines agree
    /// with the track again, hold their place long enough to overrule it, or lie on the printed
    /// border clearly more than the track does (see [`on_border_more_clearly`]).
    pub(super) fn take_lines(
        &mut self,
        gray: &Mat,
        current: &TrackFrame,
        quad: &Quad,
        recognition: &Recognition,
    ) -> Result<(bool, bool)> {
        let cell = quad.mean_side() / 9.0;
        // A turned reading names the corners from another one: where the grid is, is compared
        // with the track's corners named the same way.
        let placed = quad.turned_like(&recognition.quad);
        let hidden = recognition.reading.hidden();
        let covered = hidden.contains(&true);
        let lines = self.where_lines_were_seen(recognition, &placed, &hidden);
        let moved = lines.max_corner_distance(&placed) / cell;
        let agrees = moved <= CONFIRM_CELLS;
        let cells_agree = self.cells_agree(quad, recognition);
        tracing::trace!(
            ?quad,
            ?lines,
            on_lines = recognition.on_lines,
            agrees,
            covered,
            "read"
        );
        // A track not yet on the lines is only the outline search's guess, pulled off by the
        // thumb over the border that the lines were followed past: lines near it are the better
        // guess (thumb:image1038 was held back 7 frames, its outline 0.17 cell off).
        let outline_off = !self.on_lines && moved <= OUTLINE_OFF_CELLS;
        // The track's bend, from its corners as it names them (not a turned reading's).
        let bend = self.bend.as_ref().filter(|_| placed == *quad);
        let moved_far = moved > MOVED_FAR_CELLS;
        let doubtful = covered
            && recognition.on_lines
            && !agrees
            && !outline_off
            && !on_border_more_clearly(gray, &lines, &placed, bend, recognition)?
            && !self.lines_hold_their_place(&lines);
        if doubtful {
            tracing::debug!("lines beside something over the grid disagree with the track");
            self.confirmed = false;
            // The track stays where it is, but is named the way the grid was read: the readings
            // it adds up are of the grid that way up (named as before, a blurred frame's turned
            // reading had the solution drawn turned).
            if recognition.turned && self.start_again_at(current, &placed, &hidden)? {
                self.disputed = None;
            }
        } else {
            self.disputed = None;
            let motion = if recognition.reading.smeared() {
                f64::INFINITY
            } else {
                moving(self, quad)
            };
            if (recognition.on_lines || recognition.turned)
                && self.start_again_at(current, &lines, &hidden)?
            {
                self.unanchored_for = 0;
                self.on_lines |= recognition.on_lines;
                self.anchor_motion = motion;
                if !agrees || !cells_agree {
                    // Lines that moved the grid are drawn once the next reading's agree: one
                    // reading's lines can be followed off at a corner (a pencil note beside it
                    // under a steep view put a steady, anchored grid 4.5% off for a frame).
                    self.confirmed = false;
                }
                // Lines that moved the grid half a cell put each drawn line between two printed
                // ones, where the print check sees nothing either way: the grid is drawn again
                // only once its lines show it on. On paper bowed 0.6 of a cell across its rows,
                // one reading's lines put the grid 0.55 of a cell down, the next ones agreed
                // (followed from there), and it was drawn so on 17 frames.
                if moved_far {
                    self.print_check.hold_until_on();
                }
                self.take_bend(recognition, covered, agrees, cells_agree);
            }
        }
        // A grid never yet placed on its printed lines is where the outline search and the flow
        // put it; across a smear, that is only roughly where it is, and a reading that could not
        // follow the lines there agrees with it by construction: it starts no drawing (a page
        // sliding in at 5% of its side a frame was first drawn 4.2% off so).
        let settles = self.confirmed || self.on_lines || !recognition.reading.smeared();
        Ok((agrees && cells_agree && settles, doubtful))
    }

    /// Where `recognition`'s lines put the grid, but for the sides they were not seen along
    /// (most of the cells beside them `hidden`, and something over them on this frame, see
    /// [`Track::covered_now`]), which stay where the track has them (at `placed`, named as the
    /// reading names its corners), once it was placed on printed lines.
    ///
    /// A corner between a side in view and one under a hand is where the reading's lattice,
    /// fitted to the lines it saw, runs on to: on a curved page that is not where the paper
    /// bows to. Writing on `02_10`, the lines along the bowed bottom border put the hidden
    /// bottom-right corner 11 px (0.2 of a cell) along the border past the track, which was
    /// 1.5 px off that way; the corner was taken, crept 4 px more by readings that agreed with
    /// it, and the solution was drawn 3.1-3.4% of the grid's side off for 15 frames.
    fn where_lines_were_seen(
        &self,
        recognition: &Recognition,
        placed: &Quad,
        hidden: &[bool; 81],
    ) -> Quad {
        // Hidden under something the anchor sees over the paper: on paper bowed more than the
        // lines could be followed, the cells along the bowed border are hidden too, and there
        // the reading's corners are the better guess (a page bowed 0.45 of a cell, kept at the
        // track's sides, was drawn with a cell 0.34 of a cell off).
        let over: [bool; 81] = std::array::from_fn(|i| hidden[i] && self.covered_now[i]);
        let unseen = sides_hidden(&over);
        if !self.on_lines || !recognition.on_lines || recognition.turned || !unseen.contains(&true)
        {
            return recognition.quad;
        }
        recognition
            .quad
            .with_sides_of(placed, unseen)
            .filter(Quad::is_convex)
            .unwrap_or(recognition.quad)
    }

    /// Takes the bend of `recognition`, whose lines placed the track.
    ///
    /// Lines followed across a smear, or beside a finger, may bend where the paper does not: the
    /// bend read before stays. Where lines are hidden only beside a few cells (`covered`:
    /// handwriting across a line, the border's ends on bowed paper) and the reading's corners
    /// lie where the track has them (`agrees`), the crossings away from those cells say how the
    /// paper bends, and are taken when no bend was read before, or when this reading's cells
    /// dispute it (not `cells_agree`): on a page bowed half a cell, written over across a box
    /// line in two cells, every reading was "covered" and no bend was taken, the grid withheld
    /// all along as drawn by its corners 0.8 of a cell off its cells; on another, the bend of
    /// one early reading stood 0.27 of a cell from every later one's, and the grid was never
    /// drawn. Beside a finger, such a bend let a grid whose corner the lines had put 0.35 of a
    /// cell off past the print check: none is taken with something broad over the paper.
    fn take_bend(
        &mut self,
        recognition: &Recognition,
        covered: bool,
        agrees: bool,
        cells_agree: bool,
    ) {
        if recognition.reading.smeared() {
            return;
        }
        if !covered {
            self.bend = recognition.bend;
        } else if (self.bend.is_none() || !cells_agree)
            && agrees
            && !under_something(recognition)
            && let Some(bend) = bend_away_from_hidden(recognition)
        {
            self.bend = Some(bend);
        }
    }

    /// Whether the cells `recognition` read lie where the track (at `quad`, bent as it is)
    /// draws them, within [`CELLS_AGREE`] of a cell at every crossing of the lines; a reading
    /// whose lines were not followed, or were followed across a smear, says nothing of it.
    ///
    /// The corners can agree while the cells between them do not: on a page curved beyond
    /// what the lines followed once a frame reach, most readings took cells near the bowed
    /// border for covered, their bend was not kept (see [`Track::take_lines`]), and the grid
    /// drawn by its corners lay up to 0.48 of a cell off its printed cells.
    ///
    /// A reading that says nothing of the cells leaves the last word to the last one that did:
    /// a smeared reading of a page bowed by 0.45 of a cell, taken as the camera began to move,
    /// confirmed a grid every sharp reading before had put 0.44 of a cell off, and it was drawn
    /// so (noise seed 2, session 32). A smeared reading can dispute the cells but never settle
    /// them: a page curling into a gutter was first read, and drawn by its corners, on smeared
    /// frames whose lines bent 0.3 of a cell; with no sharp reading yet, nothing had read a bend
    /// and the cells by the gutter were drawn 0.36 of a cell off. It is judged by the cells
    /// between its own corners (the smear moves those, and the track takes them anyway).
    fn cells_agree(&mut self, quad: &Quad, recognition: &Recognition) -> bool {
        if !recognition.on_lines {
            return !self.cells_disputed;
        }
        let smeared = recognition.reading.smeared();
        let at = if smeared {
            recognition.quad.turned_like(quad)
        } else {
            *quad
        };
        let Some(drawn) = crate::overlay::drawn_lattice(&at, self.bend.as_ref()) else {
            return false;
        };
        let Some(read) =
            crate::overlay::drawn_lattice(&recognition.quad, recognition.bend.as_ref())
        else {
            return false;
        };
        // Lines followed smoothly whose corners are not the reading's (a corner given kept on a
        // border they did not see) bend no overlay, but still say where the cells are: a page
        // curling into a gutter was drawn by such corners 0.35 of a cell off, its lines 0.15
        // off, and every reading agreed with the corners. They can only dispute the drawn
        // cells, never settle them: followed short of a border bowed beyond their reach, they
        // agreed with cells drawn 0.44 of a cell off (`cargo bench --bench curved`, bow 0.36).
        let followed = match (&recognition.bend, &recognition.lattice) {
            (None, Some(lattice)) => lattice.smoothed(),
            _ => None,
        };
        let apart = std::iter::once(read)
            .chain(followed)
            .map(|read| farthest_apart(&drawn, &read.turned_like(quad)))
            .fold(0.0, f64::max);
        let cell = quad.mean_side() / 9.0;
        let disputed = apart > CELLS_AGREE * cell;
        tracing::trace!(
            apart = apart / cell,
            smeared,
            "cells read against the drawn ones"
        );
        if smeared {
            self.cells_disputed |= disputed;
        } else {
            self.cells_disputed = disputed;
        }
        !self.cells_disputed
    }

    /// Sets the anchor again on `outline`, the grid's sharp outline found near the track (at
    /// `quad`) on this frame: for a track anchored on a smeared frame, where the lines could not
    /// be followed on a sharp one.
    pub(super) fn anchor_on_outline(
        &mut self,
        current: &TrackFrame,
        outline: &Quad,
        quad: &Quad,
    ) -> Result<()> {
        let motion = moving(self, quad);
        if self.start_again_at(current, outline, &[false; 81])? {
            tracing::debug!("anchored again on a sharp frame's outline");
            self.anchor_motion = motion;
            self.unanchored_for = 0;
        }
        Ok(())
    }

    /// Puts the track, and the anchor it is aligned to, at `quad`, with the cells a reading
    /// found `hidden` there; false (and left as it is) when its corners make no homography.
    fn start_again_at(
        &mut self,
        current: &TrackFrame,
        quad: &Quad,
        hidden: &[bool; 81],
    ) -> Result<bool> {
        let Some(h) = Homography::from_quads(&Quad::UNIT, quad) else {
            return Ok(false);
        };
        // A grid now named from another corner (read turned) would have its bend turned too.
        let was = track::quad_of(&self.image_from_grid);
        if was.turned_like(quad) != was {
            self.bend = None;
        }
        // What lies over the grid now is also where the printed detail the anchor before saw
        // is gone, where that one was settled (a known puzzle's, on the lines of a steady frame)
        // and the grid stays put (named the same way, moved less than a reading's lines may).
        // While the grid is read, the anchor before may be a smeared slide-in's.
        let cell = was.mean_side() / 9.0;
        let settled = matches!(self.identity, Identity::Known(_))
            && self.on_lines
            && self.anchor_motion <= STEADY_FOR_CHECK;
        let before = (settled && was.max_corner_distance(quad) <= CONFIRM_CELLS * cell)
            .then_some(self.anchor.as_ref())
            .flatten();
        let border = border_shown(current, &h, self.ink);
        let anchor = Anchor::new(current, &h, border, (hidden, before))?;
        self.image_from_grid = h;
        self.anchor = anchor;
        Ok(true)
    }

    /// Takes `agreed` (see [`agreed_digits`](crate::recognize::verdict::agreed_digits)) as the digits to draw while the puzzle is read,
    /// as a puzzle numbered `id` when they changed; returns how many ids it used. They are
    /// drawn where the lines read put the grid (`doubtful`: not).
    ///
    /// Readings that agree on nothing this time (a clue read unsurely on one blurred frame, a
    /// puzzle just read again) keep the digits agreed on before, unless `reading` shows another
    /// puzzle or surely another digit where one of their clues is: they follow from those clues
    /// alone (thumb:image1086 lost them for 6-26 frames at a time).
    pub(super) fn agree(
        &mut self,
        agreed: Option<Judged>,
        reading: &GridReading,
        id: u64,
        doubtful: bool,
    ) -> u64 {
        let Some(agreed) = agreed else {
            if self
                .agreed
                .as_ref()
                .is_some_and(|k| replaced(k, reading) || contradicts(k, reading))
            {
                tracing::debug!("the digits agreed on no longer hold");
                self.agreed = None;
            }
            return 0;
        };
        self.confirmed = !doubtful;
        if self
            .agreed
            .as_ref()
            .is_some_and(|k| k.solution == agreed.solution && k.clues == agreed.clues)
        {
            return 0;
        }
        tracing::debug!(
            id,
            digits = agreed.solution.map_or(0, |s| s.filled()),
            "digits every solution agrees on"
        );
        self.agreed = Some(Arc::new(Known::new(id, agreed)));
        1
    }

    /// Adds `turned`, a reading of the grid turned (outlined at `quad` by the track), to the
    /// recent ones turned the same way, and returns them when they add up to a solved puzzle
    /// or, if `sure_alone`, when it is sure; else keeps them for the next.
    pub(super) fn turned_taken(
        &mut self,
        quad: &Quad,
        turned: &Recognition,
        sure_alone: bool,
    ) -> Option<Box<Evidence>> {
        let top_left = turned.quad.0[0];
        let turn = (0..4)
            .min_by(|&a, &b| {
                distance(top_left, quad.0[a]).total_cmp(&distance(top_left, quad.0[b]))
            })
            .unwrap_or(0);
        let mut evidence = match self.turned_readings.take() {
            Some((was, evidence)) if was == turn => evidence,
            _ => Box::new(Evidence::new()),
        };
        evidence.add(&turned.reading);
        if (sure_alone && turned.reading.is_confident())
            || judge_frames(&evidence).is_some_and(|j| j.solution.is_some())
        {
            return Some(evidence);
        }
        self.turned_readings = Some((turn, evidence));
        None
    }

    /// Reads the grid as a puzzle not yet known, from `reading` on, saying `provisional` (the
    /// verdict it had, if any) until a new one.
    pub(super) fn read_again(&mut self, reading: &GridReading, provisional: Option<LiveState>) {
        self.provisional = provisional;
        self.doubted = false;
        let mut evidence = Evidence::new();
        evidence.add(reading);
        self.identity = Identity::Reading(Box::new(evidence));
    }
}

/// Which sides of the grid (top, right, bottom, left) have most of the cells along them
/// `hidden`: the lines along them were not seen (as [`lines::border_contrast`] looks at them).
fn sides_hidden(hidden: &[bool; 81]) -> [bool; 4] {
    let side_cell = |side: usize, k: usize| match side {
        0 => k,
        1 => k * 9 + 8,
        2 => 72 + k,
        _ => k * 9,
    };
    std::array::from_fn(|side| (0..9).filter(|&k| hidden[side_cell(side, k)]).count() > 4)
}

/// How much more clearly (ratio of [`lines::border_contrast`]) the followed lines' corners
/// must put a side of the grid on the printed border than the track's, to be taken over it
/// while something lies over the grid.
const BORDER_CLEARER: f64 = 1.5;
/// The faintest border (share of the paper's brightness) that can tell so.
const MIN_BORDER_CONTRAST: f64 = 0.05;

/// Whether the followed lines (`lines`) put the grid's sides on the printed border clearly
/// more than the track (at `tracked`), looking only beside cells the reading saw in view: on
/// some side clearly more, and on none clearly less. Then it is the track that is off
/// (thumb:image44's outline, found as the page slid in, had its bottom side cut along the thumb
/// over the bottom row, a corner 0.7 cell in, and the right lines waited 8 readings to overrule
/// it). Both are looked at bowed as the paper bends (`bend`, the track's): the shape is the
/// page's, only where its corners are is in question. Along straight sides, a page bowed a
/// quarter of a cell under a finger showed its right border more clearly between corners the
/// lines followed had put a quarter of a cell out (where the chord runs nearer the bow), and
/// the grid was drawn so, 0.3 of a cell off at those corners (`cargo bench --bench curved`,
/// bow 0.028, seeds 2, 4, 6).
fn on_border_more_clearly(
    gray: &Mat,
    lines: &Quad,
    tracked: &Quad,
    bend: Option<&Bend>,
    recognition: &Recognition,
) -> Result<bool> {
    let view = GrayView::new(gray)?;
    let hidden = recognition.reading.hidden();
    let by_lines = lines::border_contrast(&view, lines, bend, &hidden);
    let by_track = lines::border_contrast(&view, tracked, bend, &hidden);
    tracing::trace!(
        ?by_lines,
        ?by_track,
        "border contrast where lines and track disagree"
    );
    let clearer = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => a >= MIN_BORDER_CONTRAST && a > BORDER_CLEARER * b.max(0.0),
        _ => false,
    };
    let sides = by_lines.iter().zip(&by_track);
    let lines_clearer = sides.clone().any(|(&l, &t)| clearer(l, t));
    let track_clearer = sides.clone().any(|(&l, &t)| clearer(t, l));
    Ok(lines_clearer && !track_clearer)
}

/// Frames the overlay stays up without being aligned to the anchor (finger, blur, part of the
/// grid out of view): flow from an aligned frame holds that long; after it, nothing is drawn
/// until the grid is aligned again.
pub(super) const DRAW_UNANCHORED: u32 = 2;

/// Whether the grid, at `quad`, moves at most half as fast as when the anchor was set on a
/// moving frame: the page coming to rest after sliding in is anchored again on a sharper frame
/// (handheld:01_22 anchored while it still moved 3.5% of its side a frame, a hair off, was
/// drawn 2.8% off on a quick move two seconds later).
pub(super) fn steadier_than_anchor(track: &Track, quad: &Quad) -> bool {
    track.anchor_motion > STEADY_FOR_CHECK && moving(track, quad) <= track.anchor_motion / 2.0
}

/// How far the grid moved from the frame before to this one, as a share of its side.
pub(super) fn moving(track: &Track, quad: &Quad) -> f64 {
    let Some(motion) = track.motion else {
        return 0.0;
    };
    // The last frame's motion, carried on: where the grid will be next.
    let next = track::quad_of(&motion.after(&track.image_from_grid));
    quad.max_corner_distance(&next) / quad.mean_side()
}

/// Whether all of `quad` lies inside the frame, off its edges (0.5% of the frame).
pub(super) fn inside_frame(quad: &Quad, gray: &Mat) -> bool {
    use opencv::prelude::MatTraitConst;
    inside_by(quad, gray, 0.005 * gray.cols().max(gray.rows()) as f64)
}

/// Whether every corner of `quad` lies on the frame, on its edge pixels at the least.
pub(super) fn on_frame(quad: &Quad, gray: &Mat) -> bool {
    inside_by(quad, gray, 0.0)
}

/// Whether a grid outlined at `quad` is whole in view, for the outline to be followed or read
/// from, or the grid followed to be read before its puzzle is known (once known, it is read
/// while merely inside the frame): every corner [`EDGE_CELLS`] of a cell inside the frame at
/// least (and 0.5% of the frame), or nearer the edge where each side near it shows its printed
/// border ([`borders_near_the_edge`]). A grid cut by the frame's edge is outlined where it is
/// cut, a little inside the frame rather than on its edge: a page held with its border
/// 0.15-0.5 of a cell beyond the frame's edge was found with a corner 3-25 px (up to half a
/// cell) inside, and the track started from it kept the grid half a cell short once the page
/// was whole in view (never drawn again), or drew it with a corner 0.4 of a cell off. With a
/// third of a cell such a corner still passed now and then.
pub(super) fn whole_in_view(quad: &Quad, gray: &Mat, ink: Ink) -> bool {
    use opencv::prelude::MatTraitConst;
    let frame = 0.005 * gray.cols().max(gray.rows()) as f64;
    let margin = frame.max(EDGE_CELLS * quad.mean_side() / 9.0);
    inside_by(quad, gray, margin) || borders_near_the_edge(quad, gray, margin, ink)
}

/// Whether the grid `image_from_grid` (full-resolution pixels) puts in `current` is whole in
/// view there (on the frame shrunk for tracking): away from the frame's edge, or showing its
/// printed border along each side near it.
fn border_shown(current: &TrackFrame, image_from_grid: &Homography, ink: Ink) -> bool {
    let small_from_grid = Homography::scaling(1.0 / current.scale()).after(image_from_grid);
    whole_in_view(&track::quad_of(&small_from_grid), current.small(), ink)
}

/// Whether each side of the grid at `quad` with a corner within `margin` pixels of the frame's
/// edge shows its printed border with paper beyond it ([`border_along`]) nearly as clearly as
/// the other sides, every corner inside the frame: a phone filming a puzzle that fills its
/// picture held the border 0.1-0.45 of a cell from the edge all along, and it was never read.
fn borders_near_the_edge(quad: &Quad, gray: &Mat, margin: f64, ink: Ink) -> bool {
    use opencv::prelude::MatTraitConst;
    if !inside_by(quad, gray, 1.0) {
        return false;
    }
    let (Ok(view), Some(image_from_grid)) = (
        GrayView::new(gray),
        Homography::from_quads(&Quad::UNIT, quad),
    ) else {
        return false;
    };
    let (w, h) = (gray.cols() as f64, gray.rows() as f64);
    let near_edge =
        |[x, y]: [f64; 2]| x < margin || y < margin || x > w - 1.0 - margin || y > h - 1.0 - margin;
    let near: [bool; 4] =
        std::array::from_fn(|side| near_edge(quad.0[side]) || near_edge(quad.0[(side + 1) % 4]));
    let borders: [Border; 4] =
        std::array::from_fn(|side| border_along(&view, &image_from_grid, side, ink));
    // The printed border as the sides show it, all but the faintest: a cell line or a digit's
    // stroke where the frame's edge cuts the outer cells is fainter. (A puzzle filling the
    // picture, its top and bottom borders near the edges, has every side near one; on a
    // blurred page the border 0.2 of a cell from the edge showed 0.10 of the paper's level,
    // the other sides 0.15-0.24.)
    let mut contrasts = borders.each_ref().map(|b| b.contrast);
    contrasts.sort_by(f64::total_cmp);
    let clear = contrasts[1];
    (0..4).all(|side| {
        let border = &borders[side];
        !near[side]
            || (border.shown as f64 >= BORDER_SHOWN * BORDER_SAMPLES as f64
                && border.contrast >= AS_CLEAR * clear
                && clear > 0.0)
    })
}

/// How the paper bends by the crossings `recognition` followed around the cells it did not
/// find hidden (see [`Bend::fit_leaving_out`]); None when they do not say clearly.
fn bend_away_from_hidden(recognition: &Recognition) -> Option<Bend> {
    let lattice = recognition.lattice.as_ref()?;
    Bend::fit_leaving_out(lattice, &recognition.quad, &recognition.reading.hidden())
}

/// Whether `recognition` found something broad lying over the paper (a finger): the lines
/// followed anywhere near it may have been pulled onto its edge.
fn under_something(recognition: &Recognition) -> bool {
    recognition.reading.0.iter().any(|cell| cell.under)
}

/// What a side of the grid shows of a printed border line along it (see [`border_along`]).
struct Border {
    /// At how many of [`BORDER_SAMPLES`] points along the side (or the bow its printed border
    /// makes) a line shows, with lighter paper on both sides of it within the frame.
    shown: usize,
    /// How much darker than the paper around it the line is there (share of the paper's
    /// level), the median over those points; 0 where none.
    contrast: f64,
}

/// [`Border`] along side `side` (top, right, bottom, left) of the grid placed by
/// `image_from_grid` in `view`: a printed border, unlike the frame's edge cutting the outer
/// cells, is a line with paper beyond it all along. Looked for along the side, and where it
/// does not show there, along the bow the printed border makes ([`bow_of_border`]).
fn border_along(view: &GrayView, image_from_grid: &Homography, side: usize, ink: Ink) -> Border {
    let place = SidePlace {
        view,
        image_from_grid,
        side,
        ink,
    };
    let straight = border_bowed_by(&place, 0.0);
    let bowed = if (straight.shown as f64) < BORDER_SHOWN * BORDER_SAMPLES as f64 {
        bow_of_border(&place).map(|bow| border_bowed_by(&place, bow))
    } else {
        None
    };
    let border = match bowed {
        Some(b) if b.shown > straight.shown => b,
        _ => straight,
    };
    tracing::trace!(
        side,
        shown = border.shown,
        contrast = border.contrast,
        "border along a side"
    );
    border
}

/// A side of the grid in a frame, as [`border_along`] looks along it.
struct SidePlace<'a> {
    view: &'a GrayView<'a>,
    image_from_grid: &'a Homography,
    side: usize,
    ink: Ink,
}

impl SidePlace<'_> {
    /// The point `t` of the way along the side (0 and 1 its corners), `d` cells out of the grid
    /// (into it when negative).
    fn at(&self, t: f64, d: f64) -> [f64; 2] {
        let d = d / 9.0;
        self.image_from_grid.apply(match self.side {
            0 => [t, -d],
            1 => [1.0 + d, t],
            2 => [t, 1.0 + d],
            _ => [-d, t],
        })
    }

    /// The level there, in the negative for light ink (a dark-mode screen); None outside the
    /// frame.
    fn level(&self, t: f64, d: f64) -> Option<f64> {
        let [x, y] = self.at(t, d);
        let (w, h) = (self.view.width as f64, self.view.height as f64);
        (x >= 0.0 && y >= 0.0 && x <= w - 1.0 && y <= h - 1.0).then(|| {
            let level = self.view.sample(x, y);
            if self.ink == Ink::Light {
                255.0 - level
            } else {
                level
            }
        })
    }
}

/// The places along a side where [`Border`] looks, as shares of the side.
fn border_samples() -> impl Iterator<Item = f64> {
    (0..BORDER_SAMPLES).map(|j| 0.1 + 0.8 * j as f64 / (BORDER_SAMPLES - 1) as f64)
}

/// [`Border`] along the side bowed out of the grid by `bow` cells at its middle (see
/// [`bow_shape`]; none at the corners).
fn border_bowed_by(place: &SidePlace, bow: f64) -> Border {
    let mut contrasts: Vec<f64> = border_samples()
        .filter_map(|t| {
            let off = bow * bow_shape(t);
            let steps = |from: f64, to: f64| {
                (0..=6)
                    .filter_map(move |k| place.level(t, off + from + (to - from) * k as f64 / 6.0))
            };
            // The darkest on the side, the lightest paper inside (past a thick line's half,
            // short of a digit) and beyond it up to the frame's edge.
            let line = steps(-BORDER_NEAR, BORDER_NEAR).fold(f64::INFINITY, f64::min);
            let paper_in = steps(-0.3, -0.15).fold(f64::NEG_INFINITY, f64::max);
            let paper_out = steps(BORDER_NEAR + 0.04, 0.3).fold(f64::NEG_INFINITY, f64::max);
            let paper = paper_in.min(paper_out);
            (line.is_finite() && paper - line >= (BORDER_CONTRAST * paper).max(10.0))
                .then(|| (paper - line) / paper)
        })
        .collect();
    let shown = contrasts.len();
    let contrast = if shown == 0 {
        0.0
    } else {
        let middle = shown / 2;
        *contrasts.select_nth_unstable_by(middle, f64::total_cmp).1
    };
    Border { shown, contrast }
}

/// How far out of the grid (cells, negative into it) the printed border along a side bows at
/// its middle, its ends on the corners: the darkest line within [`BORDER_BOW`] of the side at
/// each point, where most of them lie along one bow. Paper curved on the table bows its
/// borders a third of a cell and more between corners that stay put, beyond the tenth of a
/// cell [`border_bowed_by`] looks at along the side: a page bowed so, its corner near the
/// frame's edge, was not read until it moved away from the edge (`oblique.py --bend 0.037`,
/// 78 frames). Digits' strokes inside lie along no bow. None when no bow holds most points.
fn bow_of_border(place: &SidePlace) -> Option<f64> {
    const STEPS: usize = 36;
    let darkest: Vec<(f64, f64)> = border_samples()
        .filter_map(|t| {
            let (mut best, mut at) = (f64::INFINITY, 0.0);
            for k in 0..=STEPS {
                let d = -BORDER_BOW + 2.0 * BORDER_BOW * k as f64 / STEPS as f64;
                match place.level(t, d) {
                    Some(level) if level < best => (best, at) = (level, d),
                    _ => {}
                }
            }
            best.is_finite().then_some((t, at))
        })
        .collect();
    // The bow each point off the ends says, the middle one of them taken.
    let mut bows: Vec<f64> = darkest
        .iter()
        .filter(|(t, _)| (0.25..=0.75).contains(t))
        .map(|&(t, d)| d / bow_shape(t))
        .collect();
    if bows.is_empty() {
        return None;
    }
    let middle = bows.len() / 2;
    let bow = *bows.select_nth_unstable_by(middle, f64::total_cmp).1;
    let along = darkest
        .iter()
        .filter(|&&(t, d)| (d - bow * bow_shape(t)).abs() <= BORDER_NEAR)
        .count();
    (along as f64 >= BORDER_SHOWN * BORDER_SAMPLES as f64 && bow.abs() > BORDER_NEAR).then_some(bow)
}

/// How far a border bowed by 1 lies off its side `t` of the way along it: paper bowed between
/// corners that stay put.
fn bow_shape(t: f64) -> f64 {
    (std::f64::consts::PI * t).sin()
}

/// Whether every corner of `quad` lies at least `margin` pixels inside the frame.
fn inside_by(quad: &Quad, gray: &Mat, margin: f64) -> bool {
    use opencv::prelude::MatTraitConst;
    let (w, h) = (gray.cols() as f64, gray.rows() as f64);
    quad.0
        .iter()
        .all(|&[x, y]| x >= margin && y >= margin && x <= w - 1.0 - margin && y <= h - 1.0 - margin)
}

/// See [`whole_in_view`].
const EDGE_CELLS: f64 = 0.5;
/// [`border_along`]: at how many points along a side the border is looked for, how near the
/// side (share of a cell), and how much darker than the paper either side of it (share of the
/// paper's level, and at least 10 gray levels) it must be. [`whole_in_view`]: along what share
/// of a side near the frame's edge it must show, and how clearly, against the second faintest
/// side.
const BORDER_SAMPLES: usize = 16;
const BORDER_NEAR: f64 = 0.1;
/// How far (cells) from a side [`bow_of_border`] looks for the printed border bowed.
const BORDER_BOW: f64 = 0.6;
const BORDER_CONTRAST: f64 = 0.08;
const BORDER_SHOWN: f64 = 0.7;
const AS_CLEAR: f64 = 0.6;

/// Whether the solution is drawn where `track` has the grid (`quad`) on this frame: only while
/// the track is held to the printed grid, and not while the grid is swept out of view (flow and
/// anchor then see a smeared part of it, and the hidden corners were extrapolated 3-5% off),
/// moves too fast to be drawn well or is disputed on a fast frame (see [`FAST_MOTION`]).
fn held_to_print(track: &mut Track, quad: &Quad, gray: &Mat, small: Option<&TrackFrame>) -> bool {
    let motion = moving(track, quad);
    let leaving = motion > LEAVING_MOTION && !inside_frame(quad, gray);
    let disputed = motion > FAST_MOTION && track.correction > DISPUTED_CORRECTION;
    let held = track.anchor.is_some()
        && track.unanchored_for <= DRAW_UNANCHORED
        && track.confirmed
        && !leaving
        && !disputed
        && motion <= BLUR_MOTION;
    if !held {
        tracing::trace!(
            anchored = track.anchor.is_some(),
            unanchored_for = track.unanchored_for,
            confirmed = track.confirmed,
            leaving,
            disputed,
            motion,
            "not held to the print: not drawn"
        );
    }
    held && !drawn_off_the_print(track, quad, gray, small)
}

/// Whether the cells drawn where `track` has the grid (`quad`, bent as the track's paper) lie
/// clearly beside the printed lines on this frame (see [`PrintCheck`]): looked at on the frame
/// shrunk for tracking (`small`) when there is one, whose pixels lie closer together (a 1080p
/// frame's tracking cost with the check, p50 4.63 -> 4.20 ms).
fn drawn_off_the_print(
    track: &mut Track,
    quad: &Quad,
    gray: &Mat,
    small: Option<&TrackFrame>,
) -> bool {
    let Some(lattice) = crate::overlay::drawn_lattice(quad, track.bend.as_ref()) else {
        return true;
    };
    let scale = small.map_or(1.0, |s| s.scale());
    let picture = small.map_or(gray, |s| s.small());
    let lattice = lattice.scaled(1.0 / scale);
    let [x, y] = moved_since_last_frame(track, quad);
    let Ok(view) = GrayView::new(picture) else {
        return false;
    };
    let off = track.print_check.drawn_off(
        &view,
        &lattice,
        [x / scale, y / scale],
        track.bend.is_some(),
    );
    if off {
        let cells_moved = x.hypot(y) / (quad.mean_side() / 9.0);
        tracing::trace!(
            cells_moved,
            "the cells would be drawn beside the printed lines: not drawn"
        );
    }
    off
}

/// How far the middle of the grid at `quad` moved since the last frame, in pixels (none known
/// for a grid just found).
fn moved_since_last_frame(track: &Track, quad: &Quad) -> [f64; 2] {
    let now = quad.centroid();
    match track.motion.and_then(|m| m.inverse()) {
        Some(last_from_now) => {
            let before = last_from_now.apply(now);
            [now[0] - before[0], now[1] - before[1]]
        }
        None => [0.0; 2],
    }
}

pub(super) fn view_of(track: &mut Track, gray: &Mat, small: Option<&TrackFrame>) -> PuzzleView {
    track.print_check.next_frame();
    let quad = track::quad_of(&track.image_from_grid);
    match &track.identity {
        Identity::Reading(evidence) => {
            let (clues, covered) = (evidence.clues(), evidence.covered());
            let provisional = track.provisional.unwrap_or(LiveState::Reading);
            let (state, solved) = unsolved_view(track, &quad, gray, small, provisional);
            PuzzleView {
                quad,
                bend: track.bend,
                clues,
                state,
                solved,
                entries: Grid::EMPTY,
                wrong: Grid::EMPTY,
                covered,
            }
        }
        Identity::Known(known) => {
            let known = known.clone();
            let (state, solved) = match known.solution {
                Some(_) => (
                    LiveState::of(known.status),
                    held_to_print(track, &quad, gray, small).then(|| known.clone()),
                ),
                None => unsolved_view(track, &quad, gray, small, LiveState::of(known.status)),
            };
            PuzzleView {
                quad,
                bend: track.bend,
                clues: known.clues,
                state,
                solved,
                entries: track.entries,
                wrong: track.wrong.circled(),
                covered: false,
            }
        }
    }
}

/// A puzzle with no solution yet: `state` and nothing drawn, or, while the readings agree on
/// digits (a finger over a needed clue), [`LiveState::Partial`] and those digits.
fn unsolved_view(
    track: &mut Track,
    quad: &Quad,
    gray: &Mat,
    small: Option<&TrackFrame>,
    state: LiveState,
) -> (LiveState, Option<Arc<Known>>) {
    match track.agreed.clone() {
        Some(agreed) => (
            LiveState::Partial,
            held_to_print(track, quad, gray, small).then_some(agreed),
        ),
        None => (state, None),
    }
}

/// The largest distance between the same crossing of two lattices.
fn farthest_apart(a: &Lattice, b: &Lattice) -> f64 {
    a.0.iter()
        .flatten()
        .zip(b.0.iter().flatten())
        .map(|(&p, &q)| distance(p, q))
        .fold(0.0, f64::max)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::recognize::detect;
    use crate::recognize::verdict::tests::{PUZZLE, reading_of};

    #[test]
    fn a_grid_is_whole_in_view_with_a_share_of_a_cell_to_spare() {
        // 36 px cells: half a cell is 18 px, more than 0.5% of the frame (3.2 px).
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let quad = |x: f64| Quad([[x, 80.0], [x + 324.0, 80.0], [x + 324.0, 404.0], [x, 404.0]]);
        assert!(!whole_in_view(&quad(4.0), &page, Ink::Dark));
        assert!(!whole_in_view(&quad(17.0), &page, Ink::Dark));
        assert!(whole_in_view(&quad(19.0), &page, Ink::Dark));
        assert!(!whole_in_view(
            &quad(640.0 - 1.0 - 324.0 - 17.0),
            &page,
            Ink::Dark
        ));
        // Merely inside the frame, as a grid followed must be to be drawn while it moves.
        assert!(inside_frame(&quad(4.0), &page));
        // On the frame at all, as a known puzzle's grid must be to be read again.
        assert!(!inside_frame(&quad(0.5), &page) && on_frame(&quad(0.5), &page));
        assert!(!on_frame(&quad(-1.0), &page));
    }

    #[test]
    fn a_grid_near_the_frames_edge_is_whole_where_its_border_shows_and_not_where_the_edge_cuts_it()
    {
        let quad = |x: f64| Quad([[x, 80.0], [x + 324.0, 80.0], [x + 324.0, 404.0], [x, 404.0]]);
        // Its border 8 px (0.22 of a cell) from the frame's left edge, paper beyond it.
        let close = detect::tests::drawn_grid(640, 480, 8, 80, 324);
        assert!(whole_in_view(&quad(8.0), &close, Ink::Dark));
        // The border 10 px beyond the edge, the grid outlined where the edge cuts it: the
        // outer cells' paper, a cell line further in.
        let cut = detect::tests::drawn_grid(640, 480, -10, 80, 324);
        assert!(!whole_in_view(&quad(5.0), &cut, Ink::Dark));
        // A cell line taken for the border, the outline squeezed a cell short (the border
        // beyond the edge): under a camera's blur, fainter than the border on the other sides.
        let sharp = detect::tests::drawn_grid(640, 480, -32, 80, 360);
        let mut cut_more = Mat::default();
        opencv::imgproc::gaussian_blur_def(
            &sharp,
            &mut cut_more,
            opencv::core::Size::new(7, 7),
            1.5,
        )
        .unwrap();
        assert!(!whole_in_view(
            &Quad([[8.0, 80.0], [328.0, 80.0], [328.0, 440.0], [8.0, 440.0]]),
            &cut_more,
            Ink::Dark
        ));
        // A dark-mode screen's light border near the edge shows in the negative.
        let mut dark_mode = Mat::default();
        opencv::core::bitwise_not(&close, &mut dark_mode, &opencv::core::no_array()).unwrap();
        assert!(whole_in_view(&quad(8.0), &dark_mode, Ink::Light));
        assert!(!whole_in_view(&quad(8.0), &dark_mode, Ink::Dark));
    }

    /// `page` with its columns bowed `bow` px to the right at the middle of the rows 80-404
    /// (paper bowed across), none at the corners.
    fn bowed_across(page: &Mat, bow: f64) -> Mat {
        use opencv::prelude::{MatTrait, MatTraitConst};
        let size = page.size().unwrap();
        let mut map_x = Mat::new_size_with_default(size, opencv::core::CV_32F, 0.0.into()).unwrap();
        let mut map_y = map_x.clone();
        for y in 0..size.height {
            let along = ((f64::from(y) - 80.0) / 324.0).clamp(0.0, 1.0);
            let shift = bow * (std::f64::consts::PI * along).sin();
            for x in 0..size.width {
                *map_x.at_2d_mut::<f32>(y, x).unwrap() = (f64::from(x) - shift) as f32;
                *map_y.at_2d_mut::<f32>(y, x).unwrap() = y as f32;
            }
        }
        let mut out = Mat::default();
        opencv::imgproc::remap(
            page,
            &mut out,
            &map_x,
            &map_y,
            opencv::imgproc::INTER_LINEAR,
            opencv::core::BORDER_REPLICATE,
            opencv::core::Scalar::all(235.0),
        )
        .unwrap();
        out
    }

    #[test]
    fn a_bowed_border_near_the_frames_edge_shows_along_its_bow_and_a_cut_one_still_does_not() {
        let quad = |x: f64| Quad([[x, 80.0], [x + 324.0, 80.0], [x + 324.0, 404.0], [x, 404.0]]);
        // The left border 8 px from the frame's edge at the corners, a third and half a cell
        // (12 and 18 px) further in at the middle.
        for bow in [12.0, 18.0] {
            let close = bowed_across(&detect::tests::drawn_grid(640, 480, 8, 80, 324), bow);
            assert!(
                whole_in_view(&quad(8.0), &close, Ink::Dark),
                "bowed {bow} px"
            );
        }
        // Bowed the other way, out past the frame's edge: cut.
        let out = bowed_across(&detect::tests::drawn_grid(640, 480, 14, 80, 324), -16.0);
        assert!(!whole_in_view(&quad(14.0), &out, Ink::Dark));
        // The border beyond the edge, the grid outlined where the edge cuts it: still cut.
        let cut = bowed_across(&detect::tests::drawn_grid(640, 480, -10, 80, 324), 12.6);
        assert!(!whole_in_view(&quad(5.0), &cut, Ink::Dark));
    }

    #[test]
    fn a_grid_filling_the_frame_is_anchored_where_its_border_shows_and_not_where_the_edge_cuts_it()
    {
        let anchored = |page: &Mat, quad: Quad| {
            let current = TrackFrame::new(page).unwrap();
            let track = Track::start(&current, &found_at(quad, false))
                .unwrap()
                .unwrap();
            track.anchor.is_some()
        };
        let square = |x: f64, y: f64, side: f64| {
            Quad([[x, y], [x + side, y], [x + side, y + side], [x, y + side]])
        };
        // An app's grid across a phone's screen, or a page filmed close: its border 12 px (0.23
        // of a cell) from the frame's top and bottom edges, paper beyond it.
        let close = detect::tests::drawn_grid(640, 480, 150, 12, 456);
        assert!(anchored(&close, square(150.0, 12.0, 456.0)));
        // Its border beyond the top and bottom edges, the grid outlined where they cut it.
        let cut = detect::tests::drawn_grid(640, 480, 130, -12, 504);
        assert!(!anchored(&cut, square(150.0, 5.0, 470.0)));
    }

    #[test]
    fn lines_that_hold_their_place_overrule_the_track_and_wandering_ones_do_not() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        // The track's outline has its top-left corner 12 px low (0.33 cell).
        let found = found_at(
            Quad([[150.0, 92.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]),
            false,
        );
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // Lines pulled beside a spot that drifts over the paper: a different place each time.
        for k in 0..2 * OVERRULE_AFTER {
            let pulled = Quad(right.0.map(|[x, y]| [x, y + 6.0 * (k % 3 + 1) as f64]));
            assert!(!track.lines_hold_their_place(&pulled), "reading {k}");
        }
        // The same place every time: taken on the OVERRULE_AFTER-th reading.
        let taken: Vec<bool> = (0..OVERRULE_AFTER)
            .map(|_| track.lines_hold_their_place(&right))
            .collect();
        assert_eq!(taken.iter().filter(|&&t| t).count(), 1);
        assert_eq!(taken.last(), Some(&true));
    }

    /// PUZZLE read with its lines followed to `quad`, `hidden` beside something over the grid.
    fn read_beside_a_finger(quad: Quad, hidden: usize, turned: bool) -> Recognition {
        let mut reading = reading_of(&PUZZLE.parse().unwrap(), 0.9);
        reading.0[hidden] = reading.0[hidden].hidden(0.3);
        read_at(quad, reading, turned)
    }

    /// `reading`, its lines followed to `quad` (flat paper), read `turned` or not.
    pub(in crate::video) fn read_at(quad: Quad, reading: GridReading, turned: bool) -> Recognition {
        Recognition {
            quad,
            reading,
            turned,
            on_lines: true,
            bend: None,
            lattice: None,
            turned_instead: None,
        }
    }

    #[test]
    fn a_doubtful_reading_of_the_grid_turned_names_the_track_as_read_and_leaves_it_in_place() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        // Tracked where the grid is; read turned a quarter, beside a finger, with the lines
        // pulled a third of a cell off at the top-left corner: doubtful.
        let tracked = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let found = found_at(tracked, false);
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        // Followed on the lines before (a grid just found takes lines near its outline).
        track.on_lines = true;
        let pulled = Quad([[150.0, 92.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let turned = Quad(std::array::from_fn(|i| pulled.0[(i + 1) % 4]));
        let recognition = read_beside_a_finger(turned, 40, true);
        let (agrees, doubtful) = track
            .take_lines(&page, &current, &tracked, &recognition)
            .unwrap();
        assert!(!agrees && doubtful);
        // Not moved onto the doubtful lines, but its corners named from the same one as the
        // reading's: the solution is drawn the way up the puzzle was read.
        let now = track::quad_of(&track.image_from_grid);
        let expected = Quad(std::array::from_fn(|i| tracked.0[(i + 1) % 4]));
        assert!(now.max_corner_distance(&expected) < 0.5, "track at {now:?}");
    }

    #[test]
    fn lines_that_move_a_drawn_grid_are_taken_but_drawn_only_once_the_next_reading_agrees() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        track.on_lines = true;
        track.confirmed = true;
        // Nothing over the grid; the lines followed 12 px (a third of a cell) off at one corner.
        let recognition = Recognition {
            quad: right,
            reading: reading_of(&PUZZLE.parse().unwrap(), 0.9),
            turned: false,
            on_lines: true,
            bend: None,
            lattice: None,
            turned_instead: None,
        };
        let pulled = Quad([[150.0, 92.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let off = Recognition {
            quad: pulled,
            ..recognition.clone()
        };
        let (agrees, doubtful) = track.take_lines(&page, &current, &right, &off).unwrap();
        assert!(!agrees && !doubtful);
        assert!(track::quad_of(&track.image_from_grid).max_corner_distance(&pulled) < 0.5);
        assert!(!track.confirmed, "drawn where one reading's lines moved it");
        // The next reading's lines lie where the grid is: they move it back, and are drawn
        // once a reading agrees with them.
        let (agrees, _) = track
            .take_lines(&page, &current, &pulled, &recognition)
            .unwrap();
        assert!(!agrees && !track.confirmed);
        let (agrees, _) = track
            .take_lines(&page, &current, &right, &recognition)
            .unwrap();
        assert!(agrees);
    }

    #[test]
    fn the_bend_of_a_clear_reading_travels_with_the_track_until_the_grid_is_read_turned() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // The paper bowed: its middle rows' lines 9 px (a quarter of a cell) to the right.
        let bend = bowed_by(&right, 0.25);
        assert!(bend.is_some());
        let clear = Recognition {
            quad: right,
            reading: reading_of(&PUZZLE.parse().unwrap(), 0.9),
            turned: false,
            on_lines: true,
            bend,
            lattice: None,
            turned_instead: None,
        };
        track.take_lines(&page, &current, &right, &clear).unwrap();
        assert_eq!(track.bend, bend);
        // A reading beside a finger, or smeared, bends where the paper may not: the bend stays.
        let mut covered = reading_of(&PUZZLE.parse().unwrap(), 0.9);
        covered.0[80] = covered.0[80].hidden(0.3);
        let beside_a_finger = Recognition {
            reading: covered,
            bend: None,
            ..clear.clone()
        };
        track
            .take_lines(&page, &current, &right, &beside_a_finger)
            .unwrap();
        assert_eq!(track.bend, bend);
        // Read turned, the grid is named from another corner: its bend would be turned too.
        let turned = Quad(std::array::from_fn(|i| right.0[(i + 1) % 4]));
        assert!(
            track
                .start_again_at(&current, &turned, &[false; 81])
                .unwrap()
        );
        assert_eq!(track.bend, None);
    }

    #[test]
    fn smeared_lines_can_hold_back_cells_drawn_off_but_only_sharp_ones_let_them_be_drawn() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        track.on_lines = true;
        let smeared = |bend| {
            let mut reading = reading_of(&PUZZLE.parse().unwrap(), 0.9);
            for cell in &mut reading.0 {
                cell.smeared = true;
            }
            Recognition {
                bend,
                ..read_at(right, reading, false)
            }
        };
        // Drawn flat, read bowed 0.35 of a cell across a smear: held back.
        let bowed = smeared(bowed_by(&right, 0.35));
        let (agrees, _) = track.take_lines(&page, &current, &right, &bowed).unwrap();
        assert!(!agrees);
        // A smeared reading that shows them flat does not let them be drawn again...
        let flat = smeared(None);
        let (agrees, _) = track.take_lines(&page, &current, &right, &flat).unwrap();
        assert!(!agrees);
        // ...a sharp one does.
        let sharp = read_at(right, reading_of(&PUZZLE.parse().unwrap(), 0.9), false);
        let (agrees, _) = track.take_lines(&page, &current, &right, &sharp).unwrap();
        assert!(agrees);
        // Smeared lines that move the corners but bend as drawn dispute nothing.
        let moved = Recognition {
            quad: Quad(right.0.map(|[x, y]| [x + 10.0, y])),
            ..flat
        };
        track.take_lines(&page, &current, &right, &moved).unwrap();
        assert!(!track.cells_disputed);
    }

    #[test]
    fn lines_that_move_the_grid_half_a_cell_hold_it_until_the_print_shows_it_on() {
        // The grid's top-left box washed out (its lines show nothing either way): drawn where
        // it is printed, it is not off the print.
        let (clean, current, right, mut fresh) = track_on_drawn_grid(false);
        let mut washed = clean.clone();
        opencv::imgproc::rectangle(
            &mut washed,
            opencv::core::Rect::new(140, 70, 120, 120),
            opencv::core::Scalar::all(235.0),
            -1,
            opencv::imgproc::LINE_8,
            0,
        )
        .unwrap();
        assert!(!drawn_off_the_print(&mut fresh, &right, &washed, None));
        // Moved half a cell by one reading's lines, and back by the next one's, the grid is
        // held until every box shows its lines where they are drawn.
        let (_, _, _, mut track) = track_on_drawn_grid(false);
        let half_down = Quad(right.0.map(|[x, y]| [x, y + 18.0]));
        let reading = reading_of(&PUZZLE.parse().unwrap(), 0.9);
        let moved = read_at(half_down, reading.clone(), false);
        track.take_lines(&washed, &current, &right, &moved).unwrap();
        let back = read_at(right, reading, false);
        track
            .take_lines(&washed, &current, &half_down, &back)
            .unwrap();
        assert!(drawn_off_the_print(&mut track, &right, &washed, None));
        assert!(drawn_off_the_print(&mut track, &right, &washed, None));
        assert!(!drawn_off_the_print(&mut track, &right, &clean, None));
    }

    #[test]
    fn a_bend_is_taken_from_the_lines_away_from_handwriting_across_them_unless_a_finger_lies_there()
    {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // Paper bowed by 0.4 of a cell in its middle rows; digits written across the lines
        // between four cells of the seventh and eighth rows hide them there, and the nine
        // crossings around them were followed 20 px (over half a cell) off.
        let mut lattice = crate::bend::Lattice::flat(&right).unwrap();
        for (r, row) in lattice.0.iter_mut().enumerate() {
            let v = r as f64 / 9.0;
            for p in row.iter_mut() {
                p[0] += 4.0 * 0.4 * 36.0 * v * (1.0 - v);
            }
        }
        for r in 6..=8 {
            for c in 3..=5 {
                lattice.0[r][c][1] += 20.0;
            }
        }
        let mut reading = reading_of(&PUZZLE.parse().unwrap(), 0.9);
        for cell in [57, 58, 66, 67] {
            reading.0[cell] = reading.0[cell].hidden(0.3);
        }
        let written_over = Recognition {
            bend: Bend::fit(&lattice, &right),
            lattice: Some(lattice),
            ..read_at(right, reading.clone(), false)
        };
        assert_eq!(
            written_over.bend, None,
            "the pulled crossings spoil the whole fit"
        );
        track
            .take_lines(&page, &current, &right, &written_over)
            .unwrap();
        let taken = track
            .bend
            .expect("a bend from the crossings away from the handwriting");
        assert!(
            (taken.largest() * 9.0 - 0.4).abs() < 0.05,
            "{}",
            taken.largest() * 9.0
        );
        // A bend read before stays where this reading's cells agree with it (a tenth of a cell
        // apart), and gives way where they dispute it (0.3 of a cell the other way).
        let before = bowed_by(&right, 0.1);
        track.bend = before;
        track
            .take_lines(&page, &current, &right, &written_over)
            .unwrap();
        assert_eq!(track.bend, before);
        track.bend = bowed_by(&right, -0.3);
        track
            .take_lines(&page, &current, &right, &written_over)
            .unwrap();
        let taken = track.bend.expect("the bend away from the handwriting");
        assert!(
            (taken.largest() * 9.0 - 0.4).abs() < 0.05,
            "{}",
            taken.largest() * 9.0
        );
        // Something broad over the paper (a finger) pulls the lines anywhere near it: no bend
        // is taken from around it.
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        for cell in [57, 58, 66, 67] {
            reading.0[cell].under = true;
        }
        let beside_a_finger = Recognition {
            reading,
            ..written_over
        };
        track
            .take_lines(&page, &current, &right, &beside_a_finger)
            .unwrap();
        assert_eq!(track.bend, None);
    }

    #[test]
    fn a_reading_whose_cells_lie_off_the_drawn_ones_is_not_agreed_with_though_its_corners_are() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // Read beside a finger on paper bowed by 0.4 of a cell in its middle rows: the corners
        // lie where the track has them, the bend is not kept (lines beside a finger), and the
        // track, drawn by its corners, would put the middle cells 0.4 of a cell off.
        let far = Recognition {
            bend: bowed_by(&right, 0.4),
            ..read_beside_a_finger(right, 80, false)
        };
        assert!(far.bend.is_some());
        let (agrees, doubtful) = track.take_lines(&page, &current, &right, &far).unwrap();
        assert!(!agrees && !doubtful && !track.confirmed);
        assert_eq!(track.bend, None);
        // Bowed by 0.28 of a cell: drawn by the corners, the middle cells would lie across the
        // printed lines once the reading's own error adds to it.
        let bowed = Recognition {
            bend: bowed_by(&right, 0.28),
            ..far.clone()
        };
        let (agrees, _) = track.take_lines(&page, &current, &right, &bowed).unwrap();
        assert!(!agrees);
        // Bowed by a fifth of a cell, the cells lie near enough the drawn ones.
        track.confirmed = true;
        let near = Recognition {
            bend: bowed_by(&right, 0.2),
            ..far.clone()
        };
        assert!(near.bend.is_some());
        let (agrees, _) = track.take_lines(&page, &current, &right, &near).unwrap();
        assert!(agrees && track.confirmed);
    }

    #[test]
    fn lines_followed_beside_a_corner_given_kept_say_where_the_cells_are() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        track.on_lines = true;
        // A page curling into a gutter below the grid: its lines were followed to a bottom
        // border 0.4 of a cell above the corners given, which were kept (the border there not
        // seen), so the reading bends nothing and its corners agree with the track's.
        let followed = Quad([right.0[0], right.0[1], [474.0, 389.6], [150.0, 389.6]]);
        let curled = Recognition {
            lattice: crate::bend::Lattice::flat(&followed),
            ..read_at(right, reading_of(&PUZZLE.parse().unwrap(), 0.9), false)
        };
        let (agrees, _) = track.take_lines(&page, &current, &right, &curled).unwrap();
        assert!(
            !agrees,
            "drawn by the corners, the bottom row lies 0.4 of a cell off"
        );
        // Lines followed where the corners are, but for one crossing followed onto a digit.
        let mut lattice = crate::bend::Lattice::flat(&right).unwrap();
        lattice.0[5][5][1] += 20.0;
        let one_astray = Recognition {
            lattice: Some(lattice),
            ..curled
        };
        let (agrees, _) = track
            .take_lines(&page, &current, &right, &one_astray)
            .unwrap();
        assert!(agrees);
    }

    #[test]
    fn a_smeared_reading_does_not_settle_cells_a_sharp_one_put_elsewhere() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // A sharp reading whose cells, bowed by 0.35 of a cell, lie off the drawn ones.
        let far = Recognition {
            bend: bowed_by(&right, 0.35),
            ..read_beside_a_finger(right, 80, false)
        };
        let (agrees, _) = track.take_lines(&page, &current, &right, &far).unwrap();
        assert!(!agrees);
        // Then the camera moves: the lines followed across the smear say nothing of the cells,
        // and the corners agreeing is not enough.
        let mut smeared = read_beside_a_finger(right, 80, false);
        for cell in &mut smeared.reading.0 {
            cell.smeared = true;
        }
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(!agrees);
        // A sharp reading whose cells lie where the track draws them settles it.
        let sharp = read_beside_a_finger(right, 80, false);
        let (agrees, _) = track.take_lines(&page, &current, &right, &sharp).unwrap();
        assert!(agrees);
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(agrees);
    }

    #[test]
    fn a_grid_never_on_its_lines_is_not_first_drawn_on_a_reading_across_a_smear() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        // Where the outline search and the flow put it; read across a smear, the lines not
        // followed: cut at the track's own corners, the reading agrees with it by construction.
        let mut smeared = read_beside_a_finger(right, 80, false);
        smeared.on_lines = false;
        for cell in &mut smeared.reading.0 {
            cell.smeared = true;
        }
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(!agrees);
        // Drawn already, it stays drawn over such a reading.
        track.confirmed = true;
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(agrees);
        // Once placed on its lines, such a reading may start a drawing again.
        track.confirmed = false;
        let sharp = read_beside_a_finger(right, 80, false);
        track.take_lines(&page, &current, &right, &sharp).unwrap();
        let (agrees, _) = track.take_lines(&page, &current, &right, &smeared).unwrap();
        assert!(agrees);
    }

    #[test]
    fn beside_something_over_the_grid_lines_near_a_grid_just_found_are_taken_and_later_not() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // Outlined with its bottom-left corner 6 px (a sixth of a cell) out, by a thumb over the
        // border; read with a cell beside the thumb hidden and the lines where the grid is.
        let outlined = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [144.0, 404.0]]);
        let found = found_at(outlined, false);
        let recognition = read_beside_a_finger(right, 72, false);
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        let (agrees, doubtful) = track
            .take_lines(&page, &current, &outlined, &recognition)
            .unwrap();
        assert!(!agrees && !doubtful);
        let now = track::quad_of(&track.image_from_grid);
        assert!(now.max_corner_distance(&right) < 0.5, "track at {now:?}");
        // Once on the lines, lines as far off beside the thumb are doubtful.
        let pulled = Recognition {
            quad: outlined,
            ..recognition
        };
        let (agrees, doubtful) = track.take_lines(&page, &current, &right, &pulled).unwrap();
        assert!(!agrees && doubtful);
        assert!(track::quad_of(&track.image_from_grid).max_corner_distance(&right) < 0.5);
    }

    #[test]
    fn beside_something_over_the_grid_lines_on_the_border_overrule_a_track_cut_off_it() {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        let right = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        // Outlined with its bottom-right corner 0.7 cell up (an outline cut along a thumb over
        // the bottom row), and already taken for on the lines; read beside the thumb with the
        // lines where the grid is. Without looking at the border this waited for 8 readings.
        let cut = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 379.0], [150.0, 404.0]]);
        let found = found_at(cut, false);
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        track.on_lines = true;
        let recognition = read_beside_a_finger(right, 76, false);
        let (agrees, doubtful) = track
            .take_lines(&page, &current, &cut, &recognition)
            .unwrap();
        assert!(!agrees && !doubtful);
        let now = track::quad_of(&track.image_from_grid);
        assert!(now.max_corner_distance(&right) < 0.5, "track at {now:?}");
        // On a blank frame the border tells nothing, and the lines are doubtful as before.
        let blank = Mat::new_rows_cols_with_default(
            480,
            640,
            opencv::core::CV_8UC1,
            opencv::core::Scalar::all(235.0),
        )
        .unwrap();
        let mut track = Track::start(&current, &found).unwrap().unwrap();
        track.on_lines = true;
        let (agrees, doubtful) = track
            .take_lines(&blank, &current, &cut, &recognition)
            .unwrap();
        assert!(!agrees && doubtful);
    }

    #[test]
    fn a_side_the_lines_were_not_seen_along_stays_where_the_track_has_it() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        track.on_lines = true;
        // Read with a hand over the right column's lower six cells, the lattice run on 8 px (a
        // fifth of a cell) past the grid at the bottom-right corner, along the bottom border.
        let mut reading = reading_of(&PUZZLE.parse().unwrap(), 0.9);
        for row in 3..9 {
            reading.0[row * 9 + 8] = reading.0[row * 9 + 8].hidden(0.3);
        }
        let run_on = Quad([[150.0, 80.0], [474.0, 80.0], [482.0, 404.0], [150.0, 404.0]]);
        // Hidden by nothing the anchor sees over the paper (the border bowed beyond the lines'
        // reach): the reading's corners are judged whole, and disagree.
        let read = read_at(run_on, reading, false);
        let (_, _, _, mut bowed) = track_on_drawn_grid(false);
        bowed.on_lines = true;
        let (agrees, _) = bowed.take_lines(&page, &current, &right, &read).unwrap();
        assert!(!agrees);
        // Under a hand the anchor sees there: the right side stays where the track has it.
        for row in 2..9 {
            track.covered_now[row * 9 + 7] = true;
            track.covered_now[row * 9 + 8] = true;
        }
        let (agrees, doubtful) = track.take_lines(&page, &current, &right, &read).unwrap();
        assert!(agrees && !doubtful);
        let now = track::quad_of(&track.image_from_grid);
        assert!(now.max_corner_distance(&right) < 0.5, "track at {now:?}");
        // The right side's lines seen (nothing over the grid): the grid is moved where they put it.
        let seen = reading_of(&PUZZLE.parse().unwrap(), 0.9);
        let (agrees, _) = track
            .take_lines(&page, &current, &right, &read_at(run_on, seen, false))
            .unwrap();
        assert!(!agrees);
        let now = track::quad_of(&track.image_from_grid);
        assert!(now.max_corner_distance(&run_on) < 0.5, "track at {now:?}");
        // A track never placed on its lines is only the outline's guess: the reading's corners
        // are taken whole.
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        track.take_lines(&page, &current, &right, &read).unwrap();
        let now = track::quad_of(&track.image_from_grid);
        assert!(now.max_corner_distance(&run_on) < 0.5, "track at {now:?}");
    }

    #[test]
    fn a_hand_under_the_anchor_is_something_over_the_grid_unless_the_reading_was_smeared() {
        let (page, current, right, mut track) = track_on_drawn_grid(false);
        track.on_lines = true;
        let recognition = read_beside_a_finger(right, 40, false);
        track
            .take_lines(&page, &current, &right, &recognition)
            .unwrap();
        let now = [false; 81];
        assert!(track.under_something(&now)[40]);
        assert_eq!(
            track.under_something(&now).iter().filter(|&&u| u).count(),
            1
        );
        // Hidden by the smear of the camera's motion, not by a hand.
        track.anchor_motion = f64::INFINITY;
        assert!(!track.under_something(&now).contains(&true));
        let mut changed = [false; 81];
        changed[3] = true;
        assert_eq!(track.under_something(&changed), changed);
    }

    #[test]
    fn a_side_is_hidden_where_most_of_its_cells_are() {
        let mut hidden = [false; 81];
        for cell in [8, 17, 26, 35, 72, 73, 74, 75, 76] {
            hidden[cell] = true;
        }
        // The right column four cells of nine, the bottom row five (and the corner cell 80 not).
        assert_eq!(sides_hidden(&hidden), [false, false, true, false]);
        hidden[80] = true;
        assert_eq!(sides_hidden(&hidden), [false, true, true, false]);
    }

    /// A drawn grid 324 px square (36 px cells) at (150, 80) in a 640 x 480 picture, the
    /// picture for tracking, the grid's corners, and a track of it just found (on a smeared
    /// frame or not).
    pub(in crate::video) fn track_on_drawn_grid(smeared: bool) -> (Mat, TrackFrame, Quad, Track) {
        let page = detect::tests::drawn_grid(640, 480, 150, 80, 324);
        let current = TrackFrame::new(&page).unwrap();
        let quad = Quad([[150.0, 80.0], [474.0, 80.0], [474.0, 404.0], [150.0, 404.0]]);
        let track = Track::start(&current, &found_at(quad, smeared))
            .unwrap()
            .unwrap();
        (page, current, quad, track)
    }

    /// The bend of paper whose grid, at `quad` (36 px cells), has its middle rows' lines bowed
    /// `cells` of a cell to the right.
    fn bowed_by(quad: &Quad, cells: f64) -> Option<Bend> {
        let mut bowed = crate::bend::Lattice::flat(quad).unwrap();
        for (r, row) in bowed.0.iter_mut().enumerate() {
            let v = r as f64 / 9.0;
            for p in row.iter_mut() {
                p[0] += 4.0 * cells * 36.0 * v * (1.0 - v);
            }
        }
        Bend::fit(&bowed, quad)
    }

    /// A dark grid found at `quad`, as clearly as a grid need be.
    pub(in crate::video) fn found_at(quad: Quad, smeared: bool) -> Detection {
        Detection {
            quad,
            score: detect::MIN_GRID_SCORE,
            ink: Ink::Dark,
            smeared,
            edge: Edge::Line,
            cut: false,
        }
    }

    #[test]
    fn an_anchor_set_while_the_grid_moved_is_set_again_once_it_moves_half_as_fast() {
        let (_, _, quad, mut track) = track_on_drawn_grid(true);
        // Found smeared: any steadier frame will do.
        track.motion = Some(Homography::translation(10.0, 0.0));
        assert!(steadier_than_anchor(&track, &quad));
        // Anchored while moving 4% of the side a frame: 3% is not steadier enough, 1.5% is.
        track.anchor_motion = 0.04;
        track.motion = Some(Homography::translation(0.03 * 324.0, 0.0));
        assert!(!steadier_than_anchor(&track, &quad));
        track.motion = Some(Homography::translation(0.015 * 324.0, 0.0));
        assert!(steadier_than_anchor(&track, &quad));
        // Anchored on a steady frame: never due on that account.
        track.anchor_motion = 0.01;
        track.motion = None;
        assert!(!steadier_than_anchor(&track, &quad));
    }

    #[test]
    fn a_fast_frame_on_which_flow_and_anchor_disagree_is_not_drawn_and_a_steady_one_is() {
        let (page, _, quad, mut track) = track_on_drawn_grid(false);
        track.confirmed = true;
        let mut drawn = |motion: f64, correction: f64| {
            track.motion = Some(Homography::translation(motion * 324.0, 0.0));
            track.correction = correction;
            held_to_print(&mut track, &quad, &page, None)
        };
        // Moving 7% of the side a frame: drawn while the anchor agrees with the flow, not
        // where it moved the grid 1.5% of the side.
        assert!(drawn(0.07, 0.003));
        assert!(!drawn(0.07, 0.015));
        // Steady, the same correction is the anchor taking out drift: drawn.
        assert!(drawn(0.01, 0.015));
        // Faster than the page can be drawn on at all: not drawn, agreeing or not.
        assert!(!drawn(0.13, 0.0));
    }
}
