//! The showcase outputs of `particle-fog render` beside the frame, each from its own warmed-up
//! renderer (the job's warm-up: particles in flow, the fog's temporal passes converged):
//!
//! - `--compare`: the first frame after the warm-up with `RenderVKParticleFog` off,
//!   `<scene>_billboards.png`, and side by side with the same frame with it on, labelled,
//!   `<scene>_compare.png`;
//! - `--apng N`: N frames from there at the job's fps as an animated PNG, `<scene>.apng`;
//! - `--contact-sheet`: a labelled grid of [`SHEET_DENSITIES`] (rows) x [`SHEET_BILLOWS`]
//!   (columns), tiles half the job's size, `<scene>_sliders.png` (the sliders are live, so one
//!   renderer renders the tiles on consecutive frames).

use std::path::PathBuf;

use crate::cli::render::{load_scene, warm_up, RenderJob};
use crate::frame::HostRenderer;
use crate::picture::font::{draw_text, text_width};
use crate::picture::{write_apng, Rgba8};
use crate::scene::Scene;
use crate::world::World;
use crate::{Gpu, GpuDesc};

/// What to write besides the frames.
#[derive(Clone, Debug, Default)]
pub struct ShowcaseJob {
    /// `--compare`.
    pub compare: bool,
    /// `--apng N`: frames of the animation (0: none).
    pub apng_frames: u32,
    /// `--contact-sheet`.
    pub contact_sheet: bool,
}

/// `RenderVKParticleFogDensity` values of the contact sheet's rows.
pub const SHEET_DENSITIES: [f32; 3] = [0.5, 1.0, 2.0];
/// `RenderVKParticleFogBillow` values of its columns.
pub const SHEET_BILLOWS: [f32; 3] = [0.0, 0.5, 1.0];
/// Label glyph scale, picture pixels per font pixel.
const LABEL_SCALE: u32 = 2;
const LABEL_COLOUR: [u8; 4] = [255, 255, 255, 255];

/// Writes what `show` asks for into the job's folder; the paths written.
pub fn run(job: &RenderJob, show: &ShowcaseJob, desc: &GpuDesc) -> anyhow::Result<Vec<PathBuf>> {
    let (scene, settings) = load_scene(job)?;
    let stem = job.scene.file_stem().map_or_else(|| "scene".into(), |s| s.to_string_lossy().into_owned());
    let mut gpu = Gpu::new(desc)?;
    let mut world = World::new(&mut gpu, &scene)?;
    let mut stage = Stage { gpu: &mut gpu, world: &mut world, scene: &scene, job };
    let mut written = Vec::new();
    if show.compare {
        let on = stage.frames(&settings::Settings { particle_fog: true, ..settings.clone() }, (1, 1), 1)?;
        let off = stage.frames(&settings::Settings { particle_fog: false, ..settings.clone() }, (1, 1), 1)?;
        let sheet = labelled_grid(&[on[0].clone(), off[0].clone()], 2, &["particle fog", "billboards"]);
        for (name, pic) in [("billboards", &off[0]), ("compare", &sheet)] {
            written.push(save(job, &format!("{stem}_{name}.png"), pic)?);
        }
    }
    if show.apng_frames > 0 {
        let frames = stage.frames(&settings, (1, 1), show.apng_frames)?;
        let path = job.out.join(format!("{stem}.apng"));
        write_apng(&path, &frames, job.fps)?;
        written.push(path);
    }
    if show.contact_sheet {
        written.push(contact_sheet(&mut stage, &settings, &stem)?);
    }
    anyhow::ensure!(
        stage.gpu.canary().is_empty() || !stage.gpu.validation(),
        "validation errors: {:?}",
        stage.gpu.canary().drain()
    );
    Ok(written)
}

/// The device, world, scene and job the outputs are rendered with.
struct Stage<'s> {
    gpu: &'s mut Gpu,
    world: &'s mut World,
    scene: &'s Scene,
    job: &'s RenderJob,
}

impl Stage<'_> {
    /// `count` consecutive frames after the job's warm-up with `settings`, at the job's size
    /// divided by `div`; each frame may take other settings through `per_frame` (see
    /// [`Stage::frames_with`]).
    fn frames(
        &mut self,
        settings: &settings::Settings,
        div: (u32, u32),
        count: u32,
    ) -> anyhow::Result<Vec<Rgba8>> {
        self.frames_with(settings, div, count, |_, s| s.clone())
    }

    fn frames_with(
        &mut self,
        settings: &settings::Settings,
        div: (u32, u32),
        count: u32,
        per_frame: impl Fn(u32, &settings::Settings) -> settings::Settings,
    ) -> anyhow::Result<Vec<Rgba8>> {
        let job = self.job;
        let (w, h) = ((job.width / div.0).max(1), (job.height / div.1).max(1));
        let mut r = HostRenderer::new(self.gpu, w, h)?;
        r.frame_dt_s = 1.0 / job.fps;
        r.particles_only = job.particles_only;
        warm_up(&mut r, (self.gpu, self.world), (self.scene, settings), job, None)?;
        let mut out = Vec::with_capacity(count as usize);
        for i in 0..count {
            let t = (job.warmup + i) as f32 / job.fps;
            r.render(self.gpu, self.world, self.scene, &per_frame(i, settings), t)?;
            out.push(Rgba8 { width: w, height: h, pixels: r.read_ldr(self.gpu)? });
        }
        Ok(out)
    }
}

/// The Density x Billow sheet, written as `<stem>_sliders.png`.
fn contact_sheet(
    stage: &mut Stage<'_>,
    settings: &settings::Settings,
    stem: &str,
) -> anyhow::Result<PathBuf> {
    let cols = SHEET_BILLOWS.len() as u32;
    let cells = SHEET_DENSITIES.len() as u32 * cols;
    let at = |i: u32| (SHEET_DENSITIES[(i / cols) as usize], SHEET_BILLOWS[(i % cols) as usize]);
    let tiles = stage.frames_with(settings, (2, 2), cells, |i, s| {
        let (density, billow) = at(i);
        settings::Settings { particle_fog_density: density, particle_fog_billow: billow, ..s.clone() }
    })?;
    let labels: Vec<String> = (0..cells).map(|i| format!("density {} billow {}", at(i).0, at(i).1)).collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    save(stage.job, &format!("{stem}_sliders.png"), &labelled_grid(&tiles, cols, &labels))
}

/// `tiles` (all one size) in rows of `cols`, each with its label in the top-left corner.
pub fn labelled_grid(tiles: &[Rgba8], cols: u32, labels: &[&str]) -> Rgba8 {
    let Some(first) = tiles.first() else { return Rgba8::filled(1, 1, [0, 0, 0, 255]) };
    let (w, h) = (first.width, first.height);
    let rows = (tiles.len() as u32).div_ceil(cols);
    let mut sheet = Rgba8::filled(w * cols, h * rows, [0, 0, 0, 255]);
    for (i, (tile, label)) in tiles.iter().zip(labels).enumerate() {
        let (x, y) = ((i as u32 % cols) * w, (i as u32 / cols) * h);
        sheet.blit(tile, x, y);
        let scale = if text_width(label, LABEL_SCALE) + 8 <= w { LABEL_SCALE } else { 1 };
        draw_text(&mut sheet, label, (x + 4, y + 4), scale, LABEL_COLOUR);
    }
    sheet
}

fn save(job: &RenderJob, name: &str, pic: &Rgba8) -> anyhow::Result<PathBuf> {
    let path = job.out.join(name);
    crate::vk::readback::write_png(&path, pic.width, pic.height, &pic.pixels)?;
    Ok(path)
}
