//! `fog.froxel_temporal`: this frame's injected media blended with the reprojected history,
//! clamped to the froxel neighbourhood (see the shader).

use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Buffer;
use crate::vk::sampler::Samplers;

/// The pass name.
pub const NAME: &str = "fog.froxel_temporal";
const GROUP: u32 = 4;

/// The temporal pass's pipeline.
pub struct FroxelTemporalPass {
    pipeline: ComputePipeline,
}

impl FroxelTemporalPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_compute_pipeline(NAME, shaders::PASSES_FROXEL_TEMPORAL_TEMPORAL_COMP, 0)?;
        Ok(FroxelTemporalPass { pipeline })
    }

    /// Blends `fog.current` with `fog.hist_in()` into `fog.hist_out()`.
    pub fn record(&self, rec: &mut Recorder<'_>, frame: &Buffer, fog: &FroxelFog, samplers: &Samplers) {
        let bindings = [
            Binding::Uniform(frame),
            Binding::Uniform(&fog.uniform),
            Binding::StorageImage(&fog.current, Access::ComputeRead),
            Binding::Sampled(fog.hist_in(), samplers.linear_clamp, Access::ComputeSampled),
            Binding::StorageImage(fog.hist_out(), Access::ComputeWrite),
        ];
        let [w, h, d] = fog.grid.dims;
        let groups = Groups::Direct([w.div_ceil(GROUP), h.div_ceil(GROUP), d.div_ceil(GROUP)]);
        rec.compute(NAME, &self.pipeline, &bindings, &[], groups);
    }
}
