//! The GPU particle simulation (`particles.emit`, `particles.update`) against the CPU reference
//! (`particles::sim::Simulation`, no budget) on lavapipe under validation: the exact live count every
//! frame, and every particle matched by (source, serial) within stated tolerances, since both
//! sides draw the same counter-based random numbers. Each feature also gets an analytic check that
//! does not rely on the reference; the frustum cull is checked against its CPU twin. Counts and
//! frames are small to keep the file fast.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use particles::sim::{Particle, SimConfig, Simulation, SourceDesc, SourceId};
use particles::types::pattern;
use particles::{PartFlags, PartSysData, SysFlags};
use pf_tests::gpu_test;
use render::frame::particles::{record_cull, record_simulation, simulate_frame};
use render::gpu_types::GpuParticle;
use render::particles_gpu::{GpuParticles, ParticlePoolDesc, MAX_CAPACITY};
use render::passes::particle_sim::cull::{frustum_planes, sphere_visible, ParticleCullPass};
use render::passes::particle_sim::ParticleSimPasses;
use render::Gpu;

/// Pool size of the parity tests: never reached, so no refusal differs from the unbudgeted reference.
const CAPACITY: u32 = 4096;
/// Seed shared by both simulations.
const SEED: u64 = 0x5EED_0009;
/// A 30 Hz frame, seconds.
const DT: f32 = 1.0 / 30.0;
/// Burst speed range of the test systems, m/s.
const SPEED_MIN: f32 = 0.5;
const SPEED_MAX: f32 = 2.0;
/// Slack on speeds rebuilt from velocities, m/s.
const SPEED_SLACK: f32 = 1e-4;

/// Tolerances of the particle-by-particle comparison (absolute). The update shader forbids fused
/// multiply-adds (`precise`), so a step rounds as on the CPU; what remains are the emission
/// directions (GLSL sin, cos and sqrt are not correctly rounded) carried along by the flight.
/// Measured on lavapipe (this file, up to 48 frames, positions up to 3000 m): 1.5e-5 m and
/// 6e-7 m/s at most, ages, colours and sizes identical; without `precise` positions differed by up
/// to 2 mm. The bounds leave a margin of about ten for other drivers' transcendentals.
#[derive(Clone, Copy)]
struct Tol {
    pos_m: f32,
    vel_m_s: f32,
    color: f32,
    scale_m: f32,
    age_s: f32,
}

const TOL: Tol = Tol { pos_m: 2e-4, vel_m_s: 1e-5, color: 1e-6, scale_m: 1e-6, age_s: 0.0 };

/// The CPU reference and the GPU pool, fed the same sources and frames.
struct Twin {
    cpu: Simulation,
    pool: GpuParticles,
    passes: ParticleSimPasses,
}

impl Twin {
    fn new(gpu: &mut Gpu, capacity: u32) -> anyhow::Result<Twin> {
        let cpu = Simulation::new(SimConfig { seed: SEED, max_particles: None });
        let desc = ParticlePoolDesc { capacity, max_sources: 16, seed: SEED };
        Ok(Twin { cpu, pool: GpuParticles::new(gpu, &desc)?, passes: ParticleSimPasses::new(gpu)? })
    }

    fn add(&mut self, desc: SourceDesc) -> anyhow::Result<SourceId> {
        let id = self.cpu.add_source(desc);
        assert_eq!(self.pool.add_source(desc)?, id, "both sides number sources alike");
        Ok(id)
    }

    /// One frame on both sides; the live counts must be equal.
    fn step(&mut self, gpu: &mut Gpu, dt: f32) -> anyhow::Result<u32> {
        let stats = self.cpu.step(dt);
        simulate_frame(gpu, &mut self.pool, &self.passes, dt)?;
        let live = self.pool.read_live_count(gpu)?;
        assert_eq!(live, stats.live, "live count in frame {}", stats.frame);
        Ok(live)
    }

    /// Every CPU particle's GPU twin, matched by (source, serial), within `tol`.
    fn compare(&self, gpu: &mut Gpu, tol: Tol) -> anyhow::Result<Vec<(Particle, GpuParticle)>> {
        let gpu_parts = self.pool.read_live(gpu)?;
        let by_key: HashMap<(u32, u32), GpuParticle> =
            gpu_parts.iter().map(|p| ((p.ids[0], p.ids[1]), *p)).collect();
        assert_eq!(by_key.len(), gpu_parts.len(), "a (source, serial) pair appears twice on the GPU");
        assert_eq!(gpu_parts.len(), self.cpu.live_count());
        let mut pairs = Vec::new();
        for c in self.cpu.particles() {
            let key = (c.source.0, c.serial);
            let g = by_key.get(&key).copied();
            let g = g.unwrap_or_else(|| panic!("particle {key:?} missing on the GPU"));
            let close =
                |a: Vec3, b: [f32; 4], t: f32| (a - Vec3::new(b[0], b[1], b[2])).abs().max_element() <= t;
            assert!(close(c.pos, g.pos_age, tol.pos_m), "{key:?} pos {} vs {:?}", c.pos, g.pos_age);
            assert!(close(c.vel, g.vel_max_age, tol.vel_m_s), "{key:?} vel {} vs {:?}", c.vel, g.vel_max_age);
            assert!((c.age - g.pos_age[3]).abs() <= tol.age_s, "{key:?} age {} vs {}", c.age, g.pos_age[3]);
            let dc = (c.color - Vec4::from_array(g.color)).abs().max_element();
            assert!(dc <= tol.color, "{key:?} colour {} vs {:?}", c.color, g.color);
            let ds = (c.scale - Vec2::new(g.scale[0], g.scale[1])).abs().max_element();
            assert!(ds <= tol.scale_m, "{key:?} scale {} vs {:?}", c.scale, g.scale);
            assert!((c.glow - g.offset_glow[3]).abs() <= 1.5 / 255.0, "{key:?} glow");
            assert_eq!(c.flags.0, g.ids[2], "{key:?} flags");
            pairs.push((*c, g));
        }
        Ok(pairs)
    }
}

fn source(sys: PartSysData, position: Vec3) -> SourceDesc {
    SourceDesc { sys, position, rotation: Quat::IDENTITY, target_position: None, hud: false }
}

fn system(pattern: u8, rate: f32, count: u8, life: f32) -> PartSysData {
    let mut s = PartSysData {
        pattern,
        burst_rate: rate,
        burst_part_count: count,
        burst_speed_min: SPEED_MIN,
        burst_speed_max: SPEED_MAX,
        ..Default::default()
    };
    s.part.max_age = life;
    s
}

/// Runs `frames` frames of `DT` on a twin with one source and compares every particle at the end.
fn single_source(
    gpu: &mut Gpu,
    desc: SourceDesc,
    frames: u32,
) -> anyhow::Result<(Twin, Vec<(Particle, GpuParticle)>)> {
    let mut twin = Twin::new(gpu, CAPACITY)?;
    twin.add(desc)?;
    for _ in 0..frames {
        twin.step(gpu, DT)?;
    }
    let pairs = twin.compare(gpu, TOL)?;
    assert!(!pairs.is_empty(), "the scenario produced no particles to compare");
    Ok((twin, pairs))
}

#[test]
fn live_counts_match_the_reference_every_frame_for_mixed_systems() {
    gpu_test(|gpu| {
        let mut twin = Twin::new(gpu, CAPACITY)?;
        twin.add(source(system(pattern::DROP, 0.1, 3, 0.5), Vec3::new(5.0, 5.0, 20.0)))?;
        twin.add(source(system(pattern::EXPLODE, 0.01, 2, 0.27), Vec3::new(10.0, 5.0, 20.0)))?;
        let mut cone = system(pattern::ANGLE_CONE, 0.05, 4, 1.3);
        cone.outer_angle = 0.6;
        cone.max_age = 1.0; // the source itself stops bursting after about half a second
        twin.add(source(cone, Vec3::new(15.0, 5.0, 20.0)))?;
        twin.add(source(system(pattern::ANGLE, 0.37, 9, 0.9), Vec3::new(20.0, 5.0, 20.0)))?;
        let mut hud = source(system(pattern::EXPLODE, 0.08, 5, 0.8), Vec3::new(0.5, 0.5, 0.5));
        hud.hud = true; // particles carry the HUD flag (compared with the reference's flags)
        let stopped = twin.add(hud)?;
        // A sky platform at region coordinates where one f32 step is 0.24 mm, with omega, wind,
        // gravity, bounce and colour interpolation together.
        let mut sky = system(pattern::ANGLE_CONE, 0.1, 6, 1.5);
        sky.outer_angle = 1.2;
        sky.angular_velocity = Vec3::new(0.5, 0.0, 1.0);
        sky.part_accel = Vec3::new(0.0, 0.0, -1.0);
        sky.part.flags = PartFlags(PartFlags::WIND | PartFlags::BOUNCE | PartFlags::INTERP_COLOR);
        sky.part.end_color = Vec4::new(0.2, 0.4, 0.6, 0.0);
        let mut platform = source(sky, Vec3::new(200.0, 230.0, 3000.0));
        platform.rotation = Quat::from_rotation_z(1.0);
        twin.add(platform)?;
        let wind = Vec3::new(-3.0, 1.0, 0.5);
        twin.cpu.set_wind(wind);
        twin.pool.set_wind(wind);
        // Irregular frame times, including a long one that the step clamp cuts to 0.1 s.
        let dts = [0.016, 0.033, 0.05, 0.25, 0.007, 0.02, 0.1, 0.04];
        let mut peak = 0;
        for frame in 0..48 {
            if frame == 20 {
                // A stopped source bursts no more; its particles live out their lives.
                assert!(twin.cpu.remove_source(stopped) && twin.pool.remove_source(stopped));
            }
            peak = peak.max(twin.step(gpu, dts[frame % dts.len()])?);
            if frame % 8 == 7 {
                twin.compare(gpu, TOL)?;
            }
        }
        assert!(
            twin.cpu.source_particles(stopped).is_empty(),
            "the stopped source's particles should be gone"
        );
        assert!(peak > 20, "the systems never got busy (peak {peak})");
        let c = twin.pool.read_counters(gpu)?;
        assert_eq!(c.refused, 0);
        assert_eq!(c.emitted - c.died - c.discarded, twin.cpu.live_count() as u32);
        Ok(())
    });
}

#[test]
fn drop_particles_fall_from_the_source_and_die_only_after_their_lifetime() {
    gpu_test(|gpu| {
        // Steps and lifetime that binary floats hold exactly, so ages reach 0.5 s exactly.
        const STEP: f32 = 0.0625;
        const LIFE: f32 = 0.5;
        let mut sys = system(pattern::DROP, 0.125, 2, LIFE);
        sys.part_accel = Vec3::new(0.0, 0.0, -2.0);
        let s = Vec3::new(3.0, 4.0, 50.0);
        let mut twin = Twin::new(gpu, CAPACITY)?;
        twin.add(source(sys, s))?;
        let mut seen_at_life = false;
        for _ in 0..24 {
            twin.step(gpu, STEP)?;
            for (_, g) in twin.compare(gpu, TOL)? {
                // Death is strict (age > max_age): a particle aged exactly its lifetime lives.
                let t = g.pos_age[3];
                assert!(t <= LIFE, "a particle aged {t} s outlived its {LIFE} s");
                seen_at_life |= t == LIFE;
                // Analytic: released at rest at S, so z = S.z - a t^2 / 2 after age t.
                let expected = s + Vec3::new(0.0, 0.0, -t * t);
                let got = Vec3::new(g.pos_age[0], g.pos_age[1], g.pos_age[2]);
                assert!((got - expected).length() < 1e-4, "{got} vs {expected}");
            }
        }
        assert!(seen_at_life, "no particle reached exactly its lifetime");
        Ok(())
    });
}

#[test]
fn explode_particles_leave_in_unit_directions_at_drawn_speeds() {
    gpu_test(|gpu| {
        const RADIUS_M: f32 = 0.5;
        let mut sys = system(pattern::EXPLODE, 0.1, 25, 1.0);
        sys.burst_radius = RADIUS_M;
        let s = Vec3::new(30.0, 30.0, 30.0);
        let (_, pairs) = single_source(gpu, source(sys, s), 12)?;
        for (_, g) in pairs {
            let v = Vec3::new(g.vel_max_age[0], g.vel_max_age[1], g.vel_max_age[2]);
            let speed = v.length();
            assert!((SPEED_MIN - SPEED_SLACK..=SPEED_MAX + SPEED_SLACK).contains(&speed), "speed {speed}");
            // Radius offset along the direction, then straight flight: pos = S + (r + age |v|) v/|v|.
            let t = g.pos_age[3];
            let expected = s + v / speed * (RADIUS_M + speed * t);
            let got = Vec3::new(g.pos_age[0], g.pos_age[1], g.pos_age[2]);
            assert!((got - expected).length() < 1e-3, "{got} vs {expected}");
        }
        Ok(())
    });
}

#[test]
fn angle_fan_with_omega_and_object_rotation_matches_the_reference() {
    gpu_test(|gpu| {
        let mut sys = system(pattern::ANGLE, 0.05, 6, 1.0);
        sys.inner_angle = 0.2;
        sys.outer_angle = 0.7;
        sys.burst_radius = 0.3;
        sys.angular_velocity = Vec3::new(0.0, 0.0, 3.0);
        let mut desc = source(sys, Vec3::new(8.0, 9.0, 10.0));
        desc.rotation = Quat::from_rotation_y(0.4);
        let (_, pairs) = single_source(gpu, desc, 15)?;
        // Directions depend on R (omega per burst) and Q, which the reference comparison above
        // checks; analytically, speeds stay within the drawn range.
        for (_, g) in &pairs {
            let speed = Vec3::new(g.vel_max_age[0], g.vel_max_age[1], g.vel_max_age[2]).length();
            assert!((SPEED_MIN - SPEED_SLACK..=SPEED_MAX + SPEED_SLACK).contains(&speed), "speed {speed}");
        }
        Ok(())
    });
}

#[test]
fn angle_cone_with_the_new_angle_flag_stays_inside_its_cone() {
    gpu_test(|gpu| {
        let mut sys = system(pattern::ANGLE_CONE, 0.1, 30, 1.0);
        sys.inner_angle = 0.3;
        sys.outer_angle = 0.5;
        sys.flags = SysFlags(SysFlags::USE_NEW_ANGLE);
        let (_, pairs) = single_source(gpu, source(sys, Vec3::new(40.0, 40.0, 5.0)), 8)?;
        for (_, g) in pairs {
            // Analytic: the angle from +Z is between inner and outer (no tilt, no rotation).
            let v = Vec3::new(g.vel_max_age[0], g.vel_max_age[1], g.vel_max_age[2]);
            let angle = v.normalize().dot(Vec3::Z).clamp(-1.0, 1.0).acos();
            assert!((0.3 - 1e-3..=0.5 + 1e-3).contains(&angle), "angle {angle}");
        }
        Ok(())
    });
}

#[test]
fn bounce_keeps_particles_above_the_source_height() {
    gpu_test(|gpu| {
        let mut sys = system(pattern::EXPLODE, 0.1, 20, 3.0);
        sys.part_accel = Vec3::new(0.0, 0.0, -9.8);
        sys.part.flags = PartFlags(PartFlags::BOUNCE);
        let s = Vec3::new(12.0, 12.0, 22.0);
        let (_, pairs) = single_source(gpu, source(sys, s), 40)?;
        let mut bounced = 0;
        for (c, g) in &pairs {
            assert!(g.pos_age[2] >= s.z, "below the bounce plane: {}", g.pos_age[2]);
            bounced += usize::from(c.vel.z > 0.0 && c.age > 0.5);
        }
        assert!(bounced > 0, "no particle was seen rising after a bounce");
        Ok(())
    });
}

#[test]
fn wind_relaxes_velocities_toward_the_wind() {
    gpu_test(|gpu| {
        let mut sys = system(pattern::DROP, 0.1, 3, 3.0);
        sys.part.flags = PartFlags(PartFlags::WIND);
        let wind = Vec3::new(4.0, -2.0, 0.0);
        let mut twin = Twin::new(gpu, CAPACITY)?;
        twin.add(source(sys, Vec3::new(1.0, 2.0, 3.0)))?;
        twin.cpu.set_wind(wind);
        twin.pool.set_wind(wind);
        for _ in 0..25 {
            twin.step(gpu, DT)?;
        }
        for (c, g) in twin.compare(gpu, TOL)? {
            // Analytic: from rest, after n steps v = wind * (1 - (1 - 0.1 dt)^n), n = age / dt.
            let n = (c.age / DT).round() as i32;
            let expected = wind * (1.0 - (1.0 - 0.1 * DT).powi(n));
            let got = Vec3::new(g.vel_max_age[0], g.vel_max_age[1], g.vel_max_age[2]);
            assert!((got - expected).length() < 1e-4, "{got} vs {expected}");
        }
        Ok(())
    });
}

#[test]
fn colour_and_scale_interpolate_over_the_lifetime() {
    gpu_test(|gpu| {
        const LIFE: f32 = 1.2;
        let mut sys = system(pattern::DROP, 0.05, 2, LIFE);
        sys.part.flags = PartFlags(PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE);
        sys.part.start_color = Vec4::new(1.0, 0.0, 0.0, 1.0);
        sys.part.end_color = Vec4::new(0.0, 0.0, 1.0, 0.0);
        sys.part.start_scale = Vec2::new(0.5, 0.25);
        sys.part.end_scale = Vec2::new(2.0, 4.0);
        sys.part.start_glow = 0.0;
        sys.part.end_glow = 1.0;
        let (_, pairs) = single_source(gpu, source(sys, Vec3::new(7.0, 7.0, 7.0)), 30)?;
        for (_, g) in pairs {
            let f = g.pos_age[3] / LIFE;
            let color = Vec4::new(1.0 - f, 0.0, f, 1.0 - f);
            assert!((Vec4::from_array(g.color) - color).abs().max_element() < 1e-5);
            let scale = Vec2::new(0.5 + 1.5 * f, 0.25 + 3.75 * f);
            assert!((Vec2::new(g.scale[0], g.scale[1]) - scale).abs().max_element() < 1e-5);
            assert!((g.offset_glow[3] - f).abs() <= 0.5 / 255.0 + 1e-6, "glow {} at f {f}", g.offset_glow[3]);
        }
        Ok(())
    });
}

#[test]
fn target_linear_moves_from_source_to_target_over_the_lifetime() {
    gpu_test(|gpu| {
        const LIFE: f32 = 1.0;
        let mut sys = system(pattern::EXPLODE, 0.1, 4, LIFE);
        sys.burst_radius = 2.0; // zeroed after the first candidate by TARGET_LINEAR
        sys.part.flags = PartFlags(PartFlags::TARGET_LINEAR);
        let (s, t) = (Vec3::new(10.0, 0.0, 5.0), Vec3::new(14.0, 3.0, 5.0));
        let mut desc = source(sys, s);
        desc.target_position = Some(t);
        let (_, pairs) = single_source(gpu, desc, 20)?;
        for (_, g) in pairs {
            let expected = s + g.pos_age[3] / LIFE * (t - s);
            let got = Vec3::new(g.pos_age[0], g.pos_age[1], g.pos_age[2]);
            assert!((got - expected).length() < 1e-4, "{got} vs {expected}");
            let v = Vec3::new(g.vel_max_age[0], g.vel_max_age[1], g.vel_max_age[2]);
            assert!((v - (t - s)).length() < 1e-5);
        }
        Ok(())
    });
}

#[test]
fn target_pos_steers_particles_along_the_line_to_the_target() {
    gpu_test(|gpu| {
        let mut sys = system(pattern::DROP, 0.1, 3, 2.0);
        sys.part.flags = PartFlags(PartFlags::TARGET_POS);
        let (s, t) = (Vec3::new(0.0, 10.0, 10.0), Vec3::new(6.0, 13.0, 8.0));
        let mut desc = source(sys, s);
        desc.target_position = Some(t);
        let (_, pairs) = single_source(gpu, desc, 30)?;
        let dir = (t - s).normalize();
        for (_, g) in pairs {
            // Analytic: released at rest and always steered toward T - pos, which lies on the line
            // from S to T, so the velocity is along that line and points at the target.
            let v = Vec3::new(g.vel_max_age[0], g.vel_max_age[1], g.vel_max_age[2]);
            assert!(v.dot(dir) > 0.0, "velocity {v} does not point at the target");
            assert!(v.cross(dir).length() < 1e-4 * v.length().max(1.0), "velocity {v} leaves the line");
        }
        Ok(())
    });
}

#[test]
fn follow_src_particles_move_with_their_source() {
    gpu_test(|gpu| {
        let mut sys = system(pattern::EXPLODE, 0.1, 5, 2.0);
        sys.part.flags = PartFlags(PartFlags::FOLLOW_SRC);
        let mut twin = Twin::new(gpu, CAPACITY)?;
        let start = Vec3::new(20.0, 20.0, 20.0);
        let id = twin.add(source(sys, start))?;
        let shift = Vec3::new(0.05, -0.02, 0.01);
        for frame in 0..20 {
            let pos = start + frame as f32 * shift;
            twin.cpu.set_source_transform(id, pos, Quat::IDENTITY);
            twin.pool.set_source_transform(id, pos, Quat::IDENTITY);
            twin.step(gpu, DT)?;
        }
        let now = start + 19.0 * shift;
        for (_, g) in twin.compare(gpu, TOL)? {
            // Analytic: released at the source, the offset grows by v dt per step while the source
            // carries the particle along, so pos = S_now + v * age.
            let v = Vec3::new(g.vel_max_age[0], g.vel_max_age[1], g.vel_max_age[2]);
            let pos = Vec3::new(g.pos_age[0], g.pos_age[1], g.pos_age[2]);
            let expected = now + v * g.pos_age[3];
            assert!((pos - expected).length() < 1e-4, "{pos} vs {expected}");
        }
        Ok(())
    });
}

#[test]
fn a_full_pool_refuses_candidates_without_corrupting_its_lists() {
    gpu_test(|gpu| {
        const SMALL: u32 = 64;
        let desc = ParticlePoolDesc { capacity: SMALL, max_sources: 2, seed: SEED };
        let mut pool = GpuParticles::new(gpu, &desc)?;
        let passes = ParticleSimPasses::new(gpu)?;
        pool.add_source(source(system(pattern::EXPLODE, 0.05, 40, 0.4), Vec3::new(1.0, 1.0, 1.0)))?;
        pool.add_source(source(system(pattern::DROP, 0.1, 30, 0.25), Vec3::new(2.0, 1.0, 1.0)))?;
        for frame in 0..24 {
            simulate_frame(gpu, &mut pool, &passes, DT)?;
            let c = pool.read_counters(gpu)?;
            let alive = pool.read_live_indices(gpu)?;
            let dead = pool.read_dead(gpu)?;
            assert_eq!(
                alive.len() as u64 + u64::from(c.dead),
                u64::from(SMALL),
                "frame {frame}: alive + dead != capacity"
            );
            // Every index is either alive or free, exactly once.
            let mut all: Vec<u32> = alive.iter().chain(&dead).copied().collect();
            all.sort_unstable();
            assert_eq!(
                all,
                (0..SMALL).collect::<Vec<_>>(),
                "frame {frame}: the lists lost or doubled an index"
            );
            let live = pool.read_live(gpu)?;
            let mut keys: Vec<(u32, u32)> = live.iter().map(|p| (p.ids[0], p.ids[1])).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), live.len(), "frame {frame}: a live particle appears twice");
            assert!(
                live.iter().all(|p| p.pos_age[3] <= p.vel_max_age[3]),
                "frame {frame}: a dead particle lives"
            );
            assert_eq!(c.emitted - c.died - c.discarded, live.len() as u32, "frame {frame}: totals");
        }
        for capacity in [0, MAX_CAPACITY + 1] {
            let bad = ParticlePoolDesc { capacity, max_sources: 1, seed: SEED };
            assert!(GpuParticles::new(gpu, &bad).is_err(), "a pool of {capacity} was accepted");
        }
        let c = pool.read_counters(gpu)?;
        // 70 candidates in the first frame alone against 64 slots.
        assert!(c.refused >= 6, "refused only {}", c.refused);
        assert!(c.died > 0, "nothing died, so the dead list was never refilled");
        Ok(())
    });
}

#[test]
fn the_cull_lists_exactly_the_particles_whose_billboards_touch_the_frustum() {
    gpu_test(|gpu| {
        let desc = ParticlePoolDesc { capacity: CAPACITY, max_sources: 1, seed: SEED };
        let mut pool = GpuParticles::new(gpu, &desc)?;
        let passes = ParticleSimPasses::new(gpu)?;
        let cull = ParticleCullPass::new(gpu)?;
        let centre = Vec3::new(50.0, 50.0, 20.0);
        pool.add_source(source(system(pattern::EXPLODE, 0.05, 40, 3.0), centre))?;
        // A narrow camera aimed past the cloud's edge, so the frustum cuts through it.
        let eye = centre + Vec3::new(0.0, -8.0, 0.0);
        let view = Mat4::look_at_rh(eye, centre + Vec3::new(2.2, 0.0, 0.0), Vec3::Z);
        let planes = frustum_planes(Mat4::perspective_rh(0.3, 1.0, 0.1, 100.0) * view);
        for frame in 0..12 {
            let plan = pool.prepare(gpu, DT);
            gpu.submit(|rec| {
                record_simulation(rec, &mut pool, &passes);
                record_cull(rec, &pool, &cull, &planes);
                Ok(())
            })?;
            assert!(plan.candidates > 0 || frame > 0);
        }
        let indices = pool.read_live_indices(gpu)?;
        let particles = pool.read_live(gpu)?;
        let args = pool.read_draw_args(gpu)?;
        assert_eq!((args.vertex_count, args.first_vertex, args.first_instance), (6, 0, 0));
        let got: std::collections::HashSet<u32> = pool.read_visible(gpu)?.into_iter().collect();
        assert_eq!(got.len(), args.instance_count as usize, "an index was listed twice");
        let (mut inside, mut outside) = (0, 0);
        for (idx, p) in indices.iter().zip(&particles) {
            let c = Vec3::new(p.pos_age[0], p.pos_age[1], p.pos_age[2]);
            let r = 0.5 * Vec2::new(p.scale[0], p.scale[1]).length();
            // Skip spheres within rounding distance of a plane: either answer is right there.
            if planes.iter().any(|pl| (pl.truncate().dot(c) + pl.w + r).abs() < 1e-4) {
                continue;
            }
            let expected = sphere_visible(&planes, c, r);
            assert_eq!(got.contains(idx), expected, "particle at {c}");
            if expected {
                inside += 1;
            } else {
                outside += 1;
            }
        }
        assert!(
            inside > 10 && outside > 10,
            "the frustum does not cut the cloud: {inside} in, {outside} out"
        );
        Ok(())
    });
}

#[test]
fn a_removed_source_slot_takes_a_new_source_once_its_particles_are_gone() {
    gpu_test(|gpu| {
        const LIFE: f32 = 0.5;
        let mut cpu = Simulation::new(SimConfig { seed: SEED, max_particles: None });
        let mut pool =
            GpuParticles::new(gpu, &ParticlePoolDesc { capacity: CAPACITY, max_sources: 2, seed: SEED })?;
        let passes = ParticleSimPasses::new(gpu)?;
        let a = source(system(pattern::EXPLODE, 0.1, 3, LIFE), Vec3::new(5.0, 5.0, 20.0));
        let b = source(system(pattern::ANGLE_CONE, 0.1, 2, 2.0), Vec3::new(9.0, 5.0, 20.0));
        for desc in [a, b] {
            assert_eq!(pool.add_source(desc)?, cpu.add_source(desc));
        }
        for _ in 0..5 {
            cpu.step(DT);
            simulate_frame(gpu, &mut pool, &passes, DT)?;
        }
        assert!(cpu.remove_source(SourceId(0)) && pool.remove_source(SourceId(0)));
        let c = source(system(pattern::EXPLODE, 0.05, 4, 1.0), Vec3::new(1.0, 2.0, 30.0));
        assert!(pool.add_source(c).is_err(), "both slots are still in use while A's particles live");
        // A's last particles die LIFE after its removal; the slot is free one clamped step later.
        for _ in 0..((LIFE + 0.1) / DT) as usize + 2 {
            cpu.step(DT);
            simulate_frame(gpu, &mut pool, &passes, DT)?;
        }
        assert_eq!(pool.add_source(c)?, SourceId(0), "C takes A's slot");
        let c_id = cpu.add_source(c);
        assert_eq!(c_id, SourceId(2), "the reference numbers C third: its random stream");
        for _ in 0..12 {
            let stats = cpu.step(DT);
            simulate_frame(gpu, &mut pool, &passes, DT)?;
            assert_eq!(pool.read_live_count(gpu)?, stats.live);
        }
        // C's particles (slot 0 on the GPU) are the reference's source-2 particles, draw for draw.
        let on_gpu: HashMap<u32, GpuParticle> =
            pool.read_live(gpu)?.into_iter().filter(|p| p.ids[0] == 0).map(|p| (p.ids[1], p)).collect();
        let on_cpu: Vec<&Particle> = cpu.particles().filter(|p| p.source == c_id).collect();
        assert!(!on_cpu.is_empty() && on_gpu.len() == on_cpu.len(), "{} vs {}", on_gpu.len(), on_cpu.len());
        for p in on_cpu {
            let g = on_gpu[&p.serial];
            let pos = Vec3::new(g.pos_age[0], g.pos_age[1], g.pos_age[2]);
            assert!(
                (pos - p.pos).abs().max_element() <= TOL.pos_m,
                "serial {}: {pos} vs {}",
                p.serial,
                p.pos
            );
        }
        Ok(())
    });
}

#[test]
fn particles_in_flight_keep_their_template_when_the_system_changes() {
    gpu_test(|gpu| {
        // Before: red to blue, growing, glowing, falling, long-lived.
        let mut old = system(pattern::ANGLE_CONE, 0.05, 3, 1.5);
        old.outer_angle = 0.8;
        old.part_accel = Vec3::new(0.0, 0.0, -2.0);
        old.part.flags = PartFlags(PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE);
        old.part.start_color = Vec4::new(1.0, 0.0, 0.0, 1.0);
        old.part.end_color = Vec4::new(0.0, 0.0, 1.0, 0.2);
        old.part.start_scale = Vec2::new(0.5, 0.25);
        old.part.end_scale = Vec2::new(2.0, 4.0);
        old.part.start_glow = 0.0;
        old.part.end_glow = 1.0;
        // After: green to white, shrinking, no glow, rising, short-lived, another pattern.
        let mut new = system(pattern::EXPLODE, 0.1, 2, 0.6);
        new.part_accel = Vec3::new(1.0, 0.0, 3.0);
        new.part.flags = PartFlags(PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE);
        new.part.start_color = Vec4::new(0.0, 1.0, 0.0, 0.5);
        new.part.end_color = Vec4::new(1.0, 1.0, 1.0, 1.0);
        new.part.start_scale = Vec2::new(3.0, 3.0);
        new.part.end_scale = Vec2::new(0.1, 0.2);
        new.part.start_glow = 0.7;
        new.part.end_glow = 0.0;
        let mut twin = Twin::new(gpu, CAPACITY)?;
        let id = twin.add(source(old, Vec3::new(30.0, 40.0, 25.0)))?;
        for _ in 0..20 {
            twin.step(gpu, DT)?;
        }
        let first_new_serial = twin.cpu.source_particles(id).iter().map(|p| p.serial + 1).max().unwrap_or(0);
        assert!(twin.cpu.set_system(id, new) && twin.pool.set_system(id, new));
        let mut saw_both = false;
        for frame in 0..24 {
            twin.step(gpu, DT)?;
            if frame % 4 != 3 {
                continue;
            }
            let pairs = twin.compare(gpu, TOL)?;
            let born_before = pairs.iter().filter(|(c, _)| c.serial < first_new_serial).count();
            saw_both |= born_before > 0 && born_before < pairs.len();
            // Independently of the reference: a particle born before the change stays on the old
            // system's colour line (red to blue) with the old lifetime.
            for (c, g) in pairs.iter().filter(|(c, _)| c.serial < first_new_serial) {
                let f = g.pos_age[3] / 1.5;
                let color = Vec4::new(1.0 - f, 0.0, f, 1.0 - 0.8 * f);
                assert!(
                    (Vec4::from_array(g.color) - color).abs().max_element() < 1e-5,
                    "{} {:?}",
                    c.serial,
                    g.color
                );
                assert_eq!(g.vel_max_age[3], 1.5, "serial {} keeps its lifetime", c.serial);
            }
        }
        assert!(saw_both, "no frame compared particles of both systems in flight together");
        Ok(())
    });
}
