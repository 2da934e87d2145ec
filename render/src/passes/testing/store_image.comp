#version 460
// test.store_image: writes a constant into an 8x8 storage image. Used by the validation-canary
// tests (which bind it in the wrong layout on purpose) and by the binding check's test (which
// gives a buffer where this shader has a storage image).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D dst;

void main() {
    imageStore(dst, ivec2(gl_GlobalInvocationID.xy), vec4(1.0, 0.0, 1.0, 1.0));
}
