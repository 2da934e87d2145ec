//! A per-object override changed while rendering, on lavapipe under validation: the system's
//! billboards cross-fade (no frame changes the coverage by more than the fade step) and come back
//! whole when the override hands the system back to the classifier.
//!
//! One still 1 m sprite of alpha 0.6 (a white square: a shaped texture, so the classifier alone
//! keeps it billboards). The scene sets it to always fog; `RenderVKParticleFogStrength` 0 makes
//! the converted density invisible, so what the frame covers is the billboards' share alone,
//! `0.6 (1 - w)` at the sprite's centre, and a pop would show as a jump of 0.6.

use std::path::Path;

use fog::classify::hysteresis::CROSSFADE_PER_S;
use fog::Override;
use glam::Vec3;
use pf_tests::frame::temp_dir;
use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::particles_gpu::ParticleBudget;
use render::scene::parse;
use render::world::World;

const ALPHA: f32 = 0.6;
/// Seconds per frame: ten frames per full cross-fade.
const DT_S: f32 = 0.1;

fn scene_text(dir: &Path) -> anyhow::Result<String> {
    image::RgbaImage::from_pixel(4, 4, image::Rgba([255; 4])).save(dir.join("white.png"))?;
    Ok(format!(
        "[camera]\nposition = [0.0, -10.0, 1.0]\ntarget = [0.0, 0.0, 1.0]\nfov_y_deg = 40\n\
         [sun]\nilluminance = 0.0\n[ambient]\nsky = [0.0, 0.0, 0.0]\nground = [0.0, 0.0, 0.0]\n\
         [textures]\nwhite = \"white.png\"\n\
         [[object]]\nshape = \"box\"\nsize = [40.0, 0.2, 40.0]\nposition = [0.0, 20.0, 1.0]\n\
         albedo = [0.0, 0.0, 0.0]\n\
         [[particles]]\nname = \"square\"\nposition = [0.0, 0.0, 1.0]\ntexture = \"white\"\noverride = \"fog\"\n\
         [particles.system]\nburst_rate = 100.0\nburst_part_count = 1\nburst_speed_min = 0.0\n\
         burst_speed_max = 0.0\npart_max_age = 30.0\npart_flags = [\"emissive\"]\n\
         start_color = [1.0, 1.0, 1.0]\nstart_alpha = {ALPHA}\nstart_scale = [1.0, 1.0]\n\
         blend_func_source = 7\nblend_func_dest = 9\n"
    ))
}

#[test]
fn an_override_change_cross_fades_and_the_billboards_return() {
    gpu_test(|gpu| {
        let dir = temp_dir("override-crossfade");
        let scene = parse(&scene_text(&dir)?, &dir.join("t.toml"))?;
        let settings = settings::Settings {
            particle_fog: true,
            particle_fog_strength: 0.0,
            ..settings::Settings::default()
        };
        let mut world = World::new(gpu, &scene)?;
        let (w, h) = (160u32, 90u32);
        let mut r = HostRenderer::new(gpu, w, h)?;
        r.budget_override = Some(ParticleBudget::Unlimited);
        r.frame_dt_s = DT_S;
        let view = render::view::CameraView::new(
            scene.camera.position,
            scene.camera.target,
            40.0,
            w as f32 / h as f32,
        );
        let (uv, _) = render::view::project(view.clip_from_world, Vec3::new(0.0, 0.0, 1.0));
        let centre = (uv.y * h as f32) as usize * w as usize + (uv.x * w as f32) as usize;
        let mut coverage = Vec::new();
        let mut frame = 0u32;
        let mut render_frames = |r: &mut HostRenderer, gpu: &mut render::vk::context::Gpu, n: u32| {
            let mut out = Vec::new();
            for _ in 0..n {
                r.render(gpu, &mut world, &scene, &settings, frame as f32 * DT_S)?;
                out.push(r.read_particle_coverage(gpu)?[centre]);
                frame += 1;
            }
            anyhow::Ok(out)
        };
        // The scene's always fog fades the billboards out over a second.
        coverage.extend(render_frames(&mut r, gpu, 14)?);
        let systems = &mut r.particles.as_mut().expect("particles").systems;
        assert_eq!(systems.override_of(0), Override::Fog);
        assert_eq!(systems.weights(), &[1.0], "converted");
        let faded_out = coverage.len();
        // Handed back to the classifier, which keeps the shaped sprite a billboard.
        assert!(systems.set_override(0, Override::Auto));
        coverage.extend(render_frames(&mut r, gpu, 14)?);
        let systems = &r.particles.as_ref().expect("particles").systems;
        assert_eq!(systems.weights(), &[0.0]);
        let step = ALPHA * DT_S * CROSSFADE_PER_S;
        let tol = 3e-3;
        assert!(coverage[0] > ALPHA - step - tol, "billboards at first: {coverage:?}");
        assert!(coverage[faded_out - 1] < tol, "no billboard once converted: {coverage:?}");
        for (i, pair) in coverage.windows(2).enumerate() {
            let change = (pair[1] - pair[0]).abs();
            assert!(
                change <= step + tol,
                "frame {}: coverage {} -> {} (step {step}): {coverage:?}",
                i + 1,
                pair[0],
                pair[1]
            );
        }
        let back = *coverage.last().expect("frames");
        assert!((back - ALPHA).abs() < tol, "the billboards return whole: {back} ({coverage:?})");
        Ok(())
    });
}
