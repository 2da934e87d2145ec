//! `fog`: the CPU side of particle fog: which legacy particle systems become volumetric fog, and
//! by how much.
//!
//! - [`classify`](mod@classify): per-system measures, soft score, hard exclusions, explanations, and the
//!   [`Classifier`] that adds hysteresis and smooth cross-fades on top of the pure [`classify()`].
//! - [`report`]: the `particle-fog classify` report (JSON value and text table) for creators.
//! - [`froxel`]: the CPU twin of the froxel fog (slices, energy-conserving integration, lookup).
//! - [`bricks`]: the density bricks' levels, clip windows and the level each kernel goes to.
//! - [`kernel`]: a carrier's mass and kernel (width law, cell weights, fixed point).
//! - [`splat`]: the CPU twin of the GPU brick splat.
//! - [`density`]: the field as the march samples it, its export grid and Mitsuba `.vol` writer.
//! - [`overrides_file`]: the per-object overrides file beside settings.xml (LLSD, foreign entries kept).
//! - [`march`]: the CPU twin of the brick march (transmittance, in-scatter, the cloud span).
#![forbid(unsafe_code)]

pub mod bricks;
pub mod classify;
pub mod density;
mod error;
pub mod froxel;
pub mod kernel;
pub mod march;
pub mod overrides_file;
pub mod report;
pub mod splat;

pub use classify::{
    classify, Assessment, Classifier, Exclusion, ExclusionSet, Explanation, Factors, Measures, Override,
    SystemContext, SystemKey, TextureVerdict, Verdict,
};
pub use error::FogError;
