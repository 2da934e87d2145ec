//! Physical-device discovery and selection, and logical-device creation with the features the
//! renderer relies on (checked, with a clear error naming whatever is missing).

use std::ffi::CStr;

use ash::vk;
use serde::Serialize;

use crate::error::{RenderError, Result, VkResultExt};

/// Device extensions the renderer needs.
pub const REQUIRED_EXTENSIONS: &[&CStr] = &[ash::khr::push_descriptor::NAME];

/// Which device to use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceSelector {
    /// A discrete GPU when there is one, else the best other suitable device.
    #[default]
    Auto,
    /// The device at this index of `particle-fog devices`.
    Index(usize),
    /// The first device whose name contains this text (case-insensitive).
    Name(String),
}

impl std::str::FromStr for DeviceSelector {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        Ok(match s.parse::<usize>() {
            Ok(i) => DeviceSelector::Index(i),
            Err(_) if s.eq_ignore_ascii_case("auto") => DeviceSelector::Auto,
            Err(_) => DeviceSelector::Name(s.to_owned()),
        })
    }
}

/// What `particle-fog devices` reports about one device, and what selection checks.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceInfo {
    /// Index in enumeration order.
    pub index: usize,
    /// Device name.
    pub name: String,
    /// Discrete, integrated, virtual, CPU or other.
    pub device_type: String,
    /// Driver name and info (e.g. "llvmpipe: Mesa 22.3.6").
    pub driver: String,
    /// Supported API version, "major.minor.patch".
    pub api_version: String,
    /// Limits the project relies on, by Vulkan name.
    pub limits: Vec<(String, String)>,
    /// Features and extensions the project relies on, with support.
    pub features: Vec<(String, bool)>,
    /// What is missing for this device to be usable (empty when suitable).
    pub missing: Vec<String>,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
    /// Whether graphics and compute queues support timestamps.
    pub timestamps: bool,
    #[serde(skip)]
    pub(crate) raw: vk::PhysicalDevice,
    #[serde(skip)]
    pub(crate) queue_family: Option<u32>,
    #[serde(skip)]
    pub(crate) kind: vk::PhysicalDeviceType,
}

impl DeviceInfo {
    /// True when the renderer can run on this device.
    pub fn suitable(&self) -> bool {
        self.missing.is_empty()
    }
}

/// Describes every device the loader reports.
pub fn enumerate(instance: &ash::Instance) -> Result<Vec<DeviceInfo>> {
    // SAFETY: plain query on a valid instance.
    let devices = unsafe { instance.enumerate_physical_devices() }.ctx("enumerating devices")?;
    devices.into_iter().enumerate().map(|(i, pd)| describe(instance, i, pd)).collect()
}

/// The features and extensions the renderer requires, each with whether the device has it.
fn required_features(
    f12: &vk::PhysicalDeviceVulkan12Features<'_>,
    f13: &vk::PhysicalDeviceVulkan13Features<'_>,
    core: &vk::PhysicalDeviceFeatures,
    has_ext: &dyn Fn(&CStr) -> bool,
) -> Vec<(String, bool)> {
    vec![
        ("synchronization2".to_owned(), f13.synchronization2 == vk::TRUE),
        ("dynamicRendering".to_owned(), f13.dynamic_rendering == vk::TRUE),
        // glslc's SPIR-V 1.6 output declares workgroup sizes with LocalSizeId, which needs it.
        ("maintenance4".to_owned(), f13.maintenance4 == vk::TRUE),
        ("hostQueryReset".to_owned(), f12.host_query_reset == vk::TRUE),
        ("fragmentStoresAndAtomics".to_owned(), core.fragment_stores_and_atomics == vk::TRUE),
        // Billboards blend the HDR colour and the glow mask with different factors.
        ("independentBlend".to_owned(), core.independent_blend == vk::TRUE),
        // Billboard batches start their indirect draws in the middle of the sorted list.
        ("drawIndirectFirstInstance".to_owned(), core.draw_indirect_first_instance == vk::TRUE),
        (
            "shaderStorageImageWriteWithoutFormat".to_owned(),
            core.shader_storage_image_write_without_format == vk::TRUE,
        ),
        ("VK_KHR_push_descriptor".to_owned(), has_ext(ash::khr::push_descriptor::NAME)),
    ]
}

/// The limits `particle-fog devices` shows, as (name, value) text.
fn limit_table(l: &vk::PhysicalDeviceLimits) -> Vec<(String, String)> {
    [
        ("maxImageDimension2D", l.max_image_dimension2_d.to_string()),
        ("maxImageDimension3D", l.max_image_dimension3_d.to_string()),
        ("maxStorageBufferRange", l.max_storage_buffer_range.to_string()),
        ("maxComputeWorkGroupInvocations", l.max_compute_work_group_invocations.to_string()),
        ("maxComputeSharedMemorySize", l.max_compute_shared_memory_size.to_string()),
        ("maxPushConstantsSize", l.max_push_constants_size.to_string()),
        ("timestampPeriod", format!("{} ns", l.timestamp_period)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

fn describe(instance: &ash::Instance, index: usize, pd: vk::PhysicalDevice) -> Result<DeviceInfo> {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut feats2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12).push_next(&mut f13);
    // SAFETY: `pd` comes from this instance; the chained structs outlive the calls.
    let (exts, families) = unsafe {
        instance.get_physical_device_properties2(pd, &mut props2);
        instance.get_physical_device_features2(pd, &mut feats2);
        (
            instance.enumerate_device_extension_properties(pd).ctx("listing device extensions")?,
            instance.get_physical_device_queue_family_properties(pd),
        )
    };
    let props = props2.properties;
    let core = feats2.features;
    let has_ext = |name: &CStr| exts.iter().any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name));
    let queue_family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE));
    let features = required_features(&f12, &f13, &core, &has_ext);
    let mut missing: Vec<String> = features.iter().filter(|(_, ok)| !ok).map(|(n, _)| n.clone()).collect();
    if props.api_version < super::instance::API_VERSION {
        missing.push(format!("Vulkan 1.3 (device has {})", version_text(props.api_version)));
    }
    if queue_family.is_none() {
        missing.push("a queue family with graphics and compute".to_owned());
    }
    let l = &props.limits;
    let limits = limit_table(l);
    Ok(DeviceInfo {
        index,
        name: props.device_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default(),
        device_type: type_name(props.device_type).to_owned(),
        driver: format!(
            "{}: {}",
            driver.driver_name_as_c_str().map(|c| c.to_string_lossy()).unwrap_or_default(),
            driver.driver_info_as_c_str().map(|c| c.to_string_lossy()).unwrap_or_default()
        ),
        api_version: version_text(props.api_version),
        limits,
        features,
        missing,
        timestamp_period_ns: l.timestamp_period,
        timestamps: l.timestamp_compute_and_graphics == vk::TRUE,
        raw: pd,
        queue_family: queue_family.and_then(|q| u32::try_from(q).ok()),
        kind: props.device_type,
    })
}

/// Picks a device: the selector's match, or (for `Auto`) a discrete GPU before anything else.
pub fn select(devices: &[DeviceInfo], selector: &DeviceSelector) -> Result<DeviceInfo> {
    let listing =
        || devices.iter().map(|d| format!("  {}: {}", d.index, d.name)).collect::<Vec<_>>().join("\n");
    let chosen = match selector {
        DeviceSelector::Index(i) => devices.get(*i),
        DeviceSelector::Name(n) => {
            let n = n.to_lowercase();
            devices.iter().find(|d| d.name.to_lowercase().contains(&n))
        }
        DeviceSelector::Auto => devices.iter().filter(|d| d.suitable()).min_by_key(|d| preference(d.kind)),
    };
    let Some(chosen) = chosen else {
        return Err(RenderError::NoDevice(format!("nothing matches {selector:?}; devices:\n{}", listing())));
    };
    if !chosen.suitable() {
        return Err(RenderError::Unsupported(format!(
            "device {} ({}) lacks: {}",
            chosen.index,
            chosen.name,
            chosen.missing.join(", ")
        )));
    }
    Ok(chosen.clone())
}

fn preference(kind: vk::PhysicalDeviceType) -> u8 {
    match kind {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

/// The device features the renderer enables, by the structure that holds each: what a host that
/// embeds the particle fog enables on its own device (besides [`REQUIRED_EXTENSIONS`]), merged
/// with what it enables for itself.
pub struct RequiredFeatures {
    /// Vulkan 1.0 features.
    pub core: vk::PhysicalDeviceFeatures,
    /// Vulkan 1.2 features.
    pub f12: vk::PhysicalDeviceVulkan12Features<'static>,
    /// Vulkan 1.3 features.
    pub f13: vk::PhysicalDeviceVulkan13Features<'static>,
}

/// The features [`create`] enables (and [`crate::vk::context::HostDevice`] requires).
pub fn enabled_features() -> RequiredFeatures {
    RequiredFeatures {
        core: vk::PhysicalDeviceFeatures::default()
            .fragment_stores_and_atomics(true)
            .independent_blend(true)
            .draw_indirect_first_instance(true)
            .shader_storage_image_write_without_format(true),
        f12: vk::PhysicalDeviceVulkan12Features::default().host_query_reset(true),
        f13: vk::PhysicalDeviceVulkan13Features::default()
            .synchronization2(true)
            .dynamic_rendering(true)
            .maintenance4(true),
    }
}

/// Creates the logical device with one graphics+compute queue and the required features.
pub fn create(
    instance: &ash::Instance,
    info: &DeviceInfo,
    extra: &[&CStr],
) -> Result<(ash::Device, vk::Queue, u32)> {
    let family =
        info.queue_family.ok_or_else(|| RenderError::Unsupported("no graphics+compute queue".to_owned()))?;
    let priorities = [1.0f32];
    let queues =
        [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
    let extensions: Vec<_> = REQUIRED_EXTENSIONS.iter().chain(extra).map(|e| e.as_ptr()).collect();
    let RequiredFeatures { core, mut f12, mut f13 } = enabled_features();
    let create_info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .enabled_features(&core)
        .push_next(&mut f12)
        .push_next(&mut f13);
    // SAFETY: `info.raw` belongs to `instance`; every feature requested was reported as supported
    // (`select` refuses devices with anything missing); pointers refer to locals.
    let device =
        unsafe { instance.create_device(info.raw, &create_info, None) }.ctx("creating the logical device")?;
    // SAFETY: family `family` with one queue was requested above.
    let queue = unsafe { device.get_device_queue(family, 0) };
    Ok((device, queue, family))
}

fn type_name(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete GPU",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated GPU",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual GPU",
        vk::PhysicalDeviceType::CPU => "CPU",
        _ => "other",
    }
}

fn version_text(v: u32) -> String {
    format!("{}.{}.{}", vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v))
}

/// Fails, naming them, when `info`'s device lacks any of the `extra` extensions.
pub fn check_extensions(instance: &ash::Instance, info: &DeviceInfo, extra: &[&CStr]) -> Result<()> {
    if extra.is_empty() {
        return Ok(());
    }
    // SAFETY: `info.raw` is a physical device enumerated from `instance`.
    let props = unsafe { instance.enumerate_device_extension_properties(info.raw) }
        .ctx("listing the device's extensions")?;
    let missing: Vec<String> = extra
        .iter()
        .filter(|want| !props.iter().any(|p| p.extension_name_as_c_str().is_ok_and(|n| n == **want)))
        .map(|e| e.to_string_lossy().into_owned())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(RenderError::Unsupported(format!("{} lacks: {}", info.name, missing.join(", "))))
    }
}
