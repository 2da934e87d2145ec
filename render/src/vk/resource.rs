//! Buffers and images: each owns its (object, allocation) pair, is named everywhere (debug utils,
//! the live-allocation registry, validation messages), and is destroyed exactly once, in `Drop`.
//!
//! Each resource also carries its last GPU access ([`TrackedState`]) so the recorder can derive
//! barriers from what a pass declares it reads and writes, across submissions.

use std::sync::Arc;

use ash::vk;
use parking_lot::Mutex;
use vk_mem::Alloc;

use super::context::{Gpu, Shared};
use super::frames::Retired;
use super::recorder::StageAccess;
use crate::error::{Result, VkResultExt};

/// Where a resource's memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLocation {
    /// Device-local; the GPU reads and writes it.
    GpuOnly,
    /// Host-visible and mapped, written by the CPU (uploads, constants).
    CpuToGpu,
    /// Host-visible and mapped, read by the CPU (readback).
    GpuToCpu,
    /// Device-local, written by the CPU through a copy of its bytes on the host that the recorder
    /// writes into the command stream (vkCmdUpdateBuffer) before the first pass that uses it after
    /// a change: the constants of a frame travel inside that frame's command buffer, so frames in
    /// flight never see each other's (per-frame constants, emitters, fog sources, shadow views).
    Staged,
}

/// What buffer to create.
#[derive(Clone, Debug)]
pub struct BufferDesc<'a> {
    /// Its name, e.g. `fog.brick_splat.density` (see [`crate::names`]).
    pub name: &'a str,
    /// Size in bytes (non-zero).
    pub size: u64,
    /// How it is used.
    pub usage: vk::BufferUsageFlags,
    /// Where it lives.
    pub location: MemoryLocation,
}

/// The last access to a resource, for barrier derivation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TrackedState {
    /// The last write (stages and accesses), or nothing.
    pub write: StageAccess,
    /// Every read since that write that already waited for it.
    pub reads: StageAccess,
    /// The current layout (images only).
    pub layout: vk::ImageLayout,
}

/// A resource's tracked state, shared with the recorder's journal of a submission (so a failed
/// submission can put it back, [`super::recorder::Journal`]).
pub(crate) type SharedState = Arc<Mutex<TrackedState>>;

/// A buffer and its allocation.
pub struct Buffer {
    /// The Vulkan handle.
    pub raw: vk::Buffer,
    /// Size in bytes.
    pub size: u64,
    /// Its name.
    pub name: String,
    pub(crate) id: u64,
    pub(crate) state: SharedState,
    mapped: *mut u8,
    /// The host's copy of a [`MemoryLocation::Staged`] buffer.
    staged: Option<Mutex<Staged>>,
    allocation: vk_mem::Allocation,
    shared: Arc<Shared>,
}

/// A staged buffer's bytes on the host and the range written since they last reached the GPU.
pub(crate) struct Staged {
    bytes: Vec<u8>,
    /// Start and end of the changed bytes (empty when none changed).
    dirty: std::ops::Range<u64>,
}

/// The most bytes one vkCmdUpdateBuffer writes.
const UPDATE_CHUNK_BYTES: u64 = 65_536;

// SAFETY: `mapped` points into a persistently mapped allocation owned by this buffer; access to the
// mapping goes through `&self`/`&mut self` methods that copy bytes, and the allocation is freed only
// in `Drop`.
unsafe impl Send for Buffer {}
// SAFETY: see `Send`; shared references only read the mapping.
unsafe impl Sync for Buffer {}

impl Gpu {
    /// Creates a named buffer.
    pub fn create_buffer(&self, desc: &BufferDesc<'_>) -> Result<Buffer> {
        let staged = desc.location == MemoryLocation::Staged;
        let info = buffer_info(desc);
        let alloc_info = allocation_info(desc.location);
        let shared = &self.shared;
        shared.injected_failure(desc.name)?;
        // SAFETY: valid create infos; the pair is destroyed once in `Drop`.
        let (raw, allocation) = unsafe { shared.allocator.create_buffer(&info, &alloc_info) }
            .ctx(&format!("creating buffer {}", desc.name))?;
        let mapped = shared.allocator.get_allocation_info(&allocation).mapped_data.cast::<u8>();
        let id = shared.next_id();
        shared.set_name(raw, desc.name);
        shared.live.lock().insert(id, desc.name.to_owned());
        Ok(Buffer {
            raw,
            size: desc.size,
            name: desc.name.to_owned(),
            id,
            state: Arc::new(Mutex::new(TrackedState::untouched())),
            mapped,
            // Zeros until first written, as the GPU will see them.
            staged: staged.then(|| {
                let size = desc.size.max(4).next_multiple_of(4);
                Mutex::new(Staged { bytes: vec![0; size as usize], dirty: 0..size })
            }),
            allocation,
            shared: shared.clone(),
        })
    }
}

impl Buffer {
    /// True when the buffer is mapped for the host (`CpuToGpu` or `GpuToCpu`).
    pub fn is_host_visible(&self) -> bool {
        !self.mapped.is_null()
    }

    /// True for a [`MemoryLocation::Staged`] buffer.
    pub fn is_staged(&self) -> bool {
        self.staged.is_some()
    }

    /// Copies `bytes` into a host-visible buffer at `offset` (for a staged buffer: into its host
    /// copy, which the next pass that uses it writes into the command stream first).
    ///
    /// Panics (a programmer bug) when the buffer is neither host-visible nor staged, or the range
    /// is out of bounds.
    pub fn write(&mut self, offset: u64, bytes: &[u8]) {
        let end = offset.checked_add(bytes.len() as u64);
        if let Some(staged) = &self.staged {
            let Some(end) = end.filter(|&e| e <= self.size) else {
                crate::error::bug(&format!("write to {} out of range", self.name));
            };
            let mut s = staged.lock();
            s.bytes[offset as usize..end as usize].copy_from_slice(bytes);
            s.dirty = if s.dirty.is_empty() {
                offset..end
            } else {
                s.dirty.start.min(offset)..s.dirty.end.max(end)
            };
            return;
        }
        if self.mapped.is_null() || end.is_none_or(|e| e > self.size) {
            crate::error::bug(&format!("write to {} out of range or not host-visible", self.name));
        }
        // SAFETY: the mapping covers `size` bytes, the range was checked above, and `&mut self`
        // guarantees no GPU work that uses this buffer is being recorded concurrently; callers only
        // write between submissions (which wait for completion).
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.mapped.add(offset as usize), bytes.len());
        }
        let result = self.shared.allocator.flush_allocation(&self.allocation, offset, bytes.len() as u64);
        if let Err(e) = result {
            tracing::warn!("flushing {}: {e}", self.name);
        }
    }

    /// Bytes of memory the allocator gave this buffer (its size rounded up to the allocation's
    /// alignment).
    pub fn allocation_bytes(&self) -> u64 {
        self.shared.allocator.get_allocation_info(&self.allocation).size
    }

    /// Reads the whole contents of a host-visible buffer (after the GPU work that wrote it finished).
    pub fn read(&self) -> Vec<u8> {
        if self.mapped.is_null() {
            crate::error::bug(&format!("read of {}: not host-visible", self.name));
        }
        let result = self.shared.allocator.invalidate_allocation(&self.allocation, 0, self.size);
        if let Err(e) = result {
            tracing::warn!("invalidating {}: {e}", self.name);
        }
        let mut out = vec![0u8; self.size as usize];
        // SAFETY: the mapping covers `size` bytes; `Gpu::submit` waits for completion, so no GPU
        // write is in flight while the CPU reads.
        unsafe { std::ptr::copy_nonoverlapping(self.mapped, out.as_mut_ptr(), out.len()) };
        out
    }
}

impl Buffer {
    /// Whether a staged buffer has bytes the GPU has not been given yet.
    pub(crate) fn staged_dirty(&self) -> bool {
        self.staged.as_ref().is_some_and(|s| !s.lock().dirty.is_empty())
    }

    /// Hands the changed bytes of a staged buffer to `update` as (offset, bytes) pieces of at
    /// most 64 KiB, each a multiple of 4 bytes at a multiple of 4 (vkCmdUpdateBuffer's rules), and
    /// marks them given.
    pub(crate) fn take_staged(&self, mut update: impl FnMut(u64, &[u8])) {
        let Some(staged) = &self.staged else { return };
        let mut s = staged.lock();
        let start = s.dirty.start / 4 * 4;
        let end = s.dirty.end.next_multiple_of(4).min(s.bytes.len() as u64);
        let mut offset = start;
        while offset < end {
            let n = (end - offset).min(UPDATE_CHUNK_BYTES);
            update(offset, &s.bytes[offset as usize..(offset + n) as usize]);
            offset += n;
        }
        s.dirty = 0..0;
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        self.shared.live.lock().remove(&self.id);
        // Destroyed now, or once the host's frames in flight that may use it have completed.
        self.shared.retire(Retired::Buffer(self.raw, self.allocation));
    }
}

/// What image to create.
#[derive(Clone, Debug)]
pub struct ImageDesc<'a> {
    /// Its name.
    pub name: &'a str,
    /// 2D or 3D.
    pub kind: vk::ImageType,
    /// Texel format.
    pub format: vk::Format,
    /// Size in texels (depth 1 for 2D).
    pub extent: vk::Extent3D,
    /// Array layers (1 unless an array).
    pub layers: u32,
    /// View it as an array (`sampler2DArray`), even with one layer.
    pub array: bool,
    /// Mip levels (1: none; each level halves the one above, at least 1 texel).
    pub mips: u32,
    /// How it is used.
    pub usage: vk::ImageUsageFlags,
}

/// An image, its default view and its allocation.
pub struct Image {
    /// The Vulkan handle.
    pub raw: vk::Image,
    /// A view of every layer and mip (2D, 2D array or 3D); null for transfer-only images.
    pub view: vk::ImageView,
    /// Texel format.
    pub format: vk::Format,
    /// Size in texels.
    pub extent: vk::Extent3D,
    /// Array layers.
    pub layers: u32,
    /// Mip levels.
    pub mips: u32,
    /// Its name.
    pub name: String,
    pub(crate) id: u64,
    pub(crate) state: SharedState,
    /// Its memory; `None` for a host's image ([`Gpu::import_image`]).
    allocation: Option<vk_mem::Allocation>,
    /// Whether `view` was made here (and is destroyed here).
    owns_view: bool,
    shared: Arc<Shared>,
}

impl Gpu {
    /// Creates a named, device-local image with a default view.
    pub fn create_image(&self, desc: &ImageDesc<'_>) -> Result<Image> {
        let info = image_info(desc);
        let shared = &self.shared;
        shared.injected_failure(desc.name)?;
        // SAFETY: valid create info; destroyed once in `Drop`.
        let (raw, allocation) =
            unsafe { shared.allocator.create_image(&info, &allocation_info(MemoryLocation::GpuOnly)) }
                .ctx(&format!("creating image {}", desc.name))?;
        let view_type = match (desc.kind, desc.array || desc.layers > 1) {
            (vk::ImageType::TYPE_3D, _) => vk::ImageViewType::TYPE_3D,
            (_, true) => vk::ImageViewType::TYPE_2D_ARRAY,
            _ => vk::ImageViewType::TYPE_2D,
        };
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(view_type)
            .format(desc.format)
            .subresource_range(full_range(desc.format, desc.layers.max(1), desc.mips.max(1)));
        let view = if desc.usage.intersects(VIEW_USAGES) {
            // SAFETY: `raw` is a live image of this device created just above.
            match unsafe { shared.device.create_image_view(&view_info, None) } {
                Ok(v) => v,
                Err(e) => {
                    let mut allocation = allocation;
                    // SAFETY: the image was never used; free it before reporting the error.
                    unsafe { shared.allocator.destroy_image(raw, &mut allocation) };
                    return Err(crate::error::map_vk(e, &format!("creating view of {}", desc.name)));
                }
            }
        } else {
            vk::ImageView::null()
        };
        let id = shared.next_id();
        shared.set_name(raw, desc.name);
        if view != vk::ImageView::null() {
            shared.set_name(view, &format!("{}.view", desc.name));
        }
        shared.live.lock().insert(id, desc.name.to_owned());
        Ok(Image {
            raw,
            view,
            format: desc.format,
            extent: desc.extent,
            layers: desc.layers.max(1),
            mips: desc.mips.max(1),
            name: desc.name.to_owned(),
            id,
            state: Arc::new(Mutex::new(TrackedState::untouched())),
            allocation: Some(allocation),
            owns_view: true,
            shared: shared.clone(),
        })
    }
}

impl Gpu {
    /// Bytes of memory a buffer of `desc` takes on this device (its memory requirements, which
    /// is what the allocator gives it), without making one.
    pub fn buffer_memory_bytes(&self, desc: &BufferDesc<'_>) -> u64 {
        let info = buffer_info(desc);
        let query = vk::DeviceBufferMemoryRequirements::default().create_info(&info);
        let mut out = vk::MemoryRequirements2::default();
        // SAFETY: a valid create info; the query is core in Vulkan 1.3, which the device has.
        unsafe { self.shared.device.get_device_buffer_memory_requirements(&query, &mut out) };
        out.memory_requirements.size
    }

    /// Bytes of memory an image of `desc` takes on this device (its memory requirements, which
    /// is what the allocator gives it: a driver may pad a 3D image's rows and slices), without
    /// making one.
    pub fn image_memory_bytes(&self, desc: &ImageDesc<'_>) -> u64 {
        let info = image_info(desc);
        let query = vk::DeviceImageMemoryRequirements::default().create_info(&info);
        let mut out = vk::MemoryRequirements2::default();
        // SAFETY: a valid create info of a single-plane image; the query is core in Vulkan 1.3.
        unsafe { self.shared.device.get_device_image_memory_requirements(&query, &mut out) };
        out.memory_requirements.size
    }
}

/// The create info of a buffer of `desc` (a staged one also a copy destination, in whole words).
fn buffer_info(desc: &BufferDesc<'_>) -> vk::BufferCreateInfo<'static> {
    let staged = desc.location == MemoryLocation::Staged;
    let usage = if staged { desc.usage | vk::BufferUsageFlags::TRANSFER_DST } else { desc.usage };
    // A staged buffer's updates are whole words.
    let bytes = if staged { desc.size.max(4).next_multiple_of(4) } else { desc.size.max(4) };
    vk::BufferCreateInfo::default().size(bytes).usage(usage).sharing_mode(vk::SharingMode::EXCLUSIVE)
}

/// The create info of an image of `desc` (optimal tiling, one sample, undefined at first).
fn image_info(desc: &ImageDesc<'_>) -> vk::ImageCreateInfo<'static> {
    vk::ImageCreateInfo::default()
        .image_type(desc.kind)
        .format(desc.format)
        .extent(desc.extent)
        .mip_levels(desc.mips.max(1))
        .array_layers(desc.layers.max(1))
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(desc.usage)
        .initial_layout(vk::ImageLayout::UNDEFINED)
}

/// The fields of an image that owns no memory (a host's, [`Gpu::import_image`]).
pub(crate) struct ImageParts {
    pub raw: vk::Image,
    pub view: vk::ImageView,
    pub format: vk::Format,
    pub extent: vk::Extent3D,
    pub layers: u32,
    pub name: String,
    pub id: u64,
    pub state: SharedState,
    pub owns_view: bool,
    pub shared: Arc<Shared>,
}

impl Image {
    /// An image over a host's memory (one mip level).
    pub(crate) fn from_parts(p: ImageParts) -> Image {
        Image {
            raw: p.raw,
            view: p.view,
            format: p.format,
            extent: p.extent,
            layers: p.layers,
            mips: 1,
            name: p.name,
            id: p.id,
            state: p.state,
            allocation: None,
            owns_view: p.owns_view,
            shared: p.shared,
        }
    }

    /// The layout the recorder tracks for it: the one its last recorded (and not rolled back)
    /// use left it in.
    pub fn tracked_layout(&self) -> vk::ImageLayout {
        self.state.lock().layout
    }

    /// The aspect (colour or depth) of this image's format.
    pub fn aspect(&self) -> vk::ImageAspectFlags {
        aspect_of(self.format)
    }

    /// The subresource range covering every layer and mip.
    pub fn range(&self) -> vk::ImageSubresourceRange {
        full_range(self.format, self.layers, self.mips)
    }

    /// Bytes of memory the allocator gave this image (its memory requirements' size); 0 for a
    /// host's image.
    pub fn allocation_bytes(&self) -> u64 {
        self.allocation.as_ref().map_or(0, |a| self.shared.allocator.get_allocation_info(a).size)
    }

    /// Bytes of mip level `level`, every layer, tightly packed at `texel` bytes a texel.
    pub fn level_bytes(&self, level: u32, texel: u64) -> u64 {
        let e = self.mip_extent(level);
        u64::from(e.width) * u64::from(e.height) * u64::from(e.depth) * u64::from(self.layers) * texel
    }

    /// The extent of mip level `level`.
    pub fn mip_extent(&self, level: u32) -> vk::Extent3D {
        let e = self.extent;
        vk::Extent3D {
            width: (e.width >> level).max(1),
            height: (e.height >> level).max(1),
            depth: (e.depth >> level).max(1),
        }
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        match self.allocation {
            Some(allocation) => {
                self.shared.live.lock().remove(&self.id);
                // Destroyed now, or once the host's frames in flight that may use it have completed.
                self.shared.retire(Retired::Image(self.raw, allocation, self.view));
            }
            // A host's image: only the view this crate made for it is ours.
            None if self.owns_view => self.shared.retire(Retired::View(self.view)),
            None => {}
        }
    }
}

/// Usages that allow (and need) an image view.
const VIEW_USAGES: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::SAMPLED.as_raw()
        | vk::ImageUsageFlags::STORAGE.as_raw()
        | vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT.as_raw(),
);

/// Colour, or depth for depth formats.
pub fn aspect_of(format: vk::Format) -> vk::ImageAspectFlags {
    match format {
        vk::Format::D16_UNORM | vk::Format::D32_SFLOAT | vk::Format::X8_D24_UNORM_PACK32 => {
            vk::ImageAspectFlags::DEPTH
        }
        _ => vk::ImageAspectFlags::COLOR,
    }
}

fn full_range(format: vk::Format, layers: u32, mips: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(aspect_of(format))
        .base_mip_level(0)
        .level_count(mips)
        .base_array_layer(0)
        .layer_count(layers)
}

fn allocation_info(location: MemoryLocation) -> vk_mem::AllocationCreateInfo {
    use vk_mem::{AllocationCreateFlags as F, MemoryUsage};
    let flags = match location {
        MemoryLocation::GpuOnly | MemoryLocation::Staged => F::empty(),
        MemoryLocation::CpuToGpu => F::HOST_ACCESS_SEQUENTIAL_WRITE | F::MAPPED,
        MemoryLocation::GpuToCpu => F::HOST_ACCESS_RANDOM | F::MAPPED,
    };
    let usage = match location {
        MemoryLocation::GpuOnly | MemoryLocation::Staged => MemoryUsage::AutoPreferDevice,
        _ => MemoryUsage::AutoPreferHost,
    };
    vk_mem::AllocationCreateInfo { flags, usage, ..Default::default() }
}
