#version 460
// fog.reference: the host fog without froxels, for tests and for judging the froxel fog
// (`RenderVKVolumetricFogReference`). Per pixel, four ray-marches (a rotated 2x2 grid in the
// pixel, run side by side) from the camera to the pixel's opaque depth (or the grid's far end, as
// the froxel fog) in fine steps: REF_STEP_M near the camera, growing to REF_STEP_REL of the
// distance far away, and at most REF_STEP_LIGHT_REL of the distance to the nearest local light;
// each step evaluates the same medium and in-scatter as
// fog.froxel_inject (fog_media.glsl, 3x3 PCF shadows, local lights' falloff averaged over the
// step in closed form) at its midpoint and advances with the same
// energy-conserving step as fog.froxel_integrate. Then hdr = hdr * T + S, as fog.apply does.
#include "lighting.glsl"
#include "froxel_common.glsl"
#include "fog_media.glsl"

// Pixels (of one row) per workgroup; each pixel's FOG_PIXEL_RAYS rays are the workgroup's x.
#define REF_PIXELS_PER_GROUP 8
layout(local_size_x = FOG_PIXEL_RAYS, local_size_y = REF_PIXELS_PER_GROUP) in;

layout(set = 0, binding = 8) uniform sampler2D depth_tex;
layout(set = 0, binding = 9, rgba16f) uniform image2D hdr;

// Step along the view axis near the camera, m.
const float REF_STEP_M = 0.02;
// Step far away, as a fraction of the view depth.
const float REF_STEP_REL = 0.005;
// Step near a volumetric local light, as a fraction of the distance to it (at least
// REF_STEP_LIGHT_MIN_M): near its apex a spot's cone or a projector's gobo stripes are narrower
// than the steps above (a 20-degree cone seen from the side, 0.1 m from its apex, is 7 cm across;
// gobo stripes 0.2 m in front of the lens are 7 mm wide).
const float REF_STEP_LIGHT_REL = 0.01;
const float REF_STEP_LIGHT_MIN_M = 0.002;
// Safety bound on the steps per ray (fog_machine's rays take up to about 2,000).
const int REF_MAX_STEPS = 4096;
const float MIN_EXTINCTION = 1e-6;

// View depth (m) from a [0, 1] depth-buffer value of the camera projection.
float view_depth(float ndc) {
    float n = fog.camera_planes.x;
    float f = fog.camera_planes.y;
    return f * n / (f - ndc * (f - n));
}

// Distance (m) from `pos` to the nearest volumetric local light.
float nearest_light_m(vec3 pos) {
    float nearest = 1e30;
    for (uint i = 0u; i < frame.counts.x; ++i) {
        bool volumetric = (lights[i].kind_shadow.w & LIGHT_VOLUMETRIC) != 0u;
        nearest = min(nearest, volumetric ? distance(pos, lights[i].position_range.xyz) : 1e30);
    }
    return nearest;
}

// In-scatter (rgb) and transmittance (a) along the ray through `uv` up to view depth `end`.
vec4 march(vec2 uv, float end) {
    vec3 ray = froxel_ray(uv);
    float ray_scale = length(ray);
    vec3 scatter = vec3(0.0);
    float transmittance = 1.0;
    float t = 0.0;
    for (int i = 0; i < REF_MAX_STEPS && t < end; ++i) {
        vec3 start = frame.camera_pos.xyz + t * ray;
        float light_step_m = max(REF_STEP_LIGHT_MIN_M, REF_STEP_LIGHT_REL * nearest_light_m(start));
        float dt = min(min(max(REF_STEP_M, REF_STEP_REL * t), light_step_m / ray_scale), end - t);
        vec3 pos = frame.camera_pos.xyz + (t + 0.5 * dt) * ray;
        float sigma_t;
        vec3 sigma_s;
        fog_medium(pos, sigma_t, sigma_s);
        if (sigma_t > 0.0) {
            vec3 lit_hist;
            vec3 lit_now;
            float d = dt * ray_scale;
            fog_in_scatter(pos, 0.5 * d, false, lit_hist, lit_now);
            float t_seg = exp(-sigma_t * d);
            float gain = sigma_t > MIN_EXTINCTION ? (1.0 - t_seg) / sigma_t : d;
            scatter += transmittance * sigma_s * (lit_hist + lit_now) * gain;
            transmittance *= t_seg;
        }
        t += dt;
    }
    return vec4(scatter, transmittance);
}

// A pixel's rays run side by side (one invocation each, x in the workgroup) and are averaged
// through shared memory. Lavapipe ends every loop of a SIMD vector once its loops have iterated
// 65535 times in all (gallivm's LP_MAX_TGSI_LOOP_ITERATIONS, shared by every loop of the shader):
// four rays marched one after another near a light (fine steps, each with its loops over the
// lights and cascades) went past it and were cut short, silently, a vector at a time.
shared vec4 ray_result[REF_PIXELS_PER_GROUP][FOG_PIXEL_RAYS];

void main() {
    uint ray = gl_LocalInvocationID.x;
    uint slot = gl_LocalInvocationID.y;
    ivec2 p = ivec2(gl_WorkGroupID.x * REF_PIXELS_PER_GROUP + slot, gl_WorkGroupID.y);
    ivec2 size = imageSize(hdr);
    bool inside = all(lessThan(p, size));
    if (inside) {
        float end = min(view_depth(texelFetch(depth_tex, p, 0).r), fog.slices.y);
        ray_result[slot][ray] = march((vec2(p) + 0.5 + FOG_PIXEL_RAY_OFFSETS[ray]) / vec2(size), end);
    }
    barrier();
    if (!inside || ray != 0u) {
        return;
    }
    vec4 f = vec4(0.0);
    for (int r = 0; r < FOG_PIXEL_RAYS; ++r) {
        f += ray_result[slot][r];
    }
    f /= float(FOG_PIXEL_RAYS);
    vec4 c = imageLoad(hdr, p);
    imageStore(hdr, p, vec4(c.rgb * f.a + f.rgb, c.a));
}
