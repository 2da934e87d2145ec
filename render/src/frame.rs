//! One frame of the host renderer: the passes in order, nothing else. Per-frame constants and
//! camera-dependent shadow views are written before the submission; each pass records itself.
//!
//! Order: `host.shadow` (every atlas layer) -> `host.opaque` (forward-lit HDR + depth) ->
//! `particles.emit` -> (`particles.ribbons`) -> `particles.update` -> (`particles.ribbons`) ->
//! (particle fog: `fog.brick_age` -> `fog.brick_mark` -> `fog.brick_alloc` -> `fog.brick_splat` ->
//! `fog.brick_splat.wide` -> `fog.brick_resolve` -> `fog.brick_clear`) -> `fog.froxel_inject` -> `fog.froxel_temporal` ->
//! `fog.froxel_integrate` -> `fog.apply` (or `fog.reference` with
//! `RenderVKVolumetricFogReference`; when `RenderVKVolumetricFog` is on) -> (`fog.brick_march`) ->
//! `particles.cull` -> `particles.sort` -> (`particles.batch`) -> `particles.billboards`
//! (alpha-blended, each fragment fogged at its own depth, converted systems faded by
//! `1 - weight`; when the scene has particle sources and `RenderMaxPartCount` > 0; also the glow
//! mask) -> `host.glow` (when a source has glow) -> `host.tonemap` (HDR + bloom -> sRGB RGBA8) ->
//! `particles.hud` (when a source is a HUD attachment).
//!
//! With [`HostRenderer::particles_only`] the opaque and fog passes are skipped: the HDR target is
//! cleared to black and the depth to the far plane, and only the particles are drawn (still lit,
//! and shadowed by the scene's objects through the shadow pass, as in the full frame).

use ash::vk;
use glam::Vec3;

use crate::error::Result;
use crate::froxel::{FroxelFog, FroxelGrid};
use crate::gpu_types::{FogMarchPush, FrameUniform, GpuFogSource};
use crate::particle_fog::stats::FogStats;
use crate::particle_fog::systems::{BrickPressure, FogSystems};
use crate::particle_fog::{ParticleFog, PoolKey};
use crate::particle_textures::ParticleTextures;
use crate::particles_gpu::{GpuParticles, ParticleBudget, ParticlePoolDesc};
use crate::passes::billboards::pipeline::HUD_TARGET_FORMAT;
use crate::passes::billboards::{is_additive, BillboardInputs, BillboardsPass, BlendPair};
use crate::passes::brick_march::{BrickMarchPass, MarchInputs};
use crate::passes::fog_apply::FogApplyPass;
use crate::passes::fog_reference::FogReferencePass;
use crate::passes::froxel_inject::FroxelInjectPass;
use crate::passes::froxel_integrate::FroxelIntegratePass;
use crate::passes::froxel_temporal::FroxelTemporalPass;
use crate::passes::glow::{self, GlowPass, GLOW_STRENGTH};
use crate::passes::opaque::{OpaquePass, DEPTH_FORMAT, HDR_FORMAT};
use crate::passes::particle_sim::cull::{frustum_planes, ParticleCullPass};
use crate::passes::particle_sim::ParticleSimPasses;
use crate::passes::particle_sort::ParticleSortPass;
use crate::passes::shadow::ShadowPass;
use crate::passes::tonemap::{Bloom, TonemapPass};
use crate::scene::{Camera as SceneCamera, Scene};
use crate::view::{sun_shadow_distance_m, CameraView, CAMERA_FAR_M, CAMERA_NEAR_M, CASCADES};
use crate::vk::context::Gpu;
use crate::vk::graphics::Attachment;
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::vk::sampler::Samplers;
use crate::world::{World, SHADOW_MAP_SIZE};
use particles::sim::{Camera, SourceDesc, SourceId};
use settings::Settings;

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
                U::DEPTH_STENCIL_ATTACHMENT | U::SAMPLED | U::TRANSFER_SRC,
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
    inject: FroxelInjectPass,
    temporal: FroxelTemporalPass,
    integrate: FroxelIntegratePass,
    apply: FogApplyPass,
    march: BrickMarchPass,
    reference: FogReferencePass,
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
    /// The froxel fog's resources (made on first use, remade when the grid settings change).
    pub fog: Option<FroxelFog>,
    /// The particle fog's bricks (made while `RenderVKParticleFog` is on and a system converts;
    /// dropped, with all their memory, when it is switched off).
    pub particle_fog: Option<ParticleFog>,
    samplers: Samplers,
    frame_buf: Buffer,
    /// The render targets.
    pub targets: Targets,
    frame_index: u32,
}

impl HostRenderer {
    /// Creates the passes and `width` x `height` targets.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<HostRenderer> {
        Ok(HostRenderer {
            shadow: ShadowPass::new(gpu)?,
            opaque: OpaquePass::new(gpu)?,
            tonemap: TonemapPass::new(gpu)?,
            glow: GlowPass::new(gpu, width, height)?,
            inject: FroxelInjectPass::new(gpu)?,
            temporal: FroxelTemporalPass::new(gpu)?,
            integrate: FroxelIntegratePass::new(gpu)?,
            apply: FogApplyPass::new(gpu)?,
            march: BrickMarchPass::new(gpu, width, height)?,
            reference: FogReferencePass::new(gpu)?,
            particle_passes: ParticlePasses {
                sim: ParticleSimPasses::new(gpu)?,
                cull: ParticleCullPass::new(gpu)?,
                billboards: BillboardsPass::new(gpu, width, height)?,
            },
            particles: None,
            frame_dt_s: DEFAULT_FRAME_DT_S,
            particles_only: false,
            budget_override: None,
            fog: None,
            particle_fog: None,
            samplers: Samplers::new(gpu)?,
            frame_buf: gpu.create_buffer(&BufferDesc {
                name: "frame.constants",
                size: std::mem::size_of::<FrameUniform>() as u64,
                usage: vk::BufferUsageFlags::UNIFORM_BUFFER,
                location: MemoryLocation::CpuToGpu,
            })?,
            targets: Targets::new(gpu, width, height)?,
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
            sp.pool.record(rec, sim);
            Ok(())
        })
    }

    /// The particle fog's counts for the last rendered frame (`None` while it is off).
    pub fn fog_stats(&self) -> Option<FogStats> {
        let pf = self.particle_fog.as_ref()?;
        let sp = self.particles.as_ref()?;
        Some(FogStats {
            systems_converted: sp.systems.converted(),
            systems_demoted: sp.systems.demoted(),
            ..pf.stats.clone()
        })
    }

    /// Renders `scene` at time `time_s` with `settings` into the targets (and waits).
    pub fn render(
        &mut self,
        gpu: &mut Gpu,
        world: &mut World,
        scene: &Scene,
        settings: &Settings,
        time_s: f32,
    ) -> Result<()> {
        let (cam, view) = self.begin_frame(world, scene, settings, time_s);
        if self.particles_only {
            self.fog = None;
        } else {
            self.prepare_fog(gpu, scene, settings, &view)?;
        }
        let particles_on = self.prepare_particles(gpu, scene, settings, time_s)?;
        let background = scene.ambient.sky.extend(1.0).to_array();
        let t = &self.targets;
        gpu.submit(|rec| {
            self.shadow.record(rec, world)?;
            if self.particles_only {
                clear_targets(rec, t)?;
            } else {
                self.opaque.record(
                    rec,
                    (&self.frame_buf, world, &self.samplers),
                    &t.hdr,
                    &t.depth,
                    background,
                )?;
            }
            if let Some(sp) = self.particles.as_mut().filter(|_| particles_on) {
                sp.pool.record(rec, &self.particle_passes.sim);
                if let Some(pf) = &self.particle_fog {
                    pf.record(rec, &sp.pool, &sp.fog_sources);
                }
            }
            if let Some(fog) = &self.fog {
                self.inject.record(rec, &self.frame_buf, world, fog, &self.samplers);
                self.temporal.record(rec, &self.frame_buf, fog, &self.samplers);
                self.integrate.record(rec, fog, fog.hist_out());
                if settings.volumetric_fog_reference {
                    let lit = (&self.frame_buf, &*world, &self.samplers);
                    self.reference.record(rec, lit, fog, &t.depth, &t.hdr);
                } else {
                    self.apply.record(rec, fog, &self.samplers, &t.depth, &t.hdr);
                }
            }
            if let Some(pf) = self.particle_fog.as_ref().filter(|_| particles_on) {
                let inputs = MarchInputs {
                    frame: &self.frame_buf,
                    world,
                    samplers: &self.samplers,
                    fog: self.fog.as_ref(),
                    bricks: &pf.pool,
                    depth: &t.depth,
                    hdr: &t.hdr,
                };
                self.march.record(rec, &inputs, &march_push(settings, time_s, self.fog.is_some()));
            }
            if let Some(sp) = self.particles.as_mut().filter(|_| particles_on) {
                let fog = self.fog.as_ref();
                let cloud = self.particle_fog.is_some().then_some(&self.march.cloud);
                self.particle_passes.record(
                    rec,
                    sp,
                    &view,
                    (&self.frame_buf, world, &self.samplers, fog),
                    (t, cloud),
                )?;
            }
            let glowing = particles_on && self.particles.as_ref().is_some_and(|sp| sp.glowing);
            if glowing {
                self.glow.record(rec, &t.hdr, &t.glow, self.samplers.nearest_clamp);
            }
            let strength = if glowing { GLOW_STRENGTH } else { 0.0 };
            let bloom = Bloom { image: self.glow.bloom(), sampler: self.samplers.linear_clamp, strength };
            self.tonemap.record(rec, &t.hdr, &t.ldr, cam.exposure, bloom);
            if let Some(sp) = self.particles.as_ref().filter(|_| particles_on) {
                let lit = (&self.frame_buf, &*world, &self.samplers, self.fog.as_ref());
                self.particle_passes.record_hud(rec, sp, &view, lit, t)?;
            }
            Ok(())
        })?;
        if let Some(pf) = self.particle_fog.as_mut().filter(|_| particles_on) {
            pf.finish_frame();
        }
        Ok(())
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
        self.prepare_fog(gpu, scene, settings, &view)?;
        let Some(fog) = &self.fog else { return Ok(()) };
        gpu.submit(|rec| {
            self.shadow.record(rec, world)?;
            self.inject.record(rec, &self.frame_buf, world, fog, &self.samplers);
            self.temporal.record(rec, &self.frame_buf, fog, &self.samplers);
            Ok(())
        })
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
        let cam = scene.camera_at(time_s);
        let view = CameraView::new(cam.position, cam.target, cam.fov_y_deg, w as f32 / h as f32);
        let to_sun = scene.sun.direction.try_normalize().unwrap_or(Vec3::Z);
        let fog_range = (settings.volumetric_fog && !self.particles_only).then_some(settings.froxel_range_m);
        let cascade_far = world.update_shadow_views(&view, to_sun, sun_shadow_distance_m(fog_range));
        let constants = frame_uniform(scene, &view, world, cascade_far, (w, h), self.frame_index);
        self.frame_buf.write(0, bytemuck::bytes_of(&constants));
        self.frame_index = self.frame_index.wrapping_add(1);
        (cam, view)
    }

    /// Makes the particle pool on the first frame of a scene with sources, then applies this
    /// frame's budget (`RenderMaxPartCount`, read every frame), moves the sources along their
    /// motion, sets the wind and the throttling camera and schedules this frame's simulation step.
    /// Returns false when particles are off this frame (`RenderMaxPartCount` 0: nothing is
    /// simulated or drawn, the particles are kept for when it comes back).
    fn prepare_particles(
        &mut self,
        gpu: &mut Gpu,
        scene: &Scene,
        settings: &Settings,
        time_s: f32,
    ) -> Result<bool> {
        let budget = self.budget_override.unwrap_or_else(|| {
            ParticleBudget::for_settings(settings.max_part_count, settings.particle_capacity)
        });
        if budget == ParticleBudget::Off || scene.particles.is_empty() {
            return Ok(false);
        }
        if self.particles.is_none() {
            let mut desc = ParticlePoolDesc::for_settings(settings.particle_capacity);
            let device_cap = crate::particles_gpu::device_capacity(&gpu.limits());
            if desc.capacity > device_cap {
                tracing::warn!(
                    "RenderVKParticleCapacity {} exceeds what this device's maxStorageBufferRange ({} bytes) \
                     holds in one buffer; the pool holds {device_cap} particles",
                    desc.capacity,
                    gpu.limits().max_storage_buffer_range
                );
                desc.capacity = device_cap;
            }
            self.particles = Some(SceneParticles::new(gpu, scene, &desc)?);
        }
        let Some(sp) = self.particles.as_mut() else { return Ok(false) };
        for (src, &id) in scene.particles.iter().zip(&sp.ids) {
            sp.pool.set_source_transform(id, src.position_at(time_s), src.rotation);
            sp.pool.set_target_position(id, src.target);
        }
        sp.pool.set_wind(scene.wind);
        sp.pool.set_budget(match budget {
            ParticleBudget::Limit(n) => Some(n),
            ParticleBudget::Off | ParticleBudget::Unlimited => None,
        });
        let cam = scene.camera_at(time_s);
        let height = self.targets.ldr.extent.height as f32;
        sp.pool.set_camera(Some(Camera::from_viewport(cam.position, height, cam.fov_y_deg.to_radians())));
        sp.pool.prepare(self.frame_dt_s);
        let positions: Vec<Vec3> = scene.particles.iter().map(|src| src.position_at(time_s)).collect();
        let pressure = self.particle_fog.as_ref().map(ParticleFog::pressure).unwrap_or_default();
        sp.update_fog(settings, cam.position, &positions, self.frame_dt_s, pressure);
        self.particle_passes.billboards.prepare(gpu, &sp.pairs, &sp.hud_pairs, sp.glowing)?;
        self.prepare_particle_fog(gpu, settings, cam.position)?;
        Ok(true)
    }

    /// Makes, remakes (voxel size or budget changed) or drops the brick pool for these settings
    /// and writes its constants; the pool exists only while the toggle is on and a system
    /// converts.
    fn prepare_particle_fog(&mut self, gpu: &mut Gpu, settings: &Settings, camera: Vec3) -> Result<()> {
        let Some(sp) = self.particles.as_ref() else {
            self.particle_fog = None;
            return Ok(());
        };
        if !settings.particle_fog || sp.systems.converted() == 0 {
            self.particle_fog = None;
            return Ok(());
        }
        let key = PoolKey::new(settings, sp.pool.desc().max_sources);
        if self.particle_fog.as_ref().is_none_or(|pf| pf.key != key) {
            self.particle_fog = None;
            self.particle_fog = Some(ParticleFog::new(gpu, key)?);
        }
        if let Some(pf) = self.particle_fog.as_mut() {
            // The splat reads the list the update is about to fill.
            pf.prepare(camera, 1 - sp.pool.current_list());
        }
        Ok(())
    }

    /// Makes (or drops, or remakes) the froxel fog for these settings and writes its constants.
    fn prepare_fog(
        &mut self,
        gpu: &mut Gpu,
        scene: &Scene,
        settings: &Settings,
        view: &CameraView,
    ) -> Result<()> {
        if !settings.volumetric_fog {
            self.fog = None;
            return Ok(());
        }
        let grid = FroxelGrid {
            dims: [settings.froxel_grid_x, settings.froxel_grid_y, settings.froxel_grid_z],
            far_m: settings.froxel_range_m,
        };
        if self.fog.as_ref().is_none_or(|f| f.grid != grid) {
            self.fog = Some(FroxelFog::new(gpu, scene, grid)?);
        }
        if let Some(fog) = self.fog.as_mut() {
            fog.begin_frame(scene, view, settings.froxel_history_weight);
        }
        Ok(())
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

/// The GPU particles of one scene: the pool (one source per `scene.particles` entry, in order),
/// their textures and the blend pairs the sources use.
pub struct SceneParticles {
    /// The pool.
    pub pool: GpuParticles,
    /// The textures and per-source layers.
    pub textures: ParticleTextures,
    /// Source ids, in `scene.particles` order.
    pub ids: Vec<SourceId>,
    /// The blend pairs used in the world (those whose dest factor is ONE last).
    pub pairs: Vec<BlendPair>,
    /// The blend pairs of HUD sources.
    pub hud_pairs: Vec<BlendPair>,
    /// True when a source glows: the billboards then write the glow mask and `host.glow` runs.
    pub glowing: bool,
    /// The far-to-near sort of the visible list.
    pub sort: ParticleSortPass,
    /// Which systems become fog, and by how much.
    pub systems: FogSystems,
    /// `particles.fog_sources`: one [`GpuFogSource`] per source id (weights 0 while the particle fog
    /// is off), read by the billboards (cross-fade) and the brick passes.
    pub fog_sources: Buffer,
}

impl SceneParticles {
    /// Creates the pool and adds every source of `scene`.
    pub fn new(gpu: &mut Gpu, scene: &Scene, desc: &ParticlePoolDesc) -> Result<Self> {
        let desc =
            ParticlePoolDesc { max_sources: desc.max_sources.max(scene.particles.len() as u32), ..*desc };
        let mut pool = GpuParticles::new(gpu, &desc)?;
        let mut ids = Vec::with_capacity(scene.particles.len());
        let mut pairs = Vec::new();
        let mut hud_pairs = Vec::new();
        for src in &scene.particles {
            ids.push(pool.add_source(SourceDesc {
                sys: src.system,
                position: src.position_at(0.0),
                rotation: src.rotation,
                target_position: src.target,
                hud: src.hud,
            })?);
            let part = &src.system.part;
            let pair = (part.blend_func_source, part.blend_func_dest);
            if src.hud {
                hud_pairs.push(pair);
            } else {
                pairs.push(pair);
            }
        }
        pairs.sort_by_key(|&p| (is_additive(p), p));
        pairs.dedup();
        hud_pairs.sort_by_key(|&p| (is_additive(p), p));
        hud_pairs.dedup();
        let textures = ParticleTextures::for_scene(gpu, scene)?;
        let sort = ParticleSortPass::new(gpu, desc.capacity)?;
        let glowing = glow::scene_has_glow(scene);
        let systems = FogSystems::for_scene(scene);
        let mut fog_sources = gpu.create_buffer(&BufferDesc {
            name: "particles.fog_sources",
            size: (desc.max_sources as usize * std::mem::size_of::<GpuFogSource>()) as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::CpuToGpu,
        })?;
        fog_sources.write(0, &vec![0u8; desc.max_sources as usize * std::mem::size_of::<GpuFogSource>()]);
        Ok(SceneParticles { pool, textures, ids, pairs, hud_pairs, glowing, sort, systems, fog_sources })
    }

    /// Advances the systems' fog weights by `dt_s` and writes `particles.fog_sources` (per source
    /// id; sources are added in scene order).
    pub fn update_fog(
        &mut self,
        settings: &Settings,
        camera: Vec3,
        positions: &[Vec3],
        dt_s: f32,
        pressure: BrickPressure,
    ) {
        self.systems.update(settings, camera, positions, dt_s, pressure);
        let gpu_sources = self.systems.gpu_sources(settings);
        for (src, id) in gpu_sources.iter().zip(&self.ids) {
            let offset = u64::from(id.0) * std::mem::size_of::<GpuFogSource>() as u64;
            self.fog_sources.write(offset, bytemuck::bytes_of(src));
        }
    }
}

/// The passes that simulate and draw the particles.
struct ParticlePasses {
    sim: ParticleSimPasses,
    cull: ParticleCullPass,
    billboards: BillboardsPass,
}

/// Frame constants, world, samplers and froxel fog, as the billboards read them.
type LitInputs<'r> = (&'r Buffer, &'r World, &'r Samplers, Option<&'r FroxelFog>);

impl ParticlePasses {
    /// `particles.cull` against the camera, `particles.sort` far to near, then
    /// `particles.billboards` into `t` (after the frame's `particles.emit` + `particles.update`).
    fn record(
        &self,
        rec: &mut crate::vk::recorder::Recorder<'_>,
        sp: &mut SceneParticles,
        view: &CameraView,
        (frame, world, samplers, fog): LitInputs<'_>,
        (t, cloud): (&Targets, Option<&Image>),
    ) -> Result<()> {
        sp.pool.record_cull(rec, &self.cull, &frustum_planes(view.clip_from_world));
        sp.sort.record(rec, &sp.pool, view.position, view.forward);
        let inputs =
            BillboardInputs { cloud, ..billboard_inputs(sp, view, (frame, world, samplers, fog), t) };
        self.billboards.record(rec, &inputs, &sp.pairs)
    }

    /// `particles.hud` over the tone-mapped frame (after [`ParticlePasses::record`] and
    /// `host.tonemap`), when the scene has HUD sources.
    fn record_hud(
        &self,
        rec: &mut crate::vk::recorder::Recorder<'_>,
        sp: &SceneParticles,
        view: &CameraView,
        lit: LitInputs<'_>,
        t: &Targets,
    ) -> Result<()> {
        if sp.hud_pairs.is_empty() {
            return Ok(());
        }
        self.billboards.record_hud(rec, &billboard_inputs(sp, view, lit, t), &t.ldr, &sp.hud_pairs)
    }
}

/// What the billboard draws read and write this frame.
fn billboard_inputs<'r>(
    sp: &'r SceneParticles,
    view: &CameraView,
    (frame, world, samplers, fog): LitInputs<'r>,
    t: &'r Targets,
) -> BillboardInputs<'r> {
    BillboardInputs {
        frame,
        world,
        samplers,
        particles: &sp.pool,
        textures: &sp.textures,
        fog_sources: &sp.fog_sources,
        cloud: None,
        fog,
        camera: (view.forward, CAMERA_NEAR_M, CAMERA_FAR_M),
        hdr: &t.hdr,
        glow: sp.glowing.then_some(&t.glow),
        depth: &t.depth,
    }
}

/// Clears the HDR target to black and the depth to the far plane (particles-only frames).
fn clear_targets(rec: &mut crate::vk::recorder::Recorder<'_>, t: &Targets) -> Result<()> {
    let black = vk::ClearValue { color: vk::ClearColorValue { float32: [0.0, 0.0, 0.0, 1.0] } };
    let far = vk::ClearValue { depth_stencil: vk::ClearDepthStencilValue { depth: 1.0, stencil: 0 } };
    let color = Attachment { image: &t.hdr, clear: Some(black), layer: None };
    let depth = Attachment { image: &t.depth, clear: Some(far), layer: None };
    rec.render("frame.clear", &[color], Some(depth), &[], &[], |_| ())
}

/// The march's push constants: the billow sliders at `time_s`, the froxel fog's state and the
/// debug view.
fn march_push(settings: &Settings, time_s: f32, froxel_on: bool) -> FogMarchPush {
    FogMarchPush {
        billow: [
            settings.particle_fog_billow,
            settings.particle_fog_billow_scale_m,
            settings.particle_fog_billow_speed_m_per_s,
            time_s,
        ],
        params: [if froxel_on { 1.0 } else { 0.0 }, settings.particle_fog_debug as i32 as f32, 0.0, 0.0],
    }
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
