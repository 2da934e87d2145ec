//! A foreign host's per-object overrides through `render::embed` alone: a fog machine that
//! converts and the same machine with 0.3 m puffs, which the owner's "too small" exclusion keeps
//! billboards. "Never fog" on the first and "always fog" on the second cross-fade each toward the
//! other's state at the cross-fade rate (no frame jumps), the explanation names the override, and
//! the overrides saved into the user's file and loaded into a new context before its systems
//! arrive give the new context the same overrides and weights. Two frames in flight, under
//! validation, nothing leaked.

mod host;

use std::path::Path;

use glam::{Mat4, Quat, Vec2, Vec3};
use host::content::{hex, soft_texture, FOG_MACHINE};
use host::HostVulkan;
use render::ash::vk;
use render::embed::*;

const SIZE: (u32, u32) = (64, 36);
const SLOTS: usize = 2;
/// The time step, s.
const DT: f32 = 0.1;
/// The most a weight may move in one frame: the cross-fade rate (1 / s) over the time step.
const FADE_STEP: f32 = 1.0 * DT + 1e-5;
/// Frames that settle every weight: a cross-fade takes 1 s, 10 frames; twice that.
const SETTLE: usize = 20;
const MACHINE: SystemId = 7;
const SMALL: SystemId = 9;

/// The host's frame: depth all sky (forward Z), a dark HDR target, the context's passes.
struct Frames {
    host: HostVulkan,
    depth: (vk::Image, vk::DeviceMemory),
    hdr: (vk::Image, vk::DeviceMemory),
    depth_src: (vk::Buffer, vk::DeviceMemory),
    next: usize,
}

impl Frames {
    fn new() -> Frames {
        let host = HostVulkan::new(SLOTS);
        use vk::ImageUsageFlags as U;
        let depth = host.image(vk::Format::D32_SFLOAT, SIZE, U::SAMPLED | U::TRANSFER_DST);
        let hdr = host.image(vk::Format::R16G16B16A16_SFLOAT, SIZE, U::STORAGE | U::TRANSFER_DST);
        let pixels = (SIZE.0 * SIZE.1) as usize;
        let (buf, mem, ptr) = host.mapped_buffer(pixels as u64 * 4, vk::BufferUsageFlags::TRANSFER_SRC);
        let far = vec![1.0f32; pixels];
        // SAFETY: the mapping holds `pixels` floats.
        unsafe { std::ptr::copy_nonoverlapping(far.as_ptr().cast::<u8>(), ptr, pixels * 4) };
        Frames { host, depth, hdr, depth_src: (buf, mem), next: 0 }
    }

    fn context(&self) -> FogContext {
        let desc = FogContextDesc { size: SIZE, max_size: SIZE, ..FogContextDesc::default() };
        // SAFETY: the host's device was made with the required features; it outlives the context.
        unsafe { FogContext::new(self.host.host_device(SLOTS as u32), &desc) }.expect("context")
    }

    /// One frame of `ctx`: update, record into the host's command buffer, submit.
    fn frame(&mut self, ctx: &mut FogContext) {
        let slot = self.next % SLOTS;
        self.next += 1;
        self.host.begin_frame(slot);
        ctx.frame_completed(slot).expect("slot");
        let cmd = self.host.cmds[slot];
        self.host.fill_targets(cmd, (self.depth.0, self.hdr.0), self.depth_src.0, SIZE, [0.05; 4]);
        let settings = settings::Settings { particle_fog: true, ..settings::Settings::default() };
        let camera = Camera {
            view_from_world: Mat4::look_at_rh(Vec3::new(0.0, -8.0, 1.0), Vec3::new(0.0, 0.0, 1.5), Vec3::Z),
            clip_from_view: Mat4::perspective_rh(1.0, SIZE.0 as f32 / SIZE.1 as f32, 0.1, 100.0),
            near_m: 0.1,
            far_m: 100.0,
        };
        ctx.update(&FrameUpdate { dt_s: DT, camera, settings: &settings, wind: Vec3::ZERO }).expect("update");
        let copy_write = HostImageState {
            layout: vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            stage: vk::PipelineStageFlags2::ALL_TRANSFER,
            access: vk::AccessFlags2::TRANSFER_WRITE,
        };
        let image = |image, format, usage| ViewerImage {
            image,
            view: vk::ImageView::null(),
            format,
            extent: SIZE,
            layers: 1,
            usage,
            entry: copy_write,
            exit: copy_write,
        };
        use vk::ImageUsageFlags as U;
        let res = FrameResources {
            depth: image(self.depth.0, vk::Format::D32_SFLOAT, U::SAMPLED | U::TRANSFER_DST),
            hdr: image(self.hdr.0, vk::Format::R16G16B16A16_SFLOAT, U::STORAGE | U::TRANSFER_DST),
            sun: Sun { to_sun: Vec3::new(0.3, -0.5, 0.8).normalize(), color: Vec3::ONE, illuminance: 2.0 },
            ambient: [Vec3::splat(0.3), Vec3::splat(0.1)],
            shadows: None,
            lights: &[],
            projectors: None,
            froxels: None,
        };
        // SAFETY: `cmd` is recording; the images are the host's, in the states stated.
        unsafe { ctx.record(cmd, slot, &res) }.expect("record");
        self.host.submit_frame(slot);
    }

    /// Waits for every frame of `ctx` and destroys it: validation clean, nothing leaked.
    fn finish(&mut self, mut ctx: FogContext) {
        for slot in 0..SLOTS {
            self.host.wait(slot);
            ctx.frame_completed(slot).expect("slot");
        }
        let errors = ctx.take_validation_errors();
        assert!(errors.is_empty(), "validation errors: {errors:?}");
        assert_eq!(ctx.destroy(), Vec::<String>::new(), "nothing leaked");
        self.next = 0;
    }
}

impl Drop for Frames {
    fn drop(&mut self) {
        self.host.free(&[self.depth, self.hdr], &[self.depth_src]);
    }
}

/// The two systems: the fog machine and its 0.3 m twin, each with its object key.
fn upsert_both(ctx: &mut FogContext, block: &[u8]) {
    let soft = soft_texture();
    let machine = SystemDesc {
        texture: Some(soft.clone()),
        key: Some(SystemKey { object: Uuid([1; 16]), link: 1 }),
        ..SystemDesc::new(Descriptor::Psys(block))
    };
    ctx.upsert_system(MACHINE, &machine).expect("machine");
    let mut small = decode_psys(block).expect("block").expect("a system");
    small.part.start_scale = Vec2::splat(0.3);
    small.part.end_scale = Vec2::splat(0.3);
    let small = SystemDesc {
        texture: Some(soft),
        key: Some(SystemKey { object: Uuid([2; 16]), link: 0 }),
        ..SystemDesc::new(Descriptor::Data(small))
    };
    ctx.upsert_system(SMALL, &small).expect("small");
    ctx.set_transform(MACHINE, Vec3::new(-1.0, 0.0, 0.5), Quat::IDENTITY).expect("transform");
    ctx.set_transform(SMALL, Vec3::new(1.0, 0.0, 0.5), Quat::IDENTITY).expect("transform");
}

fn weights(ctx: &FogContext) -> (f32, f32) {
    (ctx.weight(MACHINE).expect("machine"), ctx.weight(SMALL).expect("small"))
}

fn rule(ctx: &FogContext, id: SystemId) -> &'static str {
    ctx.explain(id).expect("system").expect("classified").rule
}

#[test]
fn overrides_cross_fade_and_survive_the_users_file() {
    let block = hex(FOG_MACHINE);
    let dir = std::env::temp_dir().join(format!("pf_embed_overrides_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("particle_fog_overrides.xml");
    let mut frames = Frames::new();

    let mut ctx = frames.context();
    upsert_both(&mut ctx, &block);
    let unknown = SystemDesc {
        key: Some(SystemKey { object: Uuid([3; 16]), link: 300 }),
        ..SystemDesc::new(Descriptor::Psys(&block))
    };
    assert!(ctx.upsert_system(11, &unknown).is_err(), "a link past a linkset's last is refused");
    assert!(ctx.set_override(99, Override::Fog).is_err(), "an unknown id is refused");
    for _ in 0..SETTLE {
        frames.frame(&mut ctx);
    }
    assert_eq!(weights(&ctx), (1.0, 0.0), "the machine converts, its small twin does not");
    assert_eq!(rule(&ctx, SMALL), "too_small");

    ctx.set_override(MACHINE, Override::Billboards).expect("override");
    ctx.set_override(SMALL, Override::Fog).expect("override");
    let mut last = weights(&ctx);
    for _ in 0..SETTLE {
        frames.frame(&mut ctx);
        let now = weights(&ctx);
        assert!(now.0 <= last.0 && last.0 - now.0 <= FADE_STEP, "machine {} -> {}", last.0, now.0);
        assert!(now.1 >= last.1 && now.1 - last.1 <= FADE_STEP, "small {} -> {}", last.1, now.1);
        last = now;
    }
    assert_eq!(last, (0.0, 1.0), "each ends in the state its override asks");
    assert_eq!((rule(&ctx, MACHINE), rule(&ctx, SMALL)), ("override", "override"));

    let mut file = OverridesFile::new(&path);
    ctx.store_overrides(&mut file);
    file.save(settings::SaveMode::Normal).expect("save");
    frames.finish(ctx);

    // A new session: the user's file is loaded before the systems arrive.
    let loaded = OverridesFile::open(&path).expect("load");
    let mut ctx = frames.context();
    ctx.load_overrides(&loaded);
    upsert_both(&mut ctx, &block);
    assert_eq!(ctx.override_of(MACHINE).expect("machine"), Override::Billboards);
    assert_eq!(ctx.override_of(SMALL).expect("small"), Override::Fog);
    for _ in 0..SETTLE {
        frames.frame(&mut ctx);
    }
    assert_eq!(weights(&ctx), (0.0, 1.0), "the stored overrides hold in the new session");
    ctx.load_overrides(&OverridesFile::new(dir.join("none.xml")));
    assert_eq!(ctx.override_of(SMALL).expect("small"), Override::Auto, "an empty file sets automatic");
    frames.finish(ctx);
    remove_dir(&dir);
}

fn remove_dir(dir: &Path) {
    std::fs::remove_dir_all(dir).expect("temp dir removed");
}
