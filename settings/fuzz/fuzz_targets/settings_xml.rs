//! Fuzz target for settings.xml parsing: no input may panic, overflow the stack or hang the parser,
//! and every file it loads must save to a text that loads again and saves to the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use settings::SettingsFile;

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else { return };
    if let Ok(file) = SettingsFile::parse("fuzz.xml", text) {
        let saved = file.to_xml_string();
        let again = SettingsFile::parse("fuzz.xml", &saved).expect("a saved file loads");
        assert_eq!(again.to_xml_string(), saved, "saving is not stable");
    }
});
