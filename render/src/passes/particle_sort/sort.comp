#version 460
// particles.sort: orders the visible list far to near along the camera's forward axis (the
// viewer sorts quads far-to-near by distance along that axis, `llvopartgroup.cpp`), so that normal
// alpha billboards blend back to front. Mode 0 writes one (key, index) pair per slot of a
// power-of-two padded array: key = -view depth of the visible particle (bits mapped to unsigned
// order), the largest key for padding; mode 1 is one compare-exchange step (j, k) of Batcher's
// bitonic network (bitonic.glsl); mode 2 writes the sorted indices back into particles.visible.
// Ascending keys = descending depth = far to near.
#include "gpu_types.glsl"
#include "bitonic.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { ParticleSortPush push; };
layout(std430, set = 0, binding = 0) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 1) buffer Visible { uint visible[]; };
layout(std430, set = 0, binding = 2) readonly buffer DrawArgs { GpuDrawIndirect draw; };
layout(std430, set = 0, binding = 3) buffer Keys { uvec2 keys[]; };

// The float's bits mapped so that unsigned order is float order (sign flips all bits of negatives,
// only the sign bit of the others).
uint sortable(float f) {
    uint b = floatBitsToUint(f);
    return b ^ ((b >> 31u) == 1u ? 0xffffffffu : 0x80000000u);
}

const uint MODE_KEYS = 0u;
const uint PF_HUD = 0x40000000u;
const uint MODE_STEP = 1u;

void main() {
    uint t = gl_GlobalInvocationID.x;
    uint n = draw.instance_count;
    uint padded = push.params.w;
    if (push.params.x == MODE_KEYS) {
        if (t >= padded) {
            return;
        }
        if (t < n) {
            uint idx = visible[t];
            vec3 pos = pool[idx].pos_age.xyz;
            // HUD particles sort by their depth in HUD space (x, from the HUD camera at x = -1).
            bool hud = (pool[idx].ids.z & PF_HUD) != 0u;
            float depth = hud ? pos.x + 1.0 : dot(pos - push.camera.xyz, push.forward.xyz);
            keys[t] = uvec2(sortable(-depth), idx);
        } else {
            keys[t] = uvec2(0xffffffffu, 0u);
        }
        return;
    }
    if (push.params.x == MODE_STEP) {
        uint j = push.params.y;
        uint k = push.params.z;
        if (t >= padded / 2u) {
            return;
        }
        uvec2 pair = bitonic_pair(t, j);
        uint i = pair.x;
        uint l = pair.y;
        uvec2 a = keys[i];
        uvec2 b = keys[l];
        bool ascending = bitonic_ascending(i, k);
        if ((a.x > b.x) == ascending && a.x != b.x) {
            keys[i] = b;
            keys[l] = a;
        }
        return;
    }
    if (t < n) {
        visible[t] = keys[t].y;
    }
}
