//! `[[particles]]`: a particle source and its system, given as exactly one of `lsl` (an LSL rule
//! list, imported with `particles::lsl::import`), `hex` (a PSYS block, decoded with
//! `particles::codec::decode`) or `[particles.system]` fields (applied to `PartSysData::default()`).

use glam::{Vec2, Vec3};
use particles::codec::{decode, parse_hex, Decoded};
use particles::types::{blend, pattern};
use particles::{PartFlags, PartSysData, SysFlags};

use super::error::SceneError;
use super::model::{Motion, ParticleSource};
use super::parse::Ctx;
use super::raw::{RawMotion, RawParticles, RawSystem, S};

/// Largest particle edge accepted from TOML fields, m (the LL setter's `MAX_PART_SCALE`).
const MAX_PART_SCALE_M: f32 = 4.0;
/// Largest particle life accepted from TOML fields, s (LL setter).
const MAX_PART_AGE_S: f32 = 30.0;
/// Largest source time (max age, burst rate) the U 8.8 wire field holds, s.
const MAX_U8_8_S: f32 = 65_535.0 / 256.0;
/// Largest emission radius, m (LL setter).
const MAX_BURST_RADIUS_M: f32 = 50.0;
/// Largest emission speed, m/s (LL setter).
const MAX_BURST_SPEED_MPS: f32 = 100.0;
/// Largest angle the U 3.5 wire field holds, rad.
const MAX_ANGLE_RAD: f32 = 255.0 / 32.0;
/// Largest particle count per burst (one byte on the wire).
const MAX_BURST_COUNT: i64 = 255;

/// Pattern names accepted in `[particles.system] pattern`.
const PATTERNS: [(&str, u8); 5] = [
    ("drop", pattern::DROP),
    ("explode", pattern::EXPLODE),
    ("angle", pattern::ANGLE),
    ("angle_cone", pattern::ANGLE_CONE),
    ("angle_cone_empty", pattern::ANGLE_CONE_EMPTY),
];

/// Particle flag names accepted in `[particles.system] part_flags`.
const PART_FLAGS: [(&str, u32); 10] = [
    ("interp_color", PartFlags::INTERP_COLOR),
    ("interp_scale", PartFlags::INTERP_SCALE),
    ("bounce", PartFlags::BOUNCE),
    ("wind", PartFlags::WIND),
    ("follow_src", PartFlags::FOLLOW_SRC),
    ("follow_velocity", PartFlags::FOLLOW_VELOCITY),
    ("target_pos", PartFlags::TARGET_POS),
    ("target_linear", PartFlags::TARGET_LINEAR),
    ("emissive", PartFlags::EMISSIVE),
    ("ribbon", PartFlags::RIBBON),
];

/// Every `[[particles]]`.
pub(crate) fn sources(ctx: &mut Ctx<'_>, raw: &[RawParticles]) -> Result<Vec<ParticleSource>, SceneError> {
    raw.iter().map(|p| source(ctx, p)).collect()
}

fn source(ctx: &mut Ctx<'_>, p: &RawParticles) -> Result<ParticleSource, SceneError> {
    let name = p.name.get_ref().clone();
    let (system, lsl_texture) = system(ctx, p)?;
    let texture = match (&p.texture, lsl_texture) {
        (Some(t), _) => Some(ctx.texture_ref(t, &format!("particles {name:?} texture"))?),
        (None, Some(t)) if ctx.textures.contains_key(&t) => Some(t),
        (None, Some(t)) => {
            ctx.warnings.push(format!(
                "particles {name:?}: PSYS_SRC_TEXTURE {t:?} is not in [textures]; the default texture is used"
            ));
            None
        }
        (None, None) => None,
    };
    Ok(ParticleSource {
        system,
        texture,
        position: ctx.v3(&p.position, "position")?,
        rotation: ctx.rotation(&p.rotation, "rotation")?,
        motion: motion(ctx, p.motion.as_ref())?,
        angular_velocity: ctx.v3_or(&p.angular_velocity, Vec3::ZERO, "angular_velocity")?,
        attachment: p.attachment.unwrap_or(false),
        hud: p.hud.unwrap_or(false),
        target: p.target.as_ref().map(|t| ctx.v3(t, "target")).transpose()?,
        key: key(ctx, p)?,
        fog_override: fog_override(ctx, p)?,
        name,
    })
}

/// The source's object id and link number: `object` (a UUID) or an id derived from its name, and
/// `link` (0..=256, default 0).
fn key(ctx: &mut Ctx<'_>, p: &RawParticles) -> Result<fog::SystemKey, SceneError> {
    let name = p.name.get_ref();
    let mut key = match &p.object {
        Some(o) => {
            let object = o
                .get_ref()
                .parse::<particles::Uuid>()
                .map_err(|e| ctx.invalid(o.span(), format!("particles {name:?}: object: {e}")))?;
            fog::SystemKey { object, link: 0 }
        }
        None => fog::SystemKey::from_name(name),
    };
    if let Some(link) = &p.link {
        let max = fog::classify::overrides::MAX_LINK;
        key.link = u32::try_from(*link.get_ref()).ok().filter(|l| *l <= max).ok_or_else(|| {
            ctx.invalid(link.span(), format!("particles {name:?}: link {} is not 0..={max}", link.get_ref()))
        })?;
    }
    Ok(key)
}

/// The source's `override`: `auto` (default), `fog` or `billboards`.
fn fog_override(ctx: &mut Ctx<'_>, p: &RawParticles) -> Result<fog::Override, SceneError> {
    let Some(o) = &p.fog_override else {
        return Ok(fog::Override::Auto);
    };
    o.get_ref().parse::<fog::Override>().map_err(|_| {
        let name = p.name.get_ref();
        ctx.invalid(
            o.span(),
            format!("particles {name:?}: override {:?} is not auto, fog or billboards", o.get_ref()),
        )
    })
}

/// The system and, for `lsl`, the PSYS_SRC_TEXTURE text.
fn system(ctx: &mut Ctx<'_>, p: &RawParticles) -> Result<(PartSysData, Option<String>), SceneError> {
    let name = p.name.get_ref();
    let given: Vec<_> =
        [p.lsl.as_ref().map(S::span), p.hex.as_ref().map(S::span), p.system.as_ref().map(S::span)]
            .into_iter()
            .flatten()
            .collect();
    if given.len() > 1 {
        let second = given[1].clone();
        return Err(ctx.invalid(
            second,
            format!("particles {name:?}: give exactly one of `lsl`, `hex` or [particles.system]"),
        ));
    }
    if let Some(lsl) = &p.lsl {
        return from_lsl(ctx, name, lsl);
    }
    if let Some(hex) = &p.hex {
        return from_hex(ctx, name, hex).map(|s| (s, None));
    }
    match &p.system {
        Some(s) => from_fields(ctx, s.get_ref()).map(|s| (s, None)),
        None => Err(ctx.invalid(
            p.name.span(),
            format!("particles {name:?} needs one of `lsl`, `hex` or [particles.system]"),
        )),
    }
}

fn from_lsl(
    ctx: &mut Ctx<'_>,
    name: &str,
    lsl: &S<String>,
) -> Result<(PartSysData, Option<String>), SceneError> {
    // The list starts a line of its own, so list line N, column C is script line N + 1, column C.
    let script = format!("default {{ state_entry() {{ llParticleSystem(\n{}\n); }} }}", lsl.get_ref());
    let calls = particles::lsl::import(&script).map_err(|e| {
        let list_line = e.line.saturating_sub(1).max(1);
        let at = ctx.offset_in_string(lsl, list_line, e.column);
        ctx.invalid(
            at..at,
            format!(
                "particles {name:?}: LSL list: {} (positions in this message: list line N is line N + 1)",
                e.message
            ),
        )
    })?;
    let [call] = calls.as_slice() else {
        return Err(ctx.invalid(lsl.span(), format!("particles {name:?}: `lsl` must be one rule list")));
    };
    for u in &call.unresolved {
        ctx.warnings.push(format!(
            "particles {name:?}: {} is only known at run time ({}); default used",
            u.rule, u.reason
        ));
    }
    for w in &call.warnings {
        ctx.warnings.push(format!("particles {name:?}: {w}"));
    }
    if call.empty {
        return Err(
            ctx.invalid(lsl.span(), format!("particles {name:?}: an empty rule list is no particle system"))
        );
    }
    Ok((call.system, call.texture.clone()))
}

fn from_hex(ctx: &Ctx<'_>, name: &str, hex: &S<String>) -> Result<PartSysData, SceneError> {
    let bytes =
        parse_hex(hex.get_ref()).map_err(|e| ctx.invalid(hex.span(), format!("particles {name:?}: {e}")))?;
    match decode(&bytes) {
        Decoded::System(s) => match particles::codec::check::refuse(&s) {
            Ok(()) => Ok(s),
            Err(r) => Err(ctx.invalid(hex.span(), format!("particles {name:?}: PSYS block refused: {r}"))),
        },
        Decoded::NoSystem(r) => {
            Err(ctx.invalid(hex.span(), format!("particles {name:?}: no particle system: {r}")))
        }
        Decoded::Rejected(r) => {
            Err(ctx.invalid(hex.span(), format!("particles {name:?}: PSYS block rejected: {r}")))
        }
    }
}

fn from_fields(ctx: &Ctx<'_>, f: &RawSystem) -> Result<PartSysData, SceneError> {
    let mut s = PartSysData::default();
    if let Some(p) = &f.pattern {
        s.pattern = PATTERNS.iter().find(|(n, _)| n == p.get_ref()).map(|(_, b)| *b).ok_or_else(|| {
            let names: Vec<&str> = PATTERNS.iter().map(|(n, _)| *n).collect();
            ctx.invalid(p.span(), format!("unknown pattern {:?} (want one of {names:?})", p.get_ref()))
        })?;
    }
    let time =
        |v: &Option<S<f32>>, d: f32, what: &str| ctx.opt(v, d, |c, v| c.in_range(v, what, 0.0, MAX_U8_8_S));
    s.max_age = time(&f.max_age, s.max_age, "max_age")?;
    s.burst_rate = time(&f.burst_rate, s.burst_rate, "burst_rate")?;
    s.burst_radius = ctx.opt(&f.burst_radius, s.burst_radius, |c, v| {
        c.in_range(v, "burst_radius", 0.0, MAX_BURST_RADIUS_M)
    })?;
    let speed = |v: &Option<S<f32>>, d: f32, what: &str| {
        ctx.opt(v, d, |c, v| c.in_range(v, what, 0.0, MAX_BURST_SPEED_MPS))
    };
    s.burst_speed_min = speed(&f.burst_speed_min, s.burst_speed_min, "burst_speed_min")?;
    s.burst_speed_max = speed(&f.burst_speed_max, s.burst_speed_max, "burst_speed_max")?;
    if let Some(n) = &f.burst_part_count {
        s.burst_part_count = u8::try_from(*n.get_ref()).map_err(|_| {
            ctx.invalid(n.span(), format!("burst_part_count must be in 0..={MAX_BURST_COUNT}"))
        })?;
    }
    let angle =
        |v: &Option<S<f32>>, what: &str| ctx.opt(v, 0.0, |c, v| c.in_range(v, what, 0.0, MAX_ANGLE_RAD));
    s.inner_angle = angle(&f.inner_angle, "inner_angle")?;
    s.outer_angle = angle(&f.outer_angle, "outer_angle")?;
    if f.inner_angle.is_some() || f.outer_angle.is_some() {
        s.flags = SysFlags(s.flags.0 | SysFlags::USE_NEW_ANGLE);
    }
    s.angular_velocity = ctx.v3_or(&f.angular_velocity, s.angular_velocity, "angular_velocity")?;
    s.part_accel = ctx.v3_or(&f.part_accel, s.part_accel, "part_accel")?;
    part_fields(ctx, f, &mut s)?;
    Ok(s)
}

fn part_fields(ctx: &Ctx<'_>, f: &RawSystem, s: &mut PartSysData) -> Result<(), SceneError> {
    let p = &mut s.part;
    for flag in f.part_flags.iter().flatten() {
        let bit = PART_FLAGS.iter().find(|(n, _)| n == flag.get_ref()).map(|(_, b)| *b).ok_or_else(|| {
            let names: Vec<&str> = PART_FLAGS.iter().map(|(n, _)| *n).collect();
            ctx.invalid(
                flag.span(),
                format!("unknown part flag {:?} (want one of {names:?})", flag.get_ref()),
            )
        })?;
        p.flags = PartFlags(p.flags.0 | bit);
    }
    p.max_age =
        ctx.opt(&f.part_max_age, p.max_age, |c, v| c.in_range(v, "part_max_age", 0.0, MAX_PART_AGE_S))?;
    let unit = |v: &Option<S<f32>>, d: f32, what: &str| ctx.opt(v, d, |c, v| c.in_range(v, what, 0.0, 1.0));
    let start_rgb = ctx.color_or(&f.start_color, p.start_color.truncate(), "start_color")?;
    let end_rgb = ctx.color_or(&f.end_color, p.end_color.truncate(), "end_color")?;
    p.start_color = start_rgb.extend(unit(&f.start_alpha, p.start_color.w, "start_alpha")?);
    p.end_color = end_rgb.extend(unit(&f.end_alpha, p.end_color.w, "end_alpha")?);
    p.start_scale = scale(ctx, &f.start_scale, p.start_scale, "start_scale")?;
    p.end_scale = scale(ctx, &f.end_scale, p.end_scale, "end_scale")?;
    p.start_glow = unit(&f.start_glow, p.start_glow, "start_glow")?;
    p.end_glow = unit(&f.end_glow, p.end_glow, "end_glow")?;
    p.blend_func_source = blend_factor(ctx, &f.blend_func_source, p.blend_func_source, "blend_func_source")?;
    p.blend_func_dest = blend_factor(ctx, &f.blend_func_dest, p.blend_func_dest, "blend_func_dest")?;
    Ok(())
}

fn scale(ctx: &Ctx<'_>, v: &Option<S<[f32; 2]>>, default: Vec2, what: &str) -> Result<Vec2, SceneError> {
    let Some(v) = v else { return Ok(default) };
    let s = Vec2::from_array(*v.get_ref());
    if s.is_finite() && s.cmpge(Vec2::ZERO).all() && s.cmple(Vec2::splat(MAX_PART_SCALE_M)).all() {
        Ok(s)
    } else {
        Err(ctx.invalid(v.span(), format!("{what} must be two numbers in 0..={MAX_PART_SCALE_M} m")))
    }
}

fn blend_factor(ctx: &Ctx<'_>, v: &Option<S<i64>>, default: u8, what: &str) -> Result<u8, SceneError> {
    let Some(v) = v else { return Ok(default) };
    match u8::try_from(*v.get_ref()) {
        Ok(b) if blend::is_valid_for_scripts(b) => Ok(b),
        _ => {
            Err(ctx.invalid(v.span(), format!("{what} must be a script blend factor: 0..=9 except 6 and 8")))
        }
    }
}

fn motion(ctx: &Ctx<'_>, raw: Option<&S<RawMotion>>) -> Result<Motion, SceneError> {
    let Some(raw) = raw else { return Ok(Motion::None) };
    let m = raw.get_ref();
    let extra = |name: &str, span: Option<std::ops::Range<usize>>| match span {
        Some(s) => Err(ctx.invalid(s, format!("`{name}` does not apply to motion {:?}", m.kind.get_ref()))),
        None => Ok(()),
    };
    match m.kind.get_ref().as_str() {
        "none" => {
            extra("velocity", m.velocity.as_ref().map(S::span))?;
            extra("keys", m.keys.as_ref().map(S::span))?;
            Ok(Motion::None)
        }
        "linear" => {
            extra("keys", m.keys.as_ref().map(S::span))?;
            let v = m
                .velocity
                .as_ref()
                .ok_or_else(|| ctx.invalid(m.kind.span(), "motion \"linear\" needs `velocity`"))?;
            Ok(Motion::Linear { velocity: ctx.v3(v, "velocity")? })
        }
        "path" => {
            extra("velocity", m.velocity.as_ref().map(S::span))?;
            let k =
                m.keys.as_ref().ok_or_else(|| ctx.invalid(m.kind.span(), "motion \"path\" needs `keys`"))?;
            let keys: Vec<(f32, Vec3)> =
                k.get_ref().iter().map(|[t, x, y, z]| (*t, Vec3::new(*x, *y, *z))).collect();
            let ordered = keys.windows(2).all(|w| w[0].0 < w[1].0);
            let finite = keys.iter().all(|(t, p)| t.is_finite() && p.is_finite());
            if keys.is_empty() || !ordered || !finite {
                return Err(ctx.invalid(
                    k.span(),
                    "keys must be [time_s, dx, dy, dz] with finite values and strictly increasing times",
                ));
            }
            Ok(Motion::Path { keys, looped: m.looped.unwrap_or(false) })
        }
        other => {
            Err(ctx
                .invalid(m.kind.span(), format!("unknown motion kind {other:?} (want none, linear or path)")))
        }
    }
}
