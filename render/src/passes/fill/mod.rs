//! `gpu.fill`: fills a buffer with `(i * multiplier) ^ seed`. The smallest complete pass (inputs,
//! outputs, constants, dispatch); tests use it to prove the compute path end to end.

use crate::error::Result;
use crate::gpu_types::FillParams;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Buffer;

/// The pass name: debug label, timer scope and pipeline name.
pub const NAME: &str = "gpu.fill";
const WORKGROUP: u32 = 64;

/// The fill pass's pipeline.
pub struct FillPass {
    pipeline: ComputePipeline,
}

impl FillPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_compute_pipeline(
            NAME,
            shaders::PASSES_FILL_FILL_COMP,
            std::mem::size_of::<FillParams>() as u32,
        )?;
        Ok(FillPass { pipeline })
    }

    /// Writes `params.count` values into `out` (which must hold at least that many `u32`).
    pub fn record(&self, rec: &mut Recorder<'_>, out: &Buffer, params: FillParams) {
        if u64::from(params.count) * 4 > out.size {
            crate::error::bug("gpu.fill: output buffer too small");
        }
        let groups = params.count.div_ceil(WORKGROUP);
        let bindings = [Binding::Storage(out, Access::ComputeWrite)];
        rec.compute(
            NAME,
            &self.pipeline,
            &bindings,
            bytemuck::bytes_of(&params),
            Groups::Direct([groups, 1, 1]),
        );
    }
}

/// The CPU twin of the shader's function.
pub fn expected(i: u32, params: &FillParams) -> u32 {
    i.wrapping_mul(params.multiplier) ^ params.seed
}
