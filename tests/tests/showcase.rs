//! The showcase scenes render on lavapipe under validation, and the dust-in-sunbeams scene shows
//! shadowed light shafts: fog lit through a gap between slats is brighter than fog in the slats'
//! shadow beside it.

use std::path::PathBuf;

use fog::froxel::Slices;
use glam::Vec3;
use pf_tests::gpu_test;
use render::fog_gpu::froxel::FROXEL_NEAR_M;
use render::frame::HostRenderer;
use render::scene::load;
use render::view::CameraView;
use render::vk::conv::f16_to_f32;
use render::world::World;

const W: u32 = 320;
const H: u32 = 180;

fn scene_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes").join(name)
}

#[test]
fn dust_sunbeams_shafts_are_brighter_than_the_fog_beside_them() {
    gpu_test(|gpu| {
        let scene = load(&scene_path("dust_sunbeams.toml"))?;
        let settings = settings::Settings::default();
        let mut world = World::new(gpu, &scene)?;
        let mut renderer = HostRenderer::new(gpu, W, H)?;
        // One frame: no history; each froxel holds the mean of its 4 jittered samples.
        renderer.render(gpu, &mut world, &scene, &settings, 0.0)?;
        let fog = renderer.fog.froxel.as_ref().expect("volumetric fog is on by default");
        let texels: Vec<u16> = bytemuck::cast_slice(&gpu.read_image(fog.hist_out())?).to_vec();
        let [gx, gy, gz] = fog.grid.dims;
        let slices = Slices { count: gz, near_m: FROXEL_NEAR_M, far_m: fog.grid.far_m };
        let cam = &scene.camera;
        let view = CameraView::new(cam.position, cam.target, cam.fov_y_deg, W as f32 / H as f32);
        let to_sun = scene.sun.direction.normalize();
        let tan = (view.fov_y * 0.5).tan();
        let (mut lit, mut shadowed) = (Vec::new(), Vec::new());
        for s in 0..gz {
            let z = slices.depth_at(s as f32 + 0.5);
            for y in 0..gy {
                for x in 0..gx {
                    let ndc = glam::Vec2::new((x as f32 + 0.5) / gx as f32, (y as f32 + 0.5) / gy as f32)
                        * 2.0
                        - 1.0;
                    let p = view.position
                        + z * (view.forward + view.right * (ndc.x * tan * view.aspect)
                            - view.up * (ndc.y * tan));
                    let Some(through_gap) = sunlight_through_slats(p, to_sun) else { continue };
                    let i = (((s * gy + y) * gx + x) * 4) as usize;
                    let l = (0..3).map(|c| f16_to_f32(texels[i + c])).sum::<f32>() / 3.0;
                    if through_gap {
                        lit.push(l)
                    } else {
                        shadowed.push(l)
                    }
                }
            }
        }
        let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len().max(1) as f32;
        assert!(
            lit.len() > 50 && shadowed.len() > 50,
            "{} lit and {} shadowed samples",
            lit.len(),
            shadowed.len()
        );
        let (lit_mean, shadow_mean) = (mean(&lit), mean(&shadowed));
        assert!(lit_mean > 4.0 * shadow_mean, "fog in the shafts {lit_mean} vs beside them {shadow_mean}");
        Ok(())
    });
}

/// For a point inside the room, where its ray toward the sun crosses the slatted east wall
/// (x = 4.1 m, slats 0.35 m wide every 0.6 m centred on y = -3.3 + 0.6 k, gaps between them):
/// Some(true) well inside a gap, Some(false) well behind a slat, None when near an edge, outside
/// the slatted span, or not inside the room.
fn sunlight_through_slats(p: Vec3, to_sun: Vec3) -> Option<bool> {
    const WALL_X: f32 = 4.1;
    const PERIOD: f32 = 0.6;
    const FIRST_SLAT_Y: f32 = -3.3;
    const MARGIN: f32 = 0.06;
    if !(0.0..WALL_X - 0.3).contains(&p.x) || !(0.3..2.8).contains(&p.z) || p.y.abs() > 3.5 {
        return None;
    }
    let t = (WALL_X - p.x) / to_sun.x;
    let hit = p + to_sun * t;
    if !(-3.3..=3.3).contains(&hit.y) || !(0.2..3.0).contains(&hit.z) {
        return None;
    }
    let phase = (hit.y - FIRST_SLAT_Y).rem_euclid(PERIOD); // 0 = slat centre
    let from_slat_centre = phase.min(PERIOD - phase);
    if from_slat_centre < 0.175 - MARGIN {
        Some(false)
    } else if from_slat_centre > 0.175 + MARGIN {
        Some(true)
    } else {
        None
    }
}
