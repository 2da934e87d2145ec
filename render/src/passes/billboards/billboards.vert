#version 460
// particles.billboards: one quad per visible particle, built as the viewer builds it
// (LLVOPartGroup::getGeometry). Vertex i of the 6 per instance is corner (0, 1, 2, 1, 3, 2)[i];
// corner uvs (0,1), (0,0), (1,1), (1,0) (GL convention; v is flipped for Vulkan images, so the
// image's top row is at +up).
// Billboards (`LLVOPartGroup::getGeometry`): camera-point facing, at = pos - camera, right =
// normalize(at x Z), up = normalize(right x at), corners (+up -right), (-up -right), (+up +right),
// (-up +right) with half-extents sx/2 and sy/2; FOLLOW_VELOCITY turns the y extent along the
// on-screen motion.
// Ribbons (same function): corners parent + paxis psx/2, parent - paxis psx/2, own + axis sx/2,
// own - axis sx/2, where the parent (particles.ribbon_parent) is the next newer particle of the
// source; the newest connects to the source object's position with its current local +Z and the
// start x scale, in the start colour and glow, and collapses once the object is gone. Colour and
// glow come from each end's particle.
// Colours are rounded to 8 bits per channel as the viewer's LLColor4U vertex colours are.
// HUD particles (push.blend.w == DRAW_HUD) are drawn only by the HUD draw, in HUD space: x away
// from the viewer, y to the left, z up, the screen spanning z in [-0.5, 0.5] and y in
// [-aspect/2, aspect/2] (the viewer's HUD projection at zoom 1), billboards facing a camera at
// (-1, 0, 0). Particles of another blend pair than this draw's, or of the other space,
// collapse to a point outside the view. Particle fog: a source's billboards have their alpha scaled
// by 1 - its fog weight (fog_sources), and are not drawn at weight 1.
#include "lighting.glsl"
#include "billboard_common.glsl"
#include "particle_fog_viewer.glsl"

layout(location = 0) out vec3 world_pos;
layout(location = 1) out vec2 uv;
layout(location = 2) out vec4 color;
layout(location = 3) flat out uint layer;
layout(location = 4) flat out uint flags;
layout(location = 5) out float glow;

const uint CORNER[6] = uint[6](0u, 1u, 2u, 1u, 3u, 2u);
const float RIGHT_SIGN[4] = float[4](-1.0, -1.0, 1.0, 1.0);
const float UP_SIGN[4] = float[4](1.0, -1.0, 1.0, -1.0);
const vec2 CORNER_UV[4] = vec2[4](vec2(0.0, 1.0), vec2(0.0, 0.0), vec2(1.0, 1.0), vec2(1.0, 0.0));
// Velocities below this (m/s) keep the plain orientation.
const float MIN_SPEED = 1e-6;
const float COLOR_LEVELS = 255.0;
// "No parent" in particles.ribbon_parent.
const uint NO_PARENT = 0xFFFFFFFFu;

vec4 to_8_bits(vec4 c) {
    return floor(clamp(c, 0.0, 1.0) * COLOR_LEVELS + 0.5) / COLOR_LEVELS;
}

// The HUD camera's position (the viewer's, `llvopartgroup.cpp`).
const vec3 HUD_CAMERA = vec3(-1.0, 0.0, 0.0);
// Half the HUD's height in HUD metres.
const float HUD_HALF_HEIGHT = 0.5;
// NDC depth of HUD particles (no depth test).
const float HUD_DEPTH = 0.5;

// Corner c of a billboard facing the point `camera`.
vec3 billboard_corner(GpuParticle p, uint c, vec3 camera) {
    vec3 pos = p.pos_age.xyz;
    vec3 at = pos - camera;
    vec3 right = normalize(cross(at, vec3(0.0, 0.0, 1.0)));
    vec3 up = normalize(cross(right, at));
    vec3 vel = p.vel_max_age.xyz;
    if ((p.ids.z & PF_FOLLOW_VELOCITY) != 0u && length(vel) > MIN_SPEED) {
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
    return pos + RIGHT_SIGN[c] * right * (0.5 * p.scale.x) + UP_SIGN[c] * up * (0.5 * p.scale.y);
}

// Corner c of a ribbon segment of the particle in `slot`; its colour and glow in `c_color`, `c_glow`.
vec3 ribbon_corner(GpuParticle p, uint slot, uint c, out vec4 c_color, out float c_glow) {
    float side = (c == 0u || c == 2u) ? 1.0 : -1.0;
    if (c >= 2u) {
        c_color = p.color;
        c_glow = p.offset_glow.w;
        return p.pos_age.xyz + side * p.axis.xyz * (0.5 * p.scale.x);
    }
    uint par = ribbon_parent[slot];
    if (par != NO_PARENT) {
        GpuParticle q = pool[par];
        c_color = q.color;
        c_glow = q.offset_glow.w;
        return q.pos_age.xyz + side * q.axis.xyz * (0.5 * q.scale.x);
    }
    GpuEmitter e = emitters[p.ids.x];
    c_color = e.start_color;
    c_glow = floor(COLOR_LEVELS * e.angles_glow.z + 0.5) / COLOR_LEVELS;
    if (e.axis.w < 0.5) {
        // No source object: the viewer uses the particle's own edge, a zero-area segment.
        return p.pos_age.xyz + side * p.axis.xyz * (0.5 * p.scale.x);
    }
    return e.position_speed_min.xyz + side * e.axis.xyz * (0.5 * e.scales.x);
}

void main() {
    uint slot = visible[gl_InstanceIndex];
    GpuParticle p = pool[slot];
    flags = p.ids.z;
    bool hud = push.blend.w == DRAW_HUD;
    if (p.ids.w != push.blend.x || ((flags & PF_HUD) != 0u) != hud) {
        gl_Position = vec4(0.0, 0.0, -1.0, 1.0);
        return;
    }
    // Particle fog cross-fade: a converted system's billboards fade out as its fog fades in.
    float fog_weight = fog_sources[p.ids.x].weight_mass.x;
    if (fog_weight >= 1.0) {
        gl_Position = vec4(0.0, 0.0, -1.0, 1.0);
        return;
    }
    uint c = CORNER[gl_VertexIndex % 6];
    vec4 corner_color = p.color;
    float corner_glow = p.offset_glow.w;
    if ((flags & PF_RIBBON) != 0u) {
        world_pos = ribbon_corner(p, slot, c, corner_color, corner_glow);
    } else {
        world_pos = billboard_corner(p, c, hud ? HUD_CAMERA : frame.camera_pos.xyz);
    }
    uv = vec2(CORNER_UV[c].x, 1.0 - CORNER_UV[c].y);
    color = to_8_bits(corner_color);
    color.a = pf_billboard_alpha(color.a, fog_weight);
    glow = corner_glow;
    layer = source_layer[p.ids.x];
    if (hud) {
        float half_width = HUD_HALF_HEIGHT * frame.screen.x / frame.screen.y;
        gl_Position = vec4(-world_pos.y / half_width, -world_pos.z / HUD_HALF_HEIGHT, HUD_DEPTH, 1.0);
    } else {
        gl_Position = frame.clip_from_world * vec4(world_pos, 1.0);
    }
}
