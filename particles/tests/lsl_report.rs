//! The JSON report of `particle-fog lsl`: shape, and that its hex block decodes (through the codec)
//! to the values written in the script, within the wire's quantisation.

use particles::codec::{decode, parse_hex};
use particles::lsl::import_report;
use serde_json::Value;

fn report(name: &str) -> Value {
    let path = format!("{}/testdata/lsl/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    import_report(&src).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn fog_machine_report_fields_and_hex_round_trip() {
    let r = report("fog_machine.lsl");
    let calls = r["calls"].as_array().expect("calls array");
    assert_eq!(calls.len(), 1);
    let c = &calls[0];
    assert_eq!(c["function"], "llParticleSystem");
    assert_eq!(c["link"], Value::Null);
    assert_eq!(c["texture"], "fog_soft");
    assert_eq!(c["unresolved"], serde_json::json!([]));
    let d = &c["descriptor"];
    assert_eq!(d["system"]["pattern"], 2);
    assert_eq!(d["system"]["burst_part_count"], 5);
    assert_eq!(d["particle"]["flags"], 0xB);
    assert_eq!(d["particle"]["max_age"], 12.0);
    // The hex is a real PSYS block: decoding it gives the script's values (U 8.8 holds 0.5, 12, 1.5
    // exactly; 0.05 m/s truncates to 12/256; colours are bytes).
    let bytes = parse_hex(c["hex"].as_str().expect("hex string")).expect("valid hex");
    assert_eq!(bytes.len(), 86, "no glow, default blend: legacy layout");
    let decoded = decode(&bytes);
    let s = decoded.system().expect("a system");
    assert_eq!((s.burst_rate, s.part.max_age, s.burst_radius), (0.5, 12.0, 1.5));
    assert_eq!(s.burst_speed_min, 12.0 / 256.0);
    assert!((s.part.start_color.x - 0.85).abs() <= 1.0 / 255.0);
    assert_eq!(s.part.end_color.w, 0.0);
    assert_eq!(s.pattern, 2);
}

#[test]
fn empty_calls_and_links_in_the_report() {
    let r = report("linkset.lsl");
    let calls = r["calls"].as_array().expect("calls array");
    assert_eq!(calls[0]["link"], "LINK_SET");
    assert_eq!(calls[0]["descriptor"], Value::Null);
    assert_eq!(calls[0]["hex"], "");
    assert_eq!(calls[0]["empty"], true);
    assert_eq!(calls[1]["link"], 3);
    assert_eq!(calls[1]["descriptor"]["system"]["part_image_id"], "5e120ba1-5805-dc57-66b7-f5ac4bd18f86");
    // Glow 0.2 and the (ONE, ONE_MINUS_SOURCE_ALPHA) blend force the extended layout with both
    // tails (4 + 68 + 4 + 18 + 2 + 2 bytes).
    let bytes = parse_hex(calls[2]["hex"].as_str().expect("hex")).expect("valid hex");
    assert_eq!(bytes.len(), 98);
    let decoded = decode(&bytes);
    let s = decoded.system().expect("a system");
    assert_eq!(s.part.start_glow, 51.0 / 255.0, "trunc(0.2 * 255) = 51");
    assert_eq!((s.part.blend_func_source, s.part.blend_func_dest), (0, 9));
    assert_eq!(calls[4]["unresolved"][0]["rule"], "link");
}

#[test]
fn unresolved_entries_name_rule_and_reason() {
    let r = report("runtime_values.lsl");
    let u = &r["calls"][1]["unresolved"];
    assert_eq!(u[1]["rule"], "PSYS_SRC_BURST_RATE");
    assert_eq!(u[1]["reason"], "run-time value: llFrand(...)");
    assert_eq!(r["calls"][3]["unresolved"][0]["rule"], "(rule list)");
}

#[test]
fn syntax_error_is_an_error_not_a_report() {
    let path = format!("{}/testdata/lsl/syntax_error.lsl", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(path).expect("script");
    assert!(import_report(&src).is_err());
}
