#version 460
// fog.brick_composite: the particle fog marched at reduced resolution (fog.brick_march, one ray per
// divisor x divisor block) brought to every pixel and composited: hdr = hdr * T + added.
//
// Depth-aware upsample: of the 4 x 4 rays around the pixel, each is weighted by a Gaussian of its
// distance to the pixel (SIGMA_RAYS) times how close its opaque distance is to the pixel's own
// (relative difference, DEPTH_TOLERANCE);
// where no ray is close (a thin object the rays missed), the ray nearest in depth is taken alone.
// At divisor 1 the pixel takes exactly its own ray. The `cloud` image the billboards read gets the
// weighted optical depth and the start and end of the best-weighted ray.
#include "gpu_types.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

layout(std140, set = 0, binding = 0) uniform Frame { FrameUniform frame; };
layout(set = 0, binding = 1) uniform sampler2D depth_tex;
layout(set = 0, binding = 2, rgba16f) uniform image2D hdr;
layout(set = 0, binding = 3, rgba32f) uniform readonly image2D march_out;
layout(set = 0, binding = 4, rgba32f) uniform readonly image2D march_cloud;
layout(set = 0, binding = 5, rgba16f) uniform writeonly image2D cloud;
// The march's divisor: one ray per divisor x divisor pixels.
layout(push_constant) uniform Push { uint divisor; } push;

const float NO_CLOUD = 60000.0;
const float SKY_DISTANCE = 1.0e30;
// Relative depth difference at which a ray's weight has fallen to e^-1.
const float DEPTH_TOLERANCE = 0.03;
// Below this summed depth weight the pixel takes the ray nearest in depth alone.
const float MIN_WEIGHT = 1e-3;
// Rays around the pixel read per axis, and the Gaussian's width in ray spacings: wide enough to
// average the march's per-ray jitter away, narrow enough to keep the cloud's own detail.
const int TAPS = 4;
const float SIGMA_RAYS = 0.75;

float pixel_distance(ivec2 px, ivec2 size) {
    float depth = texelFetch(depth_tex, px, 0).r;
    if (depth >= 1.0) {
        return SKY_DISTANCE;
    }
    vec2 ndc = (vec2(px) + 0.5) / vec2(size) * 2.0 - 1.0;
    vec4 h = frame.world_from_clip * vec4(ndc, depth, 1.0);
    return length(h.xyz / h.w - frame.camera_pos.xyz);
}

float depth_weight(float a, float b) {
    float rel = abs(a - b) / max(max(a, b), 1e-4);
    return exp(-rel / DEPTH_TOLERANCE);
}

// The rays a 16 x 16 pixel tile reads, loaded once into shared memory (at divisor 1: 16 + 3 per
// axis), and whether any of them holds particle fog.
const int TILE = 16;
const int RAY_TILE = TILE + TAPS;
shared vec4 tile_out[RAY_TILE * RAY_TILE];
shared vec4 tile_cloud[RAY_TILE * RAY_TILE];
shared uint tile_any;

// The first ray a pixel at x reads on one axis (ray i stands for pixel i * d + d / 2).
int first_ray(int x, int d) {
    return int(floor(float(x - d / 2) / float(d))) - (TAPS / 2 - 1);
}

// Loads the tile's rays; true when any holds particle fog.
bool load_tile(ivec2 px0, int d, ivec2 low_size) {
    if (gl_LocalInvocationIndex == 0u) {
        tile_any = 0u;
    }
    barrier();
    ivec2 r0 = ivec2(first_ray(px0.x, d), first_ray(px0.y, d));
    for (uint i = gl_LocalInvocationIndex; i < uint(RAY_TILE * RAY_TILE); i += uint(TILE * TILE)) {
        ivec2 at = clamp(r0 + ivec2(int(i) % RAY_TILE, int(i) / RAY_TILE), ivec2(0), low_size - 1);
        vec4 m = imageLoad(march_out, at);
        tile_out[i] = m;
        tile_cloud[i] = imageLoad(march_cloud, at);
        if (m.a < 1.0 || any(notEqual(m.rgb, vec3(0.0)))) {
            atomicOr(tile_any, 1u);
        }
    }
    barrier();
    return tile_any != 0u;
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(hdr);
    ivec2 px0 = ivec2(gl_WorkGroupID.xy) * TILE;
    int d = int(push.divisor);
    bool any_fog = load_tile(px0, d, imageSize(march_out));
    if (any(greaterThanEqual(px, size))) {
        return;
    }
    if (!any_fog) {
        // No particle fog under the tile: the pixel stays as it is.
        imageStore(cloud, px, vec4(NO_CLOUD, NO_CLOUD, 0.0, 0.0));
        return;
    }
    ivec2 r0 = ivec2(first_ray(px0.x, d), first_ray(px0.y, d));
    vec2 q = (vec2(px) - float(d / 2)) / float(d);
    ivec2 base = ivec2(floor(q));
    vec2 f = q - vec2(base);
    float t_pixel = pixel_distance(px, size);
    vec4 sum = vec4(0.0);
    float tau = 0.0;
    float total = 0.0;
    float best_w = -1.0;
    vec4 best_cloud = vec4(NO_CLOUD, NO_CLOUD, 0.0, 0.0);
    float nearest = 1e38;
    vec4 nearest_out = vec4(0.0, 0.0, 0.0, 1.0);
    vec4 nearest_cloud = best_cloud;
    for (int k = 0; k < TAPS * TAPS; ++k) {
        ivec2 o = ivec2(k % TAPS, k / TAPS) - (TAPS / 2 - 1);
        ivec2 t = base + o - r0;
        int at = t.y * RAY_TILE + t.x;
        vec2 r = vec2(o) - f;
        float spatial = d == 1 ? float(o == ivec2(0)) : exp(-0.5 * dot(r, r) / (SIGMA_RAYS * SIGMA_RAYS));
        vec4 m = tile_out[at];
        vec4 c = tile_cloud[at];
        float w = spatial * depth_weight(t_pixel, c.w);
        sum += w * m;
        tau += w * c.z;
        total += w;
        if (w > best_w) {
            best_w = w;
            best_cloud = c;
        }
        float gap = abs(c.w - t_pixel);
        if (gap < nearest) {
            nearest = gap;
            nearest_out = m;
            nearest_cloud = c;
        }
    }
    vec4 m;
    vec4 c;
    if (total > MIN_WEIGHT) {
        m = sum / total;
        c = vec4(best_cloud.xy, tau / total, 0.0);
    } else {
        m = nearest_out;
        c = vec4(nearest_cloud.xyz, 0.0);
    }
    imageStore(cloud, px, vec4(c.xyz, 0.0));
    if (m.a >= 1.0 && all(equal(m.rgb, vec3(0.0)))) {
        return;  // no particle fog here: the pixel stays as it is
    }
    vec4 behind = imageLoad(hdr, px);
    imageStore(hdr, px, vec4(behind.rgb * m.a + m.rgb, behind.a));
}
