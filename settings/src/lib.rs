//! `settings`: the particle-fog subsystem's viewer settings: documented, persisted in the viewer's
//! `settings.xml` (LLSD XML), and changeable while rendering.
//!
//! * [`Settings`]: one documented field per setting (meaning, unit, default, range, cost).
//! * [`SETTINGS`]: the documentation table, one [`SettingDesc`] per setting, used for name-based
//!   get/set, validation and persistence.
//! * [`SettingsFile`]: load/merge/save of `settings.xml`, keeping every key it does not know and
//!   changing only the `Value` of what was set; [`save`] says how a save treats the file system.
//! * [`SettingsHandle`]: live settings; the renderer checks [`SettingsHandle::version`] once per
//!   frame and takes a new [`SettingsHandle::snapshot`] when it moved.
//! * [`document`]: the reader and writer of LLSD map documents that settings.xml and the per-user
//!   files beside it share (bounds, nesting, line numbers, atomic saves).
//! * [`cli`]: text helpers for `particle-fog settings list|get|set` and `--set NAME=VALUE`.
//!
//! ```
//! use settings::{cli, SettingsHandle, SettingsFile};
//!
//! let mut file = SettingsFile::new("settings.xml"); // or SettingsFile::open(path)?
//! cli::apply_overrides(&mut file.settings, &["RenderVKParticleFog=1".to_owned()])?;
//! let handle = SettingsHandle::new(file.settings.clone());
//! let (mut version, mut current) = handle.versioned_snapshot();
//! handle.set_text("RenderVKParticleFogStrength", "2")?; // e.g. from the UI thread
//! // Once per frame: one atomic load unless something changed.
//! if handle.version() != version {
//!     (version, current) = handle.versioned_snapshot();
//! }
//! assert!(current.particle_fog && current.particle_fog_strength == 2.0);
//! # Ok::<(), settings::SettingsError>(())
//! ```
//!
//! The GPU form of these settings lives in the crates that upload them; nothing here knows Vulkan.
#![forbid(unsafe_code)]

pub mod cli;
pub mod document;
mod entry;
mod error;
mod file;
mod input;
mod lines;
mod live;
pub mod llsd;
mod model;
mod nesting;
pub mod save;
mod table;

pub use error::SettingsError;
pub use file::{SaveMode, SettingsFile};
pub use input::MAX_FILE_BYTES;
pub use live::SettingsHandle;
pub use llsd::Llsd;
pub use model::{FogDebugMode, Settings};
pub use table::{find, SettingDesc, SettingType, SettingValue, SETTINGS};
