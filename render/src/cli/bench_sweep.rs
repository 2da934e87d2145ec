//! The sweeps of `particle-fog bench --sweep ...`: how the particle fog's cost grows with its
//! carriers, its voxel size, the number of systems and the resolution. Each sweep is a list of
//! points measured with `RenderVKParticleFog` on and reported as ratios to its first point.
//!
//! - `carriers`: x1/x2/x4/x8 copies of the first scene's first particle source (in the showcase's
//!   fog machine, the fog machine itself), so the carriers of that system double from point to
//!   point; generated scenes written to the bench's output folder.
//! - `voxel`: `RenderVKParticleFogVoxelSize` 0.05/0.075/0.1 m on the first scene.
//! - `systems`: 1/10/100/1000 small systems (three particles a second, four seconds of life:
//!   twelve particles each, the fewest the classifier's `alive` factor counts in full) made from
//!   the first scene's first source, on a grid around it; the rest of the scene (geometry,
//!   lights, camera) kept. 1000 of them live 12,000 particles, beyond the viewer's cap of 8192,
//!   so these runs set `RenderVKParticleCapacity` to [`SYSTEMS_CAPACITY`] (a stress pool: no
//!   budget but its size). A last point, `1000 x10`, gives the 1000 systems ten times the
//!   particles (30 a burst, 120,000 alive, [`DENSE_CAPACITY`]): the systems' CPU work per frame
//!   must not grow with their particles.
//! - `resolution`: the first scene at every `--size`, in order (the toggle-on runs of the main
//!   table, not measured again).
//!
//! Scenes are rewritten through `toml::Value`; their `[textures]` paths are made absolute, since
//! the generated file lives in another folder than the scene it came from.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use toml::Value;

/// A sweep: what varies from point to point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// Copies of the first scene's first particle source: x1, x2, x4, x8.
    Carriers,
    /// `RenderVKParticleFogVoxelSize`: [`VOXEL_SIZES_M`].
    Voxel,
    /// Generated scenes of [`SYSTEM_COUNTS`] small fog systems.
    Systems,
    /// Every `--size`.
    Resolution,
}

/// The carriers sweep's copies of the source.
pub const CARRIER_FACTORS: [u32; 4] = [1, 2, 4, 8];
/// The voxel sweep's near-camera voxel edges, m.
pub const VOXEL_SIZES_M: [f32; 3] = [0.05, 0.075, 0.1];
/// The systems sweep's system counts.
pub const SYSTEM_COUNTS: [u32; 4] = [1, 10, 100, 1000];
/// Edge of the square the systems sweep spreads its systems over, centred on the source, m.
const SYSTEMS_SPREAD_M: f64 = 8.0;
/// Each generated system's burst interval, s (`burst_rate`).
const SMALL_BURST_INTERVAL_S: f64 = 1.0;
/// Each generated system's particles per burst.
const SMALL_BURST_COUNT: i64 = 3;
/// Each generated system's particle life, s: twelve particles alive per system.
const SMALL_MAX_AGE_S: f64 = 4.0;
/// `RenderVKParticleCapacity` of the systems sweep's runs: room for 1000 systems' 12,000
/// particles twice over.
pub const SYSTEMS_CAPACITY: u32 = 32_768;
/// The systems sweep's last point: its system count and particle factor.
pub const DENSE_POINT: (u32, i64) = (1000, 10);
/// `RenderVKParticleCapacity` of that point: room for its 120,000 particles twice over.
pub const DENSE_CAPACITY: u32 = 262_144;

impl Sweep {
    /// Every sweep, in the order they run.
    pub const ALL: [Sweep; 4] = [Sweep::Carriers, Sweep::Voxel, Sweep::Systems, Sweep::Resolution];

    /// The name on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Sweep::Carriers => "carriers",
            Sweep::Voxel => "voxel",
            Sweep::Systems => "systems",
            Sweep::Resolution => "resolution",
        }
    }
}

impl std::str::FromStr for Sweep {
    type Err = String;

    fn from_str(text: &str) -> Result<Sweep, String> {
        Sweep::ALL
            .into_iter()
            .find(|s| s.name() == text.trim())
            .ok_or_else(|| format!("sweep {text:?}: expected one of carriers, voxel, systems, resolution"))
    }
}

/// One point of a sweep that needs its own run (the resolution sweep has none).
#[derive(Clone, Debug)]
pub struct SweepRun {
    /// The point's value as reported (`x2`, `0.05 m`, `100`).
    pub value: String,
    /// The scene to render (generated or the first scene).
    pub scene: PathBuf,
    /// Setting overrides of this point (after the command line's).
    pub overrides: Vec<String>,
}

/// The runs of `sweep` over `scene`; generated scenes are written into `dir`.
pub fn runs(sweep: Sweep, scene: &Path, dir: &Path) -> anyhow::Result<Vec<SweepRun>> {
    Ok(match sweep {
        Sweep::Carriers => {
            let base = read_scene(scene)?;
            let mut out = Vec::new();
            for k in CARRIER_FACTORS {
                let text = with_copies(&base, k).with_context(|| format!("{}", scene.display()))?;
                let path = write_scene(dir, &format!("carriers_x{k}"), &text)?;
                out.push(SweepRun { value: format!("x{k}"), scene: path, overrides: Vec::new() });
            }
            out
        }
        Sweep::Voxel => VOXEL_SIZES_M
            .iter()
            .map(|v| SweepRun {
                value: format!("{v} m"),
                scene: scene.to_path_buf(),
                overrides: vec![format!("RenderVKParticleFogVoxelSize={v}")],
            })
            .collect(),
        Sweep::Systems => {
            let base = read_scene(scene)?;
            let mut out = Vec::new();
            let points = SYSTEM_COUNTS.map(|n| (n, 1, SYSTEMS_CAPACITY));
            let (n, k) = DENSE_POINT;
            for (n, k, capacity) in points.into_iter().chain([(n, k, DENSE_CAPACITY)]) {
                let text = with_systems(&base, n, k).with_context(|| format!("{}", scene.display()))?;
                let (name, value) = if k == 1 {
                    (format!("systems_{n}"), n.to_string())
                } else {
                    (format!("systems_{n}_x{k}"), format!("{n} x{k}"))
                };
                let path = write_scene(dir, &name, &text)?;
                let overrides = vec![format!("RenderVKParticleCapacity={capacity}")];
                out.push(SweepRun { value, scene: path, overrides });
            }
            out
        }
        Sweep::Resolution => Vec::new(),
    })
}

/// The scene file as a TOML table, its texture paths made absolute.
fn read_scene(path: &Path) -> anyhow::Result<Value> {
    let text = crate::input::read_text(path, crate::input::MAX_SCENE_BYTES, "a scene file")?;
    let mut value: Value = toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let folder = path.parent().unwrap_or(Path::new("."));
    let folder = std::fs::canonicalize(folder).with_context(|| format!("{}", folder.display()))?;
    if let Some(textures) = value.get_mut("textures").and_then(Value::as_table_mut) {
        for (_, v) in textures.iter_mut() {
            if let Some(rel) = v.as_str() {
                *v = Value::String(folder.join(rel).to_string_lossy().into_owned());
            }
        }
    }
    Ok(value)
}

fn write_scene(dir: &Path, name: &str, text: &str) -> anyhow::Result<PathBuf> {
    let path = dir.join(format!("{name}.toml"));
    crate::atomic_file::write_atomically(&path, text.as_bytes())?;
    Ok(path)
}

/// The scene's `[[particles]]` array and its first source.
fn sources(scene: &Value) -> anyhow::Result<(&Vec<Value>, &toml::Table)> {
    let list = scene.get("particles").and_then(Value::as_array).context("the scene has no [[particles]]")?;
    let first = list.first().and_then(Value::as_table).context("the scene's [[particles]] is empty")?;
    Ok((list, first))
}

/// The scene with `k` copies of its first particle source (the original and `k - 1` more).
pub fn with_copies(scene: &Value, k: u32) -> anyhow::Result<String> {
    let (list, first) = sources(scene)?;
    let name = first.get("name").and_then(Value::as_str).unwrap_or("source").to_owned();
    let mut particles = list.clone();
    for i in 1..k {
        let mut copy = first.clone();
        copy.insert("name".into(), Value::String(format!("{name} copy {i}")));
        particles.push(Value::Table(copy));
    }
    let mut out = scene.clone();
    out.as_table_mut()
        .context("the scene is not a table")?
        .insert("particles".into(), Value::Array(particles));
    Ok(toml::to_string(&out)?)
}

/// The scene with its particle sources replaced by `n` small systems made from the first one,
/// on a grid over [`SYSTEMS_SPREAD_M`] around it, each bursting `particle_factor` times
/// [`SMALL_BURST_COUNT`] particles.
pub fn with_systems(scene: &Value, n: u32, particle_factor: i64) -> anyhow::Result<String> {
    let (_, first) = sources(scene)?;
    anyhow::ensure!(
        first.get("system").is_some_and(Value::is_table),
        "the systems sweep needs the first source written as a [particles.system] table"
    );
    let centre = vec3(first.get("position"));
    let side = (f64::from(n)).sqrt().ceil().max(1.0) as u32;
    let step = SYSTEMS_SPREAD_M / f64::from(side);
    let mut particles = Vec::with_capacity(n as usize);
    for i in 0..n {
        let (gx, gy) = (f64::from(i % side), f64::from(i / side));
        let offset = |g: f64| (g - 0.5 * f64::from(side - 1)) * step;
        let mut source = first.clone();
        source.insert("name".into(), Value::String(format!("small fog {i}")));
        let position = [centre[0] + offset(gx), centre[1] + offset(gy), centre[2]];
        source.insert("position".into(), Value::Array(position.map(Value::Float).to_vec()));
        if let Some(system) = source.get_mut("system").and_then(Value::as_table_mut) {
            system.insert("burst_rate".into(), Value::Float(SMALL_BURST_INTERVAL_S));
            system.insert("burst_part_count".into(), Value::Integer(SMALL_BURST_COUNT * particle_factor));
            system.insert("part_max_age".into(), Value::Float(SMALL_MAX_AGE_S));
        }
        particles.push(Value::Table(source));
    }
    let mut out = scene.clone();
    out.as_table_mut()
        .context("the scene is not a table")?
        .insert("particles".into(), Value::Array(particles));
    Ok(toml::to_string(&out)?)
}

/// A `[x, y, z]` of numbers, or the origin.
fn vec3(value: Option<&Value>) -> [f64; 3] {
    let mut out = [0.0; 3];
    let items = value.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (o, v) in out.iter_mut().zip(items) {
        *o = v.as_float().or_else(|| v.as_integer().map(|i| i as f64)).unwrap_or(0.0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENE: &str = r#"
[textures]
soft = "textures/soft.png"

[[particles]]
name = "fog machine"
position = [1.0, 2, 0.5]
texture = "soft"

[particles.system]
burst_rate = 0.2
burst_part_count = 6

[[particles]]
name = "other"
lsl = "[]"
"#;

    fn parsed() -> Value {
        toml::from_str(SCENE).expect("test scene")
    }

    fn particles(text: &str) -> Vec<Value> {
        let v: Value = toml::from_str(text).expect("generated scene parses");
        v["particles"].as_array().expect("particles").clone()
    }

    #[test]
    fn copies_add_k_minus_one_renamed_sources() {
        let p = particles(&with_copies(&parsed(), 4).expect("copies"));
        assert_eq!(p.len(), 2 + 3);
        assert_eq!(p[4]["name"].as_str(), Some("fog machine copy 3"));
        assert_eq!(p[4]["system"]["burst_part_count"].as_integer(), Some(6));
        assert_eq!(particles(&with_copies(&parsed(), 1).expect("x1")).len(), 2);
    }

    #[test]
    fn systems_are_small_and_spread_around_the_source() {
        let p = particles(&with_systems(&parsed(), 10, 1).expect("systems"));
        assert_eq!(p.len(), 10);
        let xs: Vec<f64> = p.iter().map(|s| s["position"][0].as_float().expect("x")).collect();
        let mean = xs.iter().sum::<f64>() / 10.0;
        assert!(xs.iter().all(|x| (x - 1.0).abs() <= SYSTEMS_SPREAD_M / 2.0), "{xs:?}");
        assert!(xs.iter().any(|x| (x - mean).abs() > 1.0), "spread: {xs:?}");
        assert!(p.iter().all(|s| s["system"]["burst_part_count"].as_integer() == Some(SMALL_BURST_COUNT)));
        assert!(p.iter().all(|s| s["system"]["part_max_age"].as_float() == Some(SMALL_MAX_AGE_S)));
    }

    #[test]
    fn the_dense_point_multiplies_each_burst_only() {
        let dense = particles(&with_systems(&parsed(), 4, 10).expect("dense"));
        let plain = particles(&with_systems(&parsed(), 4, 1).expect("plain"));
        assert_eq!(dense.len(), 4);
        for (d, p) in dense.iter().zip(&plain) {
            assert_eq!(d["system"]["burst_part_count"].as_integer(), Some(10 * SMALL_BURST_COUNT));
            assert_eq!(d["position"], p["position"]);
            assert_eq!(d["system"]["part_max_age"], p["system"]["part_max_age"]);
        }
    }

    #[test]
    fn a_scene_without_sources_is_an_error() {
        let empty: Value = toml::from_str("wind = [0.0, 0.0, 0.0]").expect("toml");
        assert!(with_copies(&empty, 2).is_err());
        let lsl_first: Value = toml::from_str("[[particles]]\nlsl = \"[]\"").expect("toml");
        assert!(with_systems(&lsl_first, 2, 1).is_err());
    }

    #[test]
    fn sweep_names_round_trip() {
        for s in Sweep::ALL {
            assert_eq!(s.name().parse::<Sweep>(), Ok(s));
        }
        assert!("speed".parse::<Sweep>().is_err());
    }
}
