/* A foreign host in C, written against particle_fog.h alone: its own Vulkan instance (with the
 * validation layer), device, depth buffer (a wall 1 m away over the left half, sky on the right)
 * and HDR target, forward finite Z, two frames in flight. It upserts a fog machine's PSYS block,
 * renders 30 frames, checks that the fog shows beside the wall and not over it, removes the
 * system and checks that the fog fades out over several frames rather than popping, and that bad
 * input gives error codes with messages. Exit 0 on success; on failure a line on stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "particle_fog.h"

#define W 96
#define H 64
#define SLOTS 2
#define FRAMES 60
#define REMOVE_AT 30
#define BACKGROUND 0.05f
#define NEAR_M 0.1f
#define FAR_M 200.0f

static const char *FOG_MACHINE =
    "010000000200000008000000000009190000004c008000040080008000800080008000808dcd4a482d37"
    "49099f78f7a9eb4ef90300000000000000000000000000000000030000000008cccccc4de6e6e60040408080";

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "c_host: line %d: ", __LINE__);                                  \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fprintf(stderr, "\n");                                                           \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)
#define VK(call) CHECK((call) == VK_SUCCESS, "%s failed", #call)
#define PF(call) CHECK((call) == PF_OK, "%s: %s", #call, pf_last_error())

static VkInstance instance;
static VkPhysicalDevice physical;
static VkDevice device;
static uint32_t family;
static VkQueue queue;

static uint32_t validation_messages;
static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)types;
    (void)user;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        fprintf(stderr, "validation: %s\n", data->pMessage);
        validation_messages++;
    }
    return VK_FALSE;
}

static void make_device(void) {
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "c-host",
                             .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
                               .enabledLayerCount = 1, .ppEnabledLayerNames = layers,
                               .enabledExtensionCount = 1, .ppEnabledExtensionNames = extensions};
    VK(vkCreateInstance(&ii, NULL, &instance));
    uint32_t n = 8;
    VkPhysicalDevice devices[8];
    vkEnumeratePhysicalDevices(instance, &n, devices);
    for (uint32_t i = 0; i < n && !physical; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devices[i], &p);
        uint32_t fn = 16;
        VkQueueFamilyProperties fams[16];
        vkGetPhysicalDeviceQueueFamilyProperties(devices[i], &fn, fams);
        for (uint32_t f = 0; f < fn && p.apiVersion >= VK_API_VERSION_1_3; f++) {
            if ((fams[f].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
                (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) {
                physical = devices[i];
                family = f;
                break;
            }
        }
    }
    CHECK(physical, "no Vulkan 1.3 device with a graphics+compute queue");
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .pNext = &f13};
    VkPhysicalDeviceFeatures core = {0};
    pf_required_features(&core, &f12, &f13);
    const char *dev_ext[8];
    uint32_t ext_count = pf_required_device_extension_count();
    CHECK(ext_count <= 8, "%u extensions", ext_count);
    for (uint32_t i = 0; i < ext_count; i++) dev_ext[i] = pf_required_device_extension(i);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = family,
                                  .queueCount = 1, .pQueuePriorities = &priority};
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f12, .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi, .enabledExtensionCount = ext_count,
                             .ppEnabledExtensionNames = dev_ext, .pEnabledFeatures = &core};
    VK(vkCreateDevice(physical, &di, NULL, &device));
    vkGetDeviceQueue(device, family, 0, &queue);
}

static VkDeviceMemory allocate(VkMemoryRequirements req, VkMemoryPropertyFlags flags) {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(physical, &props);
    for (uint32_t i = 0; i < props.memoryTypeCount; i++) {
        if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & flags) == flags) {
            VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size,
                                       .memoryTypeIndex = i};
            VkDeviceMemory memory;
            VK(vkAllocateMemory(device, &ai, NULL, &memory));
            return memory;
        }
    }
    CHECK(0, "no memory type");
    return VK_NULL_HANDLE;
}

static VkImage make_image(VkFormat format, VkImageUsageFlags usage, VkDeviceMemory *memory) {
    VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
                            .format = format, .extent = {W, H, 1}, .mipLevels = 1, .arrayLayers = 1,
                            .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage};
    VkImage image;
    VK(vkCreateImage(device, &ci, NULL, &image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, image, &req);
    *memory = allocate(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VK(vkBindImageMemory(device, image, *memory, 0));
    return image;
}

static VkBuffer make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, VkDeviceMemory *memory, void **mapped) {
    VkBufferCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage};
    VkBuffer buffer;
    VK(vkCreateBuffer(device, &ci, NULL, &buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, buffer, &req);
    *memory = allocate(req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK(vkBindBufferMemory(device, buffer, *memory, 0));
    VK(vkMapMemory(device, *memory, 0, size, 0, mapped));
    return buffer;
}

static float half_to_float(uint16_t h) {
    int e = (h >> 10) & 0x1f;
    float m = (float)(h & 0x3ff);
    float v = e == 0 ? m * ldexpf(1.0f, -24) : (1.0f + m / 1024.0f) * ldexpf(1.0f, e - 15);
    return (h & 0x8000) ? -v : v;
}

/* The view of a camera at eye looking at target, z up (right-handed, as glm::lookAt). */
static void look_at(const float eye[3], const float target[3], float m[16]) {
    float f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
    float fl = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int i = 0; i < 3; i++) f[i] /= fl;
    float s[3] = {f[1], -f[0], 0.0f}; /* f x (0, 0, 1) */
    float sl = sqrtf(s[0] * s[0] + s[1] * s[1]);
    s[0] /= sl;
    s[1] /= sl;
    float u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
    float cols[16] = {s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
                      -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]),
                      -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
                      f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2], 1};
    memcpy(m, cols, sizeof cols);
}

static VkImageMemoryBarrier2 to_transfer_dst(VkImage image, VkImageAspectFlags aspect) {
    VkImageMemoryBarrier2 b = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                               .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                               .srcAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT,
                               .dstStageMask = VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                               .dstAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
                               .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                               .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               .image = image,
                               .subresourceRange = {aspect, 0, 1, 0, 1}};
    return b;
}

int main(int argc, char **argv) {
    CHECK(argc == 2, "usage: c_host OVERRIDES_FILE");
    make_device();
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT");
    VkDebugUtilsMessengerCreateInfoEXT mi = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        .pfnUserCallback = on_message};
    VkDebugUtilsMessengerEXT messenger;
    VK(create_messenger(instance, &mi, NULL, &messenger));

    pf_host_device host = {vkGetInstanceProcAddr, instance, physical, device, family, queue, SLOTS, 1, 1};
    pf_context_desc desc = {W, H, W, H, VK_FORMAT_R16G16B16A16_SFLOAT, 0, 0, 0, 0, 0};
    pf_context *ctx = NULL;
    pf_context_desc ldr = desc;
    ldr.hdr_format = VK_FORMAT_R8G8B8A8_UNORM;
    CHECK(pf_context_create(&host, &ldr, &ctx) == PF_ERROR_BAD_INPUT && ctx == NULL, "an RGBA8 target refused");
    CHECK(strstr(pf_last_error(), "cannot composite into"), "message: %s", pf_last_error());
    CHECK(pf_context_create(NULL, &desc, &ctx) == PF_ERROR_NULL, "NULL host refused");
    PF(pf_context_create(&host, &desc, &ctx));
    PF(pf_setting_set(ctx, "RenderVKParticleFog", "true"));
    CHECK(pf_setting_set(ctx, "RenderVKParticleFogDensity", "thick") == PF_ERROR_BAD_INPUT, "bad setting value");

    uint8_t texels[64 * 64 * 4];
    for (int i = 0; i < 64 * 64; i++) {
        float x = (float)(i % 64) / 64.0f - 0.5f, y = (float)(i / 64) / 64.0f - 0.5f;
        texels[4 * i] = texels[4 * i + 1] = texels[4 * i + 2] = 255;
        texels[4 * i + 3] = (uint8_t)(255.0f * expf(-(x * x + y * y) / 0.045f));
    }
    pf_texture_stats *soft = NULL;
    PF(pf_texture_stats_create(64, 64, texels, &soft));
    uint8_t block[86];
    for (int i = 0; i < 86; i++) sscanf(FOG_MACHINE + 2 * i, "%2hhx", &block[i]);
    pf_system_desc sys = {block, sizeof block, soft, 0, 0, {0}, 1};
    memset(sys.object_id, 0x42, sizeof sys.object_id);
    PF(pf_system_upsert(ctx, 7, &sys));
    /* The user's overrides file: "never fog" saved for the machine's object and link, automatic
       set, the file loaded back; then automatic again for the run below. */
    int32_t mode = -1;
    PF(pf_system_set_override(ctx, 7, PF_OVERRIDE_BILLBOARDS));
    PF(pf_overrides_save(ctx, argv[1]));
    PF(pf_system_set_override(ctx, 7, PF_OVERRIDE_AUTO));
    PF(pf_overrides_load(ctx, argv[1]));
    PF(pf_system_override(ctx, 7, &mode));
    CHECK(mode == PF_OVERRIDE_BILLBOARDS, "the saved override loaded back: %d", mode);
    PF(pf_system_set_override(ctx, 7, PF_OVERRIDE_AUTO));
    PF(pf_system_override(ctx, 7, &mode));
    CHECK(mode == PF_OVERRIDE_AUTO, "automatic again: %d", mode);
    pf_texture_stats_destroy(soft);
    float position[3] = {0.0f, 0.0f, 0.5f}, rotation[4] = {0.0f, 0.0f, 0.0f, 1.0f}, nan3[3] = {NAN, 0.0f, 0.0f};
    PF(pf_system_set_transform(ctx, 7, position, rotation));
    pf_system_desc truncated = {block, 40, NULL, 0, 0, {0}, 0};
    CHECK(pf_system_upsert(ctx, 8, &truncated) == PF_ERROR_BAD_INPUT, "a 40-byte block refused");
    CHECK(strstr(pf_last_error(), "PSYS"), "message: %s", pf_last_error());
    CHECK(pf_system_set_transform(ctx, 7, nan3, rotation) == PF_ERROR_BAD_INPUT, "a NaN position refused");
    CHECK(pf_system_remove(ctx, 99) == PF_ERROR_BAD_INPUT, "an unknown id refused");
    uint32_t index = 99;
    PF(pf_system_index(ctx, 7, &index));
    CHECK(index == 0, "the first system's carrier index: %u", index);
    CHECK(sizeof(pf_carrier) == 48, "pf_carrier is %zu bytes", sizeof(pf_carrier));
    pf_carrier carrier = {{0.0f, 0.0f, 1.5f, 1.0f}, {1.0f, 1.0f, 1.0f, 0.4f}, {2.0f, 2.0f}, index, 0};
    CHECK(pf_carriers_set(ctx, &carrier, 1) == PF_ERROR_BAD_INPUT, "a simulating context takes no carriers");
    CHECK(strstr(pf_last_error(), "simulates its carriers"), "message: %s", pf_last_error());
    CHECK(pf_carriers_set(ctx, NULL, 1) == PF_ERROR_NULL, "NULL carriers refused");
    CHECK(pf_system_set_override(ctx, 7, 5) == PF_ERROR_BAD_INPUT, "an unknown override refused");
    CHECK(pf_overrides_load(ctx, "/") == PF_ERROR_BAD_INPUT, "a folder as overrides file refused");
    CHECK(strstr(pf_last_error(), "/"), "message: %s", pf_last_error());
    CHECK(pf_resize(ctx, 0, 0) == PF_ERROR_BAD_INPUT, "a resize to 0 refused");
    CHECK(pf_record(ctx, VK_NULL_HANDLE, 0, NULL) == PF_ERROR_NULL, "NULL resources refused");
    CHECK(strstr(pf_viewer_glsl(), "pf_billboard_alpha"), "the viewer GLSL");

    VkDeviceMemory depth_mem, hdr_mem, src_mem, rb_mem[SLOTS];
    VkImage depth = make_image(VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                               &depth_mem);
    VkImageUsageFlags hdr_usage =
        VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    VkImage hdr = make_image(VK_FORMAT_R16G16B16A16_SFLOAT, hdr_usage, &hdr_mem);
    float *depths;
    VkBuffer src = make_buffer(W * H * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &src_mem, (void **)&depths);
    /* Forward Z: depth of the wall 1 m away, 1.0 (the far plane) for the sky. */
    float a = FAR_M / (NEAR_M - FAR_M), b = NEAR_M * FAR_M / (NEAR_M - FAR_M);
    for (int i = 0; i < W * H; i++) depths[i] = (i % W) < W / 2 ? (a * -1.0f + b) / 1.0f : 1.0f;
    VkBuffer readback[SLOTS];
    uint16_t *texels_out[SLOTS];
    for (int s = 0; s < SLOTS; s++)
        readback[s] = make_buffer(W * H * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb_mem[s], (void **)&texels_out[s]);

    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = family};
    VkCommandPool pool;
    VK(vkCreateCommandPool(device, &pi, NULL, &pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = SLOTS};
    VkCommandBuffer cmds[SLOTS];
    VK(vkAllocateCommandBuffers(device, &ai, cmds));
    VkFence fences[SLOTS];
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT};
    for (int s = 0; s < SLOTS; s++) VK(vkCreateFence(device, &fi, NULL, &fences[s]));

    pf_frame_update update = {.dt_s = 0.1f, .camera = {.near_m = NEAR_M, .far_m = FAR_M}};
    float eye[3] = {0.0f, -8.0f, 1.0f}, target[3] = {0.0f, 0.0f, 1.5f};
    look_at(eye, target, update.camera.view_from_world);
    float f = 1.0f / tanf(0.5f), aspect = (float)W / (float)H;
    float proj[16] = {f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, a, -1, 0, 0, b, 0};
    memcpy(update.camera.clip_from_view, proj, sizeof proj);
    pf_image_state written = {VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                              VK_ACCESS_2_TRANSFER_WRITE_BIT};
    pf_image_state copied = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
                             VK_ACCESS_2_TRANSFER_READ_BIT};
    pf_frame_resources res = {
        .depth = {depth, VK_NULL_HANDLE, VK_FORMAT_D32_SFLOAT, W, H, 1,
                  VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, written, written},
        .hdr = {hdr, VK_NULL_HANDLE, VK_FORMAT_R16G16B16A16_SFLOAT, W, H, 1, hdr_usage, written, copied},
        .to_sun = {0.32f, -0.53f, 0.78f}, .sun_color = {1, 1, 1}, .sun_illuminance = 2.0f,
        .ambient_sky = {0.3f, 0.3f, 0.3f}, .ambient_ground = {0.1f, 0.1f, 0.1f}};

    float fog_at[FRAMES], wall_at[FRAMES];
    int done_in_slot[SLOTS] = {-1, -1};
    for (int frame = 0; frame < FRAMES + SLOTS; frame++) {
        int slot = frame % SLOTS;
        VK(vkWaitForFences(device, 1, &fences[slot], VK_TRUE, UINT64_MAX));
        PF(pf_frame_completed(ctx, (uint32_t)slot));
        int done = done_in_slot[slot];
        if (done >= 0) {
            /* The brightest texel beside the wall and the largest change over it. */
            float fog = 0.0f, wall = 0.0f;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    float v = half_to_float(texels_out[slot][(y * W + x) * 4]);
                    if (x > W / 2 + 4 && y > H / 4 && y < 3 * H / 4 && v > fog) fog = v;
                    if (x < W / 2 - 4 && fabsf(v - BACKGROUND) > wall) wall = fabsf(v - BACKGROUND);
                }
            fog_at[done] = fog;
            wall_at[done] = wall;
        }
        if (frame >= FRAMES) continue;
        if (frame == REMOVE_AT) PF(pf_system_remove(ctx, 7));
        VK(vkResetFences(device, 1, &fences[slot]));
        VkCommandBuffer cmd = cmds[slot];
        VK(vkResetCommandBuffer(cmd, 0));
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        VK(vkBeginCommandBuffer(cmd, &bi));
        VkImageMemoryBarrier2 barriers[2] = {to_transfer_dst(depth, VK_IMAGE_ASPECT_DEPTH_BIT),
                                             to_transfer_dst(hdr, VK_IMAGE_ASPECT_COLOR_BIT)};
        VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = 2,
                                .pImageMemoryBarriers = barriers};
        vkCmdPipelineBarrier2(cmd, &dep);
        VkBufferImageCopy depth_copy = {.imageSubresource = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1}, .imageExtent = {W, H, 1}};
        vkCmdCopyBufferToImage(cmd, src, depth, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &depth_copy);
        VkClearColorValue bg = {.float32 = {BACKGROUND, BACKGROUND, BACKGROUND, 1.0f}};
        VkImageSubresourceRange colour = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        vkCmdClearColorImage(cmd, hdr, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &bg, 1, &colour);
        PF(pf_update(ctx, &update));
        PF(pf_record(ctx, cmd, (uint32_t)slot, &res));
        VkBufferImageCopy out = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {W, H, 1}};
        vkCmdCopyImageToBuffer(cmd, hdr, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback[slot], 1, &out);
        VkMemoryBarrier2 to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                                    .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
                                    .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
                                    .dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT,
                                    .dstAccessMask = VK_ACCESS_2_HOST_READ_BIT};
        VkDependencyInfo host_dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1,
                                     .pMemoryBarriers = &to_host};
        vkCmdPipelineBarrier2(cmd, &host_dep);
        VK(vkEndCommandBuffer(cmd));
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
        VK(vkQueueSubmit(queue, 1, &si, fences[slot]));
        done_in_slot[slot] = frame;
        if (frame == REMOVE_AT - 1) {
            float w;
            PF(pf_system_weight(ctx, 7, &w));
            CHECK(w == 1.0f, "the fog machine converted: weight %f", w);
            pf_stats stats;
            PF(pf_stats_get(ctx, &stats));
            CHECK(stats.systems_converted == 1, "%u converted", stats.systems_converted);
        }
    }
    float w;
    CHECK(pf_system_weight(ctx, 7, &w) == PF_ERROR_BAD_INPUT, "a removed system is unknown");
    for (int i = 0; i < FRAMES; i++) {
        printf("frame %2d: fog %.4f, over the wall %.6f\n", i, fog_at[i], wall_at[i]);
        CHECK(wall_at[i] < 1e-3f, "frame %d: fog over the wall in front of it (%f)", i, wall_at[i]);
    }
    float before = fog_at[REMOVE_AT - 1];
    CHECK(before > BACKGROUND * 1.5f, "the cloud shows beside the wall: %f", before);
    int fading = 0;
    for (int i = REMOVE_AT; i < FRAMES; i++) {
        CHECK(fog_at[i] <= fog_at[i - 1] + 1e-3f, "frame %d: the fog grows after removal", i);
        CHECK(fog_at[i - 1] - fog_at[i] < 0.5f * (before - BACKGROUND), "frame %d: the fog pops out", i);
        fading += fog_at[i] > BACKGROUND + 1e-3f;
    }
    CHECK(fading >= 5, "the fog fades over %d frames", fading);
    CHECK(fabsf(fog_at[FRAMES - 1] - BACKGROUND) < 1e-3f, "faded out: %f", fog_at[FRAMES - 1]);
    uint32_t errors = 0, leaked = 0;
    PF(pf_validation_errors(ctx, &errors));
    CHECK(errors == 0, "%u validation errors on the fog's work", errors);
    PF(pf_context_destroy(ctx, &leaked));
    CHECK(leaked == 0, "%u allocations leaked", leaked);

    vkDeviceWaitIdle(device);
    for (int s = 0; s < SLOTS; s++) {
        vkDestroyFence(device, fences[s], NULL);
        vkDestroyBuffer(device, readback[s], NULL);
        vkFreeMemory(device, rb_mem[s], NULL);
    }
    vkDestroyCommandPool(device, pool, NULL);
    vkDestroyBuffer(device, src, NULL);
    vkFreeMemory(device, src_mem, NULL);
    vkDestroyImage(device, depth, NULL);
    vkFreeMemory(device, depth_mem, NULL);
    vkDestroyImage(device, hdr, NULL);
    vkFreeMemory(device, hdr_mem, NULL);
    vkDestroyDevice(device, NULL);
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT");
    CHECK(validation_messages == 0, "%u validation errors", validation_messages);
    destroy_messenger(instance, messenger, NULL);
    vkDestroyInstance(instance, NULL);
    printf("c_host: ok\n");
    return 0;
}
