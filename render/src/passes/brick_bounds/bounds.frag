#version 460
// fog.brick_bounds: the edge's level colour (bounds.vert).
layout(location = 0) flat in vec3 colour;
layout(location = 0) out vec4 out_colour;

void main() {
    out_colour = vec4(colour, 1.0);
}
