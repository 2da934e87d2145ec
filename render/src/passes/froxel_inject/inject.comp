#version 460
// fog.froxel_inject: per froxel, the medium (height fog + local fog volumes) and the light it
// scatters toward the camera: the sun through its cascades, ambient sky, and every local light
// (point, spot, projector with its texture) through its shadow map, with Henyey-Greenstein phase.
// Lights that opt out of history go to `out_now`; everything else is blended with last frame's
// reprojected value (history clamped to [0.5x, 2x] of the new value and reset where the
// reprojection leaves the grid) and goes to `out_hist` (rgb scatter per metre, a extinction).
#include "lighting.glsl"
#include "froxel_common.glsl"

layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

layout(std430, set = 0, binding = 7) readonly buffer Volumes { GpuFogVolume volumes[]; };
layout(set = 0, binding = 8) uniform sampler3D history;
layout(set = 0, binding = 9, rgba16f) uniform writeonly image3D out_hist;
layout(set = 0, binding = 10, rgba16f) uniform writeonly image3D out_now;

const uint LIGHT_VOLUMETRIC = 1u;
const uint LIGHT_HISTORY = 2u;
// How far history may differ from the new value before it is clamped (a ghost-trail limit).
const float HISTORY_CLAMP_LOW = 0.5;
const float HISTORY_CLAMP_HIGH = 2.0;

void medium(vec3 pos, out float sigma_t, out vec3 sigma_s) {
    sigma_t = fog.height_fog.x * exp(-fog.height_fog.y * (pos.z - fog.height_fog.z));
    sigma_s = sigma_t * fog.fog_albedo.rgb;
    for (uint i = 0u; i < uint(fog.fog_albedo.w); ++i) {
        GpuFogVolume v = volumes[i];
        vec3 d = abs(pos - v.center_kind.xyz);
        bool inside = v.center_kind.w < 0.5 ? all(lessThanEqual(d, v.extent_density.xyz))
                                             : dot(d, d) <= v.extent_density.x * v.extent_density.x;
        if (inside) {
            sigma_t += v.extent_density.w;
            sigma_s += v.extent_density.w * v.albedo.rgb;
        }
    }
}

void main() {
    ivec3 id = ivec3(gl_GlobalInvocationID);
    if (any(greaterThanEqual(vec3(id), fog.grid.xyz))) {
        return;
    }
    vec2 uv = (vec2(id.xy) + 0.5) / fog.grid.xy;
    float z = froxel_depth_at(float(id.z) + fog.grid.w);
    vec3 pos = frame.camera_pos.xyz + z * froxel_ray(uv);
    float sigma_t;
    vec3 sigma_s;
    medium(pos, sigma_t, sigma_s);

    vec3 lit_hist = vec3(0.0);
    vec3 lit_now = vec3(0.0);
    if (sigma_t > 0.0) {
        vec3 view_dir = normalize(pos - frame.camera_pos.xyz);
        float g = fog.height_fog.w;
        float sun_phase = henyey_greenstein(dot(view_dir, frame.sun_dir.xyz), g);
        lit_hist += frame.sun_color.rgb * frame.sun_dir.w * sun_phase * sun_shadow(pos, vec3(0.0), 0.0);
        lit_hist += 0.5 * (frame.ambient_sky.rgb + frame.ambient_ground.rgb);
        for (uint i = 0u; i < frame.counts.x; ++i) {
            uint flags = lights[i].kind_shadow.w;
            if ((flags & LIGHT_VOLUMETRIC) == 0u) {
                continue;
            }
            vec3 to_light;
            vec3 arriving = light_arriving(i, pos, vec3(0.0), 0.0, to_light);
            vec3 c = arriving * henyey_greenstein(dot(view_dir, to_light), g);
            if ((flags & LIGHT_HISTORY) != 0u) {
                lit_hist += c;
            } else {
                lit_now += c;
            }
        }
    }
    vec4 current = vec4(sigma_s * lit_hist, sigma_t);

    float w = fog.slices.w;
    if (w > 0.0) {
        vec4 prev = fog.prev_clip_from_world * vec4(pos, 1.0);
        vec3 coord = vec3(prev.xy / prev.w * 0.5 + 0.5, froxel_slice_of(prev.w) / fog.grid.z);
        if (prev.w > 0.0 && all(greaterThanEqual(coord, vec3(0.0))) && all(lessThanEqual(coord, vec3(1.0)))) {
            vec4 h = texture(history, coord);
            h = clamp(h, current * HISTORY_CLAMP_LOW, current * HISTORY_CLAMP_HIGH + 1e-6);
            current = mix(current, h, w);
        }
    }
    imageStore(out_hist, id, current);
    imageStore(out_now, id, vec4(sigma_s * lit_now, 0.0));
}
