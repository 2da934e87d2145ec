//! `particle-fog render <scene.toml>`: renders frames to PNG and ends with the per-pass GPU timing
//! table (medians over the frames), also written as JSON beside the images.
//!
//! Before the GPU starts: the scene's textures are decoded, the output folders checked and
//! cleared of an earlier run's files ([`super::out_dir`]), and the pictures' memory checked
//! ([`super::memory`]). Every file is written new and renamed into place
//! ([`crate::atomic_file`]).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::frame_times::FrameTiming;
use super::progress::Progress;
use crate::frame::features::FeatureOff;
use crate::frame::HostRenderer;
use crate::particle_fog::stats::{FogStats, SystemBricks};
use crate::picture::Rgba8;
use crate::vk::profiler::PassTiming;
use crate::world::World;
use crate::{Gpu, GpuDesc};

/// What to render.
#[derive(Clone, Debug)]
pub struct RenderJob {
    /// The scene file.
    pub scene: PathBuf,
    /// Output size, pixels.
    pub width: u32,
    /// Output height, pixels.
    pub height: u32,
    /// Frames to render (written and timed).
    pub frames: u32,
    /// Frames of particle simulation before them (nothing drawn, written or timed); the last
    /// [`FOG_WARMUP_FRAMES`] of them (all, when there are fewer) also run the fog's temporal
    /// passes, so from [`DEFAULT_WARMUP`] frames on the first written frame shows converged fog,
    /// and the last [`BRICK_WARMUP_FRAMES`] the brick passes, so the brick pool is sized for it.
    /// 0: none, the first written frame is the fog's first.
    pub warmup: u32,
    /// Simulated frames per second (time step between frames).
    pub fps: f32,
    /// Output folder.
    pub out: PathBuf,
    /// Write only the last frame.
    pub last_only: bool,
    /// Draw only the particle systems (opaque geometry and fog skipped, black background).
    pub particles_only: bool,
    /// Write the particle fog's density, carriers and camera of the last frame here.
    pub export_density: Option<PathBuf>,
    /// Write the last frame as a Mitsuba 3 scene with this renderer's radiance beside it here
    /// ([`crate::mitsuba`]).
    pub export_mitsuba: Option<PathBuf>,
    /// Settings-file path and `NAME=VALUE` overrides (applied after the scene's own).
    pub settings_file: Option<PathBuf>,
    /// Command-line overrides.
    pub overrides: Vec<String>,
}

/// Frames of the fog's temporal passes before the first written frame: with the default history
/// weight 0.9 the fog then holds about ten frames of jittered samples, as in steady use.
pub const FOG_WARMUP_FRAMES: u32 = 20;

/// Warm-up frames at the end that also run the particle fog's brick passes: the first finds the
/// bricks the scene wants, the second runs with the brick pool sized for them, so the timed frames
/// start with it ([`HostRenderer::warm_bricks`]).
pub const BRICK_WARMUP_FRAMES: u32 = 2;

/// `render --warmup` when not given: enough frames for the fog to converge.
pub const DEFAULT_WARMUP: u32 = FOG_WARMUP_FRAMES;

/// The JSON written beside the images.
#[derive(Serialize)]
pub struct TimingReport {
    /// Scene file.
    pub scene: String,
    /// Device name and driver.
    pub device: String,
    /// Device name alone.
    pub device_name: String,
    /// Driver name and version.
    pub driver: String,
    /// Output size.
    pub width: u32,
    /// Output height.
    pub height: u32,
    /// Frames rendered and timed.
    pub frames: u32,
    /// Frames of particle simulation before them.
    pub warmup: u32,
    /// Per-pass GPU time.
    pub passes: Vec<PassTiming>,
    /// Median wall-clock time of one timed frame on the CPU side (recording, submission and the
    /// wait for the GPU), ms: the figure to read where GPU timestamps are not meaningful
    /// (lavapipe).
    pub frame_wall_ms: f64,
    /// Median CPU work of one timed frame, ms: its wall clock less the time spent waiting for the
    /// GPU ([`Gpu::waited`]), i.e. per-system classification and emission constants, recording
    /// and submission (and, with `--validation`, the layer's checks).
    pub frame_cpu_ms: f64,
    /// Median CPU time of a timed frame's particle-system work, ms
    /// ([`HostRenderer::systems_cpu`]: sources, classification, emitter constants, fog sources):
    /// the part of `frame_cpu_ms` that grows with the systems.
    pub systems_cpu_ms: f64,
    /// Each timed frame: wall clock, CPU work, GPU time, the brick pool's slots
    /// ([`super::frame_times`]).
    pub per_frame: Vec<FrameTiming>,
    /// Live particles after the last frame, every system together (absent without particles).
    pub particles_live: Option<u32>,
    /// The particle fog in the last frame (absent while `RenderVKParticleFog` is off or nothing
    /// converts).
    pub fog: Option<FogStats>,
    /// Features a device error turned off during the run (out of memory or device lost while
    /// making their resources; [`crate::frame::features`]), each with the error naming what failed.
    pub features_off: Vec<FeatureOff>,
}

/// The median of `values` (0 for none).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// Parses `WxH`.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) =
        text.split_once(['x', 'X']).ok_or_else(|| format!("size {text:?}: expected WxH, e.g. 1280x720"))?;
    let parse = |s: &str| s.trim().parse::<u32>().ok().filter(|v| (1..=16384).contains(v));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("size {text:?}: width and height must be whole numbers in 1..=16384")),
    }
}

/// The name the job's files start with: the scene file's stem.
pub fn stem(job: &RenderJob) -> String {
    job.scene.file_stem().map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned())
}

/// The name of written frame `frame`.
fn frame_name(job: &RenderJob, stem: &str, frame: u32) -> String {
    if job.frames == 1 || job.last_only {
        format!("{stem}.png")
    } else {
        format!("{stem}_{frame:04}.png")
    }
}

/// Every file the job writes into `--out`: the frames (`<scene>.png` for one frame or `--last`,
/// else `<scene>_NNNN.png`), each frame's debug view (`<frame>_transmittance.png` or
/// `<frame>_coverage.png`, `RenderVKParticleFogDebug` 4 or 5) and `<scene>_timings.json`.
pub fn output_names(job: &RenderJob, settings: &settings::Settings) -> Vec<String> {
    let stem = stem(job);
    let first = if job.last_only { job.frames - 1 } else { 0 };
    let view = debug_view(settings);
    let mut names = Vec::new();
    for frame in first..job.frames {
        let name = frame_name(job, &stem, frame);
        if let Some(what) = view {
            names.push(format!("{}_{what}.png", name.trim_end_matches(".png")));
        }
        names.push(name);
    }
    names.push(format!("{stem}_timings.json"));
    names
}

/// Whether `name` is one of the files a render of `stem` may write into `--out` (any frame
/// count, any debug view).
pub fn is_render_output(stem: &str, name: &str) -> bool {
    let Some(rest) = name.strip_prefix(stem) else { return false };
    if rest == ".png" || rest == "_timings.json" {
        return true;
    }
    let Some(body) = rest.strip_prefix('_').and_then(|r| r.strip_suffix(".png")) else { return false };
    if body == "transmittance" || body == "coverage" {
        return true;
    }
    let frame =
        body.strip_suffix("_transmittance").or_else(|| body.strip_suffix("_coverage")).unwrap_or(body);
    super::out_dir::is_frame_number(frame)
}

/// The debug view written beside each frame, if any.
fn debug_view(settings: &settings::Settings) -> Option<&'static str> {
    let debug = settings.particle_fog_debug;
    if debug.writes_transmittance() {
        Some("transmittance")
    } else if debug.writes_coverage() {
        Some("coverage")
    } else {
        None
    }
}

/// Everything checked before the GPU starts: the textures the scene uses, the output folders
/// (made, cleared of an earlier run's files) and the pictures' memory.
pub fn prepare(
    job: &RenderJob,
    scene: &crate::scene::Scene,
    settings: &settings::Settings,
) -> anyhow::Result<()> {
    crate::textures::check_used(scene)?;
    let stem = stem(job);
    super::out_dir::prepare(&job.out, &output_names(job, settings), &|n| is_render_output(&stem, n))?;
    if let Some(dir) = &job.export_density {
        let names = crate::particle_fog::export::file_names(&stem);
        let family = |n: &str| names.iter().any(|m| m == n);
        super::out_dir::prepare(dir, &names, &family)?;
    }
    if let Some(dir) = &job.export_mitsuba {
        let names = crate::mitsuba::file_names(scene, &stem);
        super::out_dir::prepare(dir, &names, &|n| crate::mitsuba::is_export_file(&stem, n))?;
    }
    let picture = super::memory::picture_bytes(job.width, job.height);
    let needed = super::memory::FRAME_PICTURES * picture;
    super::memory::ensure_fits("this render", needed, super::memory::available_bytes())
}

/// Renders the job on `desc`'s device; returns the report (also written as JSON).
pub fn run(job: &RenderJob, desc: &GpuDesc) -> anyhow::Result<TimingReport> {
    run_after(job, desc, || Ok(()), false).map(|(report, _)| report)
}

/// The job's renderer after its frames, with its device, world, scene and settings: the showcase
/// carries on with them (no second device, world or warm-up).
pub struct Rendered {
    /// The renderer, warmed up and past the job's frames.
    pub renderer: HostRenderer,
    /// The scene's world on `gpu`.
    pub world: World,
    /// The job's scene.
    pub scene: crate::scene::Scene,
    /// The job's settings.
    pub settings: settings::Settings,
    /// The job's first frame, when asked for.
    pub first: Option<Rgba8>,
    /// The device (after the renderer and world, which are dropped first).
    pub gpu: Gpu,
}

/// [`run`], with `checks` run after the job's own checks and before the GPU starts (the
/// showcase's folder and memory); also the job's renderer after its frames ([`Rendered`]), with
/// the first frame's pixels if `keep_first` (read back for it when the job writes only its last).
pub fn run_after(
    job: &RenderJob,
    desc: &GpuDesc,
    checks: impl FnOnce() -> anyhow::Result<()>,
    keep_first: bool,
) -> anyhow::Result<(TimingReport, Rendered)> {
    let (scene, settings) = load_scene(job)?;
    prepare(job, &scene, &settings)?;
    checks()?;
    let mut gpu = Gpu::new(desc)?;
    let mut world = World::new(&mut gpu, &scene)?;
    let mut renderer = HostRenderer::new(&gpu, job.width, job.height)?;
    renderer.frame_dt_s = 1.0 / job.fps;
    renderer.particles_only = job.particles_only;
    let stem = stem(job);
    warm_up(&mut renderer, (&mut gpu, &mut world), (&scene, &settings), (job, FOG_WARMUP_FRAMES), &stem)?;
    gpu.profiler.clear();
    let mut progress = Progress::new(&stem, job.frames);
    let mut wall_ms = Vec::with_capacity(job.frames as usize);
    let mut cpu_ms = Vec::with_capacity(job.frames as usize);
    let mut systems_cpu_ms = Vec::with_capacity(job.frames as usize);
    let mut slots = Vec::with_capacity(job.frames as usize);
    let mut first = None;
    for frame in 0..job.frames {
        let t = (job.warmup + frame) as f32 / job.fps;
        let (started, waited) = (std::time::Instant::now(), gpu.waited());
        renderer.render(&mut gpu, &mut world, &scene, &settings, t)?;
        let wall = started.elapsed();
        wall_ms.push(wall.as_secs_f64() * 1e3);
        cpu_ms.push(wall.saturating_sub(gpu.waited() - waited).as_secs_f64() * 1e3);
        systems_cpu_ms.push(renderer.systems_cpu.as_secs_f64() * 1e3);
        slots.push(renderer.fog.bricks.as_ref().map(|pf| pf.pool.capacity));
        let last = frame + 1 == job.frames;
        let keep = keep_first && frame == 0;
        if !job.last_only || last {
            let path = job.out.join(frame_name(job, &stem, frame));
            let written = write_frame(&mut gpu, &renderer, &settings, &path)?;
            first = first.or(keep.then_some(written));
        } else if keep {
            first = Some(read_frame(&mut gpu, &renderer)?);
        }
        progress.step(frame + 1);
    }
    progress.end();
    // The frames still in flight: their timestamps and counters belong to the report.
    gpu.wait_frames()?;
    if let Some(pf) = renderer.fog.bricks.as_mut() {
        pf.finish_frame(&gpu);
    }
    if let Some(dir) = &job.export_density {
        export_density(&mut gpu, &renderer, &scene, &settings, (job, &stem), dir)?;
    }
    if let Some(dir) = &job.export_mitsuba {
        export_mitsuba(&mut gpu, (&mut renderer, &mut world), (&scene, &settings), (job, &stem), dir)?;
    }
    let particles_live = match &renderer.particles {
        Some(sp) => Some(sp.pool.read_live_count(&mut gpu)?),
        None => None,
    };
    anyhow::ensure!(
        gpu.canary().is_empty() || !gpu.validation(),
        "validation errors: {:?}",
        gpu.canary().drain()
    );
    let gpu_ms = gpu.profiler.frame_totals();
    let per_frame = (0..wall_ms.len())
        .map(|i| FrameTiming {
            wall_ms: wall_ms[i],
            cpu_ms: cpu_ms[i],
            gpu_ms: (gpu_ms.len() == wall_ms.len()).then(|| gpu_ms[i]),
            bricks_allocated: slots[i],
        })
        .collect();
    let report = TimingReport {
        scene: job.scene.display().to_string(),
        device: format!("{} ({})", gpu.info().name, gpu.info().driver),
        device_name: gpu.info().name.clone(),
        driver: gpu.info().driver.clone(),
        width: job.width,
        height: job.height,
        frames: job.frames,
        warmup: job.warmup,
        passes: gpu.profiler.timings(),
        frame_wall_ms: median(&mut wall_ms),
        frame_cpu_ms: median(&mut cpu_ms),
        systems_cpu_ms: median(&mut systems_cpu_ms),
        per_frame,
        particles_live,
        fog: renderer.fog_stats(&gpu),
        features_off: renderer.features_off.list().to_vec(),
    };
    write_json(&job.out.join(format!("{stem}_timings.json")), &report)?;
    Ok((report, Rendered { renderer, world, scene, settings, first, gpu }))
}

/// The job's scene and its settings: the defaults (or the settings file), then the scene's own,
/// then the command line's.
pub(crate) fn load_scene(job: &RenderJob) -> anyhow::Result<(crate::scene::Scene, settings::Settings)> {
    let mut scene = crate::scene::load(&job.scene)?;
    if let Some(file) =
        crate::particle_fog::scene_inputs::stored_overrides_for_run(job.settings_file.as_deref())
    {
        scene = crate::particle_fog::scene_inputs::with_stored_overrides(scene, &file);
    }
    for w in &scene.warnings {
        tracing::warn!("{}: {w}", job.scene.display());
    }
    let scene_overrides: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut settings = super::settings::load_for_run(job.settings_file.as_ref(), &scene_overrides)?;
    settings::cli::apply_overrides(&mut settings, &job.overrides)?;
    if let Some(w) = settings_warning(&settings, job.particles_only) {
        tracing::warn!("{w}");
    }
    Ok((scene, settings))
}

/// A warning for settings that leave something asked for off.
fn settings_warning(settings: &settings::Settings, particles_only: bool) -> Option<&'static str> {
    (settings.particle_fog && !settings.volumetric_fog && !particles_only).then_some(
        "RenderVKParticleFog is on but RenderVKVolumetricFog is off: the particle fog needs the \
         froxel fog and stays off (the systems are drawn as billboards)",
    )
}

/// The last rendered frame's pixels.
pub(crate) fn read_frame(gpu: &mut Gpu, renderer: &HostRenderer) -> crate::Result<Rgba8> {
    let extent = renderer.targets.ldr.extent;
    Ok(Rgba8 { width: extent.width, height: extent.height, pixels: renderer.read_ldr(gpu)? })
}

/// Writes the last rendered frame to `path` (PNG) and, for `RenderVKParticleFogDebug` 4 or 5, the
/// particle fog's transmittance or every particle system's coverage beside it
/// (`<frame>_transmittance.png`, `<frame>_coverage.png`; 16-bit linear greyscale); the frame's
/// pixels.
pub(crate) fn write_frame(
    gpu: &mut Gpu,
    renderer: &HostRenderer,
    settings: &settings::Settings,
    path: &Path,
) -> anyhow::Result<Rgba8> {
    let frame = read_frame(gpu, renderer)?;
    let (w, h) = (frame.width, frame.height);
    crate::picture::write_rgba8(path, w, h, &frame.pixels)?;
    let view = match debug_view(settings) {
        Some(what @ "transmittance") => Some((what, renderer.read_fog_transmittance(gpu)?)),
        Some(what) => Some((what, renderer.read_particle_coverage(gpu)?)),
        None => None,
    };
    if let Some((what, values)) = view {
        let stem = path.file_stem().map_or_else(|| "frame".into(), |s| s.to_string_lossy().into_owned());
        crate::picture::write_grey16(&path.with_file_name(format!("{stem}_{what}.png")), w, h, &values)?;
    }
    Ok(frame)
}

/// The warm-up: `job.warmup` frames of particle simulation, the last `fog_frames` of them (all,
/// when there are fewer; [`FOG_WARMUP_FRAMES`] for a converged fog, 0 for a renderer that takes a
/// converged froxel fog from another) also running the fog's temporal passes and the last
/// [`BRICK_WARMUP_FRAMES`] the particle fog's brick passes; progress named `name` ([`Progress`]).
pub(crate) fn warm_up(
    renderer: &mut HostRenderer,
    (gpu, world): (&mut Gpu, &mut World),
    (scene, settings): (&crate::scene::Scene, &settings::Settings),
    (job, fog_frames): (&RenderJob, u32),
    name: &str,
) -> crate::Result<()> {
    let mut progress = Progress::new(&format!("{name} warm-up"), job.warmup);
    for frame in 0..job.warmup {
        let t = frame as f32 / job.fps;
        renderer.simulate(gpu, scene, settings, t)?;
        if frame + BRICK_WARMUP_FRAMES >= job.warmup {
            renderer.warm_bricks(gpu)?;
        }
        if frame + fog_frames >= job.warmup {
            renderer.warm_fog(gpu, world, scene, settings, t)?;
        }
        progress.step(frame + 1);
    }
    progress.end();
    Ok(())
}

/// Writes the last frame's particle-fog density, carriers and camera into `dir`
/// ([`crate::particle_fog::export`]).
fn export_density(
    gpu: &mut Gpu,
    renderer: &HostRenderer,
    scene: &crate::scene::Scene,
    settings: &settings::Settings,
    (job, stem): (&RenderJob, &str),
    dir: &Path,
) -> anyhow::Result<()> {
    use crate::particle_fog::export;
    let t = (job.warmup + job.frames.saturating_sub(1)) as f32 / job.fps;
    let cam = scene.camera_at(t);
    let camera = export::CameraExport {
        position: cam.position.to_array(),
        target: cam.target.to_array(),
        up: [0.0, 0.0, 1.0],
        fov_y_deg: cam.fov_y_deg,
        width: job.width,
        height: job.height,
        near: crate::view::CAMERA_NEAR_M,
        far: crate::view::CAMERA_FAR_M,
    };
    let (field, carriers) = match (&renderer.fog.bricks, &renderer.particles) {
        (Some(pf), Some(sp)) => {
            let sources = sp.systems.gpu_sources(settings);
            let by_id = source_table(sp, &sources);
            (export::read_field(gpu, pf)?, export::read_carriers(gpu, &sp.pool, &by_id)?)
        }
        _ => (fog::density::Field::default(), Vec::new()),
    };
    let scale = settings.particle_fog_density * settings.particle_fog_strength;
    let grid = export::march_grid(&field, &billow_at(settings, t));
    export::write_files(dir, stem, grid.as_ref(), &carriers, scale, &camera)?;
    Ok(())
}

/// The billow warp of the march at time `t` s.
fn billow_at(settings: &settings::Settings, t: f32) -> fog::march::Billow {
    fog::march::Billow {
        strength: settings.particle_fog_billow,
        scale_m: settings.particle_fog_billow_scale_m,
        speed_m_per_s: settings.particle_fog_billow_speed_m_per_s,
        time_s: t,
    }
}

/// Writes the last frame as a Mitsuba 3 scene with its radiance into `dir` ([`crate::mitsuba`]):
/// reads the frame back, then draws the opaque surfaces alone into the HDR target for the fog's
/// share, so it comes after every other output of the frame.
fn export_mitsuba(
    gpu: &mut Gpu,
    (renderer, world): (&mut HostRenderer, &mut World),
    (scene, settings): (&crate::scene::Scene, &settings::Settings),
    (job, stem): (&RenderJob, &str),
    dir: &Path,
) -> anyhow::Result<()> {
    let t = (job.warmup + job.frames.saturating_sub(1)) as f32 / job.fps;
    let hdr = renderer.read_hdr(gpu)?;
    let transmittance = renderer.read_fog_transmittance(gpu)?;
    let grid = match &renderer.fog.bricks {
        Some(pf) if renderer.particles.is_some() => {
            let field = crate::particle_fog::export::read_field(gpu, pf)?;
            crate::particle_fog::export::march_grid(&field, &billow_at(settings, t))
        }
        _ => None,
    };
    renderer.render_surfaces(gpu, world, scene)?;
    let surfaces = renderer.read_hdr(gpu)?;
    let anisotropy = if settings.volumetric_fog { scene.height_fog.anisotropy } else { 0.0 };
    let frame = crate::mitsuba::FrameExport {
        stem,
        camera: scene.camera_at(t),
        width: job.width,
        height: job.height,
        hdr: &hdr,
        surfaces: &surfaces,
        transmittance: &transmittance,
        medium: grid.as_ref().map(|grid| crate::mitsuba::FogMedium { grid, anisotropy, albedo: [1.0; 3] }),
    };
    crate::mitsuba::write_scene(dir, scene, &frame)?;
    Ok(())
}

/// The per-source inputs indexed by source id (sources are added in scene order).
fn source_table(
    sp: &crate::frame::particles::SceneParticles,
    sources: &[crate::gpu_types::GpuFogSource],
) -> Vec<crate::gpu_types::GpuFogSource> {
    let n = sp.ids.iter().map(|id| id.0 as usize + 1).max().unwrap_or(0);
    let mut table = vec![crate::gpu_types::GpuFogSource::default(); n];
    for (id, s) in sp.ids.iter().zip(sources) {
        table[id.0 as usize] = *s;
    }
    table
}

/// The systems using the most bricks, for the `fog` section: up to [`BRICK_SYSTEMS_SHOWN`].
fn format_bricks_by_system(systems: &[SystemBricks]) -> String {
    if systems.is_empty() {
        return String::new();
    }
    let shown: Vec<String> =
        systems.iter().take(BRICK_SYSTEMS_SHOWN).map(|s| format!("{} {}", s.name, s.bricks)).collect();
    let more = systems.len().saturating_sub(BRICK_SYSTEMS_SHOWN);
    let tail = if more > 0 { format!(" (+{more} more)") } else { String::new() };
    format!("bricks by system: {}{tail}\n", shown.join(", "))
}

/// Systems named in the `fog` section's bricks-by-system line.
const BRICK_SYSTEMS_SHOWN: usize = 3;

/// The `fog` section of the timing table.
pub fn format_fog(f: &FogStats) -> String {
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let rel =
        if f.mass_expected_m2 > 0.0 { 100.0 * (f.mass_splatted_m2 / f.mass_expected_m2 - 1.0) } else { 0.0 };
    format!(
        "particle fog: {} system(s) converted, {} demoted; {} carriers ({} poisoned, {} too large)\n\
         bricks used / allocated / budget: {} / {} / {} ({:.1} / {:.1} / {:.1} MiB), {} requested, {} failed, {} evicted\n\
         mass: {:.4} m2 expected, {:.4} m2 splatted ({:+.3} %), {:.4} m2 clipped\n{}",
        f.systems_converted,
        f.systems_demoted,
        f.carriers,
        f.carriers_poisoned,
        f.carriers_too_large,
        f.bricks_used,
        f.bricks_allocated,
        f.bricks_budget,
        mib(f.brick_bytes_used),
        mib(f.brick_bytes_allocated),
        mib(f.brick_bytes_budget),
        f.bricks_requested,
        f.alloc_failures,
        f.evictions,
        f.mass_expected_m2,
        f.mass_splatted_m2,
        rel,
        f.mass_clipped_m2,
        format_bricks_by_system(&f.bricks_by_system),
    )
}

fn write_json(path: &Path, report: &TimingReport) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(report)?;
    Ok(crate::atomic_file::write_atomically(path, text.as_bytes())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_render_outputs_are_the_frames_their_views_and_the_timings() {
        let job = |frames, last_only| RenderJob {
            scene: "scenes/tiny.toml".into(),
            width: 8,
            height: 8,
            frames,
            warmup: 0,
            fps: 30.0,
            out: "out".into(),
            last_only,
            particles_only: false,
            export_density: None,
            export_mitsuba: None,
            settings_file: None,
            overrides: Vec::new(),
        };
        let plain = settings::Settings::default();
        assert_eq!(output_names(&job(1, false), &plain), ["tiny.png", "tiny_timings.json"]);
        assert_eq!(output_names(&job(3, true), &plain), ["tiny.png", "tiny_timings.json"]);
        let mut views = plain.clone();
        settings::cli::apply_overrides(&mut views, &["RenderVKParticleFogDebug=4".into()]).expect("debug 4");
        assert_eq!(
            output_names(&job(2, false), &views),
            [
                "tiny_0000_transmittance.png",
                "tiny_0000.png",
                "tiny_0001_transmittance.png",
                "tiny_0001.png",
                "tiny_timings.json"
            ]
        );
        for name in
            ["tiny.png", "tiny_0042.png", "tiny_12345.png", "tiny_0003_coverage.png", "tiny_timings.json"]
        {
            assert!(is_render_output("tiny", name), "{name}");
        }
        for name in
            ["tiny_042.png", "tiny_camera.json", "tiny.apng", "tinyx.png", "tiny_abcd.png", "other.png"]
        {
            assert!(!is_render_output("tiny", name), "{name}");
        }
    }

    #[test]
    fn particle_fog_without_the_froxel_fog_is_warned_of() {
        let mut s = settings::Settings { particle_fog: true, volumetric_fog: false, ..Default::default() };
        assert!(settings_warning(&s, false).is_some_and(|w| w.contains("RenderVKVolumetricFog is off")));
        assert_eq!(settings_warning(&s, true), None, "particles only: no fog of any kind is asked for");
        s.volumetric_fog = true;
        assert_eq!(settings_warning(&s, false), None);
    }

    #[test]
    fn sizes_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_size("1280x720"), Ok((1280, 720)));
        assert_eq!(parse_size("64X32"), Ok((64, 32)));
        for bad in ["1280", "0x720", "x", "99999x1", "-1x2"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
