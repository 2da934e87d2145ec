//! `encode_from_json_checked`: every value the encoder changes is warned about by field, and what
//! would not be a particle system to the viewer is refused.

use particles::codec::Refusal;
use particles::json::{encode_from_json, encode_from_json_checked, DescriptorJson, JsonError};
use particles::PartSysData;
use serde_json::{json, Value};

/// The defaults' descriptor with one edit applied, as JSON text.
fn edited(edit: impl FnOnce(&mut Value)) -> String {
    let mut v = serde_json::to_value(DescriptorJson::from(&PartSysData::default())).expect("serializes");
    edit(&mut v);
    v.to_string()
}

fn warnings(edit: impl FnOnce(&mut Value)) -> Vec<String> {
    encode_from_json_checked(&edited(edit)).expect("encodes").warnings
}

#[test]
fn in_range_values_encode_without_warnings() {
    assert_eq!(warnings(|_| {}), Vec::<String>::new());
    // Quantisation alone (0.1 s is written as 0.09765625 s) is not a change worth a warning.
    assert_eq!(warnings(|v| v["system"]["burst_rate"] = json!(0.1)), Vec::<String>::new());
}

#[test]
fn each_clamped_value_is_warned_about_by_field_with_its_written_value() {
    let cases: [(&str, &str, Value, &str); 6] = [
        ("system", "burst_rate", json!(-1.0), "system.burst_rate: -1 is outside 0..=255.99609; written as 0"),
        ("particle", "max_age", json!(-5.0), "particle.max_age: -5 is outside 0..=255.99609; written as 0"),
        ("particle", "start_scale", json!([1e30, 1.0]), "particle.start_scale: 1000000000000000000000000000000 is outside 0..=7.96875; written as 7.96875"),
        ("particle", "start_glow", json!(2.0), "particle.start_glow: 2 is outside 0..=1; written as 1"),
        ("particle", "end_color", json!([1.0, -0.5, 0.0, 1.0]), "particle.end_color: -0.5 is outside 0..=1; written as 0"),
        ("system", "part_accel", json!([0.0, 0.0, -300.0]), "system.part_accel: -300 is outside -256..=255.99219; written as -256"),
    ];
    for (section, field, value, expected) in cases {
        let w = warnings(|v| v[section][field] = value.clone());
        assert_eq!(w.len(), 1, "{section}.{field} = {value}: {w:?}");
        // The printed maximum is the f32's shortest text; compare up to it.
        let (head, tail) = expected.split_once("..=").expect("range");
        assert!(w[0].starts_with(head), "{section}.{field}: {w:?}");
        assert!(w[0].ends_with(tail.split_once(';').expect("written").1), "{section}.{field}: {w:?}");
    }
}

#[test]
fn several_changes_give_one_warning_each() {
    let w = warnings(|v| {
        v["system"]["burst_rate"] = json!(-2.0);
        v["particle"]["end_glow"] = json!(5.0);
        v["particle"]["end_scale"] = json!([-1.0, 9.0]);
    });
    assert_eq!(w.len(), 3, "{w:?}");
}

#[test]
fn a_crc_of_zero_and_a_foreign_blend_factor_are_refused() {
    let e = encode_from_json_checked(&edited(|v| v["system"]["crc"] = json!(0))).expect_err("crc 0");
    assert_eq!(e, JsonError::Refused(Refusal::CrcZero));
    assert!(e.to_string().contains("no particle system"), "{e}");
    for bad in [6, 8, 10, 99] {
        let text = edited(|v| v["particle"]["blend_func_dest"] = json!(bad));
        let e = encode_from_json(&text).expect_err("foreign blend factor");
        assert_eq!(
            e,
            JsonError::Refused(Refusal::BlendFactor { field: "particle.blend_func_dest", value: bad })
        );
    }
    assert!(encode_from_json(&edited(|v| v["particle"]["blend_func_source"] = json!(0))).is_ok());
}

#[test]
fn a_pattern_byte_that_is_not_one_pattern_is_kept_with_a_warning() {
    let out = encode_from_json_checked(&edited(|v| v["system"]["pattern"] = json!(99))).expect("encodes");
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    // 99 = 0x63 has the DROP bit, which the viewer tests first.
    assert!(out.warnings[0].starts_with("system.pattern: 99 (0x63)"), "{:?}", out.warnings);
    assert!(out.warnings[0].ends_with("draws it as DROP"), "{:?}", out.warnings);
    // Byte 8 of the legacy layout is the pattern, kept as given.
    assert_eq!(&out.hex[16..18], "63");
    for one in [0, 1, 2, 4, 8, 16] {
        assert!(warnings(|v| v["system"]["pattern"] = json!(one)).is_empty(), "pattern {one}");
    }
}

#[test]
fn stray_tail_flags_rewritten_in_the_extended_layout_are_warned_about() {
    let w = warnings(|v| {
        v["particle"]["start_glow"] = json!(0.5);
        v["particle"]["flags"] = json!(0x2_0000); // DATA_BLEND, but the blend pair is the default
    });
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("particle.flags: tail bit(s) 0x20000 cleared"), "{w:?}");
    // Bits the encoder adds for the tails it writes are not a change worth a warning.
    assert!(warnings(|v| v["particle"]["start_glow"] = json!(0.5)).is_empty());
}
