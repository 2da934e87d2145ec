//! One folder per pass, its GLSL beside its Rust.

pub mod fill;
