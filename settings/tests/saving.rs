//! How a save treats the file system: through symbolic links to their target, the file's mode kept,
//! stale temporary files of our own naming removed (and nothing else).
#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, SystemTime};

use common::{realistic_file, ScratchDir};
use settings::{SaveMode, SettingsFile};

fn set_and_save(path: &std::path::Path) {
    let mut file = SettingsFile::load(path).expect("loads");
    file.settings.set_text("RenderVKParticleFogStrength", "3").expect("valid");
    file.save(SaveMode::Normal).expect("saves");
}

fn strength(path: &std::path::Path) -> f32 {
    SettingsFile::load(path).expect("reloads").settings.particle_fog_strength
}

#[test]
fn a_symlinked_file_is_written_through_the_link() {
    let dir = ScratchDir::new("symlink");
    std::fs::create_dir(dir.join("real")).expect("mkdir");
    let target = dir.join("real/settings.xml");
    std::fs::write(&target, realistic_file()).expect("write");
    let link = dir.join("settings.xml");
    std::os::unix::fs::symlink("real/settings.xml", &link).expect("relative link");
    let chained = dir.join("chained.xml");
    std::os::unix::fs::symlink(&link, &chained).expect("link to a link");

    set_and_save(&chained);
    for path in [&link, &chained] {
        let meta = std::fs::symlink_metadata(path).expect("stat");
        assert!(meta.file_type().is_symlink(), "{} is still a link", path.display());
    }
    assert_eq!(strength(&target), 3.0, "the target was updated");
    let names: Vec<_> = std::fs::read_dir(dir.join("real")).expect("list").collect();
    assert_eq!(names.len(), 1, "no temporary left beside the target");
}

#[test]
fn the_files_mode_is_kept() {
    let dir = ScratchDir::new("mode");
    for mode in [0o600, 0o444, 0o640] {
        let path = dir.join(&format!("settings-{mode:o}.xml"));
        std::fs::write(&path, realistic_file()).expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        set_and_save(&path);
        let kept = std::fs::metadata(&path).expect("stat").permissions().mode() & 0o7777;
        assert_eq!(kept, mode, "mode {mode:o} became {kept:o}");
        assert_eq!(strength(&path), 3.0);
    }
}

#[test]
fn stale_temporaries_of_our_naming_are_removed_and_nothing_else() {
    let dir = ScratchDir::new("stale");
    let path = dir.join("settings.xml");
    std::fs::write(&path, realistic_file()).expect("write");
    let day_ago = SystemTime::now() - Duration::from_secs(24 * 3600);
    let ours = [".settings.xml.tmp12345", ".settings.xml.tmp4000000-7"];
    let others = [".settings.xml.tmpnotes", "settings.xml.tmp1", ".other.xml.tmp12", "settings.xml.bak"];
    for name in ours.iter().chain(&others) {
        let f = std::fs::File::create(dir.join(name)).expect("create");
        f.set_modified(day_ago).expect("age it");
    }
    set_and_save(&path);
    for name in ours {
        assert!(!dir.join(name).exists(), "stale {name} left behind");
    }
    for name in others {
        assert!(dir.join(name).exists(), "{name} is not ours and must stay");
    }
    assert_eq!(strength(&path), 3.0);
}
