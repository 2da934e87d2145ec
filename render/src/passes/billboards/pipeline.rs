//! The billboard pipelines: one per legacy (source, dest) blend pair, with the pair's factors on
//! RGB and (ZERO, ONE_MINUS_SRC_ALPHA) on the framebuffer alpha (`lldrawpoolalpha.cpp`), and the
//! glow mask (the second colour attachment) blended with (ONE, ONE_MINUS_SRC_ALPHA) whatever the
//! pair (see the billboards module docs).

use ash::vk;

use crate::error::Result;
use crate::passes::glow::MASK_FORMAT;
use crate::passes::opaque::{DEPTH_FORMAT, HDR_FORMAT};
use crate::vk::context::Gpu;
use crate::vk::graphics::{Blend, GraphicsDesc, GraphicsPipeline};

/// The Vulkan factor of a legacy blend enum value (`llrender.cpp`'s table; 6 and 8, which scripts
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

/// The packed code of a legacy blend pair as particles, emitters and the billboards' push
/// constants carry it (`src | dst << 8`).
pub fn pair_code((src, dst): (u8, u8)) -> u32 {
    u32::from(src) | (u32::from(dst) << 8)
}

/// What a billboard pipeline is made of.
pub struct BlendPipelineDesc<'a> {
    /// Pipeline name.
    pub name: &'a str,
    /// Vertex and fragment SPIR-V.
    pub stages: (&'a [u8], &'a [u8]),
    /// Push-constant bytes.
    pub push_size: u32,
    /// The legacy (source, dest) pair.
    pub pair: (u8, u8),
    /// Which draw it serves.
    pub target: BillboardTarget,
}

/// The draws billboard pipelines serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BillboardTarget {
    /// The world into HDR and the glow mask, depth tested.
    WorldWithGlow,
    /// The world into HDR alone (frames without a glowing source), depth tested.
    World,
    /// The HUD over the tone-mapped frame.
    Hud,
}

/// The format of the HUD draw's target: the tone-mapped frame (`frame.ldr`, sRGB-encoded values).
pub const HUD_TARGET_FORMAT: vk::Format = vk::Format::R8G8B8A8_UNORM;

/// The glow mask's blend: mask' = src + mask (1 - src alpha), on every channel.
const GLOW_MASK_BLEND: Blend<'static> = Blend::Factors {
    color: (vk::BlendFactor::ONE, vk::BlendFactor::ONE_MINUS_SRC_ALPHA),
    alpha: (vk::BlendFactor::ONE, vk::BlendFactor::ONE_MINUS_SRC_ALPHA),
};

/// Creates the pipeline for `desc.pair`: into the HDR target the pair's factors on RGB and
/// (ZERO, ONE_MINUS_SRC_ALPHA) on alpha, into the glow mask [`GLOW_MASK_BLEND`]; no vertex input
/// (quads come from the particle buffer), no culling, depth tested but not written. Without glow
/// the mask attachment is left out; the HUD variant blends the pair into [`HUD_TARGET_FORMAT`]
/// alone, without depth.
pub fn create(gpu: &Gpu, desc: &BlendPipelineDesc<'_>) -> Result<GraphicsPipeline> {
    let color = Blend::Factors {
        color: (factor(desc.pair.0), factor(desc.pair.1)),
        alpha: (vk::BlendFactor::ZERO, vk::BlendFactor::ONE_MINUS_SRC_ALPHA),
    };
    let blends = [color, GLOW_MASK_BLEND];
    let (color_formats, blend, depth): (&[vk::Format], _, _) = match desc.target {
        BillboardTarget::WorldWithGlow => (&[HDR_FORMAT, MASK_FORMAT], Blend::PerAttachment(&blends), true),
        BillboardTarget::World => (&[HDR_FORMAT], color, true),
        BillboardTarget::Hud => (&[HUD_TARGET_FORMAT], color, false),
    };
    gpu.create_graphics_pipeline(&GraphicsDesc {
        name: desc.name,
        vertex: desc.stages.0,
        fragment: Some(desc.stages.1),
        push_size: desc.push_size,
        vertex_layout: None,
        color_formats,
        depth_format: depth.then_some(DEPTH_FORMAT),
        depth_test: depth,
        depth_write: false,
        blend,
        cull_back: false,
        depth_bias: false,
    })
}
