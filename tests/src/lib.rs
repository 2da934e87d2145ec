//! The GPU test harness: every GPU test runs on a device created with the Khronos validation layer
//! (synchronization validation included), and fails with the messages if the canary recorded any
//! validation error while it ran (STYLE.md practice 7; after wgpu's `tests/src/run.rs`).
//!
//! On machines without a GPU the device is Mesa's lavapipe. `PF_TEST_DEVICE` (an index or part of a
//! name) picks another device.
#![forbid(unsafe_code)]

pub mod frame;

use render::vk::debug::ValidationMessage;
use render::{DeviceSelector, Gpu, GpuDesc};

/// The description of the validated test device (the one `PF_TEST_DEVICE` names, else the
/// default choice), for tests that run the CLI's render job (it makes its own device and fails
/// on a validation error).
pub fn validated_desc() -> GpuDesc {
    let device = std::env::var("PF_TEST_DEVICE")
        .ok()
        .and_then(|s| s.parse::<DeviceSelector>().ok())
        .unwrap_or_default();
    GpuDesc { validation: true, device, ..GpuDesc::default() }
}

/// Creates a validated device ([`validated_desc`]).
pub fn validated_gpu() -> Gpu {
    match Gpu::new(&validated_desc()) {
        Ok(gpu) => gpu,
        Err(e) => panic!("GPU tests need Vulkan with validation layers (./run test installs them): {e}"),
    }
}

/// Runs `body` on a validated device and fails if it errs or raised any validation error.
pub fn gpu_test(body: impl FnOnce(&mut Gpu) -> anyhow::Result<()>) {
    let mut gpu = validated_gpu();
    let outcome = body(&mut gpu);
    let errors = gpu.canary().drain();
    drop(gpu);
    if let Err(e) = outcome {
        panic!("GPU test failed: {e:#}\nvalidation errors: {}", format_messages(&errors));
    }
    assert!(errors.is_empty(), "validation errors:\n{}", format_messages(&errors));
}

/// Runs `body` and returns the validation errors it raised, for tests that provoke them on purpose.
pub fn validation_errors_of(body: impl FnOnce(&mut Gpu) -> anyhow::Result<()>) -> Vec<ValidationMessage> {
    let mut gpu = validated_gpu();
    if let Err(e) = body(&mut gpu) {
        panic!("the provoking test body itself failed: {e:#}");
    }
    gpu.canary().drain()
}

fn format_messages(errors: &[ValidationMessage]) -> String {
    if errors.is_empty() {
        return "none".to_owned();
    }
    errors.iter().map(|m| format!("  {m}")).collect::<Vec<_>>().join("\n")
}
