//! Hard exclusions: conditions under which a system stays a billboard whatever its score.
//!
//! Converting something that should stay a billboard is far worse than leaving fog as billboards,
//! so anything whose look depends on the billboard itself (additive or other blends, glow, ribbons,
//! steered or line-interpolated particles, velocity-aligned sprites, shaped textures), anything too
//! small, fast or brief to read as a volume, worn and HUD attachments, and the settings switches
//! exclude. Fullbright (`EMISSIVE`) alone does not: it becomes an emission term instead.
//!
//! Speed has two rules, one per kind of fast content. `too_fast` is an absolute ceiling on how
//! fast particles are thrown, blown or fall (sparks, jets, bursts, rain): such content is fast by
//! nature, whatever its size. `streaks` judges the rest, buoyant rise included, against the
//! particle's own size and only where the puffs are seen apart: a chain of separate puffs moving
//! several of their sizes a second streaks; the same puffs overlapping along a continuous column
//! show a column standing still, which is what a density volume draws.

use particles::types::{blend, PartFlags, PartSysData};
use settings::Settings;

use super::measure::Measures;
use super::SystemContext;

/// Particles smaller than this (time-averaged geometric-mean size) stay billboards, metres.
pub const MIN_SIZE_M: f32 = 0.5;
/// Particles thrown, blown or falling faster than this ([`Measures::ballistic_speed_m_per_s`]:
/// RMS over life of the launch, the wind and the acceleration less its upward part) stay
/// billboards whatever their size, m/s: genuinely fast content (sparks, rain, water jets, bursts).
/// Buoyant rise is left to [`STREAK_SIZES_PER_S`]: a smoke plume gains its speed from a gentle
/// upward push while its puffs grow, and looks fast or not by its puffs' size.
pub const MAX_SPEED_M_PER_S: f32 = 4.0;
/// Particles travelling more than this many of their own sizes per second, as seen
/// ([`Measures::sizes_per_s`]: the motion of puffs seen apart, not of puffs sliding through a
/// continuous column), streak (a 0.05 m spark at 2 m/s moves 40 sizes a second; a 4 m puff at
/// 2 m/s half a size) and stay billboards, 1/s.
pub const STREAK_SIZES_PER_S: f32 = 2.0;
/// Width over height (or height over width) above which a particle is not square, so turning it
/// with `FOLLOW_VELOCITY` is visible.
pub const SQUARE_ASPECT_MAX: f32 = 1.25;
/// Effects living less than this stay billboards, seconds.
pub const MIN_LIFE_S: f32 = 1.5;

/// One hard exclusion. [`Exclusion::id`] gives its stable short id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Exclusion {
    /// Additive blend: the destination factor is ONE.
    AdditiveBlend,
    /// Any other blend pair than (SOURCE_ALPHA, ONE_MINUS_SOURCE_ALPHA).
    NonNormalBlend,
    /// Glow above zero at start or end.
    Glow,
    /// RIBBON: particles joined into a strip.
    Ribbon,
    /// TARGET_POS: particles steered toward a target.
    TargetPos,
    /// TARGET_LINEAR: particles on a line to a target (a beam or leash).
    TargetLinear,
    /// FOLLOW_VELOCITY on a sprite whose turning shows: a texture that is not rotationally
    /// symmetric (or unknown), or a particle that is not square.
    FollowVelocity,
    /// Smaller than [`MIN_SIZE_M`].
    TooSmall,
    /// Thrown, blown or falling faster than [`MAX_SPEED_M_PER_S`].
    TooFast,
    /// More than [`STREAK_SIZES_PER_S`] own sizes per second where the puffs are seen apart:
    /// streaks rather than drifts.
    Streaks,
    /// Effect life under [`MIN_LIFE_S`].
    ShortLived,
    /// The texture is shaped (stars, hearts, flames, rings ...).
    ShapedTexture,
    /// The texture's statistics are not known (yet).
    UnknownTexture,
    /// Worn on an avatar, with `RenderVKParticleFogAttachments` off.
    Attachment,
    /// A HUD attachment.
    Hud,
    /// `RenderVKVolumetricFog` is off.
    VolumetricFogOff,
    /// `RenderVKParticleFog` is off.
    ParticleFogOff,
}

impl Exclusion {
    /// Every exclusion, in report order.
    pub const ALL: [Exclusion; 17] = [
        Exclusion::AdditiveBlend,
        Exclusion::NonNormalBlend,
        Exclusion::Glow,
        Exclusion::Ribbon,
        Exclusion::TargetPos,
        Exclusion::TargetLinear,
        Exclusion::FollowVelocity,
        Exclusion::TooSmall,
        Exclusion::TooFast,
        Exclusion::Streaks,
        Exclusion::ShortLived,
        Exclusion::ShapedTexture,
        Exclusion::UnknownTexture,
        Exclusion::Attachment,
        Exclusion::Hud,
        Exclusion::VolumetricFogOff,
        Exclusion::ParticleFogOff,
    ];

    /// The stable short id used in reports and tests.
    pub fn id(self) -> &'static str {
        match self {
            Exclusion::AdditiveBlend => "additive_blend",
            Exclusion::NonNormalBlend => "non_normal_blend",
            Exclusion::Glow => "glow",
            Exclusion::Ribbon => "ribbon",
            Exclusion::TargetPos => "target_pos",
            Exclusion::TargetLinear => "target_linear",
            Exclusion::FollowVelocity => "follow_velocity",
            Exclusion::TooSmall => "too_small",
            Exclusion::TooFast => "too_fast",
            Exclusion::Streaks => "streaks",
            Exclusion::ShortLived => "short_lived",
            Exclusion::ShapedTexture => "shaped_texture",
            Exclusion::UnknownTexture => "unknown_texture",
            Exclusion::Attachment => "attachment",
            Exclusion::Hud => "hud",
            Exclusion::VolumetricFogOff => "volumetric_fog_off",
            Exclusion::ParticleFogOff => "particle_fog_off",
        }
    }

    /// A sentence for creators in plain words: the measured value and the limit the design sets.
    pub fn sentence(self, sys: &PartSysData, m: &Measures) -> String {
        let part = &sys.part;
        match self {
            Exclusion::AdditiveBlend | Exclusion::NonNormalBlend => format!(
                "blend pair ({}, {}) is not the normal alpha blend ({}, {}): additive and other blends \
                 glow or tint through, and the design keeps them billboards",
                part.blend_func_source,
                part.blend_func_dest,
                blend::SOURCE_ALPHA,
                blend::ONE_MINUS_SOURCE_ALPHA
            ),
            Exclusion::Glow => {
                format!("particles glow ({:.2}): the design keeps glowing particles billboards", m.glow)
            }
            Exclusion::Ribbon => "RIBBON joins the particles into a strip: ribbons are never fog".into(),
            Exclusion::TargetPos => {
                "TARGET_POS steers the particles to a target: targeted particles are never fog".into()
            }
            Exclusion::TargetLinear => {
                "TARGET_LINEAR draws a line to a target (a beam or leash): targeted particles are never fog"
                    .into()
            }
            Exclusion::FollowVelocity => "the sprites turn with their motion (FOLLOW_VELOCITY), and the \
                 texture is not round or the particles are not square, so the turning shows: the design \
                 keeps such sprites billboards"
                .into(),
            Exclusion::TooSmall => {
                format!(
                    "particles are {:.2} m: smaller than the {MIN_SIZE_M} m the design converts",
                    m.size_m
                )
            }
            Exclusion::TooFast => format!(
                "particles are thrown, blown or fall at {:.1} m/s (RMS over their life of the launch, the \
                 wind and the acceleration less its upward part): faster than the {MAX_SPEED_M_PER_S} m/s \
                 the design converts (sparks, rain, jets)",
                m.ballistic_speed_m_per_s
            ),
            Exclusion::Streaks => format!(
                "particles move {:.1} sizes per second as seen over their life (RMS {:.2} m/s, mean size \
                 {:.2} m; {:.0} % of the motion hidden in a continuous stream): they streak rather than \
                 drift, over the {STREAK_SIZES_PER_S} the design converts",
                m.sizes_per_s,
                m.speed_m_per_s,
                m.size_m,
                100.0 * m.stream_continuity
            ),
            Exclusion::ShortLived => short_lived_sentence(m),
            Exclusion::ShapedTexture => {
                "the texture is shaped (not a soft puff): the design keeps shaped sprites billboards".into()
            }
            Exclusion::UnknownTexture => {
                "the texture's statistics are not known yet: it stays billboards until they are".into()
            }
            Exclusion::Attachment => "worn on an avatar: the design keeps attachments billboards while \
                 RenderVKParticleFogAttachments is off"
                .into(),
            Exclusion::Hud => "a HUD attachment: HUD particles are never fog".into(),
            Exclusion::VolumetricFogOff => "RenderVKVolumetricFog is off".into(),
            Exclusion::ParticleFogOff => "RenderVKParticleFog is off".into(),
        }
    }

    /// True when a per-object override to fog ([`super::Override::Fog`]) passes this exclusion: a
    /// person may judge small, fast, brief, shaped, blended, glowing, turning or worn particles to
    /// be fog. Ribbons, targeted particles and HUD particles make no sense as fog, and the two
    /// settings switches are the viewer's, not the object's: no override passes those.
    pub fn overridable(self) -> bool {
        !matches!(
            self,
            Exclusion::Ribbon
                | Exclusion::TargetPos
                | Exclusion::TargetLinear
                | Exclusion::Hud
                | Exclusion::VolumetricFogOff
                | Exclusion::ParticleFogOff
        )
    }
}

impl Exclusion {
    /// What a creator could change so this exclusion no longer applies (empty where nothing in the
    /// content can: settings or attachment points).
    pub fn remedy(self) -> &'static str {
        match self {
            Exclusion::AdditiveBlend | Exclusion::NonNormalBlend => {
                "use the normal alpha blend (PSYS_PART_BF_SOURCE_ALPHA, PSYS_PART_BF_ONE_MINUS_SOURCE_ALPHA)"
            }
            Exclusion::Glow => "set PSYS_PART_START_GLOW and PSYS_PART_END_GLOW to 0",
            Exclusion::Ribbon => "drop PSYS_PART_RIBBON_MASK",
            Exclusion::TargetPos | Exclusion::TargetLinear => "drop the target flags",
            Exclusion::FollowVelocity => {
                "drop PSYS_PART_FOLLOW_VELOCITY_MASK, or use a round soft texture and square particles"
            }
            Exclusion::TooSmall => "make the particles at least 0.5 m across",
            Exclusion::TooFast => {
                "slow the launch (burst speed), the fall and any sideways push (downward and sideways \
                 acceleration) under 4 m/s; an upward push is judged by the particles' size"
            }
            Exclusion::Streaks => {
                "make the particles larger or slower, under 2 sizes per second, or emit them often \
                 enough that each overlaps the next along its path (a continuous column does not streak)"
            }
            Exclusion::ShortLived => "let the particles (and the source) live at least 1.5 s",
            Exclusion::ShapedTexture => "use a soft, round puff texture (texture has a hard-edged shape)",
            Exclusion::UnknownTexture => "wait for the texture to load, or name its file",
            Exclusion::Attachment => "turn RenderVKParticleFogAttachments on, or rez the emitter in-world",
            Exclusion::Hud => "HUD particles never become fog",
            Exclusion::VolumetricFogOff => "turn RenderVKVolumetricFog on",
            Exclusion::ParticleFogOff => "turn RenderVKParticleFog on",
        }
    }
}

/// The `short_lived` sentence, naming whether the particle or the source is the short one.
fn short_lived_sentence(m: &Measures) -> String {
    if m.source_life_s < m.particle_life_s {
        format!(
            "the source dies after {:.2} s (particles live {:.2} s): shorter than the {MIN_LIFE_S} s \
             the design converts",
            m.source_life_s, m.particle_life_s
        )
    } else {
        format!("particles live {:.2} s: shorter than the {MIN_LIFE_S} s the design converts", m.life_s)
    }
}

/// True when the particle is square at start and end (within [`SQUARE_ASPECT_MAX`]).
fn is_square(sys: &PartSysData) -> bool {
    let square = |v: glam::Vec2| {
        let (a, b) = (v.x.abs(), v.y.abs());
        let (lo, hi) = (a.min(b), a.max(b));
        hi <= lo * SQUARE_ASPECT_MAX
    };
    let part = &sys.part;
    square(part.start_scale) && (!part.flags.contains(PartFlags::INTERP_SCALE) || square(part.end_scale))
}

/// A set of exclusions (a bit per [`Exclusion`]); `Copy` and allocation-free.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ExclusionSet(u32);

impl ExclusionSet {
    /// Adds `e` when `cond` holds.
    pub fn add_if(&mut self, cond: bool, e: Exclusion) {
        if cond {
            self.0 |= 1 << e as u8;
        }
    }

    /// True when `e` is in the set.
    pub fn contains(self, e: Exclusion) -> bool {
        self.0 & (1 << e as u8) != 0
    }

    /// True when no exclusion fired.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The exclusions in the set, in [`Exclusion::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Exclusion> {
        Exclusion::ALL.into_iter().filter(move |e| self.contains(*e))
    }

    /// Every hard exclusion that applies to a system.
    pub fn evaluate(
        sys: &PartSysData,
        ctx: &SystemContext,
        settings: &Settings,
        m: &Measures,
    ) -> ExclusionSet {
        let part = &sys.part;
        let flags = part.flags;
        let mut set = ExclusionSet::default();
        let normal = part.is_normal_alpha_blend();
        set.add_if(!normal && part.blend_func_dest == blend::ONE, Exclusion::AdditiveBlend);
        set.add_if(!normal && part.blend_func_dest != blend::ONE, Exclusion::NonNormalBlend);
        set.add_if(m.glow > 0.0, Exclusion::Glow);
        set.add_if(flags.intersects(PartFlags::RIBBON), Exclusion::Ribbon);
        set.add_if(flags.intersects(PartFlags::TARGET_POS), Exclusion::TargetPos);
        set.add_if(flags.intersects(PartFlags::TARGET_LINEAR), Exclusion::TargetLinear);
        let turning_shows = !ctx.texture.is_some_and(|t| t.rotationally_symmetric) || !is_square(sys);
        set.add_if(flags.intersects(PartFlags::FOLLOW_VELOCITY) && turning_shows, Exclusion::FollowVelocity);
        set.add_if(m.size_m.is_nan() || m.size_m < MIN_SIZE_M, Exclusion::TooSmall);
        let speed = m.ballistic_speed_m_per_s;
        set.add_if(speed.is_nan() || speed > MAX_SPEED_M_PER_S, Exclusion::TooFast);
        let sizes = m.sizes_per_s;
        set.add_if(sizes.is_nan() || sizes > STREAK_SIZES_PER_S, Exclusion::Streaks);
        set.add_if(m.life_s.is_nan() || m.life_s < MIN_LIFE_S, Exclusion::ShortLived);
        match &ctx.texture {
            None => set.add_if(true, Exclusion::UnknownTexture),
            Some(t) => set.add_if(!t.is_default_texture && !t.shape_is_soft, Exclusion::ShapedTexture),
        }
        set.add_if(ctx.attachment && !settings.particle_fog_attachments, Exclusion::Attachment);
        set.add_if(ctx.hud || flags.intersects(PartFlags::HUD), Exclusion::Hud);
        set.add_if(!settings.volumetric_fog, Exclusion::VolumetricFogOff);
        set.add_if(!settings.particle_fog, Exclusion::ParticleFogOff);
        set
    }
}
