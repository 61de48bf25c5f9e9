//! Screens: screenshots of Sudoku apps and websites in light, dark and sepia themes, phone and
//! web layouts, with highlighted cells, pencil marks, typed entries, a number pad, a timer and
//! buttons around the grid, drawn in fonts the model never saw; and photos of a monitor.

mod common;

use common::curved::{CurvedPage, worst_cells_drawn};
use common::screens::{self, Border, HELD_OUT_FONTS, Layout, Screen, Style, THEMES, puzzles};
use opencv::core::Scalar;
use opencv::imgproc;
use opencv::prelude::*;
use sudoku_ar::photo::{PhotoPipeline, StageTimes};
use sudoku_ar::recognize::verdict::Status;

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
                    mistakes: false,
                    border: Border::Line,
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
    // A flat screen's cells lie on its lines: the on-print check must not withhold them.
    puzzle
        .off_print
        .then(|| "solved, but not drawn: taken for off the printed lines".into())
}

/// Saves `screen` to the folder `SCREENS_DIR` names, if any: a screen that fails, to look at.
fn save_for_a_look(screen: &Screen) {
    if let Some(dir) = std::env::var_os("SCREENS_DIR") {
        let path =
            std::path::Path::new(&dir).join(format!("{}.png", screen.name.replace(' ', "_")));
        let _ = opencv::imgcodecs::imwrite(
            &*path.to_string_lossy(),
            &screen.image,
            &opencv::core::Vector::new(),
        );
    }
}

/// The puzzle the photo pipeline draws on `screen`: solved, and not withheld as off the print.
fn drawn_on(pipeline: &mut PhotoPipeline, screen: &Screen) -> Option<sudoku_ar::photo::Puzzle> {
    pipeline
        .process(&screen.image, &mut StageTimes::default())
        .ok()
        .flatten()
        .filter(|p| !p.off_print && p.solution.is_some())
}

fn score(screens: &[Screen], label: &str) -> usize {
    let mut pipeline = common::pipeline();
    let mut perfect = 0;
    for screen in screens {
        match check(&mut pipeline, screen) {
            None => perfect += 1,
            Some(problem) => {
                println!("{label}: {}: {problem}", screen.name);
                save_for_a_look(screen);
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

/// Photos of a monitor closer up, striped by its moire (curved, 2.5-6 px apart, 10-25% deep:
/// `screens::under_moire`), in the light and sepia themes, whose pale cell lines the stripes
/// cross as lines would: the grid check took the grid for none, or a box of it for the grid.
/// A second look at the picture smoothed by a pixel reads them. None may be solved wrong.
#[test]
fn photos_of_a_monitor_striped_by_its_moire_are_read() {
    let shots: Vec<Screen> = screenshots()
        .iter()
        .filter(|s| s.name.starts_with("light") || s.name.starts_with("sepia"))
        .enumerate()
        .map(|(k, s)| screens::under_moire(&screens::photographed(s, 300 + k as u64), k as u64))
        .collect();
    let mut pipeline = common::pipeline();
    let mut wrong = Vec::new();
    for shot in &shots {
        if let Some(puzzle) = drawn_on(&mut pipeline, shot)
            && puzzle.solution.map(|s| s.0) != Some(shot.solution)
        {
            wrong.push(shot.name.clone());
        }
    }
    let perfect = score(&shots, "photos of a screen under moire");
    assert!(wrong.is_empty(), "solved wrong: {wrong:?}");
    // Measured: 27 of 32 (23 without the second look, session 84).
    assert!(perfect >= 26, "{perfect}/{}", shots.len());
}

/// A screenshot of a game in progress with two entries typed wrong (one shown in the app's
/// colour for a mistake, one as any entry), flat and photographed off a monitor: solved from
/// its givens, told from the entries by their colour, and no right entry circled. Read in gray
/// alone, the wrong entries were clues that break the rules: none of these was solved from its
/// givens (session 75: 15 of 15 flat and 8 of 15 photographed; session 83, the inks told also
/// by the way each darkens the screen, and givens of several inks: 13 of 15, the two left not
/// found, or a given on a highlighted cell taken for an entry).
#[test]
fn a_game_with_entries_typed_wrong_is_solved_from_its_givens() {
    let puzzles = puzzles();
    let mut pipeline = common::pipeline();
    let (mut solved, mut shots) = ([0, 0], [0, 0]);
    let (mut circled, mut mistakes) = ([0, 0], [0, 0]);
    for (k, theme) in THEMES.into_iter().enumerate() {
        for (j, layout) in [Layout::Phone, Layout::Web].into_iter().enumerate() {
            for (f, font) in HELD_OUT_FONTS.iter().enumerate().skip(k + j).step_by(4) {
                let style = Style {
                    theme,
                    layout,
                    font,
                    highlights: f % 2 == 0,
                    pencil_marks: false,
                    entries: true,
                    mistakes: true,
                    border: Border::Line,
                };
                let seed = (40 + 8 * k + 2 * j + f) as u64;
                let flat = screens::render(&puzzles[seed as usize % puzzles.len()], style, seed);
                let photo = screens::photographed(&flat, seed + 100);
                for (kind, screen) in [flat, photo].into_iter().enumerate() {
                    shots[kind] += 1;
                    mistakes[kind] += screen.mistakes.len();
                    let puzzle = pipeline
                        .process(&screen.image, &mut StageTimes::default())
                        .ok()
                        .flatten();
                    let Some(puzzle) = puzzle.filter(|p| {
                        p.solution.map(|s| s.0) == Some(screen.solution)
                            && p.clues.0 == screen.givens
                    }) else {
                        println!("{}: not solved from its givens", screen.name);
                        save_for_a_look(&screen);
                        continue;
                    };
                    solved[kind] += 1;
                    let wrong = puzzle.wrong_entries();
                    assert!(
                        wrong.iter().all(|c| screen.mistakes.contains(c)),
                        "{}: right entries circled: {wrong:?}, mistakes {:?}",
                        screen.name,
                        screen.mistakes
                    );
                    circled[kind] += wrong.len();
                }
            }
        }
    }
    println!(
        "games with entries typed wrong, solved from their givens: flat {}/{}, photographed {}/{}; wrong entries circled: flat {} of {}, photographed {} of {}",
        solved[0], shots[0], solved[1], shots[1], circled[0], mistakes[0], circled[1], mistakes[1]
    );
    assert_eq!(solved[0], shots[0], "flat screenshots");
    assert!(
        solved[1] * 100 >= shots[1] * 80,
        "photographed: {}/{}",
        solved[1],
        shots[1]
    );
    let (circled, mistakes) = (circled[0] + circled[1], mistakes[0] + mistakes[1]);
    assert!(circled * 100 >= mistakes * 80, "{circled}/{mistakes}");
}

/// The `k`th borderless screen's style: a held-out font, highlights, pencil marks and entries
/// in turn.
fn borderless_style(theme: screens::Theme, layout: Layout, border: Border, k: usize) -> Style {
    Style {
        theme,
        layout,
        font: HELD_OUT_FONTS[k % HELD_OUT_FONTS.len()],
        highlights: k.is_multiple_of(2),
        pencil_marks: k % 3 == 1,
        entries: k % 4 < 2,
        mistakes: false,
        border,
    }
}

/// Apps that print no outer border: the grid is a card of plain colour on a tinted page, or its
/// nine boxes are tiles with the page showing between them (a dark theme's card darker than the
/// page, a light one's lighter). Every theme and layout, both kinds, flat and photographed off a
/// monitor. Before session 38 none of these was found (no border line to outline).
#[test]
fn an_app_grid_with_no_printed_border_is_read_from_its_card_or_tiles() {
    let puzzles = puzzles();
    let mut flat = Vec::new();
    let mut k = 0usize;
    for border in [Border::Card, Border::Tiles] {
        for theme in THEMES {
            for layout in [Layout::Phone, Layout::Web] {
                let style = borderless_style(theme, layout, border, k);
                let mut screen = screens::render(&puzzles[20 + k], style, 500 + k as u64);
                screen.name = format!("{} ({border:?})", screen.name);
                flat.push(screen);
                k += 1;
            }
        }
    }
    let photographed: Vec<Screen> = flat
        .iter()
        .enumerate()
        .map(|(k, s)| screens::photographed(s, 600 + k as u64))
        .collect();
    let flat_read = score(&flat, "no border, flat");
    // Photographed off a monitor, the card's edge fades into the screen's light falloff: what is
    // drawn must still be right and in place.
    let mut pipeline = common::pipeline();
    let (mut drawn, mut wrong) = (0, Vec::new());
    for screen in &photographed {
        let Some(puzzle) = drawn_on(&mut pipeline, screen) else {
            save_for_a_look(screen);
            continue;
        };
        drawn += 1;
        let error = puzzle.quad.max_corner_distance(&screen.corners) / screen.corners.mean_side();
        if puzzle.solution.map(|s| s.0) != Some(screen.solution) || error > 0.03 {
            wrong.push(format!(
                "{}: corner error {:.2}%",
                screen.name,
                100.0 * error
            ));
        }
    }
    println!("no border, photographed: {drawn} of 16 drawn, wrong or off: {wrong:?}");
    // Measured (session 38): flat 16 of 16; photographed 9 of 16 drawn, none wrong or off
    // (where the screen's light falls off, the card's faint edge fades into the page's tint).
    // With other puzzles and seeds (render 800+, photo 900+): flat 15 (one drawn 2.2% off at a
    // corner), photographed 7. Session 39 (sides on the lattice of the lines inside, no border
    // line followed or judged): photographed 11 of 16; on 64 other renders (seeds 1000+ and
    // 2000+, half photographed) 31 of 32 flat and 21 of 32 photographed drawn, none off.
    // Session 47 (a card's corner cut by a highlighted cell put back): 12 -> 13 photographed.
    assert!(flat_read >= 15, "{flat_read} of 16 flat");
    assert!(wrong.is_empty(), "drawn wrong or off: {wrong:?}");
    assert!(drawn >= 9, "{drawn} of 16 photographed drawn");
}

/// `screen` shrunk so that its longer side is `share` of 1280 px and laid on a 1920x1280
/// picture of one `background` gray, `along` (0 to 1) the room left each way: a screenshot
/// pasted small into a page, a phone photographed from afar.
fn laid_small(screen: &Screen, share: f64, background: f64, along: [f64; 2]) -> Screen {
    use opencv::core::{Mat, Rect, Size};
    let (w, h) = (screen.image.cols() as f64, screen.image.rows() as f64);
    let scale = share * 1280.0 / w.max(h);
    let size = Size::new((w * scale).round() as i32, (h * scale).round() as i32);
    let mut small = Mat::default();
    imgproc::resize(
        &screen.image,
        &mut small,
        size,
        0.0,
        0.0,
        imgproc::INTER_AREA,
    )
    .unwrap();
    let x = (along[0] * (1920 - size.width) as f64).floor();
    let y = (along[1] * (1280 - size.height) as f64).floor();
    let mut image =
        Mat::new_rows_cols_with_default(1280, 1920, opencv::core::CV_8UC3, Scalar::all(background))
            .unwrap();
    let at = Rect::new(x as i32, y as i32, size.width, size.height);
    small
        .copy_to(&mut Mat::roi_mut(&mut image, at).unwrap())
        .unwrap();
    let (sx, sy) = (size.width as f64 / w, size.height as f64 / h);
    shown_as(
        screen,
        format!("{} at {share} on {background}", screen.name),
        image,
        |[u, v]| [x + (u + 0.5) * sx - 0.5, y + (v + 0.5) * sy - 0.5],
    )
}

/// `screen`'s puzzle in another picture of it, `image`, named `name`, each of its corners
/// where `place` puts it.
fn shown_as(
    screen: &Screen,
    name: String,
    image: opencv::core::Mat,
    place: impl Fn([f64; 2]) -> [f64; 2],
) -> Screen {
    Screen {
        name,
        image,
        corners: sudoku_ar::geometry::Quad(screen.corners.0.map(place)),
        givens: screen.givens,
        entries: screen.entries,
        mistakes: screen.mistakes.clone(),
        solution: screen.solution,
    }
}

/// An app's grid with no border line in a screenshot laid small in a larger picture, its
/// longer side a third to seven tenths of the picture's height, on a gray or a dark picture: the
/// whole picture's search blurs over a fortieth of it, about a cell there; the photo is searched
/// again in windows of it (session 40). What is drawn must be right and within 1.5% of the side.
#[test]
fn an_app_grid_with_no_border_line_small_in_a_larger_picture_is_found() {
    let puzzles = puzzles();
    let mut pipeline = common::pipeline();
    let (mut drawn, mut cases, mut wrong) = (0, 0, Vec::new());
    for (k, border) in [Border::Card, Border::Tiles]
        .into_iter()
        .cycle()
        .take(8)
        .enumerate()
    {
        let theme = THEMES[k % THEMES.len()];
        let layout = if k % 4 < 2 {
            Layout::Phone
        } else {
            Layout::Web
        };
        let style = borderless_style(theme, layout, border, k);
        let screen = screens::render(&puzzles[60 + k], style, 1100 + k as u64);
        for (share, background) in [(0.35, 128.0), (0.5, 40.0), (0.7, 128.0), (0.7, 40.0)] {
            let along = [0.1 + 0.11 * k as f64, 0.9 - 0.1 * k as f64];
            let small = laid_small(&screen, share, background, along);
            cases += 1;
            let Some(puzzle) = drawn_on(&mut pipeline, &small) else {
                save_for_a_look(&small);
                continue;
            };
            drawn += 1;
            let error = puzzle.quad.max_corner_distance(&small.corners) / small.corners.mean_side();
            if puzzle.solution.map(|s| s.0) != Some(small.solution) || error > 0.015 {
                save_for_a_look(&small);
                wrong.push(format!(
                    "{}: corner error {:.2}%",
                    small.name,
                    100.0 * error
                ));
            }
        }
    }
    println!("no border, laid small: {drawn} of {cases} drawn, wrong or off: {wrong:?}");
    assert!(wrong.is_empty(), "drawn wrong or off: {wrong:?}");
    // Measured (session 40): 30 of 32 drawn, none wrong or off; of the first 24 (no dark
    // phone on the dark picture), 17 before the windows. The two dark phone screens on the dark
    // picture were drawn 3.0% off at a corner (the app's page strip to the picture taken in),
    // 1.77% with the outline rule alone (`recognize::SEEN_BORDER_AGREES`), under 1.5% now that a
    // screen's border goes on its lattice (`Edge::ScreenLine`). Session 47: 32 of 32, the two
    // light phone screens at 0.7 found now that the card's corner, cut off by its highlighted
    // (selected) cell, is put back (`detect::outlines::CLOSER`).
    assert!(drawn >= 30, "{drawn} of {cases} drawn");
}

/// `screen` cropped to its grid: each side `inset` (left, top, right, bottom; shares of a cell)
/// inside the middle of its border (outside, where negative), and shrunk to `scale`.
fn cropped_to_the_grid(screen: &Screen, inset: [f64; 4], scale: f64) -> Screen {
    use opencv::core::{Mat, Rect, Size};
    let [[x0, y0], _, [x1, y1], _] = screen.corners.0;
    let cell = (x1 - x0) / 9.0;
    let [l, t, r, b] = inset.map(|share| share * cell);
    let (left, top) = ((x0 + l).round(), (y0 + t).round());
    let (right, bottom) = ((x1 - r).round(), (y1 - b).round());
    let at = Rect::new(
        left as i32,
        top as i32,
        (right - left) as i32 + 1,
        (bottom - top) as i32 + 1,
    );
    let crop = Mat::roi(&screen.image, at).unwrap().try_clone().unwrap();
    let size = Size::new(
        (f64::from(at.width) * scale).round() as i32,
        (f64::from(at.height) * scale).round() as i32,
    );
    let mut image = Mat::default();
    imgproc::resize(&crop, &mut image, size, 0.0, 0.0, imgproc::INTER_AREA).unwrap();
    let (sx, sy) = (
        f64::from(size.width) / f64::from(at.width),
        f64::from(size.height) / f64::from(at.height),
    );
    shown_as(
        screen,
        format!("{} cropped {inset:?} at {scale}", screen.name),
        image,
        |[u, v]| [(u - left + 0.5) * sx - 0.5, (v - top + 0.5) * sy - 0.5],
    )
}

/// A screenshot cropped to the grid inside its border line (or an app's card cropped at its
/// cells), as a user shares one: its cells run on to the picture's edges, with nothing around
/// them to outline. Every theme, printed border or none, cropped 0.03-0.25 of a cell inside on
/// each side (one side at times on the border), full size and shrunk. Before session 76 none
/// was found: "no Sudoku found".
#[test]
fn a_screenshot_cropped_inside_the_grid_s_border_is_read() {
    let puzzles = puzzles();
    let mut shots = Vec::new();
    let mut random = common::camera::Random::new(76);
    for (k, theme) in THEMES.into_iter().enumerate() {
        for (j, border) in [Border::Line, Border::Card].into_iter().enumerate() {
            let n = 2 * k + j;
            let style = Style {
                border,
                ..borderless_style(theme, Layout::Phone, border, n)
            };
            let screen = screens::render(&puzzles[70 + n], style, 7600 + n as u64);
            let mut inset = [0.0; 4].map(|_| 0.03 + 0.22 * random.unit());
            if n % 3 == 0 {
                inset[n % 4] = 0.0;
            }
            let scale = [1.0, 0.6, 0.45][n % 3];
            shots.push(cropped_to_the_grid(&screen, inset, scale));
        }
    }
    let perfect = score(&shots, "cropped to the grid");
    // Measured (session 76): 8 of 8 (0 of 8 before).
    assert!(perfect >= 7, "{perfect} of {}", shots.len());
}

/// `screen` with a title bar printed flush against its grid's top border (`top`) or bottom one:
/// white letters on a `colour` bar (BGR) as wide as the grid and 1.2 cells high, over the outer
/// half of the border line.
fn under_a_title_bar(screen: &Screen, top: bool, colour: Scalar) -> Screen {
    use opencv::core::{Point, Rect};
    let [[x0, y0], _, [x1, y1], _] = screen.corners.0;
    let cell = (x1 - x0) / 9.0;
    let (from, to) = if top {
        (y0 - 1.2 * cell, y0)
    } else {
        (y1, y1 + 1.2 * cell)
    };
    let mut image = screen.image.clone();
    let bar = Rect::new(
        x0.round() as i32,
        from.round() as i32,
        (x1 - x0).round() as i32,
        (to - from).round() as i32,
    );
    imgproc::rectangle(&mut image, bar, colour, -1, imgproc::LINE_8, 0).unwrap();
    let baseline = Point::new(
        (x0 + 0.3 * cell) as i32,
        ((from + to) / 2.0 + 0.25 * cell) as i32,
    );
    imgproc::put_text(
        &mut image,
        "SUDOKU   No. 4,512",
        baseline,
        imgproc::FONT_HERSHEY_DUPLEX,
        cell / 40.0,
        Scalar::all(250.0),
        (cell / 20.0).round().max(1.0) as i32,
        imgproc::LINE_AA,
        false,
    )
    .unwrap();
    shown_as(
        screen,
        format!("{} under a title bar", screen.name),
        image,
        |corner| corner,
    )
}

/// Newspapers and apps head a puzzle with a title bar, often printed flush against the grid:
/// the bar's white letters can join the grid's outline, which then frames no grid, or frames
/// one with a corner pulled into the bar (a red bar under a grid: drawn 0.35 of a cell off).
/// Light and sepia screens, as they are and photographed, with a black, red or blue bar on the
/// grid's top or bottom.
#[test]
fn a_title_bar_printed_flush_against_the_grid_is_left_out() {
    let colours = [
        Scalar::all(25.0),
        Scalar::new(40.0, 30.0, 180.0, 0.0),
        Scalar::new(150.0, 70.0, 30.0, 0.0),
    ];
    let shots: Vec<Screen> = screenshots()
        .iter()
        .filter(|s| s.name.contains("light") || s.name.contains("sepia"))
        .step_by(2)
        .enumerate()
        .map(|(k, s)| {
            let barred = under_a_title_bar(s, k % 2 == 0, colours[k % 3]);
            if k % 4 < 2 {
                barred
            } else {
                screens::photographed(&barred, 300 + k as u64)
            }
        })
        .collect();
    let mut pipeline = common::pipeline();
    let (mut right, mut worst_drawn, mut problems) = (0, 0.0f64, Vec::new());
    for shot in &shots {
        let Some(puzzle) = pipeline
            .process(&shot.image, &mut StageTimes::default())
            .unwrap()
        else {
            problems.push(format!("{}: no grid found", shot.name));
            continue;
        };
        let off = puzzle.quad.max_corner_distance(&shot.corners) / shot.corners.mean_side();
        let solved = puzzle.solution.map(|s| s.0) == Some(shot.solution);
        if puzzle.solution.is_some() && !puzzle.off_print {
            worst_drawn = worst_drawn.max(off);
        }
        // The bar covers the border's outer half: where the border lies is known to about
        // that much less surely than on an open side.
        if solved && off < 0.02 {
            right += 1;
        } else {
            problems.push(format!(
                "{}: {:?}, {:.2}% off",
                shot.name,
                puzzle.status,
                100.0 * off
            ));
        }
    }
    println!(
        "under a title bar: {right} of {} solved in place, drawn at most {:.2}% off; {problems:?}",
        shots.len(),
        100.0 * worst_drawn
    );
    // Measured: 15 of 16, at most 1.56% off (2 of 16 before bars were left out: the grid not
    // found, or a box of it taken for the grid and judged `multiple`).
    assert!(worst_drawn < 0.03, "drawn {:.2}% off", 100.0 * worst_drawn);
    assert!(right >= 14, "{right} of {}: {problems:?}", shots.len());
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
    use common::camera::Page;
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
            mistakes: false,
            border: Border::Line,
        };
        let screen = screens::render(&puzzles[40 + k], style, 300 + k as u64);
        let image = screen.image.clone();
        page_of(&screen, image)
    })
    .collect();
    let mut failures = 0;
    for i in 0..pages.len() {
        let (_, score, delays) = filmed_hand_held(&pages, i, 500 + i as u64);
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

/// Page `i` of `pages` filmed alone under the hand-held camera (noise `seed`): the clip's
/// name, its score and each appearance's lock delay, printed too (`DUMP_STATES` prints each
/// frame's state).
fn filmed_hand_held(
    pages: &[common::camera::Page],
    i: usize,
    seed: u64,
) -> (String, common::videos::VideoScore, Vec<Option<u64>>) {
    use common::camera::{self, Camera, Clip, Script};
    let names: Vec<String> = pages.iter().map(|p| p.name.clone()).collect();
    let clip = Clip::new(Script::Handheld, vec![i], &names, seed);
    let camera = Camera::new(pages, &clip).expect("camera");
    let run = camera::run(common::pipeline_reader(), &camera);
    let score = common::videos::score(&run.truth, &run.seen);
    if std::env::var_os("DUMP_STATES").is_some() {
        for (seen, truth) in run.seen.iter().zip(&run.truth) {
            let state = seen.puzzle.as_ref().map_or("-".to_string(), |p| {
                let solved = if p.solution.is_some() { "*" } else { "" };
                format!("{}{solved}", p.status)
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
    (clip.name, score, delays)
}

/// A screen as a page the simulated camera films, in `image` (the screen's own, or changed).
fn page_of(screen: &Screen, image: opencv::core::Mat) -> common::camera::Page {
    common::camera::Page {
        name: screen.name.clone(),
        image,
        corners: screen.corners,
        published: screen.corners,
        clues: sudoku_ar::grid::Grid(screen.givens),
        solution: sudoku_ar::grid::Grid(screen.solution),
    }
}

/// A printed page in `theme` (newsprint), drawn in the web layout (its number pad beside the
/// grid), the digits in `font`: no highlights, pencil marks or entries.
fn printed_page(theme: screens::Theme, font: &'static str) -> Style {
    Style {
        theme,
        layout: Layout::Web,
        font,
        highlights: false,
        pencil_marks: false,
        entries: false,
        mistakes: false,
        border: Border::Line,
    }
}

/// A page whose cell lines are printed thin and light grey (many newspapers; drawn in the web
/// layout, its number pad beside the grid) under the hand-held camera out of focus: the blur
/// leaves those lines too faint for a video frame's grid check, which until session 59 asked
/// for every one on a frame not smeared, so the page was never drawn (as a photo it is read);
/// a frame not smeared whose box lines all show whole now takes them as a photo does: locked 10
/// and 8 frames after whole in view, never off.
#[test]
fn a_page_with_pale_cell_lines_is_drawn_under_a_hand_held_camera() {
    use common::camera::Page;
    let puzzles = puzzles();
    let pages: Vec<Page> = (0..2)
        .map(|k| {
            let style = printed_page(screens::NEWSPRINT, HELD_OUT_FONTS[2 * k + 3]);
            let screen = screens::render(&puzzles[50 + k], style, 400 + k as u64);
            // Out of focus (the camera's own blur is slight): 2 px on a 64 px cell.
            let mut image = opencv::core::Mat::default();
            let size = opencv::core::Size::new(0, 0);
            imgproc::gaussian_blur_def(&screen.image, &mut image, size, 2.0).expect("blur");
            page_of(&screen, image)
        })
        .collect();
    for i in 0..pages.len() {
        let (clip, score, delays) = filmed_hand_held(&pages, i, 600 + i as u64);
        assert!(score.wrong_frames.is_empty(), "{clip}: drawn off");
        assert!(
            delays.iter().all(|d| d.is_some_and(|d| d <= 20)),
            "{clip}: lock {delays:?}"
        );
        assert!(score.right_share() >= 0.9, "{clip}");
    }
}

/// A page whose cell lines do not show at all (hairlines or dots lost at the camera's
/// resolution; rendered so by `testvideos/stress/styles.py` and filmed, such pages were drawn
/// 63-81 frames late), held still before the camera and taken as a photo: a grid shown by its
/// box lines alone is taken when its digits sit one to a cell (session 86; before, neither
/// found it), and solved in place.
#[test]
fn a_page_whose_cell_lines_do_not_show_is_solved_in_video_and_as_a_photo() {
    use sudoku_ar::video::several::Visions;
    let puzzles = puzzles();
    let mut pipeline = common::pipeline();
    for k in 0..2 {
        let style = printed_page(screens::NEWSPRINT_HAIRLINES, HELD_OUT_FONTS[2 * k]);
        let screen = screens::render(&puzzles[60 + k], style, 410 + k as u64);
        let mut image = opencv::core::Mat::default();
        let size = opencv::core::Size::new(0, 0);
        imgproc::gaussian_blur_def(&screen.image, &mut image, size, 1.0).expect("blur");
        let name = &screen.name;
        let side = screen.corners.mean_side();
        let mut vision = Visions::new(common::pipeline_reader());
        let solved_from = (0..4).find(|_| {
            let view = vision.process(&image).expect("frame");
            view.puzzle.is_some_and(|p| {
                let off = p.quad.max_corner_distance(&screen.corners) / side;
                assert!(off < 0.02, "{name}: drawn {:.1}% off", 100.0 * off);
                p.solved.is_some_and(|known| {
                    let solved = known.status == Status::Solved;
                    if solved {
                        assert_eq!(known.solution.map(|s| s.0), Some(screen.solution), "{name}");
                    }
                    solved
                })
            })
        });
        assert!(solved_from.is_some(), "{name}: not solved in video");
        let puzzle = pipeline
            .process(&image, &mut StageTimes::default())
            .expect("photo")
            .unwrap_or_else(|| panic!("{name}: no grid found in the photo"));
        assert_eq!(
            puzzle.solution.map(|s| s.0),
            Some(screen.solution),
            "{name}"
        );
        let off = puzzle.quad.max_corner_distance(&screen.corners) / side;
        assert!(off < 0.02, "{name}: photo {:.1}% off", 100.0 * off);
    }
}

/// A curved page (see [`CurvedPage`]): every missing digit is drawn in its printed cell. The
/// digits drawn (alone, on black) must have their ink centred within 0.18 of a cell of the true
/// middle, and 0.09 on average. Drawn by the corners' homography alone, the middle cells' digits
/// lay up to 0.37 of a cell off (Wicht's `image1020`, a real curved newspaper page, looked like
/// that).
#[test]
fn a_curved_page_gets_every_digit_drawn_in_its_printed_cell() {
    use opencv::core::{self, Mat, Vec3b};
    let mut pipeline = common::pipeline();
    let (mut worst, mut offs): (f64, Vec<f64>) = (0.0, Vec::new());
    for k in 0..4 {
        let page = CurvedPage::new(k);
        let screen = &page;
        let puzzle = pipeline
            .process(&page.image, &mut StageTimes::default())
            .unwrap()
            .unwrap_or_else(|| panic!("{}: no grid found", screen.name));
        assert_eq!(
            puzzle.solution.map(|s| s.0),
            Some(screen.solution),
            "{}",
            screen.name
        );
        let (w, h) = (page.image.cols(), page.image.rows());
        let mut drawn =
            Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, Scalar::all(0.0)).unwrap();
        sudoku_ar::photo::annotate(&mut drawn, &puzzle).unwrap();
        let cell_side = screen.corners.mean_side() / 9.0;
        for cell in (0..81).filter(|&c| screen.givens[c] == 0) {
            let truth = page.cell_middle(cell);
            // The ink drawn within half a cell of the true middle, weighted by its green.
            let reach = 0.5 * cell_side;
            let (mut sum, mut at) = (0.0, [0.0, 0.0]);
            for y in (truth[1] - reach) as i32..=(truth[1] + reach) as i32 {
                for x in (truth[0] - reach) as i32..=(truth[0] + reach) as i32 {
                    let Ok(pixel) = drawn.at_2d::<Vec3b>(y, x) else {
                        continue;
                    };
                    let g = pixel[1] as f64;
                    sum += g;
                    at = [at[0] + g * x as f64, at[1] + g * y as f64];
                }
            }
            assert!(sum > 0.0, "{}: nothing drawn in cell {cell}", screen.name);
            let off = (at[0] / sum - truth[0]).hypot(at[1] / sum - truth[1]) / cell_side;
            worst = worst.max(off);
            offs.push(off);
            assert!(
                off < 0.18,
                "{}: cell {cell}'s digit drawn {off:.2} of a cell off its middle",
                screen.name
            );
        }
    }
    let mean = offs.iter().sum::<f64>() / offs.len() as f64;
    println!(
        "curved pages: digits' ink drawn {mean:.3} of a cell off their cells' middles on average, {worst:.3} at most"
    );
    // Measured: 0.058 on average, 0.133 at most (a glyph's ink is not quite centred in its box:
    // a 7's leans up and right); drawn by the corners alone: 0.23 and 0.37.
    assert!(
        mean < 0.09,
        "digits drawn {mean:.3} of a cell off on average"
    );
}

/// Realisations of the camera's noise (see `Clip::noise_seed`) each curved page is filmed under.
/// Whether a borderline frame is drawn swings with the noise: the unseeded run these tests used
/// before drew the curved pages on 361 frames, seeds 1-6 on 162-260 (session 31). Floors set on
/// one realisation held by luck.
const CURVED_NOISE: [u64; 3] = [1, 2, 3];

/// A curved page (see [`CurvedPage`]) under the simulated hand-held camera (sliding in,
/// wobbling, tilting, a quick shake, part way out of view and back, a finger): on every frame
/// with the solution drawn, where each cell is drawn (between the crossings of the bend the
/// vision stage carries, else by the corners) lies near the true middle of the printed cell,
/// which the camera's own geometry gives.
#[test]
fn a_curved_page_under_a_hand_held_camera_gets_its_digits_in_their_cells() {
    let pages: Vec<CurvedPage> = (0..2).map(CurvedPage::new).collect();
    for noise in CURVED_NOISE {
        let (mut offs, bent_frames) = worst_cells_drawn(&pages, noise);
        offs.sort_by(f64::total_cmp);
        let at = |q: f64| offs[((offs.len() - 1) as f64 * q).round() as usize];
        println!(
            "curved pages, hand-held, noise {noise}: {} frames drawn ({bent_frames} along the bend); worst cell per frame p50 {:.3} p99 {:.3} max {:.3} of a cell off",
            offs.len(),
            at(0.5),
            at(0.99),
            at(1.0)
        );
        // Measured (session 31), noise 1-3: 202, 201, 202 of the 480 frames drawn (226, 251,
        // 208 with the tracker before), 200-202 along the bend; the worst cell per frame p50
        // 0.035-0.038, p99 0.07-0.08, max 0.30 of a cell. Drawn by the corners alone: p50 0.304. Unseeded, the phone screen's bowed right border,
        // its grid reaching the paper's edge, was not seen by the lines followed once a frame
        // and its cells lay up to 0.35 of a cell off (p99 0.335).
        assert!(
            offs.len() > 180,
            "noise {noise}: drawn on {} frames",
            offs.len()
        );
        assert!(
            bent_frames * 5 >= offs.len() * 4,
            "noise {noise}: drawn along the bend on {bent_frames} of {} frames",
            offs.len()
        );
        assert!(
            at(0.5) < 0.15,
            "noise {noise}: worst cell per frame p50 {:.3}",
            at(0.5)
        );
        // Session 79: before lines that disputed the track were judged along the bowed
        // border, a finger over the page had the track moved onto corners a quarter of a cell
        // out: at the session's start 9 frames 0.30-0.363 of a cell off under noise 1; with the
        // flow on each frame's detail, 2 under noise 2 (0.322). Since, none 0.3 off on seeds 1-6.
        assert_in_their_cells(&offs, &format!("curved, noise {noise}"));
    }
}

/// Pages curled further (the columns bowed by 0.36 and 0.45 of a cell, the rows by 0.22 and
/// 0.27) than the lines followed once a frame reach: the outline's corners, from straight lines
/// fitted along bowed borders, are up to half a cell off, and the solution must then be drawn
/// in its cells or not at all (`on_print`, `Track::cells_agree`), never across the
/// lines.
/// The screen shown on a 1280x720 camera frame `i` of a still hand: scaled to fit, on black,
/// shifted a few pixels from frame to frame; and its corners there.
fn filmed(screen: &Screen, i: usize) -> (opencv::core::Mat, sudoku_ar::geometry::Quad) {
    use opencv::core::{Mat, Size};
    let (w, h) = (screen.image.cols() as f64, screen.image.rows() as f64);
    let scale = 0.92 * (1280.0 / w).min(720.0 / h);
    let t = i as f64 / 30.0;
    let dx = 0.5 * (1280.0 - scale * w) + 6.0 * (1.3 * t).sin();
    let dy = 0.5 * (720.0 - scale * h) + 4.0 * (1.7 * t).sin();
    let frame_from_screen =
        Mat::from_slice_2d(&[[scale, 0.0, dx], [0.0, scale, dy]]).expect("matrix");
    let mut frame = Mat::default();
    imgproc::warp_affine(
        &screen.image,
        &mut frame,
        &frame_from_screen,
        Size::new(1280, 720),
        imgproc::INTER_AREA,
        opencv::core::BORDER_CONSTANT,
        Scalar::all(0.0),
    )
    .expect("warp");
    (frame, screen.corners.scaled(scale).translated(dx, dy))
}

/// A phone's screen recording of an app: the grid fills the screen's width to within a quarter
/// of a cell, and the player types entries as it plays. Before session 58 such a grid was
/// followed and solved but never drawn (the anchor asked for half a cell of margin all round),
/// and once a few entries were typed (they look printed) it was taken for another puzzle, the
/// solution meanwhile drawn over the newest entries.
#[test]
fn a_phone_screen_recording_is_drawn_and_entries_typed_during_it_are_not_drawn_over() {
    // Light at the layout's 540x1170, dark at 1080x2340 (a phone's own resolution; its light
    // border near the screen's edge is looked for in the negative), and light at 810x1755
    // encoded in blocks over the thin lines.
    for (theme, scale, quality) in [
        (THEMES[0], 1.0, 0),
        (THEMES[1], 2.0, 0),
        (THEMES[0], 1.5, 40),
    ] {
        screen_recording_drawn(theme, scale, quality);
    }
}

fn screen_recording_drawn(theme: screens::Theme, scale: f64, quality: i32) {
    use sudoku_ar::video::several::Visions;
    let line = &puzzles()[7];
    let style = |entries| Style {
        theme,
        layout: Layout::Phone,
        font: HELD_OUT_FONTS[2],
        highlights: false,
        pencil_marks: false,
        entries,
        mistakes: false,
        border: Border::Line,
    };
    let at_scale = |screen: Screen| {
        let mut image = opencv::core::Mat::default();
        let size = opencv::core::Size::new(0, 0);
        imgproc::resize(
            &screen.image,
            &mut image,
            size,
            scale,
            scale,
            imgproc::INTER_LINEAR,
        )
        .expect("resize");
        if quality > 0 {
            // Encoded as a phone's recorder does: blocks over the thin lines.
            let mut bytes = opencv::core::Vector::<u8>::new();
            let params = opencv::core::Vector::from_slice(&[
                opencv::imgcodecs::IMWRITE_JPEG_QUALITY,
                quality,
            ]);
            opencv::imgcodecs::imencode(".jpg", &image, &mut bytes, &params).expect("encode");
            image = opencv::imgcodecs::imdecode(&bytes, opencv::imgcodecs::IMREAD_COLOR)
                .expect("decode");
        }
        let corners = screen.corners.scaled(scale);
        Screen {
            image,
            corners,
            ..screen
        }
    };
    let (before, typed) = (
        at_scale(screens::render(line, style(false), 3)),
        at_scale(screens::render(line, style(true), 3)),
    );
    assert_ne!(typed.entries, [0; 81], "no entries typed");
    let name = theme.name;
    let mut vision = Visions::new(common::pipeline_reader());
    let (mut drawn, mut ids) = (Vec::new(), Vec::new());
    for i in 0..50 {
        let screen = if i < 10 { &before } else { &typed };
        let view = vision.process(&screen.image).expect("frame");
        let Some(puzzle) = view.puzzle.filter(|p| p.solved.is_some()) else {
            continue;
        };
        let known = puzzle.solved.expect("drawn");
        assert_eq!(
            known.solution.map(|s| s.0),
            Some(screen.solution),
            "{name} frame {i}"
        );
        let off = puzzle.quad.max_corner_distance(&screen.corners) / screen.corners.mean_side();
        assert!(
            off < 0.01,
            "{name} frame {i}: drawn {:.2}% off",
            100.0 * off
        );
        drawn.push(i);
        ids.push(known.id);
        // Within a reading or two of the entries typed, the solution leaves them alone: every
        // one seen is typed, and most are seen (a digit the reader is unsure of is drawn over,
        // as the same digit).
        if i >= 10 + 2 * 15 {
            let seen = (0..81).filter(|&c| puzzle.entries.0[c] != 0);
            assert!(
                seen.clone()
                    .all(|c| puzzle.entries.0[c] == typed.entries[c])
            );
            let count = typed.entries.iter().filter(|&&d| d != 0).count();
            assert!(
                seen.count() * 5 >= count * 4,
                "{name} frame {i}: {:?}",
                puzzle.entries
            );
        }
    }
    println!(
        "{name}: drawn on {} of 50 frames, from {:?}",
        drawn.len(),
        drawn.first()
    );
    assert!(
        drawn.first().is_some_and(|&i| i <= 3),
        "{name}: drawn from {drawn:?}"
    );
    assert!(
        drawn.len() >= 45,
        "{name}: drawn on {} of 50 frames",
        drawn.len()
    );
    ids.dedup();
    assert_eq!(ids.len(), 1, "{name}: taken for another puzzle: {ids:?}");
}

/// A game with two entries typed wrong (one in the app's red), filmed as a screen recording
/// moving a few pixels a frame: solved from its givens as a photo of a frame is, drawn in place,
/// and only wrong entries circled. Before session 83 live video read gray only: such a game
/// stayed "unsolvable" on every frame (0 of 8 themes and layouts drawn).
#[test]
fn a_game_with_a_wrong_entry_is_solved_from_its_givens_in_live_video() {
    use sudoku_ar::video::several::Visions;
    let puzzles = puzzles();
    for (k, theme) in THEMES.into_iter().enumerate() {
        for (j, layout) in [Layout::Phone, Layout::Web].into_iter().enumerate() {
            let style = Style {
                theme,
                layout,
                font: HELD_OUT_FONTS[(k + 2 * j) % HELD_OUT_FONTS.len()],
                highlights: j == 0,
                pencil_marks: false,
                entries: true,
                mistakes: true,
                border: Border::Line,
            };
            let seed = 500 + (2 * k + j) as u64;
            let screen = screens::render(&puzzles[seed as usize % puzzles.len()], style, seed);
            let mut vision = Visions::new(common::pipeline_reader());
            let mut drawn = Vec::new();
            for i in 0..20 {
                let (frame, corners) = filmed(&screen, i);
                let view = vision.process(&frame).expect("frame");
                let Some(puzzle) = view.puzzle.filter(|p| p.solved.is_some()) else {
                    continue;
                };
                let name = &screen.name;
                let known = puzzle.solved.expect("drawn");
                assert_eq!(
                    known.solution.map(|s| s.0),
                    Some(screen.solution),
                    "{name} frame {i}"
                );
                assert_eq!(known.clues.0, screen.givens, "{name} frame {i}: givens");
                let off = puzzle.quad.max_corner_distance(&corners) / corners.mean_side();
                assert!(
                    off < 0.01,
                    "{name} frame {i}: drawn {:.2}% off",
                    100.0 * off
                );
                let circled: Vec<usize> = (0..81).filter(|&c| puzzle.wrong.0[c] != 0).collect();
                assert!(
                    circled.iter().all(|c| screen.mistakes.contains(c)),
                    "{name} frame {i}: right entries circled: {circled:?}"
                );
                drawn.push(i);
            }
            println!(
                "{}: drawn on {} of 20 frames, from {:?}",
                screen.name,
                drawn.len(),
                drawn.first()
            );
            assert!(
                drawn.first().is_some_and(|&i| i <= 4) && drawn.len() >= 15,
                "{}: drawn on {drawn:?}",
                screen.name
            );
        }
    }
}

/// The recording rendered by `tests/photos/render_app_recording.py` (truth from the renderer):
/// its frames' path with `ext`, and the puzzle's solution and the grid border's corners.
fn app_recording(ext: &str) -> (std::path::PathBuf, String, sudoku_ar::geometry::Quad) {
    #[derive(serde::Deserialize)]
    struct Truth {
        solution: String,
        corners: [[f64; 2]; 4],
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/photos");
    let path = dir.join("app_recording_1080x1920").with_extension(ext);
    let text = std::fs::read_to_string(path.with_extension("truth.json")).expect("truth");
    let truth: Truth = serde_json::from_str(&text).expect("truth json");
    let corners = sudoku_ar::geometry::Quad(truth.corners);
    (path, truth.solution, corners)
}

/// A frame of a phone's screen recording at the phone's own 1080x1920, H.264-encoded
/// (`tests/photos/app_recording_1080x1920.jpg`), is read as a photo.
#[test]
fn a_frame_of_a_phone_screen_recording_at_full_resolution_is_read_as_a_photo() {
    let (path, solution, corners) = app_recording("jpg");
    let frame = sudoku_ar::photo::load_image(&path).expect("frame");
    let mut pipeline = PhotoPipeline::new(common::pipeline_reader());
    let puzzle = pipeline
        .process(&frame, &mut StageTimes::default())
        .expect("read")
        .expect("a grid");
    let read: Option<String> =
        (puzzle.solution).map(|s| s.0.iter().map(|d| char::from(b'0' + d)).collect());
    assert_eq!(read.as_deref(), Some(solution.as_str()));
    let off = puzzle.quad.max_corner_distance(&corners) / corners.mean_side();
    assert!(off < 0.01, "{:.2}% off", 100.0 * off);
}

/// The same recording's 10 frames in video: drawn from the first. Halved for the search, one
/// or two of its 12 pale cell lines (inside the highlighted row, column and box) show faint,
/// and until session 59 a video frame's grid check asked for every one: drawn from frame 4, on
/// 5 of 10 (on none of 90 in a longer recording of the same screen).
#[test]
fn a_phone_screen_recording_at_full_resolution_is_drawn_from_its_first_frame() {
    use opencv::videoio::{CAP_ANY, VideoCapture};
    let (path, solution, corners) = app_recording("mp4");
    let mut video = VideoCapture::from_file(path.to_str().expect("utf-8"), CAP_ANY).expect("open");
    let mut vision = sudoku_ar::video::several::Visions::new(common::pipeline_reader());
    let (mut frame, mut drawn) = (opencv::core::Mat::default(), Vec::new());
    let mut i = 0;
    while video.read(&mut frame).expect("decode") {
        let view = vision.process(&frame).expect("frame");
        if let Some(puzzle) = view.puzzle.filter(|p| p.solved.is_some()) {
            let known = puzzle.solved.expect("drawn");
            let read: Option<String> =
                (known.solution).map(|s| s.0.iter().map(|d| char::from(b'0' + d)).collect());
            assert_eq!(read.as_deref(), Some(solution.as_str()), "frame {i}");
            let off = puzzle.quad.max_corner_distance(&corners) / corners.mean_side();
            assert!(off < 0.01, "frame {i}: drawn {:.2}% off", 100.0 * off);
            drawn.push(i);
        }
        i += 1;
    }
    assert_eq!(i, 10, "the recording has 10 frames");
    assert!(
        drawn.first().is_some_and(|&i| i <= 1) && drawn.len() >= 8,
        "drawn on {drawn:?}"
    );
}

/// An app's grid with no border line filmed (a phone or a monitor held before the camera): the
/// live path looks for it every 16th frame searched in vain (session 39; never before), and
/// draws it in its cells.
#[test]
fn an_app_grid_with_no_border_line_is_drawn_in_live_video() {
    use sudoku_ar::video::several::Visions;
    let puzzles = puzzles();
    let (mut drawn, mut off) = (0, Vec::new());
    let mut k = 0usize;
    for border in [Border::Card, Border::Tiles] {
        for (t, theme) in THEMES.into_iter().enumerate() {
            let layout = [Layout::Phone, Layout::Web][t % 2];
            let style = borderless_style(theme, layout, border, k);
            let screen = screens::render(&puzzles[40 + k], style, 700 + k as u64);
            k += 1;
            let mut vision = Visions::new(common::pipeline_reader());
            let mut drawn_from = None;
            for i in 0..40 {
                let (frame, corners) = filmed(&screen, i);
                let view = vision.process(&frame).expect("frame");
                let Some(puzzle) = view.puzzle.filter(|p| p.solved.is_some()) else {
                    continue;
                };
                drawn_from.get_or_insert(i);
                let error = puzzle.quad.max_corner_distance(&corners) / corners.mean_side();
                let known = puzzle.solved.expect("drawn");
                let right = known.solution.is_none_or(|s| s.0 == screen.solution);
                if error > 0.015 || !right {
                    off.push(format!(
                        "{} {border:?} frame {i}: {:.2}% off, right {right}",
                        screen.name,
                        100.0 * error
                    ));
                }
            }
            println!("{} {border:?}: drawn from {drawn_from:?}", screen.name);
            drawn += usize::from(drawn_from.is_some_and(|i| i <= 20));
        }
    }
    println!("no border, filmed: {drawn} of 8 drawn within 20 frames");
    assert!(off.is_empty(), "drawn wrong or off: {off:?}");
    assert!(drawn >= 6, "{drawn} of 8 drawn within 20 frames");
}

#[test]
fn real_pages_bowed_across_are_drawn_in_their_cells_or_not_at_all() {
    // Kubiesa pages bowed across their columns by half a cell (and 0.6 of a cell the other way
    // round), under the hand-held camera, each in its clip of the `curved` bench (`--bowed`).
    // Measured (session 53), noise 1 and 3: the first drawn on 202 and 161 frames (session 52:
    // 207 and 199), the worst cell 0.16 of a cell off; the second is found but seldom drawn (in
    // the shadow over its bottom-left corner the lines put it 0.35 of a cell off, and the print
    // check withholds it; session 54: 19 and 0 frames, within 0.18 of a cell, its corner no
    // longer refined off the bowed border; the first 208 and 208, the third 207 and 205).
    // Without the bow in video's line following, the first was drawn on 13 frames a whole cell
    // off under noise 1, its readings having crept a cell off at a corner; before the print
    // check asked a grid found off to show itself on, the second was drawn on 1 and 4 frames a
    // cell off, let through on frames whose segments there showed nothing.
    // The third, bowed half a cell across its rows, is filled in by hand: until session 53 it
    // was never drawn (found only as a box of it, the video grid check taking no bow; then
    // every reading "covered", lines hidden beside two cells, so no bend was taken and the
    // grid, drawn by its corners 0.8 of a cell off, was withheld); now on 195 and 204 frames,
    // the worst cell 0.18 of a cell off.
    let page = |name: &str, across: usize, cells: f64| {
        let page = common::curved::page_named(name).expect("a Kubiesa page");
        CurvedPage::bowed_across(name, &page, across, cells)
    };
    let pages = [
        page("02_07_honor_view_10_0.jpg", 0, 0.5),
        page("01_20_honor_view_10_0.jpg", 0, -0.6),
        page("01_11_honor_view_10_0.jpg", 1, 0.5),
    ];
    for noise in [1, 3] {
        let drawn = drawn_in_their_cells(&pages, &[904, 902, 901], noise);
        for page in [0, 2] {
            assert!(
                drawn[page] >= 150,
                "noise {noise}: page {page} drawn on {} frames",
                drawn[page]
            );
        }
    }
}

/// Films each of `pages` in its clip of `clips` under camera noise `noise` (see
/// `common::curved::frames_drawn_in`), asserts no cell of theirs is ever drawn 0.3 of a cell or
/// more from its printed middle, and returns on how many frames each was drawn.
fn drawn_in_their_cells(pages: &[CurvedPage], clips: &[u64], noise: u64) -> Vec<usize> {
    let frames = common::curved::frames_drawn_in(pages, clips, noise);
    let mut drawn = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let mine: Vec<_> = frames.iter().filter(|f| f.page == i).collect();
        let worst = mine.iter().map(|f| f.worst).fold(0.0, f64::max);
        println!(
            "{}, noise {noise}: {} frames drawn, worst cell {worst:.3} of a cell off",
            page.name,
            mine.len()
        );
        assert!(
            worst < 0.3,
            "{}, noise {noise}: a cell drawn {worst:.3} of a cell off",
            page.name
        );
        drawn.push(mine.len());
    }
    drawn
}

#[test]
fn a_page_curling_into_a_books_gutter_is_drawn_in_its_cells_from_the_first_frame_or_not_at_all() {
    // Kubiesa pages curled into a gutter beside their left border, a quarter of the side deep
    // at the spine, each in its clip of the `curved` bench (`--gutter 0.25`). Measured (session
    // 57), noise 1 and 2: drawn on 207, 180 and 207, 206 frames, the worst cell 0.12-0.22 of a
    // cell off. Before smeared readings could dispute the cells: the first frames drawn, read
    // on smeared frames whose lines bent 0.3 of a cell while no sharp reading had given the
    // bend yet, were drawn by the corners with the cells by the gutter 0.34-0.36 of a cell off.
    let page = |name: &str| {
        let page = common::curved::page_named(name).expect("a Kubiesa page");
        CurvedPage::curled(
            name.to_string(),
            &page.photo,
            page.corners,
            page.puzzle,
            0,
            0.25,
        )
    };
    let pages = [page("01_28_iphone_14_1.jpg"), page("01_31_iphone_14_0.jpg")];
    for noise in [1, 2] {
        let drawn = drawn_in_their_cells(&pages, &[900, 904], noise);
        for (page, drawn) in pages.iter().zip(drawn) {
            assert!(
                drawn >= 150,
                "{}, noise {noise}: drawn on {drawn} frames",
                page.name
            );
        }
    }
}

#[test]
fn a_strongly_curved_page_is_drawn_in_its_cells_or_not_at_all() {
    // Measured (session 31), bowed by 0.36 of a cell, noise 1-3: 161, 174, 160 frames drawn,
    // the worst cell 0.11, 0.07, 0.24 of a cell off. Before `Track::cells_agree` (and the
    // tracker before): 142, 136, 125 frames, and 0.48 off under noise 3, drawn by the corners
    // while the bend read was not kept; with it, seeds 1-6: 151-330 frames, at most 0.24 off.
    let pages: Vec<CurvedPage> = (0..2)
        .map(|k| CurvedPage::bowed(k, [0.04, 0.024]))
        .collect();
    for noise in CURVED_NOISE {
        let (offs, bent_frames) = worst_cells_drawn(&pages, noise);
        let worst = offs.iter().copied().fold(0.0, f64::max);
        println!(
            "pages bowed 0.36 cell, hand-held, noise {noise}: {} frames drawn ({bent_frames} along the bend); worst cell {worst:.3} of a cell off",
            offs.len()
        );
        assert_in_their_cells(&offs, &format!("bowed 0.36 cell, noise {noise}"));
        assert!(
            offs.len() >= 120,
            "noise {noise}: drawn on {} frames",
            offs.len()
        );
    }
    // Bowed by 0.45 of a cell, noise 1: 23 frames drawn, at most 0.18 of a cell off (session
    // 28, unseeded: without the print check 307 frames, up to 0.824 of a cell off). Not under
    // every noise, and so not asserted for the others (session 32): seeds 2-6 drew it on 99-188
    // frames, and under seeds 2 and 5 up to 0.48 and 0.39 of a cell off (a known limit, see the
    // README: readings each followed from where the last put the grid agree on a corner half a
    // cell off). Seeds 3, 4 and 6 at most 0.21 off; before a smeared reading could no longer
    // confirm cells the sharp ones had refused (`Track::cells_agree`), seeds 3 and 6 drew it
    // 0.41 and 0.43 off.
    let pages: Vec<CurvedPage> = (0..2).map(|k| CurvedPage::bowed(k, [0.05, 0.03])).collect();
    let (offs, _) = worst_cells_drawn(&pages, CURVED_NOISE[0]);
    let worst = offs.iter().copied().fold(0.0, f64::max);
    println!(
        "pages bowed 0.45 cell, hand-held, noise {}: {} frames drawn; worst cell {worst:.3} of a cell off",
        CURVED_NOISE[0],
        offs.len()
    );
    assert_in_their_cells(&offs, "bowed 0.45 cell, noise 1");
}

/// Asserts that the frames a strongly curved page was drawn on (the worst cell of each, share
/// of a cell off its printed middle, `offs`) have their digits in their cells: none drawn 0.4
/// of a cell off or more, clearly across the printed lines, and at most one frame in a hundred
/// 0.3 or more, touching them.
///
/// Not "none 0.3 or more": single frames a little past it come and go with the realisation of
/// the camera's noise, whatever the tracker. Over noise seeds 1-6 (`cargo bench --bench curved
/// -- --seeds 1,2,3,4,5,6 --bows 0.028,0.04,0.05`, session 79), the tracker of session 78 drew
/// pages bowed 0.25 / 0.36 / 0.45 of a cell with 15 / 0 / 0 frames 0.3 or more off (worst
/// 0.363, on seed 1 at 0.25, under a finger), the flow on each frame's detail 5 / 1 / 0 (worst
/// 0.322; the one at 0.36 is 0.317, on seed 2 here); this test asserted "none" until then and
/// held on seeds 1-3 for the one and not the other by luck.
fn assert_in_their_cells(offs: &[f64], what: &str) {
    let worst = offs.iter().copied().fold(0.0, f64::max);
    let touching = offs.iter().filter(|&&off| off >= 0.3).count();
    assert!(worst < 0.4, "{what}: a cell drawn {worst:.3} of a cell off");
    assert!(
        touching * 100 <= offs.len(),
        "{what}: {touching} of {} frames drawn with a cell 0.3 of a cell off or more",
        offs.len()
    );
}

/// `image` moved by (`dx`, `dy`) pixels and lit by bands rolling down it: a phone filming a
/// monitor sees the backlight's flicker through its rolling shutter as bands of light, darker
/// by up to `depth`, `period` pixels apart, shifted by `phase` periods a frame.
fn filmed_under_flicker(
    image: &Mat,
    (dx, dy): (f64, f64),
    depth: f64,
    period: f64,
    phase: f64,
) -> Mat {
    let shift = Mat::from_slice_2d(&[[1.0f64, 0.0, dx], [0.0, 1.0, dy]]).expect("matrix");
    let mut moved = Mat::default();
    imgproc::warp_affine(
        image,
        &mut moved,
        &shift,
        image.size().expect("size"),
        imgproc::INTER_LINEAR,
        opencv::core::BORDER_REPLICATE,
        Scalar::default(),
    )
    .expect("moved");
    let cols = 3 * moved.cols() as usize;
    let bytes = moved.data_bytes_mut().expect("continuous");
    for (y, row) in bytes.chunks_mut(cols).enumerate() {
        let t = y as f64 / period + phase;
        let gain = 1.0 - depth * (0.5 + 0.5 * (std::f64::consts::TAU * t).sin());
        for v in row {
            *v = (*v as f64 * gain).round() as u8;
        }
    }
    moved
}

#[test]
fn a_screen_filmed_under_rolling_flicker_bands_is_never_drawn_off_its_grid() {
    // The grid followed from frame to frame can be taken a row over when the bands move more
    // than the screen does: drawn a row up on single frames (session 77) before a track
    // jumping half a cell from its motion was let go. Under bands a fifth deep it is drawn on
    // most frames since the flow follows each frame's detail, not its light: 89 of 180
    // frames before.
    let lines = puzzles();
    for (depth, period, fewest) in [(0.45, 1.8, 30), (0.2, 4.0, 150)] {
        let mut drawn = 0;
        for (k, theme) in THEMES.into_iter().enumerate().take(2) {
            let style = Style {
                theme,
                layout: Layout::Phone,
                font: HELD_OUT_FONTS[k],
                highlights: false,
                pencil_marks: false,
                entries: false,
                mistakes: false,
                border: Border::Line,
            };
            let screen =
                screens::photographed(&screens::render(&lines[k], style, k as u64), k as u64);
            let cell = screen.corners.mean_side() / 9.0;
            let mut vision = sudoku_ar::video::several::Visions::new(common::pipeline_reader());
            for i in 0..90 {
                let t = i as f64;
                let at = (0.6 * cell * (t / 9.0).sin(), 0.4 * cell * (t / 7.0).cos());
                let frame = filmed_under_flicker(&screen.image, at, depth, period * cell, 0.37 * t);
                let corners = screen.corners.translated(at.0, at.1);
                let view = vision.process(&frame).expect("frame");
                let Some(puzzle) = view.puzzle.filter(|p| p.solved.is_some()) else {
                    continue;
                };
                let off = puzzle.quad.max_corner_distance(&corners) / corners.mean_side();
                assert!(
                    off < 0.03,
                    "{} under bands {depth} deep, frame {i}: drawn {:.1}% off",
                    theme.name,
                    100.0 * off
                );
                drawn += 1;
            }
        }
        println!("flicker bands {depth} deep: drawn on {drawn} of 180 frames");
        assert!(
            drawn >= fewest,
            "bands {depth} deep: drawn on {drawn} of 180 frames"
        );
    }
}
