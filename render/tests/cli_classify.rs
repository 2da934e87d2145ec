//! `particle-fog classify`: a creator's script with a fog machine and a spark fountain, its soft
//! texture in a texture directory: the fog converts, the sparks stay billboards, and every system is
//! explained in the documented JSON shape.

use std::process::Command;

const SCRIPT: &str = r#"
string FOG_TEXTURE = "fogpuff";

default {
    state_entry() {
        llParticleSystem([
            PSYS_PART_FLAGS, PSYS_PART_INTERP_COLOR_MASK | PSYS_PART_INTERP_SCALE_MASK,
            PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_ANGLE_CONE,
            PSYS_SRC_ANGLE_BEGIN, 0.0, PSYS_SRC_ANGLE_END, 0.4,
            PSYS_SRC_TEXTURE, FOG_TEXTURE,
            PSYS_PART_START_SCALE, <2.0, 2.0, 0.0>, PSYS_PART_END_SCALE, <4.0, 4.0, 0.0>,
            PSYS_PART_START_ALPHA, 0.15, PSYS_PART_END_ALPHA, 0.0,
            PSYS_PART_MAX_AGE, 12.0,
            PSYS_SRC_BURST_RATE, 0.2, PSYS_SRC_BURST_PART_COUNT, 4,
            PSYS_SRC_BURST_SPEED_MIN, 0.1, PSYS_SRC_BURST_SPEED_MAX, 0.3
        ]);
        llLinkParticleSystem(2, [
            PSYS_PART_FLAGS, PSYS_PART_EMISSIVE_MASK | PSYS_PART_FOLLOW_VELOCITY_MASK,
            PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_EXPLODE,
            PSYS_PART_START_SCALE, <0.05, 0.2, 0.0>,
            PSYS_PART_MAX_AGE, 1.0,
            PSYS_SRC_BURST_SPEED_MIN, 3.0, PSYS_SRC_BURST_SPEED_MAX, 5.0,
            PSYS_PART_BLEND_FUNC_DEST, PSYS_PART_BF_ONE
        ]);
    }
}
"#;

#[test]
fn classify_converts_the_fog_machine_and_keeps_the_sparks() {
    let dir = std::env::temp_dir().join(format!("pf-cli-classify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("fog_machine.lsl");
    std::fs::write(&script, SCRIPT).expect("script");
    // A soft Gaussian puff named like the script's texture.
    let puff = image::RgbaImage::from_fn(64, 64, |x, y| {
        let r2 = ((x as f32 - 31.5).powi(2) + (y as f32 - 31.5).powi(2)) / (64.0 * 64.0);
        image::Rgba([255, 255, 255, (255.0 * (-r2 / (2.0 * 0.15 * 0.15)).exp()) as u8])
    });
    puff.save(dir.join("fogpuff.png")).expect("texture");
    let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args([
            "classify",
            "--lsl",
            script.to_str().expect("utf-8"),
            "--texture-dir",
            dir.to_str().expect("utf-8"),
            "--json",
        ])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let systems = v["systems"].as_array().expect("systems");
    assert_eq!(systems.len(), 2);
    let (fog, sparks) = (&systems[0], &systems[1]);
    assert!(
        fog["source"].as_str().is_some_and(|s| s.ends_with(":6")),
        "source is file:line: {}",
        fog["source"]
    );
    assert_eq!(fog["verdict"], "fog", "{fog}");
    assert_eq!(fog["weight"].as_f64(), Some(1.0));
    assert!(fog["score"].as_f64().is_some_and(|s| s > 0.7));
    assert!(fog["factors"].as_object().is_some_and(|f| !f.is_empty()));
    assert_eq!(sparks["verdict"], "billboard");
    let exclusions: Vec<&str> =
        sparks["exclusions"].as_array().expect("list").iter().filter_map(|e| e.as_str()).collect();
    for id in ["additive_blend", "follow_velocity", "too_small", "streaks", "short_lived"] {
        assert!(exclusions.contains(&id), "sparks should be excluded as {id}: {exclusions:?}");
    }
}

#[test]
fn classify_without_the_texture_keeps_systems_billboards() {
    let dir = std::env::temp_dir().join(format!("pf-cli-classify-unknown-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("fog_machine.lsl");
    std::fs::write(&script, SCRIPT).expect("script");
    let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["classify", "--lsl", script.to_str().expect("utf-8"), "--json"])
        .output()
        .expect("run");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["systems"][0]["verdict"], "billboard");
    assert!(v["systems"][0]["exclusions"]
        .as_array()
        .is_some_and(|e| e.iter().any(|x| x == "unknown_texture")));
}

#[test]
fn a_settings_file_does_not_switch_the_master_toggle_back_off() {
    let dir = std::env::temp_dir().join(format!("pf-cli-classify-settings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("fog_machine.lsl");
    std::fs::write(&script, SCRIPT).expect("script");
    // A user's settings file that changes an unrelated setting and says nothing of the toggle.
    let settings = dir.join("settings.xml");
    std::fs::write(
        &settings,
        "<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n<key>RenderMaxPartCount</key>\n<map>\n\
         <key>Comment</key><string>x</string><key>Persist</key><integer>1</integer>\n\
         <key>Type</key><string>S32</string><key>Value</key><integer>2048</integer>\n</map>\n</map>\n</llsd>\n",
    )
    .expect("settings");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
            .args([
                "classify",
                "--lsl",
                script.to_str().expect("utf-8"),
                "--unknown-texture",
                "soft",
                "--json",
            ])
            .args(["--settings", settings.to_str().expect("utf-8")])
            .args(extra)
            .output()
            .expect("run");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("JSON")
    };
    assert_eq!(run(&[])["systems"][0]["verdict"], "fog");
    let off = run(&["--set", "RenderVKParticleFog=false"]);
    assert_eq!(off["systems"][0]["verdict"], "billboard");
    assert!(off["systems"][0]["exclusions"]
        .as_array()
        .is_some_and(|e| e.iter().any(|x| x == "particle_fog_off")));
}

/// The viewer's unit-test vector (`llpartdata_test.cpp`): texture 5e120ba1-..., blend (2, 1).
const VIEWER_VECTOR: &str = "440000000100000000000000010000000000001900000000010001010080008000800080008000805e120ba15805dc5766b7f5ac4bd18f86000000000000000000000000000000001400000002050200000affffffffffff0000202000000201";

#[test]
fn warnings_on_a_pipe_carry_no_colour_codes() {
    let dir = std::env::temp_dir().join(format!("pf-cli-classify-plain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("5e120ba1-5805-dc57-66b7-f5ac4bd18f86.png"), b"not a png").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["classify", "--hex", VIEWER_VECTOR, "--texture-dir", dir.to_str().expect("utf-8")])
        .env_remove("NO_COLOR")
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("WARN") && err.contains("5e120ba1"),
        "the unreadable texture is warned about: {err}"
    );
    assert!(!err.contains('\x1b'), "colour codes on a pipe: {err:?}");
}

#[test]
fn a_block_with_a_blend_factor_no_simulator_sends_is_refused() {
    let hex = format!("{}63", &VIEWER_VECTOR[..VIEWER_VECTOR.len() - 2]);
    let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["classify", "--hex", &hex])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: PSYS block refused: particle.blend_func_dest is 99"), "{err}");
}
