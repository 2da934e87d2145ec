//! Instance creation: the loader opened at run time, optional Khronos validation (with
//! synchronization validation), and the debug-utils messenger feeding the [`Canary`]; or a host's
//! instance borrowed ([`Instance::borrow`]), which this crate never destroys.

use std::ffi::{c_char, CStr};

use ash::vk;

use super::debug::{messenger_info, Canary};
use crate::error::{RenderError, Result, VkResultExt};

/// The Khronos validation layer.
pub const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";
/// The API version the renderer targets (dynamic rendering and synchronization2 are core).
pub const API_VERSION: u32 = vk::API_VERSION_1_3;

/// The instance, its entry points, and the messenger when debug utils is available.
pub struct Instance {
    /// The loader's entry points.
    pub entry: ash::Entry,
    /// The instance.
    pub raw: ash::Instance,
    /// Debug-utils instance functions (object names, labels, the messenger).
    pub debug_utils: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    /// Whether the validation layer is on (for a borrowed instance: whether the host says so).
    pub validation: bool,
    /// Whether this crate created the instance (and destroys it) or borrows a host's.
    owned: bool,
}

impl Instance {
    /// Opens the loader and creates the instance with `extra` extensions besides debug utils (e.g.
    /// a window's surface extensions). With `validation`, the Khronos layer and its
    /// synchronization validation are required; a missing layer is an error with the install command.
    pub fn new(validation: bool, extra: &[&CStr], canary: &Canary) -> Result<Self> {
        // SAFETY: loading the system Vulkan loader runs its initialisers; we do it once per Instance
        // and keep the library alive in `entry` for the instance's lifetime.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| RenderError::LoaderMissing(e.to_string()))?;
        if validation && !has_layer(&entry, VALIDATION_LAYER)? {
            return Err(RenderError::Unsupported(
                "the Khronos validation layer (VK_LAYER_KHRONOS_validation) is not installed.\n\
                 Install it with: sudo apt-get install -y vulkan-validationlayers"
                    .to_owned(),
            ));
        }
        let app_info = vk::ApplicationInfo::default()
            .application_name(c"particle-fog")
            .engine_name(c"particle-fog")
            .api_version(API_VERSION);
        let layers: Vec<*const c_char> =
            if validation { vec![VALIDATION_LAYER.as_ptr()] } else { Vec::new() };
        let mut extensions = vec![ash::ext::debug_utils::NAME.as_ptr()];
        extensions.extend(extra.iter().map(|e| e.as_ptr()));
        if validation {
            // Provided by the validation layer; carries the synchronization-validation switch.
            extensions.push(ash::ext::validation_features::NAME.as_ptr());
        }
        let enabled_validation = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enabled_validation);
        let mut messenger_ci = messenger_info(canary);
        let mut create_info = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions)
            .push_next(&mut messenger_ci);
        if validation {
            create_info = create_info.push_next(&mut features);
        }
        // SAFETY: every pointer in `create_info` refers to locals that outlive the call.
        let raw = unsafe { entry.create_instance(&create_info, None) }.ctx("creating the instance")?;
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &raw);
        let messenger_ci = messenger_info(canary);
        // SAFETY: the instance is valid; the canary outlives the messenger (owned by the device's
        // shared state, dropped after `Instance::destroy`).
        let messenger = unsafe { debug_utils.create_debug_utils_messenger(&messenger_ci, None) }
            .ctx("creating the debug messenger")?;
        Ok(Instance { entry, raw, debug_utils, messenger, validation, owned: true })
    }

    /// Borrows a host's instance. With `watch_messages` (the host enabled `VK_EXT_debug_utils`),
    /// a messenger of this crate's reports into `canary` beside the host's own; it is destroyed
    /// with this value, the instance never is.
    ///
    /// # Safety
    /// `raw` was created from `entry`, stays alive until this value is destroyed, and has
    /// `VK_EXT_debug_utils` enabled when `watch_messages` is set.
    pub unsafe fn borrow(
        entry: ash::Entry,
        raw: ash::Instance,
        (validation, watch_messages): (bool, bool),
        canary: &Canary,
    ) -> Result<Self> {
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &raw);
        let mut messenger = vk::DebugUtilsMessengerEXT::null();
        if watch_messages {
            let messenger_ci = messenger_info(canary);
            // SAFETY: per this function's contract the instance is alive with debug utils enabled;
            // the canary outlives the messenger (as in `new`).
            messenger = unsafe { debug_utils.create_debug_utils_messenger(&messenger_ci, None) }
                .ctx("creating the debug messenger on the host's instance")?;
        }
        Ok(Instance { entry, raw, debug_utils, messenger, validation, owned: false })
    }

    /// Whether this crate created the instance.
    pub fn owned(&self) -> bool {
        self.owned
    }

    /// Destroys the messenger and, when this crate created it, the instance.
    ///
    /// # Safety
    /// Every object this crate created from this instance (the device included, when owned) is
    /// already destroyed.
    pub unsafe fn destroy(&mut self) {
        // SAFETY: per this function's contract nothing of ours created from the instance is alive;
        // a borrowed instance is left to its host.
        unsafe {
            if self.messenger != vk::DebugUtilsMessengerEXT::null() {
                self.debug_utils.destroy_debug_utils_messenger(self.messenger, None);
            }
            if self.owned {
                self.raw.destroy_instance(None);
            }
        }
    }
}

fn has_layer(entry: &ash::Entry, name: &CStr) -> Result<bool> {
    // SAFETY: plain query on the loaded entry.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }.ctx("enumerating instance layers")?;
    Ok(layers.iter().any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == name)))
}
