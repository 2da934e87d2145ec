//! Live settings under concurrent readers and writers: a change is seen by the next snapshot, and
//! no reader ever sees half of a change.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use settings::{Settings, SettingsHandle};

/// The initial particle capacity; each change adds one, so capacity = START + version.
const START: u32 = 8192;
const WRITERS: usize = 2;
const CHANGES_PER_WRITER: u32 = 2000;
const READERS: usize = 2;

/// Sets three settings from one counter, so a torn snapshot would break their relation.
fn bump(s: &mut Settings) {
    let c = s.particle_capacity + 1;
    s.particle_capacity = c;
    s.max_part_count = (c % 8193) as i32;
    s.froxel_grid_z = 16 + c % 241;
}

fn consistent(s: &Settings) -> bool {
    let c = s.particle_capacity;
    s.max_part_count == (c % 8193) as i32 && s.froxel_grid_z == 16 + c % 241
}

#[test]
fn concurrent_readers_never_see_torn_or_stale_state() {
    let mut initial = Settings { particle_capacity: START - 1, ..Settings::default() };
    bump(&mut initial);
    let handle = SettingsHandle::new(initial);
    let done = Arc::new(AtomicBool::new(false));

    let readers: Vec<_> = (0..READERS)
        .map(|_| {
            let handle = handle.clone();
            let done = Arc::clone(&done);
            thread::spawn(move || {
                let (mut last_version, mut frames) = (0u64, 0u64);
                while !done.load(Ordering::Acquire) || frames == 0 {
                    let seen = handle.version();
                    assert!(seen >= last_version, "version went backwards");
                    let (version, snap) = handle.versioned_snapshot();
                    assert!(version >= seen, "snapshot older than the version announced before it");
                    assert!(consistent(&snap), "torn snapshot at version {version}");
                    assert_eq!(u64::from(snap.particle_capacity), u64::from(START) + version);
                    last_version = version;
                    frames += 1;
                }
                frames
            })
        })
        .collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|_| {
            let handle = handle.clone();
            thread::spawn(move || {
                for _ in 0..CHANGES_PER_WRITER {
                    handle
                        .update(|s| {
                            bump(s);
                            Ok(())
                        })
                        .expect("in range");
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer panicked");
    }
    done.store(true, Ordering::Release);
    for r in readers {
        assert!(r.join().expect("reader panicked") > 0);
    }
    let total = u64::from(CHANGES_PER_WRITER) * WRITERS as u64;
    assert_eq!(handle.version(), total, "every change counted once");
    assert_eq!(u64::from(handle.snapshot().particle_capacity), u64::from(START) + total);
}

#[test]
fn the_renderer_pattern_picks_up_a_change_on_the_next_frame() {
    let handle = SettingsHandle::default();
    let ui = handle.clone();
    let (mut version, mut current) = handle.versioned_snapshot();
    let frame = |version: &mut u64, current: &mut Arc<Settings>| {
        if handle.version() != *version {
            (*version, *current) = handle.versioned_snapshot();
        }
        current.particle_fog_strength
    };
    assert_eq!(frame(&mut version, &mut current), 1.0);
    ui.set_text("RenderVKParticleFogStrength", "3").expect("valid");
    assert_eq!(frame(&mut version, &mut current), 3.0, "seen on the next frame");
    let before = Arc::clone(&current);
    assert_eq!(frame(&mut version, &mut current), 3.0);
    assert!(Arc::ptr_eq(&before, &current), "no new snapshot when nothing changed");
}
