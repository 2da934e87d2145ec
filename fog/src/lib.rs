//! `fog`: see ARCHITECTURE.md.
#![forbid(unsafe_code)]
pub mod froxel;
