//! The brick pool's memory as a scene's bricks grow and empty (lavapipe, validation on, two frames
//! in flight): one carrier per level-0 brick, each its own source, switched on and off through the
//! sources' weights. The pool grows with the bricks wanted without a failed request (a ramp of 6 %
//! a frame) or within the frames of latency (a jump); in steady state it holds allocated <=
//! max(16 MiB, 2 x the bricks in use); it shrinks once the scene has been empty for its low-use
//! period and not before; mass is conserved in every frame; past the budget the failed requests
//! become the demotion's pressure, and not while the pool can still grow; a pool that cannot be
//! allocated stays, its size the most it holds.

use glam::Vec3;
use render::gpu_types::{GpuFogSource, GpuParticle};
use render::particle_fog::pool::fog_source;
use render::particle_fog::sizing::{FLOOR_BYTES, MIN_POOL_SLOTS};
use render::particle_fog::stats::FogStats;
use render::particle_fog::{ParticleFog, PoolKey};
use render::particles_gpu::GpuParticles;
use render::vk::resource::{Buffer, BufferDesc, MemoryLocation};
use render::{Gpu, GpuDesc};

const VOXEL: f32 = 0.1;
/// Level-0 bricks per axis of the carriers' grid around the camera (12³ = 1728 bricks).
const GRID: i32 = 12;
const CARRIERS: u32 = (GRID * GRID * GRID) as u32;
/// Frames the renderer keeps in flight: the counts arrive this many frames late.
const IN_FLIGHT: u32 = 2;
/// Low-use frames before the pool shrinks in these tests.
const SHRINK_AFTER: u32 = 12;

/// One small carrier (its kernel inside one brick) at the centre of level-0 brick `b`, of source
/// `source`.
fn carrier(b: [i32; 3], source: u32) -> GpuParticle {
    let brick_m = 8.0 * VOXEL;
    let p = Vec3::new(b[0] as f32 + 0.5, b[1] as f32 + 0.5, b[2] as f32 + 0.5) * brick_m;
    GpuParticle {
        pos_age: [p.x, p.y, p.z, 0.0],
        vel_max_age: [0.0, 0.0, 0.0, 100.0],
        color: [0.5, 0.6, 0.7, 0.5],
        scale: [0.2, 0.2, 0.0, 0.0],
        ids: [source, 0, 0, 0],
        ..GpuParticle::default()
    }
}

/// The brick fog of [`CARRIERS`] carriers, each its own source, on a device with frames in flight.
struct Scene {
    fog: ParticleFog,
    particles: GpuParticles,
    sources: Buffer,
    /// Carriers switched on in each prepared frame, by frame number.
    on: Vec<u32>,
    /// The pool's slots in each prepared frame, by frame number.
    ran: Vec<u32>,
    /// Every frame's counts as they arrived.
    seen: Vec<FogStats>,
}

impl Scene {
    fn new(gpu: &mut Gpu, budget_mb: u64) -> anyhow::Result<Scene> {
        let range = -GRID / 2..GRID / 2;
        let mut parts = Vec::new();
        for z in range.clone() {
            for y in range.clone() {
                for x in range.clone() {
                    parts.push(carrier([x, y, z], parts.len() as u32));
                }
            }
        }
        let particles = GpuParticles::with_particles(gpu, CARRIERS, &parts)?;
        let sources = gpu.create_buffer(&BufferDesc {
            name: "test.fog_sources",
            size: u64::from(CARRIERS) * std::mem::size_of::<GpuFogSource>() as u64,
            usage: render::ash::vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::Staged,
        })?;
        let key = PoolKey { voxel_size_m: VOXEL, budget_bytes: budget_mb << 20, max_sources: CARRIERS };
        let mut fog = ParticleFog::new(gpu, key)?;
        fog.sizing.shrink_after_frames = SHRINK_AFTER;
        Ok(Scene { fog, particles, sources, on: vec![0], ran: vec![0], seen: Vec::new() })
    }

    /// Renders one frame with the first `n` carriers on.
    fn frame(&mut self, gpu: &mut Gpu, n: u32) -> anyhow::Result<()> {
        let weights: Vec<GpuFogSource> = (0..CARRIERS)
            .map(|i| fog_source(if i < n { 1.0 } else { 0.0 }, 0.35, 1.0, [0.9, 0.8, 0.7]))
            .collect();
        self.sources.write(0, bytemuck::cast_slice(&weights));
        self.fog.prepare(gpu, Vec3::ZERO, self.particles.current_list());
        assert_eq!(self.fog.frame() as usize, self.on.len(), "frames are numbered from 1");
        self.on.push(n);
        self.ran.push(self.fog.pool.capacity);
        let Scene { fog, particles, sources, .. } = self;
        gpu.submit_frame(|rec| {
            fog.record(rec, particles, sources);
            Ok(())
        })?;
        self.finish(gpu);
        Ok(())
    }

    fn finish(&mut self, gpu: &Gpu) {
        self.fog.finish_frame(gpu);
        let s = &self.fog.stats;
        if s.frame > self.seen.last().map_or(0, |l| l.frame) {
            self.seen.push(s.clone());
        }
    }

    /// Waits for the frames in flight and reads the last one's counts.
    fn drain(&mut self, gpu: &mut Gpu) -> anyhow::Result<()> {
        gpu.wait_frames()?;
        self.finish(gpu);
        Ok(())
    }

    /// The counts of frame `frame` (numbered from 1), if they arrived.
    fn stats_of(&self, frame: usize) -> Option<&FogStats> {
        self.seen.iter().find(|s| s.frame as usize == frame)
    }
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-30)
}

fn gpu_in_flight() -> Gpu {
    let desc = GpuDesc { frames_in_flight: IN_FLIGHT, ..pf_tests::validated_desc() };
    Gpu::new(&desc).expect("validated device")
}

/// Every arrived frame: its mass accounted for (splatted + clipped), none clipped without a
/// failed request, and its pool within the budget.
fn check_mass_and_budget(scene: &Scene) {
    for s in &scene.seen {
        let accounted = s.mass_splatted_m2 + s.mass_clipped_m2;
        assert!(relative(accounted, s.mass_expected_m2) < 0.005, "frame {}: {s:?}", s.frame);
        if s.alloc_failures == 0 {
            assert_eq!(s.mass_clipped_m2, 0.0, "frame {}: {s:?}", s.frame);
        }
        assert!(s.brick_bytes_allocated <= s.brick_bytes_budget, "frame {}: {s:?}", s.frame);
        assert!(s.bricks_used <= s.bricks_allocated && s.bricks_allocated <= s.bricks_budget, "{s:?}");
    }
}

/// The rule in steady state: allocated <= max(16 MiB, 2 x the bytes of the bricks in use).
fn within_the_rule(s: &FogStats) -> bool {
    s.brick_bytes_allocated <= FLOOR_BYTES.max(2 * s.brick_bytes_used)
}

#[test]
fn the_pool_grows_with_the_bricks_holds_twice_their_use_and_shrinks_when_they_go() {
    let mut gpu = gpu_in_flight();
    let mut scene = Scene::new(&mut gpu, 64).expect("scene");
    let least = scene.fog.pool.capacity;
    assert_eq!(least, MIN_POOL_SLOTS, "the pool starts at its least size");
    // A ramp of 6 % more bricks a frame from 20 to 1000, then 1000 held.
    let mut n = 20.0f64;
    while n < 1000.0 {
        scene.frame(&mut gpu, n as u32).expect("ramp");
        n *= 1.06;
    }
    for _ in 0..8 {
        scene.frame(&mut gpu, 1000).expect("hold");
    }
    let held = scene.fog.pool.capacity;
    assert!(held > least, "the pool grew: {held} slots");
    let last = scene.seen.last().expect("counts arrived").clone();
    assert_eq!((last.bricks_used, last.alloc_failures), (1000, 0), "{last:?}");
    assert!(within_the_rule(&last), "steady at 1000 bricks: {last:?}");
    assert!(last.brick_bytes_allocated > FLOOR_BYTES, "the 2x bound, not the floor, is what holds: {last:?}");
    for s in &scene.seen {
        assert_eq!(s.alloc_failures, 0, "the ramp never outruns the pool: {s:?}");
        assert_eq!(s.bricks_used, scene.on[s.frame as usize], "one brick per carrier on: {s:?}");
    }
    // Empty: the bricks go once unused for four frames (the age pass keeps them that long), then
    // the pool keeps its size for the low-use period and shrinks to the least after it.
    let emptied = scene.on.len();
    for _ in 0..SHRINK_AFTER + IN_FLIGHT + 8 {
        scene.frame(&mut gpu, 0).expect("empty");
    }
    let zero = scene.seen.iter().find(|s| s.frame as usize >= emptied && s.bricks_used == 0);
    let zero = zero.expect("the bricks go").frame as usize;
    assert!(zero <= emptied + 5, "frame {zero}, emptied at {emptied}");
    let (low_from, ran) = (zero + SHRINK_AFTER as usize, &scene.ran);
    assert!(ran[emptied..low_from].iter().all(|&c| c == held), "kept while low for less: {ran:?}");
    assert!(ran[low_from + IN_FLIGHT as usize + 1..].iter().all(|&c| c == least), "then shrunk: {ran:?}");
    assert_eq!(ran[emptied..].windows(2).filter(|w| w[1] != w[0]).count(), 1, "one resize: {ran:?}");
    let empty = scene.seen.last().expect("counts").clone();
    assert_eq!(empty.bricks_used, 0, "{empty:?}");
    assert!(within_the_rule(&empty) && empty.bricks_allocated == least, "{empty:?}");
    // A jump from none to 1000 bricks: failed requests only until the counts arrive.
    let jump = scene.on.len();
    for _ in 0..8 {
        scene.frame(&mut gpu, 1000).expect("jump");
    }
    scene.drain(&mut gpu).expect("drain");
    for f in jump..scene.on.len() {
        let Some(s) = scene.stats_of(f) else { continue };
        let late = f > jump + IN_FLIGHT as usize;
        assert_eq!(s.alloc_failures == 0, late, "frame {} of the jump: {s:?}", f - jump);
        assert_eq!(s.bricks_used + s.alloc_failures, 1000, "the demand counted whole: {s:?}");
    }
    assert!(within_the_rule(scene.seen.last().expect("counts")), "{:?}", scene.seen.last());
    check_mass_and_budget(&scene);
    drop(scene);
    let errors = gpu.canary().drain();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
}

#[test]
fn failed_requests_become_pressure_only_once_the_budget_is_exhausted() {
    let mut gpu = gpu_in_flight();
    // 16 MiB hold under 900 bricks: every carrier on wants 1728.
    let mut scene = Scene::new(&mut gpu, 16).expect("scene");
    let mut pressure = Vec::new();
    for _ in 0..8 {
        scene.frame(&mut gpu, CARRIERS).expect("frame");
        if scene.fog.stats.frame > 0 {
            pressure.push((scene.fog.stats.clone(), scene.fog.pressure()));
        }
    }
    let growing: Vec<_> = pressure.iter().filter(|(s, _)| s.bricks_allocated < s.bricks_budget).collect();
    let full: Vec<_> = pressure.iter().filter(|(s, _)| s.bricks_allocated == s.bricks_budget).collect();
    assert!(!growing.is_empty() && !full.is_empty(), "{pressure:?}");
    for (s, p) in growing {
        assert!(s.alloc_failures > 0 && p.failures == 0, "a pool still growing: {s:?} {p:?}");
    }
    for (s, p) in full {
        assert!(s.alloc_failures > 0 && p.failures == s.alloc_failures, "the budget exhausted: {s:?} {p:?}");
        assert_eq!(p.capacity, s.bricks_budget, "pressure is against the budget's bricks");
    }
    assert!(scene.fog.pool.bytes_allocated <= 16 << 20, "{} bytes", scene.fog.pool.bytes_allocated);
    check_mass_and_budget(&scene);
    drop(scene);
    let errors = gpu.canary().drain();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
}

#[test]
fn a_pool_that_cannot_grow_keeps_its_size_which_becomes_the_most_it_holds() {
    let mut gpu = gpu_in_flight();
    let mut scene = Scene::new(&mut gpu, 64).expect("scene");
    scene.frame(&mut gpu, 20).expect("first frame");
    // The device out of memory for the next atlas: the grown pool's.
    gpu.fail_next_allocation("fog.bricks.atlas");
    for _ in 0..8 {
        scene.frame(&mut gpu, 1000).expect("frames go on");
    }
    assert_eq!(scene.fog.pool.capacity, MIN_POOL_SLOTS, "the pool stays");
    let (s, p) = (&scene.fog.stats, scene.fog.pressure());
    assert_eq!((s.bricks_used, s.alloc_failures), (MIN_POOL_SLOTS, 1000 - MIN_POOL_SLOTS), "{s:?}");
    assert_eq!((p.capacity, p.failures), (MIN_POOL_SLOTS, s.alloc_failures), "the demotion's pressure");
    check_mass_and_budget(&scene);
    drop(scene);
    let errors = gpu.canary().drain();
    assert!(errors.is_empty(), "validation errors: {errors:?}");
}
