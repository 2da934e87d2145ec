#version 460
// fog.brick_resolve: one workgroup per brick in use this frame. Converts the fixed-point
// accumulators of its 10^3 atlas voxels (the 8^3 interior and a one-voxel apron read from the
// neighbouring bricks through the page table, zero where none is allocated) into extinction
// (1/m, atlas_density) and tint and emissive fraction (atlas_tint: rgb the extinction-weighted
// mean tint of the brick holding the voxel, a its emissive share; a brick holding almost nothing
// takes the mean of its face neighbours', and an apron voxel of a neighbour that is not allocated
// or holds almost nothing takes this brick's own, so the march's trilinear tint, which is not
// weighted by density, does not fade to white and not emissive at the edge of the fog), the
// brick's peak extinction (slot_max, for the march's empty-space skipping), and for fog.brick_light
// the billboard match of the brick holding each voxel (atlas_light's alpha, until fog.brick_light
// replaces it with the sun's optical depth: the mass-weighted mean of its carriers' systems'
// particle_fog::systems::billboard_match, the apron's from its neighbour as the tint's; -1 where
// no brick holds enough to tell).
#include "bricks.glsl"
layout(local_size_x = 128) in;
layout(set = 0, binding = 17, rgba16f) uniform writeonly image3D atlas_light;

// Mass-weighted mean billboard match of slot `owner`, or `fallback` when it holds (almost) none.
float brick_match(uint owner, float fallback) {
    uint t = owner * TINT_WORDS;
    float weight = float(accum_tint[t + 4u]);
    return weight < 1.0 ? fallback : clamp(float(accum_tint[t + 5u]) / weight, 0.0, 1.0);
}

shared uint peak_bits;

// The mass-weighted mean tint and emissive share of slot `owner`, or `fallback` when it holds
// (almost) none.
vec4 brick_tint(uint owner, vec4 fallback) {
    uint t = owner * TINT_WORDS;
    float weight = float(accum_tint[t + 4u]);
    if (weight < 1.0) {
        return fallback;
    }
    vec4 sums = vec4(float(accum_tint[t]), float(accum_tint[t + 1u]), float(accum_tint[t + 2u]),
                     float(accum_tint[t + 3u]));
    return clamp(sums / weight, 0.0, 1.0);
}

// The mean tint of the six face neighbours of brick `key` that hold one (white, not emissive when
// none does): the tint of a brick holding only the thin edge of its neighbours' fog.
vec4 neighbour_tint(ivec4 key) {
    vec4 sum = vec4(0.0);
    float count = 0.0;
    for (int i = 0; i < 6; ++i) {
        ivec3 d = ivec3(0);
        d[i / 2] = (i & 1) == 0 ? -1 : 1;
        int at = page_index(key.w, key.xyz + d);
        uint owner = at < 0 ? PAGE_NONE : page[at];
        if (owner < PAGE_REQUESTED && float(accum_tint[owner * TINT_WORDS + 4u]) >= 1.0) {
            sum += brick_tint(owner, vec4(0.0));
            count += 1.0;
        }
    }
    return count > 0.0 ? sum / count : vec4(1.0, 1.0, 1.0, 0.0);
}

void main() {
    uint slot = requests[bricks.params.z + gl_WorkGroupID.x];
    ivec4 key = slot_key[slot];
    if (gl_LocalInvocationIndex == 0u) {
        peak_bits = 0u;
    }
    barrier();
    vec4 own_tint = brick_tint(slot, neighbour_tint(key));
    float own_match = brick_match(slot, -1.0);
    const uint STORED = uint(BRICK_STORED * BRICK_STORED * BRICK_STORED);
    for (uint v = gl_LocalInvocationIndex; v < STORED; v += gl_WorkGroupSize.x) {
        ivec3 local = ivec3(int(v) % BRICK_STORED, (int(v) / BRICK_STORED) % BRICK_STORED,
                            int(v) / (BRICK_STORED * BRICK_STORED));
        ivec3 cell = key.xyz * BRICK_VOXELS + local - ivec3(1);
        int at = page_index(key.w, brick_of(cell));
        uint owner = at < 0 ? PAGE_NONE : page[at];
        float ext = 0.0;
        vec4 tint = own_tint;
        float match_billboards = own_match;
        if (owner < PAGE_REQUESTED) {
            uint i = owner * uint(BRICK_CELLS) + uint(cell_in_brick(cell));
            ext = float(accum_ext[i]) / EXTINCTION_UNITS_PER_INV_M;
            tint = owner == slot ? own_tint : brick_tint(owner, own_tint);
            match_billboards = owner == slot ? own_match : brick_match(owner, own_match);
        }
        imageStore(atlas_density, atlas_texel(slot, local), vec4(ext));
        imageStore(atlas_tint, atlas_texel(slot, local), tint);
        imageStore(atlas_light, atlas_texel(slot, local), vec4(0.0, 0.0, 0.0, match_billboards));
        atomicMax(peak_bits, floatBitsToUint(ext));
    }
    barrier();
    if (gl_LocalInvocationIndex == 0u) {
        slot_max[slot] = peak_bits;
        atomicOr(counters[C_LEVELS], 1u << uint(key.w));
        // The box of the bricks in use, for the march (level-0 voxels, biased to unsigned order).
        ivec3 lo = (key.xyz * BRICK_VOXELS) << key.w;
        ivec3 hi = ((key.xyz + 1) * BRICK_VOXELS) << key.w;
        for (uint a = 0u; a < 3u; ++a) {
            atomicMin(counters[C_BOUNDS + a], uint(lo[a]) ^ 0x80000000u);
            atomicMax(counters[C_BOUNDS + 3u + a], uint(hi[a]) ^ 0x80000000u);
        }
    }
}
