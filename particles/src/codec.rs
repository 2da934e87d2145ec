//! The PSYS block wire format (`ObjectUpdate.PSBlock`; viewer: `llpartdata.cpp`, `lldatapacker.cpp`).
//!
//! [`decode`] matches the viewer (`LLPartSysData::isNullPS` + `unpackBlock`, `llpartdata.cpp`
//! 243-397) on every well-formed block, value for value and bit for bit: legacy blocks of exactly
//! 86 bytes, extended blocks of 94..=98 bytes with their two size fields and optional glow and
//! blend tails. Where the viewer is lenient, undefined or hangs (found by compiling its decoder and
//! running it on malformed blocks) it returns [`Decoded::Rejected`] with a reason instead; it never
//! reads past the end and never panics.
//!
//! [`encode`] writes what a simulator sends: the legacy layout when glow is zero and blend is the
//! default pair, otherwise the extended layout with only the tails needed. See [`fixed`] for the
//! quantisation and its one deliberate departure from LL's packer (clamping instead of wrapping),
//! and [`check`] for what encoding would change or must refuse (a hand-written descriptor).
//!
//! Layouts (little-endian throughout):
//!
//! ```text
//! legacy   (86): system data (68) | particle fixed part (18)
//! extended (94..=98): S32 68 | system data (68) | S32 particle size | particle fixed part (18)
//!                     | [glow start, end: U8 U8 if DATA_GLOW] | [blend src, dst: U8 U8 if DATA_BLEND]
//! ```

pub mod check;
mod decode;
mod encode;
pub mod fixed;
mod hex;

pub use check::{check, Refusal};
pub use decode::decode;
pub use encode::encode;
pub use hex::{parse_hex, to_hex, HexError};

use crate::types::PartSysData;

/// Size of the system data, and the only system-size field value an extended block may carry.
pub const SYS_DATA_SIZE: usize = 68;
/// Size of the particle data's fixed part (flags, max age, colours, scales).
pub const PART_FIXED_SIZE: usize = 18;
/// Size of the optional glow tail (start, end).
pub const GLOW_TAIL_SIZE: usize = 2;
/// Size of the optional blend tail (source, destination).
pub const BLEND_TAIL_SIZE: usize = 2;
/// Size of an S32 size field of the extended layout.
pub const SIZE_FIELD_SIZE: usize = 4;
/// The one length that selects the legacy layout.
pub const LEGACY_BLOCK_SIZE: usize = SYS_DATA_SIZE + PART_FIXED_SIZE;
/// The shortest well-formed extended block (no tails).
pub const EXTENDED_MIN_SIZE: usize = 2 * SIZE_FIELD_SIZE + SYS_DATA_SIZE + PART_FIXED_SIZE;
/// The longest block the viewer decodes; anything longer is "no system".
pub const MAX_BLOCK_SIZE: usize = EXTENDED_MIN_SIZE + GLOW_TAIL_SIZE + BLEND_TAIL_SIZE;
/// Burst rates below this many seconds decode as this value (the viewer's floor, both layouts).
pub const BURST_RATE_FLOOR_S: f32 = 0.01;

/// What a PSYS block means to the viewer.
#[derive(Clone, Debug, PartialEq)]
pub enum Decoded {
    /// A particle system, decoded exactly as the viewer decodes it.
    System(PartSysData),
    /// The viewer's "null" system: no source is created and an existing one is killed.
    NoSystem(NoSystemReason),
    /// Malformed: the viewer would fail, guess or hang; we show nothing.
    Rejected(RejectReason),
}

impl Decoded {
    /// The system, if the block decoded to one.
    pub fn system(&self) -> Option<&PartSysData> {
        match self {
            Decoded::System(sys) => Some(sys),
            Decoded::NoSystem(_) | Decoded::Rejected(_) => None,
        }
    }
}

/// Why a block means "no particle system" (the viewer's `LLPartSysData::isNullPS`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoSystemReason {
    /// Zero-length block: how `llParticleSystem([])` switches a system off.
    #[error("empty block: no particle system")]
    Empty,
    /// Longer than any layout the viewer knows.
    #[error("block of {len} bytes is longer than the {MAX_BLOCK_SIZE}-byte maximum: a newer format the viewer ignores")]
    TooLong {
        /// Block length in bytes.
        len: usize,
    },
    /// The system-size word of a block of 87..=98 bytes announces a larger, unknown system layout.
    #[error("system-data size field (offset 0) is {size}, above {SYS_DATA_SIZE}: an unknown newer layout the viewer ignores")]
    UnknownSystemSize {
        /// The S32 read at offset 0.
        size: i32,
    },
    /// The CRC word is zero.
    #[error("CRC word (offset {offset}) is 0: no particle system")]
    CrcZero {
        /// Where the CRC was read: 0 (legacy) or 4 (extended).
        offset: usize,
    },
}

/// Why a block was rejected: each case names the offending field, offset or length.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RejectReason {
    /// 1..=85 bytes: neither the legacy length nor long enough for any extended block.
    #[error("block of {len} bytes is too short: not the {LEGACY_BLOCK_SIZE}-byte legacy length, and an extended block needs {EXTENDED_MIN_SIZE}..={MAX_BLOCK_SIZE} bytes")]
    TooShort {
        /// Block length in bytes.
        len: usize,
    },
    /// An extended block whose system-size field is not 68.
    #[error("system-data size field (offset 0) is {size}, expected {SYS_DATA_SIZE}")]
    SystemSize {
        /// The S32 read at offset 0.
        size: i32,
    },
    /// A field runs past the end of the block.
    #[error(
        "truncated: {field} (offset {offset}, {width} byte(s)) runs past the end of the {len}-byte block"
    )]
    Truncated {
        /// The field that could not be read.
        field: &'static str,
        /// Its offset in the block.
        offset: usize,
        /// Its width in bytes.
        width: usize,
        /// Block length in bytes.
        len: usize,
    },
    /// The particle-size field is smaller than the fixed part.
    #[error("particle-data size field (offset 72) is {size}, below the {PART_FIXED_SIZE}-byte fixed part")]
    ParticleSizeTooSmall {
        /// The S32 read at offset 72.
        size: i32,
    },
    /// A tail flag is set but the particle size leaves no room for that tail.
    #[error("particle flags {flags:#x} announce the {tail} pair (flag {flag:#x}) but particle-data size {size} leaves no room for it")]
    MissingTail {
        /// "glow" or "blend".
        tail: &'static str,
        /// The announcing flag bit.
        flag: u32,
        /// The particle flags word.
        flags: u32,
        /// The particle-size field.
        size: i32,
    },
    /// The particle size declares bytes that neither the fixed part nor a flagged tail explains.
    #[error("particle-data size {size} declares {extra} byte(s) beyond the fixed part and the tails the flags {flags:#x} announce: unknown parameters")]
    UnknownParticleBytes {
        /// The particle-size field.
        size: i32,
        /// The unexplained byte count.
        extra: usize,
        /// The particle flags word.
        flags: u32,
    },
    /// Bytes follow the declared particle data.
    #[error("{extra} unexpected byte(s) after the particle data, which ends at offset {end} of the {len}-byte block")]
    TrailingBytes {
        /// How many bytes follow.
        extra: usize,
        /// Where the declared data ends.
        end: usize,
        /// Block length in bytes.
        len: usize,
    },
}
