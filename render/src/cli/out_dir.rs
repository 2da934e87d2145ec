//! The output folders of `render` and `bench`, checked before the GPU starts: each folder exists
//! or is made, is a folder, can be written, and holds every file name the run will write (the
//! longest is tried on the file system itself); no output file's name is taken by a folder.
//!
//! A folder holds one run's outputs of a scene: files named like the scene's outputs (a
//! [`Family`]) that this run does not write are removed before it starts, as are temporaries left
//! by a killed run ([`crate::atomic_file::stale_temporary`]). A symbolic link among them is
//! removed as a link; what it points to is never touched.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

use crate::atomic_file::{folder_of, stale_temporary, temp_path};

/// The names an output folder holds for one scene: which names belong to it.
pub type Family<'a> = &'a dyn Fn(&str) -> bool;

/// Checks (and makes) `folder` for the files `writes` and removes what of `family` it does not
/// write. Errors name the path and the operating system's reason.
pub fn prepare(folder: &Path, writes: &[String], family: Family<'_>) -> anyhow::Result<()> {
    make_folder(folder)?;
    let longest = writes.iter().max_by_key(|n| n.len());
    probe(folder, longest.map_or("", String::as_str))?;
    for name in writes {
        let path = folder.join(name);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            bail!("{}: a folder is where this output file goes", path.display());
        }
    }
    let writes: HashSet<&str> = writes.iter().map(String::as_str).collect();
    remove_stale(folder, |name| stale_temporary(name) || (family(name) && !writes.contains(name)))
}

/// Checks the folder of the single file `path` and that `path` can be written there.
pub fn prepare_file(path: &Path) -> anyhow::Result<()> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        bail!("{}: not a file name", path.display());
    };
    prepare(folder_of(path), &[name.to_owned()], &|_| false)
}

/// Makes `folder` (and its parents) unless it is one, refusing a path through something that is
/// not a folder with what it is instead.
pub fn make_folder(folder: &Path) -> anyhow::Result<()> {
    // The nearest part of the path that exists must be a folder (links followed).
    let mut part = Some(folder);
    while let Some(p) = part.filter(|p| !p.as_os_str().is_empty()) {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => break,
            Ok(m) => {
                bail!("output folder {}: {} is {}, not a folder", folder.display(), p.display(), kind(&m))
            }
            Err(_) if std::fs::symlink_metadata(p).is_ok() => {
                bail!("output folder {}: {} is a broken symbolic link", folder.display(), p.display())
            }
            Err(_) => part = p.parent(),
        }
    }
    std::fs::create_dir_all(folder)
        .with_context(|| format!("output folder {}: cannot be made", folder.display()))
}

/// Creates and removes a file in `folder` whose name is as long as `longest`: the folder can be
/// written and the name fits its file system.
fn probe(folder: &Path, longest: &str) -> anyhow::Result<()> {
    let path = temp_path(folder, longest.len());
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
        Ok(file) => {
            drop(file);
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))
        }
        Err(e) if e.raw_os_error() == Some(ENAMETOOLONG) => bail!(
            "{}: the name is {} bytes, longer than this file system allows: {e}",
            folder.join(longest).display(),
            longest.len()
        ),
        Err(e) => bail!("output folder {}: cannot write in it: {e}", folder.display()),
    }
}

/// `ENAMETOOLONG` on Linux.
const ENAMETOOLONG: i32 = 36;

/// Removes every file of `folder` whose name `stale` accepts (folders are left).
fn remove_stale(folder: &Path, stale: impl Fn(&str) -> bool) -> anyhow::Result<()> {
    let entries = std::fs::read_dir(folder).with_context(|| format!("listing {}", folder.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(&stale) {
            continue;
        }
        let path: PathBuf = entry.path();
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        std::fs::remove_file(&path)
            .with_context(|| format!("removing {}, an earlier run's output", path.display()))?;
    }
    Ok(())
}

/// What a path names, for messages ("a regular file").
fn kind(m: &std::fs::Metadata) -> &'static str {
    if m.is_file() {
        "a regular file"
    } else {
        crate::input::file_kind(m)
    }
}

/// Whether `rest` is a frame number as `render` writes them (four or more digits).
pub fn is_frame_number(rest: &str) -> bool {
    rest.len() >= 4 && rest.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("pf-out-dir-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("scratch folder");
        d
    }

    fn family(name: &str) -> bool {
        name.starts_with("s_") || name == "s.png"
    }

    #[test]
    fn a_regular_file_for_a_folder_is_refused_by_what_it_is() {
        let d = scratch("file");
        let f = d.join("afile.txt");
        std::fs::write(&f, "text").expect("file");
        let e = prepare(&f, &["s.png".into()], &family).expect_err("not a folder");
        assert!(e.to_string().contains("afile.txt is a regular file, not a folder"), "{e}");
        let e = prepare(&f.join("below"), &["s.png".into()], &family).expect_err("not a folder");
        assert!(e.to_string().contains("afile.txt is a regular file"), "{e}");
        assert_eq!(std::fs::read_to_string(&f).expect("read"), "text");
    }

    #[test]
    fn a_name_too_long_for_the_file_system_is_refused_with_its_length() {
        let d = scratch("long");
        let name = format!("{}_timings.json", "n".repeat(250));
        let e = prepare(&d, std::slice::from_ref(&name), &family).expect_err("too long");
        let text = e.to_string();
        assert!(text.contains(&name) && text.contains("263 bytes") && text.contains("too long"), "{text}");
        assert_eq!(std::fs::read_dir(&d).expect("list").count(), 0, "the probe is gone");
    }

    #[test]
    fn a_folder_where_an_output_goes_is_refused_and_stale_outputs_go() {
        let d = scratch("stale");
        std::fs::create_dir_all(d.join("s_camera.json")).expect("folder");
        let e = prepare(&d, &["s_camera.json".into()], &family).expect_err("a folder in the way");
        assert!(e.to_string().contains("s_camera.json: a folder is where"), "{e}");
        std::fs::remove_dir(d.join("s_camera.json")).expect("rm");
        let outside = d.join("outside.txt");
        std::fs::write(&outside, "keep").expect("outside");
        for name in ["s_0007.png", "other.png", "s_density.vol", ".pf-tmp-4194305-3"] {
            std::fs::write(d.join(name), "old").expect("old");
        }
        std::os::unix::fs::symlink(&outside, d.join("s_0009.png")).expect("link");
        prepare(&d, &["s_0007.png".into(), "s.png".into()], &family).expect("prepared");
        let mut left: Vec<String> = std::fs::read_dir(&d)
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into())
            .collect();
        left.sort();
        assert_eq!(left, ["other.png", "outside.txt", "s_0007.png"]);
        assert_eq!(std::fs::read_to_string(&outside).expect("read"), "keep");
    }

    #[test]
    fn frame_numbers_have_four_or_more_digits() {
        assert!(is_frame_number("0000") && is_frame_number("12345"));
        assert!(!is_frame_number("123") && !is_frame_number("00a0") && !is_frame_number("timings"));
    }
}
