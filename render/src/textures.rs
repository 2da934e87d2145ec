//! Scene textures on the GPU, shared by the projector and particle texture arrays: loading a
//! texture a scene names (through the bounded loader, since scene files and images come from
//! outside), resizing it to one layer size, and uploading same-size layers as one sampled 2D array.

use ash::vk;

use crate::error::{RenderError, Result};
use crate::scene::Scene;
use crate::vk::context::Gpu;
use crate::vk::resource::{Image, ImageDesc};

/// Loads texture `name` of `scene` for `user` (e.g. "projector gobo"), resized to `size` square.
pub fn load_named(scene: &Scene, name: &str, user: &str, size: u32) -> Result<image::RgbaImage> {
    let path = scene
        .textures
        .get(name)
        .ok_or_else(|| RenderError::BadInput(format!("{user} names unknown texture {name}")))?;
    // The texture-stats loader bounds dimensions and file size for untrusted images.
    let img = assetstats::load_rgba(path)
        .map_err(|e| RenderError::BadInput(format!("{user}: texture {name}: {e}")))?;
    Ok(resized(&img, size))
}

/// `img` resized to `size` square (triangle filter), or a copy when it already is.
pub fn resized(img: &image::RgbaImage, size: u32) -> image::RgbaImage {
    if img.width() == size && img.height() == size {
        return img.clone();
    }
    image::imageops::resize(img, size, size, image::imageops::FilterType::Triangle)
}

/// Uploads `layers` (each `size` square, RGBA8 sRGB) as one sampled 2D array named `name`.
pub fn upload_array(gpu: &mut Gpu, name: &str, layers: &[image::RgbaImage], size: u32) -> Result<Image> {
    let image = gpu.create_image(&ImageDesc {
        name,
        kind: vk::ImageType::TYPE_2D,
        format: vk::Format::R8G8B8A8_SRGB,
        extent: vk::Extent3D { width: size, height: size, depth: 1 },
        layers: layers.len() as u32,
        array: true,
        usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
    })?;
    let bytes: Vec<u8> = layers.iter().flat_map(|l| l.as_raw().iter().copied()).collect();
    gpu.upload_image(&image, &bytes)?;
    Ok(image)
}
