//! Reading untrusted texture files: size-checked read, format detection, header check, limited decode.
//!
//! Order of checks, cheapest first, so a hostile file costs almost nothing:
//! 1. a regular file (not a directory, device or pipe), its size against [`MAX_FILE_BYTES`]
//!    (before reading it);
//! 2. the format, from the magic bytes (PNG, JPEG) or, for TGA, which has no magic, from the file
//!    extension; JPEG 2000 (`.j2c`/`.jp2`, the viewer's asset format) is recognised and refused: its
//!    decoders are large and this crate is fed PNG/TGA/JPEG exports;
//! 3. the header's dimensions (read without decoding the pixels): zero or over [`MAX_DIMENSION`] on
//!    a side is refused;
//! 4. for run-length-encoded TGA, packets that end exactly on the last pixel (the decoder drops an
//!    overrun silently; see `tga`); for JPEG, an end-of-image marker after the scan data (the decoder itself accepts a cut-off
//!    file and fills the missing part with grey);
//! 5. the decode itself, under `image::Limits` (the same dimension limit and an allocation cap), so a
//!    header that lies about its size is still caught;
//! 6. conversion to RGBA8: grey and RGB images get alpha 255 everywhere (see the crate docs for why
//!    that reads as "shaped").

use std::io::{Cursor, Read};
use std::path::Path;

use image::{ImageFormat, ImageReader, Limits, RgbaImage};

use crate::AssetError;

/// Largest accepted width or height, in pixels (the viewer's own texture limit is 2048; 4096 leaves
/// room for exports and still bounds memory at 64 MiB of RGBA8).
pub const MAX_DIMENSION: u32 = 4096;

/// Largest accepted file, in bytes: an uncompressed 4096 x 4096 RGBA TGA (64 MiB) plus slack.
pub const MAX_FILE_BYTES: u64 = 80 * 1024 * 1024;

/// Cap on what a decoder may allocate, in bytes: a 4096 x 4096 image at 16 bits per channel RGBA
/// (128 MiB) twice over, for the decoder's buffer and the RGBA8 conversion.
const MAX_DECODE_ALLOC_BYTES: u64 = 256 * 1024 * 1024;

/// The formats this crate decodes.
const ACCEPTED_FORMATS: [ImageFormat; 3] = [ImageFormat::Png, ImageFormat::Tga, ImageFormat::Jpeg];

/// The PNG file signature.
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
/// Offset of the first chunk's type field (after the signature and the chunk length).
const PNG_IHDR_TYPE_OFFSET: usize = 12;
/// A PNG's last chunk whole: length 0, type `IEND`, its CRC.
const PNG_IEND_CHUNK: [u8; 12] = [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82];

/// Length of the JPEG start-of-image marker.
const JPEG_SOI_LEN: usize = 2;
/// JPEG start-of-scan marker code.
const JPEG_SOS: u8 = 0xDA;
/// JPEG end-of-image marker code.
const JPEG_EOI: u8 = 0xD9;

/// JPEG 2000 codestream magic (SOC then SIZ marker).
const J2K_CODESTREAM_MAGIC: [u8; 4] = [0xFF, 0x4F, 0xFF, 0x51];
/// JPEG 2000 JP2 container signature box.
const JP2_SIGNATURE_BOX: [u8; 12] = [0, 0, 0, 0x0C, b'j', b'P', b' ', b' ', 0x0D, 0x0A, 0x87, 0x0A];

/// Reads a texture file's bytes, refusing anything but a regular file (a directory, `/dev/zero`, a
/// pipe) and files over [`MAX_FILE_BYTES`], before reading them.
pub fn read_texture_bytes(path: &Path) -> Result<Vec<u8>, AssetError> {
    let io_err = |reason| AssetError::Io { file: path.to_path_buf(), reason };
    let meta = std::fs::metadata(path).map_err(io_err)?;
    if !meta.is_file() {
        return Err(AssetError::NotAFile { file: path.to_path_buf() });
    }
    if meta.len() > MAX_FILE_BYTES {
        let bytes = meta.len();
        return Err(AssetError::FileTooLarge { file: path.to_path_buf(), bytes, max: MAX_FILE_BYTES });
    }
    let file = std::fs::File::open(path).map_err(io_err)?;
    let mut bytes = Vec::new();
    // Read at most one byte past the limit, so a growing or lying file cannot exhaust memory.
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(io_err)?;
    let len = bytes.len() as u64;
    if len > MAX_FILE_BYTES {
        return Err(AssetError::FileTooLarge { file: path.to_path_buf(), bytes: len, max: MAX_FILE_BYTES });
    }
    Ok(bytes)
}

/// Reads and decodes a PNG, TGA or JPEG texture file to RGBA8.
pub fn load_rgba(path: &Path) -> Result<RgbaImage, AssetError> {
    let bytes = read_texture_bytes(path)?;
    decode_rgba(&bytes, path)
}

/// Decodes in-memory PNG, TGA or JPEG data to RGBA8; `file` names the data in errors and, for TGA
/// (which has no magic bytes), supplies the format through its extension.
pub fn decode_rgba(bytes: &[u8], file: &Path) -> Result<RgbaImage, AssetError> {
    let format = detect_format(bytes, file)?;
    let decode_err = |e: image::ImageError| AssetError::Decode {
        file: file.to_path_buf(),
        reason: e.to_string().trim_end().to_owned(),
    };
    let (width, height) = match png_header_dimensions(bytes) {
        Some(dimensions) => dimensions,
        None => ImageReader::with_format(Cursor::new(bytes), format).into_dimensions().map_err(decode_err)?,
    };
    check_dimensions(width, height, file)?;
    if format == ImageFormat::Tga {
        // The decoder drops a packet's pixels past the image end and reports success.
        crate::tga::check_rle(bytes)
            .map_err(|fault| AssetError::Decode { file: file.to_path_buf(), reason: fault.to_string() })?;
    }
    if format == ImageFormat::Png && !bytes.windows(PNG_IEND_CHUNK.len()).any(|w| w == PNG_IEND_CHUNK) {
        // The PNG decoder reports success on a file cut off inside its end chunk.
        return Err(AssetError::Decode {
            file: file.to_path_buf(),
            reason: "truncated PNG: no complete IEND chunk after the image data".to_owned(),
        });
    }
    if format == ImageFormat::Jpeg && !jpeg_has_end_marker(bytes) {
        // The JPEG decoder fills a cut-off scan with grey and reports success.
        return Err(AssetError::Decode {
            file: file.to_path_buf(),
            reason: "truncated JPEG: no end-of-image marker after the image data".to_owned(),
        });
    }

    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    limits.max_alloc = Some(MAX_DECODE_ALLOC_BYTES);
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits);
    let rgba = reader.decode().map_err(decode_err)?.into_rgba8();
    check_dimensions(rgba.width(), rgba.height(), file)?;
    Ok(rgba)
}

/// Width and height from a PNG's IHDR chunk, which the PNG specification fixes as the first chunk
/// (bytes 8..33), so even a file cut off right after it is judged by its claimed size.
fn png_header_dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let ihdr = bytes.get(PNG_IHDR_TYPE_OFFSET..PNG_IHDR_TYPE_OFFSET + 12)?;
    if !bytes.starts_with(PNG_SIGNATURE) || &ihdr[..4] != b"IHDR" {
        return None;
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    Some((be(&ihdr[4..8]), be(&ihdr[8..12])))
}

/// True when JPEG data has an end-of-image marker after its first scan. Header segments are skipped
/// by their lengths (an EXIF thumbnail inside APP1 has its own end marker, which must not count);
/// in the scan data `FF 00` is a stuffed byte and `FF D0..D7` are restart markers.
fn jpeg_has_end_marker(bytes: &[u8]) -> bool {
    let mut at = JPEG_SOI_LEN;
    // Walk the header segments up to the first start of scan.
    loop {
        let Some(&[0xFF, marker, hi, lo]) = bytes.get(at..at + 4) else {
            return false;
        };
        at += 2 + usize::from(u16::from_be_bytes([hi, lo]));
        if marker == JPEG_SOS {
            break;
        }
    }
    bytes.get(at..).unwrap_or_default().windows(2).any(|w| w == [0xFF, JPEG_EOI])
}

/// Refuses zero-size images and images over [`MAX_DIMENSION`] on a side.
pub(crate) fn check_dimensions(width: u32, height: u32, file: &Path) -> Result<(), AssetError> {
    if width == 0 || height == 0 {
        return Err(AssetError::ZeroSize { file: file.to_path_buf(), width, height });
    }
    if width > MAX_DIMENSION || height > MAX_DIMENSION {
        return Err(AssetError::TooLarge { file: file.to_path_buf(), width, height, max: MAX_DIMENSION });
    }
    Ok(())
}

/// Picks the decoder: magic bytes first, then the extension (TGA has no magic).
fn detect_format(bytes: &[u8], file: &Path) -> Result<ImageFormat, AssetError> {
    let unsupported = |format: String| AssetError::UnsupportedFormat { file: file.to_path_buf(), format };
    if bytes.starts_with(&J2K_CODESTREAM_MAGIC) || bytes.starts_with(&JP2_SIGNATURE_BOX) {
        return Err(unsupported("JPEG 2000".to_owned()));
    }
    if let Ok(format) = image::guess_format(bytes) {
        if ACCEPTED_FORMATS.contains(&format) {
            return Ok(format);
        }
        // The TGA header has no magic and can look like another format's; trust a .tga name then.
        if ImageFormat::from_path(file).ok() != Some(ImageFormat::Tga) {
            return Err(unsupported(format!("{format:?}")));
        }
    }
    match ImageFormat::from_path(file) {
        Ok(format) if ACCEPTED_FORMATS.contains(&format) => Ok(format),
        Ok(format) => Err(unsupported(format!("{format:?}"))),
        Err(_) => Err(unsupported("unrecognised data".to_owned())),
    }
}
