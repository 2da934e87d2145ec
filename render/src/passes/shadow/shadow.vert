#version 460
// host.shadow: depth of every object into one layer of the shadow atlas (sun cascades, spot,
// projector and point-light faces). Depth only: no fragment shader.
#include "gpu_types.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Objects { GpuObject objects[]; };
layout(std430, set = 0, binding = 1) readonly buffer ShadowViews { ShadowView shadow_views[]; };
layout(push_constant) uniform Push { DrawPush draw; };

layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;

void main() {
    vec4 world = objects[draw.object].world_from_local * vec4(in_position, 1.0);
    gl_Position = shadow_views[draw.view].clip_from_world * world;
}
