//! What the fuzz target checks, shared by the corpus replay and the exploration run: parsing an
//! input never panics, and a file that loads saves to a text that loads again and saves the same.

use std::path::{Path, PathBuf};

use settings::{SettingsError, SettingsFile};

/// The corpus of the `settings_xml` fuzz target.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/settings_xml")
}

/// Every corpus file, sorted by name, with its bytes.
pub fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()));
    let mut files: Vec<(String, Vec<u8>)> = entries
        .map(|entry| entry.expect("readable corpus entry").path())
        .filter(|path| path.is_file())
        .map(|path| {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            (name, std::fs::read(&path).expect("readable corpus file"))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the corpus {} is empty", dir.display());
    files
}

/// Parses `text`; when it loads, checks that its saved text loads and saves the same. Returns the
/// parse result, or a description of the broken property.
pub fn check(text: &str) -> Result<Result<SettingsFile, SettingsError>, String> {
    let parsed = SettingsFile::parse("fuzz.xml", text);
    if let Ok(file) = &parsed {
        let saved = file.to_xml_string();
        let again = SettingsFile::parse("fuzz.xml", &saved)
            .map_err(|e| format!("the saved text does not load: {e}\n--- saved:\n{saved}"))?;
        let resaved = again.to_xml_string();
        if resaved != saved {
            return Err(format!("saving is not stable\n--- first:\n{saved}\n--- second:\n{resaved}"));
        }
    }
    Ok(parsed)
}
