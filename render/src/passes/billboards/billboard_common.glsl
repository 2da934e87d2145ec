// Shared by the billboard shaders: bindings 6.. (after the lighting inputs 0..5), push constants,
// particle flags and the particle textures (read in fragment shaders through billboard_texel.glsl).
#ifndef BILLBOARD_COMMON_GLSL
#define BILLBOARD_COMMON_GLSL
#include "gpu_types.glsl"

layout(push_constant) uniform Push { BillboardPush push; };
layout(std430, set = 0, binding = 6) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 7) readonly buffer Visible { uint visible[]; };
layout(std430, set = 0, binding = 8) readonly buffer SourceLayers { uint source_layer[]; };
layout(std430, set = 0, binding = 14) readonly buffer RibbonParent { uint ribbon_parent[]; };
layout(std430, set = 0, binding = 15) readonly buffer Emitters { GpuEmitter emitters[]; };
// Particle fog: each source's blend weight (weight_mass.x) for the cross-fade.
layout(std430, set = 0, binding = 16) readonly buffer FogSources { GpuFogSource fog_sources[]; };
layout(set = 0, binding = 9) uniform sampler2DArray particle_tex;
layout(set = 0, binding = 13) uniform sampler2DArray particle_tex_repeat;

// Particle flags (particles::types::PartFlags).
const uint PF_FOLLOW_VELOCITY = 0x020u;
const uint PF_EMISSIVE = 0x100u;
const uint PF_RIBBON = 0x400u;
const uint PF_HUD = 0x40000000u;
// The viewer's discard threshold for alpha-blended particles.
const float MIN_ALPHA = 0.004;
// push.blend.w of the HUD draw.
const uint DRAW_HUD = 1u;

#endif
