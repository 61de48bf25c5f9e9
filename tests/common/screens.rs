//! Screenshots of Sudoku apps and websites, drawn here in faces the digit model never saw (the
//! held-out font packages of `models/fonts.txt`), and photos of a monitor showing them.
//!
//! Each screen knows its truth (the puzzle given, the digits typed in, the solution from the
//! `sudoku` crate, the border's corners), so nothing is taken from the code under test.

use std::path::{Path, PathBuf};

use ab_glyph::{Font, FontVec, PxScale, ScaleFont, point};
use opencv::core::{self, Mat, Point2f, Rect, Scalar, Size, Vec3b, Vector};
use opencv::imgproc;
use opencv::prelude::*;
use sudoku_ar::geometry::Quad;

use super::camera::Random;

/// Held-out faces (interface sans, humanist sans, slab, monospace, rounded, condensed), by file
/// name under /usr/share/fonts; `.ci/setup` installs their packages.
pub const HELD_OUT_FONTS: [&str; 8] = [
    "Inter-Regular.otf",
    "Inter-SemiBold.otf",
    "Lato-Regular.ttf",
    "Lato-Bold.ttf",
    "RobotoSlab-Regular.otf",
    "JetBrainsMono-Regular.ttf",
    "Comfortaa-Bold.ttf",
    "YanoneKaffeesatz-Regular.otf",
];

/// Colours of a theme, RGB.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub name: &'static str,
    bg: [u8; 3],
    panel: [u8; 3],
    text: [u8; 3],
    thin: [u8; 3],
    thick: [u8; 3],
    entry: [u8; 3],
    /// A wrong entry, in apps that check the player's entries.
    mistake: [u8; 3],
    highlight: [u8; 3],
    selected: [u8; 3],
    same_digit: [u8; 3],
    pencil: [u8; 3],
}

pub const THEMES: [Theme; 4] = [
    Theme {
        name: "light",
        bg: [255, 255, 255],
        panel: [234, 238, 244],
        text: [52, 72, 97],
        thin: [190, 198, 212],
        thick: [52, 72, 97],
        entry: [50, 90, 175],
        mistake: [229, 92, 108],
        highlight: [226, 235, 243],
        selected: [187, 222, 251],
        same_digit: [195, 215, 234],
        pencil: [110, 110, 110],
    },
    Theme {
        name: "dark",
        bg: [18, 18, 18],
        panel: [40, 40, 44],
        text: [230, 230, 230],
        thin: [66, 66, 70],
        thick: [150, 150, 155],
        entry: [130, 177, 255],
        mistake: [255, 105, 97],
        highlight: [36, 38, 44],
        selected: [30, 70, 130],
        same_digit: [45, 55, 75],
        pencil: [160, 160, 160],
    },
    Theme {
        name: "sepia",
        bg: [246, 239, 221],
        panel: [233, 222, 196],
        text: [70, 50, 30],
        thin: [200, 185, 160],
        thick: [90, 70, 45],
        entry: [160, 80, 30],
        mistake: [200, 40, 40],
        highlight: [236, 226, 200],
        selected: [228, 205, 160],
        same_digit: [230, 214, 180],
        pencil: [130, 110, 90],
    },
    Theme {
        name: "dark blue",
        bg: [22, 27, 34],
        panel: [33, 38, 45],
        text: [201, 209, 217],
        thin: [48, 54, 61],
        thick: [110, 118, 129],
        entry: [88, 166, 255],
        mistake: [248, 81, 73],
        highlight: [30, 36, 46],
        selected: [31, 111, 235],
        same_digit: [38, 50, 70],
        pencil: [139, 148, 158],
    },
];

/// Newsprint: black print on off-white paper, the cell lines printed thin and light grey
/// between black box lines, as many newspapers print them (not in [`THEMES`]: no app).
pub const NEWSPRINT: Theme = Theme {
    name: "newsprint",
    bg: [232, 230, 222],
    panel: [232, 230, 222],
    text: [25, 25, 25],
    thin: [200, 200, 196],
    thick: [25, 25, 25],
    entry: [25, 25, 25],
    mistake: [25, 25, 25],
    highlight: [232, 230, 222],
    selected: [232, 230, 222],
    same_digit: [232, 230, 222],
    pencil: [25, 25, 25],
};

/// [`NEWSPRINT`] with its cell lines printed so fine that no camera sees them (hairlines or
/// dots lost at a frame's resolution): the grid shown by its box lines alone.
pub const NEWSPRINT_HAIRLINES: Theme = Theme {
    name: "newsprint, hairlines",
    thin: NEWSPRINT.bg,
    ..NEWSPRINT
};

/// Where the app puts things.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A phone, portrait: title and timer above the grid, tools and a row of nine digit buttons below.
    Phone,
    /// A web page: the grid on the left, a 3x3 number pad and buttons on the right.
    Web,
}

/// One screen and its truth.
pub struct Screen {
    pub name: String,
    /// BGR.
    pub image: Mat,
    /// Centre of the outer border line, top-left first.
    pub corners: Quad,
    pub givens: [u8; 81],
    /// Digits typed in by the player, 0 elsewhere: all right, but for `mistakes`.
    pub entries: [u8; 81],
    /// Cells whose entry is wrong (see [`Style::mistakes`]).
    pub mistakes: Vec<usize>,
    pub solution: [u8; 81],
}

/// How the app marks the grid's outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Border {
    /// A printed border line as thick as the box lines.
    Line,
    /// None: the grid is a card of the theme's background on a tinted page.
    Card,
    /// None, and the nine boxes are tiles with the tinted page showing between them.
    Tiles,
}

/// What a screen shows besides the puzzle.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub theme: Theme,
    pub layout: Layout,
    pub font: &'static str,
    /// Selected cell with its row, column and box highlighted, and the same digit elsewhere.
    pub highlights: bool,
    /// Candidates pencilled into some empty cells.
    pub pencil_marks: bool,
    /// Some cells filled in by the player.
    pub entries: bool,
    /// Two of the entries wrong: one in the theme's colour for a mistake (an app that checks
    /// the player's entries), the other as any entry.
    pub mistakes: bool,
    pub border: Border,
}

/// The file of a font by its name, under /usr/share/fonts.
pub fn font_path(name: &str) -> Option<PathBuf> {
    fn walk(dir: &Path, name: &str) -> Option<PathBuf> {
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if let Some(found) = walk(&path, name) {
                    return Some(found);
                }
            } else if path.file_name().is_some_and(|f| f == name) {
                return Some(path);
            }
        }
        None
    }
    walk(Path::new("/usr/share/fonts"), name)
}

pub fn load_font(name: &str) -> FontVec {
    let path = font_path(name).unwrap_or_else(|| {
        panic!(
            "font {name} not installed: run bash .ci/setup (it installs the held-out font packages)"
        )
    });
    let bytes = std::fs::read(&path).expect("font file");
    FontVec::try_from_vec(bytes).expect("a font")
}

/// The puzzles of `tests/puzzles/top95.txt`, 81 characters each.
pub fn puzzles() -> Vec<String> {
    let text = include_str!("../puzzles/top95.txt");
    text.lines()
        .filter(|l| l.len() >= 81 && !l.starts_with('#'))
        .map(|l| l[..81].to_string())
        .collect()
}

/// A puzzle from a published set (one 81-character line) and its solution by the `sudoku` crate.
pub fn puzzle(line: &str) -> ([u8; 81], [u8; 81]) {
    let givens: [u8; 81] = std::array::from_fn(|i| match line.as_bytes()[i] {
        b @ b'1'..=b'9' => b - b'0',
        _ => 0,
    });
    let solved = sudoku::Sudoku::from_str_line(line)
        .expect("a puzzle line")
        .solution()
        .expect("a unique solution");
    (givens, solved.to_bytes())
}

struct Canvas<'a> {
    image: &'a mut Mat,
}

impl Canvas<'_> {
    fn fill(&mut self, x0: f64, y0: f64, x1: f64, y1: f64, rgb: [u8; 3]) {
        let rect = Rect::new(
            x0.round() as i32,
            y0.round() as i32,
            ((x1 - x0).round() as i32).max(1),
            ((y1 - y0).round() as i32).max(1),
        );
        let colour = Scalar::new(rgb[2] as f64, rgb[1] as f64, rgb[0] as f64, 0.0);
        imgproc::rectangle(self.image, rect, colour, -1, imgproc::LINE_8, 0).expect("rectangle");
    }

    /// Draws `text` with its ink box centred on (`cx`, `cy`).
    fn text(&mut self, font: &FontVec, text: &str, px: f64, cx: f64, cy: f64, rgb: [u8; 3]) {
        let scaled = font.as_scaled(PxScale::from(px as f32));
        let mut glyphs = Vec::new();
        let mut x = 0.0f32;
        for ch in text.chars() {
            let mut glyph = scaled.scaled_glyph(ch);
            glyph.position = point(x, 0.0);
            x += scaled.h_advance(glyph.id);
            glyphs.push(glyph);
        }
        let outlined: Vec<_> = glyphs
            .into_iter()
            .filter_map(|g| font.outline_glyph(g))
            .collect();
        let Some(first) = outlined.first() else {
            return;
        };
        let mut bounds = first.px_bounds();
        for o in &outlined {
            let b = o.px_bounds();
            bounds.min.x = bounds.min.x.min(b.min.x);
            bounds.min.y = bounds.min.y.min(b.min.y);
            bounds.max.x = bounds.max.x.max(b.max.x);
            bounds.max.y = bounds.max.y.max(b.max.y);
        }
        let dx = (cx as f32 - (bounds.min.x + bounds.max.x) / 2.0).round() as i32;
        let dy = (cy as f32 - (bounds.min.y + bounds.max.y) / 2.0).round() as i32;
        let (w, h) = (self.image.cols(), self.image.rows());
        for o in &outlined {
            let b = o.px_bounds();
            o.draw(|gx, gy, coverage| {
                let x = b.min.x as i32 + gx as i32 + dx;
                let y = b.min.y as i32 + gy as i32 + dy;
                if x < 0 || y < 0 || x >= w || y >= h {
                    return;
                }
                let a = coverage.clamp(0.0, 1.0);
                if let Ok(pixel) = self.image.at_2d_mut::<Vec3b>(y, x) {
                    for (k, channel) in [2usize, 1, 0].into_iter().enumerate() {
                        let v = pixel[k] as f32 * (1.0 - a) + rgb[channel] as f32 * a;
                        pixel[k] = v.round() as u8;
                    }
                }
            });
        }
    }
}

/// Draws a screen showing the puzzle `line` in `style`.
pub fn render(line: &str, style: Style, seed: u64) -> Screen {
    let mut random = Random::new(seed);
    let (givens, solution) = puzzle(line);
    let font = load_font(style.font);
    let ui_font = load_font("Inter-Regular.otf");
    let t = style.theme;
    let (width, height, cell, origin) = match style.layout {
        Layout::Phone => (540, 1170, 57.0, [15.5, 230.5]),
        Layout::Web => (1280, 800, 64.0, [60.5, 100.5]),
    };
    let mut image = Mat::new_rows_cols_with_default(height, width, core::CV_8UC3, Scalar::all(0.0))
        .expect("canvas");
    let mut canvas = Canvas { image: &mut image };
    // A grid with no border line stands on the theme's background mixed with a quarter of its
    // line colour, as apps tint the page around a card (unlike the highlights).
    let tint: [u8; 3] =
        std::array::from_fn(|k| ((3.0 * t.bg[k] as f64 + t.thick[k] as f64) / 4.0).round() as u8);
    if style.border == Border::Line {
        canvas.fill(0.0, 0.0, width as f64, height as f64, t.bg);
    } else {
        canvas.fill(0.0, 0.0, width as f64, height as f64, tint);
        let side = 9.0 * cell;
        canvas.fill(
            origin[0],
            origin[1],
            origin[0] + side,
            origin[1] + side,
            t.bg,
        );
    }

    let mut entries = [0u8; 81];
    if style.entries {
        for i in 0..81 {
            if givens[i] == 0 && random.unit() < 0.3 {
                entries[i] = solution[i];
            }
        }
    }
    let mut mistakes = Vec::new();
    if style.entries && style.mistakes {
        let typed: Vec<usize> = (0..81).filter(|&i| entries[i] != 0).collect();
        for _ in 0..2.min(typed.len()) {
            let i = typed[(random.unit() * typed.len() as f64) as usize % typed.len()];
            if !mistakes.contains(&i) {
                entries[i] = 1 + (entries[i] + (random.unit() * 7.0) as u8) % 9;
                mistakes.push(i);
            }
        }
    }
    let shown = |i: usize| givens[i].max(entries[i]);
    let selected = (0..81)
        .find(|&i| shown(i) != 0 && random.unit() < 0.1)
        .unwrap_or(40);
    let (sel_r, sel_c) = (selected / 9, selected % 9);
    let at = |r: usize, c: usize| (origin[0] + c as f64 * cell, origin[1] + r as f64 * cell);

    // Cell backgrounds.
    if style.highlights {
        for i in 0..81 {
            let (r, c) = (i / 9, i % 9);
            let same_unit = r == sel_r || c == sel_c || (r / 3 == sel_r / 3 && c / 3 == sel_c / 3);
            let colour = if i == selected {
                Some(t.selected)
            } else if shown(i) != 0 && shown(i) == shown(selected) {
                Some(t.same_digit)
            } else if same_unit {
                Some(t.highlight)
            } else {
                None
            };
            if let Some(colour) = colour {
                let (x, y) = at(r, c);
                canvas.fill(x, y, x + cell, y + cell, colour);
            }
        }
    }
    // Lines: thin cell lines, thick box lines, the border as thick as the box lines.
    let side = 9.0 * cell;
    let (thin, thick) = (1.0, (cell / 24.0).round().max(2.0));
    for k in 0..=9 {
        let (w, colour) = match style.border {
            _ if k % 3 != 0 => (thin, t.thin),
            Border::Line => (thick, t.thick),
            // No border; box lines as thick as before, or the page between tiles.
            _ if k == 0 || k == 9 => continue,
            Border::Card => (thick, t.thick),
            Border::Tiles => ((0.12 * cell).round(), tint),
        };
        let p = k as f64 * cell;
        let (x, y) = (origin[0] + p, origin[1] + p);
        canvas.fill(
            x - w / 2.0,
            origin[1] - thick / 2.0,
            x + w / 2.0,
            origin[1] + side + thick / 2.0,
            colour,
        );
        canvas.fill(
            origin[0] - thick / 2.0,
            y - w / 2.0,
            origin[0] + side + thick / 2.0,
            y + w / 2.0,
            colour,
        );
    }
    // Digits: givens, the player's entries, pencil marks.
    for i in 0..81 {
        let (r, c) = (i / 9, i % 9);
        let (x, y) = at(r, c);
        if givens[i] != 0 {
            canvas.text(
                &font,
                &givens[i].to_string(),
                cell * 0.62,
                x + cell / 2.0,
                y + cell / 2.0,
                t.text,
            );
        } else if entries[i] != 0 {
            canvas.text(
                &font,
                &entries[i].to_string(),
                cell * 0.62,
                x + cell / 2.0,
                y + cell / 2.0,
                if mistakes.first() == Some(&i) {
                    t.mistake
                } else {
                    t.entry
                },
            );
        } else if style.pencil_marks && random.unit() < 0.5 {
            for d in 1..=9u8 {
                let fits = (0..81).all(|j| {
                    let (rj, cj) = (j / 9, j % 9);
                    let peer = rj == r || cj == c || (rj / 3 == r / 3 && cj / 3 == c / 3);
                    !peer || shown(j) != d
                });
                if fits && random.unit() < 0.6 {
                    let k = (d - 1) as f64;
                    let (px, py) = (
                        x + (k % 3.0 + 0.5) * cell / 3.0,
                        y + ((k / 3.0).floor() + 0.5) * cell / 3.0,
                    );
                    canvas.text(&ui_font, &d.to_string(), cell * 0.22, px, py, t.pencil);
                }
            }
        }
    }
    draw_chrome(
        &mut canvas,
        &ui_font,
        &font,
        style,
        t,
        width as f64,
        origin,
        side,
    );

    let corners = Quad([
        [origin[0], origin[1]],
        [origin[0] + side, origin[1]],
        [origin[0] + side, origin[1] + side],
        [origin[0], origin[1] + side],
    ]);
    Screen {
        name: format!(
            "{} {:?} {} hl={} pm={} en={}",
            t.name, style.layout, style.font, style.highlights, style.pencil_marks, style.entries
        ),
        image,
        corners,
        givens,
        entries,
        mistakes,
        solution,
    }
}

/// What surrounds the grid: title, timer, mistakes, difficulty, tools and the number pad.
#[allow(clippy::too_many_arguments)]
fn draw_chrome(
    canvas: &mut Canvas,
    ui: &FontVec,
    digits: &FontVec,
    style: Style,
    t: Theme,
    width: f64,
    origin: [f64; 2],
    side: f64,
) {
    let tools = ["Undo", "Erase", "Notes", "Hint"];
    match style.layout {
        Layout::Phone => {
            canvas.text(ui, "Sudoku", 44.0, width / 2.0, 60.0, t.text);
            canvas.text(ui, "Expert", 24.0, 70.0, 150.0, t.text);
            canvas.text(ui, "Mistakes: 1/3", 24.0, width / 2.0, 150.0, t.text);
            canvas.text(ui, "05:32", 24.0, width - 70.0, 150.0, t.text);
            let y = origin[1] + side + 70.0;
            for (k, tool) in tools.iter().enumerate() {
                let x = 70.0 + k as f64 * (width - 140.0) / 3.0;
                canvas.fill(x - 28.0, y - 28.0, x + 28.0, y + 28.0, t.panel);
                canvas.text(ui, tool, 20.0, x, y + 50.0, t.text);
            }
            for d in 1..=9 {
                let x = 30.0 + (d - 1) as f64 * (width - 60.0) / 8.0;
                canvas.text(digits, &d.to_string(), 52.0, x, y + 160.0, t.entry);
            }
        }
        Layout::Web => {
            let left = origin[0] + side + 80.0;
            canvas.text(ui, "Daily Sudoku", 40.0, width / 2.0, 45.0, t.text);
            canvas.text(ui, "Time 12:07", 26.0, left + 150.0, 130.0, t.text);
            let pad = 110.0;
            for d in 0..9 {
                let (x, y) = (left + (d % 3) as f64 * pad, 200.0 + (d / 3) as f64 * pad);
                canvas.fill(x, y, x + pad - 12.0, y + pad - 12.0, t.panel);
                canvas.text(
                    digits,
                    &(d + 1).to_string(),
                    56.0,
                    x + (pad - 12.0) / 2.0,
                    y + (pad - 12.0) / 2.0,
                    t.entry,
                );
            }
            for (k, tool) in tools.iter().enumerate() {
                let x = left + k as f64 * 85.0;
                canvas.fill(x, 560.0, x + 75.0, 600.0, t.panel);
                canvas.text(ui, tool, 20.0, x + 37.0, 580.0, t.text);
            }
            canvas.text(ui, "New game", 26.0, left + 160.0, 660.0, t.text);
        }
    }
}

/// A photo of a monitor showing `screen`: moire, glare, perspective, a dark bezel around it,
/// blur, noise and JPEG.
pub fn photographed(screen: &Screen, seed: u64) -> Screen {
    let mut random = Random::new(seed);
    let (w, h) = (screen.image.cols(), screen.image.rows());
    let mut lit = Mat::default();
    screen
        .image
        .convert_to(&mut lit, core::CV_32FC3, 1.0, 0.0)
        .expect("float");
    let angle = random.between(0.0, std::f64::consts::PI);
    let period = random.between(3.0, 7.0);
    let depth = random.between(0.04, 0.12);
    let (gx, gy, gr) = (
        random.between(0.0, w as f64),
        random.between(0.0, h as f64),
        random.between(0.25, 0.5) * w.max(h) as f64,
    );
    let glare = random.between(20.0, 70.0);
    for y in 0..h {
        for x in 0..w {
            let phase =
                2.0 * std::f64::consts::PI * (x as f64 * angle.cos() + y as f64 * angle.sin())
                    / period;
            let stripes = 1.0 - depth * (0.5 + 0.5 * phase.sin());
            let d2 = (x as f64 - gx).powi(2) + (y as f64 - gy).powi(2);
            let spot = glare * (-d2 / (2.0 * gr * gr)).exp();
            let pixel = lit.at_2d_mut::<core::Vec3f>(y, x).expect("pixel");
            for k in 0..3 {
                pixel[k] = (pixel[k] as f64 * stripes + spot) as f32;
            }
        }
    }
    let mut lit8 = Mat::default();
    lit.convert_to(&mut lit8, core::CV_8UC3, 1.0, 0.0)
        .expect("bytes");

    // Perspective: the screen seen from a little off-axis, filling most of the photo.
    let (out_w, out_h) = (
        ((w.max(h) as f64) * 1.15) as i32,
        ((w.max(h) as f64) * 1.15) as i32,
    );
    let (ox, oy) = ((out_w - w) as f64 / 2.0, (out_h - h) as f64 / 2.0);
    let jitter = 0.06 * w.min(h) as f64;
    let src = [
        [0.0, 0.0],
        [w as f64, 0.0],
        [w as f64, h as f64],
        [0.0, h as f64],
    ];
    let dst: Vec<[f64; 2]> = src
        .iter()
        .map(|p| {
            [
                p[0] + ox + random.between(-jitter, jitter),
                p[1] + oy + random.between(-jitter, jitter),
            ]
        })
        .collect();
    let to_points = |v: &[[f64; 2]]| -> Vector<Point2f> {
        v.iter()
            .map(|p| Point2f::new(p[0] as f32, p[1] as f32))
            .collect()
    };
    let m = imgproc::get_perspective_transform(&to_points(&src), &to_points(&dst), core::DECOMP_LU)
        .expect("homography");
    let mut photo = Mat::default();
    imgproc::warp_perspective(
        &lit8,
        &mut photo,
        &m,
        Size::new(out_w, out_h),
        imgproc::INTER_AREA,
        core::BORDER_CONSTANT,
        Scalar::all(12.0),
    )
    .expect("warp");
    let mut corners_in = Vector::<Point2f>::new();
    for p in screen.corners.0 {
        corners_in.push(Point2f::new(p[0] as f32, p[1] as f32));
    }
    let mut corners_out = Vector::<Point2f>::new();
    core::perspective_transform(&corners_in, &mut corners_out, &m).expect("corners");
    let corners = Quad(std::array::from_fn(|i| {
        let p = corners_out.get(i).expect("corner");
        [p.x as f64, p.y as f64]
    }));

    let mut blurred = Mat::default();
    let sigma = random.between(0.6, 1.4);
    imgproc::gaussian_blur(
        &photo,
        &mut blurred,
        Size::new(0, 0),
        sigma,
        sigma,
        core::BORDER_DEFAULT,
    )
    .expect("blur");
    let mut noisy = Mat::default();
    blurred
        .convert_to(&mut noisy, core::CV_32FC3, 1.0, 0.0)
        .expect("float");
    let mut noise = Mat::new_rows_cols_with_default(out_h, out_w, core::CV_32FC3, Scalar::all(0.0))
        .expect("noise");
    core::set_rng_seed(seed as i32).expect("seed");
    core::randn(&mut noise, &Scalar::all(0.0), &Scalar::all(5.0)).expect("randn");
    let mut sum = Mat::default();
    core::add(&noisy, &noise, &mut sum, &core::no_array(), core::CV_8UC3).expect("add");
    let image = super::as_jpeg(&sum, 75);
    Screen {
        name: format!("{} photographed", screen.name),
        image,
        corners,
        givens: screen.givens,
        entries: screen.entries,
        mistakes: screen.mistakes.clone(),
        solution: screen.solution,
    }
}

/// `photo` (a [`photographed`] screen) as a phone sees a monitor from closer up: shrunk to
/// 0.5-0.9 and striped by the screen's moire, light and dark bands 2.5-6 px apart at any angle,
/// curved, their spacing changing by up to 30% across the picture and their depth (10-25% of
/// the light) along them, each colour a little out of step; saved as JPEG 60.
pub fn under_moire(photo: &Screen, seed: u64) -> Screen {
    use std::f64::consts::PI;
    let mut random = Random::new(seed);
    let scale = random.between(0.5, 0.9);
    let small = super::resized(&photo.image, scale);
    let (w, h) = (small.cols(), small.rows());
    let size = w.max(h) as f64;
    let angle = random.between(0.0, PI);
    let period = random.between(2.5, 6.0);
    let chirp = random.between(-0.3, 0.3) / size;
    let (bend, bend_length, bend_phase) = (
        random.between(10.0, 40.0),
        random.between(0.5, 1.5) * size,
        random.between(0.0, 2.0 * PI),
    );
    let (depth, depth_phase) = (random.between(0.1, 0.25), random.between(0.0, 2.0 * PI));
    let colour_shift: [f64; 3] = std::array::from_fn(|c| c as f64 * random.between(0.3, 1.2));
    let mut lit = Mat::default();
    small
        .convert_to(&mut lit, core::CV_32FC3, 1.0, 0.0)
        .expect("float");
    for y in 0..h {
        for x in 0..w {
            let (x, y) = (x as f64, y as f64);
            let across = x * angle.cos() + y * angle.sin();
            let along = -x * angle.sin() + y * angle.cos();
            let curved = across + bend * (2.0 * PI * along / bend_length + bend_phase).sin();
            let phase = 2.0 * PI * curved / period * (1.0 + chirp * across);
            let deep = depth * (0.6 + 0.4 * (2.0 * PI * along / size + depth_phase).sin());
            let pixel = lit
                .at_2d_mut::<core::Vec3f>(y as i32, x as i32)
                .expect("pixel");
            for (c, shift) in colour_shift.iter().enumerate() {
                let dimmed = 1.0 - deep * (0.5 + 0.5 * (phase + shift).sin());
                pixel[c] = (pixel[c] as f64 * dimmed) as f32;
            }
        }
    }
    let mut striped = Mat::default();
    lit.convert_to(&mut striped, core::CV_8UC3, 1.0, 0.0)
        .expect("bytes");
    Screen {
        name: format!("{} under moire", photo.name),
        image: super::as_jpeg(&striped, 60),
        corners: Quad(photo.corners.0.map(|[x, y]| [x * scale, y * scale])),
        givens: photo.givens,
        entries: photo.entries,
        mistakes: photo.mistakes.clone(),
        solution: photo.solution,
    }
}
