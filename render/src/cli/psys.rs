//! `particle-fog psys decode <HEX>`, `particle-fog psys encode <FILE|->` and
//! `particle-fog lsl <script.lsl|->`: the wire format and LSL import, as JSON.

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
/// [`particles::lsl::MAX_SCRIPT_BYTES`] (a device such as `/dev/zero` or a FIFO is refused before
/// anything is read; standard input is read up to the cap).
pub fn read_script(source: &str) -> anyhow::Result<String> {
    let max = particles::lsl::MAX_SCRIPT_BYTES;
    let bytes = if source == "-" {
        read_capped(std::io::stdin().lock(), max).context("reading standard input")?
    } else {
        let path = Path::new(source);
        let meta = std::fs::metadata(path).with_context(|| format!("reading {source}"))?;
        anyhow::ensure!(meta.is_file(), "{source} is not a regular file (a directory, device or pipe)");
        anyhow::ensure!(
            meta.len() <= max as u64,
            "{source} is {} bytes; scripts are limited to {max}",
            meta.len()
        );
        let file = std::fs::File::open(path).with_context(|| format!("reading {source}"))?;
        read_capped(file, max).with_context(|| format!("reading {source}"))?
    };
    anyhow::ensure!(
        bytes.len() <= max,
        "{} holds more than {max} bytes; scripts are limited to {max}",
        display_name(source)
    );
    String::from_utf8(bytes).map_err(|e| anyhow::anyhow!("{} is not UTF-8 text: {e}", display_name(source)))
}

fn display_name(source: &str) -> &str {
    if source == "-" {
        "standard input"
    } else {
        source
    }
}

/// Reads at most `max + 1` bytes, so that a longer input is detected without reading it all.
fn read_capped(reader: impl std::io::Read, max: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(max as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
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
