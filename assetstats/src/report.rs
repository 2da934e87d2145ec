//! What `particle-fog texstats <FILES...> [--json]` prints: one JSON object or table row per file.

use std::fmt::Write as _;
use std::path::PathBuf;

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::{stats_for_file, AssetError, TextureStats};

/// Measures each file (in parallel) and returns a JSON array, in input order, of objects with
/// exactly `file`, `width`, `height`, `mean_alpha`, `edge_energy`, `mean_color` (`[r, g, b]`),
/// `color_variance`, every other statistic the verdict uses (`profile_max_drop`, `profile_rise`,
/// `core_halo_ratio`, `border_alpha`, `opaque_coverage` (the coverage above alpha 0.9),
/// `chroma_variance`, `alpha_anisotropy`, `angular_variation`, `thin_fraction`), `spikiness`,
/// `softness`, `shape` (`"soft"` or `"shaped"`) and `reasons`; a file that fails gives
/// `{"file": ..., "error": ...}` instead.
pub fn texstats_json(files: &[PathBuf]) -> Value {
    json_of(&measure_all(files))
}

fn json_of(results: &[(String, Result<TextureStats, AssetError>)]) -> Value {
    Value::Array(
        results
            .iter()
            .map(|(file, result)| match result {
                Ok(s) => json!({
                    "file": file,
                    "width": s.width,
                    "height": s.height,
                    "mean_alpha": s.mean_alpha,
                    "edge_energy": s.edge_energy,
                    "mean_color": s.mean_color,
                    "color_variance": s.color_variance,
                    "profile_max_drop": s.profile_max_drop,
                    "profile_rise": s.profile_rise,
                    "core_halo_ratio": s.core_halo_ratio,
                    "border_alpha": s.border_alpha,
                    "opaque_coverage": s.coverage[3],
                    "chroma_variance": s.chroma_variance,
                    "alpha_anisotropy": s.alpha_anisotropy,
                    "angular_variation": s.angular_variation,
                    "thin_fraction": s.thin_fraction,
                    "spikiness": s.spikiness,
                    "softness": s.softness,
                    "shape": s.shape.as_str(),
                    "reasons": s.reasons,
                }),
                Err(e) => json!({ "file": file, "error": e.to_string() }),
            })
            .collect(),
    )
}

/// Measures each file (in parallel) and returns a human-readable table, one row per file in input
/// order, with the reasons of shaped textures indented below their row.
pub fn texstats_table(files: &[PathBuf]) -> String {
    table_of(&measure_all(files), true)
}

/// What `particle-fog texstats` prints: the JSON array or the table on standard output, and each
/// file's error for standard error (the command then exits non-zero).
#[derive(Clone, Debug, PartialEq)]
pub struct Texstats {
    /// The JSON array (errors included as `{"file", "error"}` objects) or the table (errors left
    /// out).
    pub output: String,
    /// One message per file that could not be measured, naming the file.
    pub errors: Vec<String>,
}

/// Measures each file once (in parallel) for `particle-fog texstats [--json]`.
pub fn texstats(files: &[PathBuf], json: bool) -> Texstats {
    let results = measure_all(files);
    let errors = results.iter().filter_map(|(_, r)| r.as_ref().err().map(ToString::to_string)).collect();
    let output = if json {
        // Serialising a `Value` cannot fail.
        serde_json::to_string_pretty(&json_of(&results)).unwrap_or_default() + "\n"
    } else {
        table_of(&results, false)
    };
    Texstats { output, errors }
}

/// The table; a failed file is a row saying its error when `error_rows`, else left out.
fn table_of(results: &[(String, Result<TextureStats, AssetError>)], error_rows: bool) -> String {
    let mut out = format!(
        "{:<40} {:>9} {:>6} {:>8} {:>7} {:>8} {:<6}\n",
        "file", "size", "alpha", "edge", "colvar", "softness", "shape"
    );
    for (file, result) in results {
        // Writing to a String cannot fail.
        let _ = match result {
            Ok(s) => write_row(&mut out, file, s),
            Err(e) if error_rows => writeln!(out, "{file:<40} error: {e}"),
            Err(_) => Ok(()),
        };
    }
    out
}

/// One table row (and its reasons, for shaped textures).
fn write_row(out: &mut String, file: &str, s: &TextureStats) -> std::fmt::Result {
    let size = format!("{}x{}", s.width, s.height);
    writeln!(
        out,
        "{file:<40} {size:>9} {:>6.3} {:>8.2} {:>7.4} {:>8.3} {:<6}",
        s.mean_alpha,
        s.edge_energy,
        s.color_variance,
        s.softness,
        s.shape.as_str()
    )?;
    if s.shape == crate::Shape::Shaped {
        for reason in &s.reasons {
            writeln!(out, "    {reason}")?;
        }
    }
    Ok(())
}

/// Display name and result per file, in input order.
fn measure_all(files: &[PathBuf]) -> Vec<(String, Result<TextureStats, AssetError>)> {
    files.par_iter().map(|f| (f.display().to_string(), stats_for_file(f))).collect()
}
