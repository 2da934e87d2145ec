//! Applying an evaluated rule list to a [`PartSysData`], with Second Life's clamps.
//!
//! The list is walked in `[code, value, code, value, ...]` pairs from the LL constructor's defaults
//! (`PartSysData::default()`); a later duplicate overwrites an earlier one. Integer rules accept a
//! float (truncated) and float rules an integer; any other type is a per-rule warning and the rule
//! keeps its default. A value known only at run time is reported as unresolved and resets the rule to
//! its default. The clamps are listed in the parent module's documentation.

use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};

use super::constants::{rule, rule_name};
use super::eval::{float_to_int, Item, Value};
use super::Unresolved;
use crate::codec::check::unknown_pattern;
use crate::types::{blend, PartSysData, SysFlags, Uuid};

/// Largest particle edge the LL setter allows, metres (`llpartdata.cpp` 154-198, `MAX_PART_SCALE`).
pub const MAX_PART_SCALE_M: f32 = 4.0;
/// Largest particle lifetime the LL setter allows, seconds (`llpartdata.cpp` setMaxAge).
pub const MAX_PART_AGE_S: f32 = 30.0;
/// Largest burst radius the LL setter allows, metres.
pub const MAX_BURST_RADIUS_M: f32 = 50.0;
/// Speed clamp of the LL setter, m/s (negatives then encode as 0).
pub const MAX_BURST_SPEED_MPS: f32 = 100.0;
/// Per-axis acceleration clamp of the LL shared code, m/s^2 (`llpartdata.cpp` 399-419).
pub const MAX_ACCEL_MPS2: f32 = 100.0;
/// Largest U 8.8 wire value (source max age, burst rate), seconds: 65535 / 256.
pub const MAX_U8_8: f32 = 65_535.0 / 256.0;
/// Largest U 3.5 wire value (angles), radians: 255 / 32.
pub const MAX_U3_5: f32 = 255.0 / 32.0;
/// Range of the S 8.7 wire value (omega), rad/s: [-256, 32767 / 128].
pub const S8_7_RANGE: (f32, f32) = (-256.0, 32_767.0 / 128.0);
/// The particle flag bits a script may set: every PSYS_PART_*_MASK (0x200, the viewer's edit beam,
/// has no constant).
pub const SCRIPT_PART_FLAGS: u32 = 0x5FF;
/// Largest particle count a burst can carry (one byte on the wire).
pub const MAX_BURST_COUNT: i32 = 255;

/// What applying one rule list produced.
#[derive(Debug, Default)]
pub struct Applied {
    /// The resulting descriptor.
    pub system: PartSysData,
    /// PSYS_SRC_TEXTURE as written, if it was given and known.
    pub texture: Option<String>,
    /// Rules whose value is only known at run time.
    pub unresolved: Vec<Unresolved>,
    /// Type mismatches, clamps, invalid values, unknown codes.
    pub warnings: Vec<String>,
}

/// Applies `items` (an evaluated rule list) found at `line`.
pub fn apply(items: &[Item], line: u32) -> Applied {
    let mut out = Applied::default();
    let mut i = 0;
    while i < items.len() {
        let code = match &items[i] {
            Item::Splice(reason) => {
                out.unresolved.push(unresolved("(list segment)", reason, line));
                out.warnings.push(
                    "rules after a run-time list segment are paired assuming it has an even length"
                        .to_owned(),
                );
                i += 1;
                continue;
            }
            Item::Unknown(reason) => {
                out.unresolved.push(unresolved("(rule code)", reason, line));
                i += 2;
                continue;
            }
            Item::Known(Value::Int(code)) => *code,
            Item::Known(other) => {
                out.warnings
                    .push(format!("rule code is a {}, not an integer; pair skipped", other.type_name()));
                i += 2;
                continue;
            }
        };
        let Some(name) = rule_name(code) else {
            out.warnings.push(format!("unknown rule code {code}; pair skipped"));
            i += 2;
            continue;
        };
        match items.get(i + 1) {
            None => out.warnings.push(format!("{name} has no value")),
            Some(Item::Unknown(reason) | Item::Splice(reason)) => {
                out.unresolved.push(unresolved(name, reason, line));
                reset(&mut out, code);
            }
            Some(Item::Known(v)) => set(&mut out, code, name, v),
        }
        i += 2;
    }
    out
}

fn unresolved(rule: &str, reason: &str, line: u32) -> Unresolved {
    Unresolved { rule: rule.to_owned(), reason: reason.to_owned(), line }
}

/// Puts rule `code` back to its default (angle rules keep their effect on USE_NEW_ANGLE).
fn reset(out: &mut Applied, code: i32) {
    let d = PartSysData::default();
    let p = &mut out.system.part;
    match code {
        rule::PART_FLAGS => p.flags = d.part.flags,
        rule::PART_START_COLOR => p.start_color = p.start_color.with_xyz(d.part.start_color.truncate()),
        rule::PART_START_ALPHA => p.start_color.w = d.part.start_color.w,
        rule::PART_END_COLOR => p.end_color = p.end_color.with_xyz(d.part.end_color.truncate()),
        rule::PART_END_ALPHA => p.end_color.w = d.part.end_color.w,
        rule::PART_START_SCALE => p.start_scale = d.part.start_scale,
        rule::PART_END_SCALE => p.end_scale = d.part.end_scale,
        rule::PART_MAX_AGE => p.max_age = d.part.max_age,
        rule::PART_BLEND_FUNC_SOURCE => p.blend_func_source = d.part.blend_func_source,
        rule::PART_BLEND_FUNC_DEST => p.blend_func_dest = d.part.blend_func_dest,
        rule::PART_START_GLOW => p.start_glow = d.part.start_glow,
        rule::PART_END_GLOW => p.end_glow = d.part.end_glow,
        _ => {}
    }
    let s = &mut out.system;
    match code {
        rule::SRC_ACCEL => s.part_accel = d.part_accel,
        rule::SRC_PATTERN => s.pattern = d.pattern,
        rule::SRC_INNERANGLE | rule::SRC_ANGLE_BEGIN => set_angle_flag(s, code, d.inner_angle),
        rule::SRC_OUTERANGLE | rule::SRC_ANGLE_END => set_angle_flag(s, code, d.outer_angle),
        rule::SRC_TEXTURE => {
            s.part_image_id = d.part_image_id;
            out.texture = None;
        }
        rule::SRC_BURST_RATE => s.burst_rate = d.burst_rate,
        rule::SRC_BURST_PART_COUNT => s.burst_part_count = d.burst_part_count,
        rule::SRC_BURST_RADIUS => s.burst_radius = d.burst_radius,
        rule::SRC_BURST_SPEED_MIN => s.burst_speed_min = d.burst_speed_min,
        rule::SRC_BURST_SPEED_MAX => s.burst_speed_max = d.burst_speed_max,
        rule::SRC_MAX_AGE => s.max_age = d.max_age,
        rule::SRC_TARGET_KEY => s.target_uuid = d.target_uuid,
        rule::SRC_OMEGA => s.angular_velocity = d.angular_velocity,
        _ => {}
    }
}

/// Stores an angle and sets (BEGIN/END) or clears (INNER/OUTER) USE_NEW_ANGLE (as OpenSim does).
fn set_angle_flag(s: &mut PartSysData, code: i32, radians: f32) {
    let new_style = code == rule::SRC_ANGLE_BEGIN || code == rule::SRC_ANGLE_END;
    if code == rule::SRC_INNERANGLE || code == rule::SRC_ANGLE_BEGIN {
        s.inner_angle = radians;
    } else {
        s.outer_angle = radians;
    }
    s.flags = if new_style {
        SysFlags(s.flags.0 | SysFlags::USE_NEW_ANGLE)
    } else {
        SysFlags(s.flags.0 & !SysFlags::USE_NEW_ANGLE)
    };
}

/// Clamps `v` to `[lo, hi]`, warning when it had to. NaN becomes 0, the value the wire carries
/// for it (`codec::fixed` and the colour/glow bytes encode NaN as 0); infinities clamp to the range
/// ends like any other out-of-range value. Every range here contains 0.
fn clamp(out: &mut Applied, name: &str, v: f32, lo: f32, hi: f32) -> f32 {
    if v.is_nan() {
        out.warnings.push(format!("{name} is NaN (not a number); the wire carries it as 0"));
        return 0.0;
    }
    let c = v.clamp(lo, hi);
    if c != v {
        out.warnings.push(format!("{name} {v} clamped to {c}"));
    }
    c
}

fn set(out: &mut Applied, code: i32, name: &str, v: &Value) {
    let ok = match code {
        rule::PART_FLAGS
        | rule::SRC_PATTERN
        | rule::SRC_BURST_PART_COUNT
        | rule::PART_BLEND_FUNC_SOURCE
        | rule::PART_BLEND_FUNC_DEST => as_int(v).map(|i| set_int(out, code, name, i)).is_some(),
        rule::PART_START_COLOR
        | rule::PART_END_COLOR
        | rule::PART_START_SCALE
        | rule::PART_END_SCALE
        | rule::SRC_ACCEL
        | rule::SRC_OMEGA => as_vec(v).map(|x| set_vector(out, code, name, x)).is_some(),
        rule::SRC_TEXTURE | rule::SRC_TARGET_KEY => {
            as_text(v).map(|t| set_text(out, code, name, t)).is_some()
        }
        _ => as_float(v).map(|f| set_float(out, code, name, f as f32)).is_some(),
    };
    if !ok {
        out.warnings.push(format!("{name}: wrong value type {}; rule ignored", v.type_name()));
    }
}

fn as_int(v: &Value) -> Option<i32> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Float(f) => Some(float_to_int(*f)),
        _ => None,
    }
}

fn as_float(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(f64::from(*i)),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn as_vec(v: &Value) -> Option<Vec3> {
    match v {
        Value::Vector([x, y, z]) => Some(Vec3::new(*x as f32, *y as f32, *z as f32)),
        _ => None,
    }
}

fn as_text(v: &Value) -> Option<&str> {
    match v {
        Value::Str(s) | Value::Key(s) => Some(s),
        _ => None,
    }
}

fn set_int(out: &mut Applied, code: i32, name: &str, i: i32) {
    match code {
        rule::PART_FLAGS => {
            out.system.part.flags.0 = i as u32;
            let stray = i as u32 & !SCRIPT_PART_FLAGS;
            if stray != 0 {
                out.warnings.push(format!("{name} sets bits {stray:#x} that are not script flags; kept raw"));
            }
        }
        rule::SRC_PATTERN => match u8::try_from(i) {
            Ok(b) => {
                out.system.pattern = b;
                out.warnings.extend(unknown_pattern(b).map(|why| format!("{name} {why}")));
            }
            Err(_) => out.warnings.push(format!("{name} {i} is not a pattern byte; default kept")),
        },
        rule::SRC_BURST_PART_COUNT => out.system.burst_part_count = i.clamp(0, MAX_BURST_COUNT) as u8,
        _ => match u8::try_from(i).ok().filter(|&b| blend::is_valid_for_scripts(b)) {
            Some(b) if code == rule::PART_BLEND_FUNC_SOURCE => out.system.part.blend_func_source = b,
            Some(b) => out.system.part.blend_func_dest = b,
            None => {
                out.warnings.push(format!("{name} {i} is not a valid blend function; default kept"));
                reset(out, code);
            }
        },
    }
    if code == rule::SRC_BURST_PART_COUNT && !(0..=MAX_BURST_COUNT).contains(&i) {
        out.warnings.push(format!("{name} {i} clamped to {}", out.system.burst_part_count));
    }
}

fn set_vector(out: &mut Applied, code: i32, name: &str, v: Vec3) {
    match code {
        rule::PART_START_COLOR | rule::PART_END_COLOR => {
            let c = Vec3::new(
                clamp(out, name, v.x, 0.0, 1.0),
                clamp(out, name, v.y, 0.0, 1.0),
                clamp(out, name, v.z, 0.0, 1.0),
            );
            let p = &mut out.system.part;
            let target: &mut Vec4 =
                if code == rule::PART_START_COLOR { &mut p.start_color } else { &mut p.end_color };
            *target = target.with_xyz(c);
        }
        rule::PART_START_SCALE | rule::PART_END_SCALE => {
            let s = Vec2::new(
                clamp(out, name, v.x, 0.0, MAX_PART_SCALE_M),
                clamp(out, name, v.y, 0.0, MAX_PART_SCALE_M),
            );
            if code == rule::PART_START_SCALE {
                out.system.part.start_scale = s;
            } else {
                out.system.part.end_scale = s;
            }
        }
        rule::SRC_ACCEL => {
            let m = MAX_ACCEL_MPS2;
            out.system.part_accel = Vec3::new(
                clamp(out, name, v.x, -m, m),
                clamp(out, name, v.y, -m, m),
                clamp(out, name, v.z, -m, m),
            );
        }
        _ => {
            let (lo, hi) = S8_7_RANGE;
            out.system.angular_velocity = Vec3::new(
                clamp(out, name, v.x, lo, hi),
                clamp(out, name, v.y, lo, hi),
                clamp(out, name, v.z, lo, hi),
            );
        }
    }
}

fn set_text(out: &mut Applied, code: i32, name: &str, text: &str) {
    let id = text.parse::<Uuid>().ok();
    if code == rule::SRC_TEXTURE {
        out.system.part_image_id = id.unwrap_or(Uuid::NIL);
        out.texture = Some(text.to_owned());
    } else {
        if id.is_none() {
            out.warnings.push(format!("{name} {text:?} is not a key; no target"));
        }
        out.system.target_uuid = id.unwrap_or(Uuid::NIL);
    }
}

fn set_float(out: &mut Applied, code: i32, name: &str, f: f32) {
    match code {
        rule::PART_START_ALPHA => out.system.part.start_color.w = clamp(out, name, f, 0.0, 1.0),
        rule::PART_END_ALPHA => out.system.part.end_color.w = clamp(out, name, f, 0.0, 1.0),
        rule::PART_MAX_AGE => out.system.part.max_age = clamp(out, name, f, 0.0, MAX_PART_AGE_S),
        rule::PART_START_GLOW => out.system.part.start_glow = clamp(out, name, f, 0.0, 1.0),
        rule::PART_END_GLOW => out.system.part.end_glow = clamp(out, name, f, 0.0, 1.0),
        rule::SRC_INNERANGLE | rule::SRC_OUTERANGLE | rule::SRC_ANGLE_BEGIN | rule::SRC_ANGLE_END => {
            let a = clamp(out, name, f, 0.0, MAX_U3_5);
            set_angle_flag(&mut out.system, code, a);
        }
        rule::SRC_BURST_RATE => out.system.burst_rate = clamp(out, name, f, 0.0, MAX_U8_8),
        rule::SRC_BURST_RADIUS => out.system.burst_radius = clamp(out, name, f, 0.0, MAX_BURST_RADIUS_M),
        rule::SRC_BURST_SPEED_MIN | rule::SRC_BURST_SPEED_MAX => {
            let s = clamp(out, name, f, -MAX_BURST_SPEED_MPS, MAX_BURST_SPEED_MPS).max(0.0);
            if f < 0.0 {
                out.warnings.push(format!("{name} {f} is negative; encodes as 0"));
            }
            if code == rule::SRC_BURST_SPEED_MIN {
                out.system.burst_speed_min = s;
            } else {
                out.system.burst_speed_max = s;
            }
        }
        _ => out.system.max_age = clamp(out, name, f, 0.0, MAX_U8_8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(pairs: &[(i32, Value)]) -> Vec<Item> {
        pairs.iter().flat_map(|(c, v)| [Item::Known(Value::Int(*c)), Item::Known(v.clone())]).collect()
    }

    #[test]
    fn empty_list_is_all_defaults() {
        let a = apply(&[], 1);
        assert_eq!(a.system, PartSysData::default());
        assert!(a.warnings.is_empty() && a.unresolved.is_empty());
    }

    #[test]
    fn unresolved_duplicate_resets_to_default() {
        let mut items = known(&[(7, Value::Float(3.0))]);
        items.push(Item::Known(Value::Int(7)));
        items.push(Item::Unknown("run-time value: llFrand(...)".into()));
        let a = apply(&items, 5);
        assert_eq!(a.system.part.max_age, PartSysData::default().part.max_age);
        assert_eq!(a.unresolved, vec![unresolved("PSYS_PART_MAX_AGE", "run-time value: llFrand(...)", 5)]);
    }

    #[test]
    fn colour_and_alpha_rules_touch_their_own_channels() {
        let a = apply(&known(&[(2, Value::Float(0.25)), (1, Value::Vector([0.1, 0.2, 0.3]))]), 1);
        assert_eq!(a.system.part.start_color, Vec4::new(0.1, 0.2, 0.3, 0.25));
    }

    #[test]
    fn burst_count_saturates_and_negative_count_is_zero() {
        assert_eq!(apply(&known(&[(15, Value::Int(-5))]), 1).system.burst_part_count, 0);
        assert_eq!(apply(&known(&[(15, Value::Float(255.9))]), 1).system.burst_part_count, 255);
    }

    #[test]
    fn odd_list_and_non_integer_code_warn() {
        let a = apply(&[Item::Known(Value::Int(7))], 1);
        assert!(a.warnings[0].contains("no value"));
        let a = apply(&[Item::Known(Value::Str("x".into())), Item::Known(Value::Int(1))], 1);
        assert!(a.warnings[0].contains("not an integer"));
    }
}
