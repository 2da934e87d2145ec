//! `fog.brick_bounds` (`RenderVKParticleFogDebug` 2 and 3): the edges of every brick in use this
//! frame, drawn into the HDR image after `fog.brick_march`, depth-tested against the opaque depth
//! (nearer geometry hides them), coloured by level (`bounds.vert`). One instance per slot of the
//! pool; the vertex shader culls those past the used count, so the draw needs no arguments from
//! the GPU (a debug view: the cost of the culled instances does not matter).

use crate::error::Result;
use crate::particle_fog::pool::BrickPool;
use crate::passes::opaque::{DEPTH_FORMAT, HDR_FORMAT};
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::graphics::{Attachment, Blend, GraphicsDesc, GraphicsPipeline};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, Image};

/// The pass name.
pub const NAME: &str = "fog.brick_bounds";
/// Vertices per brick: 12 edges, a quad (two triangles) each.
const VERTICES_PER_BRICK: u32 = 12 * 6;

/// The brick-bounds pipeline.
pub struct BrickBoundsPass {
    pipeline: GraphicsPipeline,
}

impl BrickBoundsPass {
    /// Creates the pipeline (HDR colour, depth tested, not written).
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_graphics_pipeline(&GraphicsDesc {
            name: NAME,
            vertex: shaders::PASSES_BRICK_BOUNDS_BOUNDS_VERT,
            fragment: Some(shaders::PASSES_BRICK_BOUNDS_BOUNDS_FRAG),
            push_size: 0,
            vertex_layout: None,
            color_formats: &[HDR_FORMAT],
            depth_format: Some(DEPTH_FORMAT),
            depth_test: true,
            depth_write: false,
            blend: Blend::Opaque,
            cull_back: false,
            depth_bias: false,
        })?;
        Ok(BrickBoundsPass { pipeline })
    }

    /// Draws the bounds of `bricks`' bricks in use into `hdr`, tested against `depth`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        frame: &Buffer,
        bricks: &BrickPool,
        (depth, hdr): (&Image, &Image),
    ) -> Result<()> {
        let read = Access::VertexRead;
        let bindings = [
            Binding::Uniform(frame),
            Binding::Uniform(&bricks.constants),
            Binding::Storage(&bricks.requests, read),
            Binding::Storage(bricks.slot_keys(), read),
            Binding::Storage(&bricks.counters, read),
            Binding::Storage(&bricks.page, read),
            Binding::Storage(&bricks.slot_max, read),
        ];
        let colour = Attachment { image: hdr, clear: None, layer: None };
        let depth = Attachment { image: depth, clear: None, layer: None };
        rec.render(NAME, &[colour], Some(depth), &bindings, &[], |rec| {
            rec.bind_graphics(&self.pipeline, &bindings, &[]);
            rec.draw(VERTICES_PER_BRICK, bricks.capacity);
        })
    }
}
