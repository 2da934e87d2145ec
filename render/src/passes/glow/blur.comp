#version 460
// host.glow.blur_h / host.glow.blur_v: one axis of a separable Gaussian,
// out(p) = sum_k w_k in(p + k step) / sum_k w_k, w_k = exp(-k^2 / (2 sigma^2)), k in -radius..radius,
// coordinates clamped to the image (edge pixels repeat).
#include "gpu_types.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2D src;
layout(set = 0, binding = 1, rgba16f) uniform writeonly image2D dst;
layout(push_constant) uniform Push { GlowPush params; };

// Loop bound, taps each side: render::passes::glow::MAX_RADIUS_PX.
const int MAX_RADIUS = 32;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(params.extent.x) || p.y >= int(params.extent.y)) {
        return;
    }
    ivec2 last = ivec2(params.extent.xy) - 1;
    ivec2 step_px = params.step_radius.xy;
    int radius = min(params.step_radius.z, MAX_RADIUS);
    float inv_two_sigma2 = 1.0 / (2.0 * params.sigma.x * params.sigma.x);
    vec3 sum = vec3(0.0);
    float weights = 0.0;
    for (int k = -radius; k <= radius; ++k) {
        float w = exp(-float(k * k) * inv_two_sigma2);
        sum += w * imageLoad(src, clamp(p + k * step_px, ivec2(0), last)).rgb;
        weights += w;
    }
    imageStore(dst, p, vec4(sum / weights, 1.0));
}
