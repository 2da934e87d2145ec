#version 460
// particles.billboards for frames without a glowing source: no glow mask output
// (billboard_shade.glsl).
#define NO_GLOW
#include "billboard_shade.glsl"
