//! The C ABI as a dynamic library that `cargo test` builds (it builds every example, not the
//! package's own `cdylib`): the C foreign host's test links against it. Release builds of the
//! library itself are `cargo build --release -p particle-fog-capi` (`libparticle_fog.so`, `.a`).

pub use particle_fog::*;
