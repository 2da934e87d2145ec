#version 460
// host.tonemap: HDR radiance (+ strength x the bilinearly upsampled bloom of host.glow, when the
// strength is above 0) -> exposure -> ACES filmic fit (Narkowicz 2015) -> sRGB -> RGBA8.
#include "gpu_types.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba16f) uniform readonly image2D hdr;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D ldr;
layout(set = 0, binding = 2) uniform sampler2D bloom;
layout(push_constant) uniform Push {
    TonemapPush params;
    TonemapBloom glow;
};

// Largest finite half float: radiance beyond it (an overflow to infinity) saturates here.
const float HALF_MAX = 65504.0;

vec3 aces(vec3 x) {
    const float a = 2.51, b = 0.03, c = 2.43, d = 0.59, e = 0.14;
    return clamp((x * (a * x + b)) / (x * (c * x + d) + e), 0.0, 1.0);
}

vec3 srgb_encode(vec3 linear) {
    vec3 lo = linear * 12.92;
    vec3 hi = 1.055 * pow(linear, vec3(1.0 / 2.4)) - 0.055;
    return mix(lo, hi, step(vec3(0.0031308), linear));
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(params.width) || p.y >= int(params.height)) {
        return;
    }
    vec3 c = imageLoad(hdr, p).rgb;
    if (glow.strength > 0.0) {
        // The bloom is at half resolution: full pixel p's centre is at (p + 0.5) / 2 there.
        vec2 uv = (vec2(p) + 0.5) / (2.0 * vec2(textureSize(bloom, 0)));
        c += glow.strength * textureLod(bloom, uv, 0.0).rgb;
    }
    c *= params.exposure;
    // Scrub a NaN from any pass to black rather than showing it; infinite radiance saturates.
    if (any(isnan(c))) {
        c = vec3(0.0);
    }
    c = clamp(c, vec3(0.0), vec3(HALF_MAX));
    imageStore(ldr, p, vec4(srgb_encode(aces(c)), 1.0));
}
