//! The on-print check (`on_print`), which runs on every frame a solution is drawn on:
//! a grid of 44-pixel cells drawn on a 960x540 frame (a 1080p frame as the check sees it,
//! shrunk for tracking), looked at where it lies and half a cell off.
//!
//! Run: `cargo bench --bench on_print`.

use criterion::{Criterion, criterion_group, criterion_main};
use opencv::core::{CV_8UC1, Mat, Point, Scalar};
use opencv::imgproc;
use std::hint::black_box;
use sudoku_ar::bend::Lattice;
use sudoku_ar::geometry::Quad;
use sudoku_ar::on_print::{Lines, PrintCheck, drawn_off_the_print};
use sudoku_ar::raster::GrayView;

const LEFT: i32 = 260;
const TOP: i32 = 70;
const CELL: i32 = 44;

/// A printed grid: thin cell lines, thick box lines, on light paper, slightly blurred.
fn page() -> Mat {
    let mut page =
        Mat::new_rows_cols_with_default(540, 960, CV_8UC1, Scalar::all(225.0)).expect("page");
    for i in 0..10 {
        let thickness = if i % 3 == 0 { 3 } else { 1 };
        let at = i * CELL;
        for (from, to) in [
            (
                Point::new(LEFT + at, TOP),
                Point::new(LEFT + at, TOP + 9 * CELL),
            ),
            (
                Point::new(LEFT, TOP + at),
                Point::new(LEFT + 9 * CELL, TOP + at),
            ),
        ] {
            imgproc::line(
                &mut page,
                from,
                to,
                Scalar::all(40.0),
                thickness,
                imgproc::LINE_AA,
                0,
            )
            .expect("line");
        }
    }
    let mut blurred = Mat::default();
    imgproc::gaussian_blur_def(&page, &mut blurred, opencv::core::Size::new(3, 3), 0.8)
        .expect("blur");
    blurred
}

fn lattice_at(x: f64, y: f64) -> Lattice {
    let side = 9.0 * CELL as f64;
    Lattice::flat(&Quad::UNIT.scaled(side).translated(x, y)).expect("a square")
}

fn on_print(c: &mut Criterion) {
    let page = page();
    let view = GrayView::new(&page).expect("gray");
    let on = lattice_at(LEFT as f64, TOP as f64);
    let off = lattice_at(LEFT as f64 + 0.5 * CELL as f64, TOP as f64);
    assert!(
        !drawn_off_the_print(&view, &on, Lines::All),
        "drawn on its lines"
    );
    assert!(
        drawn_off_the_print(&view, &off, Lines::All),
        "drawn half a cell off"
    );
    c.bench_function("on_print drawn on the lines", |b| {
        b.iter(|| drawn_off_the_print(black_box(&view), black_box(&on), Lines::All))
    });
    c.bench_function("on_print drawn half a cell off", |b| {
        b.iter(|| drawn_off_the_print(black_box(&view), black_box(&off), Lines::All))
    });
    let mut check = PrintCheck::default();
    c.bench_function("on_print a tracked frame drawn on the lines", |b| {
        b.iter(|| {
            check.next_frame();
            check.drawn_off(black_box(&view), black_box(&on), [0.0; 2], false)
        })
    });
}

criterion_group!(benches, on_print);
criterion_main!(benches);
