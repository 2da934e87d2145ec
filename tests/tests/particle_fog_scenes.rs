//! The particle fog on the showcase scenes (lavapipe, validation on): the renderer converts what
//! `classify --scene` says converts, the exported density grid integrates to the carriers' mass
//! with its centroid on theirs, brick memory stays within budget, and switching the toggle off
//! frees every brick.

use std::path::{Path, PathBuf};

use fog::report::{assess_all, UnknownTexturePolicy};
use glam::Vec3;
use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::particle_fog::export::{march_grid, read_carriers, read_field};
use render::particle_fog::scene_inputs::{report_input, scene_texture_stats};
use render::scene::Scene;
use render::world::World;
use render::Gpu;
use settings::Settings;

const SIZE: (u32, u32) = (96, 54);
const FPS: f32 = 30.0;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(format!("{name}.toml"))
}

fn settings_for(scene: &Scene, overrides: &[&str]) -> anyhow::Result<Settings> {
    let mut s = Settings::default();
    let mut all: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    all.extend(overrides.iter().map(|o| o.to_string()));
    settings::cli::apply_overrides(&mut s, &all)?;
    Ok(s)
}

/// Renders `frames` frames after `warmup` simulated ones.
fn run(
    gpu: &mut Gpu,
    scene: &Scene,
    settings: &Settings,
    warmup: u32,
    frames: u32,
) -> anyhow::Result<HostRenderer> {
    let mut world = World::new(gpu, scene)?;
    let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
    for f in 0..warmup {
        r.simulate(gpu, scene, settings, f as f32 / FPS)?;
    }
    for f in 0..frames {
        r.render(gpu, &mut world, scene, settings, (warmup + f) as f32 / FPS)?;
    }
    Ok(r)
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-30)
}

#[test]
fn the_renderer_converts_what_classify_reports() {
    gpu_test(|gpu| {
        for name in ["fog_machine", "campfire", "waterfall", "dust_sunbeams"] {
            let scene = render::scene::load(&scene_path(name))?;
            let settings = settings_for(&scene, &["RenderVKParticleFog=true"])?;
            let stats = scene_texture_stats(&scene.textures);
            let inputs: Vec<_> = scene.particles.iter().map(report_input).collect();
            let lookup = |n: &str| stats.get(n).map(fog::TextureVerdict::from);
            let rows = assess_all(&inputs, lookup, UnknownTexturePolicy::Unknown, &settings);
            let r = run(gpu, &scene, &settings, 45, 1)?;
            let sp = r.particles.as_ref().expect("the scene has particles");
            for (i, row) in rows.iter().enumerate() {
                let fog_verdict = row.explanation.verdict == fog::Verdict::Fog;
                let weight = sp.systems.weights()[i];
                assert_eq!(
                    fog_verdict,
                    weight > 0.99,
                    "{name}/{}: report {:?}, weight {weight}",
                    row.source,
                    row.explanation.verdict
                );
            }
            assert!(sp.systems.converted() > 0, "{name}: something converts");
            let s = r.fog_stats(gpu).expect("particle fog on");
            assert!(s.carriers > 0 && s.bricks_used > 0, "{name}: {s:?}");
            assert!(s.brick_bytes_allocated <= s.brick_bytes_budget, "{name}: {s:?}");
            assert!(relative(s.mass_splatted_m2, s.mass_expected_m2) < 0.005, "{name}: {s:?}");
            // Bricks by system: every converted system holds some, no billboard system any, most
            // first, and together the bricks requested (none failed or overflowed here).
            let by_system = &s.bricks_by_system;
            assert_eq!(s.alloc_failures, 0, "{name}: {s:?}");
            assert_eq!(by_system.iter().map(|b| b.bricks).sum::<u32>(), s.bricks_requested, "{name}: {s:?}");
            assert!(by_system.windows(2).all(|w| w[0].bricks >= w[1].bricks), "{name}: {by_system:?}");
            for (i, row) in rows.iter().enumerate() {
                let held = by_system.iter().find(|b| b.name == row.source).map_or(0, |b| b.bricks);
                let weight = sp.systems.weights()[i];
                assert_eq!(held > 0, weight > 0.0, "{name}/{}: weight {weight}, {by_system:?}", row.source);
            }
        }
        Ok(())
    });
}

/// The exported grid of `name` at `voxel` m with `RenderVKParticleFogBillow` = `billow` after 60
/// simulated frames: its integral and centroid, and the carriers' mass and centroid.
fn exported_mass(gpu: &mut Gpu, name: &str, voxel: &str, billow: &str) -> anyhow::Result<[(f64, Vec3); 2]> {
    let scene = render::scene::load(&scene_path(name))?;
    let settings = settings_for(
        &scene,
        &[
            "RenderVKParticleFog=true",
            &format!("RenderVKParticleFogVoxelSize={voxel}"),
            &format!("RenderVKParticleFogBillow={billow}"),
        ],
    )?;
    let (warmup, frames) = (60, 1);
    let r = run(gpu, &scene, &settings, warmup, frames)?;
    let (pf, sp) = (r.fog.bricks.as_ref().expect("fog"), r.particles.as_ref().expect("particles"));
    let field = read_field(gpu, pf)?;
    let mut by_id = vec![render::gpu_types::GpuFogSource::default(); sp.ids.len()];
    for (id, s) in sp.ids.iter().zip(sp.systems.gpu_sources(&settings)) {
        by_id[id.0 as usize] = s;
    }
    let carriers = read_carriers(gpu, &sp.pool, &by_id)?;
    let mass: f64 = carriers.iter().map(|c| f64::from(c.mass_m2())).sum();
    let centroid = carriers.iter().map(|c| c.position * c.mass_m2()).sum::<Vec3>() / mass as f32;
    // The warp of the frame drawn last, as the march applied it.
    let billow = fog::march::Billow {
        strength: settings.particle_fog_billow,
        scale_m: settings.particle_fog_billow_scale_m,
        speed_m_per_s: settings.particle_fog_billow_speed_m_per_s,
        time_s: (warmup + frames - 1) as f32 / FPS,
    };
    let grid = march_grid(&field, &billow).expect("bricks");
    Ok([(grid.integral_m2(), grid.centroid().expect("mass")), (mass, centroid)])
}

#[test]
fn the_exported_grid_holds_the_carriers_mass_at_its_centroid() {
    // With the billows on the grid is the field read through the warp, which moves the centroid
    // by up to its largest displacement but keeps the mass (its Jacobian weighs the density).
    gpu_test(|gpu| {
        for name in ["fog_machine", "campfire"] {
            for voxel in ["0.05", "0.1", "0.2"] {
                for billow in ["0", "1"] {
                    let [(integral, got), (mass, centroid)] = exported_mass(gpu, name, voxel, billow)?;
                    let what = format!("{name}, voxel {voxel}, billow {billow}");
                    eprintln!(
                        "{what}: grid {integral:.6} m², carriers {mass:.6} m², {:+.3} %",
                        100.0 * (integral / mass - 1.0)
                    );
                    assert!(relative(integral, mass) < 0.005, "{what}: grid {integral} vs carriers {mass}");
                    let reach = if billow == "0" { 0.05 } else { 0.3 };
                    assert!(
                        got.distance(centroid) < reach,
                        "{what}: grid centroid {got}, carriers {centroid}"
                    );
                }
            }
        }
        Ok(())
    });
}

#[test]
fn switching_the_toggle_off_frees_every_brick_and_leaves_the_frame_as_without_it() {
    gpu_test(|gpu| {
        let scene = render::scene::load(&scene_path("fog_machine"))?;
        let on = settings_for(&scene, &["RenderVKParticleFog=true"])?;
        let off = settings_for(&scene, &["RenderVKParticleFog=false"])?;
        let mut world = World::new(gpu, &scene)?;
        let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
        for f in 0..40 {
            r.simulate(gpu, &scene, &on, f as f32 / FPS)?;
        }
        r.render(gpu, &mut world, &scene, &on, 40.0 / FPS)?;
        assert!(r.fog.bricks.is_some());
        assert!(gpu.live_allocations().iter().any(|n| n.starts_with("fog.bricks.")));
        r.render(gpu, &mut world, &scene, &off, 41.0 / FPS)?;
        assert!(r.fog.bricks.is_none() && r.fog_stats(gpu).is_none());
        let left: Vec<String> =
            gpu.live_allocations().into_iter().filter(|n| n.starts_with("fog.bricks.")).collect();
        assert!(left.is_empty(), "brick memory left allocated: {left:?}");
        let sp = r.particles.as_ref().expect("particles");
        assert!(sp.systems.weights().iter().all(|&w| w == 0.0));
        // The frame after switching off is the frame of a renderer that never had the fog on:
        // bit for bit, with no fog.brick pass recorded.
        let toggled = r.read_hdr(gpu)?;
        let mut never = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
        for f in 0..40 {
            never.simulate(gpu, &scene, &off, f as f32 / FPS)?;
        }
        never.render(gpu, &mut world, &scene, &off, 40.0 / FPS)?;
        gpu.profiler.clear();
        never.render(gpu, &mut world, &scene, &off, 41.0 / FPS)?;
        let passes: Vec<String> = gpu.profiler.timings().into_iter().map(|t| t.pass).collect();
        assert!(passes.iter().all(|p| !p.starts_with("fog.brick")), "{passes:?}");
        let plain = never.read_hdr(gpu)?;
        let differ = toggled.iter().zip(&plain).filter(|(a, b)| a != b).count();
        assert_eq!(differ, 0, "{differ} pixels differ from a frame that never had the particle fog on");
        Ok(())
    });
}

#[test]
fn render_exports_the_density_its_carriers_and_camera() {
    let dir = pf_tests::frame::temp_dir("export-density");
    let job = render::cli::render::RenderJob {
        scene: scene_path("fog_machine"),
        width: 64,
        height: 36,
        frames: 1,
        warmup: 60,
        fps: FPS,
        out: dir.clone(),
        last_only: true,
        particles_only: false,
        export_density: Some(dir.join("density")),
        export_mitsuba: None,
        settings_file: None,
        overrides: vec!["RenderVKParticleFog=true".into(), "RenderVKParticleFogVoxelSize=0.1".into()],
    };
    let desc = render::GpuDesc { validation: true, ..render::GpuDesc::default() };
    let report = render::cli::render::run(&job, &desc).expect("render");
    let fog = report.fog.expect("the timing report has a fog section");
    let vol = std::fs::read(dir.join("density/fog_machine_density.vol")).expect("volume written");
    assert_eq!(&vol[..4], b"VOL\x03");
    let int = |at: usize| i32::from_le_bytes(vol[at..at + 4].try_into().expect("4 bytes"));
    let float = |at: usize| f32::from_le_bytes(vol[at..at + 4].try_into().expect("4 bytes"));
    assert_eq!(int(4), 1, "float32 encoding");
    let dims = [int(8) as usize, int(12) as usize, int(16) as usize];
    assert_eq!(int(20), 1, "one channel");
    let (lo, hi) = (Vec3::new(float(24), float(28), float(32)), Vec3::new(float(36), float(40), float(44)));
    let n = dims[0] * dims[1] * dims[2];
    assert_eq!(vol.len(), 48 + 4 * n);
    let cell = (hi - lo) / Vec3::new(dims[0] as f32, dims[1] as f32, dims[2] as f32);
    let sum: f64 = (0..n).map(|i| f64::from(float(48 + 4 * i))).sum();
    let integral = sum * f64::from(cell.x * cell.y * cell.z);
    let carriers: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("density/fog_machine_carriers.json")).expect("carriers"),
    )
    .expect("json");
    let mass: f64 = carriers["carriers"]
        .as_array()
        .expect("list")
        .iter()
        .map(|c| c["mass"].as_f64().unwrap_or(0.0))
        .sum();
    assert!(relative(integral, mass) < 0.005, "grid {integral} vs carriers {mass}");
    assert!(
        relative(mass, fog.mass_expected_m2) < 0.005,
        "carriers {mass} vs the frame's {}",
        fog.mass_expected_m2
    );
    let camera: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("density/fog_machine_camera.json")).expect("camera"),
    )
    .expect("json");
    assert_eq!(camera["width"], 64);
    assert!(camera["fov_y_deg"].as_f64().is_some_and(|f| f > 0.0));
}
