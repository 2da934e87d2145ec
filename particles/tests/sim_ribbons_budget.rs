//! Ribbon links, the particle budget and determinism of the reference simulation
//! (viewer: `llviewerpartsource.cpp`, `llviewerpartsim.cpp`, `llvopartgroup.cpp`).

use std::f32::consts::FRAC_PI_2;

use glam::{Quat, Vec3};
use particles::sim::{Camera, Particle, SimConfig, Simulation, SourceDesc, SourceId, HARD_MAX_PARTICLES};
use particles::types::{pattern, PartFlags, PartSysData, SysFlags};

const S: Vec3 = Vec3::new(10.0, 20.0, 30.0);

fn desc(sys: PartSysData, position: Vec3, rotation: Quat) -> SourceDesc {
    SourceDesc { sys, position, rotation, target_position: None, hud: false }
}

fn ribbon_sys() -> PartSysData {
    let mut s = PartSysData { burst_rate: 0.01, ..PartSysData::default() };
    s.part.flags = PartFlags(PartFlags::RIBBON);
    s.part.max_age = 0.3;
    s.part_accel = Vec3::new(0.0, 0.0, -2.0);
    s
}

/// Checks the ribbon invariant over one source's live particles (oldest first): consecutive
/// particles are linked both ways, or the chain restarts (newer has no child and a zero axis,
/// older has no parent). Returns how many links skip over dead serials.
fn check_chain(parts: &[Particle], axis: Vec3) -> usize {
    let mut spliced = 0;
    for w in parts.windows(2) {
        let (older, newer) = (w[0], w[1]);
        if newer.child == Some(older.serial) {
            assert_eq!(older.parent, Some(newer.serial), "links are symmetric");
            assert!((newer.axis - axis).length() < 1e-6, "linked particles carry the emitter axis");
            spliced += usize::from(newer.serial - older.serial > 1);
        } else {
            assert_eq!(newer.child, None, "no link may skip a live particle");
            assert_eq!(older.parent, None);
            // A break: the newest particle died (the next one started a fresh chain with a
            // zero axis), or a chain's tail died (its parent keeps the axis it was created with).
        }
    }
    if let Some(newest) = parts.last() {
        assert_eq!(newest.parent, None, "the newest particle has no parent");
    }
    spliced
}

#[test]
fn ribbon_particles_link_parent_to_child_with_the_emitter_z_axis() {
    let mut sim = Simulation::new(SimConfig { seed: 5, max_particles: None });
    let rot = Quat::from_rotation_x(FRAC_PI_2);
    let id = sim.add_source(desc(ribbon_sys(), S, rot));
    for _ in 0..5 {
        sim.step(1.0 / 60.0);
    }
    let parts = sim.source_particles(id);
    let serials: Vec<u32> = parts.iter().map(|p| p.serial).collect();
    assert_eq!(serials, vec![0, 1, 2, 3, 4]);
    assert_eq!(parts[0].axis, Vec3::ZERO, "the first ribbon particle's edge is a point");
    assert_eq!(parts[0].child, None);
    for i in 1..5 {
        assert_eq!(parts[i].child, Some(i as u32 - 1));
        assert_eq!(parts[i - 1].parent, Some(i as u32));
        // The emitter's local +Z in world axes: +Z turned 90 degrees about +X is -Y.
        assert!((parts[i].axis - Vec3::new(0.0, -1.0, 0.0)).length() < 1e-6);
    }
    assert_eq!(parts[4].parent, None);
}

#[test]
fn non_ribbon_particles_are_not_linked() {
    let mut s = ribbon_sys();
    s.part.flags = PartFlags(0);
    let mut sim = Simulation::new(SimConfig { seed: 5, max_particles: None });
    let id = sim.add_source(desc(s, S, Quat::IDENTITY));
    for _ in 0..5 {
        sim.step(1.0 / 60.0);
    }
    assert!(sim.source_particles(id).iter().all(|p| p.parent.is_none() && p.child.is_none()));
}

#[test]
fn the_oldest_ribbon_particle_dying_leaves_its_parent_as_the_tail() {
    let mut sim = Simulation::new(SimConfig { seed: 5, max_particles: None });
    let mut s = ribbon_sys();
    s.burst_rate = 0.04;
    s.part.max_age = 0.32;
    let id = sim.add_source(desc(s, S, Quat::IDENTITY));
    // One burst per 0.05 s frame; max age 0.32: particle 0 dies in the 7th frame (age 0.35)
    // while particle 1 (age 0.30) lives.
    for _ in 0..7 {
        sim.step(0.05);
    }
    let parts = sim.source_particles(id);
    assert_eq!(parts.first().map(|p| p.serial), Some(1));
    assert_eq!(parts[0].child, None, "re-linked past the dead particle");
    check_chain(parts, Vec3::Z);
}

#[test]
fn ribbons_relink_around_particles_that_die_in_the_middle() {
    // Speeds up to 3e7 m/s: particles leave the 1e6 m world after different numbers of frames,
    // so deaths happen in the middle of the chain and at its head.
    let mut s = ribbon_sys();
    s.pattern = pattern::EXPLODE;
    s.burst_speed_min = 0.0;
    s.burst_speed_max = 3.0e7;
    s.burst_part_count = 3;
    s.part.max_age = 30.0;
    s.part_accel = Vec3::ZERO;
    let mut sim = Simulation::new(SimConfig { seed: 9, max_particles: None });
    let id = sim.add_source(desc(s, Vec3::ZERO, Quat::IDENTITY));
    let mut spliced = 0;
    let mut discarded = 0;
    for _ in 0..40 {
        discarded += sim.step(0.05).discarded_out_of_range;
        spliced += check_chain(sim.source_particles(id), Vec3::Z);
    }
    assert!(discarded > 20, "the scenario must kill particles: {discarded}");
    assert!(spliced > 10, "the scenario must splice links over dead particles: {spliced}");
}

fn flood_sys(count: u8) -> PartSysData {
    let mut s = PartSysData {
        pattern: pattern::EXPLODE,
        burst_part_count: count,
        burst_rate: 0.01,
        flags: SysFlags(SysFlags::USE_NEW_ANGLE),
        ..PartSysData::default()
    };
    s.part.max_age = 20.0;
    s
}

#[test]
fn emission_stops_once_the_live_count_is_above_the_maximum() {
    const MAX: u32 = 100;
    const COUNT: u8 = 10;
    let mut sim = Simulation::new(SimConfig { seed: 2, max_particles: Some(MAX) });
    sim.add_source(desc(flood_sys(COUNT), S, Quat::IDENTITY));
    let mut peak = 0;
    for _ in 0..200 {
        let before = sim.live_count() as u32;
        let st = sim.step(1.0 / 60.0);
        if before > MAX {
            assert_eq!(st.bursts, 0, "no burst with {before} live");
        }
        // The check is per burst, so one burst may overshoot by at most its size.
        assert!(st.live <= MAX + u32::from(COUNT), "live {}", st.live);
        peak = peak.max(st.live);
    }
    assert!(peak > MAX, "the source fills the budget: peak {peak}");
}

#[test]
fn the_setting_is_capped_at_8192_and_new_particles_are_refused_there() {
    let mut sim = Simulation::new(SimConfig { seed: 2, max_particles: Some(20_000) });
    for i in 0..20 {
        sim.add_source(desc(flood_sys(255), Vec3::new(i as f32, 0.0, 0.0), Quat::IDENTITY));
    }
    let mut refused = 0;
    for _ in 0..30 {
        let st = sim.step(1.0 / 60.0);
        assert!(st.live <= HARD_MAX_PARTICLES, "live {}", st.live);
        refused += st.refused_at_cap;
    }
    assert_eq!(sim.live_count() as u32, HARD_MAX_PARTICLES);
    assert!(refused > 0);
}

#[test]
fn the_initial_burst_share_drops_about_half_of_the_candidates() {
    let mut sim = Simulation::new(SimConfig { seed: 4, max_particles: Some(4096) });
    sim.add_source(desc(flood_sys(255), S, Quat::IDENTITY));
    let st = sim.step(1.0 / 60.0);
    assert_eq!(st.emitted + st.dropped_candidates, 255);
    // Binomial(255, 0.5): mean 127.5, standard deviation 8.
    assert!((95..=160).contains(&st.dropped_candidates), "dropped {}", st.dropped_candidates);
    let mut free = Simulation::new(SimConfig { seed: 4, max_particles: None });
    free.add_source(desc(flood_sys(255), S, Quat::IDENTITY));
    let st = free.step(1.0 / 60.0);
    assert_eq!((st.emitted, st.dropped_candidates), (255, 0), "no budget, no drops");
}

#[test]
fn the_burst_share_grows_while_far_below_the_budget() {
    let mut sim = Simulation::new(SimConfig { seed: 4, max_particles: Some(4096) });
    sim.add_source(desc(flood_sys(10), S, Quat::IDENTITY));
    for _ in 0..200 {
        sim.step(1.0 / 60.0);
    }
    // Far below 0.9 * max the target share is 1 and each update (frames 0, 16, ..., 192: 13 of
    // them) moves half of min(0.1, 1 - share): 0.55, 0.60, ..., 0.95 after nine, then the gap
    // halves: 0.975, 0.9875, 0.99375, 0.996875.
    assert!((sim.burst_share() - 0.996_875).abs() < 1e-5, "share {}", sim.burst_share());
}

/// A mixed scene driven through an irregular frame sequence.
fn scene(seed: u64, budget: Option<u32>) -> Simulation {
    let mut sim = Simulation::new(SimConfig { seed, max_particles: budget });
    let mut cone = flood_sys(20);
    cone.pattern = pattern::ANGLE_CONE;
    cone.inner_angle = 0.2;
    cone.outer_angle = 0.7;
    cone.angular_velocity = Vec3::new(0.0, 1.0, 0.5);
    cone.part.flags = PartFlags(PartFlags::WIND | PartFlags::BOUNCE | PartFlags::RIBBON);
    cone.part.max_age = 1.5;
    cone.part_accel = Vec3::new(0.0, 0.0, -3.0);
    let mut boom = flood_sys(40);
    boom.burst_radius = 0.5;
    boom.burst_speed_max = 4.0;
    boom.part.max_age = 0.8;
    let a = sim.add_source(desc(cone, S, Quat::from_rotation_y(0.3)));
    sim.add_source(desc(boom, -S, Quat::IDENTITY));
    sim.set_wind(Vec3::new(2.0, 1.0, 0.0));
    for f in 0..120u32 {
        sim.step(0.01 + 0.002 * (f % 7) as f32);
        if f == 60 {
            sim.set_source_transform(a, S + Vec3::X, Quat::IDENTITY);
        }
    }
    sim
}

fn snapshot(sim: &Simulation) -> Vec<Particle> {
    sim.particles().copied().collect()
}

#[test]
fn same_seed_and_frames_give_identical_particles_on_any_thread_count() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a one-thread pool");
    // With a budget emission is sequential; without one it runs on rayon too.
    for budget in [Some(4096), None] {
        let a = snapshot(&scene(77, budget));
        let b = snapshot(&scene(77, budget));
        assert!(!a.is_empty());
        assert_eq!(a, b);
        let single = pool.install(|| snapshot(&scene(77, budget)));
        assert_eq!(a, single, "results do not depend on scheduling ({budget:?})");
    }
}

#[test]
fn a_different_seed_moves_particles_but_keeps_the_counts() {
    let a = scene(77, None);
    let b = scene(78, None);
    let ids = [SourceId(0), SourceId(1)];
    for id in ids {
        assert_eq!(a.source_particles(id).len(), b.source_particles(id).len());
    }
    let pa = snapshot(&a);
    let pb = snapshot(&b);
    let differing = pa.iter().zip(&pb).filter(|(x, y)| x.pos != y.pos).count();
    assert!(differing * 10 > pa.len() * 9, "{differing} of {} differ", pa.len());
}

/// 0.5 m particles, 255 per burst, seen by a camera with 100 px/m: visible out to 50 m.
fn throttled(distance_m: f32, scale_m: f32) -> (u32, u32, u32) {
    let mut s = flood_sys(255);
    s.part.start_scale = glam::Vec2::splat(scale_m);
    s.part.end_scale = glam::Vec2::splat(scale_m);
    s.part.max_age = 10.0;
    let mut sim = Simulation::new(SimConfig { seed: 6, max_particles: None });
    sim.add_source(desc(s, Vec3::new(distance_m, 0.0, 0.0), Quat::IDENTITY));
    sim.set_camera(Some(Camera { position: Vec3::ZERO, pixels_per_metre: 100.0 }));
    let (mut emitted, mut dropped, mut skipped) = (0, 0, 0);
    for _ in 0..8 {
        let st = sim.step(1.0 / 60.0);
        emitted += st.emitted;
        dropped += st.dropped_candidates;
        skipped += st.bursts_skipped_by_distance;
    }
    (emitted, dropped, skipped)
}

#[test]
fn distance_throttling_thins_far_sources_and_skips_invisible_ones() {
    assert_eq!(throttled(40.0, 0.5), (8 * 255, 0, 0), "inside the visible range");
    // 80 m: 30 m beyond, travel 30 * 0.0625 = 1.875 s of a 10 s life: drop 18.75 %.
    let (emitted, dropped, skipped) = throttled(80.0, 0.5);
    assert_eq!((emitted + dropped, skipped), (8 * 255, 0));
    let share = dropped as f32 / (8.0 * 255.0);
    assert!((share - 0.1875).abs() < 0.03, "dropped {share}");
    // 250 m: 12.5 s of travel exceeds 10 - 0.2 s: every burst skipped.
    assert_eq!(throttled(250.0, 0.5), (0, 0, 8));
    // 0.002 m particles are under a quarter pixel even at 100 px/m.
    assert_eq!(throttled(1.0, 0.002), (0, 0, 8));
}
