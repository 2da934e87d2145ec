//! Applying an evaluated rule list to a [`PartSysData`], with Second Life's clamps.
//!
//! The list is walked in `[code, value, code, value, ...]` pairs from the defaults of reference 4.2
//! (`PartSysData::default()`); a later duplicate overwrites an earlier one. Integer rules accept a
//! float (truncated) and float rules an integer; any other type is a per-rule warning and the rule
//! keeps its default. A value known only at run time is reported as unresolved and resets the rule to
//! its default. The clamps are listed in the parent module's documentation.

use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};

use super::constants::rule_name;
use super::eval::{float_to_int, Item, Value};
use super::Unresolved;
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
/// The particle flag bits a script may set (reference 3.1: every PSYS_PART_*_MASK).
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
                out.unresolved
                    .push(unresolved("(list segment)", reason, line));
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
                out.warnings.push(format!(
                    "rule code is a {}, not an integer; pair skipped",
                    other.type_name()
                ));
                i += 2;
                continue;
            }
        };
        let Some(name) = rule_name(code) else {
            out.warnings
                .push(format!("unknown rule code {code}; pair skipped"));
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
    Unresolved {
        rule: rule.to_owned(),
        reason: reason.to_owned(),
        line,
    }
}

/// Puts rule `code` back to its default (angle rules keep their effect on USE_NEW_ANGLE).
fn reset(out: &mut Applied, code: i32) {
    let d = PartSysData::default();
    let p = &mut out.system.part;
    match code {
        0 => p.flags = d.part.flags,
        1 => p.start_color = p.start_color.with_xyz(d.part.start_color.truncate()),
        2 => p.start_color.w = d.part.start_color.w,
        3 => p.end_color = p.end_color.with_xyz(d.part.end_color.truncate()),
        4 => p.end_color.w = d.part.end_color.w,
        5 => p.start_scale = d.part.start_scale,
        6 => p.end_scale = d.part.end_scale,
        7 => p.max_age = d.part.max_age,
        24 => p.blend_func_source = d.part.blend_func_source,
        25 => p.blend_func_dest = d.part.blend_func_dest,
        26 => p.start_glow = d.part.start_glow,
        27 => p.end_glow = d.part.end_glow,
        _ => {}
    }
    let s = &mut out.system;
    match code {
        8 => s.part_accel = d.part_accel,
        9 => s.pattern = d.pattern,
        10 | 22 => set_angle_flag(s, code, d.inner_angle),
        11 | 23 => set_angle_flag(s, code, d.outer_angle),
        12 => {
            s.part_image_id = d.part_image_id;
            out.texture = None;
        }
        13 => s.burst_rate = d.burst_rate,
        15 => s.burst_part_count = d.burst_part_count,
        16 => s.burst_radius = d.burst_radius,
        17 => s.burst_speed_min = d.burst_speed_min,
        18 => s.burst_speed_max = d.burst_speed_max,
        19 => s.max_age = d.max_age,
        20 => s.target_uuid = d.target_uuid,
        21 => s.angular_velocity = d.angular_velocity,
        _ => {}
    }
}

/// Stores an angle and sets (BEGIN/END) or clears (INNER/OUTER) USE_NEW_ANGLE (reference 3.2).
fn set_angle_flag(s: &mut PartSysData, code: i32, radians: f32) {
    let new_style = code == 22 || code == 23;
    if code == 10 || code == 22 {
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

/// Clamps `v` to `[lo, hi]`, warning when it had to.
fn clamp(out: &mut Applied, name: &str, v: f32, lo: f32, hi: f32) -> f32 {
    let c = v.clamp(lo, hi);
    if c != v {
        out.warnings.push(format!("{name} {v} clamped to {c}"));
    }
    c
}

fn set(out: &mut Applied, code: i32, name: &str, v: &Value) {
    let ok = match code {
        0 | 9 | 15 | 24 | 25 => as_int(v).map(|i| set_int(out, code, name, i)).is_some(),
        1 | 3 | 5 | 6 | 8 | 21 => as_vec(v).map(|x| set_vector(out, code, name, x)).is_some(),
        12 | 20 => as_text(v).map(|t| set_text(out, code, name, t)).is_some(),
        _ => as_float(v)
            .map(|f| set_float(out, code, name, f as f32))
            .is_some(),
    };
    if !ok {
        out.warnings.push(format!(
            "{name}: wrong value type {}; rule ignored",
            v.type_name()
        ));
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
        0 => {
            out.system.part.flags.0 = i as u32;
            let stray = i as u32 & !SCRIPT_PART_FLAGS;
            if stray != 0 {
                out.warnings.push(format!(
                    "{name} sets bits {stray:#x} that are not script flags; kept raw"
                ));
            }
        }
        9 => match u8::try_from(i) {
            Ok(b) => out.system.pattern = b,
            Err(_) => out
                .warnings
                .push(format!("{name} {i} is not a pattern byte; default kept")),
        },
        15 => out.system.burst_part_count = i.clamp(0, MAX_BURST_COUNT) as u8,
        _ => match u8::try_from(i)
            .ok()
            .filter(|&b| blend::is_valid_for_scripts(b))
        {
            Some(b) if code == 24 => out.system.part.blend_func_source = b,
            Some(b) => out.system.part.blend_func_dest = b,
            None => {
                out.warnings.push(format!(
                    "{name} {i} is not a valid blend function; default kept"
                ));
                reset(out, code);
            }
        },
    }
    if code == 15 && !(0..=MAX_BURST_COUNT).contains(&i) {
        out.warnings.push(format!(
            "{name} {i} clamped to {}",
            out.system.burst_part_count
        ));
    }
}

fn set_vector(out: &mut Applied, code: i32, name: &str, v: Vec3) {
    match code {
        1 | 3 => {
            let c = Vec3::new(
                clamp(out, name, v.x, 0.0, 1.0),
                clamp(out, name, v.y, 0.0, 1.0),
                clamp(out, name, v.z, 0.0, 1.0),
            );
            let p = &mut out.system.part;
            let target: &mut Vec4 = if code == 1 {
                &mut p.start_color
            } else {
                &mut p.end_color
            };
            *target = target.with_xyz(c);
        }
        5 | 6 => {
            let s = Vec2::new(
                clamp(out, name, v.x, 0.0, MAX_PART_SCALE_M),
                clamp(out, name, v.y, 0.0, MAX_PART_SCALE_M),
            );
            if code == 5 {
                out.system.part.start_scale = s;
            } else {
                out.system.part.end_scale = s;
            }
        }
        8 => {
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
    if code == 12 {
        out.system.part_image_id = id.unwrap_or(Uuid::NIL);
        out.texture = Some(text.to_owned());
    } else {
        if id.is_none() {
            out.warnings
                .push(format!("{name} {text:?} is not a key; no target"));
        }
        out.system.target_uuid = id.unwrap_or(Uuid::NIL);
    }
}

fn set_float(out: &mut Applied, code: i32, name: &str, f: f32) {
    match code {
        2 => out.system.part.start_color.w = clamp(out, name, f, 0.0, 1.0),
        4 => out.system.part.end_color.w = clamp(out, name, f, 0.0, 1.0),
        7 => out.system.part.max_age = clamp(out, name, f, 0.0, MAX_PART_AGE_S),
        26 => out.system.part.start_glow = clamp(out, name, f, 0.0, 1.0),
        27 => out.system.part.end_glow = clamp(out, name, f, 0.0, 1.0),
        10 | 11 | 22 | 23 => {
            let a = clamp(out, name, f, 0.0, MAX_U3_5);
            set_angle_flag(&mut out.system, code, a);
        }
        13 => out.system.burst_rate = clamp(out, name, f, 0.0, MAX_U8_8),
        16 => out.system.burst_radius = clamp(out, name, f, 0.0, MAX_BURST_RADIUS_M),
        17 | 18 => {
            let s = clamp(out, name, f, -MAX_BURST_SPEED_MPS, MAX_BURST_SPEED_MPS).max(0.0);
            if f < 0.0 {
                out.warnings
                    .push(format!("{name} {f} is negative; encodes as 0"));
            }
            if code == 17 {
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
        pairs
            .iter()
            .flat_map(|(c, v)| [Item::Known(Value::Int(*c)), Item::Known(v.clone())])
            .collect()
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
        assert_eq!(
            a.unresolved,
            vec![unresolved(
                "PSYS_PART_MAX_AGE",
                "run-time value: llFrand(...)",
                5
            )]
        );
    }

    #[test]
    fn colour_and_alpha_rules_touch_their_own_channels() {
        let a = apply(
            &known(&[(2, Value::Float(0.25)), (1, Value::Vector([0.1, 0.2, 0.3]))]),
            1,
        );
        assert_eq!(a.system.part.start_color, Vec4::new(0.1, 0.2, 0.3, 0.25));
    }

    #[test]
    fn burst_count_saturates_and_negative_count_is_zero() {
        assert_eq!(
            apply(&known(&[(15, Value::Int(-5))]), 1)
                .system
                .burst_part_count,
            0
        );
        assert_eq!(
            apply(&known(&[(15, Value::Float(255.9))]), 1)
                .system
                .burst_part_count,
            255
        );
    }

    #[test]
    fn odd_list_and_non_integer_code_warn() {
        let a = apply(&[Item::Known(Value::Int(7))], 1);
        assert!(a.warnings[0].contains("no value"));
        let a = apply(
            &[
                Item::Known(Value::Str("x".into())),
                Item::Known(Value::Int(1)),
            ],
            1,
        );
        assert!(a.warnings[0].contains("not an integer"));
    }
}
