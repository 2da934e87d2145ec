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
// Per ray, what every tap reads in one 16-byte load: the added radiance and transmittance and the
// optical depth as half floats (the HDR and cloud images they end in are half floats), and the
// opaque distance as a float (the sky's is far beyond a half float's range).
shared uvec4 tile_ray[RAY_TILE * RAY_TILE];
// Per ray, where its particle fog starts and ends (m, half floats): read for the chosen ray only.
shared uint tile_span[RAY_TILE * RAY_TILE];
shared uint tile_any;

// The first ray a pixel at x reads on one axis (ray i stands for pixel i * d + d / 2).
int first_ray(int x, int d) {
    return int(floor(float(x - d / 2) / float(d))) - (TAPS / 2 - 1);
}

// The rays a tile whose first pixel is at x reads on one axis: from first_ray(x) to TAPS - 1 past
// the first ray of its last pixel (at most RAY_TILE, at divisor 1; fewer at larger divisors).
int tile_rays(int x, int d) {
    return first_ray(x + TILE - 1, d) - first_ray(x, d) + TAPS;
}

// Loads the rays the tile reads (rows RAY_TILE apart in the shared arrays); true when any holds
// particle fog.
bool load_tile(ivec2 px0, int d, ivec2 low_size) {
    if (gl_LocalInvocationIndex == 0u) {
        tile_any = 0u;
    }
    barrier();
    ivec2 r0 = ivec2(first_ray(px0.x, d), first_ray(px0.y, d));
    ivec2 n = ivec2(tile_rays(px0.x, d), tile_rays(px0.y, d));
    for (uint i = gl_LocalInvocationIndex; i < uint(n.x * n.y); i += uint(TILE * TILE)) {
        ivec2 t = ivec2(int(i) % n.x, int(i) / n.x);
        ivec2 at = clamp(r0 + t, ivec2(0), low_size - 1);
        vec4 m = imageLoad(march_out, at);
        vec4 c = imageLoad(march_cloud, at);
        int slot = t.y * RAY_TILE + t.x;
        tile_ray[slot] = uvec4(packHalf2x16(m.rg), packHalf2x16(m.ba), packHalf2x16(vec2(c.z, 0.0)),
                               floatBitsToUint(c.w));
        tile_span[slot] = packHalf2x16(c.xy);
        if (m.a < 1.0 || any(notEqual(m.rgb, vec3(0.0)))) {
            atomicOr(tile_any, 1u);
        }
    }
    barrier();
    return tile_any != 0u;
}

// The Gaussian's factor along one axis for the taps at offsets -1..2 from the pixel's base ray
// (r: the pixel's fraction past it); at divisor 1 the pixel's own ray alone.
vec4 axis_weights(float r, int d) {
    vec4 o = vec4(-1.0, 0.0, 1.0, 2.0) - r;
    if (d == 1) {
        return vec4(0.0, 1.0, 0.0, 0.0);
    }
    return exp(-0.5 * o * o / (SIGMA_RAYS * SIGMA_RAYS));
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
    // The spatial Gaussian is separable: four factors per axis instead of sixteen exponentials.
    vec4 gx = axis_weights(f.x, d);
    vec4 gy = axis_weights(f.y, d);
    vec4 sum = vec4(0.0);
    float tau = 0.0;
    float total = 0.0;
    float best_w = -1.0;
    int best_at = 0;
    float nearest = 1e38;
    int nearest_at = 0;
    for (int k = 0; k < TAPS * TAPS; ++k) {
        ivec2 o = ivec2(k % TAPS, k / TAPS) - (TAPS / 2 - 1);
        ivec2 t = base + o - r0;
        int at = t.y * RAY_TILE + t.x;
        float spatial = gx[k % TAPS] * gy[k / TAPS];
        uvec4 ray = tile_ray[at];
        vec4 m = vec4(unpackHalf2x16(ray.x), unpackHalf2x16(ray.y));
        float ray_tau = unpackHalf2x16(ray.z).x;
        float ray_distance = uintBitsToFloat(ray.w);
        float w = spatial * depth_weight(t_pixel, ray_distance);
        sum += w * m;
        tau += w * ray_tau;
        total += w;
        if (w > best_w) {
            best_w = w;
            best_at = at;
        }
        float gap = abs(ray_distance - t_pixel);
        if (gap < nearest) {
            nearest = gap;
            nearest_at = at;
        }
    }
    vec4 m;
    vec4 c;
    if (total > MIN_WEIGHT) {
        m = sum / total;
        c = vec4(unpackHalf2x16(tile_span[best_at]), tau / total, 0.0);
    } else {
        uvec4 ray = tile_ray[nearest_at];
        m = vec4(unpackHalf2x16(ray.x), unpackHalf2x16(ray.y));
        c = vec4(unpackHalf2x16(tile_span[nearest_at]), unpackHalf2x16(ray.z).x, 0.0);
    }
    imageStore(cloud, px, vec4(c.xyz, 0.0));
    if (m.a >= 1.0 && all(equal(m.rgb, vec3(0.0)))) {
        return;  // no particle fog here: the pixel stays as it is
    }
    vec4 behind = imageLoad(hdr, px);
    imageStore(hdr, px, vec4(behind.rgb * m.a + m.rgb, behind.a));
}
