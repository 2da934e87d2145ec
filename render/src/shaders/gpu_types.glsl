// CPU<->GPU structs. Each mirrors one Rust definition in render/src/gpu_types.rs; the test
// `gpu_types::tests::glsl_mirrors_match_rust` checks names, types, offsets and sizes (std430).
#ifndef GPU_TYPES_GLSL
#define GPU_TYPES_GLSL

struct FillParams {
    uint count;
    uint seed;
    uint multiplier;
    uint pad0;
};

// Per-frame constants (uniform buffer). Transforms follow `clip_from_world` naming; Z is up.
struct FrameUniform {
    mat4 clip_from_world;
    mat4 world_from_clip;
    vec4 camera_pos;      // xyz metres; w = exposure multiplier
    vec4 sun_dir;         // xyz unit vector toward the sun; w = illuminance
    vec4 sun_color;       // rgb; w = 1 when the sun casts shadows
    vec4 ambient_sky;     // rgb radiance from above
    vec4 ambient_ground;  // rgb radiance from below
    vec4 cascade_far;     // view distance (m) at the far end of cascades 0..3
    vec4 screen;          // width, height, 1/width, 1/height
    uvec4 counts;         // x lights, y cascades, z frame index, w shadow atlas size (texels)
};

// One local light. kind: 0 point, 1 spot, 2 projector.
struct GpuLight {
    vec4 position_range;      // xyz metres; w range (m)
    vec4 color_intensity;     // rgb; w intensity
    vec4 direction_cos_outer; // xyz unit direction (spot/projector); w cos(outer half-angle)
    vec4 up_cos_inner;        // xyz projector up; w cos(inner half-angle)
    uvec4 kind_shadow;        // x kind; y first shadow layer or 0xffffffff; z projector texture layer; w flags (1 volumetric, 2 history)
    vec4 projector;           // x tan(half fov), y focus, z near (m), w unused
};

// One layer of the shadow atlas.
struct ShadowView {
    mat4 clip_from_world;
    vec4 params;              // x world size of one texel at unit distance/for ortho, y normal-offset scale, z is_ortho, w unused
};

// One opaque object.
struct GpuObject {
    mat4 world_from_local;
    mat4 normal_from_local;   // inverse transpose of world_from_local
    vec4 albedo;              // rgb; w unused
    vec4 emissive;            // rgb radiance; w unused
};

// One node of the opaque geometry's bounding-volume hierarchy: an inner node's children are
// `first` and `first + 1`; a leaf (count > 0) holds the triangles first .. first + count.
struct GpuBvhNode {
    vec4 lo;                  // box minimum (xyz, world m)
    vec4 hi;                  // box maximum
    uvec4 first_count;        // x: first; y: count (0: inner node)
};

// One opaque triangle in world space, for host.opaque's ray cast.
struct GpuRayTriangle {
    vec4 p0;                  // corner 0 (xyz, m); w: object index (a whole number)
    vec4 p1;
    vec4 p2;
    vec4 n0;                  // unit world normals at the corners
    vec4 n1;
    vec4 n2;
};

// Per-draw push constants of the geometry passes.
struct DrawPush {
    uint object;
    uint view;                // shadow atlas layer (shadow pass)
    uint pad0;
    uint pad1;
};

// Push constants of host.tonemap.
struct TonemapPush {
    float exposure;
    uint width;
    uint height;
    uint pad0;
};

// Froxel fog constants (uniform buffer), shared by the fog passes.
struct FogUniform {
    mat4 prev_clip_from_world; // last frame's camera, for reprojection
    vec4 forward_tan;          // xyz camera forward; w tan(fov_y / 2)
    vec4 right_aspect;         // xyz camera right; w width / height
    vec4 up;                   // xyz camera up; w unused
    vec4 grid;                 // froxels along x, y, z (as floats); w frame index of the jitter sequences
    vec4 slices;               // x near (m), y far (m), z ln(far / near), w history weight (0 = reset)
    vec4 height_fog;           // x density (1/m), y falloff (1/m), z base height (m), w anisotropy g
    vec4 fog_albedo;           // rgb height-fog albedo; w fog volume count
    vec4 camera_planes;        // x camera near (m), y camera far (m), z unused, w unused
};

// A local fog volume. kind: 0 box, 1 sphere.
struct GpuFogVolume {
    vec4 center_kind;          // xyz centre (m); w kind
    vec4 extent_density;       // xyz half extents (box) or x radius (sphere), m; w extinction (1/m)
    vec4 albedo;               // rgb; w unused
};

// One particle of the GPU pool (particles.pool); its template values live in particles.templates.
struct GpuParticle {
    vec4 pos_age;              // xyz position (m); w age (s)
    vec4 vel_max_age;          // xyz velocity (m/s); w lifetime (s)
    vec4 offset_glow;          // xyz FOLLOW_SRC offset (m); w glow (1/255 steps)
    vec4 color;                // RGBA 0..1
    vec4 scale;                // xy size (m); zw unused
    uvec4 ids;                 // x source id, y serial, z particle flags, w blend (src | dst << 8)
    vec4 axis;                 // xyz ribbon axis (region); w unused
    uvec4 ribbon;              // x serial of its ribbon's first particle; y 1 until linked at birth
};

// The template values a particle was born with (particles.templates, indexed like the pool).
struct GpuParticleTemplate {
    vec4 start_color;          // RGBA 0..1
    vec4 end_color;            // RGBA 0..1
    vec4 scales;               // xy start size, zw end size (m)
    vec4 accel;                // xyz acceleration (m/s^2); w unused
    vec4 glow;                 // x start glow, y end glow; zw unused
};

// Per-source constants of the GPU simulation (particles.emitters, indexed by source id).
struct GpuEmitter {
    vec4 position_speed_min;   // xyz source position (m); w min burst speed (m/s)
    vec4 target_speed_max;     // xyz target (m); w max burst speed (m/s)
    vec4 accel_max_age;        // xyz acceleration (m/s^2); w particle lifetime (s)
    vec4 start_color;          // template start colour
    vec4 end_color;            // template end colour
    vec4 scales;               // xy start size, zw end size (m)
    vec4 angles_glow;          // x inner, y outer angle (rad); z start glow, w end glow
    uvec4 params;              // x pattern kind, y particle flags, z system flags, w blend
    vec4 axis;                 // xyz source local +Z (region); w 1 while the source object exists
};

// One burst of this frame (particles.bursts).
struct GpuBurst {
    vec4 rotation;             // quaternion R * Q (xyzw)
    uvec4 ids;                 // x source id, y first serial, z count, w first candidate index
    vec4 radius;               // x radius of the first candidate, y of the others (m), z least drop probability
    uvec4 stream;              // x the source's random stream
};

// Atomic counters (particles.counters); emitted..died are totals since creation.
struct GpuParticleCounters {
    uint alive0;
    uint alive1;
    uint dead;
    uint emitted;
    uint refused;
    uint discarded;
    uint died;
    uint dropped;
};

// A particle a viewer simulated itself, handed to the embedded particle fog (embed.carriers).
struct GpuCarrier {
    vec4 position_age;         // xyz position (m); w age (s)
    vec4 color;                // RGBA 0..1 as the viewer draws it
    vec2 size;                 // width, height (m)
    uint system;               // its system's index (FogContext::system_index)
    uint flags;                // PSYS particle flags
};

// Push constants of embed.carriers.
struct CarrierPush {
    uvec4 counts;              // x carriers, y the alive list written, zw unused
};

// Push constants of particles.emit / particles.update.
struct ParticleSimPush {
    uvec4 counts;              // x current alive list, y candidates, z bursts, w capacity
    vec4 wind_dt;              // xyz wind (m/s); w step (s)
    uvec4 seed;                // x seed low, y seed high
    vec4 budget;               // x burst share (1 without a budget)
};

// VkDrawIndirectCommand (particles.draw_args).
struct GpuDrawIndirect {
    uint vertex_count;
    uint instance_count;
    uint first_vertex;
    uint first_instance;
};

// Push constants of particles.cull.
struct ParticleCullPush {
    vec4 plane0;               // world-space frustum planes (left, right, bottom, top, near,
    vec4 plane1;               // far), normals inside: a sphere is visible where
    vec4 plane2;               // dot(n, p) + w >= -r for all six
    vec4 plane3;
    vec4 plane4;
    vec4 plane5;
    uvec4 counts;              // x alive list, y mode (0 reset, 1 cull), z capacity
};

// Push constants of particles.billboards (and its depth copy).
struct BillboardPush {
    vec4 forward_soft;         // xyz camera forward; w soft fade distance (m, 0 = off)
    vec4 planes;               // x near (m), y far (m), z 1 = froxel fog on, w unused
    uvec4 blend;               // x blend pair (src | dst << 8), y custom, z additive, w unused
};

// Push constants of particles.batch.
struct BatchPush {
    uvec4 params;              // x mode, y most starts recorded, z pipelines
};

// Push constants of particles.ribbons.
struct RibbonPush {
    uvec4 params;              // x mode, y merge level (sort's merge)
};

// Push constants of the merge sort's args step (particle_sort/args.comp).
struct SortArgsPush {
    uvec4 params;              // x word of the source holding the count, y tile, z per-element
                               // group size
};

// Push constants of particles.sort (blocks, merge levels).
struct ParticleSortPush {
    vec4 camera;               // xyz camera position (m)
    vec4 forward;              // xyz camera forward
    uvec4 params;              // x mode (0 blocks, 1 merge), y merge level
};

// Push constants of host.glow's extract and blur passes.
struct GlowPush {
    uvec4 extent;              // xy output size, zw input size (pixels)
    ivec4 step_radius;         // xy step along the blurred axis, z radius (taps each side)
    vec4 sigma;                // x Gaussian sigma (half-resolution pixels)
};

// host.tonemap's bloom term, pushed after its TonemapPush.
struct TonemapBloom {
    float strength;            // added x bloom before exposure; 0 = none (not sampled)
    uint pad0;
    uint pad1;
    uint pad2;
};

// Particle-fog brick constants (uniform buffer fog.bricks.constants).
struct BrickUniform {
    ivec4 origin0;       // clip-window origin of level 0, in bricks of that level
    ivec4 origin1;
    ivec4 origin2;
    ivec4 origin3;
    ivec4 origin4;
    ivec4 origin5;
    ivec4 origin6;
    ivec4 origin7;
    vec4 camera_voxel;   // xyz camera (m); w level-0 voxel edge (m)
    uvec4 counts;        // x slot capacity, y frame, z atlas bricks per row, w atlas bricks per layer
    uvec4 params;        // x alive list, y pressure, z request capacity, w unused
    uvec4 reserved;
};

// Per-source particle-fog inputs (particles.fog_sources).
struct GpuFogSource {
    vec4 weight_mass;    // x blend weight, y texture mean alpha, z Density x Strength, w billboard match
    vec4 tint;           // rgb texture mean colour; w 1: rgb is the debug hue, replacing the colour
};

// Push constants of fog.carrier_light, fog.brick_light and fog.brick_march.
struct FogMarchPush {
    vec4 billow;         // x strength, y scale (m), z speed (m/s), w time (s)
    vec4 params;         // x 1 when the froxel fog is on, y debug view, z divisor (a ray per z x z pixels),
                         // w range (m)
    vec4 gathered;       // x 1 when fog.carrier_light gathered the bricks' billboard light this frame,
                         // y the billboards' soft-particle fade distance (m)
};

#endif
