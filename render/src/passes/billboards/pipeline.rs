//! The billboard pipelines: one per legacy (source, dest) blend pair, with the pair's factors on
//! RGB and (ZERO, ONE_MINUS_SRC_ALPHA) on the framebuffer alpha (sl-particles.md 6.5). The
//! project's generic graphics pipelines offer only three fixed blends, so this builds its own
//! (same fixed state otherwise: dynamic rendering, dynamic viewport and scissor, no vertex input,
//! no culling, depth test LESS_OR_EQUAL without write).

use std::sync::Arc;

use ash::vk;

use crate::error::{RenderError, Result};
use crate::passes::opaque::{DEPTH_FORMAT, HDR_FORMAT};
use crate::vk::context::{Gpu, Shared};
use crate::vk::pipeline::{create_layout, destroy_layout, shader_module, Bind, BindingKind, Layout};
use crate::vk::recorder::Recorder;

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

/// One billboard pipeline.
pub struct BlendPipeline {
    raw: vk::Pipeline,
    layout: Layout,
    name: String,
    shared: Arc<Shared>,
}

/// What a [`BlendPipeline`] is made of.
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

impl BlendPipeline {
    /// Creates the pipeline for `desc.pair`.
    pub fn new(gpu: &Gpu, desc: &BlendPipelineDesc<'_>) -> Result<Self> {
        let shared = &gpu.shared;
        let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        let layout = create_layout(shared, desc.name, desc.bindings, stages, desc.push_size)?;
        match build(shared, desc, &layout) {
            Ok(raw) => {
                shared.set_name(raw, desc.name);
                Ok(BlendPipeline { raw, layout, name: desc.name.to_owned(), shared: shared.clone() })
            }
            Err(e) => {
                destroy_layout(shared, &layout);
                Err(e)
            }
        }
    }

    /// Binds the pipeline with its resources and push constants (inside a render pass).
    pub fn bind(&self, rec: &Recorder<'_>, binds: &[Bind<'_>], push: &[u8]) {
        // SAFETY: `cmd` is recording inside a rendering instance; the pipeline is alive.
        unsafe { rec.device().cmd_bind_pipeline(rec.cmd, vk::PipelineBindPoint::GRAPHICS, self.raw) };
        rec.push_bindings(vk::PipelineBindPoint::GRAPHICS, &self.layout, &self.name, binds, push);
    }
}

fn blend_state(pair: (u8, u8)) -> vk::PipelineColorBlendAttachmentState {
    vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)
        .blend_enable(true)
        .src_color_blend_factor(factor(pair.0))
        .dst_color_blend_factor(factor(pair.1))
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(vk::BlendFactor::ZERO)
        .dst_alpha_blend_factor(vk::BlendFactor::ONE_MINUS_SRC_ALPHA)
        .alpha_blend_op(vk::BlendOp::ADD)
}

fn build(shared: &Shared, desc: &BlendPipelineDesc<'_>, layout: &Layout) -> Result<vk::Pipeline> {
    let vs = shader_module(shared, desc.name, desc.stages.0)?;
    let fs = match shader_module(shared, desc.name, desc.stages.1) {
        Ok(fs) => fs,
        Err(e) => {
            // SAFETY: the module was created above and is not used by any pipeline.
            unsafe { shared.device.destroy_shader_module(vs, None) };
            return Err(e);
        }
    };
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vs)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(fs)
            .name(c"main"),
    ];
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
    let assembly =
        vk::PipelineInputAssemblyStateCreateInfo::default().topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(vk::CullModeFlags::NONE)
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .line_width(1.0);
    let multisample =
        vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let depth = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_write_enable(false)
        .depth_compare_op(vk::CompareOp::LESS_OR_EQUAL);
    let blends = [blend_state(desc.pair)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blends);
    let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let formats = [HDR_FORMAT];
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(&formats)
        .depth_attachment_format(DEPTH_FORMAT);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic)
        .layout(layout.raw)
        .push_next(&mut rendering);
    // SAFETY: every referenced struct lives until the call returns; modules are destroyed after
    // pipeline creation, which the spec allows.
    let created = unsafe {
        let r = shared.device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None);
        shared.device.destroy_shader_module(vs, None);
        shared.device.destroy_shader_module(fs, None);
        r
    };
    created
        .map(|p| p[0])
        .map_err(|(_, result)| RenderError::ShaderCompile { name: desc.name.to_owned(), result })
}

impl Drop for BlendPipeline {
    fn drop(&mut self) {
        // SAFETY: `Gpu::submit` waits for completion, so no command buffer using it is in flight.
        unsafe { self.shared.device.destroy_pipeline(self.raw, None) };
        destroy_layout(&self.shared, &self.layout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_values_map_to_the_gl_table() {
        assert_eq!(factor(7), vk::BlendFactor::SRC_ALPHA);
        assert_eq!(factor(9), vk::BlendFactor::ONE_MINUS_SRC_ALPHA);
        assert_eq!(factor(6), vk::BlendFactor::DST_ALPHA);
        assert_eq!(factor(8), vk::BlendFactor::ONE_MINUS_DST_ALPHA);
        assert_eq!(factor(10), vk::BlendFactor::ZERO);
        assert_eq!(factor(255), vk::BlendFactor::ZERO);
    }
}
