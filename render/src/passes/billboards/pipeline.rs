//! The billboard pipelines: one per legacy (source, dest) blend pair, with the pair's factors on
//! RGB and (ZERO, ONE_MINUS_SRC_ALPHA) on the framebuffer alpha (sl-particles.md 6.5).

use ash::vk;

use crate::error::Result;
use crate::passes::opaque::{DEPTH_FORMAT, HDR_FORMAT};
use crate::vk::context::Gpu;
use crate::vk::graphics::{Blend, GraphicsDesc, GraphicsPipeline};
use crate::vk::pipeline::BindingKind;

/// The Vulkan factor of a legacy blend enum value (sl-particles.md 3.4; 6 and 8, which scripts
/// cannot set, as the GL table; 10 and above ZERO, as the viewer's renderer table).
pub fn factor(value: u8) -> vk::BlendFactor {
    use vk::BlendFactor as F;
    match value {
        0 => F::ONE,
        1 => F::ZERO,
        2 => F::DST_COLOR,
        3 => F::SRC_COLOR,
        4 => F::ONE_MINUS_DST_COLOR,
        5 => F::ONE_MINUS_SRC_COLOR,
        6 => F::DST_ALPHA,
        7 => F::SRC_ALPHA,
        8 => F::ONE_MINUS_DST_ALPHA,
        9 => F::ONE_MINUS_SRC_ALPHA,
        _ => F::ZERO,
    }
}

/// What a billboard pipeline is made of.
pub struct BlendPipelineDesc<'a> {
    /// Pipeline name.
    pub name: &'a str,
    /// Vertex and fragment SPIR-V.
    pub stages: (&'a [u8], &'a [u8]),
    /// Push-descriptor bindings.
    pub bindings: &'a [BindingKind],
    /// Push-constant bytes.
    pub push_size: u32,
    /// The legacy (source, dest) pair.
    pub pair: (u8, u8),
}

/// Creates the pipeline for `desc.pair`: the pair's factors on RGB, (ZERO, ONE_MINUS_SRC_ALPHA) on
/// alpha, no vertex input (quads come from the particle buffer), no culling, depth tested but not
/// written.
pub fn create(gpu: &Gpu, desc: &BlendPipelineDesc<'_>) -> Result<GraphicsPipeline> {
    gpu.create_graphics_pipeline(&GraphicsDesc {
        name: desc.name,
        vertex: desc.stages.0,
        fragment: Some(desc.stages.1),
        bindings: desc.bindings,
        push_size: desc.push_size,
        vertex_layout: None,
        color_formats: &[HDR_FORMAT],
        depth_format: Some(DEPTH_FORMAT),
        depth_test: true,
        depth_write: false,
        blend: Blend::Factors {
            color: (factor(desc.pair.0), factor(desc.pair.1)),
            alpha: (vk::BlendFactor::ZERO, vk::BlendFactor::ONE_MINUS_SRC_ALPHA),
        },
        cull_back: false,
        depth_bias: false,
    })
}
