#version 460
// particles.cull: frustum culling of the live particles into an indirect draw list. Mode 0 (one
// thread) empties particles.draw_args; mode 1 tests each live particle's bounding sphere (centre
// its position, radius half the diagonal of its billboard, sqrt(w^2 + h^2) / 2) against the six
// planes and appends visible ones' pool indices to particles.visible, counting them in the draw's
// instance count (6 vertices per instance: two triangles). Ribbon particles always pass: their
// segment reaches to a neighbour's (or the source's) edge, which this test does not know; so do
// HUD particles, which live in HUD space.
#include "gpu_types.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { ParticleCullPush push; };
layout(std430, set = 0, binding = 0) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 1) readonly buffer Alive { uint alive[]; };
layout(std430, set = 0, binding = 2) readonly buffer Counters { GpuParticleCounters counters; };
layout(std430, set = 0, binding = 3) writeonly buffer Visible { uint visible[]; };
layout(std430, set = 0, binding = 4) buffer DrawArgs { GpuDrawIndirect draw; };

const uint VERTICES_PER_BILLBOARD = 6u;
const uint PF_RIBBON = 0x400u;
const uint PF_HUD = 0x40000000u;

bool inside(vec4 plane, vec3 c, float r) {
    return dot(plane.xyz, c) + plane.w >= -r;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (push.counts.y == 0u) {
        if (i == 0u) {
            draw = GpuDrawIndirect(VERTICES_PER_BILLBOARD, 0u, 0u, 0u);
        }
        return;
    }
    uint n = push.counts.x == 0u ? counters.alive0 : counters.alive1;
    if (i >= n) {
        return;
    }
    uint idx = alive[i];
    GpuParticle p = pool[idx];
    vec3 c = p.pos_age.xyz;
    float r = 0.5 * length(p.scale.xy);
    bool visible_now = (p.ids.z & (PF_RIBBON | PF_HUD)) != 0u || inside(push.plane0, c, r) && inside(push.plane1, c, r) && inside(push.plane2, c, r)
        && inside(push.plane3, c, r) && inside(push.plane4, c, r) && inside(push.plane5, c, r);
    if (visible_now) {
        visible[atomicAdd(draw.instance_count, 1u)] = idx;
    }
}
