//! `host.opaque` and `host.lighting`: the opaque geometry drawn into a surface image (normal and
//! object index) and the depth buffer (which the fog passes sample later), then lit per pixel in
//! compute into the HDR target. The H200 here shades fragments far slower than it runs compute:
//! lit in the fragment shader, `host.opaque` took 2.8 ms at 1080p and 10.6 ms at 4K. Lighting
//! inputs: the frame constants, objects, lights, shadow views, shadow atlas and projector textures
//! (bindings 0..5, the `lighting.glsl` convention).

use ash::vk;

use crate::error::Result;
use crate::gpu_types::DrawPush;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::graphics::{Attachment, Blend, GraphicsDesc, GraphicsPipeline};
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, Image, ImageDesc};
use crate::vk::sampler::Samplers;
use crate::world::World;

/// The pass name.
pub const NAME: &str = "host.opaque";
/// The lighting pass's name.
pub const LIGHTING: &str = "host.lighting";
/// The surface image's format: normal xyz, object index (-1: no surface).
const SURFACE_FORMAT: vk::Format = vk::Format::R32G32B32A32_SFLOAT;
/// Workgroup side of the lighting pass.
const TILE: u32 = 8;
/// HDR colour format.
pub const HDR_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// Depth format.
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// The opaque pass's pipelines and its surface image.
pub struct OpaquePass {
    pipeline: GraphicsPipeline,
    lighting: ComputePipeline,
    /// `host.opaque.surface`: per pixel the surface's normal and object index.
    pub surface: Image,
}

/// How a lit pass reads the lighting inputs: (buffers, images).
pub type LightingReads = (Access, Access);
/// The lighting inputs read in a compute shader.
pub const IN_COMPUTE: LightingReads = (Access::ComputeRead, Access::ComputeSampled);
/// The lighting inputs read in the vertex and fragment shaders of a draw.
pub const IN_FRAGMENT: LightingReads = (Access::FragmentRead, Access::FragmentRead);

/// The lighting inputs every lit pass binds at 0..5 (see `lighting.glsl`): frame constants,
/// objects, lights, shadow views, shadow atlas (compare sampler), projector textures.
pub fn lighting_bindings<'r>(
    frame: &'r Buffer,
    world: &'r World,
    samplers: &Samplers,
    (buffers, images): LightingReads,
) -> [Binding<'r>; 6] {
    [
        Binding::Uniform(frame),
        Binding::Storage(&world.objects, buffers),
        Binding::Storage(&world.lights, buffers),
        Binding::Storage(&world.shadow_views, buffers),
        Binding::Sampled(&world.shadow_atlas, samplers.shadow_compare, images),
        Binding::Sampled(&world.projector_tex, samplers.linear_clamp, images),
    ]
}

impl OpaquePass {
    /// Creates the pipelines and a `width` x `height` surface image.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Self> {
        let pipeline = gpu.create_graphics_pipeline(&GraphicsDesc {
            name: NAME,
            vertex: shaders::PASSES_OPAQUE_OPAQUE_VERT,
            fragment: Some(shaders::PASSES_OPAQUE_OPAQUE_FRAG),
            push_size: std::mem::size_of::<DrawPush>() as u32,
            vertex_layout: Some(super::shadow::vertex_layout(true)),
            color_formats: &[SURFACE_FORMAT],
            depth_format: Some(DEPTH_FORMAT),
            depth_test: true,
            depth_write: true,
            blend: Blend::Opaque,
            cull_back: false,
            depth_bias: false,
        })?;
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
            usage: vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::STORAGE,
        })?;
        Ok(OpaquePass { pipeline, lighting, surface })
    }

    /// Draws every object into the surface image and `depth`, clearing both, then lights every
    /// pixel into `hdr` (`background` is the sky colour).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        (frame, world, samplers): (&Buffer, &World, &Samplers),
        hdr: &Image,
        depth: &Image,
        background: [f32; 4],
    ) -> Result<()> {
        let no_surface = [0.0, 0.0, 0.0, -1.0];
        let color = Attachment {
            image: &self.surface,
            clear: Some(vk::ClearValue { color: vk::ClearColorValue { float32: no_surface } }),
            layer: None,
        };
        let depth = Attachment {
            image: depth,
            clear: Some(vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue { depth: 1.0, stencil: 0 },
            }),
            layer: None,
        };
        let bindings = [Binding::Uniform(frame), Binding::Storage(&world.objects, Access::VertexRead)];
        rec.render(NAME, &[color], Some(depth), &bindings, &[], |rec| {
            rec.bind_graphics(&self.pipeline, &bindings, bytemuck::bytes_of(&DrawPush::default()));
            rec.bind_mesh(&world.vertices, &world.indices);
            for d in &world.draws {
                let push = DrawPush { object: d.object, ..Default::default() };
                rec.push_graphics_constants(&self.pipeline, bytemuck::bytes_of(&push));
                rec.draw_indexed(d.index_count, d.first_index, d.vertex_offset);
            }
        })?;
        let mut lit = lighting_bindings(frame, world, samplers, IN_COMPUTE).to_vec();
        lit.extend([
            Binding::StorageImage(&self.surface, Access::ComputeRead),
            Binding::Sampled(depth.image, samplers.nearest_clamp, Access::ComputeSampled),
            Binding::StorageImage(hdr, Access::ComputeWrite),
        ]);
        let (w, h) = (hdr.extent.width, hdr.extent.height);
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        rec.compute(LIGHTING, &self.lighting, &lit, bytemuck::bytes_of(&background), groups);
        Ok(())
    }
}
