//! The `particle-fog` subcommands, one module each; `main.rs` only parses and dispatches.

pub mod bench;
pub mod bench_report;
pub mod bench_sweep;
pub mod bench_table;
pub mod classify;
pub mod devices;
pub mod frame_times;
pub mod lsl;
pub mod memory;
pub mod out_dir;
pub mod output;
pub mod progress;
pub mod psys;
pub mod render;
pub mod settings;
pub mod showcase;
pub mod texstats;
#[cfg(feature = "viewer")]
pub mod view;
