//! The `particle-fog` subcommands, one module each; `main.rs` only parses and dispatches.

pub mod devices;
pub mod settings;
