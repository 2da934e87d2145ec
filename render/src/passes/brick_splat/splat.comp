#version 460
// fog.brick_splat: one thread per live particle of a converted system, which splats a kernel of at
// most SMALL_KERNEL_SLABS z slabs itself and hands a wider one to the wide pass (the same shader
// with splat_mode.x = 1, dispatched indirectly: a thread per wide carrier and z slab, so a wide
// kernel's cells are written in parallel; its list reuses the request list, which the allocation
// has consumed). The carrier's total is split over its slabs, the floor of each slab's share and the
// rest to the peak slab, then over each slab's cells the same way. Each carrier adds its
// kernel to the cells it touches on its level (fog::kernel docs): the Gaussian integrated over
// each cell with erf and renormalised over the touched cells, the carrier's total rounded
// stochastically to integer extinction units, each cell the floor of its share and the rest to
// the peak cell of its slab, so the cells sum to the total exactly; tint and emission are added weighted by
// the same units. Poisoned carriers (NaN, infinite, negative, larger than 1 km) and kernels too
// large for the top level are skipped and counted; cells whose brick could not be allocated are
// counted as clipped. fog::splat is the CPU twin.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "bricks.glsl"
layout(local_size_x = 64) in;

// Kernels of at most this many z slabs are splatted by their carrier's own thread.
const int SMALL_KERNEL_SLABS = 3;

uint alive_count() {
    return bricks.params.x == 0u ? particle_counters.alive0 : particle_counters.alive1;
}

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

void add_cell(int level, ivec3 cell, uint share, Carrier c) {
    uint s = slot_of(level, cell);
    if (s == PAGE_NONE) {
        add_u64(C_CLIPPED_LO + 2u * uint(level), share);
        return;
    }
    uint i = s * uint(BRICK_CELLS) + uint(cell_in_brick(cell));
    atomicAdd(accum_ext[i], share);
    float scaled = float(share) * TINT_SCALE;
    atomicAdd(accum_tint_r[i], uint(scaled * c.tint.r));
    atomicAdd(accum_tint_g[i], uint(scaled * c.tint.g));
    atomicAdd(accum_tint_b[i], uint(scaled * c.tint.b));
    if (c.emissive) {
        atomicAdd(accum_emissive[i], uint(scaled));
    }
}

// The units of slab k (cells with z = lo.z + k): the floor of its share, the rest to the peak slab.
uint slab_units(uint units, Axis z, int k) {
    if (k != z.peak) {
        return uint(float(units) * axis_weight(z, k));
    }
    uint others = 0u;
    for (int i = 0; i <= z.range.y - z.range.x; ++i) {
        if (i != z.peak) {
            others += uint(float(units) * axis_weight(z, i));
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
    for (int l = 0; l < LEVELS; ++l) {
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

// Adds slab `slab` of carrier `c` (pool slot `slot`, `units` in all) to its cells.
void splat_slab(Carrier c, int level, uint units, Axis ax, Axis ay, Axis az, int slab) {
    uint slab_total = slab_units(units, az, slab);
    ivec3 lo = ivec3(ax.range.x, ay.range.x, az.range.x + slab);
    uint written = 0u;
    for (int y = 0; y <= ay.range.y - ay.range.x; ++y) {
        float wy = axis_weight(ay, y);
        for (int x = 0; x <= ax.range.y - ax.range.x; ++x) {
            uint share = uint(float(slab_total) * (wy * axis_weight(ax, x)));
            written += share;
            add_cell(level, lo + ivec3(x, y, 0), share, c);
        }
    }
    ivec3 peak = lo + ivec3(ax.peak, ay.peak, 0);
    uint rest = slab_total - written;
    uint s = slot_of(level, peak);
    if (s != PAGE_NONE) {
        atomicAdd(accum_ext[s * uint(BRICK_CELLS) + uint(cell_in_brick(peak))], rest);
    } else {
        add_u64(C_CLIPPED_LO + 2u * uint(level), rest);
    }
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
    if (wide_pass) {
        if (slab < slabs) {
            splat_slab(c, level, units, ax, ay, az, slab);
        }
        return;
    }
    if (slabs <= SMALL_KERNEL_SLABS || !defer_wide(i)) {
        for (int k = 0; k < slabs; ++k) {
            splat_slab(c, level, units, ax, ay, az, k);
        }
    }
    count_carrier(counts, level, units, mass);
}
