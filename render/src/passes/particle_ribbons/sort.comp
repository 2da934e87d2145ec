#version 460
// particles.ribbons' sort (between particles.emit and particles.update): one (source, serial,
// slot, 0) key per particle of the alive list, the largest key for particles of other sources,
// ordered by (source, serial) with the merge sort of merge_sort.glsl into particles.ribbon_keys
// (its first run buffer), so each source's particles lie together from oldest to newest and the
// ones born this frame at the end of its run. Dispatched from particles.ribbons.args (args.comp:
// the alive list's count; the links run one thread per key from it); modes: 0 blocks, 1 one
// merge level.
#include "gpu_types.glsl"

#define SORT_ELEM uvec4
#define SORT_ELEM_BYTES 16u
#define SORT_THREADS 256u
#define SORT_ITEMS 8u
#define SORT_BINDING_RUNS0 2
#define SORT_BINDING_RUNS1 3
#define SORT_BINDING_ARGS 4
#include "merge_sort.glsl"

layout(local_size_x = SORT_THREADS) in;

layout(push_constant) uniform Push { RibbonPush push; };
layout(std430, set = 0, binding = 0) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 1) readonly buffer Alive { uint alive[]; };

const uint MODE_BLOCKS = 0u;
const uint PF_RIBBON = 0x400u;
// The key of particles of other sources (and the padding).
const uint NONE = 0xFFFFFFFFu;

bool sort_less(uvec4 a, uvec4 b) {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
}

uvec4 sort_pad() {
    return uvec4(NONE);
}

uvec4 sort_load(uint i) {
    uint slot = alive[i];
    uvec4 ids = pool[slot].ids;
    return (ids.z & PF_RIBBON) != 0u ? uvec4(ids.x, ids.y, slot, 0u) : uvec4(NONE);
}

void sort_store(uint i, uvec4 e) {
    sort_runs0[i] = e;
}

void main() {
    uint n = sort_args[SORT_ARGS_COUNT];
    if (push.params.x == MODE_BLOCKS) {
        sort_blocks(n);
    } else {
        sort_merge(n, push.params.y);
    }
}
