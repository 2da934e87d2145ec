//! The CLI's JSON and table output.

mod common;

use std::path::PathBuf;

use assetstats::{texstats_json, texstats_table};

#[test]
fn json_has_exactly_the_documented_fields() {
    let dir = std::env::temp_dir().join(format!("assetstats-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let blob = dir.join("blob.tga");
    common::render(64, common::gaussian(0.15)).save(&blob).expect("write tga");
    let star = dir.join("star.png");
    common::render(64, common::star()).save(&star).expect("write png");
    let missing = dir.join("missing.png");
    let files: Vec<PathBuf> = vec![blob.clone(), star, missing.clone()];

    let value = texstats_json(&files);
    let rows = value.as_array().expect("an array");
    assert_eq!(rows.len(), 3);
    let mut keys: Vec<&str> = rows[0].as_object().expect("object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "alpha_anisotropy",
            "angular_variation",
            "border_alpha",
            "chroma_variance",
            "color_variance",
            "core_halo_ratio",
            "edge_energy",
            "file",
            "height",
            "mean_alpha",
            "mean_color",
            "opaque_coverage",
            "profile_max_drop",
            "profile_rise",
            "reasons",
            "shape",
            "softness",
            "spikiness",
            "thin_fraction",
            "width"
        ]
    );
    assert_eq!(rows[0]["file"], blob.display().to_string());
    assert_eq!(rows[0]["width"], 64);
    assert_eq!(rows[0]["shape"], "soft");
    assert_eq!(rows[0]["mean_color"].as_array().map(Vec::len), Some(3));
    assert_eq!(rows[1]["shape"], "shaped");
    assert!(rows[1]["reasons"][0].as_str().is_some_and(|r| r.contains("edge_energy")));
    let error_keys: Vec<&str> = rows[2].as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(error_keys, ["error", "file"]);
    assert!(rows[2]["error"].as_str().is_some_and(|e| e.contains("missing.png")));

    let table = texstats_table(&files);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("file"));
    assert!(
        lines[1].contains("blob.tga") && lines[1].contains("64x64") && lines[1].trim_end().ends_with("soft")
    );
    assert!(table.contains("shaped") && table.contains("edge_energy"));
    assert!(lines.last().is_some_and(|l| l.contains("missing.png") && l.contains("error")));
    std::fs::remove_dir_all(&dir).expect("clean up");
}
