//! `render`: the Vulkan side of particle fog. See ARCHITECTURE.md.
