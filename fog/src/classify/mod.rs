//! Classification of legacy particle systems into volumetric fog, with hysteresis.
//!
//! Algorithm, per particle system, on the CPU:
//!
//! 1. [`measure`]: judge the *whole effect* the way a person would: its particles' size over their
//!    life, how fast they really move (pattern, acceleration, wind), how long the effect lives, how
//!    many particles are alive and how closely they are packed ([`Measures`]).
//! 2. [`exclusion`]: hard exclusions that keep a billboard whatever the score (non-normal blend,
//!    glow, ribbons, targets, small, fast, short-lived, shaped or unknown texture, worn or HUD
//!    attachment, settings off) ([`ExclusionSet`]).
//! 3. [`factors`]: a soft score in 0..1, the product of smooth documented ramps (big, faint, slow,
//!    long-lived, normal blend, soft texture, enough alive) ([`Factors`]).
//! 4. [`assess`]: the pure [`classify()`] combining the three into an [`Assessment`], and the
//!    creator-facing [`Explanation`].
//! 5. [`overrides`]: a person's per-object [`Override`] (automatic, always fog, never fog),
//!    keyed by [`SystemKey`] (object id and link number).
//! 6. [`hysteresis`]: the [`Classifier`], which converts above `RenderVKParticleFogThreshold`,
//!    reverts below threshold - 0.2, keeps its state in between, applies each system's override,
//!    cross-fades the blend weight at a bounded rate, and re-evaluates a system only when its
//!    inputs or its override change.
//!
//! Viewer facts (patterns, flags, update rules) are from the viewer's `llpartdata.h`,
//! `llviewerpartsource.cpp` and `llviewerpartsim.cpp`; the classification is this project's design.

pub mod advice;
pub mod assess;
pub mod exclusion;
pub mod factors;
pub mod hysteresis;
pub mod measure;
pub mod overrides;

use assetstats::{Shape, TextureStats};

pub use assess::{
    classify, one_shot_weight, one_shot_weight_with, Assessment, ExclusionNote, Explanation, Verdict,
    RULE_OVERRIDE, RULE_SCORE,
};
pub use exclusion::{Exclusion, ExclusionSet};
pub use factors::Factors;
pub use hysteresis::Classifier;
pub use measure::Measures;
pub use overrides::{Override, SystemKey};

/// What the classifier needs to know about a system's texture: a digest of the texture
/// statistics (`assetstats::TextureStats`, converted with `From`). A system whose texture has no statistics yet passes
/// `None` and stays a billboard (`unknown_texture`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureVerdict {
    /// How soft (blurry, edge-free) the texture is, 0 (hard-edged) to 1 (a smooth puff).
    pub softness: f32,
    /// True when the texture's shape is `soft`; false for `shaped` (a star, heart, flame, ring...).
    pub shape_is_soft: bool,
    /// Mean alpha over the whole texture, 0..1: how much of the billboard square it actually covers.
    pub mean_alpha: f32,
    /// True for the viewer's built-in default particle texture (`pixiesmall.j2c`, for a null id).
    pub is_default_texture: bool,
    /// True when turning the sprite changes nothing visible: its alpha is round (assetstats'
    /// `alpha_anisotropy` at most [`SYMMETRIC_ANISOTROPY_MAX`] and `angular_variation` at most
    /// [`SYMMETRIC_ANGULAR_VARIATION_MAX`]). `FOLLOW_VELOCITY` only excludes where this is false.
    pub rotationally_symmetric: bool,
}

/// Largest alpha anisotropy of a texture that turning leaves looking the same.
pub const SYMMETRIC_ANISOTROPY_MAX: f32 = 0.35;
/// Largest angular variation of a texture that turning leaves looking the same.
pub const SYMMETRIC_ANGULAR_VARIATION_MAX: f32 = 0.45;

impl TextureVerdict {
    /// A typical soft smoke puff: a radial Gaussian-like blob covering about a third of its square.
    /// Used by the report's `--unknown-texture soft` policy.
    pub const ASSUMED_SOFT: TextureVerdict = TextureVerdict {
        softness: 1.0,
        shape_is_soft: true,
        mean_alpha: ASSUMED_SOFT_MEAN_ALPHA,
        is_default_texture: false,
        rotationally_symmetric: true,
    };

    /// A shaped texture (the report's `--unknown-texture shaped` policy).
    pub const ASSUMED_SHAPED: TextureVerdict = TextureVerdict {
        softness: 0.0,
        shape_is_soft: false,
        mean_alpha: 1.0,
        is_default_texture: false,
        rotationally_symmetric: false,
    };

    /// The viewer's default texture (`pixiesmall.j2c`), from the statistics
    /// `assetstats` ships for it. Its shape and softness are irrelevant: the default texture counts
    /// as soft only through the particle size (see [`factors::soft_factor`]).
    pub fn viewer_default() -> TextureVerdict {
        TextureVerdict::from(&assetstats::default_texture_stats())
    }
}

impl From<&TextureStats> for TextureVerdict {
    fn from(stats: &TextureStats) -> TextureVerdict {
        TextureVerdict {
            softness: stats.softness,
            shape_is_soft: stats.shape == Shape::Soft,
            mean_alpha: stats.mean_alpha,
            is_default_texture: stats.is_default,
            rotationally_symmetric: stats.alpha_anisotropy <= SYMMETRIC_ANISOTROPY_MAX
                && stats.angular_variation <= SYMMETRIC_ANGULAR_VARIATION_MAX,
        }
    }
}

/// Mean alpha assumed for a soft puff texture of unknown statistics (a Gaussian with sigma about a
/// quarter of the square covers roughly a third of it).
pub const ASSUMED_SOFT_MEAN_ALPHA: f32 = 0.35;

/// Per-system facts beside the descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SystemContext {
    /// The source is worn on an avatar (converted only with `RenderVKParticleFogAttachments`).
    pub attachment: bool,
    /// The source is a HUD attachment (never converted).
    pub hud: bool,
    /// Texture statistics digest, `None` while unknown.
    pub texture: Option<TextureVerdict>,
    /// Particles of this system alive now, when the simulation knows it; otherwise estimated.
    pub live_count: Option<u32>,
}
