#version 460
// fog.froxel_integrate: walks each froxel column front to back with the energy-conserving
// analytic step (Hillaire 2015): texel s of `integrated` holds in-scatter (rgb) and transmittance
// (a) from the camera to the far edge of slice s. CPU twin: fog::froxel::integrate_column.
#define FOG_UNIFORM_BINDING 0
#include "froxel_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 1, rgba16f) uniform readonly image3D scatter_hist;
layout(set = 0, binding = 2, rgba16f) uniform readonly image3D scatter_now;
layout(set = 0, binding = 3, rgba16f) uniform writeonly image3D integrated;

const float MIN_EXTINCTION = 1e-6;

void main() {
    ivec2 xy = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(vec2(xy), fog.grid.xy))) {
        return;
    }
    float ray_scale = length(froxel_ray((vec2(xy) + 0.5) / fog.grid.xy));
    vec3 scatter = vec3(0.0);
    float transmittance = 1.0;
    int slices = int(fog.grid.z);
    for (int s = 0; s < slices; ++s) {
        vec4 m = imageLoad(scatter_hist, ivec3(xy, s));
        vec3 l = m.rgb + imageLoad(scatter_now, ivec3(xy, s)).rgb;
        float sigma = max(m.a, 0.0);
        float start = s == 0 ? 0.0 : froxel_depth_at(float(s));
        float d = (froxel_depth_at(float(s + 1)) - start) * ray_scale;
        float t_seg = exp(-sigma * d);
        float gain = sigma > MIN_EXTINCTION ? (1.0 - t_seg) / sigma : d;
        scatter += transmittance * l * gain;
        transmittance *= t_seg;
        imageStore(integrated, ivec3(xy, s), vec4(scatter, transmittance));
    }
}
