//! The Vulkan foundation end to end on lavapipe under validation: a compute shader's output read
//! back and compared element by element, uploads, image readback, timestamps, leak tracking, and
//! proof that the validation canary fails tests that misuse the GPU.

use pf_tests::{gpu_test, validation_errors_of};
use render::ash::vk;
use render::gpu_types::FillParams;
use render::passes::fill::{expected, FillPass};
use render::vk::binding::Binding;
use render::vk::pipeline::Groups;
use render::vk::recorder::{Access, Use};
use render::vk::resource::{BufferDesc, ImageDesc, MemoryLocation};
use render::Gpu;

/// Not a multiple of the workgroup size, so the bounds check in the shader is exercised.
const COUNT: u32 = 100_003;

fn storage_buffer(gpu: &Gpu, name: &str, bytes: u64) -> anyhow::Result<render::vk::resource::Buffer> {
    Ok(gpu.create_buffer(&BufferDesc {
        name,
        size: bytes,
        usage: vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST,
        location: MemoryLocation::GpuOnly,
    })?)
}

#[test]
fn compute_fill_matches_the_cpu_for_every_element() {
    gpu_test(|gpu| {
        let pass = FillPass::new(gpu)?;
        let out = storage_buffer(gpu, "test.fill.out", u64::from(COUNT) * 4)?;
        let params = FillParams { count: COUNT, seed: 0xDEAD_BEEF, multiplier: 2_654_435_761, pad0: 0 };
        gpu.submit(|rec| {
            pass.record(rec, &out, params);
            Ok(())
        })?;
        let bytes = gpu.read_buffer(&out)?;
        let values: &[u32] = bytemuck::cast_slice(&bytes);
        assert_eq!(values.len(), COUNT as usize);
        for (i, v) in values.iter().enumerate() {
            assert_eq!(*v, expected(i as u32, &params), "element {i}");
        }
        Ok(())
    });
}

#[test]
fn back_to_back_passes_get_derived_barriers() {
    // Declared copies into one buffer, then a compute write and a readback of it, in one
    // submission: the recorder must place every barrier, or synchronization validation reports a
    // hazard (it tracks transfers; this layer version does not track push-descriptor accesses, so
    // the compute part is checked by the values read back).
    gpu_test(|gpu| {
        let pass = FillPass::new(gpu)?;
        let src = storage_buffer(gpu, "test.chain.src", 4096 * 4)?;
        let dst = storage_buffer(gpu, "test.chain.dst", 4096 * 4)?;
        let params = FillParams { count: 4096, seed: 7, multiplier: 5, pad0: 0 };
        gpu.submit(|rec| {
            pass.record(rec, &src, params);
            for _ in 0..2 {
                let uses =
                    [Use::Buffer(&src, Access::TransferRead), Use::Buffer(&dst, Access::TransferWrite)];
                rec.pass("test.chain.copy", &uses, |rec| rec.copy_buffer(&src, &dst, 4096 * 4));
            }
            Ok(())
        })?;
        let bytes = gpu.read_buffer(&dst)?;
        let values: &[u32] = bytemuck::cast_slice(&bytes);
        assert!(values.iter().enumerate().all(|(i, v)| *v == expected(i as u32, &params)));
        Ok(())
    });
}

#[test]
fn upload_then_readback_round_trips() {
    gpu_test(|gpu| {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 31 % 251) as u8).collect();
        let buf = storage_buffer(gpu, "test.upload", data.len() as u64)?;
        gpu.upload(&buf, &data)?;
        assert_eq!(gpu.read_buffer(&buf)?, data);
        Ok(())
    });
}

#[test]
fn cleared_image_reads_back_with_the_clear_colour() {
    gpu_test(|gpu| {
        let img = gpu.create_image(&ImageDesc {
            name: "test.clear",
            kind: vk::ImageType::TYPE_2D,
            format: vk::Format::R8G8B8A8_UNORM,
            extent: vk::Extent3D { width: 37, height: 19, depth: 1 },
            layers: 1,
            array: false,
            mips: 1,
            usage: vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC,
        })?;
        gpu.submit(|rec| {
            rec.clear_color(&img, [1.0, 0.5, 0.0, 1.0]);
            Ok(())
        })?;
        let pixels = gpu.read_image(&img)?;
        assert_eq!(pixels.len(), 37 * 19 * 4);
        for px in pixels.chunks_exact(4) {
            assert_eq!(px[0], 255);
            assert!(px[1] == 127 || px[1] == 128, "0.5 rounds to 127 or 128, got {}", px[1]);
            assert_eq!((px[2], px[3]), (0, 255));
        }
        Ok(())
    });
}

#[test]
fn every_pass_gets_a_timestamp_scope() {
    gpu_test(|gpu| {
        if !gpu.info().timestamps {
            anyhow::bail!("device {} reports no timestamps", gpu.info().name);
        }
        let pass = FillPass::new(gpu)?;
        let out = storage_buffer(gpu, "test.timed", 65_536 * 4)?;
        for frame in 0..3 {
            gpu.submit(|rec| {
                pass.record(rec, &out, FillParams { count: 65_536, seed: frame, multiplier: 9, pad0: 0 });
                Ok(())
            })?;
        }
        let timings = gpu.profiler.timings();
        let fill = timings.iter().find(|t| t.pass == render::passes::fill::NAME).expect("fill timed");
        assert_eq!(fill.frames, 3);
        assert!(fill.median_ms > 0.0 && fill.median_ms < 10_000.0, "{fill:?}");
        assert!(gpu.profiler.table().contains("gpu.fill"));
        Ok(())
    });
}

#[test]
fn allocations_are_tracked_until_dropped() {
    gpu_test(|gpu| {
        let a = storage_buffer(gpu, "test.live.a", 256)?;
        let b = storage_buffer(gpu, "test.live.b", 256)?;
        let live = gpu.live_allocations();
        assert!(live.contains(&"test.live.a".to_owned()) && live.contains(&"test.live.b".to_owned()));
        drop(a);
        assert_eq!(gpu.live_allocations(), vec!["test.live.b".to_owned()]);
        drop(b);
        assert!(gpu.live_allocations().is_empty());
        Ok(())
    });
}

#[test]
fn canary_reports_a_missing_barrier() {
    // Passes that forget to declare their uses get no barriers: the second copy into `dst` races
    // the first (write after write) and reads `src` while nobody waited for its upload.
    let errors = validation_errors_of(|gpu| {
        let src = storage_buffer(gpu, "test.undeclared.src", 4096)?;
        let dst = storage_buffer(gpu, "test.undeclared.dst", 4096)?;
        gpu.submit(|rec| {
            for _ in 0..2 {
                rec.pass("test.undeclared", &[], |rec| rec.copy_buffer(&src, &dst, 4096));
            }
            Ok(())
        })?;
        Ok(())
    });
    assert!(
        errors.iter().any(|m| m.id.contains("SYNC-HAZARD-WRITE-AFTER-WRITE")),
        "expected a write-after-write hazard, got: {errors:?}"
    );
}

#[test]
fn canary_reports_a_wrong_image_layout() {
    // The pass declares a sampled read (SHADER_READ_ONLY layout) but binds the image as storage,
    // which the shader accesses in GENERAL layout.
    let errors = validation_errors_of(|gpu| {
        let img = gpu.create_image(&ImageDesc {
            name: "test.wrong_layout",
            kind: vk::ImageType::TYPE_2D,
            format: vk::Format::R8G8B8A8_UNORM,
            extent: vk::Extent3D { width: 8, height: 8, depth: 1 },
            layers: 1,
            array: false,
            mips: 1,
            usage: vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::SAMPLED,
        })?;
        let pipe = gpu.create_compute_pipeline(
            "test.wrong_layout",
            render::shaders::PASSES_TESTING_STORE_IMAGE_COMP,
            0,
        )?;
        gpu.submit(|rec| {
            // The low-level form on purpose: uses declared apart from the bindings, and wrongly.
            rec.pass("test.wrong_layout", &[Use::Image(&img, Access::ComputeSampled)], |rec| {
                let bindings = [Binding::StorageImage(&img, Access::ComputeWrite)];
                rec.dispatch(&pipe, &bindings, &[], Groups::Direct([1, 1, 1]));
            });
            Ok(())
        })?;
        Ok(())
    });
    assert!(
        errors.iter().any(|m| m.id == "VUID-VkDescriptorImageInfo-imageLayout-00344"),
        "expected an image-layout error, got: {errors:?}"
    );
}

#[test]
#[should_panic(
    expected = "test.mismatch: binding 0 is a storage buffer in the pass, a storage image in the shader"
)]
fn a_binding_of_the_wrong_kind_fails_naming_the_pass_and_the_binding() {
    // `testing/store_image.comp` writes a storage image at binding 0; the pass gives a buffer.
    gpu_test(|gpu| {
        let buf = storage_buffer(gpu, "test.mismatch.buf", 256)?;
        let pipe = gpu.create_compute_pipeline(
            "test.mismatch",
            render::shaders::PASSES_TESTING_STORE_IMAGE_COMP,
            0,
        )?;
        gpu.submit(|rec| {
            let bindings = [Binding::Storage(&buf, Access::ComputeWrite)];
            rec.compute("test.mismatch", &pipe, &bindings, &[], Groups::Direct([1, 1, 1]));
            Ok(())
        })?;
        Ok(())
    });
}

#[test]
fn a_failed_submission_leaves_the_tracked_layouts_as_they_were() {
    gpu_test(|gpu| {
        let img = gpu.create_image(&ImageDesc {
            name: "test.rollback",
            kind: vk::ImageType::TYPE_2D,
            format: vk::Format::R8G8B8A8_UNORM,
            extent: vk::Extent3D { width: 8, height: 4, depth: 1 },
            layers: 1,
            array: false,
            mips: 1,
            usage: vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::SAMPLED,
        })?;
        gpu.submit(|rec| {
            rec.clear_color(&img, [0.0, 1.0, 0.0, 1.0]);
            Ok(())
        })?;
        assert_eq!(img.tracked_layout(), vk::ImageLayout::TRANSFER_DST_OPTIMAL);
        // A frame that moves the image on, then fails before it is submitted.
        let failed = gpu.submit(|rec| {
            rec.barriers(&[Use::Image(&img, Access::ComputeSampled)]);
            rec.clear_color(&img, [1.0, 0.0, 0.0, 1.0]);
            rec.barriers(&[Use::Image(&img, Access::TransferRead)]);
            Err::<(), _>(render::RenderError::BadInput("a step of the frame failed".into()))
        });
        assert!(failed.is_err());
        assert_eq!(
            img.tracked_layout(),
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            "the failed frame never ran: its layouts must not be the next frame's starting point"
        );
        // The next frame's barriers start from the true layout (gpu_test fails on any validation
        // error) and the first clear is what it reads.
        let pixels = gpu.read_image(&img)?;
        assert!(pixels.chunks_exact(4).all(|px| px == [0, 255, 0, 255]), "{:?}", &pixels[..4]);
        Ok(())
    });
}

#[test]
fn a_staged_buffer_reaches_the_gpu_whole_and_then_only_its_changes() {
    // 150,002 bytes: more than two 64 KiB vkCmdUpdateBuffer pieces and not a whole number of
    // words; then a change in the middle, across a piece boundary, written alone.
    gpu_test(|gpu| {
        const BYTES: usize = 150_002;
        let mut staged = gpu.create_buffer(&BufferDesc {
            name: "test.staged",
            size: BYTES as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::Staged,
        })?;
        let out = gpu.create_buffer(&BufferDesc {
            name: "test.staged.out",
            size: BYTES as u64,
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuToCpu,
        })?;
        let mut expected: Vec<u8> = (0..BYTES).map(|i| (i * 7 % 251) as u8).collect();
        staged.write(0, &expected);
        let copy = |gpu: &mut Gpu, staged: &render::vk::resource::Buffer| {
            gpu.submit(|rec| {
                let uses =
                    [Use::Buffer(staged, Access::TransferRead), Use::Buffer(&out, Access::TransferWrite)];
                rec.pass("test.staged.copy", &uses, |rec| rec.copy_buffer(staged, &out, BYTES as u64));
                rec.barriers(&[Use::Buffer(&out, Access::HostRead)]);
                Ok(())
            })
        };
        copy(gpu, &staged)?;
        assert!(out.read() == expected, "the whole buffer after the first write");
        let change: Vec<u8> = vec![0xAB; 1001];
        staged.write(65_000, &change);
        expected[65_000..66_001].copy_from_slice(&change);
        copy(gpu, &staged)?;
        assert!(out.read() == expected, "the change across the 64 KiB boundary, the rest kept");
        copy(gpu, &staged)?;
        assert!(out.read() == expected, "a frame without changes keeps the contents");
        Ok(())
    });
}
