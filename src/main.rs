//! The `sudoku-ar` command: parses arguments and hands over to the command in `cli/`.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let args = cli::Args::parse();
    cli::init_logging(args.verbose);
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("sudoku-ar: {err:#}");
            std::process::ExitCode::from(2)
        }
    }
}
