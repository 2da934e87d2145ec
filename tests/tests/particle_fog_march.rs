//! The brick march against its CPU twin `fog::march` (lavapipe, validation on): per pixel, the
//! particle fog's optical depth and where it starts along each ray in the `cloud` image the march
//! leaves agree with the twin marching the read-back density from the same camera, with the same
//! jitter (billows off, one ray per pixel, particles only so every ray runs to the sky).

use std::path::{Path, PathBuf};

use fog::march::{start_jitter, MarchField, Ray};
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

#[test]
fn the_march_agrees_with_its_cpu_twin_per_pixel() {
    gpu_test(|gpu| {
        let scene = render::scene::load(&scene_path("fog_machine"))?;
        let mut settings = settings::Settings::default();
        let mut all: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
        all.extend(["RenderVKParticleFog=true", "RenderVKParticleFogBillow=0"].map(String::from));
        settings::cli::apply_overrides(&mut settings, &all)?;
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
        let world_from_clip = view.clip_from_world.inverse();
        let twin = MarchField::new(&field);
        let (mut fogged, mut worst) = (0, 0.0f32);
        for y in 0..SIZE.1 {
            for x in 0..SIZE.0 {
                let ndc = (glam::Vec2::new(x as f32, y as f32) + 0.5)
                    / glam::Vec2::new(SIZE.0 as f32, SIZE.1 as f32)
                    * 2.0
                    - 1.0;
                let far = world_from_clip * Vec4::new(ndc.x, ndc.y, 1.0, 1.0);
                let dir = (far.truncate() / far.w - view.position).normalize();
                let ray = Ray { origin: view.position, dir, t_surface: f32::INFINITY };
                let m = twin.march(&ray, start_jitter([x, y], frame), |_| Vec3::ZERO);
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
        eprintln!("{fogged} fogged pixels, largest transmittance difference {worst}");
        Ok(())
    });
}
