//! `particle-fog bench [SCENES...]`: the particle fog measured against the billboards it
//! replaces. For each scene and size, `RenderVKParticleFog` off and then on, it runs what
//! `particle-fog render` runs ([`super::render::run`]: a fresh device, the warm-up to the
//! particle systems' steady state, then the timed frames; only the last frame is written, into
//! `OUT/<run>/`), then the sweeps ([`super::bench_sweep`], toggle on), and reports per-pass GPU
//! medians (min, max), the particle fog's and the billboards' totals
//! ([`super::bench_report`]), the frame's GPU total, the CPU work per frame (wall clock less the
//! wait for the GPU), brick memory (used / allocated / budget) and carriers: a table on stdout
//! and, with `--json`, a file
//! with the device, driver, commit and settings.

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;

use anyhow::Context as _;
use serde::Serialize;

use super::bench_report::{self as report, Figures, Ratios, Total};
use super::bench_sweep::{self as sweep, Sweep};
use super::render::{RenderJob, TimingReport};
use crate::frame::features::FeatureOff;
use crate::particle_fog::stats::FogStats;
use crate::vk::profiler::PassTiming;
use crate::GpuDesc;

/// The scenes measured when none is given (paths relative to the working folder).
pub const SHOWCASE_SCENES: [&str; 4] =
    ["scenes/fog_machine.toml", "scenes/campfire.toml", "scenes/waterfall.toml", "scenes/dust_sunbeams.toml"];
/// The sizes measured when none is given.
pub const DEFAULT_SIZES: [(u32, u32); 2] = [(1920, 1080), (3840, 2160)];
/// Default warm-up frames: 12 s at 30 frames a second, the longest particle life in the showcase
/// (the fog machine's), so every system has reached its steady state.
pub const DEFAULT_WARMUP: u32 = 360;
/// The commit the binary was built from (`git rev-parse HEAD` in build.rs), or `unknown`.
pub const COMMIT: &str = match option_env!("PF_GIT_COMMIT") {
    Some(c) => c,
    None => "unknown",
};

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchJob {
    /// Scene files; the sweeps use the first.
    pub scenes: Vec<PathBuf>,
    /// Output sizes, pixels; the sweeps other than `resolution` use the first.
    pub sizes: Vec<(u32, u32)>,
    /// Timed frames per run.
    pub frames: u32,
    /// Frames of simulation before them (as `render --warmup`).
    pub warmup: u32,
    /// Simulated frames per second.
    pub fps: f32,
    /// Sweeps to run after the main table.
    pub sweeps: Vec<Sweep>,
    /// Folder for each run's last frame and timings, and the generated scenes.
    pub out: PathBuf,
    /// Where to write the JSON report.
    pub json: Option<PathBuf>,
    /// Settings-file path.
    pub settings_file: Option<PathBuf>,
    /// `NAME=VALUE` overrides (after the scene's own; the bench's toggle and sweep values win).
    pub overrides: Vec<String>,
}

/// One run: a scene at a size with the toggle off or on.
#[derive(Clone, Debug, Serialize)]
pub struct BenchRun {
    /// Its name, also its folder under the output folder.
    pub label: String,
    /// The scene file.
    pub scene: String,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// `RenderVKParticleFog`.
    pub particle_fog: bool,
    /// Every pass's GPU median, min and max over the timed frames.
    pub passes: Vec<PassTiming>,
    /// The particle fog's GPU time ([`report::particle_fog_total`]).
    pub particle_fog_ms: Total,
    /// The billboards' GPU time ([`report::billboards_total`]).
    pub billboards_ms: Total,
    /// The frame's GPU time: every pass's median summed, ms.
    pub frame_gpu_ms: f64,
    /// Median wall clock of a timed frame, ms (CPU work and the wait for the GPU).
    pub frame_wall_ms: f64,
    /// Median CPU work of a timed frame, ms: the wall clock less the wait for the GPU.
    pub frame_cpu_ms: f64,
    /// Median CPU time of a timed frame's particle-system work, ms (part of `frame_cpu_ms`):
    /// sources, classification and cross-fades, emitter constants, the fog's sources.
    pub systems_cpu_ms: f64,
    /// Live particles after the last frame.
    pub particles_live: Option<u32>,
    /// The particle fog's statistics in the last frame (carriers, brick memory used, allocated and
    /// budgeted).
    pub fog: Option<FogStats>,
    /// Features a device error turned off.
    pub features_off: Vec<FeatureOff>,
    /// Every setting that differs from its default in this run, as text.
    pub settings: BTreeMap<String, String>,
}

/// One sweep point: its run and its ratios to the sweep's first point.
#[derive(Clone, Debug, Serialize)]
pub struct SweepPoint {
    /// The point's value (`x2`, `0.05 m`, `100`, `1920x1080`).
    pub value: String,
    /// The run.
    pub run: BenchRun,
    /// Ratios to the first point.
    pub ratios: Ratios,
}

/// One sweep.
#[derive(Clone, Debug, Serialize)]
pub struct SweepReport {
    /// `carriers`, `voxel`, `systems` or `resolution`.
    pub sweep: String,
    /// Its points in order.
    pub points: Vec<SweepPoint>,
}

/// The whole report (the `--json` file).
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Device name.
    pub device: String,
    /// Driver name and version.
    pub driver: String,
    /// The commit the binary was built from, or `unknown`.
    pub commit: String,
    /// Timed frames per run.
    pub frames: u32,
    /// Warm-up frames per run.
    pub warmup: u32,
    /// Simulated frames per second.
    pub fps: f32,
    /// The settings file given, if any.
    pub settings_file: Option<String>,
    /// The command line's overrides.
    pub overrides: Vec<String>,
    /// Each scene at each size, toggle off then on.
    pub runs: Vec<BenchRun>,
    /// The sweeps.
    pub sweeps: Vec<SweepReport>,
}

/// A run to make: scene, size, toggle and extra overrides.
struct Plan {
    label: String,
    scene: PathBuf,
    size: (u32, u32),
    fog: bool,
    overrides: Vec<String>,
}

/// Runs the job on `desc`'s device: the main table, then the sweeps; writes the JSON if asked.
pub fn run(job: &BenchJob, desc: &GpuDesc) -> anyhow::Result<BenchReport> {
    anyhow::ensure!(!job.scenes.is_empty() && !job.sizes.is_empty(), "bench needs a scene and a size");
    // Before the sweeps write their scenes into it.
    super::out_dir::make_folder(&job.out)?;
    let mut plans = main_plans(job);
    let mut sweep_runs = Vec::new();
    for &s in &job.sweeps {
        let runs = sweep::runs(s, &job.scenes[0], &job.out.join("scenes"))?;
        for r in &runs {
            let label = format!("{}_{}", s.name(), r.value.replace(' ', ""));
            plans.push(Plan {
                label,
                scene: r.scene.clone(),
                size: job.sizes[0],
                fog: true,
                overrides: r.overrides.clone(),
            });
        }
        sweep_runs.push((s, runs));
    }
    // Every run's folder and the report's file are checked before the first run starts.
    if let Some(path) = &job.json {
        super::out_dir::prepare_file(path)?;
    }
    let mut jobs = Vec::with_capacity(plans.len());
    for plan in &plans {
        let render_job = render_job(job, plan);
        let (scene, settings) = super::render::load_scene(&render_job)?;
        super::render::prepare(&render_job, &scene, &settings)?;
        jobs.push((render_job, settings));
    }
    let terminal = std::io::stderr().is_terminal();
    let mut done = Vec::with_capacity(plans.len());
    for (i, (plan, (render_job, settings))) in plans.iter().zip(&jobs).enumerate() {
        if terminal {
            let bar = super::progress::progress_bar("bench", i as u32, plans.len() as u32);
            let _ = writeln!(std::io::stderr(), "{bar} {}", plan.label);
        }
        done.push(measure(plan, (render_job, settings), desc)?);
    }
    let (main, rest) = done.split_at(job.scenes.len() * job.sizes.len() * 2);
    let sweeps = sweep_reports(job, main, rest, &sweep_runs);
    let first = main.first().map(|(_, r)| r);
    let report = BenchReport {
        device: first.map(|r| r.device_name.clone()).unwrap_or_default(),
        driver: first.map(|r| r.driver.clone()).unwrap_or_default(),
        commit: COMMIT.to_owned(),
        frames: job.frames,
        warmup: job.warmup,
        fps: job.fps,
        settings_file: job.settings_file.as_ref().map(|p| p.display().to_string()),
        overrides: job.overrides.clone(),
        runs: main.iter().map(|(r, _)| r.clone()).collect(),
        sweeps,
    };
    if let Some(path) = &job.json {
        let text = serde_json::to_string_pretty(&report)?;
        crate::atomic_file::write_atomically(path, text.as_bytes())?;
    }
    Ok(report)
}

/// Each scene at each size, off then on.
fn main_plans(job: &BenchJob) -> Vec<Plan> {
    let mut plans = Vec::new();
    for scene in &job.scenes {
        let stem = scene.file_stem().map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
        for &(w, h) in &job.sizes {
            for fog in [false, true] {
                let label = format!("{stem}_{w}x{h}_{}", if fog { "on" } else { "off" });
                plans.push(Plan { label, scene: scene.clone(), size: (w, h), fog, overrides: Vec::new() });
            }
        }
    }
    plans
}

/// The render job of one plan: its last frame and timings into its own folder.
fn render_job(job: &BenchJob, plan: &Plan) -> RenderJob {
    let mut overrides = job.overrides.clone();
    overrides.extend(plan.overrides.iter().cloned());
    overrides.push(format!("RenderVKParticleFog={}", plan.fog));
    RenderJob {
        scene: plan.scene.clone(),
        width: plan.size.0,
        height: plan.size.1,
        frames: job.frames,
        warmup: job.warmup,
        fps: job.fps,
        out: job.out.join(&plan.label),
        last_only: true,
        particles_only: false,
        export_density: None,
        export_mitsuba: None,
        settings_file: job.settings_file.clone(),
        overrides,
    }
}

/// Renders one plan (its job and settings) and turns its timing report into a [`BenchRun`].
fn measure(
    plan: &Plan,
    (render_job, settings): (&RenderJob, &settings::Settings),
    desc: &GpuDesc,
) -> anyhow::Result<(BenchRun, TimingReport)> {
    let r = super::render::run(render_job, desc).with_context(|| format!("bench run {}", plan.label))?;
    let carriers = r.fog.as_ref().map_or(0, |f| f.carriers);
    let run = BenchRun {
        label: plan.label.clone(),
        scene: plan.scene.display().to_string(),
        width: plan.size.0,
        height: plan.size.1,
        particle_fog: plan.fog,
        particle_fog_ms: report::particle_fog_total(&r.passes, carriers, r.particles_live),
        billboards_ms: report::billboards_total(&r.passes),
        frame_gpu_ms: report::frame_total_ms(&r.passes),
        frame_wall_ms: r.frame_wall_ms,
        frame_cpu_ms: r.frame_cpu_ms,
        systems_cpu_ms: r.systems_cpu_ms,
        particles_live: r.particles_live,
        passes: r.passes.clone(),
        fog: r.fog.clone(),
        features_off: r.features_off.clone(),
        settings: changed_settings(settings),
    };
    Ok((run, r))
}

/// Every setting that differs from its default, as text.
fn changed_settings(s: &settings::Settings) -> BTreeMap<String, String> {
    settings::SETTINGS
        .iter()
        .filter_map(|d| {
            let v = s.get(d.name).ok()?;
            (v != d.default).then(|| (d.name.to_owned(), v.to_string()))
        })
        .collect()
}

/// The sweeps' points with their ratios; the resolution sweep takes the first scene's toggle-on
/// runs of the main table.
fn sweep_reports(
    job: &BenchJob,
    main: &[(BenchRun, TimingReport)],
    mut rest: &[(BenchRun, TimingReport)],
    sweeps: &[(Sweep, Vec<sweep::SweepRun>)],
) -> Vec<SweepReport> {
    let mut out = Vec::new();
    for (s, runs) in sweeps {
        let points: Vec<(String, &BenchRun)> = if *s == Sweep::Resolution {
            let on = main.iter().take(job.sizes.len() * 2).filter(|(r, _)| r.particle_fog);
            on.map(|(r, _)| (format!("{}x{}", r.width, r.height), r)).collect()
        } else {
            let (these, later) = rest.split_at(runs.len());
            rest = later;
            runs.iter().zip(these).map(|(p, (r, _))| (p.value.clone(), r)).collect()
        };
        out.push(SweepReport { sweep: s.name().to_owned(), points: with_ratios(&points) });
    }
    out
}

/// The points with their ratios to the first.
fn with_ratios(points: &[(String, &BenchRun)]) -> Vec<SweepPoint> {
    let Some((_, first)) = points.first() else { return Vec::new() };
    let base = figures(first);
    points
        .iter()
        .map(|(value, run)| SweepPoint {
            value: value.clone(),
            run: (*run).clone(),
            ratios: report::ratios((&figures(run), &run.passes), (&base, &first.passes)),
        })
        .collect()
}

/// The figures sweeps compare.
pub fn figures(run: &BenchRun) -> Figures {
    Figures {
        frame_gpu_ms: run.frame_gpu_ms,
        particle_fog_ms: run.particle_fog_ms.total_ms,
        billboards_ms: run.billboards_ms.total_ms,
        frame_cpu_ms: run.frame_cpu_ms,
        systems_cpu_ms: run.systems_cpu_ms,
        carriers: run.fog.as_ref().map_or(0, |f| f.carriers),
        brick_bytes_used: run.fog.as_ref().map_or(0, |f| f.brick_bytes_used),
        brick_bytes_allocated: run.fog.as_ref().map_or(0, |f| f.brick_bytes_allocated),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(label: &str, frame_ms: f64, march_ms: f64) -> BenchRun {
        let t = |pass: &str, ms: f64| PassTiming {
            pass: pass.into(),
            median_ms: ms,
            min_ms: ms,
            max_ms: ms,
            frames: 2,
        };
        let passes = vec![t("host.opaque", frame_ms - march_ms), t("fog.brick_march", march_ms)];
        BenchRun {
            label: label.into(),
            scene: "s.toml".into(),
            width: 64,
            height: 36,
            particle_fog: true,
            particle_fog_ms: report::particle_fog_total(&passes, 0, None),
            billboards_ms: report::billboards_total(&passes),
            frame_gpu_ms: report::frame_total_ms(&passes),
            frame_wall_ms: 2.0,
            frame_cpu_ms: 1.0,
            systems_cpu_ms: 0.1,
            particles_live: Some(10),
            passes,
            fog: None,
            features_off: Vec::new(),
            settings: BTreeMap::new(),
        }
    }

    #[test]
    fn sweep_ratios_are_each_point_over_the_first() {
        let (a, b) = (run_of("a", 4.0, 1.0), run_of("b", 6.0, 3.0));
        let points = with_ratios(&[("x1".into(), &a), ("x2".into(), &b)]);
        assert_eq!(points[0].ratios.frame_gpu, Some(1.0));
        assert_eq!(points[0].ratios.passes.get("fog.brick_march"), Some(&Some(1.0)));
        assert_eq!(points[1].ratios.frame_gpu, Some(1.5));
        assert_eq!(points[1].ratios.particle_fog, Some(3.0));
        assert_eq!(points[1].ratios.passes.get("fog.brick_march"), Some(&Some(3.0)));
        assert_eq!(points[1].ratios.frame_cpu, Some(1.0));
    }

    #[test]
    fn main_plans_are_every_scene_and_size_off_then_on() {
        let job = BenchJob {
            scenes: vec!["a/one.toml".into(), "two.toml".into()],
            sizes: vec![(64, 36), (32, 18)],
            frames: 1,
            warmup: 0,
            fps: 30.0,
            sweeps: Vec::new(),
            out: "out".into(),
            json: None,
            settings_file: None,
            overrides: Vec::new(),
        };
        let labels: Vec<String> = main_plans(&job).into_iter().map(|p| p.label).collect();
        assert_eq!(
            labels,
            [
                "one_64x36_off",
                "one_64x36_on",
                "one_32x18_off",
                "one_32x18_on",
                "two_64x36_off",
                "two_64x36_on",
                "two_32x18_off",
                "two_32x18_on"
            ]
        );
    }
}
