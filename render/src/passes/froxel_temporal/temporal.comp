#version 460
// fog.froxel_temporal: blends this frame's injected media with last frame's, reprojected.
// Each froxel's centre is projected with last frame's camera and the history sampled there; the
// history is then clamped to the range (min..max) of this frame's values in the 3x3 froxels
// around it in its slice (a neighbourhood clamp, as TAA does for pixels; Karis 2014, "High Quality
// Temporal Supersampling"). At a shaft edge the neighbourhood holds lit and dark froxels, so the
// history survives and the jittered samples average out; where a light or the camera moved away,
// the whole neighbourhood is dark and the old light is dropped at once; where a light arrives, it
// is all lit and the light shows at once. The neighbourhood stays in the slice: slices are several
// times deeper than wide, and a 3x3x3 box would take in the dark froxels in front of and behind a
// thin beam and so accept any history. The history is reset where
// the reprojection leaves the grid and on the first frame (weight 0).
#define FOG_UNIFORM_BINDING 1
#include "froxel_common.glsl"

layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

layout(std140, set = 0, binding = 0) uniform Frame { FrameUniform frame; };
layout(set = 0, binding = 2, rgba16f) uniform readonly image3D current;
layout(set = 0, binding = 3) uniform sampler3D history;
layout(set = 0, binding = 4, rgba16f) uniform writeonly image3D out_hist;

void main() {
    ivec3 id = ivec3(gl_GlobalInvocationID);
    ivec3 size = ivec3(fog.grid.xyz);
    if (any(greaterThanEqual(id, size))) {
        return;
    }
    vec4 value = imageLoad(current, id);
    float w = fog.slices.w;
    if (w > 0.0) {
        vec2 uv = (vec2(id.xy) + 0.5) / fog.grid.xy;
        vec3 pos = frame.camera_pos.xyz + froxel_depth_at(float(id.z) + 0.5) * froxel_ray(uv);
        vec4 prev = fog.prev_clip_from_world * vec4(pos, 1.0);
        vec3 coord = vec3(prev.xy / prev.w * 0.5 + 0.5, froxel_slice_of(prev.w) / fog.grid.z);
        if (prev.w > 0.0 && all(greaterThanEqual(coord, vec3(0.0))) && all(lessThanEqual(coord, vec3(1.0)))) {
            vec4 lo = value;
            vec4 hi = value;
            for (int y = -1; y <= 1; ++y) {
                for (int x = -1; x <= 1; ++x) {
                    vec4 n = imageLoad(current, clamp(id + ivec3(x, y, 0), ivec3(0), size - 1));
                    lo = min(lo, n);
                    hi = max(hi, n);
                }
            }
            vec4 h = clamp(texture(history, coord), lo, hi);
            value = mix(value, h, w);
        }
    }
    imageStore(out_hist, id, value);
}
