//! `sim_step`: one step of the reference simulation at the viewer's hard cap, 8192 live particles
//! over 100 systems (no budget, one particle per system per frame; a mix of patterns and flags,
//! ribbons included), warmed up to steady state
//! first (every step then emits about as many particles as die).

use criterion::{black_box, Criterion};
use glam::{Quat, Vec3, Vec4};
use particles::sim::{SimConfig, Simulation, SourceDesc};
use particles::types::{pattern, PartFlags, PartSysData, SysFlags};

/// Systems in the scene.
const SYSTEMS: usize = 100;
/// Frame time, seconds (60 fps).
const DT_S: f32 = 1.0 / 60.0;
/// Systems whose particles live 82 frames; the rest live 81: 92 x 82 + 8 x 81 = 8192 live.
const LONG_LIVED_SYSTEMS: usize = 92;
/// Frames a particle of a long-lived system is alive (one particle per system per frame).
const LONG_LIFE_FRAMES: f32 = 82.0;
/// Frames run before timing (well past one particle lifetime).
const WARM_UP_FRAMES: usize = 200;

fn system(i: usize) -> PartSysData {
    let patterns = [pattern::EXPLODE, pattern::ANGLE_CONE, pattern::ANGLE, pattern::DROP];
    let flag_sets = [
        PartFlags::INTERP_COLOR | PartFlags::INTERP_SCALE | PartFlags::WIND,
        PartFlags::INTERP_COLOR | PartFlags::BOUNCE,
        PartFlags::RIBBON | PartFlags::INTERP_SCALE,
        PartFlags::FOLLOW_SRC | PartFlags::EMISSIVE,
        PartFlags::TARGET_POS | PartFlags::INTERP_COLOR,
    ];
    let mut s = PartSysData {
        pattern: patterns[i % patterns.len()],
        flags: SysFlags(SysFlags::USE_NEW_ANGLE),
        burst_rate: 0.01,
        burst_part_count: 1,
        burst_radius: 0.5,
        burst_speed_min: 0.5,
        burst_speed_max: 2.0,
        inner_angle: 0.1,
        outer_angle: 0.6,
        angular_velocity: Vec3::new(0.0, 0.0, 1.0),
        part_accel: Vec3::new(0.0, 0.0, -1.0),
        ..PartSysData::default()
    };
    s.part.flags = PartFlags(flag_sets[i % flag_sets.len()]);
    // A particle is counted alive after a step while age = n * dt <= max age; the extra half
    // frame keeps that count exact under f32 age accumulation.
    let frames = if i < LONG_LIVED_SYSTEMS { LONG_LIFE_FRAMES } else { LONG_LIFE_FRAMES - 1.0 };
    s.part.max_age = (frames + 0.5) * DT_S;
    s.part.end_color = Vec4::new(1.0, 0.5, 0.0, 0.0);
    s.part.end_glow = 0.5;
    s
}

fn steady_scene() -> Simulation {
    let mut sim = Simulation::new(SimConfig { seed: 1, max_particles: None });
    for i in 0..SYSTEMS {
        let x = (i % 10) as f32 * 4.0;
        let y = (i / 10) as f32 * 4.0;
        sim.add_source(SourceDesc {
            sys: system(i),
            position: Vec3::new(x, y, 25.0),
            rotation: Quat::from_rotation_y(0.1 * i as f32),
            target_position: Some(Vec3::new(x + 2.0, y, 27.0)),
            hud: false,
        });
    }
    sim.set_wind(Vec3::new(3.0, 1.0, 0.0));
    for _ in 0..WARM_UP_FRAMES {
        sim.step(DT_S);
    }
    sim
}

fn bench_sim_step(c: &mut Criterion) {
    let mut sim = steady_scene();
    eprintln!("sim_step: {} live particles over {SYSTEMS} systems", sim.live_count());
    c.bench_function("sim_step/8192_particles_100_systems", |b| {
        b.iter(|| black_box(sim.step(black_box(DT_S))))
    });
    eprintln!("sim_step: {} live particles after timing", sim.live_count());
}

// Written out rather than through `criterion_group!`, whose generated function has no doc comment.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_sim_step(&mut c);
    c.final_summary();
}
