//! Soak run (documented in render/README.md, not part of CI): renders a scene for many frames at a
//! small size with two frames in flight, `RenderVKParticleFog` toggled on and off, and within each
//! on phase the voxel size and the brick budget changed (each change remakes the brick pool while
//! the frames before it are still on the GPU), and prints vk-mem's statistics and the brick pool's
//! slots at the end of every on and off phase. The memory must stay flat: every on phase ends with
//! what the first on phase whose brick pool ended at the same size ended with (the pool grows and
//! shrinks with the bricks in use, so a phase that ends with more bricks legitimately holds
//! more; the fog machine's 40-50 bricks always end in the least pool), and every off phase with
//! what the first off phase ended with; with `--validation`, no validation error may be raised;
//! otherwise the run fails.
//!
//! `cargo run --release -p render --example soak -- SCENE [FRAMES] [WIDTHxHEIGHT] [TOGGLE_EVERY]
//! [--validation]` (defaults 10000, 64x36, 500), e.g. `... --example soak -- scenes/fog_machine.toml`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use render::frame::HostRenderer;
use render::vk::context::MemoryStats;
use render::world::World;
use render::{Gpu, GpuDesc};

/// Frames per second of the simulated clock.
const FPS: f32 = 30.0;
/// Frames kept in flight.
const FRAMES_IN_FLIGHT: u32 = 2;
/// `RenderVKParticleFogVoxelSize` (m) and `RenderVKParticleFogBrickBudgetMB` in each quarter of an
/// on phase: it ends as it began, so every on phase ends with the same pool.
const QUARTERS: [(f32, u32); 4] = [(0.1, 128), (0.05, 64), (0.075, 96), (0.1, 128)];

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("soak: vk-mem statistics grew beyond the first phase of their kind and brick pool size, or validation failed");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// What the command line asks for.
struct Args {
    scene: PathBuf,
    frames: u32,
    size: (u32, u32),
    toggle_every: u32,
    validation: bool,
}

fn args() -> anyhow::Result<Args> {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let validation = all.iter().any(|a| a == "--validation");
    let mut a = all.into_iter().filter(|a| a != "--validation");
    let scene = PathBuf::from(a.next().context("usage: soak SCENE [FRAMES] [WxH] [TOGGLE_EVERY]")?);
    let frames = a.next().map_or(Ok(10_000), |s| s.parse()).context("FRAMES")?;
    let size = match a.next() {
        None => (64, 36),
        Some(s) => {
            let (w, h) = s.split_once('x').context("size as WIDTHxHEIGHT")?;
            (w.parse().context("width")?, h.parse().context("height")?)
        }
    };
    let toggle_every: u32 = a.next().map_or(Ok(500), |s| s.parse()).context("TOGGLE_EVERY")?;
    anyhow::ensure!(toggle_every > 0 && size.0 > 0 && size.1 > 0, "sizes and periods must be positive");
    Ok(Args { scene, frames, size, toggle_every, validation })
}

/// Renders the soak; true when the statistics stayed flat.
fn run() -> anyhow::Result<bool> {
    let a = args()?;
    let scene = render::scene::load(&a.scene)?;
    let mut settings = settings::Settings::default();
    let overrides: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    settings::cli::apply_overrides(&mut settings, &overrides)?;
    let desc = GpuDesc { validation: a.validation, frames_in_flight: FRAMES_IN_FLIGHT, ..GpuDesc::default() };
    let mut gpu = Gpu::new(&desc)?;
    let mut world = World::new(&mut gpu, &scene)?;
    let mut renderer = HostRenderer::new(&gpu, a.size.0, a.size.1)?;
    println!(
        "soak: {} on {}, {} frames at {}x{}, {FRAMES_IN_FLIGHT} in flight, particle fog toggled every {} \
         frames, voxel size and budget {QUARTERS:?} in each on phase{}",
        a.scene.display(),
        gpu.info().name,
        a.frames,
        a.size.0,
        a.size.1,
        a.toggle_every,
        if a.validation { ", validation on" } else { "" }
    );
    println!("phase  frames        fog  pool slots  blocks  allocations  block_bytes  allocation_bytes");
    let started = std::time::Instant::now();
    // The first statistics of each phase kind (on, off) and brick pool size.
    let mut first: BTreeMap<(bool, Option<u32>), MemoryStats> = BTreeMap::new();
    let mut flat = true;
    for frame in 0..a.frames {
        let phase = frame / a.toggle_every;
        settings.particle_fog = phase % 2 == 0;
        let quarter = ((frame % a.toggle_every) * 4 / a.toggle_every) as usize;
        (settings.particle_fog_voxel_size_m, settings.particle_fog_brick_budget_mb) = QUARTERS[quarter];
        renderer.render(&mut gpu, &mut world, &scene, &settings, frame as f32 / FPS)?;
        let phase_ends = (frame + 1) % a.toggle_every == 0 || frame + 1 == a.frames;
        if !phase_ends {
            continue;
        }
        let stats = gpu.memory_stats()?;
        let slots = renderer.fog.bricks.as_ref().map(|pf| pf.pool.capacity);
        let reference = *first.entry((settings.particle_fog, slots)).or_insert(stats);
        let grew = stats.blocks > reference.blocks
            || stats.block_bytes > reference.block_bytes
            || stats.allocations > reference.allocations
            || stats.allocation_bytes > reference.allocation_bytes;
        flat &= !grew;
        println!(
            "{phase:5}  {:>5}-{:<5}  {:>3}  {:>10}  {:6}  {:11}  {:11}  {:16}{}",
            phase * a.toggle_every,
            frame,
            if settings.particle_fog { "on" } else { "off" },
            slots.map_or_else(|| "-".to_owned(), |n| n.to_string()),
            stats.blocks,
            stats.allocations,
            stats.block_bytes,
            stats.allocation_bytes,
            if grew { "  GREW" } else { "" }
        );
    }
    gpu.wait_frames()?;
    let errors = gpu.canary().drain();
    for e in &errors {
        println!("validation error: {e}");
    }
    let off = renderer.features_off.list();
    if !off.is_empty() {
        println!("features turned off by device errors: {off:?}");
    }
    println!(
        "{} frames in {:.1} s; statistics {}",
        a.frames,
        started.elapsed().as_secs_f64(),
        if flat { "flat" } else { "grew" }
    );
    Ok(flat && errors.is_empty())
}
