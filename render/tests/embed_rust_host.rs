//! A foreign host in Rust, written against `render::embed` alone: its own instance, device, depth
//! buffer (a wall in front of the left half, sky on the right) and HDR target, reversed infinite
//! Z, two frames in flight. It upserts a fog machine's PSYS block, renders 30 frames, and checks
//! that the fog shows where the cloud is, is hidden by the wall, that validation stayed clean and
//! nothing leaked.

mod host;

use glam::{Mat4, Quat, Vec3};
use host::content::{f16, hex, soft_texture, FOG_MACHINE};
use host::frame::{viewer_image, COPY_READ, TRANSFER_WRITTEN};
use host::HostVulkan;
use render::ash::vk;
use render::embed::*;

const SIZE: (u32, u32) = (96, 64);
const SLOTS: usize = 2;
const BACKGROUND: f32 = 0.05;
const NEAR: f32 = 0.1;

#[test]
fn a_rust_host_renders_the_fog_through_the_embedding_api() {
    let host = HostVulkan::new(SLOTS);
    let desc = FogContextDesc {
        size: SIZE,
        max_size: SIZE,
        depth: DepthConvention { reversed: true, infinite_far: true },
        ..FogContextDesc::default()
    };
    // SAFETY: the host's device was made with the required features; it outlives the context.
    let mut ctx = unsafe { FogContext::new(host.host_device(SLOTS as u32), &desc) }.expect("context");
    let block = hex(FOG_MACHINE);
    let system = SystemDesc { texture: Some(soft_texture()), ..SystemDesc::new(Descriptor::Psys(&block)) };
    ctx.upsert_system(7, &system).expect("upsert");
    ctx.set_transform(7, Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY).expect("transform");
    assert!(
        ctx.upsert_system(8, &SystemDesc::new(Descriptor::Psys(&block[..40]))).is_err(),
        "malformed block"
    );
    assert!(ctx.set_transform(7, Vec3::NAN, Quat::IDENTITY).is_err() && ctx.remove_system(99).is_err());

    use vk::ImageUsageFlags as U;
    let (depth, depth_mem) = host.image(vk::Format::D32_SFLOAT, SIZE, U::SAMPLED | U::TRANSFER_DST);
    let hdr_usage = U::STORAGE | U::TRANSFER_SRC | U::TRANSFER_DST;
    let (hdr, hdr_mem) = host.image(vk::Format::R16G16B16A16_SFLOAT, SIZE, hdr_usage);
    let pixels = (SIZE.0 * SIZE.1) as usize;
    // The wall 1 m away covers the left half (reversed infinite Z: depth = near / distance).
    let (depth_src, depth_src_mem, ptr) =
        host.mapped_buffer(pixels as u64 * 4, vk::BufferUsageFlags::TRANSFER_SRC);
    let depths: Vec<f32> =
        (0..pixels).map(|i| if (i as u32 % SIZE.0) < SIZE.0 / 2 { NEAR } else { 0.0 }).collect();
    // SAFETY: the mapping holds `pixels` floats.
    unsafe { std::ptr::copy_nonoverlapping(depths.as_ptr().cast::<u8>(), ptr, pixels * 4) };
    let readbacks: Vec<_> = (0..SLOTS)
        .map(|_| host.mapped_buffer(pixels as u64 * 8, vk::BufferUsageFlags::TRANSFER_DST))
        .collect();

    let eye = Vec3::new(0.0, -8.0, 1.0);
    let camera = Camera {
        view_from_world: Mat4::look_at_rh(eye, Vec3::new(0.0, 0.0, 1.5), Vec3::Z),
        clip_from_view: Mat4::perspective_infinite_reverse_rh(1.0, SIZE.0 as f32 / SIZE.1 as f32, NEAR),
        near_m: NEAR,
        far_m: f32::INFINITY,
    };
    let settings = settings::Settings { particle_fog: true, ..settings::Settings::default() };
    let res = FrameResources {
        depth: viewer_image(
            depth,
            vk::Format::D32_SFLOAT,
            SIZE,
            U::SAMPLED | U::TRANSFER_DST,
            (TRANSFER_WRITTEN, TRANSFER_WRITTEN),
        ),
        hdr: viewer_image(
            hdr,
            vk::Format::R16G16B16A16_SFLOAT,
            SIZE,
            hdr_usage,
            (TRANSFER_WRITTEN, COPY_READ),
        ),
        sun: Sun { to_sun: Vec3::new(0.3, -0.5, 0.8).normalize(), color: Vec3::ONE, illuminance: 2.0 },
        ambient: [Vec3::splat(0.3), Vec3::splat(0.1)],
        shadows: None,
        lights: &[],
        projectors: None,
        froxels: None,
    };
    for frame in 0..30 {
        let slot = frame % SLOTS;
        host.begin_frame(slot);
        ctx.frame_completed(slot).expect("slot");
        let cmd = host.cmds[slot];
        host.fill_targets(cmd, (depth, hdr), depth_src, SIZE, [BACKGROUND; 4]);
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
    assert_eq!(ctx.weight(7).expect("system"), 1.0, "the fog machine converted");
    assert!(ctx.stats().bricks_used > 0, "{:?}", ctx.stats());
    // SAFETY: the last frame (29, slot 1) completed; its buffer holds `pixels` RGBA16F texels.
    let halves = unsafe { std::slice::from_raw_parts(readbacks[1].2.cast::<u16>(), pixels * 4) };
    let luminance = |x: u32, y: u32| f16(halves[((y * SIZE.0 + x) * 4) as usize]);
    let (w, h) = SIZE;
    let wall_hidden = (0..h).all(|y| (0..w / 2 - 4).all(|x| (luminance(x, y) - BACKGROUND).abs() < 1e-3));
    assert!(wall_hidden, "the wall in front hides the fog");
    let fogged = (h / 4..3 * h / 4).flat_map(|y| (w / 2 + 4..w).map(move |x| (x, y)));
    let brightest = fogged.map(|(x, y)| luminance(x, y)).fold(0.0, f32::max);
    assert!(brightest > BACKGROUND * 1.5, "the lit cloud shows beside the wall: {brightest}");
    let errors = ctx.take_validation_errors();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
    assert_eq!(ctx.destroy(), Vec::<String>::new(), "nothing leaked");
    host.free(&[(depth, depth_mem), (hdr, hdr_mem)], &[(depth_src, depth_src_mem)]);
    host.free(&[], &readbacks.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
}
