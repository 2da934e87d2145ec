//! `particles.ribbons`: the ribbon links of the GPU particles (algorithm in `ribbons.comp`; the CPU
//! twin is `particles::sim`'s ribbon code). Recorded by [`crate::passes::particle_sim`] in two
//! parts around `particles.update`: [`RibbonPass::record_birth`] (keys, the bitonic sort by
//! (source, serial), links at birth, source tails) after `particles.emit`, and [`RibbonPass::record_parents`]
//! after the update. Only pools with a RIBBON source run it; the padded length follows the pool's
//! capacity, e.g. 8192 particles: 91 sort steps.

use crate::error::Result;
use crate::gpu_types::RibbonPush;
use crate::passes::particle_sort::bitonic_steps;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Buffer;

/// The pass name; its steps are `particles.ribbons.keys`, `.step`, `.birth` and `.parents`.
pub const NAME: &str = "particles.ribbons";
/// Threads per workgroup.
const WORKGROUP: u32 = 64;
/// Bytes per key: (source, serial, slot, unused).
pub const KEY_BYTES: u64 = 16;
const MODE_KEYS: u32 = 0;
const MODE_STEP: u32 = 1;
const MODE_LINK_AT_BIRTH: u32 = 2;
const MODE_TAIL: u32 = 3;
const MODE_PARENTS: u32 = 4;

/// What the ribbon pass reads and writes.
#[derive(Clone, Copy)]
pub struct RibbonBuffers<'r> {
    /// `particles.pool` (axes are resolved in place).
    pub pool: &'r Buffer,
    /// The alive list holding the frame's particles before the update.
    pub alive: &'r Buffer,
    /// `particles.counters`.
    pub counters: &'r Buffer,
    /// `particles.ribbon_keys`: the padded (source, serial, slot) array.
    pub keys: &'r Buffer,
    /// `particles.ribbon_parent`: per slot, the parent's slot or `u32::MAX`.
    pub parent: &'r Buffer,
    /// `particles.ribbon_tail`: per source, the serial and ribbon id of the newest particle it
    /// made (`u32::MAX` twice before the first).
    pub tail: &'r Buffer,
    /// Which alive list (0/1) `alive` is.
    pub list: u32,
}

impl RibbonBuffers<'_> {
    /// The padded length of the key array (see [`padded_len`]).
    fn padded(&self) -> u32 {
        u32::try_from(self.keys.size / KEY_BYTES).unwrap_or(u32::MAX)
    }
}

/// The padded length of the key array for a pool of `capacity` particles.
pub fn padded_len(capacity: u32) -> u32 {
    capacity.max(2).next_power_of_two()
}

/// The ribbon pipeline.
pub struct RibbonPass {
    pipeline: ComputePipeline,
}

impl RibbonPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let push = std::mem::size_of::<RibbonPush>() as u32;
        let pipeline =
            gpu.create_compute_pipeline(NAME, shaders::PASSES_PARTICLE_RIBBONS_RIBBONS_COMP, push)?;
        Ok(RibbonPass { pipeline })
    }

    /// After `particles.emit`: keys, sort, links at birth.
    pub fn record_birth(&self, rec: &mut Recorder<'_>, bufs: &RibbonBuffers<'_>) {
        let padded = bufs.padded();
        self.run(rec, bufs, "keys", [MODE_KEYS, 0, 0, padded], padded);
        for (j, k) in bitonic_steps(padded) {
            self.run(rec, bufs, "step", [MODE_STEP, j, k, padded], padded / 2);
        }
        self.run(rec, bufs, "birth", [MODE_LINK_AT_BIRTH, 0, 0, padded], padded);
        self.run(rec, bufs, "tail", [MODE_TAIL, 0, 0, padded], padded);
    }

    /// After `particles.update`: every survivor's parent.
    pub fn record_parents(&self, rec: &mut Recorder<'_>, bufs: &RibbonBuffers<'_>) {
        let padded = bufs.padded();
        self.run(rec, bufs, "parents", [MODE_PARENTS, 0, 0, padded], padded);
    }

    fn run(
        &self,
        rec: &mut Recorder<'_>,
        bufs: &RibbonBuffers<'_>,
        what: &str,
        params: [u32; 4],
        threads: u32,
    ) {
        // Pool, alive list, counters, keys, parents, tails.
        let bindings = [
            Binding::Storage(bufs.pool, Access::ComputeWrite),
            Binding::Storage(bufs.alive, Access::ComputeRead),
            Binding::Storage(bufs.counters, Access::ComputeRead),
            Binding::Storage(bufs.keys, Access::ComputeWrite),
            Binding::Storage(bufs.parent, Access::ComputeWrite),
            Binding::Storage(bufs.tail, Access::ComputeWrite),
        ];
        let push = RibbonPush { params, lists: [bufs.list, 0, 0, 0] };
        let name = crate::names::resource(NAME, what);
        let groups = Groups::Direct([threads.div_ceil(WORKGROUP), 1, 1]);
        rec.compute(&name, &self.pipeline, &bindings, bytemuck::bytes_of(&push), groups);
    }
}
