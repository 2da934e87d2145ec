//! `particles.emit` and `particles.update`: the GPU particle simulation (see the shaders'
//! headers for the algorithms; the CPU twin is `particles::sim`, the per-source scheduling is
//! `particles::gpu`), and [`cull`] (`particles.cull`), the frustum-culled indirect draw list for
//! the billboards. The pool and its per-frame CPU glue live in [`crate::particles_gpu`].
//!
//! Both passes dispatch over a bound known on the CPU (this frame's candidates, the pool's
//! capacity) and read the real counts from `particles.counters`; an indirect dispatch of the
//! update would skip idle groups at large capacities (it needs a `Recorder::dispatch_indirect`).

pub mod cull;

use crate::error::Result;
use crate::gpu_types::ParticleSimPush;
use crate::passes::particle_ribbons::{RibbonBuffers, RibbonLinks, RibbonPass};
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Buffer;

/// The emission pass's name: debug label, timer scope and pipeline name.
pub const EMIT: &str = "particles.emit";
/// The update pass's name.
pub const UPDATE: &str = "particles.update";
/// Threads per workgroup of both shaders.
const WORKGROUP: u32 = 64;

/// The buffers one frame of simulation binds, in binding order.
#[derive(Clone, Copy)]
pub struct SimBuffers<'r> {
    /// `particles.pool`.
    pub pool: &'r Buffer,
    /// `particles.templates` (written at birth by emit, read by update).
    pub templates: &'r Buffer,
    /// `particles.dead`.
    pub dead: &'r Buffer,
    /// The alive list holding this frame's particles (emission appends to it).
    pub alive_in: &'r Buffer,
    /// The alive list that receives the survivors.
    pub alive_out: &'r Buffer,
    /// `particles.counters`.
    pub counters: &'r Buffer,
    /// `particles.emitters`.
    pub emitters: &'r Buffer,
    /// `particles.bursts`.
    pub bursts: &'r Buffer,
    /// The pool's ribbon buffers, when it has a RIBBON source (`particles.ribbons` runs only
    /// then).
    pub ribbons: Option<&'r RibbonLinks>,
}

impl<'r> SimBuffers<'r> {
    /// Both shaders' bindings (pool, dead, alive in/out, counters, emitters, bursts, templates),
    /// with the given accesses of (`alive_in`, `alive_out`, `templates`).
    fn bindings(&self, [alive_in, alive_out, templates]: [Access; 3]) -> [Binding<'r>; 8] {
        [
            Binding::Storage(self.pool, Access::ComputeWrite),
            Binding::Storage(self.dead, Access::ComputeWrite),
            Binding::Storage(self.alive_in, alive_in),
            Binding::Storage(self.alive_out, alive_out),
            Binding::Storage(self.counters, Access::ComputeWrite),
            Binding::Storage(self.emitters, Access::ComputeRead),
            Binding::Storage(self.bursts, Access::ComputeRead),
            Binding::Storage(self.templates, templates),
        ]
    }
}

/// The pipelines of the simulation.
pub struct ParticleSimPasses {
    emit: ComputePipeline,
    update: ComputePipeline,
    ribbons: RibbonPass,
}

impl ParticleSimPasses {
    /// Creates both pipelines.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let push = std::mem::size_of::<ParticleSimPush>() as u32;
        let emit = gpu.create_compute_pipeline(EMIT, shaders::PASSES_PARTICLE_SIM_EMIT_COMP, push)?;
        let update = gpu.create_compute_pipeline(UPDATE, shaders::PASSES_PARTICLE_SIM_UPDATE_COMP, push)?;
        Ok(ParticleSimPasses { emit, update, ribbons: RibbonPass::new(gpu)? })
    }

    /// Records one frame: emission of `push.counts.y` candidates, the ribbon links at birth, the
    /// update of every alive particle (at most `push.counts.w`, the capacity), the ribbon parents.
    pub fn record(&self, rec: &mut Recorder<'_>, bufs: &SimBuffers<'_>, push: &ParticleSimPush) {
        // Emission appends to the current list (and thread 0 empties the other).
        let emit = bufs.bindings([Access::ComputeWrite, Access::ComputeRead, Access::ComputeWrite]);
        // At least one group: thread 0 empties the other alive list even when nothing is emitted.
        let emit_groups = Groups::Direct([push.counts[1].div_ceil(WORKGROUP).max(1), 1, 1]);
        rec.compute(EMIT, &self.emit, &emit, bytemuck::bytes_of(push), emit_groups);
        let ribbons = bufs.ribbons.map(|links| RibbonBuffers {
            pool: bufs.pool,
            alive: bufs.alive_in,
            counters: bufs.counters,
            links,
            list: push.counts[0],
        });
        if let Some(r) = &ribbons {
            self.ribbons.record_birth(rec, r);
        }
        // The update reads the current list and writes the survivors into the other.
        let update = bufs.bindings([Access::ComputeRead, Access::ComputeWrite, Access::ComputeRead]);
        let update_groups = Groups::Direct([push.counts[3].div_ceil(WORKGROUP).max(1), 1, 1]);
        rec.compute(UPDATE, &self.update, &update, bytemuck::bytes_of(push), update_groups);
        if let Some(r) = &ribbons {
            self.ribbons.record_parents(rec, r);
        }
    }
}
