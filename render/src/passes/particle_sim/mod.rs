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
use crate::passes::particle_ribbons::{RibbonBuffers, RibbonPass};
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, BindingKind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Buffer;

/// The emission pass's name: debug label, timer scope and pipeline name.
pub const EMIT: &str = "particles.emit";
/// The update pass's name.
pub const UPDATE: &str = "particles.update";
/// Threads per workgroup of both shaders.
const WORKGROUP: u32 = 64;
/// Storage buffers bound by both shaders (pool, dead, alive in/out, counters, emitters, bursts).
const BINDINGS: [BindingKind; 7] = [BindingKind::StorageBuffer; 7];

/// The buffers one frame of simulation binds, in binding order.
#[derive(Clone, Copy)]
pub struct SimBuffers<'r> {
    /// `particles.pool`.
    pub pool: &'r Buffer,
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
    /// `particles.ribbon_keys`, `particles.ribbon_parent` and `particles.ribbon_tail`, when the
    /// pool has a RIBBON source (`particles.ribbons` runs only then).
    pub ribbons: Option<[&'r Buffer; 3]>,
}

impl<'r> SimBuffers<'r> {
    /// The passes' uses in binding order, with the given accesses of (`alive_in`, `alive_out`).
    fn uses(&self, [alive_in, alive_out]: [Access; 2]) -> [Use<'r>; 7] {
        [
            Use::Buffer(self.pool, Access::ComputeWrite),
            Use::Buffer(self.dead, Access::ComputeWrite),
            Use::Buffer(self.alive_in, alive_in),
            Use::Buffer(self.alive_out, alive_out),
            Use::Buffer(self.counters, Access::ComputeWrite),
            Use::Buffer(self.emitters, Access::ComputeRead),
            Use::Buffer(self.bursts, Access::ComputeRead),
        ]
    }

    fn binds(&self) -> [Bind<'r>; 7] {
        [
            Bind::Buffer(self.pool),
            Bind::Buffer(self.dead),
            Bind::Buffer(self.alive_in),
            Bind::Buffer(self.alive_out),
            Bind::Buffer(self.counters),
            Bind::Buffer(self.emitters),
            Bind::Buffer(self.bursts),
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
        let emit =
            gpu.create_compute_pipeline(EMIT, shaders::PASSES_PARTICLE_SIM_EMIT_COMP, &BINDINGS, push)?;
        let update =
            gpu.create_compute_pipeline(UPDATE, shaders::PASSES_PARTICLE_SIM_UPDATE_COMP, &BINDINGS, push)?;
        Ok(ParticleSimPasses { emit, update, ribbons: RibbonPass::new(gpu)? })
    }

    /// Records one frame: emission of `push.counts.y` candidates, the ribbon links at birth, the
    /// update of every alive particle (at most `push.counts.w`, the capacity), the ribbon parents.
    pub fn record(&self, rec: &mut Recorder<'_>, bufs: &SimBuffers<'_>, push: &ParticleSimPush) {
        // Emission appends to the current list (and thread 0 empties the other).
        let emit_uses = bufs.uses([Access::ComputeWrite, Access::ComputeRead]);
        // At least one group: thread 0 empties the other alive list even when nothing is emitted.
        let emit_groups = push.counts[1].div_ceil(WORKGROUP).max(1);
        rec.pass(EMIT, &emit_uses, |rec| {
            rec.dispatch(&self.emit, &bufs.binds(), bytemuck::bytes_of(push), [emit_groups, 1, 1]);
        });
        let ribbons = bufs.ribbons.map(|[keys, parent, tail]| RibbonBuffers {
            pool: bufs.pool,
            alive: bufs.alive_in,
            counters: bufs.counters,
            keys,
            parent,
            tail,
            list: push.counts[0],
        });
        if let Some(r) = &ribbons {
            self.ribbons.record_birth(rec, r);
        }
        // The update reads the current list and writes the survivors into the other.
        let update_uses = bufs.uses([Access::ComputeRead, Access::ComputeWrite]);
        let update_groups = push.counts[3].div_ceil(WORKGROUP).max(1);
        rec.pass(UPDATE, &update_uses, |rec| {
            rec.dispatch(&self.update, &bufs.binds(), bytemuck::bytes_of(push), [update_groups, 1, 1]);
        });
        if let Some(r) = &ribbons {
            self.ribbons.record_parents(rec, r);
        }
    }
}
