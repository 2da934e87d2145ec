//! `settings.xml` in the viewer's format: load and merge with the defaults, keep every foreign key,
//! save atomically, and change nothing of the user's file but what was set.
//!
//! The viewer (LLControlGroup::loadFromFile / saveToFile, `indra/llxml/llcontrol.cpp`) keeps its
//! settings in an LLSD XML document whose top-level map holds, per setting name, a map of `Comment`,
//! `Persist`, `Type`, `Value` (and sometimes `Backup`). A user's file holds hundreds of the viewer's
//! own settings besides ours, and the viewer refuses to start when its defaults file lacks a key, so:
//!
//! * every key this crate does not know is kept as its LLSD tree and written back unchanged in
//!   meaning, in its original place;
//! * our settings are merged over the defaults ([`crate::entry`] says how values are read; an
//!   out-of-range value is clamped for the run with a warning and left in the file). A known setting
//!   whose `Type` or `Value` does not fit its declared type is an **error** naming setting, file and
//!   line (a file that says `F32` where we say `Boolean` was written by something else, and guessing
//!   could turn the fog on silently); so is a known setting without `Value`;
//! * a key the file holds is never deleted. Its entry is written back as it was unless its value was
//!   set (or changed) since loading; then only its `Value` changes, in place, `Comment`, `Type`,
//!   `Backup` and any other field kept. A `Persist` 0 entry is always written back as it was. When a
//!   name appears twice, the later entry wins, as in the viewer's map, and the earlier one is kept;
//! * one of ours the file does not hold is added, at the end, when it is persistent and not at its
//!   default (like the viewer's user settings, so a default that changes later reaches the user);
//! * loading is linear in the file's size: lines are found through an index built once, and the
//!   nesting is checked by a linear scan before the (recursive) XML parser runs, so a deep document
//!   is an error naming the limit, not a stack overflow;
//! * [`crate::save`] writes atomically, through links, keeping the file's mode;
//! * a file that failed to load is never overwritten unless [`SaveMode::Overwrite`] is passed.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use roxmltree::Node;

use crate::document::{visit_entries, TOP_LEVEL_INDENT, XML_HEADER, XML_TRAILER};
use crate::entry::{new_entry, read_known, with_value};
use crate::lines::LineIndex;
use crate::llsd::{write_map_entry, Llsd};
use crate::table::{find, find_or_err, SettingDesc, SettingValue, SETTINGS};
use crate::{Settings, SettingsError};

/// Whether [`SettingsFile::save`] may replace a file that failed to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveMode {
    /// Refuse to replace a file that failed to load (the default choice).
    Normal,
    /// Replace it anyway: the user asked to discard the unreadable file.
    Overwrite,
}

/// One top-level entry in file order.
#[derive(Debug, Clone, PartialEq)]
enum Entry {
    /// One of ours: the entry map as the file holds it and the value read from it (the current
    /// value lives in `settings`).
    Ours { desc: &'static SettingDesc, stored: Llsd, loaded: SettingValue },
    /// An earlier entry for one of our names that a later one overrides: kept as it was.
    Shadowed(String, Llsd),
    /// A key this crate does not know.
    Foreign(String, Llsd),
}

/// A settings file: our typed settings plus every entry the file holds, tied to its path.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    path: PathBuf,
    /// Our settings, merged over the defaults.
    pub settings: Settings,
    entries: Vec<Entry>,
    /// Per row of [`SETTINGS`]: the index in `entries` of the entry the file holds for it.
    held: Vec<Option<usize>>,
    /// Per row of [`SETTINGS`]: set through [`SettingsFile::set`], so saved even when equal to the
    /// value read (e.g. to replace a clamped stored value).
    set_rows: Vec<bool>,
    load_failure: Option<String>,
}

impl SettingsFile {
    /// Defaults and no foreign keys, to be saved at `path`.
    pub fn new(path: impl Into<PathBuf>) -> SettingsFile {
        SettingsFile {
            path: path.into(),
            settings: Settings::default(),
            entries: Vec::new(),
            held: vec![None; SETTINGS.len()],
            set_rows: vec![false; SETTINGS.len()],
            load_failure: None,
        }
    }

    /// Reads `path`; a missing file is an error, and so is anything but a regular file of at most
    /// [`crate::MAX_FILE_BYTES`] (checked before reading: `/dev/zero` is refused, not read).
    pub fn load(path: impl Into<PathBuf>) -> Result<SettingsFile, SettingsError> {
        let path = path.into();
        let text = crate::input::read_settings_text(&path)?;
        SettingsFile::parse(path, &text)
    }

    /// Reads `path`, or starts from the defaults if it does not exist yet.
    pub fn open(path: impl Into<PathBuf>) -> Result<SettingsFile, SettingsError> {
        let path = path.into();
        match SettingsFile::load(path.clone()) {
            Err(SettingsError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                Ok(SettingsFile::new(path))
            }
            other => other,
        }
    }

    /// Reads `path` like [`SettingsFile::open`]; on failure returns the defaults together with the
    /// error, and the returned file refuses to [`save`](Self::save) over the unreadable one unless
    /// asked with [`SaveMode::Overwrite`]. For a renderer that must start anyway.
    pub fn open_or_defaults(path: impl Into<PathBuf>) -> (SettingsFile, Option<SettingsError>) {
        let path = path.into();
        match SettingsFile::open(path.clone()) {
            Ok(file) => (file, None),
            Err(err) => {
                let mut file = SettingsFile::new(path);
                file.load_failure = Some(err.to_string());
                (file, Some(err))
            }
        }
    }

    /// Parses the text of a settings file; `path` is used in messages and by `save`.
    pub fn parse(path: impl Into<PathBuf>, text: &str) -> Result<SettingsFile, SettingsError> {
        let mut file = SettingsFile::new(path);
        let path = file.path.clone();
        visit_entries(&path, text, |name, value_node, lines| file.read_entry(name, value_node, lines))?;
        Ok(file)
    }

    /// Reads one top-level entry into `self`.
    fn read_entry(
        &mut self,
        name: String,
        node: Node<'_, '_>,
        lines: &LineIndex,
    ) -> Result<(), SettingsError> {
        let Some(desc) = find(&name) else {
            let value = Llsd::from_xml(node).map_err(|e| crate::entry::malformed(&self.path, e))?;
            self.entries.push(Entry::Foreign(name, value));
            return Ok(());
        };
        let known = read_known(&self.path, desc, node, lines)?;
        self.settings.store(desc, known.value);
        let row = row_of(desc);
        if let Some(earlier) = self.held[row] {
            if let Entry::Ours { stored, .. } = &mut self.entries[earlier] {
                let stored = std::mem::replace(stored, Llsd::Undef);
                self.entries[earlier] = Entry::Shadowed(name, stored);
            }
        }
        self.held[row] = Some(self.entries.len());
        self.entries.push(Entry::Ours { desc, stored: known.stored, loaded: known.value });
        Ok(())
    }

    /// Sets one of our settings (type and range checked) and marks it as set, so the next save
    /// writes it even when it equals the value read from the file.
    pub fn set(&mut self, name: &str, value: SettingValue) -> Result<(), SettingsError> {
        let desc = find_or_err(name)?;
        self.settings.set(desc.name, value)?;
        self.set_rows[row_of(desc)] = true;
        Ok(())
    }

    /// The entry the file holds for a key this crate does not know (the last one, as the viewer
    /// reads it).
    pub fn foreign(&self, name: &str) -> Option<&Llsd> {
        self.foreign_entries().filter(|(n, _)| *n == name).last().map(|(_, v)| v)
    }

    /// The path this file was read from and is saved to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The foreign entries (keys this crate does not know), in file order.
    pub fn foreign_entries(&self) -> impl Iterator<Item = (&str, &Llsd)> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Foreign(name, value) => Some((name.as_str(), value)),
            Entry::Ours { .. } | Entry::Shadowed(..) => None,
        })
    }

    /// The document to save: every entry the file holds, in place (ours with only a set or changed
    /// `Value` replaced), then ours the file lacks when persistent and not at their default.
    pub fn to_xml_string(&self) -> String {
        let mut out = String::from(XML_HEADER);
        for entry in &self.entries {
            match entry {
                Entry::Foreign(name, value) | Entry::Shadowed(name, value) => {
                    write_map_entry(&mut out, name, value, TOP_LEVEL_INDENT);
                }
                Entry::Ours { desc, stored, loaded } => {
                    let entry = self.held_entry(desc, stored, *loaded);
                    write_map_entry(&mut out, desc.name, &entry, TOP_LEVEL_INDENT);
                }
            }
        }
        for (desc, _) in SETTINGS.iter().zip(&self.held).filter(|(_, held)| held.is_none()) {
            let Ok(value) = self.settings.get(desc.name) else {
                continue;
            };
            if desc.persist && value != desc.default {
                write_map_entry(&mut out, desc.name, &new_entry(desc, value), TOP_LEVEL_INDENT);
            }
        }
        out.push_str(XML_TRAILER);
        out
    }

    /// The entry to write for one of ours the file holds: as stored, or with the new `Value` when
    /// the setting is persistent and was set or changed since loading.
    fn held_entry<'a>(&self, desc: &SettingDesc, stored: &'a Llsd, loaded: SettingValue) -> Cow<'a, Llsd> {
        match self.settings.get(desc.name) {
            Ok(value) if desc.persist && (value != loaded || self.set_rows[row_of(desc)]) => {
                Cow::Owned(with_value(stored, value))
            }
            _ => Cow::Borrowed(stored),
        }
    }

    /// Writes the file atomically (temporary file beside the link's target, fsync, rename, the
    /// file's mode kept; see [`crate::save`]). Refuses to replace a file that failed to load unless
    /// `mode` is [`SaveMode::Overwrite`].
    pub fn save(&mut self, mode: SaveMode) -> Result<(), SettingsError> {
        if let (Some(reason), SaveMode::Normal) = (&self.load_failure, mode) {
            return Err(SettingsError::RefuseOverwrite { path: self.path.clone(), reason: reason.clone() });
        }
        crate::save::write_atomically(&self.path, self.to_xml_string().as_bytes())?;
        self.load_failure = None;
        Ok(())
    }
}

/// The row of `desc` in [`SETTINGS`].
fn row_of(desc: &SettingDesc) -> usize {
    SETTINGS.iter().position(|d| d.name == desc.name).unwrap_or_else(|| not_in_table(desc.name))
}

/// A description that is not a row of the table: a bug in this crate (descriptions come from it).
#[cold]
fn not_in_table(name: &str) -> ! {
    panic!("setting {name} is not a row of SETTINGS")
}
