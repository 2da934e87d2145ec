//! The crate's one error type.

/// What can go wrong in the `fog` crate: bad input from outside, never a programmer bug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FogError {
    /// An `--unknown-texture` policy that is not one of `unknown`, `soft`, `shaped`.
    #[error("unknown texture policy {0:?} (want unknown, soft or shaped)")]
    UnknownTexturePolicy(String),
    /// An LSL script that does not parse.
    #[error("{label}: {error}")]
    Lsl {
        /// The script's label (its file name).
        label: String,
        /// Where and why it does not parse.
        error: particles::lsl::LslError,
    },
    /// Hex text that is not a byte string.
    #[error("{label}: {error}")]
    Hex {
        /// The block's label.
        label: String,
        /// Why the text is not hex.
        error: particles::codec::HexError,
    },
    /// A PSYS block that does not decode to a particle system (null or rejected).
    #[error("{label}: not a particle system: {reason}")]
    NotASystem {
        /// The block's label.
        label: String,
        /// The decoder's reason.
        reason: String,
    },
    /// A per-object override (or its key) that does not read.
    #[error("override {text:?}: {reason}")]
    BadOverride {
        /// The text as given.
        text: String,
        /// What was wrong.
        reason: String,
    },
    /// The overrides file cannot be read, is not an overrides file, or cannot be written.
    #[error("{0}")]
    OverridesFile(String),
}
