//! `particle-fog texstats`: a soft blob is "soft", a hard disc "shaped", with the documented keys.

use std::process::Command;

fn write(path: &std::path::Path, alpha: impl Fn(f32) -> f32) {
    let img = image::RgbaImage::from_fn(64, 64, |x, y| {
        let r = ((x as f32 + 0.5 - 32.0).hypot(y as f32 + 0.5 - 32.0)) / 32.0;
        image::Rgba([255, 255, 255, (alpha(r).clamp(0.0, 1.0) * 255.0).round() as u8])
    });
    img.save(path).expect("write png");
}

#[test]
fn texstats_json_tells_a_soft_blob_from_a_hard_disc() {
    let dir = std::env::temp_dir().join(format!("pf-cli-texstats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let (blob, disc) = (dir.join("blob.png"), dir.join("disc.png"));
    write(&blob, |r| (-r * r / (2.0 * 0.3 * 0.3)).exp());
    write(&disc, |r| if r < 0.7 { 1.0 } else { 0.0 });
    let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["texstats", "--json", blob.to_str().expect("utf-8"), disc.to_str().expect("utf-8")])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let keys = [
        "file",
        "width",
        "height",
        "mean_alpha",
        "edge_energy",
        "mean_color",
        "color_variance",
        "softness",
        "shape",
        "reasons",
    ];
    for entry in v.as_array().expect("array") {
        for k in keys {
            assert!(entry.get(k).is_some(), "missing {k}: {entry}");
        }
    }
    assert_eq!(v[0]["shape"], "soft");
    assert_eq!(v[1]["shape"], "shaped");
    assert!(v[0]["softness"].as_f64() > v[1]["softness"].as_f64());
}
