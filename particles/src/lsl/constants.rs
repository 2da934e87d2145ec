//! The LSL constants a particle script can use, by name.
//!
//! Values are from `secondlife/lsl-definitions` `lsl_definitions.yaml` (PSYS_* entries, 5474-5832) and
//! the viewer's `keywords_lsl_default.xml`; see `../shared/reference/sl-particles.md` 3.1-3.4 and 4.2.
//! Float constants are LSL's single-precision values.

use super::eval::Value;

/// Rule codes (reference 4.2; 14 is unused and has no constant).
pub const RULES: [(&str, i32); 27] = [
    ("PSYS_PART_FLAGS", 0),
    ("PSYS_PART_START_COLOR", 1),
    ("PSYS_PART_START_ALPHA", 2),
    ("PSYS_PART_END_COLOR", 3),
    ("PSYS_PART_END_ALPHA", 4),
    ("PSYS_PART_START_SCALE", 5),
    ("PSYS_PART_END_SCALE", 6),
    ("PSYS_PART_MAX_AGE", 7),
    ("PSYS_SRC_ACCEL", 8),
    ("PSYS_SRC_PATTERN", 9),
    ("PSYS_SRC_INNERANGLE", 10),
    ("PSYS_SRC_OUTERANGLE", 11),
    ("PSYS_SRC_TEXTURE", 12),
    ("PSYS_SRC_BURST_RATE", 13),
    ("PSYS_SRC_BURST_PART_COUNT", 15),
    ("PSYS_SRC_BURST_RADIUS", 16),
    ("PSYS_SRC_BURST_SPEED_MIN", 17),
    ("PSYS_SRC_BURST_SPEED_MAX", 18),
    ("PSYS_SRC_MAX_AGE", 19),
    ("PSYS_SRC_TARGET_KEY", 20),
    ("PSYS_SRC_OMEGA", 21),
    ("PSYS_SRC_ANGLE_BEGIN", 22),
    ("PSYS_SRC_ANGLE_END", 23),
    ("PSYS_PART_BLEND_FUNC_SOURCE", 24),
    ("PSYS_PART_BLEND_FUNC_DEST", 25),
    ("PSYS_PART_START_GLOW", 26),
    ("PSYS_PART_END_GLOW", 27),
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
        assert_eq!(
            lookup("PSYS_SRC_PATTERN_ANGLE_CONE_EMPTY"),
            Some(Value::Int(0x10))
        );
        assert_eq!(
            lookup("PSYS_PART_BF_ONE_MINUS_SOURCE_ALPHA"),
            Some(Value::Int(9))
        );
        assert_eq!(lookup("LINK_SET"), Some(Value::Int(-1)));
        assert!(is_link_constant("LINK_ALL_OTHERS") && !is_link_constant("LINK_BOGUS"));
        let Some(Value::Float(deg)) = lookup("DEG_TO_RAD") else {
            panic!("DEG_TO_RAD")
        };
        assert!((deg * 180.0 - std::f64::consts::PI).abs() < 1e-6);
        assert_eq!(lookup("llFrand"), None);
    }
}
