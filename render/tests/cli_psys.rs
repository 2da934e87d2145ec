//! `particle-fog psys decode|encode` and `particle-fog lsl`: the documented JSON shapes and exit codes.

use std::io::Write as _;
use std::process::{Command, Stdio};

/// The viewer's unit-test vector (`llpartdata_test.cpp`): 96 bytes, DROP, ribbon, multiply blend.
const VIEWER_VECTOR: &str = "440000000100000000000000010000000000001900000000010001010080008000800080008000805e120ba15805dc5766b7f5ac4bd18f86000000000000000000000000000000001400000002050200000affffffffffff0000202000000201";

fn particle_fog(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_particle-fog")).args(args).output().expect("run particle-fog")
}

#[test]
fn decode_prints_the_documented_fields_of_the_viewer_vector() {
    let out = particle_fog(&["psys", "decode", VIEWER_VECTOR]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["status"], "ok");
    let (sys, part) = (&v["system"], &v["particle"]);
    assert_eq!(sys["pattern"], 1);
    assert_eq!(sys["burst_rate"].as_f64(), Some(0.09765625));
    assert_eq!(sys["part_image_id"], "5e120ba1-5805-dc57-66b7-f5ac4bd18f86");
    assert_eq!(sys["target_uuid"], "00000000-0000-0000-0000-000000000000");
    assert_eq!(part["flags"], 0x0002_0502);
    assert_eq!(part["max_age"].as_f64(), Some(10.0));
    assert_eq!(part["end_color"], serde_json::json!([1.0, 1.0, 0.0, 0.0]));
    assert_eq!((part["blend_func_source"].as_u64(), part["blend_func_dest"].as_u64()), (Some(2), Some(1)));
}

#[test]
fn decode_reports_none_and_rejected_with_exit_codes() {
    let none = particle_fog(&["psys", "decode", ""]);
    assert!(none.status.success());
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&none.stdout).expect("JSON")["status"], "none");
    let short = particle_fog(&["psys", "decode", "4400000001"]);
    assert_eq!(short.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&short.stdout).expect("JSON");
    assert_eq!(v["status"], "rejected");
    assert!(v["reason"].as_str().is_some_and(|r| !r.is_empty()));
    let err = String::from_utf8_lossy(&short.stderr);
    assert_eq!(
        err.trim(),
        format!("error: PSYS block rejected: {}", v["reason"].as_str().unwrap_or_default())
    );
}

/// The viewer's `LLViewerPartSourceScript::unpackPSS` / `LLPartSysData::isNullPS` treat a block
/// longer than 98 bytes as no system (a newer format it does not know), and 1..=85 bytes go down
/// its extended path with undefined results (an uninitialised CRC for 1..=3): ours rejects those.
/// The help says the same.
#[test]
fn longer_than_98_bytes_is_no_system_and_1_byte_is_rejected_as_the_help_says() {
    for len in [99usize, 120, 255] {
        let out = particle_fog(&["psys", "decode", &"01".repeat(len)]);
        assert!(out.status.success(), "{len} bytes");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(v["status"], "none", "{len} bytes");
    }
    let one = particle_fog(&["psys", "decode", "01"]);
    assert_eq!(one.status.code(), Some(3));
    let help = String::from_utf8_lossy(&particle_fog(&["psys", "decode", "--help"]).stdout).into_owned();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("more than 98 is no system") && help.contains("1..=85 bytes are rejected"),
        "{help}"
    );
}

#[test]
fn encode_reads_the_decode_shape_back_into_the_same_block() {
    let decoded = particle_fog(&["psys", "decode", VIEWER_VECTOR]).stdout;
    let mut child = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["psys", "encode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child.stdin.take().expect("stdin").write_all(&decoded).expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), VIEWER_VECTOR);
}

#[test]
fn lsl_imports_a_script_and_reports_a_syntax_error_with_its_position() {
    let dir = std::env::temp_dir().join(format!("pf-cli-lsl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let good = dir.join("fog.lsl");
    std::fs::write(
        &good,
        "default {\n  state_entry() {\n    llParticleSystem([PSYS_PART_MAX_AGE, 12.0, PSYS_SRC_BURST_RATE, 0.5]);\n  }\n}\n",
    )
    .expect("write");
    let out = particle_fog(&["lsl", good.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let call = &v["calls"][0];
    assert_eq!(call["line"], 3);
    assert_eq!(call["descriptor"]["particle"]["max_age"].as_f64(), Some(12.0));
    assert_eq!(call["descriptor"]["system"]["burst_rate"].as_f64(), Some(0.5));
    let bad = dir.join("bad.lsl");
    std::fs::write(
        &bad,
        "default {\n  state_entry() {\n    llParticleSystem([PSYS_PART_MAX_AGE, 12.0);\n  }\n}\n",
    )
    .expect("write");
    let out = particle_fog(&["lsl", bad.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3"), "error names the line: {err}");
}

fn particle_fog_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    // The reader may stop early (over the cap): a broken pipe here is expected then.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("wait")
}

#[test]
fn lsl_reads_standard_input_for_a_dash() {
    let script = b"default { state_entry() { llParticleSystem([PSYS_PART_MAX_AGE, 7.0]); } }";
    let out = particle_fog_stdin(&["lsl", "-"], script);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["calls"][0]["descriptor"]["particle"]["max_age"].as_f64(), Some(7.0));
    let bad = particle_fog_stdin(&["lsl", "-"], b"default { state_entry() { llParticleSystem([); } }");
    assert_eq!(bad.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("<stdin>: line 1"));
}

#[test]
fn lsl_refuses_devices_directories_and_scripts_over_one_mebibyte() {
    let cap = 1 << 20;
    for path in ["/dev/zero", "/tmp"] {
        let out = particle_fog(&["lsl", path]);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a regular file"), "{path}: {err}");
    }
    let dir = std::env::temp_dir().join(format!("pf-cli-lsl-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let big = dir.join("big.lsl");
    // A comment line of exactly the cap, plus a call: one byte too many.
    let mut text = "/".repeat(cap - 1) + "\n";
    text.push_str("default { state_entry() { llParticleSystem([]); } }");
    std::fs::write(&big, &text).expect("write");
    let out = particle_fog(&["lsl", big.to_str().expect("utf-8")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("larger than the 1048576-byte limit"));
    let out = particle_fog_stdin(&["lsl", "-"], text.as_bytes());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("larger than the 1048576-byte limit"));
    // At the cap exactly, the script imports.
    let at_cap = "/".repeat(cap - 60) + "\ndefault { state_entry() { llParticleSystem([]); } }";
    let at_cap = at_cap.clone() + &" ".repeat(cap - at_cap.len());
    std::fs::write(&big, &at_cap).expect("write");
    let out = particle_fog(&["lsl", big.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let help = String::from_utf8_lossy(&particle_fog(&["lsl", "--help"]).stdout).into_owned();
    assert!(help.contains("1 MiB") && help.contains("standard input"), "{help}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A pipe whose reader has already gone: the write end of a finished process's standard input.
fn closed_pipe() -> Stdio {
    let mut reader = Command::new("true").stdin(Stdio::piped()).spawn().expect("spawn true");
    let writer = reader.stdin.take().expect("stdin");
    reader.wait().expect("true exits");
    Stdio::from(writer)
}

#[test]
fn output_into_a_closed_pipe_ends_quietly_with_the_commands_own_exit_code() {
    let cases: [(&[&str], i32); 3] =
        [(&["psys", "decode", VIEWER_VECTOR], 0), (&["psys", "decode", "4400000001"], 3), (&["--help"], 0)];
    for (args, code) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
            .args(args)
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
    }
}

fn encode(json: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["psys", "encode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // A refused oversized input may close the pipe early; that is the point of the cap.
    let _ = child.stdin.take().expect("stdin").write_all(json.as_bytes());
    child.wait_with_output().expect("wait")
}

/// The viewer vector's decode JSON with `edit` applied.
fn decoded_with(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value =
        serde_json::from_slice(&particle_fog(&["psys", "decode", VIEWER_VECTOR]).stdout).expect("JSON");
    edit(&mut v);
    v.to_string()
}

#[test]
fn encode_warns_on_stderr_for_each_value_it_changes() {
    let out = encode(&decoded_with(|v| {
        v["system"]["burst_rate"] = serde_json::json!(-1.0);
        v["particle"]["start_scale"] = serde_json::json!([1e30, 1.0]);
        v["particle"]["start_glow"] = serde_json::json!(2.0);
        v["particle"]["max_age"] = serde_json::json!(-3.0);
        v["system"]["pattern"] = serde_json::json!(99);
    }));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(warnings.len(), 5, "{err}");
    for field in [
        "system.burst_rate",
        "particle.start_scale",
        "particle.start_glow",
        "particle.max_age",
        "system.pattern",
    ] {
        assert!(warnings.iter().any(|w| w.starts_with(&format!("warning: {field}: "))), "{field}: {err}");
    }
    let hex = String::from_utf8_lossy(&out.stdout);
    let decoded: serde_json::Value =
        serde_json::from_slice(&particle_fog(&["psys", "decode", hex.trim()]).stdout).expect("JSON");
    assert_eq!(decoded["particle"]["start_glow"].as_f64(), Some(1.0));
    assert_eq!(decoded["particle"]["start_scale"], serde_json::json!([7.96875, 1.0]));
}

#[test]
fn encode_refuses_a_crc_of_zero_and_a_blend_factor_no_simulator_sends() {
    let out = encode(&decoded_with(|v| v["particle"]["blend_func_source"] = serde_json::json!(99)));
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: particle.blend_func_source is 99: not a blend factor"), "{err}");
    let out = encode(&decoded_with(|v| v["system"]["crc"] = serde_json::json!(0)));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("system.crc is 0"));
}

#[test]
fn encode_refuses_devices_and_oversized_input_without_reading_it_all() {
    let out = particle_fog(&["psys", "encode", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "error: /dev/zero: not a regular file (a device)"
    );
    let out = encode(&" ".repeat(65 * 1024));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("larger than the 65536-byte limit for a descriptor"), "{err}");
}
