//! Procedural test textures, drawn from continuous definitions so that a 64 x 64 and a 256 x 256
//! rendering show the same picture. Coordinates are texture units: (0, 0) top-left, (1, 1)
//! bottom-right. Each pixel averages SUPERSAMPLES^2 samples, so hard edges are antialiased the same
//! way at every resolution.
#![allow(dead_code)]

use image::{Rgba, RgbaImage};

/// A boxed alpha function, for tables of shapes.
pub type AlphaFn = Box<dyn Fn(f32, f32) -> f32>;

/// Samples per pixel along each axis.
const SUPERSAMPLES: u32 = 4;

/// Renders a white texture whose alpha at (u, v) is `alpha(u, v)` in [0, 1].
pub fn render(size: u32, alpha: impl Fn(f32, f32) -> f32) -> RgbaImage {
    RgbaImage::from_fn(size, size, |x, y| {
        let mut sum = 0.0;
        for sy in 0..SUPERSAMPLES {
            for sx in 0..SUPERSAMPLES {
                let u = (x as f32 + (sx as f32 + 0.5) / SUPERSAMPLES as f32) / size as f32;
                let v = (y as f32 + (sy as f32 + 0.5) / SUPERSAMPLES as f32) / size as f32;
                sum += alpha(u, v).clamp(0.0, 1.0);
            }
        }
        let a = sum / (SUPERSAMPLES * SUPERSAMPLES) as f32;
        Rgba([255, 255, 255, (a * 255.0).round() as u8])
    })
}

/// Distance from the texture centre, in texture widths.
fn radius(u: f32, v: f32) -> f32 {
    ((u - 0.5).powi(2) + (v - 0.5).powi(2)).sqrt()
}

/// Gaussian alpha `exp(-r^2 / 2 sigma^2)`, sigma in texture widths.
pub fn gaussian(sigma: f32) -> impl Fn(f32, f32) -> f32 {
    move |u, v| (-radius(u, v).powi(2) / (2.0 * sigma * sigma)).exp()
}

/// Hard disc of radius `r` texture widths.
pub fn disc(r: f32) -> impl Fn(f32, f32) -> f32 {
    move |u, v| if radius(u, v) <= r { 1.0 } else { 0.0 }
}

/// Hard ring between radii `inner` and `outer`.
pub fn ring(inner: f32, outer: f32) -> impl Fn(f32, f32) -> f32 {
    move |u, v| {
        let r = radius(u, v);
        if (inner..=outer).contains(&r) {
            1.0
        } else {
            0.0
        }
    }
}

/// Five-point star, outer radius 0.45, inner radius 0.18, point up.
pub fn star() -> impl Fn(f32, f32) -> f32 {
    let points: Vec<(f32, f32)> = (0..10)
        .map(|i| {
            let r = if i % 2 == 0 { 0.45 } else { 0.18 };
            let a = std::f32::consts::PI * i as f32 / 5.0 - std::f32::consts::FRAC_PI_2;
            (0.5 + r * a.cos(), 0.5 + r * a.sin())
        })
        .collect();
    move |u, v| {
        if inside_polygon(&points, u, v) {
            1.0
        } else {
            0.0
        }
    }
}

/// Even-odd point-in-polygon test.
fn inside_polygon(points: &[(f32, f32)], u: f32, v: f32) -> bool {
    let mut inside = false;
    let mut j = points.len() - 1;
    for i in 0..points.len() {
        let (xi, yi) = points[i];
        let (xj, yj) = points[j];
        if (yi > v) != (yj > v) && u < (xj - xi) * (v - yi) / (yj - yi) + xi {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Heart: the implicit curve (x^2 + y^2 - 1)^3 - x^2 y^3 <= 0, scaled to fill ~80 % of the texture.
pub fn heart() -> impl Fn(f32, f32) -> f32 {
    move |u, v| {
        let x = (u - 0.5) * 3.0;
        let y = (0.45 - v) * 3.0;
        let f = (x * x + y * y - 1.0).powi(3) - x * x * y.powi(3);
        if f <= 0.0 {
            1.0
        } else {
            0.0
        }
    }
}

/// 5 x 7 bitmaps of the letters F, O and G (rows top to bottom, bit 4 = leftmost column).
const GLYPHS: [[u8; 7]; 3] = [
    [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000],
    [0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110],
    [0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111],
];

/// The word "FOG" in block letters across the middle of the texture.
pub fn text() -> impl Fn(f32, f32) -> f32 {
    // 3 glyphs of 5 columns plus 2 spacing columns = 17 columns over 0.85 of the width.
    let cell = 0.85 / 17.0;
    let (left, top) = (0.075, 0.5 - 3.5 * cell);
    move |u, v| {
        let col = ((u - left) / cell).floor();
        let row = ((v - top) / cell).floor();
        if col < 0.0 || !(0.0..7.0).contains(&row) {
            return 0.0;
        }
        let (glyph, x) = (col as usize / 6, col as usize % 6);
        if glyph >= GLYPHS.len() || x == 5 {
            return 0.0;
        }
        if GLYPHS[glyph][row as usize] >> (4 - x) & 1 == 1 {
            1.0
        } else {
            0.0
        }
    }
}

/// Deterministic pseudo-random numbers (SplitMix64), so tests never depend on a seed source.
pub struct Rng(u64);

impl Rng {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// Next value uniform in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// Speckle: 60 hard dots of radius 0.015 texture widths at random places.
pub fn speckle() -> impl Fn(f32, f32) -> f32 {
    let mut rng = Rng::new(7);
    let dots: Vec<(f32, f32)> =
        (0..60).map(|_| (0.05 + 0.9 * rng.next_f32(), 0.05 + 0.9 * rng.next_f32())).collect();
    move |u, v| {
        let hit = dots.iter().any(|&(x, y)| (u - x).powi(2) + (v - y).powi(2) <= 0.015f32.powi(2));
        if hit {
            1.0
        } else {
            0.0
        }
    }
}

/// Hash of an integer lattice point to [0, 1).
fn lattice(ix: i32, iy: i32, seed: u32) -> f32 {
    let mut h = (ix as u32).wrapping_mul(0x8DA6_B343)
        ^ (iy as u32).wrapping_mul(0xD816_3841)
        ^ seed.wrapping_mul(0xCB1A_B31F);
    h ^= h >> 13;
    h = h.wrapping_mul(0x5BD1_E995);
    h ^= h >> 15;
    (h & 0xFF_FFFF) as f32 / 0x100_0000 as f32
}

/// Smoothly interpolated value noise in [0, 1).
fn value_noise(x: f32, y: f32, seed: u32) -> f32 {
    let (fx, fy) = (x.floor(), y.floor());
    let (ix, iy) = (fx as i32, fy as i32);
    let s = |t: f32| t * t * (3.0 - 2.0 * t);
    let (tx, ty) = (s(x - fx), s(y - fy));
    let a = lattice(ix, iy, seed) * (1.0 - tx) + lattice(ix + 1, iy, seed) * tx;
    let b = lattice(ix, iy + 1, seed) * (1.0 - tx) + lattice(ix + 1, iy + 1, seed) * tx;
    a * (1.0 - ty) + b * ty
}

/// Fractal (4-octave) value noise in [0, 1), base frequency 3 per texture width.
fn fbm(u: f32, v: f32) -> f32 {
    let (mut sum, mut amp, mut freq, mut norm) = (0.0, 0.5, 3.0, 0.0);
    for octave in 0..4 {
        sum += amp * value_noise(u * freq, v * freq, octave);
        norm += amp;
        amp *= 0.5;
        freq *= 2.0;
    }
    sum / norm
}

/// A cloud puff: a broad round falloff whose density is modulated by fbm noise.
pub fn cloud_puff() -> impl Fn(f32, f32) -> f32 {
    move |u, v| {
        let r = radius(u, v) / 0.45;
        let falloff = (1.0 - r * r).max(0.0).powi(2);
        falloff * (0.35 + 0.9 * fbm(u, v))
    }
}
