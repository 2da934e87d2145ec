//! The particles of a frame: the pool of the scene ([`SceneParticles`]), the passes that simulate
//! and draw it ([`ParticlePasses`]) and the order they run in. The passes take the buffers they
//! bind (views built here from the pool), never the pool itself.
//!
//! Order: `particles.emit` -> (`particles.ribbons`) -> `particles.update` -> (`particles.ribbons`)
//! -> `particles.counters.readback` early in the frame ([`record_simulation`]); after the fog,
//! `particles.cull` -> `particles.sort` -> (`particles.batch`) -> `particles.billboards`; after
//! `host.tonemap`, `particles.hud`.

use ash::vk;
use glam::{Vec3, Vec4};
use particles::sim::{Camera, SourceDesc, SourceId};
use settings::Settings;

use super::features::Feature;
use super::{HostRenderer, Targets};
use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::gpu_types::GpuFogSource;
use crate::particle_fog::systems::{BrickPressure, FogSystems};
use crate::particle_fog::ParticleFog;
use crate::particle_textures::ParticleTextures;
use crate::particles_gpu::{FramePlan, GpuParticles, ParticleBudget, ParticlePoolDesc};
use crate::passes::billboards::{
    is_additive, BillboardInputs, BillboardParticles, BillboardsPass, BlendPair,
};
use crate::passes::brick_march::CarrierInputs;
use crate::passes::glow;
use crate::passes::opaque::LightInputs;
use crate::passes::particle_sim::cull::{frustum_planes, CullBuffers, ParticleCullPass, VisibleParticles};
use crate::passes::particle_sim::{ParticleSimPasses, SimBuffers};
use crate::passes::particle_sort::ParticleSortPass;
use crate::scene::Scene;
use crate::view::{CameraView, CAMERA_FAR_M, CAMERA_NEAR_M};
use crate::vk::context::Gpu;
use crate::vk::recorder::Recorder;
use crate::vk::resource::{Buffer, BufferDesc, Image, MemoryLocation};
use crate::vk::sampler::Samplers;

/// Records the frame [`GpuParticles::prepare`] scheduled: `particles.emit`, the ribbon links
/// (pools with RIBBON sources), `particles.update`, then the pool's counters readback and list swap.
pub fn record_simulation(rec: &mut Recorder<'_>, pool: &mut GpuParticles, passes: &ParticleSimPasses) {
    let current = pool.current_list();
    let bufs = SimBuffers {
        pool: &pool.pool,
        templates: &pool.templates,
        dead: &pool.dead,
        alive_in: &pool.alive[current],
        alive_out: &pool.alive[1 - current],
        counters: &pool.counters,
        emitters: &pool.emitters,
        bursts: &pool.bursts,
        ribbons: pool.has_ribbons().then_some(&pool.ribbons),
    };
    passes.record(rec, &bufs, &pool.sim_push());
    pool.finish_record(rec);
}

/// One whole simulation frame in its own submission: [`GpuParticles::prepare`],
/// [`record_simulation`], submit, wait.
pub fn simulate_frame(
    gpu: &mut Gpu,
    pool: &mut GpuParticles,
    passes: &ParticleSimPasses,
    frame_dt: f32,
) -> Result<FramePlan> {
    let plan = pool.prepare(gpu, frame_dt);
    gpu.submit(|rec| {
        record_simulation(rec, pool, passes);
        Ok(())
    })?;
    Ok(plan)
}

/// Records `particles.cull` of the pool's current particles against `planes` (world space,
/// normals inside, as [`frustum_planes`] gives): afterwards `particles.visible` and
/// `particles.draw_args` hold this frame's billboard list ([`visible`]).
pub fn record_cull(rec: &mut Recorder<'_>, pool: &GpuParticles, pass: &ParticleCullPass, planes: &[Vec4; 6]) {
    let current = pool.current_list();
    let bufs = CullBuffers {
        pool: &pool.pool,
        alive: &pool.alive[current],
        counters: &pool.counters,
        visible: &pool.visible,
        draw_args: &pool.draw_args,
    };
    pass.record(rec, &bufs, current as u32, pool.desc().capacity, planes);
}

/// What `particles.cull` left in the pool for the sort, the batching and the billboards.
pub fn visible(pool: &GpuParticles) -> VisibleParticles<'_> {
    VisibleParticles {
        pool: &pool.pool,
        visible: &pool.visible,
        draw_args: &pool.draw_args,
        capacity: pool.desc().capacity,
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
            location: MemoryLocation::Staged,
        })?;
        fog_sources.write(0, &vec![0u8; desc.max_sources as usize * std::mem::size_of::<GpuFogSource>()]);
        Ok(SceneParticles { pool, textures, ids, pairs, hud_pairs, glowing, sort, systems, fog_sources })
    }

    /// The carriers as `fog.carrier_light` reads them, in frames where a converted system's light
    /// is eased toward its billboards' (else `None`).
    pub fn carriers(&self) -> Option<CarrierInputs<'_>> {
        self.systems.any_matched().then(|| CarrierInputs::of(&self.pool, &self.fog_sources))
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
        // One write of the table up to the highest source id (slots without a source stay 0).
        let gpu_sources = self.systems.gpu_sources(settings);
        let slots = self.ids.iter().map(|id| id.0 as usize + 1).max().unwrap_or(0);
        let mut table = vec![bytemuck::Zeroable::zeroed(); slots];
        for (src, id) in gpu_sources.into_iter().zip(&self.ids) {
            table[id.0 as usize] = src;
        }
        self.fog_sources.write(0, bytemuck::cast_slice(&table));
    }
}

/// The passes that simulate and draw the particles.
pub(super) struct ParticlePasses {
    pub(super) sim: ParticleSimPasses,
    cull: ParticleCullPass,
    billboards: BillboardsPass,
}

/// The lighting inputs, samplers and froxel fog, as the billboards read them.
type LitInputs<'r> = (LightInputs<'r>, &'r Samplers, Option<&'r FroxelFog>);

impl ParticlePasses {
    /// Creates the simulation, cull and billboard passes (the billboards' images `width` x `height`).
    pub(super) fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Self> {
        Ok(ParticlePasses {
            sim: ParticleSimPasses::new(gpu)?,
            cull: ParticleCullPass::new(gpu)?,
            billboards: BillboardsPass::new(gpu, width, height)?,
        })
    }

    /// `particles.cull` against the camera, `particles.sort` far to near, then
    /// `particles.billboards` into `t` (after the frame's `particles.emit` + `particles.update`).
    pub(super) fn record(
        &self,
        rec: &mut Recorder<'_>,
        sp: &mut SceneParticles,
        view: &CameraView,
        (light, samplers, fog): LitInputs<'_>,
        (t, cloud): (&Targets, Option<&Image>),
    ) -> Result<()> {
        record_cull(rec, &sp.pool, &self.cull, &frustum_planes(view.clip_from_world));
        sp.sort.record(rec, &visible(&sp.pool), view.position, view.forward);
        let inputs = BillboardInputs { cloud, ..billboard_inputs(sp, view, (light, samplers, fog), t) };
        self.billboards.record(rec, &inputs, &sp.pairs)
    }

    /// `particles.hud` over the tone-mapped frame (after [`ParticlePasses::record`] and
    /// `host.tonemap`), when the scene has HUD sources.
    pub(super) fn record_hud(
        &self,
        rec: &mut Recorder<'_>,
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
    (light, samplers, fog): LitInputs<'r>,
    t: &'r Targets,
) -> BillboardInputs<'r> {
    BillboardInputs {
        light,
        samplers,
        particles: BillboardParticles {
            visible: visible(&sp.pool),
            ribbon_parent: &sp.pool.ribbons.parent,
            emitters: &sp.pool.emitters,
        },
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

impl HostRenderer {
    /// Makes the particle pool on the first frame of a scene with sources, then applies this
    /// frame's budget (`RenderMaxPartCount`, read every frame), moves the sources along their
    /// motion, sets the wind and the throttling camera and schedules this frame's simulation step.
    /// Returns false when particles are off this frame (`RenderMaxPartCount` 0: nothing is
    /// simulated or drawn, the particles are kept for when it comes back).
    pub(super) fn prepare_particles(
        &mut self,
        gpu: &mut Gpu,
        scene: &Scene,
        settings: &Settings,
        time_s: f32,
    ) -> Result<bool> {
        let budget = self.budget_override.unwrap_or_else(|| {
            ParticleBudget::for_settings(settings.max_part_count, settings.particle_capacity)
        });
        if budget == ParticleBudget::Off
            || scene.particles.is_empty()
            || self.features_off.is_off(Feature::Particles)
        {
            return Ok(false);
        }
        let fog_off;
        let settings = if self.features_off.is_off(Feature::ParticleFog) && settings.particle_fog {
            fog_off = without_particle_fog(settings);
            &fog_off
        } else {
            settings
        };
        if self.particles.is_none() {
            let made = SceneParticles::new(gpu, scene, &pool_desc(gpu, settings));
            let Some(sp) = self.features_off.settle(Feature::Particles, made)? else { return Ok(false) };
            self.particles = Some(sp);
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
        sp.pool.prepare(gpu, self.frame_dt_s);
        let positions: Vec<Vec3> = scene.particles.iter().map(|src| src.position_at(time_s)).collect();
        let pressure = self.fog.bricks.as_ref().map(ParticleFog::pressure).unwrap_or_default();
        sp.update_fog(settings, cam.position, &positions, self.frame_dt_s, pressure);
        self.particle_passes.billboards.prepare(gpu, &sp.pairs, &sp.hud_pairs, sp.glowing)?;
        let converted = sp.systems.converted();
        let made = self.fog.prepare_bricks(gpu, settings, (Some(&sp.pool), converted), cam.position);
        if self.features_off.settle(Feature::ParticleFog, made)?.is_none() {
            // No bricks: this frame's converted systems are drawn as billboards again.
            sp.update_fog(
                &without_particle_fog(settings),
                cam.position,
                &positions,
                0.0,
                BrickPressure::default(),
            );
        }
        Ok(true)
    }
}

/// The pool for `RenderVKParticleCapacity`, capped (with a warning) to what the device's
/// `maxStorageBufferRange` holds.
fn pool_desc(gpu: &Gpu, settings: &Settings) -> ParticlePoolDesc {
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
    desc
}

/// `settings` with the particle fog off (once a device error turned it off).
fn without_particle_fog(settings: &Settings) -> Settings {
    Settings { particle_fog: false, ..settings.clone() }
}
