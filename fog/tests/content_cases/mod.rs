//! The content table: descriptors modelled on real creator content (see `../content.rs`).

mod billboards;

pub use billboards::billboard_cases;
use fog::classify::{SystemContext, TextureVerdict};
use fog::Exclusion;
use glam::{Vec2, Vec3};
use particles::types::{pattern, PartFlags, PartSysData};

/// A soft smoke-puff texture as assetstats would measure it.
pub const SMOKE: TextureVerdict = TextureVerdict {
    softness: 0.85,
    shape_is_soft: true,
    mean_alpha: 0.3,
    is_default_texture: false,
    rotationally_symmetric: true,
};
/// A shaped sprite (heart, star, flame, ring, snowflake, confetti square).
pub const SHAPED: TextureVerdict = TextureVerdict {
    softness: 0.2,
    shape_is_soft: false,
    mean_alpha: 0.5,
    is_default_texture: false,
    rotationally_symmetric: false,
};
/// A hard-edged but round dot (rain streak, spark dot): not shaped enough to be excluded by shape.
pub const DOT: TextureVerdict = TextureVerdict {
    softness: 0.4,
    shape_is_soft: true,
    mean_alpha: 0.4,
    is_default_texture: false,
    rotationally_symmetric: true,
};

/// Expected outcome.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    Fog,
    /// A billboard, with the exclusion that must fire (None: the score must be below threshold).
    Billboard(Option<Exclusion>),
}

pub struct Case {
    pub name: &'static str,
    pub sys: PartSysData,
    pub ctx: SystemContext,
    pub expect: Expect,
}

/// Everything a case varies, with the viewer's defaults elsewhere.
#[derive(Clone, Copy)]
pub struct Spec {
    pattern: u8,
    speed: (f32, f32),
    radius: f32,
    accel: Vec3,
    rate_s: f32,
    count: u8,
    life_s: f32,
    scale: (Vec2, Vec2),
    alpha: (f32, f32),
    rgb: Vec3,
    flags: u32,
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            pattern: pattern::EXPLODE,
            speed: (0.1, 0.1),
            radius: 0.0,
            accel: Vec3::ZERO,
            rate_s: 0.2,
            count: 2,
            life_s: 8.0,
            scale: (Vec2::splat(2.0), Vec2::splat(2.0)),
            alpha: (0.3, 0.0),
            rgb: Vec3::splat(0.8),
            flags: PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE,
        }
    }
}

impl Spec {
    fn build(self) -> PartSysData {
        let mut s = PartSysData {
            pattern: self.pattern,
            burst_speed_min: self.speed.0,
            burst_speed_max: self.speed.1,
            burst_radius: self.radius,
            part_accel: self.accel,
            burst_rate: self.rate_s,
            burst_part_count: self.count,
            part_image_id: "11111111-2222-3333-4444-555555555555".parse().expect("uuid"),
            ..Default::default()
        };
        s.part.flags = PartFlags(self.flags);
        s.part.max_age = self.life_s;
        s.part.start_scale = self.scale.0;
        s.part.end_scale = self.scale.1;
        s.part.start_color = self.rgb.extend(self.alpha.0);
        s.part.end_color = self.rgb.extend(self.alpha.1);
        s
    }
}

pub fn ctx(texture: TextureVerdict) -> SystemContext {
    SystemContext { texture: Some(texture), ..Default::default() }
}

pub fn case(name: &'static str, spec: Spec, texture: TextureVerdict, expect: Expect) -> Case {
    Case { name, sys: spec.build(), ctx: ctx(texture), expect }
}

/// Every fog case.
pub fn fog_cases() -> Vec<Case> {
    vec![
        fog_machine(),
        low_lying_ground_fog(),
        dry_ice_stage_fog(),
        steam_vent(),
        smoke_column(),
        chimney_plume(),
        campfire_smoke(),
        waterfall_mist(),
        sunbeam_dust_haze(),
        pond_mist(),
        dust_storm(),
        default_texture_mist(),
    ]
}

/// An upward (or, negative, downward) acceleration, m/s^2.
fn up(a: f32) -> Vec3 {
    Vec3::new(0.0, 0.0, a)
}

/// Square start and end scales, metres.
fn big(a: f32, b: f32) -> (Vec2, Vec2) {
    (Vec2::splat(a), Vec2::splat(b))
}

/// Club fog machine: a slow EXPLODE of 4 m grey puffs, radius 1.5 m, 12 s life, fading out.
fn fog_machine() -> Case {
    case(
        "fog machine",
        Spec {
            radius: 1.5,
            speed: (0.05, 0.1),
            scale: big(4.0, 4.0),
            life_s: 12.0,
            rate_s: 0.5,
            count: 4,
            alpha: (0.25, 0.0),
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Low-lying ground fog: flat ANGLE fan, almost still, 5 m sheets sinking slightly, 20 s.
fn low_lying_ground_fog() -> Case {
    case(
        "low-lying ground fog",
        Spec {
            pattern: pattern::ANGLE,
            speed: (0.1, 0.2),
            radius: 2.0,
            accel: up(-0.01),
            scale: big(5.0, 5.0),
            life_s: 20.0,
            rate_s: 1.0,
            count: 5,
            alpha: (0.15, 0.0),
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Dry-ice fog spilling off a stage: ANGLE fan, sinking, bouncing on the floor, growing 3->4 m.
fn dry_ice_stage_fog() -> Case {
    case(
        "dry-ice stage fog",
        Spec {
            pattern: pattern::ANGLE,
            speed: (0.1, 0.3),
            radius: 0.5,
            accel: up(-0.05),
            scale: big(3.0, 4.0),
            life_s: 10.0,
            rate_s: 0.3,
            count: 3,
            flags: PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE | PartFlags::BOUNCE,
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Industrial steam vent: narrow cone up, puffs growing 0.6 -> 2.5 m, 5 s, white.
fn steam_vent() -> Case {
    case(
        "steam vent",
        Spec {
            pattern: pattern::ANGLE_CONE,
            speed: (0.3, 0.5),
            accel: up(0.1),
            scale: big(0.6, 2.5),
            life_s: 5.0,
            rate_s: 0.1,
            alpha: (0.5, 0.0),
            rgb: Vec3::splat(0.95),
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Factory smoke column: cone up, buoyant, drifting with the wind, 1 -> 3 m, 8 s.
fn smoke_column() -> Case {
    case(
        "smoke column",
        Spec {
            pattern: pattern::ANGLE_CONE,
            speed: (0.2, 0.4),
            accel: up(0.15),
            scale: big(1.0, 3.0),
            alpha: (0.4, 0.0),
            rgb: Vec3::splat(0.3),
            flags: PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE | PartFlags::WIND,
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Cottage chimney plume: gentle, 0.8 -> 2 m, 6 s.
fn chimney_plume() -> Case {
    case(
        "chimney plume",
        Spec {
            pattern: pattern::ANGLE_CONE,
            speed: (0.1, 0.1),
            accel: up(0.1),
            scale: big(0.8, 2.0),
            life_s: 6.0,
            rate_s: 0.3,
            alpha: (0.35, 0.0),
            rgb: Vec3::splat(0.5),
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Campfire smoke (the fire's third emitter): grey, rising slowly, 0.5 -> 2 m, 5 s.
fn campfire_smoke() -> Case {
    case(
        "campfire smoke",
        Spec {
            pattern: pattern::ANGLE_CONE,
            speed: (0.2, 0.2),
            accel: up(0.15),
            scale: big(0.5, 2.0),
            life_s: 5.0,
            rate_s: 0.1,
            count: 1,
            alpha: (0.3, 0.0),
            rgb: Vec3::splat(0.4),
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Waterfall mist at the plunge pool: EXPLODE over 2 m, 2 -> 4 m puffs, wind-blown, 6 s.
fn waterfall_mist() -> Case {
    case(
        "waterfall mist",
        Spec {
            radius: 2.0,
            speed: (0.1, 0.3),
            scale: big(2.0, 4.0),
            life_s: 6.0,
            count: 3,
            alpha: (0.2, 0.0),
            rgb: Vec3::splat(0.9),
            flags: PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE | PartFlags::WIND,
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Dust haze in a sunbeam: large faint warm fullbright puffs drifting down a shaft, 10 s.
fn sunbeam_dust_haze() -> Case {
    case(
        "sunbeam dust haze",
        Spec {
            pattern: pattern::ANGLE_CONE,
            speed: (0.05, 0.05),
            radius: 0.5,
            accel: up(-0.02),
            scale: big(2.0, 2.0),
            life_s: 10.0,
            rate_s: 0.3,
            count: 2,
            alpha: (0.1, 0.1),
            rgb: Vec3::new(1.0, 0.9, 0.7),
            flags: PartFlags::INTERP_COLOR | PartFlags::EMISSIVE,
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Pond mist: DROP, static 3 m puffs at the emitter, 15 s.
fn pond_mist() -> Case {
    case(
        "pond mist",
        Spec {
            pattern: pattern::DROP,
            scale: big(3.0, 3.0),
            life_s: 15.0,
            rate_s: 1.0,
            count: 1,
            alpha: (0.2, 0.0),
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Desert dust storm: wind-blown EXPLODE of 3 m tan puffs, 8 s.
fn dust_storm() -> Case {
    case(
        "dust storm",
        Spec {
            radius: 3.0,
            speed: (0.3, 0.5),
            scale: big(3.0, 3.0),
            count: 4,
            alpha: (0.3, 0.1),
            rgb: Vec3::new(0.7, 0.6, 0.4),
            flags: PartFlags::INTERP_COLOR | PartFlags::WIND,
            ..Default::default()
        },
        SMOKE,
        Expect::Fog,
    )
}

/// Graveyard mist made with the viewer's default texture blown up to 4 m.
fn default_texture_mist() -> Case {
    let mut default_tex = Spec { pattern: pattern::DROP, life_s: 15.0, rate_s: 0.5, ..Default::default() };
    default_tex.scale = big(4.0, 4.0);
    case("default-texture mist", default_tex, TextureVerdict::viewer_default(), Expect::Fog)
}
