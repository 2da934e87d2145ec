//! Exclusions follow the design's intent: streaking is judged against the
//! particle's own size where the puffs are seen apart, with an absolute ceiling for content that
//! is thrown or falls fast; `FOLLOW_VELOCITY` excludes only where turning the sprite shows.

use fog::classify::{classify, SystemContext, TextureVerdict};
use fog::Exclusion;
use glam::{Vec2, Vec3, Vec4};
use particles::types::{pattern, PartFlags, PartSysData};
use settings::Settings;

const ROUND_PUFF: TextureVerdict = TextureVerdict {
    softness: 0.9,
    shape_is_soft: true,
    mean_alpha: 0.3,
    is_default_texture: false,
    rotationally_symmetric: true,
};

fn fog_on() -> Settings {
    Settings { particle_fog: true, ..Settings::default() }
}

/// An EXPLODE system of `size_m` particles emitted at `speed` m/s, living 8 s.
fn system(size: Vec2, speed: f32, flags: u32) -> PartSysData {
    let mut s = PartSysData {
        pattern: pattern::EXPLODE,
        burst_speed_min: speed,
        burst_speed_max: speed,
        burst_rate: 0.1,
        burst_part_count: 3,
        part_image_id: "11111111-2222-3333-4444-555555555555".parse().expect("uuid"),
        ..Default::default()
    };
    s.part.flags = PartFlags(flags | PartFlags::INTERP_COLOR);
    s.part.max_age = 8.0;
    s.part.start_scale = size;
    s.part.end_scale = size;
    s.part.start_color = Vec4::new(0.8, 0.8, 0.8, 0.4);
    s.part.end_color = Vec4::new(0.8, 0.8, 0.8, 0.0);
    s
}

fn exclusions(sys: &PartSysData, texture: Option<TextureVerdict>) -> Vec<Exclusion> {
    let ctx = SystemContext { texture, ..Default::default() };
    classify(sys, &ctx, &fog_on()).exclusions.iter().collect()
}

#[test]
fn a_large_puff_moving_two_metres_a_second_drifts() {
    let puff = system(Vec2::splat(4.0), 2.0, PartFlags::FOLLOW_VELOCITY);
    assert!(exclusions(&puff, Some(ROUND_PUFF)).is_empty(), "{:?}", exclusions(&puff, Some(ROUND_PUFF)));
}

#[test]
fn a_small_spark_at_the_same_speed_streaks() {
    let spark = system(Vec2::splat(0.6), 2.0, 0);
    assert_eq!(exclusions(&spark, Some(ROUND_PUFF)), [Exclusion::Streaks]);
}

#[test]
fn a_fast_jet_of_large_particles_is_too_fast() {
    let jet = system(Vec2::splat(4.0), 6.0, 0);
    assert!(exclusions(&jet, Some(ROUND_PUFF)).contains(&Exclusion::TooFast));
}

#[test]
fn follow_velocity_excludes_where_turning_shows() {
    let round_square = system(Vec2::splat(3.0), 0.2, PartFlags::FOLLOW_VELOCITY);
    assert!(!exclusions(&round_square, Some(ROUND_PUFF)).contains(&Exclusion::FollowVelocity));
    let elongated = TextureVerdict { rotationally_symmetric: false, ..ROUND_PUFF };
    assert!(exclusions(&round_square, Some(elongated)).contains(&Exclusion::FollowVelocity));
    let oblong = system(Vec2::new(3.0, 1.5), 0.2, PartFlags::FOLLOW_VELOCITY);
    assert!(exclusions(&oblong, Some(ROUND_PUFF)).contains(&Exclusion::FollowVelocity));
    let unknown = exclusions(&round_square, None);
    assert!(unknown.contains(&Exclusion::FollowVelocity) && unknown.contains(&Exclusion::UnknownTexture));
    // The report's `--unknown-texture soft` policy assumes a round puff.
    assert!(
        !exclusions(&round_square, Some(TextureVerdict::ASSUMED_SOFT)).contains(&Exclusion::FollowVelocity)
    );
}

#[test]
fn symmetry_comes_from_the_texture_statistics() {
    let mut stats = assetstats::default_texture_stats();
    stats.alpha_anisotropy = 0.9;
    assert!(!TextureVerdict::from(&stats).rotationally_symmetric);
    stats.alpha_anisotropy = 0.05;
    stats.angular_variation = 0.1;
    assert!(TextureVerdict::from(&stats).rotationally_symmetric);
}

/// A smokestack shaped after a public creator's script: 40 puffs of 4 m every second, sprayed at
/// 0.8-1 m/s and pushed along `accel` (m/s^2) for 5 s, fading 0.8 -> 0.
fn smokestack(accel: Vec3) -> PartSysData {
    let mut s = system(Vec2::splat(4.0), 0.9, 0);
    s.burst_speed_min = 0.8;
    s.burst_speed_max = 1.0;
    s.burst_rate = 1.0;
    s.burst_part_count = 40;
    s.part_accel = accel;
    s.part.max_age = 5.0;
    s.part.start_color.w = 0.8;
    s
}

#[test]
fn a_buoyant_plume_is_judged_by_its_size_and_a_falling_one_by_the_ceiling() {
    // Pushed up at 3 m/s^2 its puffs reach 15 m/s (8.7 m/s RMS), yet as seen they move about one
    // of their 4 m sizes a second: a plume, not a jet.
    let rising = smokestack(Vec3::new(0.2, 0.0, 3.0));
    let a = classify(&rising, &SystemContext { texture: Some(ROUND_PUFF), ..Default::default() }, &fog_on());
    assert!(a.measures.speed_m_per_s > 2.0 * fog::classify::exclusion::MAX_SPEED_M_PER_S, "{a:?}");
    assert!(a.exclusions.is_empty() && a.decision_score() >= 0.7, "{a:?}");
    // The same push downward is a falling sheet, sideways a blast: thrown or falling fast.
    for accel in [Vec3::new(0.2, 0.0, -3.0), Vec3::new(3.0, 0.0, 0.0)] {
        assert_eq!(exclusions(&smokestack(accel), Some(ROUND_PUFF)), [Exclusion::TooFast], "{accel}");
    }
}

/// Large soft puffs streamed densely (20 every frame) from a narrow cone at `speed` m/s under
/// `accel`, living 4 s: a continuous column, so its puffs are not seen streaking.
fn dense_stream(speed: f32, accel: Vec3) -> PartSysData {
    let mut s = system(Vec2::splat(1.0), speed, 0);
    s.pattern = pattern::ANGLE_CONE;
    s.outer_angle = 0.2;
    s.burst_rate = 0.0;
    s.burst_part_count = 20;
    s.part_accel = accel;
    s.part.max_age = 4.0;
    s
}

#[test]
fn a_continuous_stream_still_stays_a_billboard_when_thrown_or_falling_fast() {
    // Thrown at 3 m/s with nothing pulling: a mist jet, continuous, under the ceiling.
    let mist_jet = dense_stream(3.0, Vec3::ZERO);
    assert!(
        exclusions(&mist_jet, Some(ROUND_PUFF)).is_empty(),
        "{:?}",
        exclusions(&mist_jet, Some(ROUND_PUFF))
    );
    // A water jet thrown at 6 m/s, and a fountain thrown up at 3 m/s that falls back under gravity,
    // are as continuous, but fast by nature.
    for fast in [dense_stream(6.0, Vec3::ZERO), dense_stream(3.0, Vec3::new(0.0, 0.0, -9.8))] {
        assert_eq!(exclusions(&fast, Some(ROUND_PUFF)), [Exclusion::TooFast]);
    }
    // Sparks streamed as densely are small.
    let mut sparks = dense_stream(3.0, Vec3::new(0.0, 0.0, -2.0));
    sparks.part.start_scale = Vec2::splat(0.1);
    sparks.part.end_scale = Vec2::splat(0.1);
    assert!(exclusions(&sparks, Some(ROUND_PUFF)).contains(&Exclusion::TooSmall));
}

#[test]
fn a_chain_of_separate_puffs_streaks_and_the_explanation_says_how_to_close_it_up() {
    // 1 m puffs pushed up at 1.1 m/s^2 for 7.5 s, one every half second: 1 m and more apart.
    let mut chain = system(Vec2::splat(1.0), 0.5, 0);
    chain.burst_rate = 0.5;
    chain.burst_part_count = 1;
    chain.part_accel = Vec3::new(0.0, 0.0, 1.1);
    chain.part.max_age = 7.5;
    let settings = fog_on();
    let a = classify(&chain, &SystemContext { texture: Some(ROUND_PUFF), ..Default::default() }, &settings);
    assert_eq!(a.exclusions.iter().collect::<Vec<_>>(), [Exclusion::Streaks], "{a:?}");
    let why = fog::Explanation::one_shot(&chain, &a, &settings);
    assert!(why.decision.contains("they streak") && why.decision.contains("hidden in a continuous stream"));
    assert!(why.to_change.contains("overlaps the next along its path"), "{}", why.to_change);
    // A hundred times as many puffs (10 every 0.05 s) close the chain up into a column that does
    // not streak.
    chain.burst_part_count = 10;
    chain.burst_rate = 0.05;
    assert!(exclusions(&chain, Some(ROUND_PUFF)).is_empty(), "{:?}", exclusions(&chain, Some(ROUND_PUFF)));
}
