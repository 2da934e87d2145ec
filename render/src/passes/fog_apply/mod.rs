//! `fog.apply`: the integrated froxel fog over the opaque image, by depth, and each local light's
//! near-window in-scatter along the pixel's rays (see the shader and `fog_media.glsl`).

use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::passes::opaque::{lighting_bindings, LightInputs, IN_COMPUTE};
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

    /// Composites the fog into `hdr` using `depth`, with the local lights' near in-scatter (which
    /// reads the lights, their shadows and projectors, and the fog volumes).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        (lit, samplers): (&LightInputs<'_>, &Samplers),
        fog: &FroxelFog,
        depth: &Image,
        hdr: &Image,
    ) {
        let mut bindings = lighting_bindings(lit, samplers, IN_COMPUTE).to_vec();
        bindings.extend([
            Binding::Uniform(&fog.uniform),
            Binding::Storage(&fog.volumes, Access::ComputeRead),
            Binding::Sampled(&fog.integrated, samplers.linear_clamp, Access::ComputeSampled),
            Binding::Sampled(depth, samplers.nearest_clamp, Access::ComputeSampled),
            Binding::StorageImage(hdr, Access::ComputeWrite),
        ]);
        let (w, h) = (hdr.extent.width, hdr.extent.height);
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        rec.compute(NAME, &self.pipeline, &bindings, &[], groups);
    }
}
