//! Classification cost: one `classify` pass over 10,000 distinct systems, the per-frame
//! `Classifier::update` with nothing dirty (the steady state), and a frame in which a person flips
//! the per-object overrides of 100 of them. Budget: 2 ms each.
// `criterion_group!` generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fog::classify::{classify, Classifier, Override, SystemContext, TextureVerdict};
use glam::{Vec2, Vec3, Vec4};
use particles::types::{pattern, PartFlags, PartSysData};
use settings::Settings;

const SYSTEMS: usize = 10_000;

/// 10,000 distinct systems spanning fog-like and billboard-like content.
fn systems() -> Vec<(PartSysData, SystemContext)> {
    let patterns = [pattern::DROP, pattern::EXPLODE, pattern::ANGLE, pattern::ANGLE_CONE];
    (0..SYSTEMS)
        .map(|i| {
            let f = i as f32 / SYSTEMS as f32;
            let mut s = PartSysData {
                pattern: patterns[i % patterns.len()],
                burst_rate: 0.05 + f,
                burst_part_count: 1 + (i % 7) as u8,
                burst_speed_min: 0.1 * f,
                burst_speed_max: 2.0 * f,
                burst_radius: 3.0 * f,
                part_accel: Vec3::new(0.0, 0.0, 0.5 - f),
                ..Default::default()
            };
            s.part.flags = PartFlags((i as u32 * 7) & 0x10F);
            s.part.max_age = 0.5 + 20.0 * f;
            s.part.start_scale = Vec2::splat(0.1 + 4.0 * f);
            s.part.end_scale = Vec2::splat(4.0 - 3.0 * f);
            s.part.start_color = Vec4::new(0.8, 0.8, 0.8, f);
            let texture = TextureVerdict {
                softness: f,
                shape_is_soft: i % 5 != 0,
                mean_alpha: 0.3,
                is_default_texture: i % 11 == 0,
                rotationally_symmetric: i % 3 != 0,
            };
            let ctx = SystemContext { texture: Some(texture), live_count: None, ..Default::default() };
            (s, ctx)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let settings = Settings { particle_fog: true, ..Settings::default() };
    let all = systems();
    c.bench_function("classify 10k systems", |b| {
        b.iter(|| {
            let mut sum = 0.0f32;
            for (s, ctx) in &all {
                sum += classify(black_box(s), ctx, &settings).score;
            }
            sum
        })
    });
    let mut classifier = Classifier::new();
    for (i, (s, ctx)) in all.iter().enumerate() {
        classifier.upsert(i as u32, s, *ctx);
    }
    for _ in 0..120 {
        classifier.update(&settings, 1, 1.0 / 60.0);
    }
    c.bench_function("update 10k systems, nothing dirty", |b| {
        b.iter(|| classifier.update(black_box(&settings), 1, 1.0 / 60.0))
    });
    let mut fog = false;
    c.bench_function("100 overrides flipped + update (10k systems)", |b| {
        b.iter(|| {
            fog = !fog;
            let o = if fog { Override::Fog } else { Override::Auto };
            for i in 0..100u32 {
                classifier.set_override(&(i * 97), o);
            }
            classifier.update(black_box(&settings), 1, 1.0 / 60.0);
        })
    });
    c.bench_function("upsert 10k unchanged + update", |b| {
        b.iter(|| {
            for (i, (s, ctx)) in all.iter().enumerate() {
                classifier.upsert(i as u32, s, *ctx);
            }
            classifier.update(&settings, 1, 1.0 / 60.0);
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
