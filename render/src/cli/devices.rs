//! `particle-fog devices`: every Vulkan device with name, type, driver, API version and the limits
//! and features the project relies on.

use std::fmt::Write as _;

use crate::error::Result;
use crate::vk::debug::Canary;
use crate::vk::device::{self, DeviceInfo};
use crate::vk::instance::Instance;

/// Lists the devices the loader reports (no device is created).
pub fn list(validation: bool) -> Result<Vec<DeviceInfo>> {
    let canary = Canary::default();
    let mut instance = Instance::new(validation, &canary)?;
    let devices = device::enumerate(&instance.raw);
    // SAFETY: nothing was created from the instance besides the messenger, which `destroy` removes.
    unsafe { instance.destroy() };
    devices
}

/// Human-readable listing.
pub fn text(devices: &[DeviceInfo]) -> String {
    let mut out = String::new();
    if devices.is_empty() {
        out.push_str("no Vulkan devices found (install mesa-vulkan-drivers for lavapipe)\n");
    }
    for d in devices {
        let _ = writeln!(out, "[{}] {} ({})", d.index, d.name, d.device_type);
        let _ = writeln!(out, "    driver:      {}", d.driver);
        let _ = writeln!(out, "    api version: {}", d.api_version);
        for (k, v) in &d.limits {
            let _ = writeln!(out, "    {k:<31} {v}");
        }
        for (k, ok) in &d.features {
            let _ = writeln!(out, "    {k:<31} {}", if *ok { "yes" } else { "NO" });
        }
        let _ = writeln!(out, "    timestamps:  {}", if d.timestamps { "yes" } else { "no" });
        if d.suitable() {
            let _ = writeln!(out, "    usable:      yes");
        } else {
            let _ = writeln!(out, "    usable:      no (missing {})", d.missing.join(", "));
        }
    }
    out
}
