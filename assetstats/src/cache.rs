//! [`StatsCache`]: statistics computed once per texture content, kept on disk as JSON.
//!
//! Entries are keyed by [`TextureKey`] (texture UUID or file path) and remember the SHA-256 of the
//! file bytes they were computed from; a look-up re-hashes the file (cheap next to decoding) and
//! recomputes only when the content changed. The file is one JSON document, written to a temporary
//! file beside it and renamed over it, so a crash never leaves half a cache. A cache file that
//! cannot be read or parsed, or was written by another [`STATS_VERSION`], is reported with a
//! warning (`tracing::warn!` and [`StatsCache::load_warning`]) and ignored.
//!
//! Look-ups may run concurrently: the map is behind a `parking_lot::RwLock`, held only to read or
//! insert, never while decoding; two threads asking for the same new texture at once may both
//! compute it, and the results are identical. [`StatsCache::compute_batch`] runs on rayon.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use parking_lot::RwLock;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::load::read_texture_bytes;
use crate::stats::stats_from_bytes;
use crate::{default_texture_stats, AssetError, TextureStats, STATS_VERSION};

/// The null UUID: a particle system with it uses the viewer's default texture.
const NULL_UUID: &str = "00000000-0000-0000-0000-000000000000";

/// Version of the cache file's layout.
const CACHE_FORMAT: u32 = 1;

/// What a texture is known by.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextureKey {
    /// A texture asset UUID, lower-case hyphenated text.
    Uuid(String),
    /// A texture file.
    Path(PathBuf),
    /// The viewer's built-in default particle texture (null UUID): its statistics are shipped.
    DefaultParticle,
}

impl TextureKey {
    /// Key for a texture UUID; the null UUID maps to [`TextureKey::DefaultParticle`].
    pub fn uuid(uuid: &str) -> Self {
        let normalised = uuid.trim().to_ascii_lowercase();
        if normalised == NULL_UUID {
            TextureKey::DefaultParticle
        } else {
            TextureKey::Uuid(normalised)
        }
    }

    /// Key for a texture file.
    pub fn path(path: impl Into<PathBuf>) -> Self {
        TextureKey::Path(path.into())
    }

    /// True for the viewer's default particle texture.
    pub fn is_default(&self) -> bool {
        matches!(self, TextureKey::DefaultParticle)
    }
}

/// One cached result.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CacheEntry {
    key: TextureKey,
    /// Hex SHA-256 of the file bytes the statistics came from.
    sha256: String,
    stats: TextureStats,
}

/// The cache file's layout.
#[derive(Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    stats_version: u32,
    entries: Vec<CacheEntry>,
}

/// Texture statistics by key and content hash, optionally persisted to one JSON file.
pub struct StatsCache {
    path: Option<PathBuf>,
    entries: RwLock<HashMap<TextureKey, CacheEntry>>,
    computations: AtomicU64,
    dirty: AtomicBool,
    load_warning: Option<String>,
}

impl StatsCache {
    /// A cache that lives only in memory ([`StatsCache::save`] does nothing).
    pub fn in_memory() -> Self {
        StatsCache {
            path: None,
            entries: RwLock::new(HashMap::new()),
            computations: AtomicU64::new(0),
            dirty: AtomicBool::new(false),
            load_warning: None,
        }
    }

    /// Opens the cache stored at `path`. A missing file gives an empty cache; an unreadable,
    /// corrupt or out-of-date one gives an empty cache and a warning, never an error.
    pub fn open(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let mut cache = StatsCache::in_memory();
        match load_entries(&path) {
            Ok(entries) => {
                *cache.entries.get_mut() = entries.into_iter().map(|e| (e.key.clone(), e)).collect();
            }
            Err(Some(warning)) => {
                tracing::warn!("{warning}");
                cache.load_warning = Some(warning);
            }
            Err(None) => {}
        }
        cache.path = Some(path);
        cache
    }

    /// Why the cache file was ignored when opened, if it was.
    pub fn load_warning(&self) -> Option<&str> {
        self.load_warning.as_deref()
    }

    /// Cached statistics for `key`; `None` for a texture never computed (the classifier then keeps
    /// the particles). The default particle texture is always known.
    pub fn get(&self, key: &TextureKey) -> Option<TextureStats> {
        if key.is_default() {
            return Some(default_texture_stats());
        }
        self.entries.read().get(key).map(|e| e.stats.clone())
    }

    /// Statistics for `key` from the file at `path`: the cached ones if the file's content is
    /// unchanged, otherwise decoded and measured now, and cached. For
    /// [`TextureKey::DefaultParticle`] the shipped statistics, without reading `path`.
    pub fn get_or_compute_file(&self, key: &TextureKey, path: &Path) -> Result<TextureStats, AssetError> {
        if key.is_default() {
            return Ok(default_texture_stats());
        }
        let bytes = read_texture_bytes(path)?;
        let sha256 = hex_sha256(&bytes);
        if let Some(entry) = self.entries.read().get(key) {
            if entry.sha256 == sha256 {
                return Ok(entry.stats.clone());
            }
        }
        let stats = stats_from_bytes(&bytes, path)?;
        self.computations.fetch_add(1, Ordering::Relaxed);
        let entry = CacheEntry { key: key.clone(), sha256, stats: stats.clone() };
        self.entries.write().insert(key.clone(), entry);
        self.dirty.store(true, Ordering::Release);
        Ok(stats)
    }

    /// [`StatsCache::get_or_compute_file`] for many textures in parallel; results in input order.
    pub fn compute_batch(&self, items: &[(TextureKey, PathBuf)]) -> Vec<Result<TextureStats, AssetError>> {
        items.par_iter().map(|(key, path)| self.get_or_compute_file(key, path)).collect()
    }

    /// How many textures this cache has decoded and measured since it was created.
    pub fn computations(&self) -> u64 {
        self.computations.load(Ordering::Relaxed)
    }

    /// Number of cached entries.
    pub fn len(&self) -> usize {
        self.entries.read().len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the cache file (temporary file + rename) if anything changed since it was opened.
    pub fn save(&self) -> Result<(), AssetError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if !self.dirty.swap(false, Ordering::AcqRel) {
            return Ok(());
        }
        let mut entries: Vec<CacheEntry> = self.entries.read().values().cloned().collect();
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        let file = CacheFile { format: CACHE_FORMAT, stats_version: STATS_VERSION, entries };
        let result = write_atomically(path, &file);
        if result.is_err() {
            self.dirty.store(true, Ordering::Release);
        }
        result
    }
}

/// Reads a cache file: `Err(None)` if there is none, `Err(Some(warning))` if it is unusable.
fn load_entries(path: &Path) -> Result<Vec<CacheEntry>, Option<String>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(None),
        Err(e) => {
            return Err(Some(format!(
                "{}: cannot read texture stats cache, ignoring it: {e}",
                path.display()
            )))
        }
    };
    let file: CacheFile = serde_json::from_str(&text)
        .map_err(|e| Some(format!("{}: corrupt texture stats cache, ignoring it: {e}", path.display())))?;
    if file.format != CACHE_FORMAT || file.stats_version != STATS_VERSION {
        return Err(Some(format!(
            "{}: texture stats cache is format {} / stats version {} (this build: {CACHE_FORMAT} / {STATS_VERSION}), ignoring it",
            path.display(),
            file.format,
            file.stats_version
        )));
    }
    Ok(file.entries)
}

/// Serialises `file` to a temporary file beside `path`, then renames it over `path`.
fn write_atomically(path: &Path, file: &CacheFile) -> Result<(), AssetError> {
    let json = serde_json::to_vec_pretty(file)
        .map_err(|e| AssetError::CacheFormat { file: path.to_path_buf(), reason: e.to_string() })?;
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp_name);
    let io_err = |reason| AssetError::Io { file: path.to_path_buf(), reason };
    std::fs::write(&tmp, json).map_err(io_err)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        // Best effort: do not leave the temporary file behind.
        let _ = std::fs::remove_file(&tmp);
        io_err(e)
    })
}

/// Lower-case hex SHA-256 of `bytes`.
fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}
