//! The showcase outputs of `particle-fog render` beside the frame, carrying on from the job's
//! renderer ([`Rendered`]: particles in flow, the fog's temporal passes converged), on its device:
//!
//! - `--compare`: the job's first frame beside the same frame with `RenderVKParticleFog` the other
//!   way, labelled, `<scene>_compare.png`, and the one with it off alone, `<scene>_billboards.png`.
//!   The other frame's renderer warms up its particles and borrows the job's converged froxel fog
//!   (which does not depend on the particle fog) for its frame;
//! - `--apng N`: the N frames after the job's at the job's fps as an animated PNG, `<scene>.apng`,
//!   at `--apng-size` ([`default_apng_size`]: half the job's size);
//! - `--contact-sheet`: a labelled grid of [`SHEET_DENSITIES`] (rows) x [`SHEET_BILLOWS`]
//!   (columns), tiles half the job's size, `<scene>_sliders.png`: the sliders are live, so the
//!   tiles are the frames after the animation's (or the job's).
//!
//! One renderer carries on through the job's frames, the animation and the sheet, resized between
//! them where their sizes differ ([`HostRenderer::resize`] keeps the particles and the fog). Each
//! picture is written as it is rendered: the animation a frame at a time, the grids a row of
//! tiles at a time ([`crate::picture`]), so memory depends on the size, not the frame count. The
//! folder is checked, and the showcase files not asked for this time removed, by [`prepare`]
//! before the GPU starts.

use std::path::PathBuf;

use crate::cli::progress::Progress;
use crate::cli::render::{stem, warm_up, RenderJob, Rendered, FOG_WARMUP_FRAMES};
use crate::error::Result;
use crate::frame::HostRenderer;
use crate::picture::{write_apng, write_grid, Rgba8};
use crate::scene::Scene;
use crate::world::World;
use crate::Gpu;

/// What to write besides the frames.
#[derive(Clone, Debug, Default)]
pub struct ShowcaseJob {
    /// `--compare`.
    pub compare: bool,
    /// `--apng N`: frames of the animation (0: none).
    pub apng_frames: u32,
    /// `--apng-size`: the animation's frame size.
    pub apng_size: (u32, u32),
    /// `--contact-sheet`.
    pub contact_sheet: bool,
}

/// `RenderVKParticleFogDensity` values of the contact sheet's rows.
pub const SHEET_DENSITIES: [f32; 3] = [0.5, 1.0, 2.0];
/// `RenderVKParticleFogBillow` values of its columns.
pub const SHEET_BILLOWS: [f32; 3] = [0.0, 0.5, 1.0];

/// The animation's frame size when `--apng-size` is not given: half the job's `size`, so that two
/// seconds at the demo's 1280x720 stay a few megabytes.
pub fn default_apng_size(size: (u32, u32)) -> (u32, u32) {
    half_size(size)
}

/// Half of `size` (at least a pixel): the contact sheet's tiles.
fn half_size(size: (u32, u32)) -> (u32, u32) {
    ((size.0 / 2).max(1), (size.1 / 2).max(1))
}

impl ShowcaseJob {
    /// Whether anything is asked for.
    pub fn any(&self) -> bool {
        self.compare || self.apng_frames > 0 || self.contact_sheet
    }
}

/// The showcase files `show` writes for a scene named `stem`: `<scene>_billboards.png` and
/// `<scene>_compare.png` (`--compare`), `<scene>.apng` (`--apng`), `<scene>_sliders.png`
/// (`--contact-sheet`).
pub fn output_names(stem: &str, show: &ShowcaseJob) -> Vec<String> {
    let mut names = Vec::new();
    if show.compare {
        names.extend([format!("{stem}_billboards.png"), format!("{stem}_compare.png")]);
    }
    if show.apng_frames > 0 {
        names.push(format!("{stem}.apng"));
    }
    if show.contact_sheet {
        names.push(format!("{stem}_sliders.png"));
    }
    names
}

/// Checks the job's folder for `show`'s files and removes the showcase files of the scene it does
/// not write (an earlier run's), and refuses pictures that would not fit in memory (the frames'
/// or, at its own size, the animation's); before any GPU work.
pub fn prepare(job: &RenderJob, show: &ShowcaseJob) -> anyhow::Result<()> {
    let stem = stem(job);
    let everything = ShowcaseJob { compare: true, apng_frames: 1, contact_sheet: true, apng_size: (1, 1) };
    let all = output_names(&stem, &everything);
    super::out_dir::prepare(&job.out, &output_names(&stem, show), &|n| all.iter().any(|a| a == n))?;
    let pictures = if show.compare { super::memory::COMPARE_PICTURES } else { super::memory::FRAME_PICTURES };
    let frames = pictures * super::memory::picture_bytes(job.width, job.height);
    let (aw, ah) = show.apng_size;
    let animation = if show.apng_frames > 0 {
        super::memory::FRAME_PICTURES * super::memory::picture_bytes(aw, ah)
    } else {
        0
    };
    let needed = frames.max(animation);
    super::memory::ensure_fits("this showcase", needed, super::memory::available_bytes())
}

/// Writes what `show` asks for into the job's folder, carrying on from the job's renderer
/// (`rendered`, with its first frame for `--compare`); the paths written.
pub fn run(job: &RenderJob, show: &ShowcaseJob, rendered: Rendered) -> anyhow::Result<Vec<PathBuf>> {
    let Rendered { renderer, mut world, scene, settings, first, mut gpu } = rendered;
    let stem = stem(job);
    let mut stage = Stage { gpu: &mut gpu, world: &mut world, scene: &scene, job };
    let size = (job.width, job.height);
    // The job's renderer, past its frames.
    let mut going = Frames { renderer, next: job.frames };
    let mut written = Vec::new();
    if show.compare {
        let path = job.out.join(format!("{stem}_compare.png"));
        let billboards = job.out.join(format!("{stem}_billboards.png"));
        // The job's first frame is one of the two, as its settings have the particle fog.
        let mut first = first;
        let job_side = u32::from(!settings.particle_fog);
        write_grid(&path, size, 2, &["particle fog", "billboards"], |i| {
            let s = settings::Settings { particle_fog: i == 0, ..settings.clone() };
            let frame = match first.take_if(|_| i == job_side) {
                Some(frame) => frame,
                None => stage.first_frame_beside(&mut going, &s)?,
            };
            if i == 1 {
                crate::picture::write_rgba8(&billboards, frame.width, frame.height, &frame.pixels)?;
            }
            Ok(frame)
        })?;
        written.extend([billboards, path]);
    }
    if show.apng_frames > 0 {
        let path = job.out.join(format!("{stem}.apng"));
        going = stage.carry_on(going, show.apng_size)?;
        let mut progress = Progress::new(&format!("{stem} animation"), show.apng_frames);
        write_apng(&path, going.size(), (show.apng_frames, job.fps), |i| {
            let frame = going.next(&mut stage, &settings);
            progress.step(i + 1);
            frame
        })?;
        progress.end();
        written.push(path);
    }
    if show.contact_sheet {
        going = stage.carry_on(going, half_size(size))?;
        written.push(contact_sheet(&mut stage, &mut going, &settings, &stem)?);
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
    /// A renderer of `size` frames, warmed up with `settings` (the job's warm-up, of the fog's
    /// temporal passes its last `fog_frames`), whose frames follow one another from there.
    fn renderer(
        &mut self,
        settings: &settings::Settings,
        (w, h): (u32, u32),
        fog_frames: u32,
    ) -> Result<Frames> {
        let job = self.job;
        let mut r = HostRenderer::new(self.gpu, w, h)?;
        r.frame_dt_s = 1.0 / job.fps;
        r.particles_only = job.particles_only;
        let name = format!("{} showcase", stem(job));
        warm_up(&mut r, (self.gpu, self.world), (self.scene, settings), (job, fog_frames), &name)?;
        Ok(Frames { renderer: r, next: 0 })
    }

    /// The first frame after the job's warm-up with `settings`, at `going`'s size, from a renderer
    /// of its own that warms up its particles only: for that frame it borrows `going`'s froxel
    /// fog, converged, which does not depend on the particle fog (nor on the frame's size).
    fn first_frame_beside(&mut self, going: &mut Frames, settings: &settings::Settings) -> Result<Rgba8> {
        let froxel_frames = if going.renderer.fog.froxel.is_some() { 0 } else { FOG_WARMUP_FRAMES };
        let mut other = self.renderer(settings, going.size(), froxel_frames)?;
        // The froxel fog's constants are written by whichever renderer has it: nothing in flight.
        self.gpu.wait_frames()?;
        other.renderer.fog.froxel = going.renderer.fog.froxel.take();
        let frame = other.next(self, settings);
        self.gpu.wait_frames()?;
        going.renderer.fog.froxel = other.renderer.fog.froxel.take();
        frame
    }

    /// `frames` carried on at `size`: the renderer resized where its size differs (its particles
    /// and fog kept).
    fn carry_on(&mut self, mut frames: Frames, size: (u32, u32)) -> Result<Frames> {
        if frames.size() != size {
            frames.renderer.resize(self.gpu, size.0, size.1)?;
        }
        Ok(frames)
    }
}

/// Consecutive frames of one warmed-up renderer.
struct Frames {
    renderer: HostRenderer,
    /// The next frame's number after the warm-up.
    next: u32,
}

impl Frames {
    /// The frames' size.
    fn size(&self) -> (u32, u32) {
        let e = self.renderer.targets.ldr.extent;
        (e.width, e.height)
    }

    /// The next frame, rendered on `stage` with `settings`.
    fn next(&mut self, stage: &mut Stage<'_>, settings: &settings::Settings) -> Result<Rgba8> {
        let job = stage.job;
        let t = (job.warmup + self.next) as f32 / job.fps;
        self.next += 1;
        let (width, height) = self.size();
        self.renderer.render(stage.gpu, stage.world, stage.scene, settings, t)?;
        Ok(Rgba8 { width, height, pixels: self.renderer.read_ldr(stage.gpu)? })
    }
}

/// The Density x Billow sheet of `tiles`' frames, written as `<stem>_sliders.png`.
fn contact_sheet(
    stage: &mut Stage<'_>,
    tiles: &mut Frames,
    settings: &settings::Settings,
    stem: &str,
) -> anyhow::Result<PathBuf> {
    let cols = SHEET_BILLOWS.len() as u32;
    let cells = SHEET_DENSITIES.len() as u32 * cols;
    let at = |i: u32| (SHEET_DENSITIES[(i / cols) as usize], SHEET_BILLOWS[(i % cols) as usize]);
    let labels: Vec<String> = (0..cells).map(|i| format!("density {} billow {}", at(i).0, at(i).1)).collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let path = stage.job.out.join(format!("{stem}_sliders.png"));
    write_grid(&path, tiles.size(), cols, &labels, |i| {
        let (density, billow) = at(i);
        let s = settings::Settings {
            particle_fog_density: density,
            particle_fog_billow: billow,
            ..settings.clone()
        };
        tiles.next(stage, &s)
    })?;
    Ok(path)
}
