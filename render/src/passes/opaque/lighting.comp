#version 460
// host.lighting: the opaque surfaces lit, a thread per pixel (the H200 here runs compute far faster
// than it shades fragments): Lambert surfaces lit by the sun (cascaded shadows), hemispheric
// ambient, point, spot and projector lights (with their shadows and projected textures), plus
// emission, which no shadow touches. The surface comes from host.opaque (normal and object index;
// the position from the depth buffer); pixels without a surface take the sky colour.
#include "lighting.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, set = 0, binding = 1) readonly buffer Objects { GpuObject objects[]; };
layout(set = 0, binding = 6, rgba32f) uniform readonly image2D surface;
layout(set = 0, binding = 7) uniform sampler2D depth_tex;
layout(set = 0, binding = 8, rgba16f) uniform writeonly image2D hdr;
// The sky colour (rgb) for pixels without a surface.
layout(push_constant) uniform Push { vec4 background; } push;

// Pushes shadow lookups off the surface by this many shadow texels (scaled per layer).
const float NORMAL_OFFSET_TEXELS = 1.5;

vec3 lit(vec3 world_pos, vec3 n, GpuObject o) {
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
    return radiance + o.emissive.rgb;
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(hdr);
    if (any(greaterThanEqual(px, size))) {
        return;
    }
    vec4 s = imageLoad(surface, px);
    if (s.w < 0.0) {
        imageStore(hdr, px, push.background);
        return;
    }
    float depth = texelFetch(depth_tex, px, 0).r;
    vec2 ndc = (vec2(px) + 0.5) / vec2(size) * 2.0 - 1.0;
    vec4 h = frame.world_from_clip * vec4(ndc, depth, 1.0);
    vec3 world_pos = h.xyz / h.w;
    imageStore(hdr, px, vec4(lit(world_pos, normalize(s.xyz), objects[uint(s.w)]), 1.0));
}
