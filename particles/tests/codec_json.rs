//! The JSON descriptor: `decode_report` output, `encode_from_json` input, and their error texts.

use particles::json::{
    decode_report, descriptor_from_json, encode_from_json, DescriptorJson, JsonError, EXIT_OK, EXIT_REJECTED,
};
use particles::PartSysData;
use serde_json::{json, Value};

/// The viewer's unit-test block (`indra/llmessage/tests/llpartdata_test.cpp`), 96 bytes.
const VIEWER_BLOCK_HEX: &str = "44000000010000000000000001000000\
                                00000019000000000100010100800080\
                                00800080008000805e120ba15805dc57\
                                66b7f5ac4bd18f860000000000000000\
                                00000000000000001400000002050200\
                                000affffffffffff0000202000000201";

fn ok_report() -> Value {
    let (report, code) = decode_report(VIEWER_BLOCK_HEX);
    assert_eq!(code, EXIT_OK, "{report}");
    report
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn decode_report_of_the_viewer_vector() {
    let r = ok_report();
    assert_eq!(r["status"], "ok");
    let s = &r["system"];
    assert_eq!(s["crc"], 1);
    assert_eq!(s["pattern"], 1);
    assert_eq!(s["burst_rate"], 0.097_656_25);
    assert_eq!(s["burst_speed_min"], 1.0);
    assert_eq!(s["part_accel"], json!([0.0, 0.0, 0.0]));
    assert_eq!(s["part_image_id"], "5e120ba1-5805-dc57-66b7-f5ac4bd18f86");
    assert_eq!(s["target_uuid"], "00000000-0000-0000-0000-000000000000");
    let p = &r["particle"];
    assert_eq!(p["flags"], 132_354);
    assert_eq!(p["max_age"], 10.0);
    assert_eq!(p["end_color"], json!([1.0, 1.0, 0.0, 0.0]));
    assert_eq!(p["start_scale"], json!([1.0, 1.0]));
    assert_eq!((&p["blend_func_source"], &p["blend_func_dest"]), (&json!(2), &json!(1)));
}

#[test]
fn field_names_are_exactly_the_contract() {
    let r = ok_report();
    assert_eq!(keys(&r), ["particle", "status", "system"]);
    assert_eq!(
        keys(&r["system"]),
        [
            "angular_velocity",
            "burst_part_count",
            "burst_radius",
            "burst_rate",
            "burst_speed_max",
            "burst_speed_min",
            "crc",
            "flags",
            "inner_angle",
            "max_age",
            "outer_angle",
            "part_accel",
            "part_image_id",
            "pattern",
            "start_age",
            "target_uuid",
        ]
    );
    assert_eq!(
        keys(&r["particle"]),
        [
            "blend_func_dest",
            "blend_func_source",
            "end_color",
            "end_glow",
            "end_scale",
            "flags",
            "max_age",
            "start_color",
            "start_glow",
            "start_scale",
        ]
    );
}

#[test]
fn decoded_floats_are_written_as_the_viewers_f32() {
    // Colour byte 3 and glow byte 3 differ in the last bit; the JSON keeps both exactly.
    let mut s = PartSysData::default();
    s.part.start_glow = 3.0 / 255.0;
    s.part.start_color.x = 3.0 / 255.0;
    let hex = particles::codec::to_hex(&particles::codec::encode(&s));
    let (r, _) = decode_report(&hex);
    let glow = r["particle"]["start_glow"].as_f64().expect("number") as f32;
    let red = r["particle"]["start_color"][0].as_f64().expect("number") as f32;
    assert_eq!(glow, 3.0f32 / 255.0);
    assert_eq!(red, 3.0f32 * (1.0 / 255.0));
    assert_ne!(glow, red);
}

#[test]
fn decode_report_none_and_rejected() {
    assert_eq!(decode_report(""), (json!({"status": "none"}), EXIT_OK));
    assert_eq!(decode_report(&"00".repeat(86)), (json!({"status": "none"}), EXIT_OK));

    let (r, code) = decode_report("0102 03");
    assert_eq!(code, EXIT_REJECTED);
    assert_eq!(r["status"], "rejected");
    assert!(r["reason"].as_str().expect("reason").contains("3 bytes"), "{r}");

    let (r, code) = decode_report("01 0g");
    assert_eq!(code, EXIT_REJECTED);
    let reason = r["reason"].as_str().expect("reason");
    assert!(reason.starts_with("bad hex") && reason.contains("'g'"), "{reason}");
    assert_eq!(keys(&r), ["reason", "status"]);
}

#[test]
fn encode_from_json_reverses_decode_report() {
    let report = ok_report();
    assert_eq!(encode_from_json(&report.to_string()), Ok(VIEWER_BLOCK_HEX.to_owned()));
    let mut bare = report;
    bare.as_object_mut().expect("object").remove("status");
    assert_eq!(encode_from_json(&bare.to_string()), Ok(VIEWER_BLOCK_HEX.to_owned()));
}

#[test]
fn descriptor_converts_both_ways_and_matches_the_serde_derive() {
    let mut sys = PartSysData { burst_rate: 0.5, ..Default::default() };
    sys.part.end_glow = 0.25;
    let d = DescriptorJson::from(&sys);
    assert_eq!(PartSysData::try_from(d.clone()), Ok(sys));
    let text = serde_json::to_string(&d).expect("serializes");
    assert_eq!(descriptor_from_json(&text), Ok(d.clone()));
    assert_eq!(serde_json::from_str::<DescriptorJson>(&text).expect("serde derive"), d);
}

#[test]
fn non_finite_numbers_are_refused_with_their_field() {
    let mut d = DescriptorJson::from(&PartSysData::default());
    d.particle.end_scale[1] = f32::NAN;
    let e = PartSysData::try_from(d).expect_err("NaN");
    assert_eq!(e, JsonError::NotFinite { path: "particle.end_scale".into() });
}

/// The viewer report with one edit applied, as text.
fn edited(edit: impl FnOnce(&mut Value)) -> String {
    let mut r = ok_report();
    edit(&mut r);
    r.to_string()
}

#[test]
fn bad_input_errors_name_the_field() {
    let err = |text: &str| encode_from_json(text).expect_err("bad input").to_string();

    let e = err(&edited(|r| drop(r["system"].as_object_mut().map(|m| m.remove("crc")))));
    assert_eq!(e, "system.crc: missing field");
    let e = err(&edited(|r| r["particle"]["max_age"] = json!("ten")));
    assert!(e.starts_with("particle.max_age: invalid type: string \"ten\""), "{e}");
    let e = err(&edited(|r| r["system"]["burst_part_count"] = json!(300)));
    assert!(e.starts_with("system.burst_part_count: invalid value: integer `300`"), "{e}");
    let e = err(&edited(|r| r["system"]["part_accel"] = json!([0.0, 1.0])));
    assert!(e.starts_with("system.part_accel: "), "{e}");
    let e = err(&edited(|r| r["system"]["target_uuid"] = json!("not-a-uuid")));
    assert!(e.starts_with("system.target_uuid: not a UUID"), "{e}");
    let e = err(&edited(|r| r["system"]["burst_rat"] = json!(1.0)));
    assert_eq!(e, "system.burst_rat: unknown field");
    let e = err(&edited(|r| r["extra"] = json!(1)));
    assert_eq!(e, "extra: unknown field");
    let e = err(&edited(|r| r["particle"] = json!([])));
    assert_eq!(e, "particle: expected a JSON object");
    let e = err(&edited(|r| drop(r.as_object_mut().map(|m| m.remove("system")))));
    assert_eq!(e, "system: missing field");
    assert_eq!(err(r#"{"status":"none"}"#), "status: \"none\" (only \"ok\" descriptors can be encoded)");
    assert!(err("{\"system\": ").starts_with("not valid JSON: "));
    assert_eq!(err("[1]"), "<top level>: expected a JSON object");
}

#[test]
fn integers_are_accepted_where_floats_are_expected() {
    let text = edited(|r| r["particle"]["max_age"] = json!(10));
    assert_eq!(encode_from_json(&text), Ok(VIEWER_BLOCK_HEX.to_owned()));
}
