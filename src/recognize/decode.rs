//! Most-likely-puzzle decoding: the clues that lose the least likelihood against the readings,
//! subject to the puzzle having exactly one solution.
//!
//! Every cell has a log-likelihood for each thing it may hold (no clue, or a printed 1-9). The
//! reading as read takes each cell's likeliest class; changing a cell to another class costs
//! the log-likelihood it gives up. The decoder enumerates sets of changes in order of total
//! cost, best first (a clue read as empty, an empty cell read as a clue, one digit for
//! another), and lets the solver judge each: the first set of clues with exactly one solution
//! is the most likely puzzle. It goes on looking for the next one with another solution (clues
//! that solve the same way draw the same digits), and reports by how much the chosen puzzle
//! beats it: a change is accepted only when that margin is clear, so a reading
//! that could as well be two different puzzles is called uncertain instead of being "fixed".
//!
//! The enumeration is the classic one for subsets in order of their sum: the possible changes
//! sorted by cost, each set extended by the next change or its last change moved on to the
//! next, from a heap. Sets that change one cell twice are skipped, not evaluated.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use crate::grid::Grid;
use crate::recognize::read::{CLASSES, argmax};
use crate::solve::{SolveError, solve};

/// One cell whose reading was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Correction {
    /// Index 0-80, row by row.
    pub cell: usize,
    /// What the model read first (0 = empty).
    pub read: u8,
    /// What the cell was corrected to.
    pub now: u8,
}

/// How much searching one decoding may do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Sets of clues handed to the solver, at most.
    pub solver_calls: usize,
    /// Wall time, at most: a guard, set well above what `solver_calls` take (about 15 us
    /// each), so that the calls end a search and results do not depend on the machine's load
    /// (with 2 ms for a frame, the simulated-camera figures changed between loaded and idle runs).
    pub time: Duration,
    /// The chosen puzzle must beat every other puzzle with one solution by this many nats of
    /// log-likelihood to be accepted with changes.
    pub margin: f32,
}

impl Budget {
    /// For a still photo: one reading, one chance; about 9 ms at most.
    pub const PHOTO: Budget = Budget {
        solver_calls: 600,
        time: Duration::from_millis(50),
        margin: 1.6,
    };
    /// For a video frame: the evidence of a few frames summed, so likelihoods are sharper and
    /// the margin asked is larger; a doubtful puzzle is simply read again next frame.
    pub const FRAME: Budget = Budget {
        solver_calls: 300,
        time: Duration::from_millis(20),
        margin: 3.0,
    };
}

/// Changes from the reading, at most, in one decoded puzzle.
const MAX_CHANGES: usize = 4;
/// Changes costing more than this (nats) are not considered: the reading is sure there.
const MAX_COST: f32 = 30.0;
/// Possible changes considered, at most: the cheapest ones.
const MAX_OPTIONS: usize = 96;
/// Sets of changes taken from the heap, at most (including ones not worth a solver call).
const MAX_VISITS: usize = 40_000;

/// A set of clues with exactly one solution, and how it compares with the readings.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub clues: Grid,
    pub solution: Grid,
    /// Cells that differ from what was read.
    pub corrections: Vec<Correction>,
    /// Log-likelihood given up against the likeliest reading of every cell, in nats.
    pub cost: f32,
    /// How much more the next-best puzzle with one solution, a different one, gives up
    /// (nats); where none was found, the search covered everything up to this margin, so it is
    /// at least this.
    pub margin: f32,
    /// The next-best puzzle's clues, when one was found (else `margin` is a lower bound).
    pub runner_up: Option<Grid>,
}

/// What the readings support.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// One puzzle, clearly ahead of any other: its solution can be drawn.
    Solved(Decoded),
    /// The likeliest puzzle with one solution is changed from the reading and not clearly
    /// ahead of the next: keep looking (or, for a photo, say it could not be read surely).
    Uncertain(Decoded),
    /// No puzzle with one solution was found near the readings; the error is the reading's own.
    Failed(SolveError),
}

/// Decodes the most likely puzzle.
///
/// `log_likelihoods[cell][class]` is the log-likelihood of cell (0-80) holding class (0 = no
/// clue, 1-9 a printed digit), from one reading or the sum of several; `read` is the grid as
/// read, which corrections are reported against; `allowed` says which cells may change.
///
/// ```
/// use sudoku_ar::recognize::decode::{decode, Budget, Verdict};
/// use sudoku_ar::grid::Grid;
/// let truth: Grid = "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
///     .parse().unwrap();
/// // Every cell read surely as it is, except cell 7, whose 1 looked more like a 7.
/// let mut ll: Vec<[f32; 10]> = truth.0.iter().map(|&d| {
///     let mut l = [-12.0; 10];
///     l[d as usize] = 0.0;
///     l
/// }).collect();
/// ll[7] = [-12.0; 10];
/// ll[7][7] = (0.7f32).ln();
/// ll[7][1] = (0.3f32).ln();
/// let mut read = truth;
/// read.0[7] = 7;
/// match decode(&read, &ll, |_| true, Budget::PHOTO) {
///     Verdict::Solved(d) => assert_eq!(d.clues, truth),
///     other => panic!("{other:?}"),
/// }
/// ```
pub fn decode(
    read: &Grid,
    log_likelihoods: &[[f32; CLASSES]],
    allowed: impl Fn(usize) -> bool,
    budget: Budget,
) -> Verdict {
    let started = Instant::now();
    let cells = log_likelihoods.len().min(81);
    let mut base = Grid::EMPTY;
    for (cell, l) in log_likelihoods.iter().take(cells).enumerate() {
        base.0[cell] = argmax(l) as u8;
    }
    let (options, complete_to) = options(&base, log_likelihoods, &allowed);
    let as_read = solve(&base);
    let best = as_read.as_ref().ok().map(|&solution| (0.0, base, solution));
    match search(&base, &options, best, budget, started) {
        Searched::Rival {
            best: (cost, clues, solution),
            rival,
            rival_cost,
        } => verdict(
            read,
            clues,
            solution,
            cost,
            rival_cost - cost,
            Some(rival),
            budget,
        ),
        // Sets of options left out cost at least `complete_to`: the search vouches for
        // nothing beyond.
        Searched::Ended {
            best: Some((cost, clues, solution)),
            searched_to,
        } => verdict(
            read,
            clues,
            solution,
            cost,
            (searched_to.min(complete_to) - cost).max(0.0),
            None,
            budget,
        ),
        Searched::Ended { best: None, .. } => {
            Verdict::Failed(as_read.err().unwrap_or(SolveError::Unsolvable))
        }
    }
}

/// Clues with one solution found by [`search`]: (cost, clues, solution).
type Found = (f32, Grid, Grid);

/// How far [`search`] went.
enum Searched {
    /// A puzzle with another solution than the best one's, at `rival_cost`.
    Rival {
        best: Found,
        rival: Grid,
        rival_cost: f32,
    },
    /// No rival within the budget: the best puzzle if any, and the cost up to which every set
    /// of changes was tried.
    Ended {
        best: Option<Found>,
        searched_to: f32,
    },
}

/// Tries the sets of `options` applied to `base` in order of cost, keeping the cheapest with one
/// solution (`best`, the reading as read's if it solves), until one with another solution is
/// found, the sets cost `budget.margin` more than the best, or the budget (counted from
/// `started`, the solving of `base` included) is spent.
fn search(
    base: &Grid,
    options: &[Change],
    mut best: Option<Found>,
    budget: Budget,
    started: Instant,
) -> Searched {
    let mut calls = 1;
    let mut heap = BinaryHeap::new();
    if let Some(first) = options.first() {
        heap.push(Reverse(Changes::one(first.cost)));
    }
    let mut searched_to = if options.is_empty() { MAX_COST } else { 0.0 };
    let mut visits = 0;
    // Whether every set of the options kept was tried. Not "the heap is empty" after the loop:
    // a set is taken off the heap before it is judged too costly, and when it was the last one
    // (the reading solves as read and its cheapest change already costs the margin, so no
    // successor was ever pushed), the heap is empty and the search still stopped at that set's
    // cost. Taken for complete, the margin claimed was the options' cost bound instead: a 3
    // read as a 2 at 0.73 against 0.10 (1.98 nats) reported 5.8 nats clear, and a second look
    // at a photo took it (image33 degraded).
    let mut exhausted = false;
    loop {
        let Some(Reverse(changes)) = heap.pop() else {
            exhausted = true;
            break;
        };
        let cost = changes.cost();
        searched_to = cost;
        if let Some((best_cost, ..)) = best
            && cost >= best_cost + budget.margin
        {
            break;
        }
        visits += 1;
        if calls >= budget.solver_calls || visits >= MAX_VISITS {
            break;
        }
        if started.elapsed() > budget.time {
            // The result now depends on the machine's speed and load: worth knowing.
            tracing::debug!(calls, visits, "decoding stopped by its time guard");
            break;
        }
        changes.push_successors(options, &mut heap);
        let Some(clues) = changes.apply(base, options) else {
            continue;
        };
        calls += 1;
        if let Ok(solution) = solve(&clues) {
            match best {
                None => best = Some((cost, clues, solution)),
                // Clues that differ but solve the same way draw the same digits: no rival.
                Some((.., best_solution)) if best_solution == solution => {}
                Some(found) => {
                    return Searched::Rival {
                        best: found,
                        rival: clues,
                        rival_cost: cost,
                    };
                }
            }
        }
    }
    if exhausted {
        searched_to = MAX_COST;
    }
    Searched::Ended { best, searched_to }
}

fn verdict(
    read: &Grid,
    clues: Grid,
    solution: Grid,
    cost: f32,
    margin: f32,
    runner_up: Option<Grid>,
    budget: Budget,
) -> Verdict {
    let corrections: Vec<Correction> = (0..81)
        .filter(|&cell| clues.0[cell] != read.0[cell])
        .map(|cell| Correction {
            cell,
            read: read.0[cell],
            now: clues.0[cell],
        })
        .collect();
    let decoded = Decoded {
        clues,
        solution,
        corrections,
        cost,
        margin,
        runner_up,
    };
    if decoded.margin >= budget.margin {
        Verdict::Solved(decoded)
    } else {
        Verdict::Uncertain(decoded)
    }
}

/// One possible change: `cell` to `class`, giving up `cost` nats.
#[derive(Debug, Clone, Copy)]
struct Change {
    cell: u8,
    class: u8,
    cost: f32,
}

/// Every change worth considering, cheapest first, and the cost up to which sets of them cover
/// every possible set of changes: any set with an option left out, or with more than
/// [`MAX_CHANGES`] changes, costs at least that much.
fn options(
    base: &Grid,
    log_likelihoods: &[[f32; CLASSES]],
    allowed: &impl Fn(usize) -> bool,
) -> (Vec<Change>, f32) {
    let mut options: Vec<Change> = Vec::new();
    let mut complete_to = MAX_COST;
    for (cell, l) in log_likelihoods.iter().take(81).enumerate() {
        if !allowed(cell) {
            continue;
        }
        let top = l[base.0[cell] as usize];
        for (class, &likelihood) in l.iter().enumerate() {
            let cost = (top - likelihood).max(0.0);
            if class == base.0[cell] as usize {
                continue;
            }
            if cost <= MAX_COST && cost.is_finite() {
                options.push(Change {
                    cell: cell as u8,
                    class: class as u8,
                    cost,
                });
            }
        }
    }
    options.sort_by(|a, b| a.cost.total_cmp(&b.cost));
    if let Some(first_left_out) = options.get(MAX_OPTIONS) {
        complete_to = complete_to.min(first_left_out.cost);
    }
    options.truncate(MAX_OPTIONS);
    if options.len() > MAX_CHANGES {
        complete_to = complete_to.min(options[..=MAX_CHANGES].iter().map(|o| o.cost).sum());
    }
    (options, complete_to)
}

/// A set of changes, as indices into the sorted options, ordered by total cost on the heap.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Changes {
    cost: f32,
    picked: [u8; MAX_CHANGES],
    len: u8,
}

impl Changes {
    fn one(cost: f32) -> Changes {
        Changes {
            cost,
            picked: [0; MAX_CHANGES],
            len: 1,
        }
    }

    fn cost(&self) -> f32 {
        self.cost
    }

    fn last(&self) -> usize {
        self.picked[self.len as usize - 1] as usize
    }

    /// The two sets that follow this one: with the next option added, and with the last
    /// option moved on to the next. Every set is reached exactly once, in order of cost.
    fn push_successors(&self, options: &[Change], heap: &mut BinaryHeap<Reverse<Changes>>) {
        let next = self.last() + 1;
        let Some(option) = options.get(next) else {
            return;
        };
        if (self.len as usize) < MAX_CHANGES {
            let mut added = *self;
            added.picked[self.len as usize] = next as u8;
            added.len += 1;
            added.cost += option.cost;
            heap.push(Reverse(added));
        }
        let mut moved = *self;
        moved.picked[self.len as usize - 1] = next as u8;
        moved.cost += option.cost - options[self.last()].cost;
        heap.push(Reverse(moved));
    }

    /// The clues with these changes made; None when two of them change the same cell.
    fn apply(&self, base: &Grid, options: &[Change]) -> Option<Grid> {
        let mut clues = *base;
        let mut touched = 0u128;
        for &i in &self.picked[..self.len as usize] {
            let change = options[i as usize];
            let bit = 1u128 << change.cell;
            if touched & bit != 0 {
                return None;
            }
            touched |= bit;
            clues.0[change.cell as usize] = change.class;
        }
        Some(clues)
    }
}

impl Eq for Changes {}

impl PartialOrd for Changes {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Changes {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.cost
            .total_cmp(&other.cost)
            .then_with(|| self.picked[..self.len as usize].cmp(&other.picked[..other.len as usize]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "000000010400000000020000000000050407008000300001090000300400200050100000000806000";

    /// Log-likelihoods of a cell read surely as `digit`.
    fn sure(digit: u8) -> [f32; CLASSES] {
        let mut l = [-14.0; CLASSES];
        l[digit as usize] = 0.0;
        l
    }

    /// A cell read as `read` with probability `p`, the rest on `other`.
    fn torn(read: u8, other: u8, p: f32) -> [f32; CLASSES] {
        let mut l = [-14.0; CLASSES];
        l[read as usize] = p.ln();
        l[other as usize] = (1.0 - p).ln();
        l
    }

    fn truth() -> Grid {
        PUZZLE.parse().unwrap()
    }

    fn readings_of(grid: &Grid) -> Vec<[f32; CLASSES]> {
        grid.0.iter().map(|&d| sure(d)).collect()
    }

    fn solved(verdict: Verdict) -> Decoded {
        match verdict {
            Verdict::Solved(d) => d,
            other => panic!("expected a solved puzzle, got {other:?}"),
        }
    }

    #[test]
    fn a_sure_reading_that_solves_stands() {
        let d = solved(decode(
            &truth(),
            &readings_of(&truth()),
            |_| true,
            Budget::PHOTO,
        ));
        assert_eq!((d.clues, d.corrections.len(), d.cost), (truth(), 0, 0.0));
        assert!(d.margin >= Budget::PHOTO.margin);
    }

    #[test]
    fn the_margin_of_a_reading_that_solves_is_no_more_than_its_cheapest_rival() {
        // A newspaper puzzle (image33) with its 3 in cell 26 read as a 2 at 0.88 against 0.12:
        // each gives one solution, a different one. The only change worth trying costs
        // ln(0.88 / 0.12) = 1.99 nats, the margin at most that; the search once stopped there
        // with nothing left on its heap and called itself complete, reporting a margin of 14.
        let truth: Grid =
            "000009000200083045078000003100807930089500000000000070000964000427008069000000184"
                .parse()
                .unwrap();
        let mut read = truth;
        read.0[26] = 2;
        assert!(
            solve(&read).is_ok(),
            "the premise: the 2 gives one solution"
        );
        let mut ll = readings_of(&read);
        ll[26] = torn(2, 3, 0.88);
        let d = solved(decode(&read, &ll, |_| true, Budget::PHOTO));
        let rival = (0.88f32 / 0.12).ln();
        assert!(
            d.margin <= rival + 1e-3,
            "margin {} beyond the rival at {rival}",
            d.margin
        );
    }

    #[test]
    fn fixes_a_digit_misread_as_another() {
        let mut read = truth();
        read.0[7] = 7;
        let mut ll = readings_of(&read);
        ll[7] = torn(7, 1, 0.8);
        let d = solved(decode(&read, &ll, |_| true, Budget::PHOTO));
        assert_eq!(
            d.corrections,
            vec![Correction {
                cell: 7,
                read: 7,
                now: 1
            }]
        );
        assert_eq!(d.clues, truth());
    }

    #[test]
    fn restores_a_clue_read_surely_as_empty() {
        // The commonest failure in video: a clue blurred into "empty" with 99% confidence. A
        // 17-clue puzzle needs every clue, so the rules point at the missing one.
        let mut read = truth();
        read.0[9] = 0;
        let mut ll = readings_of(&read);
        ll[9] = torn(0, 4, 0.99);
        let d = solved(decode(&read, &ll, |_| true, Budget::PHOTO));
        assert_eq!(
            d.corrections,
            vec![Correction {
                cell: 9,
                read: 0,
                now: 4
            }]
        );
    }

    #[test]
    fn fixes_two_misreads_at_once() {
        let mut read = truth();
        read.0[7] = 7;
        read.0[9] = 0;
        let mut ll = readings_of(&read);
        ll[7] = torn(7, 1, 0.9);
        ll[9] = torn(0, 4, 0.95);
        assert_eq!(
            solved(decode(&read, &ll, |_| true, Budget::PHOTO)).clues,
            truth()
        );
    }

    #[test]
    fn refuses_to_choose_between_two_equally_likely_puzzles() {
        // The 3 in cell 54 lost, and cell 55 torn evenly between a 3 and a 7: each gives
        // exactly one solution, a different one, so nothing in the picture or the rules can
        // tell which is right.
        let mut read = truth();
        read.0[54] = 0;
        let mut ll = readings_of(&read);
        ll[55] = [-14.0; CLASSES];
        ll[55][0] = 0.5f32.ln();
        ll[55][3] = 0.25f32.ln();
        ll[55][7] = 0.25f32.ln();
        for digit in [3, 7] {
            let mut one = read;
            one.0[55] = digit;
            assert!(
                solve(&one).is_ok(),
                "the premise: {digit} in cell 55 gives one solution"
            );
        }
        match decode(&read, &ll, |_| true, Budget::PHOTO) {
            Verdict::Uncertain(d) => assert!(d.margin < 0.01 && d.runner_up.is_some(), "{d:?}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn does_not_invent_a_clue_the_picture_does_not_hint_at() {
        // A clue lost and its cell read surely as empty like every other: any of many empty
        // cells could take a clue at the same cost, so no puzzle is clearly the one.
        let mut read = truth();
        read.0[54] = 0;
        let verdict = decode(&read, &readings_of(&read), |_| true, Budget::PHOTO);
        assert!(!matches!(verdict, Verdict::Solved(_)), "{verdict:?}");
    }

    #[test]
    fn leaves_forbidden_cells_alone() {
        let mut read = truth();
        read.0[7] = 7;
        let mut ll = readings_of(&read);
        ll[7] = torn(7, 1, 0.8);
        assert!(matches!(
            decode(&read, &ll, |cell| cell != 7, Budget::PHOTO),
            Verdict::Failed(_) | Verdict::Uncertain(_)
        ));
    }

    #[test]
    fn reports_the_readings_own_error_when_nothing_can_be_changed() {
        let mut read = truth();
        read.0[1] = 1; // row 0 holds a 1 already, in cell 7
        match decode(
            &read,
            &readings_of(&read),
            |cell| cell != 1 && cell != 7,
            Budget::PHOTO,
        ) {
            Verdict::Failed(SolveError::Invalid { digit: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
        // Either 1 could be the stray one, at the same cost: not clear which.
        let verdict = decode(&read, &readings_of(&read), |_| true, Budget::PHOTO);
        assert!(!matches!(verdict, Verdict::Solved(_)), "{verdict:?}");
    }

    #[test]
    fn enumerates_sets_of_changes_in_order_of_cost_each_once() {
        let costs = [0.1f32, 0.2, 0.25, 0.7, 1.0];
        let options: Vec<Change> = costs
            .iter()
            .enumerate()
            .map(|(i, &cost)| Change {
                cell: i as u8,
                class: 1,
                cost,
            })
            .collect();
        let mut heap = BinaryHeap::new();
        heap.push(Reverse(Changes::one(costs[0])));
        let mut seen = Vec::new();
        while let Some(Reverse(c)) = heap.pop() {
            c.push_successors(&options, &mut heap);
            seen.push((c.cost, c.picked[..c.len as usize].to_vec()));
        }
        // Every non-empty subset of at most MAX_CHANGES options, once, in order of cost.
        let expected: usize = (1..=MAX_CHANGES).map(|k| binomial(costs.len(), k)).sum();
        assert_eq!(seen.len(), expected);
        assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0 + 1e-6));
        let mut sets: Vec<Vec<u8>> = seen.into_iter().map(|s| s.1).collect();
        sets.sort();
        sets.dedup();
        assert_eq!(sets.len(), expected);
    }

    fn binomial(n: usize, k: usize) -> usize {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }
}
