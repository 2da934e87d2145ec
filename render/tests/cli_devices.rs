//! `particle-fog devices` lists this machine's devices (lavapipe where there is no GPU).

use std::process::Command;

#[test]
fn devices_lists_at_least_one_usable_device_as_json() {
    let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["devices", "--json"])
        .output()
        .expect("run particle-fog");
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let devices: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    let list = devices.as_array().expect("an array of devices");
    assert!(!list.is_empty(), "no Vulkan devices: is mesa-vulkan-drivers installed?");
    for d in list {
        for field in ["name", "device_type", "driver", "api_version", "limits", "features", "missing"] {
            assert!(d.get(field).is_some(), "device entry lacks {field}: {d}");
        }
    }
    assert!(
        list.iter().any(|d| d["missing"].as_array().is_some_and(|m| m.is_empty())),
        "no usable device in {devices}"
    );
}

#[test]
fn devices_text_names_the_driver_and_api_version() {
    let out = Command::new(env!("CARGO_BIN_EXE_particle-fog")).arg("devices").output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("driver:") && text.contains("api version:"), "{text}");
    assert!(text.contains("usable:      yes"), "{text}");
}

#[test]
fn devices_device_shows_the_one_device_asked_for_and_refuses_an_unknown_one() {
    let run =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_particle-fog")).args(args).output().expect("run");
    let all: serde_json::Value = serde_json::from_slice(&run(&["devices", "--json"]).stdout).expect("JSON");
    let count = all.as_array().expect("array").len();
    let one = run(&["devices", "--json", "--device", "0"]);
    assert!(one.status.success(), "{}", String::from_utf8_lossy(&one.stderr));
    let one: serde_json::Value = serde_json::from_slice(&one.stdout).expect("JSON");
    assert_eq!(one.as_array().map(Vec::len), Some(1));
    assert_eq!(one[0]["name"], all[0]["name"]);

    let past = count.to_string();
    let out = run(&["devices", "--device", &past]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("no device has index {past}")) && err.contains("[0] "), "{err}");

    let out = run(&["devices", "--device", "no such gpu"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no device name contains \"no such gpu\""));
}

#[test]
fn an_empty_device_name_is_refused_not_taken_as_device_zero() {
    for sub in [&["devices"][..], &["render", "scene.toml"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
            .args(sub)
            .args(["--device", ""])
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{sub:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--device") && err.contains("empty"), "{sub:?}: {err}");
    }
}
