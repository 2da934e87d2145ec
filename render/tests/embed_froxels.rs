//! The embedded particle fog composited with the viewer's own froxel fog: a host hands over an
//! integrated froxel volume of a purely absorbing fog (no in-scatter, extinction 0.1 / m), and a
//! cloud of its particles 7-9 m in front of the camera over a black sky. With the volume, what
//! the cloud adds must be dimmed by the froxel fog's transmittance in front of it
//! (exp(-0.1 t) for t of 6-10 m: 0.37-0.55 of the cloud without it); at the screen's sides, where
//! there is no cloud, the frame stays the viewer's; bad volumes are refused. Validation on, two frames in flight.

mod host;

use glam::{Mat4, Quat, Vec3};
use host::content::{ball, f16, hex, soft_texture, to_f16, FOG_MACHINE};
use host::frame::{viewer_image, COPY_READ, TRANSFER_WRITTEN};
use host::HostVulkan;
use render::ash::vk;
use render::embed::*;

const SIZE: (u32, u32) = (96, 64);
const SLOTS: usize = 2;
/// The froxel grid: across, down, slices.
const GRID: (u32, u32, u32) = (16, 8, 32);
const NEAR_M: f32 = 0.25;
const FAR_M: f32 = 64.0;
const EXTINCTION_PER_M: f32 = 0.1;

/// The integrated volume's texels (RGBA16F): no in-scatter, the transmittance to each slice's
/// far edge.
fn absorbing_volume() -> Vec<u16> {
    let (w, h, d) = GRID;
    let mut texels = Vec::with_capacity((w * h * d * 4) as usize);
    for s in 0..d {
        let far_edge = NEAR_M * (FAR_M / NEAR_M).powf((s + 1) as f32 / d as f32);
        let t = to_f16((-EXTINCTION_PER_M * far_edge).exp());
        texels.extend((0..w * h).flat_map(|_| [0, 0, 0, t]));
    }
    texels
}

#[test]
fn the_viewers_froxel_fog_dims_the_cloud_behind_it() {
    let host = HostVulkan::new(SLOTS);
    let desc =
        FogContextDesc { size: SIZE, max_size: SIZE, carriers: CarrierSource::Viewer, ..Default::default() };
    // SAFETY: the host's device was made with the required features; it outlives the context.
    let mut ctx = unsafe { FogContext::new(host.host_device(SLOTS as u32), &desc) }.expect("context");
    let block = hex(FOG_MACHINE);
    let system = SystemDesc { texture: Some(soft_texture()), ..SystemDesc::new(Descriptor::Psys(&block)) };
    ctx.upsert_system(7, &system).expect("upsert");
    ctx.set_transform(7, Vec3::new(0.0, 0.0, 1.5), Quat::IDENTITY).expect("transform");
    let carriers = ball(Vec3::new(0.0, 0.0, 1.5), ctx.system_index(7).expect("index"), 600);

    use vk::ImageUsageFlags as U;
    let (depth, depth_mem) = host.image(vk::Format::D32_SFLOAT, SIZE, U::SAMPLED | U::TRANSFER_DST);
    let hdr_usage = U::STORAGE | U::TRANSFER_SRC | U::TRANSFER_DST;
    let (hdr, hdr_mem) = host.image(vk::Format::R16G16B16A16_SFLOAT, SIZE, hdr_usage);
    let froxel_usage = U::SAMPLED | U::TRANSFER_DST;
    let (volume, volume_mem) = host.volume(vk::Format::R16G16B16A16_SFLOAT, GRID, froxel_usage);
    let pixels = (SIZE.0 * SIZE.1) as usize;
    let (depth_src, depth_src_mem, ptr) =
        host.mapped_buffer(pixels as u64 * 4, vk::BufferUsageFlags::TRANSFER_SRC);
    // SAFETY: the mapping holds `pixels` floats; 1.0 is the far plane (forward Z): all sky.
    unsafe { std::slice::from_raw_parts_mut(ptr.cast::<f32>(), pixels) }.fill(1.0);
    let texels = absorbing_volume();
    let (volume_src, volume_src_mem, ptr) =
        host.mapped_buffer(texels.len() as u64 * 2, vk::BufferUsageFlags::TRANSFER_SRC);
    // SAFETY: the mapping holds the volume's texels.
    unsafe { std::ptr::copy_nonoverlapping(texels.as_ptr(), ptr.cast::<u16>(), texels.len()) };
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
    let written = (TRANSFER_WRITTEN, TRANSFER_WRITTEN);
    let without = FrameResources {
        depth: viewer_image(depth, vk::Format::D32_SFLOAT, SIZE, U::SAMPLED | U::TRANSFER_DST, written),
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
    let volume_image =
        viewer_image(volume, vk::Format::R16G16B16A16_SFLOAT, (GRID.0, GRID.1), froxel_usage, written);
    let froxels = FroxelVolume {
        image: ViewerImage { layers: GRID.2, ..volume_image },
        near_m: NEAR_M,
        far_m: FAR_M,
        anisotropy: 0.0,
    };
    let with = FrameResources { froxels: Some(froxels), ..without };

    // Frames 0..20 converge without the volume; 20 is read without it, 21 with it.
    const FRAMES: usize = 22;
    for frame in 0..FRAMES {
        let slot = frame % SLOTS;
        host.begin_frame(slot);
        ctx.frame_completed(slot).expect("slot");
        let cmd = host.cmds[slot];
        host.fill_targets(cmd, (depth, hdr), depth_src, SIZE, [0.0; 4]);
        host.upload(cmd, volume_src, volume, GRID);
        ctx.update(&FrameUpdate { dt_s: 0.1, camera, settings: &settings, wind: Vec3::ZERO })
            .expect("update");
        ctx.set_carriers(&carriers).expect("carriers");
        if frame == FRAMES - 1 {
            for (bad, why) in [
                (FroxelVolume { near_m: 0.0, ..froxels }, "near 0"),
                (FroxelVolume { anisotropy: 1.0, ..froxels }, "anisotropy 1"),
                (FroxelVolume { image: ViewerImage { layers: 1, ..froxels.image }, ..froxels }, "2 slices"),
                (
                    FroxelVolume {
                        image: ViewerImage { format: vk::Format::R8G8B8A8_UNORM, ..froxels.image },
                        ..froxels
                    },
                    "R16G16B16A16_SFLOAT",
                ),
            ] {
                // SAFETY: refused before anything is recorded.
                let refused =
                    unsafe { ctx.record(cmd, slot, &FrameResources { froxels: Some(bad), ..with }) };
                assert!(refused.is_err_and(|e| e.to_string().contains(why)), "{why}");
            }
        }
        let res = if frame == FRAMES - 1 { &with } else { &without };
        // SAFETY: `cmd` is recording; the images are the host's, in the states stated.
        unsafe { ctx.record(cmd, slot, res) }.expect("record");
        host.copy_to_buffer(cmd, hdr, readbacks[slot].0, SIZE);
        host.submit_frame(slot);
    }
    for slot in 0..SLOTS {
        host.wait(slot);
        ctx.frame_completed(slot).expect("slot");
    }
    assert_eq!(ctx.weight(7).expect("system"), 1.0, "converted");
    let luminance = |slot: usize| -> Vec<f32> {
        // SAFETY: the slot's frame completed; its buffer holds `pixels` RGBA16F texels.
        let halves = unsafe { std::slice::from_raw_parts(readbacks[slot].2.cast::<u16>(), pixels * 4) };
        (0..pixels).map(|i| f16(halves[i * 4])).collect()
    };
    let (plain, fogged) = (luminance(0), luminance(1));
    let brightest = plain.iter().copied().fold(0.0, f32::max);
    assert!(brightest > 0.05, "the cloud shows: {brightest}");
    // Where the cloud is bright, the froxel fog in front dims it by its transmittance there.
    let ratios: Vec<f32> =
        (0..pixels).filter(|&i| plain[i] > 0.5 * brightest).map(|i| fogged[i] / plain[i]).collect();
    let mean = ratios.iter().sum::<f32>() / ratios.len() as f32;
    let (lo, hi) = ((-EXTINCTION_PER_M * 10.0).exp(), (-EXTINCTION_PER_M * 6.0).exp());
    assert!(
        ratios.len() > 20 && mean > lo && mean < hi,
        "{} pixels dimmed by {mean}, not {lo}..{hi}",
        ratios.len()
    );
    // The screen's sides see no cloud (only the fringe differs between two frames' jitter).
    let (w, h) = SIZE;
    let mut sides = (0..h).flat_map(|y| (0..w / 6).chain(5 * w / 6..w).map(move |x| (y * w + x) as usize));
    let untouched = sides.all(|i| plain[i] == 0.0 && fogged[i] == 0.0);
    assert!(untouched, "where no cloud is, the frame is the viewer's (no froxel fog added again)");
    let errors = ctx.take_validation_errors();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
    assert_eq!(ctx.destroy(), Vec::<String>::new(), "nothing leaked");
    host.free(&[(depth, depth_mem), (hdr, hdr_mem), (volume, volume_mem)], &[(depth_src, depth_src_mem)]);
    host.free(&[], &[(volume_src, volume_src_mem)]);
    host.free(&[], &readbacks.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
}
