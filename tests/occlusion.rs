//! Something over the page: the photos in ../shared/data with a fingertip drawn across the
//! grid's bottom border into its last row, as when the page is held by the thumb, or with a
//! glare spot inside the grid. What shows of a clue under a fingertip or beside the glare can
//! look like another digit; the solution drawn must then be the right one or none, never
//! another one.

mod common;

use common::cover::{finger_placed, glare_placed, solve_covered};
use common::{Sample, pipeline, wicht};

#[test]
fn a_finger_over_a_clue_never_gets_a_wrong_solution_drawn() {
    let samples = wicht();
    let picked: Vec<&Sample> = samples.iter().collect();
    // Every photo, the finger at one of five places along the border.
    let outcomes = solve_covered(&mut pipeline(), &picked, finger_placed);
    println!(
        "{}; finger seen in {}",
        outcomes.summary("finger over the bottom row"),
        outcomes.seen_low
    );
    outcomes.assert_never_wrong((2, 3));
    // The finger is seen where it crosses a line beside the last two rows.
    assert!(
        outcomes.seen_low * 2 >= outcomes.photos,
        "the finger seen in only {} of {}",
        outcomes.seen_low,
        outcomes.photos
    );
}

#[test]
fn a_glare_spot_never_gets_a_wrong_solution_drawn() {
    let samples = wicht();
    let picked: Vec<&Sample> = samples.iter().collect();
    for set in 0..2 {
        let outcomes = solve_covered(&mut pipeline(), &picked, |image, corners, k| {
            glare_placed(set, image, corners, k)
        });
        println!("{}", outcomes.summary(&format!("glare spot, places {set}")));
        // A spot over a needed clue leaves the puzzle open (about half of them do).
        outcomes.assert_never_wrong((2, 5));
    }
}
