//! Writing `settings.xml` so that nothing of the user's is lost: atomically, through symbolic links,
//! with the file's mode kept, and without leaving temporary files behind.
//!
//! * **Atomic**: the new text goes to a temporary file in the target's directory, is fsynced, and is
//!   renamed over the target; the directory is then fsynced so the rename is durable. A crash at any
//!   point leaves the old file or the new one.
//! * **Links**: a settings file that is a symbolic link (dotfile managers do this) is written through
//!   to its final target (relative links resolved against the link's directory, at most
//!   [`MAX_LINKS`] hops, as Linux's `MAXSYMLINKS`); renaming over the link would replace it by a
//!   regular file and leave the target stale.
//! * **Mode**: the temporary file gets the target's permissions before the rename (a 600 file stays
//!   600, a 444 one stays 444). A new file gets the default mode (0666 less the umask).
//! * **Temporaries**: named `.<name>.tmp<pid>-<n>`. A save killed before its rename leaves one; each
//!   save removes those of its own naming whose process is gone (Linux `/proc`) or that are older
//!   than [`STALE_AFTER`], and nothing else.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::SettingsError;

/// The most symbolic links followed from the given path to the file written.
pub const MAX_LINKS: usize = 40;
/// Age after which a temporary file of our naming is stale even if a process with its id runs
/// (process ids are reused); a save takes milliseconds.
pub const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Temporary files made by this process so far, for unique names.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to the file `path` names (through links), atomically, keeping its mode.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), SettingsError> {
    let target = resolve_links(path)?;
    let dir = parent_dir(&target);
    let file_name =
        target.file_name().map_or_else(|| "settings.xml".into(), |n| n.to_string_lossy().into_owned());
    remove_stale_temporaries(&dir, &file_name);
    let permissions = std::fs::metadata(&target).ok().filter(|m| m.is_file()).map(|m| m.permissions());
    let serial = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{file_name}.tmp{}-{serial}", std::process::id()));
    let result = write_temporary(&tmp, bytes, permissions)
        .and_then(|()| std::fs::rename(&tmp, &target).map_err(|source| io_error(&target, source)));
    if result.is_err() {
        // Best effort: the temporary file is ours and useless now; the real error is reported.
        let _ = std::fs::remove_file(&tmp);
        return result;
    }
    // Directory fsync makes the rename durable on POSIX; not all platforms can open a directory.
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn io_error(path: &Path, source: std::io::Error) -> SettingsError {
    SettingsError::Io { path: path.to_owned(), source }
}

/// Creates `tmp` (a leftover of the same name is from a dead process of the same id and goes),
/// gives it `permissions`, writes and fsyncs `bytes`.
fn write_temporary(
    tmp: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> Result<(), SettingsError> {
    let create = || std::fs::OpenOptions::new().write(true).create_new(true).open(tmp);
    let mut f = match create() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(tmp).map_err(|source| io_error(tmp, source))?;
            create()
        }
        other => other,
    }
    .map_err(|source| io_error(tmp, source))?;
    if let Some(permissions) = permissions {
        // On the open handle: a read-only mode does not stop the write that follows.
        f.set_permissions(permissions).map_err(|source| io_error(tmp, source))?;
    }
    f.write_all(bytes).map_err(|source| io_error(tmp, source))?;
    f.sync_all().map_err(|source| io_error(tmp, source))
}

/// The file `path` finally names: symbolic links followed (a dangling one to where it points).
fn resolve_links(path: &Path) -> Result<PathBuf, SettingsError> {
    let mut current = path.to_owned();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current).map_err(|source| io_error(&current, source))?;
                current = if link.is_absolute() { link } else { parent_dir(&current).join(link) };
            }
            // A file, a new name, or an error the write itself will report with its path.
            _ => return Ok(current),
        }
    }
    let message = format!("more than {MAX_LINKS} levels of symbolic links");
    Err(io_error(path, std::io::Error::new(std::io::ErrorKind::InvalidInput, message)))
}

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Removes regular files in `dir` named like our temporaries for `file_name` that are stale.
/// Best effort: a directory that cannot be listed or a file that cannot be removed is left.
fn remove_stale_temporaries(dir: &Path, file_name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| temporary_pid(n, file_name)) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        let age = meta.modified().ok().and_then(|m| m.elapsed().ok()).unwrap_or_default();
        let gone = pid != std::process::id() && !process_runs(pid);
        if meta.is_file() && (gone || age > STALE_AFTER) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The process id in `name` when it is one of our temporaries for `file_name`:
/// `.<file_name>.tmp<pid>` (older saves) or `.<file_name>.tmp<pid>-<n>`.
fn temporary_pid(name: &str, file_name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_prefix(file_name)?.strip_prefix(".tmp")?;
    let (pid, serial) = rest.split_once('-').unwrap_or((rest, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(serial)).then(|| pid.parse().ok()).flatten()
}

/// Whether a process with id `pid` runs; `true` where that cannot be told (no `/proc`).
fn process_runs(pid: u32) -> bool {
    let proc_fs = Path::new("/proc");
    !proc_fs.join("self").exists() || proc_fs.join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_our_naming_is_taken_for_a_temporary() {
        assert_eq!(temporary_pid(".settings.xml.tmp123", "settings.xml"), Some(123));
        assert_eq!(temporary_pid(".settings.xml.tmp123-4", "settings.xml"), Some(123));
        for other in [".settings.xml.tmp", ".settings.xml.tmp12a", ".settings.xml.tmp1-", "settings.xml.tmp1"]
        {
            assert_eq!(temporary_pid(other, "settings.xml"), None, "{other}");
        }
        assert_eq!(temporary_pid(".other.xml.tmp5", "settings.xml"), None);
    }

    #[test]
    fn this_process_runs() {
        assert!(process_runs(std::process::id()));
    }
}
