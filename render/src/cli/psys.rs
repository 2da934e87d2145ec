//! `particle-fog psys decode <HEX>`, `particle-fog psys encode <FILE|->` and
//! `particle-fog lsl <script.lsl>`: the wire format and LSL import, as JSON.

use std::io::Read as _;
use std::path::Path;

use anyhow::Context as _;

/// Exit code for a rejected block or a script that does not parse.
pub const EXIT_REJECTED: i32 = particles::json::EXIT_REJECTED;

/// `psys decode`: the JSON report and the exit code (0 ok or none, 3 rejected).
pub fn decode(hex: &str) -> (String, i32) {
    let (value, code) = particles::json::decode_report(hex);
    (serde_json::to_string_pretty(&value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}")), code)
}

/// `psys encode`: reads the decode JSON shape from a file or `-` (standard input), returns hex.
pub fn encode(source: &str) -> anyhow::Result<String> {
    let text = read_source(source)?;
    Ok(particles::json::encode_from_json(&text)?)
}

/// `lsl`: every particle call of a script as JSON, or the parse error (line and column).
pub fn lsl(path: &Path) -> anyhow::Result<Result<String, String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(match particles::lsl::import_report(&text) {
        Ok(value) => Ok(serde_json::to_string_pretty(&value)?),
        Err(e) => Err(format!("{}: {e}", path.display())),
    })
}

fn read_source(source: &str) -> anyhow::Result<String> {
    if source == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).context("reading standard input")?;
        Ok(text)
    } else {
        std::fs::read_to_string(source).with_context(|| format!("reading {source}"))
    }
}
