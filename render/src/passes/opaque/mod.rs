//! `host.opaque`: forward-lit opaque geometry into the HDR target and the depth buffer (which the
//! fog passes sample later). Inputs: the frame constants, objects, lights, shadow views, shadow
//! atlas and projector textures (bindings 0..5, the `lighting.glsl` convention).

use ash::vk;

use crate::error::Result;
use crate::gpu_types::DrawPush;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::graphics::{Attachment, Blend, GraphicsDesc, GraphicsPipeline};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, Image};
use crate::vk::sampler::Samplers;
use crate::world::World;

/// The pass name.
pub const NAME: &str = "host.opaque";
/// HDR colour format.
pub const HDR_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// Depth format.
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// The opaque pass's pipeline.
pub struct OpaquePass {
    pipeline: GraphicsPipeline,
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
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_graphics_pipeline(&GraphicsDesc {
            name: NAME,
            vertex: shaders::PASSES_OPAQUE_OPAQUE_VERT,
            fragment: Some(shaders::PASSES_OPAQUE_OPAQUE_FRAG),
            push_size: std::mem::size_of::<DrawPush>() as u32,
            vertex_layout: Some(super::shadow::vertex_layout(true)),
            color_formats: &[HDR_FORMAT],
            depth_format: Some(DEPTH_FORMAT),
            depth_test: true,
            depth_write: true,
            blend: Blend::Opaque,
            cull_back: false,
            depth_bias: false,
        })?;
        Ok(OpaquePass { pipeline })
    }

    /// Draws every object into `hdr` and `depth`, clearing both (`background` is the sky colour).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        (frame, world, samplers): (&Buffer, &World, &Samplers),
        hdr: &Image,
        depth: &Image,
        background: [f32; 4],
    ) -> Result<()> {
        let color = Attachment {
            image: hdr,
            clear: Some(vk::ClearValue { color: vk::ClearColorValue { float32: background } }),
            layer: None,
        };
        let depth = Attachment {
            image: depth,
            clear: Some(vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue { depth: 1.0, stencil: 0 },
            }),
            layer: None,
        };
        let bindings = lighting_bindings(frame, world, samplers, IN_FRAGMENT);
        rec.render(NAME, &[color], Some(depth), &bindings, &[], |rec| {
            rec.bind_graphics(&self.pipeline, &bindings, bytemuck::bytes_of(&DrawPush::default()));
            rec.bind_mesh(&world.vertices, &world.indices);
            for d in &world.draws {
                let push = DrawPush { object: d.object, ..Default::default() };
                rec.push_graphics_constants(&self.pipeline, bytemuck::bytes_of(&push));
                rec.draw_indexed(d.index_count, d.first_index, d.vertex_offset);
            }
        })
    }
}
