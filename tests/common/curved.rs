//! Printed puzzles curved on the table by a known warp, filmed by the simulated hand-held camera:
//! where each cell is drawn against where it is printed. Shared by `tests/screens.rs` and the
//! `curved` bench.

use opencv::core::Scalar;
use opencv::imgproc;
use opencv::prelude::*;

use super::screens::{self, Border, HELD_OUT_FONTS, Layout, Style, THEMES};

/// A printed puzzle curved on the table: an app's screen drawn here in a held-out face, its
/// columns bowed by up to a quarter of a cell and its rows sagging by up to a sixth, by a known
/// warp, so that the true middle of every cell is known exactly.
pub struct CurvedPage {
    pub name: String,
    /// The bent picture.
    pub image: opencv::core::Mat,
    /// The grid's corners (the bend leaves them where they are).
    pub corners: sudoku_ar::geometry::Quad,
    pub givens: [u8; 81],
    pub solution: [u8; 81],
    pub image_from_grid: sudoku_ar::geometry::Homography,
    /// How far (share of the side) the columns bow at mid-height and the rows sag at their
    /// middle.
    pub bow: [f64; 2],
    /// A real photo's page moved by a known warp instead: curled into a book's gutter, folded,
    /// bowed across (then `bow` is nothing).
    pub moved: Option<Box<dyn MovedPage>>,
}

impl CurvedPage {
    /// The `k`-th app screen, bent.
    pub fn new(k: usize) -> CurvedPage {
        CurvedPage::bowed(k, [0.028, 0.018])
    }

    /// The `k`-th app screen, bent by `bow`.
    pub fn bowed(k: usize, bow: [f64; 2]) -> CurvedPage {
        let style = Style {
            theme: THEMES[0],
            layout: if k.is_multiple_of(2) {
                Layout::Phone
            } else {
                Layout::Web
            },
            font: HELD_OUT_FONTS[(3 * k) % HELD_OUT_FONTS.len()],
            highlights: false,
            pencil_marks: false,
            entries: false,
            mistakes: false,
            border: Border::Line,
        };
        let screen = screens::render(&screens::puzzles()[60 + k], style, 700 + k as u64);
        CurvedPage::bent(
            screen.name,
            &screen.image,
            screen.corners,
            screen.givens,
            screen.solution,
            bow,
        )
    }

    fn bent(
        name: String,
        flat: &opencv::core::Mat,
        corners: sudoku_ar::geometry::Quad,
        givens: [u8; 81],
        solution: [u8; 81],
        bow: [f64; 2],
    ) -> CurvedPage {
        use opencv::core::{self, Mat};
        use sudoku_ar::geometry::{Homography, Quad};
        let mut page = CurvedPage {
            name,
            image: Mat::default(),
            corners,
            givens,
            solution,
            image_from_grid: Homography::from_quads(&Quad::UNIT, &corners).unwrap(),
            bow,
            moved: None,
        };
        let (w, h) = (flat.cols(), flat.rows());
        let mut map_x =
            Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(0.0)).unwrap();
        let mut map_y = map_x.clone();
        for y in 0..h {
            for x in 0..w {
                let q = [x as f64, y as f64];
                let d = page.bend(q);
                *map_x.at_2d_mut::<f32>(y, x).unwrap() = (q[0] - d[0]) as f32;
                *map_y.at_2d_mut::<f32>(y, x).unwrap() = (q[1] - d[1]) as f32;
            }
        }
        imgproc::remap(
            flat,
            &mut page.image,
            &map_x,
            &map_y,
            imgproc::INTER_LINEAR,
            core::BORDER_REPLICATE,
            Scalar::default(),
        )
        .unwrap();
        page
    }

    /// How far the bend moves the page at picture point `q`, in pixels (beside the grid, as
    /// its nearest edge).
    pub fn bend(&self, q: [f64; 2]) -> [f64; 2] {
        let [u, v] = self.image_from_grid.inverse().unwrap().apply(q);
        let (u, v) = (u.clamp(0.0, 1.0), v.clamp(0.0, 1.0));
        let side = self.corners.mean_side();
        let pi = std::f64::consts::PI;
        [
            self.bow[0] * side * (pi * v).sin(),
            self.bow[1] * side * (pi * u).sin(),
        ]
    }

    /// A real photo (`photo`, its grid's printed `corners`, clues and solution) curled into a
    /// book's gutter on side `turn` by `depth` (see [`Gutter`]).
    pub fn curled(
        name: String,
        photo: &opencv::core::Mat,
        corners: sudoku_ar::geometry::Quad,
        puzzle: ([u8; 81], [u8; 81]),
        turn: usize,
        depth: f64,
    ) -> CurvedPage {
        let name = format!("{name} curled {depth} on side {turn}");
        CurvedPage::warped(name, photo, puzzle, Gutter::new(&corners, turn, depth))
    }

    /// A real photo with its page `moved` (curled, folded, bowed).
    pub fn warped(
        name: String,
        photo: &opencv::core::Mat,
        puzzle: ([u8; 81], [u8; 81]),
        moved: impl MovedPage + 'static,
    ) -> CurvedPage {
        use sudoku_ar::geometry::Quad;
        let image_from_grid = *moved.image_from_grid();
        let seen = Quad(
            Quad::UNIT
                .0
                .map(|p| image_from_grid.apply(moved.moved(p, false))),
        );
        CurvedPage {
            name,
            image: moved.apply(photo),
            corners: seen,
            givens: puzzle.0,
            solution: puzzle.1,
            image_from_grid,
            bow: [0.0; 2],
            moved: Some(Box::new(moved)),
        }
    }

    /// The real page `page` (photo file `file`) bowed across (see [`Bowed`]).
    pub fn bowed_across(file: &str, page: &RealPage, across: usize, cells: f64) -> CurvedPage {
        let bowed = Bowed::new(&page.corners, across, cells);
        let name = format!("{file} bowed {cells} cell across {across}");
        CurvedPage::warped(name, &page.photo, page.puzzle, bowed)
    }

    /// Where the middle of `cell` is on the bent picture: the point q with q = p + bend(q), p its
    /// middle on the flat page, found in a few steps from p.
    pub fn cell_middle(&self, cell: usize) -> [f64; 2] {
        if let Some(moved) = &self.moved {
            return moved.cell_middle(cell);
        }
        let p = self.image_from_grid.apply([
            ((cell % 9) as f64 + 0.5) / 9.0,
            ((cell / 9) as f64 + 0.5) / 9.0,
        ]);
        let mut q = p;
        for _ in 0..6 {
            let d = self.bend(q);
            q = [p[0] + d[0], p[1] + d[1]];
        }
        q
    }
}

/// A Kubiesa photo, its published corners, and its clues and solution.
pub struct RealPage {
    pub corners: sudoku_ar::geometry::Quad,
    pub photo: opencv::core::Mat,
    pub puzzle: ([u8; 81], [u8; 81]),
}

/// `sample` as a page to warp: None without published corners, a readable photo or a solution.
pub fn page_of(sample: &super::Sample) -> Option<RealPage> {
    let corners = sample.corners?;
    let photo = sudoku_ar::photo::load_image(&sample.path).ok()?;
    let clues = sudoku_ar::grid::Grid(sample.cells.map(|t| t.expected_digit()));
    let solution = sudoku_ar::solve::solve(&clues).ok()?;
    Some(RealPage {
        corners,
        photo,
        puzzle: (clues.0, solution.0),
    })
}

/// The Kubiesa photo named `name` as a page to warp (see [`page_of`]).
pub fn page_named(name: &str) -> Option<RealPage> {
    let kubiesa = super::kubiesa_val();
    kubiesa
        .iter()
        .find(|s| s.path.ends_with(name))
        .and_then(page_of)
}

/// Every `step`-th Kubiesa photo that can be read as a page: its index, file name and page.
pub fn every_page(step: usize) -> Vec<(usize, String, RealPage)> {
    let kubiesa = super::kubiesa_val();
    let name = |sample: &super::Sample| {
        let name = sample.path.file_name().unwrap_or_default();
        name.to_string_lossy().into_owned()
    };
    kubiesa
        .iter()
        .enumerate()
        .step_by(step)
        .filter_map(|(k, sample)| Some((k, name(sample), page_of(sample)?)))
        .collect()
}

/// One frame with the solution drawn: which page, which frame of its clip, how far (share of a
/// cell) the worst cell is drawn from the true middle of its printed cell (the camera's own
/// geometry gives it), and whether the cells were drawn along a bend.
#[derive(Debug, Clone, Copy)]
pub struct FrameDrawn {
    pub page: usize,
    pub frame: usize,
    pub worst: f64,
    pub bent: bool,
}

/// Each of `pages` under the simulated hand-held camera, its noise seeded by `noise`: per frame
/// with the solution drawn, how far (share of a cell) the worst cell is drawn from the true middle
/// of its printed cell; and on how many frames the cells were drawn along a bend.
pub fn worst_cells_drawn(pages: &[CurvedPage], noise: u64) -> (Vec<f64>, usize) {
    let frames = frames_drawn(pages, noise);
    let bent = frames.iter().filter(|f| f.bent).count();
    (frames.iter().map(|f| f.worst).collect(), bent)
}

/// Each of `pages` under the simulated hand-held camera (a clip of its own, seeded by its index),
/// its noise seeded by `noise`: every frame with the solution drawn (see [`FrameDrawn`]).
pub fn frames_drawn(pages: &[CurvedPage], noise: u64) -> Vec<FrameDrawn> {
    let clips: Vec<u64> = (0..pages.len() as u64).map(|i| 900 + i).collect();
    frames_drawn_in(pages, &clips, noise)
}

/// [`frames_drawn`], each page filmed in the clip seeded by its entry in `clips` (a page's clip
/// as the `curved` bench films it, in a test that films fewer pages).
pub fn frames_drawn_in(pages: &[CurvedPage], clips: &[u64], noise: u64) -> Vec<FrameDrawn> {
    use super::camera::{Camera, Clip, Page, Script};
    use sudoku_ar::geometry::{Homography, Quad};
    use sudoku_ar::grid::Grid;
    let camera_pages: Vec<Page> = pages
        .iter()
        .map(|p| Page {
            name: p.name.clone(),
            image: p.image.clone(),
            corners: p.corners,
            published: p.corners,
            clues: Grid(p.givens),
            solution: Grid(p.solution),
        })
        .collect();
    let names: Vec<String> = camera_pages.iter().map(|p| p.name.clone()).collect();
    let mut drawn = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let mut clip = Clip::new(Script::Handheld, vec![i], &names, clips[i]);
        clip.noise_seed = Some(noise);
        let camera = Camera::new(&camera_pages, &clip).expect("camera");
        let mut vision = sudoku_ar::video::several::Visions::new(super::pipeline_reader());
        for f in 0..clip.frames {
            let (frame, _) = camera.frame(f).expect("frame");
            // Logs (RUST_LOG) name the page and frame they are about.
            let _frame = tracing::info_span!("frame", page = i, f).entered();
            let view = vision.process(&frame).expect("vision");
            let Some(puzzle) = view.puzzle.filter(|p| p.solved.is_some()) else {
                continue;
            };
            let frame_from_photo = camera.frame_from_photo(f);
            let image_from_grid = Homography::from_quads(&Quad::UNIT, &puzzle.quad).unwrap();
            let lattice = puzzle.bend.map(|b| b.lattice(&image_from_grid));
            let cell_side =
                Quad(page.corners.0.map(|p| frame_from_photo.apply(p))).mean_side() / 9.0;
            let worst = (0..81)
                .map(|cell| {
                    let drawn = match &lattice {
                        Some(l) => cell_middle_of(l, cell),
                        None => image_from_grid.apply([
                            ((cell % 9) as f64 + 0.5) / 9.0,
                            ((cell / 9) as f64 + 0.5) / 9.0,
                        ]),
                    };
                    let truth = frame_from_photo.apply(page.cell_middle(cell));
                    (drawn[0] - truth[0]).hypot(drawn[1] - truth[1]) / cell_side
                })
                .fold(0.0, f64::max);
            drawn.push(FrameDrawn {
                page: i,
                frame: f,
                worst,
                bent: lattice.is_some(),
            });
        }
    }
    drawn
}

/// The middle of `cell` drawn along `lattice`: the mean of its four crossings.
pub fn cell_middle_of(lattice: &sudoku_ar::bend::Lattice, cell: usize) -> [f64; 2] {
    let (r, c) = (cell / 9, cell % 9);
    let l = &lattice.0;
    let at = [l[r][c], l[r][c + 1], l[r + 1][c], l[r + 1][c + 1]];
    [0, 1].map(|k| at.iter().map(|p| p[k]).sum::<f64>() / 4.0)
}

/// A photo's page curling down into a book's gutter just beyond one border of the grid (`turn`
/// quarter turns from the left one): over the `WIDTH` of the grid's side nearest the spine the
/// paper sinks away from the camera, `depth` grid sides at the spine, as a parabola; seen from
/// `DISTANCE` grid sides above the grid's middle, the cells narrow towards the gutter and the
/// lines across it bow (by 0.38 of a cell against the corners' homography at depth 0.3).
/// Or ([`Gutter::folded`]) a page folded along a line across the grid: beyond the fold the
/// paper rises or sinks as a flat plane, the lines kink there.
pub struct Gutter {
    /// The grid's printed corners on the flat photo.
    pub image_from_grid: sudoku_ar::geometry::Homography,
    pub turn: usize,
    /// Page position (grid sides from the grid's middle, across the spine) -> where it is seen
    /// across the spine and how much nearer the middle perspective draws it, sampled finely.
    seen: Vec<(f64, f64, f64)>,
    /// The page position `seen` starts at.
    start: f64,
    /// A fold: its page position and how much light the paper beyond it gets (1: as much).
    fold: Option<(f64, f64)>,
}

impl Gutter {
    const SPINE: f64 = -0.6;
    const WIDTH: f64 = 0.6;
    const DISTANCE: f64 = 2.5;
    const STEP: f64 = 0.0005;
    /// How wide a fold's crease is (grid sides): a line a tenth of a cell across, a fifth
    /// darker than the paper.
    const CREASE: f64 = 0.01;

    pub fn new(corners: &sudoku_ar::geometry::Quad, turn: usize, depth: f64) -> Gutter {
        let depth_at = |a: f64| {
            let s = ((Self::SPINE + Self::WIDTH - a) / Self::WIDTH).clamp(0.0, 1.0);
            depth * s * s
        };
        Self::with_depth(corners, turn, Self::SPINE, depth_at, None)
    }

    /// A page folded along a line across the grid at `at` (share of the side from the border
    /// `turn` quarter turns from the left one): between that border and the fold the paper
    /// tilts, `tilt` grid sides away from the camera per grid side (negative: towards it), and
    /// gets `light` times the light.
    pub fn folded(
        corners: &sudoku_ar::geometry::Quad,
        turn: usize,
        at: f64,
        tilt: f64,
        light: f64,
    ) -> Gutter {
        let fold = at - 0.5;
        let depth_at = move |a: f64| if a < fold { (fold - a) * tilt } else { 0.0 };
        let start = (-1.5f64).min(fold - 0.4 / tilt.abs().max(1e-3));
        let mut folded = Self::with_depth(corners, turn, start, depth_at, Some((fold, light)));
        // The flat side stays where the photo shows it.
        let i = ((fold - start) / Self::STEP).round() as usize;
        let shift = fold - folded.seen[i.min(folded.seen.len() - 1)].0;
        for (x, _, _) in &mut folded.seen {
            *x += shift;
        }
        folded
    }

    fn with_depth(
        corners: &sudoku_ar::geometry::Quad,
        turn: usize,
        start: f64,
        depth_at: impl Fn(f64) -> f64,
        fold: Option<(f64, f64)>,
    ) -> Gutter {
        use sudoku_ar::geometry::{Homography, Quad};
        let image_from_grid = Homography::from_quads(&Quad::UNIT, corners).expect("corners");
        // Along the paper from `start`; across it, each step is foreshortened by its slope.
        let mut seen = Vec::new();
        let (mut a, mut x) = (start, start);
        while a <= 3.0 {
            let z = depth_at(a);
            seen.push((x, z, Self::DISTANCE / (Self::DISTANCE + z)));
            let slope = (depth_at(a + Self::STEP) - z) / Self::STEP;
            x += Self::STEP / (1.0 + slope * slope).sqrt();
            a += Self::STEP;
        }
        Gutter {
            image_from_grid,
            turn,
            seen,
            start,
            fold,
        }
    }

    /// Grid point `p` turned so that the spine is on the left, in grid units from the middle.
    fn turned(&self, [u, v]: [f64; 2]) -> (f64, f64) {
        let (mut x, mut y) = (u - 0.5, v - 0.5);
        for _ in 0..self.turn % 4 {
            (x, y) = (-y, x);
        }
        (x, y)
    }

    /// Where grid point `p` (0-1 each way, flat) is seen on the curled page, in grid units.
    pub fn curled(&self, p: [f64; 2]) -> [f64; 2] {
        let (x, y) = self.turned(p);
        let i =
            (((x - self.start) / Self::STEP).round().max(0.0) as usize).min(self.seen.len() - 1);
        let (across, _, scale) = self.seen[i];
        let (mut x, mut y) = (across * scale, y * scale);
        for _ in 0..(4 - self.turn % 4) % 4 {
            (x, y) = (-y, x);
        }
        [x + 0.5, y + 0.5]
    }

    /// The flat grid point seen at grid point `seen` on the curled page (found in a few steps,
    /// the curl being smooth).
    fn flat_at(&self, seen: [f64; 2]) -> [f64; 2] {
        let mut flat = seen;
        for _ in 0..12 {
            let at = self.curled(flat);
            flat = [flat[0] + seen[0] - at[0], flat[1] + seen[1] - at[1]];
        }
        flat
    }
}

impl MovedPage for Gutter {
    fn image_from_grid(&self) -> &sudoku_ar::geometry::Homography {
        &self.image_from_grid
    }

    fn moved(&self, p: [f64; 2], back: bool) -> [f64; 2] {
        if back {
            self.flat_at(p)
        } else {
            self.curled(p)
        }
    }

    /// `photo` with its page curled: each pixel taken from the flat point seen there; beyond a
    /// fold the paper gets its own light.
    fn apply(&self, photo: &opencv::core::Mat) -> opencv::core::Mat {
        use opencv::core::{self, Mat};
        let mut light = Mat::new_rows_cols_with_default(
            photo.rows(),
            photo.cols(),
            core::CV_32FC1,
            Scalar::all(0.0),
        )
        .expect("light");
        let mut out = warped(
            photo,
            &self.image_from_grid,
            (core::BORDER_CONSTANT, 40.0),
            |seen, x, y| {
                let flat = self.flat_at(seen);
                // Beyond a fold the paper gets its own light; the crease itself is darker.
                let (across, _) = self.turned(flat);
                *light.at_2d_mut::<f32>(y, x).expect("light") = match self.fold {
                    Some((at, _)) if (across - at).abs() < Self::CREASE / 2.0 => 0.8,
                    Some((at, beyond)) if across < at => beyond as f32,
                    _ => 1.0,
                };
                flat
            },
        );
        if self.fold.is_none() {
            return out;
        }
        let mut gain = Mat::default();
        let channels =
            opencv::core::Vector::<Mat>::from_iter([light.clone(), light.clone(), light]);
        opencv::core::merge(&channels, &mut gain).expect("merge");
        let mut lit = Mat::default();
        out.convert_to(&mut lit, core::CV_32FC3, 1.0, 0.0)
            .expect("convert");
        let mut shaded = Mat::default();
        core::multiply(&lit, &gain, &mut shaded, 1.0, -1).expect("multiply");
        shaded
            .convert_to(&mut out, core::CV_8UC3, 1.0, 0.0)
            .expect("convert");
        out
    }
}

/// How far (share of a cell of the flat grid at `image_from_grid`) the worst cell of `puzzle`,
/// as it would be drawn (along its bend, or by its corners), lies from `truth`, the middle of
/// each cell as the warped photo shows it.
fn worst_cell_off(
    puzzle: &sudoku_ar::photo::Puzzle,
    image_from_grid: &sudoku_ar::geometry::Homography,
    truth: impl Fn(usize) -> [f64; 2],
) -> f64 {
    use sudoku_ar::bend::Lattice;
    use sudoku_ar::geometry::{Homography, Quad};
    let drawn_from_grid = Homography::from_quads(&Quad::UNIT, &puzzle.quad).expect("quad");
    let lattice = match puzzle.bend {
        Some(bend) => bend.lattice(&drawn_from_grid),
        None => Lattice::flat(&puzzle.quad).expect("quad"),
    };
    let flat = Quad(Quad::UNIT.0.map(|p| image_from_grid.apply(p)));
    (0..81)
        .map(|cell| {
            let middle = cell_middle_of(&lattice, cell);
            let truth = truth(cell);
            (middle[0] - truth[0]).hypot(middle[1] - truth[1])
        })
        .fold(0.0, f64::max)
        / (flat.mean_side() / 9.0)
}

/// A photo's page lifted at one side (`side`: 0 top, 1 right, 2 bottom, 3 left), seen from far
/// above: from a quarter of the way across, the paper tilts up towards that side, by an angle
/// growing as the square of the way to `steepest` degrees at the border, and shows
/// foreshortened by its cosine. The grid's corners stay where the photo has them; the lines
/// inside run towards the lifted side, up to half a cell off the corners' homography at 62
/// degrees, and the last column (or row) narrows to a third of a cell.
pub struct Lifted {
    /// The grid's printed corners on the flat photo.
    pub image_from_grid: sudoku_ar::geometry::Homography,
    pub side: usize,
    /// Where paper position `i / STEPS` across (towards the lifted side) is seen, 0-1.
    seen: Vec<f64>,
}

impl Lifted {
    const FLAT_TO: f64 = 0.25;
    const STEPS: usize = 2000;

    pub fn new(corners: &sudoku_ar::geometry::Quad, side: usize, steepest: f64) -> Lifted {
        use sudoku_ar::geometry::{Homography, Quad};
        let image_from_grid = Homography::from_quads(&Quad::UNIT, corners).expect("corners");
        let steepest = steepest.to_radians();
        let mut seen = vec![0.0];
        for i in 1..=Self::STEPS {
            let t = i as f64 / Self::STEPS as f64;
            let way = ((t - Self::FLAT_TO) / (1.0 - Self::FLAT_TO)).max(0.0);
            let last = seen[i - 1];
            seen.push(last + (steepest * way * way).cos() / Self::STEPS as f64);
        }
        let whole = seen[Self::STEPS];
        seen.iter_mut().for_each(|s| *s /= whole);
        Lifted {
            image_from_grid,
            side,
            seen,
        }
    }

    /// Where paper position `t` across (0-1, towards the lifted side) is seen; beyond the grid
    /// the paper goes on as at its edges.
    fn seen_at(&self, t: f64) -> f64 {
        let n = Self::STEPS as f64;
        if t <= 0.0 {
            return t;
        }
        if t >= 1.0 {
            return 1.0 + (t - 1.0) * (self.seen[Self::STEPS] - self.seen[Self::STEPS - 1]) * n;
        }
        let i = ((t * n) as usize).min(Self::STEPS - 1);
        let f = t * n - i as f64;
        self.seen[i] * (1.0 - f) + self.seen[i + 1] * f
    }

    /// The paper position seen at `s` (the inverse of [`Lifted::seen_at`]).
    fn paper_at(&self, s: f64) -> f64 {
        let (mut lo, mut hi) = (-1.0, 3.0);
        for _ in 0..50 {
            let mid = 0.5 * (lo + hi);
            if self.seen_at(mid) < s {
                lo = mid
            } else {
                hi = mid
            }
        }
        0.5 * (lo + hi)
    }
}

impl MovedPage for Lifted {
    fn image_from_grid(&self) -> &sudoku_ar::geometry::Homography {
        &self.image_from_grid
    }

    fn moved(&self, [u, v]: [f64; 2], back: bool) -> [f64; 2] {
        let f = |t: f64| {
            if back {
                self.paper_at(t)
            } else {
                self.seen_at(t)
            }
        };
        match self.side {
            0 => [u, 1.0 - f(1.0 - v)],
            1 => [f(u), v],
            2 => [u, f(v)],
            _ => [1.0 - f(1.0 - u), v],
        }
    }
}

/// A photo's page bowed across one way, as paper curving up from a table seen from its side:
/// every line running the other way (the columns for `across` 0, the rows for 1) moves alike,
/// borders too, by `cells` of a cell at its middle as sin(pi t) along it, so that the corners
/// stay where the photo has them; beyond the grid the paper moves as the nearest border does.
pub struct Bowed {
    /// The grid's printed corners on the flat photo.
    pub image_from_grid: sudoku_ar::geometry::Homography,
    pub across: usize,
    pub cells: f64,
}

impl Bowed {
    pub fn new(corners: &sudoku_ar::geometry::Quad, across: usize, cells: f64) -> Bowed {
        use sudoku_ar::geometry::{Homography, Quad};
        Bowed {
            image_from_grid: Homography::from_quads(&Quad::UNIT, corners).expect("corners"),
            across,
            cells,
        }
    }
}

impl MovedPage for Bowed {
    fn image_from_grid(&self) -> &sudoku_ar::geometry::Homography {
        &self.image_from_grid
    }

    /// The bow depends only on the way along the lines, which it leaves alone: going back is
    /// exact.
    fn moved(&self, [u, v]: [f64; 2], back: bool) -> [f64; 2] {
        let sign = if back { -1.0 } else { 1.0 };
        let by =
            |t: f64| sign * self.cells / 9.0 * (std::f64::consts::PI * t.clamp(0.0, 1.0)).sin();
        match self.across {
            0 => [u + by(v), v],
            _ => [u, v + by(u)],
        }
    }
}

/// A photo's page moved by a known warp that leaves the grid's corners where they are (see
/// [`Lifted`], [`Bowed`]): where its cells are seen, and the warped photo.
pub trait MovedPage {
    /// The grid's printed corners on the flat photo.
    fn image_from_grid(&self) -> &sudoku_ar::geometry::Homography;

    /// Grid point `p` (flat) as seen, or (`back`) the flat point seen at `p`.
    fn moved(&self, p: [f64; 2], back: bool) -> [f64; 2];

    /// Where the middle of `cell` is seen on the warped photo, in its pixels.
    fn cell_middle(&self, cell: usize) -> [f64; 2] {
        let middle = [
            ((cell % 9) as f64 + 0.5) / 9.0,
            ((cell / 9) as f64 + 0.5) / 9.0,
        ];
        self.image_from_grid().apply(self.moved(middle, false))
    }

    /// How far (share of a cell) the worst cell of `puzzle`, as it would be drawn (along its
    /// bend, or by its corners), lies from the middle of its printed cell.
    fn worst_cell_drawn(&self, puzzle: &sudoku_ar::photo::Puzzle) -> f64 {
        worst_cell_off(puzzle, self.image_from_grid(), |cell| {
            self.cell_middle(cell)
        })
    }

    /// `photo` with its page warped.
    fn apply(&self, photo: &opencv::core::Mat) -> opencv::core::Mat {
        let border = (opencv::core::BORDER_REPLICATE, 0.0);
        warped(photo, self.image_from_grid(), border, |seen, _, _| {
            self.moved(seen, true)
        })
    }
}

/// `photo` warped by a known bend of its page: each pixel shows the flat grid point (grid
/// units of `image_from_grid`) that `flat_at` gives for the point seen there (and the pixel);
/// what lies beyond the photo is filled by `border` (an OpenCV border type, and its colour).
fn warped(
    photo: &opencv::core::Mat,
    image_from_grid: &sudoku_ar::geometry::Homography,
    border: (i32, f64),
    mut flat_at: impl FnMut([f64; 2], i32, i32) -> [f64; 2],
) -> opencv::core::Mat {
    use opencv::core::{self, Mat};
    let grid_from_image = image_from_grid.inverse().expect("homography");
    let (w, h) = (photo.cols(), photo.rows());
    let mut map_x =
        Mat::new_rows_cols_with_default(h, w, core::CV_32FC1, Scalar::all(0.0)).expect("map");
    let mut map_y = map_x.clone();
    for y in 0..h {
        for x in 0..w {
            let seen = grid_from_image.apply([x as f64, y as f64]);
            let [sx, sy] = image_from_grid.apply(flat_at(seen, x, y));
            *map_x.at_2d_mut::<f32>(y, x).expect("map") = sx as f32;
            *map_y.at_2d_mut::<f32>(y, x).expect("map") = sy as f32;
        }
    }
    let mut out = Mat::default();
    imgproc::remap(
        photo,
        &mut out,
        &map_x,
        &map_y,
        imgproc::INTER_LINEAR,
        border.0,
        Scalar::all(border.1),
    )
    .expect("remap");
    out
}
