//! A save changes nothing of the user's file but what was asked: a key the file holds is never
//! deleted, only its `Value` changes when it is set, and a stored value that is invalid or out of
//! range is reported and left in the file as it was.

mod common;

use common::{document, entry_xml, realistic_file, top_map, Capture, ScratchDir};
use settings::{Llsd, SaveMode, SettingValue, SettingsFile};
use tracing::Level;

/// A `Backup` key and value, an extra field the viewer writes for some entries.
const BACKUP: &str = "      <key>Backup</key>\n      <integer>2048</integer>\n";

/// A user's file: a foreign key, a U32 of ours stored as -5, `RenderMaxPartCount` at the viewer's
/// default 4096 with the viewer's comment and a `Backup`, and a default F32 in full precision.
fn users_file() -> String {
    document(&[
        entry_xml("AFKTimeout", "S32", "<real>300.0</real>", ""),
        entry_xml("RenderVKParticleCapacity", "U32", "<integer>-5</integer>", ""),
        entry_xml("RenderMaxPartCount", "S32", "<integer>4096</integer>", BACKUP),
        entry_xml("RenderVKVolumetricFogHistoryWeight", "F32", "<real>0.89999997615814208984375</real>", ""),
    ])
}

/// Writes `text` to a scratch file, loads it, applies `change`, saves, and returns the saved text.
fn save_after(name: &str, text: &str, change: impl FnOnce(&mut SettingsFile)) -> String {
    let dir = ScratchDir::new(name);
    let path = dir.join("settings.xml");
    std::fs::write(&path, text).expect("write fixture");
    let mut file = SettingsFile::load(&path).expect("loads");
    change(&mut file);
    file.save(SaveMode::Normal).expect("saves");
    std::fs::read_to_string(&path).expect("read back")
}

/// `entry` (an entry map) with its `Value` replaced by `value`, everything else as it was.
fn with_value(entry: &Llsd, value: Llsd) -> Llsd {
    let Llsd::Map(fields) = entry else { panic!("entry is <{}>", entry.kind()) };
    let fields =
        fields.iter().map(|(k, v)| (k.clone(), if k == "Value" { value.clone() } else { v.clone() }));
    Llsd::Map(fields.collect())
}

#[test]
fn a_set_of_one_key_leaves_every_other_entry_as_the_file_held_it() {
    let original = users_file();
    let saved = save_after("set-one", &original, |f| {
        f.settings.set_text("RenderVKParticleFogStrength", "2").expect("valid");
    });
    let before = top_map(&original);
    let after = top_map(&saved);
    assert_eq!(&after[..before.len()], &before[..], "entries the file held changed:\n{saved}");
    assert_eq!(after.len(), before.len() + 1, "one new entry:\n{saved}");
    let (name, entry) = &after[before.len()];
    assert_eq!(name, "RenderVKParticleFogStrength");
    assert_eq!(entry.get("Value"), Some(&Llsd::Real(2.0)));
    assert!(saved.contains("<integer>-5</integer>"), "the invalid stored value stays as it was");
}

#[test]
fn setting_a_key_the_file_holds_changes_only_its_value() {
    let original = users_file();
    let saved = save_after("set-held", &original, |f| {
        f.settings.set_text("RenderMaxPartCount", "100").expect("valid");
    });
    let before = top_map(&original);
    let after = top_map(&saved);
    assert_eq!(after.len(), before.len(), "{saved}");
    for ((name, old), (new_name, new)) in before.iter().zip(&after) {
        assert_eq!(name, new_name, "order kept");
        let expected =
            if name == "RenderMaxPartCount" { with_value(old, Llsd::Integer(100)) } else { old.clone() };
        assert_eq!(new, &expected, "{name}: Comment, Persist, Type and Backup must stay");
    }
}

#[test]
fn a_key_set_back_to_its_default_is_kept_in_the_file() {
    let text = document(&[entry_xml("RenderMaxPartCount", "S32", "<integer>100</integer>", BACKUP)]);
    let saved = save_after("set-default", &text, |f| {
        f.settings.set_text("RenderMaxPartCount", "4096").expect("valid");
    });
    let before = top_map(&text);
    let after = top_map(&saved);
    assert_eq!(after, vec![("RenderMaxPartCount".to_owned(), with_value(&before[0].1, Llsd::Integer(4096)))]);
}

#[test]
fn a_negative_u32_is_reported_as_stored_not_as_its_bits() {
    let capture = Capture::default();
    let file = capture.run(|| SettingsFile::parse("user/settings.xml", &users_file())).expect("loads");
    assert_eq!(file.settings.get("RenderVKParticleCapacity").ok(), Some(SettingValue::U32(1)), "the minimum");
    let warnings = capture.messages(Level::WARN);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = &warnings[0];
    assert!(w.contains("RenderVKParticleCapacity") && w.contains("-5") && w.contains("1..=4000000"), "{w}");
    assert!(!w.contains("4294967291") && !w.contains("using 4000000"), "the stored text, not its bits: {w}");
    assert!(w.contains("file keeps"), "says the file is left as it was: {w}");
}

#[test]
fn a_non_persistent_key_the_file_holds_stays_as_it_was() {
    let saved = save_after("persist-0", realistic_file(), |f| {
        f.settings.set_text("RenderVKParticleFogDebug", "3").expect("valid");
    });
    let debug = |text: &str| top_map(text).into_iter().find(|(n, _)| n == "RenderVKParticleFogDebug");
    assert_eq!(debug(&saved), debug(realistic_file()), "not saved, and not deleted either");
}

#[test]
fn the_realistic_file_survives_a_save_untouched() {
    let saved = save_after("untouched", realistic_file(), |_| {});
    assert_eq!(top_map(&saved), top_map(realistic_file()));
}
