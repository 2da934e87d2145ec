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

// Henyey-Greenstein phase function.
float henyey_greenstein(float cos_theta, float g) {
    float denom = max(1.0 + g * g - 2.0 * g * cos_theta, 1e-6);
    return (1.0 - g * g) / (4.0 * 3.14159265358979 * denom * sqrt(denom));
}

#endif
