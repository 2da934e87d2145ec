//! Counter-examples: content that must stay billboards, each with the exclusion that must fire.

use fog::classify::{SystemContext, TextureVerdict};
use fog::Exclusion;
use glam::{Vec2, Vec3};
use particles::types::{blend, pattern, PartFlags, PartSysData};

use super::{case, ctx, Case, Expect, Spec, DOT, SHAPED, SMOKE};

pub fn billboard_cases() -> Vec<Case> {
    use Exclusion as X;
    let up = |a: f32| Vec3::new(0.0, 0.0, a);
    let sz = |a: f32, b: f32| (Vec2::splat(a), Vec2::splat(b));
    let additive = |mut s: PartSysData| {
        s.part.blend_func_dest = blend::ONE;
        s
    };
    let glowing = |mut s: PartSysData, g: f32| {
        s.part.start_glow = g;
        s
    };
    let bb = |x| Expect::Billboard(Some(x));
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
    let aura = Spec {
        radius: 0.5,
        speed: (0.05, 0.05),
        scale: sz(3.0, 3.0),
        life_s: 6.0,
        alpha: (0.3, 0.0),
        rgb: Vec3::new(0.3, 0.5, 1.0),
        ..Default::default()
    };
    let orb = Spec {
        pattern: pattern::DROP,
        scale: sz(3.0, 3.0),
        life_s: 10.0,
        rate_s: 0.5,
        alpha: (0.2, 0.0),
        ..Default::default()
    };
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
    let opaque_puff = TextureVerdict {
        mean_alpha: 0.8,
        ..SMOKE
    };
    let cloudlets = Spec {
        radius: 8.0,
        speed: (0.05, 0.05),
        scale: sz(2.0, 2.0),
        rate_s: 2.0,
        count: 1,
        alpha: (0.3, 0.3),
        ..Default::default()
    };
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
    let pixie = Spec {
        speed: (0.1, 0.2),
        scale: sz(0.3, 0.3),
        life_s: 4.0,
        alpha: (1.0, 0.0),
        rgb: Vec3::ONE,
        ..Default::default()
    };
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
    let mut hud_case = case("HUD fog overlay", orb, SMOKE, bb(X::Hud));
    hud_case.ctx.hud = true;
    let mut default_pixie = pixie.build();
    default_pixie.part_image_id = particles::Uuid::NIL;
    vec![
        // Campfire: the flame core (additive, emissive, 0.8 s, shrinking tongues of flame).
        Case {
            name: "campfire flame core",
            sys: additive(flame.build()),
            ctx: ctx(SHAPED),
            expect: bb(X::AdditiveBlend),
        },
        // Campfire: sparks shooting up and falling back.
        Case {
            name: "campfire sparks",
            sys: glowing(sparks.build(), 0.2),
            ctx: ctx(DOT),
            expect: bb(X::TooFast),
        },
        // Campfire: embers drifting up (small, glowing).
        Case {
            name: "campfire embers",
            sys: glowing(embers.build(), 0.1),
            ctx: ctx(DOT),
            expect: bb(X::TooSmall),
        },
        // Firework burst: additive, hundreds of fast particles.
        Case {
            name: "firework burst",
            sys: additive(fireworks.build()),
            ctx: ctx(DOT),
            expect: bb(X::TooFast),
        },
        // Welding sparks: velocity-aligned streaks under gravity.
        case("welding sparks", welding, DOT, bb(X::FollowVelocity)),
        // Rain: a wide cone of thin streaks falling at 8 m/s.
        case("rain", rain, DOT, bb(X::TooFast)),
        // Rain sheet: huge soft falling sheets; big and faint but far too fast.
        case("rain sheet", rain_sheet, SMOKE, bb(X::TooFast)),
        // Snow: tiny flakes drifting down over a 10 m radius.
        case("snow", snow, SHAPED, bb(X::TooSmall)),
        // Love hearts rising from a heart-shaped prim.
        case("hearts", hearts, SHAPED, bb(X::ShapedTexture)),
        // Glitter / pixie sparkle.
        Case {
            name: "glitter",
            sys: glowing(glitter.build(), 0.3),
            ctx: ctx(DOT),
            expect: bb(X::Glow),
        },
        // Soap bubbles: ring texture, small.
        case("bubbles", bubbles, SHAPED, bb(X::ShapedTexture)),
        // Leash: a ribbon on a line to the leash holder.
        case("leash", leash, DOT, bb(X::TargetLinear)),
        // Ribbon trail behind a moving object.
        case("ribbon trail", ribbon, SMOKE, bb(X::Ribbon)),
        // Laser beam to a target.
        Case {
            name: "laser beam",
            sys: additive(laser.build()),
            ctx: ctx(DOT),
            expect: bb(X::TargetLinear),
        },
        // Party confetti cannon.
        case("confetti", confetti, SHAPED, bb(X::TooFast)),
        // Magic aura: big soft slow puffs but additive blend.
        Case {
            name: "additive magic aura",
            sys: additive(aura.build()),
            ctx: ctx(SMOKE),
            expect: bb(X::AdditiveBlend),
        },
        // Glowing fog orb: fog-like but with glow.
        Case {
            name: "glowing orb",
            sys: glowing(orb.build(), 0.05),
            ctx: ctx(SMOKE),
            expect: bb(X::Glow),
        },
        // Cartoon smoke: opaque white puffs (a soft-edged but nearly solid disc texture).
        case(
            "opaque cartoon puffs",
            toon,
            opaque_puff,
            Expect::Billboard(None),
        ),
        // A few cloudlets scattered over 8 m: soft and slow but too sparse to read as a volume.
        case(
            "sparse cloudlets",
            cloudlets,
            SMOKE,
            Expect::Billboard(None),
        ),
        // Sky cloud sprites: two huge opaque billboards alive at a time: not a volume.
        case("sky cloud sprites", sky, SMOKE, Expect::Billboard(None)),
        // Gun-smoke puff: the source dies after 0.5 s.
        Case {
            name: "one-shot smoke puff",
            sys: puff_sys,
            ctx: ctx(SMOKE),
            expect: bb(X::ShortLived),
        },
        // Steam from a coffee cup: too small.
        case("coffee cup steam", coffee, SMOKE, bb(X::TooSmall)),
        // Pixie dust with the default texture at 0.3 m.
        Case {
            name: "default-texture pixie dust",
            sys: default_pixie,
            ctx: ctx(TextureVerdict::viewer_default()),
            expect: bb(X::TooSmall),
        },
        // Smoke whose texture statistics have not arrived.
        Case {
            name: "smoke, texture unknown",
            sys: puff.build(),
            ctx: SystemContext::default(),
            expect: bb(X::UnknownTexture),
        },
        breath_case,
        hud_case,
    ]
}
