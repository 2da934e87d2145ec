#version 460
// fog.brick_clear: one workgroup per brick in use this frame, after fog.brick_resolve: zeroes its
// accumulators (the interior's extinction and the brick's tint), so the next frame's splat starts from nothing (slots are zero whenever
// they are not in use: at creation and after every frame).
#include "bricks.glsl"
layout(local_size_x = 128) in;

void main() {
    uint slot = requests[bricks.params.z + gl_WorkGroupID.x];
    for (uint c = gl_LocalInvocationIndex; c < uint(BRICK_CELLS); c += gl_WorkGroupSize.x) {
        uint i = slot * uint(BRICK_CELLS) + c;
        accum_ext[i] = 0u;
    }
    if (gl_LocalInvocationIndex < TINT_WORDS) {
        accum_tint[slot * TINT_WORDS + gl_LocalInvocationIndex] = 0u;
    }
}
