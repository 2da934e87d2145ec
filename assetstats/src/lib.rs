//! # assetstats: texture statistics for particle textures, and their cache
//!
//! Whether a particle system can become fog depends on its texture: a soft, low-frequency blob or
//! cloud puff can; a star, heart, ring, spark, text or hard disc cannot (the design discussion,
//! seed 004: "texture is soft and low-frequency ... a precomputed per-texture stat: mean alpha,
//! alpha gradient energy, colour variance ... or the default particle texture with a large size").
//! This crate computes those statistics once per texture ([`TextureStats`]), gives a `softness` in
//! [0, 1] and a [`Shape`] verdict with human-readable reasons, and caches them by texture and
//! content hash ([`StatsCache`]). Pure CPU, no other crate of the workspace.
//!
//! ## The statistics, in brief
//!
//! One pass over the RGBA8 pixels gives the exact full-resolution numbers (mean alpha, coverage,
//! alpha-weighted mean colour and colour variance) and a 64 x 64 box-filtered alpha grid. Shape
//! numbers come from the grid: mean squared alpha gradient per unit texture width (edge energy),
//! the radial alpha profile and what it says (rim, ring, sparkle), and the alpha along the border.
//! Measuring shape on a fixed grid makes it resolution-independent: a 64 x 64 and a 256 x 256
//! rendering of the same shape get the same verdict and nearly the same numbers. Formulas are in
//! the docs of [`TextureStats`]' fields and of the source modules `stats`, `scan`, `profile` and
//! `verdict`; the thresholds are the `*_MAX` / `*_MIN` constants.
//!
//! Limits of that choice: detail finer than 1/64 of the texture is averaged away before the shape
//! numbers see it (per-pixel grain on a 1024 x 1024 texture reads as a smooth grey; mipmapping
//! does much the same to it on a distant billboard), and a texture smaller than 64 pixels is
//! upsampled by nearest neighbour, so hard edges keep their full score but smooth ramps become
//! steps and score `64 / size` times higher (a Gaussian blob about 4 pi at 16 x 16, still soft;
//! verdicts of the test shapes hold from 8 x 8 up).
//!
//! ## Inputs
//!
//! PNG, TGA and JPEG files through the `image` crate ([`load_rgba`], [`stats_for_file`]).
//! **JPEG 2000, the viewer's asset format, is out of scope**: it is recognised and refused with
//! [`AssetError::UnsupportedFormat`]; textures must be exported (e.g. to PNG or TGA) first.
//! Files are untrusted: size over [`MAX_FILE_BYTES`], dimensions over [`MAX_DIMENSION`] on a side
//! (checked from the header before decoding, and again by the decoder's limits), zero size,
//! truncated or corrupt data are errors naming the file, never panics.
//!
//! Grey and RGB images are converted with alpha 255 everywhere. Such a texture is a valid input and
//! is measured like any other, and it comes out **shaped**: a particle drawn with it is an opaque
//! square billboard, whose square outline and flat fill are exactly what fog must not look like
//! (the `border_alpha` and opaque-coverage checks fail). Guessing a mask from luminance was
//! rejected: the viewer draws these textures as opaque cards, and the verdict must describe what
//! the viewer shows.
//!
//! ## The default particle texture
//!
//! A null texture UUID means the viewer's built-in sparkle texture. [`default_particle_texture`]
//! draws a look-alike; [`default_texture_stats`] returns its shipped statistics, with
//! `is_default` set, and [`TextureKey::uuid`] maps the null UUID to
//! [`TextureKey::DefaultParticle`]. Its verdict is shaped (a sparkle); see the module docs of
//! `default_texture` for why, and for how the classifier is expected to use `is_default`.
#![forbid(unsafe_code)]

mod cache;
mod default_texture;
mod error;
mod load;
mod profile;
mod report;
mod scan;
mod shape;
mod stats;
mod tga;
mod verdict;

pub use cache::{StatsCache, TextureKey};
pub use default_texture::{default_particle_texture, default_texture_stats, DEFAULT_TEXTURE_SIZE};
pub use error::AssetError;
pub use load::{decode_rgba, load_rgba, read_texture_bytes, MAX_DIMENSION, MAX_FILE_BYTES};
pub use profile::RADIAL_BINS;
pub use report::{texstats, texstats_json, texstats_table, Texstats};
pub use scan::GRID;
pub use shape::{ANGULAR_SECTORS, OPENING_RADIUS};
pub use stats::{stats_for_file, Shape, TextureStats, COVERAGE_THRESHOLDS, STATS_VERSION};
pub use verdict::{
    ANGULAR_VARIATION_MAX, ANISOTROPY_MAX, BORDER_ALPHA_MAX, CHROMA_VARIANCE_MAX, COLOR_VARIANCE_MAX,
    CORE_HALO_RATIO_MIN, EDGE_ENERGY_MAX, MEAN_ALPHA_MIN, OPAQUE_COVERAGE_MAX, PROFILE_DROP_MAX,
    PROFILE_RISE_MAX, THIN_FRACTION_MAX,
};
