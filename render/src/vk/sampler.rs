//! Samplers the passes share: created once per `Samplers`, destroyed with it.

use std::sync::Arc;

use ash::vk;

use super::context::{Gpu, Shared};
use crate::error::{Result, VkResultExt};

/// The renderer's samplers.
pub struct Samplers {
    /// Bilinear, clamp to edge.
    pub linear_clamp: vk::Sampler,
    /// Trilinear, clamp to edge, every mip level.
    pub trilinear_clamp: vk::Sampler,
    /// Trilinear, repeat, every mip level (textures that tile).
    pub trilinear_repeat: vk::Sampler,
    /// Depth comparison (LESS_OR_EQUAL), bilinear: hardware 2x2 PCF for shadow maps. Clamped to the
    /// edge: a lookup is made only inside a layer's view, and a filter tap past the layer's edge
    /// reads the edge's depth (read as lit, a point light's shadow leaked along its cube seams).
    pub shadow_compare: vk::Sampler,
    /// Nearest, clamp to edge (depth and integer reads).
    pub nearest_clamp: vk::Sampler,
    shared: Arc<Shared>,
}

impl Samplers {
    /// Creates the samplers.
    pub fn new(gpu: &Gpu) -> Result<Samplers> {
        let shared = &gpu.shared;
        let make = |name: &str, info: vk::SamplerCreateInfo<'_>| -> Result<vk::Sampler> {
            // SAFETY: valid device and create info; destroyed in `Drop`.
            let s = unsafe { shared.device.create_sampler(&info, None) }
                .ctx(&format!("creating sampler {name}"))?;
            shared.set_name(s, name);
            Ok(s)
        };
        let base = |filter: vk::Filter, mode: vk::SamplerAddressMode| {
            vk::SamplerCreateInfo::default()
                .mag_filter(filter)
                .min_filter(filter)
                .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                .address_mode_u(mode)
                .address_mode_v(mode)
                .address_mode_w(mode)
                .max_lod(0.0)
        };
        let trilinear = |mode: vk::SamplerAddressMode| {
            base(vk::Filter::LINEAR, mode)
                .mipmap_mode(vk::SamplerMipmapMode::LINEAR)
                .max_lod(vk::LOD_CLAMP_NONE)
        };
        Ok(Samplers {
            linear_clamp: make(
                "sampler.linear_clamp",
                base(vk::Filter::LINEAR, vk::SamplerAddressMode::CLAMP_TO_EDGE),
            )?,
            trilinear_clamp: make(
                "sampler.trilinear_clamp",
                trilinear(vk::SamplerAddressMode::CLAMP_TO_EDGE),
            )?,
            trilinear_repeat: make("sampler.trilinear_repeat", trilinear(vk::SamplerAddressMode::REPEAT))?,
            shadow_compare: make(
                "sampler.shadow_compare",
                base(vk::Filter::LINEAR, vk::SamplerAddressMode::CLAMP_TO_EDGE)
                    .compare_enable(true)
                    .compare_op(vk::CompareOp::LESS_OR_EQUAL),
            )?,
            nearest_clamp: make(
                "sampler.nearest_clamp",
                base(vk::Filter::NEAREST, vk::SamplerAddressMode::CLAMP_TO_EDGE),
            )?,
            shared: shared.clone(),
        })
    }
}

impl Drop for Samplers {
    fn drop(&mut self) {
        // SAFETY: no submission is in flight (`Gpu::submit` waits), so no descriptor uses them.
        unsafe {
            for s in [
                self.linear_clamp,
                self.trilinear_clamp,
                self.trilinear_repeat,
                self.shadow_compare,
                self.nearest_clamp,
            ] {
                self.shared.device.destroy_sampler(s, None);
            }
        }
    }
}
