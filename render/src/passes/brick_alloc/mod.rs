//! `fog.brick_age`, `fog.brick_mark` and `fog.brick_alloc`: the GPU-driven allocation of the
//! particle fog's bricks for this frame (shaders beside this file; the bindings and layout in
//! `shaders/bricks.glsl`, the resources in [`crate::particle_fog::pool`]).
//!
//! 1. `fog.brick_age` (a thread per slot): last frame's bricks go back into the cleared page
//!    table when still young and inside their clip window, the rest are evicted to the free list.
//! 2. `fog.brick_mark` (a thread per live particle): each converted carrier's kernel marks the
//!    bricks it needs; missing ones are requested once.
//! 3. `fog.brick_alloc` (a thread per request): pops a free slot for each.
//!
//! The CPU sees only counts (read back after the frame), never a particle.

use crate::error::Result;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::Recorder;

/// `fog.brick_age`.
pub const AGE: &str = "fog.brick_age";
/// `fog.brick_mark`.
pub const MARK: &str = "fog.brick_mark";
/// `fog.brick_alloc`.
pub const ALLOC: &str = "fog.brick_alloc";
/// Threads per workgroup of the three shaders.
const WORKGROUP: u32 = 64;

/// The three pipelines.
pub struct BrickAllocPasses {
    age: ComputePipeline,
    mark: ComputePipeline,
    alloc: ComputePipeline,
}

/// How many threads each step needs: slots, particles (the pool's capacity: the live count is
/// read on the GPU), requests.
#[derive(Clone, Copy, Debug)]
pub struct AllocSizes {
    /// Slots in the pool.
    pub slots: u32,
    /// Particle pool capacity.
    pub particles: u32,
    /// Request-list capacity.
    pub requests: u32,
}

impl BrickAllocPasses {
    /// Creates the pipelines.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let make = |name, spirv| gpu.create_compute_pipeline(name, spirv, 0);
        Ok(BrickAllocPasses {
            age: make(AGE, shaders::PASSES_BRICK_ALLOC_AGE_COMP)?,
            mark: make(MARK, shaders::PASSES_BRICK_ALLOC_MARK_COMP)?,
            alloc: make(ALLOC, shaders::PASSES_BRICK_ALLOC_ALLOC_COMP)?,
        })
    }

    /// Records age, mark and alloc over the brick passes' `bindings`
    /// ([`crate::particle_fog::pool::BrickPool::bindings`]).
    pub fn record(&self, rec: &mut Recorder<'_>, bindings: &[Binding<'_>], n: AllocSizes) {
        let steps =
            [(AGE, &self.age, n.slots), (MARK, &self.mark, n.particles), (ALLOC, &self.alloc, n.requests)];
        for (name, pipe, threads) in steps {
            rec.compute(
                name,
                pipe,
                bindings,
                &[],
                Groups::Direct([threads.div_ceil(WORKGROUP).max(1), 1, 1]),
            );
        }
    }
}
