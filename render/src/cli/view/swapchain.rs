//! The window's surface and swapchain: made from the window's raw handles (ash-window), FIFO
//! (vsync) unless asked to run unthrottled (MAILBOX, else IMMEDIATE, where the surface offers
//! them), remade when out of date or suboptimal and after a resize; none while the window has no
//! area (minimised). Each frame acquires an image (one acquire semaphore per frame in flight,
//! free once [`Gpu::wait_next_frame_slot`] returned), the frame's submission blits the LDR image
//! into it (`view.present`) and signals that image's present semaphore.

use ash::vk;

use crate::error::{RenderError, Result, VkResultExt};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Image;
use crate::Gpu;

/// The pass that copies the frame into the swapchain image.
pub const PRESENT_PASS: &str = "view.present";

/// The surface, its swapchain and the semaphores that order acquire, render and present.
pub struct Swapchain {
    device: ash::Device,
    physical_device: vk::PhysicalDevice,
    surface_fn: ash::khr::surface::Instance,
    swapchain_fn: ash::khr::swapchain::Device,
    surface: vk::SurfaceKHR,
    raw: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    /// The swapchain images' size (zero: no swapchain, the window has no area).
    pub extent: vk::Extent2D,
    format: vk::Format,
    present_mode: vk::PresentModeKHR,
    /// Per frame in flight, used round robin.
    acquired: Vec<vk::Semaphore>,
    next_acquire: usize,
    /// Per swapchain image.
    presented: Vec<vk::Semaphore>,
}

/// An image acquired for this frame.
#[derive(Clone, Copy, Debug)]
pub struct Acquired {
    /// Its index in the swapchain.
    pub index: u32,
    /// Waited on before the copy into it.
    pub acquired: vk::Semaphore,
    /// Signalled by the frame, waited on by the presentation.
    pub presented: vk::Semaphore,
    image: vk::Image,
}

impl Swapchain {
    /// Takes `surface` (made on `gpu`'s instance for the window) and makes its swapchain at
    /// `size` (the window's inner size, used where the surface does not fix it); fails when the
    /// device's queue cannot present to it.
    pub fn new(gpu: &Gpu, surface: vk::SurfaceKHR, unthrottled: bool, size: (u32, u32)) -> Result<Swapchain> {
        let shared = &gpu.shared;
        let surface_fn = ash::khr::surface::Instance::new(&shared.instance.entry, &shared.instance.raw);
        let family = shared.info.queue_family.unwrap_or(0);
        let physical_device = shared.info.raw;
        let mut chain = Swapchain {
            device: shared.device.clone(),
            physical_device,
            swapchain_fn: ash::khr::swapchain::Device::new(&shared.instance.raw, &shared.device),
            surface_fn,
            surface,
            raw: vk::SwapchainKHR::null(),
            images: Vec::new(),
            extent: vk::Extent2D::default(),
            format: vk::Format::UNDEFINED,
            present_mode: vk::PresentModeKHR::FIFO,
            acquired: Vec::new(),
            next_acquire: 0,
            presented: Vec::new(),
        };
        // SAFETY: the surface was made on this instance; `family` is the device's queue family.
        let can_present =
            unsafe { chain.surface_fn.get_physical_device_surface_support(physical_device, family, surface) }
                .ctx("asking whether the queue can present")?;
        if !can_present {
            return Err(RenderError::Unsupported(format!(
                "{} cannot present to this window",
                shared.info.name
            )));
        }
        chain.present_mode = chain.pick_present_mode(unthrottled)?;
        for _ in 0..gpu.frames_in_flight().max(1) {
            chain.acquired.push(semaphore(&chain.device)?);
        }
        chain.recreate(size)?;
        Ok(chain)
    }

    /// FIFO, or when `unthrottled` MAILBOX, else IMMEDIATE, where offered.
    fn pick_present_mode(&self, unthrottled: bool) -> Result<vk::PresentModeKHR> {
        // SAFETY: valid physical device and surface of this instance.
        let modes = unsafe {
            self.surface_fn.get_physical_device_surface_present_modes(self.physical_device, self.surface)
        }
        .ctx("listing present modes")?;
        let wanted: &[vk::PresentModeKHR] =
            if unthrottled { &[vk::PresentModeKHR::MAILBOX, vk::PresentModeKHR::IMMEDIATE] } else { &[] };
        Ok(wanted.iter().copied().find(|m| modes.contains(m)).unwrap_or(vk::PresentModeKHR::FIFO))
    }

    /// The present mode in use.
    pub fn present_mode(&self) -> vk::PresentModeKHR {
        self.present_mode
    }

    /// Remakes the swapchain for the surface's size now (`size` where the surface leaves it to
    /// the window); with no area, drops it. Waits for the device to be idle first.
    pub fn recreate(&mut self, size: (u32, u32)) -> Result<()> {
        // SAFETY: waiting for idle has no preconditions; afterwards nothing uses the old images.
        unsafe { self.device.device_wait_idle() }.ctx("waiting for the device")?;
        // SAFETY: valid physical device and surface.
        let caps = unsafe {
            self.surface_fn.get_physical_device_surface_capabilities(self.physical_device, self.surface)
        }
        .ctx("reading the surface's capabilities")?;
        let extent = if caps.current_extent.width != u32::MAX {
            caps.current_extent
        } else {
            vk::Extent2D {
                width: size.0.clamp(caps.min_image_extent.width, caps.max_image_extent.width),
                height: size.1.clamp(caps.min_image_extent.height, caps.max_image_extent.height),
            }
        };
        let old = std::mem::replace(&mut self.raw, vk::SwapchainKHR::null());
        self.extent = vk::Extent2D::default();
        self.images.clear();
        if extent.width == 0 || extent.height == 0 {
            self.destroy_swapchain(old);
            return Ok(());
        }
        if !caps.supported_usage_flags.contains(vk::ImageUsageFlags::TRANSFER_DST) {
            self.destroy_swapchain(old);
            return Err(RenderError::Unsupported("the window's images cannot be copied into".to_owned()));
        }
        let (format, colour_space) = self.pick_format()?;
        let max_images = if caps.max_image_count == 0 { u32::MAX } else { caps.max_image_count };
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
            .min_image_count((caps.min_image_count + 1).min(max_images))
            .image_format(format)
            .image_color_space(colour_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(composite_alpha(caps.supported_composite_alpha))
            .present_mode(self.present_mode)
            .clipped(true)
            .old_swapchain(old);
        // SAFETY: the create info refers to this surface and locals; `old` is retired by it.
        let made = unsafe { self.swapchain_fn.create_swapchain(&info, None) }.ctx("creating the swapchain");
        self.destroy_swapchain(old);
        self.raw = made?;
        // SAFETY: the swapchain was just made.
        self.images =
            unsafe { self.swapchain_fn.get_swapchain_images(self.raw) }.ctx("listing its images")?;
        self.extent = extent;
        self.format = format;
        while self.presented.len() < self.images.len() {
            self.presented.push(semaphore(&self.device)?);
        }
        Ok(())
    }

    /// A UNORM 8-bit format (the LDR image holds sRGB-encoded values: copied as they are).
    fn pick_format(&self) -> Result<(vk::Format, vk::ColorSpaceKHR)> {
        // SAFETY: valid physical device and surface.
        let formats = unsafe {
            self.surface_fn.get_physical_device_surface_formats(self.physical_device, self.surface)
        }
        .ctx("listing surface formats")?;
        let unorm = [vk::Format::B8G8R8A8_UNORM, vk::Format::R8G8B8A8_UNORM];
        formats
            .iter()
            .find(|f| unorm.contains(&f.format) && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .map(|f| (f.format, f.color_space))
            .ok_or_else(|| {
                RenderError::Unsupported(format!("no 8-bit UNORM sRGB surface format in {formats:?}"))
            })
    }

    fn destroy_swapchain(&self, old: vk::SwapchainKHR) {
        if old != vk::SwapchainKHR::null() {
            // SAFETY: the device is idle (waited in `recreate`), so no image of it is in use.
            unsafe { self.swapchain_fn.destroy_swapchain(old, None) };
        }
    }

    /// Acquires the next image; `Ok(None)` when the swapchain is out of date or missing (remake
    /// it). The frame slot this acquire's semaphore belongs to must have been waited for
    /// ([`Gpu::wait_next_frame_slot`]).
    pub fn acquire(&mut self) -> Result<Option<(Acquired, bool)>> {
        if self.raw == vk::SwapchainKHR::null() {
            return Ok(None);
        }
        let acquired = self.acquired[self.next_acquire];
        // SAFETY: the semaphore is unsignalled with no pending wait (its frame slot completed).
        let result =
            unsafe { self.swapchain_fn.acquire_next_image(self.raw, u64::MAX, acquired, vk::Fence::null()) };
        match result {
            Ok((index, suboptimal)) => {
                self.next_acquire = (self.next_acquire + 1) % self.acquired.len();
                let image = self.images[index as usize];
                let presented = self.presented[index as usize];
                Ok(Some((Acquired { index, acquired, presented, image }, suboptimal)))
            }
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(None),
            Err(e) => Err(crate::error::map_vk(e, "acquiring a window image")),
        }
    }

    /// Presents `image` once its frame signalled its semaphore; `Ok(false)` when the swapchain
    /// is out of date or suboptimal (remake it).
    pub fn present(&self, gpu: &Gpu, image: &Acquired) -> Result<bool> {
        let (swapchains, indices, waits) = ([self.raw], [image.index], [image.presented]);
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        let queue = gpu.shared.queue.lock();
        // SAFETY: the queue is externally synchronised by its mutex; the image was acquired and the
        // submission that signals `presented` was made.
        match unsafe { self.swapchain_fn.queue_present(*queue, &info) } {
            Ok(false) => Ok(true),
            Ok(true) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(false),
            Err(e) => Err(crate::error::map_vk(e, "presenting")),
        }
    }

    /// Records `view.present`: `ldr` blitted into the acquired image (scaled if their sizes
    /// differ), left ready to present.
    pub fn record_copy(&self, rec: &mut Recorder<'_>, ldr: &Image, image: &Acquired) {
        let extent = self.extent;
        rec.pass(PRESENT_PASS, &[Use::Image(ldr, Access::TransferRead)], |rec| {
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .level_count(1)
                .layer_count(1);
            // Chained to the acquire semaphore's wait at the transfer stage.
            let to_dst = vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                .dst_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .image(image.image)
                .subresource_range(range);
            let to_present = vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::ALL_TRANSFER)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
                .image(image.image)
                .subresource_range(range);
            let layers =
                vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1);
            let corner = |w: u32, h: u32| vk::Offset3D { x: w as i32, y: h as i32, z: 1 };
            let blit = vk::ImageBlit::default()
                .src_subresource(layers)
                .src_offsets([vk::Offset3D::default(), corner(ldr.extent.width, ldr.extent.height)])
                .dst_subresource(layers)
                .dst_offsets([vk::Offset3D::default(), corner(extent.width, extent.height)]);
            let d = rec.device();
            // SAFETY: `ldr` is in TRANSFER_SRC_OPTIMAL (the declared use); the swapchain image was
            // acquired, its acquire semaphore is waited on at the transfer stage, and the barriers
            // move it to TRANSFER_DST_OPTIMAL for the blit and then to PRESENT_SRC_KHR.
            unsafe {
                d.cmd_pipeline_barrier2(
                    rec.cmd,
                    &vk::DependencyInfo::default().image_memory_barriers(&[to_dst]),
                );
                d.cmd_blit_image(
                    rec.cmd,
                    ldr.raw,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    image.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[blit],
                    vk::Filter::LINEAR,
                );
                d.cmd_pipeline_barrier2(
                    rec.cmd,
                    &vk::DependencyInfo::default().image_memory_barriers(&[to_present]),
                );
            }
        });
    }
}

impl Drop for Swapchain {
    fn drop(&mut self) {
        // SAFETY: after the device is idle nothing uses the swapchain, its semaphores or the
        // surface; each is destroyed once, the surface after the swapchain made from it.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.destroy_swapchain(self.raw);
            for &s in self.acquired.iter().chain(&self.presented) {
                self.device.destroy_semaphore(s, None);
            }
            self.surface_fn.destroy_surface(self.surface, None);
        }
    }
}

/// An unsignalled binary semaphore.
fn semaphore(device: &ash::Device) -> Result<vk::Semaphore> {
    // SAFETY: valid device; destroyed in `Swapchain::drop`.
    unsafe { device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }.ctx("creating a semaphore")
}

/// OPAQUE where offered, else the first offered.
fn composite_alpha(supported: vk::CompositeAlphaFlagsKHR) -> vk::CompositeAlphaFlagsKHR {
    [
        vk::CompositeAlphaFlagsKHR::OPAQUE,
        vk::CompositeAlphaFlagsKHR::INHERIT,
        vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
        vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
    ]
    .into_iter()
    .find(|a| supported.contains(*a))
    .unwrap_or(vk::CompositeAlphaFlagsKHR::OPAQUE)
}
