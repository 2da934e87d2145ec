//! `particle-fog lsl <script.lsl|->`: every particle call of an LSL script, as JSON.

use std::path::Path;

/// Exit code for a script that does not parse.
pub const EXIT_REJECTED: i32 = particles::json::EXIT_REJECTED;

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
