//! The host renderer's and the post passes' GPU structs: frame constants, lights, shadow views,
//! objects, draw, tone-mapping and glow push constants, and the proof pass's parameters.

use super::{GlslType, GpuField, GpuStruct};

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
    size = 48;
    /// One node of the opaque geometry's bounding-volume hierarchy (`host.opaque` casts rays
    /// through it): an inner node's children are `first` and `first + 1`; a leaf holds the
    /// triangles `first .. first + count`. (Indices kept out of float lanes: as float bits they
    /// are denormals, which a GPU may flush to zero.)
    pub struct GpuBvhNode {
        /// Box minimum (xyz), world m; w unused.
        pub lo: [f32; 4],
        /// Box maximum (xyz), world m; w unused.
        pub hi: [f32; 4],
        /// x: `first`; y: `count` (0 for an inner node); zw unused.
        pub first_count: [u32; 4],
    }
}

gpu_struct! {
    size = 96;
    /// One opaque triangle in world space, for `host.opaque`'s ray cast.
    pub struct GpuRayTriangle {
        /// Corner 0 (xyz), m; w: the object index (a whole number, exact below 2^24).
        pub p0: [f32; 4],
        /// Corner 1, m.
        pub p1: [f32; 4],
        /// Corner 2, m.
        pub p2: [f32; 4],
        /// Unit normal at corner 0 (world).
        pub n0: [f32; 4],
        /// Unit normal at corner 1.
        pub n1: [f32; 4],
        /// Unit normal at corner 2.
        pub n2: [f32; 4],
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
