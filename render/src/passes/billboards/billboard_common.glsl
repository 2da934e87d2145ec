// Shared by the billboard shaders: bindings 6.. (after the lighting inputs 0..5), push constants
// and particle flags.
#ifndef BILLBOARD_COMMON_GLSL
#define BILLBOARD_COMMON_GLSL
#include "gpu_types.glsl"

layout(push_constant) uniform Push { BillboardPush push; };
layout(std430, set = 0, binding = 6) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 7) readonly buffer Visible { uint visible[]; };
layout(std430, set = 0, binding = 8) readonly buffer SourceLayers { uint source_layer[]; };
layout(std430, set = 0, binding = 14) readonly buffer RibbonParent { uint ribbon_parent[]; };
layout(std430, set = 0, binding = 15) readonly buffer Emitters { GpuEmitter emitters[]; };

// Particle flags (particles::types::PartFlags).
const uint PF_FOLLOW_VELOCITY = 0x020u;
const uint PF_EMISSIVE = 0x100u;
const uint PF_RIBBON = 0x400u;
const uint PF_HUD = 0x40000000u;

#endif
