//! Bounded reads of text files from outside (scenes, descriptors, scripts).
//!
//! A path may name `/dev/zero`, a FIFO or a directory, and a regular file may be huge or still
//! growing. [`read_text`] refuses anything but a regular file (or standard input, where asked),
//! checks the size before reading, and reads at most one byte past the cap, so memory and time stay
//! bounded whatever the path names.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest scene file read, bytes (the showcase scenes are a few KiB; procedural heightfields are
/// generated, not stored).
pub const MAX_SCENE_BYTES: u64 = 4 * 1024 * 1024;
/// Largest descriptor JSON read by `psys encode`, bytes (one descriptor is under 1 KiB).
pub const MAX_DESCRIPTOR_BYTES: u64 = 64 * 1024;
/// Largest LSL script read by `classify --lsl`, bytes (a script's compiled form is capped at
/// 64 KiB in Second Life; source text is allowed 4x that for comments and whitespace).
pub const MAX_SCRIPT_BYTES: u64 = particles::lsl::MAX_SCRIPT_BYTES as u64;

/// Why a file's text could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The path exists but names a directory, device, FIFO or socket.
    #[error("{}: not a regular file ({kind})", .path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it names instead.
        kind: &'static str,
    },
    /// The file (or standard input) holds more than the cap.
    #[error("{}: larger than the {max}-byte limit for {what}", .path.display())]
    TooLarge {
        /// The path given (`-` for standard input).
        path: PathBuf,
        /// What the file was read as ("a scene file").
        what: &'static str,
        /// The cap, bytes.
        max: u64,
    },
    /// The operating system's error (missing file, no permission ...), said once.
    #[error("{}: {reason}", .path.display())]
    Io {
        /// The path given.
        path: PathBuf,
        /// The operating system's reason (not a `#[source]`: the message already says it, and
        /// error chains would say it twice).
        reason: std::io::Error,
    },
    /// The bytes are not UTF-8 text.
    #[error("{}: not UTF-8 text (byte {offset})", .path.display())]
    NotUtf8 {
        /// The path given.
        path: PathBuf,
        /// Offset of the first invalid byte.
        offset: usize,
    },
}

/// Reads the UTF-8 text of the regular file at `path`, refusing more than `max` bytes; `what` names
/// the file's role in the size message ("a scene file").
pub fn read_text(path: &Path, max: u64, what: &'static str) -> Result<String, InputError> {
    let io = |reason| InputError::Io { path: path.to_path_buf(), reason };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(InputError::NotAFile { path: path.to_path_buf(), kind: file_kind(&meta) });
    }
    let too_large = || InputError::TooLarge { path: path.to_path_buf(), what, max };
    if meta.len() > max {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let bytes = read_capped(file, max).map_err(io)?.ok_or_else(too_large)?;
    utf8(bytes, path)
}

/// Reads standard input's UTF-8 text, refusing more than `max` bytes.
pub fn read_stdin_text(max: u64, what: &'static str) -> Result<String, InputError> {
    let path = PathBuf::from("-");
    let bytes = read_capped(std::io::stdin().lock(), max)
        .map_err(|reason| InputError::Io { path: path.clone(), reason })?
        .ok_or_else(|| InputError::TooLarge { path: path.clone(), what, max })?;
    utf8(bytes, &path)
}

/// At most `max` bytes of `reader`, or `None` when there are more.
fn read_capped(reader: impl Read, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    reader.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

fn utf8(bytes: Vec<u8>, path: &Path) -> Result<String, InputError> {
    String::from_utf8(bytes)
        .map_err(|e| InputError::NotUtf8 { path: path.to_path_buf(), offset: e.utf8_error().valid_up_to() })
}

pub(crate) fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_fifo() {
        "a pipe"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_directories_are_refused_before_reading() {
        let e = read_text(Path::new("/dev/zero"), 16, "a test file").expect_err("device");
        assert_eq!(e.to_string(), "/dev/zero: not a regular file (a device)");
        let e = read_text(Path::new("/"), 16, "a test file").expect_err("directory");
        assert!(matches!(e, InputError::NotAFile { kind: "a directory", .. }), "{e}");
    }

    #[test]
    fn a_file_over_the_cap_is_refused_and_one_at_the_cap_is_read() {
        let path = std::env::temp_dir().join(format!("pf-input-{}.txt", std::process::id()));
        std::fs::write(&path, "12345678").expect("write");
        assert_eq!(read_text(&path, 8, "a test file").expect("at the cap"), "12345678");
        let e = read_text(&path, 7, "a test file").expect_err("over");
        assert!(e.to_string().ends_with("larger than the 7-byte limit for a test file"), "{e}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_missing_file_says_the_os_reason_once() {
        let e = read_text(Path::new("/nonexistent/scene.toml"), 16, "a test file").expect_err("missing");
        let text = format!("{:#}", anyhow::Error::from(e));
        assert_eq!(text.matches("No such file").count(), 1, "{text}");
    }
}
