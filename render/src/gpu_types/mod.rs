//! CPU<->GPU structs: one Rust home each (`#[repr(C)]`, `bytemuck::Pod`, a const size assert) and a
//! mirrored GLSL declaration in `src/shaders/gpu_types.glsl` (STYLE.md practice 5).
//!
//! [`gpu_struct!`] records each field's GLSL type and byte offset; the test
//! `glsl_mirrors_match_rust` parses the GLSL file, lays its structs out with the std430 rules, and
//! checks that names, types, offsets and sizes agree. `vec3` is not allowed in mirrored structs
//! (its 16-byte alignment is a classic mismatch); use `vec4` and ignore `w`.
//!
//! The structs live by feature (`host.rs`: frame, lights, draws, post passes; `fog.rs`: froxel fog,
//! bricks, march; `particles.rs`: the pool and its passes) and are re-exported here, so each has
//! one path, `crate::gpu_types::Name`.

/// One field of a mirrored struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuField {
    /// Field name (same in Rust and GLSL).
    pub name: &'static str,
    /// GLSL type name.
    pub glsl: &'static str,
    /// Byte offset in the Rust struct.
    pub offset: usize,
}

/// A struct with a GLSL mirror.
pub trait GpuStruct: bytemuck::Pod {
    /// Struct name (same in Rust and GLSL).
    const NAME: &'static str;
    /// Fields in declaration order.
    const FIELDS: &'static [GpuField];
}

/// Rust types that have a GLSL counterpart.
pub trait GlslType {
    /// The GLSL type name.
    const GLSL: &'static str;
}

macro_rules! glsl_type {
    ($($t:ty => $g:literal),* $(,)?) => { $(impl GlslType for $t { const GLSL: &'static str = $g; })* };
}

glsl_type! {
    u32 => "uint", i32 => "int", f32 => "float",
    [u32; 2] => "uvec2", [u32; 4] => "uvec4", [i32; 4] => "ivec4",
    [f32; 2] => "vec2", [f32; 4] => "vec4", [[f32; 4]; 4] => "mat4",
}

/// Declares a mirrored struct: `gpu_struct! { size = 16; /// doc ... pub struct Name { pub a: u32, ... } }`.
macro_rules! gpu_struct {
    (
        size = $size:expr;
        $(#[$meta:meta])*
        pub struct $name:ident { $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),* $(,)? }
    ) => {
        $(#[$meta])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name { $( $(#[$fmeta])* pub $field: $ty ),* }

        const _: () = assert!(std::mem::size_of::<$name>() == $size);

        impl GpuStruct for $name {
            const NAME: &'static str = stringify!($name);
            const FIELDS: &'static [GpuField] = &[
                $( GpuField {
                    name: stringify!($field),
                    glsl: <$ty as GlslType>::GLSL,
                    offset: std::mem::offset_of!($name, $field),
                } ),*
            ];
        }
    };
}

mod fog;
mod host;
mod particles;

pub use fog::{BrickUniform, FogMarchPush, FogUniform, GpuFogSource, GpuFogVolume};
pub use host::{
    DrawPush, FillParams, FrameUniform, GlowPush, GpuBvhNode, GpuLight, GpuObject, GpuRayTriangle,
    ShadowView, TonemapBloom, TonemapPush,
};
pub use particles::{
    BatchPush, BillboardPush, CarrierPush, GpuBurst, GpuCarrier, GpuDrawIndirect, GpuEmitter, GpuParticle,
    GpuParticleCounters, GpuParticleTemplate, ParticleCullPush, ParticleSimPush, ParticleSortPush,
    RibbonPush, SortArgsPush,
};

/// Every mirrored struct, for the mirror test: (name, fields, size).
pub fn all() -> Vec<(&'static str, &'static [GpuField], usize)> {
    fn entry<T: GpuStruct>() -> (&'static str, &'static [GpuField], usize) {
        (T::NAME, T::FIELDS, std::mem::size_of::<T>())
    }
    vec![
        entry::<FillParams>(),
        entry::<FrameUniform>(),
        entry::<GpuLight>(),
        entry::<ShadowView>(),
        entry::<GpuObject>(),
        entry::<DrawPush>(),
        entry::<GpuBvhNode>(),
        entry::<GpuRayTriangle>(),
        entry::<TonemapPush>(),
        entry::<FogUniform>(),
        entry::<GpuFogVolume>(),
        entry::<GpuParticle>(),
        entry::<GpuParticleTemplate>(),
        entry::<GpuEmitter>(),
        entry::<GpuBurst>(),
        entry::<GpuParticleCounters>(),
        entry::<GpuCarrier>(),
        entry::<CarrierPush>(),
        entry::<ParticleSimPush>(),
        entry::<GpuDrawIndirect>(),
        entry::<ParticleCullPush>(),
        entry::<BillboardPush>(),
        entry::<ParticleSortPush>(),
        entry::<RibbonPush>(),
        entry::<SortArgsPush>(),
        entry::<BatchPush>(),
        entry::<GlowPush>(),
        entry::<TonemapBloom>(),
        entry::<BrickUniform>(),
        entry::<GpuFogSource>(),
        entry::<FogMarchPush>(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (size, alignment) of a GLSL type under std430.
    fn std430(glsl: &str) -> Option<(usize, usize)> {
        Some(match glsl {
            "uint" | "int" | "float" => (4, 4),
            "uvec2" | "ivec2" | "vec2" => (8, 8),
            "uvec4" | "ivec4" | "vec4" => (16, 16),
            "mat4" => (64, 16),
            _ => return None,
        })
    }

    /// Parses `struct Name { type field; ... };` declarations: (name, [(type, field)]).
    fn parse_structs(src: &str) -> Vec<(String, Vec<(String, String)>)> {
        let code: String =
            src.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
        let mut out = Vec::new();
        let mut rest = code.as_str();
        while let Some(at) = rest.find("struct ") {
            rest = &rest[at + "struct ".len()..];
            let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) else { break };
            let name = rest[..open].trim().to_owned();
            let fields = rest[open + 1..close]
                .split(';')
                .filter_map(|decl| {
                    let mut words = decl.split_whitespace();
                    Some((words.next()?.to_owned(), words.next()?.to_owned()))
                })
                .collect();
            out.push((name, fields));
            rest = &rest[close..];
        }
        out
    }

    #[test]
    fn glsl_mirrors_match_rust() {
        let src = include_str!("../shaders/gpu_types.glsl");
        let glsl = parse_structs(src);
        for (name, fields, size) in all() {
            let (_, decl) = glsl
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("{name} has no GLSL mirror in gpu_types.glsl"));
            assert_eq!(decl.len(), fields.len(), "{name}: field count differs");
            let mut offset = 0usize;
            let mut max_align = 4usize;
            for ((ty, field), rust) in decl.iter().zip(fields) {
                let (fsize, align) =
                    std430(ty).unwrap_or_else(|| panic!("{name}.{field}: GLSL type {ty} not allowed"));
                offset = offset.next_multiple_of(align);
                max_align = max_align.max(align);
                assert_eq!(field, rust.name, "{name}: field order/name differs");
                assert_eq!(ty, rust.glsl, "{name}.{field}: GLSL {ty} vs Rust {}", rust.glsl);
                assert_eq!(
                    offset, rust.offset,
                    "{name}.{field}: std430 offset {offset} vs Rust {}",
                    rust.offset
                );
                offset += fsize;
            }
            assert_eq!(offset.next_multiple_of(max_align), size, "{name}: size differs");
        }
    }

    #[test]
    fn mirror_test_catches_a_mismatch() {
        let wrong = "struct FillParams { uint count; uint seed; float multiplier; uint pad0; };";
        let parsed = parse_structs(wrong);
        let rust = FillParams::FIELDS;
        assert_ne!(parsed[0].1[2].0, rust[2].glsl, "a changed type must be visible to the check");
    }
}
