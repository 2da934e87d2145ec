#version 460
// particles.billboards.depth_copy: the opaque depth buffer as linear view depth (m) in an R32F
// image, so the billboards can sample the scene depth while the depth buffer is their (read-only
// tested) attachment: z = f n / (f - d (f - n)) for a [0, 1] depth d of the camera projection.
#include "gpu_types.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(push_constant) uniform Push { BillboardPush push; };
layout(set = 0, binding = 0) uniform sampler2D depth_tex;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D linear_depth;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(linear_depth)))) {
        return;
    }
    float d = texelFetch(depth_tex, p, 0).r;
    float n = push.planes.x;
    float f = push.planes.y;
    imageStore(linear_depth, p, vec4(f * n / (f - d * (f - n)), 0.0, 0.0, 0.0));
}
