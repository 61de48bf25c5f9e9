//! `sudoku-ar image`: photos in, solutions (and annotated photos) out.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use opencv::core::Vector;
use opencv::imgcodecs;
use sudoku_ar::photo::{self, PhotoPipeline, PhotoReport, Puzzle, PuzzleReport, StageTimes};
use sudoku_ar::recognize::read::DigitReader;
use sudoku_ar::recognize::verdict::Status;

#[derive(clap::Args, Debug)]
pub struct ImageArgs {
    /// Photos to read (JPEG, PNG, GIF, and whatever else OpenCV decodes); a folder stands for the
    /// photos in it and its subfolders, by name.
    #[arg(required = true)]
    pub photos: Vec<PathBuf>,
    /// Print one JSON object per photo on stdout, in the order given (several puzzles in one
    /// photo: the first as `puzzle`, the rest as `others`).
    #[arg(long)]
    pub json: bool,
    /// Write each photo with the solution drawn in to this folder (created if missing), as
    /// <name>.jpg (a photo found in a folder given: under its path inside that folder; a name
    /// taken already gets -2, -3...); a puzzle that cannot be solved, or whose cells would be
    /// drawn beside the printed lines, is outlined in red.
    #[arg(long, short, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Use this digit model instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
}

pub fn run(args: &ImageArgs) -> anyhow::Result<ExitCode> {
    let reader = match &args.model {
        Some(path) => DigitReader::from_file(path)?,
        None => DigitReader::builtin()?,
    };
    let mut pipeline = PhotoPipeline::new(reader);
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output folder {}", dir.display()))?;
    }
    let mut out = std::io::stdout().lock();
    let mut failed = 0;
    for photo in &photos_in(&args.photos) {
        let file = photo.path.display().to_string();
        let target = args.output.as_deref().map(|dir| photo.target_in(dir));
        let report = match process(&mut pipeline, &photo.path, target.as_deref()) {
            Ok((puzzles, written)) => {
                let mut reports = puzzles.iter().map(PuzzleReport::from);
                PhotoReport::Read {
                    file,
                    puzzle: reports.next().map(Box::new),
                    others: reports.collect(),
                    written: written.map(|t| t.display().to_string()),
                }
            }
            Err(err) => {
                failed += 1;
                PhotoReport::Failed {
                    file,
                    error: format!("{err:#}"),
                }
            }
        };
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&report)?)?;
        } else {
            for line in human_lines(&report) {
                writeln!(out, "{line}")?;
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Reads the photo at `path`; with a `target`, writes it there with its puzzles drawn in, if
/// any, and says so.
fn process<'t>(
    pipeline: &mut PhotoPipeline,
    path: &Path,
    target: Option<&'t Path>,
) -> anyhow::Result<(Vec<Puzzle>, Option<&'t Path>)> {
    let photo::Picture {
        mut image,
        cut_short,
    } = photo::load_picture(path)?;
    let mut times = StageTimes::default();
    let puzzles =
        (pipeline.process_all(&image, &mut times)).with_context(|| path.display().to_string())?;
    if cut_short {
        // Its bottom part is gray: a puzzle there is not in the picture at all.
        if puzzles.is_empty() {
            return Err(sudoku_ar::error::Error::CutShort { path: path.into() }.into());
        }
        tracing::warn!(file = %path.display(), "the file is cut short: read as far as it decodes");
    }
    let target = target.filter(|_| !puzzles.is_empty());
    if let Some(target) = target {
        let start = std::time::Instant::now();
        for puzzle in &puzzles {
            photo::annotate(&mut image, puzzle)?;
        }
        times.render = start.elapsed();
        if let Some(folder) = target.parent() {
            std::fs::create_dir_all(folder)
                .with_context(|| format!("cannot create output folder {}", folder.display()))?;
        }
        let written = imgcodecs::imwrite(
            &*target.to_string_lossy(),
            &image,
            &Vector::from_slice(&[imgcodecs::IMWRITE_JPEG_QUALITY, 92]),
        );
        if !matches!(written, Ok(true)) {
            anyhow::bail!("cannot write {}", target.display());
        }
    }
    tracing::debug!(file = %path.display(), ?times, "photo done");
    Ok((puzzles, target))
}

/// Where `clues` (81 digits, 0 empty) break the rules, in words: which digit stands twice in
/// which row, column or box, so that the reader can look there (a digit misread, an entry
/// typed wrong). None when they break none.
fn rules_broken(clues: &str) -> Option<String> {
    let grid: sudoku_ar::grid::Grid = clues.parse().ok()?;
    match sudoku_ar::solve::solve(&grid) {
        Err(sudoku_ar::solve::SolveError::Invalid {
            digit,
            unit,
            first,
            second,
        }) => Some(format!(
            "{digit} twice in a {unit}: {}",
            cells_named(&[first, second])?
        )),
        _ => None,
    }
}

/// Cells (0-80) named as a reader finds them, `r9c5 r9c6`; None for none.
fn cells_named(cells: &[usize]) -> Option<String> {
    (!cells.is_empty()).then(|| {
        cells
            .iter()
            .map(|i| format!("r{}c{}", i / 9 + 1, i % 9 + 1))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The report in words: a line per puzzle found, the first named by the file alone, any
/// others as "<file> (puzzle 2)", and where the photo was written with them drawn in.
fn human_lines(report: &PhotoReport) -> Vec<String> {
    let mut lines = puzzle_lines(report);
    if let PhotoReport::Read {
        file,
        written: Some(written),
        ..
    } = report
    {
        lines.push(format!("{file}: drawn in {written}"));
    }
    lines
}

fn puzzle_lines(report: &PhotoReport) -> Vec<String> {
    match report {
        PhotoReport::Failed { file, error } => vec![format!("{file}: error: {error}")],
        PhotoReport::Read {
            file, puzzle: None, ..
        } => vec![format!("{file}: no Sudoku found")],
        PhotoReport::Read {
            file,
            puzzle: Some(first),
            others,
            ..
        } => std::iter::once(puzzle_line(file, first))
            .chain(
                others
                    .iter()
                    .enumerate()
                    .map(|(k, p)| puzzle_line(&format!("{file} (puzzle {})", k + 2), p)),
            )
            .collect(),
    }
}

fn puzzle_line(name: &str, p: &PuzzleReport) -> String {
    match &p.solution {
        Some(solution) if !p.on_print => format!(
            "{name}: solved {solution} (clues {}), not drawn: the cells would lie beside the printed lines (is the paper curved? flatten it)",
            p.clues
        ),
        Some(solution) => {
            let line = format!("{name}: solved {solution} (clues {})", p.clues);
            match cells_named(&p.wrong_entries) {
                Some(cells) => format!("{line}; entries that contradict it: {cells}"),
                None => line,
            }
        }
        None => {
            let status = format!("{:?}", p.status).to_lowercase();
            let mut line = format!("{name}: {status}, clues read {}", p.clues);
            if let Some(why) = rules_broken(&p.clues) {
                line = format!("{line}; {why}");
            }
            match cells_named(&p.hidden) {
                Some(cells) => format!("{line}; something lies over {cells}: uncover them"),
                None if p.status == Status::Unsure => {
                    format!("{line}; a clue could be read another way: take a sharper photo")
                }
                None => line,
            }
        }
    }
}

/// A photo to read, and the name its copy with the solution drawn in is written under (a path
/// inside the output folder, its extension to be set).
struct Photo {
    path: PathBuf,
    name: PathBuf,
}

impl Photo {
    /// Where in `folder` its copy with the solution drawn in goes: its name, as a JPEG (a name
    /// with a dot in it, `page.2`, keeps it).
    fn target_in(&self, folder: &Path) -> PathBuf {
        let mut target = folder.join(&self.name).into_os_string();
        target.push(".jpg");
        PathBuf::from(target)
    }
}

/// The photos `paths` name: each file as given, each folder as the image files in it and its
/// subfolders, in order of name. A folder with none, or one that cannot be listed, stays as
/// given, to be reported as not a photo.
///
/// Each is named by its file name without extension, one found in a folder by its path inside
/// that folder: photos of the same name in two subfolders (`week 1/a.jpg`, `week 2/a.jpg`) are
/// written as two files, where one used to overwrite the other. Names still alike (`a.jpg`
/// and `a.png`, or one photo given twice) are told apart by -2, -3...
fn photos_in(paths: &[PathBuf]) -> Vec<Photo> {
    let mut photos = Vec::new();
    for path in paths {
        let before = photos.len();
        if path.is_dir() {
            add_photos_under(path, path, &mut photos);
        }
        if photos.len() == before {
            let name = path
                .file_stem()
                .map_or_else(|| "photo".into(), PathBuf::from);
            photos.push(Photo {
                path: path.clone(),
                name,
            });
        }
    }
    told_apart(&mut photos);
    photos
}

fn add_photos_under(root: &Path, folder: &Path, photos: &mut Vec<Photo>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            add_photos_under(root, &path, photos);
        } else if is_image_name(&path) {
            let inside = path.strip_prefix(root).unwrap_or(&path);
            let name = inside.with_file_name(inside.file_stem().unwrap_or_default());
            photos.push(Photo { path, name });
        }
    }
}

/// Gives each of `photos` whose name an earlier one has the first of -2, -3... that is free.
fn told_apart(photos: &mut [Photo]) {
    let mut taken = std::collections::HashSet::new();
    for photo in photos {
        let mut name = photo.name.clone();
        for k in 2.. {
            if taken.insert(name.clone()) {
                break;
            }
            let mut other = photo.name.clone().into_os_string();
            other.push(format!("-{k}"));
            name = PathBuf::from(other);
        }
        photo.name = name;
    }
}

/// Whether a file's name says it is a picture OpenCV (or, for GIF, HEIF and AVIF,
/// `photo::load_image`) reads.
fn is_image_name(path: &Path) -> bool {
    const EXTENSIONS: [&str; 16] = [
        "jpg", "jpeg", "jpe", "png", "webp", "bmp", "tif", "tiff", "jp2", "pgm", "ppm", "pbm",
        "gif", "heic", "heif", "avif",
    ];
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<Photo> {
        names
            .iter()
            .map(|n| Photo {
                path: PathBuf::from(format!("/in/{n}")),
                name: PathBuf::from(n),
            })
            .collect()
    }

    #[test]
    fn photos_of_the_same_name_are_told_apart_in_order() {
        let mut photos = named(&["a", "b", "a", "week 2/a", "a", "a-2"]);
        told_apart(&mut photos);
        let names: Vec<_> = photos.iter().map(|p| p.name.to_str().unwrap()).collect();
        assert_eq!(names, ["a", "b", "a-2", "week 2/a", "a-3", "a-2-2"]);
    }

    #[test]
    fn a_solved_line_names_the_entries_that_contradict_the_solution() {
        let report = |wrong_entries: Vec<usize>| PuzzleReport {
            corners: [[0.0; 2]; 4],
            clues: "1".repeat(81),
            handwritten: "0".repeat(81),
            entries: "0".repeat(81),
            wrong_entries,
            solution: Some("2".repeat(81)),
            status: Status::Solved,
            corrected: Vec::new(),
            margin: None,
            hidden: Vec::new(),
            on_print: true,
        };
        let line = puzzle_line("shot.png", &report(vec![31, 48]));
        assert!(
            line.ends_with("; entries that contradict it: r4c5 r6c4"),
            "{line}"
        );
        let line = puzzle_line("shot.png", &report(Vec::new()));
        assert!(
            line.ends_with(&format!("(clues {})", "1".repeat(81))),
            "{line}"
        );
    }

    #[test]
    fn clues_that_break_the_rules_are_said_where() {
        let mut clues = "0".repeat(81);
        clues.replace_range(0..1, "9");
        clues.replace_range(4..5, "9");
        assert_eq!(
            rules_broken(&clues).as_deref(),
            Some("9 twice in a row: r1c1 r1c5")
        );
        assert_eq!(rules_broken(&"0".repeat(81)), None);
    }

    #[test]
    fn a_copy_is_written_as_a_jpeg_of_its_name_dots_and_all() {
        let photo = Photo {
            path: PathBuf::from("/in/page.2.png"),
            name: PathBuf::from("week 2/page.2"),
        };
        assert_eq!(
            photo.target_in(Path::new("/out")),
            Path::new("/out/week 2/page.2.jpg")
        );
    }
}
