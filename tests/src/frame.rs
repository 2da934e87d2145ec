//! Rendering small test scenes and reading pixels back by the world points they show.

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use render::frame::HostRenderer;
use render::scene::{parse, Scene};
use render::view::{project, CameraView};
use render::world::World;

/// A rendered frame: its scene, size and linear HDR pixels (after the fog, before tone mapping).
pub struct Frame {
    /// The scene rendered.
    pub scene: Scene,
    /// Width, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// Row-major RGBA radiance.
    pub hdr: Vec<[f32; 4]>,
}

impl Frame {
    /// The camera the renderer used (same construction as `HostRenderer`).
    pub fn view(&self) -> CameraView {
        let c = &self.scene.camera;
        CameraView::new(c.position, c.target, c.fov_y_deg, self.width as f32 / self.height as f32)
    }

    /// The pixel at screen coordinate `uv` (0..1, v down), clamped to the image.
    pub fn pixel_at_uv(&self, uv: Vec2) -> [f32; 4] {
        let x = ((uv.x * self.width as f32) as usize).min(self.width as usize - 1);
        let y = ((uv.y * self.height as f32) as usize).min(self.height as usize - 1);
        self.hdr[y * self.width as usize + x]
    }

    /// The pixel showing world point `p`; panics (a test bug) if it is off screen.
    pub fn pixel_at(&self, p: Vec3) -> [f32; 4] {
        let (uv, _) = project(self.view().clip_from_world, p);
        assert!(uv.min_element() > 0.0 && uv.max_element() < 1.0, "{p} is off screen ({uv})");
        self.pixel_at_uv(uv)
    }

    /// Mean of the RGB channels of the pixel showing `p`.
    pub fn brightness_at(&self, p: Vec3) -> f32 {
        let px = self.pixel_at(p);
        (px[0] + px[1] + px[2]) / 3.0
    }

    /// Mean of the RGB channels over the (2 r + 1)² pixels around the one showing `p` (clamped to
    /// the image): a reading the march's per-ray jitter does not move.
    pub fn brightness_around(&self, p: Vec3, r: u32) -> f32 {
        let (uv, _) = project(self.view().clip_from_world, p);
        assert!(uv.min_element() > 0.0 && uv.max_element() < 1.0, "{p} is off screen ({uv})");
        let (w, h) = (self.width as i64, self.height as i64);
        let (cx, cy) = ((uv.x * w as f32) as i64, (uv.y * h as f32) as i64);
        let r = i64::from(r);
        let (mut sum, mut n) = (0.0, 0);
        for y in (cy - r).max(0)..=(cy + r).min(h - 1) {
            for x in (cx - r).max(0)..=(cx + r).min(w - 1) {
                let px = self.hdr[(y * w + x) as usize];
                sum += (px[0] + px[1] + px[2]) / 3.0;
                n += 1;
            }
        }
        sum / n as f32
    }
}

/// Parses `toml` (relative paths resolve against `dir`) and renders `frames` frames at
/// `width` x `height` with default settings (volumetric fog on), 30 frames per second.
pub fn render_scene(
    gpu: &mut render::Gpu,
    toml: &str,
    dir: &Path,
    (width, height): (u32, u32),
    frames: u32,
) -> anyhow::Result<Frame> {
    let scene = parse(toml, &dir.join("test.toml"))?;
    let mut world = World::new(gpu, &scene)?;
    let mut renderer = HostRenderer::new(gpu, width, height)?;
    for f in 0..frames {
        renderer.render(gpu, &mut world, &scene, &settings::Settings::default(), f as f32 / 30.0)?;
    }
    let hdr = renderer.read_hdr(gpu)?;
    Ok(Frame { scene, width, height, hdr })
}

/// Root-mean-square difference of two images' RGB (any further channel ignored), per channel.
pub fn rms_difference<const N: usize>(a: &[[f32; N]], b: &[[f32; N]]) -> f32 {
    let sum: f32 = a.iter().zip(b).map(|(p, q)| (0..3).map(|c| (p[c] - q[c]).powi(2)).sum::<f32>()).sum();
    (sum / (a.len() * 3) as f32).sqrt()
}

/// A fresh temporary directory for one test (unique per process and name).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pf-test-{}-{name}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    dir
}
