#version 460
// particles.sort: orders the visible list far to near along the camera's forward axis (the
// viewer sorts quads far-to-near by distance along that axis, `llvopartgroup.cpp`), so that normal
// alpha billboards blend back to front, by the merge sort of merge_sort.glsl over (key, slot)
// pairs: key = -view depth (bits mapped to unsigned order), slot = the particle's pool index, so
// equal depths are drawn in slot order, the same every frame. Ascending keys = descending depth =
// far to near. Dispatched from particles.sort.args (args.comp: particles.draw_args' instance
// count); modes: 0 blocks, 1 one merge level; the result is written back into particles.visible.
#include "gpu_types.glsl"

#define SORT_ELEM uvec2
#define SORT_ELEM_BYTES 8u
#define SORT_THREADS 512u
#define SORT_ITEMS 8u
#define SORT_BINDING_RUNS0 2
#define SORT_BINDING_RUNS1 3
#define SORT_BINDING_ARGS 4
#include "merge_sort.glsl"

layout(local_size_x = SORT_THREADS) in;

layout(push_constant) uniform Push { ParticleSortPush push; };
layout(std430, set = 0, binding = 0) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 1) buffer Visible { uint visible[]; };

const uint MODE_BLOCKS = 0u;
const uint PF_HUD = 0x40000000u;

// The float's bits mapped so that unsigned order is float order (sign flips all bits of negatives,
// only the sign bit of the others).
uint sortable(float f) {
    uint b = floatBitsToUint(f);
    return b ^ ((b >> 31u) == 1u ? 0xffffffffu : 0x80000000u);
}

bool sort_less(uvec2 a, uvec2 b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

uvec2 sort_pad() {
    return uvec2(0xffffffffu);
}

uvec2 sort_load(uint i) {
    uint idx = visible[i];
    vec3 pos = pool[idx].pos_age.xyz;
    // HUD particles sort by their depth in HUD space (x, from the HUD camera at x = -1).
    bool hud = (pool[idx].ids.z & PF_HUD) != 0u;
    float depth = hud ? pos.x + 1.0 : dot(pos - push.camera.xyz, push.forward.xyz);
    return uvec2(sortable(-depth), idx);
}

void sort_store(uint i, uvec2 e) {
    visible[i] = e.y;
}

void main() {
    uint n = sort_args[SORT_ARGS_COUNT];
    if (push.params.x == MODE_BLOCKS) {
        sort_blocks(n);
    } else {
        sort_merge(n, push.params.y);
    }
}
