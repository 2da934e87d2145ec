//! Emission patterns of the reference simulation (`LLViewerPartSourceScript::update`): geometric
//! properties of many emitted particles, observed at creation (a zero-length first step leaves them
//! where they were created).

use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

use glam::{Quat, Vec3};
use particles::sim::{Particle, SimConfig, Simulation, SourceDesc};
use particles::types::{pattern, PartSysData, SysFlags};

const S: Vec3 = Vec3::new(10.0, 20.0, 30.0);
/// Particles per burst (the wire maximum).
const COUNT: u8 = 255;

fn burst_sys(pat: u8) -> PartSysData {
    PartSysData {
        pattern: pat,
        burst_part_count: COUNT,
        burst_rate: 0.01,
        burst_speed_min: 1.0,
        burst_speed_max: 1.0,
        ..PartSysData::default()
    }
}

/// Emits `bursts` bursts with dt = 0 (positions stay at their creation values; the source's first
/// update flag stays set while its clock reads zero) and returns every particle.
fn emitted(sys: PartSysData, rotation: Quat, bursts: usize) -> Vec<Particle> {
    let mut sim = Simulation::new(SimConfig { seed: 11, max_particles: None });
    let id = sim.add_source(SourceDesc { sys, position: S, rotation, target_position: None, hud: false });
    for _ in 0..bursts {
        sim.step(0.0);
    }
    sim.source_particles(id).to_vec()
}

/// Signed angle of a direction in the Y-Z plane, measured from +Z toward -Y (rotation about +X).
fn angle_about_x(d: Vec3) -> f32 {
    (-d.y).atan2(d.z)
}

#[test]
fn drop_and_unimplemented_patterns_start_at_the_source_at_rest() {
    for pat in [pattern::DROP, 0, pattern::ANGLE_CONE_EMPTY, 0x20] {
        let mut s = burst_sys(pat);
        s.burst_radius = 3.0;
        s.burst_speed_min = 2.0;
        s.burst_speed_max = 5.0;
        let parts = emitted(s, Quat::IDENTITY, 1);
        assert_eq!(parts.len(), usize::from(COUNT));
        assert!(parts.iter().all(|p| p.pos == S && p.vel == Vec3::ZERO), "pattern {pat:#x}");
    }
}

#[test]
fn explode_speeds_lie_within_min_max_and_directions_are_isotropic() {
    let mut s = burst_sys(pattern::EXPLODE);
    s.burst_radius = 2.0;
    s.burst_speed_min = 1.5;
    s.burst_speed_max = 4.0;
    // The object rotation must not matter for EXPLODE.
    let parts = emitted(s, Quat::from_rotation_y(1.0), 8);
    assert_eq!(parts.len(), 8 * usize::from(COUNT));
    let mut mean = Vec3::ZERO;
    let (mut up, mut slow_half) = (0usize, 0usize);
    for p in &parts {
        let speed = p.vel.length();
        assert!((1.5..=4.0).contains(&speed), "speed {speed}");
        let d = p.vel / speed;
        assert!(((p.pos - S) - 2.0 * d).length() < 1e-5, "offset is radius * direction");
        mean += d;
        up += usize::from(d.z > 0.0);
        slow_half += usize::from(speed < 2.75);
    }
    let n = parts.len() as f32;
    mean /= n;
    // Each component of the mean of n unit vectors has standard deviation 1/sqrt(3n) = 0.0128.
    assert!(mean.length() < 0.05, "mean direction {mean}");
    assert!((up as f32 / n - 0.5).abs() < 0.05, "upper hemisphere share {}", up as f32 / n);
    assert!((slow_half as f32 / n - 0.5).abs() < 0.05, "speed is uniform in [min, max)");
}

#[test]
fn angle_particles_lie_in_the_local_yz_plane_within_inner_outer_of_z() {
    for (inner, outer) in [(0.3f32, 0.9f32), (0.9, 0.3)] {
        let mut s = burst_sys(pattern::ANGLE);
        s.flags = SysFlags(SysFlags::USE_NEW_ANGLE);
        s.inner_angle = inner;
        s.outer_angle = outer;
        s.burst_radius = 1.0;
        let parts = emitted(s, Quat::IDENTITY, 4);
        let mut negative = 0usize;
        for p in &parts {
            assert!(p.vel.x.abs() < 1e-6, "in the Y-Z plane: {}", p.vel);
            let off_axis = p.vel.z.clamp(-1.0, 1.0).acos();
            assert!((0.3 - 1e-5..=0.9 + 1e-5).contains(&off_axis), "angle {off_axis}");
            negative += usize::from(angle_about_x(p.vel) < 0.0);
        }
        let share = negative as f32 / parts.len() as f32;
        assert!((share - 0.5).abs() < 0.06, "both sides equally likely: {share}");
    }
}

#[test]
fn angle_fan_follows_the_object_rotation() {
    // Rotating the object 90 degrees about +Z maps the local Y-Z plane onto the world X-Z plane.
    let mut s = burst_sys(pattern::ANGLE);
    s.flags = SysFlags(SysFlags::USE_NEW_ANGLE);
    s.inner_angle = 0.2;
    s.outer_angle = 1.2;
    let parts = emitted(s, Quat::from_rotation_z(FRAC_PI_2), 2);
    assert!(parts.iter().all(|p| p.vel.y.abs() < 1e-5), "fan in world X-Z");
    assert!(parts.iter().any(|p| p.vel.x.abs() > 0.5));
}

#[test]
fn angle_cone_azimuths_cover_the_circle() {
    let mut s = burst_sys(pattern::ANGLE_CONE);
    s.flags = SysFlags(SysFlags::USE_NEW_ANGLE);
    s.inner_angle = FRAC_PI_4;
    s.outer_angle = FRAC_PI_4;
    let parts = emitted(s, Quat::IDENTITY, 8);
    const BINS: usize = 8;
    let mut hist = [0usize; BINS];
    for p in &parts {
        assert!((p.vel.z - FRAC_PI_4.cos()).abs() < 1e-5, "on the 45 degree cone: {}", p.vel);
        let az = p.vel.y.atan2(p.vel.x) + PI;
        hist[((az / (2.0 * PI) * BINS as f32) as usize).min(BINS - 1)] += 1;
    }
    let expected = parts.len() / BINS;
    for (b, &h) in hist.iter().enumerate() {
        assert!(h * 4 > expected * 3 && h * 4 < expected * 5, "bin {b}: {h} of about {expected}");
    }
}

#[test]
fn legacy_angles_are_tilted_by_the_outer_angle() {
    let mut legacy = burst_sys(pattern::ANGLE);
    legacy.flags = SysFlags(0);
    legacy.inner_angle = 0.0;
    legacy.outer_angle = 0.5;
    let mut new = legacy;
    new.flags = SysFlags(SysFlags::USE_NEW_ANGLE);
    let tilted: Vec<f32> = emitted(legacy, Quat::IDENTITY, 4).iter().map(|p| angle_about_x(p.vel)).collect();
    let plain: Vec<f32> = emitted(new, Quat::IDENTITY, 4).iter().map(|p| angle_about_x(p.vel)).collect();
    // New rules: theta in (-0.5, 0.5); legacy: theta + 0.5 in (0, 1).
    assert!(plain.iter().all(|a| (-0.5 - 1e-5..=0.5 + 1e-5).contains(a)));
    assert!(tilted.iter().all(|a| (-1e-5..=1.0 + 1e-5).contains(a)));
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
    assert!(mean(&plain).abs() < 0.03, "new-rule fan centred on +Z: {}", mean(&plain));
    assert!((mean(&tilted) - 0.5).abs() < 0.03, "legacy fan centred on the tilt: {}", mean(&tilted));
    // Same draws (same seed, source and serials): each legacy direction is the new one + 0.5.
    for (t, p) in tilted.iter().zip(&plain) {
        assert!((t - p - 0.5).abs() < 1e-4, "{t} vs {p}");
    }
}
