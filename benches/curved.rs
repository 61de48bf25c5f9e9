//! Curved pages under the simulated hand-held camera (`tests/common/curved.rs`), over several
//! realisations of the camera's noise: per bow and noise seed, the frames drawn, how many along a
//! bend, how many with some cell drawn 0.3 of a cell or more from its printed middle, and the
//! worst. The curved-page tests assert floors on seeds 1-3; this shows all of them.
//!
//! `cargo bench --bench curved` (about a minute per bow); `-- --seeds 1,2,3` picks the seeds,
//! `-- --bows 0.05` the bows (share of the side the columns bow by; the rows sag as in the tests,
//! or by 0.6 of it), `-- --frames` lists every frame drawn 0.3 of a cell or more off (with
//! `--gutter` and `--fold` too).
//! `-- --gutter 0.15,0.25` films instead real Kubiesa pages curled into a book's gutter on each
//! side by those depths (share of the side at the spine; `Gutter` in tests/common/curved.rs).
//! `-- --fold 0.35` films real Kubiesa pages folded across the grid, one side tilted by that
//! much (grid sides per side; towards the camera on every third page), a crease across the
//! photo (`Gutter::folded`).
//! `-- --bowed 0.5,0.6` films real Kubiesa pages bowed across by those shares of a cell, every
//! 16th page, columns and rows, both ways round (`Bowed` in tests/common/curved.rs).
//! `-- --bowed-stills 0.35,0.5` reads real Kubiesa photos instead as stills (the photo
//! pipeline), each bowed across each way by those shares of a cell, both ways round
//! (`Bowed` in tests/common/curved.rs): solved, drawn, and the worst cell of each drawn.
//! `-- --no-puzzle` times the video frame's grid search (which looks for a bow too where one
//! way's lines lie straight) on newspaper pages with no puzzle: every Wicht photo, its puzzle
//! covered, as a 1920x1080 frame (text, headlines, boxed tables: every block an outline to
//! check); and counts the grids it finds there.

#[path = "../tests/common/mod.rs"]
mod common;

use common::curved::{CurvedPage, MovedPage, every_page, frames_drawn, page_named};

fn list<T: std::str::FromStr>(name: &str, default: &str) -> Vec<T> {
    common::bench_arg(name)
        .unwrap_or_else(|| default.to_string())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

/// A cell drawn this far from its printed middle (share of a cell) lies across the lines.
const OFF: f64 = 0.3;

/// The bows the curved-page tests film (columns, rows; share of the side); other columns' bows
/// sag their rows by 0.6 of it.
const TESTED: [[f64; 2]; 3] = [[0.028, 0.018], [0.04, 0.024], [0.05, 0.03]];

/// Pages warped by an amount (a fold's tilt, a gutter's depth).
type PagesBy = fn(f64) -> Vec<CurvedPage>;

/// Real pages curled into a book's gutter on each side by `depth`.
fn curled_pages(depth: f64) -> Vec<CurvedPage> {
    let mut pages = Vec::new();
    for name in ["01_28_iphone_14_1.jpg", "01_31_iphone_14_0.jpg"] {
        let Some(page) = page_named(name) else {
            continue;
        };
        for turn in 0..4 {
            pages.push(CurvedPage::curled(
                name.to_string(),
                &page.photo,
                page.corners,
                page.puzzle,
                turn,
                depth,
            ));
        }
    }
    pages
}

/// Real pages folded across the grid, one side tilted by `tilt` (see `Gutter::folded`).
fn folded_pages(tilt: f64) -> Vec<CurvedPage> {
    let mut pages = Vec::new();
    for (k, file, page) in every_page(8) {
        let (turn, at) = ((k / 8) % 4, [0.5, 0.35, 0.65, 0.45][(k / 32) % 4]);
        let (tilt, light) = if (k / 8) % 3 == 0 {
            (-tilt, 1.1)
        } else {
            (tilt, 0.85)
        };
        let gutter = common::curved::Gutter::folded(&page.corners, turn, at, tilt, light);
        let name = format!("{file} folded at {at} from side {turn}, tilted {tilt}");
        pages.push(CurvedPage::warped(name, &page.photo, page.puzzle, gutter));
    }
    pages
}

/// Real pages bowed across by `cells` of a cell: every 16th Kubiesa page, in turn its columns
/// or its rows, in turn one way round or the other (see `Bowed`).
fn bowed_pages(cells: f64) -> Vec<CurvedPage> {
    every_page(16)
        .into_iter()
        .map(|(k, file, page)| {
            let (across, cells) = ((k / 16) % 2, if (k / 32) % 2 == 0 { cells } else { -cells });
            CurvedPage::bowed_across(&file, &page, across, cells)
        })
        .collect()
}

/// The video grid search's time per frame (median of 3 runs each) and the grids it finds on
/// every Wicht photo with its puzzle covered, as a 1920x1080 frame (`image1067` prints
/// yesterday's solution beside the puzzle: a grid).
fn report_pages_without_a_puzzle() {
    use sudoku_ar::recognize::detect::{self, Look};
    let (mut times, mut found) = (Vec::new(), Vec::new());
    for sample in common::wicht() {
        let Some(frame) = page_without_its_puzzle(&sample) else {
            continue;
        };
        let mut runs: Vec<std::time::Duration> = (0..3)
            .map(|_| {
                let start = std::time::Instant::now();
                let grid = detect::find_grid(&frame, Look::OneOfMany).expect("search");
                if grid.is_some() && !found.contains(&sample.path) {
                    found.push(sample.path.clone());
                }
                start.elapsed()
            })
            .collect();
        runs.sort();
        times.push(runs[1]);
    }
    times.sort();
    let ms = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    println!(
        "video grid search on {} newspaper pages with no puzzle (1920x1080): p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms; a grid found on {}",
        times.len(),
        ms(0.5),
        ms(0.9),
        ms(1.0),
        found.len()
    );
    for path in &found {
        println!("  found on {}", path.display());
    }
}

/// A Wicht photo in gray, its puzzle covered by the paper around it, scaled to 1080 rows and
/// widened to 1920 columns by its own edges; None without published corners.
fn page_without_its_puzzle(sample: &common::Sample) -> Option<opencv::core::Mat> {
    use opencv::core::{BORDER_REPLICATE, Mat, MatTraitConst, Size, copy_make_border};
    use opencv::imgproc;
    let corners = sample.corners?;
    let photo = sudoku_ar::photo::load_image(&sample.path).expect("photo");
    let mut gray = Mat::default();
    imgproc::cvt_color(&photo, &mut gray, imgproc::COLOR_BGR2GRAY, 0).expect("gray");
    sudoku_ar::recognize::detect::cover(&mut gray, &corners).expect("cover");
    let width = ((gray.cols() as f64 * 1080.0 / gray.rows() as f64).round() as i32).min(1920);
    let mut page = Mat::default();
    let size = Size::new(width, 1080);
    imgproc::resize(&gray, &mut page, size, 0.0, 0.0, imgproc::INTER_AREA).expect("resize");
    let (left, right) = ((1920 - width) / 2, 1920 - width - (1920 - width) / 2);
    let mut frame = Mat::default();
    let border = Default::default();
    copy_make_border(
        &page,
        &mut frame,
        0,
        0,
        left,
        right,
        BORDER_REPLICATE,
        border,
    )
    .expect("frame");
    Some(frame)
}

/// Real Kubiesa photos bowed across (columns, then rows) by each of `amounts` (shares of a cell,
/// both ways round), read as stills: per case whether solved right and drawn, and how far (share
/// of a cell) its worst cell lies from its printed middle.
fn report_bowed_stills(amounts: &[f64]) {
    let mut pipeline = common::pipeline();
    let (mut cases, mut solved, mut drawn, mut drawn_off) = (0, 0, 0, 0);
    let mut worst_drawn = 0.0f64;
    for (_, name, page) in every_page(8) {
        for across in [0, 1] {
            for &amount in amounts {
                for cells in [-amount, amount] {
                    cases += 1;
                    let bowed = common::curved::Bowed::new(&page.corners, across, cells);
                    let image = bowed.apply(&page.photo);
                    let mut times = sudoku_ar::photo::StageTimes::default();
                    let read = pipeline.process(&image, &mut times).ok().flatten();
                    let case = format!("{name} bowed {cells} cell across {across}");
                    let Some(puzzle) =
                        read.filter(|p| p.solution.map(|s| s.0) == Some(page.puzzle.1))
                    else {
                        println!("{case}: not solved right");
                        continue;
                    };
                    solved += 1;
                    let worst = bowed.worst_cell_drawn(&puzzle);
                    println!(
                        "{case}: solved, worst cell {worst:.2} off, drawn {}",
                        !puzzle.off_print
                    );
                    if !puzzle.off_print {
                        drawn += 1;
                        worst_drawn = worst_drawn.max(worst);
                        drawn_off += usize::from(worst >= OFF);
                    }
                }
            }
        }
    }
    println!(
        "bowed stills: {solved} of {cases} solved right, {drawn} drawn, {drawn_off} of them with a \
         cell >= {OFF} cell off, worst drawn {worst_drawn:.2}"
    );
}

/// Per page of `pages` and noise seed: frames drawn, how many along a bend, how many with a
/// cell [`OFF`] or more off, the worst.
fn report_pages(pages: &[CurvedPage], seeds: &[u64], every_frame: bool) {
    for &seed in seeds {
        let frames = frames_drawn(pages, seed);
        let off = frames.iter().filter(|f| f.worst >= OFF).count();
        let worst = frames.iter().map(|f| f.worst).fold(0.0, f64::max);
        println!(
            "{} pages, noise {seed}: {} frames drawn, {off} with a cell >= {OFF} cell off, worst {worst:.3}",
            pages.len(),
            frames.len()
        );
        for (i, page) in pages.iter().enumerate() {
            let mine: Vec<_> = frames.iter().filter(|f| f.page == i).collect();
            let off = mine.iter().filter(|f| f.worst >= OFF).count();
            let worst = mine.iter().map(|f| f.worst).fold(0.0, f64::max);
            println!(
                "{}, noise {seed}: {} frames drawn ({} along the bend), {off} with a cell >= {OFF} cell off, worst {worst:.3}",
                page.name,
                mine.len(),
                mine.iter().filter(|f| f.bent).count(),
            );
            if every_frame {
                for f in mine.iter().filter(|f| f.worst >= OFF) {
                    println!(
                        "  frame {}: {:.3}{}",
                        f.frame,
                        f.worst,
                        if f.bent { " (bent)" } else { "" }
                    );
                }
            }
        }
    }
}

fn main() {
    // RUST_LOG=sudoku_ar=debug shows what the vision stage decides, frame by frame; with
    // `,curved=info` each line names its page and frame.
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    let bows: Vec<f64> = list("--bows", "0.028,0.04,0.05");
    let seeds: Vec<u64> = list("--seeds", "1,2,3,4,5,6");
    let every_frame = std::env::args().any(|a| a == "--frames");
    if std::env::args().any(|a| a == "--no-puzzle") {
        report_pages_without_a_puzzle();
        return;
    }
    if common::bench_arg("--bowed-stills").is_some() {
        report_bowed_stills(&list::<f64>("--bowed-stills", ""));
        return;
    }
    let real_pages: [(&str, PagesBy); 3] = [
        ("--fold", folded_pages),
        ("--gutter", curled_pages),
        ("--bowed", bowed_pages),
    ];
    for (flag, pages) in real_pages {
        if common::bench_arg(flag).is_some() {
            for amount in list::<f64>(flag, "") {
                report_pages(&pages(amount), &seeds, every_frame);
            }
            return;
        }
    }
    for bow in bows {
        let columns_and_rows = TESTED
            .into_iter()
            .find(|[columns, _]| (columns - bow).abs() < 1e-9)
            .unwrap_or([bow, 0.6 * bow]);
        let pages: Vec<CurvedPage> = (0..2)
            .map(|k| CurvedPage::bowed(k, columns_and_rows))
            .collect();
        let (mut all, mut all_off, mut worst_all) = (0, 0, 0.0f64);
        for &seed in &seeds {
            let frames = frames_drawn(&pages, seed);
            let off: Vec<_> = frames.iter().filter(|f| f.worst >= OFF).collect();
            let worst = frames.iter().map(|f| f.worst).fold(0.0, f64::max);
            println!(
                "columns bowed {:.2} cell, noise {seed}: {} frames drawn ({} along the bend), {} with a cell >= {OFF} cell off, worst {worst:.3}",
                9.0 * bow,
                frames.len(),
                frames.iter().filter(|f| f.bent).count(),
                off.len(),
            );
            if every_frame {
                for f in &off {
                    println!("  page {} frame {}: {:.3}", f.page, f.frame, f.worst);
                }
            }
            all += frames.len();
            all_off += off.len();
            worst_all = worst_all.max(worst);
        }
        println!(
            "columns bowed {:.2} cell, noise {seeds:?}: {all} frames drawn, {all_off} with a cell >= {OFF} cell off, worst {worst_all:.3}",
            9.0 * bow
        );
    }
}
