//! The embedded particle fog while the viewer changes things with two frames in flight: the toggle
//! off and on, the voxel size and the brick budget (each remakes the brick pool and its passes),
//! a resize (remakes the march's images) and a system's descriptor replaced. Every frame is
//! recorded while the previous one may still run; the validation layer (synchronization
//! validation on) must stay silent, the brick memory must be gone while the toggle is off, and
//! nothing may be left when the context is destroyed.

mod host;

use glam::{Mat4, Quat, Vec3};
use host::content::{hex, soft_texture, FOG_MACHINE};
use host::HostVulkan;
use render::ash::vk;
use render::embed::*;

const SLOTS: usize = 2;

/// The host's depth (all sky) and HDR images of one size, and the staging buffer of the depths.
struct Targets {
    size: (u32, u32),
    depth: (vk::Image, vk::DeviceMemory),
    hdr: (vk::Image, vk::DeviceMemory),
    depth_src: (vk::Buffer, vk::DeviceMemory),
}

impl Targets {
    fn new(host: &HostVulkan, size: (u32, u32)) -> Targets {
        use vk::ImageUsageFlags as U;
        let depth = host.image(vk::Format::D32_SFLOAT, size, U::SAMPLED | U::TRANSFER_DST);
        let hdr = host.image(vk::Format::R16G16B16A16_SFLOAT, size, U::STORAGE | U::TRANSFER_DST);
        let texels = (size.0 * size.1) as usize;
        let (buffer, memory, ptr) = host.mapped_buffer(texels as u64 * 4, vk::BufferUsageFlags::TRANSFER_SRC);
        // SAFETY: the mapping holds `texels` floats; 1.0 is the far plane (forward Z).
        unsafe { std::slice::from_raw_parts_mut(ptr.cast::<f32>(), texels) }.fill(1.0);
        Targets { size, depth, hdr, depth_src: (buffer, memory) }
    }

    fn resources(&self) -> FrameResources<'static> {
        use vk::ImageUsageFlags as U;
        let written = HostImageState {
            layout: vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            stage: vk::PipelineStageFlags2::ALL_TRANSFER,
            access: vk::AccessFlags2::TRANSFER_WRITE,
        };
        let image = |image, format, usage| ViewerImage {
            image,
            view: vk::ImageView::null(),
            format,
            extent: self.size,
            layers: 1,
            usage,
            entry: written,
            exit: written,
        };
        FrameResources {
            depth: image(self.depth.0, vk::Format::D32_SFLOAT, U::SAMPLED | U::TRANSFER_DST),
            hdr: image(self.hdr.0, vk::Format::R16G16B16A16_SFLOAT, U::STORAGE | U::TRANSFER_DST),
            sun: Sun { to_sun: Vec3::Z, color: Vec3::ONE, illuminance: 1.0 },
            ambient: [Vec3::splat(0.2), Vec3::splat(0.1)],
            shadows: None,
            lights: &[],
            projectors: None,
            froxels: None,
        }
    }
}

#[test]
fn toggle_voxel_size_budget_resize_and_new_descriptors_with_frames_in_flight() {
    let host = HostVulkan::new(SLOTS);
    let targets = [Targets::new(&host, (64, 48)), Targets::new(&host, (48, 32))];
    let desc = FogContextDesc { size: (64, 48), max_size: (64, 48), ..FogContextDesc::default() };
    // SAFETY: the host's device has the required features and outlives the context.
    let mut ctx = unsafe { FogContext::new(host.host_device(SLOTS as u32), &desc) }.expect("context");
    let block = hex(FOG_MACHINE);
    let system = SystemDesc { texture: Some(soft_texture()), ..SystemDesc::new(Descriptor::Psys(&block)) };
    ctx.upsert_system(1, &system).expect("upsert");
    ctx.set_transform(1, Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY).expect("transform");
    let camera = Camera {
        view_from_world: Mat4::look_at_rh(Vec3::new(0.0, -8.0, 1.0), Vec3::new(0.0, 0.0, 1.0), Vec3::Z),
        clip_from_view: Mat4::perspective_rh(1.0, 4.0 / 3.0, 0.1, 300.0),
        near_m: 0.1,
        far_m: 300.0,
    };
    let mut settings = settings::Settings { particle_fog: true, ..settings::Settings::default() };
    let mut with_bricks = 0;
    // (vk-mem's bytes, the brick pool's) with the toggle on, then vk-mem's bytes with it off.
    let (mut on_bytes, mut off_bytes) = (None, None);
    for frame in 0..60 {
        let slot = frame % SLOTS;
        host.begin_frame(slot);
        ctx.frame_completed(slot).expect("slot");
        match frame {
            11 => on_bytes = Some((allocation_bytes(&ctx), ctx.stats().brick_bytes_allocated)),
            12 => settings.particle_fog = false,
            16 => off_bytes = Some(allocation_bytes(&ctx)),
            18 => settings.particle_fog = true,
            28 => settings.particle_fog_voxel_size_m *= 2.0,
            34 => settings.particle_fog_brick_budget_mb /= 2,
            40 => ctx.resize(48, 32).expect("resize"),
            44 => ctx.upsert_system(1, &system).expect("a new descriptor for the same object"),
            _ => {}
        }
        let t = &targets[usize::from(frame >= 40)];
        let cmd = host.cmds[slot];
        host.fill_targets(cmd, (t.depth.0, t.hdr.0), t.depth_src.0, t.size, [0.0; 4]);
        ctx.update(&FrameUpdate { dt_s: 0.1, camera, settings: &settings, wind: Vec3::ZERO })
            .expect("update");
        if frame == 41 {
            // SAFETY: as below; the old images are refused before anything is recorded.
            let stale = unsafe { ctx.record(cmd, slot, &targets[0].resources()) };
            assert!(stale.is_err_and(|e| e.to_string().contains("resize first")), "the old size refused");
        }
        // SAFETY: `cmd` is recording; the images are the host's, in the states stated.
        unsafe { ctx.record(cmd, slot, &t.resources()) }.expect("record");
        host.submit_frame(slot);
        with_bricks += usize::from(ctx.cloud_image().is_some());
    }
    for slot in 0..SLOTS {
        host.wait(slot);
        ctx.frame_completed(slot).expect("slot");
    }
    assert!(with_bricks > 40, "the fog was on for most frames: {with_bricks}");
    let ((on_bytes, pool_bytes), off_bytes) = (on_bytes.expect("measured on"), off_bytes.expect("and off"));
    assert!(pool_bytes > 1 << 20, "the pool holds its tables and slots: {pool_bytes} bytes");
    assert!(
        off_bytes + pool_bytes <= on_bytes,
        "the bricks' memory ({pool_bytes} bytes) goes while off: {on_bytes} on, {off_bytes} off"
    );
    let errors = ctx.take_validation_errors();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
    assert_eq!(ctx.destroy(), Vec::<String>::new(), "nothing leaked");
    for t in &targets {
        host.free(&[t.depth, t.hdr], &[t.depth_src]);
    }
}

/// The bytes vk-mem has handed out on the context's device.
fn allocation_bytes(ctx: &FogContext) -> u64 {
    ctx.gpu().memory_stats().expect("stats").allocation_bytes
}
