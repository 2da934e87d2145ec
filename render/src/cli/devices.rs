//! `particle-fog devices`: every Vulkan device with name, type, driver, API version and the limits
//! and features the project relies on.

use std::fmt::Write as _;

use crate::error::{RenderError, Result};
use crate::vk::debug::Canary;
use crate::vk::device::{self, DeviceInfo, DeviceSelector};
use crate::vk::instance::Instance;

/// Lists the devices the loader reports (no device is created); with a selector, only the device
/// it names (an index past the end, or a name nothing contains, is an error listing the devices).
pub fn list(validation: bool, selector: Option<&DeviceSelector>) -> Result<Vec<DeviceInfo>> {
    let canary = Canary::default();
    let mut instance = Instance::new(validation, &[], &canary)?;
    let devices = device::enumerate(&instance.raw);
    // SAFETY: nothing was created from the instance besides the messenger, which `destroy` removes.
    unsafe { instance.destroy() };
    match selector {
        Some(s) => pick(devices?, s).map(|d| vec![d]),
        None => devices,
    }
}

/// `--device` text: an index, part of a device name (case-insensitive) or `auto`. Empty text is
/// refused: it is contained in every name, so it would silently pick device 0.
pub fn parse_selector(text: &str) -> std::result::Result<DeviceSelector, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("empty: give an index from `particle-fog devices`, part of a device name, or auto".into());
    }
    text.parse().map_err(|e: std::convert::Infallible| match e {})
}

/// The one device `selector` names, suitable or not (`devices` shows what is missing).
pub fn pick(devices: Vec<DeviceInfo>, selector: &DeviceSelector) -> Result<DeviceInfo> {
    let listing = devices.iter().map(|d| format!("[{}] {}", d.index, d.name)).collect::<Vec<_>>().join(", ");
    let found = match selector {
        DeviceSelector::Index(i) => devices.iter().position(|d| d.index == *i),
        DeviceSelector::Name(n) => {
            devices.iter().position(|d| d.name.to_lowercase().contains(&n.to_lowercase()))
        }
        DeviceSelector::Auto => device::select(&devices, selector)
            .ok()
            .and_then(|chosen| devices.iter().position(|d| d.index == chosen.index)),
    };
    let what = match selector {
        DeviceSelector::Index(i) => format!("no device has index {i}"),
        DeviceSelector::Name(n) => format!("no device name contains {n:?}"),
        DeviceSelector::Auto => "no usable device".to_owned(),
    };
    found
        .and_then(|i| devices.into_iter().nth(i))
        .ok_or_else(|| RenderError::NoDevice(format!("{what}; the devices are: {listing}")))
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
