//! Particle update (`LLViewerPartGroup::updateParticles`, `llviewerpartsim.cpp`), in the
//! viewer's order.
//!
//! With `t = age + dt` and `f = t / max_age` (1 when `max_age` is 0):
//! 1. FOLLOW_SRC: `pos = S + offset`;
//! 2. WIND: `vel = vel * (1 - 0.1 dt) + 0.1 dt * wind`;
//! 3. TARGET_POS: `remaining = max_age - age`, `k = 5 * clamp(dt / remaining, 0, 0.1)`,
//!    `vel = vel * (1 - k) + k * (T - pos) / remaining`;
//! 4. TARGET_LINEAR: `pos = S + f (T - S)`, `vel = T - S`; otherwise
//!    `pos += vel dt + accel dt^2 / 2`, `vel += accel dt`;
//! 5. BOUNCE: below the source's z, reflect about it and `vel.z *= -0.75`;
//! 6. FOLLOW_SRC: `offset = pos - S`;
//! 7. INTERP_COLOR: `color = lerp(start, end, f)` (RGBA); 8. INTERP_SCALE likewise;
//! 9. glow (always): `floor(255 * lerp(start_glow, end_glow, f) + 0.5) / 255` (the viewer's
//!    round-half-up byte, written with `floor` so GLSL gives the same answer);
//! 10. `age = t`; the particle dies when `age > max_age` (strict), and is discarded when its
//!     position is beyond 1e6 m or non-finite.

use glam::Vec3;

use super::emit::{position_in_range, SourceState};
use super::ribbons;
use super::Particle;
use crate::types::PartFlags;

/// WIND relaxation rate, 1/s.
const WIND_RATE_PER_S: f32 = 0.1;
/// TARGET_POS: largest fraction of the remaining life per step before the gain.
const TARGET_POS_MAX_STEP: f32 = 0.1;
/// TARGET_POS: gain on the clamped step.
const TARGET_POS_GAIN: f32 = 5.0;
/// BOUNCE: vertical velocity factor on reflection.
const BOUNCE_RESTITUTION: f32 = -0.75;
/// Glow is stored as a byte.
const GLOW_LEVELS: f32 = 255.0;

/// The source-side inputs of one particle update.
#[derive(Clone, Copy, Debug)]
pub(crate) struct UpdateCtx {
    /// Clamped frame step, seconds.
    pub dt: f32,
    /// Source position `S`.
    pub source: Vec3,
    /// Target position `T` (the source position when there is no target).
    pub target: Vec3,
    /// Region wind, m/s.
    pub wind: Vec3,
}

/// Per-frame update counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct UpdateStats {
    pub died: u32,
    pub discarded: u32,
}

impl UpdateStats {
    /// The sum of two sets of counters.
    pub fn merged(self, o: UpdateStats) -> UpdateStats {
        UpdateStats { died: self.died + o.died, discarded: self.discarded + o.discarded }
    }
}

/// Why a particle leaves the simulation this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    Lives,
    Died,
    OutOfRange,
}

/// Updates every particle of `src`, then removes the dead and re-links ribbons.
pub(crate) fn update_source_particles(src: &mut SourceState, dt: f32, wind: Vec3) -> UpdateStats {
    let ctx = UpdateCtx { dt, source: src.pos, target: src.target.unwrap_or(src.pos), wind };
    let mut stats = UpdateStats::default();
    for p in &mut src.particles {
        match update_particle(p, &ctx) {
            Fate::Lives => continue,
            Fate::Died => stats.died += 1,
            Fate::OutOfRange => stats.discarded += 1,
        }
        p.flags = PartFlags(PartFlags::DEAD);
    }
    ribbons::remove_dead(src);
    stats
}

/// One particle, one frame.
pub(crate) fn update_particle(p: &mut Particle, c: &UpdateCtx) -> Fate {
    let dt = c.dt;
    let flags = p.flags;
    let t = p.age + dt;
    let f = if p.max_age > 0.0 { t / p.max_age } else { 1.0 };
    if flags.contains(PartFlags::FOLLOW_SRC) {
        p.pos = c.source + p.offset;
    }
    if flags.contains(PartFlags::WIND) {
        p.vel = p.vel * (1.0 - WIND_RATE_PER_S * dt) + WIND_RATE_PER_S * dt * c.wind;
    }
    if flags.contains(PartFlags::TARGET_POS) {
        let remaining = p.max_age - p.age;
        let k = TARGET_POS_GAIN * (dt / remaining).clamp(0.0, TARGET_POS_MAX_STEP);
        p.vel = p.vel * (1.0 - k) + k * (c.target - p.pos) / remaining;
    }
    if flags.contains(PartFlags::TARGET_LINEAR) {
        let delta = c.target - c.source;
        p.pos = c.source + f * delta;
        p.vel = delta;
    } else {
        p.pos += p.vel * dt + 0.5 * p.accel * dt * dt;
        p.vel += p.accel * dt;
    }
    if flags.contains(PartFlags::BOUNCE) && p.pos.z < c.source.z {
        p.pos.z = c.source.z + (c.source.z - p.pos.z);
        p.vel.z *= BOUNCE_RESTITUTION;
    }
    if flags.contains(PartFlags::FOLLOW_SRC) {
        p.offset = p.pos - c.source;
    }
    if flags.contains(PartFlags::INTERP_COLOR) {
        p.color = p.start_color * (1.0 - f) + p.end_color * f;
    }
    if flags.contains(PartFlags::INTERP_SCALE) {
        p.scale = p.start_scale * (1.0 - f) + p.end_scale * f;
    }
    p.glow = quantise_glow(p.start_glow * (1.0 - f) + p.end_glow * f);
    p.age = t;
    if !position_in_range(p.pos) {
        Fate::OutOfRange
    } else if p.age > p.max_age || flags.0 == PartFlags::DEAD {
        Fate::Died
    } else {
        Fate::Lives
    }
}

/// The glow byte the viewer stores, back in 0..1: `floor(255 g + 0.5) / 255`.
pub(crate) fn quantise_glow(g: f32) -> f32 {
    (GLOW_LEVELS * g + 0.5).floor() / GLOW_LEVELS
}
