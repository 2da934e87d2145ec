//! Corrupt, unreadable and out-of-range files: readable errors naming file and line, clamping with
//! a warning, and a file that failed to load is never overwritten by accident.

mod common;

use common::{realistic_file, Capture, ScratchDir};
use settings::{SaveMode, SettingsError, SettingsFile};
use tracing::Level;

/// A settings document holding one entry of ours, `name`, with the given `Type` and value element.
fn doc_with(name: &str, ty: &str, value: &str) -> String {
    format!(
        "<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n    <key>{name}</key>\n    <map>\n      \
         <key>Comment</key>\n      <string>c</string>\n      <key>Persist</key>\n      \
         <integer>1</integer>\n      <key>Type</key>\n      <string>{ty}</string>\n      \
         <key>Value</key>\n      {value}\n    </map>\n</map>\n</llsd>\n"
    )
}

fn parse_err(text: &str) -> SettingsError {
    match SettingsFile::parse("user/settings.xml", text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn bad_xml_names_file_and_line() {
    let err = parse_err(
        "<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n  <key>A</key>\n  <integer>1</string>\n</map>\n</llsd>\n",
    );
    assert!(matches!(err, SettingsError::Xml { line: 5, .. }), "{err:?}");
    assert!(err.to_string().starts_with("user/settings.xml:5:"), "{err}");
}

#[test]
fn a_truncated_file_is_an_error_naming_the_file() {
    let text = realistic_file();
    let cut = &text[..text.len() / 2];
    let err = parse_err(cut);
    assert!(matches!(err, SettingsError::Xml { .. }), "{err:?}");
    assert!(err.to_string().starts_with("user/settings.xml:"), "{err}");
    assert!(matches!(parse_err(""), SettingsError::Xml { .. }), "an empty file is not XML");
}

#[test]
fn wrong_root_and_wrong_top_level_value_are_rejected() {
    let err = parse_err("<?xml version=\"1.0\" ?>\n<plist>\n<dict />\n</plist>\n");
    assert_eq!(err.to_string(), "user/settings.xml:2: root element is <plist>, expected <llsd>");
    let err = parse_err("<?xml version=\"1.0\" ?>\n<llsd>\n<array />\n</llsd>\n");
    assert_eq!(err.to_string(), "user/settings.xml:3: <llsd> holds <array>, expected <map>");
    let err = parse_err("<llsd />");
    assert!(err.to_string().contains("holds no <map>"), "{err}");
    let err = parse_err("<llsd><map><key>A</key><integer>1</integer><frob /></map></llsd>");
    assert!(err.to_string().contains("<frob>"), "{err}");
}

#[test]
fn root_attributes_of_the_app_settings_form_are_accepted() {
    let text = "<?xml version=\"1.0\" ?>\n<llsd xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n  xsi:noNamespaceSchemaLocation=\"llsd.xsd\">\n<map />\n</llsd>\n";
    let file = SettingsFile::parse("app_settings/settings.xml", text).expect("valid");
    assert_eq!(file.foreign_entries().count(), 0);
}

#[test]
fn our_setting_without_value_is_an_error_naming_it() {
    let text = "<llsd>\n<map>\n<key>RenderVKParticleFog</key>\n<map>\n<key>Type</key>\n<string>Boolean</string>\n</map>\n</map>\n</llsd>";
    let err = parse_err(text);
    assert_eq!(err.to_string(), "user/settings.xml:4: RenderVKParticleFog: setting entry has no Value");
}

#[test]
fn a_key_without_a_value_is_an_error() {
    let err = parse_err("<llsd>\n<map>\n<key>AFKTimeout</key>\n</map>\n</llsd>");
    assert_eq!(err.to_string(), "user/settings.xml:3: <key>AFKTimeout</key> has no value after it");
}

#[test]
fn wrong_type_of_a_known_setting_is_an_error_naming_setting_file_and_line() {
    let err = parse_err(&doc_with("RenderVKParticleFog", "F32", "<real>0.5</real>"));
    assert_eq!(
        err.to_string(),
        "user/settings.xml:5: RenderVKParticleFog: expected Boolean, found Type <string> \"F32\""
    );
    let err = parse_err(&doc_with("RenderVKParticleFogStrength", "F32", "<string>lots</string>"));
    assert_eq!(
        err.to_string(),
        "user/settings.xml:13: RenderVKParticleFogStrength: expected F32, found <string> \"lots\""
    );
    let err = parse_err(&doc_with("RenderMaxPartCount", "S32", "<real>100.5</real>"));
    assert!(matches!(err, SettingsError::WrongType { line: 13, .. }), "{err:?}");
    let err = parse_err(&doc_with("RenderVKParticleFogRange", "F32", "<real>nan</real>"));
    assert!(matches!(err, SettingsError::WrongType { .. }), "NaN is not a usable F32: {err:?}");
}

#[test]
fn lenient_forms_the_viewer_writes_are_read() {
    let on = |value: &str| {
        SettingsFile::parse("s.xml", &doc_with("RenderVKParticleFog", "Boolean", value))
            .map(|f| f.settings.particle_fog)
            .map_err(|e| e.to_string())
    };
    assert_eq!(on("<boolean>true</boolean>"), Ok(true));
    assert_eq!(on("<boolean>1</boolean>"), Ok(true));
    assert_eq!(on("<integer>0</integer>"), Ok(false));
    let parts = SettingsFile::parse("s.xml", &doc_with("RenderMaxPartCount", "S32", "<real>300.0</real>"));
    assert_eq!(parts.map(|f| f.settings.max_part_count).ok(), Some(300));
    let range =
        SettingsFile::parse("s.xml", &doc_with("RenderVKParticleFogRange", "F32", "<integer>32</integer>"));
    assert_eq!(range.map(|f| f.settings.particle_fog_range_m).ok(), Some(32.0));
}

#[test]
fn out_of_range_values_are_clamped_with_a_warning_naming_setting_and_range() {
    use settings::SettingValue::{F32, S32, U32};
    let cases = [
        ("RenderVKParticleFogThreshold", "F32", "<real>3.5</real>", F32(1.0)),
        ("RenderMaxPartCount", "S32", "<integer>10000</integer>", S32(8192)),
        ("RenderVKParticleFogVoxelSize", "F32", "<real>-1</real>", F32(0.025)),
        // A negative U32 is out of range as written (-1), not read as its bits (4294967295).
        ("RenderVKVolumetricFogGridZ", "U32", "<integer>-1</integer>", U32(16)),
    ];
    for (name, ty, value, expected) in cases {
        let capture = Capture::default();
        let file = capture
            .run(|| SettingsFile::parse("user/settings.xml", &doc_with(name, ty, value)))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(file.settings.get(name).ok(), Some(expected), "{name} clamped");
        let warnings = capture.messages(Level::WARN);
        assert_eq!(warnings.len(), 1, "{name}: {warnings:?}");
        let range = settings::find(name).map(|d| d.range_text()).unwrap_or_default();
        assert!(warnings[0].contains(name) && warnings[0].contains(&range), "{}", warnings[0]);
        assert!(warnings[0].starts_with("user/settings.xml:"), "{}", warnings[0]);
    }
}

#[test]
fn an_in_range_file_loads_without_warnings() {
    let capture = Capture::default();
    let file = capture.run(|| SettingsFile::parse("s.xml", realistic_file()));
    assert!(file.is_ok());
    assert_eq!(capture.messages(Level::WARN), Vec::<String>::new());
}

#[test]
fn a_missing_file_is_an_io_error_for_load_and_defaults_for_open() {
    let dir = ScratchDir::new("missing");
    let path = dir.join("nope.xml");
    let err = SettingsFile::load(&path).expect_err("missing");
    assert!(matches!(err, SettingsError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("nope.xml"), "{err}");
    let file = SettingsFile::open(&path).expect("missing file means defaults");
    assert_eq!(file.settings, settings::Settings::default());
}

#[test]
fn a_file_that_failed_to_load_is_not_overwritten_unless_asked() {
    let dir = ScratchDir::new("refuse");
    let path = dir.join("settings.xml");
    let corrupt = &realistic_file()[..1000];
    std::fs::write(&path, corrupt).expect("write");

    let (mut file, err) = SettingsFile::open_or_defaults(&path);
    assert!(matches!(err, Some(SettingsError::Xml { .. })), "{err:?}");
    assert_eq!(file.settings, settings::Settings::default(), "defaults after a failed load");
    file.settings.particle_fog = true;
    let refused = file.save(SaveMode::Normal).expect_err("must refuse");
    assert!(matches!(refused, SettingsError::RefuseOverwrite { .. }), "{refused:?}");
    assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), Some(corrupt), "untouched");

    file.save(SaveMode::Overwrite).expect("explicitly asked");
    let reloaded = SettingsFile::load(&path).expect("now valid");
    assert!(reloaded.settings.particle_fog);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).expect("list").collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left beside the settings file");
}

#[test]
fn unreadable_text_is_an_error_naming_the_file() {
    let dir = ScratchDir::new("utf8");
    let path = dir.join("settings.xml");
    std::fs::write(&path, b"<llsd><map><key>A\xff\xfe</key><integer>1</integer></map></llsd>")
        .expect("write");
    let err = SettingsFile::load(&path).expect_err("not UTF-8");
    assert!(matches!(err, SettingsError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("settings.xml"), "{err}");
    // roxmltree refuses DTDs (no entity expansion from a settings file): an error, not a panic.
    let doctype = "<!DOCTYPE llsd [<!ENTITY x \"y\">]>\n<llsd><map /></llsd>";
    let err = parse_err(doctype);
    assert!(matches!(err, SettingsError::Xml { line: 1, .. }), "{err:?}");
}

#[test]
fn a_failed_save_reports_the_path_and_leaves_no_file() {
    let dir = ScratchDir::new("save-fail");
    let path = dir.join("no-such-dir").join("settings.xml");
    let mut file = SettingsFile::new(&path);
    let err = file.save(SaveMode::Normal).expect_err("directory does not exist");
    assert!(matches!(err, SettingsError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("no-such-dir"), "{err}");
    assert!(!path.exists());
}
