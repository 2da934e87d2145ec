//! `particles`: what a legacy Second Life particle system is and does.
//!
//! - [`types`]: the viewer's `LLPartSysData` / `LLPartData` and their enumerations.
//! - [`codec`]: the PSYS block wire format, decoded byte-exactly as the viewer does.
//! - [`json`]: the JSON form of a descriptor (CLI `psys decode|encode`, LSL import).
//! - [`lsl`]: import of `llParticleSystem` / `llLinkParticleSystem` calls from creator scripts.
//! - [`sim`]: the deterministic CPU reference simulation (the oracle for the GPU path).
//! - [`gpu`]: per-source burst scheduling for the GPU simulation (no Vulkan).
//!
//! Sources: the public Second Life viewer (`secondlife/viewer`): `llpartdata.h`/`.cpp` (the block, its
//! enums and defaults), `llviewerpartsource.cpp` and `llviewerpartsim.cpp` (emission, update, budget),
//! and LL's `lsl-definitions` for the script rules; each module names the functions it follows.
#![forbid(unsafe_code)]

pub mod codec;
pub mod gpu;
pub mod json;
pub mod lsl;
pub mod sim;
pub mod types;

pub use types::{PartData, PartFlags, PartSysData, PatternKind, SysFlags, Uuid};
