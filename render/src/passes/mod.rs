//! One folder per pass, its GLSL beside its Rust.

pub mod billboards;
pub mod brick_alloc;
pub mod brick_bounds;
pub mod brick_composite;
pub mod brick_march;
pub mod brick_splat;
pub mod embed_carriers;
pub mod embed_depth;
pub mod fill;
pub mod fog_apply;
pub mod fog_reference;
pub mod froxel_inject;
pub mod froxel_integrate;
pub mod froxel_temporal;
pub mod glow;
pub mod opaque;
#[cfg(feature = "viewer")]
pub mod panel;
pub mod particle_batch;
pub mod particle_ribbons;
pub mod particle_sim;
pub mod particle_sort;
pub mod shadow;
pub mod tonemap;
