//! `fog.froxel_temporal`: this frame's injected media blended with the reprojected history,
//! clamped to the froxel neighbourhood (see the shader).

use ash::vk;

use crate::error::Result;
use crate::froxel::FroxelFog;
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, BindingKind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Buffer;
use crate::vk::sampler::Samplers;

/// The pass name.
pub const NAME: &str = "fog.froxel_temporal";
const GROUP: u32 = 4;

const KINDS: [BindingKind; 5] = [
    BindingKind::UniformBuffer,
    BindingKind::UniformBuffer,
    BindingKind::StorageImage,
    BindingKind::SampledImage,
    BindingKind::StorageImage,
];

/// The temporal pass's pipeline.
pub struct FroxelTemporalPass {
    pipeline: ComputePipeline,
}

impl FroxelTemporalPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline =
            gpu.create_compute_pipeline(NAME, shaders::PASSES_FROXEL_TEMPORAL_TEMPORAL_COMP, &KINDS, 0)?;
        Ok(FroxelTemporalPass { pipeline })
    }

    /// Blends `fog.current` with `fog.hist_in()` into `fog.hist_out()`.
    pub fn record(&self, rec: &mut Recorder<'_>, frame: &Buffer, fog: &FroxelFog, samplers: &Samplers) {
        let uses = [
            Use::Image(&fog.current, Access::ComputeRead),
            Use::Image(fog.hist_in(), Access::ComputeSampled),
            Use::Image(fog.hist_out(), Access::ComputeWrite),
        ];
        let [w, h, d] = fog.grid.dims;
        rec.pass(NAME, &uses, |rec| {
            let binds = [
                Bind::Buffer(frame),
                Bind::Buffer(&fog.uniform),
                Bind::StorageImage(&fog.current),
                Bind::Sampled(
                    fog.hist_in(),
                    samplers.linear_clamp,
                    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                ),
                Bind::StorageImage(fog.hist_out()),
            ];
            let groups = [w.div_ceil(GROUP), h.div_ceil(GROUP), d.div_ceil(GROUP)];
            rec.dispatch(&self.pipeline, &binds, &[], groups);
        });
    }
}
