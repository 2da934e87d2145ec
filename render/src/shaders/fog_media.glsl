// The host fog's medium and the light it scatters toward the camera at one point, shared by the
// froxel injection (fog.froxel_inject) and the per-pixel reference (fog.reference), so both see the
// same media, lights, shadows, projectors and phase function. Include after lighting.glsl and
// froxel_common.glsl; binding 7 of set 0 holds the fog volumes.
#ifndef FOG_MEDIA_GLSL
#define FOG_MEDIA_GLSL

layout(std430, set = 0, binding = 7) readonly buffer Volumes { GpuFogVolume volumes[]; };

const uint LIGHT_VOLUMETRIC = 1u;
const uint LIGHT_HISTORY = 2u;

// Extinction (1/m) and scattering (1/m, rgb) at `pos`: exponential height fog plus every fog volume
// holding `pos`.
void fog_medium(vec3 pos, out float sigma_t, out vec3 sigma_s) {
    sigma_t = fog.height_fog.x * exp(-fog.height_fog.y * (pos.z - fog.height_fog.z));
    sigma_s = sigma_t * fog.fog_albedo.rgb;
    for (uint i = 0u; i < uint(fog.fog_albedo.w); ++i) {
        GpuFogVolume v = volumes[i];
        vec3 d = abs(pos - v.center_kind.xyz);
        bool inside = v.center_kind.w < 0.5 ? all(lessThanEqual(d, v.extent_density.xyz))
                                             : dot(d, d) <= v.extent_density.x * v.extent_density.x;
        if (inside) {
            sigma_t += v.extent_density.w;
            sigma_s += v.extent_density.w * v.albedo.rgb;
        }
    }
}

// The mean of a local light's inverse-square falloff 1 / max(d^2, 0.01) over the segment of the
// view ray `dir` (unit) from `pos - half_m dir` to `pos + half_m dir`, divided by its value at
// `pos`. The falloff peaks sharply where a ray passes close to a light, far more sharply than a
// froxel (or a few samples) can resolve; its integral along a line has a closed form
// (atan((s1 - c) / h) - atan((s0 - c) / h)) / h, h the ray's distance from the light. So each
// sample carries the exact mean over its share of the ray, and a light seen inside the fog glows
// with its true integrated brightness. (The rest of the light's terms, shadow, cone and texture,
// stay point-sampled.) The 0.1 m floor on h mirrors the 0.01 m^2 floor of light_arriving.
float inverse_square_mean_ratio(vec3 pos, vec3 dir, float half_m, vec3 light_pos) {
    vec3 to_light = light_pos - pos;
    float d2 = max(dot(to_light, to_light), 0.01);
    if (half_m <= 0.0) {
        return 1.0;
    }
    float c = dot(to_light, dir);
    float h = sqrt(max(d2 - c * c, 0.01));
    float integral = (atan((half_m - c) / h) + atan((half_m + c) / h)) / h;
    return integral / (2.0 * half_m) * d2;
}

// Radiance arriving at `pos` and scattered toward the camera (phase included, before the scattering
// coefficient): the sun through its cascades, ambient sky, and every volumetric local light, whose
// falloff is averaged over `half_m` metres either side of `pos` along the view ray
// (inverse_square_mean_ratio). Lights that keep temporal history go to `lit_hist`, the others to
// `lit_now`.
void fog_in_scatter(vec3 pos, float half_m, out vec3 lit_hist, out vec3 lit_now) {
    vec3 view_dir = normalize(pos - frame.camera_pos.xyz);
    float g = fog.height_fog.w;
    float sun_phase = henyey_greenstein(dot(view_dir, frame.sun_dir.xyz), g);
    lit_hist = frame.sun_color.rgb * frame.sun_dir.w * sun_phase * sun_shadow(pos, vec3(0.0), 0.0);
    lit_hist += 0.5 * (frame.ambient_sky.rgb + frame.ambient_ground.rgb);
    lit_now = vec3(0.0);
    for (uint i = 0u; i < frame.counts.x; ++i) {
        uint flags = lights[i].kind_shadow.w;
        if ((flags & LIGHT_VOLUMETRIC) == 0u) {
            continue;
        }
        vec3 to_light;
        vec3 arriving = light_arriving(i, pos, vec3(0.0), 0.0, to_light);
        float spread = inverse_square_mean_ratio(pos, view_dir, half_m, lights[i].position_range.xyz);
        vec3 c = arriving * spread * henyey_greenstein(dot(view_dir, to_light), g);
        if ((flags & LIGHT_HISTORY) != 0u) {
            lit_hist += c;
        } else {
            lit_now += c;
        }
    }
}

// Rays per pixel of the per-pixel fog (the reference), on a rotated 2x2 grid: a light seen inside
// the fog is sharper than a pixel, and one ray per pixel would alias it into single-pixel sparkles.
const int FOG_PIXEL_RAYS = 4;
const vec2 FOG_PIXEL_RAY_OFFSETS[FOG_PIXEL_RAYS] =
    vec2[](vec2(-0.125, -0.375), vec2(0.375, -0.125), vec2(0.125, 0.375), vec2(-0.375, 0.125));

#endif
