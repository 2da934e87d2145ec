#version 460
// The args step of the merge sort (merge_sort.glsl), shared by particles.sort and
// particles.ribbons: one thread reads the count to sort (word params.x of the source buffer:
// particles.draw_args' instance count, or an alive count of particles.counters) and writes the
// sort's indirect dispatches (sort_args.glsl) for tiles of params.y elements and per-element
// groups of params.z threads. A shader of its own, so that the sort's shaders only read the
// args they are dispatched from.
#include "gpu_types.glsl"
#include "sort_args.glsl"

layout(local_size_x = 1) in;

layout(push_constant) uniform Push { SortArgsPush push; };
layout(std430, set = 0, binding = 0) readonly buffer Source { uint source[]; };
layout(std430, set = 0, binding = 1) writeonly buffer SortArgs { uint sort_args[]; };

void write_dispatch(uint at, uint groups) {
    sort_args[at] = groups;
    sort_args[at + 1u] = 1u;
    sort_args[at + 2u] = 1u;
}

void main() {
    uint n = source[push.params.x];
    uint tile = push.params.y;
    uint each = push.params.z;
    uint blocks = (n + tile - 1u) / tile;
    uint levels = sort_levels_of(n, tile);
    sort_args[SORT_ARGS_COUNT] = n;
    write_dispatch(SORT_ARGS_BLOCKS, blocks);
    for (uint l = 0u; l < SORT_MAX_LEVELS; ++l) {
        write_dispatch(SORT_ARGS_LEVELS + 3u * l, l < levels ? blocks : 0u);
    }
    write_dispatch(SORT_ARGS_EACH, (n + each - 1u) / each);
}
