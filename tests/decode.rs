//! The decoder on misread puzzles built from the digit model's real readings of the Wicht
//! photos (see `common/corrupt.rs`): it must fix most, change few wrongly, and refuse every
//! genuinely ambiguous one. Floors a little under what `cargo bench --bench decode` measured.

mod common;

use common::corrupt::{Kind, Outcome, cases, outcome, real_readings};
use common::{pipeline, wicht};
use sudoku_ar::recognize::decode::Budget;

#[test]
fn decoder_fixes_misread_puzzles_from_real_readings_and_refuses_ambiguous_ones() {
    let samples = wicht();
    assert!(
        samples.len() >= 150,
        "the Wicht photos live in ../shared/data (or set SUDOKU_DATA)"
    );
    let samples: Vec<_> = samples.iter().collect();
    let readings = real_readings(&mut pipeline(), &samples);
    assert!(
        readings.len() >= 150,
        "only {} photos read right in every clue",
        readings.len()
    );
    let cases = cases(&readings, 5, 2026);

    let mut counts = [0usize; 3];
    let mut blanked = [0usize; 3];
    let (mut ambiguous, mut ambiguous_refused) = (0, 0);
    for case in &cases {
        let o = outcome(case, Budget::PHOTO);
        match case.kind {
            Kind::Ambiguous => {
                ambiguous += 1;
                ambiguous_refused += (o == Outcome::Refused) as usize;
            }
            kind => {
                counts[o as usize] += 1;
                if kind == Kind::Blanked {
                    blanked[o as usize] += 1;
                }
            }
        }
    }
    let total = counts.iter().sum::<usize>() as f64;
    let (fixed, wrong) = (counts[0] as f64 / total, counts[1] as f64 / total);
    let summary = format!(
        "fixed {counts:?} (fixed/wrong/refused), blanked {blanked:?}, ambiguous refused {ambiguous_refused}/{ambiguous}"
    );
    assert!(
        ambiguous >= 100 && ambiguous_refused == ambiguous,
        "{summary}"
    );
    assert!(fixed >= 0.54, "{summary}");
    assert!(wrong <= 0.026, "{summary}");
    // A clue read as empty, the commonest misreading in video.
    assert!(
        blanked[0] as f64 >= 0.70 * blanked.iter().sum::<usize>() as f64 && blanked[1] <= 5,
        "{summary}"
    );
}
