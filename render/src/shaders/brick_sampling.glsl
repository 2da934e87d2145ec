// Sampling the particle fog's bricks (fog.brick_light, fog.brick_march): the slot of the brick
// holding a point, atlas coordinates and the extinction summed over the levels (fog::density::Field
// is the CPU twin). Include after bricks.glsl (BRICKS_SAMPLING_ONLY) and after declaring
// `sampler3D atlas_density`; set `used_levels` (bit L: a brick of level L is in use) before use.
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

#endif
