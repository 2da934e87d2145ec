//! Particle fog on the GPU: converted particle systems' particles kept as density carriers and
//! splatted, mass-conservingly, into world-space density bricks (the maths and the CPU
//! twin are in crate `fog`: [`fog::bricks`], [`fog::kernel`], [`fog::splat`]).
//!
//! - [`systems`]: which systems convert and by how much (classifier, range fade, demotion), and
//!   how far their light is eased to the billboards' before the range fade.
//! - [`pool`]: the brick pool's resources within the budget and the device's limits.
//! - [`sizing`]: how many bricks the pool holds: grown and shrunk with the bricks the GPU reports
//!   wanting, up to the budget.
//! - [`stats`]: the frame's counts (carriers, bricks, mass expected and splatted).
//! - [`export`]: the density field read back, as the march samples it, and its files.
//!
//! A frame with converted systems runs, after `particles.update`: the per-frame resets, then
//! `fog.brick_age` -> `fog.brick_mark` -> `fog.brick_alloc` ([`crate::passes::brick_alloc`]) ->
//! `fog.brick_splat` -> `fog.brick_splat.wide` -> `fog.brick_resolve` -> `fog.brick_clear`
//! ([`crate::passes::brick_splat`]),
//! and copies the counters back for [`stats::FogStats`], the pool's size and the next frame's
//! demotion, and each source's bricks (`fog.bricks.system_bricks`) for
//! [`ParticleFog::bricks_by_source`].
//!
//! The pool starts at [`sizing::MIN_POOL_SLOTS`] slots and is remade at the size
//! [`sizing::PoolSizing`] asks for before the next frame is recorded ([`ParticleFog::prepare`]);
//! the old one goes to the retire queue and is destroyed once the frames in flight that use it
//! have completed (until then both are held). Systems are demoted only when the budget's slots are
//! exhausted (or a pool of more could not be allocated), never for a pool still growing.

pub mod export;
pub mod pool;
pub mod scene_inputs;
pub mod sizing;
pub mod stats;
pub mod systems;

use std::collections::VecDeque;

use fog::bricks::BrickLayout;
use glam::Vec3;
use settings::Settings;

use crate::error::{RenderError, Result};
use crate::gpu_types::BrickUniform;
use crate::particles_gpu::GpuParticles;
use crate::passes::brick_alloc::{AllocSizes, BrickAllocPasses};
use crate::passes::brick_splat::BrickSplatPasses;
use crate::vk::context::Gpu;
use crate::vk::readback_ring::ReadbackRing;
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Buffer;
use pool::{BrickPool, PoolShape, BYTES_PER_SLOT, MIN_SLOTS};
use sizing::{Demand, PoolSizing};
use stats::FogStats;
use systems::BrickPressure;

/// Bytes per MiB (`RenderVKParticleFogBrickBudgetMB`).
const MIB: u64 = 1 << 20;

/// What the pool was made for: it is remade when these change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoolKey {
    /// `RenderVKParticleFogVoxelSize`, m.
    pub voxel_size_m: f32,
    /// `RenderVKParticleFogBrickBudgetMB` in bytes.
    pub budget_bytes: u64,
    /// Sources the scene's particle pool holds.
    pub max_sources: u32,
}

impl PoolKey {
    /// The key for `settings` and a particle pool of `max_sources` sources.
    pub fn new(settings: &Settings, max_sources: u32) -> PoolKey {
        PoolKey {
            voxel_size_m: settings.particle_fog_voxel_size_m,
            budget_bytes: u64::from(settings.particle_fog_brick_budget_mb) * MIB,
            max_sources,
        }
    }
}

/// Recorded frames whose pool [`ParticleFog`] remembers (more than the readbacks look back).
const FRAMES_REMEMBERED: usize = 16;

/// The particle fog's GPU state for one scene.
pub struct ParticleFog {
    /// What it was made for.
    pub key: PoolKey,
    /// The bricks.
    pub pool: BrickPool,
    /// When the pool grows and shrinks.
    pub sizing: PoolSizing,
    alloc: BrickAllocPasses,
    splat: BrickSplatPasses,
    /// Per frame slot, the counters after that slot's frame (tagged with its frame number).
    readback: ReadbackRing,
    /// Per frame slot, each source's bricks after that slot's frame.
    system_readback: ReadbackRing,
    frame: u32,
    pressure: BrickPressure,
    /// Slots the budget buys.
    budget_slots: u32,
    /// The most slots the pool may grow to: the budget's, or fewer once a larger pool could not
    /// be allocated.
    ceiling: u32,
    /// The size the next [`ParticleFog::prepare`] remakes the pool at.
    resize_to: Option<u32>,
    /// The pool each recorded frame ran with: (frame, slots, bytes allocated), newest last.
    ran_with: VecDeque<(u32, u32, u64)>,
    /// Requests that found no free slot in the last completed frame (the age pass then keeps
    /// unused bricks for one frame only).
    last_failures: u32,
    /// The last rendered frame's counts (systems counted by the caller).
    pub stats: FogStats,
}

impl ParticleFog {
    /// Creates the passes and the least pool ([`sizing::MIN_POOL_SLOTS`], or the budget's slots
    /// when fewer) for `key`, or an error when the budget buys under [`MIN_SLOTS`] bricks.
    pub fn new(gpu: &Gpu, key: PoolKey) -> Result<ParticleFog> {
        let budget_slots = pool::budget_slots(gpu, key.budget_bytes, key.max_sources);
        if budget_slots < MIN_SLOTS {
            return Err(RenderError::Unsupported(format!(
                "particle fog: a brick budget of {} bytes holds {budget_slots} bricks on this device \
                 (each costs {BYTES_PER_SLOT} bytes, at least {MIN_SLOTS} needed)",
                key.budget_bytes
            )));
        }
        let slots = sizing::target_slots(0, budget_slots);
        let shape = PoolShape { slots, max_requests: budget_slots, max_sources: key.max_sources };
        let mut pool = BrickPool::new(gpu, shape)?;
        pool.initialise();
        let readback =
            ReadbackRing::new(gpu, "fog.bricks.counters.readback", (stats::words::COUNT * 4) as u64)?;
        let system_readback =
            ReadbackRing::new(gpu, "fog.bricks.system_bricks.readback", pool.system_bricks.size)?;
        Ok(ParticleFog {
            key,
            pool,
            sizing: PoolSizing::default(),
            alloc: BrickAllocPasses::new(gpu)?,
            splat: BrickSplatPasses::new(gpu)?,
            readback,
            system_readback,
            frame: 0,
            pressure: BrickPressure::default(),
            budget_slots,
            ceiling: budget_slots,
            resize_to: None,
            ran_with: VecDeque::with_capacity(FRAMES_REMEMBERED),
            last_failures: 0,
            stats: FogStats::default(),
        })
    }

    /// The number of the last prepared frame (seeds the stochastic rounding).
    pub fn frame(&self) -> u32 {
        self.frame
    }

    /// Last frame's brick use, for the demotion.
    pub fn pressure(&self) -> BrickPressure {
        self.pressure
    }

    /// Remakes the pool at the size the last completed frames asked for, if any, then writes this
    /// frame's constants: windows around `camera`, the particles in alive list `alive_list` (after
    /// the update).
    pub fn prepare(&mut self, gpu: &Gpu, camera: Vec3, alive_list: usize) {
        if let Some(slots) = self.resize_to.take() {
            self.resize(gpu, slots);
        }
        self.frame = self.frame.wrapping_add(1);
        let layout = BrickLayout::new(self.key.voxel_size_m, camera);
        let o = |l: usize| {
            let v = layout.origins[l];
            [v.x, v.y, v.z, 0]
        };
        let p = &self.pool;
        let pressure = self.last_failures > 0;
        let constants = BrickUniform {
            origin0: o(0),
            origin1: o(1),
            origin2: o(2),
            origin3: o(3),
            origin4: o(4),
            origin5: o(5),
            origin6: o(6),
            origin7: o(7),
            camera_voxel: camera.extend(self.key.voxel_size_m).to_array(),
            counts: [p.capacity, self.frame, p.atlas_bricks[0], p.atlas_bricks[0] * p.atlas_bricks[1]],
            params: [alive_list as u32, u32::from(pressure), p.max_requests, 0],
            reserved: [0; 4],
        };
        self.pool.constants.write(0, bytemuck::bytes_of(&constants));
    }

    /// Records the frame's allocation, splat, resolve and clear for the carriers of `particles`
    /// (after `particles.update`), with the per-source inputs `sources`.
    pub fn record(&mut self, rec: &mut Recorder<'_>, particles: &GpuParticles, sources: &Buffer) {
        let inputs = particles.live_buffers();
        let capacity = particles.desc().capacity;
        self.pool.record_first_clear(rec);
        let p = &self.pool;
        rec.fill_buffer(&p.page, u32::MAX);
        let mut reset = vec![0u32; stats::words::COUNT];
        reset[1] = 1;
        reset[2] = 1;
        reset[stats::words::BOUNDS..stats::words::BOUNDS + 3].fill(u32::MAX);
        reset[stats::words::WIDE_ARGS + 1] = fog::bricks::MAX_AXIS_CELLS as u32;
        reset[stats::words::WIDE_ARGS + 2] = 1;
        rec.update_buffer(&p.counters, &reset);
        rec.fill_buffer(&p.system_bricks, 0);
        let bindings = p.bindings(inputs, sources);
        let sizes = AllocSizes { slots: p.capacity, particles: capacity, requests: p.max_requests };
        self.alloc.record(rec, &bindings, sizes);
        self.splat.record(rec, &bindings, (&p.counters, &p.dispatch), capacity);
        if self.ran_with.len() == FRAMES_REMEMBERED {
            self.ran_with.pop_front();
        }
        self.ran_with.push_back((self.frame, p.capacity, p.bytes_allocated));
        let counters = self.readback.target_tagged(rec, self.frame);
        let systems = self.system_readback.target(rec);
        let copy = [
            Use::Buffer(&p.counters, Access::TransferRead),
            Use::Buffer(counters, Access::TransferWrite),
            Use::Buffer(&p.system_bricks, Access::TransferRead),
            Use::Buffer(systems, Access::TransferWrite),
        ];
        rec.pass("fog.bricks.counters.readback", &copy, |rec| {
            rec.copy_buffer(&p.counters, counters, p.counters.size);
            rec.copy_buffer(&p.system_bricks, systems, p.system_bricks.size);
        });
        rec.barriers(&[Use::Buffer(counters, Access::HostRead), Use::Buffer(systems, Access::HostRead)]);
    }

    /// Reads the counters of the newest completed frame (the one just submitted, for submissions
    /// that wait) into [`Self::stats`], the next frame's pressure and the pool's next size;
    /// nothing when no frame completed since the last call.
    pub fn finish_frame(&mut self, gpu: &Gpu) {
        let Some((bytes, frame)) = self.readback.take_latest(gpu) else { return };
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let (slots, allocated) = self
            .ran_with
            .iter()
            .find(|r| r.0 == frame)
            .map_or((self.pool.capacity, self.pool.bytes_allocated), |r| (r.1, r.2));
        let mut s = FogStats::from_counters(words, self.key.voxel_size_m);
        s.frame = frame;
        s.bricks_allocated = slots;
        s.bricks_budget = self.budget_slots;
        s.brick_bytes_used = u64::from(s.bricks_used) * BYTES_PER_SLOT;
        s.brick_bytes_allocated = allocated;
        s.brick_bytes_budget = self.key.budget_bytes;
        self.pressure = budget_pressure(&s, self.ceiling);
        self.last_failures = s.alloc_failures;
        let demand = Demand { used: s.bricks_used, failed: s.alloc_failures };
        let p = &self.pool;
        // The pool's own figure at its size, the device's requirements at others.
        let bytes_of = |slots| {
            if slots == p.capacity {
                p.bytes_allocated
            } else {
                pool::pool_memory(gpu, PoolShape { slots, ..p.shape() })
            }
        };
        if let Some(n) = self.sizing.observe(demand, self.pool.capacity, self.ceiling, bytes_of) {
            self.resize_to = Some(n);
        }
        self.stats = s;
    }

    /// Remakes the pool with `slots` slots (the old one is retired behind the frames in flight);
    /// when that cannot be allocated, keeps it and grows no further than its size.
    fn resize(&mut self, gpu: &Gpu, slots: u32) {
        let shape = PoolShape { slots, ..self.pool.shape() };
        match BrickPool::new(gpu, shape) {
            Ok(mut pool) => {
                pool.initialise();
                self.pool = pool;
            }
            Err(e) => {
                let kept = self.pool.capacity;
                if slots > kept {
                    self.ceiling = kept;
                }
                tracing::warn!(
                    "particle fog: the brick pool stays at {kept} bricks, {slots} could not be made ({e}); \
                     systems that do not fit are demoted"
                );
            }
        }
    }

    /// The newest completed frame's bricks by source id (a brick two sources share counts for
    /// the one that requested it first): what each system costs of the budget. Read from the
    /// readback only when asked, not every frame; empty before any frame completed.
    pub fn bricks_by_source(&self, gpu: &Gpu) -> Vec<u32> {
        self.system_readback.peek_latest(gpu).map(|b| bytemuck::cast_slice(&b).to_vec()).unwrap_or_default()
    }
}

/// A completed frame's brick use as the demotion reads it: against `ceiling`, the slots the pool
/// may grow to, with its failed requests counted only when that frame's pool already had them
/// all (a pool still growing is not the budget exhausted).
fn budget_pressure(s: &FogStats, ceiling: u32) -> BrickPressure {
    let exhausted = s.bricks_allocated >= ceiling;
    BrickPressure {
        used: s.bricks_used,
        capacity: ceiling,
        failures: if exhausted { s.alloc_failures } else { 0 },
    }
}

#[cfg(test)]
mod tests {
    use super::stats::{words, FogStats};

    #[test]
    fn failed_requests_of_a_growing_pool_are_not_budget_pressure() {
        let frame = |allocated, failures| FogStats {
            bricks_used: allocated,
            bricks_allocated: allocated,
            alloc_failures: failures,
            ..FogStats::default()
        };
        let growing = super::budget_pressure(&frame(128, 500), 7000);
        assert_eq!((growing.used, growing.capacity, growing.failures), (128, 7000, 0));
        let full = super::budget_pressure(&frame(7000, 500), 7000);
        assert_eq!((full.used, full.capacity, full.failures), (7000, 7000, 500));
    }

    /// `const <type> NAME = VALUE;` lines of a GLSL source, as (NAME, VALUE text).
    fn glsl_consts(src: &str) -> Vec<(String, String)> {
        src.lines()
            .filter_map(|l| {
                let l = l.split("//").next()?.trim().strip_prefix("const ")?;
                let (decl, value) = l.strip_suffix(';')?.split_once('=')?;
                let name = decl.split_whitespace().nth(1)?;
                Some((name.to_owned(), value.trim().trim_end_matches('u').to_owned()))
            })
            .collect()
    }

    fn value(consts: &[(String, String)], name: &str) -> f64 {
        let (_, v) =
            consts.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("bricks.glsl lacks {name}"));
        let v = v.trim_start_matches("1.0 / ");
        let parsed: f64 = v.parse().unwrap_or_else(|_| panic!("{name} = {v}"));
        if consts.iter().any(|(n, x)| n == name && x.starts_with("1.0 / ")) {
            1.0 / parsed
        } else {
            parsed
        }
    }

    #[test]
    fn bricks_glsl_mirrors_the_rust_constants() {
        let c = glsl_consts(include_str!("../shaders/bricks.glsl"));
        use fog::bricks as b;
        use fog::kernel as k;
        let expect: [(&str, f64); 26] = [
            ("BRICK_VOXELS", f64::from(b::BRICK_VOXELS)),
            ("BRICK_CELLS", b::BRICK_CELLS as f64),
            ("BRICK_STORED", f64::from(b::BRICK_STORED)),
            ("LEVELS", b::LEVELS as f64),
            ("CLIP_BRICKS", f64::from(b::CLIP_BRICKS)),
            ("DISTANCE_LEVEL0_VOXELS", f64::from(b::DISTANCE_LEVEL0_VOXELS)),
            ("SUPPORT_SIGMAS", f64::from(b::SUPPORT_SIGMAS)),
            ("MIN_SIGMA_VOXELS", f64::from(b::MIN_SIGMA_VOXELS)),
            ("MAX_SIGMA_TOP_VOXELS", f64::from(b::MAX_SIGMA_TOP_VOXELS)),
            ("MAX_AXIS_CELLS", f64::from(b::MAX_AXIS_CELLS)),
            ("KERNEL_K_MIN", f64::from(k::KERNEL_K_MIN)),
            ("KERNEL_K_MAX", f64::from(k::KERNEL_K_MAX)),
            ("KERNEL_DIFFUSION_M2_PER_S", f64::from(k::KERNEL_DIFFUSION_M2_PER_S)),
            ("SPLAT_SIGMA_MIN_VOXELS", f64::from(k::SPLAT_SIGMA_MIN_VOXELS)),
            ("EXTINCTION_UNITS_PER_INV_M", f64::from(k::EXTINCTION_UNITS_PER_INV_M)),
            ("MAX_CARRIER_UNITS", f64::from(k::MAX_CARRIER_UNITS)),
            ("TINT_SCALE", f64::from(k::TINT_SCALE)),
            ("MAX_CARRIER_SIZE_M", f64::from(k::MAX_CARRIER_SIZE_M)),
            ("EXPECTED_MASS_UNITS_PER_M2", super::stats::EXPECTED_MASS_UNITS_PER_M2),
            ("C_USED", words::USED as f64),
            ("C_REQUESTS", words::REQUESTS as f64),
            ("C_UNITS_LO", words::UNITS_LO as f64),
            ("C_BOUNDS", words::BOUNDS as f64),
            ("C_WIDE_ARGS", words::WIDE_ARGS as f64),
            ("C_WIDE_COUNT", words::WIDE_COUNT as f64),
            ("C_WORDS", words::COUNT as f64),
        ];
        for (name, want) in expect {
            let got = value(&c, name);
            assert!((got - want).abs() <= 1e-6 * want.abs().max(1.0), "{name}: GLSL {got}, Rust {want}");
        }
        let more = [
            ("C_CARRIERS", words::CARRIERS),
            ("C_POISONED", words::POISONED),
            ("C_TOO_LARGE", words::TOO_LARGE),
            ("C_ALLOC_FAILED", words::ALLOC_FAILED),
            ("C_EVICTED", words::EVICTED),
            ("C_REQUEST_OVERFLOW", words::REQUEST_OVERFLOW),
            ("C_EXPECTED_LO", words::EXPECTED_LO),
            ("C_CLIPPED_LO", words::CLIPPED_LO),
            ("TINT_WORDS", fog::splat::TINT_WORDS),
        ];
        for (name, want) in more {
            assert_eq!(value(&c, name), want as f64, "{name}");
        }
    }

    #[test]
    fn the_light_pass_mirrors_the_range_fade_fraction() {
        let c = glsl_consts(include_str!("../passes/brick_march/light.comp"));
        let want = f64::from(super::systems::RANGE_FADE_FRACTION);
        assert_eq!(value(&c, "RANGE_FADE_FRACTION"), want);
    }

    #[test]
    fn the_carrier_light_pass_mirrors_the_pool() {
        let c = glsl_consts(include_str!("../passes/brick_march/carrier_light.comp"));
        let unit = f64::from(1u32 << super::pool::BILLBOARD_LIGHT_FRACTION_BITS);
        assert_eq!(value(&c, "BILLBOARD_LIGHT_UNIT"), unit);
        let bricks = glsl_consts(include_str!("../shaders/bricks.glsl"));
        assert_eq!(value(&bricks, "BILLBOARD_LIGHT_WORDS"), super::pool::BILLBOARD_LIGHT_WORDS as f64);
    }

    #[test]
    fn the_mirror_check_notices_a_changed_constant() {
        let c = glsl_consts("const int BRICK_VOXELS = 4;\nconst float TINT_SCALE = 1.0 / 8.0;");
        assert_eq!(value(&c, "BRICK_VOXELS"), 4.0);
        assert_eq!(value(&c, "TINT_SCALE"), 0.125);
    }
}
