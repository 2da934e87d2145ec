//! `particles.billboards` on lavapipe under validation, in small scenes written here: particles
//! that stand still (drop pattern, no speed, one burst) are drawn fullbright (`emissive`) over
//! emissive, non-reflecting walls, so every expected pixel follows from the numbers in the scene:
//! the billboard's on-screen extent from its corners as the viewer's `LLVOPartGroup::getGeometry`
//! places them (projected with the renderer's camera), blends from the GL factors, the froxel fog
//! from `exp(-sigma d)`.

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use pf_tests::frame::temp_dir;
use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::particles_gpu::ParticleBudget;
use render::scene::{parse, Scene};
use render::view::{project, CameraView};
use render::world::World;

/// Image size, pixels.
const SIZE: (u32, u32) = (160, 120);
/// A pixel counts as covered by a billboard above this radiance (backgrounds here are 0).
const COVERED: f32 = 0.25;
/// Slack on billboard edges, pixels (rasterisation rounds each edge to pixel centres).
const EDGE_PX: f32 = 1.5;
/// Slack on blended radiance (half-float HDR target: 3 decimal digits).
const RADIANCE_TOL: f32 = 0.01;

/// A rendered frame's linear HDR radiance and its camera.
struct Shot {
    hdr: Vec<[f32; 4]>,
    view: CameraView,
}

impl Shot {
    fn at_px(&self, x: usize, y: usize) -> [f32; 4] {
        self.hdr[y * SIZE.0 as usize + x]
    }

    /// The pixel showing world point `p`.
    fn at(&self, p: Vec3) -> [f32; 4] {
        let px = self.px_of(p);
        self.at_px(px.x as usize, px.y as usize)
    }

    /// Pixel coordinates (continuous) of world point `p`.
    fn px_of(&self, p: Vec3) -> Vec2 {
        let (uv, _) = project(self.view.clip_from_world, p);
        assert!(uv.min_element() > 0.0 && uv.max_element() < 1.0, "{p} is off screen");
        uv * Vec2::new(SIZE.0 as f32, SIZE.1 as f32)
    }

    /// Bounding box (min, max corner, pixels, max exclusive) of the pixels brighter than
    /// [`COVERED`] in the green channel.
    fn covered_box(&self) -> (Vec2, Vec2) {
        let (mut lo, mut hi) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        for y in 0..SIZE.1 as usize {
            for x in 0..SIZE.0 as usize {
                if self.at_px(x, y)[1] > COVERED {
                    lo = lo.min(Vec2::new(x as f32, y as f32));
                    hi = hi.max(Vec2::new(x as f32 + 1.0, y as f32 + 1.0));
                }
            }
        }
        (lo, hi)
    }
}

/// Renders `frames` frames of `toml` at 30 fps with the froxel fog on or off.
fn shoot(gpu: &mut render::Gpu, toml: &str, dir: &Path, fog: bool, frames: u32) -> anyhow::Result<Shot> {
    let scene: Scene = parse(toml, &dir.join("test.toml"))?;
    let settings = settings::Settings { volumetric_fog: fog, ..Default::default() };
    let mut world = World::new(gpu, &scene)?;
    let mut renderer = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
    // Every particle of these hand-built scenes must be drawn: no burst share.
    renderer.budget_override = Some(ParticleBudget::Unlimited);
    for f in 0..frames {
        renderer.render(gpu, &mut world, &scene, &settings, f as f32 / 30.0)?;
    }
    let c = &scene.camera;
    let view = CameraView::new(c.position, c.target, c.fov_y_deg, SIZE.0 as f32 / SIZE.1 as f32);
    Ok(Shot { hdr: renderer.read_hdr(gpu)?, view })
}

/// A dark scene (no sun, no ambient) with the camera at `eye` looking at `target`.
fn dark_scene(eye: Vec3, target: Vec3) -> String {
    format!(
        "[camera]\nposition = [{}, {}, {}]\ntarget = [{}, {}, {}]\nfov_y_deg = 60\n\
         [sun]\nilluminance = 0.0\n[ambient]\nsky = [0.0, 0.0, 0.0]\nground = [0.0, 0.0, 0.0]\n",
        eye.x, eye.y, eye.z, target.x, target.y, target.z
    )
}

/// An emissive, non-reflecting wall facing -Y: `size` m wide and high, its front face at `y`.
fn wall(y: f32, size: f32, emissive: [f32; 3]) -> String {
    format!(
        "[[object]]\nshape = \"box\"\nsize = [{size}, 0.2, {size}]\nposition = [0.0, {}, 1.0]\n\
         albedo = [0.0, 0.0, 0.0]\nemissive = [{}, {}, {}]\n",
        y + 0.1,
        emissive[0],
        emissive[1],
        emissive[2]
    )
}

/// A source of one still, fullbright particle of colour `rgb`, alpha `alpha`, size `scale` at
/// `pos`, blended with (`src`, `dst`); `flags` are added to `emissive`.
#[derive(Clone)]
struct Still {
    pos: Vec3,
    scale: [f32; 2],
    rgb: [f32; 3],
    alpha: f32,
    blend: (u8, u8),
    flags: &'static str,
    accel: [f32; 3],
}

impl Default for Still {
    fn default() -> Self {
        Still {
            pos: Vec3::new(0.0, 0.0, 1.0),
            scale: [1.0, 1.0],
            rgb: [1.0, 1.0, 1.0],
            alpha: 1.0,
            blend: (7, 9),
            flags: "",
            accel: [0.0; 3],
        }
    }
}

impl Still {
    fn toml(&self, name: &str) -> String {
        let p = self.pos;
        format!(
            "[[particles]]\nname = \"{name}\"\nposition = [{}, {}, {}]\ntexture = \"white\"\n\
             [particles.system]\nburst_rate = 100.0\nburst_part_count = 1\nburst_speed_min = 0.0\n\
             burst_speed_max = 0.0\npart_max_age = 30.0\npart_flags = [\"emissive\"{}]\n\
             start_color = [{}, {}, {}]\nstart_alpha = {}\nstart_scale = [{}, {}]\n\
             blend_func_source = {}\nblend_func_dest = {}\npart_accel = [{}, {}, {}]\n",
            p.x,
            p.y,
            p.z,
            self.flags,
            self.rgb[0],
            self.rgb[1],
            self.rgb[2],
            self.alpha,
            self.scale[0],
            self.scale[1],
            self.blend.0,
            self.blend.1,
            self.accel[0],
            self.accel[1],
            self.accel[2]
        )
    }
}

/// Writes an opaque white texture and returns the `[textures]` section naming it.
fn white_texture(dir: &Path) -> anyhow::Result<String> {
    image::RgbaImage::from_pixel(4, 4, image::Rgba([255; 4])).save(dir.join("white.png"))?;
    Ok("[textures]\nwhite = \"white.png\"\n".to_owned())
}

/// Camera 10 m in front of the origin plane (y = 0), looking along +Y at height 1 m.
const EYE: Vec3 = Vec3::new(0.0, -10.0, 1.0);
const LOOK: Vec3 = Vec3::new(0.0, 0.0, 1.0);

fn scene_with(dir: &Path, parts: &[Still], walls: &str) -> anyhow::Result<String> {
    let mut toml = dark_scene(EYE, LOOK);
    toml += walls;
    for (i, p) in parts.iter().enumerate() {
        toml += &p.toml(&format!("p{i}"));
    }
    toml += &white_texture(dir)?;
    Ok(toml)
}

/// Screen bounding box of the quad spanned by `right` and `up` half-extents around `c`.
fn expected_box(shot: &Shot, c: Vec3, right: Vec3, up: Vec3) -> (Vec2, Vec2) {
    let corners = [c + right + up, c + right - up, c - right + up, c - right - up].map(|p| shot.px_of(p));
    let lo = corners.iter().fold(Vec2::splat(f32::MAX), |a, &b| a.min(b));
    let hi = corners.iter().fold(Vec2::splat(f32::MIN), |a, &b| a.max(b));
    (lo, hi)
}

fn assert_box_near(got: (Vec2, Vec2), want: (Vec2, Vec2), what: &str) {
    let close =
        (got.0 - want.0).abs().max_element() <= EDGE_PX && (got.1 - want.1).abs().max_element() <= EDGE_PX;
    assert!(close, "{what}: covered box {got:?}, expected {want:?}");
}

#[test]
fn billboard_faces_the_camera_point_with_its_size() {
    // 27 degrees off axis, 4 m wide and 1 m high: facing the camera point, the quad's right axis
    // is normalize(at x Z), so its ends project 46.8 px apart; facing the view plane they would be
    // 41.6 px apart (checked below, so the test tells the two apart).
    let pos = Vec3::new(5.0, 0.0, 1.0);
    let (sx, sy) = (4.0, 1.0);
    let dir = temp_dir("bb-size");
    gpu_test(|gpu| {
        let toml = scene_with(&dir, &[Still { pos, scale: [sx, sy], ..Still::default() }], "")?;
        let shot = shoot(gpu, &toml, &dir, false, 1)?;
        let at = pos - EYE;
        let right = at.cross(Vec3::Z).normalize();
        let up = right.cross(at).normalize();
        let want = expected_box(&shot, pos, right * sx / 2.0, up * sy / 2.0);
        let got = shot.covered_box();
        assert_box_near(got, want, "camera-point facing");
        let plane = expected_box(&shot, pos, Vec3::X * sx / 2.0, Vec3::Z * sy / 2.0);
        let width_diff = ((plane.1.x - plane.0.x) - (want.1.x - want.0.x)).abs();
        assert!(width_diff > 3.0 * EDGE_PX, "the check must tell point from plane facing: {width_diff}");
        assert!(
            (shot.at(pos)[1] - 1.0).abs() < RADIANCE_TOL,
            "white, opaque, fullbright: {:?}",
            shot.at(pos)
        );
        Ok(())
    });
}

#[test]
fn follow_velocity_lays_the_y_extent_along_the_screen_motion() {
    // Accelerated along +X (on screen: to the right), 0.5 m wide and 3 m high: with
    // FOLLOW_VELOCITY the 3 m extent lies horizontally. Without the flag it stands upright.
    let dir = temp_dir("bb-follow");
    gpu_test(|gpu| {
        for (flags, wide) in [(", \"follow_velocity\"", true), ("", false)] {
            let still = Still { scale: [0.5, 3.0], flags, accel: [30.0, 0.0, 0.0], ..Still::default() };
            let toml = scene_with(&dir, &[still], "")?;
            let shot = shoot(gpu, &toml, &dir, false, 1)?;
            // After one 1/30 s step the particle has moved a*dt^2 = 0.033 m along +X.
            let c = Vec3::new(30.0 / 900.0, 0.0, 1.0);
            let (long, short) = (Vec3::X * 1.5, Vec3::Z * 0.25);
            let want = if wide {
                expected_box(&shot, c, long, short)
            } else {
                expected_box(&shot, c, Vec3::X * 0.25, Vec3::Z * 1.5)
            };
            assert_box_near(shot.covered_box(), want, if wide { "follow_velocity" } else { "plain" });
        }
        Ok(())
    });
}

/// Background radiance of the emissive wall behind the particles.
const BG: [f32; 3] = [0.2, 0.4, 0.6];

#[test]
fn normal_alpha_additive_and_multiplicative_blends_follow_the_gl_factors() {
    // One half-transparent orange particle 5 m in front of the wall (far beyond the soft fade).
    let dir = temp_dir("bb-blend");
    let (rgb, a) = ([1.0, 0.5, 0.25], 0.5);
    gpu_test(|gpu| {
        for blend in [(7u8, 9u8), (7, 0), (2, 1)] {
            let still = Still { rgb, alpha: a, blend, ..Still::default() };
            let toml = scene_with(&dir, &[still], &wall(5.0, 20.0, BG))?;
            let shot = shoot(gpu, &toml, &dir, false, 1)?;
            let px = shot.at(LOOK);
            for ch in 0..3 {
                let want = match blend {
                    // SRC_ALPHA, ONE_MINUS_SRC_ALPHA.
                    (7, 9) => rgb[ch] * a + BG[ch] * (1.0 - a),
                    // SRC_ALPHA, ONE.
                    (7, 0) => rgb[ch] * a + BG[ch],
                    // DEST_COLOR, ZERO: the wall tinted by the particle, alpha unused.
                    _ => rgb[ch] * BG[ch],
                };
                assert!((px[ch] - want).abs() < RADIANCE_TOL, "{blend:?} channel {ch}: {} vs {want}", px[ch]);
            }
            let beside = shot.at(Vec3::new(3.0, 0.0, 1.0));
            assert!((beside[2] - BG[2]).abs() < RADIANCE_TOL, "the wall beside it is untouched: {beside:?}");
        }
        Ok(())
    });
}

#[test]
fn depth_is_tested_but_not_written() {
    let dir = temp_dir("bb-depth");
    gpu_test(|gpu| {
        // A white particle 2 m behind a wall: the wall's own radiance, exactly.
        let behind = Still { pos: Vec3::new(0.0, 7.0, 1.0), ..Still::default() };
        let toml = scene_with(&dir, &[behind], &wall(5.0, 20.0, BG))?;
        let shot = shoot(gpu, &toml, &dir, false, 1)?;
        let px = shot.at(LOOK);
        assert!((px[1] - BG[1]).abs() < RADIANCE_TOL, "hidden behind the wall: {px:?}");
        // Two additive particles, the nearer emitted first: both show where they overlap, which a
        // depth write of the nearer one would prevent for the farther.
        let red = Still { rgb: [1.0, 0.0, 0.0], blend: (7, 0), ..Still::default() };
        let green =
            Still { pos: Vec3::new(0.0, 2.0, 1.0), rgb: [0.0, 1.0, 0.0], blend: (7, 0), ..Still::default() };
        let toml = scene_with(&dir, &[red, green], "")?;
        let shot = shoot(gpu, &toml, &dir, false, 1)?;
        let px = shot.at(LOOK);
        assert!((px[0] - 1.0).abs() < RADIANCE_TOL && (px[1] - 1.0).abs() < RADIANCE_TOL, "both add: {px:?}");
        Ok(())
    });
}

#[test]
fn soft_particles_fade_near_geometry() {
    // A white opaque particle 0.25 m in front of the wall: alpha x (0.25 / SOFT_FADE_M) = 0.5 at
    // its centre (its plane faces the camera there, so its depth is the centre's depth).
    let dir = temp_dir("bb-soft");
    let gap = 0.25;
    gpu_test(|gpu| {
        let still = Still { pos: Vec3::new(0.0, 5.0 - gap, 1.0), ..Still::default() };
        let toml = scene_with(&dir, &[still], &wall(5.0, 20.0, BG))?;
        let shot = shoot(gpu, &toml, &dir, false, 1)?;
        let fade = gap / render::passes::billboards::SOFT_FADE_M;
        let px = shot.at(Vec3::new(0.0, 5.0 - gap, 1.0));
        for ch in 0..3 {
            let want = fade + BG[ch] * (1.0 - fade);
            assert!((px[ch] - want).abs() < 2.0 * RADIANCE_TOL, "channel {ch}: {} vs {want}", px[ch]);
        }
        Ok(())
    });
}

#[test]
fn froxel_fog_attenuates_a_distant_billboard_like_exp_minus_sigma_d() {
    // Absorbing fog (albedo 0, sigma 0.05 /m, no falloff) and black surroundings: an opaque white
    // fullbright billboard d metres away shows exp(-sigma d) (the fog test's 1 % tolerance).
    let dir = temp_dir("bb-fog");
    let sigma = 0.05;
    gpu_test(|gpu| {
        for d in [8.0f32, 30.0] {
            let pos = EYE + Vec3::Y * d;
            let still = Still { pos, scale: [2.0, 2.0], ..Still::default() };
            let mut toml = dark_scene(EYE, pos);
            toml += &format!("[height_fog]\ndensity = {sigma}\nfalloff = 0.0\nalbedo = [0.0, 0.0, 0.0]\n");
            toml += &still.toml("far");
            toml += &white_texture(&dir)?;
            let shot = shoot(gpu, &toml, &dir, true, 1)?;
            let t = shot.at(pos)[1];
            let want = (-sigma * d).exp();
            assert!((t - want).abs() <= 0.01 * want + 0.002, "d {d}: {t} vs exp(-sigma d) {want}");
        }
        Ok(())
    });
}

#[test]
fn showcase_scenes_render_their_particles_under_validation() {
    // Each showcase scene (the 1,000,000-particle stress scene aside): a full frame with fog, then
    // 15 particles-only frames (half a second) in which particles are alive and something shows on
    // the black background. Validation errors fail the test (gpu_test).
    let scenes = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes");
    let (w, h) = (96, 64);
    gpu_test(|gpu| {
        for name in ["campfire", "dust_sunbeams", "fog_machine", "waterfall"] {
            let scene = render::scene::load(&scenes.join(format!("{name}.toml")))?;
            let settings = settings::Settings::default();
            let mut world = World::new(gpu, &scene)?;
            let mut renderer = HostRenderer::new(gpu, w, h)?;
            renderer.render(gpu, &mut world, &scene, &settings, 0.0)?;
            renderer.particles_only = true;
            for f in 1..=15 {
                renderer.render(gpu, &mut world, &scene, &settings, f as f32 / 30.0)?;
            }
            let live = match renderer.particles.as_ref() {
                Some(p) => p.pool.read_live_count(gpu)?,
                None => 0,
            };
            assert!(live > 0, "{name}: no live particles");
            let lit = renderer.read_hdr(gpu)?.iter().filter(|p| p[0] + p[1] + p[2] > 0.0).count();
            assert!(lit > 0, "{name}: particles-only frame is black");
        }
        Ok(())
    });
}

#[test]
fn overlapping_normal_alpha_particles_blend_back_to_front_in_either_emission_order() {
    // Red (alpha 0.5) 2 m nearer than green (alpha 0.5), over black: back to front gives
    // red = 0.5, green = 0.5 x 0.5 = 0.25 whichever source emits first; front to back would give
    // red 0.25, green 0.5.
    let dir = temp_dir("bb-sort");
    let near = Still { rgb: [1.0, 0.0, 0.0], alpha: 0.5, ..Still::default() };
    let far = Still { pos: Vec3::new(0.0, 2.0, 1.0), rgb: [0.0, 1.0, 0.0], alpha: 0.5, ..Still::default() };
    gpu_test(|gpu| {
        for parts in [[near.clone(), far.clone()], [far.clone(), near.clone()]] {
            let toml = scene_with(&dir, &parts, "")?;
            let shot = shoot(gpu, &toml, &dir, false, 1)?;
            let px = shot.at(LOOK);
            assert!((px[0] - 0.5).abs() < RADIANCE_TOL, "front red over the back green: {px:?}");
            assert!((px[1] - 0.25).abs() < RADIANCE_TOL, "back green behind half-transparent red: {px:?}");
        }
        Ok(())
    });
}

#[test]
fn particles_of_different_blend_pairs_interleave_far_to_near() {
    // Far opaque red (normal alpha), an additive green 2 m nearer, a half-transparent blue in
    // front (normal alpha): drawn far to near as the viewer does, red + green = (1, 1, 0), then
    // half blue over it: (0.5, 0.5, 0.5). Drawing each pair on its own (normal alpha first,
    // additive last) would give green 1.0 on top instead.
    let dir = temp_dir("bb-pairs");
    let red = Still { pos: Vec3::new(0.0, 4.0, 1.0), rgb: [1.0, 0.0, 0.0], ..Still::default() };
    let green =
        Still { pos: Vec3::new(0.0, 2.0, 1.0), rgb: [0.0, 1.0, 0.0], blend: (7, 0), ..Still::default() };
    let blue = Still { rgb: [0.0, 0.0, 1.0], alpha: 0.5, ..Still::default() };
    gpu_test(|gpu| {
        for parts in [[red.clone(), green.clone(), blue.clone()], [blue.clone(), red.clone(), green.clone()]]
        {
            let toml = scene_with(&dir, &parts, "")?;
            let px = shoot(gpu, &toml, &dir, false, 1)?.at(LOOK);
            for (c, name) in ["red", "green", "blue"].iter().enumerate() {
                assert!((px[c] - 0.5).abs() < RADIANCE_TOL, "{name} {px:?}");
            }
        }
        Ok(())
    });
}

#[test]
fn hud_particles_are_drawn_over_the_finished_frame_in_hud_space_only() {
    // A white 0.2 m HUD particle at HUD (0, 0.3, 0.2): the HUD spans z in [-0.5, 0.5] (height)
    // and y in [-aspect/2, aspect/2] with +y to the left, so its centre lands at
    // u = 0.5 - 0.3 / aspect, v = 0.5 - 0.2, and it covers about 0.1 of the height each way.
    let dir = temp_dir("bb-hud");
    let part = Still { pos: Vec3::new(0.0, 0.3, 0.2), scale: [0.2, 0.2], ..Still::default() };
    gpu_test(|gpu| {
        let toml = scene_with(&dir, std::slice::from_ref(&part), "")?
            .replace("[particles.system]", "hud = true\n[particles.system]");
        let scene: Scene = parse(&toml, &dir.join("test.toml"))?;
        let mut world = World::new(gpu, &scene)?;
        let mut renderer = HostRenderer::new(gpu, SIZE.0, SIZE.1)?;
        renderer.budget_override = Some(ParticleBudget::Unlimited);
        renderer.render(gpu, &mut world, &scene, &settings::Settings::default(), 0.0)?;
        let ldr = renderer.read_ldr(gpu)?;
        let hdr = renderer.read_hdr(gpu)?;
        let (w, h) = (SIZE.0 as f32, SIZE.1 as f32);
        let centre = ((0.5 - 0.3 / (w / h)) * w, 0.3 * h);
        let at = |dx: f32, dy: f32| {
            let (x, y) = ((centre.0 + dx) as usize, (centre.1 + dy) as usize);
            (ldr[4 * (y * SIZE.0 as usize + x)], hdr[y * SIZE.0 as usize + x][0])
        };
        assert_eq!(at(0.0, 0.0), (255, 0.0), "white on the finished frame, nothing in the world");
        let reach = 0.1 * h;
        for (dx, dy) in [(reach - 3.0, 0.0), (0.0, reach - 3.0), (3.0 - reach, 0.0)] {
            assert_eq!(at(dx, dy).0, 255, "inside the HUD quad at ({dx}, {dy})");
        }
        for (dx, dy) in [(reach + 3.0, 0.0), (0.0, reach + 3.0), (0.0, -reach - 3.0)] {
            assert_eq!(at(dx, dy).0, 0, "outside the HUD quad at ({dx}, {dy})");
        }
        Ok(())
    });
}

#[test]
fn vertex_colours_are_rounded_to_eight_bits_as_the_viewer_stores_them() {
    // An opaque fullbright particle of colour 0.3 over black: the viewer's LLColor4U vertex colour
    // is round(0.3 x 255) = 77, so the pixel shows 77/255 = 0.30196, eight half-float steps
    // from 0.3.
    let dir = temp_dir("bb-8bit");
    let part = Still { rgb: [0.3, 0.3, 0.3], ..Still::default() };
    gpu_test(|gpu| {
        let toml = scene_with(&dir, std::slice::from_ref(&part), "")?;
        let px = shoot(gpu, &toml, &dir, false, 1)?.at(LOOK);
        let expected = 77.0 / 255.0;
        assert!((px[0] - expected).abs() < 3e-4, "{px:?} vs {expected}");
        Ok(())
    });
}

#[test]
fn render_particles_only_draws_the_particles_on_black() {
    // `particle-fog render --particles-only` (the CLI's job): the campfire scene's sky is not black
    // in a full render, so black pixels can only come from the particles-only background; the
    // particles themselves still show. `--warmup` simulates the systems into flow before the frame
    // is drawn: more of the frame is covered than on the first frame. The runs fail on any
    // validation error.
    let scenes = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join("scenes");
    let device = std::env::var("PF_TEST_DEVICE")
        .ok()
        .and_then(|s| s.parse::<render::DeviceSelector>().ok())
        .unwrap_or_default();
    let desc = render::GpuDesc { validation: true, device, ..render::GpuDesc::default() };
    let count_black =
        |particles_only: bool, [warmup, frames]: [u32; 2], name: &str| -> anyhow::Result<(usize, usize)> {
            let out = temp_dir(name);
            let job = render::cli::render::RenderJob {
                scene: scenes.join("campfire.toml"),
                width: 64,
                height: 48,
                frames,
                warmup,
                fps: 30.0,
                out: out.clone(),
                last_only: true,
                particles_only,
                export_density: None,
                export_mitsuba: None,
                settings_file: None,
                overrides: Vec::new(),
            };
            render::cli::render::run(&job, &desc)?;
            let img = image::open(out.join("campfire.png"))?.to_rgba8();
            let black = img.pixels().filter(|p| p.0[..3] == [0, 0, 0]).count();
            Ok((black, img.pixels().count()))
        };
    let (full_black, _) = count_black(false, [0, 10], "bb-cli-full").expect("full render");
    let (black, total) = count_black(true, [0, 10], "bb-cli-particles").expect("particles-only render");
    assert_eq!(full_black, 0, "the full render has a lit sky everywhere");
    assert!(black > total / 2, "mostly black background: {black} of {total}");
    assert!(black < total, "the fire's particles show");
    let (first, _) = count_black(true, [0, 1], "bb-cli-first").expect("first frame");
    let (warm, _) = count_black(true, [60, 1], "bb-cli-warm").expect("warmed-up frame");
    assert!(warm < first, "two simulated seconds cover more than the first frame: {warm} vs {first} black");
}

#[test]
fn lit_billboards_take_the_ambient_light_and_emissive_ones_do_not() {
    // No sun, no local lights, sky 0.6 and ground 0.2: a non-emissive white particle's normal
    // faces the camera (horizontal here), so it gets the hemispheric ambient halfway between
    // sky and ground, 0.4; the emissive one shows its own colour, 1.
    let dir = temp_dir("bb-lit");
    gpu_test(|gpu| {
        let lit = Still { pos: Vec3::new(-1.0, 0.0, 1.0), ..Still::default() };
        let mut toml = dark_scene(EYE, LOOK).replace(
            "sky = [0.0, 0.0, 0.0]\nground = [0.0, 0.0, 0.0]",
            "sky = [0.6, 0.6, 0.6]\nground = [0.2, 0.2, 0.2]",
        );
        toml += &lit.toml("lit").replace("part_flags = [\"emissive\"]", "part_flags = []");
        toml += &Still { pos: Vec3::new(1.0, 0.0, 1.0), ..Still::default() }.toml("glowing");
        toml += &white_texture(&dir)?;
        let shot = shoot(gpu, &toml, &dir, false, 1)?;
        let lit_px = shot.at(Vec3::new(-1.0, 0.0, 1.0));
        let glowing_px = shot.at(Vec3::new(1.0, 0.0, 1.0));
        assert!((lit_px[1] - 0.4).abs() < RADIANCE_TOL, "ambient-lit: {lit_px:?}");
        assert!((glowing_px[1] - 1.0).abs() < RADIANCE_TOL, "fullbright: {glowing_px:?}");
        Ok(())
    });
}

#[test]
fn a_minified_particle_texture_reads_its_mips_not_scattered_texels() {
    // A 1 m particle 10 m away is about 10 pixels wide here, so each pixel covers some 13 x 13
    // texels of its 128 x 128 texture: a one-texel black and white checkerboard. Read at the base
    // level, a pixel shows whichever texels its centre lands between (anything from black to
    // white, and a different mix as the particle moves: the shimmer of distant sparks); read
    // through the mip chain, as the viewer's mipmapped textures are, every pixel shows the
    // checkerboard's mean, half white in linear light.
    let dir = temp_dir("bb-mips");
    let checker = image::RgbaImage::from_fn(128, 128, |x, y| {
        let v = if (x + y) % 2 == 0 { 255 } else { 0 };
        image::Rgba([v, v, v, 255])
    });
    checker.save(dir.join("checker.png")).expect("writing the checkerboard");
    let part = Still::default();
    let toml = dark_scene(EYE, LOOK)
        + &part.toml("p0").replace("texture = \"white\"", "texture = \"checker\"")
        + "[textures]\nchecker = \"checker.png\"\n";
    gpu_test(|gpu| {
        let shot = shoot(gpu, &toml, &dir, false, 1)?;
        // Pixels whose centres lie in the middle half of the quad (clear of its edges).
        let (lo, hi) = expected_box(&shot, part.pos, Vec3::X * 0.25, Vec3::Z * 0.25);
        let mut values = Vec::new();
        for y in lo.y.ceil() as usize..hi.y.floor() as usize {
            for x in lo.x.ceil() as usize..hi.x.floor() as usize {
                values.push(shot.at_px(x, y)[0]);
            }
        }
        assert!(values.len() >= 9, "{} pixels inside the particle", values.len());
        let (min, max) = values.iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
        assert!(
            (min - 0.5).abs() < 0.02 && (max - 0.5).abs() < 0.02,
            "pixels {min:.3}..{max:.3}, expected the checkerboard's mean 0.5 in each: {values:?}"
        );
        Ok(())
    });
}
