//! Time-boxed exploration of the PSYS decoder on stable Rust, from the cargo-fuzz corpus
//! (`fuzz/corpus/decode/`): the `decode` fuzz target's property (no panic; a decoded system
//! re-encodes to a block that decodes again and re-encodes to the same bytes), plus the JSON path:
//! the decoded system's JSON, encoded by `psys encode`'s code, gives the same block (or a refusal
//! for what a simulator never sends). `EXPLORE_SECONDS=600 cargo test -p particles --test
//! explore_psys` runs longer (see the `explore` crate).

use std::path::Path;

use explore::{corpus, explore, Budget, Mode, Verdict};
use particles::codec::{check, decode, encode, to_hex, Decoded};
use particles::json::{encode_from_json_checked, DescriptorJson, JsonError};

fn check_block(block: &[u8]) -> Verdict {
    let Decoded::System(sys) = decode(block) else { return Ok(false) };
    let encoded = encode(&sys);
    match decode(&encoded) {
        Decoded::System(again) if encode(&again) == encoded => {}
        other => return Err(format!("re-encoding drifted or failed: {other:?}")),
    }
    let json = serde_json::to_string(&DescriptorJson::from(&sys)).map_err(|e| e.to_string())?;
    match (encode_from_json_checked(&json), check::refuse(&sys)) {
        (Ok(out), Ok(())) if out.hex == to_hex(&encoded) => Ok(true),
        (Err(JsonError::Refused(a)), Err(b)) if a == b => Ok(true),
        (json_path, refusal) => {
            Err(format!("JSON path {json_path:?} disagrees with the codec ({refusal:?})"))
        }
    }
}

#[test]
fn mutated_blocks_never_panic_and_decoded_systems_round_trip() {
    let seeds = corpus(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/decode"));
    let summary = explore("psys-decode", &seeds, Mode::Bytes, Budget::from_env(), check_block);
    println!("{summary:?}");
    assert!(summary.accepted > 0, "nothing decoded: {summary:?}");
}
