//! `particle-fog settings list|get|set [--file F]`, and the `--settings F` / `--set NAME=VALUE`
//! options every rendering subcommand takes.

use std::path::{Path, PathBuf};

use settings::{cli, SaveMode, Settings, SettingsFile};

/// The settings file used when `--file` is not given.
pub const DEFAULT_FILE: &str = "settings.xml";

/// `settings list`: every setting with value, type, range, default and comment.
pub fn list(file: &Path) -> anyhow::Result<String> {
    Ok(cli::list_text(&SettingsFile::open(file)?))
}

/// `settings get NAME`: one of ours, or a viewer key the file holds (shown as foreign).
pub fn get(file: &Path, name: &str) -> anyhow::Result<String> {
    Ok(cli::get_in_file(&SettingsFile::open(file)?, name)?)
}

/// `settings set NAME VALUE`: validates, then saves atomically, changing only that key's `Value` (a
/// file that failed to load is never overwritten; a setting that is never saved is refused).
pub fn set(file: &Path, name: &str, value: &str) -> anyhow::Result<String> {
    let mut f = SettingsFile::open(file)?;
    let line = cli::set_in_file(&mut f, name, value)?;
    f.save(SaveMode::Normal)?;
    Ok(line)
}

/// The settings a rendering subcommand runs with: the file (if any, missing = defaults), then the
/// `NAME=VALUE` overrides in order.
pub fn load_for_run(file: Option<&PathBuf>, overrides: &[String]) -> anyhow::Result<Settings> {
    let mut settings = match file {
        Some(path) => SettingsFile::open(path)?.settings,
        None => Settings::default(),
    };
    cli::apply_overrides(&mut settings, overrides)?;
    Ok(settings)
}
