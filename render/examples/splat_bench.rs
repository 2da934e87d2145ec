//! GPU benchmark of the particle fog's brick passes on `N` carriers placed directly in a particle
//! pool (no simulation, no classification: the classifier never converts particles this small, but
//! the splat's cost per carrier is what is measured here).
//!
//! `cargo run --release -p render --example splat_bench -- [CARRIERS] [SIZE_M] [VOXEL_M] [FRAMES]`
//! (defaults 1000000, 0.05, 0.075, 20): carriers of SIZE_M scattered through a 12 m cube around
//! the camera; prints the median GPU time of each brick pass and the frame's counts.

use std::process::ExitCode;

use glam::Vec3;
use render::gpu_types::GpuParticle;
use render::particle_fog::pool::fog_source;
use render::particle_fog::{ParticleFog, PoolKey};
use render::particles_gpu::GpuParticles;
use render::vk::resource::{BufferDesc, MemoryLocation};
use render::{Gpu, GpuDesc};

fn arg<T: std::str::FromStr>(i: usize, default: T) -> T {
    std::env::args().nth(i).and_then(|a| a.parse().ok()).unwrap_or(default)
}

/// A hash in [0, 1) for scattering the carriers.
fn unit(i: u32, salt: u32) -> f32 {
    (fog::kernel::pcg_hash(i.wrapping_mul(3).wrapping_add(salt)) >> 8) as f32 / 16_777_216.0
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

fn run() -> anyhow::Result<()> {
    let n: u32 = arg(1, 1_000_000);
    let size: f32 = arg(2, 0.05);
    let voxel: f32 = arg(3, 0.075);
    let frames: u32 = arg(4, 20);
    let mut gpu = Gpu::new(&GpuDesc::default())?;
    let camera = Vec3::new(0.0, 0.0, 1.5);
    let parts: Vec<GpuParticle> = (0..n)
        .map(|i| {
            let p = camera + (Vec3::new(unit(i, 1), unit(i, 2), unit(i, 3)) - 0.5) * 12.0;
            GpuParticle {
                pos_age: [p.x, p.y, p.z, 2.0 * unit(i, 4)],
                color: [0.8, 0.8, 0.8, 0.3],
                scale: [size, size, 0.0, 0.0],
                ..GpuParticle::default()
            }
        })
        .collect();
    let particles = GpuParticles::with_particles(&mut gpu, 1, &parts)?;
    let current = particles.current_list();
    let source = fog_source(1.0, 0.35, 1.0, [1.0; 3]);
    let mut sources = gpu.create_buffer(&BufferDesc {
        name: "bench.fog_sources",
        size: std::mem::size_of_val(&source) as u64,
        usage: ash::vk::BufferUsageFlags::STORAGE_BUFFER,
        location: MemoryLocation::CpuToGpu,
    })?;
    sources.write(0, bytemuck::bytes_of(&source));
    let key = PoolKey { voxel_size_m: voxel, budget_bytes: 512 << 20, max_sources: 1 };
    let mut fog = ParticleFog::new(&gpu, key)?;
    gpu.profiler.clear();
    for _ in 0..frames {
        fog.prepare(&gpu, camera, current);
        gpu.submit(|rec| {
            fog.record(rec, &particles, &sources);
            Ok(())
        })?;
        fog.finish_frame(&gpu);
    }
    println!(
        "{} ({}): {n} carriers of {size} m, voxel {voxel} m, {frames} frames",
        gpu.info().name,
        gpu.info().driver
    );
    print!("{}", render::vk::profiler::format_table(&gpu.profiler.timings()));
    print!("{}", render::cli::render::format_fog(&fog.stats));
    Ok(())
}
