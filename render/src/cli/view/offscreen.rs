//! `view --offscreen`: the viewer's frames, panel and scripted input rendered into the host
//! renderer's images instead of a window's swapchain, for machines without a display and for
//! measuring the panel's cost. Resizing remakes the images; minimising skips the frames.

use super::script::{Event, Script};
use super::session::Session;
use super::{ViewJob, FRAMES_IN_FLIGHT};
use crate::vk::context::FrameSync;
use crate::{Gpu, GpuDesc};

/// Runs the job without a window; returns the timing table.
pub fn run(job: &ViewJob, script: &Script, desc: &GpuDesc) -> anyhow::Result<String> {
    let mut gpu = Gpu::new(&GpuDesc { frames_in_flight: FRAMES_IN_FLIGHT, ..desc.clone() })?;
    let mut session = Session::new(job, &mut gpu)?;
    let frames = job.frames.unwrap_or_else(|| script.last_frame() + 1);
    while session.frame < frames && !session.closed {
        let frame = session.frame;
        for event in script.at(frame) {
            match event {
                Event::Resize(w, h) => session.resize(&mut gpu, (*w, *h))?,
                other => session.apply(other)?,
            }
        }
        if session.closed {
            break;
        }
        session.frame(&mut gpu, &FrameSync::default(), |_, _| Ok(()))?;
        super::screenshots(job, &session, &mut gpu, frame)?;
    }
    super::finish(job, &mut session, &mut gpu)
}
