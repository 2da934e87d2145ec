#version 460
// fog.apply: composites the integrated froxel fog over the lit opaque image by depth:
// hdr = hdr * transmittance + in-scatter (the sky gets the fog up to the grid's far end), plus the
// `near` part of each local light's in-scatter along the pixel's own rays (fog_media.glsl: the part
// of a light seen inside the fog that is sharper than a froxel; the froxels carry the rest). Its
// samples take one bilinear shadow compare each (3x3 PCF measured the same against the reference).
#define SHADOW_PCF_RADIUS 0
#include "lighting.glsl"
#include "froxel_common.glsl"
#include "fog_media.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 8) uniform sampler3D integrated;
layout(set = 0, binding = 9) uniform sampler2D depth_tex;
layout(set = 0, binding = 10, rgba16f) uniform image2D hdr;

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
    vec3 near = fog_near_in_scatter(integrated, vec2(p), vec2(size), min(z, fog.slices.y));
    vec4 c = imageLoad(hdr, p);
    imageStore(hdr, p, vec4(c.rgb * f.a + f.rgb + near, c.a));
}
