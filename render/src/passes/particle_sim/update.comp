#version 460
// particles.update: one thread per entry of the current alive list (the new particles included),
// in the viewer's order (LLViewerPartGroup::updateParticles; particles/src/sim/update.rs): with
// t = age + dt and f = t / max_age (1 when max_age is 0): FOLLOW_SRC pos = S + offset; WIND
// vel = vel (1 - 0.1 dt) + 0.1 dt wind; TARGET_POS steering; TARGET_LINEAR pos = S + f (T - S),
// vel = T - S, else ballistic with its acceleration; BOUNCE about the source's z;
// FOLLOW_SRC offset = pos - S; INTERP_COLOR / INTERP_SCALE lerps; glow quantised to 1/255;
// age = t. Survivors go to the other alive list; particles with age > max_age (or out of range)
// go back onto the dead list. The source's current position and target come from its emitter;
// colours, sizes, glow and acceleration from the particle's template (particles.templates), the
// values it was born with, as the viewer and particles::sim keep them per particle.
#include "sim_common.glsl"

layout(local_size_x = 64) in;

const float WIND_RATE_PER_S = 0.1;
const float TARGET_POS_MAX_STEP = 0.1;
const float TARGET_POS_GAIN = 5.0;
const float BOUNCE_RESTITUTION = -0.75;
const float GLOW_LEVELS = 255.0;
// What advance() decided.
const uint FATE_LIVES = 0u;
const uint FATE_DIED = 1u;
const uint FATE_OUT_OF_RANGE = 2u;

// Advances p by one step and returns its fate.
uint advance(inout GpuParticle p, GpuEmitter e, GpuParticleTemplate tpl, float dt) {
    uint flags = p.ids.z;
    vec3 src = e.position_speed_min.xyz;
    vec3 target = e.target_speed_max.xyz;
    // precise: no contraction into fused multiply-adds, so each step rounds as the CPU twin's
    // separate multiplications and additions do.
    precise vec3 pos = p.pos_age.xyz;
    precise vec3 vel = p.vel_max_age.xyz;
    float age = p.pos_age.w;
    float max_age = p.vel_max_age.w;
    float t = age + dt;
    float f = max_age > 0.0 ? t / max_age : 1.0;
    if ((flags & PF_FOLLOW_SRC) != 0u) {
        pos = src + p.offset_glow.xyz;
    }
    if ((flags & PF_WIND) != 0u) {
        vel = vel * (1.0 - WIND_RATE_PER_S * dt) + WIND_RATE_PER_S * dt * push.wind_dt.xyz;
    }
    if ((flags & PF_TARGET_POS) != 0u) {
        float remaining = max_age - age;
        float k = TARGET_POS_GAIN * clamp(dt / remaining, 0.0, TARGET_POS_MAX_STEP);
        vel = vel * (1.0 - k) + k * (target - pos) / remaining;
    }
    if ((flags & PF_TARGET_LINEAR) != 0u) {
        pos = src + f * (target - src);
        vel = target - src;
    } else {
        vec3 accel = tpl.accel.xyz;
        pos += vel * dt + 0.5 * accel * dt * dt;
        vel += accel * dt;
    }
    if ((flags & PF_BOUNCE) != 0u && pos.z < src.z) {
        pos.z = src.z + (src.z - pos.z);
        vel.z *= BOUNCE_RESTITUTION;
    }
    if ((flags & PF_FOLLOW_SRC) != 0u) {
        p.offset_glow.xyz = pos - src;
    }
    if ((flags & PF_INTERP_COLOR) != 0u) {
        p.color = tpl.start_color * (1.0 - f) + tpl.end_color * f;
    }
    if ((flags & PF_INTERP_SCALE) != 0u) {
        p.scale.xy = tpl.scales.xy * (1.0 - f) + tpl.scales.zw * f;
    }
    float glow = tpl.glow.x * (1.0 - f) + tpl.glow.y * f;
    p.offset_glow.w = floor(GLOW_LEVELS * glow + 0.5) / GLOW_LEVELS;
    p.pos_age = vec4(pos, t);
    p.vel_max_age.xyz = vel;
    if (!position_in_range(pos)) {
        return FATE_OUT_OF_RANGE;
    }
    return (t > max_age || flags == PF_DEAD) ? FATE_DIED : FATE_LIVES;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint cur = push.counts.x;
    uint n = cur == 0u ? counters.alive0 : counters.alive1;
    if (i >= n) {
        return;
    }
    uint idx = alive_in[i];
    GpuParticle p = pool[idx];
    uint fate = advance(p, emitters[p.ids.x], templates[idx], push.wind_dt.w);
    if (fate == FATE_LIVES) {
        pool[idx] = p;
        alive_out[push_alive(1u - cur)] = idx;
        return;
    }
    p.ids.z = PF_DEAD;
    pool[idx] = p;
    if (fate == FATE_DIED) {
        atomicAdd(counters.died, 1u);
    } else {
        atomicAdd(counters.discarded, 1u);
    }
    dead[atomicAdd(counters.dead, 1u)] = idx;
}
