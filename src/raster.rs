//! Borrowed views of 8-bit single-channel OpenCV images, for the per-pixel loops that would be
//! slow or awkward through OpenCV calls.

use opencv::core::{CV_8UC1, Mat};
use opencv::prelude::*;

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

    /// Bilinear interpolation at a sub-pixel position, clamped to the image.
    #[inline]
    pub fn sample(&self, x: f64, y: f64) -> f64 {
        let x = x.clamp(0.0, (self.width - 1) as f64);
        let y = y.clamp(0.0, (self.height - 1) as f64);
        let (x0, y0) = (x.floor() as usize, y.floor() as usize);
        let (x1, y1) = ((x0 + 1).min(self.width - 1), (y0 + 1).min(self.height - 1));
        let (fx, fy) = (x - x0 as f64, y - y0 as f64);
        let top = self.get(x0, y0) as f64 * (1.0 - fx) + self.get(x1, y0) as f64 * fx;
        let bottom = self.get(x0, y1) as f64 * (1.0 - fx) + self.get(x1, y1) as f64 * fx;
        top * (1.0 - fy) + bottom * fy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Rect, Scalar};

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
}
