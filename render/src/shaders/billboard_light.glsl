// The light a billboard shows (particles.billboards, billboard_shade.glsl), and the same for the
// particle fog eased toward its billboards' look (fog.brick_light, fog.carrier_light). Include
// after lighting.glsl.
#ifndef BILLBOARD_LIGHT_GLSL
#define BILLBOARD_LIGHT_GLSL

// Local lights light the particle fog as spheres of this radius (m): no 1/d^2 blow-up for fog
// that drifts through the light itself (a fire inside its own smoke).
const float LOCAL_LIGHT_RADIUS_M = 0.5;

// The camera's forward axis (unit).
vec3 camera_forward() {
    vec4 ahead = frame.world_from_clip * vec4(0.0, 0.0, 1.0, 1.0);
    return normalize(ahead.xyz / ahead.w - frame.camera_pos.xyz);
}

// The light a surface at p with normal n shows without its colour: ambient for n, the sun's and
// each local light's cos/pi with their shadows; local lights as spheres of radius_m (0: points).
vec3 facing_light(vec3 p, vec3 n, float radius_m) {
    vec3 light = ambient_for(n);
    float sun_ndl = max(dot(n, frame.sun_dir.xyz), 0.0);
    if (sun_ndl > 0.0) {
        light += frame.sun_color.rgb * frame.sun_dir.w * sun_ndl * sun_shadow(p, n, 0.0) / PI;
    }
    for (uint i = 0u; i < frame.counts.x; ++i) {
        vec3 to_light;
        vec3 arriving = light_arriving(i, p, n, 0.0, to_light);
        vec3 d = lights[i].position_range.xyz - p;
        float sphere = radius_m > 0.0 ? min(1.0, dot(d, d) / (radius_m * radius_m)) : 1.0;
        light += arriving * sphere * max(dot(n, to_light), 0.0) / PI;
    }
    return light;
}

// The light a billboard at p shows (its normal faces the camera, against the camera's forward
// axis), for the particle fog: local lights are spheres of LOCAL_LIGHT_RADIUS_M as for the fog's
// own light, since a billboard's plane passes edge-on by a light inside its smoke (cos near 0
// where 1/d^2 is large), while points in front of and behind it would take the full 1/d^2.
vec3 billboard_light(vec3 p) {
    return facing_light(p, -camera_forward(), LOCAL_LIGHT_RADIUS_M);
}

#endif
