//! Pictures written beside the frames: 16-bit linear greyscale PNGs (the debug views'
//! transmittance and coverage), animated PNGs, side-by-side comparisons and labelled contact
//! sheets (`render --compare`, `--apng`, `--contact-sheet`). PNG encoding is the `png` crate's
//! (already under `image`; its APNG writer is what `image` lacks).

pub mod font;

use std::io::BufWriter;
use std::path::Path;

use crate::error::{RenderError, Result};

/// An RGBA8 picture, row-major, tightly packed.
#[derive(Clone, Debug, PartialEq)]
pub struct Rgba8 {
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl Rgba8 {
    /// A `width` x `height` picture filled with `colour`.
    pub fn filled(width: u32, height: u32, colour: [u8; 4]) -> Rgba8 {
        Rgba8 { width, height, pixels: colour.repeat((width * height) as usize) }
    }

    /// Copies `src` with its top-left corner at (`x`, `y`), clipped to this picture.
    pub fn blit(&mut self, src: &Rgba8, x: u32, y: u32) {
        let w = src.width.min(self.width.saturating_sub(x)) as usize;
        for row in 0..src.height.min(self.height.saturating_sub(y)) {
            let from = (row * src.width) as usize * 4;
            let to = (((y + row) * self.width + x) as usize) * 4;
            self.pixels[to..to + w * 4].copy_from_slice(&src.pixels[from..from + w * 4]);
        }
    }
}

fn output_error(path: &Path, e: impl std::fmt::Display) -> RenderError {
    RenderError::Output { path: path.display().to_string(), reason: e.to_string() }
}

fn create(path: &Path) -> Result<BufWriter<std::fs::File>> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| output_error(path, e))?;
    }
    Ok(BufWriter::new(std::fs::File::create(path).map_err(|e| output_error(path, e))?))
}

/// The 16-bit code of a linear value in 0..=1 (65535 = 1; clamped, NaN as 0).
pub fn grey16(value: f32) -> u16 {
    if value.is_nan() {
        return 0;
    }
    (value.clamp(0.0, 1.0) * 65535.0).round() as u16
}

/// Writes `values` (row-major, linear, 0..=1) as a 16-bit greyscale PNG (65535 = 1), no gamma.
pub fn write_grey16(path: &Path, width: u32, height: u32, values: &[f32]) -> Result<()> {
    if values.len() != (width * height) as usize {
        crate::error::bug(&format!("{} values for a {width}x{height} picture", values.len()));
    }
    let mut encoder = png::Encoder::new(create(path)?, width, height);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Sixteen);
    // Linear data: a gamma of 1 tells viewers not to decode it as sRGB.
    encoder.set_source_gamma(png::ScaledFloat::new(1.0));
    let bytes: Vec<u8> = values.iter().flat_map(|&v| grey16(v).to_be_bytes()).collect();
    let mut writer = encoder.write_header().map_err(|e| output_error(path, e))?;
    writer.write_image_data(&bytes).map_err(|e| output_error(path, e))?;
    writer.finish().map_err(|e| output_error(path, e))
}

/// Writes `frames` (all the same size, at least one) as an animated PNG looping forever, each
/// shown for `1 / fps` s.
pub fn write_apng(path: &Path, frames: &[Rgba8], fps: f32) -> Result<()> {
    let Some(first) = frames.first() else { crate::error::bug("an animation of no frames") };
    let mut encoder = png::Encoder::new(create(path)?, first.width, first.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_animated(frames.len() as u32, 0).map_err(|e| output_error(path, e))?;
    // The delay as the fraction 1 / fps s (whole frames per second, 1..=65535).
    let per_second = fps.round().clamp(1.0, f32::from(u16::MAX)) as u16;
    encoder.set_frame_delay(1, per_second).map_err(|e| output_error(path, e))?;
    let mut writer = encoder.write_header().map_err(|e| output_error(path, e))?;
    for frame in frames {
        if (frame.width, frame.height) != (first.width, first.height) {
            crate::error::bug("animation frames of different sizes");
        }
        writer.write_image_data(&frame.pixels).map_err(|e| output_error(path, e))?;
    }
    writer.finish().map_err(|e| output_error(path, e))
}
