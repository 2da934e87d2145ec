//! `host.shadow`: every object's depth into each layer of the shadow atlas (sun cascades, spot and
//! projector views, point-light cube faces), with slope-scaled depth bias. Only layers whose view
//! changed are drawn: the world's geometry and lights are fixed, so a still light's layers (and
//! the cascades of a still camera) keep their depth from the frame that drew them.

use ash::vk;

use crate::error::Result;
use crate::gpu_types::DrawPush;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::graphics::{Attachment, Blend, GraphicsDesc, GraphicsPipeline, VertexLayout};
use crate::vk::recorder::{Access, Recorder};
use crate::world::{World, VERTEX_BYTES};

/// The pass name.
pub const NAME: &str = "host.shadow";
/// Constant depth bias, in units of the depth format's resolution.
const DEPTH_BIAS_CONSTANT: f32 = 1.25;
/// Slope-scaled depth bias.
const DEPTH_BIAS_SLOPE: f32 = 1.75;

/// The shadow pass's pipeline.
pub struct ShadowPass {
    pipeline: GraphicsPipeline,
}

/// The shadow pass's view of the shared vertex buffer: the position (location 0, at byte 0).
fn vertex_layout() -> VertexLayout {
    VertexLayout { stride: VERTEX_BYTES, attributes: vec![(0, vk::Format::R32G32B32_SFLOAT, 0)] }
}

impl ShadowPass {
    /// Creates the depth-only pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_graphics_pipeline(&GraphicsDesc {
            name: NAME,
            vertex: shaders::PASSES_SHADOW_SHADOW_VERT,
            fragment: None,
            push_size: std::mem::size_of::<DrawPush>() as u32,
            vertex_layout: Some(vertex_layout()),
            color_formats: &[],
            depth_format: Some(vk::Format::D32_SFLOAT),
            depth_test: true,
            depth_write: true,
            blend: Blend::Opaque,
            cull_back: false,
            depth_bias: true,
        })?;
        Ok(ShadowPass { pipeline })
    }

    /// Renders the layers of `world.shadow_atlas` whose view changed since they were last drawn
    /// ([`World::shadow_layers_to_draw`]; shadow views must be written for this frame).
    pub fn record(&self, rec: &mut Recorder<'_>, world: &World) -> Result<()> {
        let bindings = [
            Binding::Storage(&world.objects, Access::VertexRead),
            Binding::Storage(&world.shadow_views, Access::VertexRead),
        ];
        for layer in world.shadow_layers_to_draw() {
            let depth = Attachment {
                image: &world.shadow_atlas,
                clear: Some(vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue { depth: 1.0, stencil: 0 },
                }),
                layer: Some(layer),
            };
            rec.render(NAME, &[], Some(depth), &bindings, &[], |rec| {
                rec.bind_graphics(&self.pipeline, &bindings, bytemuck::bytes_of(&DrawPush::default()));
                rec.set_depth_bias(DEPTH_BIAS_CONSTANT, DEPTH_BIAS_SLOPE);
                rec.bind_mesh(&world.vertices, &world.indices);
                for d in world.draws.iter().filter(|d| world.layer_sees(layer, d)) {
                    let push = DrawPush { object: d.object, view: layer, ..Default::default() };
                    rec.push_graphics_constants(&self.pipeline, bytemuck::bytes_of(&push));
                    rec.draw_indexed(d.index_count, d.first_index, d.vertex_offset);
                }
            })?;
        }
        Ok(())
    }
}
