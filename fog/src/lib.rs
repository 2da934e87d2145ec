//! `fog`: the CPU side of particle fog: which legacy particle systems become volumetric fog, and
//! by how much.
//!
//! - [`classify`](mod@classify): per-system measures, soft score, hard exclusions, explanations, and the
//!   [`Classifier`] that adds hysteresis and smooth cross-fades on top of the pure [`classify()`].
//! - [`report`]: the `particle-fog classify` report (JSON value and text table) for creators.
//! - [`froxel`]: the CPU twin of the froxel fog (slices, energy-conserving integration, lookup).
//!
//! Brick-pool bookkeeping, kernel and noise maths live in later modules beside these.
//! Facts about particle systems: `../shared/reference/sl-particles.md`.
#![forbid(unsafe_code)]

pub mod classify;
mod error;
pub mod froxel;
pub mod report;

pub use classify::{
    classify, Assessment, Classifier, Exclusion, ExclusionSet, Explanation, Factors, Measures, SystemContext,
    TextureVerdict, Verdict,
};
pub use error::FogError;
