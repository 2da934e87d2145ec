//! Buffers respect the device's limits (issue 18 item 2): on lavapipe, whose
//! `maxStorageBufferRange` is 128 MiB, a particle pool above 1,048,576 particles is refused with
//! the limit named, and the million-particle stress scene (capacity 1,100,000) renders under
//! validation with its pool capped to what the device holds.

use std::path::PathBuf;

use pf_tests::frame::temp_dir;
use pf_tests::gpu_test;
use render::particles_gpu::{device_capacity, GpuParticles, ParticlePoolDesc};

#[test]
fn a_pool_beyond_the_storage_buffer_range_is_refused_naming_the_limit() {
    gpu_test(|gpu| {
        let cap = device_capacity(&gpu.limits());
        let range = u64::from(gpu.limits().max_storage_buffer_range);
        let particle = std::mem::size_of::<render::gpu_types::GpuParticle>() as u64;
        assert!(u64::from(cap) * particle <= range, "{cap} particles fit {range} bytes");
        if cap < render::particles_gpu::MAX_CAPACITY {
            let desc = ParticlePoolDesc { capacity: cap + 1, max_sources: 4, seed: 0 };
            let err = GpuParticles::new(gpu, &desc).err().expect("refused");
            assert!(err.to_string().contains("maxStorageBufferRange"), "{err}");
        }
        Ok(())
    });
}

#[test]
fn the_stress_scene_renders_under_validation() {
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/stress_1m.toml");
    let out = temp_dir("stress-validation");
    let job = render::cli::render::RenderJob {
        scene,
        width: 32,
        height: 18,
        frames: 1,
        warmup: 0,
        fps: 60.0,
        out,
        last_only: true,
        particles_only: false,
        export_density: None,
        settings_file: None,
        overrides: Vec::new(),
    };
    let desc = render::GpuDesc { validation: true, ..render::GpuDesc::default() };
    // run() fails on any validation error.
    let report = render::cli::render::run(&job, &desc).expect("renders without validation errors");
    assert!(report.passes.iter().any(|p| p.pass == "particles.update"));
}
