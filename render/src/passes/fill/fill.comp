#version 460
// gpu.fill: writes out[i] = (i * multiplier) ^ seed for i < count. The foundation's proof that
// shaders compile, bind, dispatch and read back correctly.
#include "gpu_types.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { FillParams params; };
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint values[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.count) {
        return;
    }
    values[i] = (i * params.multiplier) ^ params.seed;
}
