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

fn texstats(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_particle-fog")).arg("texstats").args(args).output().expect("run")
}

#[test]
fn texstats_fails_with_each_error_on_stderr_when_every_file_fails() {
    let dir = std::env::temp_dir().join(format!("pf-cli-texstats-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let corrupt = dir.join("corrupt.png");
    std::fs::write(&corrupt, b"\x89PNG\r\n\x1a\nnot really").expect("write");
    let missing = dir.join("missing.png");
    let args =
        [missing.to_str().expect("utf-8"), dir.to_str().expect("utf-8"), corrupt.to_str().expect("utf-8")];
    let out = texstats(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stdout.is_empty(),
        "no table without a measured file: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with("error: ")).count(), 3, "{err}");
    assert!(
        err.contains("missing.png") && err.contains("not a regular file") && err.contains("corrupt.png"),
        "{err}"
    );
    // A missing file's OS reason is said once.
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
}

#[test]
fn texstats_json_keeps_per_file_errors_and_still_exits_non_zero() {
    let dir = std::env::temp_dir().join(format!("pf-cli-texstats-mixed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let blob = dir.join("blob.png");
    write(&blob, |r| (-r * r / (2.0 * 0.3 * 0.3)).exp());
    let out = texstats(&["--json", blob.to_str().expect("utf-8"), "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v[0]["shape"], "soft");
    assert_eq!(v[1]["file"], "/dev/zero");
    assert!(v[1]["error"].as_str().is_some_and(|e| e.contains("not a regular file")), "{v}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: /dev/zero: not a regular file"), "{err}");
}
