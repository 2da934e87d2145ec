#version 460
// particles.ribbons: the viewer's ribbon links (`llviewerpartsource.cpp`; the CPU twin is
// particles/src/sim/ribbons.rs) for the particles of RIBBON sources, kept as an order plus a
// ribbon id per particle instead of pointers. In the viewer a new particle becomes the parent of
// the source's previous particle if that one is still alive, else it starts a new ribbon (zero
// axis); a dying particle is spliced out, which never joins two ribbons. So a ribbon is a run of
// a source's particles in serial order that share the serial of the ribbon's first particle (its
// id), and a particle's parent is the next newer live particle with the same id.
// Between particles.emit and particles.update every particle alive at emission time is in the
// current alive list, and sort.comp has ordered their keys by (source, serial) into
// particles.ribbon_keys (n keys, n = word 0 of particles.ribbons.args); one thread per key:
//   mode 0 (link at birth): the first particle F born this frame continues the source's newest
//     earlier particle (particles.ribbon_tail: serial and ribbon id) if that one was alive at
//     emission, i.e. if it is F's sorted predecessor; the later ones continue F. A particle that
//     continues nothing starts a ribbon: its id is its own serial and its axis zero;
//   mode 1 (tail): the newest particle born this frame becomes the source's tail; birth flags are
//     cleared (a separate dispatch, as mode 0 reads the tails).
// After particles.update:
//   mode 2 (parents): each survivor's parent is the next newer survivor with its ribbon id, or
//     none (the newest of its ribbon connects to the source) -> particles.ribbon_parent. The scan
//     passes at most MAX_DEAD_SKIP dead particles: a source's particles die oldest first unless
//     its lifetime changed or one left the region; beyond the bound the segment goes to the source.
#include "gpu_types.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { RibbonPush push; };
layout(std430, set = 0, binding = 0) buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = 1) readonly buffer Keys { uvec4 keys[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Parent { uint parent[]; };
// Per source: x serial of the newest particle it made, y that particle's ribbon id.
layout(std430, set = 0, binding = 3) buffer Tail { uvec2 tail[]; };
// particles.ribbons.args (merge_sort.glsl): word 0 is the number of keys sorted.
layout(std430, set = 0, binding = 4) readonly buffer SortArgs { uint sort_args[]; };

const uint MODE_LINK_AT_BIRTH = 0u;
const uint MODE_TAIL = 1u;
const uint PF_DEAD = 0x80000000u;
// "No parent" in particles.ribbon_parent, and the key of non-ribbon particles.
const uint NONE = 0xFFFFFFFFu;
const uint MAX_DEAD_SKIP = 64u;

bool newborn_of(uint source, uint t) {
    uvec4 k = keys[t];
    return k.x == source && pool[k.z].ribbon.y == 1u;
}

// Sorted position of the first particle the source of keys[t] (a newborn) made this frame: the
// newborns are the end of the source's run, so a binary search finds where they begin.
uint first_newborn(uint t) {
    uint source = keys[t].x;
    uint lo = 0u;
    uint hi = t;
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (newborn_of(source, mid)) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    return lo;
}

void link_at_birth(uint t, uvec4 k) {
    uint f = first_newborn(t);
    uvec2 tail_now = tail[k.x];
    bool continues = f > 0u && keys[f - 1u].x == k.x && keys[f - 1u].y == tail_now.x;
    uint first_serial = keys[f].y;
    pool[k.z].ribbon.x = continues ? tail_now.y : first_serial;
    if (t == f && !continues) {
        pool[k.z].axis.xyz = vec3(0.0);
    }
}

void find_parent(uint t, uint n, uvec4 k) {
    uint ribbon_id = pool[k.z].ribbon.x;
    uint found = NONE;
    uint last = min(n, t + 2u + MAX_DEAD_SKIP);
    for (uint j = t + 1u; j < last; ++j) {
        uvec4 n = keys[j];
        if (n.x != k.x || pool[n.z].ribbon.x != ribbon_id) {
            break;
        }
        if (pool[n.z].ids.z != PF_DEAD) {
            found = n.z;
            break;
        }
    }
    parent[k.z] = found;
}

void main() {
    uint t = gl_GlobalInvocationID.x;
    uint n = sort_args[0];
    if (t >= n) {
        return;
    }
    uvec4 k = keys[t];
    if (k.x == NONE) {
        return;
    }
    uint mode = push.params.x;
    bool newborn = pool[k.z].ribbon.y == 1u;
    if (mode == MODE_LINK_AT_BIRTH) {
        if (newborn) {
            link_at_birth(t, k);
        }
    } else if (mode == MODE_TAIL) {
        if (newborn) {
            if (t + 1u == n || keys[t + 1u].x != k.x) {
                tail[k.x] = uvec2(k.y, pool[k.z].ribbon.x);
            }
            pool[k.z].ribbon.y = 0u;
        }
    } else if (pool[k.z].ids.z != PF_DEAD) {
        find_parent(t, n, k);
    }
}
