#version 460
// host.opaque: Lambert surfaces lit by the sun (cascaded shadows), hemispheric ambient, point, spot
// and projector lights (with their shadows and projected textures), plus emission, which no
// shadow touches.
#include "lighting.glsl"

layout(std430, set = 0, binding = 1) readonly buffer Objects { GpuObject objects[]; };
layout(push_constant) uniform Push { DrawPush draw; };

layout(location = 0) in vec3 world_pos;
layout(location = 1) in vec3 world_normal;
layout(location = 0) out vec4 out_color;

// Pushes shadow lookups off the surface by this many shadow texels (scaled per layer).
const float NORMAL_OFFSET_TEXELS = 1.5;

void main() {
    GpuObject o = objects[draw.object];
    vec3 n = normalize(world_normal);
    if (!gl_FrontFacing) {
        n = -n;
    }
    vec3 albedo = o.albedo.rgb;
    vec3 sun_l = frame.sun_dir.xyz;
    float sun_ndl = max(dot(n, sun_l), 0.0);
    vec3 radiance = albedo * ambient_for(n);
    if (sun_ndl > 0.0) {
        float vis = sun_shadow(world_pos, n, NORMAL_OFFSET_TEXELS);
        radiance += albedo / PI * frame.sun_color.rgb * frame.sun_dir.w * sun_ndl * vis;
    }
    for (uint i = 0u; i < frame.counts.x; ++i) {
        vec3 to_light;
        vec3 arriving = light_arriving(i, world_pos, n, NORMAL_OFFSET_TEXELS, to_light);
        radiance += albedo / PI * arriving * max(dot(n, to_light), 0.0);
    }
    radiance += o.emissive.rgb;
    out_color = vec4(radiance, 1.0);
}
