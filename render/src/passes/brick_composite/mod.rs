//! `fog.brick_composite`: the particle fog's rays (`fog.brick_march`, one per divisor x divisor
//! pixels) brought to every pixel by a depth-aware upsample and composited into the HDR image;
//! writes the full-resolution `cloud` image the billboards read (see `composite.comp`).

use ash::vk;

use crate::error::Result;
use crate::passes::brick_march::BrickMarchPass;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, Image, ImageDesc};
use crate::vk::sampler::Samplers;

/// The pass name.
pub const NAME: &str = "fog.brick_composite";
/// Workgroup side (pixels).
const TILE: u32 = 16;

/// The composite pipeline and the full-resolution cloud image.
pub struct BrickCompositePass {
    pipeline: ComputePipeline,
    /// `fog.brick_march.cloud` (RGBA16F): per pixel, where the particle fog starts and ends along
    /// the ray (m) and its optical depth from the camera to the opaque depth (not temporally
    /// accumulated), for the billboards drawn after the march and the debug views.
    pub cloud: Image,
}

impl BrickCompositePass {
    /// Creates the pipeline and a `width` x `height` cloud image.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Self> {
        Ok(BrickCompositePass {
            pipeline: gpu.create_compute_pipeline(
                NAME,
                shaders::PASSES_BRICK_COMPOSITE_COMPOSITE_COMP,
                std::mem::size_of::<u32>() as u32,
            )?,
            cloud: gpu.create_image(&ImageDesc {
                name: "fog.brick_march.cloud",
                kind: vk::ImageType::TYPE_2D,
                format: vk::Format::R16G16B16A16_SFLOAT,
                extent: vk::Extent3D { width, height, depth: 1 },
                layers: 1,
                array: false,
                mips: 1,
                usage: vk::ImageUsageFlags::STORAGE
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_SRC,
            })?,
        })
    }

    /// Composites `march`'s rays into `hdr` by `depth` (frame constants in `frame`).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        (frame, samplers): (&Buffer, &Samplers),
        march: &BrickMarchPass,
        (depth, hdr): (&Image, &Image),
    ) {
        let bindings = [
            Binding::Uniform(frame),
            Binding::Sampled(depth, samplers.nearest_clamp, Access::ComputeSampled),
            Binding::StorageImage(hdr, Access::ComputeWrite),
            Binding::StorageImage(&march.rays, Access::ComputeRead),
            Binding::StorageImage(&march.ray_cloud, Access::ComputeRead),
            Binding::StorageImage(&self.cloud, Access::ComputeWrite),
        ];
        let (w, h) = (hdr.extent.width, hdr.extent.height);
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        rec.compute(NAME, &self.pipeline, &bindings, bytemuck::bytes_of(&march.divisor), groups);
    }
}
