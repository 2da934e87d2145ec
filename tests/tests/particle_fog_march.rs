//! The brick march against its CPU twin `fog::march` (lavapipe, validation on): per pixel, the
//! particle fog's optical depth and where it starts along each ray in the `cloud` image the march
//! leaves agree with the twin marching the read-back density from the same camera, with the same
//! jitter and billow warp (one ray per pixel, particles only so every ray runs to the sky).

use std::path::{Path, PathBuf};

use fog::march::{start_jitter, Billow, MarchField, Ray};
use glam::{Vec3, Vec4};
use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::particle_fog::export::read_field;
use render::view::CameraView;
use render::vk::conv::f16_to_f32;
use render::world::World;

const SIZE: (u32, u32) = (96, 54);
const FPS: f32 = 30.0;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(format!("{name}.toml"))
}

/// The settings the scene asks for, then `overrides`.
fn scene_settings(scene: &render::scene::Scene, overrides: &[String]) -> anyhow::Result<settings::Settings> {
    let mut settings = settings::Settings::default();
    let mut all: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    all.extend_from_slice(overrides);
    settings::cli::apply_overrides(&mut settings, &all)?;
    Ok(settings)
}

/// The ray of pixel (x, y) of a `SIZE` frame seen from `view`, as the march casts it (to the sky).
fn pixel_ray(view: &CameraView, (x, y): (u32, u32)) -> Ray {
    let size = glam::Vec2::new(SIZE.0 as f32, SIZE.1 as f32);
    let ndc = (glam::Vec2::new(x as f32, y as f32) + 0.5) / size * 2.0 - 1.0;
    let far = view.clip_from_world.inverse() * Vec4::new(ndc.x, ndc.y, 1.0, 1.0);
    let dir = (far.truncate() / far.w - view.position).normalize();
    Ray { origin: view.position, dir, t_surface: f32::INFINITY }
}

#[test]
fn the_march_agrees_with_its_cpu_twin_per_pixel() {
    gpu_test(|gpu| {
        for strength in ["0", "1"] {
            agrees_with_twin(gpu, strength)?;
        }
        Ok(())
    });
}

/// Renders the fog machine with `RenderVKParticleFogBillow` = `billow` and compares each pixel's
/// cloud with the twin's.
fn agrees_with_twin(gpu: &mut render::Gpu, billow: &str) -> anyhow::Result<()> {
    let scene = render::scene::load(&scene_path("fog_machine"))?;
    let overrides = ["RenderVKParticleFog=true".to_string(), format!("RenderVKParticleFogBillow={billow}")];
    let settings = scene_settings(&scene, &overrides)?;
    let warp = Billow {
        strength: settings.particle_fog_billow,
        scale_m: settings.particle_fog_billow_scale_m,
        speed_m_per_s: settings.particle_fog_billow_speed_m_per_s,
        time_s: 90.0 / FPS,
    };
    let mut world = World::new(gpu, &scene)?;
    let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
    r.particles_only = true;
    let warmup = 90;
    for f in 0..warmup {
        r.simulate(gpu, &scene, &settings, f as f32 / FPS)?;
    }
    let time = warmup as f32 / FPS;
    r.render(gpu, &mut world, &scene, &settings, time)?;
    let pf = r.fog.bricks.as_ref().expect("the fog machine converts");
    let field = read_field(gpu, pf)?;
    let frame = pf.frame();
    let cloud: Vec<f32> = {
        let bytes = gpu.read_image(r.fog.cloud().expect("marched"))?;
        bytemuck::pod_collect_to_vec::<u8, u16>(&bytes).into_iter().map(f16_to_f32).collect()
    };
    let cam = scene.camera_at(time);
    let view = CameraView::new(cam.position, cam.target, cam.fov_y_deg, SIZE.0 as f32 / SIZE.1 as f32);
    let twin = MarchField::new(&field, view.position);
    let (mut fogged, mut worst) = (0, 0.0f32);
    for y in 0..SIZE.1 {
        for x in 0..SIZE.0 {
            let m = twin.march(&pixel_ray(&view, (x, y)), start_jitter([x, y], frame), &warp, |_| Vec3::ZERO);
            let i = 4 * (y * SIZE.0 + x) as usize;
            let (gpu_front, gpu_tau) = (cloud[i], cloud[i + 2]);
            let gpu_t = (-gpu_tau).exp();
            let error = (gpu_t - m.transmittance).abs();
            assert!(
                error < 0.01 + 0.02 * (1.0 - m.transmittance),
                "pixel ({x}, {y}): GPU transmittance {gpu_t} (tau {gpu_tau}), twin {} (tau {})",
                m.transmittance,
                m.optical_depth
            );
            worst = worst.max(error);
            if let Some((front, _)) = m.span.filter(|_| m.optical_depth > 0.01) {
                fogged += 1;
                assert!(
                    (gpu_front - front).abs() < 0.02 * front.max(1.0),
                    "pixel ({x}, {y}): fog starts at {gpu_front} m on the GPU, {front} m in the twin"
                );
            }
        }
    }
    assert!(fogged > 50, "the cloud covers a fair part of the frame ({fogged} pixels)");
    eprintln!("billow {billow}: {fogged} fogged pixels, largest transmittance difference {worst}");
    Ok(())
}

/// The fog machine's HDR frame at `size` with `overrides` after a warm-up.
fn fog_machine_hdr(
    gpu: &mut render::Gpu,
    size: (u32, u32),
    overrides: &[&str],
) -> anyhow::Result<Vec<[f32; 4]>> {
    let scene = render::scene::load(&scene_path("fog_machine"))?;
    let overrides: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
    let settings = scene_settings(&scene, &overrides)?;
    let mut world = World::new(gpu, &scene)?;
    let mut r = HostRenderer::new(gpu, size.0, size.1)?;
    for f in 0..90 {
        r.simulate(gpu, &scene, &settings, f as f32 / FPS)?;
    }
    r.render(gpu, &mut world, &scene, &settings, 90.0 / FPS)?;
    Ok(r.read_hdr(gpu)?)
}

#[test]
fn the_reduced_resolution_march_matches_one_ray_per_pixel() {
    gpu_test(|gpu| {
        let size = (192, 108);
        let fog = |d: &str| {
            ["RenderVKParticleFog=true".to_string(), format!("RenderVKParticleFogMarchDivisor={d}")]
        };
        let off = fog_machine_hdr(gpu, size, &["RenderVKParticleFog=false"])?;
        let full = fog_machine_hdr(gpu, size, &fog("1").each_ref().map(String::as_str))?;
        let lum = |p: &[f32; 4]| 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
        for divisor in ["2", "3"] {
            let reduced = fog_machine_hdr(gpu, size, &fog(divisor).each_ref().map(String::as_str))?;
            // The fog's contribution (per-pixel march minus no particle fog) against the
            // difference the reduced march makes, summed over the frame.
            let contribution: f32 = full.iter().zip(&off).map(|(a, b)| (lum(a) - lum(b)).abs()).sum();
            let error: f32 = full.iter().zip(&reduced).map(|(a, b)| (lum(a) - lum(b)).abs()).sum();
            assert!(contribution > 0.0, "the fog shows");
            assert!(
                error < 0.15 * contribution,
                "divisor {divisor}: differs by {error} against a contribution of {contribution}"
            );
            // Where the per-pixel march adds nothing within reach of the upsample's rays, the
            // reduced march leaves the pixels exactly as without it.
            let (w, h) = (size.0 as i32, size.1 as i32);
            let reach = 3 * divisor.parse::<i32>()? + 1;
            let untouched = |x: i32, y: i32| full[(y * w + x) as usize] == off[(y * w + x) as usize];
            let mut checked = 0;
            for y in 0..h {
                for x in 0..w {
                    let near =
                        (-reach..=reach).flat_map(|dy| (-reach..=reach).map(move |dx| (x + dx, y + dy)));
                    let clear = near
                        .filter(|&(nx, ny)| nx >= 0 && ny >= 0 && nx < w && ny < h)
                        .all(|(nx, ny)| untouched(nx, ny));
                    if clear {
                        checked += 1;
                        let i = (y * w + x) as usize;
                        assert_eq!(reduced[i], off[i], "divisor {divisor}: pixel ({x}, {y}) changed");
                    }
                }
            }
            assert!(checked > (w * h) as usize / 4, "most of the frame is far from the cloud ({checked})");
        }
        Ok(())
    });
}

/// A still cloud of fullbright white puffs in front of the camera (converts: fullbright alone does
/// not exclude), nothing else lit.
fn glowing_cloud_scene() -> String {
    let soft = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/textures/soft.png");
    format!(
        r#"
        [camera]
        position = [0.0, -8.0, 1.0]
        target = [0.0, 0.0, 1.0]
        fov_y_deg = 50
        [sun]
        illuminance = 0.0
        [ambient]
        sky = [0.0, 0.0, 0.0]
        ground = [0.0, 0.0, 0.0]
        [textures]
        soft = "{}"
        [[particles]]
        name = "glow"
        position = [0.0, 0.0, 1.0]
        texture = "soft"
        [particles.system]
        pattern = "explode"
        burst_radius = 0.4
        burst_rate = 0.1
        burst_part_count = 4
        burst_speed_min = 0.02
        burst_speed_max = 0.05
        part_flags = ["emissive"]
        part_max_age = 12.0
        start_color = [1.0, 1.0, 1.0]
        start_alpha = 0.5
        start_scale = [1.5, 1.5]
        "#,
        soft.display()
    )
}

#[test]
fn the_marchs_in_scatter_agrees_with_its_twin_per_pixel() {
    gpu_test(|gpu| {
        // Fullbright white carriers scatter exactly their tint (1): each pixel's radiance over the
        // black background is the in-scatter the twin integrates with a source of 1.
        let dir = pf_tests::frame::temp_dir("march-in-scatter");
        let scene = render::scene::parse(&glowing_cloud_scene(), &dir.join("test.toml"))?;
        let settings = scene_settings(
            &scene,
            &["RenderVKParticleFog=true".into(), "RenderVKParticleFogBillow=0".into()],
        )?;
        let mut world = World::new(gpu, &scene)?;
        let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
        r.particles_only = true;
        for f in 0..90 {
            r.simulate(gpu, &scene, &settings, f as f32 / FPS)?;
        }
        r.render(gpu, &mut world, &scene, &settings, 90.0 / FPS)?;
        let pf = r.fog.bricks.as_ref().expect("the cloud converts");
        let (field, frame) = (read_field(gpu, pf)?, pf.frame());
        let hdr = r.read_hdr(gpu)?;
        let cloud: Vec<f32> = {
            let bytes = gpu.read_image(r.fog.cloud().expect("marched"))?;
            bytemuck::pod_collect_to_vec::<u8, u16>(&bytes).into_iter().map(f16_to_f32).collect()
        };
        let view = CameraView::new(
            scene.camera.position,
            scene.camera.target,
            scene.camera.fov_y_deg,
            SIZE.0 as f32 / SIZE.1 as f32,
        );
        let twin = MarchField::new(&field, view.position);
        let (mut lit, mut worst) = (0, 0.0f32);
        for y in 0..SIZE.1 {
            for x in 0..SIZE.0 {
                let ray = pixel_ray(&view, (x, y));
                let m = twin.march(&ray, start_jitter([x, y], frame), &Billow::NONE, |_| Vec3::ONE);
                let got = hdr[(y * SIZE.0 + x) as usize];
                for (c, (&g, want)) in got.iter().zip(m.in_scatter.to_array()).enumerate() {
                    let error = (g - want).abs();
                    assert!(
                        error < 0.01 + 0.02 * want,
                        "pixel ({x}, {y}) channel {c}: GPU {g} vs twin {want} (GPU tau {}, twin {})",
                        cloud[4 * (y * SIZE.0 + x) as usize + 2],
                        m.optical_depth
                    );
                    worst = worst.max(error);
                }
                lit += usize::from(m.in_scatter.x > 0.05);
            }
        }
        assert!(lit > 50, "the cloud glows over a fair part of the frame ({lit} pixels)");
        eprintln!("{lit} glowing pixels, largest in-scatter difference {worst}");
        Ok(())
    });
}
