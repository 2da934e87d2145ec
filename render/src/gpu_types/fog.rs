//! The fog's GPU structs: the froxel fog's constants and volumes, the brick pool's constants, each
//! source's particle-fog inputs and the march's push constants.

use super::{GlslType, GpuField, GpuStruct};

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
        /// w how far the light is eased toward the billboards'
        /// (`particle_fog::systems::billboard_match` of the system's distance).
        pub weight_mass: [f32; 4],
        /// Texture mean colour (linear rgb); w 1 when rgb is instead the debug view's hue for
        /// the source (`RenderVKParticleFogDebug` 1 or 3), which replaces the particle's colour.
        pub tint: [f32; 4],
    }
}

gpu_struct! {
    size = 48;
    /// Push constants of `fog.carrier_light`, `fog.brick_light` and `fog.brick_march`.
    pub struct FogMarchPush {
        /// x `RenderVKParticleFogBillow`, y `...BillowScale` (m), z `...BillowSpeed` (m/s), w time (s).
        pub billow: [f32; 4],
        /// x 1 when the froxel fog is on, y `RenderVKParticleFogDebug`, z the march's divisor (one
        /// ray per z x z pixels), w `RenderVKParticleFogRange` (m; `fog.brick_light` eases the
        /// light toward the billboards' before it, `particle_fog::systems::billboard_match`).
        pub params: [f32; 4],
        /// x 1 when `fog.carrier_light` gathered the billboards' light of the bricks this frame,
        /// y the billboards' soft-particle fade distance (m); z, w unused.
        pub gathered: [f32; 4],
    }
}
