//! Command-line interface of the `sudoku-ar` binary (not part of the library).

mod image;
mod solve;
mod video;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "sudoku-ar",
    version,
    about = "Finds a printed Sudoku in a photo, a video or a live webcam picture, reads and solves it, and draws the missing digits onto the paper",
    after_help = "Logs go to stderr; set RUST_LOG (for example RUST_LOG=sudoku_ar=debug) or use -v for more."
)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
    /// More log output on stderr (-v debug, -vv trace).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Read and solve the Sudoku in each photo; optionally write the photos with the solution drawn in.
    Image(image::ImageArgs),
    /// Solve puzzles typed as 81-character lines or as 9 lines of 9 (0 or . for an empty cell).
    Solve(SolveArgs),
    /// Solve the Sudoku in front of a webcam, drawing the solution onto the live picture.
    Live(video::LiveArgs),
    /// Play a video file through the live pipeline (every frame, in order, unless --realtime).
    Replay(video::ReplayArgs),
}

#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// File with one puzzle per line (or per 9 lines of 9 cells; spaces, `|`, commas, brackets
    /// and quotes between cells, as in a CSV file or a JSON array, and lines of `-+` between
    /// boxes left out), or one puzzle typed as its 81 cells; reads standard input when left out
    /// or `-`. Blank lines and lines starting with # are skipped.
    pub file: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Command::Image(image_args) => image::run(&image_args),
        Command::Solve(solve_args) => solve::run(solve_args.file.as_deref()),
        Command::Live(live_args) => video::live(live_args),
        Command::Replay(replay_args) => video::replay(replay_args),
    }
}

pub fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "sudoku_ar=debug,info",
        _ => "sudoku_ar=trace,debug",
    };
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| default.into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}
