//! The particle glow and the particle textures' addressing (as the viewer's `llvopartgroup.cpp` and
//! `lldrawpoolalpha.cpp` have them) on lavapipe under validation, in small scenes written here:
//! still, fullbright (`emissive`) particles over black, so every expected value follows from the
//! numbers in the scene: the glow mask from texture alpha x the glow byte (`round(255 g) / 255`, as
//! `LLViewerPartGroup::updateParticles` stores it) and the viewer's framebuffer-alpha blend (ZERO,
//! ONE_MINUS_SRC_ALPHA), the bloom from "light where there was none".

use std::path::Path;

use glam::{Vec2, Vec3};
use pf_tests::frame::temp_dir;
use pf_tests::gpu_test;
use render::frame::HostRenderer;
use render::particle_textures::{ParticleTextures, PARTICLE_TEXTURE_SIZE};
use render::particles_gpu::ParticleBudget;
use render::passes::glow::{GlowPass, GLOW_STRENGTH};
use render::passes::tonemap::{Bloom, TonemapPass};
use render::scene::{parse, Scene};
use render::view::{project, CameraView};
use render::vk::conv::f16_to_f32;
use render::vk::graphics::Attachment;
use render::vk::sampler::Samplers;
use render::world::World;

/// Image size, pixels.
const SIZE: (u32, u32) = (160, 120);
/// Slack on the glow mask: half-float storage and 8-bit texture alpha.
const MASK_TOL: f32 = 2e-3;
/// Camera 10 m in front of the origin plane (y = 0), looking along +Y at height 1 m.
const EYE: Vec3 = Vec3::new(0.0, -10.0, 1.0);
const LOOK: Vec3 = Vec3::new(0.0, 0.0, 1.0);
/// Texture alpha of `translucent.png`, in bytes.
const TRANSLUCENT_ALPHA: u8 = 153;

/// One still, fullbright particle: its place, size, texture, alpha, glow and blend pair.
#[derive(Clone)]
struct Sprite {
    pos: Vec3,
    scale: f32,
    texture: &'static str,
    alpha: f32,
    glow: f32,
    blend: (u8, u8),
}

impl Default for Sprite {
    fn default() -> Self {
        Sprite { pos: LOOK, scale: 1.0, texture: "white", alpha: 1.0, glow: 0.0, blend: (7, 9) }
    }
}

impl Sprite {
    fn toml(&self, name: &str) -> String {
        let p = self.pos;
        format!(
            "[[particles]]\nname = \"{name}\"\nposition = [{}, {}, {}]\ntexture = \"{}\"\n\
             [particles.system]\nburst_rate = 100.0\nburst_part_count = 1\nburst_speed_min = 0.0\n\
             burst_speed_max = 0.0\npart_max_age = 30.0\npart_flags = [\"emissive\"]\n\
             start_color = [1.0, 1.0, 1.0]\nstart_alpha = {}\nstart_scale = [{s}, {s}]\n\
             start_glow = {g}\nend_glow = {g}\nblend_func_source = {}\nblend_func_dest = {}\n",
            p.x,
            p.y,
            p.z,
            self.texture,
            self.alpha,
            self.blend.0,
            self.blend.1,
            s = self.scale,
            g = self.glow,
        )
    }
}

/// A 128 x 128 texture, white, with alpha `alpha(x)` in column x.
fn texture(alpha: impl Fn(u32) -> u8) -> image::RgbaImage {
    let n = PARTICLE_TEXTURE_SIZE;
    image::RgbaImage::from_fn(n, n, |x, _| image::Rgba([255, 255, 255, alpha(x)]))
}

/// The left half opaque, the right half transparent.
fn half_opaque() -> image::RgbaImage {
    texture(|x| if x < PARTICLE_TEXTURE_SIZE / 2 { 255 } else { 0 })
}

/// Writes the test textures and returns the `[textures]` section naming them.
fn textures(dir: &Path) -> anyhow::Result<String> {
    texture(|_| 255).save(dir.join("white.png"))?;
    texture(|_| TRANSLUCENT_ALPHA).save(dir.join("translucent.png"))?;
    half_opaque().save(dir.join("edge.png"))?;
    Ok("[textures]\nwhite = \"white.png\"\ntranslucent = \"translucent.png\"\nedge = \"edge.png\"\n"
        .to_owned())
}

/// A dark scene (no sun, no ambient, black sky) seen from [`EYE`], with `sprites` and `extra`.
fn scene_toml(dir: &Path, sprites: &[Sprite], extra: &str) -> anyhow::Result<String> {
    let mut toml = format!(
        "[camera]\nposition = [{}, {}, {}]\ntarget = [{}, {}, {}]\nfov_y_deg = 60\n\
         [sun]\nilluminance = 0.0\n[ambient]\nsky = [0.0, 0.0, 0.0]\nground = [0.0, 0.0, 0.0]\n",
        EYE.x, EYE.y, EYE.z, LOOK.x, LOOK.y, LOOK.z
    );
    toml += extra;
    for (i, s) in sprites.iter().enumerate() {
        toml += &s.toml(&format!("s{i}"));
    }
    toml += &textures(dir)?;
    Ok(toml)
}

/// A renderer that has drawn one frame of its scene.
struct Shot {
    renderer: HostRenderer,
    world: World,
    scene: Scene,
    size: (u32, u32),
}

impl Shot {
    fn new(gpu: &mut render::Gpu, toml: &str, dir: &Path, size: (u32, u32)) -> anyhow::Result<Shot> {
        let scene: Scene = parse(toml, &dir.join("test.toml"))?;
        let mut world = World::new(gpu, &scene)?;
        let mut renderer = HostRenderer::new(gpu, size.0, size.1)?;
        // Every particle of these hand-built scenes must be drawn: no burst share.
        renderer.budget_override = Some(ParticleBudget::Unlimited);
        renderer.render(gpu, &mut world, &scene, &settings::Settings::default(), 0.0)?;
        Ok(Shot { renderer, world, scene, size })
    }

    /// Renders the next frame (1/30 s later).
    fn next(&mut self, gpu: &mut render::Gpu) -> anyhow::Result<()> {
        let settings = settings::Settings::default();
        self.renderer.render(gpu, &mut self.world, &self.scene, &settings, 1.0 / 30.0)?;
        Ok(())
    }

    /// Pixel index of world point `p`.
    fn index_of(&self, p: Vec3) -> usize {
        let c = &self.scene.camera;
        let view =
            CameraView::new(c.position, c.target, c.fov_y_deg, self.size.0 as f32 / self.size.1 as f32);
        let (uv, _) = project(view.clip_from_world, p);
        assert!(uv.min_element() > 0.0 && uv.max_element() < 1.0, "{p} is off screen");
        let px = uv * Vec2::new(self.size.0 as f32, self.size.1 as f32);
        px.y as usize * self.size.0 as usize + px.x as usize
    }

    /// The glow mask (`frame.glow`'s R channel), one value per pixel.
    fn mask(&self, gpu: &mut render::Gpu) -> anyhow::Result<Vec<f32>> {
        let bytes = gpu.read_image(&self.renderer.targets.glow)?;
        let halves: &[u16] = bytemuck::cast_slice(&bytes);
        Ok(halves.iter().map(|&h| f16_to_f32(h)).collect())
    }

    /// The LDR image, RGBA8 per pixel.
    fn ldr(&self, gpu: &mut render::Gpu) -> anyhow::Result<Vec<u8>> {
        Ok(self.renderer.read_ldr(gpu)?)
    }
}

/// The glow byte the viewer stores (`LLViewerPartGroup::updateParticles`), back in 0..1.
fn glow_byte(g: f32) -> f32 {
    (255.0 * g).round() / 255.0
}

#[test]
fn the_mask_at_a_sprite_centre_is_texture_alpha_times_glow() {
    let dir = temp_dir("glow-mask");
    gpu_test(|gpu| {
        let sprite = Sprite { texture: "translucent", glow: 0.5, ..Sprite::default() };
        let shot = Shot::new(gpu, &scene_toml(&dir, &[sprite], "")?, &dir, SIZE)?;
        let mask = shot.mask(gpu)?;
        let want = f32::from(TRANSLUCENT_ALPHA) / 255.0 * glow_byte(0.5);
        let got = mask[shot.index_of(LOOK)];
        assert!((got - want).abs() < MASK_TOL, "mask {got}, texture alpha x glow {want}");
        let beside = mask[shot.index_of(Vec3::new(3.0, 0.0, 1.0))];
        assert_eq!(beside, 0.0, "cleared to 0 where no particle is");
        Ok(())
    });
}

#[test]
fn a_non_glowing_particle_in_front_attenuates_the_mask_by_one_minus_its_alpha() {
    // Far: opaque texture, glow 0.8 -> mask 204/255. Near (2 m closer), no glow, alpha 0.4:
    // mask x (1 - 0.4). Either emission order (drawn far to near after the sort); drawn near
    // first, the far particle would overwrite the mask with its own 0.8.
    let dir = temp_dir("glow-attenuate");
    let far = Sprite { pos: Vec3::new(0.0, 2.0, 1.0), glow: 0.8, ..Sprite::default() };
    let near = Sprite { alpha: 0.4, ..Sprite::default() };
    gpu_test(|gpu| {
        for sprites in [[far.clone(), near.clone()], [near.clone(), far.clone()]] {
            let shot = Shot::new(gpu, &scene_toml(&dir, &sprites, "")?, &dir, SIZE)?;
            let got = shot.mask(gpu)?[shot.index_of(LOOK)];
            let want = glow_byte(0.8) * (1.0 - 0.4);
            assert!((got - want).abs() < MASK_TOL, "mask {got}, glow x (1 - near alpha) {want}");
        }
        Ok(())
    });
}

/// Sum of the RGB bytes of `ldr` over the pixels 2..=6 pixels (Chebyshev) outside `lit`'s bounding
/// box, and how many of them are not black.
fn ring(ldr: &[u8], lit: &[bool]) -> (u64, usize) {
    const INNER_PX: i64 = 2;
    const OUTER_PX: i64 = 6;
    let (w, h) = (SIZE.0 as i64, SIZE.1 as i64);
    let covered = |i: i64| lit[i as usize];
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, -1, -1);
    for i in (0..w * h).filter(|&i| covered(i)) {
        (x0, y0, x1, y1) = (x0.min(i % w), y0.min(i / w), x1.max(i % w), y1.max(i / w));
    }
    assert!(x1 >= x0, "the sprite is drawn");
    let (mut sum, mut count) = (0, 0);
    for y in 0..h {
        for x in 0..w {
            let d = (x0 - x).max(x - x1).max(y0 - y).max(y - y1);
            if (INNER_PX..=OUTER_PX).contains(&d) {
                let i = (y * w + x) as usize * 4;
                let rgb: u64 = ldr[i..i + 3].iter().map(|&b| u64::from(b)).sum();
                sum += rgb;
                count += usize::from(rgb > 0);
            }
        }
    }
    (sum, count)
}

#[test]
fn a_glowing_sprite_lights_a_ring_around_it_that_a_non_glowing_one_leaves_black() {
    let dir = temp_dir("glow-ring");
    gpu_test(|gpu| {
        let plain = Shot::new(gpu, &scene_toml(&dir, &[Sprite::default()], "")?, &dir, SIZE)?;
        let plain_ldr = plain.ldr(gpu)?;
        let lit: Vec<bool> = plain_ldr.chunks_exact(4).map(|p| p[..3] != [0, 0, 0]).collect();
        let glowing = Sprite { glow: 1.0, ..Sprite::default() };
        let shot = Shot::new(gpu, &scene_toml(&dir, &[glowing], "")?, &dir, SIZE)?;
        let (plain_sum, _) = ring(&plain_ldr, &lit);
        let (glow_sum, glow_count) = ring(&shot.ldr(gpu)?, &lit);
        assert_eq!(plain_sum, 0, "no glow: black around the sprite");
        assert!(glow_count > 0 && glow_sum > 0, "glow 1: light around the sprite ({glow_count} pixels)");
        Ok(())
    });
}

#[test]
fn glow_zero_leaves_the_ldr_image_as_the_skipped_pass_does() {
    // A glow-0 sprite over an emissive wall: the frame skips host.glow (no source has glow). Then
    // host.glow and host.tonemap are recorded by hand on the same targets with the full strength:
    // the mask is 0 everywhere, so the LDR image must come out bit-identical. As a control, a
    // glowing scene (whose frame ran host.glow) tone-mapped again without the bloom changes.
    let dir = temp_dir("glow-zero");
    let wall = "[[object]]\nshape = \"box\"\nsize = [20.0, 0.2, 20.0]\nposition = [0.0, 5.1, 1.0]\n\
                albedo = [0.0, 0.0, 0.0]\nemissive = [0.2, 0.4, 0.6]\n";
    gpu_test(|gpu| {
        let samplers = Samplers::new(gpu)?;
        let glow = GlowPass::new(gpu, SIZE.0, SIZE.1)?;
        let tonemap = TonemapPass::new(gpu)?;
        for (g, same) in [(0.0, true), (1.0, false)] {
            let sprite = Sprite { alpha: 0.5, glow: g, ..Sprite::default() };
            let shot = Shot::new(gpu, &scene_toml(&dir, &[sprite], wall)?, &dir, SIZE)?;
            let t = &shot.renderer.targets;
            let exposure = shot.scene.camera.exposure;
            // Glow 0: recomputed with the bloom. The control: recomputed without it.
            let strength = if same { GLOW_STRENGTH } else { 0.0 };
            let before = shot.ldr(gpu)?;
            gpu.submit(|rec| {
                if same {
                    // Without a glowing source the frame neither clears nor writes the mask.
                    let zero = render::ash::vk::ClearValue {
                        color: render::ash::vk::ClearColorValue { float32: [0.0; 4] },
                    };
                    let mask = Attachment { image: &t.glow, clear: Some(zero), layer: None };
                    rec.render("test.glow_clear", &[mask], None, &[], &[], |_| ())?;
                }
                glow.record(rec, &t.hdr, &t.glow, samplers.nearest_clamp);
                let bloom = Bloom { image: glow.bloom(), sampler: samplers.linear_clamp, strength };
                tonemap.record(rec, &t.hdr, &t.ldr, exposure, bloom);
                Ok(())
            })?;
            let after = shot.ldr(gpu)?;
            if same {
                assert!(before == after, "glow 0: the glow pass changed the LDR image");
            } else {
                assert!(before != after, "control: the glowing frame's bloom is visible");
            }
        }
        Ok(())
    });
}

/// The radiance of the leftmost pixel brighter than 0.25 in the middle row.
fn left_edge(hdr: &[[f32; 4]], size: (u32, u32)) -> f32 {
    let row = (size.1 / 2 * size.0) as usize;
    let edge = hdr[row..row + size.0 as usize].iter().find(|p| p[1] > 0.25);
    edge.map(|p| p[1]).unwrap_or(0.0)
}

#[test]
fn custom_textures_repeat_at_the_edge_and_the_default_layer_clamps() {
    // A 3.8 m sprite 2.5 m from the camera spans ~316 of 320 pixels, so its leftmost pixel centre
    // lies within half a texel (128 texels) of u = 0. The texture's left half is opaque and its
    // right half transparent: with repeat that pixel blends texel 0 with texel 127 (alpha at most
    // 0.91), with clamp it sees texel 0 only (alpha 1). Same texture, once as a custom layer, once
    // put in layer 0 (the default texture's, which clamps).
    let dir = temp_dir("glow-repeat");
    let size = (320, 240);
    let sprite = Sprite { pos: EYE + Vec3::Y * 2.5, scale: 3.8, texture: "edge", ..Sprite::default() };
    gpu_test(|gpu| {
        let toml = scene_toml(&dir, &[sprite], "")?;
        let custom = Shot::new(gpu, &toml, &dir, size)?;
        let repeat = left_edge(&custom.renderer.read_hdr(gpu)?, size);
        let mut layer0 = Shot::new(gpu, &toml, &dir, size)?;
        if let Some(p) = layer0.renderer.particles.as_mut() {
            p.textures = ParticleTextures::from_images(gpu, &[half_opaque()], &[0])?;
        }
        layer0.next(gpu)?;
        let clamp = left_edge(&layer0.renderer.read_hdr(gpu)?, size);
        assert!((clamp - 1.0).abs() < 0.01, "clamp: texel 0 only, {clamp}");
        assert!(repeat < 0.95, "repeat: texel 0 blended with the transparent texel 127, {repeat}");
        Ok(())
    });
}
