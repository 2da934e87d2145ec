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
//! * `border_alpha`: mean alpha of the outermost grid cells (the quad's outline).
//! * `radial_profile` and the numbers read from it (see `profile`).
//!
//! The verdict and `softness` come from these (see `verdict`).

use std::path::Path;

use image::RgbaImage;
use serde::{Deserialize, Serialize};

use crate::load::{check_dimensions, decode_rgba, read_texture_bytes};
use crate::profile::{profile_shape, radial_profile, RADIAL_BINS};
use crate::scan::{border_alpha, edge_energy, plain_mean_rgb, scan, PixelScan};
use crate::verdict::judge;
use crate::AssetError;

/// Alpha levels (fractions of full alpha) at which [`TextureStats::coverage`] is measured.
pub const COVERAGE_THRESHOLDS: [f32; 4] = [0.05, 0.25, 0.5, 0.9];

/// Version of the statistics' definitions; cached statistics of another version are recomputed.
pub const STATS_VERSION: u32 = 1;

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
    pub coverage: [f32; 4],
    pub radial_profile: [f32; RADIAL_BINS],
    pub border_alpha: f32,
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
    /// Alpha-weighted colour variance, mean over the RGB channels, in [0, 0.25].
    pub color_variance: f32,
    /// Fraction of pixels with alpha above each of [`COVERAGE_THRESHOLDS`].
    pub coverage: [f32; 4],
    /// Mean alpha in [`RADIAL_BINS`] equal rings from the centre (0) to the middle of a side (1).
    pub radial_profile: [f32; RADIAL_BINS],
    /// Mean alpha of the texture's outermost band (1/64 of its size), in [0, 1].
    pub border_alpha: f32,
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
            coverage: m.coverage,
            radial_profile: m.radial_profile,
            border_alpha: m.border_alpha,
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
    let (mean_color, color_variance) =
        if sums.alpha_sum == 0 { (plain_mean_rgb(img), 0.0) } else { colour_moments(&sums) };
    Measurements {
        width: img.width(),
        height: img.height(),
        mean_alpha: (sums.alpha_sum as f64 / (pixels * f64::from(max))) as f32,
        edge_energy: edge_energy(&sums.alpha_grid),
        mean_color,
        color_variance,
        coverage: sums.coverage_counts.map(|n| (n as f64 / pixels) as f32),
        radial_profile: radial_profile(&sums.alpha_grid),
        border_alpha: border_alpha(&sums.alpha_grid),
    }
}

/// Alpha-weighted mean colour and colour variance (see the module docs); needs some alpha.
fn colour_moments(sums: &PixelScan) -> ([f32; 3], f32) {
    let max = f64::from(u8::MAX);
    let alpha_sum = sums.alpha_sum as f64;
    let mut mean = [0.0f32; 3];
    let mut variance = 0.0f64;
    for (ch, mean_ch) in mean.iter_mut().enumerate() {
        let m = sums.weighted_rgb[ch] as f64 / (alpha_sum * max);
        let m2 = sums.weighted_rgb_sq[ch] as f64 / (alpha_sum * max * max);
        *mean_ch = m as f32;
        variance += (m2 - m * m).max(0.0);
    }
    (mean, (variance / 3.0) as f32)
}
