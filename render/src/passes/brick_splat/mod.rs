//! `fog.brick_splat`, `fog.brick_resolve` and `fog.brick_clear`: the particle fog's density
//! carriers splatted mass-conservingly into the bricks allocated this frame, then resolved into
//! the sampled atlas (with aprons) and the accumulators cleared (shaders beside this file; the
//! kernel and fixed point in `shaders/bricks.glsl`, whose CPU twin is `fog::splat`).
//!
//! `fog.brick_splat` runs a thread per carrier and hands kernels wider than a few z slabs to
//! `fog.brick_splat.wide` (a thread per slab). Once the counts are final they are copied from
//! `fog.bricks.counters` into `fog.bricks.dispatch`, from which the wide splat, the resolve and
//! the clear (one workgroup per brick in use), and later `fog.brick_light`, are dispatched
//! indirectly.

use crate::error::Result;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Buffer;

/// `fog.brick_splat`.
pub const SPLAT: &str = "fog.brick_splat";
/// `fog.brick_splat.wide`: the splat of kernels wider than a few slabs, a thread per slab.
pub const SPLAT_WIDE: &str = "fog.brick_splat.wide";
/// `fog.brick_resolve`.
pub const RESOLVE: &str = "fog.brick_resolve";
/// `fog.brick_clear`.
pub const CLEAR: &str = "fog.brick_clear";
/// Threads per workgroup of the splat.
const WORKGROUP: u32 = 64;

/// The three pipelines.
pub struct BrickSplatPasses {
    splat: ComputePipeline,
    resolve: ComputePipeline,
    clear: ComputePipeline,
}

impl BrickSplatPasses {
    /// Creates the pipelines.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let make = |name, spirv| gpu.create_compute_pipeline(name, spirv, 0);
        Ok(BrickSplatPasses {
            splat: gpu.create_compute_pipeline(SPLAT, shaders::PASSES_BRICK_SPLAT_SPLAT_COMP, 16)?,
            resolve: make(RESOLVE, shaders::PASSES_BRICK_SPLAT_RESOLVE_COMP)?,
            clear: make(CLEAR, shaders::PASSES_BRICK_SPLAT_CLEAR_COMP)?,
        })
    }

    /// Records the splat over `particles` threads (the pool's capacity), copies the final counts
    /// into `dispatch`, then the wide splat (a thread per wide kernel and z slab), the resolve
    /// and the clear (one workgroup per brick in use), dispatched from `dispatch`, all over the
    /// brick passes' `bindings` ([`crate::particle_fog::pool::BrickPool::bindings`]).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        bindings: &[Binding<'_>],
        (counters, dispatch): (&Buffer, &Buffer),
        particles: u32,
    ) {
        let mode = |m: u32| -> [u32; 4] { [m, 0, 0, 0] };
        let groups = Groups::Direct([particles.div_ceil(WORKGROUP).max(1), 1, 1]);
        rec.compute(SPLAT, &self.splat, bindings, bytemuck::bytes_of(&mode(0)), groups);
        let wide_args = (crate::particle_fog::stats::words::WIDE_ARGS * 4) as u64;
        let copy =
            [Use::Buffer(counters, Access::TransferRead), Use::Buffer(dispatch, Access::TransferWrite)];
        rec.pass("fog.bricks.dispatch", &copy, |rec| {
            rec.copy_buffer_regions(counters, dispatch, &[(0, 0, 12), (wide_args, 12, 12), (0, 24, 4)]);
        });
        let wide = Groups::Indirect(dispatch, 12);
        rec.compute(SPLAT_WIDE, &self.splat, bindings, bytemuck::bytes_of(&mode(1)), wide);
        for (name, pipe) in [(RESOLVE, &self.resolve), (CLEAR, &self.clear)] {
            rec.compute(name, pipe, bindings, &[], Groups::Indirect(dispatch, 0));
        }
    }
}
