//! The per-object overrides file, `particle_fog_overrides.xml` beside the user's settings.xml:
//! per-user state kept as the viewer keeps it, an LLSD XML document read and written with the care
//! of settings.xml (the `settings` crate's [`settings::document`]: bounds, nesting, line numbers,
//! atomic saves through links with the mode kept).
//!
//! ```xml
//! <llsd>
//! <map>
//!     <key>5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e</key>   <!-- the object's id -->
//!     <map>
//!       <key>2</key>                                    <!-- the link number -->
//!       <map>
//!         <key>Override</key>
//!         <string>fog</string>                          <!-- fog or billboards -->
//!       </map>
//!     </map>
//! </map>
//! </llsd>
//! ```
//!
//! * **Foreign entries are kept**: a top-level key that is not a UUID, an object's key that is not
//!   a link number and any field of a link's map but `Override` are written back as they were, in
//!   place. Setting a system back to automatic removes its `Override` only (and the maps left
//!   empty by that).
//! * **A corrupt file is refused and left untouched**: bad XML, a root that is not
//!   `<llsd><map>`, an object whose value is not a map, a link that is not a map, an `Override`
//!   that is not `fog`, `billboards` or `auto` are errors naming the file and line.
//!   [`OverridesFile::open_or_defaults`] starts empty instead, and its [`OverridesFile::save`]
//!   then refuses to replace the unreadable file unless asked with [`SaveMode::Overwrite`].
//! * An object or link held twice: the later entry is the one read and changed, as in the viewer's
//!   map; the earlier one is kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use particles::Uuid;
use settings::document::{self, MapEntry};
use settings::{Llsd, SaveMode, SettingsError};

use crate::classify::overrides::{Override, SystemKey, MAX_LINK};
use crate::FogError;

/// The file's name, beside settings.xml.
pub const FILE_NAME: &str = "particle_fog_overrides.xml";
/// The field of a link's map that holds its override.
pub const OVERRIDE_FIELD: &str = "Override";

/// The overrides file beside the settings file `settings_path`.
pub fn beside(settings_path: &Path) -> PathBuf {
    settings_path.parent().map_or_else(|| PathBuf::from(FILE_NAME), |dir| dir.join(FILE_NAME))
}

/// The overrides of one user: every entry the file holds, and the overrides read from it.
#[derive(Debug, Clone)]
pub struct OverridesFile {
    path: PathBuf,
    entries: Vec<(String, Llsd)>,
    overrides: BTreeMap<SystemKey, Override>,
    load_failure: Option<String>,
}

impl OverridesFile {
    /// No overrides, to be saved at `path`.
    pub fn new(path: impl Into<PathBuf>) -> OverridesFile {
        OverridesFile {
            path: path.into(),
            entries: Vec::new(),
            overrides: BTreeMap::new(),
            load_failure: None,
        }
    }

    /// Reads `path`; a missing file is an error, and so is anything but a regular file of at most
    /// [`settings::MAX_FILE_BYTES`].
    pub fn load(path: impl Into<PathBuf>) -> Result<OverridesFile, FogError> {
        let path = path.into();
        let text = document::read_file(&path).map_err(file_error)?;
        OverridesFile::parse(path, &text)
    }

    /// Reads `path`, or starts empty when it does not exist yet.
    pub fn open(path: impl Into<PathBuf>) -> Result<OverridesFile, FogError> {
        let path = path.into();
        match document::read_file(&path) {
            Err(SettingsError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                Ok(OverridesFile::new(path))
            }
            Err(e) => Err(file_error(e)),
            Ok(text) => OverridesFile::parse(path, &text),
        }
    }

    /// Reads `path` like [`OverridesFile::open`]; on failure returns an empty file together with
    /// the error, which refuses to [`save`](Self::save) over the unreadable one unless asked with
    /// [`SaveMode::Overwrite`]. For a renderer that must start anyway.
    pub fn open_or_defaults(path: impl Into<PathBuf>) -> (OverridesFile, Option<FogError>) {
        let path = path.into();
        match OverridesFile::open(path.clone()) {
            Ok(file) => (file, None),
            Err(err) => {
                let mut file = OverridesFile::new(path);
                file.load_failure = Some(err.to_string());
                (file, Some(err))
            }
        }
    }

    /// Parses the text of an overrides file; `path` is used in messages and by `save`.
    pub fn parse(path: impl Into<PathBuf>, text: &str) -> Result<OverridesFile, FogError> {
        let path = path.into();
        let entries = document::parse_map(&path, text).map_err(file_error)?;
        let mut overrides = BTreeMap::new();
        for entry in &entries {
            read_object(&path, entry, &mut overrides)?;
        }
        let entries = entries.into_iter().map(|e| (e.key, e.value)).collect();
        Ok(OverridesFile { path, entries, overrides, load_failure: None })
    }

    /// The override of one system ([`Override::Auto`] when the file holds none).
    pub fn get(&self, key: &SystemKey) -> Override {
        self.overrides.get(key).copied().unwrap_or_default()
    }

    /// Every override the file holds (none is [`Override::Auto`]), by key.
    pub fn iter(&self) -> impl Iterator<Item = (&SystemKey, &Override)> {
        self.overrides.iter()
    }

    /// The path this file was read from and is saved to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sets one system's override; [`Override::Auto`] removes it (its link's other fields kept).
    pub fn set(&mut self, key: SystemKey, o: Override) {
        if o == Override::Auto {
            self.overrides.remove(&key);
        } else {
            self.overrides.insert(key, o);
        }
        let object_text = key.object.to_string();
        let link_text = key.link.to_string();
        let object_at = self.entries.iter().rposition(|(k, _)| parses_as(k, key.object));
        let Some(at) = object_at else {
            if o != Override::Auto {
                let link = Llsd::Map(vec![(OVERRIDE_FIELD.to_owned(), Llsd::String(o.as_str().to_owned()))]);
                self.entries.push((object_text, Llsd::Map(vec![(link_text, link)])));
            }
            return;
        };
        let Llsd::Map(links) = &mut self.entries[at].1 else {
            return;
        };
        set_in_links(links, key.link, link_text, o);
        if links.is_empty() {
            self.entries.remove(at);
        }
    }

    /// The document to save: every entry in place, ours as set.
    pub fn to_xml_string(&self) -> String {
        document::to_xml_string(self.entries.iter().map(|(k, v)| (k.as_str(), v)))
    }

    /// Writes the file atomically (see [`settings::save`]). Refuses to replace a file that failed
    /// to load unless `mode` is [`SaveMode::Overwrite`].
    pub fn save(&mut self, mode: SaveMode) -> Result<(), FogError> {
        if let (Some(reason), SaveMode::Normal) = (&self.load_failure, mode) {
            return Err(FogError::OverridesFile(format!(
                "{}: refusing to overwrite an overrides file that failed to load ({reason})",
                self.path.display()
            )));
        }
        document::save(&self.path, &self.to_xml_string()).map_err(file_error)?;
        self.load_failure = None;
        Ok(())
    }
}

/// Sets `o` for `link` in an object's map of links (the last entry for it, as the viewer's map).
fn set_in_links(links: &mut Vec<(String, Llsd)>, link: u32, link_text: String, o: Override) {
    let at = links.iter().rposition(|(k, _)| parse_link(k) == Some(link));
    let value = Llsd::String(o.as_str().to_owned());
    match (at, o) {
        (None, Override::Auto) => {}
        (None, _) => links.push((link_text, Llsd::Map(vec![(OVERRIDE_FIELD.to_owned(), value)]))),
        (Some(i), _) => {
            let Llsd::Map(fields) = &mut links[i].1 else {
                return;
            };
            let field = fields.iter().rposition(|(k, _)| k == OVERRIDE_FIELD);
            match (field, o) {
                (Some(f), Override::Auto) => {
                    fields.remove(f);
                }
                (Some(f), _) => fields[f].1 = value,
                (None, Override::Auto) => {}
                (None, _) => fields.push((OVERRIDE_FIELD.to_owned(), value)),
            }
            if fields.is_empty() {
                links.remove(i);
            }
        }
    }
}

/// True when `key` is the text of the object id `object`.
fn parses_as(key: &str, object: Uuid) -> bool {
    key.parse::<Uuid>().is_ok_and(|u| u == object)
}

/// A link number key, 0..=[`MAX_LINK`]; `None` for any other key (a foreign field).
fn parse_link(key: &str) -> Option<u32> {
    let digits = !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| key.parse::<u32>().ok()).flatten().filter(|l| *l <= MAX_LINK)
}

/// Reads one top-level entry: an object's links when its key is a UUID, else nothing (foreign).
fn read_object(
    path: &Path,
    entry: &MapEntry,
    overrides: &mut BTreeMap<SystemKey, Override>,
) -> Result<(), FogError> {
    let Ok(object) = entry.key.parse::<Uuid>() else {
        return Ok(());
    };
    let corrupt = |what: String| {
        FogError::OverridesFile(format!("{}:{}: object {}: {what}", path.display(), entry.line, entry.key))
    };
    let Llsd::Map(links) = &entry.value else {
        return Err(corrupt(format!("holds <{}>, expected a <map> of link numbers", entry.value.kind())));
    };
    for (link_key, value) in links {
        let Some(link) = parse_link(link_key) else {
            continue;
        };
        let Llsd::Map(fields) = value else {
            return Err(corrupt(format!("link {link} holds <{}>, expected a <map>", value.kind())));
        };
        let Some((_, field)) = fields.iter().rev().find(|(k, _)| k == OVERRIDE_FIELD) else {
            overrides.remove(&SystemKey { object, link });
            continue;
        };
        let o = match field {
            Llsd::String(text) => text.parse::<Override>().ok(),
            _ => None,
        }
        .ok_or_else(|| {
            corrupt(format!(
                "link {link}: {OVERRIDE_FIELD} holds {}, expected the string auto, fog or billboards",
                field.compact_text()
            ))
        })?;
        if o == Override::Auto {
            overrides.remove(&SystemKey { object, link });
        } else {
            overrides.insert(SystemKey { object, link }, o);
        }
    }
    Ok(())
}

/// A settings-crate error reading or writing the file, as this crate's.
fn file_error(e: SettingsError) -> FogError {
    FogError::OverridesFile(e.to_string())
}
