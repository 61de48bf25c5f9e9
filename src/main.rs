//! The `sudoku-ar` command: parses arguments and hands over to the command in `cli/`.

mod cli;

use clap::Parser;

fn main() -> std::process::ExitCode {
    keep_freed_buffers();
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

/// Has glibc keep freed buffers for reuse instead of giving them back to the kernel. A video
/// frame (6 MB at 1080p) and the images made from it are over glibc's threshold for mapping
/// each allocation afresh, and freed by another thread than the one that made them; mapping
/// and zeroing new pages for every frame took about a sixth of a headless replay's time.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_buffers() {
    // SAFETY: mallopt only changes the allocator's settings, and runs before any other thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 64 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_buffers() {}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
