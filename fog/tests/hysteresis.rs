//! The [`Classifier`]'s promises: hysteresis, bounded cross-fades, determinism, and re-evaluation
//! exactly when an input changes.
//!
//! The score is steered through the texture softness: for the test system every other factor is
//! exactly 1 (checked), so the score is `smoothstep(SOFTNESS_LO, SOFTNESS_HI, softness)`, which the
//! tests invert by bisection to hit a wanted score.

use fog::classify::factors::{ALIVE_HI, ALIVE_LO, SOFTNESS_HI, SOFTNESS_LO};
use fog::classify::hysteresis::CROSSFADE_PER_S;
use fog::classify::{classify, Classifier, SystemContext, TextureVerdict};
use glam::{Vec2, Vec4};
use particles::types::{pattern, PartSysData};
use settings::Settings;

const DT_S: f32 = 1.0 / 60.0;

/// A pond-mist system whose only non-unit factor is the texture's softness ramp.
fn mist() -> PartSysData {
    let mut s = PartSysData {
        pattern: pattern::DROP,
        burst_rate: 1.0,
        burst_part_count: 2,
        part_image_id: "aaaaaaaa-0000-0000-0000-000000000001".parse().expect("uuid"),
        ..Default::default()
    };
    s.part.max_age = 15.0;
    s.part.start_scale = Vec2::splat(3.0);
    s.part.start_color = Vec4::new(0.8, 0.8, 0.8, 0.2);
    s
}

/// Texture softness giving `score` through the soft ramp (bisection on the smoothstep).
fn softness_for(score: f32) -> f32 {
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if mid * mid * (3.0 - 2.0 * mid) < score {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    SOFTNESS_LO + 0.5 * (lo + hi) * (SOFTNESS_HI - SOFTNESS_LO)
}

fn ctx_with_score(score: f32) -> SystemContext {
    let texture = TextureVerdict {
        softness: softness_for(score),
        shape_is_soft: true,
        mean_alpha: 0.3,
        is_default_texture: false,
        rotationally_symmetric: true,
    };
    SystemContext { texture: Some(texture), ..Default::default() }
}

fn fog_on() -> Settings {
    Settings { particle_fog: true, ..Settings::default() }
}

#[test]
fn the_score_is_steered_by_softness_alone() {
    let s = fog_on();
    for want in [0.45, 0.55, 0.65, 0.75, 0.9] {
        let a = classify(&mist(), &ctx_with_score(want), &s);
        assert!(a.exclusions.is_empty());
        assert!((a.score - want).abs() < 1e-4, "wanted {want}, got {} ({:?})", a.score, a.factors);
    }
}

#[test]
fn a_score_oscillating_inside_the_band_never_flips_a_converted_system() {
    let s = fog_on();
    let mut c = Classifier::new();
    c.upsert(1u32, &mist(), ctx_with_score(0.9));
    for _ in 0..90 {
        c.update(&s, 1, DT_S);
    }
    assert!(c.is_converted(&1));
    assert_eq!(c.weight(&1), 1.0);
    for i in 0..200 {
        let score = if i % 2 == 0 { 0.55 } else { 0.65 };
        c.upsert(1, &mist(), ctx_with_score(score));
        c.update(&s, 1, DT_S);
        assert!(c.is_converted(&1), "flipped at step {i} (score {score})");
        assert_eq!(c.weight(&1), 1.0);
    }
    // Below threshold - 0.2 = 0.5 it reverts and fades out.
    c.upsert(1, &mist(), ctx_with_score(0.45));
    c.update(&s, 1, DT_S);
    assert!(!c.is_converted(&1));
    assert!(c.weight(&1) < 1.0);
}

#[test]
fn a_system_that_never_reaches_the_threshold_never_converts() {
    let s = fog_on();
    let mut c = Classifier::new();
    for i in 0..300 {
        let score = [0.55, 0.65, 0.69, 0.6][i % 4];
        c.upsert(7u32, &mist(), ctx_with_score(score));
        c.update(&s, 1, DT_S);
        assert!(!c.is_converted(&7));
        assert_eq!(c.weight(&7), 0.0);
    }
    c.upsert(7, &mist(), ctx_with_score(0.71));
    c.update(&s, 1, DT_S);
    assert!(c.is_converted(&7), "0.71 is above the 0.7 threshold");
}

#[test]
fn the_weight_fades_at_the_documented_rate() {
    let s = fog_on();
    let mut c = Classifier::new();
    c.upsert(1u32, &mist(), ctx_with_score(0.9));
    let mut last = 0.0;
    for frame in 1..=90 {
        c.update(&s, 1, DT_S);
        let w = c.weight(&1);
        assert!(w - last <= DT_S * CROSSFADE_PER_S + 1e-6, "jump {} at frame {frame}", w - last);
        assert!(w >= last, "fade in must be monotonic");
        if frame == 30 {
            assert!((w - 0.5).abs() < 1e-4, "half way after 0.5 s, got {w}");
        }
        last = w;
    }
    assert_eq!(last, 1.0, "a full cross-fade takes 1 s");
    // A long frame does not overshoot, and a hiccup of a negative or NaN dt changes nothing.
    c.upsert(1, &mist(), ctx_with_score(0.1));
    c.update(&s, 1, f32::NAN);
    assert_eq!(c.weight(&1), 1.0);
    c.update(&s, 1, -1.0);
    assert_eq!(c.weight(&1), 1.0);
    c.update(&s, 1, 0.25);
    assert!((c.weight(&1) - 0.75).abs() < 1e-6);
    c.update(&s, 1, 5.0);
    assert_eq!(c.weight(&1), 0.0);
}

/// A deterministic pseudo-random sequence (64-bit LCG, Knuth's MMIX constants).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn run_sequence() -> Vec<u32> {
    let s = fog_on();
    let mut c = Classifier::new();
    let mut rng = Lcg(42);
    let mut bits = Vec::new();
    for frame in 0..400 {
        for id in 0..16u32 {
            if rng.next() < 0.1 {
                let mut sys = mist();
                sys.part.max_age = 1.0 + 20.0 * rng.next();
                c.upsert(id, &sys, ctx_with_score(rng.next()));
            }
        }
        c.update(&s, frame / 100, DT_S * (0.5 + rng.next()));
        bits.extend((0..16u32).map(|id| c.weight(&id).to_bits()));
    }
    bits
}

#[test]
fn two_classifiers_fed_the_same_sequence_agree_bit_for_bit() {
    let a = run_sequence();
    let b = run_sequence();
    assert_eq!(a, b);
    assert!(a.iter().any(|&w| f32::from_bits(w) > 0.0 && f32::from_bits(w) < 1.0), "some fades seen");
}

#[test]
fn each_input_change_re_evaluates_once_and_nothing_else_does() {
    let s = fog_on();
    let mut c = Classifier::new();
    let unknown = SystemContext::default();
    c.upsert(1u32, &mist(), unknown);
    c.upsert(2u32, &mist(), ctx_with_score(0.9));
    c.update(&s, 1, DT_S);
    assert_eq!(c.evaluations(), 2);
    assert!(!c.is_converted(&1), "no texture statistics yet: billboard");

    // Unchanged systems: no evaluation, whatever the number of frames or identical upserts.
    for _ in 0..100 {
        c.upsert(2, &mist(), ctx_with_score(0.9));
        c.update(&s, 1, DT_S);
    }
    assert_eq!(c.evaluations(), 2);

    // Texture statistics arrive.
    c.upsert(1, &mist(), ctx_with_score(0.9));
    c.update(&s, 1, DT_S);
    assert_eq!(c.evaluations(), 3);
    assert!(c.is_converted(&1));

    // The descriptor changes (a script sets new rules): shorter life than the minimum.
    let mut brief = mist();
    brief.part.max_age = 1.0;
    c.upsert(1, &brief, ctx_with_score(0.9));
    c.update(&s, 1, DT_S);
    assert_eq!(c.evaluations(), 4);
    assert!(!c.is_converted(&1), "short-lived now");

    // Live count: moving inside one band of the alive ramp costs nothing; crossing one re-evaluates.
    let live = |n: u32| SystemContext { live_count: Some(n), ..ctx_with_score(0.9) };
    c.upsert(2, &mist(), live(100));
    c.update(&s, 1, DT_S);
    assert_eq!(c.evaluations(), 5, "live count first known");
    c.upsert(2, &mist(), live(200));
    c.update(&s, 1, DT_S);
    assert_eq!(c.evaluations(), 5, "100 -> 200 stays above ALIVE_HI");
    c.upsert(2, &mist(), live(ALIVE_LO as u32 - 1));
    c.update(&s, 1, DT_S);
    assert_eq!(c.evaluations(), 6, "crossing below ALIVE_LO");
    assert_eq!(c.assessment(&2).map(|a| a.factors.alive), Some(0.0));
    assert!(!c.is_converted(&2), "too few alive: reverts");
    c.upsert(2, &mist(), live(ALIVE_HI as u32));
    c.update(&s, 1, DT_S);
    assert_eq!(c.evaluations(), 7);
    assert!(c.is_converted(&2));

    // Settings change: every system is re-evaluated once, then nothing.
    let off = Settings::default();
    c.update(&off, 2, DT_S);
    assert_eq!(c.evaluations(), 9);
    assert!(!c.is_converted(&2), "master toggle off");
    c.update(&off, 2, DT_S);
    assert_eq!(c.evaluations(), 9);
}

#[test]
fn a_copy_refreshed_only_where_the_weights_moved_tracks_every_weight() {
    // The renderer keeps each system's weight in a dense copy and refreshes only `moved()`.
    let s = fog_on();
    let mut c = Classifier::new();
    let mut rng = Lcg(7);
    let mut copy = [0.0f32; 16];
    let (mut refreshed, mut still) = (0, 0);
    for frame in 0..400 {
        for id in 0..16u32 {
            if rng.next() < 0.05 {
                c.upsert(id, &mist(), ctx_with_score(rng.next()));
            }
        }
        let before: Vec<f32> = (0..16u32).map(|id| c.weight(&id)).collect();
        c.update(&s, frame / 100, DT_S * (0.5 + rng.next()));
        let moved = c.moved().to_vec();
        for &id in &moved {
            copy[id as usize] = c.weight(&id);
        }
        for id in 0..16u32 {
            let w = c.weight(&id);
            assert_eq!(copy[id as usize], w, "system {id} at frame {frame}");
            let listed = moved.contains(&id);
            assert_eq!(listed, w != before[id as usize], "system {id} at frame {frame}: listed {listed}");
        }
        assert!(moved.iter().enumerate().all(|(i, id)| !moved[..i].contains(id)), "each once");
        refreshed += moved.len();
        still += 16 - moved.len();
    }
    assert!(refreshed > 100 && still > 100, "{refreshed} refreshed, {still} left alone");
}

#[test]
fn removed_systems_are_forgotten_and_explained_systems_say_why() {
    let s = fog_on();
    let mut c = Classifier::new();
    c.upsert("mist", &mist(), ctx_with_score(0.9));
    c.upsert("unknown", &mist(), SystemContext::default());
    assert!(c.explain(&"mist").is_none(), "nothing to explain before the first update");
    c.update(&s, 1, 0.5);
    let e = c.explain(&"mist").expect("explained");
    assert_eq!(e.verdict, fog::Verdict::Fog);
    assert!((e.weight - 0.5).abs() < 1e-6);
    assert!(e.exclusions.is_empty());
    let u = c.explain(&"unknown").expect("explained");
    assert_eq!(u.verdict, fog::Verdict::Billboard);
    assert_eq!(u.exclusions.iter().map(|n| n.id).collect::<Vec<_>>(), ["unknown_texture"]);
    c.remove(&"mist");
    assert_eq!(c.weight(&"mist"), 0.0);
    assert_eq!(c.len(), 1);
    // Re-adding under the same id starts over as a billboard fading in once, not twice as fast.
    c.upsert("mist", &mist(), ctx_with_score(0.9));
    c.update(&s, 1, 0.25);
    assert!((c.weight(&"mist") - 0.25).abs() < 1e-6);
}

#[test]
fn every_descriptor_field_is_part_of_its_identity() {
    use fog::classify::hysteresis::descriptor_words;
    use glam::Vec3;
    use particles::types::{PartFlags, SysFlags, Uuid};
    type Edit = (&'static str, fn(&mut PartSysData));
    let edits: Vec<Edit> = vec![
        ("crc", |s| s.crc = 2),
        ("flags", |s| s.flags = SysFlags(SysFlags::USE_NEW_ANGLE)),
        ("pattern", |s| s.pattern = pattern::EXPLODE),
        ("max_age", |s| s.max_age = 9.0),
        ("start_age", |s| s.start_age = 1.0),
        ("inner_angle", |s| s.inner_angle = 0.1),
        ("outer_angle", |s| s.outer_angle = 0.2),
        ("burst_rate", |s| s.burst_rate = 0.3),
        ("burst_radius", |s| s.burst_radius = 0.4),
        ("burst_speed_min", |s| s.burst_speed_min = 0.5),
        ("burst_speed_max", |s| s.burst_speed_max = 0.6),
        ("burst_part_count", |s| s.burst_part_count = 9),
        ("angular_velocity", |s| s.angular_velocity = Vec3::new(0.0, 0.0, 1.0)),
        ("part_accel", |s| s.part_accel = Vec3::new(0.0, 0.1, 0.0)),
        ("part_image_id", |s| s.part_image_id = Uuid([9; 16])),
        ("target_uuid", |s| s.target_uuid = Uuid([1; 16])),
        ("part.flags", |s| s.part.flags = PartFlags(PartFlags::WIND)),
        ("part.max_age", |s| s.part.max_age = 14.0),
        ("part.start_color", |s| s.part.start_color.w = 0.25),
        ("part.end_color", |s| s.part.end_color.x = 0.5),
        ("part.start_scale", |s| s.part.start_scale.y = 2.5),
        ("part.end_scale", |s| s.part.end_scale.x = 0.5),
        ("part.start_glow", |s| s.part.start_glow = 0.1),
        ("part.end_glow", |s| s.part.end_glow = 0.1),
        ("part.blend_func_source", |s| s.part.blend_func_source = 0),
        ("part.blend_func_dest", |s| s.part.blend_func_dest = 0),
    ];
    let base = mist();
    let s = fog_on();
    let mut c = Classifier::new();
    c.upsert(0u8, &base, ctx_with_score(0.9));
    c.update(&s, 1, DT_S);
    for (i, (name, edit)) in edits.iter().enumerate() {
        let mut changed = base;
        edit(&mut changed);
        assert_ne!(descriptor_words(&changed), descriptor_words(&base), "{name} not compared");
        c.upsert(0, &changed, ctx_with_score(0.9));
        c.update(&s, 1, DT_S);
        assert_eq!(c.evaluations(), 2 + 2 * i as u64, "{name} re-evaluates");
        c.upsert(0, &base, ctx_with_score(0.9));
        c.update(&s, 1, DT_S);
    }
    let mut nan = base;
    nan.burst_radius = f32::NAN;
    assert_eq!(descriptor_words(&nan), descriptor_words(&nan), "a NaN equals itself: no churn");
}
