// Froxel grid helpers shared by the fog passes and by every pass that looks fog up (billboards and
// the brick march later). Binding 6 of set 0 holds the FogUniform in the fog passes; a pass that
// only looks fog up declares FOG_UNIFORM_BINDING before including this file to move it.
//
// The CPU twin of the slice maths, the integration step and the lookup is `fog::froxel`.
#ifndef FROXEL_COMMON_GLSL
#define FROXEL_COMMON_GLSL

#include "gpu_types.glsl"

#ifndef FOG_UNIFORM_BINDING
#define FOG_UNIFORM_BINDING 6
#endif

layout(std140, set = 0, binding = FOG_UNIFORM_BINDING) uniform Fog { FogUniform fog; };

// Dither amplitude of the fog lookups across the screen, in froxels (peak to peak).
#ifndef FROXEL_DITHER_XY
#define FROXEL_DITHER_XY 1.0
#endif

// View depth (m) at continuous slice coordinate s (exponential distribution).
float froxel_depth_at(float s) {
    return fog.slices.x * exp(fog.slices.z * s / fog.grid.z);
}

// Continuous slice coordinate of view depth z.
float froxel_slice_of(float z) {
    return log(max(z, 1e-6) / fog.slices.x) / fog.slices.z * fog.grid.z;
}

// Un-normalised ray direction through screen uv (v down) with unit length along the view axis.
vec3 froxel_ray(vec2 uv) {
    vec2 ndc = uv * 2.0 - 1.0;
    float t = fog.forward_tan.w;
    return fog.forward_tan.xyz + ndc.x * t * fog.right_aspect.w * fog.right_aspect.xyz - ndc.y * t * fog.up.xyz;
}

// Integrated fog (rgb in-scatter, a transmittance) between the camera and view depth z along the
// ray through uv, from the integrated froxel texture (texel s = value at the far edge of slice s).
vec4 froxel_fog(sampler3D integrated, vec2 uv, float z) {
    float s = froxel_slice_of(z);
    if (s <= 1.0) {
        float f = clamp(z / froxel_depth_at(1.0), 0.0, 1.0);
        return mix(vec4(0.0, 0.0, 0.0, 1.0), texture(integrated, vec3(uv, 0.5 / fog.grid.z)), f);
    }
    float t = min(s - 1.0, fog.grid.z - 1.0);
    return texture(integrated, vec3(uv, (t + 0.5) / fog.grid.z));
}

// A hash of three integers to three uniform floats in [0, 1) (pcg3d, Jarzynski and Olano 2020,
// "Hash Functions for GPU Rendering").
vec3 hash3(uvec3 v) {
    v = v * 1664525u + 1013904223u;
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v ^= v >> 16u;
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    return vec3(v >> 8u) * (1.0 / 16777216.0);
}

// Offsets of the R3 low-discrepancy sequence (Roberts 2018, "The Unreasonable Effectiveness of
// Quasirandom Sequences"): frame n of a froxel samples fract(seed + n * R3), so every froxel walks
// the whole cell in a few frames while neighbours (different seeds) never move in lockstep.
const vec3 R3 = vec3(0.8191725134, 0.6710436067, 0.5497004779);

// This frame's sample offset in [0, 1)^3 for froxel (or pixel) `id`; `fog.grid.w` is the frame index.
vec3 froxel_jitter(ivec3 id) {
    return fract(hash3(uvec3(id)) + fog.grid.w * R3);
}

// Interleaved gradient noise (Jimenez 2014) in [0, 1) for pixel `p`: a fixed dither pattern with
// no low-frequency content, used to dither the fog lookups.
float interleaved_gradient_noise(vec2 p) {
    return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715))));
}

// `froxel_fog` looked up through a fixed per-pixel dither of the lookup point across the screen
// (+-FROXEL_DITHER_XY / 2 froxels, pixel `p`): the bilinear grid's stair-steps along a shaft's
// diagonal edge become fine noise. Not animated, so a still image stays still.
vec4 froxel_fog_dithered(sampler3D integrated, vec2 uv, float z, vec2 p) {
    float n = interleaved_gradient_noise(p);
    float m = interleaved_gradient_noise(p.yx + vec2(17.0, 5.0));
    vec2 duv = (vec2(n, m) - 0.5) * FROXEL_DITHER_XY / fog.grid.xy;
    return froxel_fog(integrated, uv + duv, z);
}

// Henyey-Greenstein phase function.
float henyey_greenstein(float cos_theta, float g) {
    float denom = max(1.0 + g * g - 2.0 * g * cos_theta, 1e-6);
    return (1.0 - g * g) / (4.0 * 3.14159265358979 * denom * sqrt(denom));
}

#endif
