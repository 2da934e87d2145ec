//! `fog.froxel_inject`: media and lighting per froxel, averaged over jittered samples (see the
//! shader); `fog.froxel_temporal` blends the result with the history.

use crate::error::Result;
use crate::froxel::FroxelFog;
use crate::passes::opaque::{lighting_binding_kinds_with, lighting_binds};
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, BindingKind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Buffer;
use crate::vk::sampler::Samplers;
use crate::world::World;

/// The pass name.
pub const NAME: &str = "fog.froxel_inject";
const GROUP: u32 = 4;

/// The inject pass's pipeline.
pub struct FroxelInjectPass {
    pipeline: ComputePipeline,
}

impl FroxelInjectPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let kinds = lighting_binding_kinds_with(&[
            BindingKind::UniformBuffer,
            BindingKind::StorageBuffer,
            BindingKind::StorageImage,
            BindingKind::StorageImage,
        ]);
        let pipeline =
            gpu.create_compute_pipeline(NAME, shaders::PASSES_FROXEL_INJECT_INJECT_COMP, &kinds, 0)?;
        Ok(FroxelInjectPass { pipeline })
    }

    /// Fills this frame's injected media.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        frame: &Buffer,
        world: &World,
        fog: &FroxelFog,
        samplers: &Samplers,
    ) {
        let uses = [
            Use::Buffer(&world.lights, Access::ComputeRead),
            Use::Buffer(&world.shadow_views, Access::ComputeRead),
            Use::Image(&world.shadow_atlas, Access::ComputeSampled),
            Use::Image(&world.projector_tex, Access::ComputeSampled),
            Use::Buffer(&fog.volumes, Access::ComputeRead),
            Use::Image(&fog.current, Access::ComputeWrite),
            Use::Image(&fog.now, Access::ComputeWrite),
        ];
        let [w, h, d] = fog.grid.dims;
        rec.pass(NAME, &uses, |rec| {
            let mut binds = lighting_binds(frame, world, samplers).to_vec();
            binds.extend([
                Bind::Buffer(&fog.uniform),
                Bind::Buffer(&fog.volumes),
                Bind::StorageImage(&fog.current),
                Bind::StorageImage(&fog.now),
            ]);
            rec.dispatch(
                &self.pipeline,
                &binds,
                &[],
                [w.div_ceil(GROUP), h.div_ceil(GROUP), d.div_ceil(GROUP)],
            );
        });
    }
}
