#version 460
// embed.depth: a viewer's depth buffer, in its own convention (forward or reversed Z, finite or
// infinite far), rewritten as the forward, finite depth the fog passes read: per pixel the view
// position from the viewer's projection, then its depth under the passes' projection (the
// viewer's, with the z row of a forward projection from its near plane to a finite far). Sky (the viewer's far value, or a point at infinity) and anything beyond the passes' far
// plane become 1.0, which the passes read as sky.

layout(local_size_x = 8, local_size_y = 8) in;

layout(push_constant) uniform Push {
    // The viewer's clip to view space.
    mat4 view_from_clip;
    // z row of the passes' projection (clip z = x * view z + y, clip w = -view z), the viewer's
    // sky depth value, unused.
    vec4 params;
} push;

layout(set = 0, binding = 0) uniform sampler2D viewer_depth;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D fog_depth;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(fog_depth);
    if (any(greaterThanEqual(px, size))) {
        return;
    }
    float d = texelFetch(viewer_depth, px, 0).r;
    vec2 ndc = (vec2(px) + 0.5) / vec2(size) * 2.0 - 1.0;
    vec4 v = push.view_from_clip * vec4(ndc, d, 1.0);
    float out_depth = 1.0;
    if (d != push.params.z && abs(v.w) > 1e-30) {
        float z = v.z / v.w;
        if (z < 0.0) {
            out_depth = min((push.params.x * z + push.params.y) / -z, 1.0);
        }
    }
    imageStore(fog_depth, px, vec4(max(out_depth, 0.0)));
}
