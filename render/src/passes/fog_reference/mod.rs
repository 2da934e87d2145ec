//! `fog.reference`: the host fog by a per-pixel ray-march instead of the froxels, for tests and for
//! judging quality (`RenderVKVolumetricFogReference`; see the shader). Slow by design.

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
pub const NAME: &str = "fog.reference";
/// Pixels (of one row) per workgroup, as in the shader.
const PIXELS_PER_GROUP: u32 = 8;

/// The reference pass's pipeline.
pub struct FogReferencePass {
    pipeline: ComputePipeline,
}

impl FogReferencePass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_compute_pipeline(NAME, shaders::PASSES_FOG_REFERENCE_REFERENCE_COMP, 0)?;
        Ok(FogReferencePass { pipeline })
    }

    /// Marches the fog of `fog`'s scene over `hdr` by `depth` (in place of `fog.apply`).
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
            Binding::Sampled(depth, samplers.nearest_clamp, Access::ComputeSampled),
            Binding::StorageImage(hdr, Access::ComputeWrite),
        ]);
        let (w, h) = (hdr.extent.width, hdr.extent.height);
        let groups = Groups::Direct([w.div_ceil(PIXELS_PER_GROUP), h, 1]);
        rec.compute(NAME, &self.pipeline, &bindings, &[], groups);
    }
}
