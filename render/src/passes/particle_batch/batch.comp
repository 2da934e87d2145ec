#version 460
// particles.batch: turns the far-to-near sorted visible list into draws that keep that order across
// blend pairs, as the viewer's alpha pass does (it draws sorted quads, batching consecutive ones
// with the same state; `llvopartgroup.cpp`). A run is a maximal stretch of consecutive sorted
// particles with the same blend pair; the frame's pairs are the pipelines 0..P-1.
//   mode 0 (reset, one thread): no runs yet.
//   mode 1 (starts): thread i of the visible list records i when it starts a run (first entry, or
//     another pair than entry i-1) into an unordered list of at most MAX_STARTS.
//   mode 2 (commands, one workgroup): each start's rank r among the starts (counting smaller
//     ones) and its run's end (the next larger start, or the list's end) give run slot r; slots
//     0..MAX_RUNS-2 hold one run each, slot MAX_RUNS-1 everything from its start on. Then
//     command [r * P + p] draws slot r's instances with pipeline p when p is the run's pair (all
//     pipelines for the last slot, whose vertex shader collapses the other pairs' particles), and
//     nothing otherwise. The CPU records the MAX_RUNS x P indirect draws in slot-major order.
// With more than MAX_STARTS runs, slot 0 takes the whole list for every pipeline: order is then
// kept within each pair only.
#include "gpu_types.glsl"

layout(local_size_x = 256) in;

layout(push_constant) uniform Push { BatchPush push; };
layout(std430, set = 0, binding = 0) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 1) readonly buffer Visible { uint visible[]; };
layout(std430, set = 0, binding = 2) readonly buffer DrawArgs { GpuDrawIndirect draw; };
layout(std430, set = 0, binding = 3) buffer Starts { uint start_count; uint starts[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Commands { GpuDrawIndirect commands[]; };
layout(std430, set = 0, binding = 5) readonly buffer Pairs { uint pairs[]; };

const uint MODE_RESET = 0u;
const uint MODE_STARTS = 1u;
const uint MAX_RUNS = 64u;
const uint VERTICES_PER_QUAD = 6u;
// A slot that draws with every pipeline.
const uint ANY_PAIR = 0xFFFFFFFFu;

shared uint slot_first[MAX_RUNS];
shared uint slot_count[MAX_RUNS];
shared uint slot_pair[MAX_RUNS];

uint pair_at(uint i) {
    return pool[visible[i]].ids.w;
}

// Fills the run slots from the recorded starts (shared memory).
void rank_starts(uint n, uint lid) {
    uint total = start_count;
    if (total > push.params.y) {
        if (lid == 0u) {
            slot_first[0] = 0u;
            slot_count[0] = n;
            slot_pair[0] = ANY_PAIR;
        }
        return;
    }
    for (uint a = lid; a < total; a += gl_WorkGroupSize.x) {
        uint s = starts[a];
        uint rank = 0u;
        uint next = n;
        for (uint b = 0u; b < total; ++b) {
            uint o = starts[b];
            rank += o < s ? 1u : 0u;
            next = o > s ? min(next, o) : next;
        }
        if (rank < MAX_RUNS - 1u) {
            slot_first[rank] = s;
            slot_count[rank] = next - s;
            slot_pair[rank] = pair_at(s);
        } else if (rank == MAX_RUNS - 1u) {
            slot_first[rank] = s;
            slot_count[rank] = n - s;
            slot_pair[rank] = ANY_PAIR;
        }
    }
}

void main() {
    uint mode = push.params.x;
    uint n = draw.instance_count;
    if (mode == MODE_RESET) {
        start_count = 0u;
        return;
    }
    if (mode == MODE_STARTS) {
        uint i = gl_GlobalInvocationID.x;
        if (i < n && (i == 0u || pair_at(i) != pair_at(i - 1u))) {
            uint k = atomicAdd(start_count, 1u);
            if (k < push.params.y) {
                starts[k] = i;
            }
        }
        return;
    }
    uint lid = gl_LocalInvocationID.x;
    for (uint r = lid; r < MAX_RUNS; r += gl_WorkGroupSize.x) {
        slot_count[r] = 0u;
        slot_first[r] = 0u;
        slot_pair[r] = 0u;
    }
    barrier();
    rank_starts(n, lid);
    barrier();
    uint p_count = push.params.z;
    for (uint c = lid; c < MAX_RUNS * p_count; c += gl_WorkGroupSize.x) {
        uint r = c / p_count;
        uint p = c % p_count;
        bool draws = slot_pair[r] == ANY_PAIR || slot_pair[r] == pairs[p];
        commands[c] = GpuDrawIndirect(VERTICES_PER_QUAD, draws ? slot_count[r] : 0u, 0u, slot_first[r]);
    }
}
