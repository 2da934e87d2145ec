//! Reading a settings file with bounds: only a regular file, at most [`MAX_FILE_BYTES`].
//!
//! A path given by a user may name a device (`/dev/zero` never ends), a named pipe (opening it
//! blocks until a writer comes) or a directory. Its metadata is checked before it is opened, the
//! opened file is checked again (it may have been replaced in between), and the read stops one byte
//! past the cap, so neither time nor memory depends on what the path turns out to be.

use std::io::Read;
use std::path::Path;

use crate::SettingsError;

/// The largest settings file read, in bytes (16 MiB). The viewer's own defaults file
/// (`app_settings/settings.xml`, about 1,500 keys) is under 1 MiB; 40,000 foreign keys take 6 MB.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

const BYTES_PER_MIB: u64 = 1024 * 1024;

/// The text of the settings file at `path` (links followed), or why it cannot be one.
pub(crate) fn read_settings_text(path: &Path) -> Result<String, SettingsError> {
    let io_err = |source| SettingsError::Io { path: path.to_owned(), source };
    let meta = std::fs::metadata(path).map_err(io_err)?;
    check_regular(path, &meta)?;
    check_size(path, meta.len())?;
    let file = std::fs::File::open(path).map_err(io_err)?;
    check_regular(path, &file.metadata().map_err(io_err)?)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(io_err)?;
    check_size(path, bytes.len() as u64)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let message = format!("not valid UTF-8 text (at byte {at})");
        io_err(std::io::Error::new(std::io::ErrorKind::InvalidData, message))
    })
}

fn check_regular(path: &Path, meta: &std::fs::Metadata) -> Result<(), SettingsError> {
    if meta.is_file() {
        return Ok(());
    }
    Err(SettingsError::NotAFile { path: path.to_owned(), kind: kind_of(&meta.file_type()) })
}

fn check_size(path: &Path, size: u64) -> Result<(), SettingsError> {
    if size <= MAX_FILE_BYTES {
        return Ok(());
    }
    Err(SettingsError::TooLarge { path: path.to_owned(), size, limit_mib: MAX_FILE_BYTES / BYTES_PER_MIB })
}

/// What a non-regular file is, for the message.
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_fifo() {
            return "a named pipe";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}
