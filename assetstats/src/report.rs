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
    Value::Array(
        measure_all(files)
            .into_iter()
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
    let mut out = format!(
        "{:<40} {:>9} {:>6} {:>8} {:>7} {:>8} {:<6}\n",
        "file", "size", "alpha", "edge", "colvar", "softness", "shape"
    );
    for (file, result) in measure_all(files) {
        // Writing to a String cannot fail.
        let _ = match result {
            Ok(s) => write_row(&mut out, &file, &s),
            Err(e) => writeln!(out, "{file:<40} error: {e}"),
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
