//! `particle-fog render --export-mitsuba DIR`: Mitsuba 3 renders the exported scene into the image
//! this renderer drew, over the opaque surfaces and in the particle fog's single scattering. The
//! surfaces' test scene has every light kind (sun, spot, point light, gobo
//! projector), an unoccluded ambient, an emissive object and shadows; its lights' ranges end inside
//! the scene, so the host's range window (which the comparison applies to Mitsuba's light,
//! `render/src/mitsuba/mod.rs`) darkens much of what they light. Mitsuba's
//! `scalar_rgb` variant renders it through `tools/mitsuba_compare.py`, which `./run test`
//! installs (`python3 -m pip install --user mitsuba numpy`).

use std::path::{Path, PathBuf};
use std::process::Command;

const SCENE: &str = r#"
[camera]
position = [0.0, -6.0, 2.5]
target = [0.0, 0.0, 0.5]
fov_y_deg = 50

[sun]
direction = [0.4, -0.3, 0.8]
illuminance = 1.0

[ambient]
sky = [0.05, 0.06, 0.08]
ground = [0.03, 0.02, 0.02]

[textures]
gobo = "GOBO"

[[object]]
shape = "plane"
size = [12.0, 12.0]

[[object]]
shape = "box"
size = [8.0, 0.2, 4.0]
position = [0.0, 3.0, 2.0]
albedo = [0.5, 0.45, 0.4]

[[object]]
shape = "sphere"
radius = 0.7
position = [-1.0, 0.0, 0.7]
albedo = [0.7, 0.5, 0.3]

[[object]]
shape = "box"
size = [1.0, 1.0, 1.5]
position = [1.2, 0.5, 0.75]
emissive = [0.05, 0.0, 0.0]

[[light]]
kind = "spot"
position = [1.5, -2.0, 3.0]
direction = [-0.3, 0.5, -1.0]
intensity = 8.0
range = 6.0
inner_deg = 10.0
outer_deg = 25.0
shadows = true

[[light]]
kind = "point"
position = [-2.0, -1.5, 1.5]
color = [0.3, 0.5, 1.0]
intensity = 3.0
range = 4.0

[[light]]
kind = "projector"
position = [-3.0, -3.0, 3.0]
direction = [0.5, 1.0, -0.3]
color = [1.0, 0.9, 0.7]
intensity = 20.0
range = 8.0
fov_deg = 40.0
texture = "gobo"
shadows = true
"#;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pf-cli-mitsuba-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("dir");
    d
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `tools/mitsuba_compare.py` over the export in `export` with `args` (the scene's name first):
/// its JSON result.
fn compare(export: &Path, args: &[&str]) -> serde_json::Value {
    let result = export.join("result.json");
    let compare = Command::new("python3")
        .arg(repo().join("tools/mitsuba_compare.py"))
        .arg(export)
        .args(args)
        .args(["--out", result.to_str().expect("utf-8")])
        .output()
        .expect("python3 runs");
    assert!(
        compare.status.success(),
        "tools/mitsuba_compare.py failed (install Mitsuba with `python3 -m pip install --user mitsuba numpy`):\n{}",
        String::from_utf8_lossy(&compare.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(&result).expect("result")).expect("json")
}

/// The relative RMSE bound over the surfaces, and Mitsuba's noise allowed: a tenth of it.
const BOUND: f64 = 0.05;

#[test]
fn mitsuba_renders_the_exported_surfaces_as_this_renderer_does() {
    let d = dir("surfaces");
    let gobo = repo().join("scenes/textures/gobo_stripes.png");
    let scene = d.join("lights.toml");
    std::fs::write(&scene, SCENE.replace("GOBO", gobo.to_str().expect("utf-8"))).expect("scene");
    let export = d.join("export");
    let run = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .args(["render", "--validation", scene.to_str().expect("utf-8"), "--size", "160x90"])
        .args(["--out", d.join("out").to_str().expect("utf-8")])
        .args(["--export-mitsuba", export.to_str().expect("utf-8")])
        .output()
        .expect("run");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    for f in ["lights.xml", "lights_hdr.exr", "lights_fog.exr", "lights_spot_0.exr", "lights_projector_2.exr"]
    {
        assert!(export.join(f).is_file(), "{f} written");
    }
    let json = compare(&export, &["lights", "--spp", "32"]);
    let (rmse, noise) = (json["rel_rmse"].as_f64().expect("rmse"), json["noise"].as_f64().expect("noise"));
    let pixels = json["pixels"].as_u64().expect("pixels");
    assert!(pixels > 160 * 90 / 2, "{json}: most of the frame is surface");
    assert!(noise < BOUND / 10.0, "{json}: Mitsuba's noise over a tenth of the bound");
    assert!(rmse <= BOUND, "{json}: Mitsuba and this renderer differ over the surfaces");
}

/// The particle fog's single scattering against Mitsuba's (`--fog`, `max_depth` 2):
/// `scenes/sunlit_cloud.toml`, a dense white cloud lit by the sun alone, its billows on, compared as
/// sums over 8 x 8 pixels, where Mitsuba's noise at 2 x 128 samples a pixel is under a tenth of
/// the bound.
#[test]
fn mitsuba_scatters_the_sun_in_the_particle_fog_as_this_renderer_does() {
    const FOG_BOUND: f64 = 0.10;
    let d = dir("fog");
    let export = d.join("export");
    let run = Command::new(env!("CARGO_BIN_EXE_particle-fog"))
        .arg("render")
        .arg(repo().join("scenes/sunlit_cloud.toml"))
        .args(["--validation", "--size", "160x90", "--warmup", "300"])
        .args(["--out", d.join("out").to_str().expect("utf-8")])
        .args(["--export-mitsuba", export.to_str().expect("utf-8")])
        .output()
        .expect("run");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let json = compare(&export, &["sunlit_cloud", "--fog", "--spp", "128", "--block", "8"]);
    let (rmse, noise) = (json["rel_rmse"].as_f64().expect("rmse"), json["noise"].as_f64().expect("noise"));
    assert!(json["pixels"].as_u64().expect("pixels") > 1000, "{json}: the cloud covers the frame's middle");
    assert!(noise < FOG_BOUND / 10.0, "{json}: Mitsuba's noise over a tenth of the bound");
    assert!(rmse <= FOG_BOUND, "{json}: Mitsuba and this renderer scatter the sun differently");
}
