//! Time-boxed exploration of the LSL importer on stable Rust, from small scripts written for it
//! (`testdata/explore_lsl/`: rule lists, globals and user functions, states, Firestorm
//! preprocessor lines, casts, lists built in loops, hostile values): mutants (hostile numbers,
//! duplicated and deleted lines, byte edits) must never panic the importer, and an imported call
//! must be what a viewer could receive: finite numbers only, a descriptor that `psys encode`
//! accepts and encodes to the report's block, and a block that decodes and re-encodes to itself.
//! `EXPLORE_SECONDS=600 cargo test -p particles --test explore_lsl` runs longer (see the `explore`
//! crate).

use std::path::Path;

use explore::{corpus, explore, Budget, Mode, Verdict};
use particles::codec::{decode, encode, parse_hex, Decoded};
use particles::json::encode_from_json_checked;
use particles::lsl::import_report;
use serde_json::Value;

/// One reported call: its descriptor goes through `psys encode`'s path to the report's block,
/// which decodes to a system that re-encodes to the same bytes.
fn check_call(call: &Value) -> Result<(), String> {
    if call["empty"] == Value::Bool(true) {
        return Ok(());
    }
    let descriptor = serde_json::to_string(&call["descriptor"]).map_err(|e| e.to_string())?;
    if descriptor.contains("null") {
        return Err(format!("a descriptor with a non-finite number: {descriptor}"));
    }
    let hex = call["hex"].as_str().ok_or("no hex")?;
    let encoded =
        encode_from_json_checked(&descriptor).map_err(|e| format!("psys encode refuses it: {e}"))?;
    if encoded.hex != hex {
        return Err(format!("psys encode gives {} for the report's {hex}", encoded.hex));
    }
    let bytes = parse_hex(hex).map_err(|e| format!("{e}"))?;
    match decode(&bytes) {
        Decoded::System(sys) if encode(&sys) == bytes => Ok(()),
        other => Err(format!("the block {hex} does not round-trip: {other:?}")),
    }
}

fn check(bytes: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(bytes) else { return Ok(false) };
    let Ok(report) = import_report(text) else { return Ok(false) };
    let calls = report["calls"].as_array().ok_or("a report without calls")?;
    for call in calls {
        check_call(call)?;
    }
    Ok(!calls.is_empty())
}

#[test]
fn mutated_scripts_never_panic_and_imported_calls_encode_as_reported() {
    let seeds = corpus(&Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/explore_lsl"));
    assert!(seeds.len() >= 5, "the seed scripts are missing");
    for (i, seed) in seeds.iter().enumerate() {
        assert_eq!(check(seed), Ok(true), "seed {i} must import as written");
    }
    let summary = explore("lsl-import", &seeds, Mode::Text, Budget::from_env(), check);
    println!("{summary:?}");
    assert!(summary.accepted > 0, "nothing imported: {summary:?}");
}
