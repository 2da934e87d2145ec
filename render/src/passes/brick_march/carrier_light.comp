#version 460
// fog.carrier_light: the light each carrier's billboard would show, gathered into the bricks its
// kernel covers, for systems whose light fog.brick_light eases toward their billboards' before
// the range fade (a source's billboard match above 0; recorded only in frames that have one).
//
// One thread per live particle. A carrier of such a system takes the light of its billboard as the
// billboards draw it: billboard_light (a normal facing the camera, cos/pi of each light with its
// shadows) at 7 x 7 points of its camera-facing quad, each weighted by a Gaussian as wide as its
// kernel (the splat's k x size on each axis of the quad: the texture's alpha as the kernel has it)
// times how much of a billboard fragment there is drawn (on screen, in front of the opaque depth,
// faded near it as the billboards' soft particles are); the weighted mean is the carrier's
// billboard light. It adds its weight (mass over distance squared, what its billboard covers on
// screen, x match x share) and that times the light to each brick of its kernel's level that its
// kernel's support touches (share: the Gaussian's mass in that brick, per axis, over the support),
// in fixed point: billboard_sums words, u64 (lo, hi) pairs of weight, r, g, b per slot, in units
// of 2^-BILLBOARD_LIGHT_FRACTION_BITS.
//
// fog.brick_light divides the sums: a brick's billboard light is the coverage-weighted mean of its
// carriers' billboards' light, so the fog eased to it shows, summed over the bricks, what the
// carriers' billboards show (a billboard lights each fragment of its quad, the fog each voxel of a
// Gaussian: light taken at the voxels alone differs wherever the light changes across a puff).
#include "lighting.glsl"
#include "billboard_light.glsl"
#define BRICKS_SAMPLING_ONLY
#define BRICK_CONSTANTS_BINDING 6
#define BRICK_PAGE_BINDING 7
#define BRICK_SLOT_MAX_BINDING 8
#define BRICK_CARRIERS
#define BRICK_POOL_BINDING 9
#include "bricks.glsl"

layout(local_size_x = 64) in;

layout(set = 0, binding = 13) uniform sampler2D depth_tex;
layout(push_constant) uniform Push { FogMarchPush push; };
// Per slot: weight, r, g, b, each a u64 (lo, hi) in units of 2^-BILLBOARD_LIGHT_FRACTION_BITS.
layout(std430, set = 0, binding = 14) buffer BillboardLight { uint billboard_sums[]; };

// Fixed point of the sums (particle_fog::pool::BILLBOARD_LIGHT_FRACTION_BITS).
const float BILLBOARD_LIGHT_UNIT = 1048576.0;
// Points of a quad per axis: a grid of QUAD_POINTS^2 cell centres over the quad (a midpoint rule).
const int QUAD_POINTS = 7;

// Adds v (>= 0, in units) to the u64 at billboard_sums[at], [at + 1].
void add_u64_units(uint at, float v) {
    float high = floor(v / 4294967296.0);
    uint lo = uint(min(v - high * 4294967296.0, 4294967295.0));
    uint old = atomicAdd(billboard_sums[at], lo);
    uint carry = old + lo < old ? 1u : 0u;
    if (high > 0.0 || carry > 0u) {
        atomicAdd(billboard_sums[at + 1u], uint(high) + carry);
    }
}

// How much of a billboard fragment at p is drawn: 0 off screen or behind the opaque depth, else the
// billboards' soft-particle fade (its view depth's distance in front of the opaque surface over
// push.gathered.y, particles.billboards' fade distance).
float fragment_drawn(vec3 p, vec3 forward) {
    vec4 clip = frame.clip_from_world * vec4(p, 1.0);
    if (clip.w <= 0.0) {
        return 0.0;
    }
    vec3 ndc = clip.xyz / clip.w;
    vec2 uv = ndc.xy * 0.5 + 0.5;
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0)))) {
        return 0.0;
    }
    float depth = textureLod(depth_tex, uv, 0.0).r;
    if (depth >= 1.0) {
        return 1.0;
    }
    vec4 surface = frame.world_from_clip * vec4(ndc.xy, depth, 1.0);
    float gap = dot(surface.xyz / surface.w - p, forward);
    return clamp(gap / max(push.gathered.y, 1e-4), 0.0, 1.0);
}

// The light of carrier c's billboard: the mean over QUAD_POINTS^2 points of its quad (size.x along
// the camera's right, size.y along its up) weighted by a Gaussian of k x size on each axis and by
// how much of a fragment there is drawn; negative when none is.
vec3 quad_light(Carrier c, float k) {
    vec3 forward = camera_forward();
    mat4 m = frame.clip_from_world;
    vec3 right = normalize(cross(forward, vec3(m[0][1], m[1][1], m[2][1])));
    vec3 up = cross(right, forward);
    vec3 sum = vec3(0.0);
    float total = 0.0;
    const int H = QUAD_POINTS / 2;
    for (int j = -H; j <= H; ++j) {
        for (int i = -H; i <= H; ++i) {
            vec2 at = vec2(i, j) / float(QUAD_POINTS);  // in quad sizes, from its centre
            vec3 q = c.position + right * (at.x * c.size.x) + up * (at.y * c.size.y);
            float w = exp(-0.5 * dot(at, at) / (k * k)) * fragment_drawn(q, forward);
            if (w > 0.0) {
                sum += w * billboard_light(q);
                total += w;
            }
        }
    }
    return total > 0.0 ? sum / total : vec3(-1.0);
}

// The share of a Gaussian (mu, sigma) over cells lo..hi of `vox` that lies in the cells below
// `split` (a brick edge, in cells).
float share_below(float mu, float sigma, ivec2 cells, int split, float vox) {
    float a = phi((float(cells.x) * vox - mu) / sigma);
    float b = phi((float(cells.y + 1) * vox - mu) / sigma);
    float s = phi((float(split) * vox - mu) / sigma);
    return b > a ? clamp((s - a) / (b - a), 0.0, 1.0) : 1.0;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= alive_count()) {
        return;
    }
    uint slot = alive[i];
    Carrier c = carrier_of(slot);
    if (c.billboard_match <= 0.0 || c.weight <= 0.0 || c.emissive || carrier_poisoned(c)) {
        return;
    }
    float mass = carrier_mass(c);
    if (!(mass > 0.0)) {
        return;
    }
    float sigma = kernel_sigma(c);
    float dist = distance(c.position, bricks.camera_voxel.xyz);
    int level = kernel_level(sigma, dist);
    if (level < 0) {
        return;
    }
    float vox = level_voxel_m(level);
    sigma = splat_sigma(sigma, vox);
    vec3 light = quad_light(c, kernel_k(c));
    if (light.r < 0.0 || any(isnan(light)) || any(isinf(light))) {
        return;
    }
    // The support on each axis (cells), the bricks it spans (at most two, as MAX_AXIS_CELLS <=
    // BRICK_VOXELS + 1) and the share in the lower one.
    ivec3 lo, hi;
    vec3 lower;
    for (int a = 0; a < 3; ++a) {
        ivec2 cells = support_cells(c.position[a], sigma, vox);
        lo[a] = cells.x >> 3;
        hi[a] = cells.y >> 3;
        lower[a] = hi[a] > lo[a] ? share_below(c.position[a], sigma, cells, hi[a] * BRICK_VOXELS, vox) : 1.0;
    }
    // Weighted by what the carrier covers on screen (mass over distance squared, relative to the
    // level's reach, so within 1 .. DISTANCE_LEVEL0_VOXELS^2 of its mass): the bricks span depths
    // over which a billboard's share of the screen changes, and the sum over a brick's voxels of
    // its light x what they cover is then the sum over its carriers' billboards.
    float reach = DISTANCE_LEVEL0_VOXELS * vox;
    float cover = reach / max(dist, vox);
    float weight = mass * cover * cover * c.billboard_match * BILLBOARD_LIGHT_UNIT;
    for (int n = 0; n < 8; ++n) {
        ivec3 d = ivec3(n & 1, (n >> 1) & 1, n >> 2);
        ivec3 b = lo + d;
        if (any(greaterThan(b, hi))) {
            continue;
        }
        vec3 axis = mix(lower, vec3(1.0) - lower, vec3(d));
        float share = axis.x * axis.y * axis.z;
        int at = page_index(level, b);
        uint s = at < 0 ? PAGE_NONE : page[at];
        if (share <= 0.0 || s >= PAGE_REQUESTED) {
            continue;
        }
        float w = weight * share;
        uint base = s * BILLBOARD_LIGHT_WORDS;
        add_u64_units(base, w);
        add_u64_units(base + 2u, w * light.r);
        add_u64_units(base + 4u, w * light.g);
        add_u64_units(base + 6u, w * light.b);
    }
}
