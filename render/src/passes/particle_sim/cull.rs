//! `particles.cull`: frustum culling of the live particles into an indirect draw list for the
//! billboards (see `cull.comp`). Planes come from the camera's `clip_from_world` by the
//! Gribb-Hartmann extraction ([`frustum_planes`]); [`sphere_visible`] is the CPU twin of the test.

use glam::{Mat4, Vec3, Vec4};

use crate::error::Result;
use crate::gpu_types::ParticleCullPush;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::Buffer;

/// The pass name (the reset of the draw arguments is `particles.cull.reset`).
pub const CULL: &str = "particles.cull";
/// Threads per workgroup.
const WORKGROUP: u32 = 64;
/// Push-constant mode: empty the draw arguments.
const MODE_RESET: u32 = 0;
/// Push-constant mode: cull.
const MODE_CULL: u32 = 1;

/// The buffers the cull binds, in binding order.
#[derive(Clone, Copy)]
pub struct CullBuffers<'r> {
    /// `particles.pool`.
    pub pool: &'r Buffer,
    /// The alive list holding the current particles.
    pub alive: &'r Buffer,
    /// `particles.counters`.
    pub counters: &'r Buffer,
    /// `particles.visible`: pool indices of the visible particles.
    pub visible: &'r Buffer,
    /// `particles.draw_args`: a `VkDrawIndirectCommand`.
    pub draw_args: &'r Buffer,
}

/// What `particles.cull` leaves for the sort, the run batching and the billboards.
#[derive(Clone, Copy)]
pub struct VisibleParticles<'r> {
    /// `particles.pool`.
    pub pool: &'r Buffer,
    /// `particles.visible`: pool indices of the visible particles.
    pub visible: &'r Buffer,
    /// `particles.draw_args`: a `VkDrawIndirectCommand` whose instance count is the visible count.
    pub draw_args: &'r Buffer,
    /// The pool's capacity (the most the visible list holds).
    pub capacity: u32,
}

/// The cull pipeline.
pub struct ParticleCullPass {
    pipeline: ComputePipeline,
}

impl ParticleCullPass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let push = std::mem::size_of::<ParticleCullPush>() as u32;
        let pipeline = gpu.create_compute_pipeline(CULL, shaders::PASSES_PARTICLE_SIM_CULL_COMP, push)?;
        Ok(ParticleCullPass { pipeline })
    }

    /// Records the reset and the cull of alive list `list` (0 or 1) against `planes`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        bufs: &CullBuffers<'_>,
        list: u32,
        capacity: u32,
        planes: &[Vec4; 6],
    ) {
        let p = planes.map(|v| v.to_array());
        let mut push = ParticleCullPush {
            plane0: p[0],
            plane1: p[1],
            plane2: p[2],
            plane3: p[3],
            plane4: p[4],
            plane5: p[5],
            counts: [list, MODE_RESET, capacity, 0],
        };
        // Both dispatches bind (and the shader statically uses) every buffer, so both declare them.
        let bindings = [
            Binding::Storage(bufs.pool, Access::ComputeRead),
            Binding::Storage(bufs.alive, Access::ComputeRead),
            Binding::Storage(bufs.counters, Access::ComputeRead),
            Binding::Storage(bufs.visible, Access::ComputeWrite),
            Binding::Storage(bufs.draw_args, Access::ComputeWrite),
        ];
        let reset = crate::names::resource(CULL, "reset");
        rec.compute(&reset, &self.pipeline, &bindings, bytemuck::bytes_of(&push), Groups::Direct([1, 1, 1]));
        push.counts[1] = MODE_CULL;
        let groups = Groups::Direct([capacity.div_ceil(WORKGROUP).max(1), 1, 1]);
        rec.compute(CULL, &self.pipeline, &bindings, bytemuck::bytes_of(&push), groups);
    }
}

/// The six frustum planes of `clip_from_world` (Vulkan clip space, depth 0..1), normals inside
/// and normalised: left, right, bottom, top, near, far (Gribb and Hartmann, "Fast Extraction of
/// Viewing Frustum Planes from the World-View-Projection Matrix", 2001).
pub fn frustum_planes(clip_from_world: Mat4) -> [Vec4; 6] {
    let m = clip_from_world;
    let (r0, r1, r2, r3) = (m.row(0), m.row(1), m.row(2), m.row(3));
    [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2].map(|p| p / p.truncate().length())
}

/// The CPU twin of the shader's test: the sphere (`centre`, `radius`) is not wholly outside any
/// plane.
pub fn sphere_visible(planes: &[Vec4; 6], centre: Vec3, radius: f32) -> bool {
    planes.iter().all(|p| p.truncate().dot(centre) + p.w >= -radius)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_bound_the_view_volume() {
        let view = Mat4::look_at_rh(Vec3::ZERO, Vec3::new(0.0, 0.0, -1.0), Vec3::Y);
        let proj = Mat4::perspective_rh(1.0, 1.0, 0.5, 100.0);
        let planes = frustum_planes(proj * view);
        assert!(sphere_visible(&planes, Vec3::new(0.0, 0.0, -10.0), 0.0));
        assert!(!sphere_visible(&planes, Vec3::new(0.0, 0.0, 10.0), 1.0), "behind the camera");
        assert!(!sphere_visible(&planes, Vec3::new(0.0, 0.0, -101.0), 0.5), "beyond the far plane");
        // Half-angle 0.5 rad: at 10 m the edge is 10 tan(0.5) = 5.46 m off axis.
        assert!(!sphere_visible(&planes, Vec3::new(6.0, 0.0, -10.0), 0.1));
        assert!(sphere_visible(&planes, Vec3::new(6.0, 0.0, -10.0), 1.0), "its radius reaches inside");
        assert!(sphere_visible(&planes, Vec3::new(5.0, 0.0, -10.0), 0.0));
    }
}
