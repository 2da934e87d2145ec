#version 460
// particles.billboards with the glow mask output (billboard_shade.glsl).
#include "billboard_shade.glsl"
