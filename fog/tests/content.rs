//! Descriptors modelled on real creator content, each with its expected verdict.
//!
//! Every case imitates a kind of build found in Second Life (fog machines, steam vents, chimney
//! plumes, campfires, waterfall mist, sunbeam dust; fireworks, sparks, rain, snow, hearts, glitter,
//! bubbles, leashes, ribbons, beams, confetti). Billboard cases also name the exclusion that must
//! fire (or `None` when it is the soft score that must keep them billboards). On failure the test
//! prints the whole table of scores, factors and exclusions.

use fog::classify::{classify, Assessment, SystemContext, TextureVerdict};
use fog::{Exclusion, Verdict};
use glam::{Vec2, Vec3};
use particles::types::{blend, pattern, PartFlags, PartSysData};
use settings::Settings;

/// A soft smoke-puff texture as assetstats would measure it.
const SMOKE: TextureVerdict = TextureVerdict {
    softness: 0.85,
    shape_is_soft: true,
    mean_alpha: 0.3,
    is_default_texture: false,
};
/// A shaped sprite (heart, star, flame, ring, snowflake, confetti square).
const SHAPED: TextureVerdict = TextureVerdict {
    softness: 0.2,
    shape_is_soft: false,
    mean_alpha: 0.5,
    is_default_texture: false,
};
/// A hard-edged but round dot (rain streak, spark dot): not shaped enough to be excluded by shape.
const DOT: TextureVerdict = TextureVerdict {
    softness: 0.4,
    shape_is_soft: true,
    mean_alpha: 0.4,
    is_default_texture: false,
};

/// Expected outcome.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    Fog,
    /// A billboard, with the exclusion that must fire (None: the score must be below threshold).
    Billboard(Option<Exclusion>),
}

struct Case {
    name: &'static str,
    sys: PartSysData,
    ctx: SystemContext,
    expect: Expect,
}

/// Everything a case varies, with the viewer's defaults elsewhere.
#[derive(Clone, Copy)]
struct Spec {
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
            part_image_id: "11111111-2222-3333-4444-555555555555"
                .parse()
                .expect("uuid"),
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

fn ctx(texture: TextureVerdict) -> SystemContext {
    SystemContext {
        texture: Some(texture),
        ..Default::default()
    }
}

fn case(name: &'static str, spec: Spec, texture: TextureVerdict, expect: Expect) -> Case {
    Case {
        name,
        sys: spec.build(),
        ctx: ctx(texture),
        expect,
    }
}

fn fog_cases() -> Vec<Case> {
    let up = |a: f32| Vec3::new(0.0, 0.0, a);
    let big = |a: f32, b: f32| (Vec2::splat(a), Vec2::splat(b));
    let mut default_tex = Spec {
        pattern: pattern::DROP,
        life_s: 15.0,
        rate_s: 0.5,
        ..Default::default()
    };
    default_tex.scale = big(4.0, 4.0);
    vec![
        // Club fog machine: a slow EXPLODE of 4 m grey puffs, radius 1.5 m, 12 s life, fading out.
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
        ),
        // Low-lying ground fog: flat ANGLE fan, almost still, 5 m sheets sinking slightly, 20 s.
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
        ),
        // Dry-ice fog spilling off a stage: ANGLE fan, sinking, bouncing on the floor, growing 3->4 m.
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
        ),
        // Industrial steam vent: narrow cone up, puffs growing 0.6 -> 2.5 m, 5 s, white.
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
        ),
        // Factory smoke column: cone up, buoyant, drifting with the wind, 1 -> 3 m, 8 s.
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
        ),
        // Cottage chimney plume: gentle, 0.8 -> 2 m, 6 s.
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
        ),
        // Campfire smoke (the fire's third emitter): grey, rising slowly, 0.5 -> 2 m, 5 s.
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
        ),
        // Waterfall mist at the plunge pool: EXPLODE over 2 m, 2 -> 4 m puffs, wind-blown, 6 s.
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
        ),
        // Dust haze in a sunbeam: large faint warm fullbright puffs drifting down a shaft, 10 s.
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
        ),
        // Pond mist: DROP, static 3 m puffs at the emitter, 15 s.
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
        ),
        // Desert dust storm: wind-blown EXPLODE of 3 m tan puffs, 8 s.
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
        ),
        // Graveyard mist made with the viewer's default texture blown up to 4 m.
        case(
            "default-texture mist",
            default_tex,
            TextureVerdict::VIEWER_DEFAULT,
            Expect::Fog,
        ),
    ]
}

fn billboard_cases() -> Vec<Case> {
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
            ctx: ctx(TextureVerdict::VIEWER_DEFAULT),
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

fn fog_on() -> Settings {
    Settings {
        particle_fog: true,
        ..Settings::default()
    }
}

fn table(rows: &[(&Case, Assessment)]) -> String {
    let mut out = String::from("name                         expect        score  size  speed life  alive  overlap alpha | big faint slow long soft alive | exclusions\n");
    for (c, a) in rows {
        let m = &a.measures;
        let f = &a.factors;
        let ids: Vec<&str> = a.exclusions.iter().map(|e| e.id()).collect();
        out += &format!(
            "{:<28} {:<13} {:>5.2} {:>5.2} {:>5.2} {:>5.1} {:>6.0} {:>7.2} {:>5.3} | {:.2} {:.2} {:.2} {:.2} {:.2} {:.2} | {}\n",
            c.name, format!("{:?}", c.expect).chars().take(13).collect::<String>(), a.score, m.size_m,
            m.speed_m_per_s, m.life_s, m.alive, m.overlap, m.alpha, f.big, f.faint, f.slow, f.long_lived,
            f.soft, f.alive, ids.join(",")
        );
    }
    out
}

#[test]
fn real_content_gets_the_expected_verdicts() {
    let settings = fog_on();
    let cases: Vec<Case> = fog_cases().into_iter().chain(billboard_cases()).collect();
    assert!(
        cases.len() >= 25,
        "the table must hold at least 25 descriptors"
    );
    let rows: Vec<(&Case, Assessment)> = cases
        .iter()
        .map(|c| (c, classify(&c.sys, &c.ctx, &settings)))
        .collect();
    let mut failures = Vec::new();
    for (c, a) in &rows {
        let ok = match c.expect {
            Expect::Fog => a.exclusions.is_empty() && a.score >= settings.particle_fog_threshold,
            Expect::Billboard(Some(x)) => a.exclusions.contains(x),
            Expect::Billboard(None) => {
                a.exclusions.is_empty() && a.score < settings.particle_fog_threshold - 0.2
            }
        };
        if !ok {
            failures.push(c.name);
        }
    }
    if std::env::var_os("FOG_PRINT_TABLE").is_some() {
        println!("{}", table(&rows));
    }
    assert!(
        failures.is_empty(),
        "wrong verdicts for {failures:?}\n{}",
        table(&rows)
    );
}

#[test]
fn fullbright_alone_does_not_exclude_but_adds_emission() {
    let settings = fog_on();
    let haze = fog_cases()
        .into_iter()
        .find(|c| c.name == "sunbeam dust haze")
        .expect("case");
    let lit = classify(&haze.sys, &haze.ctx, &settings);
    let mut unlit_sys = haze.sys;
    unlit_sys.part.flags = PartFlags(haze.sys.part.flags.0 & !PartFlags::EMISSIVE);
    let unlit = classify(&unlit_sys, &haze.ctx, &settings);
    assert!(lit.exclusions.is_empty());
    assert_eq!(lit.score, unlit.score, "EMISSIVE must not change the score");
    assert!(
        lit.emission > 0.1,
        "fullbright haze emits: {}",
        lit.emission
    );
    // Its mean luminance (0.2126 + 0.7152*0.9 + 0.0722*0.7 = 0.907) is bright, so unlit haze still
    // emits a little, but less than fullbright.
    assert!(unlit.emission > 0.0 && unlit.emission < lit.emission);
    let grey = fog_cases()
        .into_iter()
        .find(|c| c.name == "smoke column")
        .expect("case");
    assert_eq!(
        classify(&grey.sys, &grey.ctx, &settings).emission,
        0.0,
        "dark smoke emits nothing"
    );
}

#[test]
fn settings_switches_exclude_everything() {
    let case = fog_cases().into_iter().next().expect("a case");
    let off = Settings::default();
    assert!(!off.particle_fog, "the master toggle defaults off");
    let a = classify(&case.sys, &case.ctx, &off);
    assert!(a.exclusions.contains(Exclusion::ParticleFogOff));
    let no_host = Settings {
        volumetric_fog: false,
        ..fog_on()
    };
    assert!(classify(&case.sys, &case.ctx, &no_host)
        .exclusions
        .contains(Exclusion::VolumetricFogOff));
    let mut worn = case.ctx;
    worn.attachment = true;
    assert!(classify(&case.sys, &worn, &fog_on())
        .exclusions
        .contains(Exclusion::Attachment));
    let allow = Settings {
        particle_fog_attachments: true,
        ..fog_on()
    };
    assert!(classify(&case.sys, &worn, &allow).exclusions.is_empty());
    let verdict =
        fog::Explanation::one_shot(&case.sys, &classify(&case.sys, &case.ctx, &off), &off).verdict;
    assert_eq!(verdict, Verdict::Billboard);
}
