//! A stand-in for a viewer's Vulkan set-up, written against `ash` alone: its own loader, instance
//! (Khronos validation with synchronization validation, debug utils), device (the extensions
//! and features the particle fog requires, merged as a host would) and queue, a command pool with
//! one command buffer and one signalled fence per frame in flight. The tests that embed the
//! particle fog in a host they did not make start from here.

// Used by the tests that embed the fog, not by host_device.
#[allow(dead_code)]
pub mod content;
#[allow(dead_code)]
pub mod frame;

use std::ffi::{c_char, CStr};

use render::ash::{self, vk};
use render::embed::{required_features as enabled_features, REQUIRED_EXTENSIONS};

/// The host's Vulkan objects.
pub struct HostVulkan {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub physical_device: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue_family: u32,
    pub queue: vk::Queue,
    pub pool: vk::CommandPool,
    /// One per frame in flight.
    pub cmds: Vec<vk::CommandBuffer>,
    /// One per frame in flight, made signalled.
    pub fences: Vec<vk::Fence>,
}

const VALIDATION: &CStr = c"VK_LAYER_KHRONOS_validation";

// Each test binary that includes this module uses part of it.
#[allow(dead_code)]
impl HostVulkan {
    /// The host's instance and device on the first Vulkan 1.3 device with a graphics+compute queue
    /// (lavapipe on machines without a GPU), with `frames` frames in flight.
    pub fn new(frames: usize) -> HostVulkan {
        // SAFETY: loads the system loader once for this host; `entry` keeps it alive.
        let entry = unsafe { ash::Entry::load() }.expect("the Vulkan loader (./run test installs it)");
        let app =
            vk::ApplicationInfo::default().application_name(c"foreign-host").api_version(vk::API_VERSION_1_3);
        let layers = [VALIDATION.as_ptr()];
        let extensions = [ash::ext::debug_utils::NAME.as_ptr(), ash::ext::validation_features::NAME.as_ptr()];
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions)
            .push_next(&mut features);
        // SAFETY: every pointer in `info` refers to locals that outlive the call.
        let instance = unsafe { entry.create_instance(&info, None) }.expect("instance with validation");
        let (physical_device, queue_family) = pick_device(&instance);
        let required = enabled_features();
        let mut f12 = required.f12;
        let mut f13 = required.f13;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let exts: Vec<*const c_char> = REQUIRED_EXTENSIONS.iter().map(|e| e.as_ptr()).collect();
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts)
            .enabled_features(&required.core)
            .push_next(&mut f12)
            .push_next(&mut f13);
        // SAFETY: the physical device belongs to the instance; pointers refer to locals.
        let device = unsafe { instance.create_device(physical_device, &info, None) }.expect("device");
        // SAFETY: one queue of `queue_family` was requested above.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device; destroyed in `Drop`.
        let pool = unsafe { device.create_command_pool(&pool_info, None) }.expect("command pool");
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(frames as u32);
        // SAFETY: the pool belongs to the device.
        let cmds = unsafe { device.allocate_command_buffers(&alloc) }.expect("command buffers");
        let signalled = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
        // SAFETY: valid device; destroyed in `Drop`.
        let fences =
            (0..frames).map(|_| unsafe { device.create_fence(&signalled, None) }.expect("fence")).collect();
        HostVulkan { entry, instance, physical_device, device, queue_family, queue, pool, cmds, fences }
    }

    /// Waits for slot `slot`'s last submission and opens its command buffer for a new frame.
    pub fn begin_frame(&self, slot: usize) {
        let d = &self.device;
        // SAFETY: the fence and command buffer belong to this device; once the fence signalled,
        // the GPU is done with the command buffer, which may be reset.
        unsafe {
            d.wait_for_fences(&[self.fences[slot]], true, u64::MAX).expect("fence wait");
            d.reset_fences(&[self.fences[slot]]).expect("fence reset");
            d.reset_command_buffer(self.cmds[slot], vk::CommandBufferResetFlags::empty()).expect("reset");
            let begin =
                vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            d.begin_command_buffer(self.cmds[slot], &begin).expect("begin");
        }
    }

    /// Ends slot `slot`'s command buffer and submits it with its fence.
    pub fn submit_frame(&self, slot: usize) {
        let d = &self.device;
        let cmds = [self.cmds[slot]];
        let submit = vk::SubmitInfo::default().command_buffers(&cmds);
        // SAFETY: the command buffer is recording; the fence was reset in `begin_frame`.
        unsafe {
            d.end_command_buffer(self.cmds[slot]).expect("end");
            d.queue_submit(self.queue, &[submit], self.fences[slot]).expect("submit");
        }
    }

    /// Waits until slot `slot`'s last submission has completed.
    pub fn wait(&self, slot: usize) {
        // SAFETY: the fence belongs to this device.
        unsafe { self.device.wait_for_fences(&[self.fences[slot]], true, u64::MAX) }.expect("fence wait");
    }

    /// The host's description of itself for the particle fog.
    pub fn host_device(&self, frames_in_flight: u32) -> render::embed::HostDevice {
        render::embed::HostDevice {
            entry: self.entry.clone(),
            instance: self.instance.clone(),
            physical_device: self.physical_device,
            device: self.device.clone(),
            queue_family: self.queue_family,
            queue: self.queue,
            frames_in_flight,
            validation: true,
            debug_utils: true,
        }
    }

    /// A host-visible buffer of `size` bytes and its memory, mapped.
    pub fn mapped_buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> (vk::Buffer, vk::DeviceMemory, *mut u8) {
        let d = &self.device;
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        // SAFETY: valid device and create info; the host destroys what it made.
        unsafe {
            let buffer = d.create_buffer(&info, None).expect("buffer");
            let req = d.get_buffer_memory_requirements(buffer);
            let flags = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let memory = self.allocate(req, flags);
            d.bind_buffer_memory(buffer, memory, 0).expect("bind");
            let ptr = d.map_memory(memory, 0, size, vk::MemoryMapFlags::empty()).expect("map").cast();
            (buffer, memory, ptr)
        }
    }

    /// A device-local 2D image and its memory.
    pub fn image(
        &self,
        format: vk::Format,
        (w, h): (u32, u32),
        usage: vk::ImageUsageFlags,
    ) -> (vk::Image, vk::DeviceMemory) {
        self.volume(format, (w, h, 1), usage)
    }

    /// A device-local 3D image (2D when `d` is 1) and its memory.
    pub fn volume(
        &self,
        format: vk::Format,
        (w, h, d): (u32, u32, u32),
        usage: vk::ImageUsageFlags,
    ) -> (vk::Image, vk::DeviceMemory) {
        let kind = if d > 1 { vk::ImageType::TYPE_3D } else { vk::ImageType::TYPE_2D };
        let info = vk::ImageCreateInfo::default()
            .image_type(kind)
            .format(format)
            .extent(vk::Extent3D { width: w, height: h, depth: d })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let d = &self.device;
        // SAFETY: valid device and create info; the host destroys what it made.
        unsafe {
            let image = d.create_image(&info, None).expect("image");
            let req = d.get_image_memory_requirements(image);
            let memory = self.allocate(req, vk::MemoryPropertyFlags::DEVICE_LOCAL);
            d.bind_image_memory(image, memory, 0).expect("bind");
            (image, memory)
        }
    }

    /// Records the copy of `image` (TRANSFER_SRC_OPTIMAL, one colour layer of `size`) into
    /// `buffer`, made visible to the host once the frame's fence has signalled.
    pub fn copy_to_buffer(
        &self,
        cmd: vk::CommandBuffer,
        image: vk::Image,
        buffer: vk::Buffer,
        (w, h): (u32, u32),
    ) {
        let layers =
            vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1);
        let extent = vk::Extent3D { width: w, height: h, depth: 1 };
        let region = vk::BufferImageCopy::default().image_subresource(layers).image_extent(extent);
        let to_host = [vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ)];
        // SAFETY: `cmd` is recording; the image is in TRANSFER_SRC_OPTIMAL and the buffer holds its
        // texels.
        unsafe {
            let d = &self.device;
            d.cmd_copy_image_to_buffer(cmd, image, vk::ImageLayout::TRANSFER_SRC_OPTIMAL, buffer, &[region]);
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().memory_barriers(&to_host));
        }
    }

    /// Records the copy of `src` into the colour image `image` of `extent` (any earlier contents
    /// dropped), leaving it in TRANSFER_DST_OPTIMAL.
    pub fn upload(
        &self,
        cmd: vk::CommandBuffer,
        src: vk::Buffer,
        image: vk::Image,
        (w, h, d): (u32, u32, u32),
    ) {
        let to_dst = [to_transfer_dst(image, vk::ImageAspectFlags::COLOR)];
        let layers =
            vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1);
        let extent = vk::Extent3D { width: w, height: h, depth: d };
        let region = vk::BufferImageCopy::default().image_subresource(layers).image_extent(extent);
        // SAFETY: `cmd` is recording; the buffer holds the image's texels.
        unsafe {
            let dev = &self.device;
            dev.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&to_dst));
            dev.cmd_copy_buffer_to_image(cmd, src, image, vk::ImageLayout::TRANSFER_DST_OPTIMAL, &[region]);
        }
    }

    /// Records the host's own frame before the fog: the depth image (D32, `size`) filled from
    /// `depth_src` and the HDR image cleared to `clear`, both left in TRANSFER_DST_OPTIMAL.
    pub fn fill_targets(
        &self,
        cmd: vk::CommandBuffer,
        (depth, hdr): (vk::Image, vk::Image),
        depth_src: vk::Buffer,
        (w, h): (u32, u32),
        clear: [f32; 4],
    ) {
        let barriers = [
            to_transfer_dst(depth, vk::ImageAspectFlags::DEPTH),
            to_transfer_dst(hdr, vk::ImageAspectFlags::COLOR),
        ];
        let layers =
            vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::DEPTH).layer_count(1);
        let extent = vk::Extent3D { width: w, height: h, depth: 1 };
        let region = vk::BufferImageCopy::default().image_subresource(layers).image_extent(extent);
        let colour = vk::ClearColorValue { float32: clear };
        let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
        // SAFETY: `cmd` is recording; both images are the host's, the buffer holds w x h floats.
        unsafe {
            let d = &self.device;
            d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&barriers));
            d.cmd_copy_buffer_to_image(cmd, depth_src, depth, dst, &[region]);
            d.cmd_clear_color_image(cmd, hdr, dst, &colour, &[transfer_range(vk::ImageAspectFlags::COLOR)]);
        }
    }

    /// Destroys images and buffers the host made, and their memory (every frame complete).
    pub fn free(&self, images: &[(vk::Image, vk::DeviceMemory)], buffers: &[(vk::Buffer, vk::DeviceMemory)]) {
        // SAFETY: the caller waited for every frame that used them.
        unsafe {
            for &(image, memory) in images {
                self.device.destroy_image(image, None);
                self.device.free_memory(memory, None);
            }
            for &(buffer, memory) in buffers {
                self.device.destroy_buffer(buffer, None);
                self.device.free_memory(memory, None);
            }
        }
    }

    fn allocate(&self, req: vk::MemoryRequirements, flags: vk::MemoryPropertyFlags) -> vk::DeviceMemory {
        // SAFETY: plain query on the host's physical device.
        let props = unsafe { self.instance.get_physical_device_memory_properties(self.physical_device) };
        let index = (0..props.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && props.memory_types[i as usize].property_flags.contains(flags)
            })
            .expect("a memory type");
        let info = vk::MemoryAllocateInfo::default().allocation_size(req.size).memory_type_index(index);
        // SAFETY: valid device and allocate info.
        unsafe { self.device.allocate_memory(&info, None) }.expect("memory")
    }
}

impl Drop for HostVulkan {
    fn drop(&mut self) {
        // SAFETY: everything made from the device is idle after the wait; the particle fog's
        // context was dropped before (the tests drop it first).
        unsafe {
            let _ = self.device.device_wait_idle();
            for &f in &self.fences {
                self.device.destroy_fence(f, None);
            }
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// The first physical device with Vulkan 1.3 and a graphics+compute queue family.
fn pick_device(instance: &ash::Instance) -> (vk::PhysicalDevice, u32) {
    // SAFETY: plain queries on a valid instance.
    unsafe {
        for pd in instance.enumerate_physical_devices().expect("devices") {
            if instance.get_physical_device_properties(pd).api_version < vk::API_VERSION_1_3 {
                continue;
            }
            let families = instance.get_physical_device_queue_family_properties(pd);
            let wanted = vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE;
            if let Some(i) = families.iter().position(|f| f.queue_flags.contains(wanted)) {
                return (pd, i as u32);
            }
        }
    }
    panic!("no Vulkan 1.3 device with a graphics+compute queue")
}

/// The barrier that readies one layer of `image` (`aspect`) for the host's transfer writes,
/// dropping what it held (from UNDEFINED, after any earlier use).
pub fn to_transfer_dst(image: vk::Image, aspect: vk::ImageAspectFlags) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        .src_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
        .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
        .image(image)
        .subresource_range(transfer_range(aspect))
}

/// One mip level and one layer of `aspect`.
fn transfer_range(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default().aspect_mask(aspect).level_count(1).layer_count(1)
}
