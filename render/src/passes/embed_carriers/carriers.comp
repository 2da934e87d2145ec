#version 460
// embed.carriers: the particles a viewer simulated itself (GpuCarrier, uploaded with the frame)
// written into the carrier pool as the brick passes read a particle: position and age, colour,
// size, system and flags; no velocity, template or ribbon (nothing simulates them). Thread i
// writes particle i and entry i of the alive list named by push.counts.y; thread 0 sets that
// list's count. The other alive list and the dead list are left alone.
#include "gpu_types.glsl"

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Carriers { GpuCarrier carriers[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Alive { uint alive[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Counters { GpuParticleCounters counters; };
layout(push_constant) uniform Push { CarrierPush push; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint count = push.counts.x;
    if (i == 0u) {
        if (push.counts.y == 0u) {
            counters.alive0 = count;
        } else {
            counters.alive1 = count;
        }
    }
    if (i >= count) {
        return;
    }
    GpuCarrier c = carriers[i];
    GpuParticle p;
    p.pos_age = c.position_age;
    p.vel_max_age = vec4(0.0);
    p.offset_glow = vec4(0.0);
    p.color = c.color;
    p.scale = vec4(c.size, 0.0, 0.0);
    p.ids = uvec4(c.system, i, c.flags, 0u);
    p.axis = vec4(0.0);
    p.ribbon = uvec4(0u);
    pool[i] = p;
    alive[i] = i;
}
