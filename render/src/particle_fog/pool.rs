//! The brick pool on the GPU: page tables, slot bookkeeping, the fixed-point accumulators and the
//! sampled atlas, for a number of slots that [`super::sizing`] chooses within
//! `RenderVKParticleFogBrickBudgetMB` and the device's limits.
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
//!   ([`fog::splat::TINT_WORDS`] `u32` per slot: the brick's tint r, g, b, emissive, their weight
//!   and the billboard match), zero whenever a slot is not being splatted (cleared after each
//!   frame's resolve);
//! - `billboard_light` ([`BILLBOARD_LIGHT_WORDS`] `u32` per slot: `fog.carrier_light`'s sums of
//!   the light its carriers' billboards show, zeroed before it runs, in the frames it runs);
//! - `atlas_density` (R32F), `atlas_tint` (RGBA8), `atlas_light` (RGBA16F) and `atlas_sun`
//!   (R16F), the last two written by `fog.brick_light`: rgb the light each voxel scatters toward
//!   the camera from every light but the sun, alpha the share of the sun's light the shadow map
//!   and the billboard match leave it (alpha holds the billboard match `fog.brick_resolve` leaves
//!   until `fog.brick_light` reads it), and the particle fog's optical depth toward the sun:
//!   10³ voxels per slot (the interior and a one-voxel apron), slots laid out in a 3D grid of
//!   bricks.
//!
//! Only the slot bookkeeping (`slot_key`, `slot_frame`, `free_list`) outlives a frame: every brick
//! in use is splatted, resolved and lit again each frame from the carriers. So a pool of another
//! size is a fresh pool: its first contents (the free list holding every slot, the dispatches'
//! constant parts) are staged, and its keys freed and accumulators zeroed, in the first frame that
//! uses it, inside that frame's command buffer, so making a pool (the toggle, a new voxel size or
//! budget, a resize) submits nothing and waits for nothing; that frame requests its bricks afresh.
//!
//! Memory: the request list holds as many entries as the budget has slots, whatever the pool's
//! size, so the bricks a frame wants are counted in full up to the budget (and the wide kernels'
//! list does not shrink with the pool). [`slot_capacity`] is the most slots the budget buys by
//! this layout ([`pool_bytes`]): what remains after the fixed tables, divided by
//! [`BYTES_PER_SLOT`], also capped so that no storage buffer exceeds `maxStorageBufferRange` and
//! no atlas side exceeds `maxImageDimension3D`; [`budget_slots`] lowers it until the device's own
//! figure ([`pool_memory`], its memory requirements: a driver may pad the 3D atlases) fits the
//! budget. [`BrickPool::bytes_allocated`] is what the allocator gave the pool's resources.

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
/// Bytes of one voxel across the atlases: density (R32F), tint (RGBA8), light (RGBA16F) and the
/// sun's self-shadow (R16F).
const ATLAS_VOXEL_BYTES: u64 = 4 + 4 + 8 + 2;
/// Words of a slot's `billboard_light`: weight, r, g, b, each a `u64` in units of
/// 2^-[`BILLBOARD_LIGHT_FRACTION_BITS`] (`fog.carrier_light`).
pub const BILLBOARD_LIGHT_WORDS: u64 = 8;
/// Fraction bits of the `billboard_light` sums (`BILLBOARD_LIGHT_UNIT` in `carrier_light.comp`).
pub const BILLBOARD_LIGHT_FRACTION_BITS: u32 = 20;
/// Bytes one slot costs: accumulators, the billboards' light, atlas texels, key, frame, free-list
/// entry, used-list entry and peak, and the request-list entry the budget keeps for it.
pub const BYTES_PER_SLOT: u64 =
    ACCUM_BYTES + BILLBOARD_LIGHT_WORDS * WORD + STORED_VOXELS * ATLAS_VOXEL_BYTES + 16 + WORD * 5;
/// Bytes of the tables every pool has whatever its size (page table, counters, constants).
pub const FIXED_BYTES: u64 = PAGE_ENTRIES as u64 * WORD + COUNTER_WORDS as u64 * WORD * 2 + 256;
/// Workgroups of `fog.brick_light` per brick (each lights 1000 / 8 of its atlas voxels, a
/// thread per voxel: a few dozen bricks still fill the GPU).
pub const LIGHT_GROUPS_PER_BRICK: u32 = 8;
/// The smallest useful pool.
pub const MIN_SLOTS: u32 = 8;

/// What a pool is made with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolShape {
    /// Slots (bricks the pool holds at once).
    pub slots: u32,
    /// Entries of the request list: the slots the budget buys.
    pub max_requests: u32,
    /// Sources the particle pool holds.
    pub max_sources: u32,
}

/// Bytes a pool of `shape` allocates by this layout: the fixed tables, the per-slot buffers, the
/// request list and the atlas (whose grid of bricks may round the slots up).
pub fn pool_bytes(shape: PoolShape) -> u64 {
    let [x, y, z] = atlas_bricks(shape.slots);
    let atlas_slots = u64::from(x) * u64::from(y) * u64::from(z);
    let per_slot_buffers = BYTES_PER_SLOT - STORED_VOXELS * ATLAS_VOXEL_BYTES - WORD;
    FIXED_BYTES
        + u64::from(shape.max_sources.max(1)) * WORD
        + u64::from(shape.slots) * per_slot_buffers
        + u64::from(shape.max_requests) * WORD
        + atlas_slots * STORED_VOXELS * ATLAS_VOXEL_BYTES
}

/// How many slots a budget buys on a device: the most whose [`pool_bytes`] (with a request list
/// as long) fit the budget, capped by `maxStorageBufferRange` (`accum_ext`, 2 KiB per slot, is the
/// largest buffer) and by the atlas's largest side.
pub fn slot_capacity(budget_bytes: u64, max_sources: u32, limits: &vk::PhysicalDeviceLimits) -> u32 {
    let by_range = u64::from(limits.max_storage_buffer_range) / (BRICK_CELLS as u64 * WORD);
    let side = u64::from(limits.max_image_dimension3_d) / BRICK_STORED as u64;
    let by_atlas = side * side * side;
    let mut slots =
        (budget_bytes / BYTES_PER_SLOT).min(by_range).min(by_atlas).min(u64::from(u32::MAX / 2)) as u32;
    let bytes = |slots| pool_bytes(PoolShape { slots, max_requests: slots, max_sources });
    while slots > 0 && bytes(slots) > budget_bytes {
        let over = bytes(slots) - budget_bytes;
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
    /// Bytes the allocator gave the pool's resources (buffers and atlases).
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
    /// `fog.bricks.billboard_light`: per slot, the light its carriers' billboards show
    /// (`fog.carrier_light`, read by `fog.brick_light`).
    pub billboard_light: Buffer,
    /// `fog.bricks.slot_max`: each brick's peak extinction (f32 bits).
    pub slot_max: Buffer,
    /// `fog.bricks.atlas_density` (R32F, 1/m).
    pub atlas_density: Image,
    /// `fog.bricks.atlas_tint` (RGBA8: tint rgb, emissive fraction a).
    pub atlas_tint: Image,
    /// `fog.bricks.atlas_light` (RGBA16F: the light each voxel scatters toward the camera from
    /// every light but the sun, and the share of the sun's light its shadow map and the billboard
    /// match leave).
    pub atlas_light: Image,
    /// `fog.bricks.atlas_sun` (R16F: the particle fog's optical depth from each voxel toward the
    /// sun).
    pub atlas_sun: Image,
    /// Whether a frame has zeroed the accumulators ([`BrickPool::record_first_clear`]).
    cleared: bool,
    /// Sources the particle pool holds.
    max_sources: u32,
}

/// Buffers of a pool.
const BUFFERS: usize = 13;

/// One of a pool's buffers: the last part of its name, bytes, usage and memory.
struct BufferSpec {
    what: &'static str,
    bytes: u64,
    usage: vk::BufferUsageFlags,
    location: MemoryLocation,
}

/// The buffers of a pool of `shape`, in the order of [`BrickPool`]'s fields. The storage buffers
/// are copy sources and destinations (fills, read-backs); the staged ones' first contents are
/// written by the host and reach the GPU in the first frame that uses them.
fn buffer_specs(shape: PoolShape) -> [BufferSpec; BUFFERS] {
    use vk::BufferUsageFlags as U;
    let cap = u64::from(shape.slots);
    let storage = U::STORAGE_BUFFER | U::TRANSFER_DST | U::TRANSFER_SRC;
    let indirect = storage | U::INDIRECT_BUFFER;
    let (device, staged) = (MemoryLocation::GpuOnly, MemoryLocation::Staged);
    let spec = |what, bytes, usage, location| BufferSpec { what, bytes, usage, location };
    [
        spec("constants", std::mem::size_of::<BrickUniform>() as u64, U::UNIFORM_BUFFER, staged),
        spec("page", PAGE_ENTRIES as u64 * WORD, storage, device),
        spec("slot_key", cap * 16, storage, device),
        spec("slot_frame", cap * WORD, storage, device),
        spec("free_list", (cap + 1) * WORD, storage, staged),
        spec("requests", (u64::from(shape.max_requests) + cap) * WORD, storage, device),
        spec("counters", COUNTER_WORDS as u64 * WORD, indirect, device),
        spec("system_bricks", u64::from(shape.max_sources.max(1)) * WORD, storage, device),
        spec("dispatch", 9 * WORD, indirect, staged),
        spec("accum_ext", cap * BRICK_CELLS as u64 * WORD, storage, device),
        spec("accum_tint", cap * fog::splat::TINT_WORDS as u64 * WORD, storage, device),
        spec("billboard_light", cap * BILLBOARD_LIGHT_WORDS * WORD, storage, device),
        spec("slot_max", cap * WORD, storage, device),
    ]
}

impl BufferSpec {
    fn desc<'a>(&self, name: &'a str) -> BufferDesc<'a> {
        BufferDesc { name, size: self.bytes, usage: self.usage, location: self.location }
    }
}

/// The atlases (the last part of the name, format), in the order of [`BrickPool`]'s fields.
const ATLASES: [(&str, vk::Format); 4] = [
    ("atlas_density", vk::Format::R32_SFLOAT),
    ("atlas_tint", vk::Format::R8G8B8A8_UNORM),
    ("atlas_light", vk::Format::R16G16B16A16_SFLOAT),
    ("atlas_sun", vk::Format::R16_SFLOAT),
];

/// An atlas of `bricks` 10³-voxel slots in `format`, written by the resolve or the light pass and
/// sampled by the march.
fn atlas_desc(name: &str, format: vk::Format, bricks: [u32; 3]) -> ImageDesc<'_> {
    let s = BRICK_STORED as u32;
    ImageDesc {
        name,
        kind: vk::ImageType::TYPE_3D,
        format,
        extent: vk::Extent3D { width: bricks[0] * s, height: bricks[1] * s, depth: bricks[2] * s },
        layers: 1,
        array: false,
        mips: 1,
        usage: vk::ImageUsageFlags::STORAGE
            | vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::TRANSFER_SRC,
    }
}

fn name(what: &str) -> String {
    crate::names::resource("fog.bricks", what)
}

/// Bytes a pool of `shape` takes on `gpu`, without making it: the memory requirements of its
/// buffers and atlases, which is what the allocator gives them (a driver may pad a 3D image
/// beyond [`pool_bytes`]).
pub fn pool_memory(gpu: &Gpu, shape: PoolShape) -> u64 {
    let buffers: u64 = buffer_specs(shape).iter().map(|b| gpu.buffer_memory_bytes(&b.desc(b.what))).sum();
    let atlas = atlas_bricks(shape.slots);
    let atlases: u64 =
        ATLASES.iter().map(|&(what, f)| gpu.image_memory_bytes(&atlas_desc(what, f, atlas))).sum();
    buffers + atlases
}

/// The slots `budget_bytes` buys on `gpu` for `max_sources` sources: [`slot_capacity`], less
/// while the pool's [`pool_memory`] (with a request list as long) is over the budget.
pub fn budget_slots(gpu: &Gpu, budget_bytes: u64, max_sources: u32) -> u32 {
    let mut slots = slot_capacity(budget_bytes, max_sources, &gpu.limits());
    let memory = |slots| pool_memory(gpu, PoolShape { slots, max_requests: slots, max_sources });
    while slots > 0 && memory(slots) > budget_bytes {
        let over = memory(slots) - budget_bytes;
        slots -= (over / BYTES_PER_SLOT + 1).min(u64::from(slots)) as u32;
    }
    slots
}

impl BrickPool {
    /// Creates a pool of `shape`, or an error naming what the device lacks or could not allocate.
    pub fn new(gpu: &Gpu, shape: PoolShape) -> Result<BrickPool> {
        let sampled =
            vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR | vk::FormatFeatureFlags::STORAGE_IMAGE;
        if !gpu.format_supports(vk::Format::R32_SFLOAT, sampled) {
            return Err(RenderError::Unsupported(
                "particle fog needs linearly filtered R32_SFLOAT storage images".into(),
            ));
        }
        let mut buffers = Vec::with_capacity(BUFFERS);
        for b in buffer_specs(shape) {
            buffers.push(gpu.create_buffer(&b.desc(&name(b.what)))?);
        }
        let atlas = atlas_bricks(shape.slots);
        let mut atlases = Vec::with_capacity(ATLASES.len());
        for (what, format) in ATLASES {
            atlases.push(gpu.create_image(&atlas_desc(&name(what), format, atlas))?);
        }
        let (Ok(buffers), Ok(atlases)) =
            (<[Buffer; BUFFERS]>::try_from(buffers), <[Image; 4]>::try_from(atlases))
        else {
            crate::error::bug("the brick pool's resources are its fields");
        };
        let [constants, page, slot_key, slot_frame, free_list, requests, counters, system_bricks, dispatch, accum_ext, accum_tint, billboard_light, slot_max] =
            buffers;
        let [atlas_density, atlas_tint, atlas_light, atlas_sun] = atlases;
        let mut pool = BrickPool {
            capacity: shape.slots,
            max_requests: shape.max_requests,
            atlas_bricks: atlas,
            bytes_allocated: 0,
            constants,
            page,
            slot_key,
            slot_frame,
            free_list,
            requests,
            counters,
            system_bricks,
            dispatch,
            accum_ext,
            accum_tint,
            billboard_light,
            slot_max,
            atlas_density,
            atlas_tint,
            atlas_light,
            atlas_sun,
            cleared: false,
            max_sources: shape.max_sources,
        };
        pool.bytes_allocated = pool.allocation_bytes();
        Ok(pool)
    }

    /// What the pool was made with.
    pub fn shape(&self) -> PoolShape {
        PoolShape { slots: self.capacity, max_requests: self.max_requests, max_sources: self.max_sources }
    }

    /// What the allocator gave the pool's buffers and images, bytes.
    fn allocation_bytes(&self) -> u64 {
        let buffers = [
            &self.constants,
            &self.page,
            &self.slot_key,
            &self.slot_frame,
            &self.free_list,
            &self.requests,
            &self.counters,
            &self.system_bricks,
            &self.dispatch,
            &self.accum_ext,
            &self.accum_tint,
            &self.billboard_light,
            &self.slot_max,
        ];
        let images = [&self.atlas_density, &self.atlas_tint, &self.atlas_light, &self.atlas_sun];
        buffers.iter().map(|b| b.allocation_bytes()).sum::<u64>()
            + images.iter().map(|i| i.allocation_bytes()).sum::<u64>()
    }

    /// Writes the free list with every slot and the dispatches' constant parts (staged: they reach
    /// the GPU in the first frame that uses them), once, after creation.
    pub fn initialise(&mut self) {
        let mut free = Vec::with_capacity(self.capacity as usize + 1);
        free.push(self.capacity);
        free.extend((0..self.capacity).rev());
        self.free_list.write(0, bytemuck::cast_slice(&free));
        // The x of each dispatch is copied from the counters every frame; y and z stay.
        let dispatch: [u32; 9] = [0, 1, 1, 0, 1, 1, 0, LIGHT_GROUPS_PER_BRICK, 1];
        self.dispatch.write(0, bytemuck::cast_slice(&dispatch));
    }

    /// Zeroes the accumulators and slot records and frees every key (all bits set: level -1) in
    /// the first frame recorded after creation (nothing in later frames).
    pub fn record_first_clear(&mut self, rec: &mut Recorder<'_>) {
        if std::mem::replace(&mut self.cleared, true) {
            return;
        }
        let fills = [
            (&self.accum_ext, 0),
            (&self.accum_tint, 0),
            (&self.slot_frame, 0),
            (&self.slot_max, 0),
            (&self.slot_key, u32::MAX),
        ];
        let uses: Vec<Use<'_>> = fills.iter().map(|(b, _)| Use::Buffer(b, Access::TransferWrite)).collect();
        rec.setup("fog.bricks.first_clear", &uses, |rec| {
            for (b, value) in fills {
                // SAFETY: the buffer is alive with TRANSFER_DST usage (`storage_at`); the declared
                // use orders the fill.
                unsafe { rec.device().cmd_fill_buffer(rec.cmd, b.raw, 0, vk::WHOLE_SIZE, value) };
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
            Binding::StorageImage(&self.atlas_light, write),
        ]
    }

    /// `fog.bricks.slot_key`, for read-back.
    pub fn slot_keys(&self) -> &Buffer {
        &self.slot_key
    }
}

/// Bindings of the brick passes.
pub const BINDINGS: usize = 18;

/// The GPU form of a source's fog inputs.
pub fn fog_source(weight: f32, tex_mean_alpha: f32, density_scale: f32, tint: [f32; 3]) -> GpuFogSource {
    GpuFogSource {
        weight_mass: [weight, tex_mean_alpha, density_scale, 0.0],
        tint: [tint[0], tint[1], tint[2], 0.0],
    }
}
