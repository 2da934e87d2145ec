//! The crate's one error type: why a texture could not be read, decoded or measured, or why the
//! cache could not be written. Every variant names the file it is about.

use std::path::PathBuf;

/// Why a texture's statistics could not be produced (or the cache could not be saved).
///
/// Bad input from outside (a truncated download, a renamed file, a hostile header) is always one of
/// these values, never a panic.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// The file could not be read (or the cache file could not be written).
    #[error("{}: cannot read or write the file: {reason}", .file.display())]
    Io {
        /// The file concerned.
        file: PathBuf,
        /// The operating system's reason (said in the message, so not a `#[source]`: error
        /// chains would print it twice).
        reason: std::io::Error,
    },
    /// The path names a directory, device, pipe or socket.
    #[error("{}: not a regular file", .file.display())]
    NotAFile {
        /// The path concerned.
        file: PathBuf,
    },
    /// The file is larger than any acceptable texture could be.
    #[error("{}: file is {bytes} bytes, over the {max}-byte limit for a texture", .file.display())]
    FileTooLarge {
        /// The file concerned.
        file: PathBuf,
        /// Its size in bytes.
        bytes: u64,
        /// The limit in bytes ([`crate::MAX_FILE_BYTES`]).
        max: u64,
    },
    /// Not PNG, TGA or JPEG (JPEG 2000, the viewer's own asset format, is deliberately not read).
    #[error(
        "{}: unsupported image format ({format}); PNG, TGA and JPEG are read, JPEG 2000 is not",
        .file.display()
    )]
    UnsupportedFormat {
        /// The file concerned.
        file: PathBuf,
        /// What the data looked like.
        format: String,
    },
    /// The header claims dimensions over [`crate::MAX_DIMENSION`] on a side.
    #[error("{}: image is {width}x{height}, over the {max}x{max} limit", .file.display())]
    TooLarge {
        /// The file concerned.
        file: PathBuf,
        /// Width the header claims, in pixels.
        width: u32,
        /// Height the header claims, in pixels.
        height: u32,
        /// The limit on each side, in pixels.
        max: u32,
    },
    /// The image has no pixels.
    #[error("{}: image has zero size ({width}x{height})", .file.display())]
    ZeroSize {
        /// The file concerned.
        file: PathBuf,
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// The data is truncated or corrupt (the decoder's reason is kept).
    #[error("{}: corrupt or truncated image data: {reason}", .file.display())]
    Decode {
        /// The file concerned.
        file: PathBuf,
        /// The decoder's message.
        reason: String,
    },
    /// The cache could not be serialised.
    #[error("{}: cannot serialise the statistics cache: {reason}", .file.display())]
    CacheFormat {
        /// The cache file concerned.
        file: PathBuf,
        /// The serialiser's message.
        reason: String,
    },
}
