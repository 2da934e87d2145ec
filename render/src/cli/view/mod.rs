//! `particle-fog view SCENE`: the live viewer. A window with a Vulkan swapchain ([`window`],
//! [`swapchain`]), or with `--offscreen` the same frames rendered into images ([`offscreen`]):
//! the host renderer's frame, the graphics-preferences panel drawn over it as the timed pass
//! `view.panel` ([`panel`], [`crate::passes::panel`]), the fly camera and the scene's clock
//! ([`camera`]), the stats ([`stats`]), and the input that drives them, from the window or from a
//! `--script` ([`script`]); [`session`] holds what both share.
//!
//! Settings are read from `--settings FILE` (default `settings.xml`; the scene's own and `--set`
//! over them), and the ones changed in the viewer are written back into it (foreign keys kept)
//! on request and when the viewer closes; per-object overrides go to
//! `particle_fog_overrides.xml` beside it.

pub mod camera;
pub mod offscreen;
pub mod panel;
pub mod script;
pub mod session;
pub mod stats;
pub mod swapchain;
pub mod window;

use std::path::{Path, PathBuf};

use serde::Serialize;

use self::script::Script;
use self::session::{FrameRecord, Session};
use crate::vk::profiler::PassTiming;
use crate::Gpu;

/// Frames the viewer keeps in flight.
pub const FRAMES_IN_FLIGHT: u32 = 2;

/// What to view, and how.
#[derive(Clone, Debug)]
pub struct ViewJob {
    /// The scene file.
    pub scene: PathBuf,
    /// The window's (or image's) size when it opens, pixels.
    pub width: u32,
    /// Height, pixels.
    pub height: u32,
    /// Simulated frames per second: each frame steps the scene 1/fps seconds.
    pub fps: f32,
    /// Frames of particle simulation before the first frame.
    pub warmup: u32,
    /// The settings file, read and written.
    pub settings_file: PathBuf,
    /// `NAME=VALUE` overrides applied after the file's and the scene's settings.
    pub overrides: Vec<String>,
    /// Timed input events.
    pub script: Option<PathBuf>,
    /// Frames to save as PNG: (frame, path).
    pub screenshots: Vec<(u32, PathBuf)>,
    /// Render into images, no window.
    pub offscreen: bool,
    /// Frames to run (offscreen: default the script's last frame + 1; window: until closed).
    pub frames: Option<u32>,
    /// Present without waiting for vertical blank (MAILBOX, else IMMEDIATE, where offered).
    pub unthrottled: bool,
    /// Write the run's report (per-frame weights, systems, timings) here as JSON.
    pub report: Option<PathBuf>,
}

/// Parses `--screenshot FRAME:PATH`.
pub fn parse_screenshot(text: &str) -> Result<(u32, PathBuf), String> {
    let (frame, path) =
        text.split_once(':').ok_or_else(|| format!("{text:?}: expected FRAME:PATH, e.g. 30:shot.png"))?;
    let frame =
        frame.trim().parse::<u32>().map_err(|_| format!("{text:?}: {frame:?} is not a frame number"))?;
    if path.is_empty() {
        return Err(format!("{text:?}: no path after the frame number"));
    }
    Ok((frame, PathBuf::from(path)))
}

/// Opens the viewer (a window, or offscreen); returns the timing table of the run.
pub fn run(job: &ViewJob, desc: &crate::GpuDesc) -> anyhow::Result<String> {
    let script = match &job.script {
        Some(path) => Script::load(path)?,
        None => Script::default(),
    };
    for (_, path) in &job.screenshots {
        check_parent(path)?;
    }
    if job.offscreen {
        offscreen::run(job, &script, desc)
    } else {
        window::run(job, &script, desc)
    }
}

/// Fails when `path`'s folder does not exist (before the GPU starts).
fn check_parent(path: &Path) -> anyhow::Result<()> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    anyhow::ensure!(parent.is_dir(), "{}: folder {} does not exist", path.display(), parent.display());
    Ok(())
}

/// Writes the frame just rendered to every screenshot asked for at `frame` (with the debug view's
/// transmittance or coverage image beside it, as `render` writes them).
pub fn screenshots(job: &ViewJob, session: &Session, gpu: &mut Gpu, frame: u32) -> anyhow::Result<()> {
    for (_, path) in job.screenshots.iter().filter(|(f, _)| *f == frame) {
        anyhow::ensure!(
            !session.minimised,
            "screenshot of frame {frame}: the viewer was minimised, nothing was rendered"
        );
        crate::cli::render::write_frame(gpu, &session.renderer, &session.settings, path)?;
    }
    Ok(())
}

/// One system in the report.
#[derive(Serialize)]
struct ReportSystem {
    index: usize,
    name: String,
    id: String,
    verdict: String,
    score: f32,
    weight: f32,
    #[serde(rename = "override")]
    override_in_force: String,
    decision: String,
    to_change: String,
}

/// The run's report (`--report`).
#[derive(Serialize)]
struct Report<'a> {
    scene: String,
    device: String,
    frames: &'a [FrameRecord],
    systems: Vec<ReportSystem>,
    passes: Vec<PassTiming>,
    settings_file: String,
}

/// Ends a run: waits for the GPU, saves what changed, writes the report, fails on a validation
/// error; returns the timing table.
pub fn finish(job: &ViewJob, session: &mut Session, gpu: &mut Gpu) -> anyhow::Result<String> {
    gpu.wait_frames()?;
    if session.unsaved() {
        session.save()?;
    }
    if let Some(path) = &job.report {
        let systems = session
            .system_rows()
            .into_iter()
            .map(|r| ReportSystem {
                index: r.index,
                name: r.name,
                id: r.id,
                verdict: r.verdict,
                score: r.score,
                weight: r.weight,
                override_in_force: r.override_in_force.to_string(),
                decision: r.decision,
                to_change: r.to_change,
            })
            .collect();
        let report = Report {
            scene: job.scene.display().to_string(),
            device: format!("{} ({})", gpu.info().name, gpu.info().driver),
            frames: &session.records,
            systems,
            passes: gpu.profiler.timings(),
            settings_file: session.settings_path().display().to_string(),
        };
        let text = serde_json::to_string_pretty(&report)?;
        crate::atomic_file::write_atomically(path, text.as_bytes())?;
    }
    anyhow::ensure!(
        gpu.canary().is_empty() || !gpu.validation(),
        "validation errors: {:?}",
        gpu.canary().drain()
    );
    Ok(format!("{}\n{}", gpu.profiler.table(), session.status_line()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screenshots_parse_and_bad_ones_are_refused() {
        assert_eq!(parse_screenshot("12:out/a.png"), Ok((12, PathBuf::from("out/a.png"))));
        for bad in ["12", "x:a.png", "3:", "-1:a.png"] {
            assert!(parse_screenshot(bad).is_err(), "{bad}");
        }
    }
}
