//! The renderer on a host's device, as a viewer embeds it: the host makes the instance, device,
//! command buffers and fences, runs two frames in flight, and hands this crate its command buffer
//! and an image of its own each frame. Under validation (synchronization validation on) on
//! lavapipe: each frame's output is read back from that frame's slot, the host's image comes back
//! in the layout the host asked for, a buffer dropped while a frame that used it is in flight
//! outlives that frame, and nothing leaks.

mod host;

use host::HostVulkan;
use render::ash::vk;
use render::gpu_types::FillParams;
use render::passes::fill::{expected, FillPass};
use render::vk::import::{HostImageDesc, HostImageState};
use render::vk::readback_ring::ReadbackRing;
use render::vk::recorder::{Access, Use};
use render::vk::resource::{Buffer, BufferDesc, MemoryLocation};
use render::Gpu;

const FRAMES: usize = 30;
const SLOTS: usize = 2;
const COUNT: u32 = 1000;
const SIDE: u32 = 8;

fn params(frame: usize) -> FillParams {
    FillParams { count: COUNT, seed: 0x5EED_0000 + frame as u32, multiplier: 2_654_435_761, pad0: 0 }
}

/// The colour frame `frame` clears the host's image to, as RGBA8.
fn colour(frame: usize) -> [u8; 4] {
    [(frame * 8) as u8, 255 - (frame * 8) as u8, 128, 255]
}

fn slot_buffer(gpu: &Gpu, name: &str) -> Buffer {
    gpu.create_buffer(&BufferDesc {
        name,
        size: u64::from(COUNT) * 4,
        usage: vk::BufferUsageFlags::STORAGE_BUFFER,
        location: MemoryLocation::GpuToCpu,
    })
    .expect("buffer")
}

#[test]
fn two_frames_in_flight_on_a_hosts_device() {
    let host = HostVulkan::new(SLOTS);
    // SAFETY: the host's objects outlive the context (dropped before the host below).
    let mut gpu =
        unsafe { Gpu::from_host(host.host_device(SLOTS as u32)) }.expect("context on the host's device");
    assert_eq!(gpu.frames_in_flight(), SLOTS);
    let fill = FillPass::new(&gpu).expect("fill pass");
    let outputs: Vec<Buffer> = (0..SLOTS).map(|s| slot_buffer(&gpu, &format!("test.fill.slot{s}"))).collect();

    let usage = vk::ImageUsageFlags::TRANSFER_SRC
        | vk::ImageUsageFlags::TRANSFER_DST
        | vk::ImageUsageFlags::COLOR_ATTACHMENT;
    let (host_image, host_image_memory) = host.image(vk::Format::R8G8B8A8_UNORM, (SIDE, SIDE), usage);
    let desc = HostImageDesc {
        name: "host.target",
        raw: host_image,
        view: vk::ImageView::null(),
        format: vk::Format::R8G8B8A8_UNORM,
        extent: vk::Extent2D { width: SIDE, height: SIDE },
        depth: 1,
        layers: 1,
        array: false,
        usage,
    };
    // SAFETY: the host's image outlives the imported one (dropped first below).
    let target = unsafe { gpu.import_image(&desc) }.expect("imported image");
    let pixels = u64::from(SIDE * SIDE) * 4;
    let readbacks: Vec<_> =
        (0..SLOTS).map(|_| host.mapped_buffer(pixels, vk::BufferUsageFlags::TRANSFER_DST)).collect();
    let copied = HostImageState {
        layout: vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        stage: vk::PipelineStageFlags2::COPY,
        access: vk::AccessFlags2::TRANSFER_READ,
    };
    let mut in_slot: [Option<usize>; SLOTS] = [None; SLOTS];
    let mut extra: Option<Buffer> = None;
    let mut checked = 0;
    for frame in 0..FRAMES {
        let slot = frame % SLOTS;
        host.begin_frame(slot);
        gpu.frame_completed(slot).expect("slot in range");
        if let Some(done) = in_slot[slot].take() {
            check_frame(&outputs[slot], readbacks[slot].2, done);
            checked += 1;
        }
        if frame == 12 {
            assert_eq!(gpu.retired_waiting(), 0, "frame 10 completed: the buffer it used is gone");
        }
        if frame == 10 {
            extra = Some(slot_buffer(&gpu, "test.fill.extra"));
        }
        // The host leaves its image as its copy left it (or undefined before the first frame).
        let entry = if frame < SLOTS {
            HostImageState { layout: vk::ImageLayout::UNDEFINED, ..copied }
        } else {
            copied
        };
        target.enter(entry);
        let cmd = host.cmds[slot];
        gpu.record_frame(cmd, slot, |rec| {
            fill.record(rec, &outputs[slot], params(frame));
            if let Some(buf) = &extra {
                fill.record(rec, buf, params(frame));
            }
            let c = colour(frame).map(|v| f32::from(v) / 255.0);
            rec.clear_color(&target, c);
            rec.hand_back(&target, copied);
            Ok(())
        })
        .expect("frame recorded");
        host.copy_to_buffer(cmd, host_image, readbacks[slot].0, (SIDE, SIDE));
        host.submit_frame(slot);
        in_slot[slot] = Some(frame);
        if frame == 10 {
            drop(extra.take());
            assert_eq!(gpu.retired_waiting(), 1, "frame 10 (in flight) uses the dropped buffer");
        }
        let busy = gpu.record_frame(cmd, slot, |_| Ok(()));
        assert!(busy.is_err_and(|e| e.to_string().contains("still has a frame in flight")));
    }
    let out_of_range = gpu.record_frame(host.cmds[0], SLOTS, |_| Ok(()));
    assert!(out_of_range.is_err_and(|e| e.to_string().contains("out of range")));
    for slot in 0..SLOTS {
        host.wait(slot);
        gpu.frame_completed(slot).expect("slot in range");
        if let Some(done) = in_slot[slot].take() {
            check_frame(&outputs[slot], readbacks[slot].2, done);
            checked += 1;
        }
    }
    assert_eq!(checked, FRAMES);
    let fill_timing = gpu.profiler.timings().into_iter().find(|t| t.pass == "gpu.fill").expect("timed");
    assert_eq!(fill_timing.frames, FRAMES, "one timestamp scope set per frame, read when its slot completed");
    let errors = gpu.canary().drain();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
    drop((target, outputs, fill));
    assert!(gpu.live_allocations().is_empty(), "leaked: {:?}", gpu.live_allocations());
    drop(gpu);
    // SAFETY: the context is gone and every submission completed (waited above).
    unsafe {
        for (buffer, memory, _) in readbacks {
            host.device.destroy_buffer(buffer, None);
            host.device.free_memory(memory, None);
        }
        host.device.destroy_image(host_image, None);
        host.device.free_memory(host_image_memory, None);
    }
}

/// Frame `frame`'s fill values in its slot's buffer and its colour in the host's copy.
fn check_frame(output: &Buffer, pixels: *mut u8, frame: usize) {
    let bytes = output.read();
    let values: &[u32] = bytemuck::cast_slice(&bytes);
    let p = params(frame);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(*v, expected(i as u32, &p), "frame {frame}, element {i}");
    }
    // SAFETY: the host's mapping covers SIDE x SIDE RGBA8 texels and its frame completed.
    let copied = unsafe { std::slice::from_raw_parts(pixels, (SIDE * SIDE * 4) as usize) };
    for texel in copied.chunks_exact(4) {
        assert_eq!(texel, colour(frame), "frame {frame}'s colour in the host's image");
    }
}

/// The host's own copy of its image (left in TRANSFER_SRC_OPTIMAL by the hand-back) into its
/// readback buffer.
#[test]
fn a_host_device_with_frames_in_flight_out_of_range_is_refused() {
    let host = HostVulkan::new(1);
    for frames in [0, 4] {
        // SAFETY: as above; a refused context makes nothing.
        let made = unsafe { Gpu::from_host(host.host_device(frames)) };
        assert!(made.is_err_and(|e| e.to_string().contains("frames in flight must be 1 to 3")), "{frames}");
    }
    // SAFETY: as above.
    let gpu = unsafe { Gpu::from_host(host.host_device(1)) }.expect("context");
    let desc = HostImageDesc {
        name: "host.empty",
        raw: vk::Image::null(),
        view: vk::ImageView::null(),
        format: vk::Format::R8G8B8A8_UNORM,
        extent: vk::Extent2D { width: 0, height: 4 },
        depth: 1,
        layers: 1,
        array: false,
        usage: vk::ImageUsageFlags::SAMPLED,
    };
    // SAFETY: refused before any handle is used.
    let refused = unsafe { gpu.import_image(&desc) };
    assert!(refused.is_err_and(|e| e.to_string().contains("0x4x1 texels")));
    assert!(gpu.canary().drain().is_empty());

    // The context hears the validation layer on the host's instance: a fill at an offset that is
    // not a multiple of 4 is an error the canary records.
    let buf = slot_buffer(&gpu, "test.misuse");
    host.begin_frame(0);
    // SAFETY: deliberately invalid use, caught by the validation layer before the driver sees it;
    // the command buffer is reset, never submitted.
    unsafe {
        host.device.cmd_fill_buffer(host.cmds[0], buf.raw, 1, 4, 0);
        host.device.end_command_buffer(host.cmds[0]).expect("end");
        host.device.reset_command_buffer(host.cmds[0], vk::CommandBufferResetFlags::empty()).expect("reset");
    }
    let errors = gpu.canary().drain();
    assert!(errors.iter().any(|e| e.id.contains("vkCmdFillBuffer")), "{errors:?}");
}

#[test]
fn staged_constants_travel_with_their_frame() {
    // Two frames recorded before either is submitted: a host-mapped buffer would hold the second
    // frame's constants when both run; a staged one gives each frame its own.
    let host = HostVulkan::new(SLOTS);
    // SAFETY: as above.
    let mut gpu = unsafe { Gpu::from_host(host.host_device(SLOTS as u32)) }.expect("context");
    let mut constants = gpu
        .create_buffer(&BufferDesc {
            name: "test.constants",
            size: 16,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::Staged,
        })
        .expect("staged buffer");
    let outputs: Vec<Buffer> = (0..SLOTS)
        .map(|s| {
            gpu.create_buffer(&BufferDesc {
                name: &format!("test.constants.out{s}"),
                size: 16,
                usage: vk::BufferUsageFlags::TRANSFER_DST,
                location: MemoryLocation::GpuToCpu,
            })
            .expect("readback")
        })
        .collect();
    for round in 0..3u32 {
        for slot in 0..SLOTS {
            host.begin_frame(slot);
            gpu.frame_completed(slot).expect("slot");
        }
        for (slot, out) in outputs.iter().enumerate() {
            let value = 100 * round + slot as u32;
            constants.write(0, bytemuck::cast_slice(&[value; 4]));
            gpu.record_frame(host.cmds[slot], slot, |rec| {
                let uses =
                    [Use::Buffer(&constants, Access::TransferRead), Use::Buffer(out, Access::TransferWrite)];
                rec.pass("test.constants.copy", &uses, |rec| rec.copy_buffer(&constants, out, 16));
                rec.barriers(&[Use::Buffer(out, Access::HostRead)]);
                Ok(())
            })
            .expect("recorded");
        }
        for slot in 0..SLOTS {
            host.submit_frame(slot);
        }
        for (slot, out) in outputs.iter().enumerate() {
            host.wait(slot);
            gpu.frame_completed(slot).expect("slot");
            let got: Vec<u32> = bytemuck::cast_slice(&out.read()).to_vec();
            assert_eq!(got, [100 * round + slot as u32; 4], "round {round}, slot {slot}");
        }
    }
    let errors = gpu.canary().drain();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
}

#[test]
fn a_readback_ring_gives_the_newest_completed_frame_once() {
    let host = HostVulkan::new(SLOTS);
    // SAFETY: as above.
    let mut gpu = unsafe { Gpu::from_host(host.host_device(SLOTS as u32)) }.expect("context");
    let mut constants = gpu
        .create_buffer(&BufferDesc {
            name: "test.counter",
            size: 4,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::Staged,
        })
        .expect("staged buffer");
    let mut ring = ReadbackRing::new(&gpu, "test.counter.readback", 4).expect("ring");
    let value = |bytes: &[u8]| u32::from_le_bytes(bytes.try_into().expect("4 bytes"));
    for slot in 0..SLOTS {
        host.begin_frame(slot);
        constants.write(0, &(10 + slot as u32).to_le_bytes());
        gpu.record_frame(host.cmds[slot], slot, |rec| {
            let target = ring.target_tagged(rec, slot as u32);
            let uses =
                [Use::Buffer(&constants, Access::TransferRead), Use::Buffer(target, Access::TransferWrite)];
            rec.pass("test.counter.copy", &uses, |rec| rec.copy_buffer(&constants, target, 4));
            rec.barriers(&[Use::Buffer(target, Access::HostRead)]);
            Ok(())
        })
        .expect("recorded");
        host.submit_frame(slot);
    }
    assert!(ring.take_latest(&gpu).is_none(), "no frame reported completed yet");
    host.wait(0);
    gpu.frame_completed(0).expect("slot 0");
    let (bytes, tag) = ring.take_latest(&gpu).expect("frame 0 completed");
    assert_eq!((value(&bytes), tag), (10, 0));
    assert!(ring.take_latest(&gpu).is_none(), "frame 0's copy is read once; frame 1 still runs");
    host.wait(1);
    gpu.frame_completed(1).expect("slot 1");
    assert_eq!(ring.peek_latest(&gpu).map(|b| value(&b)), Some(11));
    let (bytes, tag) = ring.take_latest(&gpu).expect("frame 1 completed");
    assert_eq!((value(&bytes), tag), (11, 1));
    assert!(ring.take_latest(&gpu).is_none());
    let errors = gpu.canary().drain();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
}
