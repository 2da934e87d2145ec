//! The crate's one error type.
//!
//! Every error that comes from outside (a settings file, a command-line override, a name typed by a
//! user) is a value with a readable reason: which file and line, which setting, which range or type was
//! expected. Nothing here panics on bad input.

use std::path::PathBuf;

/// Everything that can go wrong when reading, changing or writing settings.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file could not be read, written, synced or renamed.
    #[error("{path}: {source}")]
    Io {
        /// The file (or the temporary file beside it) that failed.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The path is not a regular file (a device such as `/dev/zero`, a pipe, a directory): it is
    /// refused before reading, since reading it could block or never end.
    #[error("{path}: not a regular file ({kind}); a settings file must be one")]
    NotAFile {
        /// The path as given.
        path: PathBuf,
        /// What it is instead, e.g. `a character device`.
        kind: &'static str,
    },
    /// The file is larger than [`crate::MAX_FILE_BYTES`].
    #[error("{path}: {size} bytes is over the {limit_mib} MiB limit for a settings file")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes (at least the limit plus one when it grew while being read).
        size: u64,
        /// The limit in MiB.
        limit_mib: u64,
    },
    /// The file is not well-formed XML (bad syntax, truncated, not UTF-8).
    #[error("{path}:{line}:{column}: not well-formed XML: {message}")]
    Xml {
        /// The file that failed to parse.
        path: PathBuf,
        /// 1-based line of the error.
        line: u32,
        /// 1-based column of the error.
        column: u32,
        /// The parser's description of the problem.
        message: String,
    },
    /// The file is XML but not a viewer settings document (wrong root, bad LLSD element, an entry
    /// of ours without `Value`).
    #[error("{path}:{line}: {reason}")]
    Malformed {
        /// The file that failed.
        path: PathBuf,
        /// 1-based line of the offending element.
        line: u32,
        /// What was wrong.
        reason: String,
    },
    /// A setting this crate knows is stored in the file with a type it cannot be read as.
    #[error("{path}:{line}: {setting}: expected {expected}, found {found}")]
    WrongType {
        /// The file that failed.
        path: PathBuf,
        /// 1-based line of the setting's entry or value.
        line: u32,
        /// The setting's name.
        setting: String,
        /// The type this crate declares (e.g. `F32`).
        expected: String,
        /// What the file holds (e.g. `Type String`, `<string>`).
        found: String,
    },
    /// A name that is not one of this crate's settings.
    #[error("unknown setting {name}{}", suggestion_text(.suggestion))]
    UnknownSetting {
        /// The name as given.
        name: String,
        /// The closest known name, if one is close.
        suggestion: Option<&'static str>,
    },
    /// A `Persist` 0 setting given to a command that only saves: it would be lost at once.
    #[error(
        "{setting} is not saved to settings.xml (Persist 0); nothing was changed. \
         Give it to a run instead: --set {setting}={value}"
    )]
    NotSaved {
        /// The setting's name.
        setting: &'static str,
        /// The value as given.
        value: String,
    },
    /// A viewer setting the file holds but this crate does not own: it is kept as stored.
    #[error("{name} is a viewer setting particle-fog does not own; it is kept in the file as stored")]
    Foreign {
        /// The name as given.
        name: String,
    },
    /// A value given on the command line or through the live handle is outside the setting's range.
    #[error("{setting}: {value} is outside {range}")]
    OutOfRange {
        /// The setting's name.
        setting: &'static str,
        /// The value as given.
        value: String,
        /// The accepted range, e.g. `0.2..=1`.
        range: String,
    },
    /// A value text that does not parse as the setting's type.
    #[error("{setting}: {text:?} is not a valid {expected}")]
    InvalidValue {
        /// The setting's name.
        setting: &'static str,
        /// The text as given.
        text: String,
        /// What is accepted, e.g. `Boolean (0, 1, true, false)`.
        expected: String,
    },
    /// A command-line override that is not of the form `NAME=VALUE`.
    #[error("override {text:?} is not of the form NAME=VALUE")]
    BadOverride {
        /// The override as given.
        text: String,
    },
    /// `save` was asked to replace a file that failed to load; pass
    /// [`crate::SaveMode::Overwrite`] to replace it anyway.
    #[error("{path}: refusing to overwrite a settings file that failed to load ({reason})")]
    RefuseOverwrite {
        /// The file that would have been replaced.
        path: PathBuf,
        /// Why it failed to load.
        reason: String,
    },
}

fn suggestion_text(suggestion: &Option<&'static str>) -> String {
    suggestion.map_or_else(String::new, |s| format!(" (did you mean {s}?)"))
}
