//! Tracking's steps on 1080p frames of `testvideos/hd.mp4` (a hand-held camera over a
//! printed page), on one OpenCV thread as the 3 ms target says: shrinking a frame for
//! tracking, following the crossings from one frame to the next, and aligning the tracked grid
//! to the anchor (the reference picture taken at lock).
//!
//! Run: `cargo bench --bench track`.

#[path = "../tests/common/videos.rs"]
mod videos;

use criterion::{Criterion, criterion_group, criterion_main};
use opencv::core::Mat;
use std::hint::black_box;
use sudoku_ar::geometry::{Homography, Quad};
use sudoku_ar::recognize::detect::{self, Look};
use sudoku_ar::video::anchor::{Alignment, Anchor};
use sudoku_ar::video::capture::FrameSource;
use sudoku_ar::video::file::VideoFile;
use sudoku_ar::video::track::{self, TrackFrame};

/// The first `count` frames of the video, gray.
fn frames(count: usize) -> Vec<Mat> {
    let path = videos::videos_dir().join("hd.mp4");
    let mut source = VideoFile::open(&path, false).expect("open hd.mp4");
    let mut frames = Vec::new();
    while frames.len() < count {
        let Ok(Some(frame)) = source.next_frame() else {
            break;
        };
        frames.push(frame.gray().expect("gray"));
    }
    frames
}

fn tracking(c: &mut Criterion) {
    opencv::core::set_num_threads(1).expect("one OpenCV thread");
    let gray = frames(31);
    let small: Vec<TrackFrame> = gray
        .iter()
        .map(|g| TrackFrame::new(g).expect("shrink"))
        .collect();
    let found = detect::find_grid(&gray[0], Look::OneOfMany)
        .expect("detect")
        .expect("a grid on the first frame");
    let first = Homography::from_quads(&Quad::UNIT, &found.quad).expect("a homography");
    // Whole in view with its margin: whether its border shows near the edge is not asked.
    let anchor = Anchor::new(&small[0], &first, false, (&[false; 81], None))
        .expect("anchor")
        .expect("the grid whole in view");
    // The grid on each frame, followed from the first as the vision stage does.
    let mut on_frame = vec![first];
    for pair in small.windows(2) {
        let last = *on_frame.last().expect("a first frame");
        let next = track::track(&pair[0], &pair[1], &last, &last)
            .expect("flow")
            .map_or(last, |t| t.image_from_grid);
        on_frame.push(next);
    }
    let (from, to) = (29, 30);
    assert!(matches!(
        anchor
            .align(&small[to], &on_frame[to], false)
            .expect("align"),
        Alignment::Anchored(_)
    ));

    c.bench_function("track shrink a 1080p frame", |b| {
        b.iter(|| TrackFrame::new(black_box(&gray[to])))
    });
    c.bench_function("track the crossings to the next frame", |b| {
        b.iter(|| {
            track::track(
                black_box(&small[from]),
                black_box(&small[to]),
                &on_frame[from],
                &on_frame[from],
            )
        })
    });
    c.bench_function("track align to the anchor", |b| {
        b.iter(|| anchor.align(black_box(&small[to]), black_box(&on_frame[to]), false))
    });
    c.bench_function("track align to the anchor, comparing the digits", |b| {
        b.iter(|| anchor.align(black_box(&small[to]), black_box(&on_frame[to]), true))
    });
}

criterion_group!(benches, tracking);
criterion_main!(benches);
