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
