//! A grid printed in coloured ink, live: faint in a frame's gray, it is searched for now and
//! then, read and checked against the print in the frame's darkest colour, made only on the
//! frames that ask for it ([`Colours`]). Black print shows as deep in gray as in the darkest
//! colour, and costs nothing here but the occasional search.

use std::time::Instant;

use opencv::core::Mat;
use opencv::prelude::*;

use crate::error::Result;
use crate::raster::{darkest_of, in_colour, ink_depth};
use crate::recognize::detect::{self, Detection, Ink, Look};
use crate::video::picture::Picture;
use crate::video::track::TrackFrame;
use crate::video::tracked::{Track, view_of};
use crate::video::vision::{PuzzleView, VisionTimes};

/// A frame's colours: a grid printed in coloured ink is searched for, read and checked against
/// the print in the frame's darkest colour, made only on the frames that ask for it, once.
pub struct Colours<'a> {
    source: Source<'a>,
    darkest: Option<Mat>,
}

#[derive(Clone, Copy)]
enum Source<'a> {
    /// A frame given in gray alone.
    Gray,
    Bgr(&'a Mat),
    Picture(&'a Picture),
}

impl<'a> Colours<'a> {
    /// None: a frame given in gray alone.
    pub fn none() -> Colours<'a> {
        Colours::of_source(Source::Gray)
    }

    /// A BGR frame's.
    pub fn of_bgr(bgr: &'a Mat) -> Colours<'a> {
        Colours::of_source(Source::Bgr(bgr))
    }

    /// A frame as its source gave it.
    pub fn of_picture(picture: &'a Picture) -> Colours<'a> {
        Colours::of_source(Source::Picture(picture))
    }

    fn of_source(source: Source<'a>) -> Colours<'a> {
        Colours {
            source,
            darkest: None,
        }
    }

    /// The frame by its darkest colour ([`darkest_of`]); None for a frame in gray.
    pub(super) fn darkest(&mut self) -> Result<Option<&Mat>> {
        if self.darkest.is_none() {
            self.darkest = match self.bgr()? {
                Some(bgr) => Some(darkest_of(&bgr)?),
                None => None,
            };
        }
        Ok(self.darkest.as_ref())
    }

    /// The frame in BGR; None for a frame in gray.
    pub(super) fn bgr(&self) -> Result<Option<std::borrow::Cow<'a, Mat>>> {
        Ok(match self.source {
            Source::Bgr(bgr) if bgr.channels() == 3 => Some(std::borrow::Cow::Borrowed(bgr)),
            Source::Picture(picture) => Some(picture.bgr()?),
            Source::Bgr(_) | Source::Gray => None,
        })
    }

    /// The frame as a track's grid is read and checked against the print in: its darkest
    /// colour when the grid is printed in coloured ink, else `gray`.
    pub(super) fn shown_for<'b>(&'b mut self, track: &Track, gray: &'b Mat) -> Result<&'b Mat> {
        if track.coloured_ink != Some(true) {
            return Ok(gray);
        }
        Ok(self.darkest()?.unwrap_or(gray))
    }
}

/// How many times as deep (see [`ink_depth`]) the ink must lie in a frame's darkest colour as
/// in its gray for the grid to be read in its darkest colour. Over the published outline's box
/// of the 160 Wicht and 80 Kubiesa photos (black print on white or tinted paper, blue
/// handwriting) 0.98-1.19 times, blurred by 2.5 px 0.92-1.20; the Wicht pages with their green
/// channel set to 204 (green ink at 132 of 255 in gray), 2.49-3.78 times, blurred 2.48-3.91.
/// A ratio, not a difference: blur makes thin ink shallower in both alike (the difference fell
/// from 0.27 to 0.14 on a green page under the simulated hand-held camera).
const COLOURED_INK: f64 = 1.6;
/// Ink shallower than this in gray is taken as this deep: a frame that shows hardly any ink in
/// gray (nothing printed, washed out) is no sign of coloured ink.
const LEAST_INK_DEPTH: f64 = 0.05;

/// Settles, on the track's first reading, whether its grid is printed in coloured ink, to be
/// read and checked against the print in the frame's darkest colour: by how many times as
/// deep the ink lies there as in gray over the grid. A puzzle printed in green ink reads faint
/// in gray (Wicht pages with their green channel at 204, under the simulated camera: read as
/// no puzzle or as turned, 13 of 14 never drawn), and its faint lines fail the print check.
/// Such a grid costs a conversion to colour on each frame it is followed.
pub(super) fn settle_coloured_ink(
    track: &mut Track,
    gray: &Mat,
    colours: &mut Colours,
) -> Result<()> {
    if track.coloured_ink.is_some() {
        return Ok(());
    }
    // Light ink on a dark screen: its darkest colour is no deeper ink.
    let darkest = match track.ink {
        Ink::Dark => colours.darkest()?,
        Ink::Light => None,
    };
    let Some(darkest) = darkest else {
        track.coloured_ink = Some(false);
        return Ok(());
    };
    let grid = &track.image_from_grid;
    let (in_darkest, in_gray) = (ink_depth(darkest, grid)?, ink_depth(gray, grid)?);
    tracing::debug!(
        in_darkest,
        in_gray,
        "the ink's depth in the darkest colour and in gray"
    );
    track.coloured_ink = Some(in_darkest > COLOURED_INK * in_gray.max(LEAST_INK_DEPTH));
    Ok(())
}

/// [`view_of`] a grid printed in coloured ink: its print looked for in the frame's darkest
/// colour, where its lines show as dark as black print's do in gray.
pub(super) fn view_in_colour(
    track: &mut Track,
    gray: &Mat,
    colours: &mut Colours,
) -> Result<PuzzleView> {
    let shown = colours.shown_for(track, gray)?;
    let small = TrackFrame::new(shown)?;
    Ok(view_of(track, shown, Some(&small)))
}

/// Every how many frames searched in vain the search looks at the frame's darkest colour too,
/// on the frames between the finer search's (see `vision::FINE_SEARCH_EVERY`).
const COLOUR_SEARCH_EVERY: u32 = 4;

/// Whether the frame after `searched_in_vain` frames searched in vain is searched in its
/// darkest colour (see [`search_in_colour`]).
pub(super) fn colour_search_due(searched_in_vain: u32) -> bool {
    searched_in_vain % COLOUR_SEARCH_EVERY == COLOUR_SEARCH_EVERY - 1
}

/// The least score ([`detect::grid_score`]) of a grid found in the darkest colour: a second
/// search is a second chance for a poor outline, so it is taken only where it frames a grid
/// clearly. Green newspaper pages under the hand-held camera were found so at 0.88-0.92; an
/// app's page bowed by 0.45 of a cell at 0.63, sooner than the search in gray found it, and
/// followed from there it was drawn on 142 frames fewer (`cargo bench --bench curved`, noise 6).
const COLOUR_FOUND_LEAST: f64 = 0.8;

/// The outline search on the frame's darkest colour, when it is in colour at all
/// ([`in_colour`]): a grid printed in green ink on a blurred newspaper page shows too faintly
/// in gray to be found (under the simulated hand-held camera, 3 of 8 such pages found 25-176
/// frames after they were whole in view, or never). Only a grid it frames clearly
/// ([`COLOUR_FOUND_LEAST`]).
pub(super) fn search_in_colour(
    colours: &mut Colours,
    gray: &Mat,
    times: &mut VisionTimes,
) -> Result<Option<Detection>> {
    let start = Instant::now();
    let Some(darkest) = colours.darkest()? else {
        return Ok(None);
    };
    let found = if in_colour(gray, darkest)? {
        detect::find_grid(darkest, Look::OneOfMany)?.filter(|d| d.score >= COLOUR_FOUND_LEAST)
    } else {
        None
    };
    times.add_detect(start.elapsed());
    if let Some(found) = &found {
        tracing::debug!(score = found.score, "found a grid in the darkest colour");
    }
    Ok(found)
}
