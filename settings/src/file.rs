//! `settings.xml` in the viewer's format: load and merge with the defaults, keep every foreign key,
//! save atomically.
//!
//! The viewer (LLControlGroup::loadFromFile / saveToFile, `indra/llxml/llcontrol.cpp`) keeps its
//! settings in an LLSD XML document whose top-level map holds, per setting name, a map of `Comment`,
//! `Persist`, `Type`, `Value` (and sometimes `Backup`). A user's file holds hundreds of the viewer's
//! own settings besides ours, so:
//!
//! * every key this crate does not know is kept as its LLSD tree and written back unchanged in
//!   meaning, in its original place;
//! * our settings are merged over the defaults. Out-of-range values are clamped with a
//!   `tracing::warn!` naming the setting and range. A known setting whose `Type` or `Value` does not
//!   fit its declared type is an **error** naming setting, file and line (a file that says `F32` where
//!   we say `Boolean` was written by something else, and guessing could turn the fog on silently);
//!   so is a known setting without `Value`;
//! * like the viewer's user settings, only persistent settings whose value differs from the default
//!   are written (a default that changes later then reaches the user); `Persist` 0 settings are never
//!   written;
//! * the write goes to a temporary file in the same directory, is fsynced, then renamed over the
//!   target, so a crash leaves the old file or the new one, never half of one;
//! * a file that failed to load is never overwritten unless [`SaveMode::Overwrite`] is passed.

use std::io::Write;
use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};

use crate::llsd::{element_children, line_of, write_map_entry, Llsd, LlsdParseError};
use crate::table::{find, SettingDesc, SettingType, SettingValue, SETTINGS};
use crate::{Settings, SettingsError};

/// Indentation of the top-level keys, as the viewer's pretty formatter writes them.
const TOP_LEVEL_INDENT: usize = 4;
/// The document header the viewer writes.
const XML_HEADER: &str = "<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n";
/// The document trailer the viewer writes.
const XML_TRAILER: &str = "</map>\n</llsd>\n";

/// Whether [`SettingsFile::save`] may replace a file that failed to load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveMode {
    /// Refuse to replace a file that failed to load (the default choice).
    Normal,
    /// Replace it anyway: the user asked to discard the unreadable file.
    Overwrite,
}

/// One top-level entry in file order: one of ours (its value lives in `settings`) or a foreign one.
#[derive(Debug, Clone, PartialEq)]
enum Entry {
    Ours(&'static SettingDesc),
    Foreign(String, Llsd),
}

/// A settings file: our typed settings plus every foreign entry, tied to its path.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    path: PathBuf,
    /// Our settings, merged over the defaults.
    pub settings: Settings,
    entries: Vec<Entry>,
    load_failure: Option<String>,
}

impl SettingsFile {
    /// Defaults and no foreign keys, to be saved at `path`.
    pub fn new(path: impl Into<PathBuf>) -> SettingsFile {
        SettingsFile {
            path: path.into(),
            settings: Settings::default(),
            entries: Vec::new(),
            load_failure: None,
        }
    }

    /// Reads `path`; a missing file is an error.
    pub fn load(path: impl Into<PathBuf>) -> Result<SettingsFile, SettingsError> {
        let path = path.into();
        let text = std::fs::read_to_string(&path)
            .map_err(|source| SettingsError::Io { path: path.clone(), source })?;
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
        let path = path.into();
        let doc = Document::parse(text).map_err(|e| SettingsError::Xml {
            path: path.clone(),
            line: e.pos().row,
            column: e.pos().col,
            message: e.to_string(),
        })?;
        let map = top_level_map(&doc).map_err(|e| malformed(&path, e))?;
        let mut file = SettingsFile::new(path);
        let mut children = element_children(map);
        while let Some(key_node) = children.next() {
            let (name, value_node) =
                key_and_value(key_node, children.next()).map_err(|e| malformed(&file.path, e))?;
            file.read_entry(name, value_node)?;
        }
        Ok(file)
    }

    /// Reads one top-level entry into `self`.
    fn read_entry(&mut self, name: String, node: Node<'_, '_>) -> Result<(), SettingsError> {
        let Some(desc) = find(&name) else {
            let value = Llsd::from_xml(node).map_err(|e| malformed(&self.path, e))?;
            self.entries.push(Entry::Foreign(name, value));
            return Ok(());
        };
        let value = read_known(&self.path, desc, node)?;
        let (clamped, was_clamped) = desc.clamp(value);
        if was_clamped {
            tracing::warn!(
                "{}:{}: {}: {} is outside {}; using {}",
                self.path.display(),
                line_of(node),
                desc.name,
                value,
                desc.range_text(),
                clamped
            );
        }
        self.settings.store(desc, clamped);
        if !self.entries.contains(&Entry::Ours(desc)) {
            self.entries.push(Entry::Ours(desc));
        }
        Ok(())
    }

    /// The path this file was read from and is saved to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The foreign entries (keys this crate does not know), in file order.
    pub fn foreign_entries(&self) -> impl Iterator<Item = (&str, &Llsd)> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Foreign(name, value) => Some((name.as_str(), value)),
            Entry::Ours(_) => None,
        })
    }

    /// The document as the viewer would write it: foreign entries unchanged and in place, ours when
    /// persistent and not at their default.
    pub fn to_xml_string(&self) -> String {
        let mut out = String::from(XML_HEADER);
        let mut written = Vec::new();
        for entry in &self.entries {
            match entry {
                Entry::Foreign(name, value) => {
                    write_map_entry(&mut out, name, value, TOP_LEVEL_INDENT);
                }
                Entry::Ours(desc) => {
                    self.write_ours(&mut out, desc);
                    written.push(desc.name);
                }
            }
        }
        for desc in SETTINGS.iter().filter(|d| !written.contains(&d.name)) {
            self.write_ours(&mut out, desc);
        }
        out.push_str(XML_TRAILER);
        out
    }

    fn write_ours(&self, out: &mut String, desc: &SettingDesc) {
        let Ok(value) = self.settings.get(desc.name) else {
            return;
        };
        if desc.persist && value != desc.default {
            let entry = entry_llsd(desc, value);
            write_map_entry(out, desc.name, &entry, TOP_LEVEL_INDENT);
        }
    }

    /// Writes the file atomically (temporary file beside it, fsync, rename). Refuses to replace a
    /// file that failed to load unless `mode` is [`SaveMode::Overwrite`].
    pub fn save(&mut self, mode: SaveMode) -> Result<(), SettingsError> {
        if let (Some(reason), SaveMode::Normal) = (&self.load_failure, mode) {
            return Err(SettingsError::RefuseOverwrite { path: self.path.clone(), reason: reason.clone() });
        }
        write_atomically(&self.path, self.to_xml_string().as_bytes())?;
        self.load_failure = None;
        Ok(())
    }
}

/// The `<map>` under `<llsd>`, or why the document is not a settings file.
fn top_level_map<'a, 'i>(doc: &'a Document<'i>) -> Result<Node<'a, 'i>, LlsdParseError> {
    let root = doc.root_element();
    let line = line_of(root);
    if root.tag_name().name() != "llsd" {
        let reason = format!("root element is <{}>, expected <llsd>", root.tag_name().name());
        return Err(LlsdParseError { line, reason });
    }
    let mut children = element_children(root);
    match (children.next(), children.next()) {
        (Some(map), None) if map.tag_name().name() == "map" => Ok(map),
        (Some(other), None) => Err(LlsdParseError {
            line: line_of(other),
            reason: format!("<llsd> holds <{}>, expected <map>", other.tag_name().name()),
        }),
        (None, _) => Err(LlsdParseError { line, reason: "<llsd> holds no <map>".to_owned() }),
        (Some(_), Some(extra)) => Err(LlsdParseError {
            line: line_of(extra),
            reason: "<llsd> holds more than one value".to_owned(),
        }),
    }
}

/// A `<key>` node's name and the value node after it.
fn key_and_value<'a, 'i>(
    key: Node<'a, 'i>,
    value: Option<Node<'a, 'i>>,
) -> Result<(String, Node<'a, 'i>), LlsdParseError> {
    let line = line_of(key);
    if key.tag_name().name() != "key" {
        let reason = format!("<map> holds <{}> where a <key> was expected", key.tag_name().name());
        return Err(LlsdParseError { line, reason });
    }
    let name: String = key.children().filter_map(|c| c.text()).collect();
    let value = value
        .ok_or_else(|| LlsdParseError { line, reason: format!("<key>{name}</key> has no value after it") })?;
    Ok((name, value))
}

/// Reads the entry of one of our settings: its `Type` must match and its `Value` must convert.
fn read_known(path: &Path, desc: &SettingDesc, node: Node<'_, '_>) -> Result<SettingValue, SettingsError> {
    let wrong_type = |line: u32, found: String| SettingsError::WrongType {
        path: path.to_owned(),
        line,
        setting: desc.name.to_owned(),
        expected: desc.ty.as_str().to_owned(),
        found,
    };
    let entry = Llsd::from_xml(node).map_err(|e| malformed(path, e))?;
    if !matches!(entry, Llsd::Map(_)) {
        return Err(wrong_type(line_of(node), format!("<{}> instead of an entry <map>", entry.kind())));
    }
    match entry.get("Type") {
        Some(Llsd::String(t)) if t == desc.ty.as_str() => {}
        None => {}
        Some(other) => return Err(wrong_type(line_of(node), format!("Type {}", describe(other)))),
    }
    let value_line = value_line(node).unwrap_or_else(|| line_of(node));
    let Some(value) = entry.get("Value") else {
        let reason = format!("{}: setting entry has no Value", desc.name);
        return Err(SettingsError::Malformed { path: path.to_owned(), line: line_of(node), reason });
    };
    convert(desc, value).ok_or_else(|| wrong_type(value_line, describe(value)))
}

/// The line of the value after `<key>Value</key>` in an entry map.
fn value_line(entry: Node<'_, '_>) -> Option<u32> {
    let mut children = element_children(entry);
    while let Some(key) = children.next() {
        let value = children.next()?;
        if key.text() == Some("Value") {
            return Some(line_of(value));
        }
    }
    None
}

/// An LLSD value as a message shows it: `<string> "abc"`, `<real> nan`.
fn describe(value: &Llsd) -> String {
    match value {
        Llsd::String(s) => format!("<string> {s:?}"),
        Llsd::Integer(i) => format!("<integer> {i}"),
        Llsd::Real(r) => format!("<real> {r}"),
        other => format!("<{}>", other.kind()),
    }
}

/// Converts a stored value to the setting's type the way the viewer reads it: Booleans from
/// integers or booleans, integers from integers or integral reals (the viewer's own file has
/// `AFKTimeout` as an S32 holding `<real>300.0</real>`), U32 from the integer's bits (the viewer
/// stores U32 in a 32-bit LLSD integer), F32 from finite reals or integers.
fn convert(desc: &SettingDesc, value: &Llsd) -> Option<SettingValue> {
    match (desc.ty, value) {
        (SettingType::Boolean, Llsd::Boolean(b)) => Some(SettingValue::Boolean(*b)),
        (SettingType::Boolean, Llsd::Integer(i)) => Some(SettingValue::Boolean(*i != 0)),
        (SettingType::S32, Llsd::Integer(i)) => Some(SettingValue::S32(*i)),
        (SettingType::S32, Llsd::Real(r)) => integral(*r).map(SettingValue::S32),
        (SettingType::U32, Llsd::Integer(i)) => Some(SettingValue::U32(*i as u32)),
        (SettingType::U32, Llsd::Real(r)) => {
            integral(*r).filter(|i| *i >= 0).map(|i| SettingValue::U32(i as u32))
        }
        (SettingType::F32, Llsd::Real(r)) if r.is_finite() => Some(SettingValue::F32(*r as f32)),
        (SettingType::F32, Llsd::Integer(i)) => Some(SettingValue::F32(*i as f32)),
        _ => None,
    }
}

/// `r` as an `i32` when it is a whole number in range.
fn integral(r: f64) -> Option<i32> {
    let in_range = r >= f64::from(i32::MIN) && r <= f64::from(i32::MAX);
    (r.fract() == 0.0 && in_range).then_some(r as i32)
}

/// The entry map the viewer writes for one of our settings.
fn entry_llsd(desc: &SettingDesc, value: SettingValue) -> Llsd {
    let value = match value {
        SettingValue::Boolean(b) => Llsd::Integer(i32::from(b)),
        SettingValue::S32(i) => Llsd::Integer(i),
        SettingValue::U32(u) => Llsd::Integer(u as i32),
        // Through the shortest decimal form, so 0.7f32 is written as 0.7, not 0.699999988079071.
        SettingValue::F32(x) => Llsd::Real(x.to_string().parse().unwrap_or(f64::from(x))),
    };
    Llsd::Map(vec![
        ("Comment".to_owned(), Llsd::String(desc.comment.to_owned())),
        ("Persist".to_owned(), Llsd::Integer(i32::from(desc.persist))),
        ("Type".to_owned(), Llsd::String(desc.ty.as_str().to_owned())),
        ("Value".to_owned(), value),
    ])
}

fn malformed(path: &Path, e: LlsdParseError) -> SettingsError {
    SettingsError::Malformed { path: path.to_owned(), line: e.line, reason: e.reason }
}

/// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over `path`, then fsyncs
/// the directory so the rename itself is durable.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), SettingsError> {
    let io_err = |p: &Path| {
        let p = p.to_owned();
        move |source| SettingsError::Io { path: p, source }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let file_name = path.file_name().map_or_else(|| "settings.xml".into(), |n| n.to_os_string());
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(&file_name);
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp).map_err(io_err(&tmp))?;
        f.write_all(bytes).map_err(io_err(&tmp))?;
        f.sync_all().map_err(io_err(&tmp))?;
        std::fs::rename(&tmp, path).map_err(io_err(path))
    })();
    if result.is_err() {
        // Best effort: the temporary file is ours and useless now; the real error is reported.
        let _ = std::fs::remove_file(&tmp);
        return result;
    }
    // Directory fsync makes the rename durable on POSIX; not all platforms can open a directory.
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
