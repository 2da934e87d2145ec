//! `particle-fog texstats <FILES...> [--json]`: texture statistics as a table or JSON.

use std::path::PathBuf;

/// What `texstats` prints and how it exits.
pub struct TexstatsOutcome {
    /// Table or JSON for standard output (empty when every file failed and no JSON was asked).
    pub stdout: String,
    /// One line per failed file, for standard error.
    pub errors: Vec<String>,
    /// 1 when any file failed, else 0.
    pub code: u8,
}

/// Measures `files`; JSON (with per-file errors) when `json`.
pub fn run(files: &[PathBuf], json: bool) -> TexstatsOutcome {
    let report = assetstats::texstats(files, json);
    let measured = report.errors.len() < files.len();
    let stdout = if json || measured { report.output } else { String::new() };
    let code = u8::from(!report.errors.is_empty());
    TexstatsOutcome { stdout, errors: report.errors.iter().map(|e| e.to_string()).collect(), code }
}
