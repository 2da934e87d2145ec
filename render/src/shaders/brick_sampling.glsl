// Sampling the particle fog's bricks (fog.brick_light, fog.brick_march): the slot of the brick
// holding a point, atlas coordinates, the extinction summed over the levels (fog::density::Field
// is the CPU twin) and the optical depth toward the sun. Include after bricks.glsl
// (BRICKS_SAMPLING_ONLY) and after declaring `sampler3D atlas_density`; set `used_levels` (bit L:
// a brick of level L is in use) before use.
#ifndef BRICK_SAMPLING_GLSL
#define BRICK_SAMPLING_GLSL

// Levels with bricks in use this frame (bit L), read once per invocation.
uint used_levels;

bool level_used(int level) {
    return ((used_levels >> uint(level)) & 1u) != 0u;
}

// The slot of the level-L brick holding p, or PAGE_NONE.
uint slot_at(int level, vec3 p) {
    int at = page_index(level, brick_of(ivec3(floor(p / level_voxel_m(level)))));
    if (at < 0) {
        return PAGE_NONE;
    }
    uint s = page[at];
    return s >= PAGE_REQUESTED ? PAGE_NONE : s;
}

// Atlas coordinates (normalised) of point p on level L in slot s.
vec3 atlas_uvw(int level, uint slot, vec3 p) {
    float vox = level_voxel_m(level);
    vec3 local = p / vox - vec3(brick_of(ivec3(floor(p / vox))) * BRICK_VOXELS);
    vec3 texel = vec3(atlas_texel(slot, ivec3(0))) + 1.0 + local;
    return texel / vec3(textureSize(atlas_density, 0));
}

// Extinction (1/m) at p, summed over the levels, trilinear on each.
float extinction_at(vec3 p) {
    float e = 0.0;
    for (int level = 0; level < LEVELS; ++level) {
        if (!level_used(level)) {
            continue;
        }
        uint slot = slot_at(level, p);
        if (slot != PAGE_NONE) {
            e += textureLod(atlas_density, atlas_uvw(level, slot, p), 0.0).r;
        }
    }
    return e;
}

// Segments of the sun's self-shadow ray (sun_self_depth).
const int SUN_DEPTH_SEGMENTS = 7;

// The extinction sun_self_depth integrates: the bricks' (extinction_at), unless the includer
// defines SUN_RAY_EXTINCTION as a function of its own (declared before the include).
#ifndef SUN_RAY_EXTINCTION
#define SUN_RAY_EXTINCTION extinction_at
#endif

// The particle fog's optical depth from p toward the sun (unit direction to_sun): SUN_DEPTH_SEGMENTS
// segments of doubling length from p itself, the first half a voxel long, each sampled at its
// middle (about 64 voxels in all). fog.brick_light takes it at each atlas voxel, the march at
// the points where a voxel's interpolated depth is too coarse.
float sun_self_depth(vec3 p, vec3 to_sun, float voxel) {
    float tau = 0.0;
    float d = 0.5 * voxel;
    float t = 0.0;
    for (int i = 0; i < SUN_DEPTH_SEGMENTS; ++i) {
        tau += SUN_RAY_EXTINCTION(p + to_sun * (t + 0.5 * d)) * d;
        t += d;
        d *= 2.0;
    }
    return tau;
}

#endif
