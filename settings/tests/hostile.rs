//! Hostile files: deep nesting, huge or endless inputs and many keys end in a clear error or load in
//! linear time; nothing overflows the stack, hangs or grows without bound.

mod common;

use std::time::{Duration, Instant};

use common::{document, entry_xml, ScratchDir};
use settings::{SettingsError, SettingsFile};

/// A foreign entry whose `Value` nests `depth` arrays (alternating with maps when `maps` is set).
fn nested_doc(depth: usize, maps: bool) -> String {
    let mut open = String::new();
    let mut close = String::new();
    for level in 0..depth {
        if maps && level % 2 == 1 {
            open.push_str("<map><key>k</key>");
            close.insert_str(0, "</map>");
        } else {
            open.push_str("<array>");
            close.insert_str(0, "</array>");
        }
    }
    open.push_str("<integer>1</integer>");
    document(&[entry_xml("DeepForeign", "LLSD", &format!("{open}{close}"), "")])
}

#[test]
fn twenty_thousand_nested_levels_are_an_error_stating_the_limit() {
    for maps in [false, true] {
        let text = nested_doc(20_000, maps);
        let err = SettingsFile::parse("user/settings.xml", &text).expect_err("too deep");
        assert!(matches!(err, SettingsError::Malformed { line: 13, .. }), "{err:?}");
        let message = err.to_string();
        let limit = settings::llsd::MAX_DEPTH.to_string();
        assert!(message.contains("nested deeper than") && message.contains(&limit), "{message}");
    }
}

#[test]
fn nesting_up_to_the_limit_loads() {
    // The entry map is one level; its Value adds the rest.
    let text = nested_doc(settings::llsd::MAX_DEPTH - 1, true);
    let file = SettingsFile::parse("s.xml", &text).expect("at the limit");
    assert_eq!(file.foreign_entries().count(), 1);
    let again = SettingsFile::parse("s.xml", &file.to_xml_string()).expect("writes back loadable");
    assert_eq!(again.foreign_entries().collect::<Vec<_>>(), file.foreign_entries().collect::<Vec<_>>());
    assert!(SettingsFile::parse("s.xml", &nested_doc(settings::llsd::MAX_DEPTH, true)).is_err());
}

#[cfg(unix)]
#[test]
fn a_device_or_a_directory_is_refused_without_reading_it() {
    let dir = ScratchDir::new("not-a-file");
    for path in [std::path::PathBuf::from("/dev/zero"), dir.path().to_owned()] {
        let started = Instant::now();
        let err = SettingsFile::open(&path).expect_err("not a regular file");
        assert!(started.elapsed() < Duration::from_secs(2), "{} was read", path.display());
        let message = err.to_string();
        assert!(message.contains("not a regular file"), "{message}");
        assert!(message.starts_with(&path.display().to_string()), "{message}");
    }
}

#[test]
fn a_file_over_the_size_cap_is_refused_naming_the_cap() {
    let dir = ScratchDir::new("too-large");
    let path = dir.join("settings.xml");
    let f = std::fs::File::create(&path).expect("create");
    f.set_len(settings::MAX_FILE_BYTES + 1).expect("sparse file");
    let err = SettingsFile::load(&path).expect_err("over the cap");
    assert!(matches!(err, SettingsError::TooLarge { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("16 MiB"), "{message}");
}

/// A file of `keys` foreign entries shaped like the viewer's (about 150 bytes each).
fn many_keys(keys: usize) -> String {
    let entries: Vec<String> = (0..keys)
        .map(|i| entry_xml(&format!("ViewerSetting{i}"), "F32", &format!("<real>{i}.5</real>"), ""))
        .collect();
    document(&entries)
}

/// The fastest of three parses of `text`, in seconds.
fn parse_seconds(text: &str) -> f64 {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            let file = SettingsFile::parse("many.xml", text).expect("loads");
            assert!(file.foreign_entries().count() > 0);
            started.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn many_foreign_keys_load_in_linear_time() {
    // Quadratic parsing took 5.8 s for 10k keys and over a minute for 40k; linear takes milliseconds.
    let small = parse_seconds(&many_keys(5_000));
    let large_text = many_keys(20_000);
    let large = parse_seconds(&large_text);
    let ratio = large / small.max(1e-4);
    assert!(ratio < 10.0, "4x the keys took {ratio:.1}x the time ({small:.3} s, {large:.3} s)");
    let text = many_keys(40_000);
    assert!(text.len() > 5_000_000, "{} bytes", text.len());
    let seconds = parse_seconds(&text);
    eprintln!("5k keys {small:.3} s, 20k keys {large:.3} s, 40k keys {seconds:.3} s");
    assert!(seconds < 2.0, "40k keys took {seconds:.2} s");
}

#[test]
fn many_repeats_of_one_of_our_keys_load_in_linear_time() {
    let entry = entry_xml("RenderMaxPartCount", "S32", "<integer>9000</integer>", "");
    let text = document(&vec![entry; 20_000]);
    let seconds = {
        let started = Instant::now();
        let file = SettingsFile::parse("repeats.xml", &text).expect("loads");
        assert_eq!(file.settings.max_part_count, 8192);
        started.elapsed().as_secs_f64()
    };
    assert!(seconds < 2.0, "20k repeats took {seconds:.2} s");
}
