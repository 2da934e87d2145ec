//! The particle textures on the GPU: one sampled 2D array (`particles.textures`, RGBA8 sRGB) whose
//! layer 0 is the viewer's default particle texture (`assetstats::default_particle_texture`, the
//! procedural twin of the viewer's local `pixiesmall.j2c`) and whose other layers are the scene's
//! particle textures by name, each resized to [`PARTICLE_TEXTURE_SIZE`] (triangle filter), with their
//! mip chains (`textures::mip_chain`; the billboards sample them trilinearly); plus
//! `particles.source_layers`, the layer of each source id, read by the billboard vertex shader.

use ash::vk;

use crate::error::Result;
use crate::scene::Scene;
use crate::textures;
use crate::vk::context::Gpu;
use crate::vk::resource::{Buffer, BufferDesc, Image, MemoryLocation};

/// Side of every layer, texels (the default texture's own size).
pub const PARTICLE_TEXTURE_SIZE: u32 = 128;

/// The texture array and the per-source layer table.
pub struct ParticleTextures {
    /// `particles.textures`: layer 0 the default texture, then the scene's textures.
    pub image: Image,
    /// `particles.source_layers`: one `u32` layer per source id.
    pub source_layers: Buffer,
}

impl ParticleTextures {
    /// Loads the textures `scene.particles` name (in source order; `None` = the default texture).
    pub fn for_scene(gpu: &mut Gpu, scene: &Scene) -> Result<Self> {
        let mut images = vec![default_layer()];
        let mut names: Vec<&str> = Vec::new();
        let mut layers = Vec::with_capacity(scene.particles.len());
        for src in &scene.particles {
            let Some(name) = src.texture.as_deref() else {
                layers.push(0);
                continue;
            };
            if let Some(i) = names.iter().position(|n| *n == name) {
                layers.push(i as u32 + 1);
                continue;
            }
            let user = format!("particle source {}", src.name);
            images.push(textures::load_named(scene, name, &user, PARTICLE_TEXTURE_SIZE)?);
            names.push(name);
            layers.push(names.len() as u32);
        }
        Self::from_images(gpu, &images, &layers)
    }

    /// Uploads `images` (any sizes; resized to [`PARTICLE_TEXTURE_SIZE`]) as the layers and
    /// `source_layers[i]` as source `i`'s layer. An empty image list gets the default texture.
    pub fn from_images(gpu: &mut Gpu, images: &[image::RgbaImage], source_layers: &[u32]) -> Result<Self> {
        let mut layers: Vec<image::RgbaImage> =
            images.iter().map(|i| textures::resized(i, PARTICLE_TEXTURE_SIZE)).collect();
        if layers.is_empty() {
            layers.push(default_layer());
        }
        let image = textures::upload_array(gpu, "particles.textures", &layers, PARTICLE_TEXTURE_SIZE, true)?;
        let count = layers.len() as u32;
        let table: Vec<u32> = source_layers.iter().map(|&l| l.min(count - 1)).collect();
        let table = if table.is_empty() { vec![0] } else { table };
        let mut source_layers = gpu.create_buffer(&BufferDesc {
            name: "particles.source_layers",
            size: (table.len() * std::mem::size_of::<u32>()) as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::CpuToGpu,
        })?;
        source_layers.write(0, bytemuck::cast_slice(&table));
        Ok(ParticleTextures { image, source_layers })
    }
}

fn default_layer() -> image::RgbaImage {
    textures::resized(&assetstats::default_particle_texture(), PARTICLE_TEXTURE_SIZE)
}
