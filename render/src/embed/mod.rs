//! The particle fog inside a viewer's renderer: the one door a viewer needs ([`FogContext`]).
//!
//! The viewer keeps its instance, device, queue, command buffers, fences and frames in flight; it
//! hands the context its depth buffer and HDR target each frame, with the state each is in and
//! the state to leave it in, and its sun, shadow maps and lights. The context keeps the systems'
//! particles simulated on the GPU as invisible density carriers (the viewer keeps drawing its own
//! billboards, faded by `1 - weight`), splats them into the brick pool, and records the march and
//! composite into the viewer's command buffer. See `docs/embedding.md` for the viewer's frame
//! drawn around these passes.
//!
//! Per frame: [`FogContext::update`] (CPU: time step, camera, settings; classification and
//! cross-fades; the frame's particle bursts) then [`FogContext::record`] (the viewer's command
//! buffer and frame slot), and once that slot's fence has signalled,
//! [`FogContext::frame_completed`] (readbacks of that slot: stats and the brick pressure the
//! demotion reads, N frames late by design).
//!
//! Carriers: simulated by the context from the systems' descriptors
//! ([`CarrierSource::Simulated`]), or the particles the viewer simulates itself, handed over each
//! frame ([`CarrierSource::Viewer`], [`FogContext::set_carriers`]).
//!
//! Passes recorded, in order: `particles.emit` -> `particles.update` (-> `particles.ribbons`), or
//! `embed.carriers` ->
//! (while a system converts: `fog.brick_age` ... `fog.brick_clear`, `embed.depth`,
//! `fog.brick_light`, `fog.brick_march`, `fog.brick_composite` into the viewer's HDR target).

mod frame;
mod systems;

use std::collections::HashMap;

use ash::vk;
use glam::{Mat4, Quat, Vec3};
use particles::PartSysData;
use settings::Settings;

pub use self::frame::{
    DepthConvention, FrameResources, FroxelVolume, Light, LightKind, ShadowLayer, ShadowMaps, Sun,
    ViewerImage,
};
pub use self::systems::{Descriptor, SystemDesc, SystemId};
pub use crate::gpu_types::GpuCarrier as Carrier;
pub use crate::particle_fog::stats::FogStats;
pub use crate::vk::context::{HostDevice, MemoryStats};
pub use crate::vk::device::{enabled_features as required_features, RequiredFeatures, REQUIRED_EXTENSIONS};
pub use crate::vk::import::HostImageState;
pub use assetstats::TextureStats;
pub use fog::overrides_file::OverridesFile;
pub use fog::{Override, SystemKey};
pub use particles::Uuid;

use self::frame::{FrameInputs, LightingBuffers};
use crate::error::{RenderError, Result};
use crate::frame::fog::record_march;
use crate::particle_fog::systems::FogSystems;
use crate::particle_fog::{ParticleFog, PoolKey};
use crate::particles_gpu::{GpuParticles, ParticleBudget, ParticlePoolDesc, DEFAULT_MAX_SOURCES};
use crate::passes::brick_composite::BrickCompositePass;
use crate::passes::brick_march::{march_divisor, BrickMarchPass, CarrierInputs, MarchInputs};
use crate::passes::embed_carriers::EmbedCarriersPass;
use crate::passes::embed_depth::EmbedDepthPass;
use crate::passes::particle_sim::ParticleSimPasses;
use crate::vk::context::Gpu;
use crate::vk::recorder::{Access, Use};
use crate::vk::resource::{Buffer, BufferDesc, MemoryLocation};
use crate::vk::sampler::Samplers;

/// The GLSL a viewer's particle shader includes: the `1 - weight` fade of a converted system's
/// billboards and the particle fog's transmittance in front of a billboard (from the cloud image,
/// [`FogContext::cloud_image`]). The project's own billboards include the same file.
pub const VIEWER_GLSL: &str = include_str!("../shaders/particle_fog_viewer.glsl");

/// HDR formats the composite writes into (read and written as a storage image).
pub const HDR_FORMATS: &[vk::Format] = &[vk::Format::R16G16B16A16_SFLOAT];

/// The largest render size a context takes, texels per side.
pub const MAX_RENDER_SIDE: u32 = 16_384;

/// What a context is made for.
#[derive(Clone, Debug)]
pub struct FogContextDesc {
    /// The render size it starts with (the viewer's depth and HDR targets' size).
    pub size: (u32, u32),
    /// The largest size [`FogContext::resize`] will be asked for.
    pub max_size: (u32, u32),
    /// The format of the viewer's HDR target (one of [`HDR_FORMATS`]).
    pub hdr_format: vk::Format,
    /// How the viewer's depth buffer encodes distance.
    pub depth: DepthConvention,
    /// Systems present at once (particle pool source slots).
    pub max_systems: u32,
    /// Particles the carrier pool holds (the viewer's hard cap of 8192 by default).
    pub particle_capacity: u32,
    /// Where the carriers come from.
    pub carriers: CarrierSource,
}

/// Where a context's carriers come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CarrierSource {
    /// The context simulates each system's particles from its descriptor on the GPU (the viewer
    /// keeps drawing its own billboards).
    #[default]
    Simulated,
    /// The viewer hands over the particles it simulates itself, every frame
    /// ([`FogContext::set_carriers`]), each naming its system by [`FogContext::system_index`].
    Viewer,
}

impl Default for FogContextDesc {
    fn default() -> Self {
        FogContextDesc {
            size: (1920, 1080),
            max_size: (3840, 2160),
            hdr_format: vk::Format::R16G16B16A16_SFLOAT,
            depth: DepthConvention::default(),
            max_systems: DEFAULT_MAX_SOURCES,
            particle_capacity: particles::sim::HARD_MAX_PARTICLES,
            carriers: CarrierSource::Simulated,
        }
    }
}

/// The camera of a frame, as the viewer projects.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    /// World to view space (right-handed, looking down -z).
    pub view_from_world: Mat4,
    /// View to Vulkan clip space (depth 0..1 or 1..0 as [`DepthConvention`] says; w = -view z).
    pub clip_from_view: Mat4,
    /// Near plane, m.
    pub near_m: f32,
    /// Far plane, m (`f32::INFINITY` for an infinite projection).
    pub far_m: f32,
}

/// One frame's CPU inputs.
#[derive(Clone, Copy, Debug)]
pub struct FrameUpdate<'a> {
    /// Time since the last frame, s.
    pub dt_s: f32,
    /// The camera.
    pub camera: Camera,
    /// The viewer's settings (`RenderVKParticleFog` and the sliders).
    pub settings: &'a Settings,
    /// The region's wind, m/s.
    pub wind: Vec3,
}

/// The particle fog on a viewer's device.
pub struct FogContext {
    /// Field order is drop order: every resource before the `Gpu` they were made from.
    sim: ParticleSimPasses,
    /// The viewer's carriers ([`CarrierSource::Viewer`]) and whether this frame's were set.
    viewer_carriers: Option<(EmbedCarriersPass, bool)>,
    pool: GpuParticles,
    fog_sources: Buffer,
    systems: FogSystems,
    ids: HashMap<SystemId, u32>,
    /// Per pool slot: the system it holds and its position.
    slots: Vec<Option<(SystemId, Vec3)>>,
    bricks: Option<ParticleFog>,
    march: BrickMarchPass,
    composite: BrickCompositePass,
    depth: EmbedDepthPass,
    lighting: LightingBuffers,
    samplers: Samplers,
    desc: FogContextDesc,
    size: (u32, u32),
    /// The user's stored overrides ([`FogContext::load_overrides`]): a system upserted later
    /// takes its own from them.
    stored: Option<OverridesFile>,
    /// What the last [`FogContext::update`] prepared for [`FogContext::record`].
    prepared: Option<FrameInputs>,
    time_s: f32,
    frame_index: u32,
    gpu: Gpu,
}

impl FogContext {
    /// Creates the particle fog on the viewer's device.
    ///
    /// # Safety
    /// As [`Gpu::from_host`]: every handle in `host` is valid and outlives the context, and the
    /// device was created with [`crate::vk::device::REQUIRED_EXTENSIONS`] and the features of
    /// [`crate::vk::device::enabled_features`].
    pub unsafe fn new(host: HostDevice, desc: &FogContextDesc) -> Result<FogContext> {
        check_size(desc.size, "size")?;
        check_size(desc.max_size, "max size")?;
        if desc.size.0 > desc.max_size.0 || desc.size.1 > desc.max_size.1 {
            return Err(bad(format!("size {:?} exceeds the max size {:?}", desc.size, desc.max_size)));
        }
        check_hdr_format(desc.hdr_format)?;
        if desc.max_systems == 0 || desc.particle_capacity == 0 {
            return Err(bad("max systems and particle capacity must be above 0".to_owned()));
        }
        // SAFETY: the caller's contract is Gpu::from_host's.
        let mut gpu = unsafe { Gpu::from_host(host) }?;
        let capacity = desc.particle_capacity.min(crate::particles_gpu::device_capacity(&gpu.limits()));
        let pool_desc = ParticlePoolDesc { capacity, max_sources: desc.max_systems, seed: 0 };
        let pool = GpuParticles::new(&mut gpu, &pool_desc)?;
        let table = desc.max_systems as usize * std::mem::size_of::<crate::gpu_types::GpuFogSource>();
        let mut fog_sources = gpu.create_buffer(&BufferDesc {
            name: "particles.fog_sources",
            size: table as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::Staged,
        })?;
        fog_sources.write(0, &vec![0u8; table]);
        let size = desc.size;
        let viewer_carriers = match desc.carriers {
            CarrierSource::Simulated => None,
            CarrierSource::Viewer => Some((EmbedCarriersPass::new(&gpu, capacity)?, false)),
        };
        Ok(FogContext {
            sim: ParticleSimPasses::new(&gpu)?,
            viewer_carriers,
            pool,
            fog_sources,
            systems: FogSystems::default(),
            ids: HashMap::new(),
            slots: Vec::new(),
            bricks: None,
            march: BrickMarchPass::new(&gpu, size, march_divisor(size.1, 0))?,
            composite: BrickCompositePass::new(&gpu, size.0, size.1)?,
            depth: EmbedDepthPass::new(&gpu, size)?,
            lighting: LightingBuffers::new(&gpu)?,
            samplers: Samplers::new(&gpu)?,
            desc: desc.clone(),
            size,
            stored: None,
            prepared: None,
            time_s: 0.0,
            frame_index: 0,
            gpu,
        })
    }

    /// Adds system `id`, or replaces its descriptor, texture or flags (a replaced system keeps
    /// its particles in flight and its cross-fade). A descriptor with no system (the viewer's
    /// null block) removes it, as the viewer does.
    pub fn upsert_system(&mut self, id: SystemId, desc: &SystemDesc<'_>) -> Result<()> {
        if let Some(key) = desc.key.filter(|k| k.link > fog::classify::overrides::MAX_LINK) {
            let last = fog::classify::overrides::MAX_LINK;
            return Err(bad(format!("system {id}: link {} is past a linkset's last, {last}", key.link)));
        }
        let Some(sys) = desc.descriptor.decode()? else {
            self.ids.contains_key(&id).then(|| self.remove_system(id)).transpose()?;
            return Ok(());
        };
        let input = desc.report_input(id, sys);
        if let Some(&slot) = self.ids.get(&id) {
            self.pool.set_system(particles::sim::SourceId(slot), sys);
            self.systems.insert(slot as usize, input, desc.texture.clone());
            return Ok(());
        }
        let source = particles::sim::SourceDesc {
            sys,
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            target_position: None,
            hud: desc.hud,
        };
        let slot = self.pool.add_source(source).map_err(|_| {
            bad(format!("system {id}: all {} system slots are in use", self.desc.max_systems))
        })?;
        let index = slot.0 as usize;
        if self.slots.len() <= index {
            self.slots.resize(index + 1, None);
        }
        if let Some((old, _)) = self.slots[index] {
            // A removed system whose particles had all died held this slot.
            self.ids.remove(&old);
        }
        self.slots[index] = Some((id, Vec3::ZERO));
        self.ids.insert(id, slot.0);
        let key = input.key;
        self.systems.insert(index, input, desc.texture.clone());
        if let Some(stored) = self.stored.as_ref().map(|file| file.get(&key)) {
            self.systems.set_override(index, stored);
        }
        Ok(())
    }

    /// Removes system `id`: it stops emitting, and the fog its carriers left fades out at the
    /// cross-fade rate while they live out their lives.
    pub fn remove_system(&mut self, id: SystemId) -> Result<()> {
        let slot = self.slot(id)?;
        self.pool.remove_source(particles::sim::SourceId(slot));
        self.systems.remove(slot as usize);
        self.ids.remove(&id);
        Ok(())
    }

    /// Moves system `id`'s emitter (world position, m, and rotation).
    pub fn set_transform(&mut self, id: SystemId, position: Vec3, rotation: Quat) -> Result<()> {
        if !position.is_finite() || !rotation.is_finite() || !rotation.is_normalized() {
            return Err(bad(format!("system {id}: a transform must be finite with a unit rotation")));
        }
        let slot = self.slot(id)?;
        self.pool.set_source_transform(particles::sim::SourceId(slot), position, rotation);
        if let Some(Some((_, p))) = self.slots.get_mut(slot as usize) {
            *p = position;
        }
        Ok(())
    }

    /// Sets system `id`'s per-object override (automatic, always fog, never fog); the weight
    /// cross-fades toward the new decision from the next update on.
    pub fn set_override(&mut self, id: SystemId, o: Override) -> Result<()> {
        let slot = self.slot(id)?;
        self.systems.set_override(slot as usize, o);
        Ok(())
    }

    /// System `id`'s per-object override.
    pub fn override_of(&self, id: SystemId) -> Result<Override> {
        Ok(self.systems.override_of(self.slot(id)? as usize))
    }

    /// Takes the user's stored overrides (the LLSD file beside settings.xml, read with
    /// [`OverridesFile::open`]): every system present and every system upserted later gets the
    /// override `file` holds for its key ([`SystemDesc::key`]; automatic where it holds none),
    /// cross-fading from the next update on.
    pub fn load_overrides(&mut self, file: &OverridesFile) {
        for &slot in self.ids.values() {
            if let Some(key) = self.systems.key(slot as usize) {
                self.systems.set_override(slot as usize, file.get(&key));
            }
        }
        self.stored = Some(file.clone());
    }

    /// Writes every present system's override into `file` under its key (an automatic one
    /// removes the entry; other entries, the user's overrides of objects not in view, are kept),
    /// for the viewer to save as the user's state ([`OverridesFile::save`]).
    pub fn store_overrides(&self, file: &mut OverridesFile) {
        self.systems.store_overrides(file);
    }

    /// System `id`'s cross-faded weight this frame: 0 billboard .. 1 fog. The viewer draws the
    /// system's billboards with alpha times `1 - weight` ([`VIEWER_GLSL`]), none at 1.
    pub fn weight(&self, id: SystemId) -> Result<f32> {
        Ok(self.systems.weight(self.slot(id)? as usize))
    }

    /// The index that names system `id` in the viewer's carriers ([`Carrier::system`]): fixed
    /// from its upsert until its slot is reused, which is once the longest particle life of its
    /// descriptor has passed after its removal (its particles may be handed over until then).
    pub fn system_index(&self, id: SystemId) -> Result<u32> {
        self.slot(id)
    }

    /// Hands over the particles the viewer simulated for the next recorded frame, for a context
    /// made with [`CarrierSource::Viewer`] (at most the carrier pool's capacity, each naming a
    /// system present or removed and still fading by [`FogContext::system_index`], finite, with
    /// a size and age of at least 0). Called once per frame, before [`FogContext::record`]; an
    /// empty slice is a frame without particles.
    pub fn set_carriers(&mut self, carriers: &[Carrier]) -> Result<()> {
        let capacity = self.pool.desc().capacity;
        let Some((pass, set)) = self.viewer_carriers.as_mut() else {
            return Err(bad(
                "set_carriers: the context simulates its carriers (CarrierSource::Simulated)".to_owned()
            ));
        };
        if carriers.len() > capacity as usize {
            return Err(bad(format!("set_carriers: {} carriers, the pool holds {capacity}", carriers.len())));
        }
        for (i, c) in carriers.iter().enumerate() {
            let finite = c.position_age.iter().chain(&c.color).chain(&c.size).all(|v| v.is_finite());
            if !(finite && c.position_age[3] >= 0.0 && c.size[0] >= 0.0 && c.size[1] >= 0.0) {
                return Err(bad(format!(
                    "carrier {i}: position, age, colour and size must be finite, age and size at least 0"
                )));
            }
            if self.slots.get(c.system as usize).is_none_or(Option::is_none) {
                return Err(bad(format!("carrier {i}: no system has index {}", c.system)));
            }
        }
        pass.set(carriers);
        *set = true;
        Ok(())
    }

    /// Why system `id` is (or is not) fog: the rule, the factors and the override in force
    /// (`None` before its first update).
    pub fn explain(&self, id: SystemId) -> Result<Option<fog::Explanation>> {
        Ok(self.systems.explain(self.slot(id)? as usize))
    }

    /// Systems present (removed ones excluded).
    pub fn system_count(&self) -> usize {
        self.ids.len()
    }

    /// The render size.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Changes the render size (at most the max size): the march's images are remade, those in
    /// use by frames in flight retired once they complete.
    pub fn resize(&mut self, width: u32, height: u32) -> Result<()> {
        check_size((width, height), "size")?;
        let max = self.desc.max_size;
        if width > max.0 || height > max.1 {
            return Err(bad(format!("size {width}x{height} exceeds the max size {}x{}", max.0, max.1)));
        }
        if (width, height) == self.size {
            return Ok(());
        }
        let size = (width, height);
        let divisor = self.march.divisor;
        self.march = BrickMarchPass::new(&self.gpu, size, divisor)?;
        self.composite = BrickCompositePass::new(&self.gpu, width, height)?;
        self.depth.resize(&self.gpu, size)?;
        self.size = size;
        Ok(())
    }

    /// The CPU half of a frame: classification and cross-fades, the emitters' bursts, the brick
    /// pool made, remade (voxel size, budget, or another size for the bricks in use) or dropped
    /// (toggle off) for the settings. Call once per frame before [`FogContext::record`].
    pub fn update(&mut self, frame: &FrameUpdate<'_>) -> Result<()> {
        let cam = &frame.camera;
        let finite = cam.view_from_world.is_finite() && cam.clip_from_view.is_finite();
        if !(frame.dt_s.is_finite() && frame.dt_s >= 0.0 && finite && frame.wind.is_finite()) {
            return Err(bad("update: the time step, matrices and wind must be finite".to_owned()));
        }
        if !(cam.near_m > 0.0 && cam.far_m > cam.near_m) {
            return Err(bad(format!("update: near {} and far {} m", cam.near_m, cam.far_m)));
        }
        let inputs = FrameInputs::new(cam, self.desc.depth, frame.settings)?;
        let settings = frame.settings;
        self.time_s += frame.dt_s;
        let pool = &mut self.pool;
        pool.set_wind(frame.wind);
        pool.set_budget(
            match ParticleBudget::for_settings(settings.max_part_count, settings.particle_capacity) {
                ParticleBudget::Limit(n) => Some(n),
                ParticleBudget::Off | ParticleBudget::Unlimited => None,
            },
        );
        let fov_y = 2.0 * (1.0 / cam.clip_from_view.y_axis.y.abs().max(1e-6)).atan();
        let height = self.size.1 as f32;
        pool.set_camera(Some(particles::sim::Camera::from_viewport(inputs.camera_pos, height, fov_y)));
        pool.prepare(&self.gpu, frame.dt_s);
        let positions: Vec<Vec3> =
            self.slots.iter().map(|s| s.map_or(Vec3::splat(f32::INFINITY), |(_, p)| p)).collect();
        let pressure = self.bricks.as_ref().map(ParticleFog::pressure).unwrap_or_default();
        self.systems.update(settings, inputs.camera_pos, &positions, frame.dt_s, pressure);
        let sources = self.systems.gpu_sources(settings);
        if !sources.is_empty() {
            self.fog_sources.write(0, bytemuck::cast_slice(&sources));
        }
        if settings.particle_fog && self.systems.converted() > 0 {
            let key = PoolKey::new(settings, self.desc.max_systems);
            if self.bricks.as_ref().is_none_or(|pf| pf.key != key) {
                self.bricks = None;
                self.bricks = Some(ParticleFog::new(&self.gpu, key)?);
            }
            let divisor = march_divisor(self.size.1, settings.particle_fog_march_divisor);
            self.march.set_divisor(&self.gpu, self.size, divisor)?;
            if let Some(pf) = self.bricks.as_mut() {
                pf.prepare(&self.gpu, inputs.camera_pos, 1 - self.pool.current_list());
            }
        } else {
            self.bricks = None;
        }
        self.prepared = Some(inputs);
        Ok(())
    }

    /// Records the frame [`FogContext::update`] prepared into the viewer's command buffer `cmd`
    /// (recording, outside a render pass) for frame slot `slot`: the carriers' simulation and,
    /// while a system converts, the bricks, the march and the composite into `res.hdr`. Every
    /// viewer image is left in the state its [`ViewerImage::exit`] names.
    ///
    /// # Safety
    /// `cmd` is a primary command buffer of the context's device in the recording state, submitted
    /// by the viewer to the queue family the context was made for; the images in `res` are live
    /// images of that device with the formats, extents, layers and usages stated, in the entry
    /// states stated, and outlive the frame's submission.
    pub unsafe fn record(
        &mut self,
        cmd: vk::CommandBuffer,
        slot: usize,
        res: &FrameResources<'_>,
    ) -> Result<()> {
        res.check(self.size)?;
        if self.viewer_carriers.as_ref().is_some_and(|(_, set)| !set) {
            return Err(bad(
                "record: no set_carriers since the last record (CarrierSource::Viewer)".to_owned()
            ));
        }
        let inputs =
            self.prepared.take().ok_or_else(|| bad("record: no update since the last record".to_owned()))?;
        // SAFETY: the caller's contract covers every image in `res`.
        let imported = unsafe { frame::import(&self.gpu, res) }?;
        self.lighting.write(&inputs, res, self.size, self.frame_index)?;
        self.frame_index = self.frame_index.wrapping_add(1);
        let time_s = self.time_s;
        let carriers_eased = self.systems.any_matched();
        let Self {
            sim,
            viewer_carriers,
            pool,
            fog_sources,
            bricks,
            march,
            composite,
            depth,
            lighting,
            samplers,
            gpu,
            ..
        } = self;
        if let Some((_, set)) = viewer_carriers.as_mut() {
            *set = false;
        }
        gpu.record_frame(cmd, slot, |rec| {
            match viewer_carriers {
                Some((pass, _)) => pass.record(rec, pool),
                None => crate::frame::particles::record_simulation(rec, pool, sim),
            }
            if let Some(pf) = bricks.as_mut() {
                pf.record(rec, pool, fog_sources);
                depth.record(rec, &imported.depth, samplers, &inputs.depth_push);
                let light = lighting.inputs(&imported);
                let carriers = carriers_eased.then(|| CarrierInputs::of(pool, fog_sources));
                let (bricks, depth) = (&pf.pool, &depth.depth);
                let froxels = lighting.froxels(&imported);
                let fog = MarchInputs { light, samplers, fog: froxels, bricks, depth, carriers };
                record_march(rec, (march, composite), &fog, &imported.hdr, (&inputs.settings, time_s));
                // Left for the viewer's particle shader (VIEWER_GLSL reads it).
                rec.barriers(&[Use::Image(&composite.cloud, Access::FragmentRead)]);
            }
            imported.hand_back(rec, res);
            Ok(())
        })
    }

    /// Says that the frame recorded into `slot` has completed (its fence signalled): its
    /// readbacks become the newest stats and the next frames' brick pressure; resources dropped
    /// while it was in flight are destroyed.
    pub fn frame_completed(&mut self, slot: usize) -> Result<()> {
        self.gpu.frame_completed(slot)?;
        if let Some(pf) = self.bricks.as_mut() {
            pf.finish_frame(&self.gpu);
        }
        Ok(())
    }

    /// The newest completed frame's counts (carriers, bricks, mass), with the systems converted
    /// and demoted now; zeros while nothing converts.
    pub fn stats(&self) -> FogStats {
        let base = self.bricks.as_ref().map(|pf| pf.stats.clone()).unwrap_or_default();
        FogStats {
            systems_converted: self.systems.converted(),
            systems_demoted: self.systems.demoted(),
            ..base
        }
    }

    /// The cloud image of the last recorded frame with fog (RGBA16F, per pixel where the particle
    /// fog starts and ends along the ray, m, and its optical depth; [`VIEWER_GLSL`] reads it),
    /// left in `SHADER_READ_ONLY_OPTIMAL` for fragment shaders; `None` while nothing converts.
    pub fn cloud_image(&self) -> Option<(vk::Image, vk::ImageView)> {
        self.bricks.as_ref().map(|_| (self.composite.cloud.raw, self.composite.cloud.view))
    }

    /// The Vulkan layer underneath (memory totals, validation canary, timings per pass).
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Validation errors the layers raised on the context's work since the last call (empty
    /// without validation, [`HostDevice::validation`]).
    pub fn take_validation_errors(&self) -> Vec<String> {
        self.gpu.canary().drain().into_iter().map(|m| m.to_string()).collect()
    }

    /// Destroys the context once the viewer's frames are complete (every slot reported with
    /// [`FogContext::frame_completed`]), and returns the names of any allocation still alive
    /// after everything it made was dropped: empty unless something leaked.
    pub fn destroy(self) -> Vec<String> {
        let FogContext {
            sim,
            viewer_carriers,
            pool,
            fog_sources,
            systems,
            ids,
            slots,
            bricks,
            march,
            composite,
            depth,
            lighting,
            samplers,
            desc,
            size,
            stored,
            prepared,
            time_s,
            frame_index,
            gpu,
        } = self;
        drop((
            sim,
            viewer_carriers,
            pool,
            fog_sources,
            systems,
            ids,
            slots,
            bricks,
            march,
            composite,
            depth,
            lighting,
        ));
        drop((samplers, desc, size, stored, prepared, time_s, frame_index));
        let live = gpu.live_allocations();
        drop(gpu);
        live
    }

    fn slot(&self, id: SystemId) -> Result<u32> {
        self.ids.get(&id).copied().ok_or_else(|| bad(format!("no system {id}")))
    }
}

/// A PSYS block decoded byte-exactly as the viewer does: `None` for a block that holds no system.
pub fn decode_psys(block: &[u8]) -> Result<Option<PartSysData>> {
    Descriptor::Psys(block).decode()
}

/// The statistics of a texture the viewer has decoded: `width` x `height` RGBA8 texels, rows
/// top to bottom. Worth keeping per texture: a system's upsert takes them as a value.
pub fn texture_stats_rgba8(width: u32, height: u32, texels: &[u8]) -> Result<TextureStats> {
    let expected = u64::from(width) * u64::from(height) * 4;
    if expected != texels.len() as u64 {
        return Err(bad(format!(
            "a {width}x{height} RGBA8 texture has {expected} bytes, not {}",
            texels.len()
        )));
    }
    let image = image::RgbaImage::from_raw(width, height, texels.to_vec())
        .ok_or_else(|| bad(format!("a {width}x{height} RGBA8 texture cannot be made")))?;
    TextureStats::from_rgba(&image).map_err(|e| bad(format!("texture: {e}")))
}

fn bad(message: String) -> RenderError {
    RenderError::BadInput(message)
}

fn check_size((w, h): (u32, u32), what: &str) -> Result<()> {
    if w == 0 || h == 0 || w > MAX_RENDER_SIDE || h > MAX_RENDER_SIDE {
        return Err(bad(format!("{what} {w}x{h}: each side must be 1 to {MAX_RENDER_SIDE}")));
    }
    Ok(())
}

fn check_hdr_format(format: vk::Format) -> Result<()> {
    if HDR_FORMATS.contains(&format) {
        return Ok(());
    }
    Err(bad(format!("the particle fog cannot composite into {format:?}: it needs one of {HDR_FORMATS:?}")))
}
