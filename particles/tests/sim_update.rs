//! Per-particle update rules of the reference simulation (`LLViewerPartGroup::updateParticles`), one
//! test per flag, each against a closed-form expectation.

use glam::{Quat, Vec2, Vec3, Vec4};
use particles::sim::{Particle, SimConfig, Simulation, SourceDesc, SourceId};
use particles::types::{pattern, PartFlags, PartSysData};

const S: Vec3 = Vec3::new(10.0, 20.0, 30.0);
/// Only the unconditional first burst happens within a test.
const ONCE_S: f32 = 200.0;
/// An exactly representable frame time, so sums of it are exact.
const DT: f32 = 0.0625;

/// One DROP particle template with the given flags, lifetime 1 s.
fn sys(flags: u32) -> PartSysData {
    let mut s = PartSysData { burst_rate: ONCE_S, ..PartSysData::default() };
    s.part.flags = PartFlags(flags);
    s.part.max_age = 1.0;
    s
}

fn sim_with(sys: PartSysData, target: Option<Vec3>) -> (Simulation, SourceId) {
    let mut sim = Simulation::new(SimConfig { seed: 3, max_particles: None });
    let id = sim.add_source(SourceDesc {
        sys,
        position: S,
        rotation: Quat::IDENTITY,
        target_position: target,
        hud: false,
    });
    (sim, id)
}

fn only(sim: &Simulation, id: SourceId) -> Particle {
    let parts = sim.source_particles(id);
    assert_eq!(parts.len(), 1, "expected exactly one particle");
    parts[0]
}

fn steps(sim: &mut Simulation, n: usize, dt: f32) {
    for _ in 0..n {
        sim.step(dt);
    }
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).length() <= tol
}

#[test]
fn drop_particle_under_acceleration_follows_s_plus_half_a_t_squared() {
    let a = Vec3::new(1.0, -2.0, 4.0);
    let mut s = sys(0);
    s.part.max_age = 10.0;
    s.part_accel = a;
    let (mut sim, id) = sim_with(s, None);
    for n in 1..=32 {
        sim.step(DT);
        let t = n as f32 * DT;
        let p = only(&sim, id);
        assert_eq!(p.age, t);
        assert!(close(p.pos, S + 0.5 * a * t * t, 1e-5), "t={t}: {}", p.pos);
        assert!(close(p.vel, a * t, 1e-5));
        assert_eq!(p.accel, a);
    }
}

#[test]
fn bounce_reflects_at_the_source_height_with_three_quarters_of_the_speed() {
    let mut s = sys(PartFlags::BOUNCE);
    s.part.max_age = 20.0;
    s.part_accel = Vec3::new(0.0, 0.0, -8.0);
    let (mut sim, id) = sim_with(s, None);
    sim.step(0.1);
    // Fell 0.04 m below S.z with vz = -0.8: reflected to +0.04, vz = 0.6.
    let p = only(&sim, id);
    assert!((p.pos.z - (S.z + 0.04)).abs() < 1e-5, "{}", p.pos.z);
    assert!((p.vel.z - 0.6).abs() < 1e-5, "{}", p.vel.z);
    sim.step(0.1);
    let p = only(&sim, id);
    assert!((p.pos.z - (S.z + 0.06)).abs() < 1e-5, "{}", p.pos.z);
    assert!((p.vel.z + 0.2).abs() < 1e-5, "{}", p.vel.z);
    for _ in 0..150 {
        sim.step(0.1);
        assert!(only(&sim, id).pos.z >= S.z, "never below the source");
    }
    let mut free = sys(0);
    free.part_accel = Vec3::new(0.0, 0.0, -8.0);
    let (mut sim, id) = sim_with(free, None);
    sim.step(0.1);
    assert!((only(&sim, id).pos.z - (S.z - 0.04)).abs() < 1e-5, "falls through without BOUNCE");
}

#[test]
fn wind_relaxes_velocity_toward_the_wind_by_a_tenth_per_second() {
    let wind = Vec3::new(4.0, -2.0, 0.0);
    let mut s = sys(PartFlags::WIND);
    s.part.max_age = 30.0;
    let (mut sim, id) = sim_with(s, None);
    sim.set_wind(wind);
    // v_n = 0.99 v_(n-1) + 0.01 w  =>  v_n = w (1 - 0.99^n).
    for n in 1..=200 {
        sim.step(0.1);
        let expected = wind * (1.0 - 0.99f32.powi(n));
        assert!(close(only(&sim, id).vel, expected, 1e-4), "n={n}");
    }
    let (mut calm, cid) = sim_with(sys(0), None);
    calm.set_wind(wind);
    calm.step(0.1);
    assert_eq!(only(&calm, cid).vel, Vec3::ZERO, "no WIND flag, no wind");
}

#[test]
fn interp_color_and_scale_reach_the_midpoint_at_half_life() {
    let mut s = sys(PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE);
    s.part.start_color = Vec4::new(1.0, 0.0, 0.0, 1.0);
    s.part.end_color = Vec4::new(0.0, 0.0, 1.0, 0.0);
    s.part.start_scale = Vec2::new(1.0, 2.0);
    s.part.end_scale = Vec2::new(3.0, 0.5);
    let (mut sim, id) = sim_with(s, None);
    steps(&mut sim, 8, DT);
    let p = only(&sim, id);
    assert_eq!(p.age, 0.5);
    assert!((p.color - Vec4::new(0.5, 0.0, 0.5, 0.5)).length() < 1e-6, "{}", p.color);
    assert!((p.scale - Vec2::new(2.0, 1.25)).length() < 1e-6, "{}", p.scale);
}

#[test]
fn without_interp_flags_colour_and_scale_stay_at_their_start_values() {
    let mut s = sys(0);
    s.part.start_color = Vec4::new(1.0, 0.0, 0.0, 1.0);
    s.part.end_color = Vec4::ZERO;
    s.part.start_scale = Vec2::new(1.0, 2.0);
    s.part.end_scale = Vec2::ZERO;
    let (mut sim, id) = sim_with(s, None);
    steps(&mut sim, 8, DT);
    let p = only(&sim, id);
    assert_eq!(p.color, Vec4::new(1.0, 0.0, 0.0, 1.0));
    assert_eq!(p.scale, Vec2::new(1.0, 2.0));
}

#[test]
fn glow_is_interpolated_without_flags_and_rounded_to_a_byte() {
    let mut s = sys(0);
    s.part.start_glow = 0.0;
    s.part.end_glow = 1.0;
    let (mut sim, id) = sim_with(s, None);
    steps(&mut sim, 4, DT);
    // f = 0.25: 63.75 -> 64.
    assert_eq!(only(&sim, id).glow, 64.0 / 255.0);
    steps(&mut sim, 4, DT);
    // f = 0.5: 127.5 -> 128.
    assert_eq!(only(&sim, id).glow, 128.0 / 255.0);
}

#[test]
fn target_linear_is_halfway_along_the_line_at_half_life() {
    let target = S + Vec3::new(8.0, 0.0, -4.0);
    let mut s = sys(PartFlags::TARGET_LINEAR);
    s.pattern = pattern::EXPLODE;
    s.burst_radius = 3.0;
    s.part_accel = Vec3::new(0.0, 0.0, -9.0);
    let (mut sim, id) = sim_with(s, Some(target));
    steps(&mut sim, 8, DT);
    let p = only(&sim, id);
    assert!(close(p.pos, S + 0.5 * (target - S), 1e-5), "{}", p.pos);
    assert_eq!(p.vel, target - S);
}

#[test]
fn target_pos_steers_toward_the_target_and_arrives_by_the_end_of_life() {
    let target = S + Vec3::new(5.0, 0.0, 0.0);
    let mut s = sys(PartFlags::TARGET_POS);
    s.part.max_age = 4.0;
    let (mut sim, id) = sim_with(s, Some(target));
    let dt = 1.0 / 30.0;
    let mut last = f32::INFINITY;
    let mut first = None;
    while sim.step(dt).live > 0 {
        let d = (target - only(&sim, id).pos).length();
        assert!(d <= last + 1e-6, "distance must not grow: {d} after {last}");
        first.get_or_insert(d);
        last = d;
    }
    let first = first.expect("lived at least one frame");
    assert!(last < 0.01 * first, "ends within 1 % of the start distance: {last} of {first}");
}

#[test]
fn target_pos_without_a_target_object_heads_for_the_source() {
    let mut s = sys(PartFlags::TARGET_POS);
    s.pattern = pattern::EXPLODE;
    s.burst_radius = 2.0;
    s.burst_speed_min = 0.0;
    s.burst_speed_max = 0.0;
    s.part.max_age = 2.0;
    let (mut sim, id) = sim_with(s, None);
    sim.step(DT);
    let start = (only(&sim, id).pos - S).length();
    steps(&mut sim, 28, DT);
    let end = (only(&sim, id).pos - S).length();
    assert!(start > 1.9 && start < 2.0, "starts near the 2 m radius: {start}");
    assert!(end < 0.5 * start, "{start} -> {end}");
}

#[test]
fn follow_src_keeps_the_offset_when_the_source_moves() {
    let a = Vec3::new(0.0, 0.0, 1.0);
    let mut s = sys(PartFlags::FOLLOW_SRC);
    s.part.max_age = 10.0;
    s.part_accel = a;
    let (mut sim, id) = sim_with(s, None);
    let mut src = S;
    for n in 1..=16 {
        sim.step(DT);
        let t = n as f32 * DT;
        let p = only(&sim, id);
        assert!(close(p.pos - src, 0.5 * a * t * t, 1e-5), "t={t}: offset {}", p.pos - src);
        src += Vec3::new(0.5, -0.25, 0.0);
        assert!(sim.set_source_transform(id, src, Quat::IDENTITY));
    }
}

#[test]
fn follow_src_snaps_the_radius_offset_back_to_the_source() {
    let mut s = sys(PartFlags::FOLLOW_SRC);
    s.pattern = pattern::EXPLODE;
    s.burst_radius = 5.0;
    s.burst_speed_min = 0.0;
    s.burst_speed_max = 0.0;
    let (mut sim, id) = sim_with(s, None);
    sim.step(DT);
    assert!(close(only(&sim, id).pos, S, 1e-6), "offset starts at zero");
}

#[test]
fn positions_beyond_a_million_metres_are_discarded() {
    let mut sim = Simulation::new(SimConfig { seed: 3, max_particles: None });
    sim.add_source(SourceDesc {
        sys: sys(0),
        position: Vec3::new(2.0e6, 0.0, 0.0),
        rotation: Quat::IDENTITY,
        target_position: None,
        hud: false,
    });
    let st = sim.step(DT);
    assert_eq!((st.emitted, st.discarded_out_of_range, st.live), (0, 1, 0));
    // A particle that flies out while alive is discarded too.
    let mut fast = sys(0);
    fast.part_accel = Vec3::new(4.0e8, 0.0, 0.0);
    let (mut sim, _) = sim_with(fast, None);
    let st = sim.step(0.1);
    assert_eq!((st.emitted, st.discarded_out_of_range, st.live), (1, 1, 0));
}
