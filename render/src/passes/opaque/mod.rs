//! `host.opaque` and `host.lighting`: the surface each pixel shows (normal and object index) and
//! its depth, found by casting a ray per pixel through the scene's bounding-volume hierarchy
//! ([`bvh`]) in compute and copying the depths into the depth buffer (which the billboards test
//! and the fog passes sample later), then lit per pixel in compute into the HDR target. The H200
//! here shades fragments far slower than it runs compute: drawn as triangles, the surface alone
//! took 1.86 ms at 1080p and 7.8 ms at 4K (lit in the fragment shader, 2.8 and 10.6 ms). Lighting
//! inputs: the frame constants, objects, lights, shadow views, shadow atlas and projector textures
//! (bindings 0..5, the `lighting.glsl` convention).

pub mod bvh;

use ash::vk;

use crate::error::Result;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::vk::sampler::Samplers;
use crate::world::World;

/// The pass name.
pub const NAME: &str = "host.opaque";
/// The depth copy's name.
pub const DEPTH_COPY: &str = "host.opaque.depth_copy";
/// The lighting pass's name.
pub const LIGHTING: &str = "host.lighting";
/// The surface image's format: normal xyz, object index (-1: no surface).
const SURFACE_FORMAT: vk::Format = vk::Format::R32G32B32A32_SFLOAT;
/// Workgroup side of the ray cast and the lighting pass.
const TILE: u32 = 8;
/// HDR colour format.
pub const HDR_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// Depth format.
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;
/// Bytes of one [`DEPTH_FORMAT`] texel.
const DEPTH_TEXEL_BYTES: u64 = 4;

/// The opaque pass's pipelines, its surface image and the ray cast's depths.
pub struct OpaquePass {
    raycast: ComputePipeline,
    lighting: ComputePipeline,
    /// `host.opaque.surface`: per pixel the surface's normal and object index.
    pub surface: Image,
    /// `host.opaque.depth`: per pixel the hit's depth (D32 texels, rows packed), copied into the
    /// depth image.
    depths: Buffer,
}

/// How a lit pass reads the lighting inputs: (buffers, images).
pub type LightingReads = (Access, Access);
/// The lighting inputs read in a compute shader.
pub const IN_COMPUTE: LightingReads = (Access::ComputeRead, Access::ComputeSampled);
/// The lighting inputs read in the vertex and fragment shaders of a draw.
pub const IN_FRAGMENT: LightingReads = (Access::FragmentRead, Access::FragmentRead);

/// The lighting inputs every lit pass binds at 0..5 (see `lighting.glsl`), wherever they come
/// from: the host renderer's [`World`] ([`World::light_inputs`]) or a viewer's lights and shadow
/// maps.
#[derive(Clone, Copy)]
pub struct LightInputs<'r> {
    /// The frame constants ([`crate::gpu_types::FrameUniform`]).
    pub frame: &'r Buffer,
    /// The object table ([`crate::gpu_types::GpuObject`]).
    pub objects: &'r Buffer,
    /// The light list ([`crate::gpu_types::GpuLight`]).
    pub lights: &'r Buffer,
    /// The shadow views ([`crate::gpu_types::ShadowView`]), one per shadow-map layer.
    pub shadow_views: &'r Buffer,
    /// The shadow maps: a depth 2D array, one layer per view.
    pub shadow_atlas: &'r Image,
    /// The projector textures: a 2D array, one layer per projector.
    pub projector_tex: &'r Image,
}

/// The bindings 0..5 of `lit` (the shadow maps with the compare sampler, the projector textures
/// trilinear), read as `reads` says.
pub fn lighting_bindings<'r>(
    lit: &LightInputs<'r>,
    samplers: &Samplers,
    (buffers, images): LightingReads,
) -> [Binding<'r>; 6] {
    [
        Binding::Uniform(lit.frame),
        Binding::Storage(lit.objects, buffers),
        Binding::Storage(lit.lights, buffers),
        Binding::Storage(lit.shadow_views, buffers),
        Binding::Sampled(lit.shadow_atlas, samplers.shadow_compare, images),
        Binding::Sampled(lit.projector_tex, samplers.trilinear_clamp, images),
    ]
}

impl OpaquePass {
    /// Creates the pipelines and a `width` x `height` surface image and depth buffer.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Self> {
        let raycast = gpu.create_compute_pipeline(
            NAME,
            shaders::PASSES_OPAQUE_RAYCAST_COMP,
            std::mem::size_of::<u32>() as u32,
        )?;
        let lighting = gpu.create_compute_pipeline(
            LIGHTING,
            shaders::PASSES_OPAQUE_LIGHTING_COMP,
            std::mem::size_of::<[f32; 4]>() as u32,
        )?;
        let surface = gpu.create_image(&ImageDesc {
            name: "host.opaque.surface",
            kind: vk::ImageType::TYPE_2D,
            format: SURFACE_FORMAT,
            extent: vk::Extent3D { width, height, depth: 1 },
            layers: 1,
            array: false,
            mips: 1,
            usage: vk::ImageUsageFlags::STORAGE,
        })?;
        let depths = gpu.create_buffer(&BufferDesc {
            name: "host.opaque.depth",
            size: u64::from(width) * u64::from(height) * DEPTH_TEXEL_BYTES,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::GpuOnly,
        })?;
        Ok(OpaquePass { raycast, lighting, surface, depths })
    }

    /// Casts every pixel's ray into the surface image and `depth`, then lights every pixel into
    /// `hdr` (`background` is the sky colour).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        (lit, world, samplers): (&LightInputs<'_>, &World, &Samplers),
        hdr: &Image,
        depth: &Image,
        background: [f32; 4],
    ) -> Result<()> {
        let (w, h) = (hdr.extent.width, hdr.extent.height);
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        let cast = [
            Binding::Uniform(lit.frame),
            Binding::Storage(&world.bvh_nodes, Access::ComputeRead),
            Binding::Storage(&world.bvh_triangles, Access::ComputeRead),
            Binding::StorageImage(&self.surface, Access::ComputeWrite),
            Binding::Storage(&self.depths, Access::ComputeWrite),
        ];
        rec.compute(NAME, &self.raycast, &cast, bytemuck::bytes_of(&world.bvh_node_count), groups);
        let copy =
            [Use::Buffer(&self.depths, Access::TransferRead), Use::Image(depth, Access::TransferWrite)];
        rec.pass(DEPTH_COPY, &copy, |rec| rec.copy_buffer_to_image(&self.depths, depth, DEPTH_TEXEL_BYTES));
        let mut bindings = lighting_bindings(lit, samplers, IN_COMPUTE).to_vec();
        bindings.extend([
            Binding::StorageImage(&self.surface, Access::ComputeRead),
            Binding::Sampled(depth, samplers.nearest_clamp, Access::ComputeSampled),
            Binding::StorageImage(hdr, Access::ComputeWrite),
        ]);
        rec.compute(LIGHTING, &self.lighting, &bindings, bytemuck::bytes_of(&background), groups);
        Ok(())
    }
}
