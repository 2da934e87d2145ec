//! `host.glow`: the particle glow post-process (`lldrawpoolalpha.cpp`), the bloom `host.tonemap` adds.
//!
//! The viewer keeps a glow mask in the framebuffer alpha: each particle's colour draw multiplies it
//! by (1 - alpha), its glow draw adds texture alpha x glow, and the glow post-process extracts the
//! frame's colour weighted by that alpha, blurs it and adds it back. Here `particles.billboards`
//! writes the same mask into `frame.glow` ([`MASK_FORMAT`]) in its one draw, and this pass:
//!
//! 1. `host.glow.extract`: half resolution, each pixel the mean of its 2x2 full-resolution block of
//!    hdr.rgb x clamp(mask, 0, 1) (NaN as black, infinities saturated, as the tonemap does);
//! 2. `host.glow.blur_h`, `host.glow.blur_v`: a separable Gaussian of sigma
//!    max([`GLOW_SIGMA_FRACTION`] x half height, [`MIN_SIGMA_PX`]) half-resolution pixels, cut at
//!    [`RADIUS_PER_SIGMA`] sigma (at most [`MAX_RADIUS_PX`] taps each side), edges clamped;
//! 3. `host.tonemap` samples the result bilinearly at full resolution and adds [`GLOW_STRENGTH`]
//!    times it to the HDR radiance before exposure and the ACES curve.
//!
//! The frame skips the pass when no particle source of the scene has glow ([`scene_has_glow`]);
//! the tonemap then gets strength 0 and does not sample the bloom, so its output is unchanged.

use ash::vk;

use crate::error::Result;
use crate::gpu_types::GlowPush;
use crate::scene::Scene;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Image, ImageDesc};

/// The pass name (the prefix of its passes and images).
pub const NAME: &str = "host.glow";
/// Format of the glow mask `frame.glow`: the mask alone (texture alpha x glow, attenuated by what is
/// drawn over it; the blend's source alpha comes from the fragment output, not the attachment).
/// R16F: blendable everywhere, sampled (not a storage image, which would need the extended
/// formats), a quarter of the bandwidth of RGBA16F for a million overlapping quads; half precision
/// (relative error below 0.05 %) resolves the mask's 1/255 glow steps.
pub const MASK_FORMAT: vk::Format = vk::Format::R16_SFLOAT;
/// Format of the half-resolution bloom images (linear HDR radiance).
const BLOOM_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// Bloom strength, unitless: radiance added = strength x blurred glowing radiance. Ours (the
/// reference has no glow settings); the value is the viewer's `RenderGlowStrength` default as
/// public copies of its settings.xml give it, not checked against a viewer source here.
pub const GLOW_STRENGTH: f32 = 0.325;
/// Gaussian sigma as a fraction of the (half-resolution) image height, unitless: about 11 pixels
/// at 1080p. Ours, chosen by eye for a visible halo; resolution-independent, unlike the viewer's
/// fixed-size glow buffer.
pub const GLOW_SIGMA_FRACTION: f32 = 0.01;
/// Smallest sigma, half-resolution pixels (small images still get a visible halo).
pub const MIN_SIGMA_PX: f32 = 1.5;
/// Kernel radius in sigmas: weights beyond 3 sigma are below 1.2 % of the centre's.
pub const RADIUS_PER_SIGMA: f32 = 3.0;
/// Largest kernel radius, taps each side (the loop bound `MAX_RADIUS` in `blur.comp`).
pub const MAX_RADIUS_PX: i32 = 32;
/// Workgroup side of the compute passes.
const TILE: u32 = 8;
/// Full-resolution pixels per half-resolution pixel along each axis.
const DOWNSAMPLE: u32 = 2;

/// True when some particle source of `scene` has a start or end glow above 0.
pub fn scene_has_glow(scene: &Scene) -> bool {
    scene.particles.iter().any(|s| s.system.part.has_glow())
}

/// Gaussian sigma (half-resolution pixels) and radius (taps each side) for a half-resolution
/// image `half_height` pixels high.
pub fn blur_kernel(half_height: u32) -> (f32, i32) {
    let sigma = (GLOW_SIGMA_FRACTION * half_height as f32).max(MIN_SIGMA_PX);
    let radius = ((RADIUS_PER_SIGMA * sigma).ceil() as i32).min(MAX_RADIUS_PX);
    (sigma, radius)
}

/// The glow pipelines and their half-resolution images.
pub struct GlowPass {
    extract: ComputePipeline,
    blur: ComputePipeline,
    extracted: Image,
    blurred_h: Image,
    bloom: Image,
}

impl GlowPass {
    /// Creates the pipelines and the half-resolution images for a `width` x `height` frame.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Self> {
        let push = std::mem::size_of::<GlowPush>() as u32;
        let extent =
            vk::Extent3D { width: width.div_ceil(DOWNSAMPLE), height: height.div_ceil(DOWNSAMPLE), depth: 1 };
        let image = |what: &str, usage| {
            gpu.create_image(&ImageDesc {
                name: &crate::names::resource(NAME, what),
                kind: vk::ImageType::TYPE_2D,
                format: BLOOM_FORMAT,
                extent,
                layers: 1,
                array: false,
                mips: 1,
                usage,
            })
        };
        use vk::ImageUsageFlags as U;
        Ok(GlowPass {
            extract: gpu.create_compute_pipeline(
                &crate::names::resource(NAME, "extract"),
                shaders::PASSES_GLOW_EXTRACT_COMP,
                push,
            )?,
            blur: gpu.create_compute_pipeline(
                &crate::names::resource(NAME, "blur"),
                shaders::PASSES_GLOW_BLUR_COMP,
                push,
            )?,
            extracted: image("extracted", U::STORAGE)?,
            blurred_h: image("blurred_h", U::STORAGE)?,
            bloom: image("bloom", U::STORAGE | U::SAMPLED | U::TRANSFER_SRC)?,
        })
    }

    /// The blurred glow (half resolution), what `host.tonemap` adds.
    pub fn bloom(&self) -> &Image {
        &self.bloom
    }

    /// Records the extraction of `hdr` weighted by `mask` (both full resolution) and the two blur
    /// passes into [`GlowPass::bloom`].
    /// `mask` is sampled with `nearest` (texel fetches).
    pub fn record(&self, rec: &mut Recorder<'_>, hdr: &Image, mask: &Image, nearest: vk::Sampler) {
        let (w, h) = (self.bloom.extent.width, self.bloom.extent.height);
        let (sigma, radius) = blur_kernel(h);
        let mut push = GlowPush {
            extent: [w, h, hdr.extent.width, hdr.extent.height],
            step_radius: [0, 0, radius, 0],
            sigma: [sigma, 0.0, 0.0, 0.0],
        };
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        let extract = [
            Binding::StorageImage(hdr, Access::ComputeRead),
            Binding::Sampled(mask, nearest, Access::ComputeSampled),
            Binding::StorageImage(&self.extracted, Access::ComputeWrite),
        ];
        let name = crate::names::resource(NAME, "extract");
        rec.compute(&name, &self.extract, &extract, bytemuck::bytes_of(&push), groups);
        push.extent = [w, h, w, h];
        let axes = [
            ("blur_h", [1, 0], &self.extracted, &self.blurred_h),
            ("blur_v", [0, 1], &self.blurred_h, &self.bloom),
        ];
        for (what, step, src, dst) in axes {
            push.step_radius = [step[0], step[1], radius, 0];
            let bindings = [
                Binding::StorageImage(src, Access::ComputeRead),
                Binding::StorageImage(dst, Access::ComputeWrite),
            ];
            let name = crate::names::resource(NAME, what);
            rec.compute(&name, &self.blur, &bindings, bytemuck::bytes_of(&push), groups);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_follows_the_image_height_with_a_floor_and_a_cap() {
        // 1080p: half height 540, sigma 5.4 px, radius ceil(16.2) = 17.
        let (sigma, radius) = blur_kernel(540);
        assert!((sigma - 5.4).abs() < 1e-4 && radius == 17, "{sigma} {radius}");
        // Small images keep the floor: sigma 1.5, radius 5 (4.5 rounded up).
        assert_eq!(blur_kernel(60), (MIN_SIGMA_PX, 5));
        // Huge images are capped at the shader's loop bound.
        assert_eq!(blur_kernel(100_000).1, MAX_RADIUS_PX);
    }
}
