//! The embedded particle fog fed by the viewer's own particles (`CarrierSource::Viewer`), as the
//! viewer simulates them on its CPU: a ball of particles the host places left of the fog
//! machine's emitter, then moves to its right, then the system removed. With two frames in
//! flight and validation on, the fog must show where the host's particles are and nowhere else
//! (the context simulates nothing of the PSYS block it was given), hold the mass they carry,
//! follow them when they move, fade out after the removal, and refuse carriers it cannot use.

mod host;

use glam::{Mat4, Quat, Vec3};
use host::content::{ball, f16, hex, soft_texture, FOG_MACHINE};
use host::frame::{viewer_image, COPY_READ, TRANSFER_WRITTEN};
use host::HostVulkan;
use render::ash::vk;
use render::embed::*;

const SIZE: (u32, u32) = (96, 64);
const SLOTS: usize = 2;
const BACKGROUND: f32 = 0.05;
const PARTICLES: u32 = 600;
/// The ball's centre is this far left or right of the emitter, m.
const SIDE_M: f32 = 2.5;

#[test]
fn the_fog_comes_from_the_particles_the_viewer_hands_over() {
    let host = HostVulkan::new(SLOTS);
    let desc =
        FogContextDesc { size: SIZE, max_size: SIZE, carriers: CarrierSource::Viewer, ..Default::default() };
    // SAFETY: the host's device was made with the required features; it outlives the context.
    let mut ctx = unsafe { FogContext::new(host.host_device(SLOTS as u32), &desc) }.expect("context");
    let block = hex(FOG_MACHINE);
    let system = SystemDesc { texture: Some(soft_texture()), ..SystemDesc::new(Descriptor::Psys(&block)) };
    ctx.upsert_system(7, &system).expect("upsert");
    ctx.set_transform(7, Vec3::new(0.0, 0.0, 1.5), Quat::IDENTITY).expect("transform");
    let index = ctx.system_index(7).expect("index");
    let (left, right) = (Vec3::new(-SIDE_M, 0.0, 1.5), Vec3::new(SIDE_M, 0.0, 1.5));

    let refused = |ctx: &mut FogContext, carriers: &[Carrier], why: &str| {
        let e = ctx.set_carriers(carriers).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains(why), "{why}: {e}");
    };
    let mut bad = ball(left, index, PARTICLES);
    refused(&mut ctx, &ball(left, index + 1, PARTICLES), "no system has index");
    bad[3].position_age[1] = f32::NAN;
    refused(&mut ctx, &bad, "carrier 3");
    bad[3] = Carrier { size: [-1.0, 2.0], ..bad[4] };
    refused(&mut ctx, &bad, "carrier 3");
    let too_many = vec![bad[0]; 8193];
    refused(&mut ctx, &too_many, "the pool holds 8192");

    use vk::ImageUsageFlags as U;
    let (depth, depth_mem) = host.image(vk::Format::D32_SFLOAT, SIZE, U::SAMPLED | U::TRANSFER_DST);
    let hdr_usage = U::STORAGE | U::TRANSFER_SRC | U::TRANSFER_DST;
    let (hdr, hdr_mem) = host.image(vk::Format::R16G16B16A16_SFLOAT, SIZE, hdr_usage);
    let pixels = (SIZE.0 * SIZE.1) as usize;
    let (depth_src, depth_src_mem, ptr) =
        host.mapped_buffer(pixels as u64 * 4, vk::BufferUsageFlags::TRANSFER_SRC);
    // SAFETY: the mapping holds `pixels` floats; 1.0 is the far plane (forward Z): all sky.
    unsafe { std::slice::from_raw_parts_mut(ptr.cast::<f32>(), pixels) }.fill(1.0);
    let readbacks: Vec<_> = (0..SLOTS)
        .map(|_| host.mapped_buffer(pixels as u64 * 8, vk::BufferUsageFlags::TRANSFER_DST))
        .collect();

    let camera = Camera {
        view_from_world: Mat4::look_at_rh(Vec3::new(0.0, -8.0, 1.5), Vec3::new(0.0, 0.0, 1.5), Vec3::Z),
        clip_from_view: Mat4::perspective_rh(1.0, SIZE.0 as f32 / SIZE.1 as f32, 0.1, 300.0),
        near_m: 0.1,
        far_m: 300.0,
    };
    let settings = settings::Settings { particle_fog: true, ..settings::Settings::default() };
    let (written, read) = (TRANSFER_WRITTEN, COPY_READ);
    let res = FrameResources {
        depth: viewer_image(
            depth,
            vk::Format::D32_SFLOAT,
            SIZE,
            U::SAMPLED | U::TRANSFER_DST,
            (written, written),
        ),
        hdr: viewer_image(hdr, vk::Format::R16G16B16A16_SFLOAT, SIZE, hdr_usage, (written, read)),
        sun: Sun { to_sun: Vec3::new(0.3, -0.5, 0.8).normalize(), color: Vec3::ONE, illuminance: 2.0 },
        ambient: [Vec3::splat(0.3), Vec3::splat(0.1)],
        shadows: None,
        lights: &[],
        projectors: None,
        froxels: None,
    };

    // The frames read back (a slot's readback is read when the slot comes round again, two
    // frames later): the brightest pixel left and right of the emitter, and the stats then.
    let mut seen = Vec::new();
    for frame in 0..70 {
        let slot = frame % SLOTS;
        host.begin_frame(slot);
        ctx.frame_completed(slot).expect("slot");
        if [30, 36, 40].contains(&frame) {
            seen.push((sides(readbacks[slot].2, pixels), ctx.stats()));
        }
        if frame == 40 {
            ctx.remove_system(7).expect("remove");
        }
        let cmd = host.cmds[slot];
        host.fill_targets(cmd, (depth, hdr), depth_src, SIZE, [BACKGROUND; 4]);
        ctx.update(&FrameUpdate { dt_s: 0.1, camera, settings: &settings, wind: Vec3::ZERO })
            .expect("update");
        if frame == 0 {
            // SAFETY: as below; refused before anything is recorded.
            let missing = unsafe { ctx.record(cmd, slot, &res) };
            assert!(
                missing.is_err_and(|e| e.to_string().contains("no set_carriers")),
                "carriers are required"
            );
        }
        let carriers = ball(if frame < 30 { left } else { right }, index, PARTICLES);
        ctx.set_carriers(&carriers).expect("a removed system's particles live out their lives");
        // SAFETY: `cmd` is recording; the images are the host's, in the states stated.
        unsafe { ctx.record(cmd, slot, &res) }.expect("record");
        host.copy_to_buffer(cmd, hdr, readbacks[slot].0, SIZE);
        host.submit_frame(slot);
    }
    for slot in 0..SLOTS {
        host.wait(slot);
        ctx.frame_completed(slot).expect("slot");
    }
    seen.push((sides(readbacks[1].2, pixels), ctx.stats()));

    // Frames 28 (left), 34 (moved right at 30), 38 (right), 69 (2.9 s after the removal).
    let [((l0, r0), s0), ((l1, r1), _), ((l2, r2), s2), ((l3, r3), _)] = &seen[..] else {
        panic!("four frames read: {seen:?}");
    };
    let background = |v: f32| (v - BACKGROUND).abs() < 1e-3;
    assert!(*l0 > BACKGROUND * 1.5 && background(*r0), "the ball on the left: {l0} | {r0}");
    assert_eq!(s0.carriers, PARTICLES, "every particle handed over is a carrier: {s0:?}");
    let lost = (s0.mass_splatted_m2 - s0.mass_expected_m2).abs() / s0.mass_expected_m2;
    assert!(s0.mass_expected_m2 > 0.0 && lost < 1e-3, "the bricks hold the carriers' mass: {s0:?}");
    assert!(*r1 > BACKGROUND * 1.5 && background(*l1), "the fog follows the ball: {l1} | {r1}");
    assert!(*r2 > BACKGROUND * 1.5 && background(*l2), "the ball on the right: {l2} | {r2}");
    assert_eq!(s2.carriers, PARTICLES, "{s2:?}");
    assert!(background(*r3) && background(*l3), "faded out after the removal: {l3} | {r3}");
    let errors = ctx.take_validation_errors();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
    assert_eq!(ctx.destroy(), Vec::<String>::new(), "nothing leaked");
    host.free(&[(depth, depth_mem), (hdr, hdr_mem)], &[(depth_src, depth_src_mem)]);
    host.free(&[], &readbacks.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
}

/// The brightest luminance left of the screen's middle third and right of it, in a read-back
/// RGBA16F frame of `pixels` texels.
fn sides(readback: *mut u8, pixels: usize) -> (f32, f32) {
    // SAFETY: the slot's frame completed; its buffer holds `pixels` RGBA16F texels.
    let halves = unsafe { std::slice::from_raw_parts(readback.cast::<u16>(), pixels * 4) };
    let (w, h) = SIZE;
    let brightest = |xs: std::ops::Range<u32>| {
        (0..h)
            .flat_map(|y| xs.clone().map(move |x| (x, y)))
            .map(|(x, y)| f16(halves[((y * w + x) * 4) as usize]))
            .fold(0.0, f32::max)
    };
    (brightest(0..w / 3), brightest(2 * w / 3..w))
}
