//! Every output file the renderer writes (PNG, APNG, the density volume, JSON, generated scenes)
//! goes through [`AtomicFile`]: the bytes go to a new temporary file in the destination's folder,
//! are flushed to disk (`fsync`), and the temporary is renamed over the destination.
//!
//! - A symbolic link at the destination is replaced by the new file; its target is never opened
//!   or written (`rename(2)` replaces the link itself).
//! - A reader never sees a half-written file: the name holds the old file or the complete new one.
//! - A write that fails (or a writer dropped before [`AtomicFile::commit`]) removes its temporary
//!   and leaves the destination as it was.
//!
//! Temporaries are named [`TEMP_PREFIX`]`<pid>-<serial>`, short whatever the destination's name, so
//! a destination name that fits the file system always has a temporary that fits too; ones left
//! by a killed process are recognised by [`stale_temporary`].

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{RenderError, Result};

/// How the names of the temporaries begin (hidden files).
pub const TEMP_PREFIX: &str = ".pf-tmp-";

/// Tells temporaries of one process apart.
static SERIAL: AtomicU64 = AtomicU64::new(0);

/// A new file being written in place of `dest`; nothing changes at `dest` until
/// [`AtomicFile::commit`].
pub struct AtomicFile {
    dest: PathBuf,
    tmp: PathBuf,
    file: Option<BufWriter<File>>,
    renamed: bool,
}

/// The error for `path`, with the operating system's reason.
pub fn output_error(path: &Path, reason: impl std::fmt::Display) -> RenderError {
    RenderError::Output { path: path.display().to_string(), reason: reason.to_string() }
}

/// The folder holding `path` (`.` for a bare file name).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A fresh temporary name in `folder`, of at least `len` bytes (padded with `x`).
pub fn temp_path(folder: &Path, len: usize) -> PathBuf {
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
    let mut name = format!("{TEMP_PREFIX}{}-{serial}", std::process::id());
    while name.len() < len {
        name.push('x');
    }
    folder.join(name)
}

/// Whether `name` is a temporary of a process that has exited (checked in `/proc`; where
/// there is no `/proc`, none is taken as stale).
pub fn stale_temporary(name: &str) -> bool {
    let Some(pid) = name.strip_prefix(TEMP_PREFIX).and_then(|rest| rest.split('-').next()) else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else { return false };
    pid != std::process::id()
        && Path::new("/proc/self").exists()
        && !Path::new("/proc").join(pid.to_string()).exists()
}

impl AtomicFile {
    /// Starts a new file for `dest`, creating its folder when missing.
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        let folder = folder_of(dest);
        std::fs::create_dir_all(folder).map_err(|e| output_error(folder, e))?;
        let tmp = temp_path(folder, 0);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| output_error(dest, e))?;
        Ok(AtomicFile { dest: dest.to_owned(), tmp, file: Some(BufWriter::new(file)), renamed: false })
    }

    /// The destination.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// Flushes the file to disk and renames it over the destination (a link there is replaced).
    pub fn commit(mut self) -> Result<()> {
        let Some(writer) = self.file.take() else { crate::error::bug("an atomic file committed twice") };
        let file = writer.into_inner().map_err(|e| output_error(&self.dest, e.error()))?;
        file.sync_all().map_err(|e| output_error(&self.dest, e))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.dest).map_err(|e| output_error(&self.dest, e))?;
        self.renamed = true;
        // The rename is durable once the folder is; not every platform opens folders.
        if let Ok(d) = File::open(folder_of(&self.dest)) {
            let _ = d.sync_all();
        }
        Ok(())
    }

    fn writer(&mut self) -> &mut BufWriter<File> {
        match self.file.as_mut() {
            Some(w) => w,
            None => crate::error::bug("an atomic file written after its commit"),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Not committed (an error on the way, or a panic): the temporary is ours and useless.
        // After a commit the name is the destination's and nothing is removed.
        if !self.renamed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` as the new file `dest` ([`AtomicFile`]).
pub fn write_atomically(dest: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(dest)?;
    f.write_all(bytes).map_err(|e| output_error(dest, e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("pf-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch folder");
        d
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_link_at_the_destination_is_replaced_and_its_target_untouched() {
        let d = scratch("link");
        let outside = d.join("outside.txt");
        std::fs::write(&outside, "keep me").expect("target");
        let out = d.join("out");
        std::fs::create_dir_all(&out).expect("out");
        let dest = out.join("fog.png");
        std::os::unix::fs::symlink(&outside, &dest).expect("link");
        write_atomically(&dest, b"new").expect("written");
        assert_eq!(std::fs::read_to_string(&outside).expect("read"), "keep me");
        assert!(!std::fs::symlink_metadata(&dest).expect("meta").file_type().is_symlink());
        assert_eq!(std::fs::read(&dest).expect("read"), b"new");
        assert_eq!(names(&out), ["fog.png"], "no temporary left");
    }

    #[test]
    fn nothing_changes_at_the_destination_until_the_commit_and_a_dropped_file_leaves_nothing() {
        let d = scratch("commit");
        let dest = d.join("a.json");
        std::fs::write(&dest, "old").expect("old");
        let mut f = AtomicFile::create(&dest).expect("create");
        f.write_all(b"new, half").expect("write");
        f.flush().expect("flush");
        assert_eq!(std::fs::read_to_string(&dest).expect("read"), "old");
        drop(f);
        assert_eq!(std::fs::read_to_string(&dest).expect("read"), "old");
        assert_eq!(names(&d), ["a.json"]);
    }

    #[test]
    fn a_folder_at_the_destination_fails_naming_it_and_leaves_no_temporary() {
        let d = scratch("folder");
        let dest = d.join("x.vol");
        std::fs::create_dir_all(dest.join("inside")).expect("folder");
        let e = write_atomically(&dest, b"data").expect_err("a folder is in the way");
        assert!(e.to_string().contains("x.vol"), "{e}");
        assert_eq!(names(&d), ["x.vol"]);
        assert!(dest.join("inside").is_dir());
    }

    #[test]
    fn temporaries_of_dead_processes_are_stale_and_ours_are_not() {
        let ours = temp_path(Path::new("."), 0);
        let ours = ours.file_name().and_then(|n| n.to_str()).expect("name");
        assert!(!stale_temporary(ours));
        // Above the kernel's largest process id (2^22).
        assert!(stale_temporary(&format!("{TEMP_PREFIX}4194305-0")));
        assert!(!stale_temporary("fog.png") && !stale_temporary(&format!("{TEMP_PREFIX}abc-1")));
        assert_eq!(temp_path(Path::new("d"), 40).file_name().expect("name").len(), 40);
    }
}
