//! `particle-fog bench` on lavapipe under validation (64x36, 2 frames, the fog machine, the
//! resolution sweep): the JSON it writes has the device, driver, commit and settings, names every
//! pass, holds a toggle-off and a toggle-on run, sums each total from its parts, attributes the
//! particle fog's own passes in full, and gives the first sweep point ratios of 1. Timings are
//! not checked: lavapipe's mean nothing.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use pf_tests::frame::temp_dir;
use pf_tests::validated_desc;
use render::cli::bench::{run, BenchJob};
use render::cli::bench_sweep::Sweep;
use serde_json::Value;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(format!("{name}.toml"))
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The run's pass names (each once, timed over the run's two frames; `host.shadow` only over the
/// frames whose shadow views changed) and their medians.
fn passes(run: &Value) -> Vec<(String, f64)> {
    let list = run["passes"].as_array().expect("passes");
    assert!(!list.is_empty(), "{}: no passes", run["label"]);
    let mut seen = HashSet::new();
    list.iter()
        .map(|p| {
            let name = p["pass"].as_str().expect("pass name").to_owned();
            assert!(!name.is_empty() && seen.insert(name.clone()), "pass named once: {name:?}");
            let (med, lo, hi) = (num(&p["median_ms"]), num(&p["min_ms"]), num(&p["max_ms"]));
            assert!(lo <= med && med <= hi, "{name}: {lo} <= {med} <= {hi}");
            let frames = p["frames"].as_u64().expect("frames");
            let expected = if name == "host.shadow" { 1..=2 } else { 2..=2 };
            assert!(expected.contains(&frames), "{name}: timed over {frames} frames");
            (name, med)
        })
        .collect()
}

/// Checks a total against the passes: the sum of its parts, each part a pass of the run at its
/// median times its share.
fn check_total(total: &Value, passes: &[(String, f64)]) -> Vec<String> {
    let parts = total["parts"].as_array().expect("parts");
    let sum: f64 = parts.iter().map(|p| num(&p["ms"])).sum();
    assert!((num(&total["total_ms"]) - sum).abs() <= 1e-9, "total {} vs parts {sum}", total["total_ms"]);
    parts
        .iter()
        .map(|p| {
            let name = p["pass"].as_str().expect("part name");
            let (_, median) = passes.iter().find(|(n, _)| n == name).expect("a part is a pass of the run");
            assert!((num(&p["ms"]) - median * num(&p["share"])).abs() <= 1e-12, "{name}");
            name.to_owned()
        })
        .collect()
}

fn check_run(run: &Value, fog_on: bool) {
    assert_eq!(run["particle_fog"].as_bool(), Some(fog_on));
    let passes = passes(run);
    let frame: f64 = passes.iter().map(|(_, m)| m).sum();
    assert!((num(&run["frame_gpu_ms"]) - frame).abs() <= 1e-9);
    assert!(num(&run["frame_cpu_ms"]) > 0.0 && num(&run["frame_cpu_ms"]) <= num(&run["frame_wall_ms"]));
    let systems_cpu = num(&run["systems_cpu_ms"]);
    assert!(
        systems_cpu > 0.0 && systems_cpu <= num(&run["frame_cpu_ms"]),
        "the systems' CPU is part of the frame's"
    );
    let billboards = check_total(&run["billboards_ms"], &passes);
    assert!(billboards.iter().any(|n| n == "particles.billboards"), "{billboards:?}");
    let fog_parts = check_total(&run["particle_fog_ms"], &passes);
    let own: Vec<&String> = passes.iter().map(|(n, _)| n).filter(|n| n.starts_with("fog.brick")).collect();
    for name in &own {
        assert!(fog_parts.contains(name), "{name} is the particle fog's");
    }
    let shared = fog_parts.iter().filter(|n| !n.starts_with("fog.brick")).cloned().collect::<Vec<_>>();
    assert_eq!(shared, ["particles.emit", "particles.update"]);
    if fog_on {
        assert!(own.iter().any(|n| *n == "fog.brick_march") && own.iter().any(|n| *n == "fog.brick_splat"));
        let fog = &run["fog"];
        assert!(fog["carriers"].as_u64().is_some_and(|c| c > 0), "carriers: {fog}");
        let (used, allocated) = (num(&fog["brick_bytes_used"]), num(&fog["brick_bytes_allocated"]));
        assert!(used > 0.0 && used <= allocated && allocated <= num(&fog["brick_bytes_budget"]), "{fog}");
        assert!(num(&fog["bricks_used"]) <= num(&fog["bricks_allocated"]), "{fog}");
        assert_eq!(run["settings"]["RenderVKParticleFog"].as_str(), Some("true"));
    } else {
        assert!(own.is_empty(), "toggle off, yet {own:?}");
        assert_eq!(num(&run["particle_fog_ms"]["total_ms"]), 0.0);
        assert!(run["fog"].is_null());
        assert!(run["settings"].get("RenderVKParticleFog").is_none());
    }
}

#[test]
fn bench_json_names_every_pass_sums_its_totals_and_starts_sweeps_at_one() -> anyhow::Result<()> {
    let out = temp_dir("bench");
    let json = out.join("bench.json");
    let job = BenchJob {
        scenes: vec![scene_path("fog_machine")],
        sizes: vec![(64, 36)],
        frames: 2,
        warmup: 0,
        fps: 30.0,
        sweeps: vec![Sweep::Resolution],
        out: out.clone(),
        json: Some(json.clone()),
        settings_file: None,
        overrides: Vec::new(),
    };
    run(&job, &validated_desc())?;
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&json)?)?;
    assert!(r["device"].as_str().is_some_and(|d| !d.is_empty()) && r["driver"].as_str().is_some());
    let commit = r["commit"].as_str().expect("commit");
    assert!(commit == "unknown" || (commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit())));
    assert_eq!((r["frames"].as_u64(), r["warmup"].as_u64()), (Some(2), Some(0)));
    assert!(r["overrides"].as_array().is_some_and(Vec::is_empty) && r["settings_file"].is_null());
    let runs = r["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "off and on");
    check_run(&runs[0], false);
    check_run(&runs[1], true);
    assert!(out.join("fog_machine_64x36_on").join("fog_machine.png").is_file());
    let sweeps = r["sweeps"].as_array().expect("sweeps");
    assert_eq!(sweeps.len(), 1);
    assert_eq!(sweeps[0]["sweep"].as_str(), Some("resolution"));
    let first = &sweeps[0]["points"][0];
    assert_eq!(first["value"].as_str(), Some("64x36"));
    assert_eq!(first["run"]["label"], runs[1]["label"]);
    let ratios = first["ratios"].as_object().expect("ratios");
    for (name, v) in ratios.iter().filter(|(k, _)| *k != "passes") {
        assert_eq!(v.as_f64(), Some(1.0), "{name}");
    }
    let pass_ratios = ratios["passes"].as_object().expect("pass ratios");
    assert_eq!(pass_ratios.len(), passes(&runs[1]).len());
    assert!(pass_ratios.values().all(|v| v.as_f64() == Some(1.0)), "{pass_ratios:?}");
    Ok(())
}
