//! `settings get` and `settings set` on a real file: foreign keys are shown as stored, a set changes
//! only its own key, and a setting that is never saved is refused with the reason and the way to
//! use it.

mod common;

use common::{realistic_file, top_map, ScratchDir};
use settings::{cli, SaveMode, SettingsError, SettingsFile};

fn realistic() -> SettingsFile {
    SettingsFile::parse("settings.xml", realistic_file()).expect("loads")
}

#[test]
fn get_of_a_viewer_key_shows_its_stored_value_as_foreign() {
    let file = realistic();
    let afk = cli::get_in_file(&file, "AFKTimeout").expect("the file holds it");
    assert_eq!(afk, "300 (foreign S32 setting, shown as stored; particle-fog does not use it)");
    let colour = cli::get_in_file(&file, "EffectColor").expect("held");
    assert!(colour.starts_with("[1, 0.5, 0.25, 1] (foreign Color4 setting"), "{colour}");
    let text = cli::get_in_file(&file, "LastGPUString").expect("held");
    assert!(text.starts_with("\"NVIDIA Corporation"), "{text}");
    assert_eq!(cli::get_in_file(&file, "RenderVKParticleFogThreshold").ok().as_deref(), Some("0.6"));
    let err = cli::get_in_file(&file, "RenderVKParticleFg").expect_err("neither ours nor held");
    assert!(matches!(err, SettingsError::UnknownSetting { suggestion: Some("RenderVKParticleFog"), .. }));
}

#[test]
fn set_of_a_setting_that_is_never_saved_is_refused_saying_how_to_use_it() {
    let mut file = realistic();
    let before = file.settings.clone();
    let err = cli::set_in_file(&mut file, "RenderVKParticleFogDebug", "3").expect_err("Persist 0");
    assert!(matches!(err, SettingsError::NotSaved { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("not saved") && message.contains("nothing was changed"), "{message}");
    assert!(message.contains("--set RenderVKParticleFogDebug=3"), "{message}");
    assert_eq!(file.settings, before);
    let err = cli::set_in_file(&mut file, "RenderVKParticleFogDebug", "x").expect_err("bad value");
    assert!(matches!(err, SettingsError::InvalidValue { .. }), "the value is checked first: {err:?}");
}

#[test]
fn set_of_a_viewer_key_is_refused_and_the_key_kept() {
    let mut file = realistic();
    let err = cli::set_in_file(&mut file, "AFKTimeout", "600").expect_err("not ours");
    assert!(matches!(err, SettingsError::Foreign { .. }), "{err:?}");
    assert!(err.to_string().contains("kept in the file as stored"), "{err}");
}

#[test]
fn set_writes_a_value_equal_to_the_clamped_one_read() {
    // The file holds 10000, read as 8192 (clamped). Setting 8192 must replace the stored 10000.
    let dir = ScratchDir::new("cli-set-clamped");
    let path = dir.join("settings.xml");
    let text = realistic_file().replace("<integer>8192</integer>", "<integer>10000</integer>");
    std::fs::write(&path, &text).expect("write");
    let mut file = SettingsFile::load(&path).expect("loads");
    assert_eq!(file.settings.max_part_count, 8192);
    let line = cli::set_in_file(&mut file, "RenderMaxPartCount", "8192").expect("valid");
    assert_eq!(line, "RenderMaxPartCount = 8192");
    file.save(SaveMode::Normal).expect("saves");
    let saved = std::fs::read_to_string(&path).expect("read back");
    let parts = top_map(&saved).into_iter().find(|(n, _)| n == "RenderMaxPartCount").map(|(_, e)| e);
    assert_eq!(parts.and_then(|e| e.get("Value").cloned()), Some(settings::Llsd::Integer(8192)));
}
