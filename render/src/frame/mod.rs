//! One frame of the host renderer: the passes in order, nothing else. Per-frame constants and
//! camera-dependent shadow views are written before the submission; each pass records itself.
//! The particles' part of the order is in [`particles`], the fog's in [`fog`].
//!
//! Order: `host.shadow` (the atlas layers whose view changed) -> `host.opaque` (forward-lit HDR + depth) ->
//! `particles.emit` -> (`particles.ribbons`) -> `particles.update` -> (`particles.ribbons`) ->
//! (particle fog: `fog.brick_age` -> `fog.brick_mark` -> `fog.brick_alloc` -> `fog.brick_splat` ->
//! `fog.brick_splat.wide` -> `fog.brick_resolve` -> `fog.brick_clear`) -> `fog.froxel_inject` -> `fog.froxel_temporal` ->
//! `fog.froxel_integrate` -> `fog.apply` (or `fog.reference` with
//! `RenderVKVolumetricFogReference`; when `RenderVKVolumetricFog` is on) -> (`fog.brick_march` ->
//! `fog.brick_bounds` with the debug views 2 and 3) ->
//! `particles.cull` -> `particles.sort` -> (`particles.batch`) -> `particles.billboards`
//! (alpha-blended, each fragment fogged at its own depth, converted systems faded by
//! `1 - weight`; when the scene has particle sources and `RenderMaxPartCount` > 0; also the glow
//! mask) -> `host.glow` (when a source has glow) -> `host.tonemap` (HDR + bloom -> sRGB RGBA8) ->
//! `particles.hud` (when a source is a HUD attachment).
//!
//! With [`HostRenderer::particles_only`] the opaque and fog passes are skipped: the HDR target is
//! cleared to black and the depth to the far plane, and only the particles are drawn (still lit,
//! and shadowed by the scene's objects through the shadow pass, as in the full frame).

pub mod features;
pub mod fog;
pub mod particles;
pub mod views;

use ash::vk;
use glam::Vec3;
use settings::Settings;

use self::features::{Feature, FeaturesOff};
use self::fog::FrameFog;
use self::particles::{ParticlePasses, SceneParticles};
use crate::error::Result;
use crate::gpu_types::FrameUniform;
use crate::particle_fog::stats::{FogStats, SystemBricks};
use crate::particles_gpu::ParticleBudget;
use crate::passes::billboards::pipeline::HUD_TARGET_FORMAT;
use crate::passes::glow::{self, GlowPass, GLOW_STRENGTH};
use crate::passes::opaque::{OpaquePass, DEPTH_FORMAT, HDR_FORMAT};
use crate::passes::shadow::ShadowPass;
use crate::passes::tonemap::{Bloom, TonemapPass};
use crate::scene::{Camera as SceneCamera, Scene};
use crate::view::{sun_shadow_distance_m, CameraView, CASCADES};
use crate::vk::context::{FrameSync, Gpu};
use crate::vk::graphics::Attachment;
use crate::vk::recorder::Recorder;
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::vk::sampler::Samplers;
use crate::world::{World, SHADOW_MAP_SIZE};

/// Frame step when none is set, s (30 fps).
pub const DEFAULT_FRAME_DT_S: f32 = 1.0 / 30.0;

/// The frame's render targets.
pub struct Targets {
    /// Linear HDR radiance.
    pub hdr: Image,
    /// Depth (sampled by later passes).
    pub depth: Image,
    /// The displayable result, sRGB-encoded RGBA8.
    pub ldr: Image,
    /// The particles' glow mask ([`glow::MASK_FORMAT`]; cleared by `particles.billboards`).
    pub glow: Image,
}

impl Targets {
    fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Targets> {
        let extent = vk::Extent3D { width, height, depth: 1 };
        let image = |name, format, usage| {
            gpu.create_image(&ImageDesc {
                name,
                kind: vk::ImageType::TYPE_2D,
                format,
                extent,
                layers: 1,
                array: false,
                mips: 1,
                usage,
            })
        };
        use vk::ImageUsageFlags as U;
        Ok(Targets {
            hdr: image(
                "frame.hdr",
                HDR_FORMAT,
                U::COLOR_ATTACHMENT | U::STORAGE | U::SAMPLED | U::TRANSFER_SRC,
            )?,
            depth: image(
                "frame.depth",
                DEPTH_FORMAT,
                U::DEPTH_STENCIL_ATTACHMENT | U::SAMPLED | U::TRANSFER_SRC | U::TRANSFER_DST,
            )?,
            ldr: image("frame.ldr", HUD_TARGET_FORMAT, U::STORAGE | U::TRANSFER_SRC | U::COLOR_ATTACHMENT)?,
            glow: image("frame.glow", glow::MASK_FORMAT, U::COLOR_ATTACHMENT | U::SAMPLED | U::TRANSFER_SRC)?,
        })
    }
}

/// The host renderer: passes, samplers, targets and the frame constants.
pub struct HostRenderer {
    shadow: ShadowPass,
    opaque: OpaquePass,
    tonemap: TonemapPass,
    glow: GlowPass,
    particle_passes: ParticlePasses,
    /// The scene's particles on the GPU (made on the first frame of a scene with particle sources
    /// when `RenderMaxPartCount` > 0).
    pub particles: Option<SceneParticles>,
    /// Simulation step per frame, s (`1 / fps` of the CLI).
    pub frame_dt_s: f32,
    /// Draw only the particle systems (no shadow, opaque or fog passes; black background).
    pub particles_only: bool,
    /// Replaces the budget the settings give (`None`: follow `RenderMaxPartCount`). Tests that
    /// need every candidate drawn use [`ParticleBudget::Unlimited`]: a fresh viewer's burst share
    /// of one half would drop half of them at random.
    pub budget_override: Option<ParticleBudget>,
    /// The fog: its passes, the froxel fog's resources and the particle fog's bricks.
    pub fog: FrameFog,
    /// Features a device error turned off (out of memory while making their resources).
    pub features_off: FeaturesOff,
    samplers: Samplers,
    frame_buf: Buffer,
    /// The render targets.
    pub targets: Targets,
    /// Replaces the scene's camera (a viewer's fly camera); `None`: the scene's camera at the
    /// frame's time ([`Scene::camera_at`]).
    pub camera: Option<SceneCamera>,
    /// CPU time the last [`HostRenderer::render`] spent on the particle systems (sources,
    /// classification and cross-fades, emitter constants, the fog's sources and bricks' set-up):
    /// the per-system CPU work of a frame, which must not grow with the particles.
    pub systems_cpu: std::time::Duration,
    frame_index: u32,
}

impl HostRenderer {
    /// Creates the passes and `width` x `height` targets.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<HostRenderer> {
        Ok(HostRenderer {
            shadow: ShadowPass::new(gpu)?,
            opaque: OpaquePass::new(gpu, width, height)?,
            tonemap: TonemapPass::new(gpu)?,
            glow: GlowPass::new(gpu, width, height)?,
            particle_passes: ParticlePasses::new(gpu, width, height)?,
            particles: None,
            frame_dt_s: DEFAULT_FRAME_DT_S,
            particles_only: false,
            budget_override: None,
            fog: FrameFog::new(gpu, width, height)?,
            features_off: FeaturesOff::default(),
            samplers: Samplers::new(gpu)?,
            frame_buf: gpu.create_buffer(&BufferDesc {
                name: "frame.constants",
                size: std::mem::size_of::<FrameUniform>() as u64,
                usage: vk::BufferUsageFlags::UNIFORM_BUFFER,
                location: MemoryLocation::Staged,
            })?,
            targets: Targets::new(gpu, width, height)?,
            camera: None,
            systems_cpu: std::time::Duration::ZERO,
            frame_index: 0,
        })
    }

    /// Advances the scene's particles to time `time_s` without drawing anything (and waits): the
    /// same simulation step [`HostRenderer::render`] takes, for warming a scene up to a steady
    /// state cheaply.
    pub fn simulate(&mut self, gpu: &mut Gpu, scene: &Scene, settings: &Settings, time_s: f32) -> Result<()> {
        if !self.prepare_particles(gpu, scene, settings, time_s)? {
            return Ok(());
        }
        let Some(sp) = self.particles.as_mut() else { return Ok(()) };
        let sim = &self.particle_passes.sim;
        gpu.submit(|rec| {
            particles::record_simulation(rec, &mut sp.pool, sim);
            Ok(())
        })
    }

    /// The particle fog's counts for the newest completed frame (`None` while it is off).
    pub fn fog_stats(&self, gpu: &Gpu) -> Option<FogStats> {
        let pf = self.fog.bricks.as_ref()?;
        let sp = self.particles.as_ref()?;
        Some(FogStats {
            systems_converted: sp.systems.converted(),
            systems_demoted: sp.systems.demoted(),
            bricks_by_system: SystemBricks::ranked(&pf.bricks_by_source(gpu), |i| sp.systems.name(i)),
            ..pf.stats.clone()
        })
    }

    /// Renders `scene` at time `time_s` with `settings` into the targets: submitted without
    /// waiting when the `Gpu` keeps frames in flight ([`Gpu::submit_frame`]; reading the targets
    /// back waits for it), else submitted and waited for.
    pub fn render(
        &mut self,
        gpu: &mut Gpu,
        world: &mut World,
        scene: &Scene,
        settings: &Settings,
        time_s: f32,
    ) -> Result<()> {
        self.render_then(gpu, world, (scene, settings, time_s), &FrameSync::default(), |_, _| Ok(()))
    }

    /// Remakes the size-dependent passes and targets at `width` x `height`; the particles (their
    /// simulation and classification), the particle fog's bricks and the froxel fog (its grid and
    /// history do not depend on the size) are kept. Waits for the frames in flight first.
    pub fn resize(&mut self, gpu: &mut Gpu, width: u32, height: u32) -> Result<()> {
        gpu.wait_frames()?;
        self.opaque = OpaquePass::new(gpu, width, height)?;
        self.glow = GlowPass::new(gpu, width, height)?;
        self.particle_passes = ParticlePasses::new(gpu, width, height)?;
        let (bricks, froxel) = (self.fog.bricks.take(), self.fog.froxel.take());
        self.fog = FrameFog::new(gpu, width, height)?;
        (self.fog.bricks, self.fog.froxel) = (bricks, froxel);
        self.targets = Targets::new(gpu, width, height)?;
        Ok(())
    }

    /// [`HostRenderer::render`], with `after` recording more passes into the same submission once
    /// the frame is in the targets (a viewer's panel over the LDR image, its copy to a window),
    /// and the submission waiting on and signalling `sync`'s semaphores.
    pub fn render_then(
        &mut self,
        gpu: &mut Gpu,
        world: &mut World,
        (scene, settings, time_s): (&Scene, &Settings, f32),
        sync: &FrameSync<'_>,
        after: impl FnOnce(&mut Recorder<'_>, &Targets) -> Result<()>,
    ) -> Result<()> {
        let (cam, view) = self.begin_frame(world, scene, settings, time_s);
        self.prepare_froxel(gpu, scene, settings, &view)?;
        let (started, waited) = (std::time::Instant::now(), gpu.waited());
        let particles_on = self.prepare_particles(gpu, scene, settings, time_s)?;
        // An upload inside may wait for the GPU: like the frame's CPU, the systems' excludes it.
        self.systems_cpu = started.elapsed().saturating_sub(gpu.waited() - waited);
        let background = scene.ambient.sky.extend(1.0).to_array();
        gpu.submit_frame_synced(sync, |rec| {
            self.record_host(rec, world, background)?;
            self.record_simulation(rec, particles_on);
            let lit = (world.light_inputs(&self.frame_buf), &self.samplers);
            let t = &self.targets;
            let reference = settings.volumetric_fog_reference;
            self.fog.record_froxel(rec, lit, reference, (&t.depth, &t.hdr));
            if particles_on {
                let carriers = self.particles.as_ref().and_then(|sp| sp.carriers());
                self.fog.record_march(rec, lit, (&t.depth, &t.hdr), (settings, time_s), carriers)?;
            }
            self.record_particles(rec, world, &view, particles_on)?;
            self.record_post(rec, cam.exposure, particles_on);
            self.record_hud(rec, world, &view, particles_on)?;
            after(rec, &self.targets)
        })?;
        world.shadows_drawn();
        if let Some(pf) = self.fog.bricks.as_mut().filter(|_| particles_on) {
            pf.finish_frame(gpu);
        }
        Ok(())
    }

    /// Draws the opaque surfaces alone (`host.shadow`, `host.opaque`, `host.lighting`) into the
    /// HDR target with the last frame's constants, and waits: the frame's surfaces without fog or
    /// particles, for comparisons and exports.
    pub fn render_surfaces(&mut self, gpu: &mut Gpu, world: &mut World, scene: &Scene) -> Result<()> {
        let background = scene.ambient.sky.extend(1.0).to_array();
        gpu.submit(|rec| self.record_host(rec, world, background))?;
        world.shadows_drawn();
        Ok(())
    }

    /// `host.shadow`, then `host.opaque` over `background` (or, particles only, cleared targets).
    fn record_host(&self, rec: &mut Recorder<'_>, world: &World, background: [f32; 4]) -> Result<()> {
        self.shadow.record(rec, world)?;
        let t = &self.targets;
        if self.particles_only {
            return clear_targets(rec, t);
        }
        self.opaque.record(
            rec,
            (&world.light_inputs(&self.frame_buf), world, &self.samplers),
            &t.hdr,
            &t.depth,
            background,
        )
    }

    /// The particle simulation and then the particle fog's brick passes over its carriers.
    fn record_simulation(&mut self, rec: &mut Recorder<'_>, particles_on: bool) {
        let Some(sp) = self.particles.as_mut().filter(|_| particles_on) else { return };
        particles::record_simulation(rec, &mut sp.pool, &self.particle_passes.sim);
        self.fog.record_bricks(rec, &sp.pool, &sp.fog_sources);
    }

    /// Cull, sort and billboards of the particles (after the fog).
    fn record_particles(
        &mut self,
        rec: &mut Recorder<'_>,
        world: &World,
        view: &CameraView,
        particles_on: bool,
    ) -> Result<()> {
        let Some(sp) = self.particles.as_mut().filter(|_| particles_on) else { return Ok(()) };
        let lit = (world.light_inputs(&self.frame_buf), &self.samplers, self.fog.froxel.as_ref());
        self.particle_passes.record(rec, sp, view, lit, (&self.targets, self.fog.cloud()))
    }

    /// `host.glow` (when a source glows) and `host.tonemap` with `exposure`.
    fn record_post(&self, rec: &mut Recorder<'_>, exposure: f32, particles_on: bool) {
        let t = &self.targets;
        let glowing = particles_on && self.particles.as_ref().is_some_and(|sp| sp.glowing);
        if glowing {
            self.glow.record(rec, &t.hdr, &t.glow, self.samplers.nearest_clamp);
        }
        let strength = if glowing { GLOW_STRENGTH } else { 0.0 };
        let bloom = Bloom { image: self.glow.bloom(), sampler: self.samplers.linear_clamp, strength };
        self.tonemap.record(rec, &t.hdr, &t.ldr, exposure, bloom);
    }

    /// `particles.hud` over the tone-mapped frame.
    fn record_hud(
        &self,
        rec: &mut Recorder<'_>,
        world: &World,
        view: &CameraView,
        particles_on: bool,
    ) -> Result<()> {
        let Some(sp) = self.particles.as_ref().filter(|_| particles_on) else { return Ok(()) };
        let lit = (world.light_inputs(&self.frame_buf), &self.samplers, self.fog.froxel.as_ref());
        self.particle_passes.record_hud(rec, sp, view, lit, &self.targets)
    }

    /// Runs the fog's temporal passes for one frame at `time_s` (shadows, `fog.froxel_inject`,
    /// `fog.froxel_temporal`) and nothing else, and waits: a warm-up that leaves the fog history
    /// converged for the next [`HostRenderer::render`] at a fraction of a frame's cost.
    pub fn warm_fog(
        &mut self,
        gpu: &mut Gpu,
        world: &mut World,
        scene: &Scene,
        settings: &Settings,
        time_s: f32,
    ) -> Result<()> {
        if self.particles_only {
            return Ok(());
        }
        let (_, view) = self.begin_frame(world, scene, settings, time_s);
        self.prepare_froxel(gpu, scene, settings, &view)?;
        if self.fog.froxel.is_none() {
            return Ok(());
        }
        gpu.submit(|rec| {
            self.shadow.record(rec, world)?;
            self.fog.record_warm_froxel(rec, (world.light_inputs(&self.frame_buf), &self.samplers));
            Ok(())
        })?;
        world.shadows_drawn();
        Ok(())
    }

    /// Runs the particle fog's brick passes over the particles [`HostRenderer::simulate`] just
    /// advanced, waits, and reads their counters: a warm-up that sizes the brick pool for the next
    /// [`HostRenderer::render`] ([`crate::particle_fog::sizing`]); nothing without bricks.
    pub fn warm_bricks(&mut self, gpu: &mut Gpu) -> Result<()> {
        let (Some(sp), Some(_)) = (self.particles.as_ref(), self.fog.bricks.as_ref()) else { return Ok(()) };
        let fog = &mut self.fog;
        gpu.submit(|rec| {
            fog.record_bricks(rec, &sp.pool, &sp.fog_sources);
            Ok(())
        })?;
        if let Some(pf) = self.fog.bricks.as_mut() {
            pf.finish_frame(gpu);
        }
        Ok(())
    }

    /// The froxel fog for this frame: none for particles-only frames or once a device error
    /// turned it off ([`features`]).
    fn prepare_froxel(
        &mut self,
        gpu: &mut Gpu,
        scene: &Scene,
        settings: &Settings,
        view: &CameraView,
    ) -> Result<()> {
        if self.particles_only || self.features_off.is_off(Feature::VolumetricFog) {
            self.fog.froxel = None;
            return Ok(());
        }
        let made = self.fog.prepare_froxel(gpu, scene, settings, view);
        if self.features_off.settle(Feature::VolumetricFog, made)?.is_none() {
            self.fog.froxel = None;
        }
        Ok(())
    }

    /// The camera and view at `time_s`; writes the frame constants and this frame's shadow views
    /// (the sun's cascades reach the froxel fog's range when the fog is on).
    fn begin_frame(
        &mut self,
        world: &mut World,
        scene: &Scene,
        settings: &Settings,
        time_s: f32,
    ) -> (SceneCamera, CameraView) {
        let (w, h) = (self.targets.ldr.extent.width, self.targets.ldr.extent.height);
        let cam = self.camera.unwrap_or_else(|| scene.camera_at(time_s));
        let view = CameraView::new(cam.position, cam.target, cam.fov_y_deg, w as f32 / h as f32);
        let to_sun = scene.sun.direction.try_normalize().unwrap_or(Vec3::Z);
        let fog_range = (settings.volumetric_fog && !self.particles_only).then_some(settings.froxel_range_m);
        let cascade_far = world.update_shadow_views(&view, to_sun, sun_shadow_distance_m(fog_range));
        let constants = frame_uniform(scene, &view, world, cascade_far, (w, h), self.frame_index);
        self.frame_buf.write(0, bytemuck::bytes_of(&constants));
        self.frame_index = self.frame_index.wrapping_add(1);
        (cam, view)
    }

    /// Reads the last frame back as tightly packed RGBA8 (sRGB-encoded).
    pub fn read_ldr(&self, gpu: &mut Gpu) -> Result<Vec<u8>> {
        gpu.read_image(&self.targets.ldr)
    }

    /// Reads the last frame's linear HDR radiance back (RGBA16F as f32 per channel).
    pub fn read_hdr(&self, gpu: &mut Gpu) -> Result<Vec<[f32; 4]>> {
        let bytes = gpu.read_image(&self.targets.hdr)?;
        let halves: &[u16] = bytemuck::cast_slice(&bytes);
        Ok(halves
            .chunks_exact(4)
            .map(|c| std::array::from_fn(|i| crate::vk::conv::f16_to_f32(c[i])))
            .collect())
    }
}

/// Clears the HDR target to black and the depth to the far plane (particles-only frames).
fn clear_targets(rec: &mut Recorder<'_>, t: &Targets) -> Result<()> {
    let black = vk::ClearValue { color: vk::ClearColorValue { float32: [0.0, 0.0, 0.0, 1.0] } };
    let far = vk::ClearValue { depth_stencil: vk::ClearDepthStencilValue { depth: 1.0, stencil: 0 } };
    let color = Attachment { image: &t.hdr, clear: Some(black), layer: None };
    let depth = Attachment { image: &t.depth, clear: Some(far), layer: None };
    rec.render("frame.clear", &[color], Some(depth), &[], &[], |_| ())
}

fn frame_uniform(
    scene: &Scene,
    view: &CameraView,
    world: &World,
    cascade_far: [f32; 4],
    (w, h): (u32, u32),
    index: u32,
) -> FrameUniform {
    let s = &scene.sun;
    let to_sun = s.direction.try_normalize().unwrap_or(Vec3::Z);
    FrameUniform {
        clip_from_world: view.clip_from_world.to_cols_array_2d(),
        world_from_clip: view.clip_from_world.inverse().to_cols_array_2d(),
        camera_pos: view.position.extend(scene.camera.exposure).to_array(),
        sun_dir: to_sun.extend(s.illuminance).to_array(),
        sun_color: s.color.extend(if s.shadows { 1.0 } else { 0.0 }).to_array(),
        ambient_sky: scene.ambient.sky.extend(0.0).to_array(),
        ambient_ground: scene.ambient.ground.extend(0.0).to_array(),
        cascade_far,
        screen: [w as f32, h as f32, 1.0 / w as f32, 1.0 / h as f32],
        counts: [world.light_count, CASCADES as u32, index, SHADOW_MAP_SIZE],
    }
}
