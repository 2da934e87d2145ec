#version 460
// fog.brick_march: the particle fog ray-marched per pixel through the bricks and composited over
// the image that fog.apply left (opaque surfaces with the froxel fog applied by depth).
//
// Ray: from the camera to the opaque depth, clipped to the box of the bricks in use (bounds left
// by fog.brick_resolve in the counters). Empty-space skipping: where no level has an occupied
// brick (allocated, peak extinction > 0), the ray jumps to the exit of the finest brick holding the
// point; inside occupied bricks it steps half a voxel of the finest occupied level. The start is
// jittered per pixel and frame (interleaved gradient noise), and the march stops at the opaque depth or when the
// transmittance falls below MIN_TRANSMITTANCE.
//
// Density: on each level, the atlas sampled trilinearly (hardware filtering inside the brick,
// the apron holding the neighbours' cells), summed over the levels (fog::density::Field is the
// CPU twin), at a point displaced by the billow warp: a divergence-free displacement (a sum of
// curl modes sin(k.p + phase) (k x a)), so it moves density without creating it, drifting at
// RenderVKParticleFogBillowSpeed; two copies with phases a half period apart are cross-faded so no
// copy is advected long enough to stretch.
//
// Light: sun (cascaded shadow map) with the particle fog's own shadow (a short march toward the
// sun, SELF_SHADOW_STEPS samples at doubling distances), local lights and projectors through
// light_arriving (their shadow maps and textures), the ambient term, all with the froxel fog's
// Henyey-Greenstein phase; scattering albedo = the splatted tint; fullbright carriers add their
// tint as emission. Each step integrates analytically (Hillaire 2015).
//
// Composite with the froxel fog by depth: with S_f(t), T_f(t) the froxel fog's in-scatter and
// transmittance up to distance t, the pixel becomes
//   S_f(t0) + sum_k T_p(t_k) (S_f(t_k+1) - S_f(t_k)) + sum_k T_p(t_k) T_f(t_k) s_k
//   + T_p(end) (hdr - S_f(end)),
// i.e. froxel fog in front of the cloud attenuates and adds to it, the cloud attenuates whatever
// lies behind it (froxel fog included), and surfaces in front of the cloud are untouched.
// Billboards drawn afterwards look up where along their pixel's ray the cloud starts and ends and
// its optical depth (the `cloud` image) and are attenuated by the part in front of them.
#include "lighting.glsl"
#include "froxel_common.glsl"
#define BRICKS_SAMPLING_ONLY
#define BRICK_CONSTANTS_BINDING 10
#define BRICK_PAGE_BINDING 11
#define BRICK_SLOT_MAX_BINDING 12
#include "bricks.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 7) uniform sampler3D integrated;
layout(set = 0, binding = 8) uniform sampler2D depth_tex;
// Per ray (reduced resolution): rgb what the particle fog adds, a the transmittance T it leaves to
// what lies behind; fog.brick_composite makes the pixel hdr * T + rgb.
layout(set = 0, binding = 9, rgba32f) uniform writeonly image2D march_out;
layout(set = 0, binding = 13) uniform sampler3D atlas_density;
layout(set = 0, binding = 14) uniform sampler3D atlas_tint;
layout(std430, set = 0, binding = 15) readonly buffer Counters { uint counters[]; };
// Per ray: x distance where the particle fog starts, y where it ends (m along the ray), z its
// optical depth between them, w the distance to the opaque surface (fog.brick_composite's depth
// test and the billboards' `cloud` image).
layout(set = 0, binding = 16, rgba32f) uniform writeonly image2D march_cloud;
layout(push_constant) uniform Push { FogMarchPush push; };

const float MIN_TRANSMITTANCE = 0.01;
const int MAX_STEPS = 384;
const int SELF_SHADOW_STEPS = 3;
// Local lights light the particle fog as spheres of this radius (m): no 1/d^2 blow-up for fog
// that drifts through the light itself (a fire inside its own smoke).
const float LOCAL_LIGHT_RADIUS_M = 0.5;
const float EMPTY_STEP_EPS_M = 1e-3;
// "No particle fog along this ray" in the cloud image (m).
const float NO_CLOUD = 60000.0;
// Distance standing for the sky (no opaque surface) (m).
const float SKY_DISTANCE = 1.0e30;
// Steps per voxel of the finest occupied level.
const float STEPS_PER_VOXEL = 1.0;

// Interleaved gradient noise (Jimenez 2014), offset per frame by the golden ratio: a jitter whose
// error is high-frequency on screen.
float start_jitter(ivec2 px, uint frame_index) {
    vec2 p = vec2(px) + 5.588238 * float(frame_index % 64u);
    return fract(52.9829189 * fract(dot(p, vec2(0.06711056, 0.00583715))));
}

// Levels with bricks in use this frame (bit L), read once per pixel.
uint used_levels;

bool level_used(int level) {
    return ((used_levels >> uint(level)) & 1u) != 0u;
}

bool froxel_on() {
    return push.params.x > 0.5;
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

// The divergence-free billow displacement at p (m).
vec3 curl_modes(vec3 p, float phase) {
    const vec3 K[4] = vec3[4](vec3(1.0, 0.6, 0.3), vec3(-0.4, 1.1, 0.7), vec3(0.8, -0.5, 1.2), vec3(0.3, 0.9, -1.0));
    const vec3 A[4] = vec3[4](vec3(0.2, -0.7, 0.6), vec3(0.9, 0.1, -0.3), vec3(-0.5, 0.6, 0.4), vec3(0.6, 0.5, 0.2));
    float scale = push.billow.y;
    vec3 d = vec3(0.0);
    for (int i = 0; i < 4; ++i) {
        vec3 k = K[i] * (6.2831853 / scale) * (1.0 + 0.37 * float(i));
        d += cos(dot(k, p) + phase * (1.0 + 0.5 * float(i))) * cross(k, A[i]) / dot(k, k);
    }
    return d;
}

vec3 billow_point(vec3 p) {
    float strength = push.billow.x;
    if (strength <= 0.0) {
        return p;
    }
    float scale = push.billow.y;
    float t = push.billow.z * push.billow.w / scale;  // advected phase (periods)
    float a = fract(t);
    float b = fract(t + 0.5);
    float wa = 1.0 - abs(2.0 * a - 1.0);                // each copy fades in and out over a period
    vec3 da = curl_modes(p, 6.2831853 * a) ;
    vec3 db = curl_modes(p + vec3(17.3, -9.1, 4.7), 6.2831853 * b);
    return p + strength * scale * 0.5 * (wa * da + (1.0 - wa) * db);
}

struct Sample {
    float extinction;
    vec3 tint;
    float emissive;
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
    Sample s = Sample(0.0, vec3(0.0), 0.0);
    vec3 q = billow_point(p);
    for (int level = 0; level < LEVELS; ++level) {
        if (!level_used(level)) {
            continue;
        }
        uint qs = slot_at(level, q);
        if (qs == PAGE_NONE) {
            continue;
        }
        vec3 uvw = atlas_uvw(level, qs, q);
        float e = textureLod(atlas_density, uvw, 0.0).r;
        vec4 tint = textureLod(atlas_tint, uvw, 0.0);
        s.extinction += e;
        s.tint += tint.rgb * e;
        s.emissive += tint.a * e;
    }
    if (s.extinction > 0.0) {
        s.tint /= s.extinction;
        s.emissive /= s.extinction;
    }
    return s;
}

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

// Transmittance of the particle fog from p toward the sun.
float self_shadow(vec3 p, float voxel) {
    float tau = 0.0;
    float d = voxel;
    float t = 0.5 * voxel;
    for (int i = 0; i < SELF_SHADOW_STEPS; ++i) {
        tau += extinction_at(p + frame.sun_dir.xyz * (t + 0.5 * d)) * d;
        t += d;
        d *= 2.0;
    }
    return exp(-tau);
}

vec3 in_scattered(vec3 p, vec3 view_dir, float voxel) {
    // The froxel fog's phase asymmetry (isotropic without the froxel fog, whose uniform is then a
    // stand-in).
    float g = froxel_on() ? fog.height_fog.w : 0.0;
    vec3 light = 0.5 * (ambient_for(vec3(0.0, 0.0, 1.0)) + ambient_for(vec3(0.0, 0.0, -1.0)));
    if (frame.sun_dir.w > 0.0) {
        float sun = frame.sun_dir.w * henyey_greenstein(dot(view_dir, frame.sun_dir.xyz), g);
        light += frame.sun_color.rgb * sun * sun_shadow(p, vec3(0.0), 0.0) * self_shadow(p, voxel);
    }
    for (uint i = 0u; i < frame.counts.x; ++i) {
        vec3 to_light;
        vec3 arriving = light_arriving(i, p, vec3(0.0), 0.0, to_light);
        vec3 d = lights[i].position_range.xyz - p;
        float sphere = min(1.0, dot(d, d) / (LOCAL_LIGHT_RADIUS_M * LOCAL_LIGHT_RADIUS_M));
        light += arriving * sphere * henyey_greenstein(dot(view_dir, to_light), g);
    }
    return light;
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
    float jitter = start_jitter(px, bricks.counts.y);
    float t = t0;
    float transmittance = 1.0;
    vec4 f_prev = froxel_at(uv, t0, view_z_per_m);
    vec3 result = f_prev.rgb;  // froxel in-scatter in front of the cloud
    bool first = true;
    float front = NO_CLOUD;
    float back = NO_CLOUD;
    float tau = 0.0;
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
            vec3 lit = in_scattered(mid, dir, voxel);
            vec3 source = m.tint * mix(lit, vec3(1.0), m.emissive);
            float absorbed = 1.0 - exp(-m.extinction * dt);
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
