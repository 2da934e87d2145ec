#version 460
// view.panel: egui's triangles over the tone-mapped frame. Vertices are pulled from storage
// buffers: indices[gl_VertexIndex] (firstVertex is the mesh's first index) plus the mesh's
// vertex base picks a vertex of 5 words (position x, y in points; uv; sRGBA8 premultiplied).

layout(std430, set = 0, binding = 0) readonly buffer Vertices { uint vertex_words[]; };
layout(std430, set = 0, binding = 1) readonly buffer Indices { uint indices[]; };

layout(push_constant) uniform Push {
    // The target's size in egui points.
    vec2 screen_points;
    // Added to every index of the mesh.
    uint vertex_base;
    uint unused;
} push;

layout(location = 0) out vec2 uv;
layout(location = 1) out vec4 colour;

void main() {
    uint w = (push.vertex_base + indices[gl_VertexIndex]) * 5u;
    vec2 pos = vec2(uintBitsToFloat(vertex_words[w]), uintBitsToFloat(vertex_words[w + 1u]));
    uv = vec2(uintBitsToFloat(vertex_words[w + 2u]), uintBitsToFloat(vertex_words[w + 3u]));
    colour = unpackUnorm4x8(vertex_words[w + 4u]);
    gl_Position = vec4(2.0 * pos / push.screen_points - 1.0, 0.0, 1.0);
}
