//! The LSL constants a particle script can use, by name.
//!
//! Values are from `secondlife/lsl-definitions` `lsl_definitions.yaml` (PSYS_* entries, 5474-5832) and
//! the viewer's `keywords_lsl_default.xml`; rule codes follow the order of `LLPSScriptFlags`
//! (`llpartdata.h`).
//! Float constants are LSL's single-precision values.

use super::eval::Value;

/// Rule codes by name (`LLPSScriptFlags`): the LSL constant without its `PSYS_` prefix.
pub mod rule {
    /// `PSYS_PART_FLAGS`.
    pub const PART_FLAGS: i32 = 0;
    /// `PSYS_PART_START_COLOR`.
    pub const PART_START_COLOR: i32 = 1;
    /// `PSYS_PART_START_ALPHA`.
    pub const PART_START_ALPHA: i32 = 2;
    /// `PSYS_PART_END_COLOR`.
    pub const PART_END_COLOR: i32 = 3;
    /// `PSYS_PART_END_ALPHA`.
    pub const PART_END_ALPHA: i32 = 4;
    /// `PSYS_PART_START_SCALE`.
    pub const PART_START_SCALE: i32 = 5;
    /// `PSYS_PART_END_SCALE`.
    pub const PART_END_SCALE: i32 = 6;
    /// `PSYS_PART_MAX_AGE`.
    pub const PART_MAX_AGE: i32 = 7;
    /// `PSYS_SRC_ACCEL`.
    pub const SRC_ACCEL: i32 = 8;
    /// `PSYS_SRC_PATTERN`.
    pub const SRC_PATTERN: i32 = 9;
    /// `PSYS_SRC_INNERANGLE`.
    pub const SRC_INNERANGLE: i32 = 10;
    /// `PSYS_SRC_OUTERANGLE`.
    pub const SRC_OUTERANGLE: i32 = 11;
    /// `PSYS_SRC_TEXTURE`.
    pub const SRC_TEXTURE: i32 = 12;
    /// `PSYS_SRC_BURST_RATE`.
    pub const SRC_BURST_RATE: i32 = 13;
    /// `PSYS_SRC_BURST_PART_COUNT`.
    pub const SRC_BURST_PART_COUNT: i32 = 15;
    /// `PSYS_SRC_BURST_RADIUS`.
    pub const SRC_BURST_RADIUS: i32 = 16;
    /// `PSYS_SRC_BURST_SPEED_MIN`.
    pub const SRC_BURST_SPEED_MIN: i32 = 17;
    /// `PSYS_SRC_BURST_SPEED_MAX`.
    pub const SRC_BURST_SPEED_MAX: i32 = 18;
    /// `PSYS_SRC_MAX_AGE`.
    pub const SRC_MAX_AGE: i32 = 19;
    /// `PSYS_SRC_TARGET_KEY`.
    pub const SRC_TARGET_KEY: i32 = 20;
    /// `PSYS_SRC_OMEGA`.
    pub const SRC_OMEGA: i32 = 21;
    /// `PSYS_SRC_ANGLE_BEGIN`.
    pub const SRC_ANGLE_BEGIN: i32 = 22;
    /// `PSYS_SRC_ANGLE_END`.
    pub const SRC_ANGLE_END: i32 = 23;
    /// `PSYS_PART_BLEND_FUNC_SOURCE`.
    pub const PART_BLEND_FUNC_SOURCE: i32 = 24;
    /// `PSYS_PART_BLEND_FUNC_DEST`.
    pub const PART_BLEND_FUNC_DEST: i32 = 25;
    /// `PSYS_PART_START_GLOW`.
    pub const PART_START_GLOW: i32 = 26;
    /// `PSYS_PART_END_GLOW`.
    pub const PART_END_GLOW: i32 = 27;
}

/// Rule constants and their codes (14, the viewer's `LLPS_SRC_BURST_DURATION`, is unused and has no
/// constant).
pub const RULES: [(&str, i32); 27] = [
    ("PSYS_PART_FLAGS", rule::PART_FLAGS),
    ("PSYS_PART_START_COLOR", rule::PART_START_COLOR),
    ("PSYS_PART_START_ALPHA", rule::PART_START_ALPHA),
    ("PSYS_PART_END_COLOR", rule::PART_END_COLOR),
    ("PSYS_PART_END_ALPHA", rule::PART_END_ALPHA),
    ("PSYS_PART_START_SCALE", rule::PART_START_SCALE),
    ("PSYS_PART_END_SCALE", rule::PART_END_SCALE),
    ("PSYS_PART_MAX_AGE", rule::PART_MAX_AGE),
    ("PSYS_SRC_ACCEL", rule::SRC_ACCEL),
    ("PSYS_SRC_PATTERN", rule::SRC_PATTERN),
    ("PSYS_SRC_INNERANGLE", rule::SRC_INNERANGLE),
    ("PSYS_SRC_OUTERANGLE", rule::SRC_OUTERANGLE),
    ("PSYS_SRC_TEXTURE", rule::SRC_TEXTURE),
    ("PSYS_SRC_BURST_RATE", rule::SRC_BURST_RATE),
    ("PSYS_SRC_BURST_PART_COUNT", rule::SRC_BURST_PART_COUNT),
    ("PSYS_SRC_BURST_RADIUS", rule::SRC_BURST_RADIUS),
    ("PSYS_SRC_BURST_SPEED_MIN", rule::SRC_BURST_SPEED_MIN),
    ("PSYS_SRC_BURST_SPEED_MAX", rule::SRC_BURST_SPEED_MAX),
    ("PSYS_SRC_MAX_AGE", rule::SRC_MAX_AGE),
    ("PSYS_SRC_TARGET_KEY", rule::SRC_TARGET_KEY),
    ("PSYS_SRC_OMEGA", rule::SRC_OMEGA),
    ("PSYS_SRC_ANGLE_BEGIN", rule::SRC_ANGLE_BEGIN),
    ("PSYS_SRC_ANGLE_END", rule::SRC_ANGLE_END),
    ("PSYS_PART_BLEND_FUNC_SOURCE", rule::PART_BLEND_FUNC_SOURCE),
    ("PSYS_PART_BLEND_FUNC_DEST", rule::PART_BLEND_FUNC_DEST),
    ("PSYS_PART_START_GLOW", rule::PART_START_GLOW),
    ("PSYS_PART_END_GLOW", rule::PART_END_GLOW),
];

/// Integer value constants: particle flag masks, patterns, blend factors, links, booleans.
const INTEGERS: [(&str, i32); 35] = [
    ("PSYS_PART_INTERP_COLOR_MASK", 0x001),
    ("PSYS_PART_INTERP_SCALE_MASK", 0x002),
    ("PSYS_PART_BOUNCE_MASK", 0x004),
    ("PSYS_PART_WIND_MASK", 0x008),
    ("PSYS_PART_FOLLOW_SRC_MASK", 0x010),
    ("PSYS_PART_FOLLOW_VELOCITY_MASK", 0x020),
    ("PSYS_PART_TARGET_POS_MASK", 0x040),
    ("PSYS_PART_TARGET_LINEAR_MASK", 0x080),
    ("PSYS_PART_EMISSIVE_MASK", 0x100),
    ("PSYS_PART_RIBBON_MASK", 0x400),
    ("PSYS_SRC_OBJ_REL_MASK", 0x01),
    ("PSYS_SRC_PATTERN_DROP", 0x01),
    ("PSYS_SRC_PATTERN_EXPLODE", 0x02),
    ("PSYS_SRC_PATTERN_ANGLE", 0x04),
    ("PSYS_SRC_PATTERN_ANGLE_CONE", 0x08),
    ("PSYS_SRC_PATTERN_ANGLE_CONE_EMPTY", 0x10),
    ("PSYS_PART_BF_ONE", 0),
    ("PSYS_PART_BF_ZERO", 1),
    ("PSYS_PART_BF_DEST_COLOR", 2),
    ("PSYS_PART_BF_SOURCE_COLOR", 3),
    ("PSYS_PART_BF_ONE_MINUS_DEST_COLOR", 4),
    ("PSYS_PART_BF_ONE_MINUS_SOURCE_COLOR", 5),
    ("PSYS_PART_BF_SOURCE_ALPHA", 7),
    ("PSYS_PART_BF_ONE_MINUS_SOURCE_ALPHA", 9),
    ("TRUE", 1),
    ("FALSE", 0),
    ("LINK_ROOT", 1),
    ("LINK_SET", -1),
    ("LINK_ALL_OTHERS", -2),
    ("LINK_ALL_CHILDREN", -3),
    ("LINK_THIS", -4),
    ("ALL_SIDES", -1),
    ("DEBUG_CHANNEL", 0x7FFF_FFFF),
    ("PUBLIC_CHANNEL", 0),
    ("STATUS_PHANTOM", 0x10),
];

/// Float constants (single precision as LSL stores them).
const FLOATS: [(&str, f32); 6] = [
    ("PI", std::f32::consts::PI),
    ("TWO_PI", std::f32::consts::TAU),
    ("PI_BY_TWO", std::f32::consts::FRAC_PI_2),
    ("DEG_TO_RAD", std::f32::consts::PI / 180.0),
    ("RAD_TO_DEG", 180.0 / std::f32::consts::PI),
    ("SQRT2", std::f32::consts::SQRT_2),
];

/// The null key's text.
pub const NULL_KEY_TEXT: &str = "00000000-0000-0000-0000-000000000000";

/// The value of an LSL constant, or `None` for any other name.
pub fn lookup(name: &str) -> Option<Value> {
    if let Some(&(_, code)) = RULES.iter().find(|(n, _)| *n == name) {
        return Some(Value::Int(code));
    }
    if let Some(&(_, v)) = INTEGERS.iter().find(|(n, _)| *n == name) {
        return Some(Value::Int(v));
    }
    if let Some(&(_, v)) = FLOATS.iter().find(|(n, _)| *n == name) {
        return Some(Value::Float(f64::from(v)));
    }
    match name {
        "NULL_KEY" => Some(Value::Key(NULL_KEY_TEXT.to_owned())),
        "EOF" => Some(Value::Str("\n\n\n".to_owned())),
        "ZERO_VECTOR" => Some(Value::Vector([0.0; 3])),
        "ZERO_ROTATION" => Some(Value::Rot([0.0, 0.0, 0.0, 1.0])),
        _ => None,
    }
}

/// The constant name of a rule code, if it has one.
pub fn rule_name(code: i32) -> Option<&'static str> {
    RULES.iter().find(|(_, c)| *c == code).map(|(n, _)| *n)
}

/// True for the `LINK_*` link-target constants.
pub fn is_link_constant(name: &str) -> bool {
    name.starts_with("LINK_") && INTEGERS.iter().any(|(n, _)| *n == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_codes_match_the_reference_table() {
        assert_eq!(lookup("PSYS_PART_FLAGS"), Some(Value::Int(0)));
        assert_eq!(lookup("PSYS_SRC_BURST_PART_COUNT"), Some(Value::Int(15)));
        assert_eq!(lookup("PSYS_PART_END_GLOW"), Some(Value::Int(27)));
        assert_eq!(rule_name(14), None);
        assert_eq!(rule_name(23), Some("PSYS_SRC_ANGLE_END"));
        assert_eq!((0..=27).filter_map(rule_name).count(), 27);
    }

    #[test]
    fn value_constants() {
        assert_eq!(lookup("PSYS_PART_RIBBON_MASK"), Some(Value::Int(0x400)));
        assert_eq!(lookup("PSYS_SRC_PATTERN_ANGLE_CONE_EMPTY"), Some(Value::Int(0x10)));
        assert_eq!(lookup("PSYS_PART_BF_ONE_MINUS_SOURCE_ALPHA"), Some(Value::Int(9)));
        assert_eq!(lookup("LINK_SET"), Some(Value::Int(-1)));
        assert!(is_link_constant("LINK_ALL_OTHERS") && !is_link_constant("LINK_BOGUS"));
        let Some(Value::Float(deg)) = lookup("DEG_TO_RAD") else { panic!("DEG_TO_RAD") };
        assert!((deg * 180.0 - std::f64::consts::PI).abs() < 1e-6);
        assert_eq!(lookup("llFrand"), None);
    }
}
