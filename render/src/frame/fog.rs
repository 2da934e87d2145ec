//! The fog of a frame, in one home ([`FrameFog`]): the fog passes, the froxel fog's resources and
//! the particle fog's bricks, and the order the passes run in. The scene's fog becomes the plain
//! inputs of [`crate::fog_gpu`] here ([`fog_volumes`], [`height_fog`]).
//!
//! Order: (particle fog, after `particles.update`: `fog.brick_age` -> `fog.brick_mark` ->
//! `fog.brick_alloc` -> `fog.brick_splat` -> `fog.brick_splat.wide` -> `fog.brick_resolve` ->
//! `fog.brick_clear`), then `fog.froxel_inject` -> `fog.froxel_temporal` ->
//! `fog.froxel_integrate` -> `fog.apply` (or `fog.reference`), then (`fog.brick_march` ->
//! `fog.brick_composite` (`fog.brick_bounds`, debug views 2 and 3)).

use glam::Vec3;
use settings::Settings;

use crate::error::Result;
use crate::fog_gpu::froxel::{FroxelFog, FroxelGrid, HeightFogMedium};
use crate::gpu_types::{FogMarchPush, GpuFogVolume};
use crate::particle_fog::{ParticleFog, PoolKey};
use crate::particles_gpu::GpuParticles;
use crate::passes::brick_bounds::BrickBoundsPass;
use crate::passes::brick_composite::BrickCompositePass;
use crate::passes::brick_march::{march_divisor, BrickMarchPass, CarrierInputs, FroxelInputs, MarchInputs};
use crate::passes::fog_apply::FogApplyPass;
use crate::passes::fog_reference::FogReferencePass;
use crate::passes::froxel_inject::FroxelInjectPass;
use crate::passes::froxel_integrate::FroxelIntegratePass;
use crate::passes::froxel_temporal::FroxelTemporalPass;
use crate::passes::opaque::LightInputs;
use crate::scene::{Scene, VolumeShape};
use crate::view::CameraView;
use crate::vk::context::Gpu;
use crate::vk::recorder::Recorder;
use crate::vk::resource::{Buffer, Image};
use crate::vk::sampler::Samplers;

/// The lighting inputs and samplers: what the lit fog passes read besides the fog.
pub type Lighting<'r> = (LightInputs<'r>, &'r Samplers);

/// The fog passes and the fog's GPU resources.
pub struct FrameFog {
    inject: FroxelInjectPass,
    temporal: FroxelTemporalPass,
    integrate: FroxelIntegratePass,
    apply: FogApplyPass,
    reference: FogReferencePass,
    march: BrickMarchPass,
    composite: BrickCompositePass,
    /// The frame's size in pixels.
    size: (u32, u32),
    bounds: BrickBoundsPass,
    /// The froxel fog's resources (made on first use, remade when the grid settings change).
    pub froxel: Option<FroxelFog>,
    /// The particle fog's bricks (made while `RenderVKParticleFog` is on and a system converts,
    /// sized to the bricks in use; dropped, with all their memory, when it is switched off).
    pub bricks: Option<ParticleFog>,
}

impl FrameFog {
    /// Creates the passes (and the march's `width` x `height` cloud image); no fog resources yet.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Self> {
        Ok(FrameFog {
            inject: FroxelInjectPass::new(gpu)?,
            temporal: FroxelTemporalPass::new(gpu)?,
            integrate: FroxelIntegratePass::new(gpu)?,
            apply: FogApplyPass::new(gpu)?,
            reference: FogReferencePass::new(gpu)?,
            march: BrickMarchPass::new(gpu, (width, height), march_divisor(height, 0))?,
            composite: BrickCompositePass::new(gpu, width, height)?,
            size: (width, height),
            bounds: BrickBoundsPass::new(gpu)?,
            froxel: None,
            bricks: None,
        })
    }

    /// Makes (or drops, or remakes) the froxel fog for these settings and writes its constants.
    pub fn prepare_froxel(
        &mut self,
        gpu: &mut Gpu,
        scene: &Scene,
        settings: &Settings,
        view: &CameraView,
    ) -> Result<()> {
        if !settings.volumetric_fog {
            self.froxel = None;
            return Ok(());
        }
        let grid = FroxelGrid {
            dims: [settings.froxel_grid_x, settings.froxel_grid_y, settings.froxel_grid_z],
            far_m: settings.froxel_range_m,
        };
        if self.froxel.as_ref().is_none_or(|f| f.grid != grid) {
            self.froxel = Some(FroxelFog::new(gpu, &fog_volumes(scene), grid)?);
        }
        if let Some(fog) = self.froxel.as_mut() {
            fog.begin_frame(&height_fog(scene), view, settings.froxel_history_weight);
        }
        Ok(())
    }

    /// Makes, remakes (voxel size or budget changed; or, in [`ParticleFog::prepare`], another size
    /// for the bricks in use) or drops the brick pool for these settings
    /// (`converted`: systems that become fog; `max_sources`: the particle pool's) and writes its
    /// constants for the list the update of `particles` is about to fill.
    pub fn prepare_bricks(
        &mut self,
        gpu: &mut Gpu,
        settings: &Settings,
        (particles, converted): (Option<&GpuParticles>, u32),
        camera: Vec3,
    ) -> Result<()> {
        let Some(particles) = particles.filter(|_| settings.particle_fog && converted > 0) else {
            self.bricks = None;
            return Ok(());
        };
        let key = PoolKey::new(settings, particles.desc().max_sources);
        if self.bricks.as_ref().is_none_or(|pf| pf.key != key) {
            self.bricks = None;
            self.bricks = Some(ParticleFog::new(gpu, key)?);
        }
        let divisor = march_divisor(self.size.1, settings.particle_fog_march_divisor);
        self.march.set_divisor(gpu, self.size, divisor)?;
        if let Some(pf) = self.bricks.as_mut() {
            // The splat reads the list the update is about to fill.
            pf.prepare(gpu, camera, 1 - particles.current_list());
        }
        Ok(())
    }

    /// The brick passes for the carriers of `particles` (after `particles.update`), with the
    /// per-source inputs `sources`; nothing without bricks.
    pub fn record_bricks(&mut self, rec: &mut Recorder<'_>, particles: &GpuParticles, sources: &Buffer) {
        if let Some(pf) = &mut self.bricks {
            pf.record(rec, particles, sources);
        }
    }

    /// The froxel passes: injection, history, integration, then `fog.apply` (or `fog.reference`
    /// with `reference`) into `hdr` by `depth`; nothing while the froxel fog is off.
    pub fn record_froxel(
        &self,
        rec: &mut Recorder<'_>,
        lit: Lighting<'_>,
        reference: bool,
        (depth, hdr): (&Image, &Image),
    ) {
        let Some(fog) = &self.froxel else { return };
        let (light, samplers) = lit;
        self.inject.record(rec, &light, fog, samplers);
        self.temporal.record(rec, light.frame, fog, samplers);
        self.integrate.record(rec, fog, fog.hist_out());
        if reference {
            self.reference.record(rec, (&light, samplers), fog, depth, hdr);
        } else {
            self.apply.record(rec, (&light, samplers), fog, depth, hdr);
        }
    }

    /// The froxel fog's temporal passes alone (injection and history), for warming it up.
    pub fn record_warm_froxel(&self, rec: &mut Recorder<'_>, (light, samplers): Lighting<'_>) {
        if let Some(fog) = &self.froxel {
            self.inject.record(rec, &light, fog, samplers);
            self.temporal.record(rec, light.frame, fog, samplers);
        }
    }

    /// `fog.brick_march` and `fog.brick_composite` into `hdr` by `depth` (after the froxel fog),
    /// then, for the debug views 2 and 3, `fog.brick_bounds`; nothing without bricks. `carriers`:
    /// in frames where a system's light is eased toward its billboards'.
    pub fn record_march(
        &self,
        rec: &mut Recorder<'_>,
        (light, samplers): Lighting<'_>,
        (depth, hdr): (&Image, &Image),
        (settings, time_s): (&Settings, f32),
        carriers: Option<CarrierInputs<'_>>,
    ) -> Result<()> {
        let Some(pf) = &self.bricks else { return Ok(()) };
        let fog = self.froxel.as_ref().map(FroxelInputs::of);
        let inputs = MarchInputs { light, samplers, fog, bricks: &pf.pool, depth, carriers };
        record_march(rec, (&self.march, &self.composite), &inputs, hdr, (settings, time_s));
        if settings.particle_fog_debug.draws_bounds() {
            self.bounds.record(rec, light.frame, &pf.pool, (depth, hdr))?;
        }
        Ok(())
    }

    /// `fog.brick_march.cloud` when the particle fog was marched this frame (the billboards inside
    /// or behind it are attenuated by it).
    pub fn cloud(&self) -> Option<&Image> {
        self.bricks.is_some().then_some(&self.composite.cloud)
    }
}

/// `fog.brick_light`, `fog.brick_march` and `fog.brick_composite` of `inputs` into `hdr` with
/// the billow sliders of `settings` at `time_s`: the particle fog's drawing, for the host renderer
/// and an embedding viewer alike.
pub fn record_march(
    rec: &mut Recorder<'_>,
    (march, composite): (&BrickMarchPass, &BrickCompositePass),
    inputs: &MarchInputs<'_>,
    hdr: &Image,
    (settings, time_s): (&Settings, f32),
) {
    let push = march_push(settings, time_s, inputs.fog.is_some(), march.divisor);
    march.record(rec, inputs, &push);
    composite.record(rec, (inputs.light.frame, inputs.samplers), march, (inputs.depth, hdr));
}

/// The march's push constants: the billow sliders at `time_s`, the froxel fog's state, the debug
/// view, the march's divisor and the range (for the light's easing toward the billboards').
fn march_push(settings: &Settings, time_s: f32, froxel_on: bool, divisor: u32) -> FogMarchPush {
    FogMarchPush {
        billow: [
            settings.particle_fog_billow,
            settings.particle_fog_billow_scale_m,
            settings.particle_fog_billow_speed_m_per_s,
            time_s,
        ],
        params: [
            if froxel_on { 1.0 } else { 0.0 },
            settings.particle_fog_debug.as_i32() as f32,
            divisor as f32,
            settings.particle_fog_range_m,
        ],
        gathered: [0.0; 4],
    }
}

/// The scene's fog volumes in the GPU form.
pub fn fog_volumes(scene: &Scene) -> Vec<GpuFogVolume> {
    scene
        .fog_volumes
        .iter()
        .map(|v| {
            let (kind, extent) = match v.shape {
                VolumeShape::Box { half_extents } => (0.0, half_extents),
                VolumeShape::Sphere { radius } => (1.0, Vec3::splat(radius)),
            };
            GpuFogVolume {
                center_kind: v.center.extend(kind).to_array(),
                extent_density: extent.extend(v.density).to_array(),
                albedo: v.albedo.extend(0.0).to_array(),
            }
        })
        .collect()
}

/// The scene's height fog as the froxel constants take it.
pub fn height_fog(scene: &Scene) -> HeightFogMedium {
    let hf = &scene.height_fog;
    HeightFogMedium {
        density: hf.density,
        falloff_per_m: hf.falloff,
        base_height_m: hf.base_height,
        albedo: hf.albedo,
        anisotropy: hf.anisotropy,
    }
}
