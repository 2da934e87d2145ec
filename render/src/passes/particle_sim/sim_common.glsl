// Shared by particles.emit and particles.update: the pool's bindings, the counter-based hash RNG
// (line for line the port given in particles/src/sim/rng.rs: PCG hash, Jarzynski and Olano, JCGT
// 2020) and quaternion rotation.
#ifndef PARTICLE_SIM_COMMON_GLSL
#define PARTICLE_SIM_COMMON_GLSL
#include "gpu_types.glsl"

layout(push_constant) uniform Push { ParticleSimPush push; };
layout(std430, set = 0, binding = 0) buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 1) buffer Dead { uint dead[]; };
// alive_in holds this frame's particles (emission appends to it); alive_out receives survivors.
layout(std430, set = 0, binding = 2) buffer AliveIn { uint alive_in[]; };
layout(std430, set = 0, binding = 3) buffer AliveOut { uint alive_out[]; };
layout(std430, set = 0, binding = 4) buffer Counters { GpuParticleCounters counters; };
layout(std430, set = 0, binding = 5) readonly buffer Emitters { GpuEmitter emitters[]; };
layout(std430, set = 0, binding = 6) readonly buffer Bursts { GpuBurst bursts[]; };
// The template values each particle was born with, indexed like the pool (emit writes, update reads).
layout(std430, set = 0, binding = 7) buffer Templates { GpuParticleTemplate templates[]; };

// Particle flags (particles::types::PartFlags).
const uint PF_INTERP_COLOR = 0x001u;
const uint PF_INTERP_SCALE = 0x002u;
const uint PF_BOUNCE = 0x004u;
const uint PF_WIND = 0x008u;
const uint PF_FOLLOW_SRC = 0x010u;
const uint PF_TARGET_POS = 0x040u;
const uint PF_TARGET_LINEAR = 0x080u;
const uint PF_RIBBON = 0x400u;
const uint PF_DEAD = 0x80000000u;
// Positions beyond this distance from the region origin are discarded (m).
const float MAX_POSITION_M = 1.0e6;

uint pcg_hash(uint v) {
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

uint draw_bits(uvec2 seed, uint source, uint serial, uint index) {
    uint h = pcg_hash(index);
    h = pcg_hash(serial + h);
    h = pcg_hash(source + h);
    h = pcg_hash(seed.y + h);
    return pcg_hash(seed.x + h);
}

float unit_from_bits(uint h) {
    return float(h >> 8u) * (1.0 / 16777216.0);
}

// Rotates v by the unit quaternion q (xyzw).
vec3 quat_rotate(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// The viewer's put test: finite and within 1e6 m of the region origin.
bool position_in_range(vec3 p) {
    return !any(isnan(p)) && !any(isinf(p)) && dot(p, p) <= MAX_POSITION_M * MAX_POSITION_M;
}

// The alive count of list `which`, atomically incremented.
uint push_alive(uint which) {
    return which == 0u ? atomicAdd(counters.alive0, 1u) : atomicAdd(counters.alive1, 1u);
}
#endif
