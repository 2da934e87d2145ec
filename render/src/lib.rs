//! `render`: the Vulkan side of particle fog, and the only crate with `ash`, `vk-mem` and `unsafe`.
//!
//! **The public API is [`embed`]** (and, for C and C++, the `particle-fog-capi` crate over it): a
//! viewer embeds the particle fog on its own device, command buffers and frames in flight through
//! `embed::FogContext` alone (`docs/embedding.md`). Everything else here is internal to this
//! workspace, hidden from the documentation and free to change: the host renderer that stands in
//! for the viewer, the `particle-fog` CLI, and what their tests reach into.
//!
//! Inside: `vk` (thin wrappers: instance, device, validation canary, resources, recorder with
//! derived barriers, pipelines, profiler, readback), `passes` (one folder per pass, its GLSL beside
//! its Rust), `gpu_types` (CPU<->GPU structs with GLSL mirrors), `frame` (the host renderer),
//! `cli` (the `particle-fog` subcommands).
//!
//! See ARCHITECTURE.md for the frame's data flow.

#[doc(hidden)]
pub mod atomic_file;
#[doc(hidden)]
pub mod cli;
pub mod embed;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod fog_gpu;
#[doc(hidden)]
pub mod frame;
#[doc(hidden)]
pub mod gpu_types;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod mitsuba;
#[doc(hidden)]
pub mod names;
#[doc(hidden)]
pub mod particle_fog;
#[doc(hidden)]
pub mod particle_textures;
#[doc(hidden)]
pub mod particles_gpu;
#[doc(hidden)]
pub mod passes;
#[doc(hidden)]
pub mod picture;
#[doc(hidden)]
pub mod scene;
#[doc(hidden)]
pub mod textures;
#[doc(hidden)]
pub mod view;
#[doc(hidden)]
pub mod vk;
#[doc(hidden)]
pub mod world;

/// SPIR-V of every shader, compiled from GLSL by build.rs.
#[doc(hidden)]
pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

pub use ash;
pub use error::{RenderError, Result};
pub use vk::context::{Gpu, GpuDesc};
pub use vk::device::DeviceSelector;
