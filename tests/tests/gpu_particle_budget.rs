//! The viewer's particle budget and distance throttling on the GPU path (`RenderMaxPartCount`, the
//! global burst share, the adaptive reference rate; viewer: `llviewerpartsim.cpp`) against the CPU reference
//! `particles::sim::Simulation` configured with the same budget and camera, on lavapipe under
//! validation. Both sides draw each candidate's share test from the same hashed stream, so while
//! the limit itself is not reached the live counts agree exactly frame by frame, through the
//! share updates every 16 frames. The limit test is checked against its rule instead (the GPU
//! path's CPU scheduler cannot see which candidates the GPU drops; `particles::gpu` explains).

use std::collections::BTreeSet;

use glam::{Quat, Vec2, Vec3};
use particles::sim::{Camera, SimConfig, Simulation, SourceDesc, INITIAL_BURST_SHARE};
use particles::types::pattern;
use particles::PartSysData;
use pf_tests::gpu_test;
use render::frame::particles::simulate_frame;
use render::particles_gpu::{GpuParticles, ParticlePoolDesc};
use render::passes::particle_sim::ParticleSimPasses;
use render::Gpu;

/// Seed shared by both simulations.
const SEED: u64 = 0x00B0_D6E7;
/// A 30 Hz frame, seconds.
const DT: f32 = 1.0 / 30.0;
/// The pool of these tests: the viewer's hard cap.
const CAPACITY: u32 = 8192;
/// Frames of the parity runs: the share moves after frames 0, 16, 32 and 48.
const FRAMES: usize = 50;

/// The reference and the pool, with the same budget and camera.
struct Twin {
    cpu: Simulation,
    pool: GpuParticles,
    passes: ParticleSimPasses,
}

impl Twin {
    fn new(gpu: &mut Gpu, max_count: u32, camera: Option<Camera>) -> anyhow::Result<Twin> {
        let mut cpu = Simulation::new(SimConfig { seed: SEED, max_particles: Some(max_count) });
        let mut pool =
            GpuParticles::new(gpu, &ParticlePoolDesc { capacity: CAPACITY, max_sources: 8, seed: SEED })?;
        pool.set_budget(Some(max_count));
        cpu.set_camera(camera);
        pool.set_camera(camera);
        Ok(Twin { cpu, pool, passes: ParticleSimPasses::new(gpu)? })
    }

    fn add(&mut self, sys: PartSysData, position: Vec3) -> anyhow::Result<()> {
        let desc = SourceDesc { sys, position, rotation: Quat::IDENTITY, target_position: None, hud: false };
        assert_eq!(self.cpu.add_source(desc), self.pool.add_source(desc)?);
        Ok(())
    }

    /// One frame on both sides: the share the GPU used is the reference's, the live counts are
    /// equal and the same (source, serial) pairs are alive. Returns the frame's candidates.
    fn step_in_parity(&mut self, gpu: &mut Gpu) -> anyhow::Result<u32> {
        let share = self.cpu.burst_share();
        let stats = self.cpu.step(DT);
        let plan = simulate_frame(gpu, &mut self.pool, &self.passes, DT)?;
        assert_eq!(plan.share, share, "share of frame {}", stats.frame);
        let gpu_keys: BTreeSet<(u32, u32)> =
            self.pool.read_live(gpu)?.iter().map(|p| (p.ids[0], p.ids[1])).collect();
        let cpu_keys: BTreeSet<(u32, u32)> = self.cpu.particles().map(|p| (p.source.0, p.serial)).collect();
        assert_eq!(gpu_keys.len(), stats.live as usize, "live count in frame {}", stats.frame);
        assert!(gpu_keys == cpu_keys, "frame {}: different particles survive", stats.frame);
        Ok(plan.candidates)
    }
}

fn system(pattern: u8, rate: f32, count: u8, life: f32, size_m: f32) -> PartSysData {
    let mut s = PartSysData {
        pattern,
        burst_rate: rate,
        burst_part_count: count,
        burst_speed_min: 0.5,
        burst_speed_max: 1.5,
        ..Default::default()
    };
    s.part.max_age = life;
    s.part.start_scale = Vec2::splat(size_m);
    s.part.end_scale = Vec2::splat(size_m);
    s
}

#[test]
fn the_burst_share_thins_candidates_exactly_as_the_reference() {
    gpu_test(|gpu| {
        let mut twin = Twin::new(gpu, 4096, None)?;
        twin.add(system(pattern::EXPLODE, 0.05, 12, 1.0, 0.5), Vec3::new(10.0, 10.0, 20.0))?;
        twin.add(system(pattern::ANGLE_CONE, 0.1, 30, 2.0, 0.5), Vec3::new(20.0, 10.0, 20.0))?;
        twin.add(system(pattern::DROP, 0.01, 4, 0.5, 0.5), Vec3::new(30.0, 10.0, 20.0))?;
        let mut candidates = 0;
        for _ in 0..FRAMES {
            candidates += twin.step_in_parity(gpu)?;
        }
        // Far below the limit the target share clamps to 1 and each update (after frames 0, 16,
        // 32, 48) moves half of the 0.1 step limit: 0.5 -> 0.55 -> 0.6 -> 0.65 -> 0.7.
        let expected = INITIAL_BURST_SHARE + 4.0 * 0.05;
        assert!((twin.cpu.burst_share() - expected).abs() < 1e-5, "share {}", twin.cpu.burst_share());
        let c = twin.pool.read_counters(gpu)?;
        assert_eq!(c.emitted + c.dropped, candidates, "every candidate is either kept or dropped");
        // Drop probability 1 - share: 0.5 falling to 0.3 over the run.
        let dropped = f64::from(c.dropped) / f64::from(candidates);
        assert!((0.3..0.5).contains(&dropped), "dropped fraction {dropped}");
        Ok(())
    });
}

#[test]
fn distance_throttling_thins_and_skips_far_sources_as_the_reference() {
    gpu_test(|gpu| {
        // 720 px at a 60 degree field of view: 623.5 px per metre at 1 m.
        let camera = Camera::from_viewport(Vec3::ZERO, 720.0, 60f32.to_radians());
        let mut twin = Twin::new(gpu, 4096, Some(camera))?;
        let sys = system(pattern::EXPLODE, 0.05, 10, 3.0, 0.05);
        // 0.05 m particles are visible to 31 m: near keeps all (but for the share); at 100 m,
        // once the reference rate has halved to 1/32 after frame 0, each candidate is dropped
        // with probability 68.8 m / 32 / 3 s = 0.72, more than the share's 0.5; 1000 m skips.
        let near = Vec3::new(10.0, 0.0, 0.0);
        let mid = Vec3::new(100.0, 0.0, 0.0);
        let far = Vec3::new(1000.0, 0.0, 0.0);
        let sub_pixel = system(pattern::EXPLODE, 0.05, 10, 3.0, 0.0002);
        twin.add(sys, near)?;
        twin.add(sys, mid)?;
        twin.add(sys, far)?;
        twin.add(sub_pixel, near)?;
        for _ in 0..FRAMES {
            twin.step_in_parity(gpu)?;
        }
        let per_source = |s: u32| twin.cpu.particles().filter(|p| p.source.0 == s).count();
        assert_eq!(per_source(2), 0, "the far source is skipped");
        assert_eq!(per_source(3), 0, "sub-pixel particles are skipped");
        assert!(per_source(1) < per_source(0), "the mid source is thinned");
        assert!(per_source(1) > 0);
        Ok(())
    });
}

#[test]
fn the_particle_limit_holds_and_follows_a_live_change_of_the_setting() {
    gpu_test(|gpu| {
        let mut twin = Twin::new(gpu, 200, None)?;
        twin.add(system(pattern::EXPLODE, 0.02, 40, 2.0, 0.5), Vec3::new(10.0, 10.0, 20.0))?;
        let burst = 40;
        // A burst is only refused once the live count is above the limit, so the count can pass
        // it by at most one frame's bursts (two per frame at this rate and step).
        let mut peak = 0;
        for _ in 0..60 {
            simulate_frame(gpu, &mut twin.pool, &twin.passes, DT)?;
            let live = twin.pool.read_live_count(gpu)?;
            assert!(live <= 200 + 2 * burst, "{live} live over a limit of 200");
            peak = peak.max(live);
        }
        assert!(peak > 150, "the limit was never approached (peak {peak})");
        twin.pool.set_budget(Some(1500));
        let mut raised = 0;
        for _ in 0..90 {
            simulate_frame(gpu, &mut twin.pool, &twin.passes, DT)?;
            raised = raised.max(twin.pool.read_live_count(gpu)?);
        }
        assert!(raised > 200 + 2 * burst, "raising the setting let no more particles live ({raised})");
        twin.pool.set_budget(Some(50));
        for _ in 0..90 {
            simulate_frame(gpu, &mut twin.pool, &twin.passes, DT)?;
        }
        let live = twin.pool.read_live_count(gpu)?;
        assert!(live <= 50 + 2 * burst, "{live} live two lifetimes after lowering the limit to 50");
        Ok(())
    });
}
