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

// Near a local light seen inside the fog its in-scatter peaks like 1 / (the ray's distance from the
// light), and near its apex a cone or a projector's texture is narrower than a froxel: features a
// pixel wide, which no froxel can hold. So each local light's falloff 1 / d^2 is split in two by a
// smooth window w of compact support around the light (x = d / R):
//   near(d) = w(x) / d^2,   far(d) = (1 - w(x)) / d^2,   w(x) = 1 - 3 x^4 + 2 x^6 (x < 1), 0 beyond.
// `far` is smooth (w and w' vanish at R), 0 at the light and at most 1 / R^2 inside the window; the
// froxels carry it. `near` is integrated along each pixel's own rays by fog.apply
// (fog_near_in_scatter). The two add up to the whole falloff along any ray, so no light is counted
// twice or lost. R is FOG_NEAR_FROXELS froxels at the light's view depth (at most its range): a
// fixed size on screen, so the per-pixel work stays bounded, and many froxels wide, so `far` is
// smooth at the froxels' scale and each cone is several froxels wide where the window ends. (12
// froxels measured against 4, 8 and 16 on fog_machine: render/README.md, "Froxel fog quality".)
// The reference takes no split: its fine steps carry the whole falloff.
const float FOG_NEAR_FROXELS = 12.0;

// Distance (m) of the ray from a light below which the falloff stops growing: the 0.01 m^2 floor of
// light_arriving's 1 / max(d^2, 0.01).
const float FOG_LIGHT_FLOOR_M = 0.1;

// Radius R (m) of the near window of a light at `light_pos` with range `range_m`.
float fog_near_radius(vec3 light_pos, float range_m) {
    float depth = max(dot(light_pos - frame.camera_pos.xyz, fog.forward_tan.xyz), fog.slices.x);
    float froxel_m = depth * 2.0 * fog.forward_tan.w * max(fog.right_aspect.w / fog.grid.x, 1.0 / fog.grid.y);
    return min(FOG_NEAR_FROXELS * froxel_m, range_m);
}

// The near window w at x^2 = (d / R)^2: 1 at the light, falling to 0 (with zero slope) at R.
float fog_near_window(float x2) {
    return x2 < 1.0 ? 1.0 - x2 * x2 * (3.0 - 2.0 * x2) : 0.0;
}

// Antiderivative, along a line at distance h from a light (t: distance along the line from the
// point nearest the light, d^2 = h^2 + t^2), of near(d) - 1 / d^2 = (-3 d^2 / R^2 + 2 d^4 / R^4) / R^2
// (inside the window).
float near_minus_full_integral(float t, float h, float r) {
    float h2 = h * h;
    float t2 = t * t;
    float r2 = r * r;
    float d2_integral = t * (h2 + t2 / 3.0);
    float d4_integral = t * (h2 * h2 + t2 * (2.0 / 3.0 * h2 + t2 / 5.0));
    return (-3.0 * d2_integral + 2.0 * d4_integral / r2) / (r2 * r2);
}

// The mean of a local light's falloff over the segment of the view ray `dir` (unit) from
// `pos - half_m dir` to `pos + half_m dir`, divided by its value 1 / max(d^2, 0.01) at `pos`: the
// full inverse square (near_r = 0) or its `far` part (near_r = R). The falloff peaks sharply where a
// ray passes close to a light, far more sharply than a froxel (or a few samples) can resolve; its
// integral along a line has a closed form (atan((t1) / h) - atan(t0 / h)) / h, h the ray's
// distance from the light (at least FOG_LIGHT_FLOOR_M), and so has the `near` part's (polynomial in
// t inside the window). So each sample carries the exact mean over its share of the ray. (The rest
// of the light's terms, shadow, cone and texture, stay point-sampled.)
float inverse_square_mean_ratio(vec3 pos, vec3 dir, float half_m, vec3 light_pos, float near_r) {
    vec3 to_light = light_pos - pos;
    float d2 = max(dot(to_light, to_light), FOG_LIGHT_FLOOR_M * FOG_LIGHT_FLOOR_M);
    float c = dot(to_light, dir);
    float h2 = max(d2 - c * c, FOG_LIGHT_FLOOR_M * FOG_LIGHT_FLOOR_M);
    float tc = sqrt(max(near_r * near_r - h2, 0.0));
    if (half_m <= 0.0) {
        return 1.0 - fog_near_window((h2 + c * c) / max(near_r * near_r, 1e-12));
    }
    float h = sqrt(h2);
    float t0 = -half_m - c;
    float t1 = half_m - c;
    float integral = (atan(t1 / h) - atan(t0 / h)) / h;
    if (tc > 0.0) {
        float u0 = clamp(t0, -tc, tc);
        float u1 = clamp(t1, -tc, tc);
        // Minus the near part inside the window: its full-falloff share and the polynomial rest.
        integral -= (atan(u1 / h) - atan(u0 / h)) / h;
        integral -= near_minus_full_integral(u1, h, near_r) - near_minus_full_integral(u0, h, near_r);
    }
    return max(integral, 0.0) / (2.0 * half_m) * d2;
}

// Radiance arriving at `pos` and scattered toward the camera (phase included, before the scattering
// coefficient): the sun through its cascades, ambient sky, and every volumetric local light, whose
// falloff is averaged over `half_m` metres either side of `pos` along the view ray
// (inverse_square_mean_ratio): all of it (`near_split` false, the reference) or its `far` part
// (`near_split` true, the froxels; fog.apply adds the `near` part per pixel). Lights that keep
// temporal history go to `lit_hist`, the others to `lit_now`.
void fog_in_scatter(vec3 pos, float half_m, bool near_split, out vec3 lit_hist, out vec3 lit_now) {
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
        vec3 light_pos = lights[i].position_range.xyz;
        float near_r = near_split ? fog_near_radius(light_pos, lights[i].position_range.w) : 0.0;
        float spread = inverse_square_mean_ratio(pos, view_dir, half_m, light_pos, near_r);
        vec3 c = arriving * spread * henyey_greenstein(dot(view_dir, to_light), g);
        if ((flags & LIGHT_HISTORY) != 0u) {
            lit_hist += c;
        } else {
            lit_now += c;
        }
    }
}

// Rays per pixel of the per-pixel fog (the reference, and the near in-scatter in fog.apply), on a
// rotated 2x2 grid: a light seen inside the fog is sharper than a pixel, and one ray per pixel
// would alias it into single-pixel sparkles.
const int FOG_PIXEL_RAYS = 4;
const vec2 FOG_PIXEL_RAY_OFFSETS[FOG_PIXEL_RAYS] =
    vec2[](vec2(-0.125, -0.375), vec2(0.375, -0.125), vec2(0.125, 0.375), vec2(-0.375, 0.125));

// Equi-angular samples of a near window along a pixel's rays (Kulla and Fajardo 2012, "Importance
// Sampling Techniques for Path Tracing in Participating Media"): the angle seen from the light is
// cut into cells FOG_NEAR_SAMPLES to pi, anchored at the ray's closest approach (angle 0), and each
// cell the ray crosses inside the window takes one sample at the middle of its part inside,
// weighted by that part: dense where the falloff peaks, fewer where a ray grazes the window or ends
// at a surface inside it (half as many over a window's disc on average), and continuous as a pixel
// moves, since a cell the window's end or a surface enters starts at weight 0. (One count of equal
// steps per span drew a contour line wherever the count changed.) The span is also clipped to the
// part of the ray inside the light's beam (light_beam_span), so a cell a cone's edge crosses counts
// what lies inside it: seen from the side, a beam's axis passes through the closest approach, and
// a narrow beam fell across the same cells for every pixel along it, all or nothing at their
// middles (its first window radius a tenth dimmer than the reference).
//
// The pixel's rays, a fraction of a pixel apart, see nearly the same integrand, so they share the
// samples, interleaved: ray k takes cells FOG_PIXEL_RAYS times wider, shifted by k of the fine
// cells; together they sample the pixel as densely as one ray with all of them, for a quarter of
// the work. A sample stands for its cell, so a projector's texture is averaged over the cell
// (light_arriving_over) rather than read at one point: with one read per sample the gobo's
// stripes, finer than the cells near the lens, aliased into broad false stripes (with 16 samples
// per ray as much as with 4). Measured in render/README.md, "Froxel fog quality".
const int FOG_NEAR_SAMPLES = 16;

// The `near` in-scatter of light `i` along the pixel's ray `ray_k` through `uv` up to view depth
// `z_end`, each point attenuated by the fog in front of it (`integrated`, the froxel fog). The line
// integral of 1 / (h^2 + t^2) is (1 / h) d(angle), so a sample's share of the angle carries its
// share of the falloff; each carries the light's other terms (cone, shadow, projector texture,
// range window), the medium and the phase at its point, weighted by the window w.
vec3 near_light_along(uint i, float r, sampler3D integrated, vec2 uv, int ray_k, float z_end) {
    vec3 cam = frame.camera_pos.xyz;
    vec3 ray = froxel_ray(uv);
    vec3 dir = normalize(ray);
    float len_m = z_end * length(ray);
    vec3 light_pos = lights[i].position_range.xyz;
    vec3 to_light = light_pos - cam;
    float c = dot(to_light, dir);
    float h2 = max(dot(to_light, to_light) - c * c, FOG_LIGHT_FLOOR_M * FOG_LIGHT_FLOOR_M);
    float tc = sqrt(max(r * r - h2, 0.0));
    vec2 beam = light_beam_span(lights[i], cam, dir);
    float s0 = max(max(c - tc, 0.0), beam.x);
    float s1 = min(min(c + tc, len_m), beam.y);
    if (tc <= 0.0 || s1 <= s0) {
        return vec3(0.0);
    }
    float h = sqrt(h2);
    float a0 = atan((s0 - c) / h);
    float a1 = atan((s1 - c) / h);
    float shift = float(ray_k) * PI / float(FOG_NEAR_SAMPLES);
    float cell = float(FOG_PIXEL_RAYS) * PI / float(FOG_NEAR_SAMPLES);
    int j0 = int(floor((a0 - shift) / cell));
    int j1 = min(int(ceil((a1 - shift) / cell)), j0 + FOG_NEAR_SAMPLES / FOG_PIXEL_RAYS + 2);
    float view_z_per_m = dot(dir, fog.forward_tan.xyz);
    float g = fog.height_fog.w;
    bool projector = lights[i].kind_shadow.x == LIGHT_PROJECTOR;
    vec3 sum = vec3(0.0);
    for (int j = j0; j < j1; ++j) {
        float lo = max(a0, float(j) * cell + shift);
        float hi = min(a1, float(j + 1) * cell + shift);
        if (hi <= lo) {
            continue;
        }
        float t = h * tan(0.5 * (lo + hi));
        vec3 pos = cam + (c + t) * dir;
        vec3 seg_a = pos;
        vec3 seg_b = pos;
        if (projector) {
            seg_a = cam + (c + h * tan(lo)) * dir;
            seg_b = cam + (c + h * tan(hi)) * dir;
        }
        float sigma_t;
        vec3 sigma_s;
        fog_medium(pos, sigma_t, sigma_s);
        if (sigma_t <= 0.0) {
            continue;
        }
        vec3 l;
        // The sample stands for its cell: a projector's gobo finer than that is averaged over it.
        vec3 arriving = light_arriving_over(i, pos, vec3(0.0), 0.0, seg_a, seg_b, l);
        vec3 to_pos = light_pos - pos;
        // light_arriving's own falloff out: the angle steps carry it.
        arriving *= max(dot(to_pos, to_pos), FOG_LIGHT_FLOOR_M * FOG_LIGHT_FLOOR_M);
        float window = fog_near_window((h2 + t * t) / (r * r));
        float transmittance = froxel_fog(integrated, uv, (c + t) * view_z_per_m).a;
        sum += sigma_s * arriving * henyey_greenstein(dot(dir, l), g) * window * transmittance * (hi - lo);
    }
    return sum / h;
}

// The `near` in-scatter of every volumetric local light over pixel `pixel` (of a `size` image)
// whose opaque surface is at view depth `z_end`, averaged over the pixel's FOG_PIXEL_RAYS rays as in
// the reference: at a light's apex the cone's edges and a projector's texture are sharper than a
// pixel.
vec3 fog_near_in_scatter(sampler3D integrated, vec2 pixel, vec2 size, float z_end) {
    // A pixel's width per metre of view depth.
    float pixel_tan = 2.0 * fog.forward_tan.w * max(fog.right_aspect.w / size.x, 1.0 / size.y);
    vec3 sum = vec3(0.0);
    for (uint i = 0u; i < frame.counts.x; ++i) {
        if ((lights[i].kind_shadow.w & LIGHT_VOLUMETRIC) == 0u) {
            continue;
        }
        vec3 light_pos = lights[i].position_range.xyz;
        float r = fog_near_radius(light_pos, lights[i].position_range.w);
        // Most pixels see no window: the pixel's rays are within a pixel of its centre ray, so
        // one test of that ray against the window grown by a pixel skips them all.
        vec3 to_light = light_pos - frame.camera_pos.xyz;
        vec3 dir = normalize(froxel_ray((pixel + 0.5) / size));
        float c = dot(to_light, dir);
        float reach = r + max(c, 0.0) * pixel_tan;
        if (dot(to_light, to_light) - c * c > reach * reach) {
            continue;
        }
        for (int k = 0; k < FOG_PIXEL_RAYS; ++k) {
            vec2 uv = (pixel + 0.5 + FOG_PIXEL_RAY_OFFSETS[k]) / size;
            sum += near_light_along(i, r, integrated, uv, k, z_end);
        }
    }
    return sum / float(FOG_PIXEL_RAYS);
}

#endif
