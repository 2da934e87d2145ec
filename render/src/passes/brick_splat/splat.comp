#version 460
// fog.brick_splat: one thread per live particle of a converted system, which splats a kernel of at
// most SMALL_KERNEL_SLABS z slabs itself and hands a wider one to the wide pass (the same shader
// with splat_mode.x = 1, dispatched indirectly: a thread per wide carrier and z slab, so a wide
// kernel's cells are written in parallel; its list reuses the request list, which the allocation
// has consumed). The carrier's total is split over its slabs, the floor of each slab's share and
// the rest to the peak slab, then over each slab's cells the same way. Each carrier adds its
// kernel to the cells it touches on its level (fog::kernel docs): the Gaussian integrated over
// each cell with erf and renormalised over the touched cells, the carrier's total rounded
// stochastically to integer extinction units, each cell the floor of its share and the rest to
// the peak cell of its slab, so the cells sum to the total exactly.
//
// Cost (H200, a million carriers of 5 cm, 0.94 ms): one atomic per touched cell; the x and z
// weights are computed once per carrier (one erf per cell edge) and held in registers; the slots
// of the at most 2x2x2 bricks a kernel touches are looked up once. Tint and emission are kept per
// brick, not per cell (a cell's three tint atomics were most of the splat's cost): the thread sums
// its units in each brick and adds units x TINT_SCALE x tint once per brick (the wide pass once
// per slab and brick).
//
// Poisoned carriers (NaN, infinite, negative, larger than 1 km) and kernels too large for the top
// level are skipped and counted; cells whose brick could not be allocated are counted as clipped.
// fog::splat is the CPU twin.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#include "bricks.glsl"
layout(local_size_x = 64) in;

// Kernels of at most this many z slabs are splatted by their carrier's own thread.
const int SMALL_KERNEL_SLABS = 5;

// One axis of a kernel: the touched cells lo..hi, and the Gaussian's integral over them (for
// renormalising), as fog::kernel::AxisKernel. Weights are computed as they are needed (no arrays:
// arrays indexed at run time would live in slow per-thread memory).
struct Axis {
    float mu;
    float sigma;
    float vox;
    ivec2 range;
    float inv_norm;  // 1 / integral over the touched cells, 0 when degenerate
    int peak;        // the cell holding mu, relative to range.x
};

float edge_cdf(Axis a, int cell) {
    return phi((float(cell) * a.vox - a.mu) / a.sigma);
}

Axis axis_of(float mu, float sigma, float vox) {
    Axis a;
    a.mu = mu;
    a.sigma = sigma;
    a.vox = vox;
    a.range = support_cells(mu, sigma, vox);
    float norm = edge_cdf(a, a.range.y + 1) - edge_cdf(a, a.range.x);
    a.inv_norm = norm > 0.0 ? 1.0 / norm : 0.0;
    a.peak = clamp(int(floor(mu / vox)), a.range.x, a.range.y) - a.range.x;
    return a;
}

// The renormalised weight of cell range.x + i.
float axis_weight(Axis a, int i) {
    if (a.inv_norm == 0.0) {
        return i == a.peak ? 1.0 : 0.0;
    }
    return (edge_cdf(a, a.range.x + i + 1) - edge_cdf(a, a.range.x + i)) * a.inv_norm;
}

// The slot holding cell `cell` of `level`, or PAGE_NONE.
uint slot_of(int level, ivec3 cell) {
    int at = page_index(level, brick_of(cell));
    if (at < 0) {
        return PAGE_NONE;
    }
    uint e = page[at];
    return e >= PAGE_REQUESTED ? PAGE_NONE : e;
}

// The at most 2x2x2 bricks a kernel touches, from `base` (the brick of its lowest cell): each
// one's slot (PAGE_NONE outside the kernel or unallocated) and the carrier's units in it, with
// x + 2 y as the component and z as near/far. Slots are looked up once per brick, not per cell.
struct KernelBricks {
    ivec3 base;
    uvec4 slot_near;
    uvec4 slot_far;
    uvec4 units_near;
    uvec4 units_far;
};

KernelBricks kernel_bricks(int level, Axis ax, Axis ay, Axis az) {
    ivec3 lo = ivec3(ax.range.x, ay.range.x, az.range.x);
    ivec3 hi = ivec3(ax.range.y, ay.range.y, az.range.y);
    KernelBricks b;
    b.base = brick_of(lo);
    ivec3 last = brick_of(hi) - b.base;
    for (int k = 0; k < 8; ++k) {
        ivec3 d = ivec3(k & 1, (k >> 1) & 1, k >> 2);
        bool inside = all(lessThanEqual(d, last));
        uint s = inside ? slot_of(level, (b.base + d) * BRICK_VOXELS) : PAGE_NONE;
        if (k < 4) {
            b.slot_near[k] = s;
        } else {
            b.slot_far[k - 4] = s;
        }
    }
    b.units_near = uvec4(0u);
    b.units_far = uvec4(0u);
    return b;
}

// Adds `share` units to cell `cell` (in brick base + (bx, by, bz)) and to that brick's units.
void add_cell(int level, inout KernelBricks b, ivec3 cell, uint share) {
    if (share == 0u) {
        return;
    }
    ivec3 d = brick_of(cell) - b.base;
    int k = d.x + 2 * d.y;
    uint s;
    if (d.z == 0) {
        s = b.slot_near[k];
        b.units_near[k] += share;
    } else {
        s = b.slot_far[k];
        b.units_far[k] += share;
    }
    if (s == PAGE_NONE) {
        add_u64(C_CLIPPED_LO + 2u * uint(level), share);
        return;
    }
    atomicAdd(accum_ext[s * uint(BRICK_CELLS) + uint(cell_in_brick(cell))], share);
}

// Adds the tint of carrier `c` weighted by its units in each brick, the weights, and its billboard
// match weighted the same way.
// Each word is rounded stochastically (a hashed uniform per carrier `key`, brick k and frame), so a
// brick filled by many carriers' thin tails still gets their tint (truncated, they had left it
// white and not emissive while their density showed) (fog::splat::add_brick_tint).
void add_brick_tints(KernelBricks b, Carrier c, uint key) {
    for (int k = 0; k < 8; ++k) {
        uint units = k < 4 ? b.units_near[k] : b.units_far[k - 4];
        uint s = k < 4 ? b.slot_near[k] : b.slot_far[k - 4];
        if (units == 0u || s == PAGE_NONE) {
            continue;
        }
        float scaled = float(units) * TINT_SCALE;
        float u = rounding_uniform(key * 8u + uint(k), bricks.counts.y);
        uint t = s * TINT_WORDS;
        atomicAdd(accum_tint[t], uint(scaled * c.tint.r + u));
        atomicAdd(accum_tint[t + 1u], uint(scaled * c.tint.g + u));
        atomicAdd(accum_tint[t + 2u], uint(scaled * c.tint.b + u));
        if (c.emissive) {
            atomicAdd(accum_tint[t + 3u], uint(scaled + u));
        }
        atomicAdd(accum_tint[t + 4u], uint(scaled + u));
        atomicAdd(accum_tint[t + 5u], uint(scaled * c.billboard_match + u));
    }
}

// The units of slab k (cells with z = lo.z + k): the floor of its share, the rest to the peak slab.
uint slab_units(uint units, Axis z, float wz[MAX_AXIS_CELLS], int k) {
    if (k != z.peak) {
        return uint(float(units) * wz[k]);
    }
    uint others = 0u;
    [[unroll]] for (int i = 0; i < MAX_AXIS_CELLS; ++i) {
        if (i != z.peak && i <= z.range.y - z.range.x) {
            others += uint(float(units) * wz[i]);
        }
    }
    return units - others;
}

// Adds lo16 + hi16 * 2^16 to the u64 counter at counters[at] (the sums of a subgroup's low and
// high halves, so that neither overflows).
void add_u64_halves(uint at, uint lo16, uint hi16) {
    uint t = hi16 << 16u;
    uint high = hi16 >> 16u;
    uint lo32 = t + lo16;
    high += lo32 < t ? 1u : 0u;
    uint old = atomicAdd(counters[at], lo32);
    high += old + lo32 < old ? 1u : 0u;
    atomicAdd(counters[at + 1u], high);
}

// The frame's counts of the carriers this thread counts (`counts`: its slab-0 thread): summed over
// the subgroup first, then one atomic per subgroup, since a million carriers adding to the same few
// counters one by one serialise on them.
void count_carrier(bool counts, int level, uint units, float mass) {
    uint carriers = subgroupAdd(counts ? 1u : 0u);
    float total_mass = subgroupAdd(counts ? mass : 0.0);
    uint levels = subgroupOr(counts ? 1u << uint(level) : 0u);
    while (levels != 0u) {
        int l = findLSB(levels);
        levels &= levels - 1u;
        bool mine = counts && level == l;
        uint lo16 = subgroupAdd(mine ? (units & 0xFFFFu) : 0u);
        uint hi16 = subgroupAdd(mine ? (units >> 16u) : 0u);
        if (subgroupElect() && (lo16 | hi16) != 0u) {
            add_u64_halves(C_UNITS_LO + 2u * uint(l), lo16, hi16);
        }
    }
    if (subgroupElect() && carriers > 0u) {
        atomicAdd(counters[C_CARRIERS], carriers);
        add_mass(C_EXPECTED_LO, total_mass);
    }
}

layout(push_constant) uniform SplatPush { uvec4 splat_mode; };  // x: 0 carriers, 1 wide kernels

// The renormalised weights of an axis's cells (axis_weight of 0..MAX_AXIS_CELLS-1, one erf per
// cell edge), unrolled so that they stay in registers.
void axis_weights(Axis a, out float w[MAX_AXIS_CELLS]) {
    int n = a.range.y - a.range.x;
    float below = edge_cdf(a, a.range.x);
    [[unroll]] for (int i = 0; i < MAX_AXIS_CELLS; ++i) {
        float above = i <= n ? edge_cdf(a, a.range.x + i + 1) : below;
        w[i] = a.inv_norm == 0.0 ? (i == a.peak ? 1.0 : 0.0) : (above - below) * a.inv_norm;
        below = above;
    }
}

// The weights of a kernel's cells on each axis.
struct Weights {
    float x[MAX_AXIS_CELLS];
    float z[MAX_AXIS_CELLS];
};

// Adds slab `slab` of a carrier (`units` in all) to its cells and its units per brick to `b`.
void splat_slab(int level, uint units, Axis ax, Axis ay, Axis az, Weights w, int slab, inout KernelBricks b) {
    uint slab_total = slab_units(units, az, w.z, slab);
    ivec3 lo = ivec3(ax.range.x, ay.range.x, az.range.x + slab);
    int nx = ax.range.y - ax.range.x;
    uint written = 0u;
    for (int y = 0; y <= ay.range.y - ay.range.x; ++y) {
        float wy = axis_weight(ay, y);
        [[unroll]] for (int x = 0; x < MAX_AXIS_CELLS; ++x) {
            if (x > nx) {
                break;
            }
            uint share = uint(float(slab_total) * (wy * w.x[x]));
            written += share;
            add_cell(level, b, lo + ivec3(x, y, 0), share);
        }
    }
    add_cell(level, b, lo + ivec3(ax.peak, ay.peak, 0), slab_total - written);
}

// Hands a wide carrier (alive index i) to the wide pass; false when its list is full.
bool defer_wide(uint i) {
    uint w = atomicAdd(counters[C_WIDE_COUNT], 1u);
    if (w >= bricks.params.z) {
        return false;
    }
    requests[w] = i;
    if (w % 64u == 0u) {
        atomicAdd(counters[C_WIDE_ARGS], 1u);
    }
    return true;
}

void main() {
    bool wide_pass = splat_mode.x == 1u;
    uint i = gl_GlobalInvocationID.x;
    int slab = int(gl_GlobalInvocationID.y);
    if (wide_pass) {
        if (i >= min(counters[C_WIDE_COUNT], bricks.params.z)) {
            return;
        }
        i = requests[i];
    } else if (i >= alive_count()) {
        return;
    }
    uint slot = alive[i];
    Carrier c = carrier_of(slot);
    if (c.weight <= 0.0) {
        return;
    }
    bool counts = !wide_pass;
    if (carrier_poisoned(c)) {
        if (counts) {
            atomicAdd(counters[C_POISONED], 1u);
        }
        return;
    }
    float mass = carrier_mass(c);
    if (!(mass > 0.0)) {
        return;
    }
    float sigma = kernel_sigma(c);
    int level = kernel_level(sigma, distance(c.position, bricks.camera_voxel.xyz));
    if (level < 0) {
        if (counts) {
            atomicAdd(counters[C_TOO_LARGE], 1u);
        }
        return;
    }
    float vox = level_voxel_m(level);
    sigma = splat_sigma(sigma, vox);
    float exact = mass / (vox * vox * vox) * EXTINCTION_UNITS_PER_INV_M;
    if (exact > MAX_CARRIER_UNITS) {
        if (counts) {
            atomicAdd(counters[C_POISONED], 1u);
        }
        return;
    }
    Axis az = axis_of(c.position.z, sigma, vox);
    int slabs = az.range.y - az.range.x + 1;
    uint units = uint(floor(exact + rounding_uniform(slot, bricks.counts.y)));
    Axis ax = axis_of(c.position.x, sigma, vox);
    Axis ay = axis_of(c.position.y, sigma, vox);
    if (wide_pass && slab >= slabs) {
        return;
    }
    bool here = wide_pass || slabs <= SMALL_KERNEL_SLABS || !defer_wide(i);
    if (here) {
        KernelBricks b = kernel_bricks(level, ax, ay, az);
        Weights w;
        axis_weights(ax, w.x);
        axis_weights(az, w.z);
        int first = wide_pass ? slab : 0;
        int last = wide_pass ? slab : slabs - 1;
        for (int k = first; k <= last; ++k) {
            splat_slab(level, units, ax, ay, az, w, k, b);
        }
        add_brick_tints(b, c, slot);
    }
    if (wide_pass) {
        return;
    }
    count_carrier(counts, level, units, mass);
}
