//! `host.tonemap`: HDR radiance to display: exposure, the ACES filmic fit, sRGB encoding, RGBA8.

use crate::error::Result;
use crate::gpu_types::TonemapPush;
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, BindingKind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Image;

/// The pass name.
pub const NAME: &str = "host.tonemap";
const TILE: u32 = 8;

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
            &[BindingKind::StorageImage, BindingKind::StorageImage],
            std::mem::size_of::<TonemapPush>() as u32,
        )?;
        Ok(TonemapPass { pipeline })
    }

    /// Maps `hdr` into `ldr` (same size).
    pub fn record(&self, rec: &mut Recorder<'_>, hdr: &Image, ldr: &Image, exposure: f32) {
        let (w, h) = (ldr.extent.width, ldr.extent.height);
        let push = TonemapPush { exposure, width: w, height: h, pad0: 0 };
        let uses = [Use::Image(hdr, Access::ComputeRead), Use::Image(ldr, Access::ComputeWrite)];
        rec.pass(NAME, &uses, |rec| {
            let binds = [Bind::StorageImage(hdr), Bind::StorageImage(ldr)];
            rec.dispatch(
                &self.pipeline,
                &binds,
                bytemuck::bytes_of(&push),
                [w.div_ceil(TILE), h.div_ceil(TILE), 1],
            );
        });
    }
}
