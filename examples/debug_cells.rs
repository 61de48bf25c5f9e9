//! Saves the grid as the reader sees it (cut along the printed lines when they can be followed),
//! for looking into a misread photo. `cargo run --release --example debug_cells -- PHOTO OUT.png`

use opencv::core::{Mat, Vector};
use opencv::{imgcodecs, imgproc};
use sudoku_ar::recognize::{cells, detect};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (input, output) = (&args[1], &args[2]);
    let image = sudoku_ar::photo::load_image(std::path::Path::new(input))?;
    let mut gray = Mat::default();
    imgproc::cvt_color(&image, &mut gray, imgproc::COLOR_BGR2GRAY, 0)?;
    let Some(found) = detect::find_grid(&gray, detect::Look::Only)? else {
        anyhow::bail!("{input}: no grid found");
    };
    let mut negative = Mat::default();
    let gray = found.ink.as_dark(&gray, &mut negative)?;
    println!("detected: {:?} ({:?})", found.quad, found.ink);
    let rectified = match cells::rectify_along_lines(gray, &found.quad, found.edge)? {
        Some(fitted) => {
            println!(
                "cut along the lines; border at {:?}",
                fitted.lattice.corners()
            );
            fitted.rectified
        }
        None => {
            println!("lines not followed; cut by the corners");
            cells::rectify(gray, &found.quad)?
        }
    };
    imgcodecs::imwrite(output, &rectified, &Vector::new())?;
    Ok(())
}
