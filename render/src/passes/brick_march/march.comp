#version 460
// fog.brick_march: the particle fog ray-marched through the bricks, one ray per divisor x divisor
// pixels (push.params.z; the centre pixel of each block), with the froxel fog by depth; the rays
// are brought to every pixel and composited by fog.brick_composite.
//
// Ray: from the camera to the opaque depth, clipped to the box of the bricks in use (bounds left
// by fog.brick_resolve in the counters). Empty-space skipping: where no level has an occupied
// brick (allocated, peak extinction > 0), the ray jumps to the exit of the finest brick holding the
// point; inside occupied bricks it steps one voxel of the finest occupied level. The start is
// jittered per ray and frame (interleaved gradient noise; fog.brick_composite's Gaussian averages
// neighbouring rays), and the march stops at the opaque depth or when the transmittance falls
// below MIN_TRANSMITTANCE.
//
// Density: on each level, the atlas sampled trilinearly (hardware filtering inside the brick,
// the apron holding the neighbours' cells), summed over the levels (fog::density::Field is the
// CPU twin), at a point displaced by the billow warp: a divergence-free displacement (a sum of
// curl modes sin(k.p + phase) (k x a)) whose Jacobian determinant weights the density read through
// it (the change of variables), so it moves density without creating or destroying it, drifting at
// RenderVKParticleFogBillowSpeed; two copies with phases a half period apart are cross-faded so no
// copy is advected long enough to stretch.
//
// Light: what fog.brick_light left for each voxel (ambient, local lights and projectors with the
// froxel fog's phase; the sun's share past its shadow map; the particle fog's optical depth toward
// the sun), read at the same point as the density and weighted by each level's extinction; the
// sun adds its light with the ray's phase times exp(-depth), the depth interpolated, or at the
// ray's first MAX_SUN_RAYS steps absorbing over DENSE_STEP taken along the step's own ray toward
// the sun through the billow warp; scattering albedo = the splatted tint; fullbright carriers add
// their tint as emission. Each step integrates analytically (Hillaire 2015).
//
// Composite with the froxel fog by depth: with S_f(t), T_f(t) the froxel fog's in-scatter and
// transmittance up to distance t, the pixel becomes
//   S_f(t0) + sum_k T_p(t_k) (S_f(t_k+1) - S_f(t_k)) + sum_k T_p(t_k) T_f(t_k) s_k
//   + T_p(end) (hdr - S_f(end)),
// i.e. froxel fog in front of the cloud attenuates and adds to it, the cloud attenuates whatever
// lies behind it (froxel fog included), and surfaces in front of the cloud are untouched. Each ray
// stores it as hdr * T + added (fog.brick_composite applies it). Billboards drawn afterwards look
// up where along their pixel's ray the cloud starts and ends and its optical depth (the `cloud`
// image) and are attenuated by the part in front of them.
#include "gpu_types.glsl"
layout(std140, set = 0, binding = 0) uniform Frame { FrameUniform frame; };
#define FOG_UNIFORM_BINDING 1
#include "froxel_common.glsl"
#define BRICKS_SAMPLING_ONLY
#define BRICK_CONSTANTS_BINDING 5
#define BRICK_PAGE_BINDING 6
#define BRICK_SLOT_MAX_BINDING 7
#include "bricks.glsl"
layout(set = 0, binding = 8) uniform sampler3D atlas_density;
// The sun's rays from the march see the density the march sees (through the billow warp).
float warped_extinction_at(vec3 p);
#define SUN_RAY_EXTINCTION warped_extinction_at
#include "brick_sampling.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 2) uniform sampler3D integrated;
layout(set = 0, binding = 3) uniform sampler2D depth_tex;
// Per ray (reduced resolution): rgb what the particle fog adds, a the transmittance T it leaves to
// what lies behind; fog.brick_composite makes the pixel hdr * T + rgb.
layout(set = 0, binding = 4, rgba32f) uniform writeonly image2D march_out;
layout(set = 0, binding = 9) uniform sampler3D atlas_tint;
// The light each atlas voxel scatters toward the camera (fog.brick_light).
layout(set = 0, binding = 10) uniform sampler3D atlas_light;
layout(std430, set = 0, binding = 11) readonly buffer Counters { uint counters[]; };
// Per ray: x distance where the particle fog starts, y where it ends (m along the ray), z its
// optical depth between them, w the distance to the opaque surface (fog.brick_composite's depth
// test and the billboards' `cloud` image).
layout(set = 0, binding = 12, rgba32f) uniform writeonly image2D march_cloud;
// The particle fog's optical depth from each voxel toward the sun (fog.brick_light).
layout(set = 0, binding = 13) uniform sampler3D atlas_sun;
layout(push_constant) uniform Push { FogMarchPush push; };

const float MIN_TRANSMITTANCE = 0.01;
const int MAX_STEPS = 384;
const float EMPTY_STEP_EPS_M = 1e-3;
// "No particle fog along this ray" in the cloud image (m).
const float NO_CLOUD = 60000.0;
// Distance standing for the sky (no opaque surface) (m).
const float SKY_DISTANCE = 1.0e30;
// Steps per voxel of the finest occupied level.
const float STEPS_PER_VOXEL = 1.0;
// Steps absorbing more than this share of the light take the sun's depth along their own ray.
const float DENSE_STEP = 0.1;
// At most this many steps of a ray take their own ray toward the sun (the nearest dense ones,
// which carry most of what the ray adds); the rest read the interpolated depth.
const int MAX_SUN_RAYS = 2;
// Displacement of the billow warp at strength 1, in billow periods per unit of the curl modes
// (fog::march::BILLOW_AMPLITUDE): strong enough to billow, weak enough that the warp stays
// one-to-one at the sliders' defaults and well beyond.
const float BILLOW_AMPLITUDE = 0.35;

// Interleaved gradient noise (Jimenez 2014), offset per frame by the golden ratio: a jitter whose
// error is high-frequency on screen.
float start_jitter(ivec2 px, uint frame_index) {
    vec2 p = vec2(px) + 5.588238 * float(frame_index % 64u);
    return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715))));
}

bool froxel_on() {
    return push.params.x > 0.5;
}

// The divergence-free billow displacement at p (m), and its derivative (column j: along axis j).
vec3 curl_modes(vec3 p, float phase, out mat3 jac) {
    const vec3 K[4] = vec3[4](vec3(1.0, 0.6, 0.3), vec3(-0.4, 1.1, 0.7), vec3(0.8, -0.5, 1.2), vec3(0.3, 0.9, -1.0));
    const vec3 A[4] = vec3[4](vec3(0.2, -0.7, 0.6), vec3(0.9, 0.1, -0.3), vec3(-0.5, 0.6, 0.4), vec3(0.6, 0.5, 0.2));
    float scale = push.billow.y;
    vec3 d = vec3(0.0);
    jac = mat3(0.0);
    for (int i = 0; i < 4; ++i) {
        vec3 k = K[i] * (6.2831853 / scale) * (1.0 + 0.37 * float(i));
        vec3 c = cross(k, A[i]) / dot(k, k);
        float arg = dot(k, p) + phase * (1.0 + 0.5 * float(i));
        d += cos(arg) * c;
        jac += outerProduct(-sin(arg) * c, k);
    }
    return d;
}

// The point whose density the march sees at p, and the warp's Jacobian determinant there (at
// least 0), which that density is weighted by so the warp neither creates nor destroys it
// (fog::march::Billow::extinction_at).
vec3 billow_point(vec3 p, out float jacobian) {
    jacobian = 1.0;
    float strength = push.billow.x;
    if (strength <= 0.0) {
        return p;
    }
    float scale = push.billow.y;
    float t = push.billow.z * push.billow.w / scale;  // advected phase (periods)
    float a = fract(t);
    float b = fract(t + 0.5);
    float wa = 1.0 - abs(2.0 * a - 1.0);                // each copy fades in and out over a period
    mat3 ja, jb;
    vec3 da = curl_modes(p, 6.2831853 * a, ja);
    vec3 db = curl_modes(p + vec3(17.3, -9.1, 4.7), 6.2831853 * b, jb);
    float amplitude = strength * scale * BILLOW_AMPLITUDE;
    jacobian = max(determinant(mat3(1.0) + amplitude * (wa * ja + (1.0 - wa) * jb)), 0.0);
    return p + amplitude * (wa * da + (1.0 - wa) * db);
}

// The extinction the march sees at p: the bricks' read through the billow warp, weighted by its
// Jacobian.
float warped_extinction_at(vec3 p) {
    float jacobian;
    vec3 q = billow_point(p, jacobian);
    return extinction_at(q) * jacobian;
}

struct Sample {
    float extinction;
    vec3 tint;
    float emissive;
    vec3 light;
    // The share of the sun's light past the shadow map and the billboard match, and the particle
    // fog's optical depth toward the sun, interpolated from the voxels.
    float sun_visible;
    float sun_depth;
};

// The voxel of the finest level with an occupied brick (allocated, peak above 0) at p, or 0.
float occupied_voxel(vec3 p) {
    for (int level = 0; level < LEVELS; ++level) {
        if (!level_used(level)) {
            continue;
        }
        uint slot = slot_at(level, p);
        if (slot != PAGE_NONE && uintBitsToFloat(slot_max[slot]) > 0.0) {
            return level_voxel_m(level);
        }
    }
    return 0.0;
}

Sample sample_at(vec3 p) {
    Sample s = Sample(0.0, vec3(0.0), 0.0, vec3(0.0), 0.0, 0.0);
    float jacobian;
    vec3 q = billow_point(p, jacobian);
    for (int level = 0; level < LEVELS; ++level) {
        if (!level_used(level)) {
            continue;
        }
        uint qs = slot_at(level, q);
        if (qs == PAGE_NONE) {
            continue;
        }
        vec3 uvw = atlas_uvw(level, qs, q);
        float e = textureLod(atlas_density, uvw, 0.0).r * jacobian;
        vec4 tint = textureLod(atlas_tint, uvw, 0.0);
        s.extinction += e;
        s.tint += tint.rgb * e;
        s.emissive += tint.a * e;
        vec4 light = textureLod(atlas_light, uvw, 0.0);
        s.light += light.rgb * e;
        s.sun_visible += light.a * e;
        s.sun_depth += textureLod(atlas_sun, uvw, 0.0).r * e;
    }
    if (s.extinction > 0.0) {
        s.tint /= s.extinction;
        s.emissive /= s.extinction;
        s.light /= s.extinction;
        s.sun_visible /= s.extinction;
        s.sun_depth /= s.extinction;
    }
    return s;
}

// Froxel fog (rgb in-scatter, a transmittance) up to distance t along the ray through uv.
vec4 froxel_at(vec2 uv, float t, float view_z_per_m) {
    return froxel_on() ? froxel_fog(integrated, uv, t * view_z_per_m) : vec4(0.0, 0.0, 0.0, 1.0);
}

bool ray_box(vec3 o, vec3 d, vec3 lo, vec3 hi, out float t0, out float t1) {
    vec3 inv = 1.0 / d;
    vec3 a = (lo - o) * inv;
    vec3 b = (hi - o) * inv;
    vec3 tmin = min(a, b);
    vec3 tmax = max(a, b);
    t0 = max(max(tmin.x, tmin.y), max(tmin.z, 0.0));
    t1 = min(min(tmax.x, tmax.y), tmax.z);
    return t1 > t0;
}

// Distance along d from p to the exit of the level-L brick holding p.
float brick_exit(vec3 p, vec3 d, int level) {
    float edge = level_voxel_m(level) * float(BRICK_VOXELS);
    vec3 lo = floor(p / edge) * edge;
    vec3 hi = lo + edge;
    vec3 t = max((lo - p) / d, (hi - p) / d);
    return min(min(t.x, t.y), t.z);
}

int finest_window_level(vec3 p) {
    for (int level = 0; level < LEVELS; ++level) {
        if (page_index(level, brick_of(ivec3(floor(p / level_voxel_m(level))))) >= 0) {
            return level;
        }
    }
    return LEVELS - 1;
}

// The full-resolution pixel this ray stands for: the centre pixel of its divisor x divisor block
// (the pixel itself at divisor 1).
ivec2 full_pixel(ivec2 low, ivec2 full_size) {
    int d = int(push.params.z);
    return min(low * d + d / 2, full_size - 1);
}

void main() {
    ivec2 low = ivec2(gl_GlobalInvocationID.xy);
    ivec2 low_size = imageSize(march_out);
    if (any(greaterThanEqual(low, low_size))) {
        return;
    }
    ivec2 size = textureSize(depth_tex, 0);
    ivec2 px = full_pixel(low, size);
    vec2 uv = (vec2(px) + 0.5) / vec2(size);
    vec2 ndc = uv * 2.0 - 1.0;
    vec3 cam = frame.camera_pos.xyz;
    vec4 far_h = frame.world_from_clip * vec4(ndc, 1.0, 1.0);
    vec3 dir = normalize(far_h.xyz / far_h.w - cam);
    float depth = texelFetch(depth_tex, px, 0).r;
    vec4 surf_h = frame.world_from_clip * vec4(ndc, depth, 1.0);
    float t_surface = depth >= 1.0 ? SKY_DISTANCE : length(surf_h.xyz / surf_h.w - cam);
    // Nothing marched: the pixel keeps what lies behind (T = 1, nothing added).
    imageStore(march_out, low, vec4(0.0, 0.0, 0.0, 1.0));
    imageStore(march_cloud, low, vec4(NO_CLOUD, NO_CLOUD, 0.0, t_surface));
    used_levels = counters[C_LEVELS];
    ivec3 bmin, bmax;
    for (uint a = 0u; a < 3u; ++a) {
        bmin[a] = int(counters[C_BOUNDS + a] ^ 0x80000000u);
        bmax[a] = int(counters[C_BOUNDS + 3u + a] ^ 0x80000000u);
    }
    if (any(greaterThan(bmin, bmax))) {
        return;
    }
    float view_z_per_m = froxel_on() ? dot(dir, fog.forward_tan.xyz) : 1.0;
    float vox0 = bricks.camera_voxel.w;
    float t0, t1;
    if (!ray_box(cam, dir, vec3(bmin) * vox0, vec3(bmax) * vox0, t0, t1)) {
        return;
    }
    t1 = min(t1, t_surface);
    if (t0 >= t1) {
        return;
    }
    // The sun's light scattered toward the camera before its transmittance: the phase is the
    // ray's own (every point on it is seen along dir).
    float g = froxel_on() ? fog.height_fog.w : 0.0;
    vec3 sun = frame.sun_dir.w > 0.0
        ? frame.sun_color.rgb * frame.sun_dir.w * henyey_greenstein(dot(dir, frame.sun_dir.xyz), g)
        : vec3(0.0);
    float jitter = start_jitter(px, bricks.counts.y);
    float t = t0;
    float transmittance = 1.0;
    vec4 f_prev = froxel_at(uv, t0, view_z_per_m);
    vec3 result = f_prev.rgb;  // froxel in-scatter in front of the cloud
    bool first = true;
    float front = NO_CLOUD;
    float back = NO_CLOUD;
    float tau = 0.0;
    int sun_rays = 0;
    for (int i = 0; i < MAX_STEPS && t < t1 && transmittance > MIN_TRANSMITTANCE; ++i) {
        vec3 p = cam + dir * t;
        float voxel = occupied_voxel(p);
        if (voxel == 0.0) {
            t += brick_exit(p, dir, finest_window_level(p)) + EMPTY_STEP_EPS_M;
            first = true;
            continue;
        }
        float step_m = voxel / STEPS_PER_VOXEL;
        float dt = min(step_m * (first ? max(jitter, 0.05) : 1.0), t1 - t);
        first = false;
        vec3 mid = cam + dir * (t + 0.5 * dt);
        Sample m = sample_at(mid);
        if (m.extinction > 0.0) {
            vec4 f = froxel_at(uv, t, view_z_per_m);
            result += transmittance * (f.rgb - f_prev.rgb);
            f_prev = f;
            float absorbed = 1.0 - exp(-m.extinction * dt);
            // Where a step absorbs much, the sun's light falls steeply across the voxel and the
            // interpolated depth is too coarse: its own ray toward the sun.
            float sun_depth = m.sun_depth;
            bool sunlit = m.sun_visible > 0.0 && frame.sun_dir.w > 0.0;
            if (sunlit && absorbed > DENSE_STEP && sun_rays < MAX_SUN_RAYS) {
                ++sun_rays;
                sun_depth = sun_self_depth(mid, frame.sun_dir.xyz, voxel);
            }
            vec3 light = m.light + sun * m.sun_visible * exp(-sun_depth);
            vec3 source = m.tint * mix(light, vec3(1.0), m.emissive);
            front = min(front, t);
            back = t + dt;
            tau += m.extinction * dt;
            result += transmittance * f.a * source * absorbed;
            transmittance *= 1.0 - absorbed;
        }
        t += dt;
    }
    // The pixel becomes hdr * T + added, with hdr = surface * T_f(end) + S_f(end) as fog.apply left
    // it: the froxel in-scatter behind the cloud's last sample is attenuated with the surface.
    vec3 added = result - transmittance * f_prev.rgb;
    if (any(isnan(added)) || any(isinf(added)) || isnan(tau) || isnan(transmittance)) {
        return;  // never poison the frame: leave the pixel as fog.apply left it
    }
    imageStore(march_out, low, vec4(added, transmittance));
    imageStore(march_cloud, low, vec4(front, back, tau, t_surface));
}
