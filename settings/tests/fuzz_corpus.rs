//! Replays the fuzzer's corpus (`settings/fuzz/corpus/settings_xml/`) on stable Rust.
//!
//! Every file must parse without panicking and, where it loads, save to a text that loads and saves
//! the same. Seed files named `ok_*` must load and `err_*` must be refused with an error; files the
//! fuzzer adds (hash names) are only replayed.

mod common;

use common::fuzz::{check, corpus};

#[test]
fn every_corpus_file_replays_cleanly() {
    let mut seeds = 0;
    for (name, bytes) in corpus() {
        let text = String::from_utf8_lossy(&bytes);
        let parsed = check(&text).unwrap_or_else(|broken| panic!("{name}: {broken}"));
        let expected = name.split_once('_').map(|(outcome, _)| outcome);
        match (expected, &parsed) {
            (Some("ok"), Err(e)) => panic!("{name} must load: {e}"),
            (Some("err"), Ok(_)) => panic!("{name} must be refused"),
            (Some("ok" | "err"), _) => seeds += 1,
            _ => {}
        }
    }
    assert!(seeds >= 10, "only {seeds} named seed files: the seed corpus is incomplete");
}
