//! The particle fog's drawn debug views (`RenderVKParticleFogDebug` 1-3) on lavapipe under
//! validation, in a scene of two steam columns 4 m apart (the fog machine's steam vent, which
//! converts): view 1 gives each converted system its own hue, view 2 draws the bricks' edges where
//! the bricks are and nowhere behind a nearer wall, view 3 does both.

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::scene::{parse, Scene};
use render::view::{project, CameraView};
use render::world::World;
use settings::{FogDebugMode, Settings};

const SIZE: (u32, u32) = (160, 90);
const FPS: f32 = 30.0;
const WARMUP: u32 = 60;
/// The columns' emitters (x, y, z), m.
const LEFT: Vec3 = Vec3::new(-2.0, 0.0, 0.3);
const RIGHT: Vec3 = Vec3::new(2.0, 0.0, 0.3);
/// The wall that hides the left column in the bounds test: centre and size, m.
const WALL_AT: Vec3 = Vec3::new(-2.0, -3.0, 1.6);
const WALL_SIZE: Vec3 = Vec3::new(3.0, 0.2, 3.6);

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes")
}

/// Two steam columns in daylight, seen from 8 m; with `wall`, a wall hides the left one.
fn two_columns(wall: bool) -> anyhow::Result<Scene> {
    let column = |name: &str, p: Vec3| {
        format!(
            "[[particles]]\nname = \"{name}\"\nposition = [{}, {}, {}]\ntexture = \"soft\"\n\
             [particles.system]\npattern = \"angle_cone\"\nouter_angle = 0.2\nburst_rate = 0.1\n\
             burst_part_count = 3\nburst_speed_min = 0.3\nburst_speed_max = 0.45\n\
             part_accel = [0.0, 0.0, 0.1]\npart_flags = [\"interp_color\", \"interp_scale\"]\n\
             part_max_age = 5.0\nstart_alpha = 0.25\nend_alpha = 0.0\nstart_scale = [0.5, 0.5]\n\
             end_scale = [2.0, 2.0]\n",
            p.x, p.y, p.z
        )
    };
    let mut toml = "[camera]\nposition = [0.0, -8.0, 1.5]\ntarget = [0.0, 0.0, 1.5]\nfov_y_deg = 50\n\
        [sun]\ndirection = [0.3, -0.5, 0.8]\nilluminance = 3.0\ncolor = [1.0, 1.0, 1.0]\n\
        [ambient]\nsky = [0.3, 0.3, 0.3]\nground = [0.1, 0.1, 0.1]\n\
        [textures]\nsoft = \"textures/soft.png\"\n[settings]\nRenderVKParticleFog = true\n"
        .to_owned();
    if wall {
        toml += &format!(
            "[[object]]\nshape = \"box\"\nsize = [{}, {}, {}]\nposition = [{}, {}, {}]\n\
             albedo = [0.02, 0.02, 0.02]\n",
            WALL_SIZE.x, WALL_SIZE.y, WALL_SIZE.z, WALL_AT.x, WALL_AT.y, WALL_AT.z
        );
    }
    toml += &column("left", LEFT);
    toml += &column("right", RIGHT);
    Ok(parse(&toml, &scenes_dir().join("two_columns.toml"))?)
}

/// The HDR frame after the warm-up and two frames with debug view `debug`.
fn shoot(
    gpu: &mut render::Gpu,
    scene: &Scene,
    debug: FogDebugMode,
    particles_only: bool,
) -> anyhow::Result<Vec<[f32; 4]>> {
    let mut settings = Settings::default();
    let overrides: Vec<String> = scene.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    settings::cli::apply_overrides(&mut settings, &overrides)?;
    settings.particle_fog_debug = debug;
    let mut world = World::new(gpu, scene)?;
    let mut r = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
    r.particles_only = particles_only;
    for f in 0..WARMUP {
        r.simulate(gpu, scene, &settings, f as f32 / FPS)?;
    }
    for f in 0..2 {
        r.render(gpu, &mut world, scene, &settings, (WARMUP + f) as f32 / FPS)?;
    }
    anyhow::ensure!(r.fog_stats(gpu).is_some_and(|s| s.systems_converted == 2), "both columns convert");
    Ok(r.read_hdr(gpu)?)
}

fn view(scene: &Scene) -> CameraView {
    let c = &scene.camera;
    CameraView::new(c.position, c.target, c.fov_y_deg, SIZE.0 as f32 / SIZE.1 as f32)
}

fn pixel_of(view: &CameraView, p: Vec3) -> Vec2 {
    project(view.clip_from_world, p).0 * Vec2::new(SIZE.0 as f32, SIZE.1 as f32)
}

/// Summed RGB over the 11 x 11 pixels around `at`.
fn window_rgb(hdr: &[[f32; 4]], at: Vec2) -> Vec3 {
    let mut sum = Vec3::ZERO;
    for dy in -5..=5 {
        for dx in -5..=5 {
            let x = (at.x as i32 + dx).clamp(0, SIZE.0 as i32 - 1) as usize;
            let y = (at.y as i32 + dy).clamp(0, SIZE.1 as i32 - 1) as usize;
            let p = hdr[y * SIZE.0 as usize + x];
            sum += Vec3::new(p[0], p[1], p[2]);
        }
    }
    sum
}

/// rgb / (r + g + b).
fn chroma(rgb: Vec3) -> Vec3 {
    rgb / rgb.element_sum().max(1e-12)
}

#[test]
fn the_tint_view_gives_each_converted_system_its_own_hue() {
    gpu_test(|gpu| {
        let scene = two_columns(false)?;
        let v = view(&scene);
        // 1 m above the emitters: inside both columns.
        let (left, right) = (pixel_of(&v, LEFT + Vec3::Z), pixel_of(&v, RIGHT + Vec3::Z));
        // (View 3 draws edges over the same tint: the bounds test compares it with view 1.)
        for debug in [FogDebugMode::Off, FogDebugMode::Tint] {
            let hdr = shoot(gpu, &scene, debug, true)?;
            let (l, r) = (window_rgb(&hdr, left), window_rgb(&hdr, right));
            assert!(l.element_sum() > 1e-3 && r.element_sum() > 1e-3, "{debug:?}: fog seen ({l}, {r})");
            let apart = (chroma(l) - chroma(r)).abs().element_sum();
            if debug.tints() {
                assert!(apart > 0.2, "{debug:?}: hues {} and {} alike", chroma(l), chroma(r));
            } else {
                assert!(
                    apart < 0.05,
                    "{debug:?}: the same steam looks alike ({} vs {})",
                    chroma(l),
                    chroma(r)
                );
            }
        }
        Ok(())
    });
}

#[test]
fn the_bounds_view_draws_brick_edges_where_bricks_are_and_not_behind_a_nearer_wall() {
    gpu_test(|gpu| {
        let scene = two_columns(true)?;
        let v = view(&scene);
        let plain = shoot(gpu, &scene, FogDebugMode::Off, false)?;
        let tinted = shoot(gpu, &scene, FogDebugMode::Tint, false)?;
        for debug in [FogDebugMode::Bounds, FogDebugMode::TintAndBounds] {
            // Bounds alone are compared with no debug view, both with the tint alone: what
            // changes is the edges.
            let base = if debug.tints() { &tinted } else { &plain };
            let drawn = shoot(gpu, &scene, debug, false)?;
            // The wall's front face on screen, shrunk by 2 pixels for rasterisation.
            let half = WALL_SIZE * 0.5;
            let front = WALL_AT.y - half.y;
            let corners = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)].map(|(sx, sz)| {
                pixel_of(&v, Vec3::new(WALL_AT.x + sx * half.x, front, WALL_AT.z + sz * half.z))
            });
            let lo = corners.iter().fold(Vec2::splat(f32::MAX), |a, &b| a.min(b)) + 2.0;
            let hi = corners.iter().fold(Vec2::splat(f32::MIN), |a, &b| a.max(b)) - 2.0;
            let (mut on_wall, mut elsewhere, mut near_right) = (0, 0, 0);
            for (i, (a, b)) in base.iter().zip(&drawn).enumerate() {
                let changed = (0..3).any(|c| (a[c] - b[c]).abs() > 1e-3);
                if !changed {
                    continue;
                }
                let p = Vec2::new((i % SIZE.0 as usize) as f32 + 0.5, (i / SIZE.0 as usize) as f32 + 0.5);
                if p.cmpge(lo).all() && p.cmple(hi).all() {
                    on_wall += 1;
                } else {
                    elsewhere += 1;
                    if p.x > SIZE.0 as f32 * 0.5 {
                        near_right += 1;
                    }
                }
            }
            assert_eq!(on_wall, 0, "{debug:?}: edges drawn through the wall");
            assert!(near_right > 40, "{debug:?}: edges around the right column ({near_right} px)");
            assert!(
                elsewhere < (SIZE.0 * SIZE.1) as usize / 3,
                "{debug:?}: edges only ({elsewhere} px changed)"
            );
        }
        Ok(())
    });
}
