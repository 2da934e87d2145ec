#version 460
// fog.apply: composites the integrated froxel fog over the lit opaque image by depth:
// hdr = hdr * transmittance + in-scatter (the sky gets the fog up to the grid's far end).
#define FOG_UNIFORM_BINDING 0
#include "froxel_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 1) uniform sampler3D integrated;
layout(set = 0, binding = 2) uniform sampler2D depth_tex;
layout(set = 0, binding = 3, rgba16f) uniform image2D hdr;

// View depth (m) from a [0, 1] depth-buffer value of the camera projection.
float view_depth(float ndc) {
    float n = fog.camera_planes.x;
    float f = fog.camera_planes.y;
    return f * n / (f - ndc * (f - n));
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(hdr);
    if (any(greaterThanEqual(p, size))) {
        return;
    }
    vec2 uv = (vec2(p) + 0.5) / vec2(size);
    float z = view_depth(texelFetch(depth_tex, p, 0).r);
    vec4 f = froxel_fog_dithered(integrated, uv, z, vec2(p));
    vec4 c = imageLoad(hdr, p);
    imageStore(hdr, p, vec4(c.rgb * f.a + f.rgb, c.a));
}
