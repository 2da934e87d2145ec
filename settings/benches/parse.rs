//! settings.xml load time against the number of foreign keys: 10,000 and 40,000 entries shaped
//! like the viewer's (Comment, Persist, Type, Value; about 150 bytes each). Linear loading shows as
//! a constant time per key across the two sizes. Figures are recorded in `settings/README.md`.
#![allow(missing_docs)] // `criterion_group!` generates an undocumented public function.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use settings::SettingsFile;

/// A settings document of `keys` foreign F32 entries in the viewer's layout.
fn many_keys(keys: usize) -> String {
    let mut text = String::from("<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n");
    for i in 0..keys {
        text.push_str(&format!(
            "    <key>ViewerSetting{i}</key>\n    <map>\n      <key>Comment</key>\n      \
             <string>A viewer setting this crate does not know.</string>\n      <key>Persist</key>\n      \
             <integer>1</integer>\n      <key>Type</key>\n      <string>F32</string>\n      \
             <key>Value</key>\n      <real>{i}.5</real>\n    </map>\n"
        ));
    }
    text.push_str("</map>\n</llsd>\n");
    text
}

fn bench_parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    group.sample_size(10);
    for keys in [10_000, 40_000] {
        let text = many_keys(keys);
        group.throughput(Throughput::Elements(keys as u64));
        group.bench_with_input(BenchmarkId::new("foreign_keys", keys), &text, |b, text| {
            b.iter(|| SettingsFile::parse("bench.xml", black_box(text)).map(|f| f.foreign_entries().count()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
