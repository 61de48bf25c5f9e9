//! The vision stage under a simulated hand-held camera over 32 real pages from ../shared/data
//! (tests/common/camera.rs): every frame rendered in memory, scored against truth corners found
//! independently of the project's detector. The targets of issue 9 are in the README; these
//! are the floors that must hold.

mod common;

use common::camera::{self, Script};
use common::handheld;

#[test]
fn simulated_handheld_camera_over_real_pages() {
    let pages = camera::pages();
    assert!(
        pages.len() >= 30,
        "only {} pages found in {}",
        pages.len(),
        common::data_dir().display()
    );
    let results = handheld::run_all(&pages, &camera::clips(&pages), 2);
    let totals = handheld::totals(&pages, &results);
    eprintln!("{}", totals.summary());

    // The worst failure: digits drawn in the wrong place, or with no puzzle in view.
    assert_eq!(
        totals.wrong_frames, 0,
        "frames drawn more than 5% of the side off"
    );
    assert_eq!(
        totals.phantom_frames, 0,
        "frames drawn with no puzzle in view"
    );
    // Telling somebody a right answer is wrong: every entry on these pages is right.
    assert_eq!(totals.false_marks, 0, "frames circling a right entry");
    // Measured p99 1.03% and max 2.28% (1.01% / 3.16% with NOISE_SEED=0); before re-checks waited for
    // a steady grid, 1.9% and 4.7%. The noise varies with the order clips run in, hence the margin.
    assert!(
        totals.error_at(0.99) <= 0.015,
        "corner error p99 {:.2}%",
        100.0 * totals.error_at(0.99)
    );
    // Session 10 added glare clips: max 3.32% in the default run (a track beside the spot at
    // 3.0-3.3% on `glare:image36`), 0.7-1.4% on the glare clips alone under other noise.
    // Session 12: 2.00% in the default run, 3.30% under NOISE_SEED=3 (one frame of a fast
    // sweep). Session 18: 1.82% default, 1.43 / 1.71 / 1.75% under NOISE_SEED=3 / 5 / 7 (p99
    // 0.98 / 0.93 / 0.95 / 0.94%); the floor keeps room for the noise varying with clip order.
    assert!(
        totals.error_at(1.0) <= 0.045,
        "corner error max {:.2}%",
        100.0 * totals.error_at(1.0)
    );
    assert!(
        totals.right_share >= 0.98,
        "right after lock {:.2}%",
        100.0 * totals.right_share
    );

    // Locking: most appearances within 20 frames of being whole in view (the target is 10 for
    // all; measured in session 7: median 10, 28 of 46 within 10, 44 within 20, none never).
    let appearances = totals.lock_delays.len() + totals.never_locked;
    let quick = totals.lock_delays.iter().filter(|&&d| d <= 20).count();
    assert!(
        quick as f64 >= 0.7 * appearances as f64,
        "locked within 20 frames: {quick} of {appearances}"
    );

    // A thumb holding the page over a clue the puzzle needs (4 s): the digits every solution
    // of the clues in view agrees on are drawn meanwhile. Session 20: right digits 10-12
    // frames after the page is whole in view on every thumb clip; before, 100-105 on the two
    // whose needed clue was under the thumb.
    for r in results.iter().filter(|r| r.clip.script == Script::Thumb) {
        let digits = r.score.appearances.first().and_then(|a| a.digits_delay);
        assert!(
            digits.is_some_and(|d| d <= 30),
            "{}: first right digits {digits:?} frames after whole in view",
            r.clip.name
        );
    }

    // No drift: on the 30 s pans, the last 5 s are no worse than the first 5.
    for r in results.iter().filter(|r| r.clip.script == Script::Pan) {
        let (first, last) = camera::first_and_last(&r.run, 5.0);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        assert!(
            !last.is_empty(),
            "{}: nothing drawn in the last 5 s",
            r.clip.name
        );
        assert!(
            mean(&last) <= mean(&first) + 0.002,
            "{}: drift from {:.2}% to {:.2}%",
            r.clip.name,
            100.0 * mean(&first),
            100.0 * mean(&last)
        );
    }
}

/// A page held with its grid a little beyond the frame's edge (0.15-0.6 of a cell, left or
/// bottom), then brought whole into view. Before session 37 a grid cut so was outlined with a
/// corner just inside the frame and followed: drawn from frame 23 with a corner 4.8% of the
/// side off (`cut:01_18`), as in videos made for it with a corner 0.4 of a cell off for a
/// second, or a track half a cell short never drawn again once whole.
#[test]
fn a_page_held_cut_by_the_frames_edge_is_drawn_only_once_whole_and_in_its_cells() {
    // Measured 1-11 frames: a grid is followed from its outline once half a cell inside the
    // frame, and the page eases in over its last cell.
    for (name, delay) in near_the_edge(Script::Cut, 1, 700) {
        assert!(
            delay.is_some_and(|d| d <= 15),
            "{name}: drawn {delay:?} frames after whole in view"
        );
    }
}

/// Runs 8 clips of `script` over every 4th page from `first`, seeds from `seed`, each drawn
/// with no corner more than 2% of the side off; each clip's name and lock delay.
fn near_the_edge(script: Script, first: usize, seed: u64) -> Vec<(String, Option<u64>)> {
    let pages = camera::pages();
    let names: Vec<String> = pages.iter().map(|p| p.name.clone()).collect();
    (0..8)
        .map(|k| {
            let page = (4 * k + first) % pages.len();
            let clip = camera::Clip::new(script, vec![page], &names, seed + k as u64);
            let result = handheld::run_clip(&pages, &clip);
            eprintln!("{}", result.line());
            let worst = result
                .score
                .corner_errors
                .iter()
                .copied()
                .fold(0.0, f64::max);
            assert!(
                worst <= 0.02,
                "{}: drawn with a corner {:.1}% of the side off",
                clip.name,
                100.0 * worst
            );
            let delay = result.score.appearances.first().and_then(|a| a.lock_delay);
            (clip.name, delay)
        })
        .collect()
}

/// A page held close, whole in view with its border 0.1-0.45 of a cell from the frame's edge
/// (left or bottom) all along, as a phone filming a puzzle that fills its picture: it must be
/// drawn, in its cells.
#[test]
fn a_page_held_close_with_its_border_near_the_frames_edge_is_drawn_in_its_cells() {
    // Measured (session 39): 8 of 8 drawn from the first frame (2 before, after 70 and 122).
    let drawn = near_the_edge(Script::Close, 3, 800)
        .iter()
        .filter(|(_, delay)| delay.is_some_and(|d| d <= 15))
        .count();
    assert!(drawn >= 7, "{drawn} of 8 drawn within 15 frames");
}

/// Noise realisations in which sweeps over `NOISE_SEED` found the overlay drawn a cell off:
/// thumb:image13 (its left border washed out by the light, a finger over the bottom border)
/// was outlined with a corner a cell in, and the lines inside agreed with it. Under seed 28,
/// 115 frames 8-11% of the side off (session 20); under 21, one frame 10.5% off.
#[test]
fn noise_that_once_drew_a_cell_off_draws_nothing_off() {
    let pages = camera::pages();
    let mut clip = camera::clips_named(&pages, Some("thumb:image13"))
        .into_iter()
        .next()
        .expect("thumb:image13 clip");
    for seed in [21, 28] {
        clip.noise_seed = Some(seed);
        let result = handheld::run_clip(&pages, &clip);
        eprintln!("NOISE_SEED={seed} {}", result.line());
        assert!(
            result.score.wrong_frames.is_empty(),
            "NOISE_SEED={seed}: frames off {:?}",
            result.score.wrong_frames
        );
    }
}

/// A puzzle held still far from a 1080p camera (its grid 145 px across; at 160 px, as this
/// test had it until session 72, the first search finds it now): the vision stage's search at
/// 960 px (the frame halved) misses its cell lines, the finer search every few frames finds it
/// (on the 4th frame); solved where it is, with the truth's digits.
#[test]
fn a_puzzle_held_far_from_the_camera_is_found_and_solved_in_video() {
    assert_far_puzzle_solved_before(false, 8);
}

/// The same puzzle far from the camera in light ink on dark (an app in a dark theme, filmed):
/// the finer search looks in each ink in turn, light on every second of its frames (the 8th).
#[test]
fn a_puzzle_held_far_from_the_camera_in_light_ink_is_found_and_solved_in_video() {
    assert_far_puzzle_solved_before(true, 12);
}

/// Asserts that a Kubiesa puzzle held 145 px across in a still 1080p frame (its `negative` if
/// asked) is solved on one of its first `frames`, every frame drawn within 3% of the side of
/// its truth.
fn assert_far_puzzle_solved_before(negative: bool, frames: usize) {
    use sudoku_ar::recognize::verdict::Status;
    use sudoku_ar::video::several::Visions;
    let samples = common::kubiesa_val();
    let sample = samples
        .iter()
        .find(|s| s.path.ends_with("01_31_iphone_14_0.jpg"))
        .expect("kubiesa photos-val in ../shared/data (or set SUDOKU_DATA)");
    let (mut frame, expected) = common::far_away(sample, 145.0);
    if negative {
        let mut inverted = opencv::core::Mat::default();
        opencv::core::bitwise_not_def(&frame, &mut inverted).expect("negative");
        frame = inverted;
    }
    let mut vision = Visions::new(common::pipeline_reader());
    let solved_from = (0..16).find(|_| {
        let view = vision.process(&frame).expect("frame");
        view.puzzle.is_some_and(|p| {
            let off = p.quad.max_corner_distance(&expected) / expected.mean_side();
            assert!(off < 0.03, "drawn {:.1}% off", 100.0 * off);
            p.solved.is_some_and(|k| k.status == Status::Solved)
        })
    });
    assert!(
        solved_from.is_some_and(|i| i < frames),
        "solved from {solved_from:?}"
    );
}

/// Two puzzles side by side in view (a newspaper prints two, a book four to a page): both are
/// followed and solved, each drawn on its own grid; before session 35 only the first was.
#[test]
fn two_puzzles_in_view_are_both_solved_in_video() {
    use sudoku_ar::video::several::Visions;
    let samples = common::kubiesa_val();
    let pair: Vec<_> = ["01_28_iphone_14_0.jpg", "02_02_iphone_14_0.jpg"]
        .iter()
        .map(|name| {
            samples
                .iter()
                .find(|s| s.path.ends_with(name))
                .expect("kubiesa photos-val in ../shared/data (or set SUDOKU_DATA)")
        })
        .collect();
    let (frame, truth) = common::puzzles_together(&pair, 300.0, 2);
    let mut vision = Visions::new(common::pipeline_reader());
    let mut both_from = None;
    for i in 0..12 {
        let view = vision.process(&frame).expect("frame");
        let drawn: Vec<_> = view
            .puzzle
            .iter()
            .chain(&view.others)
            .filter(|p| p.solved.is_some())
            .collect();
        for p in &drawn {
            let off = common::off_nearest(&p.quad, &truth);
            assert!(off < 0.03, "frame {i}: drawn {:.1}% off", 100.0 * off);
        }
        let apart = drawn.len() == 2
            && drawn[0].quad.max_corner_distance(&drawn[1].quad) > 0.5 * truth[0].mean_side();
        if apart && both_from.is_none() {
            both_from = Some(i);
        }
    }
    // Measured: both from frame 0 (the second stage looks on the first frame).
    assert!(both_from.is_some_and(|i| i < 8), "both from {both_from:?}");
}

/// Fails naming `clip` if any frame drew a solution not the puzzle's, far from its cells, or
/// with no puzzle in view.
fn assert_nothing_drawn_wrong(clip: &str, score: &common::videos::VideoScore) {
    assert!(
        score.wrong_frames.is_empty() && score.phantom_frames.is_empty(),
        "{clip}: wrong on frames {:?}, phantom on {:?}",
        score.wrong_frames,
        score.phantom_frames
    );
}

/// A page swapped in place for another puzzle of the same pattern (`camera::relabelled`: its
/// clues relabelled, cut from its own cells), under the hand's wobble, a finger passing over
/// the new one: every empty cell, line and shadow stays, so the track holds on and only the
/// digits tell the puzzles apart. The old solution is never drawn on the new page, and the new
/// one is solved. Measured (session 80): before, the old solution stayed drawn on the new page
/// until the routine re-reading (`image21` 14 frames, `01_13` 8); now the anchor sees the
/// digits changed on the swap frame (77-100% of them look like another cell's), the grid is
/// read again at once, and the new puzzle is drawn 1-2 frames after the swap.
#[test]
fn a_page_swapped_for_one_of_the_same_pattern_never_shows_the_old_solution() {
    let mut pages = camera::pages();
    let chosen = ["image21.jpg", "image1040.jpg", "01_13_honor_view_10_0.jpg"];
    for (k, name) in chosen.iter().enumerate() {
        let page = pages
            .iter()
            .position(|p| p.name == *name)
            .expect("a page of the simulated set");
        let twin = camera::relabelled(&pages[page]).expect("relabelled page");
        assert_ne!(twin.solution, pages[page].solution);
        pages.push(twin);
        let names: Vec<String> = pages.iter().map(|p| p.name.clone()).collect();
        let clip = camera::Clip::new(
            Script::Swap,
            vec![page, pages.len() - 1],
            &names,
            1100 + k as u64,
        );
        let result = handheld::run_clip(&pages, &clip);
        eprintln!("{}", result.line());
        let score = &result.score;
        assert_nothing_drawn_wrong(&clip.name, score);
        let locks: Vec<_> = score.appearances.iter().map(|a| a.lock_delay).collect();
        assert!(
            locks.len() == 2 && locks.iter().all(|d| d.is_some_and(|d| d <= 30)),
            "{}: locked {locks:?} frames after whole in view",
            clip.name
        );
    }
}

/// Pages printed in green ink (`camera::printed_in_green`) under the hand-held camera. In gray
/// their ink is faint: the blurred newspaper pages were not found (the outline search), or
/// found and read as no puzzle, or read and drawn along their faint lines a third of a cell
/// off. A frame in colour is now also searched in its darkest colour now and then
/// (`colour::search_in_colour`), and a grid whose ink lies far deeper there than in gray is read
/// and checked against the print there (`colour::settle_coloured_ink`). Measured (session 81,
/// these 8 pages): before, 3 never drawn, `image111` drawn 167 frames after whole in view and
/// `image1040` drawn up to 4.3% of the side off; now locked 9-11 frames after whole in view,
/// corners at most 1.05% off.
#[test]
fn a_page_printed_in_green_ink_is_found_read_and_drawn_in_its_cells() {
    let pages: Vec<_> = camera::pages()
        .iter()
        .filter(|p| GREEN_PAGES.contains(&p.name.as_str()))
        .map(|p| camera::printed_in_green(p).expect("page in green"))
        .collect();
    assert_eq!(pages.len(), GREEN_PAGES.len(), "pages of the simulated set");
    let names: Vec<String> = pages.iter().map(|p| p.name.clone()).collect();
    let mut failed = Vec::new();
    for page in 0..pages.len() {
        let clip = camera::Clip::new(Script::Handheld, vec![page], &names, 1200 + page as u64);
        let result = handheld::run_clip(&pages, &clip);
        eprintln!("{}", result.line());
        let score = &result.score;
        assert_nothing_drawn_wrong(&clip.name, score);
        let lock = score.appearances.first().and_then(|a| a.lock_delay);
        if lock.is_none_or(|d| d > 15) || score.worst_corner_error > 0.02 {
            failed.push(format!(
                "{}: locked {lock:?} frames after whole in view, corners up to {:.2}% off",
                clip.name,
                100.0 * score.worst_corner_error
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// See [`a_page_printed_in_green_ink_is_found_read_and_drawn_in_its_cells`]: the blurred
/// newspaper pages, the larger Wicht photos and Kubiesa's, 8 of the simulated set.
const GREEN_PAGES: &[&str] = &[
    "image8.jpg",
    "image30.jpg",
    "image43.jpg",
    "image111.jpg",
    "image1006.jpg",
    "image1040.jpg",
    "01_13_honor_view_10_0.jpg",
    "01_20_honor_view_10_0.jpg",
];

/// Hand-held clips of 6 pages filmed in a dim room, at 0.12 of the photos' light (the paper at
/// 16-27 of 255, and 10-18 while the light dims further), the sensor's noise as in the light.
/// Each frame is brightened before it is looked at (`raster::gray_of`) and read only where
/// bright enough to be read surely. At 0.05 (the paper at 7-12) nothing is read, and nothing
/// drawn. Measured (session 63): locked 11, 20, 12, 15, 11 and 14 frames after whole in view,
/// right after lock 96.2-99.5%, corners at most 2.08% of the side off; before frames were
/// brightened, 31, never, 14, 25, 35 and 180 (right after lock 58.5% on `01_04`).
#[test]
fn a_page_filmed_in_a_dim_room_is_drawn_in_its_cells_and_one_too_dark_not_at_all() {
    let pages = camera::pages();
    let names: Vec<String> = pages.iter().map(|p| p.name.clone()).collect();
    let mut worst = 0.0f64;
    for k in 0..6 {
        // The larger Wicht photos and the Kubiesa ones: the blurriest 640x480 pages are not
        // legible in so dim a room even at their true corners.
        let page = (14 + 3 * k) % pages.len();
        let mut clip = camera::Clip::new(Script::Handheld, vec![page], &names, 900 + k as u64);
        for light in [0.12, 0.05] {
            clip.light = light;
            let result = handheld::run_clip(&pages, &clip);
            eprintln!("light {light}: {}", result.line());
            let score = &result.score;
            assert_nothing_drawn_wrong(&format!("{} at {light} of the light", clip.name), score);
            if light < 0.1 {
                assert!(
                    score.corner_errors.is_empty(),
                    "{} drawn at {light} of the light",
                    clip.name
                );
                continue;
            }
            let delay = score.appearances.first().and_then(|a| a.lock_delay);
            assert!(
                delay.is_some_and(|d| d <= 25),
                "{}: locked {delay:?} frames after whole in view",
                clip.name
            );
            assert!(
                score.right_share() >= 0.95,
                "{}: right after lock on {:.1}% of frames",
                clip.name,
                100.0 * score.right_share()
            );
            worst = worst.max(score.corner_errors.iter().copied().fold(0.0, f64::max));
        }
    }
    eprintln!("dim room: corners at most {:.2}% off", 100.0 * worst);
    assert!(
        worst <= 0.025,
        "a corner drawn {:.2}% of the side off",
        100.0 * worst
    );
}

/// A right hand writing in the cells with a pen, from 2.5 s after the page slid in: palm,
/// fingers and forearm over a quarter of the grid and more, moving on a cell every 0.7 s
/// (`Script::Writing`). Before session 64 the hand's edge, taken for ink by the anchor's slip
/// test, matched the digits better a cell over: the track was dropped as slipped with the
/// puzzle solved, and with the clues under the hand it could not be read again (on
/// `testvideos/stress/writing.py`'s videos the solution went for 3 s; here 01_01 lost 1.4% of
/// its frames after lock, NOISE_SEED=3).
#[test]
fn a_hand_writing_over_the_page_keeps_the_solution_drawn_in_its_cells() {
    let pages = camera::pages();
    let clips = camera::writing_clips(&pages);
    let mut worst = 0.0f64;
    for name in WRITTEN_ON {
        let page = (pages.iter())
            .position(|p| p.name == name)
            .expect("a page of the set");
        let clip = &clips[page];
        let result = handheld::run_clip(&pages, clip);
        eprintln!("{}", result.line());
        let score = &result.score;
        assert!(
            score.wrong_frames.is_empty() && score.phantom_frames.is_empty(),
            "{}: wrong on frames {:?}, phantom on {:?}",
            clip.name,
            score.wrong_frames,
            score.phantom_frames
        );
        assert!(
            score.right_share() >= 0.99,
            "{}: right after lock on {:.1}% of frames",
            clip.name,
            100.0 * score.right_share()
        );
        worst = worst.max(score.corner_errors.iter().copied().fold(0.0, f64::max));
    }
    eprintln!("writing: corners at most {:.2}% off", 100.0 * worst);
    assert!(
        worst <= 0.025,
        "a corner drawn {:.2}% of the side off",
        100.0 * worst
    );
}

/// Pages the writing hand goes over: filled in by hand, and printed newspaper pages.
const WRITTEN_ON: [&str; 4] = [
    "01_01_honor_view_10_0.jpg",
    "01_15_honor_view_10_0.jpg",
    "image1040.jpg",
    "image26.jpg",
];
