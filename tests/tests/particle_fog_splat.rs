//! The particle fog's brick passes on lavapipe under validation, on carriers placed directly in a
//! particle pool: the GPU atlas against the CPU twin (`fog::splat`), mass conservation across
//! sizes, ages and voxel sizes, poisoned carriers, and budget exhaustion.

use fog::bricks::BrickLayout;
use fog::density::Field;
use fog::splat::{splat, Carrier};
use glam::Vec3;
use pf_tests::gpu_test;
use render::gpu_types::{GpuFogSource, GpuParticle};
use render::particle_fog::export::{carrier, read_field};
use render::particle_fog::pool::fog_source;
use render::particle_fog::stats::FogStats;
use render::particle_fog::{ParticleFog, PoolKey};
use render::particles_gpu::GpuParticles;
use render::vk::resource::{BufferDesc, MemoryLocation};
use render::Gpu;

const TEX_MEAN_ALPHA: f32 = 0.35;
const TINT: [f32; 3] = [0.9, 0.8, 0.7];

/// One carrier as a pool particle of source 0.
fn particle(position: Vec3, size: f32, age: f32, alpha: f32) -> GpuParticle {
    GpuParticle {
        pos_age: [position.x, position.y, position.z, age],
        vel_max_age: [0.0, 0.0, 0.0, 100.0],
        color: [0.5, 0.6, 0.7, alpha],
        scale: [size, size, 0.0, 0.0],
        ..GpuParticle::default()
    }
}

struct Splatted {
    field: Field,
    stats: FogStats,
    frame: u32,
    capacity: u32,
    bytes_allocated: u64,
}

/// Runs the brick passes once over `parts` (source 0 with weight 1) with the camera at `camera`.
fn splat_on_gpu(
    gpu: &mut Gpu,
    parts: &[GpuParticle],
    voxel: f32,
    budget_mb: u64,
    camera: Vec3,
) -> anyhow::Result<Splatted> {
    let particles = GpuParticles::with_particles(gpu, 4, parts)?;
    let current = particles.current_list();
    let sources = [fog_source(1.0, TEX_MEAN_ALPHA, 1.0, TINT); 4];
    let mut source_buf = gpu.create_buffer(&BufferDesc {
        name: "test.fog_sources",
        size: std::mem::size_of_val(&sources) as u64,
        usage: render::ash::vk::BufferUsageFlags::STORAGE_BUFFER,
        location: MemoryLocation::CpuToGpu,
    })?;
    source_buf.write(0, bytemuck::cast_slice(&sources));
    let key = PoolKey { voxel_size_m: voxel, budget_bytes: budget_mb << 20, max_sources: 4 };
    let mut pf = ParticleFog::new(gpu, key)?;
    pf.prepare(gpu, camera, current);
    gpu.submit(|rec| {
        pf.record(rec, &particles, &source_buf);
        Ok(())
    })?;
    pf.finish_frame(gpu);
    Ok(Splatted {
        field: read_field(gpu, &pf)?,
        stats: pf.stats.clone(),
        frame: pf.frame(),
        capacity: pf.pool.capacity,
        bytes_allocated: pf.pool.bytes_allocated,
    })
}

fn source() -> GpuFogSource {
    fog_source(1.0, TEX_MEAN_ALPHA, 1.0, TINT)
}

/// Carriers of kernel widths 0.1 to 10 voxels and ages 0 to 20 s, scattered off-grid near `camera`.
fn sweep(voxel: f32, camera: Vec3) -> Vec<GpuParticle> {
    let mut out = Vec::new();
    for (i, &sigma_vox) in [0.1f32, 0.3, 1.0, 3.0, 10.0].iter().enumerate() {
        for (j, &age) in [0.0f32, 2.0, 20.0].iter().enumerate() {
            let size = sigma_vox * voxel / 0.236;
            let offset = Vec3::new(0.37 + 0.91 * j as f32, -0.23 * i as f32, 0.11 + 0.05 * i as f32)
                * (1.0 + sigma_vox * voxel);
            out.push(particle(camera + offset, size, age, 0.4));
        }
    }
    out
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-30)
}

#[test]
fn gpu_bricks_match_the_cpu_twin_and_conserve_mass() {
    gpu_test(|gpu| {
        for &voxel in &[0.025f32, 0.075, 0.25] {
            let camera = Vec3::new(2.0, -3.0, 1.5);
            let parts = sweep(voxel, camera);
            let out = splat_on_gpu(gpu, &parts, voxel, 32, camera)?;
            let s = source();
            let carriers: Vec<Carrier> =
                parts.iter().enumerate().filter_map(|(i, p)| carrier(i as u32, p, &s)).collect();
            let twin = splat(&carriers, &BrickLayout::new(voxel, camera), camera, out.frame);
            let twin_field = Field::from_accum(voxel, &twin.bricks);
            assert_eq!(out.stats.carriers as usize, parts.len(), "voxel {voxel}");
            assert_eq!(out.field.bricks.len(), twin_field.bricks.len(), "voxel {voxel}: brick count");
            let unit = 1.0 / fog::kernel::EXTINCTION_UNITS_PER_INV_M;
            let mut worst = 0.0f32;
            for (k, twin_values) in &twin_field.bricks {
                let gpu_values =
                    out.field.bricks.get(k).unwrap_or_else(|| panic!("voxel {voxel}: brick {k:?} missing"));
                for (a, b) in gpu_values.iter().zip(twin_values) {
                    worst = worst.max((a - b).abs() / (unit * 4.0 + 1e-4 * b.abs()));
                }
            }
            assert!(worst <= 1.0, "voxel {voxel}: a cell differs from the twin by {worst} tolerances");
            let expected: f64 = carriers.iter().map(|c| f64::from(c.mass_m2())).sum();
            assert!(relative(out.stats.mass_splatted_m2, expected) < 0.005, "voxel {voxel}: {:?}", out.stats);
            assert!(relative(out.stats.mass_expected_m2, expected) < 1e-3, "voxel {voxel}: {:?}", out.stats);
            assert!(
                relative(out.field.mass_m2(), expected) < 0.005,
                "voxel {voxel}: cells hold {}",
                out.field.mass_m2()
            );
        }
        Ok(())
    });
}

#[test]
fn poisoned_carriers_are_skipped_and_counted_without_harming_others() {
    gpu_test(|gpu| {
        let camera = Vec3::ZERO;
        let good = particle(Vec3::new(1.0, 0.5, 0.2), 0.4, 1.0, 0.5);
        let clean = splat_on_gpu(gpu, &[good], 0.075, 16, camera)?;
        let mut parts = vec![good];
        for bad in [
            particle(Vec3::new(f32::NAN, 0.0, 0.0), 0.4, 1.0, 0.5),
            particle(Vec3::new(1.0, 0.5, 0.2), f32::INFINITY, 1.0, 0.5),
            particle(Vec3::new(1.0, 0.5, 0.2), -0.4, 1.0, 0.5),
            particle(Vec3::new(1.0, 0.5, 0.2), 5000.0, 1.0, 0.5),
            particle(Vec3::new(1.0, 0.5, 0.2), 0.4, f32::NAN, 0.5),
            particle(Vec3::new(1.0, 0.5, 0.2), 0.4, 1.0, f32::NAN),
        ] {
            parts.push(bad);
        }
        let mixed = splat_on_gpu(gpu, &parts, 0.075, 16, camera)?;
        assert_eq!(mixed.stats.carriers_poisoned, 6, "{:?}", mixed.stats);
        assert_eq!(mixed.stats.carriers, 1);
        assert!(relative(mixed.stats.mass_splatted_m2, clean.stats.mass_splatted_m2) < 1e-3);
        assert!(mixed.field.bricks.values().flatten().all(|v| v.is_finite()), "no cell is poisoned");
        Ok(())
    });
}

#[test]
fn a_million_tiny_carriers_keep_their_mass() {
    gpu_test(|gpu| {
        let camera = Vec3::ZERO;
        // Each carries about a tenth of a fixed-point unit of its cell.
        let parts: Vec<GpuParticle> = (0..1_000_000u32)
            .map(|i| {
                particle(
                    Vec3::new(
                        (i % 100) as f32 * 0.013,
                        (i / 100 % 100) as f32 * 0.011,
                        0.5 + (i / 10_000) as f32 * 0.002,
                    ),
                    0.01,
                    0.0,
                    0.002,
                )
            })
            .collect();
        let out = splat_on_gpu(gpu, &parts, 0.1, 64, camera)?;
        assert_eq!(out.stats.carriers, 1_000_000);
        assert!(relative(out.stats.mass_splatted_m2, out.stats.mass_expected_m2) < 0.005, "{:?}", out.stats);
        Ok(())
    });
}

#[test]
fn an_exhausted_budget_is_never_exceeded_and_is_reported() {
    gpu_test(|gpu| {
        let camera = Vec3::ZERO;
        // Small kernels spread over a 6 m cube at level 0: far more bricks than 16 MiB holds.
        let parts: Vec<GpuParticle> = (0..20_000u32)
            .map(|i| {
                let f = |k: u32| ((i.wrapping_mul(k) % 997) as f32 / 997.0 - 0.5) * 6.0;
                particle(Vec3::new(f(7919), f(104_729), f(1_299_709)), 0.05, 0.0, 0.5)
            })
            .collect();
        let out = splat_on_gpu(gpu, &parts, 0.025, 16, camera)?;
        assert!(out.bytes_allocated <= 16 << 20, "allocated {} bytes", out.bytes_allocated);
        assert!(out.stats.bricks_used <= out.capacity);
        assert!(out.stats.alloc_failures > 0, "{:?}", out.stats);
        assert!(out.stats.mass_clipped_m2 > 0.0, "clipped mass is reported: {:?}", out.stats);
        let accounted = out.stats.mass_splatted_m2 + out.stats.mass_clipped_m2;
        assert!(relative(accounted, out.stats.mass_expected_m2) < 0.005, "{:?}", out.stats);
        Ok(())
    });
}
