//! `host.opaque`: forward-lit opaque geometry into the HDR target and the depth buffer (which the
//! fog passes sample later). Inputs: the frame constants, objects, lights, shadow views, shadow
//! atlas and projector textures (bindings 0..5, the `lighting.glsl` convention).

use ash::vk;

use crate::error::Result;
use crate::gpu_types::DrawPush;
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::graphics::{Attachment, Blend, GraphicsDesc, GraphicsPipeline};
use crate::vk::pipeline::{Bind, BindingKind};
use crate::vk::recorder::{Access, Recorder, Use};
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

/// The lighting inputs every lit pass binds at 0..5 (see `lighting.glsl`).
pub fn lighting_bindings() -> [BindingKind; 6] {
    [
        BindingKind::UniformBuffer,
        BindingKind::StorageBuffer,
        BindingKind::StorageBuffer,
        BindingKind::StorageBuffer,
        BindingKind::SampledImage,
        BindingKind::SampledImage,
    ]
}

/// The lighting inputs (0..5) followed by a pass's own bindings (6..).
pub fn lighting_binding_kinds_with(own: &[BindingKind]) -> Vec<BindingKind> {
    let mut kinds = lighting_bindings().to_vec();
    kinds.extend_from_slice(own);
    kinds
}

/// Binds the lighting inputs for a lit pass.
pub fn lighting_binds<'r>(frame: &'r Buffer, world: &'r World, samplers: &Samplers) -> [Bind<'r>; 6] {
    [
        Bind::Buffer(frame),
        Bind::Buffer(&world.objects),
        Bind::Buffer(&world.lights),
        Bind::Buffer(&world.shadow_views),
        Bind::Sampled(
            &world.shadow_atlas,
            samplers.shadow_compare,
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        ),
        Bind::Sampled(&world.projector_tex, samplers.linear_clamp, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
    ]
}

impl OpaquePass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_graphics_pipeline(&GraphicsDesc {
            name: NAME,
            vertex: shaders::PASSES_OPAQUE_OPAQUE_VERT,
            fragment: Some(shaders::PASSES_OPAQUE_OPAQUE_FRAG),
            bindings: &lighting_bindings(),
            push_size: std::mem::size_of::<DrawPush>() as u32,
            vertex_layout: Some(super::shadow::vertex_layout()),
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
        let reads = [
            Use::Buffer(&world.objects, Access::FragmentRead),
            Use::Buffer(&world.lights, Access::FragmentRead),
            Use::Buffer(&world.shadow_views, Access::FragmentRead),
            Use::Image(&world.shadow_atlas, Access::FragmentRead),
            Use::Image(&world.projector_tex, Access::FragmentRead),
        ];
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
        rec.render(NAME, &[color], Some(depth), &reads, |rec| {
            let binds = lighting_binds(frame, world, samplers);
            rec.bind_graphics(&self.pipeline, &binds, bytemuck::bytes_of(&DrawPush::default()));
            rec.bind_mesh(&world.vertices, &world.indices);
            for d in &world.draws {
                let push = DrawPush { object: d.object, ..Default::default() };
                rec.push_graphics_constants(&self.pipeline, bytemuck::bytes_of(&push));
                rec.draw_indexed(d.index_count, d.first_index, d.vertex_offset);
            }
        })
    }
}
