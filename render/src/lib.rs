//! `render`: the Vulkan side of particle fog, and the only crate with `ash`, `vk-mem` and `unsafe`.
//!
//! - [`vk`]: thin wrappers (instance, device, validation canary, resources, recorder with derived
//!   barriers, pipelines, profiler, readback).
//! - [`passes`]: one folder per pass, its GLSL beside its Rust.
//! - [`gpu_types`]: CPU<->GPU structs with GLSL mirrors.
//! - [`cli`]: the `particle-fog` subcommands.
//!
//! See ARCHITECTURE.md for the frame's data flow.

pub mod atomic_file;
pub mod cli;
pub mod embed;
pub mod error;
pub mod fog_gpu;
pub mod frame;
pub mod gpu_types;
pub mod input;
pub mod mitsuba;
pub mod names;
pub mod particle_fog;
pub mod particle_textures;
pub mod particles_gpu;
pub mod passes;
pub mod picture;
pub mod scene;
pub mod textures;
pub mod view;
pub mod vk;
pub mod world;

/// SPIR-V of every shader, compiled from GLSL by build.rs.
pub mod shaders {
    include!(concat!(env!("OUT_DIR"), "/shaders.rs"));
}

pub use ash;
pub use error::{RenderError, Result};
pub use vk::context::{Gpu, GpuDesc};
pub use vk::device::DeviceSelector;
