#version 460
// view.panel: vertex colour times the font atlas, both sRGB-encoded with premultiplied alpha,
// blended in the same encoding as the LDR image holds it (egui's "gamma" painting).

layout(set = 0, binding = 2) uniform sampler2D font;

layout(location = 0) in vec2 uv;
layout(location = 1) in vec4 colour;
layout(location = 0) out vec4 out_colour;

void main() {
    out_colour = colour * texture(font, uv);
}
