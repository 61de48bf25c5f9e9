//! Something over the page: the photos in ../shared/data with a fingertip drawn across the
//! grid's bottom border into its last row, as when the page is held by the thumb, or with a
//! glare spot inside the grid. What shows of a clue under a fingertip or beside the glare can
//! look like another digit; the solution drawn must then be the right one or none, never
//! another one.

mod common;

use common::cover::{glare_place, solve_covered, with_finger, with_glare};
use common::{Sample, pipeline, wicht};

#[test]
fn a_finger_over_a_clue_never_gets_a_wrong_solution_drawn() {
    let samples = wicht();
    let picked: Vec<&Sample> = samples.iter().collect();
    // Every photo, the finger at one of five places along the border.
    let outcomes = solve_covered(&mut pipeline(), &picked, |image, corners, k| {
        with_finger(image, corners, [0.3, 0.4, 0.5, 0.6, 0.7][k % 5], 0.12, 0.07)
    });
    println!(
        "{}; finger seen in {}",
        outcomes.summary("finger over the bottom row"),
        outcomes.seen_low
    );
    assert!(
        outcomes.wrong.is_empty(),
        "wrong solutions: {:?}",
        outcomes.wrong
    );
    // The finger is seen where it crosses a line beside the last two rows.
    assert!(
        outcomes.seen_low * 2 >= outcomes.photos,
        "the finger seen in only {} of {}",
        outcomes.seen_low,
        outcomes.photos
    );
    assert!(
        outcomes.right * 3 >= outcomes.photos * 2,
        "only {} of {} solved",
        outcomes.right,
        outcomes.photos
    );
}

#[test]
fn a_glare_spot_never_gets_a_wrong_solution_drawn() {
    let samples = wicht();
    let picked: Vec<&Sample> = samples.iter().collect();
    for set in 0..2 {
        let outcomes = solve_covered(&mut pipeline(), &picked, |image, corners, k| {
            let (u, v, angle) = glare_place(set, k);
            with_glare(image, corners, u, v, angle)
        });
        println!("{}", outcomes.summary(&format!("glare spot, places {set}")));
        assert!(
            outcomes.wrong.is_empty(),
            "wrong solutions: {:?}",
            outcomes.wrong
        );
        // A spot over a needed clue leaves the puzzle open (about half of them do).
        assert!(
            outcomes.right * 5 >= outcomes.photos * 2,
            "only {} of {} solved",
            outcomes.right,
            outcomes.photos
        );
    }
}
