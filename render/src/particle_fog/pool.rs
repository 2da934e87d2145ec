//! The brick pool on the GPU: page tables, slot bookkeeping, the fixed-point accumulators and the
//! sampled atlas, sized to `RenderVKParticleFogBrickBudgetMB` and the device's limits.
//!
//! Resources (named `fog.bricks.<what>`; bindings in `shaders/bricks.glsl`):
//! - `constants` ([`BrickUniform`]), `sources` (one [`crate::gpu_types::GpuFogSource`] per source,
//!   owned by [`crate::frame::particles::SceneParticles`]);
//! - `page`: [`fog::bricks::PAGE_ENTRIES`] entries (slot, `PAGE_NONE` or `PAGE_REQUESTED`), cleared
//!   and refilled every frame (the clip windows follow the camera);
//! - `slot_key` (world brick and level, level -1 when free), `slot_frame` (last frame used),
//!   `free_list` (count, then slots), `requests` (the requested pages, then the bricks in use this
//!   frame; after the allocation the first part holds the wide kernels' carriers), `counters` (see
//!   `C_*` in bricks.glsl), `dispatch` (the indirect dispatches, copied from the counters),
//!   `system_bricks` (bricks first requested by each source this frame), `slot_max` (each brick's
//!   peak extinction, for the march's empty-space skipping);
//! - `accum_ext` (512 `u32` per slot: each cell's extinction) and `accum_tint`
//!   ([`fog::splat::TINT_WORDS`] `u32` per slot: the brick's tint r, g, b, emissive and their
//!   weight), zero whenever a slot is not being splatted (cleared after each frame's resolve);
//! - `atlas_density` (R32F), `atlas_tint` (RGBA8) and `atlas_light` (RGBA16F, the light each voxel
//!   scatters toward the camera, written by `fog.brick_light`): 10³ voxels per slot (the interior
//!   and a one-voxel apron), slots laid out in a 3D grid of bricks.
//!
//! The first contents (every slot free, the dispatches' constant parts) are staged and the
//! accumulators zeroed in the first frame that uses the pool, so making a pool (the toggle, a new
//! voxel size or budget) submits nothing and waits for nothing.
//!
//! Memory: everything above counts against the budget; the slot count is what remains after the
//! fixed tables, divided by [`BYTES_PER_SLOT`], and is also capped so that no storage buffer
//! exceeds `maxStorageBufferRange` and no atlas side exceeds `maxImageDimension3D`.

use ash::vk;
use fog::bricks::{BRICK_CELLS, BRICK_STORED, PAGE_ENTRIES};

use crate::error::{RenderError, Result};
use crate::gpu_types::{BrickUniform, GpuFogSource};
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};

/// Words of `fog.bricks.counters` (`C_WORDS` in bricks.glsl).
pub const COUNTER_WORDS: usize = super::stats::words::COUNT;
const WORD: u64 = 4;
/// Bytes of a slot's accumulators: the cells' extinction and the brick's tint words.
const ACCUM_BYTES: u64 = (BRICK_CELLS as u64 + fog::splat::TINT_WORDS as u64) * WORD;
/// Atlas voxels per slot.
const STORED_VOXELS: u64 = (BRICK_STORED * BRICK_STORED * BRICK_STORED) as u64;
/// Bytes of one voxel across the atlases: density (R32F), tint (RGBA8) and light (RGBA16F).
const ATLAS_VOXEL_BYTES: u64 = 4 + 4 + 8;
/// Bytes one slot costs: accumulators, atlas texels, key, frame, used-list entry, request entry
/// and peak.
pub const BYTES_PER_SLOT: u64 = ACCUM_BYTES + STORED_VOXELS * ATLAS_VOXEL_BYTES + 16 + WORD * 5;
/// Bytes of the tables every pool has whatever its size (page table, counters, constants).
pub const FIXED_BYTES: u64 = PAGE_ENTRIES as u64 * WORD + COUNTER_WORDS as u64 * WORD * 2 + 256;
/// Workgroups of `fog.brick_light` per brick (each lights 1000 / 8 of its atlas voxels, a
/// thread per voxel: a few dozen bricks still fill the GPU).
pub const LIGHT_GROUPS_PER_BRICK: u32 = 8;
/// The smallest useful pool.
pub const MIN_SLOTS: u32 = 8;

/// Bytes a pool of `slots` slots and `max_sources` sources allocates: the fixed tables, the
/// per-slot buffers and the atlas (whose grid of bricks may round `slots` up).
pub fn pool_bytes(slots: u32, max_sources: u32) -> u64 {
    let [x, y, z] = atlas_bricks(slots);
    let atlas_slots = u64::from(x) * u64::from(y) * u64::from(z);
    let per_slot_buffers = BYTES_PER_SLOT - STORED_VOXELS * ATLAS_VOXEL_BYTES;
    FIXED_BYTES
        + u64::from(max_sources.max(1)) * WORD
        + u64::from(slots) * per_slot_buffers
        + atlas_slots * STORED_VOXELS * ATLAS_VOXEL_BYTES
}

/// How many slots a budget buys on a device: the most whose [`pool_bytes`] fit the budget,
/// capped by `maxStorageBufferRange` (`accum_ext`, 2 KiB per slot, is the largest
/// buffer) and by the atlas's largest side.
pub fn slot_capacity(budget_bytes: u64, max_sources: u32, limits: &vk::PhysicalDeviceLimits) -> u32 {
    let by_range = u64::from(limits.max_storage_buffer_range) / (BRICK_CELLS as u64 * WORD);
    let side = u64::from(limits.max_image_dimension3_d) / BRICK_STORED as u64;
    let by_atlas = side * side * side;
    let mut slots =
        (budget_bytes / BYTES_PER_SLOT).min(by_range).min(by_atlas).min(u64::from(u32::MAX / 2)) as u32;
    while slots > 0 && pool_bytes(slots, max_sources) > budget_bytes {
        let over = pool_bytes(slots, max_sources) - budget_bytes;
        slots -= (over / BYTES_PER_SLOT).clamp(1, u64::from(slots)) as u32;
    }
    slots
}

/// The atlas's size in bricks for `slots`: a near-cube `row x row x layers`.
pub fn atlas_bricks(slots: u32) -> [u32; 3] {
    let row = (f64::from(slots).cbrt().ceil() as u32).max(1);
    let layers = slots.div_ceil(row * row).max(1);
    [row, row, layers]
}

/// The pool's GPU resources.
pub struct BrickPool {
    /// Slots (bricks the pool can hold at once).
    pub capacity: u32,
    /// Entries of the request list (the used list follows them in `requests`).
    pub max_requests: u32,
    /// Atlas size in bricks.
    pub atlas_bricks: [u32; 3],
    /// Bytes allocated for all of the pool's resources.
    pub bytes_allocated: u64,
    /// `fog.bricks.constants`.
    pub constants: Buffer,
    /// `fog.bricks.page`.
    pub page: Buffer,
    slot_key: Buffer,
    slot_frame: Buffer,
    free_list: Buffer,
    /// `fog.bricks.requests`: requested pages, then the slots in use this frame.
    pub requests: Buffer,
    /// `fog.bricks.counters` (see `C_*` in bricks.glsl).
    pub counters: Buffer,
    /// `fog.bricks.system_bricks`.
    pub system_bricks: Buffer,
    /// `fog.bricks.dispatch`: the indirect dispatches of the resolve/clear (words 0..2), of
    /// `fog.brick_light` (6..8: the bricks in use x [`LIGHT_GROUPS_PER_BRICK`]) and of the
    /// wide splat (3..5), copied from the counters once they are final.
    pub dispatch: Buffer,
    accum_ext: Buffer,
    accum_tint: Buffer,
    /// `fog.bricks.slot_max`: each brick's peak extinction (f32 bits).
    pub slot_max: Buffer,
    /// `fog.bricks.atlas_density` (R32F, 1/m).
    pub atlas_density: Image,
    /// `fog.bricks.atlas_tint` (RGBA8: tint rgb, emissive fraction a).
    pub atlas_tint: Image,
    /// `fog.bricks.atlas_light` (RGBA16F: the light each voxel scatters toward the camera).
    pub atlas_light: Image,
    /// Whether a frame has zeroed the accumulators ([`BrickPool::record_first_clear`]).
    cleared: bool,
}

/// Storage buffer usable as a copy source and destination.
fn storage(gpu: &Gpu, what: &str, bytes: u64, extra: vk::BufferUsageFlags) -> Result<Buffer> {
    storage_at(gpu, what, bytes, extra, MemoryLocation::GpuOnly)
}

/// A storage buffer whose first contents the host writes ([`MemoryLocation::Staged`]: they reach
/// the GPU in the first frame that uses it, with no submission of their own).
fn staged(gpu: &Gpu, what: &str, bytes: u64, extra: vk::BufferUsageFlags) -> Result<Buffer> {
    storage_at(gpu, what, bytes, extra, MemoryLocation::Staged)
}

fn storage_at(
    gpu: &Gpu,
    what: &str,
    bytes: u64,
    extra: vk::BufferUsageFlags,
    location: MemoryLocation,
) -> Result<Buffer> {
    use vk::BufferUsageFlags as U;
    gpu.create_buffer(&BufferDesc {
        name: &crate::names::resource("fog.bricks", what),
        size: bytes,
        usage: U::STORAGE_BUFFER | U::TRANSFER_DST | U::TRANSFER_SRC | extra,
        location,
    })
}

impl BrickPool {
    /// Creates a pool within `budget_bytes` for `max_sources` sources, or an error naming what
    /// does not fit.
    pub fn new(gpu: &Gpu, budget_bytes: u64, max_sources: u32) -> Result<BrickPool> {
        let limits = gpu.limits();
        let capacity = slot_capacity(budget_bytes, max_sources, &limits);
        if capacity < MIN_SLOTS {
            return Err(RenderError::Unsupported(format!(
                "particle fog: a brick budget of {budget_bytes} bytes holds {capacity} bricks on this device \
                 (each costs {BYTES_PER_SLOT} bytes, at least {MIN_SLOTS} needed)"
            )));
        }
        let sampled =
            vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR | vk::FormatFeatureFlags::STORAGE_IMAGE;
        if !gpu.format_supports(vk::Format::R32_SFLOAT, sampled) {
            return Err(RenderError::Unsupported(
                "particle fog needs linearly filtered R32_SFLOAT storage images".into(),
            ));
        }
        let cap = u64::from(capacity);
        let max_requests = capacity;
        let atlas = atlas_bricks(capacity);
        let cells = cap * BRICK_CELLS as u64 * WORD;
        let u = vk::BufferUsageFlags::empty();
        let image = |what: &str, format| {
            let s = BRICK_STORED as u32;
            gpu.create_image(&ImageDesc {
                name: &crate::names::resource("fog.bricks", what),
                kind: vk::ImageType::TYPE_3D,
                format,
                extent: vk::Extent3D { width: atlas[0] * s, height: atlas[1] * s, depth: atlas[2] * s },
                layers: 1,
                array: false,
                mips: 1,
                usage: vk::ImageUsageFlags::STORAGE
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_SRC,
            })
        };
        Ok(BrickPool {
            capacity,
            max_requests,
            atlas_bricks: atlas,
            bytes_allocated: pool_bytes(capacity, max_sources),
            constants: gpu.create_buffer(&BufferDesc {
                name: "fog.bricks.constants",
                size: std::mem::size_of::<BrickUniform>() as u64,
                usage: vk::BufferUsageFlags::UNIFORM_BUFFER,
                location: MemoryLocation::Staged,
            })?,
            page: storage(gpu, "page", PAGE_ENTRIES as u64 * WORD, u)?,
            slot_key: staged(gpu, "slot_key", cap * 16, u)?,
            slot_frame: storage(gpu, "slot_frame", cap * WORD, u)?,
            free_list: staged(gpu, "free_list", (cap + 1) * WORD, u)?,
            requests: storage(gpu, "requests", (u64::from(max_requests) + cap) * WORD, u)?,
            counters: storage(
                gpu,
                "counters",
                COUNTER_WORDS as u64 * WORD,
                vk::BufferUsageFlags::INDIRECT_BUFFER,
            )?,
            system_bricks: storage(gpu, "system_bricks", u64::from(max_sources.max(1)) * WORD, u)?,
            dispatch: staged(gpu, "dispatch", 9 * WORD, vk::BufferUsageFlags::INDIRECT_BUFFER)?,
            accum_ext: storage(gpu, "accum_ext", cells, u)?,
            accum_tint: storage(gpu, "accum_tint", cap * fog::splat::TINT_WORDS as u64 * WORD, u)?,
            slot_max: storage(gpu, "slot_max", cap * WORD, u)?,
            atlas_density: image("atlas_density", vk::Format::R32_SFLOAT)?,
            atlas_tint: image("atlas_tint", vk::Format::R8G8B8A8_UNORM)?,
            atlas_light: image("atlas_light", vk::Format::R16G16B16A16_SFLOAT)?,
            cleared: false,
        })
    }

    /// Writes the free list with every slot, every key freed and the dispatches' constant parts
    /// (staged: they reach the GPU in the first frame that uses them), once, after creation.
    pub fn initialise(&mut self) {
        let mut free = Vec::with_capacity(self.capacity as usize + 1);
        free.push(self.capacity);
        free.extend((0..self.capacity).rev());
        self.free_list.write(0, bytemuck::cast_slice(&free));
        let keys: Vec<[i32; 4]> = vec![[0, 0, 0, -1]; self.capacity as usize];
        self.slot_key.write(0, bytemuck::cast_slice(&keys));
        // The x of each dispatch is copied from the counters every frame; y and z stay.
        let dispatch: [u32; 9] = [0, 1, 1, 0, 1, 1, 0, LIGHT_GROUPS_PER_BRICK, 1];
        self.dispatch.write(0, bytemuck::cast_slice(&dispatch));
    }

    /// Zeroes the accumulators and slot records in the first frame recorded after creation
    /// (nothing in later frames).
    pub fn record_first_clear(&mut self, rec: &mut Recorder<'_>) {
        if std::mem::replace(&mut self.cleared, true) {
            return;
        }
        let buffers = [&self.accum_ext, &self.accum_tint, &self.slot_frame, &self.slot_max];
        let uses: Vec<Use<'_>> = buffers.iter().map(|b| Use::Buffer(b, Access::TransferWrite)).collect();
        rec.setup("fog.bricks.first_clear", &uses, |rec| {
            for b in buffers {
                // SAFETY: the buffer is alive with TRANSFER_DST usage (`storage_at`); the declared
                // use orders the fill.
                unsafe { rec.device().cmd_fill_buffer(rec.cmd, b.raw, 0, vk::WHOLE_SIZE, 0) };
            }
        });
    }

    /// The brick passes' bindings (bricks.glsl), with `particles` = (pool, alive list of this
    /// frame, particle counters) and the per-source `sources` read, the constants a host-written
    /// uniform, and everything else written.
    pub fn bindings<'r>(
        &'r self,
        particles: [&'r Buffer; 3],
        sources: &'r Buffer,
    ) -> [Binding<'r>; BINDINGS] {
        let [pool, alive, particle_counters] = particles;
        let (read, write) = (Access::ComputeRead, Access::ComputeWrite);
        [
            Binding::Uniform(&self.constants),
            Binding::Storage(pool, read),
            Binding::Storage(alive, read),
            Binding::Storage(particle_counters, read),
            Binding::Storage(sources, read),
            Binding::Storage(&self.page, write),
            Binding::Storage(&self.slot_key, write),
            Binding::Storage(&self.slot_frame, write),
            Binding::Storage(&self.free_list, write),
            Binding::Storage(&self.requests, write),
            Binding::Storage(&self.counters, write),
            Binding::Storage(&self.system_bricks, write),
            Binding::Storage(&self.accum_ext, write),
            Binding::Storage(&self.accum_tint, write),
            Binding::StorageImage(&self.atlas_density, write),
            Binding::StorageImage(&self.atlas_tint, write),
            Binding::Storage(&self.slot_max, write),
        ]
    }

    /// `fog.bricks.slot_key`, for read-back.
    pub fn slot_keys(&self) -> &Buffer {
        &self.slot_key
    }
}

/// Bindings of the brick passes.
pub const BINDINGS: usize = 17;

/// The GPU form of a source's fog inputs.
pub fn fog_source(weight: f32, tex_mean_alpha: f32, density_scale: f32, tint: [f32; 3]) -> GpuFogSource {
    GpuFogSource {
        weight_mass: [weight, tex_mean_alpha, density_scale, 0.0],
        tint: [tint[0], tint[1], tint[2], 0.0],
    }
}
