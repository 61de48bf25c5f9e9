//! Recognition accuracy and per-stage time on the real photos in ../shared/data.
//! Run: `cargo bench --bench photos` (add `-- --failures` to list every misread photo).

#[path = "../tests/common/mod.rs"]
mod common;

use common::{Score, evaluate, kubiesa_val, median, pipeline, wicht, wicht_held_out};

fn main() {
    let show_failures = std::env::args().any(|a| a == "--failures");
    let mut pipeline = pipeline();
    let wicht = wicht();
    let held_out: Vec<_> = wicht.iter().filter(|s| wicht_held_out(&s.path)).collect();
    let trained: Vec<_> = wicht.iter().filter(|s| !wicht_held_out(&s.path)).collect();
    let kubiesa = kubiesa_val();
    let kubiesa: Vec<_> = kubiesa.iter().collect();

    let runs = [
        ("wicht held-out (never trained on)", evaluate(&mut pipeline, &held_out)),
        ("wicht training part", evaluate(&mut pipeline, &trained)),
        ("kubiesa photos-val (never trained on)", evaluate(&mut pipeline, &kubiesa)),
    ];
    for (name, score) in &runs {
        println!("{}", score.summary(name));
        if show_failures {
            for line in &score.failures {
                println!("    {line}");
            }
        }
    }
    let all_wicht = Score {
        photos: runs[0].1.photos + runs[1].1.photos,
        found: runs[0].1.found + runs[1].1.found,
        perfect: runs[0].1.perfect + runs[1].1.perfect,
        ..Default::default()
    };
    println!("wicht all 160: grid found {}, read perfectly {}", all_wicht.found, all_wicht.perfect);

    // Time per stage, by picture size (Wicht: 640x480 and 1280x960 phones; Kubiesa: 1200x1600).
    let mut by_size: std::collections::BTreeMap<String, Vec<sudoku_ar::photo::StageTimes>> = Default::default();
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
            "{size} ({} photos): median ms per photo: detect {:.2}, read {:.2}, solve {:.3}, render {:.2}",
            times.len(),
            stage(|t| t.detect),
            stage(|t| t.read),
            stage(|t| t.solve),
            stage(|t| t.render),
        );
    }
}
