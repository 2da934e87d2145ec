//! The crate's one error type.

/// What can go wrong in the `fog` crate: bad input from outside, never a programmer bug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FogError {
    /// An `--unknown-texture` policy that is not one of `unknown`, `soft`, `shaped`.
    #[error("unknown texture policy {0:?} (want unknown, soft or shaped)")]
    UnknownTexturePolicy(String),
}
