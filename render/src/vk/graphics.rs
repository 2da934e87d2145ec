//! Graphics pipelines (dynamic rendering, push descriptors, dynamic viewport/scissor/depth bias)
//! and the commands to render into attachments.

use std::sync::Arc;

use ash::vk;

use super::binding::{self, Binding};
use super::context::{Gpu, Shared};
use super::pipeline::{create_layout, destroy_layout, retire_pipeline, shader_module, Layout};
use super::recorder::{Access, Recorder, Use};
use super::resource::{Buffer, Image};
use crate::error::{RenderError, Result};

/// Vertex attributes read from one interleaved vertex buffer: (location, format, byte offset).
#[derive(Clone, Debug)]
pub struct VertexLayout {
    /// Bytes per vertex.
    pub stride: u32,
    /// The attributes.
    pub attributes: Vec<(u32, vk::Format, u32)>,
}

/// Colour blending: one mode for every colour attachment, or one per attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blend<'a> {
    /// Replace.
    Opaque,
    /// Premultiplied-alpha "over": rgb = src + dst * (1 - src.a).
    PremultipliedOver,
    /// rgb = src + dst.
    Additive,
    /// Explicit (source, destination) factors for colour and for alpha, both with ADD (the legacy
    /// particle blend pairs).
    Factors {
        /// Colour factors.
        color: (vk::BlendFactor, vk::BlendFactor),
        /// Alpha factors.
        alpha: (vk::BlendFactor, vk::BlendFactor),
    },
    /// One blend per colour attachment, in `color_formats` order (the device's `independentBlend`
    /// feature, which `vk::device` requires). The list must match the attachments in length and
    /// hold no nested `PerAttachment`; anything else is a bug.
    PerAttachment(&'a [Blend<'a>]),
}

/// What graphics pipeline to create.
#[derive(Clone, Debug)]
pub struct GraphicsDesc<'a> {
    /// Pass name (pipeline and label name).
    pub name: &'a str,
    /// Vertex shader SPIR-V.
    pub vertex: &'a [u8],
    /// Fragment shader SPIR-V (none for depth-only passes).
    pub fragment: Option<&'a [u8]>,
    /// Bytes of push constants (visible to both stages).
    pub push_size: u32,
    /// Vertex input, or none when the shader generates or pulls vertices.
    pub vertex_layout: Option<VertexLayout>,
    /// Colour attachment formats.
    pub color_formats: &'a [vk::Format],
    /// Depth attachment format, if any.
    pub depth_format: Option<vk::Format>,
    /// Depth test and write.
    pub depth_test: bool,
    /// Depth write.
    pub depth_write: bool,
    /// Blending of the colour attachments (one mode for all, or one each).
    pub blend: Blend<'a>,
    /// Back-face culling.
    pub cull_back: bool,
    /// Depth bias (set per draw with `set_depth_bias`).
    pub depth_bias: bool,
}

/// A graphics pipeline and its layout.
pub struct GraphicsPipeline {
    /// The pipeline.
    pub raw: vk::Pipeline,
    /// The pass name.
    pub name: String,
    pub(crate) layout: Layout,
    shared: Arc<Shared>,
}

impl Gpu {
    /// Creates a graphics pipeline for dynamic rendering.
    pub fn create_graphics_pipeline(&self, desc: &GraphicsDesc<'_>) -> Result<GraphicsPipeline> {
        let shared = &self.shared;
        let stages_flags = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        let mut stages = vec![(vk::ShaderStageFlags::VERTEX, desc.vertex)];
        stages.extend(desc.fragment.map(|f| (vk::ShaderStageFlags::FRAGMENT, f)));
        let layout = create_layout(shared, desc.name, &stages, stages_flags, desc.push_size)?;
        let result = build(shared, desc, &layout);
        match result {
            Ok(raw) => {
                shared.set_name(raw, desc.name);
                Ok(GraphicsPipeline { raw, name: desc.name.to_owned(), layout, shared: shared.clone() })
            }
            Err(e) => {
                destroy_layout(shared, &layout);
                Err(e)
            }
        }
    }
}

fn build(shared: &Shared, desc: &GraphicsDesc<'_>, layout: &Layout) -> Result<vk::Pipeline> {
    let (vs, fs) = stage_modules(shared, desc)?;
    let mut stages = vec![vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::VERTEX)
        .module(vs)
        .name(c"main")];
    if let Some(fs) = fs {
        stages.push(
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fs)
                .name(c"main"),
        );
    }
    let (bindings, attributes) = vertex_input(desc.vertex_layout.as_ref());
    let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
        .vertex_binding_descriptions(&bindings)
        .vertex_attribute_descriptions(&attributes);
    let assembly =
        vk::PipelineInputAssemblyStateCreateInfo::default().topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
    let (raster, depth) = raster_and_depth(desc);
    let multisample =
        vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let blends = blend_states(desc.name, desc.blend, desc.color_formats.len());
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blends);
    let mut dynamic_states = vec![vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    if desc.depth_bias {
        dynamic_states.push(vk::DynamicState::DEPTH_BIAS);
    }
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let mut rendering = vk::PipelineRenderingCreateInfo::default()
        .color_attachment_formats(desc.color_formats)
        .depth_attachment_format(desc.depth_format.unwrap_or(vk::Format::UNDEFINED));
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
        if let Some(fs) = fs {
            shared.device.destroy_shader_module(fs, None);
        }
        r
    };
    created
        .map(|p| p[0])
        .map_err(|(_, result)| RenderError::ShaderCompile { name: desc.name.to_owned(), result })
}

/// The vertex and (optional) fragment modules of `desc`; nothing is left behind on failure.
fn stage_modules(
    shared: &Shared,
    desc: &GraphicsDesc<'_>,
) -> Result<(vk::ShaderModule, Option<vk::ShaderModule>)> {
    let vs = shader_module(shared, desc.name, desc.vertex)?;
    match desc.fragment.map(|f| shader_module(shared, desc.name, f)).transpose() {
        Ok(fs) => Ok((vs, fs)),
        Err(e) => {
            // SAFETY: the module was created above and is not used by any pipeline.
            unsafe { shared.device.destroy_shader_module(vs, None) };
            Err(e)
        }
    }
}

/// Rasterisation (filled, counter-clockwise front faces, optional back-face culling and dynamic
/// depth bias) and depth state (LESS_OR_EQUAL) of `desc`.
fn raster_and_depth(
    desc: &GraphicsDesc<'_>,
) -> (vk::PipelineRasterizationStateCreateInfo<'static>, vk::PipelineDepthStencilStateCreateInfo<'static>) {
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .polygon_mode(vk::PolygonMode::FILL)
        .cull_mode(if desc.cull_back { vk::CullModeFlags::BACK } else { vk::CullModeFlags::NONE })
        .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
        .depth_bias_enable(desc.depth_bias)
        .line_width(1.0);
    let depth = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(desc.depth_test)
        .depth_write_enable(desc.depth_write)
        .depth_compare_op(vk::CompareOp::LESS_OR_EQUAL);
    (raster, depth)
}

fn vertex_input(
    layout: Option<&VertexLayout>,
) -> (Vec<vk::VertexInputBindingDescription>, Vec<vk::VertexInputAttributeDescription>) {
    let Some(layout) = layout else { return (Vec::new(), Vec::new()) };
    let binding = vk::VertexInputBindingDescription::default()
        .binding(0)
        .stride(layout.stride)
        .input_rate(vk::VertexInputRate::VERTEX);
    let attributes = layout
        .attributes
        .iter()
        .map(|&(location, format, offset)| {
            vk::VertexInputAttributeDescription::default()
                .location(location)
                .binding(0)
                .format(format)
                .offset(offset)
        })
        .collect();
    (vec![binding], attributes)
}

/// The blend state of each of `count` colour attachments.
fn blend_states(name: &str, blend: Blend<'_>, count: usize) -> Vec<vk::PipelineColorBlendAttachmentState> {
    let Blend::PerAttachment(each) = blend else {
        return (0..count).map(|_| blend_state(blend)).collect();
    };
    if each.len() != count || each.iter().any(|b| matches!(b, Blend::PerAttachment(_))) {
        crate::error::bug(&format!(
            "{name}: {} per-attachment blends (nested lists are not allowed) for {count} colour attachments",
            each.len()
        ));
    }
    each.iter().map(|&b| blend_state(b)).collect()
}

/// The blend state of one attachment (`blend` is not `PerAttachment`).
fn blend_state(blend: Blend<'_>) -> vk::PipelineColorBlendAttachmentState {
    let all = vk::ColorComponentFlags::RGBA;
    let base = vk::PipelineColorBlendAttachmentState::default().color_write_mask(all);
    let (color, alpha) = match blend {
        Blend::Opaque => return base,
        Blend::PremultipliedOver => {
            let f = (vk::BlendFactor::ONE, vk::BlendFactor::ONE_MINUS_SRC_ALPHA);
            (f, f)
        }
        Blend::Additive => {
            ((vk::BlendFactor::ONE, vk::BlendFactor::ONE), (vk::BlendFactor::ONE, vk::BlendFactor::ONE))
        }
        Blend::Factors { color, alpha } => (color, alpha),
        Blend::PerAttachment(_) => crate::error::bug("a nested per-attachment blend"),
    };
    base.blend_enable(true)
        .src_color_blend_factor(color.0)
        .dst_color_blend_factor(color.1)
        .color_blend_op(vk::BlendOp::ADD)
        .src_alpha_blend_factor(alpha.0)
        .dst_alpha_blend_factor(alpha.1)
        .alpha_blend_op(vk::BlendOp::ADD)
}

impl Drop for GraphicsPipeline {
    fn drop(&mut self) {
        retire_pipeline(&self.shared, self.raw, &self.layout);
    }
}

/// An attachment and what to do with its previous contents.
#[derive(Clone, Copy)]
pub struct Attachment<'r> {
    /// The image (a 2D image, or one layer of an array via `layer`).
    pub image: &'r Image,
    /// Clear to this value, or keep (load) the contents when `None`.
    pub clear: Option<vk::ClearValue>,
    /// Which layer to render into (a single-layer view is made for the pass).
    pub layer: Option<u32>,
}

impl<'a> Recorder<'a> {
    /// Records a render pass named `name` into `colors` and `depth`: the barriers of `bindings`
    /// (which `body` binds with [`Recorder::bind_graphics`]), of `extra` (what else the pass reads
    /// that is no descriptor, e.g. indirect arguments) and of the attachments, dynamic rendering
    /// begun with a full-size viewport and scissor, then `body`.
    pub fn render<T>(
        &mut self,
        name: &str,
        colors: &[Attachment<'_>],
        depth: Option<Attachment<'_>>,
        bindings: &[Binding<'_>],
        extra: &[Use<'_>],
        body: impl FnOnce(&Recorder<'a>) -> T,
    ) -> Result<T> {
        let mut uses: Vec<Use<'_>> = binding::uses(bindings, extra);
        uses.extend(colors.iter().map(|c| Use::Image(c.image, Access::ColorAttachment)));
        if let Some(d) = depth {
            uses.push(Use::Image(d.image, Access::DepthAttachment));
        }
        let extent = colors.first().or(depth.as_ref()).map(|a| a.image.extent).unwrap_or_default();
        let views = AttachmentViews::new(self.shared(), colors, depth)?;
        let out = self.pass(name, &uses, |rec| {
            let color_infos: Vec<_> =
                colors.iter().zip(&views.colors).map(|(c, v)| attachment_info(c, *v, false)).collect();
            let depth_info = depth.zip(views.depth).map(|(d, v)| attachment_info(&d, v, true));
            let area =
                vk::Rect2D::default().extent(vk::Extent2D { width: extent.width, height: extent.height });
            let mut info =
                vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&color_infos);
            if let Some(d) = depth_info.as_ref() {
                info = info.depth_attachment(d);
            }
            let viewport = vk::Viewport::default()
                .width(extent.width as f32)
                .height(extent.height as f32)
                .max_depth(1.0);
            // SAFETY: attachments are alive and in attachment layouts (declared uses above); their
            // views live until the submission completes (handed to the recorder's deferred list).
            unsafe {
                rec.device().cmd_begin_rendering(rec.cmd, &info);
                rec.device().cmd_set_viewport(rec.cmd, 0, &[viewport]);
                rec.device().cmd_set_scissor(rec.cmd, 0, &[area]);
            }
            let out = body(rec);
            // SAFETY: ends the rendering begun above.
            unsafe { rec.device().cmd_end_rendering(rec.cmd) };
            out
        });
        self.defer_destroy_views(views.owned);
        Ok(out)
    }

    /// Binds a graphics pipeline with its resources (the `bindings` given to the enclosing
    /// [`Recorder::render`]) and push constants.
    pub fn bind_graphics(&self, pipe: &GraphicsPipeline, bindings: &[Binding<'_>], push: &[u8]) {
        // SAFETY: `cmd` is recording inside a rendering instance; the pipeline is alive.
        unsafe { self.device().cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::GRAPHICS, pipe.raw) };
        self.push_bindings(vk::PipelineBindPoint::GRAPHICS, &pipe.layout, &pipe.name, bindings, push);
    }

    /// Updates the push constants of a bound graphics pipeline (e.g. per draw).
    pub fn push_graphics_constants(&self, pipe: &GraphicsPipeline, push: &[u8]) {
        let stages = vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT;
        // SAFETY: the pipeline's layout has a push range of at least `push.len()` bytes for both stages.
        unsafe { self.device().cmd_push_constants(self.cmd, pipe.layout.raw, stages, 0, push) };
    }

    /// Binds a vertex buffer (binding 0) and a u32 index buffer.
    pub fn bind_mesh(&self, vertices: &Buffer, indices: &Buffer) {
        // SAFETY: both buffers are alive with VERTEX/INDEX usage (their creators' contract).
        unsafe {
            self.device().cmd_bind_vertex_buffers(self.cmd, 0, &[vertices.raw], &[0]);
            self.device().cmd_bind_index_buffer(self.cmd, indices.raw, 0, vk::IndexType::UINT32);
        }
    }

    /// Draws `count` indices starting at `first`, with `vertex_offset` added to each index.
    pub fn draw_indexed(&self, count: u32, first: u32, vertex_offset: i32) {
        // SAFETY: a graphics pipeline and mesh are bound inside a rendering instance.
        unsafe { self.device().cmd_draw_indexed(self.cmd, count, 1, first, vertex_offset, 0) };
    }

    /// Draws `vertices` generated vertices (no vertex buffer), `instances` times.
    pub fn draw(&self, vertices: u32, instances: u32) {
        // SAFETY: a graphics pipeline is bound inside a rendering instance.
        unsafe { self.device().cmd_draw(self.cmd, vertices, instances, 0, 0) };
    }

    /// Sets the dynamic depth bias (pipelines created with `depth_bias`).
    pub fn set_depth_bias(&self, constant: f32, slope: f32) {
        // SAFETY: the bound pipeline declares DEPTH_BIAS dynamic.
        unsafe { self.device().cmd_set_depth_bias(self.cmd, constant, 0.0, slope) };
    }
}

fn attachment_info(
    a: &Attachment<'_>,
    view: vk::ImageView,
    is_depth: bool,
) -> vk::RenderingAttachmentInfo<'static> {
    let layout = if is_depth {
        vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL
    } else {
        vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL
    };
    let info = vk::RenderingAttachmentInfo::default()
        .image_view(view)
        .image_layout(layout)
        .store_op(vk::AttachmentStoreOp::STORE);
    match a.clear {
        Some(value) => info.load_op(vk::AttachmentLoadOp::CLEAR).clear_value(value),
        None => info.load_op(vk::AttachmentLoadOp::LOAD),
    }
}

/// Views for a render pass: the image's own view, or a single-layer view made for the pass.
struct AttachmentViews {
    colors: Vec<vk::ImageView>,
    depth: Option<vk::ImageView>,
    owned: Vec<vk::ImageView>,
}

impl AttachmentViews {
    fn new(shared: &Shared, colors: &[Attachment<'_>], depth: Option<Attachment<'_>>) -> Result<Self> {
        let mut owned = Vec::new();
        let mut view_of = |a: &Attachment<'_>| -> Result<vk::ImageView> {
            let Some(layer) = a.layer else { return Ok(a.image.view) };
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(a.image.aspect())
                .level_count(1)
                .base_array_layer(layer)
                .layer_count(1);
            let info = vk::ImageViewCreateInfo::default()
                .image(a.image.raw)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(a.image.format)
                .subresource_range(range);
            // SAFETY: the image is alive and `layer` is within its layers (validation checks).
            let view = unsafe { shared.device.create_image_view(&info, None) }.map_err(|e| {
                crate::error::map_vk(e, &format!("creating a layer view of {}", a.image.name))
            })?;
            owned.push(view);
            Ok(view)
        };
        let colors = colors.iter().map(&mut view_of).collect::<Result<Vec<_>>>()?;
        let depth = depth.as_ref().map(&mut view_of).transpose()?;
        Ok(AttachmentViews { colors, depth, owned })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_blend_repeats_and_per_attachment_blends_differ() {
        use vk::BlendFactor as F;
        let same = blend_states("t", Blend::Additive, 2);
        assert_eq!(same.len(), 2);
        assert_eq!(same[0].dst_color_blend_factor, F::ONE);
        assert_eq!(same[1].dst_color_blend_factor, F::ONE);
        let each =
            [Blend::Opaque, Blend::Factors { color: (F::ONE, F::SRC_ALPHA), alpha: (F::ZERO, F::ONE) }];
        let states = blend_states("t", Blend::PerAttachment(&each), 2);
        assert_eq!(states[0].blend_enable, vk::FALSE);
        assert_eq!(states[1].blend_enable, vk::TRUE);
        assert_eq!(states[1].dst_color_blend_factor, F::SRC_ALPHA);
        assert_eq!(states[1].src_alpha_blend_factor, F::ZERO);
    }

    #[test]
    #[should_panic(expected = "per-attachment blends")]
    fn a_per_attachment_list_of_the_wrong_length_is_a_bug() {
        blend_states("t", Blend::PerAttachment(&[Blend::Opaque]), 2);
    }
}
