//! The effect measures against analytic values and independent numeric integration.

use fog::classify::factors::{alive_band, smoothstep, ALIVE_HI, ALIVE_LO};
use fog::classify::measure::{
    emitted_per_s, mean_size_m, measure, rms_speed_m_per_s, seen_sizes_per_s, source_life_s,
    wind_drift_mean_square, TYPICAL_REGION_WIND_M_PER_S, WIND_RELAX_PER_S,
};
use fog::classify::SystemContext;
use glam::{Vec2, Vec3};
use particles::types::{pattern, PartFlags, PartSysData};
use settings::Settings;

fn sys() -> PartSysData {
    PartSysData::default()
}

/// Midpoint-rule average of `f` over [0, 1] with many samples: an independent check of the
/// classifier's 4-point quadrature.
fn average(f: impl Fn(f32) -> f32) -> f32 {
    const N: usize = 20_000;
    (0..N).map(|i| f((i as f32 + 0.5) / N as f32)).sum::<f32>() / N as f32
}

#[test]
fn size_is_the_time_averaged_geometric_mean() {
    let mut s = sys();
    s.part.start_scale = Vec2::new(1.0, 4.0);
    s.part.end_scale = Vec2::new(3.0, 3.0);
    assert!((mean_size_m(&s) - 2.0).abs() < 1e-6, "without INTERP_SCALE the start size counts");
    s.part.flags = PartFlags(PartFlags::INTERP_SCALE);
    s.part.start_scale = Vec2::splat(1.0);
    assert!((mean_size_m(&s) - 2.0).abs() < 1e-5, "square 1 -> 3 m averages 2 m");
    // x = 1, y = 1 -> 4: mean of sqrt(1 + 3f) = (2/9)(4^1.5 - 1) = 14/9.
    s.part.end_scale = Vec2::new(1.0, 4.0);
    assert!((mean_size_m(&s) - 14.0 / 9.0).abs() < 1e-3, "got {}", mean_size_m(&s));
    // Shrinking to nothing on one axis only: a singular integrand, within 2 %.
    s.part.start_scale = Vec2::new(2.0, 1.0);
    s.part.end_scale = Vec2::new(0.0, 2.0);
    let want = average(|f| ((2.0 - 2.0 * f) * (1.0 + f)).sqrt());
    assert!((mean_size_m(&s) - want).abs() < 0.02 * want, "{} vs {want}", mean_size_m(&s));
}

#[test]
fn drop_patterns_emit_at_rest_whatever_the_speed_rules_say() {
    for p in [pattern::DROP, 0, pattern::ANGLE_CONE_EMPTY] {
        let s = PartSysData { pattern: p, burst_speed_min: 5.0, burst_speed_max: 9.0, ..sys() };
        assert_eq!(rms_speed_m_per_s(&s, 10.0), 0.0, "pattern {p:#x}");
    }
    let s = PartSysData { pattern: pattern::EXPLODE, burst_speed_min: 0.3, burst_speed_max: 0.3, ..sys() };
    assert!((rms_speed_m_per_s(&s, 10.0) - 0.3).abs() < 1e-6);
    // Uniform speed in [0, 1]: E v^2 = 1/3.
    let s = PartSysData { pattern: pattern::ANGLE_CONE, burst_speed_min: 0.0, burst_speed_max: 1.0, ..sys() };
    assert!((rms_speed_m_per_s(&s, 10.0) - (1.0f32 / 3.0).sqrt()).abs() < 1e-6);
}

#[test]
fn acceleration_over_the_life_counts() {
    // Falling rain from rest: |a t| has RMS a L / sqrt(3) over [0, L].
    let s = PartSysData { part_accel: Vec3::new(0.0, 0.0, -9.8), ..sys() };
    let want = average(|f| (9.8 * 2.0 * f).powi(2)).sqrt();
    assert!((rms_speed_m_per_s(&s, 2.0) - want).abs() < 1e-3 * want);
    assert!(rms_speed_m_per_s(&s, 2.0) > 10.0, "a falling rain sheet is fast");
    // A slowly rising plume: 0.1 m/s^2 for 5 s.
    let plume = PartSysData { part_accel: Vec3::new(0.0, 0.0, 0.1), ..sys() };
    assert!(rms_speed_m_per_s(&plume, 5.0) < 0.3);
}

#[test]
fn wind_drift_follows_the_relaxation_law() {
    for life_s in [0.5f32, 5.0, 20.0, 100.0] {
        let k = WIND_RELAX_PER_S;
        let numeric = average(|f| (1.0 - (-k * life_s * f).exp()).powi(2));
        let analytic = wind_drift_mean_square(life_s);
        assert!((numeric - analytic).abs() < 1e-4, "life {life_s}: {numeric} vs {analytic}");
    }
    let still = sys();
    let windy = PartSysData {
        part: particles::PartData { flags: PartFlags(PartFlags::WIND), ..still.part },
        ..still
    };
    assert_eq!(rms_speed_m_per_s(&still, 100.0), 0.0);
    let drift = rms_speed_m_per_s(&windy, 100.0);
    assert!(drift > 0.5 * TYPICAL_REGION_WIND_M_PER_S && drift < TYPICAL_REGION_WIND_M_PER_S);
}

#[test]
fn emission_rate_and_source_life() {
    let s = PartSysData { burst_rate: 0.5, burst_part_count: 3, ..sys() };
    assert!((emitted_per_s(&s) - 6.0).abs() < 1e-6);
    // At most one burst per frame (60 Hz): a 0.001 s rate does not give 1000 bursts per second.
    let fast = PartSysData { burst_rate: 0.001, burst_part_count: 1, ..sys() };
    assert!((emitted_per_s(&fast) - 60.0).abs() < 1e-3);
    assert_eq!(source_life_s(&sys()), f32::INFINITY, "max_age 0 lives forever");
    let mortal = PartSysData { max_age: 3.0, start_age: 1.0, ..sys() };
    assert_eq!(source_life_s(&mortal), 2.0);
}

/// A rising puff: released at rest (DROP), pushed up at `accel` m/s^2, living `life_s` seconds.
fn rising_puff(accel: f32, life_s: f32) -> PartSysData {
    let mut s = PartSysData { pattern: pattern::DROP, part_accel: Vec3::new(0.0, 0.0, accel), ..sys() };
    s.part.max_age = life_s;
    s
}

#[test]
fn sizes_per_second_compare_speed_and_size_at_the_same_age() {
    // Constant size and speed: v / s.
    let mut s =
        PartSysData { pattern: pattern::EXPLODE, burst_speed_min: 0.6, burst_speed_max: 0.6, ..sys() };
    s.part.start_scale = Vec2::splat(2.0);
    assert!((seen_sizes_per_s(&s, 5.0) - 0.3).abs() < 1e-6);
    // A puff growing from nothing to 2 m while buoyancy speeds it up: speed a t and size 2 f
    // (f = t / L) keep the ratio a L / 2 all its life. The RMS speed over the mean size reads
    // (a L / sqrt 3) / 1 = 1.15 times that.
    let mut plume = rising_puff(0.3, 8.0);
    plume.part.flags = PartFlags(PartFlags::INTERP_SCALE);
    plume.part.start_scale = Vec2::ZERO;
    plume.part.end_scale = Vec2::splat(2.0);
    let want = 0.3 * 8.0 / 2.0;
    assert!((seen_sizes_per_s(&plume, 8.0) - want).abs() < 1e-4 * want, "{}", seen_sizes_per_s(&plume, 8.0));
    let old = rms_speed_m_per_s(&plume, 8.0) / mean_size_m(&plume);
    assert!(old > 1.15 * want, "the ratio of the means overstates it: {old}");
}

#[test]
fn sizes_per_second_weigh_each_age_by_how_visible_the_particle_is() {
    // Size 2 m, speed a t: v / s = (a L / 2) f. Seen with constant alpha the mean of f is 1/2;
    // fading 1 -> 0 the weight is (1 - f), so the mean of f is (1/6) / (1/2) = 1/3: the fast end
    // of life is the faint end.
    let mut puff = rising_puff(0.3, 8.0);
    puff.part.start_scale = Vec2::splat(2.0);
    let unit = 0.3 * 8.0 / 2.0;
    assert!((seen_sizes_per_s(&puff, 8.0) - unit / 2.0).abs() < 1e-4);
    puff.part.flags = PartFlags(PartFlags::INTERP_COLOR);
    puff.part.end_color.w = 0.0;
    assert!((seen_sizes_per_s(&puff, 8.0) - unit / 3.0).abs() < 1e-4, "{}", seen_sizes_per_s(&puff, 8.0));
    // Fading in instead: weight f, mean of f (1/3) / (1/2) = 2/3.
    puff.part.start_color.w = 0.0;
    puff.part.end_color.w = 1.0;
    assert!((seen_sizes_per_s(&puff, 8.0) - unit * 2.0 / 3.0).abs() < 1e-4);
    // Invisible throughout: weighted by size alone, as with constant alpha.
    puff.part.end_color.w = 0.0;
    assert!((seen_sizes_per_s(&puff, 8.0) - unit / 2.0).abs() < 1e-4);
    // No size at all: infinitely many sizes per second; an unreadable acceleration too.
    puff.part.start_scale = Vec2::ZERO;
    assert_eq!(seen_sizes_per_s(&puff, 8.0), f32::INFINITY);
    let broken = rising_puff(f32::NAN, 8.0);
    assert_eq!(seen_sizes_per_s(&broken, 8.0), f32::INFINITY);
}

/// The overlap the classifier measures for `s`, with the default settings.
fn overlap(s: &PartSysData) -> f32 {
    measure(s, &SystemContext::default(), &Settings::default()).overlap
}

#[test]
fn a_still_cloud_overlaps_as_a_whole() {
    // Dropped at rest on a 3 m sphere (a ball of radius 3, length 0), 1 m particles, 5 per second
    // for 8 s: 40 alive, each 1 m^2, over the ball's projected area 9 pi. Every age fills the
    // same ball, so the young particles are no denser than the whole.
    let mut s = PartSysData { pattern: pattern::EXPLODE, burst_radius: 3.0, burst_rate: 0.2, ..sys() };
    s.burst_part_count = 1;
    s.burst_speed_min = 0.0;
    s.burst_speed_max = 0.0;
    s.part.max_age = 8.0;
    s.part.start_scale = Vec2::splat(1.0);
    let want = 40.0 / (9.0 * std::f32::consts::PI);
    assert!((overlap(&s) - want).abs() < 1e-4 * want, "{} vs {want}", overlap(&s));
}

#[test]
fn a_spray_from_a_point_overlaps_most_where_it_is_seen() {
    // Sprayed from a point at 1 m/s for 15 s: the puffs of age t fill a ball of radius t / 2, so
    // the young ones near the source overlap far more than the whole 7.5 m ball suggests
    // (alive s^2 / (pi 7.5^2) = 75 * 4 / 177 = 1.7).
    let mut s = PartSysData { pattern: pattern::EXPLODE, burst_rate: 0.2, ..sys() };
    s.burst_part_count = 1;
    s.burst_speed_min = 1.0;
    s.burst_speed_max = 1.0;
    s.part.max_age = 15.0;
    s.part.start_scale = Vec2::splat(2.0);
    let whole = 75.0 * 4.0 / (std::f32::consts::PI * 7.5 * 7.5);
    let seen = overlap(&s);
    assert!(seen > 1.5 * whole, "{seen} vs the whole cloud's {whole}");
    // Fading out as they go, the far, old puffs count for less: more overlap still.
    s.part.flags = PartFlags(PartFlags::INTERP_COLOR);
    s.part.end_color.w = 0.0;
    assert!(overlap(&s) > seen, "{} vs {seen}", overlap(&s));
}

#[test]
fn ramps_are_smooth_and_bands_are_ordered() {
    assert_eq!(smoothstep(1.0, 3.0, 0.0), 0.0);
    assert_eq!(smoothstep(1.0, 3.0, 2.0), 0.5);
    assert_eq!(smoothstep(1.0, 3.0, 9.0), 1.0);
    assert_eq!(smoothstep(1.0, 3.0, f32::NAN), 0.0);
    let mut last = 0;
    for n in 0..50 {
        let b = alive_band(n);
        assert!(b >= last && b <= last + 1, "bands rise one at a time");
        last = b;
    }
    assert_eq!(alive_band(ALIVE_LO as u32 - 1), 0);
    assert_ne!(alive_band(ALIVE_LO as u32), 0);
    assert_eq!(alive_band(ALIVE_HI as u32), alive_band(1000));
    assert_ne!(alive_band(ALIVE_HI as u32 - 1), alive_band(ALIVE_HI as u32));
}

#[test]
fn spreading_is_the_width_one_moments_puffs_cover_at_death_over_at_birth() {
    // A burst thrown outward at 1 m/s from a 1 m sphere: the cloud's spread travel is half the
    // speed (0.5 m/s), so after 4 s the puffs of one moment span 2 (1 + 0.5 * 4) + 2 = 8 m,
    // against 2 * 1 + 1 = 3 m at birth.
    let mut s = PartSysData {
        pattern: pattern::EXPLODE,
        burst_speed_min: 1.0,
        burst_speed_max: 1.0,
        burst_radius: 1.0,
        ..sys()
    };
    s.part.max_age = 4.0;
    s.part.flags = PartFlags(PartFlags::INTERP_SCALE);
    s.part.start_scale = Vec2::splat(1.0);
    s.part.end_scale = Vec2::splat(2.0);
    let m = |s: &PartSysData| measure(s, &SystemContext::default(), &Settings::default()).spreading;
    assert!((m(&s) - 8.0 / 3.0).abs() < 1e-5, "got {}", m(&s));
    // Dropped at rest, growing from 0.1 to 1 m: only the puff's growth spreads it.
    let mut trail = sys();
    trail.part.flags = PartFlags(PartFlags::INTERP_SCALE);
    trail.part.start_scale = Vec2::splat(0.1);
    trail.part.end_scale = Vec2::splat(1.0);
    assert!((m(&trail) - 10.0).abs() < 1e-4, "got {}", m(&trail));
    // The same scale rules without INTERP_SCALE keep the start size: nothing spreads.
    trail.part.flags = PartFlags(0);
    assert_eq!(m(&trail), 1.0);
}
