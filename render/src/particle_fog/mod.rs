//! Particle fog on the GPU: converted particle systems' particles kept as density carriers and
//! splatted, mass-conservingly, into world-space density bricks (issue 14; the maths and the CPU
//! twin are in crate `fog`: [`fog::bricks`], [`fog::kernel`], [`fog::splat`]).
//!
//! - [`systems`]: which systems convert and by how much (classifier, range fade, demotion).
//! - [`pool`]: the brick pool's resources within the budget and the device's limits.
//! - [`stats`]: the frame's counts (carriers, bricks, mass expected and splatted).
//! - [`export`]: the density field read back, as the march samples it, and its files.
//!
//! A frame with converted systems runs, after `particles.update`: the per-frame resets, then
//! `fog.brick_age` -> `fog.brick_mark` -> `fog.brick_alloc` ([`crate::passes::brick_alloc`]) ->
//! `fog.brick_splat` -> `fog.brick_splat.wide` -> `fog.brick_resolve` -> `fog.brick_clear`
//! ([`crate::passes::brick_splat`]),
//! and copies the counters back for [`stats::FogStats`] and the next frame's demotion, and each
//! source's bricks (`fog.bricks.system_bricks`) for [`ParticleFog::bricks_by_source`].

pub mod export;
pub mod pool;
pub mod stats;
pub mod systems;

use fog::bricks::BrickLayout;
use glam::Vec3;
use settings::Settings;

use crate::error::Result;
use crate::gpu_types::BrickUniform;
use crate::particles_gpu::GpuParticles;
use crate::passes::brick_alloc::{AllocSizes, BrickAllocPasses};
use crate::passes::brick_splat::BrickSplatPasses;
use crate::vk::context::Gpu;
use crate::vk::readback_ring::ReadbackRing;
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::Buffer;
use pool::BrickPool;
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

/// The particle fog's GPU state for one scene.
pub struct ParticleFog {
    /// What it was made for.
    pub key: PoolKey,
    /// The bricks.
    pub pool: BrickPool,
    alloc: BrickAllocPasses,
    splat: BrickSplatPasses,
    /// Per frame slot, the counters after that slot's frame.
    readback: ReadbackRing,
    /// Per frame slot, each source's bricks after that slot's frame.
    system_readback: ReadbackRing,
    frame: u32,
    pressure: BrickPressure,
    /// The last rendered frame's counts (systems counted by the caller).
    pub stats: FogStats,
}

impl ParticleFog {
    /// Creates the pool and passes for `key`.
    pub fn new(gpu: &Gpu, key: PoolKey) -> Result<ParticleFog> {
        let mut pool = BrickPool::new(gpu, key.budget_bytes, key.max_sources)?;
        pool.initialise();
        let readback =
            ReadbackRing::new(gpu, "fog.bricks.counters.readback", (stats::words::COUNT * 4) as u64)?;
        let system_readback =
            ReadbackRing::new(gpu, "fog.bricks.system_bricks.readback", pool.system_bricks.size)?;
        Ok(ParticleFog {
            key,
            pool,
            alloc: BrickAllocPasses::new(gpu)?,
            splat: BrickSplatPasses::new(gpu)?,
            readback,
            system_readback,
            frame: 0,
            pressure: BrickPressure::default(),
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

    /// Writes this frame's constants: windows around `camera`, the particles in alive list
    /// `alive_list` (after the update).
    pub fn prepare(&mut self, camera: Vec3, alive_list: usize) {
        self.frame = self.frame.wrapping_add(1);
        let layout = BrickLayout::new(self.key.voxel_size_m, camera);
        let o = |l: usize| {
            let v = layout.origins[l];
            [v.x, v.y, v.z, 0]
        };
        let p = &self.pool;
        let pressure = self.pressure.failures > 0;
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
        let (counters, systems) = (self.readback.target(rec), self.system_readback.target(rec));
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
    /// that wait) into [`Self::stats`] and the next frame's pressure; nothing when no frame
    /// completed since the last call.
    pub fn finish_frame(&mut self, gpu: &Gpu) {
        let Some((bytes, _)) = self.readback.take_latest(gpu) else { return };
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let mut s = FogStats::from_counters(words, self.key.voxel_size_m);
        s.bricks_budget = self.pool.capacity;
        s.brick_bytes_used = u64::from(s.bricks_used) * pool::BYTES_PER_SLOT;
        s.brick_bytes_budget = self.key.budget_bytes;
        s.brick_bytes_allocated = self.pool.bytes_allocated;
        self.pressure =
            BrickPressure { used: s.bricks_used, capacity: self.pool.capacity, failures: s.alloc_failures };
        self.stats = s;
    }

    /// The newest completed frame's bricks by source id (a brick two sources share counts for
    /// the one that requested it first): what each system costs of the budget. Read from the
    /// readback only when asked, not every frame; empty before any frame completed.
    pub fn bricks_by_source(&self, gpu: &Gpu) -> Vec<u32> {
        self.system_readback.peek_latest(gpu).map(|b| bytemuck::cast_slice(&b).to_vec()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::stats::words;

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
        ];
        for (name, want) in more {
            assert_eq!(value(&c, name), want as f64, "{name}");
        }
    }

    #[test]
    fn the_mirror_check_notices_a_changed_constant() {
        let c = glsl_consts("const int BRICK_VOXELS = 4;\nconst float TINT_SCALE = 1.0 / 8.0;");
        assert_eq!(value(&c, "BRICK_VOXELS"), 4.0);
        assert_eq!(value(&c, "TINT_SCALE"), 0.125);
    }
}
