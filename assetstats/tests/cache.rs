//! The statistics cache: recomputes only on content change, persists atomically, survives a
//! corrupt file, and serves concurrent look-ups.

mod common;

use std::path::{Path, PathBuf};

use assetstats::{AssetError, Shape, StatsCache, TextureKey};

/// A scratch directory unique to this test binary and test.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("assetstats-cache-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

fn write_png(path: &Path, img: &image::RgbaImage) {
    img.save(path).expect("write test png");
}

#[test]
fn second_lookup_reuses_and_a_changed_file_recomputes() {
    let dir = scratch_dir("reuse");
    let file = dir.join("puff.png");
    write_png(&file, &common::render(64, common::gaussian(0.15)));
    let key = TextureKey::uuid("11111111-2222-3333-4444-555555555555");
    let cache = StatsCache::in_memory();
    assert!(cache.get(&key).is_none(), "unknown texture gives None");

    let first = cache.get_or_compute_file(&key, &file).expect("valid file");
    assert_eq!(cache.computations(), 1);
    let second = cache.get_or_compute_file(&key, &file).expect("valid file");
    assert_eq!(cache.computations(), 1, "unchanged content is not recomputed");
    assert_eq!(first, second);
    assert_eq!(cache.get(&key), Some(first.clone()));

    write_png(&file, &common::render(64, common::disc(0.4)));
    let third = cache.get_or_compute_file(&key, &file).expect("valid file");
    assert_eq!(cache.computations(), 2, "changed content is recomputed");
    assert_eq!((first.shape, third.shape), (Shape::Soft, Shape::Shaped));
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn saved_cache_reopens_without_recomputing() {
    let dir = scratch_dir("persist");
    let file = dir.join("puff.png");
    write_png(&file, &common::render(64, common::cloud_puff()));
    let cache_path = dir.join("texstats.json");
    let key = TextureKey::path(&file);
    let original = {
        let cache = StatsCache::open(&cache_path);
        assert!(cache.is_empty() && cache.load_warning().is_none());
        let stats = cache.get_or_compute_file(&key, &file).expect("valid file");
        cache.save().expect("save cache");
        stats
    };
    let names: Vec<_> =
        std::fs::read_dir(&dir).expect("list").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(names.len(), 2, "no temporary file left behind: {names:?}");

    let reopened = StatsCache::open(&cache_path);
    assert_eq!(reopened.load_warning(), None);
    assert_eq!(reopened.get(&key), Some(original.clone()));
    let again = reopened.get_or_compute_file(&key, &file).expect("valid file");
    assert_eq!(reopened.computations(), 0, "served from the file");
    assert_eq!(again, original);
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn corrupt_cache_file_is_ignored_with_a_warning() {
    let dir = scratch_dir("corrupt");
    let cache_path = dir.join("texstats.json");
    for bad in [
        &b"{\"format\": 1, \"entr"[..],
        b"\xff\xfe not json",
        b"{\"format\": 99, \"stats_version\": 1, \"entries\": []}",
    ] {
        std::fs::write(&cache_path, bad).expect("write corrupt cache");
        let cache = StatsCache::open(&cache_path);
        assert!(cache.is_empty());
        let warning = cache.load_warning().expect("a warning");
        assert!(warning.contains("texstats.json"), "{warning}");
    }
    // Still usable, and saving replaces the corrupt file with a good one.
    let cache = StatsCache::open(&cache_path);
    let file = dir.join("blob.png");
    write_png(&file, &common::render(64, common::gaussian(0.15)));
    cache.get_or_compute_file(&TextureKey::path(&file), &file).expect("valid file");
    cache.save().expect("save");
    assert!(StatsCache::open(&cache_path).load_warning().is_none());
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn batch_is_parallel_ordered_and_counts_each_texture_once() {
    let dir = scratch_dir("batch");
    let shapes: [(&str, common::AlphaFn); 4] = [
        ("blob", Box::new(common::gaussian(0.15))),
        ("disc", Box::new(common::disc(0.4))),
        ("cloud", Box::new(common::cloud_puff())),
        ("star", Box::new(common::star())),
    ];
    let mut items = Vec::new();
    for (name, alpha) in &shapes {
        let file = dir.join(format!("{name}.png"));
        write_png(&file, &common::render(64, alpha));
        items.push((TextureKey::path(&file), file));
    }
    items.push((TextureKey::path(dir.join("missing.png")), dir.join("missing.png")));
    let cache = StatsCache::in_memory();
    let results = cache.compute_batch(&items);
    let shapes: Vec<Option<Shape>> = results.iter().map(|r| r.as_ref().ok().map(|s| s.shape)).collect();
    assert_eq!(
        shapes,
        [Some(Shape::Soft), Some(Shape::Shaped), Some(Shape::Soft), Some(Shape::Shaped), None]
    );
    assert!(matches!(results[4], Err(AssetError::Io { .. })));
    assert_eq!(cache.computations(), 4);
    // Many threads asking again at once: all served from the cache.
    let again = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8).map(|_| scope.spawn(|| cache.compute_batch(&items[..4]))).collect();
        handles.into_iter().map(|h| h.join().expect("thread")).collect::<Vec<_>>()
    });
    assert!(again.iter().flatten().all(Result::is_ok));
    assert_eq!(cache.computations(), 4);
    std::fs::remove_dir_all(&dir).expect("clean up");
}
