//! `host.opaque` casts a ray per pixel through the scene's bounding-volume hierarchy: on a showcase
//! scene (lavapipe, validation on) the depth buffer it fills holds, pixel by pixel, the depth of
//! the nearest surface the CPU twin (`Bvh::cast`) finds along the same ray, and 1 where the ray
//! meets nothing; the surfaces it finds are lit (not the sky colour).

use std::path::Path;

use glam::{Vec2, Vec3};
use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::passes::opaque::bvh::Bvh;
use render::view::CameraView;
use render::world::{scene_triangles, World};

/// Depth the twin and the GPU may differ by (float rounding of the same ray and triangle).
const DEPTH_TOLERANCE: f32 = 1e-5;

#[test]
fn the_depth_buffer_holds_the_nearest_surface_the_cpu_twin_finds() {
    gpu_test(|gpu| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/fog_machine.toml");
        let scene = render::scene::load(&path)?;
        let (w, h) = (64u32, 36u32);
        let mut world = World::new(gpu, &scene)?;
        let mut renderer = HostRenderer::new(gpu, w, h)?;
        let settings = settings::Settings { max_part_count: 0, ..settings::Settings::default() };
        renderer.render(gpu, &mut world, &scene, &settings, 0.0)?;
        let bytes = gpu.read_image(&renderer.targets.depth)?;
        let depth: &[f32] = bytemuck::cast_slice(&bytes);
        let hdr = renderer.read_hdr(gpu)?;

        let cam = scene.camera_at(0.0);
        let view = CameraView::new(cam.position, cam.target, cam.fov_y_deg, w as f32 / h as f32);
        let world_from_clip = view.clip_from_world.inverse();
        let bvh = Bvh::build(scene_triangles(&scene));
        let (mut surfaces, mut wrong) = (0, Vec::new());
        for y in 0..h {
            for x in 0..w {
                let ndc = Vec2::new((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32) * 2.0 - 1.0;
                let dir = world_from_clip.project_point3(ndc.extend(0.5)) - view.position;
                let want = bvh
                    .cast(view.position, dir, f32::INFINITY)
                    .map_or(1.0, |hit| view.clip_from_world.project_point3(view.position + hit.t * dir).z);
                let i = (y * w + x) as usize;
                if (depth[i] - want).abs() > DEPTH_TOLERANCE {
                    wrong.push(format!("{x},{y}: {} vs {want}", depth[i]));
                }
                if want < 1.0 {
                    surfaces += 1;
                    let px = hdr[i];
                    let sky = scene.ambient.sky;
                    assert!(Vec3::new(px[0], px[1], px[2]) != sky, "{x},{y} shows a surface, lit");
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "{} of {} pixels differ: {:?}",
            wrong.len(),
            w * h,
            &wrong[..wrong.len().min(12)]
        );
        assert!(surfaces > (w * h / 2) as usize, "{surfaces} pixels show a surface");
        Ok(())
    })
}
