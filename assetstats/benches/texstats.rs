//! Statistics of one 1024 x 1024 RGBA texture (the budget: 5 ms on one core), and of the 128 x 128
//! default texture. Run single-threaded: `taskset -c 0 cargo bench -p assetstats --bench texstats
//! -- --warm-up-time 1 --measurement-time 3` (the statistics themselves use no threads).
//!
//! On a shared, overloaded machine wall time mostly measures waiting for a core, so the 1024 x 1024
//! case is also measured in on-CPU time of the benchmark thread (`..._cpu_time`), read from Linux's
//! `/proc/thread-self/schedstat` (scheduler accounting, accurate to a tick, a few percent over a
//! criterion sample); where that file is missing it falls back to wall time.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use image::{Rgba, RgbaImage};

/// Side of the large benchmark texture, in pixels.
const LARGE_SIZE: u32 = 1024;

/// A soft, tinted puff with some ripple, so no branch or histogram bin is trivially constant.
fn puff(size: u32) -> RgbaImage {
    let half = size as f32 / 2.0;
    RgbaImage::from_fn(size, size, |x, y| {
        let (dx, dy) = ((x as f32 - half) / half, (y as f32 - half) / half);
        let r2 = dx * dx + dy * dy;
        let ripple = 0.5 + 0.5 * (dx * 17.0).sin() * (dy * 13.0).cos();
        let alpha = (-r2 * 3.0).exp() * (0.6 + 0.4 * ripple);
        let tint = (200.0 + 55.0 * ripple) as u8;
        Rgba([tint, 230, 255, (alpha * 255.0) as u8])
    })
}

/// Nanoseconds this thread has spent on a CPU, if the kernel reports it.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn bench_stats(c: &mut Criterion) {
    let large = puff(LARGE_SIZE);
    c.bench_function("texture_stats_1024x1024", |b| {
        b.iter(|| assetstats::TextureStats::from_rgba(black_box(&large)))
    });
    c.bench_function("texture_stats_1024x1024_cpu_time", |b| {
        b.iter_custom(|iters| {
            let (cpu0, wall0) = (thread_cpu_ns(), Instant::now());
            for _ in 0..iters {
                let _ = black_box(assetstats::TextureStats::from_rgba(black_box(&large)));
            }
            match (cpu0, thread_cpu_ns()) {
                (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
                _ => wall0.elapsed(),
            }
        })
    });
    let default = assetstats::default_particle_texture();
    c.bench_function("texture_stats_default_128x128", |b| {
        b.iter(|| assetstats::TextureStats::from_rgba(black_box(&default)))
    });
}

criterion_group!(benches, bench_stats);
criterion_main!(benches);
