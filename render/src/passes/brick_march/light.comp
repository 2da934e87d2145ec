#version 460
// fog.brick_light: the light the particle fog scatters toward the camera, once per atlas voxel of
// each brick in use (LIGHT_GROUPS workgroups per brick, a thread per voxel; workgroup x is the
// brick's place in the list of bricks in use, as for fog.brick_resolve), so that the march reads
// it with one texture fetch per level instead of lighting every step of every ray.
//
// Per voxel centre p (the 8^3 interior and the one-voxel apron, so the march's trilinear lookups
// are seamless):
// - atlas_light rgb: the light scattered toward the camera by every light but the sun: the ambient
//   term, local lights and projectors through light_arriving (their shadow maps and textures),
//   with the froxel fog's Henyey-Greenstein phase for the direction from the camera to p (every
//   ray reaching p comes from the camera);
// - atlas_light a: the share of the sun's light that reaches p past the opaque world (its cascaded
//   shadow map), times 1 - the billboard match (below);
// - atlas_sun: the particle fog's own optical depth from p toward the sun (self-shadowing,
//   sun_self_depth in brick_sampling.glsl).
// The march adds the sun's light with its ray's phase times exp(-depth) of the interpolated depth,
// or, at a ray's first steps that absorb much, of the depth along the step's own ray toward the
// sun: in a dense cloud the sun's light falls by e within centimetres, far faster than across a
// voxel. Bricks whose peak extinction is 0 are skipped (the march weights the light by
// extinction).
//
// Toward RenderVKParticleFogRange the light is eased to the billboards' by the billboard match of
// the systems in the voxel's brick (fog.brick_resolve leaves it in atlas_light's alpha, which this
// pass reads and then replaces with the sun's share: particle_fog::systems::billboard_match of
// each system's distance, from none at two fade bands inside the range to all of it at one, where
// the range fade begins), so the fog fading out there is lit as the billboards fading in are: with
// the match m, rgb becomes mix(rgb, billboards, m) and the sun's share is scaled by 1 - m. The
// billboards' light is what fog.carrier_light gathered for the voxel's brick: the
// coverage-weighted mean of the light its carriers' billboards show over their quads
// (billboard_light.glsl: the lighting model of particles.billboards, a normal facing the camera,
// cos/pi of each light with its shadows, no self-shadowing, no phase function). Where it gathered
// none, a billboard's light at the voxel is taken; where no brick held enough to tell the match,
// the same formula of the voxel's own distance (push.params.w: the range, m).
#include "lighting.glsl"
#include "billboard_light.glsl"
#include "froxel_common.glsl"
#define BRICKS_SAMPLING_ONLY
#define BRICK_CONSTANTS_BINDING 7
#define BRICK_PAGE_BINDING 8
#define BRICK_SLOT_MAX_BINDING 9
#include "bricks.glsl"
layout(set = 0, binding = 10) uniform sampler3D atlas_density;
#include "brick_sampling.glsl"

layout(local_size_x = 128) in;

layout(std430, set = 0, binding = 11) readonly buffer Counters { uint counters[]; };
layout(std430, set = 0, binding = 12) readonly buffer Requests { uint requests[]; };
layout(std430, set = 0, binding = 13) readonly buffer SlotKey { ivec4 slot_key[]; };
// rgb the light but the sun's, a the share of the sun's light the shadow map and the billboard
// match leave (written here); a holds the billboard match fog.brick_resolve left until this pass
// reads it.
layout(set = 0, binding = 14, rgba16f) uniform image3D atlas_light;
// Per slot, fog.carrier_light's sums of its carriers' billboards' light (weight, r, g, b as u64
// (lo, hi) pairs), when push.gathered.x is 1.
layout(std430, set = 0, binding = 15) readonly buffer BillboardLight { uint billboard_sums[]; };
// The particle fog's optical depth toward the sun (written here).
layout(set = 0, binding = 16) uniform writeonly image3D atlas_sun;
layout(push_constant) uniform Push { FogMarchPush push; };

// Workgroups per brick (particle_fog::pool::LIGHT_GROUPS_PER_BRICK, the dispatch's y).
const uint LIGHT_GROUPS = 8u;

// Width of the range fade as a fraction of the range (particle_fog::systems::RANGE_FADE_FRACTION).
const float RANGE_FADE_FRACTION = 0.125;

bool froxel_on() {
    return push.params.x > 0.5;
}

// 0 inside range - 2 bands, 1 from range - band on (particle_fog::systems::billboard_match).
float billboard_match(float distance_m, float range_m) {
    float band = max(range_m * RANGE_FADE_FRACTION, 1e-3);
    return smoothstep(range_m - 2.0 * band, range_m - band, distance_m);
}

float u64_at(uint at) {
    return float(billboard_sums[at]) + float(billboard_sums[at + 1u]) * 4294967296.0;
}

// The mean light of the billboards of slot s's carriers (fog.carrier_light), or a negative value
// where none was gathered.
vec3 gathered_light(uint s) {
    if (push.gathered.x < 0.5 || s >= PAGE_REQUESTED) {
        return vec3(-1.0);
    }
    uint at = s * BILLBOARD_LIGHT_WORDS;
    float weight = u64_at(at);
    if (weight < 1.0) {
        return vec3(-1.0);
    }
    return vec3(u64_at(at + 2u), u64_at(at + 4u), u64_at(at + 6u)) / weight;
}

// The share of the sun's light that reaches p past the opaque world (its cascaded shadow map).
float sun_visible(vec3 p) {
    return frame.sun_dir.w > 0.0 ? sun_shadow(p, vec3(0.0), 0.0) : 0.0;
}

// Every light at p but the sun: ambient, local lights and projectors with the froxel fog's phase.
vec3 in_scattered_local(vec3 p, vec3 view_dir) {
    // The froxel fog's phase asymmetry (isotropic without the froxel fog, whose uniform is then a
    // stand-in).
    float g = froxel_on() ? fog.height_fog.w : 0.0;
    vec3 light = 0.5 * (ambient_for(vec3(0.0, 0.0, 1.0)) + ambient_for(vec3(0.0, 0.0, -1.0)));
    for (uint i = 0u; i < frame.counts.x; ++i) {
        vec3 to_light;
        vec3 arriving = light_arriving(i, p, vec3(0.0), 0.0, to_light);
        vec3 d = lights[i].position_range.xyz - p;
        float sphere = min(1.0, dot(d, d) / (LOCAL_LIGHT_RADIUS_M * LOCAL_LIGHT_RADIUS_M));
        light += arriving * sphere * henyey_greenstein(dot(view_dir, to_light), g);
    }
    return light;
}

void main() {
    uint slot = requests[bricks.params.z + gl_WorkGroupID.x];
    if (uintBitsToFloat(slot_max[slot]) <= 0.0) {
        return;
    }
    ivec4 key = slot_key[slot];
    used_levels = counters[C_LEVELS];
    float voxel = level_voxel_m(key.w);
    const uint STORED = uint(BRICK_STORED * BRICK_STORED * BRICK_STORED);
    const uint PER_GROUP = (STORED + LIGHT_GROUPS - 1u) / LIGHT_GROUPS;
    uint first = gl_WorkGroupID.y * PER_GROUP;
    for (uint v = first + gl_LocalInvocationIndex; v < min(first + PER_GROUP, STORED); v += gl_WorkGroupSize.x) {
        ivec3 local = ivec3(int(v) % BRICK_STORED, (int(v) / BRICK_STORED) % BRICK_STORED,
                            int(v) / (BRICK_STORED * BRICK_STORED));
        vec3 p = (vec3(key.xyz * BRICK_VOXELS + local - ivec3(1)) + 0.5) * voxel;
        vec3 view_dir = normalize(p - frame.camera_pos.xyz);
        ivec3 texel = atlas_texel(slot, local);
        float match_billboards = imageLoad(atlas_light, texel).a;
        if (match_billboards < 0.0) {
            match_billboards = billboard_match(distance(p, frame.camera_pos.xyz), push.params.w);
        }
        bool own = match_billboards < 1.0;
        vec3 lit = own ? in_scattered_local(p, view_dir) : vec3(0.0);
        float sun = own ? sun_visible(p) * (1.0 - match_billboards) : 0.0;
        float self_depth = sun > 0.0 ? sun_self_depth(p, frame.sun_dir.xyz, voxel) : 0.0;
        if (match_billboards > 0.0) {
            // The light of the billboards of the carriers in the brick holding the voxel (the apron's
            // neighbour), else this brick's, else a billboard's at the voxel.
            ivec3 cell = key.xyz * BRICK_VOXELS + local - ivec3(1);
            int at = page_index(key.w, brick_of(cell));
            vec3 billboards = gathered_light(at < 0 ? PAGE_NONE : page[at]);
            if (billboards.r < 0.0) {
                billboards = gathered_light(slot);
            }
            if (billboards.r < 0.0) {
                billboards = billboard_light(p);
            }
            lit = mix(lit, billboards, match_billboards);
        }
        if (any(isnan(lit)) || any(isinf(lit))) {
            lit = vec3(0.0);
        }
        if (isnan(sun) || isnan(self_depth)) {
            sun = 0.0;
            self_depth = 0.0;
        }
        imageStore(atlas_light, texel, vec4(min(lit, vec3(60000.0)), clamp(sun, 0.0, 1.0)));
        imageStore(atlas_sun, texel, vec4(min(self_depth, 60000.0)));
    }
}
