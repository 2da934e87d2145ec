//! Exclusions follow the design's intent (issue 16 item 1): streaking is judged against the
//! particle's own size, with an absolute ceiling for genuinely fast content; `FOLLOW_VELOCITY`
//! excludes only where turning the sprite shows.

use fog::classify::{classify, SystemContext, TextureVerdict};
use fog::Exclusion;
use glam::{Vec2, Vec4};
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
