#version 460
// particles.emit: one thread per emission candidate of this frame (all bursts of all sources).
// A candidate finds its burst by binary search over the bursts' first-candidate indices, draws its
// direction and speed from the counter-based streams (seed, source stream, serial, draw index; draw
// indices as particles::sim DRAW_*), is dropped when its share draw falls below
// max(1 - share, the burst's throttle probability) as in the reference, discards positions out of
// range, pops a free index from the
// dead list (refused when the pool is full, never corrupting it), initialises the particle from
// its emitter's template, copies the template values it keeps for life (colours, sizes, glow,
// acceleration; as LLViewerPartSourceScript::update copies them into each LLViewerPart) into
// particles.templates, and appends it to the current alive list. Thread 0 also empties the other
// alive list, which particles.update fills next.
#include "sim_common.glsl"

layout(local_size_x = 64) in;

const uint DRAW_SHARE = 0u;
const uint DRAW_SPEED = 1u;
const uint DRAW_ANGLE = 2u;
const uint DRAW_SIDE = 3u;
const uint DRAW_AZIMUTH = 4u;
const uint DRAW_EXPLODE_FIRST = 5u;
const uint EXPLODE_MAX_TRIES = 64u;
const float EXPLODE_MIN_LEN_SQ = 0.01;
const float CONE_AZIMUTH_SPAN_RAD = 4.0 * 3.14159265358979;
const uint PATTERN_EXPLODE = 1u;
const uint PATTERN_ANGLE = 2u;
const uint PATTERN_CONE = 3u;
const uint SYS_USE_NEW_ANGLE = 0x02u;
// Adding this to a uint subtracts one (two's complement).
const uint MINUS_ONE = 0xFFFFFFFFu;

float unit_draw(uint stream, uint serial, uint index) {
    return unit_from_bits(draw_bits(push.seed.xy, stream, serial, index));
}

// EXPLODE: rejection sampling in [-1, 1)^3 until 0.01 <= |d|^2 <= 1, normalised; +Z if none.
vec3 explode_direction(uint stream, uint serial) {
    for (uint k = 0u; k < EXPLODE_MAX_TRIES; ++k) {
        uint i = DRAW_EXPLODE_FIRST + 3u * k;
        vec3 d = vec3(2.0 * unit_draw(stream, serial, i), 2.0 * unit_draw(stream, serial, i + 1u),
                      2.0 * unit_draw(stream, serial, i + 2u)) - 1.0;
        float len_sq = dot(d, d);
        if (len_sq >= EXPLODE_MIN_LEN_SQ && len_sq <= 1.0) {
            return d / sqrt(len_sq);
        }
    }
    return vec3(0.0, 0.0, 1.0);
}

// ANGLE / ANGLE_CONE: theta about +X (either side), cone spin about +Z, the legacy tilt by the
// outer angle, then R * Q.
vec3 angle_direction(GpuEmitter e, uint stream, uint serial, vec4 rq) {
    float inner = e.angles_glow.x;
    float outer = e.angles_glow.y;
    float theta = inner + (outer - inner) * unit_draw(stream, serial, DRAW_ANGLE);
    if (unit_draw(stream, serial, DRAW_SIDE) < 0.5) {
        theta = -theta;
    }
    vec3 d = vec3(0.0, -sin(theta), cos(theta));
    if (e.params.x == PATTERN_CONE) {
        float phi = CONE_AZIMUTH_SPAN_RAD * unit_draw(stream, serial, DRAW_AZIMUTH);
        d = vec3(cos(phi) * d.x - sin(phi) * d.y, sin(phi) * d.x + cos(phi) * d.y, d.z);
    }
    if ((e.params.z & SYS_USE_NEW_ANGLE) == 0u) {
        d = vec3(d.x, cos(outer) * d.y - sin(outer) * d.z, sin(outer) * d.y + cos(outer) * d.z);
    }
    return quat_rotate(rq, d);
}

// The burst that candidate c belongs to (bursts are sorted by first candidate).
uint find_burst(uint c) {
    uint lo = 0u;
    uint hi = push.counts.z - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (bursts[mid].ids.w <= c) {
            lo = mid;
        } else {
            hi = mid - 1u;
        }
    }
    return lo;
}

void main() {
    uint c = gl_GlobalInvocationID.x;
    if (c == 0u) {
        if (push.counts.x == 0u) {
            counters.alive1 = 0u;
        } else {
            counters.alive0 = 0u;
        }
    }
    if (c >= push.counts.y) {
        return;
    }
    GpuBurst b = bursts[find_burst(c)];
    uint k = c - b.ids.w;
    uint source = b.ids.x;
    uint stream = b.stream.x;
    uint serial = b.ids.y + k;
    // With drops, the reference gives the first radius to the first *kept* candidate; here it is
    // candidate 0 of the burst. Invisible: only FOLLOW_SRC and TARGET_LINEAR zero the radius, and
    // both replace the position in the same frame's update.
    float drop = max(1.0 - push.budget.x, b.radius.z);
    if (unit_draw(stream, serial, DRAW_SHARE) < drop) {
        atomicAdd(counters.dropped, 1u);
        return;
    }
    GpuEmitter e = emitters[source];
    vec3 pos = e.position_speed_min.xyz;
    vec3 vel = vec3(0.0);
    uint kind = e.params.x;
    if (kind != 0u) {
        vec3 dir = kind == PATTERN_EXPLODE ? explode_direction(stream, serial)
                                           : angle_direction(e, stream, serial, b.rotation);
        float speed_min = e.position_speed_min.w;
        float speed = speed_min + (e.target_speed_max.w - speed_min) * unit_draw(stream, serial, DRAW_SPEED);
        float radius = k == 0u ? b.radius.x : b.radius.y;
        pos += radius * dir;
        vel = dir * speed;
    }
    if (!position_in_range(pos)) {
        atomicAdd(counters.discarded, 1u);
        return;
    }
    // Pop: only decrements happen during this pass, so every thread that saw a positive depth owns
    // a distinct entry; the others put their decrement back and are refused.
    uint prev = atomicAdd(counters.dead, MINUS_ONE);
    if (int(prev) <= 0) {
        atomicAdd(counters.dead, 1u);
        atomicAdd(counters.refused, 1u);
        return;
    }
    uint idx = dead[prev - 1u];
    GpuParticle p;
    p.pos_age = vec4(pos, 0.0);
    p.vel_max_age = vec4(vel, e.accel_max_age.w);
    p.offset_glow = vec4(0.0, 0.0, 0.0, e.angles_glow.z);
    p.color = e.start_color;
    p.scale = vec4(e.scales.xy, 0.0, 0.0);
    p.ids = uvec4(source, serial, e.params.y, e.params.w);
    // A ribbon particle takes the emitter's local +Z as its axis; particles.ribbons zeroes it
    // (ribbon.y = 1 asks for that check) when the source had no live particle to link behind.
    bool ribbon = (e.params.y & PF_RIBBON) != 0u;
    p.axis = ribbon ? vec4(e.axis.xyz, 0.0) : vec4(0.0);
    p.ribbon = uvec4(serial, ribbon ? 1u : 0u, 0u, 0u);
    pool[idx] = p;
    templates[idx] = GpuParticleTemplate(e.start_color, e.end_color, e.scales,
                                         vec4(e.accel_max_age.xyz, 0.0),
                                         vec4(e.angles_glow.zw, 0.0, 0.0));
    alive_in[push_alive(push.counts.x)] = idx;
    atomicAdd(counters.emitted, 1u);
}
