#version 460
// host.glow.extract: the glowing part of the frame at half resolution. Each output pixel is the
// mean of its 2x2 full-resolution block of hdr.rgb x clamp(mask, 0, 1) (mask = frame.glow's R,
// written by particles.billboards); NaN radiance counts as black and infinite radiance saturates at
// the largest half float, as in host.tonemap, so neither spreads through the blur.
#include "gpu_types.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr;
layout(set = 0, binding = 1) uniform sampler2D mask;
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D extracted;
layout(push_constant) uniform Push { GlowPush params; };

// Largest finite half float.
const float HALF_MAX = 65504.0;
// Full-resolution pixels per output pixel along each axis.
const int BLOCK = 2;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(params.extent.x) || p.y >= int(params.extent.y)) {
        return;
    }
    ivec2 last = ivec2(params.extent.zw) - 1;
    vec3 sum = vec3(0.0);
    for (int y = 0; y < BLOCK; ++y) {
        for (int x = 0; x < BLOCK; ++x) {
            ivec2 q = min(p * BLOCK + ivec2(x, y), last);
            vec3 c = imageLoad(hdr, q).rgb;
            if (any(isnan(c))) {
                c = vec3(0.0);
            }
            sum += clamp(c, vec3(0.0), vec3(HALF_MAX)) * clamp(texelFetch(mask, q, 0).r, 0.0, 1.0);
        }
    }
    imageStore(extracted, p, vec4(sum / float(BLOCK * BLOCK), 1.0));
}
