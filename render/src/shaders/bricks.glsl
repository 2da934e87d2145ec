// Particle-fog density bricks: the bindings shared by the brick passes (fog.brick_age,
// fog.brick_mark, fog.brick_alloc, fog.brick_splat, fog.brick_resolve, fog.brick_clear), the
// layout constants and the carrier kernel. The CPU twin is fog::{bricks, kernel, splat}; the
// constants below mirror fog::bricks and fog::kernel (test: particle_fog::tests).
#ifndef BRICKS_GLSL
#define BRICKS_GLSL
#include "gpu_types.glsl"

// ---- Layout (fog::bricks) ----
const int BRICK_VOXELS = 8;
const int BRICK_CELLS = 512;
const int BRICK_STORED = 10;
const int LEVELS = 8;
const int CLIP_BRICKS = 32;
const float DISTANCE_LEVEL0_VOXELS = 96.0;
const float SUPPORT_SIGMAS = 2.0;
const float MIN_SIGMA_VOXELS = 0.5;
const float MAX_SIGMA_TOP_VOXELS = 2.0;
const int MAX_AXIS_CELLS = 9;
// ---- Kernel and fixed point (fog::kernel) ----
const float KERNEL_K_MIN = 0.1;
const float KERNEL_K_MAX = 0.4;
const float KERNEL_DIFFUSION_M2_PER_S = 0.001;
const float SPLAT_SIGMA_MIN_VOXELS = 0.25;
const float EXTINCTION_UNITS_PER_INV_M = 16384.0;
const float MAX_CARRIER_UNITS = 1.0e9;
const float TINT_SCALE = 1.0 / 16.0;
const float MAX_CARRIER_SIZE_M = 1000.0;
// Expected mass is counted as a u64 in units of 2^-32 m^2 (whole m^2 in the high word).
const float EXPECTED_MASS_UNITS_PER_M2 = 4294967296.0;

// Page-table entries: a slot index, or one of these.
const uint PAGE_NONE = 0xFFFFFFFFu;
const uint PAGE_REQUESTED = 0xFFFFFFFEu;
// Slots keep their brick while unused for this many frames (1 under pressure).
const uint KEEP_FRAMES = 4u;

// ---- Counters (fog.bricks.counters), u32 indices; mirrored in particle_fog/counters.rs ----
const uint C_USED = 0u;          // bricks in use this frame = indirect dispatch x
// 1, 2: indirect dispatch y, z (1)
const uint C_REQUESTS = 3u;
const uint C_CARRIERS = 4u;
const uint C_POISONED = 5u;
const uint C_TOO_LARGE = 6u;
const uint C_ALLOC_FAILED = 7u;
const uint C_EVICTED = 8u;
const uint C_REQUEST_OVERFLOW = 9u;
const uint C_EXPECTED_LO = 10u;  // expected mass, u64 (lo, hi)
const uint C_UNITS_LO = 12u;     // splatted units per level, u64 each (16 words)
const uint C_CLIPPED_LO = 28u;   // units lost to missing bricks per level, u64 each (16 words)
const uint C_BOUNDS = 44u;       // box of the bricks in use, level-0 voxels biased by 2^31: min xyz, max xyz
const uint C_LEVELS = 50u;       // bit L set when a brick of level L is in use
const uint C_WIDE_ARGS = 51u;    // the wide splat's indirect dispatch: x groups, y slabs, z 1
const uint C_WIDE_COUNT = 54u;   // wide carriers handed to it
const uint C_WORDS = 55u;

// Particle flags used here (particles::types::PartFlags).
const uint PF_EMISSIVE_BIT = 0x100u;

// The march binds only the constants, the page table and the peaks (BRICKS_SAMPLING_ONLY, with its
// own binding numbers); the brick passes bind everything at 0..17 (17, atlas_light, is declared by
// fog.brick_resolve alone).
#ifndef BRICK_CONSTANTS_BINDING
#define BRICK_CONSTANTS_BINDING 0
#define BRICK_PAGE_BINDING 5
#define BRICK_SLOT_MAX_BINDING 16
#endif
layout(set = 0, binding = BRICK_CONSTANTS_BINDING) uniform BrickConstants { BrickUniform bricks; };
layout(std430, set = 0, binding = BRICK_PAGE_BINDING) coherent buffer Page { uint page[]; };
layout(std430, set = 0, binding = BRICK_SLOT_MAX_BINDING) buffer SlotMax { uint slot_max[]; };
// The carriers (the particle pool, its alive lists and counters, the sources' fog inputs): bound
// by the brick passes at 1..4, and by a pass that samples the bricks and defines BRICK_CARRIERS
// (fog.carrier_light) at BRICK_POOL_BINDING..+3.
#if !defined(BRICKS_SAMPLING_ONLY) || defined(BRICK_CARRIERS)
#define BRICK_HAS_CARRIERS
#ifndef BRICK_POOL_BINDING
#define BRICK_POOL_BINDING 1
#endif
layout(std430, set = 0, binding = BRICK_POOL_BINDING) readonly buffer Pool { GpuParticle pool[]; };
layout(std430, set = 0, binding = BRICK_POOL_BINDING + 1) readonly buffer Alive { uint alive[]; };
layout(std430, set = 0, binding = BRICK_POOL_BINDING + 2) readonly buffer ParticleCounters {
    GpuParticleCounters particle_counters;
};
layout(std430, set = 0, binding = BRICK_POOL_BINDING + 3) readonly buffer FogSources { GpuFogSource fog_sources[]; };
#endif
#ifndef BRICKS_SAMPLING_ONLY
layout(std430, set = 0, binding = 6) buffer SlotKey { ivec4 slot_key[]; };
layout(std430, set = 0, binding = 7) buffer SlotFrame { uint slot_frame[]; };
// free_list[0] is the count; entries follow.
layout(std430, set = 0, binding = 8) buffer FreeList { uint free_list[]; };
layout(std430, set = 0, binding = 9) buffer Requests { uint requests[]; };
layout(std430, set = 0, binding = 10) buffer Counters { uint counters[]; };
layout(std430, set = 0, binding = 11) buffer SystemBricks { uint system_bricks[]; };
layout(std430, set = 0, binding = 12) buffer AccumExt { uint accum_ext[]; };
// TINT_WORDS words per slot: tint r, g, b, emissive, their weight and the billboard match, each
// x units x TINT_SCALE.
layout(std430, set = 0, binding = 13) buffer AccumTint { uint accum_tint[]; };
layout(set = 0, binding = 14, r32f) uniform writeonly image3D atlas_density;
layout(set = 0, binding = 15, rgba8) uniform writeonly image3D atlas_tint;

#endif

// Words of accum_tint per slot (fog::splat::TINT_WORDS).
const uint TINT_WORDS = 6u;
// Words of fog.bricks.billboard_light per slot: weight, r, g, b, each a u64 (lo, hi)
// (particle_fog::pool::BILLBOARD_LIGHT_WORDS; fog.carrier_light, fog.brick_light).
const uint BILLBOARD_LIGHT_WORDS = 8u;

// ---- Helpers ----
ivec3 level_origin(int level) {
    switch (level) {
        case 0: return bricks.origin0.xyz;
        case 1: return bricks.origin1.xyz;
        case 2: return bricks.origin2.xyz;
        case 3: return bricks.origin3.xyz;
        case 4: return bricks.origin4.xyz;
        case 5: return bricks.origin5.xyz;
        case 6: return bricks.origin6.xyz;
        default: return bricks.origin7.xyz;
    }
}

float level_voxel_m(int level) {
    return bricks.camera_voxel.w * float(1u << uint(level));
}

// Page index of world brick b on level, or -1 outside its clip window.
int page_index(int level, ivec3 b) {
    ivec3 p = b - level_origin(level);
    if (any(lessThan(p, ivec3(0))) || any(greaterThanEqual(p, ivec3(CLIP_BRICKS)))) {
        return -1;
    }
    return ((level * CLIP_BRICKS + p.z) * CLIP_BRICKS + p.y) * CLIP_BRICKS + p.x;
}

// The world brick and level of page index i.
ivec4 page_brick(uint i) {
    int n = CLIP_BRICKS;
    int x = int(i) % n;
    int y = (int(i) / n) % n;
    int z = (int(i) / (n * n)) % n;
    int level = int(i) / (n * n * n);
    return ivec4(level_origin(level) + ivec3(x, y, z), level);
}

ivec3 brick_of(ivec3 cell) {
    return cell >> 3;
}

int cell_in_brick(ivec3 cell) {
    ivec3 l = cell & ivec3(BRICK_VOXELS - 1);
    return (l.z * BRICK_VOXELS + l.y) * BRICK_VOXELS + l.x;
}

// The atlas texel of voxel `local` (0..9, apron included) of slot `slot`.
ivec3 atlas_texel(uint slot, ivec3 local) {
    uint row = bricks.counts.z;
    uint layer = bricks.counts.w;
    ivec3 b = ivec3(int(slot % row), int((slot / row) % (layer / row)), int(slot / layer));
    return b * BRICK_STORED + local;
}

// fog::kernel::erf (Abramowitz and Stegun 7.1.26).
float erf_as(float x) {
    const float P = 0.3275911;
    float ax = abs(x);
    float t = 1.0 / (1.0 + P * ax);
    float poly = t * (0.2548296 + t * (-0.28449674 + t * (1.4214137 + t * (-1.4531521 + t * 1.0614054))));
    float y = 1.0 - poly * exp(-ax * ax);
    return x < 0.0 ? -y : y;
}

float phi(float x) {
    return 0.5 * (1.0 + erf_as(x * 0.70710678));
}

uint pcg_hash(uint v) {
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

float rounding_uniform(uint key, uint frame) {
    return float(pcg_hash(key ^ pcg_hash(frame)) >> 8u) * (1.0 / 16777216.0);
}

#ifdef BRICK_HAS_CARRIERS
// Live particles in the alive list the carriers are read from (bricks.params.x).
uint alive_count() {
    return bricks.params.x == 0u ? particle_counters.alive0 : particle_counters.alive1;
}

// A carrier as the splat sees it (fog::splat::Carrier).
struct Carrier {
    vec3 position;
    vec2 size;
    float age;
    float alpha;
    float tex_mean_alpha;
    float weight;
    float density_scale;
    vec3 tint;
    bool emissive;
    float billboard_match;
};

Carrier carrier_of(uint slot) {
    GpuParticle p = pool[slot];
    GpuFogSource s = fog_sources[p.ids.x];
    Carrier c;
    c.position = p.pos_age.xyz;
    c.size = p.scale.xy;
    c.age = p.pos_age.w;
    c.alpha = p.color.a;
    c.tex_mean_alpha = s.weight_mass.y;
    c.weight = s.weight_mass.x;
    c.density_scale = s.weight_mass.z;
    // tint.w 1: the debug view's hue for the source replaces the particle's colour.
    c.tint = s.tint.w > 0.5 ? s.tint.rgb : clamp(p.color.rgb, 0.0, 1.0) * s.tint.rgb;
    c.emissive = (p.ids.z & PF_EMISSIVE_BIT) != 0u;
    c.billboard_match = s.weight_mass.w;
    return c;
}

float carrier_mass(Carrier c) {
    return c.size.x * c.size.y * c.alpha * c.tex_mean_alpha * c.weight * c.density_scale;
}

bool finite(float v) {
    return !isnan(v) && !isinf(v);
}

bool carrier_poisoned(Carrier c) {
    bool ok = finite(c.position.x) && finite(c.position.y) && finite(c.position.z) && finite(c.size.x)
        && finite(c.size.y) && finite(c.age) && finite(c.alpha) && finite(c.tex_mean_alpha)
        && finite(c.weight) && finite(c.density_scale);
    ok = ok && c.size.x >= 0.0 && c.size.y >= 0.0 && c.size.x <= MAX_CARRIER_SIZE_M
        && c.size.y <= MAX_CARRIER_SIZE_M && c.alpha >= 0.0 && c.age >= 0.0;
    return !ok;
}

// The kernel's width per metre of sprite, from the texture's mean alpha (fog::kernel's width law).
float kernel_k(Carrier c) {
    return clamp(sqrt(c.tex_mean_alpha / 6.2831853), KERNEL_K_MIN, KERNEL_K_MAX);
}

// fog::kernel::kernel_sigma_m.
float kernel_sigma(Carrier c) {
    float s = sqrt(max(c.size.x * c.size.y, 0.0));
    float k = kernel_k(c);
    return sqrt((k * s) * (k * s) + 2.0 * KERNEL_DIFFUSION_M2_PER_S * max(c.age, 0.0));
}

// fog::kernel::splat_sigma_m: the width splatted on voxels of `vox`, less what the cells and the
// march's trilinear reconstruction add.
float splat_sigma(float sigma, float vox) {
    return max(sqrt(max(sigma * sigma - 0.25 * vox * vox, 0.0)), SPLAT_SIGMA_MIN_VOXELS * vox);
}

// fog::bricks::kernel_level; -1 when too large for the top level.
int kernel_level(float sigma, float distance) {
    int level = 0;
    while (level + 1 < LEVELS && distance > DISTANCE_LEVEL0_VOXELS * level_voxel_m(level)) {
        level++;
    }
    while (level + 1 < LEVELS && MIN_SIGMA_VOXELS * level_voxel_m(level + 1) <= sigma) {
        level++;
    }
    float vox = level_voxel_m(level);
    bool fits = sigma < MAX_SIGMA_TOP_VOXELS * vox && distance <= DISTANCE_LEVEL0_VOXELS * vox;
    return fits ? level : -1;
}

// fog::bricks::support_cells: (lo, hi) on one axis.
ivec2 support_cells(float mu, float sigma, float vox) {
    int lo = int(floor((mu - SUPPORT_SIGMAS * sigma) / vox));
    int hi = int(floor((mu + SUPPORT_SIGMAS * sigma) / vox));
    return ivec2(lo, min(hi, lo + MAX_AXIS_CELLS - 1));
}

#endif

#ifndef BRICKS_SAMPLING_ONLY
// Adds mass m (m^2) to the u64 counter at counters[at] in units of 2^-32 m^2.
void add_mass(uint at, float m) {
    float whole = floor(m);
    uint lo = uint(min((m - whole) * EXPECTED_MASS_UNITS_PER_M2, 4294967295.0));
    uint old = atomicAdd(counters[at], lo);
    uint carry = old + lo < old ? 1u : 0u;
    atomicAdd(counters[at + 1u], uint(whole) + carry);
}

// Adds v to the u64 counter at counters[at], counters[at + 1].
void add_u64(uint at, uint v) {
    uint old = atomicAdd(counters[at], v);
    if (old + v < old) {
        atomicAdd(counters[at + 1u], 1u);
    }
}
#endif
#endif
