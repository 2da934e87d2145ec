//! `fog.froxel_inject`: media and lighting per froxel, averaged over jittered samples (see the
//! shader); `fog.froxel_temporal` blends the result with the history.

use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::passes::opaque::{lighting_bindings, LightInputs, IN_COMPUTE};
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::sampler::Samplers;

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
        let pipeline = gpu.create_compute_pipeline(NAME, shaders::PASSES_FROXEL_INJECT_INJECT_COMP, 0)?;
        Ok(FroxelInjectPass { pipeline })
    }

    /// Fills this frame's injected media.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        lit: &LightInputs<'_>,
        fog: &FroxelFog,
        samplers: &Samplers,
    ) {
        let mut bindings = lighting_bindings(lit, samplers, IN_COMPUTE).to_vec();
        bindings.extend([
            Binding::Uniform(&fog.uniform),
            Binding::Storage(&fog.volumes, Access::ComputeRead),
            Binding::StorageImage(&fog.current, Access::ComputeWrite),
            Binding::StorageImage(&fog.now, Access::ComputeWrite),
        ]);
        let [w, h, d] = fog.grid.dims;
        let groups = Groups::Direct([w.div_ceil(GROUP), h.div_ceil(GROUP), d.div_ceil(GROUP)]);
        rec.compute(NAME, &self.pipeline, &bindings, &[], groups);
    }
}
