//! One viewer session: the scene, the live settings and the host renderer, the panel, the camera
//! and the input that drives them. The window and the offscreen run share it: each turns its
//! input (a window's, or the script's) into [`Event`]s, calls [`Session::apply`], then
//! [`Session::frame`] with what presents the frame.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use fog::overrides_file::OverridesFile;
use fog::Override;
use settings::{SaveMode, SettingValue, Settings, SettingsFile};

use super::camera::CameraControl;
use super::panel::{self, Action, PanelView, SystemRow};
use super::script::{Button, Event, Key};
use super::stats::Stats;
use super::ViewJob;
use crate::frame::HostRenderer;
use crate::passes::panel::PanelPass;
use crate::scene::Scene;
use crate::vk::context::FrameSync;
use crate::vk::recorder::Recorder;
use crate::vk::resource::Image;
use crate::world::World;
use crate::Gpu;

/// Frames of the fog's temporal passes at the end of the warm-up (as `render` warms up).
const FOG_WARMUP_FRAMES: u32 = crate::cli::render::FOG_WARMUP_FRAMES;

/// Frames whose GPU timings the profiler keeps: the timing table a long session prints when it
/// closes covers at most the last this many frames (the history stays bounded).
const TIMED_FRAMES_KEPT: u32 = 18_000;

/// One system's state in one frame, for the run's report.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FrameRecord {
    /// The frame number (0: the first rendered).
    pub frame: u32,
    /// The scene's time, s.
    pub time_s: f32,
    /// Each system's weight toward fog.
    pub weights: Vec<f32>,
    /// The frame's size, pixels.
    pub size: (u32, u32),
    /// Whether it was rendered (not while minimised).
    pub rendered: bool,
    /// The frame's wall clock on the CPU (panel, recording, submission and any wait for a frame
    /// in flight), ms: a remade resource that stalls shows here, in its frame or the next.
    pub wall_ms: f64,
    /// Of it, the CPU's own work (the wall clock less the waits for the GPU), ms.
    pub cpu_ms: f64,
}

/// The viewer's state.
pub struct Session {
    /// The scene shown.
    pub scene: Scene,
    /// The live settings.
    pub settings: Settings,
    file: SettingsFile,
    changed: BTreeSet<&'static str>,
    overrides_path: PathBuf,
    overrides_changed: bool,
    world: World,
    /// The host renderer.
    pub renderer: HostRenderer,
    panel_pass: PanelPass,
    egui: egui::Context,
    input: Vec<egui::Event>,
    /// The pointer, pixels.
    pointer: egui::Pos2,
    /// Pixels per egui point (a window's scale factor; 1 offscreen).
    pub pixels_per_point: f32,
    /// The camera and the scene's clock.
    pub control: CameraControl,
    /// Whether the panel is drawn.
    pub panel_visible: bool,
    selected: Option<usize>,
    /// Events naming systems before the first frame made them, applied after it.
    waiting: Vec<Event>,
    /// A frame was rendered (the scene's systems exist from then on, if it has any).
    rendered_once: bool,
    /// Frame, CPU and GPU times and the fog's counts.
    pub stats: Stats,
    status: String,
    /// The frame's size, pixels.
    pub size: (u32, u32),
    /// Minimised: frames are not rendered.
    pub minimised: bool,
    /// The run should end.
    pub closed: bool,
    /// Frames so far (rendered or not).
    pub frame: u32,
    dt_s: f32,
    /// Per frame: the systems' weights (the run's report).
    pub records: Vec<FrameRecord>,
}

impl Session {
    /// Loads the scene and settings, makes the world and renderer, and warms the scene up.
    pub fn new(job: &ViewJob, gpu: &mut Gpu) -> anyhow::Result<Session> {
        let settings_path = job.settings_file.clone();
        let render_job = crate::cli::render::RenderJob {
            scene: job.scene.clone(),
            width: job.width,
            height: job.height,
            frames: 1,
            warmup: job.warmup,
            fps: job.fps,
            out: PathBuf::new(),
            last_only: true,
            particles_only: false,
            export_density: None,
            export_mitsuba: None,
            settings_file: Some(settings_path.clone()),
            overrides: job.overrides.clone(),
        };
        let (scene, settings) = crate::cli::render::load_scene(&render_job)?;
        crate::textures::check_used(&scene)?;
        let file = SettingsFile::open(&settings_path)?;
        let mut world = World::new(gpu, &scene)?;
        let mut renderer = HostRenderer::new(gpu, job.width, job.height)?;
        renderer.frame_dt_s = 1.0 / job.fps;
        warm_up(&mut renderer, (gpu, &mut world), (&scene, &settings), job)?;
        gpu.profiler.clear();
        let mut control = CameraControl::default();
        control.time_s = job.warmup as f32 / job.fps;
        Ok(Session {
            status: format!("settings: {}", settings_path.display()),
            overrides_path: fog::overrides_file::beside(&settings_path),
            scene,
            settings,
            file,
            changed: BTreeSet::new(),
            overrides_changed: false,
            world,
            renderer,
            panel_pass: PanelPass::new(gpu)?,
            egui: egui::Context::default(),
            input: Vec::new(),
            pointer: egui::Pos2::ZERO,
            pixels_per_point: 1.0,
            control,
            panel_visible: true,
            selected: None,
            waiting: Vec::new(),
            rendered_once: false,
            stats: Stats::default(),
            size: (job.width, job.height),
            minimised: false,
            closed: false,
            frame: 0,
            dt_s: 1.0 / job.fps,
            records: Vec::new(),
        })
    }

    /// Applies one input event. Resizing is the caller's (a window's swapchain, or
    /// [`Session::resize`]); so are minimising and restoring a window.
    pub fn apply(&mut self, event: &Event) -> anyhow::Result<()> {
        match event {
            Event::Set(name, text) => {
                let desc = settings::find(name).ok_or_else(|| anyhow::anyhow!("no setting {name}"))?;
                self.settings.set_text(desc.name, text)?;
                self.changed.insert(desc.name);
            }
            Event::Toggle(name) => {
                let desc = settings::find(name).ok_or_else(|| anyhow::anyhow!("no setting {name}"))?;
                if let SettingValue::Boolean(on) = self.settings.get(desc.name)? {
                    self.set(desc.name, SettingValue::Boolean(!on))?;
                }
            }
            Event::Debug(mode) => self.set("RenderVKParticleFogDebug", SettingValue::S32(mode.as_i32()))?,
            Event::Override(..) | Event::Select(_) => self.apply_to_system(event)?,
            Event::Key(key, down) => self.key(*key, *down),
            Event::Mouse(x, y) => self.pointer_to(egui::pos2(*x, *y)),
            Event::Button(button, down) => self.button(*button, *down),
            Event::Click(x, y) => {
                self.pointer_to(egui::pos2(*x, *y));
                self.button(Button::Left, true);
                self.button(Button::Left, false);
            }
            Event::Scroll(steps) => self.scroll(*steps),
            Event::Minimise => self.minimised = true,
            Event::Restore => self.minimised = false,
            Event::Panel(on) => self.panel_visible = *on,
            Event::Pause => self.control.playing = false,
            Event::Play => self.control.playing = true,
            Event::Time(t) => self.control.time_s = *t,
            Event::Follow(on) => self.control.set_follow(*on, &self.scene),
            Event::ResetView => self.control.reset(),
            Event::Save => self.save()?,
            Event::Close => self.closed = true,
            Event::Resize(..) => {}
        }
        Ok(())
    }

    /// Sets one setting (a panel control or a script's value).
    fn set(&mut self, name: &'static str, value: SettingValue) -> anyhow::Result<()> {
        self.settings.set(name, value)?;
        self.changed.insert(name);
        Ok(())
    }

    /// A key: the viewer's own (Tab, Escape) or the camera's.
    fn key(&mut self, key: Key, down: Option<bool>) {
        let presses = match down {
            None => vec![true, false],
            Some(d) => vec![d],
        };
        for pressed in presses {
            match key {
                Key::Tab if pressed => self.panel_visible = !self.panel_visible,
                Key::Escape if pressed => self.closed = true,
                _ => self.control.key(key, pressed, &self.scene),
            }
        }
    }

    /// The pointer moved to `pos` pixels: to egui (in points), and to the camera's mouse look.
    pub fn pointer_to(&mut self, pos: egui::Pos2) {
        let delta = pos - self.pointer;
        self.pointer = pos;
        self.input.push(egui::Event::PointerMoved(self.points(pos)));
        self.control.look((delta.x, delta.y), &self.scene);
    }

    /// A button: the left to egui, the right turns mouse look on while held (off the panel).
    pub fn button(&mut self, button: Button, pressed: bool) {
        match button {
            Button::Left => self.input.push(egui::Event::PointerButton {
                pos: self.points(self.pointer),
                button: egui::PointerButton::Primary,
                pressed,
                modifiers: egui::Modifiers::NONE,
            }),
            Button::Right => self.control.set_looking(pressed && !self.over_panel()),
        }
    }

    /// Wheel steps: the panel's scroll over the panel, else the fly speed.
    pub fn scroll(&mut self, steps: f32) {
        if self.over_panel() {
            self.input.push(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Line,
                delta: egui::vec2(0.0, steps),
                phase: egui::TouchPhase::Move,
                modifiers: egui::Modifiers::NONE,
            });
        } else {
            self.control.scroll(steps);
        }
    }

    /// A position in pixels as egui's points.
    fn points(&self, pos: egui::Pos2) -> egui::Pos2 {
        (pos.to_vec2() / self.pixels_per_point.max(1e-3)).to_pos2()
    }

    fn over_panel(&self) -> bool {
        self.panel_visible && self.egui.is_pointer_over_egui()
    }

    /// An override or selection naming a system by index, name or id; kept until the first
    /// frame has made the systems.
    fn apply_to_system(&mut self, event: &Event) -> anyhow::Result<()> {
        let Some(sp) = self.renderer.particles.as_mut() else {
            anyhow::ensure!(!self.rendered_once, "the scene has no particle systems to select or override");
            self.waiting.push(event.clone());
            return Ok(());
        };
        let (Event::Override(which, _) | Event::Select(which)) = event else { return Ok(()) };
        let systems = &mut sp.systems;
        let index = (0..systems.len())
            .find(|&i| {
                i.to_string() == *which
                    || systems.name(i) == Some(which.as_str())
                    || systems.key(i).is_some_and(|k| k.to_string() == *which)
            })
            .ok_or_else(|| anyhow::anyhow!("no particle system {which:?} (an index, name or id)"))?;
        match event {
            Event::Override(_, o) => self.override_system(index, *o),
            _ => self.select(Some(index)),
        }
        Ok(())
    }

    fn override_system(&mut self, index: usize, o: Override) {
        if let Some(sp) = self.renderer.particles.as_mut() {
            sp.systems.set_override(index, o);
            self.overrides_changed = true;
        }
    }

    fn select(&mut self, index: Option<usize>) {
        self.selected = index;
        if let Some(sp) = self.renderer.particles.as_mut() {
            sp.systems.set_highlight(index);
        }
    }

    /// Remakes the size-dependent targets at `width` x `height` (the simulation is kept).
    pub fn resize(&mut self, gpu: &mut Gpu, (width, height): (u32, u32)) -> anyhow::Result<()> {
        if (width, height) != self.size {
            self.renderer.resize(gpu, width, height)?;
            self.size = (width, height);
        }
        Ok(())
    }

    /// Renders one frame (unless minimised): the panel's input and actions, the frame with the
    /// panel over it, then `present` in the same submission (waiting on and signalling `sync`);
    /// then the clock and camera step on.
    pub fn frame(
        &mut self,
        gpu: &mut Gpu,
        sync: &FrameSync<'_>,
        present: impl FnOnce(&mut Recorder<'_>, &Image) -> crate::Result<()>,
    ) -> anyhow::Result<()> {
        let rendered = !self.minimised;
        let (started, waited) = (Instant::now(), gpu.waited());
        if rendered {
            self.render(gpu, sync, present)?;
            self.rendered_once = true;
            for event in std::mem::take(&mut self.waiting) {
                self.apply(&event)?;
            }
        }
        let weights =
            self.renderer.particles.as_ref().map_or_else(Vec::new, |sp| sp.systems.weights().to_vec());
        let time_s = self.control.time_s;
        let wall = started.elapsed();
        let cpu = wall.saturating_sub(gpu.waited() - waited);
        self.records.push(FrameRecord {
            frame: self.frame,
            time_s,
            weights,
            size: self.size,
            rendered,
            wall_ms: wall.as_secs_f64() * 1e3,
            cpu_ms: cpu.as_secs_f64() * 1e3,
        });
        self.control.step(self.dt_s, &self.scene);
        self.frame += 1;
        Ok(())
    }

    fn render(
        &mut self,
        gpu: &mut Gpu,
        sync: &FrameSync<'_>,
        present: impl FnOnce(&mut Recorder<'_>, &Image) -> crate::Result<()>,
    ) -> anyhow::Result<()> {
        let (started, waited) = (Instant::now(), gpu.waited());
        if self.frame > 0 && self.frame.is_multiple_of(TIMED_FRAMES_KEPT) {
            gpu.profiler.clear();
        }
        if self.panel_visible {
            self.run_panel(gpu)?;
        } else {
            self.input.clear();
        }
        let time_s = self.control.time_s;
        let path = self.scene.camera_at(time_s);
        self.renderer.camera = self.control.fly.map(|fly| fly.camera(&path));
        self.renderer.frame_dt_s = if self.control.playing { self.dt_s } else { 0.0 };
        let (panel, visible) = (&mut self.panel_pass, self.panel_visible);
        self.renderer.render_then(
            gpu,
            &mut self.world,
            (&self.scene, &self.settings, time_s),
            sync,
            |rec, t| {
                if visible {
                    panel.record(rec, &t.ldr)?;
                }
                present(rec, &t.ldr)
            },
        )?;
        let wall = started.elapsed();
        let cpu = wall.saturating_sub(gpu.waited() - waited);
        self.stats.record((wall.as_secs_f64() * 1e3, cpu.as_secs_f64() * 1e3), gpu.profiler.last_frame());
        self.stats.fog = self.renderer.fog_stats(gpu);
        Ok(())
    }

    /// Runs egui over this frame's input, applies what the person changed, and hands the
    /// panel's triangles to its pass.
    fn run_panel(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        let (w, h) = self.size;
        let ppp = self.pixels_per_point.max(1e-3);
        let mut viewports = egui::ViewportIdMap::default();
        let native = egui::ViewportInfo { native_pixels_per_point: Some(ppp), ..Default::default() };
        viewports.insert(egui::ViewportId::ROOT, native);
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(w as f32, h as f32) / ppp,
            )),
            viewports,
            time: Some(f64::from(self.frame) * f64::from(self.dt_s)),
            predicted_dt: self.dt_s,
            events: std::mem::take(&mut self.input),
            ..egui::RawInput::default()
        };
        let systems = self.system_rows();
        let status = self.status.clone();
        let mut actions = Vec::new();
        let view = PanelView {
            settings: &self.settings,
            stats: &self.stats,
            systems: &systems,
            selected: self.selected,
            control: &self.control,
            status: &status,
        };
        let mut output = self.egui.run_ui(input, |ui| actions = panel::draw(ui, &view));
        let ppp = output.pixels_per_point;
        let primitives = self.egui.tessellate(std::mem::take(&mut output.shapes), ppp);
        let prepared = self.panel_pass.prepare(gpu, &output.textures_delta, &primitives, (w, h, ppp));
        // Handled (or failed with the run): egui asks that no delta is dropped unseen.
        output.textures_delta.clear();
        prepared?;
        for action in actions {
            self.act(action)?;
        }
        Ok(())
    }

    fn act(&mut self, action: Action) -> anyhow::Result<()> {
        match action {
            Action::Set(name, value) => self.set(name, value)?,
            Action::Override(index, o) => self.override_system(index, o),
            Action::Select(index) => self.select(index),
            Action::Save => self.save()?,
            Action::ResetView => self.control.reset(),
            Action::Follow(on) => self.control.set_follow(on, &self.scene),
            Action::Playing(on) => self.control.playing = on,
            Action::Time(t) => self.control.time_s = t,
        }
        Ok(())
    }

    /// The systems list: `classify`'s words for each system, its weight and bricks.
    pub fn system_rows(&self) -> Vec<SystemRow> {
        let Some(sp) = self.renderer.particles.as_ref() else { return Vec::new() };
        let s = &sp.systems;
        let bricks = |name: &str| {
            self.stats
                .fog
                .as_ref()
                .and_then(|f| f.bricks_by_system.iter().find(|b| b.name == name))
                .map_or(0, |b| b.bricks)
        };
        (0..s.len())
            .filter_map(|i| {
                let e = s.explain(i)?;
                let name = s.name(i)?.to_owned();
                Some(SystemRow {
                    index: i,
                    id: s.key(i).map_or_else(String::new, |k| k.to_string()),
                    verdict: e.verdict.as_str().to_owned(),
                    score: e.score,
                    weight: s.weight(i),
                    decision: e.decision,
                    to_change: e.to_change,
                    rule: e.rule.to_owned(),
                    override_in_force: s.override_of(i),
                    bricks: bricks(&name),
                    name,
                })
            })
            .collect()
    }

    /// Writes the settings changed in this session into the settings file (foreign keys and
    /// the rest kept) and, when an override changed, every system's override into the
    /// overrides file beside it.
    pub fn save(&mut self) -> anyhow::Result<()> {
        for name in &self.changed {
            self.file.set(name, self.settings.get(name)?)?;
        }
        self.file.save(SaveMode::Normal)?;
        let mut saved = format!("saved {}", self.file.path().display());
        if let (true, Some(sp)) = (self.overrides_changed, self.renderer.particles.as_ref()) {
            let mut overrides = OverridesFile::open(&self.overrides_path)?;
            sp.systems.store_overrides(&mut overrides);
            overrides.save(SaveMode::Normal)?;
            saved.push_str(&format!(" and {}", self.overrides_path.display()));
        }
        tracing::info!("{saved}");
        self.status = saved;
        Ok(())
    }

    /// Whether anything would be saved: a setting or an override changed.
    pub fn unsaved(&self) -> bool {
        !self.changed.is_empty() || self.overrides_changed
    }

    /// The last save's outcome (or where settings are saved).
    pub fn status_line(&self) -> &str {
        &self.status
    }

    /// The settings file.
    pub fn settings_path(&self) -> &Path {
        self.file.path()
    }
}

/// The warm-up: `job.warmup` frames of particle simulation, the last [`FOG_WARMUP_FRAMES`] of
/// them also running the fog's temporal passes.
fn warm_up(
    renderer: &mut HostRenderer,
    (gpu, world): (&mut Gpu, &mut World),
    (scene, settings): (&Scene, &Settings),
    job: &ViewJob,
) -> crate::Result<()> {
    for frame in 0..job.warmup {
        let t = frame as f32 / job.fps;
        renderer.simulate(gpu, scene, settings, t)?;
        if frame + FOG_WARMUP_FRAMES >= job.warmup {
            renderer.warm_fog(gpu, world, scene, settings, t)?;
        }
    }
    Ok(())
}
