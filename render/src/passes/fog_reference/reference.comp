#version 460
// fog.reference: the host fog without froxels, for tests and for judging the froxel fog
// (`RenderVKVolumetricFogReference`). Per pixel, four ray-marches (a rotated 2x2 grid in the
// pixel) from the camera to the pixel's opaque depth (or the grid's far end, as the froxel fog) in
// fine steps: REF_STEP_M near the camera, growing
// to REF_STEP_REL of the distance far away; each step evaluates the same medium and in-scatter as
// fog.froxel_inject (fog_media.glsl, 3x3 PCF shadows, local lights' falloff averaged over the
// step in closed form) at its midpoint and advances with the same
// energy-conserving step as fog.froxel_integrate. Then hdr = hdr * T + S, as fog.apply does.
#include "lighting.glsl"
#include "froxel_common.glsl"
#include "fog_media.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 8) uniform sampler2D depth_tex;
layout(set = 0, binding = 9, rgba16f) uniform image2D hdr;

// Step along the view axis near the camera, m.
const float REF_STEP_M = 0.02;
// Step far away, as a fraction of the view depth.
const float REF_STEP_REL = 0.005;
// Safety bound on the steps per pixel.
const int REF_MAX_STEPS = 4096;
const float MIN_EXTINCTION = 1e-6;

// View depth (m) from a [0, 1] depth-buffer value of the camera projection.
float view_depth(float ndc) {
    float n = fog.camera_planes.x;
    float f = fog.camera_planes.y;
    return f * n / (f - ndc * (f - n));
}

// Rays per pixel, on a rotated 2x2 grid: a light seen inside the fog is sharper than a pixel, and
// one ray per pixel would alias it into single-pixel sparkles.
const int REF_RAYS = 4;
const vec2 REF_RAY_OFFSETS[REF_RAYS] =
    vec2[](vec2(-0.125, -0.375), vec2(0.375, -0.125), vec2(0.125, 0.375), vec2(-0.375, 0.125));

// In-scatter (rgb) and transmittance (a) along the ray through `uv` up to view depth `end`.
vec4 march(vec2 uv, float end) {
    vec3 ray = froxel_ray(uv);
    float ray_scale = length(ray);
    vec3 scatter = vec3(0.0);
    float transmittance = 1.0;
    float t = 0.0;
    for (int i = 0; i < REF_MAX_STEPS && t < end; ++i) {
        float dt = min(max(REF_STEP_M, REF_STEP_REL * t), end - t);
        vec3 pos = frame.camera_pos.xyz + (t + 0.5 * dt) * ray;
        float sigma_t;
        vec3 sigma_s;
        fog_medium(pos, sigma_t, sigma_s);
        if (sigma_t > 0.0) {
            vec3 lit_hist;
            vec3 lit_now;
            float d = dt * ray_scale;
            fog_in_scatter(pos, 0.5 * d, lit_hist, lit_now);
            float t_seg = exp(-sigma_t * d);
            float gain = sigma_t > MIN_EXTINCTION ? (1.0 - t_seg) / sigma_t : d;
            scatter += transmittance * sigma_s * (lit_hist + lit_now) * gain;
            transmittance *= t_seg;
        }
        t += dt;
    }
    return vec4(scatter, transmittance);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(hdr);
    if (any(greaterThanEqual(p, size))) {
        return;
    }
    float end = min(view_depth(texelFetch(depth_tex, p, 0).r), fog.slices.y);
    vec4 f = vec4(0.0);
    for (int r = 0; r < REF_RAYS; ++r) {
        f += march((vec2(p) + 0.5 + REF_RAY_OFFSETS[r]) / vec2(size), end);
    }
    f /= float(REF_RAYS);
    vec4 c = imageLoad(hdr, p);
    imageStore(hdr, p, vec4(c.rgb * f.a + f.rgb, c.a));
}
