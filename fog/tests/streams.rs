//! The two speed measures behind `too_fast` and `streaks` (fog README, "Speed: thrown or falling,
//! and seen moving"): the ballistic speed leaves buoyant rise out, and the sizes per second leave
//! out the motion hidden in a continuous stream. Expected values are worked by hand from the
//! documented model, or checked against an independent numeric sum.

use fog::classify::measure::{
    ballistic_rms_m_per_s, measure, rms_speed_m_per_s, seen_sizes_per_s, Measures, STREAM_LAYERS_APART,
    STREAM_LAYERS_CONTINUOUS,
};
use fog::classify::{SystemContext, ASSUMED_SOFT_MEAN_ALPHA};
use fog::kernel::kernel_sigma_m;
use glam::{Vec2, Vec3, Vec4};
use particles::types::{pattern, PartFlags, PartSysData};
use settings::Settings;

fn measures(s: &PartSysData) -> Measures {
    measure(s, &SystemContext::default(), &Settings::default())
}

#[test]
fn the_ballistic_speed_leaves_out_the_upward_push_only() {
    // Launched at 0.5 m/s (EXPLODE, min = max), 5 s life: E|v0|^2 = 0.25 and the acceleration
    // adds |a|^2 L^2 / 3 = |a|^2 25 / 3.
    let mut s = PartSysData {
        pattern: pattern::EXPLODE,
        burst_speed_min: 0.5,
        burst_speed_max: 0.5,
        part_accel: Vec3::new(0.0, 0.0, 3.0),
        ..Default::default()
    };
    let life = 5.0;
    assert!((ballistic_rms_m_per_s(&s, life) - 0.5).abs() < 1e-6, "buoyant rise is not thrown");
    let rising = (0.25f32 + 9.0 * 25.0 / 3.0).sqrt();
    assert!((rms_speed_m_per_s(&s, life) - rising).abs() < 1e-4, "it still counts as speed");
    s.part_accel = Vec3::new(0.0, 0.0, -3.0);
    assert!((ballistic_rms_m_per_s(&s, life) - rising).abs() < 1e-4, "falling counts whole");
    s.part_accel = Vec3::new(1.0, 0.0, 2.0);
    let sideways = (0.25f32 + 25.0 / 3.0).sqrt();
    assert!((ballistic_rms_m_per_s(&s, life) - sideways).abs() < 1e-4, "the sideways push counts");
    s.part_accel = Vec3::new(0.0, 0.0, f32::NAN);
    assert_eq!(ballistic_rms_m_per_s(&s, life), f32::INFINITY, "an unreadable push is fast");
}

/// A narrow stream (ANGLE_CONE of angle 0, so no spread): one `size_m` puff per burst every
/// `burst_s`, launched at `speed` m/s, no acceleration, 8 s life. Puff `k` is `k speed burst_s`
/// behind the first along one line, so a point of the stream is covered by
/// `size / (speed burst_s)` puffs at every age: the layers are the same all life long.
fn chain(size_m: f32, speed: f32, burst_s: f32, per_burst: u8) -> PartSysData {
    let mut s = PartSysData {
        pattern: pattern::ANGLE_CONE,
        burst_speed_min: speed,
        burst_speed_max: speed,
        burst_rate: burst_s,
        burst_part_count: per_burst,
        ..Default::default()
    };
    s.part.max_age = 8.0;
    s.part.start_scale = Vec2::splat(size_m);
    s
}

#[test]
fn a_chain_of_puffs_hides_its_motion_as_the_puffs_close_up() {
    // 2 m puffs at 1 m/s: a lone puff moves half its size a second.
    let lone = 0.5;
    // A puff every 2 s: 2 m apart, one layer: seen apart, all the motion seen.
    let apart = measures(&chain(2.0, 1.0, 2.0, 1));
    assert!((apart.sizes_per_s - lone).abs() < 1e-5 && apart.stream_continuity == 0.0, "{apart:?}");
    // Every 4/3 s: 1.5 layers, halfway up the smoothstep: half the motion hidden.
    let half = measures(&chain(2.0, 1.0, 4.0 / 3.0, 1));
    assert!((half.sizes_per_s - 0.5 * lone).abs() < 1e-4, "{half:?}");
    assert!((half.stream_continuity - 0.5).abs() < 1e-4);
    // Every second: 1 m apart, two layers: a column standing still.
    let column = measures(&chain(2.0, 1.0, 1.0, 1));
    assert!(column.sizes_per_s.abs() < 1e-5 && (column.stream_continuity - 1.0).abs() < 1e-5);
    // The lone particle's figure is the same whatever the stream.
    assert_eq!(
        seen_sizes_per_s(&chain(2.0, 1.0, 1.0, 1), 8.0),
        seen_sizes_per_s(&chain(2.0, 1.0, 2.0, 1), 8.0)
    );
}

#[test]
fn bursts_far_apart_leave_gaps_however_many_puffs_they_hold() {
    // Three puffs a burst every 2 s fill the stream's width three times over, but each burst is a
    // slab 2 m behind the last, one size: still apart.
    let slabs = measures(&chain(2.0, 1.0, 2.0, 3));
    assert!((slabs.sizes_per_s - 0.5).abs() < 1e-5 && slabs.stream_continuity == 0.0, "{slabs:?}");
}

#[test]
fn a_spray_thins_out_as_it_spreads() {
    // Single 0.5 m puffs every frame at 1 m/s: as a narrow stream they overlap thirty deep along
    // their line; sprayed in every direction (EXPLODE) each age's puffs spread over a growing ball
    // and soon lie apart.
    let mut narrow = chain(0.5, 1.0, 1.0 / 60.0, 1);
    narrow.part.max_age = 6.0;
    let spray = PartSysData { pattern: pattern::EXPLODE, ..narrow };
    let (n, s) = (measures(&narrow), measures(&spray));
    assert!(n.stream_continuity > 0.99, "{n:?}");
    assert!(s.stream_continuity < 0.5 && s.sizes_per_s > 0.5 * seen_sizes_per_s(&spray, 6.0), "{s:?}");
}

/// Damage smoke shaped after a public creator's script: 1 -> 2.1 m puffs launched at 0.5 m/s,
/// pushed up at 1.1 m/s^2 for 7.5 s (8 m/s at the end), fading 0.8 -> 0, `per_burst` puffs every
/// `burst_s`.
fn damage_smoke(per_burst: u8, burst_s: f32) -> PartSysData {
    let mut s = PartSysData {
        pattern: pattern::EXPLODE,
        burst_speed_min: 0.5,
        burst_speed_max: 0.55,
        burst_rate: burst_s,
        burst_part_count: per_burst,
        part_accel: Vec3::new(0.1, 0.0, 1.1),
        ..Default::default()
    };
    s.part.flags = PartFlags(PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE);
    s.part.max_age = 7.5;
    s.part.start_scale = Vec2::splat(1.0);
    s.part.end_scale = Vec2::splat(2.1);
    s.part.start_color = Vec4::new(0.5, 0.5, 0.5, 0.8);
    s.part.end_color = Vec4::new(0.0, 0.0, 0.0, 0.0);
    s
}

#[test]
fn a_thick_plume_is_a_column_and_a_thin_one_a_chain_of_puffs() {
    let (thick, thin) = (damage_smoke(5, 0.1), damage_smoke(1, 0.5));
    let lone = seen_sizes_per_s(&thick, 7.5);
    assert!(lone > 2.0, "a lone puff streaks: {lone}");
    let (m_thick, m_thin) = (measures(&thick), measures(&thin));
    assert!(m_thick.stream_continuity > 0.9 && m_thick.sizes_per_s < 0.1 * lone, "{m_thick:?}");
    assert!(m_thin.stream_continuity < 0.2 && m_thin.sizes_per_s > 0.8 * lone, "{m_thin:?}");
    // Both rise by buoyancy: thrown at 0.5 m/s, pushed sideways at 0.1 m/s^2, never falling.
    assert!(m_thick.ballistic_speed_m_per_s < 1.0 && m_thick.speed_m_per_s > 4.0, "{m_thick:?}");
}

/// Contrast `(max - min) / (max + min)` of the density along an endless chain of Gaussian kernels
/// of standard deviation `sigma`, spaced `spacing` apart (summed numerically).
fn chain_modulation(sigma: f32, spacing: f32) -> f32 {
    let density = |x: f32| {
        (-40..=40).map(|k| (-(x - k as f32 * spacing).powi(2) / (2.0 * sigma * sigma)).exp()).sum::<f32>()
    };
    let samples: Vec<f32> = (0..200).map(|i| density(spacing * i as f32 / 200.0)).collect();
    let (lo, hi) = samples.iter().fold((f32::INFINITY, 0.0f32), |(lo, hi), &d| (lo.min(d), hi.max(d)));
    (hi - lo) / (hi + lo)
}

#[test]
fn the_layer_limits_are_where_soft_puffs_part_and_where_they_merge() {
    // The usual soft puff's footprint, as the density splat draws it (fog::kernel's width law).
    let size = 2.0;
    let sigma = kernel_sigma_m([size, size], 0.0, ASSUMED_SOFT_MEAN_ALPHA);
    let apart = chain_modulation(sigma, size / STREAM_LAYERS_APART);
    let merged = chain_modulation(sigma, size / STREAM_LAYERS_CONTINUOUS);
    assert!(apart > 0.5, "puffs one layer deep are seen one by one: {apart}");
    assert!(merged < 0.05, "two layers deep they read as one column: {merged}");
}
