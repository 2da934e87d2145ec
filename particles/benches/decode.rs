//! PSYS decode throughput: blocks per second over a mix of legacy and extended blocks, the shapes
//! real traffic carries (86, 96 and 98 bytes). Figures are recorded in `particles/README.md`.
#![allow(missing_docs)] // `criterion_group!` generates an undocumented public function.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use glam::{Vec2, Vec3, Vec4};
use particles::codec::{decode, encode, Decoded};
use particles::types::blend;
use particles::{PartFlags, PartSysData, Uuid};

/// Four legacy and four extended blocks (two with glow, one with blend, one with both).
fn mixed_blocks() -> Vec<Vec<u8>> {
    (0..8u8)
        .map(|i| {
            let mut sys = PartSysData {
                burst_rate: 0.05 * f32::from(i + 1),
                burst_part_count: 4 * i,
                part_accel: Vec3::new(0.0, 0.0, -0.5 * f32::from(i)),
                part_image_id: Uuid([i; 16]),
                ..Default::default()
            };
            sys.part.flags = PartFlags(PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE);
            sys.part.end_color = Vec4::new(0.2, 0.3, 0.4, 0.0);
            sys.part.end_scale = Vec2::splat(0.25 * f32::from(i));
            if i >= 4 && i != 6 {
                sys.part.start_glow = 0.1 * f32::from(i);
            }
            if i >= 6 {
                sys.part.blend_func_dest = blend::ONE;
            }
            encode(&sys)
        })
        .collect()
}

fn bench_decode(c: &mut Criterion) {
    let blocks = mixed_blocks();
    let lengths: Vec<usize> = blocks.iter().map(Vec::len).collect();
    assert_eq!(lengths, [86, 86, 86, 86, 96, 96, 96, 98]);
    assert!(blocks.iter().all(|b| matches!(decode(b), Decoded::System(_))));

    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Elements(blocks.len() as u64));
    group.bench_function("mixed_legacy_extended", |b| {
        b.iter(|| {
            for block in &blocks {
                black_box(decode(black_box(block)));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_decode);
criterion_main!(benches);
