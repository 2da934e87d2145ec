#version 460
// particles.billboards: camera-point-facing quads built from the particle pool (sl-particles.md
// 6.1): at = pos - camera, right = normalize(at x Z), up = normalize(right x at), half-extents
// sx/2 and sy/2; FOLLOW_VELOCITY (6.2) turns the y extent along the on-screen motion. Vertex i of
// the 6 per instance is corner (0, 1, 2, 1, 3, 2)[i] of (+up -right), (-up -right), (+up +right),
// (-up +right), uvs (0,1), (0,0), (1,1), (1,0) (GL convention; v is flipped for Vulkan images, so
// the image's top row is at +up). Particles of another blend pair than this draw's, and HUD
// particles (HUD space is not drawn yet), collapse to a point outside the view.
#include "lighting.glsl"
#include "billboard_common.glsl"

layout(location = 0) out vec3 world_pos;
layout(location = 1) out vec2 uv;
layout(location = 2) out vec4 color;
layout(location = 3) flat out uint layer;
layout(location = 4) flat out uint flags;
layout(location = 5) flat out float glow;

const uint CORNER[6] = uint[6](0u, 1u, 2u, 1u, 3u, 2u);
const float RIGHT_SIGN[4] = float[4](-1.0, -1.0, 1.0, 1.0);
const float UP_SIGN[4] = float[4](1.0, -1.0, 1.0, -1.0);
const vec2 CORNER_UV[4] = vec2[4](vec2(0.0, 1.0), vec2(0.0, 0.0), vec2(1.0, 1.0), vec2(1.0, 0.0));
// Velocities below this (m/s) keep the plain orientation.
const float MIN_SPEED = 1e-6;

void main() {
    GpuParticle p = pool[visible[gl_InstanceIndex]];
    flags = p.ids.z;
    if (p.ids.w != push.blend.x || (flags & PF_HUD) != 0u) {
        gl_Position = vec4(0.0, 0.0, -1.0, 1.0);
        return;
    }
    vec3 pos = p.pos_age.xyz;
    vec3 at = pos - frame.camera_pos.xyz;
    vec3 right = normalize(cross(at, vec3(0.0, 0.0, 1.0)));
    vec3 up = normalize(cross(right, at));
    vec3 vel = p.vel_max_age.xyz;
    if ((flags & PF_FOLLOW_VELOCITY) != 0u && length(vel) > MIN_SPEED) {
        vec3 v = normalize(vel);
        vec2 ab = vec2(dot(v, right), dot(v, up));
        if (length(ab) > MIN_SPEED) {
            ab = normalize(ab);
            vec3 up2 = ab.x * right + ab.y * up;
            vec3 right2 = ab.y * right - ab.x * up;
            up = up2;
            right = right2;
        }
    }
    uint c = CORNER[gl_VertexIndex % 6];
    world_pos = pos + RIGHT_SIGN[c] * right * (0.5 * p.scale.x) + UP_SIGN[c] * up * (0.5 * p.scale.y);
    uv = vec2(CORNER_UV[c].x, 1.0 - CORNER_UV[c].y);
    color = p.color;
    layer = source_layer[p.ids.x];
    glow = p.offset_glow.w;
    gl_Position = frame.clip_from_world * vec4(world_pos, 1.0);
}
