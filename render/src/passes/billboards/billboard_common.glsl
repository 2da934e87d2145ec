// Shared by the billboard shaders: bindings 6.. (after the lighting inputs 0..5) and the blend
// class of a legacy (source, dest) factor pair, twin of `billboards::BlendClass::of`.
#ifndef BILLBOARD_COMMON_GLSL
#define BILLBOARD_COMMON_GLSL
#include "gpu_types.glsl"

layout(push_constant) uniform Push { BillboardPush push; };
layout(std430, set = 0, binding = 6) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 7) readonly buffer Visible { uint visible[]; };
layout(std430, set = 0, binding = 8) readonly buffer SourceLayers { uint source_layer[]; };

// Particle flags (particles::types::PartFlags).
const uint PF_FOLLOW_VELOCITY = 0x020u;
const uint PF_EMISSIVE = 0x100u;
const uint PF_HUD = 0x40000000u;

// Blend factor enum (sl-particles.md 3.4).
const uint BF_ONE = 0u;
const uint BF_SOURCE_ALPHA = 7u;
const uint BF_ONE_MINUS_SOURCE_ALPHA = 9u;

// 0 normal alpha (7, 9) and every pair not drawn exactly yet; 1 (7, 0); 2 (0, 0); 3 (0, 9).
uint blend_class(uint packed) {
    uint src = packed & 0xffu;
    uint dst = (packed >> 8u) & 0xffu;
    if (src == BF_SOURCE_ALPHA && dst == BF_ONE) {
        return 1u;
    }
    if (src == BF_ONE && dst == BF_ONE) {
        return 2u;
    }
    if (src == BF_ONE && dst == BF_ONE_MINUS_SOURCE_ALPHA) {
        return 3u;
    }
    return 0u;
}
#endif
