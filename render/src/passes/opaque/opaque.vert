#version 460
// host.opaque: forward-lit opaque geometry into the HDR target and depth.
#include "gpu_types.glsl"

layout(std140, set = 0, binding = 0) uniform Frame { FrameUniform frame; };
layout(std430, set = 0, binding = 1) readonly buffer Objects { GpuObject objects[]; };
layout(push_constant) uniform Push { DrawPush draw; };

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

layout(location = 0) out vec3 world_pos;
layout(location = 1) out vec3 world_normal;

void main() {
    GpuObject o = objects[draw.object];
    vec4 world = o.world_from_local * vec4(in_position, 1.0);
    world_pos = world.xyz;
    world_normal = normalize((o.normal_from_local * vec4(in_normal, 0.0)).xyz);
    gl_Position = frame.clip_from_world * world;
}
