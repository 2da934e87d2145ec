//! Per-object overrides from the command line, the scene file and the overrides file beside
//! settings.xml: `classify` applies each, `--save-overrides` stores them so a later run finds them,
//! and a corrupt overrides file is refused and left as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Two systems: a fog machine that converts, and 0.3 m puffs the scene sets to always fog.
const SCENE: &str = r#"
[camera]
position = [0.0, -5.0, 1.0]
target = [0.0, 0.0, 1.0]

[[particles]]
name = "machine"
object = "5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e"
link = 2
position = [0.0, 0.0, 0.2]
[particles.system]
pattern = "angle_cone"
outer_angle = 0.3
burst_rate = 0.2
burst_part_count = 6
burst_speed_min = 0.3
burst_speed_max = 0.5
part_max_age = 12.0
part_flags = ["interp_color", "interp_scale"]
start_alpha = 0.15
end_alpha = 0.0
start_scale = [2.0, 2.0]
end_scale = [4.0, 4.0]

[[particles]]
name = "puffs"
position = [2.0, 0.0, 0.2]
override = "fog"
[particles.system]
pattern = "angle_cone"
outer_angle = 0.3
burst_rate = 0.2
burst_part_count = 6
burst_speed_min = 0.1
burst_speed_max = 0.2
part_max_age = 12.0
part_flags = ["interp_color"]
start_alpha = 0.15
end_alpha = 0.0
start_scale = [0.3, 0.3]
"#;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pf-cli-overrides-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    std::fs::write(d.join("scene.toml"), SCENE).expect("scene");
    d
}

fn classify(d: &Path, extra: &[&str]) -> std::process::Output {
    let scene = d.join("scene.toml");
    let settings = d.join("settings.xml");
    let mut args = vec!["classify", "--scene", scene.to_str().expect("utf-8")];
    args.extend(["--settings", settings.to_str().expect("utf-8"), "--unknown-texture", "soft", "--json"]);
    args.extend(extra);
    Command::new(env!("CARGO_BIN_EXE_particle-fog")).args(&args).output().expect("run")
}

/// (verdict, override, rule) of each system, in scene order.
fn verdicts(out: &std::process::Output) -> Vec<(String, String, String)> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let text = |x: &serde_json::Value| x.as_str().expect("text").to_owned();
    v["systems"]
        .as_array()
        .expect("systems")
        .iter()
        .map(|s| (text(&s["verdict"]), text(&s["override"]), text(&s["rule"])))
        .collect()
}

fn row(verdict: &str, o: &str, rule: &str) -> (String, String, String) {
    (verdict.to_owned(), o.to_owned(), rule.to_owned())
}

#[test]
fn overrides_from_the_scene_the_command_line_and_the_saved_file_decide() {
    let d = dir("sources");
    assert_eq!(
        verdicts(&classify(&d, &[])),
        [row("fog", "auto", "score"), row("fog", "fog", "override")],
        "the machine converts by its score, the small puffs by the scene's override"
    );
    let by_key = "5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e#2=billboards";
    let out = classify(&d, &["--override", by_key, "--override", "puffs=auto", "--save-overrides"]);
    assert_eq!(
        verdicts(&out),
        [row("billboard", "billboards", "override"), row("billboard", "auto", "too_small")]
    );
    let stored =
        std::fs::read_to_string(d.join("particle_fog_overrides.xml")).expect("saved beside settings.xml");
    assert!(
        stored.contains("<key>5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e</key>") && stored.contains("<key>2</key>")
    );
    // A later run finds the file: the machine stays billboards; the puffs' auto was not stored,
    // so the scene's own override holds again.
    assert_eq!(
        verdicts(&classify(&d, &[])),
        [row("billboard", "billboards", "override"), row("fog", "fog", "override")]
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_corrupt_overrides_file_is_refused_and_left_as_it_was() {
    let d = dir("corrupt");
    let path = d.join("particle_fog_overrides.xml");
    let corrupt =
        "<llsd><map><key>5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e</key><string>fog</string></map></llsd>";
    std::fs::write(&path, corrupt).expect("write");
    let out = classify(&d, &["--override", "machine=fog", "--save-overrides"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("particle_fog_overrides.xml") && err.contains("expected a <map>"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), corrupt, "untouched");
    let out = classify(&d, &["--override", "machine=sometimes"]);
    assert!(!out.status.success(), "a bad mode is refused");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_scene_override_that_is_not_a_mode_is_an_error_at_its_value() {
    let d = dir("scene");
    let text = SCENE.replace("override = \"fog\"", "override = \"always\"");
    std::fs::write(d.join("scene.toml"), &text).expect("w");
    let out = classify(&d, &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // The line of `override`, the column after `override = `.
    let line = 1 + text.lines().position(|l| l.starts_with("override =")).expect("override line");
    let at = format!(
        "scene.toml:{line}:12: particles \"puffs\": override \"always\" is not auto, fog or billboards"
    );
    assert!(err.contains(&at), "{at} in {err}");
    let _ = std::fs::remove_dir_all(&d);
}
