//! A small SPIR-V reflector: the descriptor bindings a shader module uses (set, binding, kind,
//! array size), read from the words glslc wrote, so that pipeline layouts follow the shaders and a
//! pass's bindings can be checked against them.
//!
//! It reads only what a push-descriptor layout needs (SPIR-V 1.6 specification, sections 2.3 and
//! 3.32): `OpDecorate` (`DescriptorSet`, `Binding`, `Block`, `BufferBlock`), `OpVariable` in the
//! `Uniform`, `StorageBuffer` and `UniformConstant` storage classes, `OpTypePointer`,
//! `OpTypeStruct`, `OpTypeImage` (`Sampled` = 2: a storage image), `OpTypeSampledImage`,
//! `OpTypeArray` (with its `OpConstant` length) and `OpTypeRuntimeArray`. glslc's optimiser drops
//! variables a shader never uses, so a module lists only the bindings it reads or writes.

use std::collections::HashMap;

use crate::error::{RenderError, Result};

/// The kind of resource at one binding of set 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// Words for messages: "a storage buffer", ...
    pub fn describe(self) -> &'static str {
        match self {
            BindingKind::StorageBuffer => "a storage buffer",
            BindingKind::UniformBuffer => "a uniform buffer",
            BindingKind::StorageImage => "a storage image",
            BindingKind::SampledImage => "a sampled image",
        }
    }
}

/// One descriptor binding a shader module uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReflectedBinding {
    /// Binding number in set 0.
    pub binding: u32,
    /// Its kind.
    pub kind: BindingKind,
    /// Descriptors at the binding (1 unless the GLSL declares an array; 0 for a runtime array).
    pub count: u32,
}

const MAGIC: u32 = 0x0723_0203;
const HEADER_WORDS: usize = 5;

mod op {
    pub const TYPE_IMAGE: u16 = 25;
    pub const TYPE_SAMPLED_IMAGE: u16 = 27;
    pub const TYPE_ARRAY: u16 = 28;
    pub const TYPE_RUNTIME_ARRAY: u16 = 29;
    pub const TYPE_STRUCT: u16 = 30;
    pub const TYPE_POINTER: u16 = 32;
    pub const CONSTANT: u16 = 43;
    pub const VARIABLE: u16 = 59;
    pub const DECORATE: u16 = 71;
}

mod decoration {
    pub const BLOCK: u32 = 2;
    pub const BUFFER_BLOCK: u32 = 3;
    pub const BINDING: u32 = 33;
    pub const DESCRIPTOR_SET: u32 = 34;
}

mod storage_class {
    pub const UNIFORM_CONSTANT: u32 = 0;
    pub const UNIFORM: u32 = 2;
    pub const STORAGE_BUFFER: u32 = 12;
}

/// The types, constants, decorations and resource variables of a module, by result id.
#[derive(Default)]
struct Module {
    /// Result id -> (opcode, operands after the result id).
    types: HashMap<u32, (u16, Vec<u32>)>,
    /// `OpConstant` result id -> its first value word.
    constants: HashMap<u32, u32>,
    /// Target id -> (decoration, first literal or 0).
    decorations: HashMap<u32, Vec<(u32, u32)>>,
    /// (result id, pointer type id, storage class) of every `OpVariable`.
    variables: Vec<(u32, u32, u32)>,
}

impl Module {
    fn decoration(&self, id: u32, which: u32) -> Option<u32> {
        self.decorations.get(&id)?.iter().find(|(d, _)| *d == which).map(|&(_, v)| v)
    }
}

/// The descriptor bindings `spirv` (little-endian words, as embedded by build.rs) uses, sorted by
/// binding number; `name` is for messages. Malformed SPIR-V, a set other than 0 or a resource
/// kind push descriptors are not made for here (separate samplers and images, ...) are errors.
pub fn bindings(name: &str, spirv: &[u8]) -> Result<Vec<ReflectedBinding>> {
    let fail = |what: &str| RenderError::Unsupported(format!("SPIR-V of {name}: {what}"));
    let module = parse(spirv).map_err(|e| fail(&e))?;
    let mut out = Vec::new();
    for &(id, pointer, class) in &module.variables {
        let Some(binding) = module.decoration(id, decoration::BINDING) else { continue };
        let set = module.decoration(id, decoration::DESCRIPTOR_SET).unwrap_or(0);
        if set != 0 {
            return Err(fail(&format!("binding {binding} is in set {set}; only set 0 is used")));
        }
        let pointee = match module.types.get(&pointer) {
            Some((op::TYPE_POINTER, operands)) if operands.len() == 2 => operands[1],
            _ => return Err(fail(&format!("binding {binding} is not a pointer variable"))),
        };
        let (ty, count) = unwrap_array(&module, pointee);
        let kind = kind_of(&module, class, ty)
            .ok_or_else(|| fail(&format!("binding {binding} is of a kind push descriptors do not cover")))?;
        out.push(ReflectedBinding { binding, kind, count });
    }
    out.sort_by_key(|b| b.binding);
    if let Some(w) = out.windows(2).find(|w| w[0].binding == w[1].binding) {
        return Err(fail(&format!("binding {} is declared twice", w[0].binding)));
    }
    Ok(out)
}

/// The element type and descriptor count of `ty` (1 when it is not an array).
fn unwrap_array(module: &Module, ty: u32) -> (u32, u32) {
    match module.types.get(&ty) {
        Some((op::TYPE_ARRAY, operands)) if operands.len() == 2 => {
            (operands[0], module.constants.get(&operands[1]).copied().unwrap_or(0))
        }
        Some((op::TYPE_RUNTIME_ARRAY, operands)) if !operands.is_empty() => (operands[0], 0),
        _ => (ty, 1),
    }
}

/// The kind of a resource of type `ty` in storage class `class`.
fn kind_of(module: &Module, class: u32, ty: u32) -> Option<BindingKind> {
    let (opcode, operands) = module.types.get(&ty)?;
    match (class, *opcode) {
        (storage_class::STORAGE_BUFFER, op::TYPE_STRUCT) => Some(BindingKind::StorageBuffer),
        (storage_class::UNIFORM, op::TYPE_STRUCT) => {
            if module.decoration(ty, decoration::BUFFER_BLOCK).is_some() {
                Some(BindingKind::StorageBuffer)
            } else if module.decoration(ty, decoration::BLOCK).is_some() {
                Some(BindingKind::UniformBuffer)
            } else {
                None
            }
        }
        (storage_class::UNIFORM_CONSTANT, op::TYPE_SAMPLED_IMAGE) => Some(BindingKind::SampledImage),
        // OpTypeImage operands: sampled type, dim, depth, arrayed, MS, sampled (2: storage), format.
        (storage_class::UNIFORM_CONSTANT, op::TYPE_IMAGE) if operands.get(5) == Some(&2) => {
            Some(BindingKind::StorageImage)
        }
        _ => None,
    }
}

/// Reads the instructions of `spirv` that [`bindings`] needs.
fn parse(spirv: &[u8]) -> std::result::Result<Module, String> {
    if !spirv.len().is_multiple_of(4) || spirv.len() < HEADER_WORDS * 4 {
        return Err(format!("{} bytes is not a SPIR-V module", spirv.len()));
    }
    let words: Vec<u32> =
        spirv.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if words[0] != MAGIC {
        return Err(format!("magic number {:#010x} (not little-endian SPIR-V)", words[0]));
    }
    let mut module = Module::default();
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = (words[at] & 0xffff) as u16;
        if count == 0 || at + count > words.len() {
            return Err(format!("instruction at word {at} has a bad length {count}"));
        }
        record(&mut module, opcode, &words[at + 1..at + count]);
        at += count;
    }
    Ok(module)
}

/// Records one instruction (its operands after the opcode word) if [`bindings`] needs it.
fn record(module: &mut Module, opcode: u16, operands: &[u32]) {
    match (opcode, operands) {
        (op::DECORATE, [target, which, rest @ ..]) => {
            module.decorations.entry(*target).or_default().push((*which, rest.first().copied().unwrap_or(0)));
        }
        (op::VARIABLE, [ty, id, class, ..]) => module.variables.push((*id, *ty, *class)),
        (op::CONSTANT, [_, id, value, ..]) => {
            module.constants.insert(*id, *value);
        }
        (
            op::TYPE_IMAGE
            | op::TYPE_SAMPLED_IMAGE
            | op::TYPE_ARRAY
            | op::TYPE_RUNTIME_ARRAY
            | op::TYPE_STRUCT
            | op::TYPE_POINTER,
            [id, rest @ ..],
        ) => {
            module.types.insert(*id, (opcode, rest.to_vec()));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shaders;
    use BindingKind::{
        SampledImage as Sampled, StorageBuffer as Storage, StorageImage as Image, UniformBuffer as Uniform,
    };

    fn kinds(spirv: &[u8]) -> Vec<(u32, BindingKind)> {
        let got = bindings("test", spirv).expect("reflects");
        assert!(got.iter().all(|b| b.count == 1), "no arrays: {got:?}");
        got.iter().map(|b| (b.binding, b.kind)).collect()
    }

    /// `fog_apply/apply.comp`, read from the GLSL by hand: `lighting.glsl`'s frame uniform (0),
    /// lights (2), shadow views (3), shadow atlas (4) and projector textures (5) (it declares no
    /// objects, 1), the `Fog` uniform block (6, `FOG_UNIFORM_BINDING`), `fog_media.glsl`'s volumes
    /// (7), `sampler3D integrated` (8), `sampler2D depth_tex` (9), `image2D hdr` (10).
    #[test]
    fn the_fog_apply_shader_reflects_as_written() {
        let got = kinds(shaders::PASSES_FOG_APPLY_APPLY_COMP);
        let want = [
            (0, Uniform),
            (2, Storage),
            (3, Storage),
            (4, Sampled),
            (5, Sampled),
            (6, Uniform),
            (7, Storage),
            (8, Sampled),
            (9, Sampled),
            (10, Image),
        ];
        assert_eq!(got, want);
    }

    /// `froxel_temporal/temporal.comp`: the frame and fog uniforms (0, 1), this frame's media as a
    /// storage image (2), the history sampled (3), the blended history written (4).
    #[test]
    fn the_froxel_temporal_shader_reflects_as_written() {
        let got = kinds(shaders::PASSES_FROXEL_TEMPORAL_TEMPORAL_COMP);
        assert_eq!(got, [(0, Uniform), (1, Uniform), (2, Image), (3, Sampled), (4, Image)]);
    }

    /// `particle_sim/emit.comp` declares eight storage buffers but never touches the second alive
    /// list (3): the optimiser drops it, so the module lists seven.
    #[test]
    fn unused_bindings_are_not_listed() {
        let got = kinds(shaders::PASSES_PARTICLE_SIM_EMIT_COMP);
        let expected = [
            (0, Storage),
            (1, Storage),
            (2, Storage),
            (4, Storage),
            (5, Storage),
            (6, Storage),
            (7, Storage),
        ];
        assert_eq!(got, expected);
    }

    #[test]
    fn malformed_modules_are_errors_not_panics() {
        let err = |bytes: &[u8]| bindings("test.bad", bytes).expect_err("rejected").to_string();
        assert!(err(&[1, 2, 3]).contains("test.bad"));
        assert!(err(&[0; 20]).contains("magic"));
        let mut truncated = shaders::PASSES_FILL_FILL_COMP.to_vec();
        truncated.truncate(HEADER_WORDS * 4 + 4);
        assert!(err(&truncated).contains("bad length"));
    }
}
