//! A host's images, used by this crate's passes for one frame: the viewer's depth buffer, HDR
//! target and shadow maps. An imported [`Image`] owns no memory (only a view, when it made one);
//! the host states the layout and last access it leaves the image in ([`Image::enter`]) and the
//! one it wants it back in ([`Recorder::hand_back`]). Between the two, the recorder derives the
//! barriers from the passes' declared uses as for any image of its own, so the host's state is
//! where the first barrier starts, and the last barrier ends in the host's state (FidelityFX
//! FSR2's rule: every resource comes with its current state, and goes back in it).

use std::sync::Arc;

use ash::vk;
use parking_lot::Mutex;

use super::context::Gpu;
use super::recorder::{Recorder, StageAccess};
use super::resource::{aspect_of, Image, TrackedState};
use crate::error::{map_vk, RenderError, Result};

/// A host's image to import.
#[derive(Clone, Copy, Debug)]
pub struct HostImageDesc<'a> {
    /// Its name here (labels, validation messages).
    pub name: &'a str,
    /// The host's image.
    pub raw: vk::Image,
    /// A view of every layer of it as a 2D (array) image (of a 3D image, a 3D view), or null to
    /// have one made here.
    pub view: vk::ImageView,
    /// Its format.
    pub format: vk::Format,
    /// Its size across, texels.
    pub extent: vk::Extent2D,
    /// Its depth, texels: 1 for a 2D image; above 1 a 3D image (of one layer), viewed as 3D.
    pub depth: u32,
    /// Its array layers (1 for a plain 2D image).
    pub layers: u32,
    /// Viewed as a 2D array (what `sampler2DArray` and `sampler2DArrayShadow` bind) even with
    /// one layer; images of several layers always are.
    pub array: bool,
    /// The usages it was created with.
    pub usage: vk::ImageUsageFlags,
}

/// Where a host's image is when it hands it in, or where it wants it back: its layout and the
/// stages and accesses of the host's work before (or after) this crate's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostImageState {
    /// The image's layout.
    pub layout: vk::ImageLayout,
    /// The host's stages that last touched it (or touch it next).
    pub stage: vk::PipelineStageFlags2,
    /// The host's accesses in those stages.
    pub access: vk::AccessFlags2,
}

/// Access bits that write.
const WRITES: vk::AccessFlags2 = vk::AccessFlags2::from_raw(
    vk::AccessFlags2::SHADER_WRITE.as_raw()
        | vk::AccessFlags2::SHADER_STORAGE_WRITE.as_raw()
        | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE.as_raw()
        | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE.as_raw()
        | vk::AccessFlags2::TRANSFER_WRITE.as_raw()
        | vk::AccessFlags2::HOST_WRITE.as_raw()
        | vk::AccessFlags2::MEMORY_WRITE.as_raw(),
);

impl Gpu {
    /// Wraps a host's image for this crate's passes. Its memory stays the host's; a view is made
    /// when the host gives none (and destroyed with the returned image, once no frame in flight
    /// uses it). Refuses an empty extent, no layers or a view-less image that cannot have one.
    ///
    /// # Safety
    /// `desc.raw` (and `desc.view`, when not null) are live objects of this `Gpu`'s device that
    /// outlive the returned image and every frame recorded with it, with the format, extent,
    /// layers and usages `desc` states.
    pub unsafe fn import_image(&self, desc: &HostImageDesc<'_>) -> Result<Image> {
        let e = desc.extent;
        if e.width == 0 || e.height == 0 || desc.depth == 0 || desc.layers == 0 {
            return Err(RenderError::BadInput(format!(
                "{}: a host image of {}x{}x{} texels and {} layers cannot be used",
                desc.name, e.width, e.height, desc.depth, desc.layers
            )));
        }
        if desc.depth > 1 && (desc.layers > 1 || desc.array) {
            return Err(RenderError::BadInput(format!("{}: a 3D image has one layer", desc.name)));
        }
        let shared = &self.shared;
        let (view, owns_view) = if desc.view != vk::ImageView::null() {
            (desc.view, false)
        } else {
            let view_type = if desc.depth > 1 {
                vk::ImageViewType::TYPE_3D
            } else if desc.array || desc.layers > 1 {
                vk::ImageViewType::TYPE_2D_ARRAY
            } else {
                vk::ImageViewType::TYPE_2D
            };
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(aspect_of(desc.format))
                .level_count(1)
                .layer_count(desc.layers);
            let info = vk::ImageViewCreateInfo::default()
                .image(desc.raw)
                .view_type(view_type)
                .format(desc.format)
                .subresource_range(range);
            // SAFETY: per this function's contract the image is a live image of this device with
            // this format and these layers.
            let view = unsafe { shared.device.create_image_view(&info, None) }
                .map_err(|r| map_vk(r, &format!("making a view of the host's {}", desc.name)))?;
            shared.set_name(view, &format!("{}.view", desc.name));
            (view, true)
        };
        let extent = vk::Extent3D { width: e.width, height: e.height, depth: desc.depth };
        Ok(Image::host(shared, desc, view, owns_view, extent))
    }
}

impl Image {
    /// Sets the state the host leaves this (imported) image in for the frame about to be
    /// recorded: the first pass that uses it waits for `state`'s stages and transitions from its
    /// layout.
    pub fn enter(&self, state: HostImageState) {
        let scope: StageAccess = (state.stage, state.access);
        let nothing: StageAccess = (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE);
        let (write, reads) = if state.access.intersects(WRITES) || state.access.is_empty() {
            (scope, nothing)
        } else {
            ((state.stage, vk::AccessFlags2::NONE), scope)
        };
        *self.state.lock() = TrackedState { write, reads, layout: state.layout };
    }
}

impl Recorder<'_> {
    /// Hands `img` back to the host in `state`: one barrier from this frame's last use of it into
    /// the host's layout, stages and accesses (the host's later work needs no barrier of its own
    /// against this crate's).
    pub fn hand_back(&mut self, img: &Image, state: HostImageState) {
        self.note_state(&img.state);
        let (src, old_layout) = {
            let mut tracked = img.state.lock();
            let src = (tracked.write.0 | tracked.reads.0, tracked.write.1);
            let old = tracked.layout;
            *tracked = TrackedState {
                write: (state.stage, state.access),
                reads: (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE),
                layout: state.layout,
            };
            (src, old)
        };
        let barrier = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(if src.0.is_empty() { vk::PipelineStageFlags2::NONE } else { src.0 })
            .src_access_mask(src.1)
            .dst_stage_mask(state.stage)
            .dst_access_mask(state.access)
            .old_layout(old_layout)
            .new_layout(state.layout)
            .image(img.raw)
            .subresource_range(img.range());
        self.image_barrier(barrier);
    }
}

impl Image {
    /// An imported image over `desc` (see [`Gpu::import_image`]).
    fn host(
        shared: &Arc<super::context::Shared>,
        desc: &HostImageDesc<'_>,
        view: vk::ImageView,
        owns_view: bool,
        extent: vk::Extent3D,
    ) -> Image {
        Image::from_parts(super::resource::ImageParts {
            raw: desc.raw,
            view,
            format: desc.format,
            extent,
            layers: desc.layers,
            name: desc.name.to_owned(),
            id: shared.next_id(),
            state: Arc::new(Mutex::new(TrackedState::untouched())),
            owns_view,
            shared: shared.clone(),
        })
    }
}
