//! The GPU context: instance, device, queue, allocator, canary and the live-allocation registry,
//! plus one-shot command submission and frames recorded into a host's command buffers.
//!
//! A [`Gpu`] either makes its own instance and device ([`Gpu::new`]) or works on a host's
//! ([`Gpu::from_host`]: a viewer's instance, device and queue family, never destroyed here). Work
//! is recorded either into a command buffer of its own that it submits and waits for
//! ([`Gpu::submit`]), or into the host's command buffer for one of the host's frame slots
//! ([`Gpu::record_frame`]), which the host submits and reports completed
//! ([`Gpu::frame_completed`]); resources dropped meanwhile wait in the retire queue
//! ([`super::frames`]).
//!
//! Resources keep an `Arc<Shared>` so the device outlives every buffer and image; [`Gpu`] is the
//! owner handle and reports, when dropped, every allocation still alive (a leak).

use std::collections::BTreeMap;
use std::ffi::CString;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ash::vk;
use parking_lot::Mutex;

use super::debug::Canary;
use super::device::{self, DeviceInfo, DeviceSelector};
use super::frames::{FrameClock, Retired, SlotError};
use super::instance::Instance;
use super::profiler::Profiler;
use super::recorder::Recorder;
use crate::error::{RenderError, Result, VkResultExt};

/// What to create.
#[derive(Clone, Debug, Default)]
pub struct GpuDesc {
    /// Turn on the Khronos validation layer (with synchronization validation).
    pub validation: bool,
    /// Which device to use.
    pub device: DeviceSelector,
    /// Frames this `Gpu` keeps in flight with [`Gpu::submit_frame`] (0 to
    /// [`MAX_FRAMES_IN_FLIGHT`]; 0: every frame is submitted and waited for).
    pub frames_in_flight: u32,
    /// Instance extensions enabled besides the renderer's own, e.g. the surface extensions a
    /// window needs (`ash_window::enumerate_required_extensions`).
    pub instance_extensions: Vec<&'static std::ffi::CStr>,
    /// Device extensions enabled besides the renderer's own, e.g. `VK_KHR_swapchain` for a
    /// window; a device without one of them is not selected.
    pub device_extensions: Vec<&'static std::ffi::CStr>,
}

/// Semaphores a frame's submission waits on (each at its stage) and signals: a window's acquired
/// image and its presentation ([`Gpu::submit_frame_synced`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameSync<'a> {
    /// Waited on before the stages given.
    pub wait: &'a [(vk::Semaphore, vk::PipelineStageFlags)],
    /// Signalled when the submission completes.
    pub signal: &'a [vk::Semaphore],
}

/// State shared by the context and every resource created from it.
pub(crate) struct Shared {
    pub instance: Instance,
    pub device: ash::Device,
    pub debug_utils: ash::ext::debug_utils::Device,
    pub push_descriptor: ash::khr::push_descriptor::Device,
    pub allocator: ManuallyDrop<vk_mem::Allocator>,
    pub queue: Mutex<vk::Queue>,
    pub info: DeviceInfo,
    pub canary: Arc<Canary>,
    /// Live allocations by id: their names, for leak reports.
    pub live: Mutex<BTreeMap<u64, String>>,
    next_id: AtomicU64,
    /// The name prefix of the next allocation to refuse ([`Gpu::fail_next_allocation`]).
    fail_next: Mutex<Option<String>>,
    /// Frame slots in flight and the objects waiting for them.
    frames: Mutex<FrameClock>,
}

/// A host's Vulkan objects for [`Gpu::from_host`]: what a viewer that embeds the particle fog
/// already has. None of them is destroyed by this crate.
///
/// The device must have been created with [`device::REQUIRED_EXTENSIONS`] and the features of
/// [`device::enabled_features`] enabled, on a Vulkan 1.3 physical device.
pub struct HostDevice {
    /// The loader's entry points the instance was made with.
    pub entry: ash::Entry,
    /// The host's instance.
    pub instance: ash::Instance,
    /// The physical device the device was made on.
    pub physical_device: vk::PhysicalDevice,
    /// The host's device.
    pub device: ash::Device,
    /// The queue family whose command buffers the host hands in (graphics and compute).
    pub queue_family: u32,
    /// A queue of that family, used only by the set-up calls that submit and wait
    /// ([`Gpu::submit`]); the host must not use it from another thread during those calls.
    pub queue: vk::Queue,
    /// The host's frames in flight (1 to [`MAX_FRAMES_IN_FLIGHT`]).
    pub frames_in_flight: u32,
    /// Whether the host's instance has the Khronos validation layer on.
    pub validation: bool,
    /// Whether the host enabled `VK_EXT_debug_utils` on its instance: then this crate names its
    /// objects, labels its passes and records validation errors in its [`Canary`] through a
    /// messenger of its own.
    pub debug_utils: bool,
}

/// The most frames a host may have in flight.
pub const MAX_FRAMES_IN_FLIGHT: u32 = 3;

/// vk-mem's totals at one moment ([`Gpu::memory_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MemoryStats {
    /// `VkDeviceMemory` blocks allocated.
    pub blocks: u32,
    /// vk-mem allocations (buffers and images) alive.
    pub allocations: u32,
    /// Bytes in those blocks.
    pub block_bytes: u64,
    /// Bytes the allocations occupy.
    pub allocation_bytes: u64,
}

impl Shared {
    /// Destroys `item` now, or once no frame in flight can use it.
    pub(crate) fn retire(&self, item: Retired) {
        if let Some(item) = self.frames.lock().retire(item) {
            self.destroy_retired(item);
        }
    }

    fn destroy_retired(&self, item: Retired) {
        // SAFETY: the frame clock hands an object back only when no frame that may use it is in
        // flight (or the device is idle); each object is retired exactly once, by its owner's drop.
        unsafe {
            match item {
                Retired::Buffer(raw, mut allocation) => self.allocator.destroy_buffer(raw, &mut allocation),
                Retired::Image(raw, mut allocation, view) => {
                    if view != vk::ImageView::null() {
                        self.device.destroy_image_view(view, None);
                    }
                    self.allocator.destroy_image(raw, &mut allocation);
                }
                Retired::View(view) => self.device.destroy_image_view(view, None),
                Retired::Pipeline(pipeline, layout, set_layout) => {
                    self.device.destroy_pipeline(pipeline, None);
                    self.device.destroy_pipeline_layout(layout, None);
                    self.device.destroy_descriptor_set_layout(set_layout, None);
                }
            }
        }
    }

    /// A fresh id for a resource.
    pub fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Refuses the allocation named `name` as out of device memory when
    /// [`Gpu::fail_next_allocation`] asked for it (once).
    pub fn injected_failure(&self, name: &str) -> Result<()> {
        let mut next = self.fail_next.lock();
        if next.as_ref().is_some_and(|prefix| name.starts_with(prefix.as_str())) {
            *next = None;
            return Err(RenderError::OutOfMemory(format!("creating {name} (injected failure)")));
        }
        Ok(())
    }

    /// Gives a Vulkan object its debug-utils name (shown in validation messages and captures).
    pub fn set_name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Ok(cname) = CString::new(name) else { return };
        let info = vk::DebugUtilsObjectNameInfoEXT::default().object_handle(handle).object_name(&cname);
        // SAFETY: `handle` is a live object of this device; the name outlives the call.
        let result = unsafe { self.debug_utils.set_debug_utils_object_name(&info) };
        if let Err(e) = result {
            tracing::warn!("could not name {name}: {e}");
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // SAFETY: the last `Arc<Shared>` is gone, so no resource, command buffer or pipeline of this
        // device is alive; waiting for idle makes sure no GPU work still uses memory being freed
        // (`Gpu::drop` waited already; a host's device is left to its host).
        unsafe {
            if self.instance.owned() {
                if let Err(e) = self.device.device_wait_idle() {
                    tracing::error!("device_wait_idle at shutdown: {e}");
                }
            }
            let retired = self.frames.get_mut().drain();
            for item in retired {
                self.destroy_retired(item);
            }
            ManuallyDrop::drop(&mut self.allocator);
            if self.instance.owned() {
                self.device.destroy_device(None);
            }
            self.instance.destroy();
        }
    }
}

/// The owner handle of a device and its queue.
pub struct Gpu {
    pub(crate) shared: Arc<Shared>,
    pool: vk::CommandPool,
    fence: vk::Fence,
    /// GPU timestamps per pass.
    pub profiler: Profiler,
    /// Time spent waiting for submissions to complete, summed since creation.
    waited: std::time::Duration,
    /// Per host frame slot: the image views made for its frame, destroyed when it completes.
    slot_views: Vec<Vec<vk::ImageView>>,
    /// The command buffers and fences of this `Gpu`'s own frames in flight (none on a host's
    /// device, whose host owns them, or without frames in flight).
    own: Option<OwnFrames>,
}

/// A `Gpu`'s own frame slots: one command buffer and fence each, used round robin.
struct OwnFrames {
    cmds: Vec<vk::CommandBuffer>,
    fences: Vec<vk::Fence>,
    /// Per slot: whether its fence guards a submission not waited for yet.
    submitted: Vec<bool>,
    next: usize,
}

impl Gpu {
    /// Opens the loader, creates the instance (validation as asked), selects and creates the device.
    pub fn new(desc: &GpuDesc) -> Result<Gpu> {
        let canary = Arc::new(Canary::default());
        let instance = Instance::new(desc.validation, &desc.instance_extensions, &canary)?;
        let devices = device::enumerate(&instance.raw)?;
        let info = device::select(&devices, &desc.device)?;
        device::check_extensions(&instance.raw, &info, &desc.device_extensions)?;
        if desc.frames_in_flight > MAX_FRAMES_IN_FLIGHT {
            return Err(RenderError::BadInput(format!(
                "frames in flight must be 0 to {MAX_FRAMES_IN_FLIGHT}, not {}",
                desc.frames_in_flight
            )));
        }
        let (device, queue, queue_family) = device::create(&instance.raw, &info, &desc.device_extensions)?;
        let slots = desc.frames_in_flight as usize;
        let mut gpu = Gpu::assemble(instance, (device, queue, queue_family), info, canary, slots)?;
        if slots > 0 {
            gpu.own = Some(gpu.make_own_frames(slots)?);
        }
        Ok(gpu)
    }

    /// Command buffers and fences for `slots` frames in flight of this `Gpu`'s own.
    fn make_own_frames(&self, slots: usize) -> Result<OwnFrames> {
        let device = &self.shared.device;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(slots as u32);
        // SAFETY: the pool belongs to this device; the buffers are freed with the pool.
        let cmds = unsafe { device.allocate_command_buffers(&alloc) }.ctx("allocating frame commands")?;
        let mut fences = Vec::with_capacity(slots);
        for slot in 0..slots {
            // SAFETY: valid device; destroyed in `Gpu::drop` (or below, when a later one fails).
            match unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) } {
                Ok(fence) => {
                    self.shared.set_name(fence, &format!("gpu.frame_fence.slot{slot}"));
                    fences.push(fence);
                }
                Err(e) => {
                    for f in fences {
                        // SAFETY: never submitted with.
                        unsafe { device.destroy_fence(f, None) };
                    }
                    return Err(crate::error::map_vk(e, "creating a frame fence"));
                }
            }
        }
        Ok(OwnFrames { cmds, fences, submitted: vec![false; slots], next: 0 })
    }

    /// Works on a host's instance and device ([`HostDevice`]), which are never destroyed here.
    /// Fails when the physical device lacks what the renderer needs (naming it) or the frames in
    /// flight are out of range.
    ///
    /// # Safety
    /// Every handle in `host` is valid and outlives the returned `Gpu` and everything made from
    /// it; the device was created from the instance on `host.physical_device` with the
    /// extensions and features [`HostDevice`] names enabled.
    pub unsafe fn from_host(host: HostDevice) -> Result<Gpu> {
        if !(1..=MAX_FRAMES_IN_FLIGHT).contains(&host.frames_in_flight) {
            return Err(RenderError::BadInput(format!(
                "frames in flight must be 1 to {MAX_FRAMES_IN_FLIGHT}, not {}",
                host.frames_in_flight
            )));
        }
        let canary = Arc::new(Canary::default());
        let devices = device::enumerate(&host.instance)?;
        let info = devices.into_iter().find(|d| d.raw == host.physical_device).ok_or_else(|| {
            RenderError::BadInput("the physical device is not one of the instance's".to_owned())
        })?;
        if !info.suitable() {
            return Err(RenderError::Unsupported(format!(
                "{} lacks: {}",
                info.name,
                info.missing.join(", ")
            )));
        }
        // SAFETY: per this function's contract the instance is alive and made from `entry`, with
        // debug utils enabled when the host says so.
        let instance = unsafe {
            Instance::borrow(host.entry, host.instance, (host.validation, host.debug_utils), &canary)?
        };
        let device = (host.device, host.queue, host.queue_family);
        Gpu::assemble(instance, device, info, canary, host.frames_in_flight as usize)
    }

    /// The context over a made or borrowed instance and device, with `slots` host frame slots.
    fn assemble(
        instance: Instance,
        (device, queue, queue_family): (ash::Device, vk::Queue, u32),
        info: DeviceInfo,
        canary: Arc<Canary>,
        slots: usize,
    ) -> Result<Gpu> {
        let mut alloc_info = vk_mem::AllocatorCreateInfo::new(&instance.raw, &device, info.raw);
        alloc_info.vulkan_api_version = super::instance::API_VERSION;
        // SAFETY: instance, device and physical device are valid and outlive the allocator (it is
        // dropped first in `Shared::drop`).
        let allocator = unsafe { vk_mem::Allocator::new(alloc_info) }.ctx("creating the allocator")?;
        let debug_utils = ash::ext::debug_utils::Device::new(&instance.raw, &device);
        let push_descriptor = ash::khr::push_descriptor::Device::new(&instance.raw, &device);
        tracing::info!("using device {} ({}, {})", info.name, info.device_type, info.driver);
        let shared = Arc::new(Shared {
            instance,
            device,
            debug_utils,
            push_descriptor,
            allocator: ManuallyDrop::new(allocator),
            queue: Mutex::new(queue),
            info,
            canary,
            live: Mutex::new(BTreeMap::new()),
            next_id: AtomicU64::new(1),
            fail_next: Mutex::new(None),
            frames: Mutex::new(FrameClock::new(slots)),
        });
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device; the pool and fence are destroyed in `Gpu::drop`.
        let (pool, fence) = unsafe {
            (
                shared.device.create_command_pool(&pool_info, None).ctx("creating a command pool")?,
                shared.device.create_fence(&vk::FenceCreateInfo::default(), None).ctx("creating a fence")?,
            )
        };
        shared.set_name(pool, "gpu.command_pool");
        shared.set_name(fence, "gpu.fence");
        // The host's slots, then one for the submissions that wait.
        let profiler = Profiler::new(&shared, slots + 1)?;
        let slot_views = vec![Vec::new(); slots];
        Ok(Gpu { shared, pool, fence, profiler, waited: std::time::Duration::ZERO, slot_views, own: None })
    }

    /// The frames in flight: the host's, or this `Gpu`'s own ([`GpuDesc::frames_in_flight`]).
    pub fn frames_in_flight(&self) -> usize {
        self.slot_views.len()
    }

    /// Records a frame into the next of this `Gpu`'s own frame slots and submits it without
    /// waiting for it; only that slot's previous frame is waited for first (then reported
    /// completed: its timestamps read, what waited for it destroyed). The CPU prepares the next
    /// frame while the GPU runs this one. Without frames in flight (or on a host's device, whose
    /// host submits), the same as [`Gpu::submit`].
    pub fn submit_frame<T>(&mut self, record: impl FnOnce(&mut Recorder) -> Result<T>) -> Result<T> {
        self.submit_frame_synced(&FrameSync::default(), record)
    }

    /// Waits for the frame slot the next [`Gpu::submit_frame`] records into (its previous frame
    /// reported completed), so that what that frame will use (a window's acquire semaphore) is
    /// free; nothing without frames in flight of this `Gpu`'s own.
    pub fn wait_next_frame_slot(&mut self) -> Result<()> {
        match self.own.as_ref().map(|o| o.next) {
            Some(slot) => self.wait_own_slot(slot),
            None => Ok(()),
        }
    }

    /// [`Gpu::submit_frame`] whose submission waits on and signals `sync`'s semaphores (a
    /// window's image acquired, and its presentation). Refused without frames in flight of this
    /// `Gpu`'s own when `sync` names any semaphore.
    pub fn submit_frame_synced<T>(
        &mut self,
        sync: &FrameSync<'_>,
        record: impl FnOnce(&mut Recorder) -> Result<T>,
    ) -> Result<T> {
        let Some(slot) = self.own.as_ref().map(|o| o.next) else {
            if !sync.wait.is_empty() || !sync.signal.is_empty() {
                return Err(RenderError::BadInput(
                    "semaphores need frames in flight (GpuDesc::frames_in_flight)".to_owned(),
                ));
            }
            return self.submit(record);
        };
        self.wait_own_slot(slot)?;
        let (cmd, fence) = self.own.as_ref().map(|o| (o.cmds[slot], o.fences[slot])).unwrap_or_default();
        let shared = self.shared.clone();
        let device = &shared.device;
        let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: the slot's last submission completed (waited above), so its command buffer may be
        // reset and recorded again.
        unsafe {
            device
                .reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())
                .ctx("resetting commands")?;
            device.begin_command_buffer(cmd, &begin).ctx("beginning commands")?;
        }
        let value = self.record_frame(cmd, slot, record)?;
        // SAFETY: `cmd` is recording; the queue is externally synchronised by its mutex; the fence
        // is unsignalled (reset when it was waited for, or never used).
        let submitted = unsafe {
            device.end_command_buffer(cmd).ctx("ending commands").and_then(|()| {
                let cmds = [cmd];
                let (waits, stages): (Vec<_>, Vec<_>) = sync.wait.iter().copied().unzip();
                let submit = vk::SubmitInfo::default()
                    .command_buffers(&cmds)
                    .wait_semaphores(&waits)
                    .wait_dst_stage_mask(&stages)
                    .signal_semaphores(sync.signal);
                let queue = shared.queue.lock();
                device.queue_submit(*queue, &[submit], fence).ctx("submitting commands")
            })
        };
        if let Err(e) = submitted {
            // Nothing of it reached the GPU.
            self.abandon_slot(slot)?;
            return Err(e);
        }
        if let Some(own) = self.own.as_mut() {
            own.submitted[slot] = true;
            own.next = (slot + 1) % own.cmds.len();
        }
        Ok(value)
    }

    /// Waits for every frame of this `Gpu`'s own in flight and reports each completed (nothing
    /// on a host's device or without frames in flight).
    pub fn wait_frames(&mut self) -> Result<()> {
        for slot in 0..self.own.as_ref().map_or(0, |o| o.cmds.len()) {
            self.wait_own_slot(slot)?;
        }
        Ok(())
    }

    /// Waits for own slot `slot`'s submission, if one is pending, and reports it completed.
    fn wait_own_slot(&mut self, slot: usize) -> Result<()> {
        let Some(own) = self.own.as_mut().filter(|o| o.submitted[slot]) else { return Ok(()) };
        let fence = own.fences[slot];
        let started = std::time::Instant::now();
        // SAFETY: the fence belongs to this device and guards the slot's one submission.
        let waited = unsafe { self.shared.device.wait_for_fences(&[fence], true, u64::MAX) };
        self.waited += started.elapsed();
        waited.ctx("waiting for the GPU")?;
        // SAFETY: the submission completed, so nothing waits on or signals the fence.
        unsafe { self.shared.device.reset_fences(&[fence]) }.ctx("resetting a fence")?;
        own.submitted[slot] = false;
        self.frame_completed(slot)
    }

    /// Records a frame for the host's frame slot `slot` into the host's command buffer `cmd`
    /// (in the recording state, on the [`HostDevice::queue_family`]), submitted by the host.
    /// Nothing is submitted or waited for here. Refused (nothing recorded) when `slot` is out of
    /// range or its last frame was not reported completed. When `record` fails, `cmd` holds part
    /// of a frame: the host must reset it rather than submit it.
    ///
    /// Timestamps written by the frame's passes are collected when the host reports the slot
    /// completed ([`Gpu::frame_completed`]).
    pub fn record_frame<T>(
        &mut self,
        cmd: vk::CommandBuffer,
        slot: usize,
        record: impl FnOnce(&mut Recorder) -> Result<T>,
    ) -> Result<T> {
        let serial = self
            .shared
            .frames
            .lock()
            .begin(slot)
            .map_err(|e| slot_error(e, slot, self.frames_in_flight()))?;
        self.profiler.begin_frame(&self.shared, slot, true);
        let mut recorder = Recorder::new(&self.shared, (cmd, serial), &mut self.profiler);
        let value = record(&mut recorder);
        let (views, journal) = recorder.into_parts();
        self.slot_views[slot].extend(views);
        if value.is_err() {
            // The host resets `cmd`: the next frame's barriers start from the states before it.
            journal.roll_back();
            self.abandon_slot(slot)?;
        }
        value
    }

    /// The host's frame in slot `slot` has completed on the GPU (its fence signalled): its
    /// timestamps are read, and whatever waited for it is destroyed. Reporting a slot with no
    /// frame in flight is harmless; a slot out of range is an error.
    pub fn frame_completed(&mut self, slot: usize) -> Result<()> {
        if slot >= self.frames_in_flight() {
            return Err(slot_error(SlotError::OutOfRange, slot, self.frames_in_flight()));
        }
        if !self.shared.frames.lock().busy(slot) {
            return Ok(());
        }
        self.release_slot(slot)?;
        self.profiler.end_frame(&self.shared, slot)
    }

    /// Whether the frame recorded into `slot` has not been reported completed.
    pub fn slot_busy(&self, slot: usize) -> bool {
        self.shared.frames.lock().busy(slot)
    }

    /// Destroyed objects still waiting for frames in flight.
    pub fn retired_waiting(&self) -> usize {
        self.shared.frames.lock().waiting()
    }

    /// Whether frame `serial` ([`Recorder::serial`]) has completed: its readbacks may be read.
    pub fn frame_done(&self, serial: u64) -> bool {
        self.shared.frames.lock().completed(serial)
    }

    /// Marks `slot` free after a frame that never reached the GPU.
    fn abandon_slot(&mut self, slot: usize) -> Result<()> {
        let released = self
            .shared
            .frames
            .lock()
            .abandon(slot)
            .map_err(|e| slot_error(e, slot, self.frames_in_flight()))?;
        self.free_slot(slot, released);
        Ok(())
    }

    /// Marks `slot` free and destroys its views and what no frame in flight uses any more.
    fn release_slot(&mut self, slot: usize) -> Result<()> {
        let released = self
            .shared
            .frames
            .lock()
            .complete(slot)
            .map_err(|e| slot_error(e, slot, self.frames_in_flight()))?;
        self.free_slot(slot, released);
        Ok(())
    }

    fn free_slot(&mut self, slot: usize, released: Vec<Retired>) {
        for view in std::mem::take(&mut self.slot_views[slot]) {
            self.shared.destroy_retired(Retired::View(view));
        }
        for item in released {
            self.shared.destroy_retired(item);
        }
    }

    /// Time the CPU spent waiting for submissions to complete (the fence waits of
    /// [`Gpu::submit`] and [`Gpu::submit_untimed`]), summed since the `Gpu` was made: a frame's
    /// wall clock less this is its CPU work.
    pub fn waited(&self) -> std::time::Duration {
        self.waited
    }

    /// The device in use.
    pub fn info(&self) -> &DeviceInfo {
        &self.shared.info
    }

    /// The device's limits (sizes every buffer and image must respect).
    pub fn limits(&self) -> vk::PhysicalDeviceLimits {
        // SAFETY: the physical device was enumerated from this instance, which is alive.
        unsafe { self.shared.instance.raw.get_physical_device_properties(self.shared.info.raw) }.limits
    }

    /// Whether compute shaders may use subgroup arithmetic (`subgroupAdd`, Vulkan 1.1 subgroup
    /// operations).
    pub fn subgroup_arithmetic_in_compute(&self) -> bool {
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        // SAFETY: as in [`Gpu::limits`]; the chained struct outlives the call.
        unsafe { self.shared.instance.raw.get_physical_device_properties2(self.shared.info.raw, &mut props) };
        subgroup.supported_stages.contains(vk::ShaderStageFlags::COMPUTE)
            && subgroup.supported_operations.contains(vk::SubgroupFeatureFlags::ARITHMETIC)
    }

    /// Whether `format` supports `features` for optimally tiled images on this device.
    pub fn format_supports(&self, format: vk::Format, features: vk::FormatFeatureFlags) -> bool {
        // SAFETY: as in [`Gpu::limits`].
        let props = unsafe {
            self.shared.instance.raw.get_physical_device_format_properties(self.shared.info.raw, format)
        };
        props.optimal_tiling_features.contains(features)
    }

    /// Validation errors recorded since the last drain.
    pub fn canary(&self) -> &Canary {
        &self.shared.canary
    }

    /// Whether the validation layer is on.
    pub fn validation(&self) -> bool {
        self.shared.instance.validation
    }

    /// Makes the next buffer or image whose name starts with `name_prefix` fail to allocate with
    /// [`RenderError::OutOfMemory`], as a device out of memory would (once; nothing else is
    /// affected): how the tests and the soak run check that a feature whose resources cannot be
    /// made is turned off ([`crate::frame::features`]).
    pub fn fail_next_allocation(&self, name_prefix: &str) {
        *self.shared.fail_next.lock() = Some(name_prefix.to_owned());
    }

    /// vk-mem's totals over every heap now (`vmaCalculateStatistics`): what the soak run watches
    /// for growth.
    pub fn memory_stats(&self) -> Result<MemoryStats> {
        let total =
            self.shared.allocator.calculate_statistics().ctx("reading vk-mem statistics")?.total.statistics;
        Ok(MemoryStats {
            blocks: total.blockCount,
            allocations: total.allocationCount,
            block_bytes: total.blockBytes,
            allocation_bytes: total.allocationBytes,
        })
    }

    /// Names of allocations that are alive now.
    pub fn live_allocations(&self) -> Vec<String> {
        self.shared.live.lock().values().cloned().collect()
    }

    /// Every allocation alive now with its id (ids are never reused, so a resource that was
    /// dropped and made again shows up under a new id), in id order.
    pub fn live_allocation_ids(&self) -> Vec<(u64, String)> {
        self.shared.live.lock().iter().map(|(&id, name)| (id, name.clone())).collect()
    }

    /// Records commands with `record`, submits them, and waits for completion.
    ///
    /// Timestamps written by passes are collected into the profiler as one frame.
    pub fn submit<T>(&mut self, record: impl FnOnce(&mut Recorder) -> Result<T>) -> Result<T> {
        self.submit_inner(true, record)
    }

    /// Like [`Gpu::submit`], without timestamps (uploads, readbacks: they stay out of the timing
    /// table).
    pub fn submit_untimed<T>(&mut self, record: impl FnOnce(&mut Recorder) -> Result<T>) -> Result<T> {
        self.submit_inner(false, record)
    }

    fn submit_inner<T>(&mut self, timed: bool, record: impl FnOnce(&mut Recorder) -> Result<T>) -> Result<T> {
        // What is read after a waited submission includes what the frames before it wrote.
        self.wait_frames()?;
        let alloc_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        let device = &self.shared.device;
        // SAFETY: the pool belongs to this device and is used from this thread only (`&mut self`).
        let cmd = unsafe { device.allocate_command_buffers(&alloc_info) }.ctx("allocating commands")?[0];
        let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: freshly allocated command buffer in the initial state.
        unsafe { device.begin_command_buffer(cmd, &begin) }.ctx("beginning commands")?;
        self.profiler.begin_frame(&self.shared, self.frames_in_flight(), timed);
        let serial = self.shared.frames.lock().begin_waited();
        let mut recorder = Recorder::new(&self.shared, (cmd, serial), &mut self.profiler);
        let value = record(&mut recorder);
        let (views, journal) = recorder.into_parts();
        let submitted = value.and_then(|v| self.end_and_submit(cmd).map(|()| v));
        if submitted.is_err() {
            // Nothing reached the GPU: the next frame's barriers start from the states before this one,
            // and its readbacks hold nothing of it.
            journal.roll_back();
            self.shared.frames.lock().abandon_serial(serial);
        }
        // After a failed wait (device lost) the states stay as recorded: nothing later will run.
        let outcome = submitted.and_then(|v| self.wait_and_collect().map(|()| v));
        // SAFETY: `wait_and_collect` waited on the fence (or the buffer never reached the queue),
        // so the GPU no longer uses `cmd` or the views made for it.
        unsafe {
            self.shared.device.free_command_buffers(self.pool, &[cmd]);
            for view in views {
                self.shared.device.destroy_image_view(view, None);
            }
        }
        outcome
    }

    /// Ends `cmd` and submits it; on failure nothing of it reached the GPU.
    fn end_and_submit(&mut self, cmd: vk::CommandBuffer) -> Result<()> {
        let device = &self.shared.device;
        // SAFETY: `cmd` is in the recording state; the queue is externally synchronised by its mutex;
        // the fence is unsignalled (reset after every wait).
        unsafe {
            device.end_command_buffer(cmd).ctx("ending commands")?;
            let cmds = [cmd];
            let submit = vk::SubmitInfo::default().command_buffers(&cmds);
            let queue = self.shared.queue.lock();
            device.queue_submit(*queue, &[submit], self.fence).ctx("submitting commands")?;
        }
        Ok(())
    }

    /// Waits for the submission and collects its timestamps.
    fn wait_and_collect(&mut self) -> Result<()> {
        let device = &self.shared.device;
        let started = std::time::Instant::now();
        // SAFETY: the fence belongs to this device and guards the one submission in flight.
        let waited = unsafe { device.wait_for_fences(&[self.fence], true, u64::MAX) };
        self.waited += started.elapsed();
        waited.ctx("waiting for the GPU")?;
        // SAFETY: as above; the submission completed, so the fence is no longer in use.
        unsafe { device.reset_fences(&[self.fence]) }.ctx("resetting a fence")?;
        self.profiler.end_frame(&self.shared, self.frames_in_flight())
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        if let Err(e) = self.wait_frames() {
            tracing::error!("waiting for the frames in flight at shutdown: {e}");
        }
        let in_flight: Vec<usize> = (0..self.frames_in_flight()).filter(|&s| self.slot_busy(s)).collect();
        if !in_flight.is_empty() {
            tracing::error!(
                "the particle fog's context was destroyed with frame slots {in_flight:?} not reported \
                 completed: waiting for the device"
            );
        }
        // SAFETY: `submit` always waits for its work; a host's frames are complete by its contract
        // (or, when it broke it, the wait above covers them), so nothing is in flight on this pool,
        // fence or the slots' views.
        unsafe {
            if self.shared.instance.owned() || !in_flight.is_empty() {
                let _ = self.shared.device.device_wait_idle();
            }
            self.shared.device.destroy_command_pool(self.pool, None);
            self.shared.device.destroy_fence(self.fence, None);
            for &fence in self.own.iter().flat_map(|o| o.fences.iter()) {
                self.shared.device.destroy_fence(fence, None);
            }
        }
        for slot in 0..self.frames_in_flight() {
            if let Err(e) = self.release_slot(slot) {
                tracing::error!("releasing frame slot {slot}: {e}");
            }
        }
        self.profiler.destroy(&self.shared);
        let leaked = self.live_allocations();
        if !leaked.is_empty() {
            tracing::error!("{} allocation(s) still alive at shutdown: {}", leaked.len(), leaked.join(", "));
        }
    }
}

/// The error for a slot the frame clock refused.
fn slot_error(e: SlotError, slot: usize, slots: usize) -> RenderError {
    match e {
        SlotError::OutOfRange => RenderError::BadInput(format!(
            "frame slot {slot} is out of range: the host has {slots} frames in flight"
        )),
        SlotError::Busy => RenderError::BadInput(format!(
            "frame slot {slot} still has a frame in flight: report it completed (frame_completed) before \
             recording into it again"
        )),
    }
}
