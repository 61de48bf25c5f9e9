//! Which digits of a grid are in another ink. An app shows the puzzle's givens in one colour and
//! the player's entries in another (blue, say, and a wrong one red, where the app checks), which
//! the digit model, reading gray, takes alike for print: a screenshot of a game with one wrong
//! entry then reads as clues that break the rules, and nothing is solved. Told apart by their
//! colour, the givens are the puzzle and the rest are entries, checked against its solution.

use opencv::core::{Mat, Size, Vec3b};
use opencv::prelude::*;

use crate::error::Result;
use crate::geometry::{Homography, Quad, warp};
use crate::recognize::detect::Ink;
use crate::recognize::read::{CLASSES, CellReading, GridReading};
use crate::recognize::verdict::{self, Judged, Status};

/// One digit's ink, the core of its strokes, told two ways.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InkColour {
    /// Its colour (blue, green, red): dark ink as a share of its paper's brightest channel, so
    /// that light falling off across a page, which dims ink and paper alike, leaves it as it
    /// is, and an app's highlight behind a cell (a pale blue) does not move it; light ink (a
    /// screen in dark mode, which gives off its own light) as a share of full scale, whatever
    /// the cell's background.
    pub shade: [f32; 3],
    /// How it darkens its paper, channel by channel, as a direction (a unit vector): dark ink
    /// as the share of the paper's light it takes (1 - ink / paper), light ink as the light it
    /// adds to its background (ink - paper: a screen in dark mode gives off its own). A stroke
    /// blurred into its paper, a monitor's moire stripes dimming ink and paper alike, and glare
    /// added to both change how much, hardly which way, so a photographed screen's inks keep
    /// apart here where their shades run together.
    pub absorbed: [f32; 3],
}

/// The puzzle a grid's `reading` shows told apart by its digits' inks in the BGR `picture`,
/// its corners at `quad` (top-left first, in the puzzle's orientation): some inks' digits the
/// givens, the others entries, each choice judged by `judge` (see [`judged_apart`]). The same
/// for a photo and a video frame. None when the inks do not split, or no choice solves.
pub fn told_apart(
    picture: &Mat,
    quad: &Quad,
    ink: Ink,
    reading: &GridReading,
    judge: impl Fn(&GridReading) -> Judged,
) -> Result<Option<(GridReading, Judged)>> {
    let digits: Vec<usize> = (0..81).filter(|&i| reading.0[i].digit != 0).collect();
    let colours = ink_colours(picture, quad, ink, &digits)?;
    Ok(inks(&colours).and_then(|inks| judged_apart(reading, &inks, judge)))
}

/// The ink of each of `cells` (0-80, the grid's own order) in `bgr`, whose corners (top-left
/// first, in the puzzle's orientation) are `quad`: for cells whose ink shows clearly, their
/// [`InkColour`]. `ink` says whether digits are darker than the paper or (dark mode) lighter.
pub fn ink_colours(
    bgr: &Mat,
    quad: &Quad,
    ink: Ink,
    cells: &[usize],
) -> Result<Vec<(usize, InkColour)>> {
    // The picture's own pixels where it can: a thin stroke shrunk with its surroundings takes on
    // their colour.
    let cell = (quad.mean_side() / 9.0).round().clamp(16.0, 64.0) as i32;
    let grid = Quad::UNIT.scaled(9.0 * cell as f64);
    let Some(grid_from_picture) = Homography::from_quads(quad, &grid) else {
        return Ok(Vec::new());
    };
    let rectified = warp(bgr, &grid_from_picture, Size::new(9 * cell, 9 * cell), true)?;
    let mut found = Vec::new();
    for &i in cells {
        let (row, col) = ((i / 9) as i32, (i % 9) as i32);
        // The middle of the cell: clear of the grid lines and of a highlight's edge.
        let (from, to) = ((0.18 * cell as f64) as i32, (0.82 * cell as f64) as i32);
        let mut pixels = Vec::with_capacity(((to - from) * (to - from)) as usize);
        for y in from..to {
            for x in from..to {
                let p = rectified.at_2d::<Vec3b>(row * cell + y, col * cell + x)?;
                pixels.push([p[0] as f32, p[1] as f32, p[2] as f32]);
            }
        }
        if let Some(colour) = colour_of(&pixels, ink) {
            found.push((i, colour));
        }
    }
    Ok(found)
}

/// The ink of a digit among `pixels` (BGR) of the middle of its cell: the pixels that differ
/// most from the cell's typical level (its paper) on `ink`'s side, against those at that level.
/// None when nothing stands out clearly.
fn colour_of(pixels: &[[f32; 3]], ink: Ink) -> Option<InkColour> {
    let level = |p: &[f32; 3]| (p[0] + p[1] + p[2]) / 3.0;
    let mut levels: Vec<f32> = pixels.iter().map(level).collect();
    levels.sort_by(f32::total_cmp);
    let paper = *levels.get(levels.len() / 2)?;
    let off = |p: &[f32; 3]| match ink {
        Ink::Dark => paper - level(p),
        Ink::Light => level(p) - paper,
    };
    let most = pixels.iter().map(off).fold(0.0, f32::max);
    if most < INK_SHOWS {
        return None;
    }
    // The stroke's core, not its anti-aliased edge, which takes on the paper's colour.
    let mean = |keep: &dyn Fn(&[f32; 3]) -> bool| {
        let kept: Vec<&[f32; 3]> = pixels.iter().filter(|p| keep(p)).collect();
        let n = kept.len() as f32;
        let sum = kept
            .iter()
            .fold([0.0f32; 3], |s, p| [s[0] + p[0], s[1] + p[1], s[2] + p[2]]);
        (kept.len(), sum.map(|v| v / n.max(1.0)))
    };
    let (inked, ink_colour) = mean(&|p| off(p) >= 0.6 * most);
    let (plain, paper_colour) = mean(&|p| off(p).abs() < 0.15 * most);
    if inked < 3 || plain < 10 {
        return None;
    }
    let scale = match ink {
        Ink::Dark => paper_colour.into_iter().fold(1.0, f32::max),
        Ink::Light => 255.0,
    };
    let absorbed: [f32; 3] = std::array::from_fn(|c| match ink {
        Ink::Dark => 1.0 - ink_colour[c] / paper_colour[c].max(1.0),
        Ink::Light => ink_colour[c] - paper_colour[c],
    });
    let length = absorbed.iter().map(|v| v * v).sum::<f32>().sqrt();
    if length < f32::EPSILON {
        return None;
    }
    Some(InkColour {
        shade: ink_colour.map(|v| v / scale),
        absorbed: absorbed.map(|v| v / length),
    })
}

/// A digit's ink must stand this many gray levels from its paper to be told by colour.
const INK_SHOWS: f32 = 20.0;

/// The cells of `colours` in groups of one ink each, when there are two inks or more and
/// every group stands clearly apart from every other (see `APART`), by shade (colour and
/// brightness), or else by hue alone, or else by the way each darkens its paper
/// ([`InkColour::absorbed`]); None when none splits them so. A page printed in one ink,
/// photographed, spreads its digits' shades with the light and the focus, mostly in
/// brightness, in one cloud: it is not split. A photographed screen's inks spread as much in
/// brightness (blur, moire) and often in hue (glare washing them out), but keep apart in the
/// way they darken the screen's background.
pub fn inks(colours: &[(usize, InkColour)]) -> Option<Vec<Vec<usize>>> {
    let told = |way: &dyn Fn(&InkColour) -> [f32; 3]| -> Vec<(usize, [f32; 3])> {
        colours.iter().map(|(cell, c)| (*cell, way(c))).collect()
    };
    let hue = |c: &InkColour| {
        let grey = c.shade.iter().sum::<f32>() / 3.0;
        c.shade.map(|v| v - grey)
    };
    groups_apart(&told(&|c| c.shade), JOIN)
        .or_else(|| groups_apart(&told(&hue), JOIN_HUES))
        .or_else(|| groups_apart(&told(&|c| c.absorbed), JOIN_ABSORBED))
}

/// The cells of `colours` joined into groups nearest first while the nearest two groups'
/// means lie within `join`; the groups, when two or more and every two lie [`APART`].
fn groups_apart(colours: &[(usize, [f32; 3])], join: f32) -> Option<Vec<Vec<usize>>> {
    let mut groups: Vec<Vec<usize>> = (0..colours.len()).map(|k| vec![k]).collect();
    let mean = |group: &[usize]| -> [f32; 3] {
        let n = group.len() as f32;
        std::array::from_fn(|c| group.iter().map(|&k| colours[k].1[c]).sum::<f32>() / n)
    };
    loop {
        let mut nearest: Option<(f32, usize, usize)> = None;
        for a in 0..groups.len() {
            for b in a + 1..groups.len() {
                let d = apart(&mean(&groups[a]), &mean(&groups[b]));
                if nearest.is_none_or(|(best, _, _)| d < best) {
                    nearest = Some((d, a, b));
                }
            }
        }
        match nearest {
            Some((d, a, b)) if d < join => {
                let joined = groups.swap_remove(b);
                groups[a].extend(joined);
            }
            _ => break,
        }
    }
    if groups.len() < 2 {
        return None;
    }
    let spread = |group: &[usize]| -> f32 {
        let m = mean(group);
        group
            .iter()
            .map(|&k| apart(&colours[k].1, &m))
            .fold(SPREAD_FLOOR, f32::max)
    };
    for a in 0..groups.len() {
        for b in a + 1..groups.len() {
            let between = apart(&mean(&groups[a]), &mean(&groups[b]));
            if between < APART * spread(&groups[a]).max(spread(&groups[b])) {
                return None;
            }
        }
    }
    Some(
        groups
            .into_iter()
            .map(|g| g.into_iter().map(|k| colours[k].0).collect())
            .collect(),
    )
}

/// How far apart two ink colours are (Euclidean over the three channels).
fn apart(a: &[f32; 3], b: &[f32; 3]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f32>()
        .sqrt()
}

/// Groups whose mean colours lie nearer than this are one ink. An app's givens and entries
/// (slate and blue) lie 0.29-0.30 apart; one digit's ink from another's of the same app, 0.03-0.05.
const JOIN: f32 = 0.12;
/// [`JOIN`] for hues (colours less their grey level): slate and blue lie 0.23 apart.
const JOIN_HUES: f32 = 0.06;
/// [`JOIN`] for the ways inks darken their paper (unit vectors): an app's givens and entries,
/// photographed off a monitor, lie 0.13-0.33 apart, one ink's digits mostly within 0.03 of
/// their mean (session 83; any join from 0.05 to 0.12 groups them alike).
const JOIN_ABSORBED: f32 = 0.08;
/// Every two inks must lie this many times their widest group's spread apart (the farthest
/// digit from its group's mean). Measured in session 75: app screenshots' inks lie 7-10 times
/// apart; the 240 photos of `../shared/data`, their digits split as best they can be, at most
/// 2.5 times by colour (the Wicht pages, one ink; Kubiesa pages filled in in pen, whose
/// entries read as handwriting anyway, up to 5.3) and 2.6 by hue; screens photographed off a
/// monitor, 1.7-3.0 by colour and 1.4-6.3 by hue (8 of 13 at 4 or more). Session 83, by the
/// way the inks darken their paper: the 240 photos at most 3.6 (Wicht) and 1.9 (Kubiesa), 45
/// games photographed off a monitor 0.2-10.8 (35 at 4 or more; 20 by colour or hue).
const APART: f32 = 4.0;
/// A group's spread is taken as at least this: one wrong entry in red is a group of one.
const SPREAD_FLOOR: f32 = 0.03;

/// How much less likely (nats) than the givens as read any puzzle with another solution must
/// be for them to be taken (searched that far, `verdict::leads_by`): an app's givens, read in
/// its own font, lead by more, and the rest of a newspaper page whose glare-faded digits split
/// off as an ink led, corrected, by 1.6 (`image1006`, see [`judged_apart`]).
const SOLVED_CLEARLY: f32 = 3.0;

/// The fewest clues a Sudoku with one solution has.
pub const FEWEST_CLUES: usize = 17;

/// The most inks told apart on one grid (an app's givens and entries, its mistakes' colour, a
/// selected cell's): with more, it is not the digits' inks that differ (31 ways to choose
/// givens among 5 inks, 63 among 6).
const MOST_INKS: usize = 6;

/// The puzzle `reading` shows when the digits of some of the `inks` are the givens and the
/// others entries: each choice of some of the inks (not all, not none) is judged by `judge` as
/// the givens (with at least `FEWEST_CLUES`). Taken when those solved as read, clearly ahead
/// of any other puzzle (see `SOLVED_CLEARLY`), all agree on one solution: the givens with the
/// fewest clues, and the reading with the other digits as entries (read as written in). None
/// when no choice is so solved, or two solve differently, or something lies over the grid: a
/// glare spot fades the digits beside it into an ink of their own, and the rest, needing a clue
/// the spot hid, was "corrected" into a puzzle with one solution, the wrong one (`image1006`
/// with a glare spot, in `cargo bench --bench photos`); or more than `MOST_INKS` inks.
pub fn judged_apart(
    reading: &GridReading,
    inks: &[Vec<usize>],
    judge: impl Fn(&GridReading) -> Judged,
) -> Option<(GridReading, Judged)> {
    if reading.hidden().contains(&true) {
        return None;
    }
    if inks.len() > MOST_INKS {
        return None;
    }
    // Every way to take some of the inks as the givens: an app's given in a selected cell shows
    // in a colour of its own (white on blue), as does a wrong entry in the app's red.
    let choices = (1..(1usize << inks.len()) - 1).map(|chosen| {
        inks.iter()
            .enumerate()
            .filter(|&(k, _)| chosen & (1 << k) != 0)
            .flat_map(|(_, cells)| cells.iter().copied())
            .collect::<Vec<usize>>()
    });
    let mut best: Option<(GridReading, Judged)> = None;
    for givens in choices.filter(|g| g.len() >= FEWEST_CLUES) {
        let entries: Vec<usize> = inks
            .iter()
            .flatten()
            .copied()
            .filter(|c| !givens.contains(c))
            .collect();
        let apart = with_entries(reading, &entries);
        let judged = judge(&apart);
        if judged.status != Status::Solved || !judged.corrections.is_empty() {
            continue;
        }
        let clearly = judged.solution.as_ref().is_some_and(|solution| {
            verdict::leads_by(&apart, solution, judged.margin, SOLVED_CLEARLY)
        });
        if !clearly {
            continue;
        }
        match &best {
            Some((_, b)) if b.solution != judged.solution => {
                tracing::debug!("givens of different inks solve differently: neither taken");
                return None;
            }
            Some((_, b)) if b.clues.filled() <= judged.clues.filled() => {}
            _ => best = Some((apart, judged)),
        }
    }
    best
}

/// `reading` with the digits in `entries` taken as somebody's entries, not print.
fn with_entries(reading: &GridReading, entries: &[usize]) -> GridReading {
    let no_clue: [f32; CLASSES] = std::array::from_fn(|d| if d == 0 { 1.0 } else { 0.0 });
    GridReading(
        reading
            .0
            .iter()
            .enumerate()
            .map(|(i, r)| {
                if entries.contains(&i) {
                    CellReading {
                        handwritten: true,
                        as_clue: no_clue,
                        entry_by_ink: true,
                        ..*r
                    }
                } else {
                    *r
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Grid;
    use crate::recognize::verdict;

    /// An ink's digits, their shades spread about `centre` (as one direction darkening the
    /// paper: shades alone tell these apart).
    fn cloud(centre: [f32; 3], spread: f32, n: usize, first: usize) -> Vec<(usize, InkColour)> {
        (0..n)
            .map(|k| {
                let wobble = spread * ((k as f32 * 2.4).sin());
                let shade = [centre[0] + wobble, centre[1] - wobble, centre[2]];
                let absorbed = [1.0, 1.0, 1.0].map(|v: f32| v / 3f32.sqrt());
                (first + k, InkColour { shade, absorbed })
            })
            .collect()
    }

    /// The pixels of a cell in the middle of which a stroke of `ink` (BGR) is drawn on
    /// `paper`, mixed with it by `blur` (0 sharp, 1 gone), dimmed by `dim` (a monitor's moire
    /// stripes) and lit by `glare` added to both.
    fn photographed_cell(
        ink: [f32; 3],
        paper: [f32; 3],
        blur: f32,
        dim: f32,
        glare: f32,
    ) -> Vec<[f32; 3]> {
        let seen = |c: [f32; 3]| c.map(|v| v * dim + glare);
        let stroke: [f32; 3] =
            std::array::from_fn(|c| paper[c] - (1.0 - blur) * (paper[c] - ink[c]));
        let mut pixels = vec![seen(paper); 200];
        pixels.extend(vec![seen(stroke); 20]);
        pixels
    }

    #[test]
    fn an_apps_givens_and_entries_are_two_inks() {
        // Slate givens and blue entries on white, and one wrong entry in red.
        let mut digits = cloud([0.38, 0.28, 0.20], 0.02, 25, 0);
        digits.extend(cloud([0.69, 0.35, 0.20], 0.02, 12, 40));
        digits.extend(cloud([0.42, 0.36, 0.90], 0.0, 1, 80));
        let groups = inks(&digits).expect("three inks");
        let mut sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
        sizes.sort();
        assert_eq!(sizes, [1, 12, 25]);
    }

    #[test]
    fn inks_washed_together_on_a_photographed_screen_keep_apart_in_how_they_darken_it() {
        // Slate givens and blue entries (BGR) on white, each digit blurred into the screen by
        // 0-0.6, under moire dimming it by up to 12% and glare of up to 60 levels.
        let (slate, blue, white) = ([85.0, 68.0, 51.0], [230.0, 120.0, 40.0], [255.0; 3]);
        let digits: Vec<(usize, InkColour)> = (0..36)
            .filter_map(|k| {
                let f = k as f32;
                let (blur, dim, glare) = (
                    0.6 * ((f * 0.37).sin() * 0.5 + 0.5),
                    1.0 - 0.12 * ((f * 1.3).cos() * 0.5 + 0.5),
                    60.0 * ((f * 0.71).sin() * 0.5 + 0.5),
                );
                let ink = if k < 24 { slate } else { blue };
                colour_of(&photographed_cell(ink, white, blur, dim, glare), Ink::Dark)
                    .map(|c| (k, c))
            })
            .collect();
        assert_eq!(digits.len(), 36, "every digit's ink shows");
        let shades: Vec<(usize, [f32; 3])> = digits.iter().map(|&(k, c)| (k, c.shade)).collect();
        assert_eq!(
            groups_apart(&shades, JOIN),
            None,
            "washed together by shade"
        );
        let groups = inks(&digits).expect("two inks");
        let mut sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
        sizes.sort();
        assert_eq!(sizes, [12, 24]);
        assert!(groups.iter().any(|g| g.iter().all(|&k| k < 24)));
    }

    #[test]
    fn one_ink_spread_by_the_light_and_focus_is_not_split() {
        // A photographed page: black ink read from 0.05 to 0.45 of its paper's level (thin
        // strokes out of focus take on their paper's light).
        let digits: Vec<(usize, InkColour)> = (0..30)
            .filter_map(|k| {
                let f = k as f32;
                let paper = [225.0, 230.0, 232.0];
                let blur = 0.5 * (k as f32 / 29.0);
                let ink = [
                    12.0 + 3.0 * (f * 0.9).sin(),
                    16.0,
                    14.0 + 3.0 * (f * 1.7).cos(),
                ];
                colour_of(&photographed_cell(ink, paper, blur, 1.0, 0.0), Ink::Dark).map(|c| (k, c))
            })
            .collect();
        assert_eq!(digits.len(), 30);
        assert_eq!(inks(&digits), None);
    }

    /// A puzzle (17 clues, one solution), its solution, and the reading of the puzzle with
    /// `typed` more cells typed in: each right but `wrong`, typed as the next digit; every
    /// digit read `sureness` surely.
    fn game(typed: &[usize], wrong: usize, sureness: f32) -> (Grid, Grid, GridReading) {
        let givens: Grid =
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
                .parse()
                .unwrap();
        let solution = crate::solve::solve(&givens).unwrap();
        let mut shown = givens;
        for &cell in typed {
            shown.0[cell] = solution.0[cell];
        }
        shown.0[wrong] = solution.0[wrong] % 9 + 1;
        (
            givens,
            solution,
            verdict::tests::reading_of(&shown, sureness),
        )
    }

    fn judge(reading: &GridReading) -> Judged {
        verdict::judge_picture(reading, verdict::AsRead::Stands)
    }

    #[test]
    fn the_givens_ink_is_the_puzzle_and_the_others_are_entries() {
        let typed = [0, 1, 2, 3, 4, 5, 9, 10];
        // Also in a face the model reads poorly: the wrong entry, told by its ink, is one.
        for sureness in [0.99, 0.92] {
            let (givens, solution, reading) = game(&typed, 2, sureness);
            assert_ne!(
                judge(&reading).status,
                Status::Solved,
                "a wrong entry read as a clue"
            );
            let given_cells: Vec<usize> = (0..81).filter(|&i| givens.0[i] != 0).collect();
            let inks = [given_cells, typed.to_vec()];
            let (apart, judged) = judged_apart(&reading, &inks, judge).expect("solved apart");
            assert_eq!(judged.clues, givens);
            assert_eq!(judged.solution, Some(solution));
            let entries = verdict::entries_of(&apart, &judged.clues);
            assert_eq!(verdict::wrong_entries(&apart, &entries, &solution), [2]);
        }
    }

    #[test]
    fn a_given_in_a_selected_cell_s_colour_and_a_mistake_in_red_are_told_apart() {
        // Four inks: the givens, the entries, one given on the selected cell's colour, and
        // the wrong entry in the app's red.
        let typed = [0, 1, 2, 3, 4, 5, 9, 10];
        let (givens, solution, reading) = game(&typed, 2, 0.99);
        let mut given_cells: Vec<usize> = (0..81).filter(|&i| givens.0[i] != 0).collect();
        let selected = given_cells.remove(0);
        let right: Vec<usize> = typed.iter().copied().filter(|&c| c != 2).collect();
        let inks = [given_cells, right, vec![selected], vec![2]];
        let (_, judged) = judged_apart(&reading, &inks, judge).expect("solved apart");
        assert_eq!(judged.clues, givens);
        assert_eq!(judged.solution, Some(solution));
    }

    #[test]
    fn nothing_is_taken_apart_with_something_over_the_grid() {
        let typed = [0, 1, 2, 3, 4, 5, 9, 10];
        let (givens, _, mut reading) = game(&typed, 2, 0.99);
        reading.0[80].hidden = true;
        let given_cells: Vec<usize> = (0..81).filter(|&i| givens.0[i] != 0).collect();
        assert!(judged_apart(&reading, &[given_cells, typed.to_vec()], judge).is_none());
    }

    #[test]
    fn a_digits_ink_is_its_strokes_core_on_any_background() {
        // A blue stroke with its anti-aliased edge, on white and on a pale blue highlight.
        for paper in [[255.0, 255.0, 255.0], [251.0, 222.0, 187.0]] {
            let mut pixels = vec![paper; 200];
            pixels.extend(vec![[175.0, 90.0, 50.0]; 20]);
            pixels.extend(vec![[215.0, 172.0, 152.0]; 20]);
            let c = colour_of(&pixels, Ink::Dark).expect("ink shows");
            let want = [175.0, 90.0, 50.0].map(|v: f32| v / paper[0]);
            assert!(apart(&c.shade, &want) < 0.01, "{c:?}");
        }
        // Light digits on a dark screen, and on a selected cell's blue.
        for paper in [[18.0, 18.0, 18.0], [130.0, 70.0, 30.0]] {
            let mut pixels = vec![paper; 200];
            pixels.extend(vec![[230.0, 230.0, 230.0]; 20]);
            let c = colour_of(&pixels, Ink::Light).expect("ink shows");
            assert!(c.shade.iter().all(|v| (v - 0.90).abs() < 0.01), "{c:?}");
        }
        // Nothing written.
        assert_eq!(colour_of(&[[250.0, 250.0, 250.0]; 100], Ink::Dark), None);
    }
}
