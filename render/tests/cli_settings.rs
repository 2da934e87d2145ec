//! `particle-fog settings list|get|set`: values round-trip through a settings.xml that keeps the
//! viewer's other keys, and bad values are refused with the setting and range named.

use std::process::Command;

fn particle_fog(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_particle-fog")).args(args).output().expect("run particle-fog")
}

fn temp_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pf-cli-settings-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join("settings.xml")
}

const FOREIGN: &str = r#"<?xml version="1.0" ?>
<llsd>
<map>
    <key>RenderAttachedParticles</key>
    <map>
      <key>Comment</key>
      <string>Render particle systems attached to avatars</string>
      <key>Persist</key>
      <integer>1</integer>
      <key>Type</key>
      <string>Boolean</string>
      <key>Value</key>
      <integer>0</integer>
    </map>
</map>
</llsd>
"#;

#[test]
fn set_then_get_round_trips_and_keeps_foreign_keys() {
    let file = temp_file("roundtrip");
    std::fs::write(&file, FOREIGN).expect("write");
    let f = file.to_str().expect("utf-8 path");
    let out = particle_fog(&["settings", "set", "RenderVKParticleFogThreshold", "0.8", "--file", f]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = particle_fog(&["settings", "get", "RenderVKParticleFogThreshold", "--file", f]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0.8");
    let saved = std::fs::read_to_string(&file).expect("read back");
    assert!(saved.contains("<key>RenderAttachedParticles</key>"), "foreign key lost:\n{saved}");
    let list = particle_fog(&["settings", "list", "--file", f]);
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(text.contains("RenderVKParticleFog ") && text.contains("RenderMaxPartCount"), "{text}");
}

#[test]
fn out_of_range_value_is_refused_with_setting_and_range() {
    let file = temp_file("range");
    let f = file.to_str().expect("utf-8 path");
    let out = particle_fog(&["settings", "set", "RenderVKParticleFogThreshold", "3.5", "--file", f]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("RenderVKParticleFogThreshold") && err.contains("0.2..=1"), "{err}");
    assert!(!file.exists(), "a refused set must not create the file");
}

#[test]
fn a_device_is_refused_at_once_and_help_states_the_size_cap() {
    let out = particle_fog(&["settings", "list", "--file", "/dev/zero"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/dev/zero: not a regular file"), "{err}");
    let help = particle_fog(&["settings", "--help"]);
    let cap = format!("at most {} MiB", settings::MAX_FILE_BYTES / (1024 * 1024));
    assert!(String::from_utf8_lossy(&help.stdout).contains(&cap), "--help must state the cap");
}

#[test]
fn get_shows_a_viewer_key_as_foreign_and_set_refuses_an_unsaved_setting() {
    let file = temp_file("foreign");
    std::fs::write(&file, FOREIGN).expect("write");
    let f = file.to_str().expect("utf-8 path");
    let out = particle_fog(&["settings", "get", "RenderAttachedParticles", "--file", f]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("0 (foreign Boolean setting"), "{text}");
    let out = particle_fog(&["settings", "set", "RenderVKParticleFogDebug", "3", "--file", f]);
    assert!(!out.status.success(), "nothing is kept, so it must not report success");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not saved") && err.contains("--set RenderVKParticleFogDebug=3"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).ok().as_deref(), Some(FOREIGN), "file untouched");
}
