//! The soft fog-likeness score: a product of smooth ramps, each in 0..1.
//!
//! Each factor is a `smoothstep` between two named constants with units (or its complement), so the
//! score is continuous in every input and a small change of a descriptor never jumps the score.
//!
//! The score is the **product**, not a sum, because every factor is a *necessary* condition for
//! billboards to read as a volume: a few opaque sprites, a fast spray or a shaped texture look
//! wrong as fog however well the other factors score. A product acts as a fuzzy AND (one factor
//! near 0 vetoes the whole), while a sum would let a strong factor buy off a failing one and
//! convert content that should stay billboards, the costlier mistake.

use serde::Serialize;

use super::measure::Measures;
use super::TextureVerdict;

/// Overlap (billboards crossed by a typical line of sight, [`Measures::overlap`]) at which `big`
/// starts rising: a couple of sprites, each still readable.
pub const BIG_OVERLAP_LO: f32 = 2.0;
/// Overlap at which `big` is 1: sprites blur into one another along every line of sight.
pub const BIG_OVERLAP_HI: f32 = 6.0;
/// Mean alpha (particle x texture) at or below which `faint` is 1.
pub const FAINT_ALPHA_LO: f32 = 0.25;
/// Mean alpha at or above which `faint` is 0: solid-looking sprites.
pub const FAINT_ALPHA_HI: f32 = 0.75;
/// Own sizes travelled per second (as seen, [`Measures::sizes_per_s`]) at or below which `slow`
/// is 1, 1/s: a puff moving at most its own size a second drifts. Rising smoke seen as separate
/// puffs moves about that fast: buoyancy speeds its puffs up as they grow (lone puffs of most
/// public creator plumes of the real-content fixture, `tests/real_content.rs`, move 0.25-1.3
/// sizes a second, Vega's damage smoke 2.3; in a continuous stream less of that is seen).
pub const SLOW_SIZES_PER_S_LO: f32 = 1.0;
/// Own sizes travelled per second at or above which `slow` is 0, 1/s: the `streaks` exclusion's
/// limit ([`super::exclusion::STREAK_SIZES_PER_S`]), so the ramp falls from drifting to streaking.
pub const SLOW_SIZES_PER_S_HI: f32 = super::exclusion::STREAK_SIZES_PER_S;
/// Effect life at which `long_lived` starts rising, seconds (the `short_lived` limit).
pub const LONG_LIFE_LO_S: f32 = 1.5;
/// Effect life at which `long_lived` is 1, seconds.
pub const LONG_LIFE_HI_S: f32 = 4.0;
/// Spreading ([`Measures::spreading`]) at which `long_lived` starts rising for content that lives
/// less than [`LONG_LIFE_HI_S`]: the smoke of one moment covering twice its width at birth, so
/// spreading alone takes its column density to a quarter. Less than that, and a puff that fades
/// to nothing does so by other means: flames burn out, drops fall away.
pub const SPREADING_LO: f32 = 2.0;
/// Spreading at which `long_lived` is 1 whatever the life: four times the width, the column
/// density at 1/16 (about 6 %), near the few per cent at which faint smoke vanishes against what
/// is behind it; the puffs' fade is their dilution, which the density bricks draw as it is.
pub const SPREADING_HI: f32 = 4.0;
/// Texture softness at which `soft` starts rising: assetstats' soft/shaped boundary (a texture is
/// soft exactly when its softness is above 0.5, its weakest check just passing).
pub const SOFTNESS_LO: f32 = 0.5;
/// Texture softness at which `soft` is 1: every assetstats check passes by 10 % of its limit (a
/// check's score `1 / (1 + (value / limit)^4)` is 0.604 at 90 % of its limit). The ramp only
/// spans the statistics' own uncertainty, twice the 5 % by which they move with the texture's
/// resolution (assetstats README): the verdict decides, the ramp softens its edge. Real sprites
/// said why it is no wider: the tuning set's soft smoke and fire puffs sit at softness 0.59-0.92
/// and its shaped sprites wrongly called soft at 0.71-0.82, so the earlier ramp to 0.85 (65 % of
/// every limit) held a third of the soft puffs back while passing the shaped misses (assetstats
/// README, "Real sprites").
pub const SOFTNESS_HI: f32 = 0.604;
/// Particle size at which the default (sparkle) texture starts to count as soft, metres: below it
/// the sparkle's core and rays are visible.
pub const DEFAULT_TEXTURE_SOFT_SIZE_LO_M: f32 = 1.0;
/// Particle size at which the default texture counts as fully soft, metres: its bright core is
/// then a small part of a large, faint halo.
pub const DEFAULT_TEXTURE_SOFT_SIZE_HI_M: f32 = 3.0;
/// Live particles at which `alive` starts rising.
pub const ALIVE_LO: f32 = 3.0;
/// Live particles at which `alive` is 1: enough to fill a volume.
pub const ALIVE_HI: f32 = 12.0;
/// Sub-bands of the `alive` ramp: the live count re-evaluates a system when it changes band.
pub const ALIVE_RAMP_BANDS: f32 = 4.0;

/// The factors of the score, each in 0..1.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Factors {
    /// Billboards overlap heavily: size against neighbour spacing, through the cloud's depth.
    pub big: f32,
    /// Low mean alpha: particle alpha over life times texture mean alpha.
    pub faint: f32,
    /// Slow relative to size: few own sizes travelled per second where the puffs are seen apart.
    pub slow: f32,
    /// The effect lives long enough to read as a volume, or its puffs disperse as smoke does
    /// (the larger of the life ramp and the spreading ramp).
    pub long_lived: f32,
    /// Normal alpha blend (1) or not (0; also a hard exclusion).
    pub normal_blend: f32,
    /// Soft texture (the default texture: only when particles are large).
    pub soft: f32,
    /// Enough particles alive.
    pub alive: f32,
}

impl Factors {
    /// Computes every factor from the measures, the blend and the texture verdict.
    pub fn compute(m: &Measures, normal_blend: bool, texture: Option<&TextureVerdict>) -> Factors {
        let sizes_per_s = m.sizes_per_s;
        Factors {
            big: smoothstep(BIG_OVERLAP_LO, BIG_OVERLAP_HI, m.overlap),
            faint: 1.0 - smoothstep(FAINT_ALPHA_LO, FAINT_ALPHA_HI, m.alpha),
            slow: 1.0 - smoothstep(SLOW_SIZES_PER_S_LO, SLOW_SIZES_PER_S_HI, sizes_per_s),
            long_lived: smoothstep(LONG_LIFE_LO_S, LONG_LIFE_HI_S, m.life_s).max(smoothstep(
                SPREADING_LO,
                SPREADING_HI,
                m.spreading,
            )),
            normal_blend: if normal_blend { 1.0 } else { 0.0 },
            soft: texture.map_or(0.0, |t| soft_factor(t, m.size_m)),
            alive: smoothstep(ALIVE_LO, ALIVE_HI, m.alive),
        }
    }

    /// The score: the product of all factors (module docs say why a product).
    pub fn score(&self) -> f32 {
        self.big * self.faint * self.slow * self.long_lived * self.normal_blend * self.soft * self.alive
    }

    /// The factors as (stable name, value) pairs, in a fixed order.
    pub fn named(&self) -> [(&'static str, f32); 7] {
        [
            ("big", self.big),
            ("faint", self.faint),
            ("slow", self.slow),
            ("long_lived", self.long_lived),
            ("normal_blend", self.normal_blend),
            ("soft", self.soft),
            ("alive", self.alive),
        ]
    }
}

/// The `soft` factor: the texture's softness ramp; for the default texture, a ramp on particle
/// size instead (its sparkle reads as a soft glow only when drawn large).
pub fn soft_factor(texture: &TextureVerdict, size_m: f32) -> f32 {
    if texture.is_default_texture {
        smoothstep(DEFAULT_TEXTURE_SOFT_SIZE_LO_M, DEFAULT_TEXTURE_SOFT_SIZE_HI_M, size_m)
    } else if texture.shape_is_soft {
        smoothstep(SOFTNESS_LO, SOFTNESS_HI, texture.softness)
    } else {
        0.0
    }
}

/// Which band of the `alive` ramp a live count falls in: 0 below [`ALIVE_LO`], the last band at or
/// above [`ALIVE_HI`], and [`ALIVE_RAMP_BANDS`] equal bands in between.
pub fn alive_band(count: u32) -> u8 {
    let n = count as f32;
    if n < ALIVE_LO {
        0
    } else if n >= ALIVE_HI {
        ALIVE_RAMP_BANDS as u8 + 1
    } else {
        1 + ((n - ALIVE_LO) / (ALIVE_HI - ALIVE_LO) * ALIVE_RAMP_BANDS) as u8
    }
}

/// Hermite smoothstep: 0 at or below `lo`, 1 at or above `hi`, `3t^2 - 2t^3` between; NaN gives 0.
pub fn smoothstep(lo: f32, hi: f32, x: f32) -> f32 {
    let t = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
    if t.is_nan() {
        return 0.0;
    }
    t * t * (3.0 - 2.0 * t)
}
