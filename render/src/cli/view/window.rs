//! The viewer's window (winit): its events become the same [`Event`]s a script gives, each
//! redraw renders one frame into the swapchain ([`super::swapchain`]), 2 frames in flight. A
//! resize remakes the swapchain and the renderer's size-dependent targets; a window with no area
//! (minimised) or hidden renders nothing until it shows again.

use raw_window_handle::{HasDisplayHandle as _, HasWindowHandle as _};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use super::script::{Button, Event, Key, Script};
use super::session::Session;
use super::swapchain::Swapchain;
use super::{ViewJob, FRAMES_IN_FLIGHT};
use crate::vk::context::FrameSync;
use crate::{Gpu, GpuDesc};

/// Runs the viewer in a window until it is closed; returns the timing table.
pub fn run(job: &ViewJob, script: &Script, desc: &GpuDesc) -> anyhow::Result<String> {
    let event_loop = EventLoop::new()
        .map_err(|e| anyhow::anyhow!("opening a window needs a display (or use --offscreen): {e}"))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App { job, script, desc, live: None, outcome: None };
    event_loop.run_app(&mut app)?;
    app.outcome.unwrap_or_else(|| Err(anyhow::anyhow!("the window closed before the viewer started")))
}

/// What lives while the window is open; dropped in field order (the swapchain and its surface
/// before the device, the window last).
struct Live {
    swapchain: Swapchain,
    /// Set when the swapchain must be remade before the next frame.
    stale: bool,
    session: Session,
    gpu: Gpu,
    /// The window has no area.
    zero_size: bool,
    /// The window is hidden (minimised, or fully covered, where the window system says so).
    occluded: bool,
    /// The frame whose script events were applied (a redraw that acquires no image leaves the
    /// frame to the next redraw, which must not apply them again).
    events_applied: Option<u32>,
    window: Window,
}

struct App<'a> {
    job: &'a ViewJob,
    script: &'a Script,
    desc: &'a GpuDesc,
    live: Option<Live>,
    outcome: Option<anyhow::Result<String>>,
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.live.is_some() || self.outcome.is_some() {
            return;
        }
        match open(self.job, self.desc, event_loop) {
            Ok(live) => self.live = Some(live),
            Err(e) => self.end(event_loop, Err(e)),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(live) = self.live.as_mut() else { return };
        let result = match event {
            WindowEvent::CloseRequested => {
                live.session.closed = true;
                Ok(())
            }
            WindowEvent::Resized(size) => {
                live.zero_size = size.width == 0 || size.height == 0;
                live.stale = true;
                Ok(())
            }
            WindowEvent::ScaleFactorChanged { scale_factor, .. } => {
                live.session.pixels_per_point = scale_factor as f32;
                Ok(())
            }
            WindowEvent::Occluded(hidden) => {
                live.occluded = hidden;
                Ok(())
            }
            WindowEvent::RedrawRequested => tick(live, self.job, self.script),
            other => input(&other).map_or(Ok(()), |e| apply(live, &e)),
        };
        let done = live.session.closed || self.job.frames.is_some_and(|n| live.session.frame >= n);
        match result {
            Err(e) => self.end(event_loop, Err(e)),
            Ok(()) if done => self.finish(event_loop),
            Ok(()) => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(live) = &self.live {
            live.window.request_redraw();
        }
    }
}

impl App<'_> {
    /// Saves, reports and closes the window.
    fn finish(&mut self, event_loop: &ActiveEventLoop) {
        let Some(mut live) = self.live.take() else { return };
        let outcome = super::finish(self.job, &mut live.session, &mut live.gpu);
        drop(live);
        self.end(event_loop, outcome);
    }

    fn end(&mut self, event_loop: &ActiveEventLoop, outcome: anyhow::Result<String>) {
        self.live = None;
        self.outcome.get_or_insert(outcome);
        event_loop.exit();
    }
}

/// Opens the window, the device with the surface extensions, the session and the swapchain.
fn open(job: &ViewJob, desc: &GpuDesc, event_loop: &ActiveEventLoop) -> anyhow::Result<Live> {
    let title = format!("particle-fog view {}", job.scene.display());
    let attributes = Window::default_attributes()
        .with_title(title)
        .with_inner_size(winit::dpi::PhysicalSize::new(job.width, job.height));
    let window = event_loop.create_window(attributes)?;
    let display = window.display_handle()?.as_raw();
    let required = ash_window::enumerate_required_extensions(display)?;
    // SAFETY: ash-window returns pointers to the extension names' static, NUL-terminated strings.
    let instance_extensions = required.iter().map(|&p| unsafe { std::ffi::CStr::from_ptr(p) }).collect();
    let desc = GpuDesc {
        frames_in_flight: FRAMES_IN_FLIGHT,
        instance_extensions,
        device_extensions: vec![ash::khr::swapchain::NAME],
        ..desc.clone()
    };
    let mut gpu = Gpu::new(&desc)?;
    let shared = &gpu.shared;
    // SAFETY: the instance was made with the extensions this display needs; the window outlives
    // the surface (`Live` drops the swapchain, which destroys it, before the window).
    let surface = unsafe {
        ash_window::create_surface(
            &shared.instance.entry,
            &shared.instance.raw,
            display,
            window.window_handle()?.as_raw(),
            None,
        )
    }?;
    let size = window.inner_size();
    let swapchain = Swapchain::new(&gpu, surface, job.unthrottled, (size.width, size.height))?;
    let (w, h) = (swapchain.extent.width.max(1), swapchain.extent.height.max(1));
    let mut session = Session::new(&ViewJob { width: w, height: h, ..job.clone() }, &mut gpu)?;
    session.size = (w, h);
    session.pixels_per_point = window.scale_factor() as f32;
    tracing::info!("present mode {:?}", swapchain.present_mode());
    Ok(Live {
        swapchain,
        stale: false,
        session,
        gpu,
        zero_size: false,
        occluded: false,
        events_applied: None,
        window,
    })
}

/// One redraw: the script's events for this frame, then a frame into the swapchain (or, with
/// no area, a frame not rendered), then its screenshots.
fn tick(live: &mut Live, job: &ViewJob, script: &Script) -> anyhow::Result<()> {
    let frame = live.session.frame;
    if live.events_applied != Some(frame) {
        live.events_applied = Some(frame);
        for event in script.at(frame) {
            apply(live, event)?;
        }
    }
    if live.session.closed {
        return Ok(());
    }
    if live.stale {
        let size = live.window.inner_size();
        live.swapchain.recreate((size.width, size.height))?;
        let e = live.swapchain.extent;
        if e.width > 0 && e.height > 0 {
            live.session.resize(&mut live.gpu, (e.width, e.height))?;
        }
        live.stale = false;
    }
    let no_area = live.zero_size || live.occluded || live.swapchain.extent.width == 0;
    if no_area || live.session.minimised {
        let skipped = live.session.minimised;
        live.session.minimised = true;
        live.session.frame(&mut live.gpu, &FrameSync::default(), |_, _| Ok(()))?;
        live.session.minimised = skipped;
        std::thread::sleep(std::time::Duration::from_millis(10));
        return Ok(());
    }
    live.gpu.wait_next_frame_slot()?;
    let Some((image, suboptimal)) = live.swapchain.acquire()? else {
        live.stale = true;
        return Ok(());
    };
    let waits = [(image.acquired, ash::vk::PipelineStageFlags::TRANSFER)];
    let signals = [image.presented];
    let sync = FrameSync { wait: &waits, signal: &signals };
    let chain = &live.swapchain;
    live.session.frame(&mut live.gpu, &sync, |rec, ldr| {
        chain.record_copy(rec, ldr, &image);
        Ok(())
    })?;
    let fresh = live.swapchain.present(&live.gpu, &image)?;
    live.stale |= suboptimal || !fresh;
    super::screenshots(job, &live.session, &mut live.gpu, frame)
}

/// Applies an event: sizes and minimising through the window, the rest through the session.
fn apply(live: &mut Live, event: &Event) -> anyhow::Result<()> {
    match event {
        Event::Resize(w, h) => {
            // Applied at once where the window system allows it, else when it sends Resized.
            if let Some(size) = live.window.request_inner_size(winit::dpi::PhysicalSize::new(*w, *h)) {
                live.zero_size = size.width == 0 || size.height == 0;
            }
            live.stale = true;
        }
        Event::Minimise | Event::Restore => {
            let minimise = *event == Event::Minimise;
            live.window.set_minimized(minimise);
            live.session.minimised = minimise;
            live.stale |= !minimise;
        }
        other => live.session.apply(other)?,
    }
    Ok(())
}

/// The viewer's event for a window event, if it has one.
fn input(event: &WindowEvent) -> Option<Event> {
    match event {
        WindowEvent::KeyboardInput { event, .. } if !event.repeat => {
            let PhysicalKey::Code(code) = event.physical_key else { return None };
            Some(Event::Key(key(code)?, Some(event.state == ElementState::Pressed)))
        }
        WindowEvent::CursorMoved { position, .. } => Some(Event::Mouse(position.x as f32, position.y as f32)),
        WindowEvent::MouseInput { state, button, .. } => {
            let button = match button {
                MouseButton::Left => Button::Left,
                MouseButton::Right => Button::Right,
                _ => return None,
            };
            Some(Event::Button(button, *state == ElementState::Pressed))
        }
        WindowEvent::MouseWheel { delta, .. } => Some(Event::Scroll(match delta {
            MouseScrollDelta::LineDelta(_, y) => *y,
            MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
        })),
        _ => None,
    }
}

/// The viewer's key for a physical key.
fn key(code: KeyCode) -> Option<Key> {
    Some(match code {
        KeyCode::KeyW => Key::W,
        KeyCode::KeyA => Key::A,
        KeyCode::KeyS => Key::S,
        KeyCode::KeyD => Key::D,
        KeyCode::KeyQ => Key::Q,
        KeyCode::KeyE => Key::E,
        KeyCode::Space => Key::Space,
        KeyCode::KeyF => Key::F,
        KeyCode::KeyR => Key::R,
        KeyCode::Tab => Key::Tab,
        KeyCode::ArrowLeft => Key::Left,
        KeyCode::ArrowRight => Key::Right,
        KeyCode::Escape => Key::Escape,
        _ => return None,
    })
}
