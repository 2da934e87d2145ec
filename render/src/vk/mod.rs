//! Thin Vulkan wrappers, one concept per file. The only place with `unsafe` Vulkan calls.

pub mod binding;
pub mod context;
pub mod conv;
pub mod debug;
pub mod device;
pub mod frames;
pub mod graphics;
pub mod import;
pub mod instance;
pub mod pipeline;
pub mod profiler;
pub mod readback;
pub mod readback_ring;
pub mod recorder;
pub mod reflect;
pub mod resource;
pub mod sampler;
