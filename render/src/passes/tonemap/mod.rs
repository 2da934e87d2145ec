//! `host.tonemap`: HDR radiance to display: the bloom of `host.glow` added (strength x bilinear
//! upsample of the half-resolution bloom; skipped, and not sampled, at strength 0), exposure, the
//! ACES filmic fit, sRGB encoding, RGBA8.

use ash::vk;

use crate::error::Result;
use crate::gpu_types::{TonemapBloom, TonemapPush};
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Image;

/// The pass name.
pub const NAME: &str = "host.tonemap";
const TILE: u32 = 8;

/// The bloom the tonemap adds before exposure.
#[derive(Clone, Copy)]
pub struct Bloom<'r> {
    /// The blurred glow (`host.glow`'s result, half resolution), sampled bilinearly.
    pub image: &'r Image,
    /// A bilinear, clamp-to-edge sampler.
    pub sampler: vk::Sampler,
    /// Multiplier on the bloom (0: none added and the image not sampled).
    pub strength: f32,
}

/// The tone-mapping pass's pipeline.
pub struct TonemapPass {
    pipeline: ComputePipeline,
}

impl TonemapPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_compute_pipeline(
            NAME,
            shaders::PASSES_TONEMAP_TONEMAP_COMP,
            (std::mem::size_of::<TonemapPush>() + std::mem::size_of::<TonemapBloom>()) as u32,
        )?;
        Ok(TonemapPass { pipeline })
    }

    /// Maps `hdr` plus `bloom` into `ldr` (same size as `hdr`).
    pub fn record(&self, rec: &mut Recorder<'_>, hdr: &Image, ldr: &Image, exposure: f32, bloom: Bloom<'_>) {
        let (w, h) = (ldr.extent.width, ldr.extent.height);
        let push = TonemapPush { exposure, width: w, height: h, pad0: 0 };
        let bloom_push = TonemapBloom { strength: bloom.strength, ..Default::default() };
        let mut bytes = bytemuck::bytes_of(&push).to_vec();
        bytes.extend_from_slice(bytemuck::bytes_of(&bloom_push));
        let bindings = [
            Binding::StorageImage(hdr, Access::ComputeRead),
            Binding::StorageImage(ldr, Access::ComputeWrite),
            Binding::Sampled(bloom.image, bloom.sampler, Access::ComputeSampled),
        ];
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        rec.compute(NAME, &self.pipeline, &bindings, &bytes, groups);
    }
}
