//! `particles.ribbons`: the ribbon links of the GPU particles (algorithm in `ribbons.comp`; the CPU
//! twin is `particles::sim`'s ribbon code). Recorded by [`crate::passes::particle_sim`] in two
//! parts around `particles.update`: [`RibbonPass::record_birth`] (the sort of the keys by
//! (source, serial), links at birth, source tails) after `particles.emit`, and
//! [`RibbonPass::record_parents`] after the update. Only pools with a RIBBON source run it.
//!
//! The keys are sorted by the merge sort `particles.sort` uses ([`crate::passes::particle_sort::merge`],
//! `sort.comp`): its args step reads the alive count on the GPU, so the sort and the links (one
//! thread per key, dispatched from the same args) follow the particles alive, not the capacity.

use ash::vk;

use crate::error::Result;
use crate::gpu_types::RibbonPush;
use crate::passes::particle_sort::merge::{self, SortArgsPass, SortShape};
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::ComputePipeline;
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, BufferDesc, MemoryLocation};

/// The pass name; its steps are `particles.ribbons.args`, `.blocks`, `.merge`, `.birth`, `.tail`
/// and `.parents`.
pub const NAME: &str = "particles.ribbons";
/// Threads per workgroup of the links (`ribbons.comp`).
const WORKGROUP: u32 = 64;
/// The sort's workgroups and keys: 256 threads x 8 keys of 16 bytes (source, serial, slot,
/// unused), so a tile of 2048 takes 32 KiB of shared memory (`sort.comp`'s `SORT_THREADS`,
/// `SORT_ITEMS`).
pub(crate) const SHAPE: SortShape = SortShape { threads: 256, items: 8, elem_bytes: 16, capacity: 0 };
const MODE_LINK_AT_BIRTH: u32 = 0;
const MODE_TAIL: u32 = 1;
const MODE_PARENTS: u32 = 2;
/// Bytes per slot index or serial.
const WORD_BYTES: u64 = 4;

/// A pool's ribbon buffers.
pub struct RibbonLinks {
    /// `particles.ribbon_keys`: the sorted (source, serial, slot, unused) keys of the particles
    /// alive at emission (the sort's first run buffer and its result).
    pub keys: Buffer,
    /// `particles.ribbons.runs1`: the sort's second run buffer.
    pub runs: Buffer,
    /// `particles.ribbons.args`: the count sorted and the sort's and the links' dispatches.
    pub args: Buffer,
    /// `particles.ribbon_parent`: per slot, the parent's slot or `u32::MAX`.
    pub parent: Buffer,
    /// `particles.ribbon_tail`: per source, the serial and ribbon id of the newest particle it
    /// made (`u32::MAX` twice before the first).
    pub tail: Buffer,
    shape: SortShape,
}

impl RibbonLinks {
    /// The buffers of a pool of `capacity` particles and `max_sources` sources (no tails yet).
    pub fn new(gpu: &mut Gpu, capacity: u32, max_sources: u32) -> Result<Self> {
        let shape = SortShape { capacity, ..SHAPE };
        let keys = shape.create_runs(gpu, "particles.ribbon_keys")?;
        let runs = shape.create_runs(gpu, &crate::names::resource(NAME, "runs1"))?;
        let args = merge::create_args(gpu, &crate::names::resource(NAME, "args"))?;
        let words = |name: &str, count: u64| {
            gpu.create_buffer(&BufferDesc {
                name,
                size: count * WORD_BYTES,
                usage: vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuOnly,
            })
        };
        let parent = words("particles.ribbon_parent", u64::from(capacity))?;
        let tail_words = 2 * max_sources as usize;
        let tail = words("particles.ribbon_tail", tail_words as u64)?;
        gpu.upload(&tail, bytemuck::cast_slice(&vec![u32::MAX; tail_words]))?;
        Ok(RibbonLinks { keys, runs, args, parent, tail, shape })
    }
}

/// What the ribbon pass reads and writes.
#[derive(Clone, Copy)]
pub struct RibbonBuffers<'r> {
    /// `particles.pool` (axes are resolved in place).
    pub pool: &'r Buffer,
    /// The alive list holding the frame's particles before the update.
    pub alive: &'r Buffer,
    /// `particles.counters`.
    pub counters: &'r Buffer,
    /// The pool's ribbon buffers.
    pub links: &'r RibbonLinks,
    /// Which alive list (0/1) `alive` is.
    pub list: u32,
}

/// The ribbon pipelines: the sort of the keys and the links.
pub struct RibbonPass {
    args: SortArgsPass,
    sort: ComputePipeline,
    links: ComputePipeline,
}

impl RibbonPass {
    /// Creates the pipelines; fails when the device cannot run the sort's workgroups.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        SHAPE.check(gpu, NAME)?;
        let push = std::mem::size_of::<RibbonPush>() as u32;
        let sort_name = crate::names::resource(NAME, "sort");
        let sort =
            gpu.create_compute_pipeline(&sort_name, shaders::PASSES_PARTICLE_RIBBONS_SORT_COMP, push)?;
        let links = gpu.create_compute_pipeline(NAME, shaders::PASSES_PARTICLE_RIBBONS_RIBBONS_COMP, push)?;
        Ok(RibbonPass { args: SortArgsPass::new(gpu, NAME)?, sort, links })
    }

    /// After `particles.emit`: the sort of the keys, links at birth, tails.
    pub fn record_birth(&self, rec: &mut Recorder<'_>, bufs: &RibbonBuffers<'_>) {
        self.record_sort(rec, bufs);
        self.link(rec, bufs, "birth", MODE_LINK_AT_BIRTH);
        self.link(rec, bufs, "tail", MODE_TAIL);
    }

    /// After `particles.update`: every survivor's parent.
    pub fn record_parents(&self, rec: &mut Recorder<'_>, bufs: &RibbonBuffers<'_>) {
        self.link(rec, bufs, "parents", MODE_PARENTS);
    }

    /// The sort alone: the keys of the alive list into `particles.ribbon_keys`, ascending by
    /// (source, serial) (tests and benchmarks time and check it on its own).
    pub fn record_sort(&self, rec: &mut Recorder<'_>, bufs: &RibbonBuffers<'_>) {
        let links = bufs.links;
        // The alive counts are the counters' first two words (alive0, alive1).
        let count = (bufs.counters, bufs.list);
        self.args.record(rec, count, &links.args, &links.shape, WORKGROUP);
        for step in merge::steps(&links.shape, &links.args) {
            let bindings = [
                Binding::Storage(bufs.pool, Access::ComputeRead),
                Binding::Storage(bufs.alive, Access::ComputeRead),
                Binding::Storage(&links.keys, Access::ComputeWrite),
                Binding::Storage(&links.runs, Access::ComputeWrite),
                Binding::Storage(&links.args, Access::ComputeRead),
            ];
            let push = RibbonPush { params: [step.params[0], step.params[1], 0, 0] };
            let name = crate::names::resource(NAME, step.what);
            rec.compute(&name, &self.sort, &bindings, bytemuck::bytes_of(&push), step.groups);
        }
    }

    /// One thread per sorted key.
    fn link(&self, rec: &mut Recorder<'_>, bufs: &RibbonBuffers<'_>, what: &str, mode: u32) {
        let links = bufs.links;
        let bindings = [
            Binding::Storage(bufs.pool, Access::ComputeWrite),
            Binding::Storage(&links.keys, Access::ComputeRead),
            Binding::Storage(&links.parent, Access::ComputeWrite),
            Binding::Storage(&links.tail, Access::ComputeWrite),
            Binding::Storage(&links.args, Access::ComputeRead),
        ];
        let push = RibbonPush { params: [mode, 0, 0, 0] };
        let name = crate::names::resource(NAME, what);
        let groups = merge::each_groups(&links.args);
        rec.compute(&name, &self.links, &bindings, bytemuck::bytes_of(&push), groups);
    }
}
