//! Time-boxed exploration of the texture reader (`decode_rgba` and the statistics behind it) on
//! stable Rust: mutants of small PNG, TGA (raw and run-length) and JPEG seeds must never panic,
//! and an accepted image must be within the documented limits with finite statistics.
//! `EXPLORE_SECONDS=600 cargo test -p assetstats --test explore_textures` runs longer (see the
//! `explore` crate).

mod common;

use std::io::Cursor;
use std::path::Path;

use assetstats::{decode_rgba, TextureStats, MAX_DIMENSION};
use explore::{explore, Budget, Mode, Verdict};
use image::ImageFormat;

fn encoded(format: ImageFormat, size: u32) -> Vec<u8> {
    let img = common::render(size, common::gaussian(0.2));
    let mut bytes = Cursor::new(Vec::new());
    match format {
        ImageFormat::Jpeg => image::DynamicImage::ImageRgba8(img).to_rgb8().write_to(&mut bytes, format),
        _ => img.write_to(&mut bytes, format),
    }
    .expect("encode seed");
    bytes.into_inner()
}

/// A 4 x 2 grey run-length TGA: one run and one raw packet.
fn rle_tga() -> Vec<u8> {
    let mut t = vec![0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 2, 0, 8, 0x20];
    t.extend_from_slice(&[0x83, 200, 0x03, 1, 2, 3, 4]);
    t
}

fn check(bytes: &[u8]) -> Verdict {
    // Magic bytes pick PNG and JPEG; anything else is read as the TGA the name says.
    let Ok(img) = decode_rgba(bytes, Path::new("mutant.tga")) else { return Ok(false) };
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 || w > MAX_DIMENSION || h > MAX_DIMENSION {
        return Err(format!("accepted a {w}x{h} image"));
    }
    let stats = TextureStats::from_rgba(&img).map_err(|e| format!("decoded but not measurable: {e}"))?;
    let numbers = [stats.mean_alpha, stats.edge_energy, stats.color_variance, stats.softness];
    if numbers.iter().any(|x| !x.is_finite()) {
        return Err(format!("non-finite statistics {numbers:?}"));
    }
    Ok(true)
}

#[test]
fn mutated_textures_never_panic_and_accepted_ones_are_in_range() {
    let seeds = vec![
        encoded(ImageFormat::Png, 16),
        encoded(ImageFormat::Tga, 16),
        encoded(ImageFormat::Jpeg, 16),
        rle_tga(),
    ];
    let summary = explore("textures", &seeds, Mode::Bytes, Budget::from_env(), check);
    println!("{summary:?}");
    assert!(summary.accepted >= seeds.len() as u64, "the seeds themselves were refused: {summary:?}");
}
