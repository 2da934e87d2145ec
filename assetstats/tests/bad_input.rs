//! Untrusted files: every bad input is an error naming the file, never a panic.

mod common;

use std::io::Cursor;
use std::path::{Path, PathBuf};

use assetstats::{decode_rgba, stats_for_file, AssetError, TextureStats, MAX_DIMENSION};
use image::{ImageFormat, RgbaImage};

/// A scratch directory unique to this test binary and test.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("assetstats-bad-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Encodes an image in memory.
fn encode(img: &RgbaImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    match format {
        // JPEG has no alpha channel.
        ImageFormat::Jpeg => {
            image::DynamicImage::ImageRgba8(img.clone()).into_rgb8().write_to(&mut out, format)
        }
        _ => img.write_to(&mut out, format),
    }
    .expect("encode test image");
    out.into_inner()
}

/// CRC-32 (IEEE) of the bytes, as PNG chunks need.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A PNG signature and a valid IHDR chunk claiming `width` x `height` RGBA8, then nothing.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut chunk = b"IHDR".to_vec();
    chunk.extend_from_slice(&width.to_be_bytes());
    chunk.extend_from_slice(&height.to_be_bytes());
    chunk.extend_from_slice(&[8, 6, 0, 0, 0]); // 8-bit RGBA, deflate, adaptive filter, no interlace
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend_from_slice(&13u32.to_be_bytes());
    png.extend_from_slice(&chunk);
    png.extend_from_slice(&crc32(&chunk).to_be_bytes());
    png
}

/// An 18-byte uncompressed true-colour TGA header with the given size, then `pixels` bytes.
fn tga(width: u16, height: u16, pixels: &[u8]) -> Vec<u8> {
    let mut t = vec![0u8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    t.extend_from_slice(&width.to_le_bytes());
    t.extend_from_slice(&height.to_le_bytes());
    t.extend_from_slice(&[32, 8]); // 32 bits per pixel, 8 alpha bits
    t.extend_from_slice(pixels);
    t
}

/// The error's message names the file.
fn assert_names_file(err: &AssetError, file: &Path) {
    let text = err.to_string();
    assert!(text.contains(&file.display().to_string()), "error {text:?} does not name {}", file.display());
}

#[test]
fn png_header_claiming_5000_square_is_refused_before_decoding() {
    let file = Path::new("huge.png");
    let err = decode_rgba(&png_header(5000, 5000), file).expect_err("5000x5000 must be refused");
    assert!(
        matches!(err, AssetError::TooLarge { width: 5000, height: 5000, max, .. } if max == MAX_DIMENSION),
        "{err}"
    );
    assert_names_file(&err, file);
}

#[test]
fn one_side_over_the_limit_is_refused() {
    let err = decode_rgba(&png_header(64, MAX_DIMENSION + 1), Path::new("tall.png")).expect_err("too tall");
    assert!(matches!(err, AssetError::TooLarge { .. }), "{err}");
}

#[test]
fn zero_size_images_are_refused() {
    let empty = RgbaImage::new(0, 0);
    assert!(matches!(TextureStats::from_rgba(&empty), Err(AssetError::ZeroSize { .. })));
    let no_rows = RgbaImage::new(16, 0);
    assert!(matches!(TextureStats::from_rgba(&no_rows), Err(AssetError::ZeroSize { .. })));
    let file = Path::new("empty.tga");
    let err = decode_rgba(&tga(0, 0, &[]), file).expect_err("0x0 TGA");
    assert!(matches!(err, AssetError::ZeroSize { .. } | AssetError::Decode { .. }), "{err}");
    assert_names_file(&err, file);
    let file = Path::new("empty.png");
    let err = decode_rgba(&png_header(0, 0), file).expect_err("0x0 PNG");
    assert_names_file(&err, file);
}

#[test]
fn truncated_files_are_decode_errors() {
    let img = common::render(64, common::gaussian(0.15));
    for (format, name) in
        [(ImageFormat::Png, "cut.png"), (ImageFormat::Tga, "cut.tga"), (ImageFormat::Jpeg, "cut.jpg")]
    {
        let bytes = encode(&img, format);
        let file = Path::new(name);
        assert!(decode_rgba(&bytes, file).is_ok(), "{name}: the whole file decodes");
        let err = decode_rgba(&bytes[..bytes.len() / 2], file).expect_err("half a file");
        assert!(matches!(err, AssetError::Decode { .. }), "{name}: {err}");
        assert_names_file(&err, file);
    }
}

#[test]
fn every_prefix_of_a_file_is_refused_in_one_line_without_panic() {
    let img = common::render(32, common::disc(0.3));
    for (format, name) in [
        (ImageFormat::Png, "prefix.png"),
        (ImageFormat::Tga, "prefix.tga"),
        (ImageFormat::Jpeg, "prefix.jpg"),
    ] {
        let bytes = encode(&img, format);
        for len in (0..bytes.len()).step_by(7) {
            let err = decode_rgba(&bytes[..len], Path::new(name)).expect_err("a prefix");
            // One line: the decoders' own texts may end in a newline, which is not kept.
            let text = err.to_string();
            assert!(!text.ends_with(char::is_whitespace), "{name}: prefix {len}: {text:?}");
        }
    }
}

#[test]
fn corrupted_bytes_are_handled_without_panic() {
    let img = common::render(32, common::star());
    let mut rng = common::Rng::new(5);
    for (format, name) in [(ImageFormat::Png, "flip.png"), (ImageFormat::Tga, "flip.tga")] {
        let good = encode(&img, format);
        for _ in 0..200 {
            let mut bad = good.clone();
            let at = (rng.next_f32() * bad.len() as f32) as usize;
            bad[at] ^= 1 << ((rng.next_f32() * 8.0) as u32);
            // Either an error or a valid image within the limit: never a panic.
            if let Ok(decoded) = decode_rgba(&bad, Path::new(name)) {
                assert!(decoded.width() <= MAX_DIMENSION && decoded.height() <= MAX_DIMENSION);
            }
        }
    }
}

#[test]
fn garbage_bytes_are_refused() {
    let mut rng = common::Rng::new(99);
    let garbage: Vec<u8> = (0..4096).map(|_| (rng.next_f32() * 256.0) as u8).collect();
    let file = Path::new("garbage.png");
    let err = decode_rgba(&garbage, file).expect_err("garbage");
    assert!(matches!(err, AssetError::Decode { .. }), "{err}");
    assert_names_file(&err, file);
    // Same bytes under a name that gives no format: unsupported, not a crash.
    let err = decode_rgba(&garbage, Path::new("garbage.bin")).expect_err("garbage");
    assert!(matches!(err, AssetError::UnsupportedFormat { .. }), "{err}");
}

#[test]
fn unsupported_formats_are_named() {
    let gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".to_vec();
    let err = decode_rgba(&gif, Path::new("spark.gif")).expect_err("GIF");
    assert!(matches!(&err, AssetError::UnsupportedFormat { format, .. } if format.contains("Gif")), "{err}");
    let mut bmp = b"BM".to_vec();
    bmp.extend_from_slice(&[0u8; 60]);
    let err = decode_rgba(&bmp, Path::new("spark.png")).expect_err("BMP named .png");
    assert!(matches!(err, AssetError::UnsupportedFormat { .. }), "{err}");
    // The viewer's own asset format is recognised and refused by name.
    let j2c = [0xFF, 0x4F, 0xFF, 0x51, 0, 0x2F, 0, 0];
    let err = decode_rgba(&j2c, Path::new("pixiesmall.j2c")).expect_err("JPEG 2000");
    assert!(err.to_string().contains("JPEG 2000"), "{err}");
}

#[test]
fn missing_and_oversized_files_are_io_errors() {
    let dir = scratch_dir("io");
    let missing = dir.join("nope.png");
    let err = stats_for_file(&missing).expect_err("missing file");
    assert!(matches!(err, AssetError::Io { .. }), "{err}");
    assert_names_file(&err, &missing);
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn grey_and_rgb_files_are_opaque_and_shaped() {
    let dir = scratch_dir("opaque");
    let soft = common::render(64, common::gaussian(0.15));
    // A grey image whose luminance is the soft blob: the viewer draws it as an opaque card.
    let grey = image::GrayImage::from_fn(64, 64, |x, y| image::Luma([soft.get_pixel(x, y)[3]]));
    let grey_path = dir.join("grey.png");
    grey.save(&grey_path).expect("write grey png");
    let jpeg_path = dir.join("blob.jpg");
    std::fs::write(&jpeg_path, encode(&soft, ImageFormat::Jpeg)).expect("write jpeg");
    for path in [grey_path, jpeg_path] {
        let stats = stats_for_file(&path).expect("valid file");
        assert!((stats.mean_alpha - 1.0).abs() < 1e-6, "{}: alpha 255 everywhere", path.display());
        assert_eq!(stats.shape, assetstats::Shape::Shaped, "{}", path.display());
        assert!(stats.reasons.iter().any(|r| r.starts_with("border_alpha")), "{:?}", stats.reasons);
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// A 4 x 2 grey run-length-encoded TGA (type 11, 8 bits, top-left origin) whose packets follow.
fn grey_rle_tga(packets: &[u8]) -> Vec<u8> {
    let mut t = vec![0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 2, 0, 8, 0x20];
    t.extend_from_slice(packets);
    t
}

#[test]
fn a_tga_whose_run_length_packets_overrun_the_image_is_refused() {
    // Two runs of 4 pixels: exactly the 8 pixels the header declares.
    let exact = decode_rgba(&grey_rle_tga(&[0x83, 200, 0x83, 50]), Path::new("ok.tga")).expect("well-formed");
    assert_eq!((exact.width(), exact.height(), exact.get_pixel(0, 1)[0]), (4, 2, 50));
    // The second run claims 100 pixels: 96 past the end of the image.
    let err = decode_rgba(&grey_rle_tga(&[0x83, 200, 0xE3, 50]), Path::new("overrun.tga"))
        .expect_err("overrunning packet");
    assert!(matches!(err, AssetError::Decode { .. }), "{err}");
    assert!(err.to_string().contains("overruns the image"), "{err}");
    // A raw packet of 5 literal pixels after a run of 4 overruns as well.
    let err = decode_rgba(&grey_rle_tga(&[0x83, 200, 0x04, 1, 2, 3, 4, 5]), Path::new("raw.tga"))
        .expect_err("overrunning raw packet");
    assert!(err.to_string().contains("reach pixel 9, the header declares 8"), "{err}");
}

#[test]
fn devices_and_directories_are_refused_without_reading_them() {
    let err = stats_for_file(Path::new("/dev/zero")).expect_err("a device");
    assert!(matches!(err, AssetError::NotAFile { .. }), "{err}");
    assert!(err.to_string().ends_with("/dev/zero: not a regular file"), "{err}");
    let dir = scratch_dir("dir");
    let err = stats_for_file(&dir).expect_err("a directory");
    assert!(matches!(err, AssetError::NotAFile { .. }), "{err}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn a_missing_file_says_the_os_reason_once_in_an_error_chain() {
    let err = stats_for_file(Path::new("/nonexistent/puff.png")).expect_err("missing");
    let mut chain = err.to_string();
    let mut source = std::error::Error::source(&err);
    while let Some(s) = source {
        chain += &format!(": {s}");
        source = s.source();
    }
    assert_eq!(chain.matches("No such file").count(), 1, "{chain}");
}
