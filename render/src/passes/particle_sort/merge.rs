//! The Rust half of the merge sort in `shaders/merge_sort.glsl`, shared by `particles.sort` and
//! `particles.ribbons`: the sort's shape, the device limits it needs, its buffers (the args words
//! and the run buffers), its args step ([`SortArgsPass`], `args.comp`) and the dispatches that
//! follow it ([`steps`]).
//!
//! Only the args step's size is known on the CPU: it writes, from the count on the GPU, the
//! indirect dispatches of the blocks and of every merge level (`shaders/sort_args.glsl`). The CPU
//! records as many levels as the capacity could need ([`SortShape::levels`]); those the count
//! does not need dispatch no workgroups. The args step is a shader of its own so that the sort's
//! shaders only read the args buffer they are dispatched from.

use ash::vk;

use crate::error::{RenderError, Result};
use crate::gpu_types::SortArgsPush;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, BufferDesc, MemoryLocation};

/// Most merge levels a sort records (as `SORT_MAX_LEVELS` in `sort_args.glsl`): tiles of 2048
/// and up sort 2^27 elements, far beyond any pool's capacity.
pub const MAX_LEVELS: u32 = 16;
/// Word of the args buffer holding the count sorted (`SORT_ARGS_COUNT`).
pub const ARGS_COUNT: u32 = 0;
/// First word of the blocks' `VkDispatchIndirectCommand` (`SORT_ARGS_BLOCKS`).
const ARGS_BLOCKS: u32 = 1;
/// First word of merge level 0's command; level `l`'s is `3 l` words later (`SORT_ARGS_LEVELS`).
const ARGS_LEVELS: u32 = 4;
/// First word of the command of one thread per element (`SORT_ARGS_EACH`).
const ARGS_EACH: u32 = ARGS_LEVELS + 3 * MAX_LEVELS;
/// Words of the args buffer (`SORT_ARGS_WORDS`).
const ARGS_WORDS: u32 = ARGS_EACH + 3;
/// Bytes per word.
const WORD_BYTES: u64 = 4;
/// Push-constant mode of the blocks step.
pub const MODE_BLOCKS: u32 = 0;
/// Push-constant mode of a merge level.
pub const MODE_MERGE: u32 = 1;

/// What a sort is made for: its workgroups and elements, and the most elements it sorts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortShape {
    /// Threads per workgroup (the shader's `SORT_THREADS`).
    pub threads: u32,
    /// Elements per thread (`SORT_ITEMS`).
    pub items: u32,
    /// Bytes per element.
    pub elem_bytes: u64,
    /// The most elements sorted (the pool's capacity).
    pub capacity: u32,
}

impl SortShape {
    /// Elements per tile: what one workgroup sorts in shared memory, and the most one dispatch
    /// after the args sorts.
    pub fn tile(&self) -> u32 {
        self.threads * self.items
    }

    /// Merge levels recorded: as many as `capacity` elements need ([`levels_for`]).
    pub fn levels(&self) -> u32 {
        levels_for(self.capacity, self.tile())
    }

    /// Fails with the limit named when the device cannot run a workgroup of this shape.
    pub fn check(&self, gpu: &Gpu, pass: &str) -> Result<()> {
        let limits = gpu.limits();
        let shared = u64::from(self.tile()) * self.elem_bytes;
        let threads = limits.max_compute_work_group_invocations.min(limits.max_compute_work_group_size[0]);
        if u64::from(limits.max_compute_shared_memory_size) < shared {
            return Err(RenderError::Unsupported(format!(
                "{pass} sorts tiles in {shared} bytes of shared memory; the device's \
                 maxComputeSharedMemorySize is {}",
                limits.max_compute_shared_memory_size
            )));
        }
        if threads < self.threads {
            return Err(RenderError::Unsupported(format!(
                "{pass} runs workgroups of {} threads; the device allows {threads} \
                 (maxComputeWorkGroupInvocations, maxComputeWorkGroupSize[0])",
                self.threads
            )));
        }
        Ok(())
    }

    /// Creates a run buffer named `name` for `capacity` elements.
    pub fn create_runs(&self, gpu: &Gpu, name: &str) -> Result<Buffer> {
        gpu.create_buffer(&BufferDesc {
            name,
            size: u64::from(self.capacity.max(1)) * self.elem_bytes,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::GpuOnly,
        })
    }
}

/// Merge levels a sort of `n` elements in tiles of `tile` needs: ceil(log2(ceil(n / tile))).
pub fn levels_for(n: u32, tile: u32) -> u32 {
    let blocks = n.div_ceil(tile);
    if blocks <= 1 {
        0
    } else {
        u32::BITS - (blocks - 1).leading_zeros()
    }
}

/// Creates a sort's args buffer named `name`: the count sorted and the indirect dispatches.
pub fn create_args(gpu: &Gpu, name: &str) -> Result<Buffer> {
    gpu.create_buffer(&BufferDesc {
        name,
        size: u64::from(ARGS_WORDS) * WORD_BYTES,
        usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::INDIRECT_BUFFER,
        location: MemoryLocation::GpuOnly,
    })
}

/// The dispatch of one thread per sorted element in groups of the `each` the args step was given.
pub fn each_groups(args: &Buffer) -> Groups<'_> {
    Groups::Indirect(args, u64::from(ARGS_EACH) * WORD_BYTES)
}

/// The args step's pipeline (`args.comp`).
pub struct SortArgsPass {
    pipeline: ComputePipeline,
}

impl SortArgsPass {
    /// Creates the pipeline of the args step of pass `pass`, named `<pass>.args` (also its timer
    /// scope).
    pub fn new(gpu: &Gpu, pass: &str) -> Result<Self> {
        let push = std::mem::size_of::<SortArgsPush>() as u32;
        let name = crate::names::resource(pass, "args");
        let pipeline = gpu.create_compute_pipeline(&name, shaders::PASSES_PARTICLE_SORT_ARGS_COMP, push)?;
        Ok(SortArgsPass { pipeline })
    }

    /// Records the args step: the count at word `word` of `source` into `args`, for the tiles of
    /// `shape` and per-element groups of `each` threads.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        (source, word): (&Buffer, u32),
        args: &Buffer,
        shape: &SortShape,
        each: u32,
    ) {
        let bindings =
            [Binding::Storage(source, Access::ComputeRead), Binding::Storage(args, Access::ComputeWrite)];
        let push = SortArgsPush { params: [word, shape.tile(), each, 0] };
        let groups = Groups::Direct([1, 1, 1]);
        rec.compute(&self.pipeline.name, &self.pipeline, &bindings, bytemuck::bytes_of(&push), groups);
    }
}

/// One dispatch of a sort after its args step (each reads the args buffer).
pub struct SortStep<'r> {
    /// Its step name: `blocks` or `merge`.
    pub what: &'static str,
    /// Push-constant words: the mode and the merge level.
    pub params: [u32; 2],
    /// Its workgroups, from the args buffer.
    pub groups: Groups<'r>,
}

/// A sort's dispatches after its args step, in order: the blocks, then [`SortShape::levels`]
/// merge levels.
pub fn steps<'r>(shape: &SortShape, args: &'r Buffer) -> Vec<SortStep<'r>> {
    plan(shape.levels())
        .into_iter()
        .map(|(what, params, word)| SortStep {
            what,
            params,
            groups: Groups::Indirect(args, u64::from(word) * WORD_BYTES),
        })
        .collect()
}

/// The steps of a sort with `levels` merge levels: (name, push words, the args word where its
/// indirect command begins).
fn plan(levels: u32) -> Vec<(&'static str, [u32; 2], u32)> {
    let mut plan = vec![("blocks", [MODE_BLOCKS, 0], ARGS_BLOCKS)];
    plan.extend(
        (0..levels.min(MAX_LEVELS)).map(|level| ("merge", [MODE_MERGE, level], ARGS_LEVELS + 3 * level)),
    );
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `const uint NAME = VALUE;` and `#define NAME VALUE` lines of a GLSL source.
    fn glsl_value(src: &str, name: &str) -> u32 {
        src.lines()
            .find_map(|l| {
                let l = l.trim();
                let rest = l
                    .strip_prefix(&format!("const uint {name} = "))
                    .and_then(|r| r.strip_suffix(';'))
                    .or_else(|| l.strip_prefix(&format!("#define {name} ")))?;
                rest.trim().trim_end_matches('u').parse().ok()
            })
            .unwrap_or_else(|| panic!("no numeric {name} in the GLSL"))
    }

    #[test]
    fn the_args_layout_matches_sort_args_glsl() {
        let src = include_str!("../../shaders/sort_args.glsl");
        assert_eq!(glsl_value(src, "SORT_ARGS_COUNT"), ARGS_COUNT);
        assert_eq!(glsl_value(src, "SORT_ARGS_BLOCKS"), ARGS_BLOCKS);
        assert_eq!(glsl_value(src, "SORT_ARGS_LEVELS"), ARGS_LEVELS);
        assert_eq!(glsl_value(src, "SORT_MAX_LEVELS"), MAX_LEVELS);
        assert_eq!(glsl_value(src, "SORT_ARGS_EACH"), ARGS_EACH);
        assert_eq!(glsl_value(src, "SORT_ARGS_WORDS"), ARGS_WORDS);
    }

    #[test]
    fn the_shapes_match_their_shaders() {
        let sorts = [
            (include_str!("sort.comp"), super::super::SHAPE),
            (include_str!("../particle_ribbons/sort.comp"), crate::passes::particle_ribbons::SHAPE),
        ];
        for (src, shape) in sorts {
            assert_eq!(glsl_value(src, "SORT_THREADS"), shape.threads);
            assert_eq!(glsl_value(src, "SORT_ITEMS"), shape.items);
            assert_eq!(u64::from(glsl_value(src, "SORT_ELEM_BYTES")), shape.elem_bytes);
            // merge_sort.glsl's bank swizzle is made for 8 elements per thread of at most 16
            // bytes, and whole warps.
            assert_eq!(shape.items, 8);
            assert!(shape.elem_bytes <= 16 && shape.threads % 32 == 0);
        }
    }

    #[test]
    fn levels_double_the_runs_until_one_holds_everything() {
        let tile = 4096;
        for (n, levels) in [(0, 0), (1, 0), (4096, 0), (4097, 1), (8192, 1), (8193, 2), (16384, 2)] {
            assert_eq!(levels_for(n, tile), levels, "{n} elements");
        }
        assert_eq!(levels_for(1_000_000, tile), 8, "245 tiles: runs of 2^8 tiles");
        // The largest pool with the smallest tile stays within the recorded levels.
        let most = levels_for(crate::particles_gpu::MAX_CAPACITY, 2048);
        assert!(most <= MAX_LEVELS, "{most} levels");
    }

    #[test]
    fn steps_are_the_blocks_then_a_merge_per_level_from_the_args_words() {
        let shape = SortShape { threads: 512, items: 8, elem_bytes: 8, capacity: 10_000 };
        assert_eq!(shape.levels(), 2);
        let expected = vec![
            ("blocks", [MODE_BLOCKS, 0], 1),
            ("merge", [MODE_MERGE, 0], 4),
            ("merge", [MODE_MERGE, 1], 7),
        ];
        assert_eq!(plan(shape.levels()), expected);
    }
}
