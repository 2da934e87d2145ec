#version 460
// fog.brick_bounds (RenderVKParticleFogDebug 2 and 3): the 12 edges of every brick in use, as
// screen-space quads LINE_WIDTH_PX wide, depth-tested against the opaque depth, coloured by level.
// Instance i is the i-th brick of this frame's used list (requests[request capacity + i]); the
// draw covers every slot, and instances past the used count (counters[C_USED]) are culled.
#define BRICKS_SAMPLING_ONLY
#define BRICK_CONSTANTS_BINDING 1
#define BRICK_PAGE_BINDING 5
#define BRICK_SLOT_MAX_BINDING 6
#include "bricks.glsl"

layout(std140, set = 0, binding = 0) uniform Frame { FrameUniform frame; };

layout(std430, set = 0, binding = 2) readonly buffer Requests { uint requests[]; };
layout(std430, set = 0, binding = 3) readonly buffer SlotKey { ivec4 slot_key[]; };
layout(std430, set = 0, binding = 4) readonly buffer Counters { uint counters[]; };

layout(location = 0) flat out vec3 colour;

const float LINE_WIDTH_PX = 1.5;
// Endpoints nearer than this (clip w) are moved onto it: no edge reaches behind the camera.
const float NEAR_W = 1e-3;

// Corner indices (bit 0 x, bit 1 y, bit 2 z) of the 12 edges.
const ivec2 EDGES[12] = ivec2[12](ivec2(0, 1), ivec2(2, 3), ivec2(4, 5), ivec2(6, 7), ivec2(0, 2), ivec2(1, 3),
    ivec2(4, 6), ivec2(5, 7), ivec2(0, 4), ivec2(1, 5), ivec2(2, 6), ivec2(3, 7));
// The 6 vertices of an edge's quad: (end, side).
const ivec2 QUAD[6] = ivec2[6](ivec2(0, -1), ivec2(1, -1), ivec2(1, 1), ivec2(0, -1), ivec2(1, 1), ivec2(0, 1));

// Level colours: distinct hues, finest first.
const vec3 LEVEL_COLOURS[8] = vec3[8](vec3(1.0, 0.2, 0.2), vec3(1.0, 0.8, 0.1), vec3(0.2, 1.0, 0.2),
    vec3(0.1, 0.9, 1.0), vec3(0.3, 0.4, 1.0), vec3(1.0, 0.3, 1.0), vec3(1.0, 1.0, 1.0), vec3(0.6, 0.6, 0.6));

vec4 clip_of(ivec4 key, int corner) {
    float edge_m = level_voxel_m(key.w) * float(BRICK_VOXELS);
    vec3 p = (vec3(key.xyz) + vec3(corner & 1, (corner >> 1) & 1, (corner >> 2) & 1)) * edge_m;
    return frame.clip_from_world * vec4(p, 1.0);
}

void main() {
    uint brick = uint(gl_InstanceIndex);
    int edge = gl_VertexIndex / 6;
    ivec2 v = QUAD[gl_VertexIndex % 6];
    colour = vec3(0.0);
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // outside the clip volume: culled
    if (brick >= counters[C_USED]) {
        return;
    }
    ivec4 key = slot_key[requests[bricks.params.z + brick]];
    vec4 a = clip_of(key, EDGES[edge].x);
    vec4 b = clip_of(key, EDGES[edge].y);
    if (a.w < NEAR_W && b.w < NEAR_W) {
        return;
    }
    if (a.w < NEAR_W) {
        a = mix(a, b, (NEAR_W - a.w) / (b.w - a.w));
    } else if (b.w < NEAR_W) {
        b = mix(b, a, (NEAR_W - b.w) / (a.w - b.w));
    }
    vec2 px = frame.screen.xy;
    vec2 sa = a.xy / a.w * px;
    vec2 sb = b.xy / b.w * px;
    vec2 along = sb - sa;
    vec2 side = length(along) > 1e-6 ? normalize(vec2(-along.y, along.x)) : vec2(1.0, 0.0);
    vec4 end = v.x == 0 ? a : b;
    // NDC spans 2 units over the screen: a pixel is 2 / size.
    end.xy += side * float(v.y) * LINE_WIDTH_PX / px * end.w;
    gl_Position = end;
    colour = LEVEL_COLOURS[key.w];
}
