//! Screens: screenshots of Sudoku apps and websites in light, dark and sepia themes, phone and
//! web layouts, with highlighted cells, pencil marks, typed entries, a number pad, a timer and
//! buttons around the grid, drawn in fonts the model never saw; and photos of a monitor.

mod common;

use common::screens::{self, HELD_OUT_FONTS, Layout, Screen, Style, THEMES};
use opencv::core::Scalar;
use opencv::imgproc;
use opencv::prelude::*;
use sudoku_ar::photo::{PhotoPipeline, StageTimes};
use sudoku_ar::recognize::verdict::Status;

fn puzzles() -> Vec<String> {
    let text = include_str!("puzzles/top95.txt");
    text.lines()
        .filter(|l| l.len() >= 81 && !l.starts_with('#'))
        .map(|l| l[..81].to_string())
        .collect()
}

/// Every theme, layout and held-out font, with highlights, pencil marks and entries in turn.
pub fn screenshots() -> Vec<Screen> {
    let puzzles = puzzles();
    let mut out = Vec::new();
    let mut k = 0usize;
    for theme in THEMES {
        for layout in [Layout::Phone, Layout::Web] {
            for font in HELD_OUT_FONTS {
                let style = Style {
                    theme,
                    layout,
                    font,
                    highlights: k.is_multiple_of(2),
                    pencil_marks: !k.is_multiple_of(3),
                    entries: k % 4 < 2,
                };
                out.push(screens::render(
                    &puzzles[k % puzzles.len()],
                    style,
                    k as u64,
                ));
                k += 1;
            }
        }
    }
    out
}

/// What went wrong with one screen, or None when it was read perfectly and solved.
fn check(pipeline: &mut PhotoPipeline, screen: &Screen) -> Option<String> {
    let puzzle = match pipeline.process(&screen.image, &mut StageTimes::default()) {
        Ok(Some(puzzle)) => puzzle,
        Ok(None) => return Some("no grid found".into()),
        Err(err) => return Some(err.to_string()),
    };
    let side = screen.corners.mean_side();
    let error = puzzle.quad.max_corner_distance(&screen.corners) / side;
    let misread: Vec<String> = (0..81)
        .filter_map(|i| {
            let shown = screen.givens[i].max(screen.entries[i]);
            let read = puzzle.reading.0[i].digit;
            (read != shown).then(|| format!("cell {i}: {shown} read {read}"))
        })
        .collect();
    let solved =
        puzzle.status == Status::Solved && puzzle.solution.map(|s| s.0) == Some(screen.solution);
    if error > 0.015 || !misread.is_empty() || !solved {
        return Some(format!(
            "corner error {:.2}%, {:?}, misread [{}]",
            100.0 * error,
            puzzle.status,
            misread.join(", ")
        ));
    }
    None
}

fn score(screens: &[Screen], label: &str) -> usize {
    let mut pipeline = common::pipeline();
    let mut perfect = 0;
    for screen in screens {
        match check(&mut pipeline, screen) {
            None => perfect += 1,
            Some(problem) => {
                println!("{label}: {}: {problem}", screen.name);
                if let Some(dir) = std::env::var_os("SCREENS_DIR") {
                    let path = std::path::Path::new(&dir)
                        .join(format!("{}.png", screen.name.replace(' ', "_")));
                    let _ = opencv::imgcodecs::imwrite(
                        &*path.to_string_lossy(),
                        &screen.image,
                        &opencv::core::Vector::new(),
                    );
                }
            }
        }
    }
    println!(
        "{label}: {perfect}/{} read perfectly and solved",
        screens.len()
    );
    perfect
}

#[test]
fn screenshots_in_held_out_fonts_and_all_themes_are_read() {
    let shots = screenshots();
    let perfect = score(&shots, "screenshots");
    assert!(
        perfect * 100 >= shots.len() * 85,
        "{perfect}/{}",
        shots.len()
    );
}

#[test]
fn photos_of_a_monitor_are_read() {
    let shots: Vec<Screen> = screenshots()
        .iter()
        .step_by(3)
        .enumerate()
        .map(|(k, s)| screens::photographed(s, 100 + k as u64))
        .collect();
    let perfect = score(&shots, "photos of a screen");
    assert!(
        perfect * 100 >= shots.len() * 90,
        "{perfect}/{}",
        shots.len()
    );
}

#[test]
fn number_pad_and_buttons_without_a_grid_are_no_puzzle() {
    let mut pipeline = common::pipeline();
    for mut screen in screenshots().into_iter().step_by(8) {
        // Paint over the grid with the page's own colour: the number pad, timer and buttons stay.
        let [x0, y0] = screen.corners.0[0];
        let [x1, y1] = screen.corners.0[2];
        let bg = *screen.image.at_2d::<opencv::core::Vec3b>(2, 2).unwrap();
        let rect = opencv::core::Rect::new(
            x0 as i32 - 6,
            y0 as i32 - 6,
            (x1 - x0) as i32 + 12,
            (y1 - y0) as i32 + 12,
        );
        let colour = Scalar::new(bg[0] as f64, bg[1] as f64, bg[2] as f64, 0.0);
        imgproc::rectangle(&mut screen.image, rect, colour, -1, imgproc::LINE_8, 0).unwrap();
        let found = pipeline
            .process(&screen.image, &mut StageTimes::default())
            .unwrap();
        assert!(
            found.is_none(),
            "{}: found {:?}",
            screen.name,
            found.map(|p| p.quad)
        );
    }
}

/// Floors a little under what was measured: never drawn off, every screen locked, and the
/// right solution on 83-100% of the frames after lock (the dark web page loses its track for a
/// few frames at the quick shake and under the finger, and is recognised again late).
#[test]
fn dark_and_light_screens_under_a_hand_held_camera() {
    use common::camera::{self, Camera, Clip, Page, Script};
    use sudoku_ar::grid::Grid;
    let puzzles = puzzles();
    let pages: Vec<Page> = [
        (1usize, Layout::Web),
        (3, Layout::Phone),
        (0, Layout::Phone),
    ]
    .into_iter()
    .enumerate()
    .map(|(k, (theme, layout))| {
        let style = Style {
            theme: THEMES[theme],
            layout,
            font: HELD_OUT_FONTS[(2 * k + 1) % HELD_OUT_FONTS.len()],
            highlights: true,
            pencil_marks: k != 1,
            entries: k != 2,
        };
        let screen = screens::render(&puzzles[40 + k], style, 300 + k as u64);
        Page {
            name: screen.name.clone(),
            image: screen.image,
            corners: screen.corners,
            published: screen.corners,
            clues: Grid(screen.givens),
            solution: Grid(screen.solution),
        }
    })
    .collect();
    let names: Vec<String> = pages.iter().map(|p| p.name.clone()).collect();
    let mut failures = 0;
    for i in 0..pages.len() {
        let clip = Clip::new(Script::Handheld, vec![i], &names, 500 + i as u64);
        let camera = Camera::new(&pages, &clip).expect("camera");
        let run = camera::run(common::pipeline_reader(), &camera);
        let score = common::videos::score(&run.truth, &run.seen);
        if std::env::var_os("DUMP_STATES").is_some() {
            for (seen, truth) in run.seen.iter().zip(&run.truth) {
                let state = seen.puzzle.as_ref().map_or("-".to_string(), |p| {
                    format!(
                        "{}{}",
                        p.status,
                        if p.solution.is_some() { "*" } else { "" }
                    )
                });
                println!("{} {} truth {}", seen.frame, state, truth.puzzles.len());
            }
        }
        let delays: Vec<Option<u64>> = score.appearances.iter().map(|a| a.lock_delay).collect();
        println!(
            "{}: lock {:?}, right after lock {:.1}%, >5% off {}",
            clip.name,
            delays,
            100.0 * score.right_share(),
            score.wrong_frames.len()
        );
        failures += usize::from(
            !score.wrong_frames.is_empty()
                || delays.iter().all(|d| d.is_none())
                // The dark-blue phone screen loses its track at the quick shake and under the
                // finger, and is recognised again late (nothing drawn meanwhile): 85% right after
                // lock with model v6, 80.1% with v8, 79.7% once a sure first reading is judged.
                || score.right_share() < 0.75,
        );
    }
    assert_eq!(failures, 0);
}
