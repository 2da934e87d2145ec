//! [`SettingsHandle`]: settings shared between the UI or CLI thread that changes them and the
//! renderer that reads them once per frame.
//!
//! Writers clone the current [`Settings`], change the clone, publish it as a new `Arc` and bump a
//! version counter, all under a write lock, so a reader never sees half of a change. The renderer's
//! per-frame check is one atomic load of the version; only when it moved does it take the read lock
//! (held for an `Arc` clone) to fetch the new snapshot. A change therefore takes effect on the next
//! frame. (The same copy-on-write snapshot scheme as `arc-swap`, with a lock instead of hazard
//! pointers because writes are rare and human-driven.)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use crate::table::SettingValue;
use crate::{Settings, SettingsError};

#[derive(Debug)]
struct Shared {
    current: RwLock<(u64, Arc<Settings>)>,
    version: AtomicU64,
}

/// A cheaply cloneable, thread-safe handle to live settings.
#[derive(Debug, Clone)]
pub struct SettingsHandle {
    shared: Arc<Shared>,
}

impl SettingsHandle {
    /// A handle starting from `settings` at version 0.
    pub fn new(settings: Settings) -> SettingsHandle {
        SettingsHandle {
            shared: Arc::new(Shared {
                current: RwLock::new((0, Arc::new(settings))),
                version: AtomicU64::new(0),
            }),
        }
    }

    /// The version of the latest change: one atomic load, no lock. Compare it with the version of
    /// the snapshot in hand to know whether to fetch a new one.
    pub fn version(&self) -> u64 {
        self.shared.version.load(Ordering::Acquire)
    }

    /// The current settings.
    pub fn snapshot(&self) -> Arc<Settings> {
        Arc::clone(&self.shared.current.read().1)
    }

    /// The current settings and the version they belong to, read together.
    pub fn versioned_snapshot(&self) -> (u64, Arc<Settings>) {
        let guard = self.shared.current.read();
        (guard.0, Arc::clone(&guard.1))
    }

    /// Sets one setting by name (type and range checked) and publishes the change.
    pub fn set(&self, name: &str, value: SettingValue) -> Result<(), SettingsError> {
        self.update(|s| s.set(name, value))
    }

    /// Sets one setting from text (`RenderVKParticleFog`, `"1"`) and publishes the change.
    pub fn set_text(&self, name: &str, text: &str) -> Result<(), SettingsError> {
        self.update(|s| s.set_text(name, text))
    }

    /// Applies `change` to a copy of the settings and publishes it as one change (several
    /// settings at once are seen together or not at all). Nothing is published if `change` fails.
    pub fn update<F>(&self, change: F) -> Result<(), SettingsError>
    where
        F: FnOnce(&mut Settings) -> Result<(), SettingsError>,
    {
        let mut guard = self.shared.current.write();
        let mut next = Settings::clone(&guard.1);
        change(&mut next)?;
        let version = guard.0 + 1;
        *guard = (version, Arc::new(next));
        self.shared.version.store(version, Ordering::Release);
        Ok(())
    }

    /// Replaces all settings at once (e.g. after reloading the file).
    pub fn replace(&self, settings: Settings) {
        let mut guard = self.shared.current.write();
        let version = guard.0 + 1;
        *guard = (version, Arc::new(settings));
        self.shared.version.store(version, Ordering::Release);
    }
}

impl Default for SettingsHandle {
    fn default() -> Self {
        SettingsHandle::new(Settings::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_seen_by_the_next_snapshot() {
        let handle = SettingsHandle::default();
        let renderer = handle.clone();
        let before = renderer.version();
        assert!(!renderer.snapshot().particle_fog);
        handle.set("RenderVKParticleFog", SettingValue::Boolean(true)).expect("valid");
        assert_eq!(renderer.version(), before + 1);
        assert!(renderer.snapshot().particle_fog);
    }

    #[test]
    fn a_rejected_change_publishes_nothing() {
        let handle = SettingsHandle::default();
        let err =
            handle.set("RenderVKParticleFogThreshold", SettingValue::F32(3.5)).expect_err("out of range");
        assert_eq!(err.to_string(), "RenderVKParticleFogThreshold: 3.5 is outside 0.2..=1");
        assert_eq!(handle.version(), 0);
        assert_eq!(handle.snapshot().particle_fog_threshold, 0.7);
    }

    #[test]
    fn snapshots_in_hand_do_not_change() {
        let handle = SettingsHandle::default();
        let old = handle.snapshot();
        handle.set_text("RenderMaxPartCount", "1024").expect("valid");
        assert_eq!(old.max_part_count, 4096);
        assert_eq!(handle.snapshot().max_part_count, 1024);
    }
}
