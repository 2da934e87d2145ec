// The particle texture lookup of the billboard fragment shaders (it takes implicit derivatives,
// so the vertex shader, which shares billboard_common.glsl, does not include it).
#ifndef BILLBOARD_TEXEL_GLSL
#define BILLBOARD_TEXEL_GLSL
#include "billboard_common.glsl"

// The particle texture texel at `at`: layer 0 clamped, other layers repeated, trilinear over the
// layers' mip chains (as the viewer's mipmapped textures: a particle a few pixels wide reads a
// mip, not a sparse scatter of base texels that shimmers as it moves). The branch is on a flat
// input, the same for every fragment of a primitive and so for every quad of fragments: the
// implicit derivatives are defined in either branch. (Explicit gradients, textureGrad, drew the
// same and cost the fog machine's billboards 10 % more on the H200.)
vec4 particle_texel(vec2 at, uint tex_layer) {
    vec3 p = vec3(at, float(tex_layer));
    return tex_layer == 0u ? texture(particle_tex, p) : texture(particle_tex_repeat, p);
}

#endif
