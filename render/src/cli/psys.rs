//! `particle-fog psys decode <HEX>` and `particle-fog psys encode <FILE|->`: the wire format, as
//! JSON.

use std::path::Path;

/// Exit code for a rejected block.
pub const EXIT_REJECTED: i32 = particles::json::EXIT_REJECTED;

/// `psys decode`: the JSON report, the exit code (0 ok or none, 3 rejected) and, for a rejected
/// block, the reason (also in the JSON) for standard error.
pub fn decode(hex: &str) -> (String, i32, Option<String>) {
    let (value, code) = particles::json::decode_report(hex);
    let reason = (code != 0).then(|| value["reason"].as_str().unwrap_or("rejected").to_owned());
    let json = serde_json::to_string_pretty(&value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    (json, code, reason)
}

/// `psys encode`: reads the decode JSON shape from a file or `-` (standard input, at most
/// [`crate::input::MAX_DESCRIPTOR_BYTES`] either way); returns the hex and a warning for each value
/// the encoder changed, or why it refuses the descriptor (CRC 0, a foreign blend factor).
pub fn encode(source: &str) -> anyhow::Result<particles::json::Encoded> {
    let text = read_source(source)?;
    Ok(particles::json::encode_from_json_checked(&text)?)
}

fn read_source(source: &str) -> anyhow::Result<String> {
    use crate::input::{read_stdin_text, read_text, MAX_DESCRIPTOR_BYTES};
    const WHAT: &str = "a descriptor";
    Ok(if source == "-" {
        read_stdin_text(MAX_DESCRIPTOR_BYTES, WHAT)?
    } else {
        read_text(Path::new(source), MAX_DESCRIPTOR_BYTES, WHAT)?
    })
}
