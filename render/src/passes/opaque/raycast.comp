#version 460
// host.opaque: the surface each pixel shows, found by casting the pixel's ray (through its centre,
// where rasterisation samples) through the scene's bounding-volume hierarchy (bvh.rs builds it and
// holds the CPU twin of this traversal). Writes the surface's normal (turned toward the viewer on
// back faces) and object index for host.lighting, and the hit's depth (clip z / w, 1 where nothing
// is hit) into a buffer that is then copied into the depth image. A thread per pixel: the H200
// here shades fragments far slower than it runs compute.
#include "gpu_types.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std140, set = 0, binding = 0) uniform Frame { FrameUniform frame; };
layout(std430, set = 0, binding = 1) readonly buffer Nodes { GpuBvhNode nodes[]; };
layout(std430, set = 0, binding = 2) readonly buffer Triangles { GpuRayTriangle tris[]; };
layout(set = 0, binding = 3, rgba32f) uniform writeonly image2D surface;
layout(std430, set = 0, binding = 4) writeonly buffer Depth { float depth_out[]; };
// Nodes in the hierarchy (0: nothing to hit).
layout(push_constant) uniform Push { uint node_count; } push;

// Traversal stack entries: bvh.rs's MAX_DEPTH.
const int STACK = 32;
// |det| under which a ray counts as parallel to a triangle (bvh.rs's PARALLEL).
const float PARALLEL = 1e-12;

vec2 slab(GpuBvhNode n, vec3 origin, vec3 inv_dir) {
    vec3 lo = (n.lo.xyz - origin) * inv_dir;
    vec3 hi = (n.hi.xyz - origin) * inv_dir;
    vec3 a = min(lo, hi);
    vec3 b = max(lo, hi);
    return vec2(max(max(max(a.x, a.y), a.z), 0.0), min(min(b.x, b.y), b.z));
}

float near_of(uint i, vec3 origin, vec3 inv_dir) {
    vec2 s = slab(nodes[i], origin, inv_dir);
    return s.x <= s.y ? s.x : 1e30;
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(surface);
    if (any(greaterThanEqual(px, size))) {
        return;
    }
    vec2 ndc = (vec2(px) + 0.5) / vec2(size) * 2.0 - 1.0;
    vec4 h = frame.world_from_clip * vec4(ndc, 0.5, 1.0);
    vec3 origin = frame.camera_pos.xyz;
    vec3 dir = h.xyz / h.w - origin;
    vec3 inv_dir = 1.0 / dir;

    float best_t = 1e30;
    uint best = 0xffffffffu;
    vec2 best_uv = vec2(0.0);
    bool best_front = true;
    float best_depth = 1.0;
    uint stack[STACK];
    int top = 0;
    if (push.node_count > 0u) {
        stack[0] = 0u;
        top = 1;
    }
    while (top > 0) {
        top -= 1;
        GpuBvhNode n = nodes[stack[top]];
        vec2 s = slab(n, origin, inv_dir);
        if (s.x > s.y || s.x >= best_t) {
            continue;
        }
        uint first = n.first_count.x;
        uint count = n.first_count.y;
        if (count == 0u) {
            uint a = first;
            uint b = first + 1u;
            // Far child pushed first: the near one is visited first. (Written without `top++` in
            // the index: lavapipe lost the first of two such stores.)
            bool a_first = near_of(a, origin, inv_dir) <= near_of(b, origin, inv_dir);
            stack[top] = a_first ? b : a;
            stack[top + 1] = a_first ? a : b;
            top += 2;
            continue;
        }
        for (uint k = first; k < first + count; ++k) {
            GpuRayTriangle tri = tris[k];
            vec3 e1 = tri.p1.xyz - tri.p0.xyz;
            vec3 e2 = tri.p2.xyz - tri.p0.xyz;
            vec3 pv = cross(dir, e2);
            float det = dot(e1, pv);
            if (abs(det) < PARALLEL) {
                continue;
            }
            float inv = 1.0 / det;
            vec3 tv = origin - tri.p0.xyz;
            float u = dot(tv, pv) * inv;
            vec3 qv = cross(tv, e1);
            float v = dot(dir, qv) * inv;
            float t = dot(e2, qv) * inv;
            if (u < 0.0 || v < 0.0 || u + v > 1.0 || t <= 0.0 || t >= best_t) {
                continue;
            }
            // Rasterisation clips at the near and far planes: so does the cast.
            vec4 clip = frame.clip_from_world * vec4(origin + t * dir, 1.0);
            float depth = clip.z / clip.w;
            if (depth < 0.0 || depth > 1.0) {
                continue;
            }
            best_t = t;
            best = k;
            best_uv = vec2(u, v);
            best_front = det > 0.0;
            best_depth = depth;
        }
    }

    uint index = uint(px.y) * uint(size.x) + uint(px.x);
    depth_out[index] = best_depth;
    if (best == 0xffffffffu) {
        imageStore(surface, px, vec4(0.0, 0.0, 0.0, -1.0));
        return;
    }
    GpuRayTriangle tri = tris[best];
    vec3 normal = normalize((1.0 - best_uv.x - best_uv.y) * tri.n0.xyz + best_uv.x * tri.n1.xyz + best_uv.y * tri.n2.xyz);
    if (!best_front) {
        normal = -normal;
    }
    imageStore(surface, px, vec4(normal, tri.p0.w));
}
