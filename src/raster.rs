//! Borrowed views of 8-bit single-channel OpenCV images, for the per-pixel loops that would be
//! slow or awkward through OpenCV calls.

use opencv::core::{CV_8UC1, Mat};
use opencv::prelude::*;

/// A BGR picture in gray, as detection, tracking and reading work on it; a dim one (see
/// [`DIM_WHITE`]) brightened. A picture in gray already (a library caller's; the CLI loads
/// BGR) is taken as it is, and one in BGRA by its colour.
pub fn gray_of(bgr: &Mat) -> opencv::Result<Mat> {
    let mut gray = Mat::default();
    if bgr.channels() == 1 {
        bgr.copy_to(&mut gray)?;
    } else {
        opencv::imgproc::cvt_color(bgr, &mut gray, opencv::imgproc::COLOR_BGR2GRAY, 0)?;
    }
    brightened(gray)
}

/// A BGR picture by its darkest colour at each pixel (the least of blue, green and red), a dim
/// one brightened as by [`gray_of`]: ink of any colour shows dark on white paper there, where
/// in gray a green or red ink is light (a green at 132 of 255 on paper at 208).
pub fn darkest_of(bgr: &Mat) -> opencv::Result<Mat> {
    let mut channels = opencv::core::Vector::<Mat>::new();
    opencv::core::split(bgr, &mut channels)?;
    let mut darkest = channels.get(0)?;
    for channel in channels.iter().skip(1) {
        let mut less = Mat::default();
        opencv::core::min(&darkest, &channel, &mut less)?;
        darkest = less;
    }
    brightened(darkest)
}

/// `gray` brightened when dim (see [`DIM_WHITE`]).
pub(crate) fn brightened(gray: Mat) -> opencv::Result<Mat> {
    let white = white_level(&GrayView::new(&gray)?);
    if white >= DIM_WHITE {
        return Ok(gray);
    }
    // Up to the white of the dimmest pictures read as they are, so that the gray levels go on
    // smoothly across it as a camera's exposure drifts.
    let gain = (DIM_WHITE / white.max(1.0)).min(MOST_GAIN);
    let mut brightened = Mat::default();
    gray.convert_to(&mut brightened, CV_8UC1, gain, 0.0)?;
    Ok(brightened)
}

/// A picture whose white (see [`white_level`]) is darker than this is brightened up to it:
/// the ink, line and print-check thresholds are gray levels, so in a dim room the thin lines of
/// a page whose paper shows at 20-35 fell under them (Kubiesa pages at 0.13 and 0.16 of their
/// light, `photos::a_photo_taken_in_a_dim_room...`: 3 and 10 of 20 drawn, now 20 and 19); at 40
/// they just passed. The dimmest real photos of the datasets show their paper at 101 and are
/// read as they were.
pub const DIM_WHITE: f64 = 96.0;
/// At most this gain: it brightens the sensor's noise as much as the page, and past it the
/// noise crosses the thresholds the lines fell under (noisy pages at 0.12 of their light: 18 of
/// 20 drawn brightened 4 times, 4 of 20 brightened 8 times). A picture darker than this gain can
/// bring up to [`DIM_WHITE`] is still brightened by it, so that the gray levels go on smoothly
/// for tracking, but below [`READ_WHITE`] it is not read (see [`too_dark_to_read`]).
const MOST_GAIN: f64 = 4.0;

/// Whether a picture from [`gray_of`] is too dark to be read surely: its white under
/// 80 even brightened (see `READ_WHITE`). A grid in it may be followed, not read.
pub fn too_dark_to_read(gray: &Mat) -> opencv::Result<bool> {
    Ok(white_level(&GrayView::new(gray)?) < READ_WHITE)
}

/// The least white (as [`gray_of`] gives it) of a picture that is read: brightened 4 times, a
/// paper at 20. A hand-held video of a page filled in by hand at 0.08 of its light (its white
/// 8-19, sensor noise 4 gray levels) was read with four clues as empty, one added, and a wrong
/// solution drawn on 233 frames; those at 0.10-0.14 (white 10-35) drew right solutions, but a
/// grid found again darker than 20 where the frame's edge cut it was drawn 3.5% of its side off.
const READ_WHITE: f64 = 80.0;

/// The 99th percentile of a picture's gray levels (every 4th pixel of every 4th row): the
/// paper's white, as a rule, wherever the page lies in the picture.
///
/// ```
/// use opencv::core::{CV_8UC1, Mat, Scalar};
/// let dark = Mat::new_rows_cols_with_default(40, 40, CV_8UC1, Scalar::all(30.0)).unwrap();
/// let view = sudoku_ar::raster::GrayView::new(&dark).unwrap();
/// assert_eq!(sudoku_ar::raster::white_level(&view), 30.0);
/// ```
pub fn white_level(gray: &GrayView) -> f64 {
    Histogram::of(gray, 4).level_at(0.99)
}

/// How many of a picture's pixels lie at each gray level, for its percentiles (the paper's
/// white, how deep the ink lies).
///
/// ```
/// let mut histogram = sudoku_ar::raster::Histogram::default();
/// for level in [10, 200, 200, 250] {
///     histogram.add(level);
/// }
/// assert_eq!(histogram.level_at(0.25), 10.0);
/// assert_eq!(histogram.level_at(0.5), 200.0);
/// assert_eq!(histogram.level_at(0.9), 250.0);
/// ```
#[derive(Clone)]
pub struct Histogram {
    counts: [usize; 256],
    total: usize,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: [0; 256],
            total: 0,
        }
    }
}

impl Histogram {
    /// Every `step`th pixel of every `step`th row of `gray`.
    pub fn of(gray: &GrayView, step: usize) -> Self {
        let mut histogram = Histogram::default();
        for y in (0..gray.height).step_by(step) {
            for x in (0..gray.width).step_by(step) {
                histogram.add(gray.get(x, y));
            }
        }
        histogram
    }

    /// Counts one pixel at `level`.
    pub fn add(&mut self, level: u8) {
        self.counts[level as usize] += 1;
        self.total += 1;
    }

    /// Whether no pixel is counted.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The lowest level at or below which at least `share` (0-1) of the counted pixels lie
    /// (0 when none are counted).
    pub fn level_at(&self, share: f64) -> f64 {
        first_reaching(&self.counts, self.total, share) as f64
    }
}

/// The first index of `counts` (adding up to `total`) at or below which at least `share` of
/// the total lies; 0 when the total is.
fn first_reaching(counts: &[usize], total: usize, share: f64) -> usize {
    if total == 0 {
        return 0;
    }
    let wanted = ((share * total as f64).ceil() as usize).max(1);
    let mut seen = 0;
    counts
        .iter()
        .position(|&count| {
            seen += count;
            seen >= wanted
        })
        .unwrap_or(counts.len().saturating_sub(1))
}

/// Of the paper's level towards white, how far glare (a lamp's reflection) lies.
const GLARE_TOWARDS_WHITE: f64 = 0.5;
/// Glare's least level: a page half in a lamp's light shows its lit part about this light, and
/// its print there (a page of `kubiesa/02_04_iphone_14_0`, its lit paper at 220-235, was
/// withheld when taken for glare).
const GLARE_LEAST: f64 = 240.0;

/// The level from which a picture of paper at level `paper` is washed out by glare: half-way
/// from the paper to white, and at least 240 (`GLARE_LEAST`).
///
/// ```
/// assert_eq!(sudoku_ar::raster::glare_level(100.0), 240.0);
/// assert_eq!(sudoku_ar::raster::glare_level(235.0), 245.0);
/// ```
pub fn glare_level(paper: f64) -> f64 {
    (paper + GLARE_TOWARDS_WHITE * (255.0 - paper)).max(GLARE_LEAST)
}

/// `image` after the morphological operation `op` (`imgproc::MORPH_OPEN`, `MORPH_BLACKHAT`...)
/// with a `side` x `side` element of `shape` (`imgproc::MORPH_RECT`, `MORPH_ELLIPSE`); beyond
/// its edges the image is taken to go on as `border` says (`core::BORDER_REPLICATE`, or
/// `BORDER_CONSTANT`: black).
pub fn morphed(image: &Mat, op: i32, shape: i32, side: i32, border: i32) -> opencv::Result<Mat> {
    use opencv::core::{Point, Scalar, Size};
    let element =
        opencv::imgproc::get_structuring_element(shape, Size::new(side, side), Point::new(-1, -1))?;
    let mut out = Mat::default();
    opencv::imgproc::morphology_ex(
        image,
        &mut out,
        op,
        &element,
        Point::new(-1, -1),
        1,
        border,
        Scalar::all(0.0),
    )?;
    Ok(out)
}

/// The mean of `picture` over a box `across` pixels wide around each pixel (beyond its edges
/// the picture is taken to go on as it ends).
pub fn local_mean(picture: &Mat, across: i32) -> opencv::Result<Mat> {
    use opencv::core::{Point, Size};
    let mut local = Mat::default();
    opencv::imgproc::blur(
        picture,
        &mut local,
        Size::new(across, across),
        Point::new(-1, -1),
        opencv::core::BORDER_REPLICATE,
    )?;
    Ok(local)
}

/// Whether a picture's `darkest` colour ([`darkest_of`]) differs from its `gray` by more than
/// [`IN_COLOUR`] on average: a picture in colour at all (a gray picture, or a scan in black and
/// white, gives the same in both), worth looking at again in its darkest colour.
pub fn in_colour(gray: &Mat, darkest: &Mat) -> opencv::Result<bool> {
    let pixels = (gray.rows() * gray.cols()).max(1) as f64;
    let no_mask = opencv::core::no_array();
    let difference = opencv::core::norm2(gray, darkest, opencv::core::NORM_L1, &no_mask)?;
    Ok(difference / pixels > IN_COLOUR)
}

/// See [`in_colour`]: gray levels, on average over the picture.
pub const IN_COLOUR: f64 = 4.0;

/// How deep the darkest ink lies below the paper in `gray` over the grid `image_from_grid`
/// puts there, as a share of the paper's level: the paper at the 90th percentile of the grid's
/// pixels, the ink at the 3rd (its lines and clues cover a tenth of it or more). Black print
/// shows about as deep in a picture's gray as in its darkest colour ([`darkest_of`]), green
/// ink far less deep in gray. Looked at inside the grid only: a table beside a tilted grid's
/// corners would count as ink.
pub fn ink_depth(gray: &Mat, image_from_grid: &crate::geometry::Homography) -> opencv::Result<f64> {
    let view = GrayView::new(gray)?;
    let corners = crate::geometry::Quad::UNIT
        .0
        .map(|p| image_from_grid.apply(p));
    let side = crate::geometry::Quad(corners).mean_side();
    // About a sample a pixel, at most 300 a side: percentiles need no more.
    let steps = side.clamp(9.0, 300.0) as usize;
    let mut histogram = Histogram::default();
    for i in 0..steps {
        for j in 0..steps {
            let at = |k: usize| (k as f64 + 0.5) / steps as f64;
            let [x, y] = image_from_grid.apply([at(j), at(i)]);
            if view.contains([x, y]) {
                histogram.add(view.get(x as usize, y as usize));
            }
        }
    }
    if histogram.is_empty() {
        return Ok(0.0);
    }
    let (paper, ink) = (histogram.level_at(0.9), histogram.level_at(0.03));
    Ok((paper - ink) / paper.max(1.0))
}

/// The standard deviation of a gray picture's noise, in gray levels: Immerkaer's kernel, which
/// cancels smooth gradients and straight edges, taken at the median of its response (the
/// paper, most of any picture; the mean let a page dense with small print count as noisy) and
/// scaled to the sigma of Gaussian noise. Print and paper give little (the dataset photos
/// 0.0-2.7); a phone's grain in poor light gives 20-40.
pub fn noise_level(gray: &Mat) -> opencv::Result<f64> {
    let kernel = Mat::from_slice_2d(&[[1.0f32, -2.0, 1.0], [-2.0, 4.0, -2.0], [1.0, -2.0, 1.0]])?;
    let mut response = Mat::default();
    opencv::imgproc::filter_2d(
        gray,
        &mut response,
        opencv::core::CV_16S,
        &kernel,
        opencv::core::Point::new(-1, -1),
        0.0,
        opencv::core::BORDER_REPLICATE,
    )?;
    // The kernel's response to a gray level lies within 16 x 255 either way.
    const MOST: usize = 16 * 255;
    let mut counts = vec![0usize; MOST + 1];
    for row in 0..response.rows() {
        for &r in response.at_row::<i16>(row)? {
            counts[(r.unsigned_abs() as usize).min(MOST)] += 1;
        }
    }
    let median = first_reaching(&counts, (response.rows() * response.cols()) as usize, 0.5);
    // For Gaussian noise of sigma s the response is Gaussian of sigma 6 s (the kernel's
    // weights squared add up to 36), and its absolute value's median is 0.6745 of that.
    Ok(median as f64 / (0.6745 * 6.0))
}

/// A read-only view of a `CV_8UC1` image.
#[derive(Clone, Copy)]
pub struct GrayView<'a> {
    data: &'a [u8],
    pub width: usize,
    pub height: usize,
    stride: usize,
}

impl<'a> GrayView<'a> {
    /// Borrows `mat`, which must be 8-bit single-channel.
    pub fn new(mat: &'a Mat) -> opencv::Result<Self> {
        if mat.typ() != CV_8UC1 {
            return Err(opencv::Error::new(
                opencv::core::StsUnsupportedFormat,
                "expected an 8-bit gray image",
            ));
        }
        let (width, height) = (mat.cols() as usize, mat.rows() as usize);
        let stride = if height > 1 { mat.step1(0)? } else { width };
        let len = if height == 0 {
            0
        } else {
            stride * (height - 1) + width
        };
        // SAFETY: rows are `stride` bytes apart inside one allocation that lives as long as `mat`.
        let data = unsafe { std::slice::from_raw_parts(mat.data(), len) };
        Ok(GrayView {
            data,
            width,
            height,
            stride,
        })
    }

    #[inline]
    pub fn get(&self, x: usize, y: usize) -> u8 {
        self.data[y * self.stride + x]
    }

    /// Whether the sub-pixel position `[x, y]` lies on the image (between its first and last
    /// pixels' centres), where [`GrayView::sample`] needs no clamping.
    #[inline]
    pub fn contains(&self, [x, y]: [f64; 2]) -> bool {
        x >= 0.0 && y >= 0.0 && x <= (self.width - 1) as f64 && y <= (self.height - 1) as f64
    }

    /// Bilinear interpolation at a sub-pixel position, clamped to the image.
    #[inline]
    pub fn sample(&self, x: f64, y: f64) -> f64 {
        let x = x.clamp(0.0, (self.width - 1) as f64);
        let y = y.clamp(0.0, (self.height - 1) as f64);
        // Clamped to be non-negative: truncating is flooring, without a call into libm (which
        // took half the on-print check's time).
        let (x0, y0) = (x as usize, y as usize);
        let (x1, y1) = ((x0 + 1).min(self.width - 1), (y0 + 1).min(self.height - 1));
        let (fx, fy) = (x - x0 as f64, y - y0 as f64);
        let top = self.get(x0, y0) as f64 * (1.0 - fx) + self.get(x1, y0) as f64 * fx;
        let bottom = self.get(x0, y1) as f64 * (1.0 - fx) + self.get(x1, y1) as f64 * fx;
        top * (1.0 - fy) + bottom * fy
    }

    /// How sharply the picture changes each way: the summed absolute difference between
    /// neighbouring rows (what shows horizontal edges) and between neighbouring columns
    /// (vertical edges).
    pub fn sharpness_each_way(&self) -> Sharpness {
        let (mut down, mut across) = (0u64, 0u64);
        for y in 0..self.height.saturating_sub(1) {
            for x in 0..self.width.saturating_sub(1) {
                let here = self.get(x, y) as i32;
                down += (self.get(x, y + 1) as i32 - here).unsigned_abs() as u64;
                across += (self.get(x + 1, y) as i32 - here).unsigned_abs() as u64;
            }
        }
        Sharpness {
            down: down as f64,
            across: across as f64,
        }
    }
}

/// A picture smeared one way by the camera's motion changes across the smear less than this
/// share as sharply as along it: a grid of 20-32 pixel cells smeared by a quarter to half a cell
/// shows 0.5-0.8; a still one 0.9-1.1, blurred or not.
pub const SMEARED_SHARPNESS: f64 = 0.7;

/// [`GrayView::sharpness_each_way`]'s figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sharpness {
    /// From row to row: horizontal edges.
    pub down: f64,
    /// From column to column: vertical edges.
    pub across: f64,
}

impl Sharpness {
    /// Whether the picture is smeared from side to side: vertical edges blurred, horizontal
    /// ones not.
    pub fn smeared_across(&self) -> bool {
        self.across < SMEARED_SHARPNESS * self.down
    }

    /// Whether the picture is smeared up and down.
    pub fn smeared_down(&self) -> bool {
        self.down < SMEARED_SHARPNESS * self.across
    }

    /// Whether the picture is smeared one way more than the other.
    pub fn smeared(&self) -> bool {
        self.smeared_across() || self.smeared_down()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Rect, Scalar};

    #[test]
    fn a_share_reached_exactly_is_reached_at_its_level() {
        // 99 of 100 pixels at 10: the 99th percentile is 10, not the one bright pixel (the
        // paper's white took the 99th percentile so before the histograms were shared).
        let mut histogram = Histogram::default();
        (0..99).for_each(|_| histogram.add(10));
        histogram.add(200);
        assert_eq!(histogram.level_at(0.99), 10.0);
        assert_eq!(histogram.level_at(0.995), 200.0);
        assert_eq!(Histogram::default().level_at(0.5), 0.0);
    }

    /// A BGR picture of paper at `white` with a dark line across it (ink at a fifth of it).
    fn page(white: f64) -> Mat {
        let mut bgr =
            Mat::new_rows_cols_with_default(60, 80, opencv::core::CV_8UC3, Scalar::all(white))
                .unwrap();
        let mut line = Mat::roi_mut(&mut bgr, Rect::new(0, 30, 80, 2)).unwrap();
        line.set_to(&Scalar::all(white / 5.0), &opencv::core::no_array())
            .unwrap();
        bgr
    }

    #[test]
    fn a_picture_in_gray_or_bgra_gives_the_gray_of_its_bgr() {
        let bgr = page(180.0);
        let expected = gray_of(&bgr).unwrap();
        let mut gray = Mat::default();
        opencv::imgproc::cvt_color(&bgr, &mut gray, opencv::imgproc::COLOR_BGR2GRAY, 0).unwrap();
        let mut bgra = Mat::default();
        opencv::imgproc::cvt_color(&bgr, &mut bgra, opencv::imgproc::COLOR_BGR2BGRA, 0).unwrap();
        for other in [gray, bgra] {
            let got = gray_of(&other).unwrap();
            let mut differ = Mat::default();
            opencv::core::absdiff(&got, &expected, &mut differ).unwrap();
            assert_eq!(opencv::core::count_non_zero(&differ).unwrap(), 0);
        }
    }

    #[test]
    fn a_dim_picture_is_brightened_smoothly_and_a_lit_one_left_alone() {
        let gray_at = |white: f64, y: i32| {
            let gray = gray_of(&page(white)).unwrap();
            *gray.at_2d::<u8>(y, 10).unwrap()
        };
        // Lit: as it is.
        assert_eq!((gray_at(180.0, 5), gray_at(180.0, 30)), (180, 36));
        // Dim: paper brought up to DIM_WHITE, the ink with it (its contrast grows alike).
        assert_eq!((gray_at(32.0, 5), gray_at(32.0, 30)), (96, 18));
        // Just under DIM_WHITE hardly changes: no jump as a camera's exposure drifts across it.
        assert!(gray_at(94.0, 5).abs_diff(96) <= 1);
        // At most MOST_GAIN: a nearly black picture is noise, not a page.
        assert_eq!(gray_at(10.0, 5), 40);
    }

    #[test]
    fn a_picture_too_dark_to_read_is_told() {
        let too_dark = |white: f64| too_dark_to_read(&gray_of(&page(white)).unwrap()).unwrap();
        assert!(!too_dark(180.0));
        assert!(!too_dark(30.0));
        assert!(!too_dark(21.0));
        assert!(too_dark(19.0));
        assert!(too_dark(8.0));
    }

    #[test]
    fn reads_pixels_and_interpolates() {
        let mut mat = Mat::new_rows_cols_with_default(4, 6, CV_8UC1, Scalar::all(0.0)).unwrap();
        *mat.at_2d_mut::<u8>(1, 2).unwrap() = 100;
        *mat.at_2d_mut::<u8>(1, 3).unwrap() = 200;
        let view = GrayView::new(&mat).unwrap();
        assert_eq!(view.get(2, 1), 100);
        assert!((view.sample(2.5, 1.0) - 150.0).abs() < 1e-9);
        assert_eq!(view.sample(-5.0, 99.0), 0.0);
    }

    #[test]
    fn a_picture_smeared_one_way_is_told_from_a_sharp_or_evenly_blurred_one() {
        // Lines 2 pixels wide every 16, as a grid's, dark on light; smeared by 8 pixels side to
        // side (half a cell); blurred evenly by 5 both ways. The measure is the total change,
        // which a blur keeps for a lone edge: it falls where the two edges of a line blur into
        // each other.
        let mut board = Mat::new_rows_cols_with_default(64, 64, CV_8UC1, Scalar::all(0.0)).unwrap();
        for y in 0..64 {
            for x in 0..64 {
                let on_line = x % 16 < 2 || y % 16 < 2;
                *board.at_2d_mut::<u8>(y, x).unwrap() = if on_line { 40 } else { 220 };
            }
        }
        let blurred = |w: i32, h: i32| {
            let mut out = Mat::default();
            opencv::imgproc::blur_def(&board, &mut out, opencv::core::Size::new(w, h)).unwrap();
            out
        };
        let sharpness = |m: &Mat| GrayView::new(m).unwrap().sharpness_each_way();
        assert!(!sharpness(&board).smeared());
        let smeared = blurred(8, 1);
        assert!(sharpness(&smeared).smeared_across());
        assert!(!sharpness(&smeared).smeared_down());
        assert!(!sharpness(&blurred(5, 5)).smeared());
    }

    #[test]
    fn views_a_region_of_interest_with_its_stride() {
        let mut mat = Mat::new_rows_cols_with_default(10, 10, CV_8UC1, Scalar::all(7.0)).unwrap();
        *mat.at_2d_mut::<u8>(5, 5).unwrap() = 9;
        let roi = Mat::roi(&mat, Rect::new(4, 4, 3, 3))
            .unwrap()
            .try_clone()
            .unwrap();
        let view = GrayView::new(&roi).unwrap();
        assert_eq!((view.width, view.height, view.get(1, 1)), (3, 3, 9));
    }

    /// A grid's box of white paper with ink of `ink` (BGR) over a sixth of it, in rows.
    fn inked(ink: [f64; 3]) -> Mat {
        let paper = Scalar::new(230.0, 230.0, 230.0, 0.0);
        let mut bgr =
            Mat::new_rows_cols_with_default(90, 90, opencv::core::CV_8UC3, paper).unwrap();
        for row in (0..90).step_by(18) {
            let mut stroke = Mat::roi_mut(&mut bgr, Rect::new(10, row + 5, 70, 3)).unwrap();
            let colour = Scalar::new(ink[0], ink[1], ink[2], 0.0);
            stroke.set_to(&colour, &opencv::core::no_array()).unwrap();
        }
        bgr
    }

    #[test]
    fn green_ink_lies_far_deeper_in_the_darkest_colour_than_in_gray_and_black_ink_alike() {
        let grid = crate::geometry::Homography::scaling(90.0);
        let depths = |ink: [f64; 3]| {
            let bgr = inked(ink);
            let gray = ink_depth(&gray_of(&bgr).unwrap(), &grid).unwrap();
            let darkest = ink_depth(&darkest_of(&bgr).unwrap(), &grid).unwrap();
            (gray, darkest)
        };
        let (gray, darkest) = depths([30.0, 30.0, 30.0]);
        assert!((gray - 0.87).abs() < 0.01 && (darkest - gray).abs() < 0.01);
        // Green at 132 in gray (the photos test's green channel at 204).
        let (gray, darkest) = depths([30.0, 204.0, 30.0]);
        assert!(gray < 0.45 && darkest > 0.85, "{gray} {darkest}");
        // A picture with its colour at all: the green page, not a gray one.
        let green = inked([30.0, 204.0, 30.0]);
        assert!(in_colour(&gray_of(&green).unwrap(), &darkest_of(&green).unwrap()).unwrap());
        let black = inked([30.0, 30.0, 30.0]);
        assert!(!in_colour(&gray_of(&black).unwrap(), &darkest_of(&black).unwrap()).unwrap());
    }
}
