#version 460
// host.opaque: the surface each pixel shows, for host.lighting: its normal (turned toward the
// viewer for back faces) and its object's index; depth goes to the depth buffer.
#include "gpu_types.glsl"

layout(location = 0) in vec3 world_pos;
layout(location = 1) in vec3 world_normal;
layout(push_constant) uniform Push { DrawPush draw; };
layout(location = 0) out vec4 out_surface;

void main() {
    vec3 n = normalize(world_normal);
    if (!gl_FrontFacing) {
        n = -n;
    }
    out_surface = vec4(n, float(draw.object));
}
