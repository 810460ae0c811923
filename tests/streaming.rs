//! Streaming writers: band-by-band output equals a whole write, and an unfinished or failed
//! write leaves nothing behind.

use std::path::{Path, PathBuf};

use noisegraph::io::{is_complete, read_npy, write_field, Format, StreamWriter};
use noisegraph::Field;

fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("streaming")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ramp(w: u32, h: u32) -> Field {
    Field::new(
        w,
        h,
        1,
        (0..w * h)
            .map(|i| (i as f32 / (w * h) as f32) * 2.0 - 1.0)
            .collect(),
    )
}

/// The samples of an EXR file's one channel, `Y`.
fn exr_y(path: &Path) -> Vec<f32> {
    let image = exr::prelude::read_all_flat_layers_from_file(path).unwrap();
    let channels = &image.layer_data[0].channel_data.list;
    assert_eq!(channels.len(), 1);
    assert_eq!(channels[0].name.to_string(), "Y");
    channels[0].sample_data.values_as_f32().collect()
}

#[test]
fn bands_equal_a_whole_write_in_every_format() {
    let dir = workdir("bands");
    let field = ramp(37, 23);
    for (format, ext) in [
        (Format::Npy, "npy"),
        (Format::Png, "png"),
        (Format::Png16, "png"),
        (Format::Exr, "exr"),
    ] {
        let whole = dir.join(format!("whole_{}.{ext}", format.name()));
        let banded = dir.join(format!("banded_{}.{ext}", format.name()));
        write_field(&field, &whole, format, (-1.0, 1.0)).unwrap();
        let mut w = StreamWriter::create(&banded, format, [37, 23, 1], (-1.0, 1.0)).unwrap();
        for band in field.data.chunks(37 * 5) {
            w.write_rows(band).unwrap();
        }
        w.finish().unwrap();
        assert!(
            is_complete(&banded, format, [37, 23, 1]),
            "{}",
            format.name()
        );
        match format {
            Format::Npy => assert_eq!(read_npy(&banded).unwrap(), field),
            Format::Exr => assert_eq!(exr_y(&banded), field.data),
            _ => assert_eq!(
                image::open(&banded).unwrap().into_rgba32f().into_raw(),
                image::open(&whole).unwrap().into_rgba32f().into_raw(),
                "{}",
                format.name()
            ),
        }
    }
}

#[test]
fn an_unfinished_writer_leaves_no_file() {
    let dir = workdir("unfinished");
    let path = dir.join("x.npy");
    let mut w = StreamWriter::create(&path, Format::Npy, [8, 8, 1], (0.0, 1.0)).unwrap();
    w.write_rows(&[0.5; 8 * 3]).unwrap();
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "a temporary file while writing"
    );
    drop(w);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // Finishing with rows missing is an error and also leaves nothing.
    let mut w = StreamWriter::create(&path, Format::Png, [8, 8, 1], (0.0, 1.0)).unwrap();
    w.write_rows(&[0.5; 8 * 3]).unwrap();
    assert!(w.finish().is_err());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // Rows that are not whole are refused.
    let mut w = StreamWriter::create(&path, Format::Npy, [8, 8, 1], (0.0, 1.0)).unwrap();
    assert!(w.write_rows(&[0.5; 5]).is_err());
}

#[test]
fn completeness_checks_size_and_trailer() {
    let dir = workdir("complete");
    let field = ramp(10, 6);
    let npy = dir.join("a.npy");
    write_field(&field, &npy, Format::Npy, (-1.0, 1.0)).unwrap();
    assert!(is_complete(&npy, Format::Npy, [10, 6, 1]));
    assert!(!is_complete(&npy, Format::Npy, [6, 10, 1]));
    let png = dir.join("a.png");
    write_field(&field, &png, Format::Png, (-1.0, 1.0)).unwrap();
    assert!(is_complete(&png, Format::Png, [10, 6, 1]));
    assert!(!is_complete(&png, Format::Png, [10, 7, 1]));
    let bytes = std::fs::read(&png).unwrap();
    std::fs::write(&png, &bytes[..bytes.len() - 1]).unwrap();
    assert!(!is_complete(&png, Format::Png, [10, 6, 1]));
    assert!(!is_complete(&dir.join("none.png"), Format::Png, [10, 6, 1]));
}
