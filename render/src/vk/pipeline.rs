//! Shader modules and compute pipelines. Every pipeline uses one push-descriptor set
//! (VK_KHR_push_descriptor) and optional push constants, so a pass binds its resources at record
//! time with no descriptor pools to manage.

use std::io::Cursor;
use std::sync::Arc;

use ash::vk;

use super::binding::{self, Binding};
use super::context::{Gpu, Shared};
use super::frames::Retired;
use super::recorder::{Access, Recorder, Use};
use super::reflect::{self, ReflectedBinding};
use super::resource::Buffer;
use crate::error::{RenderError, Result, VkResultExt};

pub use super::reflect::BindingKind;

/// A pipeline layout with one push-descriptor set (the bindings reflected from its shaders) and a
/// push-constant range.
pub(crate) struct Layout {
    pub set_layout: vk::DescriptorSetLayout,
    pub raw: vk::PipelineLayout,
    /// The bindings its shaders use, sorted by number, with the stages that use each.
    pub bindings: Vec<(ReflectedBinding, vk::ShaderStageFlags)>,
}

impl Layout {
    fn find(&self, binding: u32) -> Option<&ReflectedBinding> {
        self.bindings.iter().map(|(b, _)| b).find(|b| b.binding == binding)
    }
}

fn descriptor_type(kind: BindingKind) -> vk::DescriptorType {
    match kind {
        BindingKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        BindingKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        BindingKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        BindingKind::SampledImage => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
    }
}

/// The union of the bindings of `stages` ((stage, SPIR-V) pairs), each with the stages that use
/// it; a binding two stages declare differently is an error.
fn reflect_stages(
    name: &str,
    stages: &[(vk::ShaderStageFlags, &[u8])],
) -> Result<Vec<(ReflectedBinding, vk::ShaderStageFlags)>> {
    let mut union: Vec<(ReflectedBinding, vk::ShaderStageFlags)> = Vec::new();
    for &(stage, spirv) in stages {
        for b in reflect::bindings(name, spirv)? {
            match union.iter_mut().find(|(u, _)| u.binding == b.binding) {
                Some((u, _)) if *u != b => {
                    return Err(RenderError::Unsupported(format!(
                        "{name}: binding {} is {} in one stage and {} in another",
                        b.binding,
                        u.kind.describe(),
                        b.kind.describe()
                    )))
                }
                Some((_, flags)) => *flags |= stage,
                None => union.push((b, stage)),
            }
        }
    }
    union.sort_by_key(|(b, _)| b.binding);
    Ok(union)
}

/// Creates the layout of a pipeline named `name` from the bindings its `stages` use, with
/// `push_size` bytes of push constants visible to `push_stages`.
pub(crate) fn create_layout(
    shared: &Shared,
    name: &str,
    stages: &[(vk::ShaderStageFlags, &[u8])],
    push_stages: vk::ShaderStageFlags,
    push_size: u32,
) -> Result<Layout> {
    let reflected = reflect_stages(name, stages)?;
    let bindings: Vec<_> = reflected
        .iter()
        .map(|(b, flags)| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b.binding)
                .descriptor_type(descriptor_type(b.kind))
                .descriptor_count(b.count)
                .stage_flags(*flags)
        })
        .collect();
    let set_info = vk::DescriptorSetLayoutCreateInfo::default()
        .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
        .bindings(&bindings);
    // SAFETY: valid device and create info; destroyed with the pipeline.
    let set_layout = unsafe { shared.device.create_descriptor_set_layout(&set_info, None) }
        .ctx(&format!("creating the descriptor layout of {name}"))?;
    let ranges = [vk::PushConstantRange::default().stage_flags(push_stages).offset(0).size(push_size)];
    let set_layouts = [set_layout];
    let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    if push_size > 0 {
        info = info.push_constant_ranges(&ranges);
    }
    // SAFETY: as above.
    let raw = match unsafe { shared.device.create_pipeline_layout(&info, None) } {
        Ok(raw) => raw,
        Err(e) => {
            // SAFETY: created above, used by nothing.
            unsafe { shared.device.destroy_descriptor_set_layout(set_layout, None) };
            return Err(crate::error::map_vk(e, &format!("creating the pipeline layout of {name}")));
        }
    };
    shared.set_name(set_layout, &format!("{name}.set_layout"));
    shared.set_name(raw, &format!("{name}.layout"));
    Ok(Layout { set_layout, raw, bindings: reflected })
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
    /// Creates a compute pipeline named `name` from SPIR-V, with the set-0 bindings the shader uses
    /// (reflected) and `push_size` bytes of push constants.
    pub fn create_compute_pipeline(
        &self,
        name: &str,
        spirv: &[u8],
        push_size: u32,
    ) -> Result<ComputePipeline> {
        let shared = &self.shared;
        let compute = vk::ShaderStageFlags::COMPUTE;
        let layout = create_layout(shared, name, &[(compute, spirv)], compute, push_size)?;
        let module = match shader_module(shared, name, spirv) {
            Ok(module) => module,
            Err(e) => {
                destroy_layout(shared, &layout);
                return Err(e);
            }
        };
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
        retire_pipeline(&self.shared, self.raw, &self.layout);
    }
}

/// Destroys `pipeline` and `layout` now, or once the host's frames in flight that may use them
/// have completed.
pub(crate) fn retire_pipeline(shared: &Shared, pipeline: vk::Pipeline, layout: &Layout) {
    shared.retire(Retired::Pipeline(pipeline, layout.raw, layout.set_layout));
}

pub(crate) fn destroy_layout(shared: &Shared, layout: &Layout) {
    // SAFETY: the pipeline using the layout is destroyed or was never created.
    unsafe {
        shared.device.destroy_pipeline_layout(layout.raw, None);
        shared.device.destroy_descriptor_set_layout(layout.set_layout, None);
    }
}

/// How many workgroups a dispatch runs.
#[derive(Clone, Copy)]
pub enum Groups<'r> {
    /// Counts known on the CPU.
    Direct([u32; 3]),
    /// A `VkDispatchIndirectCommand` the GPU reads from the buffer (with INDIRECT_BUFFER usage) at
    /// the byte offset; [`Recorder::compute`] declares it `IndirectRead`.
    Indirect(&'r Buffer, u64),
}

impl Recorder<'_> {
    /// Records a compute pass named `name`: the barriers `bindings` (and indirect arguments) need,
    /// then one dispatch of `pipe` with `bindings` and `push` constants.
    pub fn compute(
        &mut self,
        name: &str,
        pipe: &ComputePipeline,
        bindings: &[Binding<'_>],
        push: &[u8],
        groups: Groups<'_>,
    ) {
        let args = match groups {
            Groups::Indirect(args, _) => Some(Use::Buffer(args, Access::IndirectRead)),
            Groups::Direct(_) => None,
        };
        let uses = binding::uses(bindings, args.as_slice());
        self.pass(name, &uses, |rec| rec.dispatch(pipe, bindings, push, groups));
    }

    /// Binds `pipe`, pushes `bindings` and `push` constants, and dispatches `groups`. A body-level
    /// command: the enclosing pass declares the uses ([`Recorder::compute`] does both).
    pub fn dispatch(
        &self,
        pipe: &ComputePipeline,
        bindings: &[Binding<'_>],
        push: &[u8],
        groups: Groups<'_>,
    ) {
        let device = self.device();
        // SAFETY: `cmd` is recording; the pipeline is alive.
        unsafe { device.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, pipe.raw) };
        self.push_bindings(vk::PipelineBindPoint::COMPUTE, &pipe.layout, &pipe.name, bindings, push);
        match groups {
            // SAFETY: pipeline and descriptors are bound above.
            Groups::Direct([x, y, z]) => unsafe { device.cmd_dispatch(self.cmd, x, y, z) },
            // SAFETY: as above; `args` is alive, has INDIRECT_BUFFER usage (the caller's) and holds a
            // command at `offset`.
            Groups::Indirect(args, offset) => unsafe {
                device.cmd_dispatch_indirect(self.cmd, args.raw, offset)
            },
        }
    }

    /// Checks `bindings` against `layout` and pushes the descriptors its shaders use, then the
    /// push constants.
    pub(crate) fn push_bindings(
        &self,
        bind_point: vk::PipelineBindPoint,
        layout: &Layout,
        name: &str,
        bindings: &[Binding<'_>],
        push: &[u8],
    ) {
        let given: Vec<_> = bindings.iter().map(|b| (b.kind(), b.misuse())).collect();
        if let Some(msg) = mismatch(name, &layout.bindings, &given) {
            crate::error::bug(&msg);
        }
        let infos: Vec<(u32, BindingKind, DescriptorInfo)> = bindings
            .iter()
            .enumerate()
            .filter_map(|(i, b)| layout.find(i as u32).map(|r| (r.binding, r.kind, descriptor_info(b))))
            .collect();
        let writes: Vec<_> = infos
            .iter()
            .map(|(binding, kind, info)| {
                let w = vk::WriteDescriptorSet::default()
                    .dst_binding(*binding)
                    .descriptor_type(descriptor_type(*kind));
                match info {
                    DescriptorInfo::Buffer(b) => w.buffer_info(b),
                    DescriptorInfo::Image(i) => w.image_info(i),
                }
            })
            .collect();
        let shared = self.shared();
        // SAFETY: `cmd` is recording with a pipeline of `layout` bound; every write targets a binding
        // of the layout with its kind (checked above); the infos outlive the call; push sizes match
        // the layout's range (checked by validation in tests).
        unsafe {
            if !writes.is_empty() {
                shared.push_descriptor.cmd_push_descriptor_set(self.cmd, bind_point, layout.raw, 0, &writes);
            }
            if !push.is_empty() {
                shared.device.cmd_push_constants(self.cmd, layout.raw, layout_stages(bind_point), 0, push);
            }
        }
    }
}

/// One descriptor's contents.
enum DescriptorInfo {
    Buffer([vk::DescriptorBufferInfo; 1]),
    Image([vk::DescriptorImageInfo; 1]),
}

fn descriptor_info(b: &Binding<'_>) -> DescriptorInfo {
    match *b {
        Binding::Uniform(buf) | Binding::Storage(buf, _) => {
            DescriptorInfo::Buffer([vk::DescriptorBufferInfo::default()
                .buffer(buf.raw)
                .range(vk::WHOLE_SIZE)])
        }
        Binding::StorageImage(img, _) => DescriptorInfo::Image([vk::DescriptorImageInfo::default()
            .image_view(img.view)
            .image_layout(vk::ImageLayout::GENERAL)]),
        Binding::Sampled(img, sampler, access) => DescriptorInfo::Image([vk::DescriptorImageInfo::default()
            .image_view(img.view)
            .sampler(sampler)
            .image_layout(access.layout())]),
    }
}

/// What is wrong with a pass's bindings (`given`: each entry's kind and its own misuse, in binding
/// order) for the reflected `layout` of pipeline `name`, or `None`: every binding the shaders use
/// must be given, with the shaders' kind, and hold one descriptor; entries the shaders do not use
/// are allowed (one list may serve several pipelines).
pub(crate) fn mismatch(
    name: &str,
    layout: &[(ReflectedBinding, vk::ShaderStageFlags)],
    given: &[(BindingKind, Option<String>)],
) -> Option<String> {
    if let Some((i, (_, why))) = given.iter().enumerate().find(|(_, (_, why))| why.is_some()) {
        return Some(format!("{name}: binding {i}: {}", why.as_deref().unwrap_or_default()));
    }
    layout.iter().find_map(|(r, _)| {
        let Some((kind, _)) = given.get(r.binding as usize) else {
            return Some(format!(
                "{name}: binding {} ({} in the shader) is not given (the pass gives {} bindings)",
                r.binding,
                r.kind.describe(),
                given.len()
            ));
        };
        if *kind != r.kind {
            return Some(format!(
                "{name}: binding {} is {} in the pass, {} in the shader",
                r.binding,
                kind.describe(),
                r.kind.describe()
            ));
        }
        (r.count != 1).then(|| {
            format!(
                "{name}: binding {} is an array of {} in the shader; a pass binds one resource",
                r.binding, r.count
            )
        })
    })
}

fn layout_stages(bind_point: vk::PipelineBindPoint) -> vk::ShaderStageFlags {
    if bind_point == vk::PipelineBindPoint::COMPUTE {
        vk::ShaderStageFlags::COMPUTE
    } else {
        vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BindingKind::{SampledImage, StorageBuffer, StorageImage, UniformBuffer};

    fn layout(kinds: &[(u32, BindingKind)]) -> Vec<(ReflectedBinding, vk::ShaderStageFlags)> {
        kinds
            .iter()
            .map(|&(binding, kind)| {
                (ReflectedBinding { binding, kind, count: 1 }, vk::ShaderStageFlags::COMPUTE)
            })
            .collect()
    }

    fn given(kinds: &[BindingKind]) -> Vec<(BindingKind, Option<String>)> {
        kinds.iter().map(|&k| (k, None)).collect()
    }

    #[test]
    fn matching_bindings_pass_and_unused_ones_are_allowed() {
        let shader = layout(&[(0, UniformBuffer), (2, StorageImage)]);
        assert_eq!(mismatch("t", &shader, &given(&[UniformBuffer, SampledImage, StorageImage])), None);
    }

    #[test]
    fn a_wrong_kind_names_the_pass_the_binding_and_both_kinds() {
        let shader = layout(&[(0, UniformBuffer), (1, StorageBuffer)]);
        let msg = mismatch("fog.test", &shader, &given(&[UniformBuffer, StorageImage])).expect("mismatch");
        assert_eq!(msg, "fog.test: binding 1 is a storage image in the pass, a storage buffer in the shader");
    }

    #[test]
    fn a_missing_binding_and_an_array_are_reported() {
        let shader = layout(&[(0, StorageBuffer), (3, SampledImage)]);
        let msg = mismatch("t", &shader, &given(&[StorageBuffer])).expect("missing");
        assert!(msg.contains("binding 3 (a sampled image in the shader) is not given"), "{msg}");
        let mut arrayed = layout(&[(0, SampledImage)]);
        arrayed[0].0.count = 4;
        let msg = mismatch("t", &arrayed, &given(&[SampledImage])).expect("array");
        assert!(msg.contains("binding 0 is an array of 4"), "{msg}");
    }

    #[test]
    fn a_binding_misused_on_its_own_is_reported_first() {
        let shader = layout(&[(0, StorageImage)]);
        let msg =
            mismatch("t", &shader, &[(StorageImage, Some("storage image x is used as FragmentRead".into()))]);
        assert_eq!(msg.as_deref(), Some("t: binding 0: storage image x is used as FragmentRead"));
    }
}
