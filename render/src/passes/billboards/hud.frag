#version 460
// particles.hud: HUD particles over the finished (tone-mapped) frame, as the viewer draws HUD
// attachments after the world: texture RGBA x particle colour written as display values and
// blended with the particle's legacy pair, the alpha discard of the world draw; no fog, no
// soft fade, no glow. HUD lighting is not modelled: every HUD particle is drawn fullbright.
#include "billboard_texel.glsl"

layout(location = 0) in vec3 world_pos;
layout(location = 1) in vec2 uv;
layout(location = 2) in vec4 color;
layout(location = 3) flat in uint layer;
layout(location = 4) flat in uint flags;
layout(location = 5) in float glow;
layout(location = 0) out vec4 out_color;

void main() {
    vec4 c = particle_texel(uv, layer) * color;
    if (push.blend.y != 1u && c.a < MIN_ALPHA) {
        discard;
    }
    out_color = c;
}
