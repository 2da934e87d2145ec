//! What the hosts hand the context for their images: the states their own transfers leave them
//! in, and a one-layer image of theirs as the context takes it.

use render::ash::vk;
use render::embed::{HostImageState, ViewerImage};

/// After the host's copy or clear into the image.
pub const TRANSFER_WRITTEN: HostImageState = HostImageState {
    layout: vk::ImageLayout::TRANSFER_DST_OPTIMAL,
    stage: vk::PipelineStageFlags2::ALL_TRANSFER,
    access: vk::AccessFlags2::TRANSFER_WRITE,
};

/// Ready for the host's copy out of the image.
pub const COPY_READ: HostImageState = HostImageState {
    layout: vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
    stage: vk::PipelineStageFlags2::COPY,
    access: vk::AccessFlags2::TRANSFER_READ,
};

/// The host's one-layer `image` of `extent` (its view made by the context), entered in `entry`
/// and left in `exit`.
pub fn viewer_image(
    image: vk::Image,
    format: vk::Format,
    extent: (u32, u32),
    usage: vk::ImageUsageFlags,
    (entry, exit): (HostImageState, HostImageState),
) -> ViewerImage {
    ViewerImage { image, view: vk::ImageView::null(), format, extent, layers: 1, usage, entry, exit }
}
