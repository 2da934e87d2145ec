//! `fog.brick_splat`, `fog.brick_resolve` and `fog.brick_clear`: the particle fog's density
//! carriers splatted mass-conservingly into the bricks allocated this frame, then resolved into
//! the sampled atlas (with aprons) and the accumulators cleared (shaders beside this file; the
//! kernel and fixed point in `shaders/bricks.glsl`, whose CPU twin is `fog::splat`).
//!
//! The resolve and clear run one workgroup per brick in use, dispatched indirectly from the count
//! the allocation passes left in `fog.bricks.counters`.

use crate::error::Result;
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Buffer;

use crate::particle_fog::pool::BINDING_KINDS;

/// `fog.brick_splat`.
pub const SPLAT: &str = "fog.brick_splat";
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
        let make = |name, spirv| gpu.create_compute_pipeline(name, spirv, &BINDING_KINDS, 0);
        Ok(BrickSplatPasses {
            splat: make(SPLAT, shaders::PASSES_BRICK_SPLAT_SPLAT_COMP)?,
            resolve: make(RESOLVE, shaders::PASSES_BRICK_SPLAT_RESOLVE_COMP)?,
            clear: make(CLEAR, shaders::PASSES_BRICK_SPLAT_CLEAR_COMP)?,
        })
    }

    /// Records the splat over `particles` x `MAX_AXIS_CELLS` threads (the pool's capacity, times
    /// the z slabs of a kernel), then the resolve and the
    /// clear, one workgroup per brick in use (`counters` words 0..2).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        binds: &[Bind<'_>],
        uses: &[Use<'_>],
        counters: &Buffer,
        particles: u32,
    ) {
        rec.pass(SPLAT, uses, |rec| {
            let slabs = fog::bricks::MAX_AXIS_CELLS as u32;
            rec.dispatch(&self.splat, binds, &[], [particles.div_ceil(WORKGROUP).max(1), slabs, 1]);
        });
        let mut indirect: Vec<Use<'_>> =
            uses.iter().copied().filter(|u| !matches!(u, Use::Buffer(b, _) if b.id == counters.id)).collect();
        indirect.push(Use::Buffer(counters, Access::IndirectRead));
        for (name, pipe) in [(RESOLVE, &self.resolve), (CLEAR, &self.clear)] {
            rec.pass(name, &indirect, |rec| rec.dispatch_indirect(pipe, binds, &[], counters, 0));
        }
    }
}
