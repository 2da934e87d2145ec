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
    Ok(resized(&decode_named(scene, name, user)?, size))
}

/// Decodes every texture the scene's particle sources and projectors use, without a GPU: a bad
/// one fails here, before the device starts, with the error [`load_named`] would give.
pub fn check_used(scene: &Scene) -> Result<()> {
    let particles =
        scene.particles.iter().filter_map(|s| Some((s.texture.as_deref()?, "particle source", &s.name)));
    let projectors = scene.lights.iter().filter_map(|l| match &l.kind {
        crate::scene::LightKind::Projector { texture, .. } => Some((texture.as_str(), "projector", &l.name)),
        _ => None,
    });
    let mut seen = std::collections::HashSet::new();
    for (name, role, owner) in particles.chain(projectors) {
        if seen.insert(name) {
            decode_named(scene, name, &format!("{role} {owner}"))?;
        }
    }
    Ok(())
}

/// Texture `name` of `scene` decoded at its own size, errors naming `user`.
fn decode_named(scene: &Scene, name: &str, user: &str) -> Result<image::RgbaImage> {
    let path = scene
        .textures
        .get(name)
        .ok_or_else(|| RenderError::BadInput(format!("{user} names unknown texture {name}")))?;
    // The texture-stats loader bounds dimensions and file size for untrusted images.
    assetstats::load_rgba(path).map_err(|e| RenderError::BadInput(format!("{user}: texture {name}: {e}")))
}

/// `img` resized to `size` square (triangle filter), or a copy when it already is.
pub fn resized(img: &image::RgbaImage, size: u32) -> image::RgbaImage {
    if img.width() == size && img.height() == size {
        return img.clone();
    }
    image::imageops::resize(img, size, size, image::imageops::FilterType::Triangle)
}

/// Uploads `layers` (each `size` square, RGBA8 sRGB) as one sampled 2D array named `name`; with
/// `mipped`, with its full mip chain ([`mip_chain`]).
pub fn upload_array(
    gpu: &mut Gpu,
    name: &str,
    layers: &[image::RgbaImage],
    size: u32,
    mipped: bool,
) -> Result<Image> {
    let chains: Vec<Vec<image::RgbaImage>> =
        layers.iter().map(|l| if mipped { mip_chain(l) } else { vec![l.clone()] }).collect();
    let mips = chains.first().map_or(1, Vec::len) as u32;
    let image = gpu.create_image(&ImageDesc {
        name,
        kind: vk::ImageType::TYPE_2D,
        format: vk::Format::R8G8B8A8_SRGB,
        extent: vk::Extent3D { width: size, height: size, depth: 1 },
        layers: layers.len() as u32,
        array: true,
        mips,
        usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
    })?;
    let bytes: Vec<u8> = (0..mips as usize)
        .flat_map(|level| chains.iter().flat_map(move |c| c[level].as_raw().iter().copied()))
        .collect();
    gpu.upload_image(&image, &bytes)?;
    Ok(image)
}

/// `img` and its mip levels down to 1 x 1: each level a 2 x 2 box of the one above, averaged in
/// linear light (averaging sRGB values would darken a fine pattern: black and white stripes
/// would become 0.21 of white rather than half); alpha averaged as it is. An odd side keeps its
/// last row or column out of the box.
pub fn mip_chain(img: &image::RgbaImage) -> Vec<image::RgbaImage> {
    let mut chain = vec![img.clone()];
    while let Some(above) = chain.last().filter(|l| l.width() > 1 || l.height() > 1) {
        let (w, h) = ((above.width() / 2).max(1), (above.height() / 2).max(1));
        let next = image::RgbaImage::from_fn(w, h, |x, y| {
            let texels = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dy)| {
                above.get_pixel((2 * x + dx).min(above.width() - 1), (2 * y + dy).min(above.height() - 1))
            });
            image::Rgba(std::array::from_fn(|c| {
                if c == 3 {
                    let sum: u32 = texels.iter().map(|t| u32::from(t[3])).sum();
                    return ((sum + 2) / 4) as u8;
                }
                let mean = texels.iter().map(|t| srgb_to_linear(f32::from(t[c]) / 255.0)).sum::<f32>() / 4.0;
                linear_to_srgb(mean)
            }))
        });
        chain.push(next);
    }
    chain
}

/// The sRGB transfer function inverted: an encoded value in 0..1 to linear light.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light in 0..1 to an sRGB-encoded byte.
fn linear_to_srgb(l: f32) -> u8 {
    let c = if l <= 0.003_130_8 { l * 12.92 } else { 1.055 * l.powf(1.0 / 2.4) - 0.055 };
    (c * 255.0).round().clamp(0.0, 255.0) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mip_of_black_and_white_stripes_is_half_white_in_linear_light() {
        let stripes =
            image::RgbaImage::from_fn(8, 8, |x, _| image::Rgba([if x % 2 == 0 { 255 } else { 0 }; 4]));
        let chain = mip_chain(&stripes);
        assert_eq!(chain.iter().map(|l| l.width()).collect::<Vec<_>>(), [8, 4, 2, 1]);
        for level in &chain[1..] {
            for p in level.pixels() {
                // Linear 0.5 is sRGB 188 (not 128, the mean of the stored values).
                assert_eq!(p.0, [188, 188, 188, 128], "{:?}", level.dimensions());
            }
        }
    }

    #[test]
    fn a_mip_chain_of_a_flat_colour_keeps_it() {
        let flat = image::RgbaImage::from_pixel(16, 4, image::Rgba([200, 90, 13, 77]));
        let chain = mip_chain(&flat);
        assert_eq!(chain.len(), 5, "16x4, 8x2, 4x1, 2x1, 1x1");
        assert!(chain.iter().all(|l| l.pixels().all(|p| p.0 == [200, 90, 13, 77])));
    }
}
