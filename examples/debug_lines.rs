//! Follows the printed lines from given corners on a picture and prints what was found, for
//! looking into a grid cut a cell off. `cargo run --release --example debug_lines -- PHOTO x0 y0 x1 y1 x2 y2 x3 y3 [OUT.png]`

use opencv::core::{Mat, Vector};
use opencv::{imgcodecs, imgproc};
use sudoku_ar::geometry::Quad;
use sudoku_ar::recognize::cells;
use sudoku_ar::recognize::detect::Edge;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let image = sudoku_ar::photo::load_image(std::path::Path::new(&args[1]))?;
    let v: Vec<f64> = args[2..10]
        .iter()
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let quad = Quad([[v[0], v[1]], [v[2], v[3]], [v[4], v[5]], [v[6], v[7]]]);
    let mut gray = Mat::default();
    imgproc::cvt_color(&image, &mut gray, imgproc::COLOR_BGR2GRAY, 0)?;
    match cells::rectify_along_lines(&gray, &quad, Edge::Line)? {
        Some(fitted) => {
            println!(
                "lines: {:?} border seen {:?}",
                fitted.lattice.corners(),
                fitted.border_seen
            );
            if std::env::var_os("LATTICE").is_some() {
                // Every crossing, row line by row line: for comparing with a truth lattice.
                println!("{:?}", fitted.lattice.0);
            }
            if let Some(out) = args.get(10) {
                imgcodecs::imwrite(out, &fitted.rectified, &Vector::new())?;
            }
        }
        None => println!("lines not followed"),
    }
    Ok(())
}
