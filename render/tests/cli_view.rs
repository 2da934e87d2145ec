//! `particle-fog view`: the live viewer driven by scripts, offscreen and in a window under Xvfb
//! (`xvfb-run`, which `./run test` installs), on lavapipe with validation on (any validation
//! error makes the run fail). Frames are small and few: lavapipe renders the fog machine at
//! 128x72 in a fraction of a second a frame.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The simulated frame rate of the scripted runs: one frame steps the scene 0.1 s.
const FPS: f32 = 10.0;
/// The classifier's cross-fade rate (fog::classify::hysteresis::CROSSFADE_PER_S, documented as a
/// full cross-fade in 1 s).
const CROSSFADE_PER_S: f32 = 1.0;

/// Held by each window run: concurrent `xvfb-run -a` may pick the same free display number.
static DISPLAY: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Offscreen, or in a window on a virtual display.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Offscreen,
    Window,
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pf-cli-view-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    d
}

fn fog_machine() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/fog_machine.toml")
}

/// Runs `view` on `scene` with `script` in `d` (settings in `d/settings.xml`, report in
/// `d/report.json`) and `extra` arguments; fails the test when the run fails.
fn view(mode: Mode, d: &Path, scene: &Path, script: &str, extra: &[&str]) -> serde_json::Value {
    let script_path = d.join("script.txt");
    std::fs::write(&script_path, script).expect("script");
    let bin = env!("CARGO_BIN_EXE_particle-fog");
    let mut cmd = match mode {
        Mode::Offscreen => Command::new(bin),
        Mode::Window => {
            let mut c = Command::new("xvfb-run");
            c.args(["-a", "-s", "-screen 0 640x480x24", bin]);
            c
        }
    };
    cmd.args(["view", "--validation", scene.to_str().expect("utf-8")]);
    if mode == Mode::Offscreen {
        cmd.arg("--offscreen");
    }
    let settings = d.join("settings.xml");
    let report = d.join("report.json");
    cmd.args(["--script", script_path.to_str().expect("utf-8"), "--fps", &FPS.to_string()]);
    cmd.args(["--settings", settings.to_str().expect("utf-8"), "--report", report.to_str().expect("utf-8")]);
    // A small froxel grid: the froxel fog's cost does not shrink with the frame.
    for grid in
        ["RenderVKVolumetricFogGridX=32", "RenderVKVolumetricFogGridY=18", "RenderVKVolumetricFogGridZ=16"]
    {
        cmd.args(["--set", grid]);
    }
    let display =
        (mode == Mode::Window).then(|| DISPLAY.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    let run = cmd.args(extra).current_dir(d).output().unwrap_or_else(|e| panic!("running {mode:?}: {e}"));
    drop(display);
    assert!(
        run.status.success(),
        "{mode:?} run failed:\n{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(report).expect("report")).expect("report json")
}

/// The weights of system `index` per frame.
fn weights(report: &serde_json::Value, index: usize) -> Vec<f32> {
    report["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| f["weights"].get(index).and_then(serde_json::Value::as_f64).unwrap_or(0.0) as f32)
        .collect()
}

/// The index of the system named `name`.
fn system(report: &serde_json::Value, name: &str) -> usize {
    report["systems"].as_array().expect("systems").iter().position(|s| s["name"] == name).expect(name)
}

/// Setting `name` in `d/settings.xml`, as `settings get` prints it.
fn setting(d: &Path, name: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["settings", "--file", d.join("settings.xml").to_str().expect("utf-8"), "get", name])
        .output()
        .expect("settings get");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn rgba(path: &Path) -> image::RgbaImage {
    image::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).to_rgba8()
}

/// Pixels whose colour differs by more than `threshold` in any channel.
fn changed_pixels(a: &image::RgbaImage, b: &image::RgbaImage, threshold: u8) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > threshold))
        .count()
}

/// The mean of a 16-bit greyscale image, 0..1.
fn mean_grey16(path: &Path) -> f64 {
    let img = image::open(path).expect("grey16").to_luma16();
    img.pixels().map(|p| f64::from(p.0[0]) / 65535.0).sum::<f64>() / img.pixels().len() as f64
}

/// The panel's RenderVKParticleFog box clicked (the panel shown for the click, hidden for the
/// pictures): the frame changes, every converting system's weight rises from 0 to 1 in steps of
/// at most dt x CROSSFADE_PER_S over the documented 1 s, the panel's pass is timed, and closing
/// saves the toggle.
fn toggle_cross_fades(mode: Mode) {
    let d = dir(&format!("toggle-{mode:?}"));
    // At 128 pixels wide the panel fills the frame: the box is its first row's.
    let script = "0 panel off\n1 panel on\n2 click 15 35\n3 panel off\n15 close\n";
    let shots = ["--screenshot", "1:before.png", "--screenshot", "14:after.png"];
    let mut args = vec!["--size", "128x72", "--warmup", "4", "--set", "RenderVKParticleFog=false"];
    args.extend(shots);
    let report = view(mode, &d, &fog_machine(), script, &args);
    let smoke = system(&report, "fog machine");
    let w = weights(&report, smoke);
    assert_eq!(w.len(), 15, "{w:?}");
    // Each record is the state after its frame: frame 2, the first with the toggle on, moved one step.
    assert!(w[..2].iter().all(|&x| x == 0.0) && w[2] > 0.0, "off before the toggle: {w:?}");
    let step = CROSSFADE_PER_S / FPS;
    for pair in w.windows(2) {
        assert!(pair[1] - pair[0] <= step + 1e-4, "no frame jumps more than the fade step: {w:?}");
    }
    let full = w.iter().position(|&x| x >= 1.0).expect("fully fog by the end");
    let frames = (full - 1) as f32;
    assert!((frames / FPS - 1.0 / CROSSFADE_PER_S).abs() <= 0.15, "fade took {frames} frames: {w:?}");
    let (before, after) = (rgba(&d.join("before.png")), rgba(&d.join("after.png")));
    assert_eq!(before.dimensions(), (128, 72));
    let changed = changed_pixels(&before, &after, 4);
    assert!(changed > 128 * 72 / 20, "the fog changed only {changed} pixels");
    let passes = report["passes"].as_array().expect("passes");
    let panel = passes.iter().find(|p| p["pass"] == "view.panel").expect("view.panel timed");
    assert_eq!(panel["frames"], 2, "drawn in the two frames the panel was shown: {panel}");
    assert_eq!(setting(&d, "RenderVKParticleFog"), "true", "the click is saved on close");
    for f in report["frames"].as_array().expect("frames") {
        let (wall, cpu) = (f["wall_ms"].as_f64().expect("wall_ms"), f["cpu_ms"].as_f64().expect("cpu_ms"));
        assert!(wall > 0.0 && (0.0..=wall).contains(&cpu), "each frame's times: {f}");
    }
}

#[test]
fn flipping_the_toggle_cross_fades_offscreen() {
    toggle_cross_fades(Mode::Offscreen);
}

#[test]
fn flipping_the_toggle_cross_fades_in_a_window() {
    toggle_cross_fades(Mode::Window);
}

#[test]
fn the_density_slider_moves_the_mean_coverage() {
    let d = dir("density");
    let script = "0 panel off\n0 debug coverage\n2 set RenderVKParticleFogDensity 4.0\n4 close\n";
    let args =
        ["--size", "96x54", "--warmup", "40", "--screenshot", "1:low.png", "--screenshot", "3:high.png"];
    view(Mode::Offscreen, &d, &fog_machine(), script, &args);
    let (low, high) = (mean_grey16(&d.join("low_coverage.png")), mean_grey16(&d.join("high_coverage.png")));
    assert!(low > 0.002, "the fog covers something at density 1: {low}");
    assert!(high > low * 1.3, "density 4 covers more: {low} -> {high}");
}

#[test]
fn the_brick_bounds_view_draws_brick_edges() {
    let d = dir("bounds");
    let script = "0 panel off\n0 pause\n1 debug bounds\n3 close\n";
    let args =
        ["--size", "128x72", "--warmup", "12", "--screenshot", "0:plain.png", "--screenshot", "2:bounds.png"];
    view(Mode::Offscreen, &d, &fog_machine(), script, &args);
    let (plain, bounds) = (rgba(&d.join("plain.png")), rgba(&d.join("bounds.png")));
    let edges = changed_pixels(&plain, &bounds, 24);
    let total = (128 * 72) as usize;
    assert!(edges > total / 100, "brick edges drawn: {edges} pixels changed");
    assert!(edges < total / 2, "edges, not a blanket change: {edges} of {total}");
}

/// "never fog" on one system from the systems list: it fades back to billboards, the others stay
/// fog, and closing keeps the override in the file beside settings.xml.
fn override_turns_one_system_into_billboards(mode: Mode) {
    let d = dir(&format!("override-{mode:?}"));
    let script = "0 select \"chimney smoke\"\n1 override \"chimney smoke\" billboards\n13 close\n";
    let report = view(mode, &d, &fog_machine(), script, &["--size", "96x54", "--warmup", "12"]);
    let (chimney, machine) = (system(&report, "chimney smoke"), system(&report, "fog machine"));
    let (wc, wm) = (weights(&report, chimney), weights(&report, machine));
    assert!(wc[0] >= 1.0 && wm[0] >= 1.0, "both fog after the warm-up: {wc:?} {wm:?}");
    assert_eq!(*wc.last().expect("frames"), 0.0, "back to billboards: {wc:?}");
    assert!(wm.iter().all(|&w| w >= 1.0), "the other system is untouched: {wm:?}");
    let systems = report["systems"].as_array().expect("systems");
    assert_eq!(systems[chimney]["override"], "billboards");
    let stored = std::fs::read_to_string(d.join("particle_fog_overrides.xml")).expect("overrides saved");
    assert!(stored.contains("billboards"), "{stored}");
}

#[test]
fn the_override_turns_one_system_back_into_billboards_offscreen() {
    override_turns_one_system_into_billboards(Mode::Offscreen);
}

#[test]
fn the_override_turns_one_system_back_into_billboards_in_a_window() {
    override_turns_one_system_into_billboards(Mode::Window);
}

const TINY: &str = r#"
[camera]
position = [0.0, -6.0, 2.0]
target = [0.0, 0.0, 0.5]

[height_fog]
density = 0.05

[[object]]
shape = "plane"
size = [10.0, 10.0]
"#;

#[test]
fn closing_saves_the_changed_settings_and_keeps_foreign_keys() {
    let d = dir("save");
    let scene = d.join("tiny.toml");
    std::fs::write(&scene, TINY).expect("scene");
    let foreign = "<llsd><map><key>RenderFarClip</key><map><key>Type</key><string>F32</string>\
                   <key>Value</key><real>300</real></map></map></llsd>\n";
    std::fs::write(d.join("settings.xml"), foreign).expect("settings");
    let script = "0 set RenderVKParticleFogDensity 2.5\n1 toggle RenderVKVolumetricFog\n2 close\n";
    let report = view(Mode::Offscreen, &d, &scene, script, &["--size", "32x18", "--warmup", "0"]);
    assert_eq!(report["frames"].as_array().expect("frames").len(), 2, "closed at frame 2");
    let saved = std::fs::read_to_string(d.join("settings.xml")).expect("saved");
    assert!(saved.contains("RenderFarClip") && saved.contains("300"), "foreign key kept: {saved}");
    assert_eq!(setting(&d, "RenderVKParticleFogDensity"), "2.5");
    assert_eq!(setting(&d, "RenderVKVolumetricFog"), "false");
}

#[test]
fn a_malformed_script_is_refused_naming_the_line() {
    let d = dir("bad-script");
    let scene = d.join("tiny.toml");
    std::fs::write(&scene, TINY).expect("scene");
    std::fs::write(d.join("script.txt"), "0 panel off\n3 set RenderVKParticleFogDensity lots\n")
        .expect("script");
    let run = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["view", "--offscreen", scene.to_str().expect("utf-8"), "--script"])
        .arg(d.join("script.txt"))
        .output()
        .expect("run");
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("script.txt: line 2:") && err.contains("RenderVKParticleFogDensity"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Odd sizes (1 x 1 included) and minimising, with the panel drawn: no crash, no validation
/// error, and each screenshot has the size asked for.
fn resizes_and_minimises(mode: Mode) {
    let d = dir(&format!("resize-{mode:?}"));
    let scene = d.join("tiny.toml");
    std::fs::write(&scene, TINY).expect("scene");
    let script = "1 resize 97 31\n3 resize 1 1\n5 minimise\n7 restore\n8 resize 33 17\n9 key Tab\n\
                  10 resize 161 91\n12 close\n";
    let shots = ["--screenshot", "2:a.png", "--screenshot", "4:b.png", "--screenshot", "9:c.png"];
    let mut args = vec!["--size", "64x36", "--warmup", "0"];
    args.extend(shots);
    args.extend(["--screenshot", "11:d.png"]);
    let report = view(mode, &d, &scene, script, &args);
    for (file, size) in [("a.png", (97, 31)), ("b.png", (1, 1)), ("c.png", (33, 17)), ("d.png", (161, 91))] {
        assert_eq!(rgba(&d.join(file)).dimensions(), size, "{file}");
    }
    let frames = report["frames"].as_array().expect("frames");
    let rendered: Vec<bool> = frames.iter().map(|f| f["rendered"] == true).collect();
    assert_eq!(rendered[5..7], [false, false], "nothing rendered while minimised: {rendered:?}");
    assert!(rendered[7..].iter().all(|&r| r), "rendering resumes: {rendered:?}");
}

#[test]
fn odd_sizes_and_minimising_offscreen() {
    resizes_and_minimises(Mode::Offscreen);
}

#[test]
fn odd_sizes_and_minimising_in_a_window() {
    resizes_and_minimises(Mode::Window);
}
