//! `embed.depth`: a viewer's depth buffer rewritten in the convention the fog passes read
//! (forward Z, finite far, 1.0 the sky), so that reversed or infinite projections need no change
//! in any pass (see `depth.comp`). One read and one write per pixel.

use ash::vk;
use glam::{Mat4, Vec4};

use crate::error::Result;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Image, ImageDesc};
use crate::vk::sampler::Samplers;

/// The pass name.
pub const NAME: &str = "embed.depth";
/// The format of the rewritten depth.
pub const FORMAT: vk::Format = vk::Format::R32_SFLOAT;
/// Workgroup side.
const TILE: u32 = 8;

/// The push constants of `depth.comp`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DepthPush {
    /// The viewer's clip to view space.
    pub view_from_clip: [[f32; 4]; 4],
    /// The passes' projection's z row (clip z = x view z + y), the viewer's sky depth, unused.
    pub params: [f32; 4],
}

impl DepthPush {
    /// The push for a viewer projecting with `clip_from_view` whose sky clears to `sky_depth`,
    /// rewritten for the passes' forward projection from `near_m` to `far_m`.
    pub fn new(clip_from_view: Mat4, sky_depth: f32, (near_m, far_m): (f32, f32)) -> DepthPush {
        let z = forward_z_row(near_m, far_m);
        DepthPush {
            view_from_clip: clip_from_view.inverse().to_cols_array_2d(),
            params: [z.0, z.1, sky_depth, 0.0],
        }
    }
}

/// The z row (x, y) of a forward Vulkan projection from `near_m` to `far_m` (clip w = -view z):
/// depth 0 at the near plane, 1 at the far.
pub fn forward_z_row(near_m: f32, far_m: f32) -> (f32, f32) {
    (far_m / (near_m - far_m), near_m * far_m / (near_m - far_m))
}

/// `clip_from_view` with its z row replaced by the forward one from `near_m` to `far_m`.
pub fn forward_projection(clip_from_view: Mat4, near_m: f32, far_m: f32) -> Mat4 {
    let (a, b) = forward_z_row(near_m, far_m);
    let mut rows = clip_from_view.transpose();
    rows.z_axis = Vec4::new(0.0, 0.0, a, b);
    rows.transpose()
}

/// The pipeline and the rewritten depth image.
pub struct EmbedDepthPass {
    pipeline: ComputePipeline,
    /// `embed.depth.out` ([`FORMAT`]): the depth the fog passes sample.
    pub depth: Image,
}

impl EmbedDepthPass {
    /// Creates the pipeline and a `width` x `height` depth image.
    pub fn new(gpu: &Gpu, (width, height): (u32, u32)) -> Result<Self> {
        Ok(EmbedDepthPass {
            pipeline: gpu.create_compute_pipeline(
                NAME,
                shaders::PASSES_EMBED_DEPTH_DEPTH_COMP,
                std::mem::size_of::<DepthPush>() as u32,
            )?,
            depth: depth_image(gpu, width, height)?,
        })
    }

    /// Remakes the depth image for `width` x `height` (the old one is retired with the frames
    /// that use it).
    pub fn resize(&mut self, gpu: &Gpu, (width, height): (u32, u32)) -> Result<()> {
        self.depth = depth_image(gpu, width, height)?;
        Ok(())
    }

    /// Rewrites `viewer_depth` into [`EmbedDepthPass::depth`].
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        viewer_depth: &Image,
        samplers: &Samplers,
        push: &DepthPush,
    ) {
        let bindings = [
            Binding::Sampled(viewer_depth, samplers.nearest_clamp, Access::ComputeSampled),
            Binding::StorageImage(&self.depth, Access::ComputeWrite),
        ];
        let (w, h) = (self.depth.extent.width, self.depth.extent.height);
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        rec.compute(NAME, &self.pipeline, &bindings, bytemuck::bytes_of(push), groups);
    }
}

fn depth_image(gpu: &Gpu, width: u32, height: u32) -> Result<Image> {
    gpu.create_image(&ImageDesc {
        name: "embed.depth.out",
        kind: vk::ImageType::TYPE_2D,
        format: FORMAT,
        extent: vk::Extent3D { width, height, depth: 1 },
        layers: 1,
        array: false,
        mips: 1,
        usage: vk::ImageUsageFlags::STORAGE
            | vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::TRANSFER_SRC,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    /// The depth a projection gives a view-space point.
    fn depth(p: Mat4, v: Vec3) -> f32 {
        let c = p * v.extend(1.0);
        c.z / c.w
    }

    #[test]
    fn the_forward_projection_maps_near_to_0_and_far_to_1_and_keeps_x_and_y() {
        let viewer = Mat4::perspective_infinite_reverse_rh(1.0, 16.0 / 9.0, 0.1);
        let p = forward_projection(viewer, 0.1, 500.0);
        assert!((depth(p, Vec3::new(0.0, 0.0, -0.1))).abs() < 1e-6);
        assert!((depth(p, Vec3::new(0.0, 0.0, -500.0)) - 1.0).abs() < 1e-6);
        let v = Vec3::new(1.5, -0.7, -12.0);
        let (a, b) = (viewer * v.extend(1.0), p * v.extend(1.0));
        assert!((a.x / a.w - b.x / b.w).abs() < 1e-6 && (a.y / a.w - b.y / b.w).abs() < 1e-6);
    }

    #[test]
    fn the_rewrite_of_a_reversed_infinite_depth_matches_the_forward_one() {
        // What depth.comp does, on the CPU: the viewer's depth of a point back to view space, then
        // the passes' depth of it.
        let viewer = Mat4::perspective_infinite_reverse_rh(1.0, 1.0, 0.1);
        let push = DepthPush::new(viewer, 0.0, (0.1, 500.0));
        let inv = Mat4::from_cols_array_2d(&push.view_from_clip);
        for z in [0.5f32, 3.0, 40.0, 300.0] {
            let p = Vec3::new(0.0, 0.0, -z);
            let d = depth(viewer, p);
            let v = inv * Vec4::new(0.0, 0.0, d, 1.0);
            let vz = v.z / v.w;
            let rewritten = (push.params[0] * vz + push.params[1]) / -vz;
            let want = depth(forward_projection(viewer, 0.1, 500.0), p);
            assert!((rewritten - want).abs() < 1e-5, "z {z}: {rewritten} vs {want}");
        }
    }
}
