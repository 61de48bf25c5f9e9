//! `sudoku-ar live` and `sudoku-ar replay`: a webcam or a video file through the live pipeline.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use sudoku_ar::recognize::read::DigitReader;
use sudoku_ar::video::capture::{Camera, CaptureEnd, FrameSource, Pacing};
use sudoku_ar::video::display::{JsonLines, VideoOut};
use sudoku_ar::video::file::VideoFile;
use sudoku_ar::video::live::{self, Options, Summary};

/// Output shared by both commands.
#[derive(clap::Args, Debug)]
pub struct OutputArgs {
    /// No window: only the files asked for and the summary.
    #[arg(long)]
    pub headless: bool,
    /// Write the video with the solution drawn in (MPEG-4, .mp4).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write one JSON line per processed frame: the puzzle's corners, clues, solution, status.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Stop after this many frames.
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Use this digit model instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct LiveArgs {
    /// Camera index (see the error message for the cameras present).
    #[arg(long, default_value_t = 0)]
    pub camera: u32,
    /// Ask the camera for this resolution, as WIDTHxHEIGHT (the closest it offers is used).
    #[arg(long, value_name = "WxH", value_parser = parse_resolution)]
    pub resolution: Option<(u32, u32)>,
    #[command(flatten)]
    pub out: OutputArgs,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// The video file to play.
    pub video: PathBuf,
    /// Play at the video's own frame rate, dropping frames the pipeline has no time for (as
    /// live does), instead of processing every frame as fast as possible.
    #[arg(long)]
    pub realtime: bool,
    /// Start over at the end (stop with q, Esc, or --frames).
    #[arg(long = "loop")]
    pub looping: bool,
    #[command(flatten)]
    pub out: OutputArgs,
}

fn parse_resolution(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or("expected WIDTHxHEIGHT, such as 1280x720")?;
    match (w.parse(), h.parse()) {
        (Ok(w), Ok(h)) if w > 0 && h > 0 => Ok((w, h)),
        _ => Err(format!("{text}: expected WIDTHxHEIGHT, such as 1280x720")),
    }
}

pub fn live(args: LiveArgs) -> anyhow::Result<ExitCode> {
    let (camera, resolution) = (args.camera, args.resolution);
    let open =
        move || Camera::open(camera, resolution).map(|c| Box::new(c) as Box<dyn FrameSource>);
    run(open, &args.out, Pacing::NewestWins, false, None)
}

pub fn replay(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    // The progress bar wants the length; only then is the file opened here as well as on the
    // capture thread (which keeps its handle).
    let frames = if wants_progress_bar(args.out.headless) {
        VideoFile::open(&args.video, false)?.frame_count()
    } else {
        None
    };
    let path = args.video.clone();
    let looping = args.looping;
    let open = move || VideoFile::open(&path, looping).map(|v| Box::new(v) as Box<dyn FrameSource>);
    let pacing = if args.realtime {
        Pacing::NewestWins
    } else {
        Pacing::EveryFrame
    };
    let bar_length = if looping {
        args.out.frames
    } else {
        frames.map(|f| args.out.frames.map_or(f, |m| m.min(f)))
    };
    run(open, &args.out, pacing, args.realtime, bar_length)
}

fn run<F>(
    open: F,
    out: &OutputArgs,
    pacing: Pacing,
    realtime: bool,
    bar_length: Option<u64>,
) -> anyhow::Result<ExitCode>
where
    F: FnOnce() -> sudoku_ar::Result<Box<dyn FrameSource>> + Send + 'static,
{
    let model = out.model.clone();
    let reader = move || match &model {
        Some(path) => DigitReader::from_file(path),
        None => DigitReader::builtin(),
    };
    let output = out
        .output
        .as_deref()
        .map(|p| VideoOut::new(p, 30.0))
        .transpose()?;
    let jsonl = out.jsonl.as_deref().map(JsonLines::create).transpose()?;
    let progress = progress_bar(out.headless, bar_length);
    let on_frame = progress
        .clone()
        .map(|bar| Box::new(move |_| bar.inc(1)) as Box<dyn FnMut(u64) + Send>);
    let options = Options {
        window: !out.headless,
        output,
        jsonl,
        pacing,
        realtime,
        max_frames: out.frames,
        on_frame,
    };
    let summary = live::run(open, reader, options)?;
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    report(&summary, out.output.as_deref(), out.jsonl.as_deref())
}

fn wants_progress_bar(headless: bool) -> bool {
    headless && std::io::stderr().is_terminal()
}

fn progress_bar(headless: bool, length: Option<u64>) -> Option<indicatif::ProgressBar> {
    if !wants_progress_bar(headless) {
        return None;
    }
    let bar = match length {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    let style =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {per_sec} eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    Some(bar)
}

fn report(
    summary: &Summary,
    output: Option<&Path>,
    jsonl: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    eprint!("{}", summary.report());
    if let Some(path) = output {
        eprintln!("wrote the overlaid video to {}", path.display());
    }
    if let Some(path) = jsonl {
        eprintln!("wrote per-frame results to {}", path.display());
    }
    match &summary.capture_end {
        CaptureEnd::Failed(message) => {
            eprintln!(
                "sudoku-ar: {message} (the {} frames before it were processed)",
                summary.frames
            );
            Ok(ExitCode::from(1))
        }
        CaptureEnd::Finished | CaptureEnd::Stopped => Ok(ExitCode::SUCCESS),
    }
}
