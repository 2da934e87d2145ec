//! The debug-utils messenger and the validation canary (STYLE.md practice 7; after wgpu-hal's
//! `VALIDATION_CANARY`).
//!
//! Every message is logged through `tracing` at its severity. Errors (which include
//! synchronization-validation hazards) are also recorded in the [`Canary`] of the device that raised
//! them, which the GPU test harness drains after every test. Known false positives are silenced by
//! message id in [`SILENCED`], one line each with the reason.

use std::ffi::{c_void, CStr};

use ash::vk;
use parking_lot::Mutex;

/// Message ids (VUIDs) that are known false positives: `(id, reason)`.
///
/// Keep this list short; every entry needs a reason a reviewer can check.
pub const SILENCED: &[(&str, &str)] = &[(
    "UNASSIGNED-BestPractices-vkCreateInstance-specialuse-extension-debugging",
    "we enable VK_EXT_debug_utils on purpose: it names every object and feeds the canary",
)];

/// One message the validation layer reported as an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationMessage {
    /// The message id name (usually a VUID or `SYNC-HAZARD-...`).
    pub id: String,
    /// The full text.
    pub text: String,
}

impl std::fmt::Display for ValidationMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}", self.id, self.text)
    }
}

/// Records validation errors until drained. One per device, shared with the messenger callback.
#[derive(Debug, Default)]
pub struct Canary {
    errors: Mutex<Vec<ValidationMessage>>,
}

impl Canary {
    /// Takes every recorded error, leaving the canary empty.
    pub fn drain(&self) -> Vec<ValidationMessage> {
        std::mem::take(&mut *self.errors.lock())
    }

    /// How many errors are waiting.
    pub fn len(&self) -> usize {
        self.errors.lock().len()
    }

    /// True when no error is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn record(&self, message: ValidationMessage) {
        self.errors.lock().push(message);
    }
}

/// Creation info for a messenger that reports into `canary`.
///
/// The returned struct points at `canary`; the caller keeps the `Canary` alive (behind an `Arc`
/// owned by the device) for as long as the messenger exists.
pub fn messenger_info(canary: &Canary) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::INFO,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message))
        .user_data(canary as *const Canary as *mut c_void)
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the loader passes a valid callback-data pointer for the duration of the call (or null,
    // which we check); its strings are null or NUL-terminated.
    let (id, text) = unsafe {
        let Some(data) = data.as_ref() else { return vk::FALSE };
        (cstr_or_empty(data.p_message_id_name), cstr_or_empty(data.p_message))
    };
    if SILENCED.iter().any(|(silenced, _)| *silenced == id) {
        return vk::FALSE;
    }
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        tracing::error!(target: "vulkan", "{kind:?} [{id}] {text}");
        // SAFETY: `user_data` is the `Canary` set in `messenger_info`; the device keeps it alive
        // (in an `Arc`) until after the messenger is destroyed.
        if let Some(canary) = unsafe { (user_data as *const Canary).as_ref() } {
            canary.record(ValidationMessage { id, text });
        }
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        tracing::warn!(target: "vulkan", "{kind:?} [{id}] {text}");
    } else {
        tracing::debug!(target: "vulkan", "{kind:?} [{id}] {text}");
    }
    vk::FALSE
}

/// # Safety
/// `ptr` is null or points to a NUL-terminated string valid for the call.
unsafe fn cstr_or_empty(ptr: *const std::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: non-null and NUL-terminated per this function's contract.
    unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
}
