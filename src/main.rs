//! The `sudoku-ar` command: parses arguments and hands over to the command in `cli/`.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Args::parse();
    cli::init_logging(args.verbose);
    match cli::run(args) {
        Ok(code) => code,
        // A reader that stops early (`sudoku-ar solve | head`) is not an error.
        Err(err) if is_broken_pipe(&err) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("sudoku-ar: {err:#}");
            std::process::ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
