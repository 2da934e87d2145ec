//! What a pass binds, declared once: each [`Binding`] carries the resource, its kind and how the
//! pass touches it. The recorder derives from one list both the barriers ([`uses`]) and the push
//! descriptor writes ([`crate::vk::pipeline`]), and checks the list against the bindings reflected
//! from the pipeline's shaders ([`crate::vk::reflect`]).
//!
//! The list is in binding order: entry `i` is binding `i` of set 0. An entry the pipeline's shaders
//! do not use is not written (one list may serve several pipelines of a pass, e.g. the brick passes
//! or `particles.emit` / `particles.update`) but still declares its use, so barriers are those the
//! pass states, not only those its shaders happen to keep.

use ash::vk;

use super::recorder::{Access, Use};
use super::reflect::BindingKind;
use super::resource::{Buffer, Image};

/// One resource bound at one binding of a pass.
#[derive(Clone, Copy)]
pub enum Binding<'r> {
    /// A uniform buffer (std140): host-visible and written between submissions (the submission
    /// makes host writes visible, so it needs no barrier), or staged (written in the command stream
    /// and read as [`Access::UniformRead`]).
    Uniform(&'r Buffer),
    /// A storage buffer (std430), read or written as `Access` says.
    Storage(&'r Buffer, Access),
    /// A storage image, in GENERAL layout (`Access::ComputeRead` or `Access::ComputeWrite`).
    StorageImage(&'r Image, Access),
    /// A sampled image with its sampler, in the layout `Access` needs (`ComputeSampled`,
    /// `FragmentRead`: SHADER_READ_ONLY; `DepthRead`: DEPTH_READ_ONLY).
    Sampled(&'r Image, vk::Sampler, Access),
}

impl<'r> Binding<'r> {
    /// The descriptor kind it is bound as.
    pub fn kind(&self) -> BindingKind {
        match self {
            Binding::Uniform(_) => BindingKind::UniformBuffer,
            Binding::Storage(..) => BindingKind::StorageBuffer,
            Binding::StorageImage(..) => BindingKind::StorageImage,
            Binding::Sampled(..) => BindingKind::SampledImage,
        }
    }

    /// The barrier use it declares (none for a host-visible uniform).
    pub fn use_of(&self) -> Option<Use<'r>> {
        match *self {
            Binding::Uniform(buf) if buf.is_staged() => Some(Use::Buffer(buf, Access::UniformRead)),
            Binding::Uniform(_) => None,
            Binding::Storage(buf, access) => Some(Use::Buffer(buf, access)),
            Binding::StorageImage(img, access) | Binding::Sampled(img, _, access) => {
                Some(Use::Image(img, access))
            }
        }
    }

    /// Whatever is wrong with it on its own (a device-written uniform, a storage image outside
    /// GENERAL layout, a sampled image in a writable or non-shader-read layout), for the bug message.
    pub(crate) fn misuse(&self) -> Option<String> {
        match *self {
            Binding::Uniform(buf) if !buf.is_host_visible() && !buf.is_staged() => Some(format!(
                "uniform {} is neither host-written nor staged, so it would need a barrier",
                buf.name
            )),
            Binding::StorageImage(img, access) if access.layout() != vk::ImageLayout::GENERAL => Some(
                format!("storage image {} is used as {access:?}, which is not in GENERAL layout", img.name),
            ),
            Binding::Sampled(img, _, access)
                if !matches!(access, Access::ComputeSampled | Access::FragmentRead | Access::DepthRead) =>
            {
                Some(format!("sampled image {} is used as {access:?}, not a shader read", img.name))
            }
            _ => None,
        }
    }
}

/// The barrier uses of `bindings`, then `extra` (what the pass touches that is no descriptor:
/// attachments, indirect arguments, copies).
pub fn uses<'r>(bindings: &[Binding<'r>], extra: &[Use<'r>]) -> Vec<Use<'r>> {
    bindings.iter().filter_map(Binding::use_of).chain(extra.iter().copied()).collect()
}
