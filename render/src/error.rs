//! The render crate's one error type (STYLE.md practice 6).

use ash::vk;

/// Everything that can go wrong on the Vulkan side, mapped at its call site.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The Vulkan loader (libvulkan.so.1) could not be opened.
    #[error("could not load the Vulkan loader: {0}\nInstall it with: sudo apt-get install -y libvulkan1 mesa-vulkan-drivers")]
    LoaderMissing(String),
    /// A required layer, extension, feature or limit is missing.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// No device matched (or the `--device` selector matched nothing).
    #[error("no suitable Vulkan device: {0}")]
    NoDevice(String),
    /// Host or device memory ran out.
    #[error("out of memory while {0}")]
    OutOfMemory(String),
    /// The device was lost (driver crash, hang, or TDR).
    #[error("device lost while {0}")]
    DeviceLost(String),
    /// A shader module or pipeline could not be created.
    #[error("shader or pipeline `{name}` could not be created: {result}")]
    ShaderCompile {
        /// The pass or pipeline name.
        name: String,
        /// The Vulkan result.
        result: vk::Result,
    },
    /// Any other Vulkan failure, with what we were doing.
    #[error("Vulkan call failed while {what}: {result}")]
    Vulkan {
        /// What the call was for.
        what: String,
        /// The Vulkan result.
        result: vk::Result,
    },
    /// An input from outside (a texture a scene names) is missing or unreadable.
    #[error("{0}")]
    BadInput(String),
    /// Writing an output file (image, timing table) failed.
    #[error("could not write {path}: {reason}")]
    Output {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// Result alias for the render crate.
pub type Result<T, E = RenderError> = std::result::Result<T, E>;

/// Extension for mapping `ash` results at the call site with a description of the call.
pub trait VkResultExt<T> {
    /// Maps a Vulkan error to [`RenderError`], naming what the call was doing.
    fn ctx(self, what: &str) -> Result<T>;
}

impl<T> VkResultExt<T> for std::result::Result<T, vk::Result> {
    fn ctx(self, what: &str) -> Result<T> {
        self.map_err(|result| map_vk(result, what))
    }
}

/// Maps one Vulkan result to the matching [`RenderError`] variant.
pub fn map_vk(result: vk::Result, what: &str) -> RenderError {
    match result {
        vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => {
            RenderError::OutOfMemory(what.to_owned())
        }
        vk::Result::ERROR_DEVICE_LOST => RenderError::DeviceLost(what.to_owned()),
        vk::Result::ERROR_LAYER_NOT_PRESENT | vk::Result::ERROR_EXTENSION_NOT_PRESENT => {
            RenderError::Unsupported(format!("{what}: {result}"))
        }
        _ => RenderError::Vulkan { what: what.to_owned(), result },
    }
}

/// Reports a programmer bug (never bad input) with one clear message.
#[cold]
#[track_caller]
pub fn bug(msg: &str) -> ! {
    panic!("particle-fog render bug: {msg}")
}
