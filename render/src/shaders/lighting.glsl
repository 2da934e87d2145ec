// Lighting shared by every pass that lights something: opaque surfaces now, and later the froxel
// fog and the brick march (which call the same functions with no surface normal).
//
// Bindings 0..5 of set 0 are reserved for the lighting inputs in every pass that includes this file:
//   0 FrameUniform, 1 objects (declared by the including pass if needed), 2 lights,
//   3 shadow views, 4 shadow atlas (depth 2D array, compare sampler), 5 projector textures (2D array).
#ifndef LIGHTING_GLSL
#define LIGHTING_GLSL

#include "gpu_types.glsl"

#define LIGHT_POINT 0u
#define LIGHT_SPOT 1u
#define LIGHT_PROJECTOR 2u
#define NO_SHADOW 0xffffffffu
#define PI 3.14159265358979

// Half-width of the shadow filter in texels: 1 gives the 3x3 PCF surfaces use. A pass that averages
// many shadow samples itself (the froxel fog) defines it as 0 before including this file: one
// bilinear compare per sample.
#ifndef SHADOW_PCF_RADIUS
#define SHADOW_PCF_RADIUS 1
#endif

layout(std140, set = 0, binding = 0) uniform Frame { FrameUniform frame; };
layout(std430, set = 0, binding = 2) readonly buffer Lights { GpuLight lights[]; };
layout(std430, set = 0, binding = 3) readonly buffer ShadowViews { ShadowView shadow_views[]; };
layout(set = 0, binding = 4) uniform sampler2DArrayShadow shadow_atlas;
layout(set = 0, binding = 5) uniform sampler2DArray projector_tex;

// Fraction of light reaching `pos` through shadow layer `layer` (1 = lit), PCF of bilinear compares
// over (2 SHADOW_PCF_RADIUS + 1)^2 taps. `normal_offset_m` pushes the lookup off the surface (0 for volumes). Returns -1 when
// `pos` is outside the layer's frustum.
float shadow_layer(uint layer, vec3 pos, vec3 normal, float normal_offset_m) {
    ShadowView v = shadow_views[layer];
    vec4 clip = v.clip_from_world * vec4(pos + normal * normal_offset_m * v.params.y, 1.0);
    vec3 ndc = clip.xyz / clip.w;
    vec2 uv = ndc.xy * 0.5 + 0.5;
    if (clip.w <= 0.0 || any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0))) || ndc.z > 1.0) {
        return -1.0;
    }
    float texel = 1.0 / float(frame.counts.w);
    float lit = 0.0;
    const int r = SHADOW_PCF_RADIUS;
    for (int y = -r; y <= r; ++y) {
        for (int x = -r; x <= r; ++x) {
            lit += texture(shadow_atlas, vec4(uv + vec2(x, y) * texel, float(layer), ndc.z));
        }
    }
    return lit / float((2 * r + 1) * (2 * r + 1));
}

// Sun visibility: the first cascade whose frustum holds `pos`; lit beyond the last cascade.
float sun_shadow(vec3 pos, vec3 normal, float normal_offset_m) {
    if (frame.sun_color.w < 0.5) {
        return 1.0;
    }
    for (uint c = 0u; c < frame.counts.y; ++c) {
        float s = shadow_layer(c, pos, normal, normal_offset_m);
        if (s >= 0.0) {
            return s;
        }
    }
    return 1.0;
}

// Shadow layer of a point light's cube face for direction `d` (from the light): +X -X +Y -Y +Z -Z.
uint cube_face(vec3 d) {
    vec3 a = abs(d);
    if (a.x >= a.y && a.x >= a.z) {
        return d.x > 0.0 ? 0u : 1u;
    }
    if (a.y >= a.z) {
        return d.y > 0.0 ? 2u : 3u;
    }
    return d.z > 0.0 ? 4u : 5u;
}

// Smooth range window (1 at the light, 0 at `range`).
float range_window(float dist, float range) {
    float r = dist / range;
    float w = clamp(1.0 - r * r * r * r, 0.0, 1.0);
    return w * w;
}

// A projector's right axis (its texture's u direction).
vec3 projector_right(GpuLight l) {
    return normalize(cross(l.direction_cos_outer.xyz, l.up_cos_inner.xyz));
}

// A projector's texture coordinates of world point `q` (its `right` axis given), and its depth
// along the projector's axis in `z`.
vec2 projector_uv(GpuLight l, vec3 right, vec3 q, out float z) {
    vec3 local = q - l.position_range.xyz;
    z = dot(local, l.direction_cos_outer.xyz);
    return vec2(dot(local, right), dot(local, l.up_cos_inner.xyz)) / (max(z, 1e-4) * l.projector.x) * 0.5 + 0.5;
}

// Clips `span` (an interval of s along a line) to where p + q s >= 0.
void clip_to_half_line(inout vec2 span, float p, float q) {
    if (q > 0.0) {
        span.x = max(span.x, -p / q);
    } else if (q < 0.0) {
        span.y = min(span.y, -p / q);
    } else if (p < 0.0) {
        span.y = span.x - 1.0;
    }
}

// The part (s0, s1) of the line `origin + s dir` (dir unit) that light `l` can reach: inside a
// spot's outer cone, or a projector's frustum in front of its near plane; all of it for a point
// light. Empty where s1 <= s0. The near window samples only this part, so a cell a cone's edge
// crosses counts what lies inside it rather than all or nothing at its middle (which, with the
// cells anchored at the ray's closest approach, landed the same way for every pixel along a beam
// seen from the side and dimmed its first metre by a tenth).
vec2 light_beam_span(GpuLight l, vec3 origin, vec3 dir) {
    vec2 span = vec2(-3.0e38, 3.0e38);
    vec3 o = origin - l.position_range.xyz;
    vec3 axis = l.direction_cos_outer.xyz;
    float u = dot(o, axis);
    float v = dot(dir, axis);
    uint kind = l.kind_shadow.x;
    if (kind == LIGHT_PROJECTOR) {
        // Five planes through the frustum, each bound linear along the line.
        clip_to_half_line(span, u - l.projector.z, v);
        float t = l.projector.x;
        vec3 up = l.up_cos_inner.xyz;
        vec3 right = projector_right(l);
        clip_to_half_line(span, t * u - dot(o, right), t * v - dot(dir, right));
        clip_to_half_line(span, t * u + dot(o, right), t * v + dot(dir, right));
        clip_to_half_line(span, t * u - dot(o, up), t * v - dot(dir, up));
        clip_to_half_line(span, t * u + dot(o, up), t * v + dot(dir, up));
    } else if (kind == LIGHT_SPOT && l.direction_cos_outer.w > 0.0) {
        // In front of the apex, and (u + v s)^2 >= cos^2 |o + s dir|^2: a quadratic a s^2 + b s + c.
        clip_to_half_line(span, u, v);
        float k = l.direction_cos_outer.w * l.direction_cos_outer.w;
        float a = v * v - k;
        float b = 2.0 * (u * v - k * dot(o, dir));
        float c = u * u - k * dot(o, o);
        float disc = b * b - 4.0 * a * c;
        if (abs(a) > 1e-6 && disc >= 0.0) {
            float root = sqrt(disc);
            float r0 = (-b - root) / (2.0 * a);
            float r1 = (-b + root) / (2.0 * a);
            float lo = min(r0, r1);
            float hi = max(r0, r1);
            if (a < 0.0) {
                // The line's direction is outside the cone's angle: it crosses one nappe.
                span = vec2(max(span.x, lo), min(span.y, hi));
            } else if (v > 0.0) {
                span.x = max(span.x, hi);  // heading into the cone: it stays in from the far root
            } else {
                span.y = min(span.y, lo);
            }
        } else if (a < 0.0 && disc < 0.0) {
            span.y = span.x - 1.0;  // the line misses the cone
        }
    }
    return span;
}

// Texels of a projector's texture between two taps of its mean over a segment (below).
const float PROJECTOR_TAP_TEXELS = 8.0;
const int PROJECTOR_MAX_TAPS = 8;

// Mean of projector `l`'s texture (0 outside its frustum) over the segment `seg_a`..`seg_b`:
// taps PROJECTOR_TAP_TEXELS apart in the texture (at most PROJECTOR_MAX_TAPS, then farther
// apart), each read at the mip level of the spacing. A point (`seg_a` = `seg_b`) reads one texel.
vec3 projector_mean(GpuLight l, vec3 seg_a, vec3 seg_b) {
    vec3 right = projector_right(l);
    float size = float(textureSize(projector_tex, 0).x);
    float za;
    float zb;
    float span = length(projector_uv(l, right, seg_b, zb) - projector_uv(l, right, seg_a, za)) * size;
    int taps = clamp(int(ceil(span / PROJECTOR_TAP_TEXELS)), 1, PROJECTOR_MAX_TAPS);
    float lod = clamp(log2(max(span / float(taps), 1.0)), 0.0, log2(size));
    vec3 sum = vec3(0.0);
    for (int m = 0; m < taps; ++m) {
        float z;
        vec2 uv = projector_uv(l, right, mix(seg_a, seg_b, (float(m) + 0.5) / float(taps)), z);
        if (z > l.projector.z && all(greaterThanEqual(uv, vec2(0.0))) && all(lessThanEqual(uv, vec2(1.0)))) {
            sum += textureLod(projector_tex, vec3(uv.x, 1.0 - uv.y, float(l.kind_shadow.z)), lod).rgb;
        }
    }
    return sum / float(taps);
}

// Irradiance-like radiance arriving at `pos` from light `i` along `to_light` (unit), with shadows
// and projector tint. `normal_offset_m` as in `shadow_layer`. The value stands for the segment
// `seg_a`..`seg_b` around `pos` (both `pos` for a point): a projector's texture is averaged over
// it, so a gobo finer than a volume's samples averages rather than aliases; the rest is taken
// at `pos`.
vec3 light_arriving_over(uint i, vec3 pos, vec3 normal, float normal_offset_m, vec3 seg_a, vec3 seg_b,
                         out vec3 to_light) {
    GpuLight l = lights[i];
    vec3 d = l.position_range.xyz - pos;
    float dist = length(d);
    to_light = d / max(dist, 1e-4);
    if (dist >= l.position_range.w) {
        return vec3(0.0);
    }
    float atten = l.color_intensity.w / max(dist * dist, 0.01) * range_window(dist, l.position_range.w);
    vec3 color = l.color_intensity.rgb;
    uint kind = l.kind_shadow.x;
    vec3 dir = l.direction_cos_outer.xyz;
    if (kind == LIGHT_SPOT) {
        atten *= smoothstep(l.direction_cos_outer.w, l.up_cos_inner.w, dot(-to_light, dir));
    } else if (kind == LIGHT_PROJECTOR) {
        color *= projector_mean(l, seg_a, seg_b);
        if (all(equal(color, vec3(0.0)))) {
            return vec3(0.0);
        }
    }
    if (atten <= 0.0) {
        return vec3(0.0);
    }
    uint layer = l.kind_shadow.y;
    if (layer != NO_SHADOW) {
        vec3 lookup = pos;
        if (kind == LIGHT_POINT) {
            // The face that holds the offset lookup point: near a seam between two faces, the
            // face of `pos` itself may not hold it, and a lookup outside its face reads as lit
            // (a dotted line of light along every seam). The six faces share one texel size.
            lookup += normal * normal_offset_m * shadow_views[layer].params.y;
            layer += cube_face(lookup - l.position_range.xyz);
            normal_offset_m = 0.0;
        }
        float s = shadow_layer(layer, lookup, normal, normal_offset_m);
        atten *= s < 0.0 ? 1.0 : s;
    }
    return color * atten;
}

// light_arriving_over a point: the projector's texture at its finest level.
vec3 light_arriving(uint i, vec3 pos, vec3 normal, float normal_offset_m, out vec3 to_light) {
    return light_arriving_over(i, pos, normal, normal_offset_m, pos, pos, to_light);
}

// Hemispheric ambient radiance for a direction.
vec3 ambient_for(vec3 n) {
    return mix(frame.ambient_ground.rgb, frame.ambient_sky.rgb, clamp(n.z * 0.5 + 0.5, 0.0, 1.0));
}

#endif
