//! `fog.froxel_integrate`: front-to-back integration of every froxel column (see the shader).

use crate::error::Result;
use crate::froxel::FroxelFog;
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, BindingKind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Image;

/// The pass name.
pub const NAME: &str = "fog.froxel_integrate";
const GROUP: u32 = 8;

/// The integrate pass's pipeline.
pub struct FroxelIntegratePass {
    pipeline: ComputePipeline,
}

const KINDS: [BindingKind; 4] = [
    BindingKind::UniformBuffer,
    BindingKind::StorageImage,
    BindingKind::StorageImage,
    BindingKind::StorageImage,
];

impl FroxelIntegratePass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline =
            gpu.create_compute_pipeline(NAME, shaders::PASSES_FROXEL_INTEGRATE_INTEGRATE_COMP, &KINDS, 0)?;
        Ok(FroxelIntegratePass { pipeline })
    }

    /// Integrates `hist` + `now` into `fog.integrated`.
    pub fn record(&self, rec: &mut Recorder<'_>, fog: &FroxelFog, hist: &Image) {
        let uses = [
            Use::Image(hist, Access::ComputeRead),
            Use::Image(&fog.now, Access::ComputeRead),
            Use::Image(&fog.integrated, Access::ComputeWrite),
        ];
        let [w, h, _] = fog.grid.dims;
        rec.pass(NAME, &uses, |rec| {
            let binds = [
                Bind::Buffer(&fog.uniform),
                Bind::StorageImage(hist),
                Bind::StorageImage(&fog.now),
                Bind::StorageImage(&fog.integrated),
            ];
            rec.dispatch(&self.pipeline, &binds, &[], [w.div_ceil(GROUP), h.div_ceil(GROUP), 1]);
        });
    }
}
