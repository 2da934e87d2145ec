//! `particles.batch`: indirect draws that keep the far-to-near order of the sorted visible list
//! across blend pairs (algorithm in `batch.comp`). The billboards own it
//! ([`crate::passes::billboards`]) and use it when the frame has more than one pair; they then
//! record [`MAX_RUNS`] x P indirect draws in slot-major order, each pipeline's own draw of a slot
//! non-empty only when the slot's run has that pipeline's pair.

use ash::vk;

use crate::error::Result;
use crate::gpu_types::{BatchPush, GpuDrawIndirect};
use crate::passes::particle_sim::cull::VisibleParticles;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, BufferDesc, MemoryLocation};

/// The pass name; its steps are `particles.batch.reset`, `.starts` and `.commands`.
pub const NAME: &str = "particles.batch";
/// Run slots per frame (as `MAX_RUNS` in `batch.comp`): the last one takes every later run.
pub const MAX_RUNS: u32 = 64;
/// Most run starts recorded; with more runs the order is kept within each pair only.
const MAX_STARTS: u32 = 1024;
/// Threads per workgroup.
const WORKGROUP: u32 = 256;
const MODE_RESET: u32 = 0;
const MODE_STARTS: u32 = 1;
const MODE_COMMANDS: u32 = 2;
const U32_BYTES: u64 = 4;

/// The batch pipeline, its buffers and the pairs they were made for.
pub struct BatchPass {
    pipeline: ComputePipeline,
    starts: Buffer,
    /// `particles.batch.commands`: [`MAX_RUNS`] x pairs `VkDrawIndirectCommand`s.
    pub commands: Buffer,
    pairs_buf: Buffer,
    pairs: Vec<u32>,
}

impl BatchPass {
    /// Creates the pipeline and buffers for the pipelines' blend pairs, given as their packed codes
    /// (`pairs`, in draw-pipeline order; see `billboards::pipeline::pair_code`).
    pub fn new(gpu: &Gpu, pairs: &[u32]) -> Result<Self> {
        let push = std::mem::size_of::<BatchPush>() as u32;
        let pipeline = gpu.create_compute_pipeline(NAME, shaders::PASSES_PARTICLE_BATCH_BATCH_COMP, push)?;
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let buffer = |name: &str, size: u64, usage, location| {
            gpu.create_buffer(&BufferDesc { name, size: size.max(U32_BYTES), usage, location })
        };
        let starts = buffer(
            "particles.batch.starts",
            (1 + u64::from(MAX_STARTS)) * U32_BYTES,
            storage,
            MemoryLocation::GpuOnly,
        )?;
        let command_bytes = std::mem::size_of::<GpuDrawIndirect>() as u64;
        let commands = buffer(
            "particles.batch.commands",
            u64::from(MAX_RUNS) * pairs.len() as u64 * command_bytes,
            storage | vk::BufferUsageFlags::INDIRECT_BUFFER,
            MemoryLocation::GpuOnly,
        )?;
        let codes = pairs.to_vec();
        let mut pairs_buf = buffer(
            "particles.batch.pairs",
            codes.len() as u64 * U32_BYTES,
            storage,
            MemoryLocation::CpuToGpu,
        )?;
        pairs_buf.write(0, bytemuck::cast_slice(&codes));
        Ok(BatchPass { pipeline, starts, commands, pairs_buf, pairs: codes })
    }

    /// True when it was made for exactly these pairs (packed codes).
    pub fn is_for(&self, pairs: &[u32]) -> bool {
        self.pairs == pairs
    }

    /// Records the three steps over `particles.visible` (after `particles.sort`).
    pub fn record(&self, rec: &mut Recorder<'_>, particles: &VisibleParticles<'_>) {
        let bindings = [
            Binding::Storage(particles.pool, Access::ComputeRead),
            Binding::Storage(particles.visible, Access::ComputeRead),
            Binding::Storage(particles.draw_args, Access::ComputeRead),
            Binding::Storage(&self.starts, Access::ComputeWrite),
            Binding::Storage(&self.commands, Access::ComputeWrite),
            Binding::Storage(&self.pairs_buf, Access::ComputeRead),
        ];
        let pipelines = self.pairs.len() as u32;
        let list_groups = particles.capacity.div_ceil(WORKGROUP);
        for (what, mode, groups) in
            [("reset", MODE_RESET, 1), ("starts", MODE_STARTS, list_groups), ("commands", MODE_COMMANDS, 1)]
        {
            let push = BatchPush { params: [mode, MAX_STARTS, pipelines, 0] };
            let name = crate::names::resource(NAME, what);
            rec.compute(
                &name,
                &self.pipeline,
                &bindings,
                bytemuck::bytes_of(&push),
                Groups::Direct([groups, 1, 1]),
            );
        }
    }
}
