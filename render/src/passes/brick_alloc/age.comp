#version 460
// fog.brick_age: one thread per slot. The page table was cleared to PAGE_NONE; a slot whose brick
// was used in the last KEEP_FRAMES frames (the last frame only under pressure) and lies inside its
// level's clip window this frame goes back into the page table and onto the used list (its atlas
// is resolved again this frame, to zero when nothing splats into it: reuse of last frame's
// bricks); any other allocated slot is evicted onto the free list (least recently used first:
// the young ones stay).
#include "bricks.glsl"
layout(local_size_x = 64) in;

void main() {
    uint slot = gl_GlobalInvocationID.x;
    if (slot >= bricks.counts.x) {
        return;
    }
    ivec4 key = slot_key[slot];
    if (key.w < 0) {
        return;
    }
    int at = page_index(key.w, key.xyz);
    uint age = bricks.counts.y - slot_frame[slot];
    uint keep = bricks.params.y != 0u ? 1u : KEEP_FRAMES;
    if (at < 0 || age > keep) {
        slot_key[slot] = ivec4(0, 0, 0, -1);
        uint top = atomicAdd(free_list[0], 1u);
        free_list[1u + top] = slot;
        atomicAdd(counters[C_EVICTED], 1u);
        return;
    }
    page[at] = slot;
    uint u = atomicAdd(counters[C_USED], 1u);
    requests[bricks.params.z + u] = slot;
}
