//! `particle-fog render`: frames as PNG plus the timing table as JSON; a malformed scene is refused
//! with its file, line and column.

use std::process::Command;

const SCENE: &str = r#"
[camera]
position = [0.0, -6.0, 2.0]
target = [0.0, 0.0, 0.5]

[height_fog]
density = 0.05

[[object]]
shape = "plane"
size = [10.0, 10.0]

[[object]]
shape = "sphere"
radius = 0.5
position = [0.0, 0.0, 0.5]
"#;

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("pf-cli-render-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("dir");
    d
}

#[test]
fn render_writes_every_frame_and_the_timing_json() {
    let d = dir("ok");
    let scene = d.join("tiny.toml");
    std::fs::write(&scene, SCENE).expect("scene");
    let out = d.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["render", "--validation", scene.to_str().expect("utf-8"), "--size", "64x36", "--frames", "3"])
        .args(["--out", out.to_str().expect("utf-8")])
        .output()
        .expect("run");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    // stderr is a pipe here, not a terminal: no progress bar redrawn with `\r`, no colour codes.
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(!err.contains('\r') && !err.contains("\x1b["), "{err:?}");
    for f in 0..3 {
        let png = image::open(out.join(format!("tiny_{f:04}.png"))).expect("frame written");
        assert_eq!((png.width(), png.height()), (64, 36));
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tiny_timings.json")).expect("json"))
            .expect("parse");
    let passes: Vec<&str> =
        json["passes"].as_array().expect("passes").iter().filter_map(|p| p["pass"].as_str()).collect();
    // (No `host.shadow`: the still scene's shadow layers were drawn during the fog's warm-up and
    // are kept.)
    assert!(!passes.contains(&"host.shadow"), "{passes:?}");
    for pass in [
        "host.opaque",
        "host.lighting",
        "fog.froxel_inject",
        "fog.froxel_integrate",
        "fog.apply",
        "host.tonemap",
    ] {
        assert!(passes.contains(&pass), "{pass} missing from {passes:?}");
    }
    assert!(json["passes"].as_array().expect("passes").iter().all(|p| p["frames"] == 3));
    let per_frame = json["per_frame"].as_array().expect("per_frame");
    assert_eq!(per_frame.len(), 3, "one entry per timed frame: {per_frame:?}");
    assert!(per_frame.iter().all(|f| f["wall_ms"].as_f64().is_some_and(|ms| ms > 0.0)), "{per_frame:?}");
    let table = String::from_utf8_lossy(&run.stdout);
    assert!(table.contains("median ms") && table.contains("fog.froxel_inject"), "{table}");
    assert!(table.contains("wall clock per frame: median"), "{table}");
}

#[test]
fn a_malformed_scene_is_refused_with_file_line_and_column() {
    let d = dir("bad");
    let scene = d.join("bad.toml");
    std::fs::write(
        &scene,
        "[camera]\nposition = [0.0, -6.0, 2.0]\ntarget = [0.0, 0.0, 0.5]\nfov_y_deg = 500\n",
    )
    .expect("scene");
    let run = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["render", scene.to_str().expect("utf-8"), "--out", d.join("out").to_str().expect("utf-8")])
        .output()
        .expect("run");
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("bad.toml:4:"), "error names file and line 4: {err}");
    assert!(!d.join("out").exists(), "nothing is written for a bad scene");
}
