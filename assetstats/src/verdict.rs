//! From measurements to `softness` and the soft/shaped verdict.
//!
//! Each check compares one statistic with one threshold and maps it to a score in [0, 1] that is
//! exactly 0.5 at the threshold: `1 / (1 + (value / limit)^4)` for "at most" checks and
//! `1 / (1 + (limit / value)^4)` for "at least" checks. `softness` is the lowest score, so a
//! texture is soft (softness > 0.5) exactly when every check passes, and one clear failure is
//! enough to make it shaped, whatever the others say. The checks, and what each catches:
//!
//! | check | catches | why it separates |
//! |---|---|---|
//! | `edge_energy` at most [`EDGE_ENERGY_MAX`] | hard outlines: disc, star, heart, ring, text, speckle | soft falloffs stay near pi; a hard edge adds ~64 per texture width of outline |
//! | `profile_max_drop` at most [`PROFILE_DROP_MAX`] | a rim: alpha falling at once (hard disc) | a Gaussian loses at most 0.13 of its peak per ring |
//! | `profile_rise` at most [`PROFILE_RISE_MAX`] | rings, hollow shapes | a blob or puff only falls going outward |
//! | `core_halo_ratio` at least [`CORE_HALO_RATIO_MIN`] | sparkles: a bright point with a faint halo | 0.55 for any Gaussian, 0.30 for an exponential falloff |
//! | `border_alpha` at most [`BORDER_ALPHA_MAX`] | textures that fill the quad: the billboard's square outline shows | soft puffs fade out before the edge |
//! | `coverage` above alpha 0.9 at most [`OPAQUE_COVERAGE_MAX`] | solid cards (opaque RGB images, grey images) | fog is faint; a puff's opaque core is small |
//! | `chroma_variance` at most [`CHROMA_VARIANCE_MAX`] | pictures drawn in several hues | fog takes one tint, the texture's mean colour; brightness is left out, so a grey or white sprite passes whatever its shading |
//! | `alpha_anisotropy` at most [`ANISOTROPY_MAX`] | streaks, flame tongues, slashes, spark lines, traces | a puff is about as wide as tall |
//! | `angular_variation` at most [`ANGULAR_VARIATION_MAX`] | stars, petals, muzzle flashes, hearts, rays | a puff's outline is about the same in every direction |
//! | `thin_fraction` at most [`THIN_FRACTION_MAX`] | rays, lines, glints, scratches, strokes | a puff has no structure thinner than a few grid cells |
//! | `mean_alpha` at least [`MEAN_ALPHA_MIN`] | empty textures | nothing to turn into density |
//!
//! The thresholds sit roughly midway (geometrically) between the soft test shapes and the nearest
//! shaped ones; the tests in `tests/shapes.rs` pin the verdicts.

use crate::profile::ProfileShape;
use crate::stats::{Measurements, Shape};

/// Most edge energy ((alpha per texture width)^2) a soft texture may have.
pub const EDGE_ENERGY_MAX: f32 = 22.0;
/// Largest fall of the radial profile between neighbouring rings (fraction of the peak) for soft.
pub const PROFILE_DROP_MAX: f32 = 0.45;
/// Largest outward rise of the radial profile (fraction of the peak) for soft.
pub const PROFILE_RISE_MAX: f32 = 0.4;
/// Smallest half-peak / tenth-peak radius ratio for soft.
pub const CORE_HALO_RATIO_MIN: f32 = 0.35;
/// Largest mean alpha along the texture's border for soft.
pub const BORDER_ALPHA_MAX: f32 = 0.15;
/// Largest fraction of pixels above alpha 0.9 for soft.
pub const OPAQUE_COVERAGE_MAX: f32 = 0.6;
/// Largest alpha-weighted colour variance (mean over RGB, colour in [0, 1]) the verdict used
/// before `chroma_variance` (kept for callers; no longer a check: it follows brightness).
pub const COLOR_VARIANCE_MAX: f32 = 0.06;
/// Largest alpha-weighted chroma variance (opponent axes, colour in [0, 1]) for soft.
pub const CHROMA_VARIANCE_MAX: f32 = 0.03;
/// Largest alpha anisotropy (`1 - l2 / l1`) for soft.
pub const ANISOTROPY_MAX: f32 = 0.5;
/// Largest angular variation (coefficient of variation over the sectors) for soft.
pub const ANGULAR_VARIATION_MAX: f32 = 0.45;
/// Largest thin fraction (alpha mass an opening removes) for soft.
pub const THIN_FRACTION_MAX: f32 = 0.25;
/// Smallest mean alpha for soft.
pub const MEAN_ALPHA_MIN: f32 = 0.005;

/// Exponent of the check scores: higher makes the score fall faster past the threshold.
const SCORE_STEEPNESS: i32 = 4;
/// Index of the 0.9 level in `COVERAGE_THRESHOLDS`.
const OPAQUE_COVERAGE_INDEX: usize = 3;

/// The verdict on one texture.
pub(crate) struct Verdict {
    pub softness: f32,
    pub shape: Shape,
    pub reasons: Vec<String>,
}

/// One statistic against one threshold.
struct Check {
    name: &'static str,
    value: f32,
    limit: f32,
    /// True for "at most `limit`", false for "at least `limit`".
    at_most: bool,
    /// What a failure means, for the reason string.
    failure: &'static str,
}

impl Check {
    fn passes(&self) -> bool {
        if self.at_most {
            self.value < self.limit
        } else {
            self.value > self.limit
        }
    }

    fn score(&self) -> f32 {
        let ratio = if self.at_most {
            self.value / self.limit
        } else if self.value > 0.0 {
            self.limit / self.value
        } else {
            f32::INFINITY
        };
        1.0 / (1.0 + ratio.max(0.0).powi(SCORE_STEEPNESS))
    }

    fn describe(&self) -> String {
        let (ok, bad) = if self.at_most { ("<", ">=") } else { (">", "<=") };
        if self.passes() {
            format!("{} {:.3} {ok} {}: ok", self.name, self.value, self.limit)
        } else {
            let name = self.name;
            format!("{name} {:.3} {bad} {}: {}", self.value, self.limit, self.failure)
        }
    }
}

/// Runs every check.
pub(crate) fn judge(m: &Measurements, profile: &ProfileShape) -> Verdict {
    let checks = checks(m, profile);
    let softness = checks.iter().map(Check::score).fold(1.0f32, f32::min);
    let soft = checks.iter().all(Check::passes);
    let reasons = checks.iter().filter(|c| soft || !c.passes()).map(Check::describe).collect();
    Verdict { softness, shape: if soft { Shape::Soft } else { Shape::Shaped }, reasons }
}

/// The checks of the table in the module docs, in that order.
fn checks(m: &Measurements, profile: &ProfileShape) -> [Check; 11] {
    [
        Check {
            name: "edge_energy",
            value: m.edge_energy,
            limit: EDGE_ENERGY_MAX,
            at_most: true,
            failure: "hard alpha edges (outline, text or speckle)",
        },
        Check {
            name: "profile_max_drop",
            value: profile.max_drop,
            limit: PROFILE_DROP_MAX,
            at_most: true,
            failure: "alpha falls off at once (hard rim)",
        },
        Check {
            name: "profile_rise",
            value: profile.rise,
            limit: PROFILE_RISE_MAX,
            at_most: true,
            failure: "alpha rises away from the centre (ring or hollow shape)",
        },
        Check {
            name: "core_halo_ratio",
            value: profile.core_halo_ratio,
            limit: CORE_HALO_RATIO_MIN,
            at_most: false,
            failure: "bright point core with a faint wide halo (sparkle)",
        },
        Check {
            name: "border_alpha",
            value: m.border_alpha,
            limit: BORDER_ALPHA_MAX,
            at_most: true,
            failure: "alpha reaches the texture border (the quad outline shows)",
        },
        Check {
            name: "coverage_above_0.9",
            value: m.coverage[OPAQUE_COVERAGE_INDEX],
            limit: OPAQUE_COVERAGE_MAX,
            at_most: true,
            failure: "mostly opaque (a solid card, not a wisp)",
        },
        Check {
            name: "chroma_variance",
            value: m.chroma_variance,
            limit: CHROMA_VARIANCE_MAX,
            at_most: true,
            failure: "strongly varying hue (a picture, not one tint)",
        },
        Check {
            name: "alpha_anisotropy",
            value: m.alpha_anisotropy,
            limit: ANISOTROPY_MAX,
            at_most: true,
            failure: "elongated (a streak, tongue or line)",
        },
        Check {
            name: "angular_variation",
            value: m.angular_variation,
            limit: ANGULAR_VARIATION_MAX,
            at_most: true,
            failure: "outline varies around the centre (star, petals, rays)",
        },
        Check {
            name: "thin_fraction",
            value: m.thin_fraction,
            limit: THIN_FRACTION_MAX,
            at_most: true,
            failure: "thin structures (rays, lines, glints)",
        },
        Check {
            name: "mean_alpha",
            value: m.mean_alpha,
            limit: MEAN_ALPHA_MIN,
            at_most: false,
            failure: "almost fully transparent",
        },
    ]
}
