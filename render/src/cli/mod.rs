//! The `particle-fog` subcommands, one module each; `main.rs` only parses and dispatches.

pub mod classify;
pub mod devices;
pub mod lsl;
pub mod output;
pub mod psys;
pub mod render;
pub mod settings;
pub mod showcase;
pub mod texstats;
