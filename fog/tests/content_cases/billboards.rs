//! Counter-examples: content that must stay billboards, each with the exclusion that must fire
//! (or `None` when the soft score must keep it a billboard). One function per build.

use fog::classify::{SystemContext, TextureVerdict};
use fog::Exclusion as X;
use glam::{Vec2, Vec3};
use particles::types::{blend, pattern, PartFlags, PartSysData};

use super::{case, ctx, Case, Expect, Spec, DOT, SHAPED, SMOKE};

/// Every counter-example.
pub fn billboard_cases() -> Vec<Case> {
    vec![
        campfire_flame_core(),
        campfire_sparks(),
        campfire_embers(),
        firework_burst(),
        welding_sparks(),
        rain(),
        rain_sheet(),
        snow(),
        hearts(),
        glitter(),
        bubbles(),
        leash(),
        ribbon_trail(),
        laser_beam(),
        confetti(),
        additive_magic_aura(),
        glowing_orb(),
        opaque_cartoon_puffs(),
        sparse_cloudlets(),
        sky_cloud_sprites(),
        one_shot_smoke_puff(),
        coffee_cup_steam(),
        default_texture_pixie_dust(),
        smoke_texture_unknown(),
        frosty_breath_worn(),
        hud_fog_overlay(),
    ]
}

/// An upward (or, negative, downward) acceleration, m/s^2.
fn up(a: f32) -> Vec3 {
    Vec3::new(0.0, 0.0, a)
}

/// Square start and end scales, metres.
fn sz(a: f32, b: f32) -> (Vec2, Vec2) {
    (Vec2::splat(a), Vec2::splat(b))
}

/// The system with an additive blend (destination factor ONE).
fn additive(mut s: PartSysData) -> PartSysData {
    s.part.blend_func_dest = blend::ONE;
    s
}

/// The system with a start glow.
fn glowing(mut s: PartSysData, g: f32) -> PartSysData {
    s.part.start_glow = g;
    s
}

/// A billboard because of exclusion `x`.
fn bb(x: X) -> Expect {
    Expect::Billboard(Some(x))
}

/// Campfire: the flame core (additive, emissive, 0.8 s, shrinking tongues of flame).
fn campfire_flame_core() -> Case {
    let flame = Spec {
        pattern: pattern::ANGLE_CONE,
        speed: (0.3, 0.3),
        accel: up(0.5),
        scale: sz(0.5, 0.1),
        life_s: 0.8,
        rate_s: 0.05,
        alpha: (1.0, 0.0),
        rgb: Vec3::new(1.0, 0.6, 0.2),
        flags: PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE | PartFlags::EMISSIVE,
        ..Default::default()
    };
    Case {
        name: "campfire flame core",
        sys: additive(flame.build()),
        ctx: ctx(SHAPED),
        expect: bb(X::AdditiveBlend),
    }
}

/// Campfire: sparks shooting up and falling back.
fn campfire_sparks() -> Case {
    let sparks = Spec {
        speed: (1.0, 2.0),
        accel: up(-2.0),
        scale: sz(0.05, 0.05),
        life_s: 1.5,
        rate_s: 0.1,
        count: 5,
        alpha: (1.0, 1.0),
        rgb: Vec3::new(1.0, 0.8, 0.3),
        flags: PartFlags::EMISSIVE,
        ..Default::default()
    };
    Case { name: "campfire sparks", sys: glowing(sparks.build(), 0.2), ctx: ctx(DOT), expect: bb(X::Streaks) }
}

/// Campfire: embers drifting up (small, glowing).
fn campfire_embers() -> Case {
    let embers = Spec {
        pattern: pattern::ANGLE_CONE,
        speed: (0.3, 0.6),
        accel: up(0.3),
        scale: sz(0.08, 0.08),
        life_s: 3.0,
        alpha: (1.0, 0.0),
        rgb: Vec3::new(1.0, 0.4, 0.1),
        flags: PartFlags::INTERP_COLOR | PartFlags::EMISSIVE,
        ..Default::default()
    };
    Case {
        name: "campfire embers",
        sys: glowing(embers.build(), 0.1),
        ctx: ctx(DOT),
        expect: bb(X::TooSmall),
    }
}

/// Firework burst: additive, hundreds of fast particles.
fn firework_burst() -> Case {
    let fireworks = Spec {
        speed: (5.0, 8.0),
        accel: up(-2.0),
        scale: sz(0.2, 0.2),
        life_s: 2.0,
        rate_s: 3.0,
        count: 100,
        alpha: (1.0, 0.0),
        rgb: Vec3::new(1.0, 0.2, 0.8),
        ..Default::default()
    };
    Case { name: "firework burst", sys: additive(fireworks.build()), ctx: ctx(DOT), expect: bb(X::Streaks) }
}

/// Welding sparks: velocity-aligned streaks under gravity.
fn welding_sparks() -> Case {
    let welding = Spec {
        speed: (2.0, 4.0),
        accel: up(-9.8),
        scale: (Vec2::new(0.03, 0.2), Vec2::new(0.03, 0.2)),
        life_s: 1.0,
        count: 10,
        rate_s: 0.05,
        alpha: (1.0, 1.0),
        flags: PartFlags::FOLLOW_VELOCITY | PartFlags::EMISSIVE,
        ..Default::default()
    };
    case("welding sparks", welding, DOT, bb(X::FollowVelocity))
}

/// Rain: a wide cone of thin streaks falling at 8 m/s.
fn rain() -> Case {
    let rain = Spec {
        pattern: pattern::ANGLE_CONE,
        speed: (6.0, 8.0),
        radius: 8.0,
        accel: up(-9.8),
        scale: (Vec2::new(0.02, 0.5), Vec2::new(0.02, 0.5)),
        life_s: 2.0,
        rate_s: 0.02,
        count: 20,
        alpha: (0.5, 0.5),
        rgb: Vec3::splat(0.8),
        flags: 0,
    };
    case("rain", rain, DOT, bb(X::TooFast))
}

/// Rain sheet: huge soft falling sheets; big and faint but far too fast.
fn rain_sheet() -> Case {
    let rain_sheet = Spec {
        pattern: pattern::DROP,
        accel: up(-5.0),
        scale: sz(8.0, 8.0),
        life_s: 3.0,
        rate_s: 0.3,
        count: 1,
        alpha: (0.3, 0.3),
        flags: 0,
        ..Default::default()
    };
    case("rain sheet", rain_sheet, SMOKE, bb(X::TooFast))
}

/// Snow: tiny flakes drifting down over a 10 m radius.
fn snow() -> Case {
    let snow = Spec {
        radius: 10.0,
        speed: (0.05, 0.1),
        accel: up(-0.3),
        scale: sz(0.08, 0.08),
        life_s: 20.0,
        rate_s: 0.1,
        count: 10,
        alpha: (0.9, 0.9),
        rgb: Vec3::ONE,
        flags: PartFlags::WIND,
        ..Default::default()
    };
    case("snow", snow, SHAPED, bb(X::TooSmall))
}

/// Love hearts rising from a heart-shaped prim.
fn hearts() -> Case {
    let hearts = Spec {
        pattern: pattern::ANGLE_CONE,
        speed: (0.3, 0.5),
        accel: up(0.2),
        scale: sz(0.3, 0.3),
        life_s: 4.0,
        count: 1,
        alpha: (1.0, 0.0),
        rgb: Vec3::new(1.0, 0.3, 0.5),
        ..Default::default()
    };
    case("hearts", hearts, SHAPED, bb(X::ShapedTexture))
}

/// Glitter / pixie sparkle.
fn glitter() -> Case {
    let glitter = Spec {
        speed: (0.2, 0.4),
        scale: sz(0.05, 0.05),
        life_s: 3.0,
        count: 5,
        alpha: (1.0, 0.0),
        rgb: Vec3::ONE,
        flags: PartFlags::INTERP_COLOR | PartFlags::EMISSIVE,
        ..Default::default()
    };
    Case { name: "glitter", sys: glowing(glitter.build(), 0.3), ctx: ctx(DOT), expect: bb(X::Glow) }
}

/// Soap bubbles: ring texture, small.
fn bubbles() -> Case {
    let bubbles = Spec {
        pattern: pattern::ANGLE_CONE,
        speed: (0.2, 0.3),
        accel: up(0.3),
        scale: sz(0.2, 0.2),
        life_s: 5.0,
        count: 1,
        alpha: (0.6, 0.6),
        rgb: Vec3::ONE,
        flags: 0,
        ..Default::default()
    };
    case("bubbles", bubbles, SHAPED, bb(X::ShapedTexture))
}

/// Leash: a ribbon on a line to the leash holder.
fn leash() -> Case {
    let leash = Spec {
        pattern: pattern::DROP,
        scale: sz(0.07, 0.07),
        life_s: 1.0,
        rate_s: 0.02,
        count: 1,
        alpha: (1.0, 1.0),
        flags: PartFlags::TARGET_LINEAR | PartFlags::RIBBON | PartFlags::FOLLOW_SRC,
        ..Default::default()
    };
    case("leash", leash, DOT, bb(X::TargetLinear))
}

/// Ribbon trail behind a moving object.
fn ribbon_trail() -> Case {
    let ribbon = Spec {
        pattern: pattern::DROP,
        scale: sz(0.5, 0.5),
        life_s: 3.0,
        rate_s: 0.05,
        count: 1,
        alpha: (0.5, 0.0),
        flags: PartFlags::RIBBON | PartFlags::INTERP_COLOR,
        ..Default::default()
    };
    case("ribbon trail", ribbon, SMOKE, bb(X::Ribbon))
}

/// Laser beam to a target.
fn laser_beam() -> Case {
    let laser = Spec {
        pattern: pattern::DROP,
        scale: (Vec2::new(0.1, 1.0), Vec2::new(0.1, 1.0)),
        life_s: 1.0,
        rate_s: 0.05,
        count: 1,
        alpha: (1.0, 1.0),
        rgb: Vec3::new(1.0, 0.0, 0.0),
        flags: PartFlags::TARGET_LINEAR | PartFlags::EMISSIVE,
        ..Default::default()
    };
    Case { name: "laser beam", sys: additive(laser.build()), ctx: ctx(DOT), expect: bb(X::TargetLinear) }
}

/// Party confetti cannon.
fn confetti() -> Case {
    let confetti = Spec {
        speed: (2.0, 3.0),
        accel: up(-1.0),
        scale: sz(0.1, 0.1),
        life_s: 5.0,
        count: 20,
        rate_s: 1.0,
        alpha: (1.0, 1.0),
        rgb: Vec3::new(0.2, 0.8, 0.3),
        flags: 0,
        ..Default::default()
    };
    case("confetti", confetti, SHAPED, bb(X::Streaks))
}

/// Magic aura: big soft slow puffs but additive blend.
fn additive_magic_aura() -> Case {
    let aura = Spec {
        radius: 0.5,
        speed: (0.05, 0.05),
        scale: sz(3.0, 3.0),
        life_s: 6.0,
        alpha: (0.3, 0.0),
        rgb: Vec3::new(0.3, 0.5, 1.0),
        ..Default::default()
    };
    Case {
        name: "additive magic aura",
        sys: additive(aura.build()),
        ctx: ctx(SMOKE),
        expect: bb(X::AdditiveBlend),
    }
}

/// Glowing fog orb: fog-like but with glow.
fn glowing_orb() -> Case {
    let orb = Spec {
        pattern: pattern::DROP,
        scale: sz(3.0, 3.0),
        life_s: 10.0,
        rate_s: 0.5,
        alpha: (0.2, 0.0),
        ..Default::default()
    };
    Case { name: "glowing orb", sys: glowing(orb.build(), 0.05), ctx: ctx(SMOKE), expect: bb(X::Glow) }
}

/// Cartoon smoke: opaque white puffs (a soft-edged but nearly solid disc texture).
fn opaque_cartoon_puffs() -> Case {
    let toon = Spec {
        radius: 0.5,
        speed: (0.1, 0.2),
        scale: sz(1.5, 1.5),
        life_s: 5.0,
        alpha: (1.0, 1.0),
        rgb: Vec3::ONE,
        flags: 0,
        ..Default::default()
    };
    let opaque_puff = TextureVerdict { mean_alpha: 0.8, ..SMOKE };
    case("opaque cartoon puffs", toon, opaque_puff, Expect::Billboard(None))
}

/// A few cloudlets scattered over 8 m: soft and slow but too sparse to read as a volume.
fn sparse_cloudlets() -> Case {
    let cloudlets = Spec {
        radius: 8.0,
        speed: (0.05, 0.05),
        scale: sz(2.0, 2.0),
        rate_s: 2.0,
        count: 1,
        alpha: (0.3, 0.3),
        ..Default::default()
    };
    case("sparse cloudlets", cloudlets, SMOKE, Expect::Billboard(None))
}

/// Sky cloud sprites: two huge opaque billboards alive at a time: not a volume.
fn sky_cloud_sprites() -> Case {
    let sky = Spec {
        pattern: pattern::DROP,
        scale: sz(20.0, 20.0),
        life_s: 30.0,
        rate_s: 15.0,
        count: 1,
        alpha: (1.0, 1.0),
        flags: 0,
        ..Default::default()
    };
    case("sky cloud sprites", sky, SMOKE, Expect::Billboard(None))
}

/// Gun-smoke puff: the source dies after 0.5 s.
fn one_shot_smoke_puff() -> Case {
    let puff = Spec {
        speed: (0.2, 0.3),
        scale: sz(1.0, 2.5),
        life_s: 4.0,
        rate_s: 0.05,
        count: 5,
        alpha: (0.4, 0.0),
        rgb: Vec3::splat(0.4),
        ..Default::default()
    };
    let mut puff_sys = puff.build();
    puff_sys.max_age = 0.5;
    Case { name: "one-shot smoke puff", sys: puff_sys, ctx: ctx(SMOKE), expect: bb(X::ShortLived) }
}

/// Steam from a coffee cup: too small.
fn coffee_cup_steam() -> Case {
    let coffee = Spec {
        pattern: pattern::ANGLE_CONE,
        speed: (0.05, 0.05),
        accel: up(0.05),
        scale: sz(0.1, 0.3),
        life_s: 3.0,
        rate_s: 0.2,
        count: 1,
        alpha: (0.3, 0.0),
        rgb: Vec3::ONE,
        ..Default::default()
    };
    case("coffee cup steam", coffee, SMOKE, bb(X::TooSmall))
}

/// Pixie dust with the default texture at 0.3 m.
fn default_texture_pixie_dust() -> Case {
    let pixie = Spec {
        speed: (0.1, 0.2),
        scale: sz(0.3, 0.3),
        life_s: 4.0,
        alpha: (1.0, 0.0),
        rgb: Vec3::ONE,
        ..Default::default()
    };
    let mut default_pixie = pixie.build();
    default_pixie.part_image_id = particles::Uuid::NIL;
    Case {
        name: "default-texture pixie dust",
        sys: default_pixie,
        ctx: ctx(TextureVerdict::viewer_default()),
        expect: bb(X::TooSmall),
    }
}

/// Smoke whose texture statistics have not arrived.
fn smoke_texture_unknown() -> Case {
    let puff = Spec {
        speed: (0.2, 0.3),
        scale: sz(1.0, 2.5),
        life_s: 4.0,
        rate_s: 0.05,
        count: 5,
        alpha: (0.4, 0.0),
        rgb: Vec3::splat(0.4),
        ..Default::default()
    };
    Case {
        name: "smoke, texture unknown",
        sys: puff.build(),
        ctx: SystemContext::default(),
        expect: bb(X::UnknownTexture),
    }
}

/// Frosty breath puffing from a worn avatar attachment.
fn frosty_breath_worn() -> Case {
    let breath = Spec {
        pattern: pattern::ANGLE_CONE,
        speed: (0.2, 0.2),
        scale: sz(0.5, 1.0),
        life_s: 2.0,
        rate_s: 0.1,
        count: 1,
        alpha: (0.3, 0.0),
        rgb: Vec3::ONE,
        ..Default::default()
    };
    let mut breath_case = case("frosty breath (worn)", breath, SMOKE, bb(X::Attachment));
    breath_case.ctx.attachment = true;
    breath_case
}

/// A fog overlay worn as a HUD.
fn hud_fog_overlay() -> Case {
    let orb = Spec {
        pattern: pattern::DROP,
        scale: sz(3.0, 3.0),
        life_s: 10.0,
        rate_s: 0.5,
        alpha: (0.2, 0.0),
        ..Default::default()
    };
    let mut hud_case = case("HUD fog overlay", orb, SMOKE, bb(X::Hud));
    hud_case.ctx.hud = true;
    hud_case
}
