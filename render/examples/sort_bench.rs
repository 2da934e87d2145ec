//! GPU benchmark of the sorts that follow the live count: `particles.sort` (the visible list far
//! to near) and the ribbons' key sort (`particles.ribbons.args/blocks/merge`), on N particles
//! placed directly in a pool (no simulation), every one visible and on a ribbon.
//!
//! `cargo run --release -p render --example sort_bench -- [COUNT...] [--capacity N] [--frames N]
//! [--warmup N]` (defaults 1000 8192 65536 1000000, the pool sized to each count, 200 timed frames
//! after 20): for each count, one frame is `particles.cull` (every particle passes), the particle
//! sort and the ribbon sort; prints every pass's GPU median over the timed frames and each sort's
//! total (the sum of its steps' medians). With `--capacity` every pool holds that many slots of
//! which COUNT are alive, which shows that the cost follows the count, not the capacity.

use std::process::ExitCode;

use anyhow::{bail, Context};
use glam::{Vec3, Vec4};
use render::frame::particles::{record_cull, visible};
use render::gpu_types::{GpuParticle, GpuParticleCounters};
use render::particles_gpu::GpuParticles;
use render::passes::particle_ribbons::{RibbonBuffers, RibbonPass};
use render::passes::particle_sim::cull::ParticleCullPass;
use render::passes::particle_sort::ParticleSortPass;
use render::vk::profiler::{format_table, PassTiming};
use render::{Gpu, GpuDesc};

/// The RIBBON particle flag on the GPU.
const PF_RIBBON: u32 = 0x400;
/// Ribbon sources the particles are spread over.
const SOURCES: u32 = 64;

/// What to run.
struct Options {
    counts: Vec<u32>,
    capacity: Option<u32>,
    frames: u32,
    warmup: u32,
}

fn parse() -> anyhow::Result<Options> {
    let mut o = Options { counts: Vec::new(), capacity: None, frames: 200, warmup: 20 };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| -> anyhow::Result<u32> {
            let v = args.next().with_context(|| format!("{name} needs a value"))?;
            v.parse().with_context(|| format!("{name} {v}: not a count"))
        };
        match a.as_str() {
            "--capacity" => o.capacity = Some(value("--capacity")?),
            "--frames" => o.frames = value("--frames")?.max(1),
            "--warmup" => o.warmup = value("--warmup")?,
            _ => o.counts.push(a.parse().with_context(|| format!("{a}: not a particle count"))?),
        }
    }
    if o.counts.is_empty() {
        o.counts = vec![1000, 8192, 65_536, 1_000_000];
    }
    if let Some(c) = o.capacity.filter(|&c| o.counts.iter().any(|&n| n > c)) {
        bail!("--capacity {c} is smaller than a count");
    }
    Ok(o)
}

/// A hash in [0, 1) for scattering the particles.
fn unit(i: u32, salt: u32) -> f32 {
    (fog::kernel::pcg_hash(i.wrapping_mul(3).wrapping_add(salt)) >> 8) as f32 / 16_777_216.0
}

/// `slots` particles in a 12 m cube in front of a camera at the origin looking along +y, each on
/// ribbon source `i mod SOURCES`; the first `live` are alive.
fn pool(gpu: &mut Gpu, slots: u32, live: u32) -> anyhow::Result<GpuParticles> {
    let parts: Vec<GpuParticle> = (0..slots)
        .map(|i| GpuParticle {
            pos_age: [12.0 * unit(i, 1) - 6.0, 12.0 * unit(i, 2) + 1.0, 12.0 * unit(i, 3) - 6.0, 0.0],
            scale: [0.05, 0.05, 0.0, 0.0],
            ids: [i % SOURCES, i / SOURCES, PF_RIBBON, 0],
            ..GpuParticle::default()
        })
        .collect();
    let pool = GpuParticles::with_particles(gpu, SOURCES, &parts)?;
    let counters = if pool.current_list() == 0 {
        GpuParticleCounters { alive0: live, ..GpuParticleCounters::default() }
    } else {
        GpuParticleCounters { alive1: live, ..GpuParticleCounters::default() }
    };
    gpu.upload(&pool.counters, bytemuck::bytes_of(&counters))?;
    Ok(pool)
}

/// The timed frames of `count` live particles in `slots`; the passes' timings.
fn bench(gpu: &mut Gpu, o: &Options, count: u32, slots: u32) -> anyhow::Result<Vec<PassTiming>> {
    let pool = pool(gpu, slots, count)?;
    let cull = ParticleCullPass::new(gpu)?;
    let sort = ParticleSortPass::new(gpu, slots)?;
    let ribbons = RibbonPass::new(gpu)?;
    let list = pool.current_list();
    let bufs = RibbonBuffers {
        pool: &pool.pool,
        alive: &pool.alive[list],
        counters: &pool.counters,
        links: &pool.ribbons,
        list: list as u32,
    };
    let everything = [Vec4::new(0.0, 0.0, 0.0, 1.0); 6];
    for frame in 0..o.warmup + o.frames {
        if frame == o.warmup {
            gpu.profiler.clear();
        }
        gpu.submit(|rec| {
            record_cull(rec, &pool, &cull, &everything);
            sort.record(rec, &visible(&pool), Vec3::ZERO, Vec3::Y);
            ribbons.record_sort(rec, &bufs);
            Ok(())
        })?;
    }
    let sorted = pool.read_visible(gpu)?.len() as u32;
    if sorted != count {
        bail!("{sorted} particles visible of {count}");
    }
    Ok(gpu.profiler.timings())
}

/// The sum of the medians of the passes named `prefix.*`, ms.
fn total(timings: &[PassTiming], prefix: &str) -> f64 {
    timings.iter().filter(|t| t.pass.starts_with(prefix)).map(|t| t.median_ms).sum()
}

fn run() -> anyhow::Result<()> {
    let o = parse()?;
    let mut gpu = Gpu::new(&GpuDesc::default())?;
    println!("{} ({}), {} frames after {}", gpu.info().name, gpu.info().driver, o.frames, o.warmup);
    let mut summary = Vec::new();
    for &count in &o.counts {
        let slots = o.capacity.unwrap_or(count).max(1);
        let timings = bench(&mut gpu, &o, count, slots)?;
        println!("\n{count} particles in a pool of {slots}:");
        print!("{}", format_table(&timings));
        let (sort, ribbons) = (total(&timings, "particles.sort."), total(&timings, "particles.ribbons."));
        summary.push((count, slots, sort, ribbons));
    }
    println!(
        "\n{:>10}  {:>10}  {:>22}  {:>26}",
        "count", "capacity", "particles.sort.* (ms)", "particles.ribbons.* (ms)"
    );
    for (count, slots, sort, ribbons) in summary {
        println!("{count:>10}  {slots:>10}  {sort:>22.4}  {ribbons:>26.4}");
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
