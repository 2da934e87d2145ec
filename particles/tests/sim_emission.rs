//! Emission timing and source life of the reference simulation (`LLViewerPartSourceScript::update`),
//! checked against expectations worked out by hand from the viewer's rules.

use glam::{Quat, Vec3};
use particles::sim::{FrameStats, SimConfig, Simulation, SourceDesc, SourceId};
use particles::types::{pattern, PartFlags, PartSysData, SysFlags};

const S: Vec3 = Vec3::new(10.0, 20.0, 30.0);
/// A burst rate so long that only the unconditional first burst happens in a test.
const ONCE_S: f32 = 200.0;

fn sys(flags: u32, rate: f32) -> PartSysData {
    let mut s = PartSysData { burst_rate: rate, ..PartSysData::default() };
    s.part.flags = PartFlags(flags);
    s
}

fn sim_with(sys: PartSysData) -> (Simulation, SourceId) {
    let mut sim = Simulation::new(SimConfig { seed: 7, max_particles: None });
    let id = sim.add_source(SourceDesc {
        sys,
        position: S,
        rotation: Quat::IDENTITY,
        target_position: None,
        hud: false,
    });
    (sim, id)
}

fn run(sim: &mut Simulation, frames: usize, dt: f32) -> Vec<FrameStats> {
    (0..frames).map(|_| sim.step(dt)).collect()
}

fn burst_frames(stats: &[FrameStats]) -> Vec<usize> {
    stats.iter().enumerate().filter(|(_, s)| s.bursts > 0).map(|(i, _)| i).collect()
}

/// A zero-width fan along local +Z with the given omega, one particle per burst.
fn spinning_fan(omega: Vec3) -> PartSysData {
    let mut s = sys(0, 0.01);
    s.pattern = pattern::ANGLE;
    s.flags = SysFlags(SysFlags::USE_NEW_ANGLE);
    s.angular_velocity = omega;
    s
}

#[test]
fn rate_shorter_than_the_frame_gives_one_burst_per_frame_not_one_per_rate() {
    let (mut sim, _) = sim_with(sys(0, 0.01));
    let stats = run(&mut sim, 60, 1.0 / 60.0);
    assert!(stats.iter().all(|s| s.bursts == 1), "one burst every frame at 60 fps");
    let total: u32 = stats.iter().map(|s| s.bursts).sum();
    assert_eq!(total, 60, "60 bursts in a second, not 100");
}

#[test]
fn bursts_per_frame_are_the_whole_number_of_rates_in_the_frame() {
    // dt = 1/30 s holds three whole 0.01 s rates; the remainder is discarded.
    let (mut sim, _) = sim_with(sys(0, 0.01));
    let stats = run(&mut sim, 30, 1.0 / 30.0);
    let per_frame: Vec<u32> = stats.iter().map(|s| s.bursts).collect();
    assert!(per_frame.iter().all(|&b| b == 3), "{per_frame:?}");
}

#[test]
fn rate_longer_than_the_frame_rounds_up_to_whole_frames() {
    // 0.105 s lies between 6/60 and 7/60: pending must strictly exceed it, so every 7th frame.
    let (mut sim, _) = sim_with(sys(0, 0.105));
    let frames = burst_frames(&run(&mut sim, 70, 1.0 / 60.0));
    assert_eq!(frames, (0..70).step_by(7).collect::<Vec<_>>());
    // The wire value of "0.1" is 0.09765625 (U8.8): under 6/60 = 0.1, so every 6th frame.
    let (mut sim, _) = sim_with(sys(0, 0.097_656_25));
    let frames = burst_frames(&run(&mut sim, 60, 1.0 / 60.0));
    assert_eq!(frames, (0..60).step_by(6).collect::<Vec<_>>());
}

#[test]
fn first_update_always_bursts() {
    let (mut sim, id) = sim_with(sys(0, 5.0));
    let stats = run(&mut sim, 60, 1.0 / 60.0);
    assert_eq!(stats[0].bursts, 1);
    assert_eq!(stats[0].emitted, 1);
    assert!(stats[1..].iter().all(|s| s.bursts == 0), "next burst only after 5 s");
    assert_eq!(sim.source_particles(id).len(), 1);
}

#[test]
fn source_max_age_stops_emission_at_the_frame_the_rule_predicts() {
    // dt = 1/16, rate 1/4: bursts on frames 1, 6, 11 (1-based). The source dies on the first
    // frame with elapsed + pending > 1: frame 14 (0.875 + 0.1875); frame 11 gives exactly 1.0
    // (not greater) and still bursts.
    let mut s = sys(0, 0.25);
    s.max_age = 1.0;
    let (mut sim, id) = sim_with(s);
    let mut bursts = Vec::new();
    for frame in 1..=20 {
        if sim.step(0.0625).bursts > 0 {
            bursts.push(frame);
        }
        let emitting = sim.source(id).map(|v| v.emitting);
        assert_eq!(emitting, Some(frame < 14), "frame {frame}");
    }
    assert_eq!(bursts, vec![1, 6, 11]);
}

#[test]
fn start_age_shortens_the_source_life() {
    // Same source, already 0.25 s old: 0.25 + elapsed + pending first exceeds 1 on frame 10
    // (0.25 + 0.625 + 0.25); frame 9 gives exactly 1.0.
    let mut s = sys(0, 0.25);
    s.max_age = 1.0;
    s.start_age = 0.25;
    let (mut sim, id) = sim_with(s);
    let mut bursts = Vec::new();
    for frame in 1..=20 {
        if sim.step(0.0625).bursts > 0 {
            bursts.push(frame);
        }
        assert_eq!(sim.source(id).map(|v| v.emitting), Some(frame < 10), "frame {frame}");
    }
    assert_eq!(bursts, vec![1, 6]);
}

#[test]
fn particles_outlive_their_dead_source() {
    let mut s = sys(0, 0.25);
    s.max_age = 0.5;
    s.part.max_age = 5.0;
    let (mut sim, id) = sim_with(s);
    run(&mut sim, 20, 0.0625);
    let view = sim.source(id).expect("source still held");
    assert!(!view.emitting);
    assert!(!view.particles.is_empty(), "existing particles live on");
}

#[test]
fn particle_with_max_age_zero_is_updated_once_and_removed_in_its_first_frame() {
    let mut s = sys(0, ONCE_S);
    s.part.max_age = 0.0;
    let (mut sim, _) = sim_with(s);
    let st = sim.step(1.0 / 60.0);
    assert_eq!((st.emitted, st.died, st.live), (1, 1, 0));
}

#[test]
fn particle_dies_only_when_its_age_strictly_exceeds_max_age() {
    let mut s = sys(0, ONCE_S);
    s.part.max_age = 0.125;
    let (mut sim, _) = sim_with(s);
    assert_eq!(sim.step(0.0625).live, 1, "age 0.0625");
    assert_eq!(sim.step(0.0625).live, 1, "age 0.125 == max age: still alive");
    let st = sim.step(0.0625);
    assert_eq!((st.live, st.died), (0, 1), "age 0.1875 > max age");
}

#[test]
fn frame_time_is_clamped_to_a_tenth_of_a_second() {
    let (mut sim, id) = sim_with(sys(0, ONCE_S));
    let st = sim.step(2.0);
    assert_eq!(st.dt, 0.1);
    assert_eq!(sim.source_particles(id)[0].age, 0.1);
    assert_eq!(sim.step(f32::NAN).dt, 0.0);
    assert_eq!(sim.step(-1.0).dt, 0.0);
}

#[test]
fn omega_rotates_successive_bursts_by_its_magnitude_times_the_frame_time() {
    // Every direction is R * (+Z); R advances |w| dt before each burst, the first included.
    let (mut sim, id) = sim_with(spinning_fan(Vec3::new(1.5, 0.0, 0.0)));
    let dt = 1.0 / 60.0;
    run(&mut sim, 10, dt);
    let parts = sim.source_particles(id);
    assert_eq!(parts.len(), 10);
    for (k, p) in parts.iter().enumerate() {
        let expected = Quat::from_rotation_x(1.5 * dt * (k as f32 + 1.0)) * Vec3::Z;
        assert!((p.vel - expected).length() < 1e-4, "burst {k}: {} vs {expected}", p.vel);
    }
}

#[test]
fn omega_is_applied_per_burst_not_per_second() {
    // Three bursts per frame at dt = 1/30: each adds |w| dt, so two frames turn 6 |w| dt,
    // twice what |w| * elapsed would give.
    let (mut sim, id) = sim_with(spinning_fan(Vec3::new(0.6, 0.0, 0.0)));
    let dt = 1.0 / 30.0;
    run(&mut sim, 2, dt);
    let parts = sim.source_particles(id);
    assert_eq!(parts.len(), 6);
    let last = Quat::from_rotation_x(0.6 * dt * 6.0) * Vec3::Z;
    assert!((parts[5].vel - last).length() < 1e-4, "{} vs {last}", parts[5].vel);
}

#[test]
fn zero_omega_leaves_every_burst_unrotated() {
    let (mut sim, id) = sim_with(spinning_fan(Vec3::ZERO));
    run(&mut sim, 5, 1.0 / 60.0);
    assert!(sim.source_particles(id).iter().all(|p| (p.vel - Vec3::Z).length() < 1e-6));
}

#[test]
fn follow_src_zeroes_the_burst_radius_after_the_first_particle() {
    let mut s = sys(PartFlags::FOLLOW_SRC, 0.01);
    s.pattern = pattern::EXPLODE;
    s.burst_radius = 2.0;
    let (mut sim, id) = sim_with(s);
    assert_eq!(sim.source(id).map(|v| v.sys.burst_radius), Some(2.0));
    sim.step(1.0 / 60.0);
    assert_eq!(sim.source(id).map(|v| v.sys.burst_radius), Some(0.0));
    let mut plain = sys(0, 0.01);
    plain.pattern = pattern::EXPLODE;
    plain.burst_radius = 2.0;
    let (mut sim, id) = sim_with(plain);
    sim.step(1.0 / 60.0);
    assert_eq!(sim.source(id).map(|v| v.sys.burst_radius), Some(2.0), "kept without the flags");
}

#[test]
fn hud_sources_mark_their_particles() {
    let mut sim = Simulation::new(SimConfig { seed: 1, max_particles: None });
    let id = sim.add_source(SourceDesc {
        sys: sys(PartFlags::EMISSIVE, ONCE_S),
        position: S,
        rotation: Quat::IDENTITY,
        target_position: None,
        hud: true,
    });
    sim.step(0.0);
    let p = sim.source_particles(id)[0];
    assert!(p.flags.contains(PartFlags::HUD | PartFlags::EMISSIVE));
}

#[test]
fn burst_rate_below_the_viewer_floor_is_raised_to_a_hundredth() {
    let (mut sim, id) = sim_with(sys(0, 0.0));
    assert_eq!(sim.source(id).map(|v| v.sys.burst_rate), Some(0.01));
    // dt = 0.045 holds four whole 0.01 s rates.
    assert_eq!(sim.step(0.045).bursts, 4);
}

#[test]
fn removed_sources_stop_emitting_and_vanish_when_their_particles_are_gone() {
    let mut s = sys(0, 0.01);
    s.part.max_age = 0.2;
    let (mut sim, id) = sim_with(s);
    run(&mut sim, 5, 0.05);
    assert!(sim.remove_source(id));
    assert_eq!(sim.step(0.05).bursts, 0);
    run(&mut sim, 10, 0.05);
    assert_eq!(sim.live_count(), 0);
    assert!(sim.source(id).is_none());
    assert!(!sim.remove_source(id), "unknown id");
    assert!(!sim.set_source_transform(SourceId(99), S, Quat::IDENTITY));
}
