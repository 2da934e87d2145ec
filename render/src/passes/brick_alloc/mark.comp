#version 460
// fog.brick_mark: one thread per live particle of a converted system (weight > 0). Marks every
// brick of its kernel's level that its support touches, plus one cell on each side (the trilinear
// footprint of the cells it writes, so the filtered field keeps all its mass): a brick already in
// the page table is stamped used this frame; an empty entry becomes PAGE_REQUESTED and the first
// thread to request it appends it to the request list and counts it for its system (the stats'
// bricks by system). fog::splat is the CPU twin.
#include "bricks.glsl"
layout(local_size_x = 64) in;

void request(uint at, uint system) {
    uint e = page[at];
    if (e == PAGE_NONE) {
        if (atomicCompSwap(page[at], PAGE_NONE, PAGE_REQUESTED) == PAGE_NONE) {
            uint r = atomicAdd(counters[C_REQUESTS], 1u);
            if (r < bricks.params.z) {
                requests[r] = uint(at);
                // A source id past the table is counted nowhere rather than written past it (on
                // lavapipe, without robust buffer access, into the host's heap).
                if (system < uint(system_bricks.length())) {
                    atomicAdd(system_bricks[system], 1u);
                }
            } else {
                atomicAdd(counters[C_REQUEST_OVERFLOW], 1u);
            }
        }
    } else if (e < PAGE_REQUESTED) {
        slot_frame[e] = bricks.counts.y;
    }
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= alive_count()) {
        return;
    }
    uint slot = alive[i];
    Carrier c = carrier_of(slot);
    if (c.weight <= 0.0 || carrier_poisoned(c) || !(carrier_mass(c) > 0.0)) {
        return;
    }
    float sigma = kernel_sigma(c);
    int level = kernel_level(sigma, distance(c.position, bricks.camera_voxel.xyz));
    if (level < 0) {
        return;
    }
    float vox = level_voxel_m(level);
    sigma = splat_sigma(sigma, vox);
    ivec3 lo, hi;
    for (int a = 0; a < 3; ++a) {
        ivec2 r = support_cells(c.position[a], sigma, vox);
        lo[a] = r.x - 1;
        hi[a] = r.y + 1;
    }
    ivec3 blo = brick_of(lo);
    ivec3 bhi = brick_of(hi);
    uint system = pool[slot].ids.x;
    for (int z = blo.z; z <= bhi.z; ++z) {
        for (int y = blo.y; y <= bhi.y; ++y) {
            for (int x = blo.x; x <= bhi.x; ++x) {
                int at = page_index(level, ivec3(x, y, z));
                if (at >= 0) {
                    request(uint(at), system);
                }
            }
        }
    }
}
