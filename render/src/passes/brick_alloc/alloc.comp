#version 460
// fog.brick_alloc: one thread per requested brick. Pops a slot from the free list (a failed pop
// is undone and the brick stays unallocated: counted, and the frame's carriers there are
// clipped; the CPU demotes systems before that happens), points the page entry at it, records its
// key and appends it to the used list.
#include "bricks.glsl"
layout(local_size_x = 64) in;

void main() {
    uint r = gl_GlobalInvocationID.x;
    if (r >= min(counters[C_REQUESTS], bricks.params.z)) {
        return;
    }
    uint at = requests[r];
    uint top = atomicAdd(free_list[0], 0xFFFFFFFFu);
    if (top == 0u || top > bricks.counts.x) {
        atomicAdd(free_list[0], 1u);
        page[at] = PAGE_NONE;
        atomicAdd(counters[C_ALLOC_FAILED], 1u);
        return;
    }
    uint slot = free_list[top];
    page[at] = slot;
    slot_key[slot] = page_brick(at);
    slot_frame[slot] = bricks.counts.y;
    uint u = atomicAdd(counters[C_USED], 1u);
    requests[bricks.params.z + u] = slot;
}
