//! `particles.sort`: the visible particles ordered far to near along the camera's forward axis
//! before the billboards draw them (as `llvopartgroup.cpp`), equal depths in pool-slot order, by
//! a merge sort whose work follows the visible count on the GPU (see `sort.comp` and
//! `shaders/merge_sort.glsl`; [`merge`] is the part shared with `particles.ribbons`):
//!
//! - `particles.sort.args` (`args.comp`): one thread turns `particles.draw_args`' instance count
//!   n into the indirect dispatches of the steps below (no CPU readback);
//! - `particles.sort.blocks`: ceil(n / 4096) workgroups each compute the (key, slot) pairs of 4096
//!   visible particles and sort them in shared memory (each thread sorts 8 in registers, then
//!   runs are merged pairwise by merge path, Odeh et al., IPDPS 2012); with n <= 4096 this one
//!   workgroup writes `particles.visible`;
//! - `particles.sort.merge`, once per level: the sorted runs of 4096 x 2^l merged pairwise, a tile
//!   of 4096 outputs per workgroup (ModernGPU's mergesort), while the runs are shorter than n; the
//!   last level writes `particles.visible`. The CPU records the levels the capacity could need;
//!   the others dispatch nothing.
//!
//! A million particles: 245 blocks and 8 merge levels. The runs alternate between
//! `particles.sort.runs0` and `particles.sort.runs1` (8 bytes per pool slot each).

pub mod merge;

use glam::Vec3;

use crate::error::Result;
use crate::gpu_types::ParticleSortPush;
use crate::passes::particle_sim::cull::VisibleParticles;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::ComputePipeline;
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Buffer;
use merge::{SortArgsPass, SortShape};

/// The pass name (its steps are `particles.sort.args`, `particles.sort.blocks`,
/// `particles.sort.merge`).
pub const NAME: &str = "particles.sort";
/// The sort's workgroups and elements: 512 threads x 8 (key, slot) pairs of 8 bytes, so a tile of
/// 4096 takes 32 KiB of shared memory (`sort.comp`'s `SORT_THREADS`, `SORT_ITEMS`).
pub(crate) const SHAPE: SortShape = SortShape { threads: 512, items: 8, elem_bytes: 8, capacity: 0 };
/// Group size the args step is given for the per-element dispatch (which this pass does not use).
const EACH: u32 = 64;
/// The word of `particles.draw_args` (a `VkDrawIndirectCommand`) holding the instance count.
const INSTANCE_COUNT_WORD: u32 = 1;

/// The sort pipeline and its buffers.
pub struct ParticleSortPass {
    args_pass: SortArgsPass,
    pipeline: ComputePipeline,
    runs: [Buffer; 2],
    args: Buffer,
    shape: SortShape,
}

impl ParticleSortPass {
    /// Creates the pipeline, `particles.sort.runs0/1` and `particles.sort.args` for a pool of
    /// `capacity` particles; fails when the device cannot run the sort's workgroups.
    pub fn new(gpu: &Gpu, capacity: u32) -> Result<Self> {
        let shape = SortShape { capacity, ..SHAPE };
        shape.check(gpu, NAME)?;
        let push = std::mem::size_of::<ParticleSortPush>() as u32;
        let args_pass = SortArgsPass::new(gpu, NAME)?;
        let pipeline = gpu.create_compute_pipeline(NAME, shaders::PASSES_PARTICLE_SORT_SORT_COMP, push)?;
        let runs = [
            shape.create_runs(gpu, &crate::names::resource(NAME, "runs0"))?,
            shape.create_runs(gpu, &crate::names::resource(NAME, "runs1"))?,
        ];
        let args = merge::create_args(gpu, &crate::names::resource(NAME, "args"))?;
        Ok(ParticleSortPass { args_pass, pipeline, runs, args, shape })
    }

    /// Records the sort of `particles.visible` (after `particles.cull`) for a camera at `camera`
    /// looking along `forward`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        particles: &VisibleParticles<'_>,
        camera: Vec3,
        forward: Vec3,
    ) {
        let count = (particles.draw_args, INSTANCE_COUNT_WORD);
        self.args_pass.record(rec, count, &self.args, &self.shape, EACH);
        for step in merge::steps(&self.shape, &self.args) {
            let bindings = [
                Binding::Storage(particles.pool, Access::ComputeRead),
                Binding::Storage(particles.visible, Access::ComputeWrite),
                Binding::Storage(&self.runs[0], Access::ComputeWrite),
                Binding::Storage(&self.runs[1], Access::ComputeWrite),
                Binding::Storage(&self.args, Access::ComputeRead),
            ];
            let push = ParticleSortPush {
                camera: camera.extend(0.0).to_array(),
                forward: forward.extend(0.0).to_array(),
                params: [step.params[0], step.params[1], 0, 0],
            };
            let name = crate::names::resource(NAME, step.what);
            rec.compute(&name, &self.pipeline, &bindings, bytemuck::bytes_of(&push), step.groups);
        }
    }
}
