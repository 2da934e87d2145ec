//! Shader modules and compute pipelines. Every pipeline uses one push-descriptor set
//! (VK_KHR_push_descriptor) and optional push constants, so a pass binds its resources at record
//! time with no descriptor pools to manage.

use std::io::Cursor;
use std::sync::Arc;

use ash::vk;

use super::context::{Gpu, Shared};
use super::recorder::Recorder;
use super::resource::{Buffer, Image};
use crate::error::{RenderError, Result, VkResultExt};

/// The kind of resource at one binding slot (slot = index in the list).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingKind {
    /// `buffer` block (std430).
    StorageBuffer,
    /// `uniform` block (std140).
    UniformBuffer,
    /// `image2D`/`image3D` storage image.
    StorageImage,
    /// `sampler2D`/`sampler3D` combined image sampler.
    SampledImage,
}

impl BindingKind {
    fn descriptor_type(self) -> vk::DescriptorType {
        match self {
            BindingKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            BindingKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
            BindingKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
            BindingKind::SampledImage => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        }
    }
}

/// A resource bound at dispatch or draw time, in binding order.
#[derive(Clone, Copy)]
pub enum Bind<'r> {
    /// A storage or uniform buffer (whole range).
    Buffer(&'r Buffer),
    /// A storage image in GENERAL layout.
    StorageImage(&'r Image),
    /// A sampled image in SHADER_READ_ONLY (or DEPTH_READ_ONLY) layout, with its sampler.
    Sampled(&'r Image, vk::Sampler, vk::ImageLayout),
}

/// A pipeline layout with one push-descriptor set and a push-constant range.
pub(crate) struct Layout {
    pub set_layout: vk::DescriptorSetLayout,
    pub raw: vk::PipelineLayout,
    pub kinds: Vec<BindingKind>,
}

pub(crate) fn create_layout(
    shared: &Shared,
    name: &str,
    kinds: &[BindingKind],
    stages: vk::ShaderStageFlags,
    push_size: u32,
) -> Result<Layout> {
    let bindings: Vec<_> = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(i as u32)
                .descriptor_type(k.descriptor_type())
                .descriptor_count(1)
                .stage_flags(stages)
        })
        .collect();
    let set_info = vk::DescriptorSetLayoutCreateInfo::default()
        .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
        .bindings(&bindings);
    // SAFETY: valid device and create info; destroyed with the pipeline.
    let set_layout = unsafe { shared.device.create_descriptor_set_layout(&set_info, None) }
        .ctx(&format!("creating the descriptor layout of {name}"))?;
    let ranges = [vk::PushConstantRange::default().stage_flags(stages).offset(0).size(push_size)];
    let set_layouts = [set_layout];
    let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    if push_size > 0 {
        info = info.push_constant_ranges(&ranges);
    }
    // SAFETY: as above.
    let raw = unsafe { shared.device.create_pipeline_layout(&info, None) }
        .ctx(&format!("creating the pipeline layout of {name}"))?;
    shared.set_name(set_layout, &format!("{name}.set_layout"));
    shared.set_name(raw, &format!("{name}.layout"));
    Ok(Layout { set_layout, raw, kinds: kinds.to_vec() })
}

/// Creates a shader module from SPIR-V bytes (as embedded by build.rs).
pub(crate) fn shader_module(shared: &Shared, name: &str, spirv: &[u8]) -> Result<vk::ShaderModule> {
    let words = ash::util::read_spv(&mut Cursor::new(spirv))
        .map_err(|e| RenderError::Unsupported(format!("SPIR-V of {name} is malformed: {e}")))?;
    let info = vk::ShaderModuleCreateInfo::default().code(&words);
    // SAFETY: valid device; `words` is SPIR-V produced by glslc at build time.
    let module = unsafe { shared.device.create_shader_module(&info, None) }
        .map_err(|result| RenderError::ShaderCompile { name: name.to_owned(), result })?;
    shared.set_name(module, &format!("{name}.module"));
    Ok(module)
}

/// A compute pipeline and its layout.
pub struct ComputePipeline {
    /// The pipeline.
    pub raw: vk::Pipeline,
    /// The pass name it belongs to.
    pub name: String,
    pub(crate) layout: Layout,
    shared: Arc<Shared>,
}

impl Gpu {
    /// Creates a compute pipeline named `name` from SPIR-V, with resources at bindings 0.. of set 0
    /// and `push_size` bytes of push constants.
    pub fn create_compute_pipeline(
        &self,
        name: &str,
        spirv: &[u8],
        kinds: &[BindingKind],
        push_size: u32,
    ) -> Result<ComputePipeline> {
        let shared = &self.shared;
        let layout = create_layout(shared, name, kinds, vk::ShaderStageFlags::COMPUTE, push_size)?;
        let module = shader_module(shared, name, spirv)?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout.raw);
        // SAFETY: valid module and layout; the module may be destroyed once the pipeline exists.
        let created = unsafe {
            let r = shared.device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None);
            shared.device.destroy_shader_module(module, None);
            r
        };
        let raw = match created {
            Ok(p) => p[0],
            Err((_, result)) => {
                destroy_layout(shared, &layout);
                return Err(RenderError::ShaderCompile { name: name.to_owned(), result });
            }
        };
        shared.set_name(raw, name);
        Ok(ComputePipeline { raw, name: name.to_owned(), layout, shared: shared.clone() })
    }
}

impl Drop for ComputePipeline {
    fn drop(&mut self) {
        // SAFETY: `Gpu::submit` waits for completion, so no command buffer using it is in flight.
        unsafe { self.shared.device.destroy_pipeline(self.raw, None) };
        destroy_layout(&self.shared, &self.layout);
    }
}

pub(crate) fn destroy_layout(shared: &Shared, layout: &Layout) {
    // SAFETY: the pipeline using the layout is destroyed or was never created.
    unsafe {
        shared.device.destroy_pipeline_layout(layout.raw, None);
        shared.device.destroy_descriptor_set_layout(layout.set_layout, None);
    }
}

impl Recorder<'_> {
    /// Binds `pipe`, pushes `binds` and `push` constants, and dispatches `groups` workgroups.
    pub fn dispatch(&self, pipe: &ComputePipeline, binds: &[Bind<'_>], push: &[u8], groups: [u32; 3]) {
        let device = self.device();
        // SAFETY: `cmd` is recording; the pipeline is alive.
        unsafe { device.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, pipe.raw) };
        self.push_bindings(vk::PipelineBindPoint::COMPUTE, &pipe.layout, &pipe.name, binds, push);
        // SAFETY: pipeline and descriptors are bound above.
        unsafe { device.cmd_dispatch(self.cmd, groups[0], groups[1], groups[2]) };
    }

    /// Like [`Recorder::dispatch`], with the workgroup counts read by the GPU from `args` at byte
    /// `offset` (a `VkDispatchIndirectCommand`; the pass declares `args` as `IndirectRead`).
    pub fn dispatch_indirect(
        &self,
        pipe: &ComputePipeline,
        binds: &[Bind<'_>],
        push: &[u8],
        args: &Buffer,
        offset: u64,
    ) {
        let device = self.device();
        // SAFETY: `cmd` is recording; the pipeline is alive.
        unsafe { device.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, pipe.raw) };
        self.push_bindings(vk::PipelineBindPoint::COMPUTE, &pipe.layout, &pipe.name, binds, push);
        // SAFETY: pipeline and descriptors are bound above; `args` is alive, has INDIRECT_BUFFER
        // usage (the caller's) and holds a command at `offset`.
        unsafe { device.cmd_dispatch_indirect(self.cmd, args.raw, offset) };
    }

    /// Pushes descriptors and constants for a pipeline layout.
    pub(crate) fn push_bindings(
        &self,
        bind_point: vk::PipelineBindPoint,
        layout: &Layout,
        name: &str,
        binds: &[Bind<'_>],
        push: &[u8],
    ) {
        if binds.len() != layout.kinds.len() {
            crate::error::bug(&format!(
                "{name}: {} bindings given, layout has {}",
                binds.len(),
                layout.kinds.len()
            ));
        }
        let mut buffer_infos = Vec::with_capacity(binds.len());
        let mut image_infos = Vec::with_capacity(binds.len());
        for b in binds {
            match *b {
                Bind::Buffer(buf) => {
                    buffer_infos
                        .push([vk::DescriptorBufferInfo::default().buffer(buf.raw).range(vk::WHOLE_SIZE)]);
                    image_infos.push([vk::DescriptorImageInfo::default()]);
                }
                Bind::StorageImage(img) => {
                    buffer_infos.push([vk::DescriptorBufferInfo::default()]);
                    image_infos.push([vk::DescriptorImageInfo::default()
                        .image_view(img.view)
                        .image_layout(vk::ImageLayout::GENERAL)]);
                }
                Bind::Sampled(img, sampler, layout) => {
                    buffer_infos.push([vk::DescriptorBufferInfo::default()]);
                    image_infos.push([vk::DescriptorImageInfo::default()
                        .image_view(img.view)
                        .sampler(sampler)
                        .image_layout(layout)]);
                }
            }
        }
        let writes: Vec<_> = binds
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let w = vk::WriteDescriptorSet::default()
                    .dst_binding(i as u32)
                    .descriptor_type(layout.kinds[i].descriptor_type());
                match b {
                    Bind::Buffer(_) => w.buffer_info(&buffer_infos[i]),
                    _ => w.image_info(&image_infos[i]),
                }
            })
            .collect();
        let shared = self.shared();
        // SAFETY: `cmd` is recording with a pipeline of `layout` bound; the infos outlive the call;
        // push sizes match the layout's range (checked by validation in tests).
        unsafe {
            shared.push_descriptor.cmd_push_descriptor_set(self.cmd, bind_point, layout.raw, 0, &writes);
            if !push.is_empty() {
                shared.device.cmd_push_constants(self.cmd, layout.raw, layout_stages(bind_point), 0, push);
            }
        }
    }
}

fn layout_stages(bind_point: vk::PipelineBindPoint) -> vk::ShaderStageFlags {
    if bind_point == vk::PipelineBindPoint::COMPUTE {
        vk::ShaderStageFlags::COMPUTE
    } else {
        vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT
    }
}
