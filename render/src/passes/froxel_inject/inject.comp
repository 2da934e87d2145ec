#version 460
// fog.froxel_inject: per froxel, the medium (height fog + local fog volumes) and the light it
// scatters toward the camera (fog_media.glsl: the sun through its cascades, ambient sky, every
// local light through its shadow map, projectors with their texture, Henyey-Greenstein phase),
// averaged over SAMPLES points spread through the froxel: stratified in depth (a slice is several
// times deeper than it is wide), jittered across, with offsets that change every frame
// (froxel_jitter). So a froxel a shaft edge crosses holds the lit fraction, not all or nothing.
// Each sample carries the `far` part of a local light's inverse-square falloff (fog_media.glsl:
// all of it beyond the light's near window, none at the light) averaged over its share of the
// slice, exactly, in closed form; fog.apply adds the `near` part per pixel.
// Shadows take one bilinear compare per sample (the samples and the frames are the filter).
// Lights that opt out of history go to `out_now`; the rest go to `out_current`, which
// fog.froxel_temporal blends with the history.
#define SHADOW_PCF_RADIUS 0
#include "lighting.glsl"
#include "froxel_common.glsl"
#include "fog_media.glsl"

layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

layout(set = 0, binding = 8, rgba16f) uniform writeonly image3D out_current;
layout(set = 0, binding = 9, rgba16f) uniform writeonly image3D out_now;

// Samples per froxel (each: one medium evaluation and one shadow compare per light).
const int SAMPLES = 4;
// Offsets across the froxel of successive samples (the R2 sequence, Roberts 2018).
const vec2 R2 = vec2(0.7548776662, 0.5698402910);

void main() {
    ivec3 id = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(vec3(id), fog.grid.xyz))) {
        return;
    }
    vec3 j = froxel_jitter(id);
    vec3 scatter_hist = vec3(0.0);
    vec3 scatter_now = vec3(0.0);
    float extinction = 0.0;
    for (int k = 0; k < SAMPLES; ++k) {
        vec2 uv = (vec2(id.xy) + fract(j.xy + float(k) * R2)) / fog.grid.xy;
        float s0 = float(id.z) + float(k) / float(SAMPLES);
        float z = froxel_depth_at(s0 + j.z / float(SAMPLES));
        vec3 ray = froxel_ray(uv);
        vec3 pos = frame.camera_pos.xyz + z * ray;
        // Half the length of this sample's share of the slice, along the ray.
        float half_m = 0.5 * (froxel_depth_at(s0 + 1.0 / float(SAMPLES)) - froxel_depth_at(s0)) * length(ray);
        float sigma_t;
        vec3 sigma_s;
        fog_medium(pos, sigma_t, sigma_s);
        if (sigma_t > 0.0) {
            vec3 lit_hist;
            vec3 lit_now;
            fog_in_scatter(pos, half_m, true, lit_hist, lit_now);
            scatter_hist += sigma_s * lit_hist;
            scatter_now += sigma_s * lit_now;
            extinction += sigma_t;
        }
    }
    float inv = 1.0 / float(SAMPLES);
    imageStore(out_current, id, vec4(scatter_hist, extinction) * inv);
    imageStore(out_now, id, vec4(scatter_now * inv, 0.0));
}
