//! The `sudoku-ar` binary as a user runs it: the JSON contract and bad input.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use opencv::core::{CV_8UC3, Mat, Scalar, Vector};
use opencv::imgcodecs;
use opencv::prelude::*;

const BUNDLED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/photos/newspaper.jpg");

fn sudoku_ar(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sudoku-ar"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sudoku-ar");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn write_image(path: &Path, width: i32, height: i32) {
    let image =
        Mat::new_rows_cols_with_default(height, width, CV_8UC3, Scalar::all(200.0)).unwrap();
    assert!(imgcodecs::imwrite(path.to_str().unwrap(), &image, &Vector::new()).unwrap());
}

#[test]
fn solve_answers_each_line_in_order() {
    let input = "\
# a comment, then a blank line

000000010400000000020000000000050407008000300001090000300400200050100000000806000
110000000000000000000000000000000000000000000000000000000000000000000000000000000
..9.287..8.6..4..5..3.....46.........2.71345.........23.....5..9..4..8.7..125.3..
000000000000000000000000000000000000000000000000000000000000000000000000000000000
12345
";
    let out = sudoku_ar(&["solve"], input);
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    assert_eq!(
        lines[0],
        "693784512487512936125963874932651487568247391741398625319475268856129743274836159"
    );
    assert!(
        lines[1].starts_with("stdin:4: invalid clues: digit 1 appears twice in one row"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "stdin:5: no solution");
    assert_eq!(lines[3], "stdin:6: more than one solution");
    assert_eq!(lines[4], "stdin:7: expected 81 cells, found 5");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn solve_reads_grids_typed_as_nine_rows_and_dash_as_standard_input() {
    // As printed in a book or pasted from a forum: spaces and bars between cells, rules between
    // boxes; then a grid cut short, and a puzzle on one line after it.
    let input = "\
5 3 . | . 7 . | . . .
6 . . | 1 9 5 | . . .
. 9 8 | . . . | . 6 .
------+-------+------
8 . . | . 6 . | . . 3
4 . . | 8 . 3 | . . 1
7 . . | . 2 . | . . 6
------+-------+------
. 6 . | . . . | 2 8 .
. . . | 4 1 9 | . . 5
. . . | . 8 . | . 7 9

530070000
600195000
000000010400000000020000000000050407008000300001090000300400200050100000000806000
";
    let out = sudoku_ar(&["solve", "-"], input);
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179",
            "stdin:13: expected 9 rows of 9 cells, found 2",
            "693784512487512936125963874932651487568247391741398625319475268856129743274836159",
        ],
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn solve_reads_rows_typed_as_in_a_spreadsheet_or_a_json_array() {
    // A CSV file of 9 rows; a JSON array of rows on one line, and spread over lines.
    let rows = [
        "5,3,0,0,7,0,0,0,0",
        "6,0,0,1,9,5,0,0,0",
        "0,9,8,0,0,0,0,6,0",
        "8,0,0,0,6,0,0,0,3",
        "4,0,0,8,0,3,0,0,1",
        "7,0,0,0,2,0,0,0,6",
        "0,6,0,0,0,0,2,8,0",
        "0,0,0,4,1,9,0,0,5",
        "0,0,0,0,8,0,0,7,9",
    ];
    let csv = rows.join("\n");
    let array: Vec<String> = rows.iter().map(|r| format!("[{r}]")).collect();
    let one_line = format!("[{}]", array.join(","));
    let spread = format!("[\n  {}\n]", array.join(",\n  "));
    let input = format!("{csv}\n\n{one_line}\n\n{spread}\n");
    let out = sudoku_ar(&["solve", "-"], &input);
    let stdout = text(&out.stdout);
    let solution =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        [solution; 3],
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn solve_reads_a_file_and_names_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("puzzles.txt");
    std::fs::write(
        &file,
        "000000010400000000020000000000050407008000300001090000300400200050100000000806000\n",
    )
    .unwrap();
    let out = sudoku_ar(&["solve", file.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim().len(), 81);

    // One puzzle typed as the argument instead of a file's name.
    let out = sudoku_ar(
        &[
            "solve",
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        "693784512487512936125963874932651487568247391741398625319475268856129743274836159"
    );
    let out = sudoku_ar(
        &[
            "solve",
            "..9.287..8.6..4..5..3.....46.........2.71345.........23.....5..9..4..8.7..125.3..",
        ],
        "",
    );
    assert_eq!(text(&out.stdout).trim(), "the puzzle given:1: no solution");
    // Empty cells typed as other sites print them.
    let out = sudoku_ar(
        &[
            "solve",
            "_______1_4_________2___________5_4_7__8___3____1_9____3__4__2___5_1________8_6___",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        "693784512487512936125963874932651487568247391741398625319475268856129743274836159"
    );
    let out = sudoku_ar(&["solve", "000000010400"], "");
    assert_eq!(
        text(&out.stdout).trim(),
        "the puzzle given:1: expected 81 cells, found 12"
    );
    assert_eq!(out.status.code(), Some(1));

    let out = sudoku_ar(&["solve", "/no/such/puzzles.txt"], "");
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("/no/such/puzzles.txt") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn image_reads_every_photo_in_a_folder_and_its_subfolders_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    std::fs::create_dir_all(photos.join("week 2")).unwrap();
    std::fs::copy(BUNDLED, photos.join("b.JPG")).unwrap();
    std::fs::copy(BUNDLED, photos.join("week 2").join("a.jpg")).unwrap();
    write_image(&photos.join("a.png"), 640, 480);
    std::fs::write(photos.join("notes.txt"), "not a photo").unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = sudoku_ar(
        &[
            "image",
            "--json",
            photos.to_str().unwrap(),
            empty.to_str().unwrap(),
        ],
        "",
    );
    let stdout = text(&out.stdout);
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let files: Vec<&str> = rows.iter().map(|r| r["file"].as_str().unwrap()).collect();
    let under = |name: &str| photos.join(name).display().to_string();
    let expected = [
        under("a.png"),
        under("b.JPG"),
        under("week 2/a.jpg"),
        empty.display().to_string(),
    ];
    assert_eq!(files, expected, "{stdout}");
    assert_eq!(rows[1]["puzzle"]["status"], "solved");
    assert_eq!(rows[2]["puzzle"]["status"], "solved");
    // A blank picture has no puzzle; a folder with no photos is said to be no photo.
    assert!(rows[0]["puzzle"].is_null(), "{}", rows[0]);
    assert!(rows[3]["error"].is_string(), "{}", rows[3]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn image_reads_a_gif_as_it_reads_the_same_page_as_jpeg() {
    // The bundled newspaper page, grey, saved as GIF (256 levels, as a web page would).
    let page = imgcodecs::imread(BUNDLED, imgcodecs::IMREAD_GRAYSCALE).unwrap();
    let (width, height) = (page.cols() as u32, page.rows() as u32);
    let levels = page.data_bytes().unwrap().to_vec();
    let gray = image::GrayImage::from_raw(width, height, levels).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let gif = dir.path().join("page.gif");
    image::DynamicImage::ImageLuma8(gray)
        .to_rgba8()
        .save_with_format(&gif, image::ImageFormat::Gif)
        .unwrap();
    let solution = |path: &str| {
        let out = sudoku_ar(&["image", "--json", path], "");
        let row: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
        assert_eq!(row["puzzle"]["status"], "solved", "{path}: {row}");
        row["puzzle"]["solution"].clone()
    };
    assert_eq!(solution(gif.to_str().unwrap()), solution(BUNDLED));
}

#[test]
fn image_reads_a_transparent_png_as_it_reads_the_same_page_as_jpeg() {
    // A puzzle exported from a web page: the ink opaque, the paper transparent, and what lies
    // under the transparent pixels black (it was read as all black: "too dark"), or the ink
    // white for a dark page.
    let page = imgcodecs::imread(BUNDLED, imgcodecs::IMREAD_GRAYSCALE).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let solution = |path: &str| {
        let out = sudoku_ar(&["image", "--json", path], "");
        let row: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
        assert_eq!(row["puzzle"]["status"], "solved", "{path}: {row}");
        row["puzzle"]["solution"].clone()
    };
    let jpeg = solution(BUNDLED);
    for (name, ink) in [("black-ink.png", 0u8), ("white-ink.png", 255)] {
        let mut bgra = Mat::new_rows_cols_with_default(
            page.rows(),
            page.cols(),
            opencv::core::CV_8UC4,
            Scalar::all(0.0),
        )
        .unwrap();
        let levels = page.data_bytes().unwrap();
        for (pixel, &level) in bgra
            .data_bytes_mut()
            .unwrap()
            .chunks_exact_mut(4)
            .zip(levels)
        {
            pixel.copy_from_slice(&[ink, ink, ink, 255 - level]);
        }
        let path = dir.path().join(name);
        assert!(imgcodecs::imwrite(path.to_str().unwrap(), &bgra, &Vector::new()).unwrap());
        assert_eq!(solution(path.to_str().unwrap()), jpeg, "{name}");
    }
}

#[test]
fn image_reads_heic_avif_and_animated_webp_as_it_reads_the_same_page_as_jpeg() {
    // iPhones save HEIC, AVIF is common on the web, a chat's picture may be an animated WebP
    // (its first frame is read); the Debian OpenCV reads none of them. The bundled page is
    // converted by ImageMagick (installed by .ci/setup), not by sudoku-ar.
    let dir = tempfile::tempdir().unwrap();
    let convert = |args: &[&str], out: &str| {
        let status = Command::new("convert")
            .args(args)
            .arg(dir.path().join(out))
            .status()
            .expect("run ImageMagick's convert");
        assert!(status.success(), "convert {out}");
    };
    convert(&[BUNDLED, "-quality", "90"], "page.heic");
    convert(&[BUNDLED, "-quality", "90"], "page.avif");
    convert(
        &[
            "-delay", "50", BUNDLED, "(", BUNDLED, "-rotate", "20", ")", "-loop", "0",
        ],
        "page-animated.webp",
    );
    // Not a picture libheif can read, for all its HEIF header.
    let mut broken = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic".to_vec();
    broken.extend_from_slice(&[0x5a; 300]);
    std::fs::write(dir.path().join("broken.heic"), broken).unwrap();

    let jpeg = sudoku_ar(&["image", "--json", BUNDLED], "");
    let jpeg: serde_json::Value = serde_json::from_str(text(&jpeg.stdout).trim()).unwrap();
    // The folder stands for the four, by name.
    let out = sudoku_ar(&["image", "--json", dir.path().to_str().unwrap()], "");
    let stdout = text(&out.stdout);
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    assert!(rows[0]["file"].as_str().unwrap().ends_with("broken.heic"));
    let error = rows[0]["error"].as_str().unwrap();
    assert!(
        error.contains("broken.heic") && error.contains("HEIF") && !error.contains('\n'),
        "{error}"
    );
    for row in &rows[1..] {
        assert_eq!(row["puzzle"]["status"], "solved", "{row}");
        assert_eq!(
            row["puzzle"]["solution"], jpeg["puzzle"]["solution"],
            "{row}"
        );
    }
    assert_eq!(
        out.status.code(),
        Some(1),
        "the broken file counts as failed"
    );
}

#[test]
fn image_writes_each_photo_drawn_in_under_its_own_name() {
    // Photos of the same name in two subfolders, or as JPEG and PNG, or one given twice: one
    // copy each, the folders' layout kept (before, each overwrote the one before).
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("photos");
    std::fs::create_dir_all(photos.join("week 2")).unwrap();
    std::fs::copy(BUNDLED, photos.join("a.jpg")).unwrap();
    std::fs::copy(BUNDLED, photos.join("a.png")).unwrap();
    std::fs::copy(BUNDLED, photos.join("week 2").join("a.jpg")).unwrap();
    let out_dir = dir.path().join("annotated");
    let out = sudoku_ar(
        &[
            "image",
            "--json",
            "--output",
            out_dir.to_str().unwrap(),
            photos.to_str().unwrap(),
            BUNDLED,
            BUNDLED,
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names = [
        "a.jpg",
        "a-2.jpg",
        "week 2/a.jpg",
        "newspaper.jpg",
        "newspaper-2.jpg",
    ];
    assert_eq!(rows.len(), names.len(), "{stdout}");
    // In the order read (a.jpg, a.png, week 2/a.jpg, the bundled photo twice), each says
    // where it was written.
    for (row, name) in rows.iter().zip(names) {
        let written = out_dir.join(name);
        assert!(written.is_file(), "{name} not written");
        assert_eq!(row["written"], written.display().to_string(), "{row}");
    }
}

#[test]
fn image_json_keeps_order_and_reports_each_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jpg");
    std::fs::write(&empty, b"").unwrap();
    let garbage = dir.path().join("garbage.png");
    std::fs::write(&garbage, b"\x89PNG\r\n\x1a\n but then nothing useful").unwrap();
    let truncated = dir.path().join("truncated.jpg");
    let bundled = std::fs::read(BUNDLED).unwrap();
    std::fs::write(&truncated, &bundled[..bundled.len() / 3]).unwrap();
    let tiny = dir.path().join("tiny.png");
    write_image(&tiny, 8, 8);
    let blank = dir.path().join("blank.png");
    write_image(&blank, 640, 480);
    // The bundled page at a twentieth of its light: its paper at about 10 of 255.
    let dark = dir.path().join("dark.png");
    let page = imgcodecs::imread(BUNDLED, imgcodecs::IMREAD_COLOR).unwrap();
    let mut darkened = Mat::default();
    page.convert_to(&mut darkened, -1, 0.05, 0.0).unwrap();
    assert!(imgcodecs::imwrite(dark.to_str().unwrap(), &darkened, &Vector::new()).unwrap());
    let out_dir = dir.path().join("annotated");

    let files = [
        BUNDLED,
        "/no/such/photo.jpg",
        empty.to_str().unwrap(),
        garbage.to_str().unwrap(),
        tiny.to_str().unwrap(),
        blank.to_str().unwrap(),
        truncated.to_str().unwrap(),
        dark.to_str().unwrap(),
    ];
    let mut args = vec!["image", "--json", "--output", out_dir.to_str().unwrap()];
    args.extend(files);
    let out = sudoku_ar(&args, "");
    assert_eq!(
        out.status.code(),
        Some(1),
        "bad files make the exit code non-zero"
    );
    let stdout = text(&out.stdout);
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), files.len(), "{stdout}");
    for (row, file) in rows.iter().zip(files) {
        assert_eq!(row["file"], file);
    }

    let puzzle = &rows[0]["puzzle"];
    assert_eq!(puzzle["status"], "solved");
    assert_eq!(puzzle["clues"].as_str().unwrap().len(), 81);
    assert_eq!(puzzle["solution"].as_str().unwrap().len(), 81);
    assert_eq!(puzzle["corners"].as_array().unwrap().len(), 4);
    assert!(out_dir.join("newspaper.jpg").is_file());

    for (i, needle) in [
        (1, "no such file"),
        (2, "not an image"),
        (3, "not an image"),
        (4, "too small"),
        (6, "cut short"),
        (7, "too dark"),
    ] {
        let error = rows[i]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("row {i}: {}", rows[i]));
        assert!(
            error.contains(needle) && error.contains(files[i]),
            "row {i}: {error}"
        );
        assert!(!error.contains('\n'));
    }
    assert_eq!(
        rows[5]["puzzle"],
        serde_json::Value::Null,
        "a blank picture has no puzzle"
    );
    // A truncated JPEG decodes partly, its bottom gray: with no puzzle in the top third it is
    // said to be cut short (it was "no Sudoku found" before session 72).
    assert!(!text(&out.stderr).contains("panicked"));
}

#[test]
fn image_reports_every_puzzle_in_a_picture() {
    let dir = tempfile::tempdir().unwrap();
    let photo = imgcodecs::imread(BUNDLED, imgcodecs::IMREAD_COLOR).unwrap();
    let mut pair = Mat::default();
    opencv::core::hconcat2(&photo, &photo, &mut pair).unwrap();
    let path = dir.path().join("Two_Pages.png");
    assert!(imgcodecs::imwrite(path.to_str().unwrap(), &pair, &Vector::new()).unwrap());
    let file = path.to_str().unwrap();

    let out = sudoku_ar(&["image", "--json", file], "");
    let row: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    let (first, others) = (&row["puzzle"], row["others"].as_array().unwrap());
    assert_eq!(others.len(), 1, "{row}");
    assert_eq!(first["status"], "solved");
    assert_eq!(others[0]["solution"], first["solution"]);
    // The same grid, one photo's width apart.
    let x = |p: &serde_json::Value| p["corners"][0][0].as_f64().unwrap();
    let offset = (x(&others[0]) - x(first)).abs();
    assert!((offset - photo.cols() as f64).abs() < 3.0, "{row}");

    let out = sudoku_ar(&["image", file], "");
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with(&format!("{file}: solved")),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with(&format!("{file} (puzzle 2): solved")),
        "{lines:?}"
    );
}

#[test]
fn huge_picture_is_handled() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.jpg");
    write_image(&huge, 9000, 9000);
    let out = sudoku_ar(&["image", "--json", huge.to_str().unwrap()], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let row: serde_json::Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(row["puzzle"], serde_json::Value::Null);
}

#[test]
fn corrupt_model_and_missing_runtime_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("broken.onnx");
    std::fs::write(&model, b"definitely not onnx").unwrap();
    let out = sudoku_ar(&["image", "--model", model.to_str().unwrap(), BUNDLED], "");
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("broken.onnx") && stderr.lines().count() == 1,
        "{stderr}"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_sudoku-ar"))
        .args(["image", BUNDLED])
        .env("ORT_DYLIB_PATH", "/no/such/libonnxruntime.so")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("ONNX Runtime")
            && stderr.contains(".ci/setup")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn help_describes_the_commands() {
    let out = sudoku_ar(&["--help"], "");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("image") && stdout.contains("solve"),
        "{stdout}"
    );
    let out = sudoku_ar(&["image", "--help"], "");
    assert!(text(&out.stdout).contains("--json"));
}
