//! CPU<->GPU structs: one Rust home each (`#[repr(C)]`, `bytemuck::Pod`, a const size assert) and a
//! mirrored GLSL declaration in `src/shaders/gpu_types.glsl` (STYLE.md practice 5).
//!
//! [`gpu_struct!`] records each field's GLSL type and byte offset; the test
//! `glsl_mirrors_match_rust` parses the GLSL file, lays its structs out with the std430 rules, and
//! checks that names, types, offsets and sizes agree. `vec3` is not allowed in mirrored structs
//! (its 16-byte alignment is a classic mismatch); use `vec4` and ignore `w`.

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

gpu_struct! {
    size = 16;
    /// Push constants of `gpu.fill`.
    pub struct FillParams {
        /// Number of values to write.
        pub count: u32,
        /// XOR-ed into every value.
        pub seed: u32,
        /// Multiplies the index.
        pub multiplier: u32,
        /// Padding to 16 bytes.
        pub pad0: u32,
    }
}

gpu_struct! {
    size = 256;
    /// Per-frame constants (see `gpu_types.glsl` for each field's meaning and unit).
    pub struct FrameUniform {
        /// World to clip (Vulkan clip space, y down, depth 0..1).
        pub clip_from_world: [[f32; 4]; 4],
        /// Clip to world.
        pub world_from_clip: [[f32; 4]; 4],
        /// Camera position (m); w = exposure multiplier.
        pub camera_pos: [f32; 4],
        /// Unit vector toward the sun; w = illuminance.
        pub sun_dir: [f32; 4],
        /// Sun colour; w = 1 when the sun casts shadows.
        pub sun_color: [f32; 4],
        /// Ambient radiance from the sky.
        pub ambient_sky: [f32; 4],
        /// Ambient radiance from the ground.
        pub ambient_ground: [f32; 4],
        /// View distance (m) at the far end of each cascade.
        pub cascade_far: [f32; 4],
        /// Width, height, 1/width, 1/height.
        pub screen: [f32; 4],
        /// Lights, cascades, frame index, shadow atlas size.
        pub counts: [u32; 4],
    }
}

gpu_struct! {
    size = 96;
    /// One local light (point, spot or projector).
    pub struct GpuLight {
        /// Position (m); w = range (m).
        pub position_range: [f32; 4],
        /// Colour; w = intensity.
        pub color_intensity: [f32; 4],
        /// Direction; w = cos(outer half-angle).
        pub direction_cos_outer: [f32; 4],
        /// Projector up; w = cos(inner half-angle).
        pub up_cos_inner: [f32; 4],
        /// Kind, first shadow layer, projector texture layer, flags.
        pub kind_shadow: [u32; 4],
        /// tan(half fov), focus, near plane (m), unused.
        pub projector: [f32; 4],
    }
}

gpu_struct! {
    size = 80;
    /// One layer of the shadow atlas.
    pub struct ShadowView {
        /// World to the layer's clip space.
        pub clip_from_world: [[f32; 4]; 4],
        /// Texel size, normal-offset scale, is-ortho, unused.
        pub params: [f32; 4],
    }
}

gpu_struct! {
    size = 160;
    /// One opaque object.
    pub struct GpuObject {
        /// Local to world.
        pub world_from_local: [[f32; 4]; 4],
        /// Inverse transpose of `world_from_local`.
        pub normal_from_local: [[f32; 4]; 4],
        /// Albedo.
        pub albedo: [f32; 4],
        /// Emitted radiance.
        pub emissive: [f32; 4],
    }
}

gpu_struct! {
    size = 16;
    /// Per-draw push constants of the geometry passes.
    pub struct DrawPush {
        /// Object index.
        pub object: u32,
        /// Shadow atlas layer (shadow pass).
        pub view: u32,
        /// Padding.
        pub pad0: u32,
        /// Padding.
        pub pad1: u32,
    }
}

gpu_struct! {
    size = 16;
    /// Push constants of `host.tonemap`.
    pub struct TonemapPush {
        /// Exposure multiplier applied before the curve.
        pub exposure: f32,
        /// Output width.
        pub width: u32,
        /// Output height.
        pub height: u32,
        /// Padding.
        pub pad0: u32,
    }
}

gpu_struct! {
    size = 192;
    /// Froxel fog constants (see `gpu_types.glsl`).
    pub struct FogUniform {
        /// Last frame's world to clip.
        pub prev_clip_from_world: [[f32; 4]; 4],
        /// Camera forward; w = tan(fov_y / 2).
        pub forward_tan: [f32; 4],
        /// Camera right; w = aspect.
        pub right_aspect: [f32; 4],
        /// Camera up.
        pub up: [f32; 4],
        /// Froxels along x, y, z; w = frame index of the jitter sequences (wraps at 4096).
        pub grid: [f32; 4],
        /// Near, far, ln(far / near), history weight.
        pub slices: [f32; 4],
        /// Density, falloff, base height, anisotropy.
        pub height_fog: [f32; 4],
        /// Height-fog albedo; w = fog volume count.
        pub fog_albedo: [f32; 4],
        /// Camera near and far planes.
        pub camera_planes: [f32; 4],
    }
}

gpu_struct! {
    size = 48;
    /// A local fog volume.
    pub struct GpuFogVolume {
        /// Centre; w = kind (0 box, 1 sphere).
        pub center_kind: [f32; 4],
        /// Half extents or radius; w = extinction.
        pub extent_density: [f32; 4],
        /// Albedo.
        pub albedo: [f32; 4],
    }
}

gpu_struct! {
    size = 128;
    /// One particle of the GPU pool (`particles.pool`); template constants stay in its emitter.
    pub struct GpuParticle {
        /// Position (m, region); w = age (s).
        pub pos_age: [f32; 4],
        /// Velocity (m/s); w = lifetime (s).
        pub vel_max_age: [f32; 4],
        /// FOLLOW_SRC offset from the source (m); w = glow (quantised to 1/255).
        pub offset_glow: [f32; 4],
        /// Current colour, RGBA 0..1.
        pub color: [f32; 4],
        /// Current size (m): x width, y height; zw unused.
        pub scale: [f32; 4],
        /// x source id (emitter slot), y emission serial, z particle flags, w blend (src | dst << 8).
        pub ids: [u32; 4],
        /// Ribbon axis (unit, region axes; zero for a ribbon's unlinked first particle and for
        /// non-ribbons); w unused.
        pub axis: [f32; 4],
        /// Ribbon links: x the serial of the first particle of its ribbon, y 1 from emission until
        /// `particles.ribbons` resolves its link at birth, zw unused.
        pub ribbon: [u32; 4],
    }
}

gpu_struct! {
    size = 144;
    /// Per-source constants of the GPU simulation (`particles.emitters`, indexed by source id).
    pub struct GpuEmitter {
        /// Source position (m); w = minimum burst speed (m/s).
        pub position_speed_min: [f32; 4],
        /// Target position (m, the source when there is none); w = maximum burst speed (m/s).
        pub target_speed_max: [f32; 4],
        /// Particle acceleration (m/s^2); w = particle lifetime (s).
        pub accel_max_age: [f32; 4],
        /// Template start colour.
        pub start_color: [f32; 4],
        /// Template end colour.
        pub end_color: [f32; 4],
        /// Start size xy, end size zw (m).
        pub scales: [f32; 4],
        /// x inner angle, y outer angle (rad), z start glow, w end glow.
        pub angles_glow: [f32; 4],
        /// x pattern kind (0 drop, 1 explode, 2 angle, 3 cone), y particle flags (HUD included),
        /// z system flags, w blend (src | dst << 8).
        pub params: [u32; 4],
        /// The source object's local +Z in region axes (`Q * (0, 0, 1)`); w = 1 while the source
        /// object exists, 0 once it was removed (its newest ribbon segment then collapses).
        pub axis: [f32; 4],
    }
}

gpu_struct! {
    size = 64;
    /// One burst of this frame (`particles.bursts`): candidates `first..first + count`.
    pub struct GpuBurst {
        /// The combined rotation `R * Q` (omega rotation after the object rotation), xyzw.
        pub rotation: [f32; 4],
        /// x source id, y first serial, z candidate count, w index of its first candidate.
        pub ids: [u32; 4],
        /// x radius of the burst's first candidate (m), y of the others (m), z the least drop
        /// probability of each candidate (distance throttling), w unused.
        pub radius: [f32; 4],
        /// x the source's random stream (its number in order of addition, as the reference
        /// numbers sources; slots are reused, streams are not), yzw unused.
        pub stream: [u32; 4],
    }
}

gpu_struct! {
    size = 32;
    /// Atomic counters of the GPU simulation (`particles.counters`); the last four are totals
    /// since the pool was created.
    pub struct GpuParticleCounters {
        /// Entries in alive list 0.
        pub alive0: u32,
        /// Entries in alive list 1.
        pub alive1: u32,
        /// Entries in the dead list.
        pub dead: u32,
        /// Particles created.
        pub emitted: u32,
        /// Candidates refused because the pool was full.
        pub refused: u32,
        /// Candidates or particles discarded for a position beyond 1e6 m or non-finite.
        pub discarded: u32,
        /// Particles that died of age.
        pub died: u32,
        /// Candidates dropped by the burst share or distance throttling.
        pub dropped: u32,
    }
}

gpu_struct! {
    size = 64;
    /// Push constants of `particles.emit` and `particles.update`.
    pub struct ParticleSimPush {
        /// x current alive list (0/1), y candidates this frame, z bursts this frame, w capacity.
        pub counts: [u32; 4],
        /// Region wind (m/s); w = the clamped step (s).
        pub wind_dt: [f32; 4],
        /// x seed low word, y seed high word, zw unused.
        pub seed: [u32; 4],
        /// x the burst share (1 without a budget), yzw unused.
        pub budget: [f32; 4],
    }
}

gpu_struct! {
    size = 16;
    /// `VkDrawIndirectCommand` (`particles.draw_args`): one billboard instance per visible particle.
    pub struct GpuDrawIndirect {
        /// Vertices per instance (6: two triangles).
        pub vertex_count: u32,
        /// Visible particles.
        pub instance_count: u32,
        /// First vertex (0).
        pub first_vertex: u32,
        /// First instance (0).
        pub first_instance: u32,
    }
}

gpu_struct! {
    size = 112;
    /// Push constants of `particles.cull`.
    pub struct ParticleCullPush {
        /// Frustum plane 0 (world space, normal inside: a sphere is visible where
        /// `dot(n, p) + w >= -r` for every plane); planes 0..5 are left, right, bottom, top,
        /// near, far.
        pub plane0: [f32; 4],
        /// Frustum plane 1.
        pub plane1: [f32; 4],
        /// Frustum plane 2.
        pub plane2: [f32; 4],
        /// Frustum plane 3.
        pub plane3: [f32; 4],
        /// Frustum plane 4.
        pub plane4: [f32; 4],
        /// Frustum plane 5.
        pub plane5: [f32; 4],
        /// x alive list to read (0/1), y mode (0 reset, 1 cull), z capacity, w unused.
        pub counts: [u32; 4],
    }
}

gpu_struct! {
    size = 48;
    /// Push constants of `particles.billboards` (and its depth copy).
    pub struct BillboardPush {
        /// Camera forward axis (unit, world); w = soft-particle fade distance (m, 0 = off).
        pub forward_soft: [f32; 4],
        /// x camera near plane (m), y far plane (m), z 1 when froxel fog is looked up, w unused.
        pub planes: [f32; 4],
        /// x blend pair drawn (source | dest << 8), y 1 = custom blend (no alpha discard),
        /// z 1 = additive (dest ONE: no fog in-scatter added), w unused.
        pub blend: [u32; 4],
    }
}

gpu_struct! {
    size = 16;
    /// Push constants of `particles.batch`.
    pub struct BatchPush {
        /// x mode (0 reset, 1 starts, 2 commands), y most starts recorded, z pipelines (pairs),
        /// w unused.
        pub params: [u32; 4],
    }
}

gpu_struct! {
    size = 32;
    /// Push constants of `particles.ribbons` (keys, bitonic steps, links).
    pub struct RibbonPush {
        /// x mode (0 keys, 1 bitonic step, 2 link at birth, 3 parents), y step distance j,
        /// z block size k, w padded length (a power of two).
        pub params: [u32; 4],
        /// x the alive list holding the particles (0/1), yzw unused.
        pub lists: [u32; 4],
    }
}

gpu_struct! {
    size = 48;
    /// Push constants of `particles.sort` (keys, bitonic steps, write-back).
    pub struct ParticleSortPush {
        /// Camera position (m, world); w unused.
        pub camera: [f32; 4],
        /// Camera forward axis (unit); w unused.
        pub forward: [f32; 4],
        /// x mode (0 keys, 1 bitonic step, 2 write back), y step distance j, z block size k,
        /// w padded length (a power of two).
        pub params: [u32; 4],
    }
}

gpu_struct! {
    size = 48;
    /// Push constants of `host.glow`'s extract and blur passes.
    pub struct GlowPush {
        /// x, y output size (pixels); z, w input size (pixels).
        pub extent: [u32; 4],
        /// x, y one step along the blurred axis ((1, 0) or (0, 1)); z radius (taps each side); w unused.
        pub step_radius: [i32; 4],
        /// x Gaussian sigma (half-resolution pixels); yzw unused.
        pub sigma: [f32; 4],
    }
}

gpu_struct! {
    size = 16;
    /// `host.tonemap`'s bloom term, pushed after its [`TonemapPush`].
    pub struct TonemapBloom {
        /// Bloom strength added to the HDR radiance before exposure (0 = no bloom, not sampled).
        pub strength: f32,
        /// Padding.
        pub pad0: u32,
        /// Padding.
        pub pad1: u32,
        /// Padding.
        pub pad2: u32,
    }
}

gpu_struct! {
    size = 192;
    /// Constants of the particle-fog brick passes and the march (`fog.bricks.constants`).
    pub struct BrickUniform {
        /// Level 0's clip-window origin, in bricks of that level (xyz); w unused.
        pub origin0: [i32; 4],
        /// Level 1's clip-window origin.
        pub origin1: [i32; 4],
        /// Level 2's clip-window origin.
        pub origin2: [i32; 4],
        /// Level 3's clip-window origin.
        pub origin3: [i32; 4],
        /// Level 4's clip-window origin.
        pub origin4: [i32; 4],
        /// Level 5's clip-window origin.
        pub origin5: [i32; 4],
        /// Level 6's clip-window origin.
        pub origin6: [i32; 4],
        /// Level 7's clip-window origin.
        pub origin7: [i32; 4],
        /// Camera position (m); w = level-0 voxel edge (m).
        pub camera_voxel: [f32; 4],
        /// x slot capacity, y frame number, z atlas bricks per row, w atlas bricks per layer.
        pub counts: [u32; 4],
        /// x alive list holding this frame's particles (0 or 1), y 1 under pressure (keep only last
        /// frame's bricks), z request-list capacity (the used list follows it), w unused.
        pub params: [u32; 4],
        /// Unused (reserved for the march).
        pub reserved: [u32; 4],
    }
}

gpu_struct! {
    size = 32;
    /// Per-source particle-fog inputs (`particles.fog_sources`, indexed by source id).
    pub struct GpuFogSource {
        /// x blend weight w (0 billboard .. 1 fog), y texture mean alpha, z Density x Strength,
        /// w unused.
        pub weight_mass: [f32; 4],
        /// Texture mean colour (linear rgb); w unused.
        pub tint: [f32; 4],
    }
}

gpu_struct! {
    size = 32;
    /// Push constants of `fog.brick_march`.
    pub struct FogMarchPush {
        /// x `RenderVKParticleFogBillow`, y `...BillowScale` (m), z `...BillowSpeed` (m/s), w time (s).
        pub billow: [f32; 4],
        /// x 1 when the froxel fog is on, y `RenderVKParticleFogDebug`, zw unused.
        pub params: [f32; 4],
    }
}

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
        entry::<TonemapPush>(),
        entry::<FogUniform>(),
        entry::<GpuFogVolume>(),
        entry::<GpuParticle>(),
        entry::<GpuEmitter>(),
        entry::<GpuBurst>(),
        entry::<GpuParticleCounters>(),
        entry::<ParticleSimPush>(),
        entry::<GpuDrawIndirect>(),
        entry::<ParticleCullPush>(),
        entry::<BillboardPush>(),
        entry::<ParticleSortPush>(),
        entry::<RibbonPush>(),
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
        let src = include_str!("shaders/gpu_types.glsl");
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
