//! `fog.apply`: the integrated froxel fog over the opaque image, by depth (see the shader).

use ash::vk;

use crate::error::Result;
use crate::froxel::FroxelFog;
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, BindingKind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Image;
use crate::vk::sampler::Samplers;

/// The pass name.
pub const NAME: &str = "fog.apply";
const TILE: u32 = 8;

/// The apply pass's pipeline.
pub struct FogApplyPass {
    pipeline: ComputePipeline,
}

const KINDS: [BindingKind; 4] = [
    BindingKind::UniformBuffer,
    BindingKind::SampledImage,
    BindingKind::SampledImage,
    BindingKind::StorageImage,
];

impl FogApplyPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_compute_pipeline(NAME, shaders::PASSES_FOG_APPLY_APPLY_COMP, &KINDS, 0)?;
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
        let uses = [
            Use::Image(&fog.integrated, Access::ComputeSampled),
            Use::Image(depth, Access::ComputeSampled),
            Use::Image(hdr, Access::ComputeWrite),
        ];
        let (w, h) = (hdr.extent.width, hdr.extent.height);
        rec.pass(NAME, &uses, |rec| {
            let ro = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
            let binds = [
                Bind::Buffer(&fog.uniform),
                Bind::Sampled(&fog.integrated, samplers.linear_clamp, ro),
                Bind::Sampled(depth, samplers.nearest_clamp, ro),
                Bind::StorageImage(hdr),
            ];
            rec.dispatch(&self.pipeline, &binds, &[], [w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        });
    }
}
