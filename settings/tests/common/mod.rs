//! Helpers shared by the integration tests: a scratch directory and a tracing capture.
#![allow(dead_code)]

pub mod fuzz;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata};

/// A directory under the system temp dir, removed when dropped.
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// A fresh, empty directory unique to this process and `name`.
    pub fn new(name: &str) -> ScratchDir {
        let dir = std::env::temp_dir().join(format!("settings-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        ScratchDir(dir)
    }

    /// A path inside the directory.
    pub fn join(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The text of `testdata/settings.xml`.
pub fn realistic_file() -> &'static str {
    include_str!("../../testdata/settings.xml")
}

/// The top-level map of an LLSD document, parsed independently of `SettingsFile`.
pub fn top_map(text: &str) -> Vec<(String, settings::Llsd)> {
    let doc = roxmltree::Document::parse(text).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "llsd");
    let map = root.children().find(|n| n.is_element()).expect("<map> under <llsd>");
    match settings::Llsd::from_xml(map).expect("valid LLSD") {
        settings::Llsd::Map(entries) => entries,
        other => panic!("top level is <{}>", other.kind()),
    }
}

/// One top-level `<key>`/entry pair in the viewer's layout: `Comment`, `Persist`, `Type`, `Value`
/// (the value element given as XML), then `extra` XML (e.g. a `Backup` key and value) verbatim.
pub fn entry_xml(name: &str, ty: &str, value: &str, extra: &str) -> String {
    format!(
        "    <key>{name}</key>\n    <map>\n      <key>Comment</key>\n      <string>The user's own words \
         for {name}.</string>\n      <key>Persist</key>\n      <integer>1</integer>\n      \
         <key>Type</key>\n      <string>{ty}</string>\n      <key>Value</key>\n      {value}\n{extra}    \
         </map>\n"
    )
}

/// A settings document holding the given top-level entries (from [`entry_xml`]).
pub fn document(entries: &[String]) -> String {
    format!("<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n{}</map>\n</llsd>\n", entries.concat())
}

/// A minimal tracing subscriber recording every event's level and message.
#[derive(Clone, Default)]
pub struct Capture(Arc<Mutex<Vec<(Level, String)>>>);

impl Capture {
    /// Runs `f` with this subscriber as the thread's default.
    pub fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        tracing::subscriber::with_default(self.clone(), f)
    }

    /// The messages recorded at `level`.
    pub fn messages(&self, level: Level) -> Vec<String> {
        self.0.lock().iter().filter(|(l, _)| *l == level).map(|(_, m)| m.clone()).collect()
    }
}

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        self.0.lock().push((*event.metadata().level(), message.0));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}
