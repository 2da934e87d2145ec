//! `fog.apply`: the integrated froxel fog over the opaque image, by depth (see the shader).

use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Image;
use crate::vk::sampler::Samplers;

/// The pass name.
pub const NAME: &str = "fog.apply";
const TILE: u32 = 8;

/// The apply pass's pipeline.
pub struct FogApplyPass {
    pipeline: ComputePipeline,
}

impl FogApplyPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_compute_pipeline(NAME, shaders::PASSES_FOG_APPLY_APPLY_COMP, 0)?;
        Ok(FogApplyPass { pipeline })
    }

    /// Composites the fog into `hdr` using `depth`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        fog: &FroxelFog,
        samplers: &Samplers,
        depth: &Image,
        hdr: &Image,
    ) {
        let bindings = [
            Binding::Uniform(&fog.uniform),
            Binding::Sampled(&fog.integrated, samplers.linear_clamp, Access::ComputeSampled),
            Binding::Sampled(depth, samplers.nearest_clamp, Access::ComputeSampled),
            Binding::StorageImage(hdr, Access::ComputeWrite),
        ];
        let (w, h) = (hdr.extent.width, hdr.extent.height);
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        rec.compute(NAME, &self.pipeline, &bindings, &[], groups);
    }
}
