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
    /// Photos to read (JPEG, PNG, and whatever else OpenCV decodes); a folder stands for the
    /// photos in it and its subfolders, by name.
    #[arg(required = true)]
    pub photos: Vec<PathBuf>,
    /// Print one JSON object per photo on stdout, in the order given (several puzzles in one
    /// photo: the first as `puzzle`, the rest as `others`).
    #[arg(long)]
    pub json: bool,
    /// Write each photo with the solution drawn in to this folder (created if missing), as
    /// <name>.jpg; a puzzle that cannot be solved, or whose cells would be drawn beside the
    /// printed lines, is outlined in red.
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
    for path in &photos_in(&args.photos) {
        let file = path.display().to_string();
        let report = match process(&mut pipeline, path, args.output.as_deref()) {
            Ok(puzzles) => {
                let mut reports = puzzles.iter().map(PuzzleReport::from);
                PhotoReport::Read {
                    file,
                    puzzle: reports.next().map(Box::new),
                    others: reports.collect(),
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

fn process(
    pipeline: &mut PhotoPipeline,
    path: &Path,
    output: Option<&Path>,
) -> anyhow::Result<Vec<Puzzle>> {
    let mut image = photo::load_image(path)?;
    let mut times = StageTimes::default();
    let puzzles = pipeline.process_all(&image, &mut times)?;
    if let Some(dir) = output.filter(|_| !puzzles.is_empty()) {
        let start = std::time::Instant::now();
        for puzzle in &puzzles {
            photo::annotate(&mut image, puzzle)?;
        }
        times.render = start.elapsed();
        let stem = path
            .file_stem()
            .map_or_else(|| "photo".into(), |s| s.to_string_lossy().into_owned());
        let target = dir.join(format!("{stem}.jpg"));
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
    Ok(puzzles)
}

/// The hidden cells as rows and columns counted from 1 ("r9c5 r9c6"), if any.
fn covered(hidden: &[usize]) -> Option<String> {
    (!hidden.is_empty()).then(|| {
        hidden
            .iter()
            .map(|i| format!("r{}c{}", i / 9 + 1, i % 9 + 1))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The report in words: a line per puzzle found, the first named by the file alone, any
/// others as "<file> (puzzle 2)".
fn human_lines(report: &PhotoReport) -> Vec<String> {
    match report {
        PhotoReport::Failed { file, error } => vec![format!("{file}: error: {error}")],
        PhotoReport::Read {
            file, puzzle: None, ..
        } => vec![format!("{file}: no Sudoku found")],
        PhotoReport::Read {
            file,
            puzzle: Some(first),
            others,
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
        Some(solution) => format!("{name}: solved {solution} (clues {})", p.clues),
        None => {
            let status = format!("{:?}", p.status).to_lowercase();
            let line = format!("{name}: {status}, clues read {}", p.clues);
            match covered(&p.hidden) {
                Some(cells) => format!("{line}; something lies over {cells}: uncover them"),
                None if p.status == Status::Unsure => {
                    format!("{line}; a clue could be read another way: take a sharper photo")
                }
                None => line,
            }
        }
    }
}

/// The photos `paths` name: each file as given, each folder as the image files in it and its
/// subfolders, in order of name. A folder with none, or one that cannot be listed, stays as
/// given, to be reported as not a photo.
fn photos_in(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut photos = Vec::new();
    for path in paths {
        let before = photos.len();
        if path.is_dir() {
            add_photos_under(path, &mut photos);
        }
        if photos.len() == before {
            photos.push(path.clone());
        }
    }
    photos
}

fn add_photos_under(folder: &Path, photos: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            add_photos_under(&path, photos);
        } else if is_image_name(&path) {
            photos.push(path);
        }
    }
}

/// Whether a file's name says it is a picture OpenCV reads.
fn is_image_name(path: &Path) -> bool {
    const EXTENSIONS: [&str; 12] = [
        "jpg", "jpeg", "jpe", "png", "webp", "bmp", "tif", "tiff", "jp2", "pgm", "ppm", "pbm",
    ];
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}
