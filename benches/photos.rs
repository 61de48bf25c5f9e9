//! Recognition accuracy and per-stage time on the real photos in ../shared/data.
//! Run: `cargo bench --bench photos` (add `-- --failures` to list every misread photo, with
//! why: corner error, the digit read and the runner-up; the rectified grids with the misread
//! cells outlined go to `target/photo-failures/`).

use opencv::core::Mat;
use sudoku_ar::geometry::Quad;

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use common::{
    FailedGrid, Sample, Score, cover, evaluate, kubiesa_val, median, off_nearest, pipeline,
    puzzles_together, wicht, wicht_held_out,
};
use sudoku_ar::photo::{PhotoPipeline, StageTimes};

fn main() {
    let show_failures = std::env::args().any(|a| a == "--failures");
    let mut pipeline = pipeline();
    let wicht = wicht();
    let held_out: Vec<_> = wicht.iter().filter(|s| wicht_held_out(&s.path)).collect();
    let trained: Vec<_> = wicht.iter().filter(|s| !wicht_held_out(&s.path)).collect();
    let kubiesa = kubiesa_val();
    let kubiesa: Vec<_> = kubiesa.iter().collect();

    let runs = [
        (
            "wicht held-out (never trained on)",
            evaluate(&mut pipeline, &held_out),
        ),
        ("wicht training part", evaluate(&mut pipeline, &trained)),
        (
            "kubiesa photos-val (never trained on)",
            evaluate(&mut pipeline, &kubiesa),
        ),
    ];
    for (name, score) in &runs {
        println!("{}", score.summary(name));
        if show_failures {
            for line in &score.failures {
                println!("    {line}");
            }
            for failed in &score.failed_grids {
                if let Err(err) = save_failed_grid(failed) {
                    println!("    (could not save {}: {err})", failed.name);
                }
            }
        }
    }
    let all_wicht = Score {
        photos: runs[0].1.photos + runs[1].1.photos,
        found: runs[0].1.found + runs[1].1.found,
        perfect: runs[0].1.perfect + runs[1].1.perfect,
        ..Default::default()
    };
    println!(
        "wicht all 160: grid found {}, read perfectly {}",
        all_wicht.found, all_wicht.perfect
    );

    // Something over the grid (tests/common/cover.rs): the right solution, none, or a wrong
    // one (the worst failure: wrong digits drawn).
    let all: Vec<_> = wicht.iter().collect();
    let finger = cover::solve_covered(&mut pipeline, &all, cover::finger_placed);
    println!("{}", finger.summary("wicht, fingertip over the bottom row"));
    // A spot somewhere inside the grid, in two sets of places.
    for (set, name) in [
        "wicht, glare spot inside the grid",
        "wicht, glare spot elsewhere",
    ]
    .into_iter()
    .enumerate()
    {
        let spot =
            |image: &Mat, corners: &Quad, k: usize| cover::glare_placed(set, image, corners, k);
        let glare = cover::solve_covered(&mut pipeline, &all, spot);
        println!("{}", glare.summary(name));
        if show_failures {
            save_wrong(&all, &glare.wrong, spot);
        }
    }

    // Time per stage, by picture size (Wicht: 640x480 and 1280x960 phones; Kubiesa: 1200x1600).
    let mut by_size: std::collections::BTreeMap<String, Vec<sudoku_ar::photo::StageTimes>> =
        Default::default();
    for (_, score) in &runs {
        for (times, &(w, h)) in score.times.iter().zip(&score.sizes) {
            let key = match w.max(h) {
                0..=700 => "640x480",
                701..=1300 => "about 1280x960",
                _ => "1200x1600 and larger",
            };
            by_size.entry(key.to_string()).or_default().push(*times);
        }
    }
    for (size, times) in &by_size {
        let stage = |f: fn(&sudoku_ar::photo::StageTimes) -> std::time::Duration| {
            median(times.iter().map(f).collect()).as_secs_f64() * 1e3
        };
        println!(
            "{size} ({} photos): median ms per photo: detect {:.2}, rectify {:.2}, read {:.2}, solve {:.3}, render {:.2}",
            times.len(),
            stage(|t| t.detect),
            stage(|t| t.rectify),
            stage(|t| t.read),
            stage(|t| t.solve),
            stage(|t| t.render),
        );
        let slowest_read = times.iter().map(|t| t.read).max().unwrap_or_default();
        println!(
            "    slowest read (model, with turned readings): {:.2} ms",
            slowest_read.as_secs_f64() * 1e3
        );
    }
    every_puzzle(&mut pipeline, &all, &kubiesa);
}

/// What `sudoku-ar image` adds by looking for more puzzles than the first
/// (`PhotoPipeline::process_all`): its time on the one-puzzle photos and any other puzzle it
/// reports there, and how many of the puzzles laid together on a page it solves in place.
fn every_puzzle(pipeline: &mut PhotoPipeline, wicht: &[&Sample], kubiesa: &[&Sample]) {
    let (mut first_only, mut all, mut extra) = (Vec::new(), Vec::new(), 0);
    for sample in wicht.iter().chain(kubiesa) {
        let Ok(image) = sudoku_ar::photo::load_image(&sample.path) else {
            continue;
        };
        let start = Instant::now();
        let _ = pipeline.process(&image, &mut StageTimes::default());
        first_only.push(start.elapsed());
        let start = Instant::now();
        let found = pipeline.process_all(&image, &mut StageTimes::default());
        all.push(start.elapsed());
        extra += found.map_or(0, |f| f.len().saturating_sub(1));
    }
    println!(
        "every puzzle in a picture, on the {} one-puzzle photos: median ms per photo {:.2} (the first alone {:.2}), other puzzles reported {extra}",
        all.len(),
        median(all).as_secs_f64() * 1e3,
        median(first_only).as_secs_f64() * 1e3,
    );
    let with_corners: Vec<_> = kubiesa.iter().filter(|s| s.corners.is_some()).collect();
    let (mut right, mut total, mut elsewhere) = (0, 0, 0);
    for group in with_corners.chunks(4) {
        let group: Vec<&Sample> = group.iter().map(|s| **s).collect();
        let (picture, truth) = puzzles_together(&group, 300.0, 2);
        let Ok(found) = pipeline.process_all(&picture, &mut StageTimes::default()) else {
            continue;
        };
        total += truth.len();
        for puzzle in found.iter().filter(|p| p.solution.is_some()) {
            if off_nearest(&puzzle.quad, &truth) < 0.03 {
                right += 1;
            } else {
                elsewhere += 1;
            }
        }
    }
    println!(
        "kubiesa photos four to a page ({total}): solved in place {right}, solved elsewhere {elsewhere}"
    );
}

/// Writes the rectified grid, doubled in size, with each misread cell outlined in red.
fn save_failed_grid(failed: &FailedGrid) -> opencv::Result<()> {
    use opencv::core::{Mat, Rect, Scalar, Size, Vector};
    use opencv::{imgcodecs, imgproc};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/photo-failures");
    std::fs::create_dir_all(&dir)
        .map_err(|e| opencv::Error::new(opencv::core::StsError, e.to_string()))?;
    let mut big = Mat::default();
    imgproc::resize(
        &failed.rectified,
        &mut big,
        Size::default(),
        2.0,
        2.0,
        imgproc::INTER_NEAREST,
    )?;
    let mut colour = Mat::default();
    imgproc::cvt_color(&big, &mut colour, imgproc::COLOR_GRAY2BGR, 0)?;
    let cell = 2 * sudoku_ar::recognize::cells::CELL;
    for &i in &failed.wrong_cells {
        let rect = Rect::new((i % 9) as i32 * cell, (i / 9) as i32 * cell, cell, cell);
        imgproc::rectangle(
            &mut colour,
            rect,
            Scalar::new(0.0, 0.0, 255.0, 0.0),
            2,
            imgproc::LINE_8,
            0,
        )?;
    }
    let path = dir.join(&failed.name).with_extension("png");
    imgcodecs::imwrite(path.to_string_lossy().into_owned(), &colour, &Vector::new())?;
    Ok(())
}

/// Writes each covered photo that got a wrong solution to target/photo-failures, as covered.
fn save_wrong(samples: &[&Sample], wrong: &[String], cover: impl Fn(&Mat, &Quad, usize) -> Mat) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/photo-failures");
    for (k, sample) in samples.iter().enumerate() {
        let name = sample.path.display().to_string();
        let (true, Some(corners)) = (wrong.contains(&name), sample.corners) else {
            continue;
        };
        let Ok(image) = sudoku_ar::photo::load_image(&sample.path) else {
            continue;
        };
        let stem = sample
            .path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy();
        let path = dir.join(format!("covered-{stem}.png"));
        let written = std::fs::create_dir_all(&dir).is_ok()
            && opencv::imgcodecs::imwrite(
                path.to_str().unwrap_or_default(),
                &cover(&image, &corners, k),
                &opencv::core::Vector::new(),
            )
            .unwrap_or(false);
        println!(
            "    {name}: {}",
            if written {
                path.display().to_string()
            } else {
                "(not written)".into()
            }
        );
    }
}
