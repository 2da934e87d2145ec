//! `particle-fog psys decode <HEX>`, `particle-fog psys encode <FILE|->` and
//! `particle-fog lsl <script.lsl|->`: the wire format and LSL import, as JSON.

use std::path::Path;

/// Exit code for a rejected block or a script that does not parse.
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

/// `lsl`: every particle call of a script (a file, or `-` for standard input) as JSON, or the parse
/// error (line and column).
pub fn lsl(source: &str) -> anyhow::Result<Result<String, String>> {
    let text = read_script(source)?;
    let name = if source == "-" { "<stdin>" } else { source };
    Ok(match particles::lsl::import_report(&text) {
        Ok(value) => Ok(serde_json::to_string_pretty(&value)?),
        Err(e) => Err(format!("{name}: {e}")),
    })
}

/// Reads a script from a regular file, or from standard input for `-`, refusing more than
/// [`crate::input::MAX_SCRIPT_BYTES`] (a device such as `/dev/zero` or a FIFO is refused before
/// anything is read; standard input is read up to the cap).
pub fn read_script(source: &str) -> anyhow::Result<String> {
    use crate::input::{read_stdin_text, read_text, MAX_SCRIPT_BYTES};
    const WHAT: &str = "an LSL script";
    Ok(if source == "-" {
        read_stdin_text(MAX_SCRIPT_BYTES, WHAT)?
    } else {
        read_text(Path::new(source), MAX_SCRIPT_BYTES, WHAT)?
    })
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
