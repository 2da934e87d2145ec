//! The viewer's sun shadow maps and lights reach the embedded fog: a one-layer sun shadow map
//! (a depth 2D array) that the host clears to the far value on even frames (nothing casts a
//! shadow) and to the near value on odd ones (everything is in shadow), a point light and a
//! projector with a texture array of the host's. The fog on a lit frame must be far brighter than
//! on the shadowed frame after it, under validation, with nothing leaked.

mod host;

use glam::{Mat4, Quat, Vec3};
use host::content::{f16, hex, soft_texture, FOG_MACHINE};
use host::frame::{viewer_image, COPY_READ, TRANSFER_WRITTEN};
use host::{to_transfer_dst, HostVulkan};
use render::ash::vk;
use render::embed::*;

const SIZE: (u32, u32) = (64, 48);
const SLOTS: usize = 2;
const FRAMES: usize = 30;

/// Records the clear of a one-layer depth image (`depth` 0 or 1) or colour image into
/// TRANSFER_DST_OPTIMAL.
fn clear(host: &HostVulkan, cmd: vk::CommandBuffer, image: vk::Image, depth: Option<f32>) {
    let aspect = if depth.is_some() { vk::ImageAspectFlags::DEPTH } else { vk::ImageAspectFlags::COLOR };
    let barrier = [to_transfer_dst(image, aspect)];
    let range = barrier[0].subresource_range;
    let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
    // SAFETY: `cmd` is recording; the image is the host's.
    unsafe {
        let d = &host.device;
        d.cmd_pipeline_barrier2(cmd, &vk::DependencyInfo::default().image_memory_barriers(&barrier));
        match depth {
            Some(v) => {
                let value = vk::ClearDepthStencilValue { depth: v, stencil: 0 };
                d.cmd_clear_depth_stencil_image(cmd, image, dst, &value, &[range]);
            }
            None => {
                d.cmd_clear_color_image(cmd, image, dst, &vk::ClearColorValue { float32: [1.0; 4] }, &[range])
            }
        }
    }
}

#[test]
fn the_viewers_shadow_maps_and_lights_light_the_embedded_fog() {
    let host = HostVulkan::new(SLOTS);
    let desc = FogContextDesc { size: SIZE, max_size: SIZE, ..FogContextDesc::default() };
    // SAFETY: the host's device has the required features and outlives the context.
    let mut ctx = unsafe { FogContext::new(host.host_device(SLOTS as u32), &desc) }.expect("context");
    let block = hex(FOG_MACHINE);
    let system = SystemDesc { texture: Some(soft_texture()), ..SystemDesc::new(Descriptor::Psys(&block)) };
    ctx.upsert_system(1, &system).expect("upsert");
    ctx.set_transform(1, Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY).expect("transform");
    use vk::ImageUsageFlags as U;
    let (depth, depth_mem) = host.image(vk::Format::D32_SFLOAT, SIZE, U::SAMPLED | U::TRANSFER_DST);
    let (hdr, hdr_mem) =
        host.image(vk::Format::R16G16B16A16_SFLOAT, SIZE, U::STORAGE | U::TRANSFER_SRC | U::TRANSFER_DST);
    let (shadow, shadow_mem) = host.image(vk::Format::D32_SFLOAT, (256, 256), U::SAMPLED | U::TRANSFER_DST);
    let (gobo, gobo_mem) = host.image(vk::Format::R8G8B8A8_UNORM, (4, 4), U::SAMPLED | U::TRANSFER_DST);
    let pixels = (SIZE.0 * SIZE.1) as usize;
    let (depth_src, depth_src_mem, ptr) =
        host.mapped_buffer(pixels as u64 * 4, vk::BufferUsageFlags::TRANSFER_SRC);
    // SAFETY: the mapping holds `pixels` floats; all sky (forward Z).
    unsafe { std::slice::from_raw_parts_mut(ptr.cast::<f32>(), pixels) }.fill(1.0);
    let readbacks: Vec<_> = (0..SLOTS)
        .map(|_| host.mapped_buffer(pixels as u64 * 8, vk::BufferUsageFlags::TRANSFER_DST))
        .collect();
    let camera = Camera {
        view_from_world: Mat4::look_at_rh(Vec3::new(0.0, -8.0, 1.0), Vec3::new(0.0, 0.0, 1.5), Vec3::Z),
        clip_from_view: Mat4::perspective_rh(1.0, SIZE.0 as f32 / SIZE.1 as f32, 0.1, 300.0),
        near_m: 0.1,
        far_m: 300.0,
    };
    let to_sun = Vec3::new(0.2, -0.3, 0.9).normalize();
    let sun_view = Mat4::orthographic_rh(-12.0, 12.0, -12.0, 12.0, 0.1, 60.0)
        * Mat4::look_at_rh(to_sun * 30.0, Vec3::ZERO, Vec3::Y);
    let layers = [ShadowLayer { clip_from_world: sun_view, ortho: true }];
    let (written, copied) = ((TRANSFER_WRITTEN, TRANSFER_WRITTEN), (TRANSFER_WRITTEN, COPY_READ));
    let lights = [
        Light {
            position: Vec3::new(1.0, -1.0, 1.5),
            range_m: 6.0,
            color: Vec3::new(1.0, 0.5, 0.2),
            intensity: 2.0,
            kind: LightKind::Point,
            shadow_layer: None,
        },
        Light {
            position: Vec3::new(0.0, -3.0, 4.0),
            range_m: 10.0,
            color: Vec3::ONE,
            intensity: 3.0,
            kind: LightKind::Projector {
                direction: Vec3::new(0.0, 0.5, -1.0).normalize(),
                up: Vec3::Y,
                fov_deg: 40.0,
                texture_layer: 0,
            },
            shadow_layer: None,
        },
    ];
    let res = FrameResources {
        depth: viewer_image(depth, vk::Format::D32_SFLOAT, SIZE, U::SAMPLED | U::TRANSFER_DST, written),
        hdr: viewer_image(
            hdr,
            vk::Format::R16G16B16A16_SFLOAT,
            SIZE,
            U::STORAGE | U::TRANSFER_SRC | U::TRANSFER_DST,
            copied,
        ),
        sun: Sun { to_sun, color: Vec3::ONE, illuminance: 4.0 },
        ambient: [Vec3::splat(0.01), Vec3::splat(0.005)],
        shadows: Some(ShadowMaps {
            image: viewer_image(
                shadow,
                vk::Format::D32_SFLOAT,
                (256, 256),
                U::SAMPLED | U::TRANSFER_DST,
                written,
            ),
            layers: &layers,
            cascades: 1,
        }),
        lights: &lights,
        projectors: Some(viewer_image(
            gobo,
            vk::Format::R8G8B8A8_UNORM,
            (4, 4),
            U::SAMPLED | U::TRANSFER_DST,
            written,
        )),
        froxels: None,
    };
    let settings = settings::Settings { particle_fog: true, ..settings::Settings::default() };
    for frame in 0..FRAMES {
        let slot = frame % SLOTS;
        host.begin_frame(slot);
        ctx.frame_completed(slot).expect("slot");
        let cmd = host.cmds[slot];
        host.fill_targets(cmd, (depth, hdr), depth_src, SIZE, [0.0; 4]);
        clear(&host, cmd, shadow, Some(if frame % 2 == 0 { 1.0 } else { 0.0 }));
        clear(&host, cmd, gobo, None);
        ctx.update(&FrameUpdate { dt_s: 0.1, camera, settings: &settings, wind: Vec3::ZERO })
            .expect("update");
        // SAFETY: `cmd` is recording; the images are the host's, in the states stated.
        unsafe { ctx.record(cmd, slot, &res) }.expect("record");
        host.copy_to_buffer(cmd, hdr, readbacks[slot].0, SIZE);
        host.submit_frame(slot);
    }
    for slot in 0..SLOTS {
        host.wait(slot);
        ctx.frame_completed(slot).expect("slot");
    }
    // Frames 28 (slot 0, lit) and 29 (slot 1, shadowed): the same cloud a tenth of a second apart.
    let total = |slot: usize| -> f32 {
        // SAFETY: the frame in `slot` completed; its buffer holds `pixels` RGBA16F texels.
        let halves = unsafe { std::slice::from_raw_parts(readbacks[slot].2.cast::<u16>(), pixels * 4) };
        halves.chunks_exact(4).map(|t| f16(t[0]) + f16(t[1]) + f16(t[2])).sum()
    };
    let (lit, shadowed) = (total(0), total(1));
    assert!(shadowed > 0.0, "the local lights and the ambient still light the shadowed fog");
    assert!(lit > 2.0 * shadowed, "the sun's shadow map shades the fog: lit {lit}, shadowed {shadowed}");
    let errors = ctx.take_validation_errors();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
    assert_eq!(ctx.destroy(), Vec::<String>::new(), "nothing leaked");
    let images = [(depth, depth_mem), (hdr, hdr_mem), (shadow, shadow_mem), (gobo, gobo_mem)];
    host.free(&images, &[(depth_src, depth_src_mem)]);
    host.free(&[], &readbacks.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
}
