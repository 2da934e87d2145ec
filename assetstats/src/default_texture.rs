//! A look-alike of the viewer's built-in default particle texture, and its shipped statistics.
//!
//! When a particle system names no texture (null UUID) the viewer draws `pixiesmall.j2c`: 128 x 128,
//! RGB white everywhere, all the shape in alpha: a small bright core (alpha 255), a faint thin
//! ring, faint radial rays and a soft halo falling to alpha about 2 to 5 at the edges
//! (a local file of the viewer, `skins/default/textures/pixiesmall.j2c`, with no asset UUID). The
//! viewer's asset is not copied; this is drawn from those facts, with `r` the distance from the centre in half-widths and `theta` the angle:
//!
//! `alpha = clamp(core + halo + ring + rays, 0, 1)`, with
//! `core = exp(-(r / CORE_RADIUS)^2)`, `halo = HALO_PEAK * exp(-r^2 / (2 HALO_SIGMA^2))`
//! (0.012, i.e. alpha 3, at the middle of a side), `ring = RING_PEAK * exp(-((r - RING_RADIUS) /
//! RING_WIDTH)^2)` and `rays = RAY_PEAK * |cos(RAY_ARMS / 2 * theta)|^RAY_SHARPNESS * exp(-r /
//! RAY_LENGTH)`, averaged over 4 x 4 samples per pixel.
//!
//! **Verdict: shaped.** The radial profile falls below half its peak within the first ring or two
//! (about 0.1 half-widths) but stays above a tenth of it out to about 0.65 half-widths, so
//! `core_halo_ratio` is about 0.15, far below [`crate::CORE_HALO_RATIO_MIN`] (0.55 for a Gaussian);
//! the core's sudden fall also trips the `profile_max_drop` check. On a small billboard it reads as
//! a glint, a sparkle, not a puff; the faint rays and ring add to that but are not needed for it.
//! The design lets the classifier accept "the default texture with a large size" separately: at a
//! large size the halo dominates what is seen. So the stats carry `is_default = true` for that
//! rule, and the classifier, not this crate, decides when the size is large enough.
//!
//! The statistics are shipped as constants ([`default_texture_stats`]) so the classifier needs no
//! image work for the most common texture; a test recomputes them from
//! [`default_particle_texture`] and fails if the two drift apart.

use image::{Rgba, RgbaImage};

use crate::stats::{Measurements, TextureStats};

/// Width and height of the default particle texture, in pixels (as the viewer's).
pub const DEFAULT_TEXTURE_SIZE: u32 = 128;

/// Radius of the core, in half-widths, where it falls to 1/e of full alpha.
const CORE_RADIUS: f32 = 0.06;
/// Peak alpha of the halo.
const HALO_PEAK: f32 = 0.35;
/// Standard deviation of the Gaussian halo, in half-widths.
const HALO_SIGMA: f32 = 0.385;
/// Peak alpha of the thin ring.
const RING_PEAK: f32 = 0.12;
/// Radius of the ring, in half-widths.
const RING_RADIUS: f32 = 0.55;
/// Half-thickness of the ring (1/e), in half-widths.
const RING_WIDTH: f32 = 0.025;
/// Peak alpha of the rays.
const RAY_PEAK: f32 = 0.2;
/// Number of ray arms (a cross).
const RAY_ARMS: f32 = 4.0;
/// Exponent that narrows the rays.
const RAY_SHARPNESS: i32 = 60;
/// Distance over which the rays fade by 1/e, in half-widths.
const RAY_LENGTH: f32 = 0.3;
/// Samples per pixel along each axis (antialiasing).
const SUPERSAMPLES: u32 = 4;

/// Draws the default particle texture look-alike (see the module docs).
pub fn default_particle_texture() -> RgbaImage {
    let size = DEFAULT_TEXTURE_SIZE;
    let half = size as f32 / 2.0;
    let samples = (SUPERSAMPLES * SUPERSAMPLES) as f32;
    RgbaImage::from_fn(size, size, |x, y| {
        let mut sum = 0.0f32;
        for sy in 0..SUPERSAMPLES {
            for sx in 0..SUPERSAMPLES {
                let px = x as f32 + (sx as f32 + 0.5) / SUPERSAMPLES as f32;
                let py = y as f32 + (sy as f32 + 0.5) / SUPERSAMPLES as f32;
                sum += pixie_alpha((px - half) / half, (py - half) / half);
            }
        }
        let alpha = (sum / samples * f32::from(u8::MAX)).round() as u8;
        Rgba([u8::MAX, u8::MAX, u8::MAX, alpha])
    })
}

/// Alpha at a point given in half-widths from the centre.
fn pixie_alpha(dx: f32, dy: f32) -> f32 {
    let r = (dx * dx + dy * dy).sqrt();
    let theta = dy.atan2(dx);
    let core = (-(r / CORE_RADIUS).powi(2)).exp();
    let halo = HALO_PEAK * (-r * r / (2.0 * HALO_SIGMA * HALO_SIGMA)).exp();
    let ring = RING_PEAK * (-((r - RING_RADIUS) / RING_WIDTH).powi(2)).exp();
    let arms = (RAY_ARMS / 2.0 * theta).cos().abs().powi(RAY_SHARPNESS);
    let rays = RAY_PEAK * arms * (-r / RAY_LENGTH).exp();
    (core + halo + ring + rays).clamp(0.0, 1.0)
}

/// The shipped measurements of [`default_particle_texture`] (checked against a fresh computation
/// by the tests).
const DEFAULT_MEASUREMENTS: Measurements = Measurements {
    width: DEFAULT_TEXTURE_SIZE,
    height: DEFAULT_TEXTURE_SIZE,
    mean_alpha: 0.089_60,
    edge_energy: 4.044,
    mean_color: [1.0, 1.0, 1.0],
    color_variance: 0.0,
    chroma_variance: 0.0,
    coverage: [0.464_6, 0.087_40, 0.005_859, 0.001_953],
    radial_profile: [
        0.903_9, 0.454_2, 0.336_1, 0.305_1, 0.274_4, 0.241_3, 0.205_8, 0.170_6, 0.204_1, 0.128_8, 0.083_39,
        0.063_14, 0.046_28, 0.032_72, 0.022_95, 0.015_48,
    ],
    border_alpha: 0.006_941,
    alpha_centroid: [0.0, 0.0],
    alpha_anisotropy: 0.0,
    angular_variation: 0.029_28,
    thin_fraction: 0.079_62,
    spikiness: 1.073_5,
};

/// Statistics of the default particle texture, from shipped constants (no image work), with
/// `is_default` set.
pub fn default_texture_stats() -> TextureStats {
    TextureStats { is_default: true, ..TextureStats::from_measurements(&DEFAULT_MEASUREMENTS) }
}
