//! Pictures written beside the frames: RGBA8 PNGs (the frames), 16-bit linear greyscale PNGs (the
//! debug views' transmittance and coverage), animated PNGs, side-by-side comparisons and labelled
//! contact sheets (`render --compare`, `--apng`, `--contact-sheet`). PNG encoding is the `png`
//! crate's (already under `image`; its APNG writer is what `image` lacks); every file is written
//! through [`crate::atomic_file`].
//!
//! Memory stays bounded by the pictures' parts in flight, not their number: an animation's frames
//! are asked for one at a time and written as they come ([`write_apng`]), and a grid's tiles one
//! row of tiles at a time ([`write_grid`]).

pub mod font;

use std::path::Path;

use crate::atomic_file::{output_error, AtomicFile};
use crate::error::Result;
use font::{draw_text, text_width};

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

/// Label glyph scale in grids, picture pixels per font pixel (1 where a label would not fit).
const LABEL_SCALE: u32 = 2;
const LABEL_COLOUR: [u8; 4] = [255, 255, 255, 255];

/// Encodes one PNG at `path`: `setup` configures the encoder, `body` writes the image data; the
/// file is committed only when both succeed.
fn encode_png(
    path: &Path,
    (width, height): (u32, u32),
    setup: impl FnOnce(&mut png::Encoder<'_, &mut AtomicFile>) -> Result<()>,
    body: impl FnOnce(&mut png::Writer<&mut AtomicFile>) -> Result<()>,
) -> Result<()> {
    let mut file = AtomicFile::create(path)?;
    {
        let mut encoder = png::Encoder::new(&mut file, width, height);
        setup(&mut encoder)?;
        let mut writer = encoder.write_header().map_err(|e| output_error(path, e))?;
        body(&mut writer)?;
        writer.finish().map_err(|e| output_error(path, e))?;
    }
    file.commit()
}

/// Writes tightly packed RGBA8 pixels as a PNG.
pub fn write_rgba8(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<()> {
    if rgba.len() != (width * height * 4) as usize {
        crate::error::bug(&format!("{} bytes for a {width}x{height} RGBA8 picture", rgba.len()));
    }
    let setup = |e: &mut png::Encoder<'_, &mut AtomicFile>| {
        e.set_color(png::ColorType::Rgba);
        e.set_depth(png::BitDepth::Eight);
        Ok(())
    };
    encode_png(path, (width, height), setup, |w| w.write_image_data(rgba).map_err(|e| output_error(path, e)))
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
    let setup = |e: &mut png::Encoder<'_, &mut AtomicFile>| {
        e.set_color(png::ColorType::Grayscale);
        e.set_depth(png::BitDepth::Sixteen);
        // Linear data: a gamma of 1 tells viewers not to decode it as sRGB.
        e.set_source_gamma(png::ScaledFloat::new(1.0));
        Ok(())
    };
    let bytes: Vec<u8> = values.iter().flat_map(|&v| grey16(v).to_be_bytes()).collect();
    encode_png(path, (width, height), setup, |w| {
        w.write_image_data(&bytes).map_err(|e| output_error(path, e))
    })
}

/// Largest difference, of 255 per channel, between a rendered frame and what the animated PNG
/// shows of it: a pixel of a later frame that differs from what the animation already shows by no
/// more than this is left as it is (the fog's temporal jitter and its dither change a third of
/// the pixels by a level or two every frame; kept, they would make each frame as large as a
/// still).
pub const APNG_TOLERANCE: u8 = 2;

/// Writes an animated PNG of `count` (at least one) `width` x `height` frames looping forever,
/// each shown for `1 / fps` s. `frame(i)` gives frame `i` when it is written, so only one frame
/// (and what the animation shows) is held at a time; an error from it ends the write and leaves
/// nothing at `path`. The first frame is stored whole; each later one as the rectangle around the
/// pixels that differ by more than [`APNG_TOLERANCE`] from what is shown, the others transparent
/// (drawn over what is shown), so every frame is shown within [`APNG_TOLERANCE`] of its pixels.
pub fn write_apng(
    path: &Path,
    (width, height): (u32, u32),
    (count, fps): (u32, f32),
    mut frame: impl FnMut(u32) -> Result<Rgba8>,
) -> Result<()> {
    if count == 0 {
        crate::error::bug("an animation of no frames");
    }
    let setup = |e: &mut png::Encoder<'_, &mut AtomicFile>| {
        e.set_color(png::ColorType::Rgba);
        e.set_depth(png::BitDepth::Eight);
        e.set_animated(count, 0).map_err(|e| output_error(path, e))?;
        // The delay as the fraction 1 / fps s (whole frames per second, 1..=65535).
        let per_second = fps.round().clamp(1.0, f32::from(u16::MAX)) as u16;
        e.set_frame_delay(1, per_second).map_err(|e| output_error(path, e))
    };
    encode_png(path, (width, height), setup, |w| {
        let mut shown: Option<Vec<u8>> = None;
        for i in 0..count {
            let f = frame(i)?;
            if (f.width, f.height) != (width, height) {
                crate::error::bug("animation frames of different sizes");
            }
            let Some(shown) = shown.as_mut() else {
                w.write_image_data(&f.pixels).map_err(|e| output_error(path, e))?;
                shown = Some(f.pixels);
                continue;
            };
            let update = frame_update(shown, &f);
            let place = |w: &mut png::Writer<&mut AtomicFile>| {
                w.reset_frame_position()?;
                w.set_frame_dimension(update.size.0, update.size.1)?;
                w.set_frame_position(update.at.0, update.at.1)?;
                w.set_blend_op(if update.over { png::BlendOp::Over } else { png::BlendOp::Source })?;
                w.write_image_data(&update.pixels)
            };
            place(w).map_err(|e| output_error(path, e))?;
        }
        Ok(())
    })
}

/// Whether RGBA pixels `a` and `b` differ by more than [`APNG_TOLERANCE`] in any channel.
fn pixel_differs(a: &[u8], b: &[u8]) -> bool {
    a.iter().zip(b).any(|(a, b)| a.abs_diff(*b) > APNG_TOLERANCE)
}

/// One later frame of an animation: `pixels` (`size`, RGBA) placed `at`, drawn over what is shown
/// (`over`: unchanged pixels transparent) or in its place.
struct FrameUpdate {
    at: (u32, u32),
    size: (u32, u32),
    over: bool,
    pixels: Vec<u8>,
}

/// The update that shows `next` within [`APNG_TOLERANCE`] where `shown` is shown, and `shown` made
/// what it then shows: the rectangle around the pixels that differ by more (a transparent pixel
/// when none does), those pixels from `next` and the rest transparent, or, where a new pixel is
/// not opaque (it would blend with what is shown), the rest as shown.
fn frame_update(shown: &mut [u8], next: &Rgba8) -> FrameUpdate {
    let width = next.width as usize;
    let differs =
        |shown: &[u8], p: usize| pixel_differs(&shown[p * 4..p * 4 + 4], &next.pixels[p * 4..p * 4 + 4]);
    let (mut lo, mut hi) = ((usize::MAX, usize::MAX), (0, 0));
    let mut opaque = true;
    for p in (0..next.pixels.len() / 4).filter(|&p| differs(shown, p)) {
        let (x, y) = (p % width, p / width);
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
        opaque &= next.pixels[p * 4 + 3] == 255;
    }
    if lo.0 == usize::MAX {
        return FrameUpdate { at: (0, 0), size: (1, 1), over: true, pixels: vec![0; 4] };
    }
    let (w, h) = (hi.0 - lo.0 + 1, hi.1 - lo.1 + 1);
    let mut pixels = vec![0; w * h * 4];
    for y in 0..h {
        for x in 0..w {
            let p = (lo.1 + y) * width + lo.0 + x;
            let to = &mut pixels[(y * w + x) * 4..][..4];
            if differs(shown, p) {
                shown[p * 4..p * 4 + 4].copy_from_slice(&next.pixels[p * 4..p * 4 + 4]);
                to.copy_from_slice(&next.pixels[p * 4..p * 4 + 4]);
            } else if !opaque {
                to.copy_from_slice(&shown[p * 4..p * 4 + 4]);
            }
        }
    }
    FrameUpdate { at: (lo.0 as u32, lo.1 as u32), size: (w as u32, h as u32), over: opaque, pixels }
}

/// Writes a PNG of `labels.len()` tiles of `tile` size in rows of `cols`, each with its label in
/// the top-left corner, black where a row is short. `tile_at(i)` gives tile `i` when its row is
/// drawn, so one row of tiles is held at a time.
pub fn write_grid(
    path: &Path,
    tile: (u32, u32),
    cols: u32,
    labels: &[&str],
    mut tile_at: impl FnMut(u32) -> Result<Rgba8>,
) -> Result<()> {
    let (w, h) = tile;
    let count = labels.len() as u32;
    let rows = count.div_ceil(cols).max(1);
    let setup = |e: &mut png::Encoder<'_, &mut AtomicFile>| {
        e.set_color(png::ColorType::Rgba);
        e.set_depth(png::BitDepth::Eight);
        Ok(())
    };
    encode_png(path, (w * cols, h * rows), setup, |writer| {
        let mut stream = writer.stream_writer().map_err(|e| output_error(path, e))?;
        for row in 0..rows {
            let mut band = Rgba8::filled(w * cols, h, [0, 0, 0, 255]);
            for col in 0..cols {
                let i = row * cols + col;
                let Some(label) = labels.get(i as usize) else { break };
                let t = tile_at(i)?;
                if (t.width, t.height) != (w, h) {
                    crate::error::bug("grid tiles of different sizes");
                }
                band.blit(&t, col * w, 0);
                let scale = if text_width(label, LABEL_SCALE) + 8 <= w { LABEL_SCALE } else { 1 };
                draw_text(&mut band, label, (col * w + 4, 4), scale, LABEL_COLOUR);
            }
            std::io::Write::write_all(&mut stream, &band.pixels).map_err(|e| output_error(path, e))?;
        }
        stream.finish().map_err(|e| output_error(path, e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("pf-picture-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch folder");
        d
    }

    #[test]
    fn an_animation_is_on_disk_frame_by_frame_before_it_ends() {
        let d = scratch("apng");
        let path = d.join("a.apng");
        let (w, h) = (64, 64);
        let mut sizes = Vec::new();
        write_apng(&path, (w, h), (4, 30.0), |i| {
            // The bytes written so far, in the temporary beside the destination.
            let tmp = std::fs::read_dir(&d).expect("list").flatten().find(|e| e.path() != path);
            sizes.push(tmp.map_or(0, |e| e.metadata().expect("meta").len()));
            // Incompressible (xorshift) pixels: each frame is larger than the file's buffer.
            let mut x = 0x9E37_79B9_u32 ^ i;
            let noise = (0..w * h * 4).map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x >> 24) as u8
            });
            Ok(Rgba8 { width: w, height: h, pixels: noise.collect() })
        })
        .expect("written");
        // Each frame asked for after the one before is on disk (deflate buffers at most one).
        assert!(sizes.windows(2).skip(1).all(|s| s[1] > s[0]), "{sizes:?}");
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).expect("open")));
        let reader = decoder.read_info().expect("a PNG");
        assert_eq!(reader.info().animation_control().map(|a| a.num_frames), Some(4));
    }

    /// Every frame of the animated PNG at `path` as a viewer shows it: each frame's rectangle
    /// drawn at its place over the last, by its blend operation.
    fn shown_frames(path: &std::path::Path) -> Vec<Vec<u8>> {
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).expect("open")));
        let mut reader = decoder.read_info().expect("a PNG");
        let (width, count) =
            (reader.info().width as usize, reader.info().animation_control().expect("apng").num_frames);
        let mut canvas = vec![0u8; reader.output_buffer_size().expect("size")];
        let mut buf = canvas.clone();
        let mut out = Vec::new();
        for _ in 0..count {
            let info = reader.next_frame(&mut buf).expect("a frame");
            let fc = reader.info().frame_control().copied().expect("a frame control");
            assert_eq!((info.width, info.height), (fc.width, fc.height));
            for y in 0..fc.height as usize {
                for x in 0..fc.width as usize {
                    let from = &buf[(y * fc.width as usize + x) * 4..][..4];
                    let to = ((fc.y_offset as usize + y) * width + fc.x_offset as usize + x) * 4;
                    match (fc.blend_op, from[3]) {
                        (png::BlendOp::Over, 0) => {}
                        (png::BlendOp::Over, a) => {
                            assert_eq!(a, 255, "a frame drawn over holds only opaque and clear pixels");
                            canvas[to..to + 4].copy_from_slice(from);
                        }
                        (png::BlendOp::Source, _) => canvas[to..to + 4].copy_from_slice(from),
                    }
                }
            }
            out.push(canvas.clone());
        }
        out
    }

    #[test]
    fn every_frame_is_shown_within_the_tolerance_and_small_changes_cost_little() {
        let d = scratch("apng-updates");
        let (w, h) = (96u32, 64u32);
        // A gradient whose pixels wander by up to the tolerance every frame (the fog's jitter), a
        // white square moving 5 pixels a frame, and on frame 3 a half-transparent pixel.
        let rendered = |i: u32| {
            let mut x = 0x2545_F491_u32 ^ (i * 7919 + 1);
            let mut pixels = Vec::with_capacity((w * h * 4) as usize);
            for py in 0..h {
                for px in 0..w {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    let jitter = (x % u32::from(APNG_TOLERANCE + 1)) as u8;
                    let base = (px + py) as u8 + 40;
                    let square = (px / 8 == i * 5 / 8 + 1) && (10..20).contains(&py);
                    let v = if square { 255 } else { base + jitter };
                    let alpha = if i == 3 && (px, py) == (50, 40) { 128 } else { 255 };
                    pixels.extend([v, v / 2 + 20, 200 - v / 2, alpha]);
                }
            }
            Rgba8 { width: w, height: h, pixels }
        };
        let frames = 6;
        let path = d.join("a.apng");
        write_apng(&path, (w, h), (frames, 30.0), |i| Ok(rendered(i))).expect("written");
        let shown = shown_frames(&path);
        for (i, s) in shown.iter().enumerate() {
            let r = rendered(i as u32);
            let worst = s.iter().zip(&r.pixels).map(|(a, b)| a.abs_diff(*b)).max().unwrap_or(0);
            assert!(worst <= APNG_TOLERANCE, "frame {i} shown {worst} levels from what was rendered");
        }
        // Whole frames would each cost about as much as the first; the wandering costs nothing.
        let still = d.join("still.png");
        let first = rendered(0);
        write_rgba8(&still, w, h, &first.pixels).expect("still");
        let (animation, one) =
            (std::fs::metadata(&path).expect("a").len(), std::fs::metadata(&still).expect("s").len());
        assert!(animation < 2 * one, "{frames} frames took {animation} bytes, one whole frame {one}");
    }

    #[test]
    fn an_error_while_rendering_a_frame_leaves_nothing_at_the_path() {
        let d = scratch("apng-error");
        let path = d.join("a.apng");
        let e = write_apng(&path, (8, 8), (3, 30.0), |i| {
            if i == 1 {
                Err(crate::error::RenderError::DeviceLost("rendering frame 1".into()))
            } else {
                Ok(Rgba8::filled(8, 8, [9, 9, 9, 255]))
            }
        })
        .expect_err("fails");
        assert!(e.to_string().contains("device lost"), "{e}");
        assert_eq!(std::fs::read_dir(&d).expect("list").count(), 0, "no file, no temporary");
    }

    #[test]
    fn a_grid_places_each_tile_in_its_row_and_column() {
        let d = scratch("grid");
        let path = d.join("g.png");
        let colours = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]];
        write_grid(&path, (40, 30), 2, &["", "", ""], |i| Ok(Rgba8::filled(40, 30, colours[i as usize])))
            .expect("written");
        let img = image::open(&path).expect("png").to_rgba8();
        assert_eq!(img.dimensions(), (80, 60));
        assert_eq!(img.get_pixel(20, 20).0, colours[0]);
        assert_eq!(img.get_pixel(60, 20).0, colours[1]);
        assert_eq!(img.get_pixel(20, 50).0, colours[2]);
        assert_eq!(img.get_pixel(60, 50).0, [0, 0, 0, 255], "the short row is black");
    }
}
