/* particle_fog.h: the particle fog's C ABI (libparticle_fog.a / libparticle_fog.so).
 *
 * The viewer keeps its Vulkan instance, device, queue, command buffers, fences and frames in
 * flight. Per frame: pf_update (CPU), pf_record (into the viewer's command buffer, for a frame
 * slot), and once that slot's fence has signalled, pf_frame_completed. See docs/embedding.md.
 *
 * Every call returns PF_OK or an error code; pf_last_error() gives the message of the calling
 * thread's last failed call. No call panics or aborts across this boundary: a bug inside is
 * PF_ERROR_INTERNAL. A context is used from one thread at a time.
 *
 * Matrices are column-major float[16] (as GLSL and glm), Vulkan clip space (depth 0..1).
 */
#ifndef PARTICLE_FOG_H
#define PARTICLE_FOG_H

#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t pf_result;
#define PF_OK 0
#define PF_ERROR_BAD_INPUT 1      /* an argument or a viewer resource the fog cannot use */
#define PF_ERROR_UNSUPPORTED 2    /* a device feature, extension or format is missing */
#define PF_ERROR_OUT_OF_MEMORY 3
#define PF_ERROR_DEVICE_LOST 4
#define PF_ERROR_VULKAN 5         /* any other Vulkan failure */
#define PF_ERROR_NULL 6           /* a required pointer was NULL */
#define PF_ERROR_INTERNAL 7       /* a bug in the particle fog (caught, never unwound into C) */
#define PF_ERROR_IO 8             /* a file could not be written */

#define PF_OVERRIDE_AUTO 0        /* the classifier decides */
#define PF_OVERRIDE_FOG 1         /* always fog (the hard exclusions still apply) */
#define PF_OVERRIDE_BILLBOARDS 2  /* never fog */

#define PF_LIGHT_POINT 0
#define PF_LIGHT_SPOT 1
#define PF_LIGHT_PROJECTOR 2

typedef struct pf_context pf_context;
typedef struct pf_texture_stats pf_texture_stats;

/* The viewer's device. It was created with the extensions pf_required_device_extension names and
 * the features pf_required_features sets enabled. */
typedef struct pf_host_device {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;     /* graphics + compute */
    VkQueue queue;
    uint32_t frames_in_flight; /* 1 to 3 */
    uint32_t validation;       /* 1: the instance has the Khronos validation layer... */
    uint32_t debug_utils;      /* ...and VK_EXT_debug_utils: errors are counted per context */
} pf_host_device;

typedef struct pf_context_desc {
    uint32_t width, height;         /* the render size (the depth and HDR targets') */
    uint32_t max_width, max_height; /* the largest size pf_resize will be asked for */
    VkFormat hdr_format;            /* VK_FORMAT_R16G16B16A16_SFLOAT */
    uint32_t reversed_z;            /* 1: depth 1 at the near plane, 0 at the far */
    uint32_t infinite_far;          /* 1: the far plane is at infinity */
    uint32_t max_systems;           /* systems present at once; 0: 256 */
    uint32_t particle_capacity;     /* carrier particles; 0: the viewer's cap of 8192 */
    uint32_t viewer_carriers;       /* 1: the viewer hands over its own particles every frame
                                       (pf_carriers_set); 0: the context simulates them */
} pf_context_desc;

/* A particle the viewer simulated itself (48 bytes), handed over with pf_carriers_set. */
typedef struct pf_carrier {
    float position_age[4]; /* position (m, region axes), age (s) */
    float color[4];        /* RGBA 0..1 as the viewer draws it (before the 1 - weight fade) */
    float size[2];         /* width, height (m) */
    uint32_t system;       /* its system's index (pf_system_index) */
    uint32_t flags;        /* the particle's PSYS flags (PSYS_PART_EMISSIVE_MASK: it emits) */
} pf_carrier;

typedef struct pf_system_desc {
    const uint8_t *psys;               /* the PSYS block as it came in the object update */
    size_t psys_len;
    const pf_texture_stats *texture;   /* NULL: unknown (stays a billboard unless default) */
    uint32_t attachment;               /* worn on an avatar */
    uint32_t hud;                      /* a HUD attachment (never fog) */
    uint8_t object_id[16];             /* its object's UUID, the overrides file's key with link;
                                          all zero: keyed by the system's id */
    uint32_t link;                     /* the prim's link number (0 one prim, 1 root, 2.. child) */
} pf_system_desc;

typedef struct pf_camera {
    float view_from_world[16]; /* right-handed view, looking down -z */
    float clip_from_view[16];  /* perspective, clip w = -view z */
    float near_m;
    float far_m;               /* INFINITY for an infinite projection */
} pf_camera;

typedef struct pf_frame_update {
    float dt_s;
    pf_camera camera;
    float wind[3];             /* m/s */
} pf_frame_update;

typedef struct pf_image_state {
    VkImageLayout layout;
    VkPipelineStageFlags2 stage;
    VkAccessFlags2 access;
} pf_image_state;

typedef struct pf_image {
    VkImage image;
    VkImageView view;          /* VK_NULL_HANDLE: one is made (not for depth-stencil formats) */
    VkFormat format;
    uint32_t width, height, layers;
    VkImageUsageFlags usage;
    pf_image_state entry;      /* the state the viewer leaves it in */
    pf_image_state exit;       /* the state to leave it in */
} pf_image;

typedef struct pf_shadow_layer {
    float clip_from_world[16];
    uint32_t ortho;            /* 1 for sun cascades */
} pf_shadow_layer;

typedef struct pf_light {
    uint32_t kind;             /* PF_LIGHT_* */
    float position[3];
    float range_m;
    float color[3];
    float intensity;
    float direction[3];        /* spot, projector */
    float up[3];               /* projector */
    float inner_deg, outer_deg;/* spot half-angles */
    float fov_deg;             /* projector */
    uint32_t texture_layer;    /* projector: layer of pf_frame_resources.projectors */
    int32_t shadow_layer;      /* first shadow layer, -1: none */
} pf_light;

/* The viewer's froxel fog, integrated front to back and already applied to the HDR target: the
 * particle fog composites with it by depth. image: R16G16B16A16_SFLOAT 3D, sampled usage, spanning
 * the screen as the HDR target does (width x height), layers = its slices (at least 2); texel
 * (x, y, s) holds the in-scattered light (rgb) and transmittance (a) from the camera to the far
 * edge of slice s, which lies at view depth near_m * (far_m / near_m)^((s + 1) / slices). */
typedef struct pf_froxel_volume {
    pf_image image;
    float near_m, far_m;
    float anisotropy;          /* the fog's Henyey-Greenstein g (-1..1) */
} pf_froxel_volume;

typedef struct pf_frame_resources {
    pf_image depth;            /* a depth format, sampled usage */
    pf_image hdr;              /* the HDR target, storage usage */
    float to_sun[3];
    float sun_color[3];
    float sun_illuminance;
    float ambient_sky[3];
    float ambient_ground[3];
    const pf_image *shadow_maps;           /* NULL: none; a depth 2D array */
    const pf_shadow_layer *shadow_layers;  /* the sun's cascades first */
    uint32_t shadow_layer_count;
    uint32_t cascades;
    const pf_light *lights;
    uint32_t light_count;
    const pf_image *projectors;            /* NULL: none; a 2D array */
    const pf_froxel_volume *froxels;       /* NULL: none; the viewer's froxel fog */
} pf_frame_resources;

typedef struct pf_stats {
    uint32_t systems_converted;
    uint32_t systems_demoted;
    uint32_t carriers;
    uint32_t bricks_used;
    uint32_t bricks_budget;
    uint32_t alloc_failures;
    double mass_expected_m2;
    double mass_splatted_m2;
    uint64_t brick_bytes_allocated;
} pf_stats;

/* The message of this thread's last failed call ("" when none); valid until its next call. */
const char *pf_last_error(void);

/* Device extensions the viewer enables for the particle fog. */
uint32_t pf_required_device_extension_count(void);
const char *pf_required_device_extension(uint32_t index);
/* Sets the features the particle fog needs to VK_TRUE (others and pNext untouched). */
void pf_required_features(VkPhysicalDeviceFeatures *core, VkPhysicalDeviceVulkan12Features *f12,
                          VkPhysicalDeviceVulkan13Features *f13);

pf_result pf_context_create(const pf_host_device *host, const pf_context_desc *desc, pf_context **out);
/* Destroys the context once every frame slot has been reported completed. leaked (may be NULL):
 * allocations still alive after everything was dropped (0 unless a bug leaks). */
pf_result pf_context_destroy(pf_context *ctx, uint32_t *leaked);
/* A viewer setting by its name (RenderVKParticleFog, RenderVKParticleFogDensity, ...). */
pf_result pf_setting_set(pf_context *ctx, const char *name, const char *value);
pf_result pf_resize(pf_context *ctx, uint32_t width, uint32_t height);

pf_result pf_texture_stats_create(uint32_t width, uint32_t height, const uint8_t *rgba8, pf_texture_stats **out);
void pf_texture_stats_destroy(pf_texture_stats *stats);

pf_result pf_system_upsert(pf_context *ctx, uint64_t id, const pf_system_desc *desc);
pf_result pf_system_remove(pf_context *ctx, uint64_t id);
/* rotation: a unit quaternion x, y, z, w. */
pf_result pf_system_set_transform(pf_context *ctx, uint64_t id, const float position[3], const float rotation[4]);
pf_result pf_system_set_override(pf_context *ctx, uint64_t id, int32_t override_mode);
pf_result pf_system_override(const pf_context *ctx, uint64_t id, int32_t *override_mode);
/* The user's per-object overrides, an LLSD file beside settings.xml (particle_fog_overrides.xml).
 * load: every system present and upserted later takes the override the file holds for its key
 * (pf_system_desc's object id and link; automatic where it holds none); a missing file holds
 * none, an unreadable one is refused (PF_ERROR_BAD_INPUT). save: writes every present system's
 * override into the file, keeping its other entries; an unreadable file is refused and left as
 * it is. */
pf_result pf_overrides_load(pf_context *ctx, const char *path);
pf_result pf_overrides_save(const pf_context *ctx, const char *path);
/* 0 billboard .. 1 fog: draw the system's billboards with alpha * (1 - weight). */
pf_result pf_system_weight(const pf_context *ctx, uint64_t id, float *weight);

/* The index that names the system in pf_carrier.system: fixed from its upsert until the longest
 * particle life of its descriptor has passed after its removal. */
pf_result pf_system_index(const pf_context *ctx, uint64_t id, uint32_t *index);

pf_result pf_update(pf_context *ctx, const pf_frame_update *frame);
/* A context made with viewer_carriers: the particles of the next recorded frame (count at most the
 * carrier capacity; each finite, naming a system present or still fading out; count 0: none).
 * Once per frame, before pf_record. */
pf_result pf_carriers_set(pf_context *ctx, const pf_carrier *carriers, uint32_t count);
/* cmd is recording, outside a render pass; the images are in their entry states. */
pf_result pf_record(pf_context *ctx, VkCommandBuffer cmd, uint32_t slot, const pf_frame_resources *res);
pf_result pf_frame_completed(pf_context *ctx, uint32_t slot);

pf_result pf_stats_get(const pf_context *ctx, pf_stats *out);
/* The cloud image (RGBA16F: start m, end m, optical depth) of the last frame with fog, left in
 * SHADER_READ_ONLY_OPTIMAL for fragment shaders; VK_NULL_HANDLE while nothing converts. */
pf_result pf_cloud_image(const pf_context *ctx, VkImage *image, VkImageView *view);
/* Validation errors raised on the context's work since the last call. */
pf_result pf_validation_errors(const pf_context *ctx, uint32_t *count);
/* The GLSL the viewer's particle shader includes (pf_billboard_alpha, pf_cloud_transmittance). */
const char *pf_viewer_glsl(void);

#ifdef __cplusplus
}
#endif

#endif /* PARTICLE_FOG_H */
