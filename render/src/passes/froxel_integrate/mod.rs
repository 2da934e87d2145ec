//! `fog.froxel_integrate`: front-to-back integration of every froxel column (see the shader).

use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Image;

/// The pass name.
pub const NAME: &str = "fog.froxel_integrate";
const GROUP: u32 = 8;

/// The integrate pass's pipeline.
pub struct FroxelIntegratePass {
    pipeline: ComputePipeline,
}

impl FroxelIntegratePass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline =
            gpu.create_compute_pipeline(NAME, shaders::PASSES_FROXEL_INTEGRATE_INTEGRATE_COMP, 0)?;
        Ok(FroxelIntegratePass { pipeline })
    }

    /// Integrates `hist` + `now` into `fog.integrated`.
    pub fn record(&self, rec: &mut Recorder<'_>, fog: &FroxelFog, hist: &Image) {
        let bindings = [
            Binding::Uniform(&fog.uniform),
            Binding::StorageImage(hist, Access::ComputeRead),
            Binding::StorageImage(&fog.now, Access::ComputeRead),
            Binding::StorageImage(&fog.integrated, Access::ComputeWrite),
        ];
        let [w, h, _] = fog.grid.dims;
        let groups = Groups::Direct([w.div_ceil(GROUP), h.div_ceil(GROUP), 1]);
        rec.compute(NAME, &self.pipeline, &bindings, &[], groups);
    }
}
