// particles.billboards (viewer: `lldrawpoolalpha.cpp`): texture RGBA x particle colour, blended by the
// pipeline with the particle's legacy factor pair; alpha below 0.004 discarded except for custom
// blends (neither factor SOURCE_ALPHA); lit by the sun (with shadows), ambient and local lights
// with a normal facing the camera, or fullbright when EMISSIVE; faded near opaque geometry (soft
// particles: alpha x clamp((scene depth - depth) / fade distance)); froxel fog at the fragment's
// own depth: fogged = colour x T + S (pairs whose dest factor is ONE add colour x T only); behind or
// inside particle fog, alpha x the fog's transmittance in front of the fragment.
// The default texture (layer 0) is sampled with clamp addressing, custom textures with repeat
// (as in the viewer). Glow: the second output, the glow mask, gets (texture alpha x glow x soft fade,
// 0, 0, alpha), blended by the pipeline with (ONE, ONE_MINUS_SRC_ALPHA) into
// mask' = mask (1 - alpha) + texture alpha x glow. Frames without a glowing source compile this
// with NO_GLOW defined (billboards_no_glow.frag): no second output, no mask attachment.
#include "lighting.glsl"
#include "billboard_light.glsl"
#define FOG_UNIFORM_BINDING 10
#include "froxel_common.glsl"
#include "billboard_texel.glsl"
#include "particle_fog_viewer.glsl"

layout(set = 0, binding = 11) uniform sampler3D integrated;
layout(set = 0, binding = 12) uniform sampler2D scene_depth;
// Particle fog along each pixel's ray (fog.brick_march.cloud): start and end (m) and optical depth.
layout(set = 0, binding = 17) uniform sampler2D cloud;

// Transmittance of the particle fog between the camera and distance d along this pixel's ray.
float cloud_transmittance(vec2 screen_uv, float d) {
    return pf_cloud_transmittance(texture(cloud, screen_uv).xyz, d);
}

layout(location = 0) in vec3 world_pos;
layout(location = 1) in vec2 uv;
layout(location = 2) in vec4 color;
layout(location = 3) flat in uint layer;
layout(location = 4) flat in uint flags;
layout(location = 5) in float glow;  // per vertex: ribbons blend the parent's and their own
layout(location = 0) out vec4 out_color;
#ifndef NO_GLOW
layout(location = 1) out vec4 out_glow;
#endif


void main() {
    vec4 tex = particle_texel(uv, layer);
    vec4 c = tex * color;
    bool custom = push.blend.y == 1u;
    if (!custom && c.a < MIN_ALPHA) {
        discard;
    }
    vec3 n = -push.forward_soft.xyz;
    vec3 radiance = c.rgb;
    if ((flags & PF_EMISSIVE) == 0u) {
        radiance *= facing_light(world_pos, n, 0.0);
    }
    float depth = dot(world_pos - frame.camera_pos.xyz, push.forward_soft.xyz);
    vec2 screen_uv = gl_FragCoord.xy * frame.screen.zw;
    float fade = 1.0;
    if (push.forward_soft.w > 0.0) {
        float scene = texture(scene_depth, screen_uv).r;
        fade = clamp((scene - depth) / push.forward_soft.w, 0.0, 1.0);
    }
    float alpha = c.a * fade;
    if (push.planes.w > 0.5) {
        // Inside or behind particle fog: the part in front hides the billboard (it fades into the
        // cloud, which the march already drew).
        alpha *= cloud_transmittance(screen_uv, length(world_pos - frame.camera_pos.xyz));
    }
    if (push.planes.z > 0.5) {
        vec4 f = froxel_fog_dithered(integrated, screen_uv, depth, gl_FragCoord.xy);
        radiance = radiance * f.a + (push.blend.z == 1u ? vec3(0.0) : f.rgb);
    }
    out_color = vec4(radiance, alpha);
#ifndef NO_GLOW
    out_glow = vec4(tex.a * glow * fade, 0.0, 0.0, alpha);
#endif
}
