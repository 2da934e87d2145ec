//! The fog's GPU resources, made from plain inputs (no scene types): the froxel fog's volumes and
//! constants ([`froxel`]). The particle fog's bricks live in [`crate::particle_fog::pool`]; the
//! frame layer ([`crate::frame::fog`]) owns both, with the fog passes, and turns the scene into
//! these inputs.

pub mod froxel;
