//! Draws every grid candidate the detector considers, with its score, for tuning detection.
//! `cargo run --release --example debug_detect -- PHOTO OUT.png`

use opencv::core::{Mat, Point, Scalar, Vector};
use opencv::prelude::*;
use opencv::{imgcodecs, imgproc};
use sudoku_ar::recognize::detect;

fn main() -> anyhow::Result<()> {
    // RUST_LOG=sudoku_ar=trace shows each candidate's grid score by part.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = &args[..] else {
        anyhow::bail!("usage: debug_detect PHOTO OUT.png");
    };
    let mut image = sudoku_ar::photo::load_image(std::path::Path::new(input))?;
    let mut gray = Mat::default();
    imgproc::cvt_color(&image, &mut gray, imgproc::COLOR_BGR2GRAY, 0)?;
    let scale = (gray.cols().max(gray.rows()) as f64 / detect::WORK_SIDE).max(1.0);
    let mut small = Mat::default();
    let size = opencv::core::Size::new(
        (gray.cols() as f64 / scale) as i32,
        (gray.rows() as f64 / scale) as i32,
    );
    imgproc::resize(&gray, &mut small, size, 0.0, 0.0, imgproc::INTER_AREA)?;
    for (i, quad) in detect::outline_candidates(&small)?.iter().enumerate() {
        let score = detect::grid_score(&small, quad, detect::Look::Only)?;
        let in_video = detect::grid_score(&small, quad, detect::Look::OneOfMany)?;
        println!(
            "candidate {i}: score {score:.3} (as a video frame {in_video:.3}) {:?}",
            quad.scaled(scale)
        );
        let points: Vector<Point> = quad
            .scaled(scale)
            .0
            .iter()
            .map(|p| Point::new(p[0] as i32, p[1] as i32))
            .collect();
        let colour = if score >= detect::MIN_GRID_SCORE {
            Scalar::new(0.0, 200.0, 0.0, 0.0)
        } else {
            Scalar::new(0.0, 0.0, 255.0, 0.0)
        };
        imgproc::polylines(&mut image, &points, true, colour, 3, imgproc::LINE_8, 0)?;
        imgproc::put_text(
            &mut image,
            &format!("{i}:{score:.2}"),
            points.get(0)?,
            imgproc::FONT_HERSHEY_SIMPLEX,
            1.5,
            colour,
            3,
            imgproc::LINE_8,
            false,
        )?;
    }
    println!("found: {:?}", detect::find_grid(&gray, detect::Look::Only)?);
    println!(
        "found as a video frame: {:?}",
        detect::find_grid(&gray, detect::Look::OneOfMany)?
    );
    imgcodecs::imwrite(output, &image, &Vector::new())?;
    Ok(())
}
