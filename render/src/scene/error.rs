//! [`SceneError`]: why a scene file cannot be loaded, located by file, line and column.

use std::path::PathBuf;

/// Why a scene could not be loaded. Every variant about the file's content carries the 1-based
/// line and column (in characters) of the offending text.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The scene file could not be read: missing, not a regular file, over
    /// [`crate::input::MAX_SCENE_BYTES`] or not UTF-8 (the message names the file).
    #[error("cannot read the scene: {0}")]
    Io(crate::input::InputError),
    /// TOML syntax error, unknown key, wrong value type or missing required field.
    #[error("{file}:{line}:{column}: {message}")]
    Malformed {
        /// The scene file.
        file: PathBuf,
        /// Line, 1-based.
        line: u32,
        /// Column in characters, 1-based.
        column: u32,
        /// What is wrong, as the TOML reader says it.
        message: String,
    },
    /// A well-formed value that makes no sense (negative radius, unknown texture name ...).
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        /// The scene file.
        file: PathBuf,
        /// Line, 1-based.
        line: u32,
        /// Column in characters, 1-based.
        column: u32,
        /// What is wrong and what is expected.
        message: String,
    },
}

impl SceneError {
    /// The `(line, column)` of the offending text, if the error has one.
    pub fn location(&self) -> Option<(u32, u32)> {
        match self {
            SceneError::Io(_) => None,
            SceneError::Malformed { line, column, .. } | SceneError::Invalid { line, column, .. } => {
                Some((*line, *column))
            }
        }
    }
}

/// 1-based `(line, column)` of byte `offset` in `text`; columns count characters. Offsets past the
/// end or inside a character are clamped to the nearest valid position before them.
pub(crate) fn line_column(text: &str, offset: usize) -> (u32, u32) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (saturate(line), saturate(column))
}

fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
