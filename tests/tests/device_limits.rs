//! Buffers respect the device's limits: on lavapipe, whose
//! `maxStorageBufferRange` is 128 MiB, a particle pool above 1,048,576 particles is refused with
//! the limit named, and the million-particle stress scene (capacity 1,100,000) renders under
//! validation with its pool capped to what the device holds. A device out of memory while the
//! frame makes a feature's resources (the particle fog's bricks, the froxel fog, the particle pool)
//! turns that feature off, names what failed in the report, and the frames go on.

use std::path::PathBuf;

use pf_tests::frame::temp_dir;
use pf_tests::gpu_test;
use render::frame::features::Feature;
use render::frame::HostRenderer;
use render::particles_gpu::{device_capacity, GpuParticles, ParticlePoolDesc};
use render::world::World;

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
        export_mitsuba: None,
        settings_file: None,
        overrides: Vec::new(),
    };
    let desc = render::GpuDesc { validation: true, ..render::GpuDesc::default() };
    // run() fails on any validation error.
    let report = render::cli::render::run(&job, &desc).expect("renders without validation errors");
    assert!(report.passes.iter().any(|p| p.pass == "particles.update"));
}

#[test]
fn out_of_memory_while_making_a_feature_turns_it_off_and_the_frames_go_on() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/fog_machine.toml");
    gpu_test(|gpu| {
        let scene = render::scene::load(&path)?;
        let mut settings = settings::Settings::default();
        let mut overrides: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        overrides.push("RenderVKParticleFog=true".into());
        settings::cli::apply_overrides(&mut settings, &overrides)?;
        let cases = [
            (Feature::ParticleFog, "fog.bricks"),
            (Feature::VolumetricFog, "fog.froxel"),
            (Feature::Particles, "particles."),
        ];
        for (feature, resource) in cases {
            let mut world = World::new(gpu, &scene)?;
            let mut r = HostRenderer::new(gpu, 32, 18)?;
            gpu.fail_next_allocation(resource);
            for f in 0..4 {
                r.render(gpu, &mut world, &scene, &settings, f as f32 / 30.0)?;
            }
            let off = r.features_off.list();
            assert_eq!(off.len(), 1, "{feature:?}: {off:?}");
            assert_eq!(off[0].feature, feature);
            assert!(off[0].reason.contains(resource), "{feature:?}: the reason names what failed: {off:?}");
            let sp = r.particles.as_ref();
            match feature {
                Feature::ParticleFog => {
                    assert!(r.fog.bricks.is_none() && r.fog.froxel.is_some());
                    let weights = sp.expect("particles on").systems.weights();
                    assert!(
                        weights.iter().all(|&w| w == 0.0),
                        "converted systems are billboards again: {weights:?}"
                    );
                }
                Feature::VolumetricFog => assert!(r.fog.froxel.is_none() && sp.is_some()),
                Feature::Particles => assert!(sp.is_none() && r.fog.froxel.is_some()),
            }
        }
        Ok(())
    });
}
