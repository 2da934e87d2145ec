// The particle fog for a viewer's particle shader: what a converted system's billboards do while
// the system cross-fades into fog. Functions only, no bindings: the viewer passes in the system's
// weight (FogContext::weight, pf_system_weight in C) and a texel of the context's cloud image
// (FogContext::cloud_image, pf_cloud_image), sampled at the fragment's screen position. The
// project's own billboards include this file.
#ifndef PARTICLE_FOG_VIEWER_GLSL
#define PARTICLE_FOG_VIEWER_GLSL

// A billboard's alpha while its system is `weight` fog (0 billboard .. 1 fog): faded by
// 1 - weight, so that billboard and fog together keep the system's opacity through the
// cross-fade. At weight 1 nothing is left to draw: skip the billboard.
float pf_billboard_alpha(float alpha, float weight) {
    return weight >= 1.0 ? 0.0 : alpha * (1.0 - weight);
}

// Transmittance of the particle fog between the camera and distance `d` (m) along the pixel's
// ray, from the pixel's cloud texel (.x where the fog starts, .y where it ends, m; .z its optical
// depth): the optical depth spread evenly between start and end. A billboard inside or behind
// the cloud multiplies its alpha by it (the march already drew the cloud).
float pf_cloud_transmittance(vec3 cloud_texel, float d) {
    float f = clamp((d - cloud_texel.x) / max(cloud_texel.y - cloud_texel.x, 1e-4), 0.0, 1.0);
    return exp(-cloud_texel.z * f);
}

#endif
