//! [`TextureStats`]: what one texture's pixels say about whether it can become fog.
//!
//! All from one pass (see `scan`), with alpha and colour channels as fractions of 255:
//!
//! * `mean_alpha` = sum(a) / N over all N pixels: how much the texture covers (the fog density
//!   scale, "texture mean alpha" in the design).
//! * `coverage[k]` = fraction of pixels with alpha above [`COVERAGE_THRESHOLDS`]`[k]`.
//! * `mean_color` = sum(a * c) / sum(a) per RGB channel: the colour as it is seen, transparent
//!   pixels weightless (the fog tint). If all alpha is 0, the unweighted mean.
//! * `color_variance` = mean over R, G, B of (sum(a * c^2) / sum(a) - mean_color^2): how much the
//!   visible colour varies (0 for a single colour, 0.25 at most).
//! * `edge_energy`: mean squared alpha gradient per unit texture width on the fixed analysis grid,
//!   zero outside the texture (see `scan::edge_energy`). A Gaussian blob `exp(-r^2 / 2s^2)` has
//!   exactly pi in the continuum, whatever `s`; a hard edge adds about `GRID` = 64 per texture width
//!   of outline (about 0.6 to 1 times that once antialiased), so a hard disc of radius 0.4 is
//!   near 100 and text or speckle, with their long outlines, far more.
//! * `chroma_variance`: alpha-weighted variance of the two opponent chroma axes `u = r - g` and
//!   `v = (r + g) / 2 - b`, averaged: how much the visible *hue and saturation* vary, blind to
//!   brightness (0 for any grey or white sprite, however its brightness follows its alpha; up to
//!   about 0.5 for a picture in saturated complementary colours).
//! * `border_alpha`: mean alpha of the outermost grid cells (the quad's outline).
//! * `alpha_anisotropy`, `angular_variation`, `thin_fraction`: the alpha's shape (see `shape`).
//! * `radial_profile` (about the alpha centroid) and the numbers read from it (see `profile`).
//!
//! The verdict and `softness` come from these (see `verdict`).

use std::path::Path;

use image::RgbaImage;
use serde::{Deserialize, Serialize};

use crate::load::{check_dimensions, decode_rgba, read_texture_bytes};
use crate::profile::{profile_shape, radial_profile, RADIAL_BINS};
use crate::scan::{border_alpha, edge_energy, plain_mean_rgb, scan, PixelScan};
use crate::shape::alpha_shape;
use crate::verdict::judge;
use crate::AssetError;

/// Alpha levels (fractions of full alpha) at which [`TextureStats::coverage`] is measured.
pub const COVERAGE_THRESHOLDS: [f32; 4] = [0.05, 0.25, 0.5, 0.9];

/// Version of the statistics' definitions; cached statistics of another version are recomputed.
pub const STATS_VERSION: u32 = 2;

/// Name used in errors for images that did not come from a file.
const IN_MEMORY_NAME: &str = "<in-memory image>";

/// The verdict: can a particle system with this texture become fog?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// Soft and low-frequency (blob, cloud puff): may become fog.
    Soft,
    /// Hard edges or a recognisable shape (star, heart, ring, text, disc, speckle, opaque card):
    /// stays particles.
    Shaped,
}

impl Shape {
    /// `"soft"` or `"shaped"`, as in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Soft => "soft",
            Shape::Shaped => "shaped",
        }
    }
}

/// The measured numbers of a texture, before any verdict (what the default texture ships).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Measurements {
    pub width: u32,
    pub height: u32,
    pub mean_alpha: f32,
    pub edge_energy: f32,
    pub mean_color: [f32; 3],
    pub color_variance: f32,
    pub chroma_variance: f32,
    pub coverage: [f32; 4],
    pub radial_profile: [f32; RADIAL_BINS],
    pub border_alpha: f32,
    pub alpha_centroid: [f32; 2],
    pub alpha_anisotropy: f32,
    pub angular_variation: f32,
    pub thin_fraction: f32,
    pub spikiness: f32,
}

/// Statistics of one texture, and the verdict drawn from them. See the module docs for formulas.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextureStats {
    /// Width of the source image, in pixels.
    pub width: u32,
    /// Height of the source image, in pixels.
    pub height: u32,
    /// Mean alpha over all pixels, in [0, 1].
    pub mean_alpha: f32,
    /// Mean squared alpha gradient per unit texture width, on the fixed analysis grid ((alpha per
    /// texture width)^2; about pi for a Gaussian blob, about 100 for a hard disc).
    pub edge_energy: f32,
    /// Alpha-weighted mean RGB colour, each in [0, 1].
    pub mean_color: [f32; 3],
    /// Alpha-weighted colour variance, mean over the RGB channels, in [0, 0.25] (reported only:
    /// it follows brightness, so the verdict uses `chroma_variance`).
    pub color_variance: f32,
    /// Alpha-weighted variance of the opponent chroma axes (hue and saturation, not brightness).
    #[serde(default)]
    pub chroma_variance: f32,
    /// Fraction of pixels with alpha above each of [`COVERAGE_THRESHOLDS`].
    pub coverage: [f32; 4],
    /// Mean alpha in [`RADIAL_BINS`] equal rings from the alpha centroid (0) to half a texture
    /// width from it (1).
    pub radial_profile: [f32; RADIAL_BINS],
    /// Mean alpha of the texture's outermost band (1/64 of its size), in [0, 1].
    pub border_alpha: f32,
    /// Alpha centroid in half-widths from the texture centre (x right, y down).
    #[serde(default)]
    pub alpha_centroid: [f32; 2],
    /// `1 - l2 / l1` of the alpha's second central moments: 0 round, near 1 a line.
    #[serde(default)]
    pub alpha_anisotropy: f32,
    /// Coefficient of variation of the alpha mass over angular sectors about the centroid.
    #[serde(default)]
    pub angular_variation: f32,
    /// Share of the alpha mass a small morphological opening removes (rays, lines, glints).
    #[serde(default)]
    pub thin_fraction: f32,
    /// Longest over median reach of the alpha in narrow sectors about the centroid (rays, spikes).
    #[serde(default)]
    pub spikiness: f32,
    /// Largest outward rise of the radial profile as a fraction of its peak (about 1 for a ring).
    pub profile_rise: f32,
    /// Largest fall of the radial profile between neighbouring rings, as a fraction of its peak.
    pub profile_max_drop: f32,
    /// Half-peak radius over tenth-peak radius of the radial profile (0.55 for a Gaussian; small
    /// for a bright point with a faint halo).
    pub core_halo_ratio: f32,
    /// How soft the texture is, in [0, 1]: above 0.5 exactly when `shape` is soft.
    pub softness: f32,
    /// The verdict.
    pub shape: Shape,
    /// Why: for a shaped texture the failed checks, for a soft one every check passed; each names
    /// the statistic, its value and the threshold.
    pub reasons: Vec<String>,
    /// True for the viewer's built-in default particle texture (see [`crate::default_texture_stats`]);
    /// the classifier may allow it at large particle sizes although it is shaped.
    #[serde(default)]
    pub is_default: bool,
}

impl TextureStats {
    /// Measures an RGBA8 image. Fails only for an empty image or one over the size limit.
    pub fn from_rgba(img: &RgbaImage) -> Result<Self, AssetError> {
        Self::from_rgba_named(img, Path::new(IN_MEMORY_NAME))
    }

    /// As [`TextureStats::from_rgba`], naming `file` in errors.
    fn from_rgba_named(img: &RgbaImage, file: &Path) -> Result<Self, AssetError> {
        check_dimensions(img.width(), img.height(), file)?;
        Ok(Self::from_measurements(&measure(img)))
    }

    /// Applies the verdict to measured numbers.
    pub(crate) fn from_measurements(m: &Measurements) -> Self {
        let shape_numbers = profile_shape(&m.radial_profile);
        let verdict = judge(m, &shape_numbers);
        TextureStats {
            width: m.width,
            height: m.height,
            mean_alpha: m.mean_alpha,
            edge_energy: m.edge_energy,
            mean_color: m.mean_color,
            color_variance: m.color_variance,
            chroma_variance: m.chroma_variance,
            coverage: m.coverage,
            radial_profile: m.radial_profile,
            border_alpha: m.border_alpha,
            alpha_centroid: m.alpha_centroid,
            alpha_anisotropy: m.alpha_anisotropy,
            angular_variation: m.angular_variation,
            thin_fraction: m.thin_fraction,
            spikiness: m.spikiness,
            profile_rise: shape_numbers.rise,
            profile_max_drop: shape_numbers.max_drop,
            core_halo_ratio: shape_numbers.core_halo_ratio,
            softness: verdict.softness,
            shape: verdict.shape,
            reasons: verdict.reasons,
            is_default: false,
        }
    }
}

/// Reads, decodes and measures a PNG, TGA or JPEG texture file.
pub fn stats_for_file(path: &Path) -> Result<TextureStats, AssetError> {
    stats_from_bytes(&read_texture_bytes(path)?, path)
}

/// Decodes and measures a texture file's bytes; `path` names it (and gives TGA its format).
pub(crate) fn stats_from_bytes(bytes: &[u8], path: &Path) -> Result<TextureStats, AssetError> {
    TextureStats::from_rgba_named(&decode_rgba(bytes, path)?, path)
}

/// Measures a non-empty image.
pub(crate) fn measure(img: &RgbaImage) -> Measurements {
    let max = f32::from(u8::MAX);
    // alpha / 255 > t exactly when the alpha byte exceeds floor(t * 255).
    let levels = COVERAGE_THRESHOLDS.map(|t| (t * max).floor() as u32);
    let sums = scan(img, &levels);
    let pixels = (u64::from(img.width()) * u64::from(img.height())) as f64;
    let (mean_color, color_variance, chroma_variance) =
        if sums.alpha_sum == 0 { (plain_mean_rgb(img), 0.0, 0.0) } else { colour_moments(&sums) };
    let shape = alpha_shape(&sums.alpha_grid);
    Measurements {
        width: img.width(),
        height: img.height(),
        mean_alpha: (sums.alpha_sum as f64 / (pixels * f64::from(max))) as f32,
        edge_energy: edge_energy(&sums.alpha_grid),
        mean_color,
        color_variance,
        chroma_variance,
        coverage: sums.coverage_counts.map(|n| (n as f64 / pixels) as f32),
        radial_profile: radial_profile(&sums.alpha_grid, shape.centroid),
        border_alpha: border_alpha(&sums.alpha_grid),
        alpha_centroid: shape.centroid,
        alpha_anisotropy: shape.anisotropy,
        angular_variation: shape.angular_variation,
        thin_fraction: shape.thin_fraction,
        spikiness: shape.spikiness,
    }
}

/// Alpha-weighted mean colour, colour variance and chroma variance (see the module docs); needs
/// some alpha.
fn colour_moments(sums: &PixelScan) -> ([f32; 3], f32, f32) {
    let max = f64::from(u8::MAX);
    let alpha_sum = sums.alpha_sum as f64;
    let mean = |ch: usize| sums.weighted_rgb[ch] as f64 / (alpha_sum * max);
    let second = |v: u64| v as f64 / (alpha_sum * max * max);
    let m = [mean(0), mean(1), mean(2)];
    // Covariance matrix of (r, g, b), alpha-weighted.
    let var = |ch: usize| (second(sums.weighted_rgb_sq[ch]) - m[ch] * m[ch]).max(0.0);
    let (vr, vg, vb) = (var(0), var(1), var(2));
    let crg = second(sums.weighted_cross[0]) - m[0] * m[1];
    let cgb = second(sums.weighted_cross[1]) - m[1] * m[2];
    let cbr = second(sums.weighted_cross[2]) - m[2] * m[0];
    // u = r - g; v = (r + g) / 2 - b.
    let var_u = vr + vg - 2.0 * crg;
    let var_v = 0.25 * (vr + vg + 2.0 * crg) + vb - (cbr + cgb);
    let chroma = (0.5 * (var_u + var_v)).max(0.0);
    (m.map(|x| x as f32), ((vr + vg + vb) / 3.0) as f32, chroma as f32)
}
