//! Replays the fuzzer's corpus (`particles/fuzz/corpus/decode/`) through `decode` on stable Rust.
//!
//! Every file must decode without panicking; where it decodes to a system, re-encoding and decoding
//! again must give the same system (the DATA_GLOW/DATA_BLEND bits aside: they describe the layout,
//! and the encoder writes them to match the tails it emits). Seed files named `ok_*`, `none_*` or
//! `rejected_*` must also reach that outcome; files the fuzzer adds (hash names) are only replayed.

use std::fs;
use std::path::{Path, PathBuf};

use particles::codec::{decode, encode, Decoded};
use particles::{PartFlags, PartSysData};

fn corpus_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/decode");
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("readable corpus entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the corpus {} is empty", dir.display());
    files
}

fn without_tail_flags(sys: &PartSysData) -> PartSysData {
    let mut sys = *sys;
    sys.part.flags.0 &= !(PartFlags::DATA_GLOW | PartFlags::DATA_BLEND);
    sys
}

fn outcome(decoded: &Decoded) -> &'static str {
    match decoded {
        Decoded::System(_) => "ok",
        Decoded::NoSystem(_) => "none",
        Decoded::Rejected(_) => "rejected",
    }
}

#[test]
fn every_corpus_file_replays_cleanly() {
    let mut seeds = 0;
    for path in corpus_files() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let block = fs::read(&path).expect("readable corpus file");
        let decoded = decode(&block);
        if let Decoded::System(sys) = &decoded {
            let again = decode(&encode(sys));
            let same = again.system().map(without_tail_flags) == Some(without_tail_flags(sys));
            assert!(same, "{name}: re-encoded system differs\n  first:  {sys:?}\n  second: {again:?}");
        }
        if let Some((expected, _)) = name.split_once('_') {
            if ["ok", "none", "rejected"].contains(&expected) {
                seeds += 1;
                assert_eq!(outcome(&decoded), expected, "{name}: decoded to {decoded:?}");
            }
        }
    }
    assert!(seeds >= 30, "only {seeds} named seed files: the seed corpus is incomplete");
}
