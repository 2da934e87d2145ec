//! The GPU-resident particle pool and its per-frame CPU glue (the simulation half).
//!
//! Buffers (each named as below, STYLE.md practice 4):
//! - `particles.pool`: `capacity` [`GpuParticle`]s;
//! - `particles.templates`: per pool slot, the [`GpuParticleTemplate`] its particle was born with
//!   (colours, sizes, glow, acceleration; written by `particles.emit`, read by `particles.update`),
//!   so a source whose system changes ([`GpuParticles::set_system`]) leaves its particles in
//!   flight as they were, as in the viewer and the reference;
//! - `particles.dead`: the free indices (a stack; its depth is `counters.dead`);
//! - `particles.alive0` / `particles.alive1`: ping-pong alive lists; a frame's particles are in
//!   one, emission appends to it, the update writes the survivors into the other;
//! - `particles.counters`: [`GpuParticleCounters`] (alive counts, dead count, totals);
//! - `particles.emitters`: one [`GpuEmitter`] per source (indexed by source id), rewritten every
//!   frame (positions move);
//! - `particles.bursts`: this frame's [`GpuBurst`]s;
//! - `particles.ribbon_keys` / `particles.ribbon_parent` / `particles.ribbon_tail` (and the
//!   sort's `particles.ribbons.runs1` / `.args`): the sorted (source, serial, slot) keys of ribbon
//!   particles, each one's parent slot, and per source the serial of its newest particle
//!   ([`crate::passes::particle_ribbons::RibbonLinks`]);
//! - `particles.visible` / `particles.draw_args`: the frustum-culled pool indices and their
//!   `VkDrawIndirectCommand` (one 6-vertex instance per visible particle), written by
//!   `particles.cull` ([`crate::frame::particles::record_cull`]) for the billboards.
//!
//! Per frame the CPU works per source only ([`GpuParticles::prepare`]): the burst clocks with the
//! viewer's budget and distance throttle ([`particles::gpu::BurstScheduler`]) and one emitter
//! block per source; the GPU then emits and updates every particle
//! ([`crate::passes::particle_sim`]). Random draws come from the same counter-based streams as the
//! CPU reference ([`particles::sim::rng`]), so source ids and serials match the reference draw for
//! draw, the burst-share drop test included.
//!
//! Capacity and budget ([`ParticleBudget`]): the viewer's pool holds its hard cap of 8192
//! particles and `RenderMaxPartCount` is a live limit ([`GpuParticles::set_budget`]; a change
//! applies on the next frame, nothing is remade); stress pools (`RenderVKParticleCapacity` above
//! the hard cap, e.g. 1,000,000: 128 MB of particles, 80 MB of templates and 16 MB of lists; at
//! most [`MAX_CAPACITY`] and what the device's `maxStorageBufferRange` holds, [`device_capacity`])
//! run without a budget. A candidate that finds the pool full is refused
//! (counted in `refused`); `alive + dead == capacity` always. Each frame copies the counters into
//! `particles.counters.readback`; the next [`GpuParticles::prepare`] reads the live count from it
//! for the budget (the previous submission has completed by then).
//!
//! A removed source stops bursting and its slot keeps its last position for the particles it left
//! behind; once they have all outlived their lifetime the slot takes the next source added. A
//! pool holds at most `max_sources` sources at a time. (A new source in a ribbon tail's old slot
//! cannot continue that tail: none of the old particles is alive to precede its first one.)

use ash::vk;
use glam::{Quat, Vec3};
use particles::gpu::{step_dt, Burst, BurstScheduler, ScheduledSource, MAX_BURSTS_PER_SOURCE_FRAME};
use particles::sim::{Camera, SourceDesc, SourceId, HARD_MAX_PARTICLES};
use particles::{PartSysData, PatternKind};

use crate::error::{RenderError, Result};
use crate::gpu_types::{
    GpuBurst, GpuDrawIndirect, GpuEmitter, GpuParticle, GpuParticleCounters, GpuParticleTemplate,
    ParticleSimPush,
};
use crate::passes::billboards::pipeline::pair_code;
use crate::passes::particle_ribbons::RibbonLinks;
use crate::vk::context::Gpu;
use crate::vk::readback_ring::ReadbackRing;
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::{Buffer, BufferDesc, MemoryLocation};

/// Sources a pool holds by default.
pub const DEFAULT_MAX_SOURCES: u32 = 256;
/// Bytes per `u32` list entry.
const INDEX_BYTES: u64 = 4;
/// Largest pool: `particles.update` runs one 64-thread group per 64 slots, and Vulkan guarantees
/// only 65,535 groups per dispatch dimension.
pub const MAX_CAPACITY: u32 = 65_535 * 64;

/// What pool to create.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParticlePoolDesc {
    /// Particles the pool holds (non-zero).
    pub capacity: u32,
    /// Sources it can hold over its lifetime (slots are not reused).
    pub max_sources: u32,
    /// Seed of every random draw (the reference's `SimConfig::seed`).
    pub seed: u64,
}

impl ParticlePoolDesc {
    /// The pool for `RenderVKParticleCapacity`: the viewer's hard cap of 8192 particles, or more
    /// when the setting asks for it (stress runs; at most [`MAX_CAPACITY`]); the default source
    /// count, seed 0.
    pub fn for_settings(capacity: u32) -> Self {
        let capacity = capacity.clamp(HARD_MAX_PARTICLES, MAX_CAPACITY);
        ParticlePoolDesc { capacity, max_sources: DEFAULT_MAX_SOURCES, seed: 0 }
    }
}

/// The largest pool whose per-particle buffers (`particles.pool`, and the smaller
/// `particles.templates`) each fit the device's `maxStorageBufferRange` (one storage buffer
/// binding holds a whole buffer): 1,048,576 on lavapipe (128 MiB), at most [`MAX_CAPACITY`].
pub fn device_capacity(limits: &vk::PhysicalDeviceLimits) -> u32 {
    let particle_bytes = largest_per_particle_bytes();
    (u64::from(limits.max_storage_buffer_range) / particle_bytes).min(u64::from(MAX_CAPACITY)) as u32
}

/// Bytes per particle of the largest per-particle buffer (the one the storage range limits).
fn largest_per_particle_bytes() -> u64 {
    std::mem::size_of::<GpuParticle>().max(std::mem::size_of::<GpuParticleTemplate>()) as u64
}

/// How many particles may live, from the settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParticleBudget {
    /// `RenderMaxPartCount` is 0 or negative: no particles (the viewer's Low preset).
    Off,
    /// The viewer's budget: `min(RenderMaxPartCount, 8192)`, with the burst share and the limit.
    Limit(u32),
    /// A stress pool (`RenderVKParticleCapacity` above the hard cap): no share, no limit but the
    /// pool's capacity.
    Unlimited,
}

impl ParticleBudget {
    /// The budget for `RenderMaxPartCount` = `max_part_count` and `RenderVKParticleCapacity` =
    /// `capacity`.
    pub fn for_settings(max_part_count: i32, capacity: u32) -> Self {
        match u32::try_from(max_part_count) {
            Ok(n) if n > 0 && capacity > HARD_MAX_PARTICLES => ParticleBudget::Unlimited,
            Ok(n) if n > 0 => ParticleBudget::Limit(n.min(HARD_MAX_PARTICLES)),
            _ => ParticleBudget::Off,
        }
    }
}

/// What [`GpuParticles::prepare`] scheduled for the frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FramePlan {
    /// The clamped step, seconds.
    pub dt: f32,
    /// Bursts this frame.
    pub bursts: u32,
    /// Emission candidates this frame.
    pub candidates: u32,
    /// Bursts stopped by the particle limit or by distance throttling.
    pub bursts_stopped: u32,
    /// The burst share candidates are kept with (1 without a budget).
    pub share: f32,
}

/// The GPU particle pool, its buffers and the per-source CPU state.
pub struct GpuParticles {
    /// `particles.pool`.
    pub pool: Buffer,
    /// `particles.templates`: each slot's template values from its birth.
    pub templates: Buffer,
    /// `particles.dead`.
    pub dead: Buffer,
    /// `particles.alive0` and `particles.alive1`.
    pub alive: [Buffer; 2],
    /// `particles.counters`.
    pub counters: Buffer,
    /// `particles.emitters`.
    pub emitters: Buffer,
    /// `particles.bursts`.
    pub bursts: Buffer,
    /// The ribbon keys, parents and tails.
    pub ribbons: RibbonLinks,
    /// `particles.visible`.
    pub visible: Buffer,
    /// `particles.draw_args`.
    pub draw_args: Buffer,
    /// `particles.counters.readback`: per frame slot, the counters after that slot's frame
    /// (tagged with the alive list its update filled).
    readback: ReadbackRing,
    desc: ParticlePoolDesc,
    sources: Vec<ScheduledSource>,
    scheduler: BurstScheduler,
    /// The random stream of the next source added.
    next_stream: u32,
    wind: Vec3,
    /// The alive list holding the current particles.
    current: usize,
    plan: FramePlan,
    scratch: Vec<(u32, Burst)>,
}

fn storage(gpu: &Gpu, name: &str, size: u64, location: MemoryLocation) -> Result<Buffer> {
    gpu.create_buffer(&BufferDesc {
        name,
        size,
        usage: vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST,
        location,
    })
}

impl GpuParticles {
    /// Creates the buffers: every index free, both alive lists empty.
    pub fn new(gpu: &mut Gpu, desc: &ParticlePoolDesc) -> Result<Self> {
        if desc.capacity == 0 || desc.capacity > MAX_CAPACITY || desc.max_sources == 0 {
            return Err(RenderError::Unsupported(format!(
                "particle pool {desc:?}: capacity must be 1..={MAX_CAPACITY} and max_sources non-zero"
            )));
        }
        let device_cap = device_capacity(&gpu.limits());
        if desc.capacity > device_cap {
            return Err(RenderError::Unsupported(format!(
                "particle pool of {} particles: its {}-byte buffer exceeds this device's \
                 maxStorageBufferRange ({} bytes, {device_cap} particles)",
                desc.capacity,
                u64::from(desc.capacity) * largest_per_particle_bytes(),
                gpu.limits().max_storage_buffer_range
            )));
        }
        let cap = u64::from(desc.capacity);
        let particle_bytes = std::mem::size_of::<GpuParticle>() as u64;
        let gpu_only = MemoryLocation::GpuOnly;
        let pool = storage(gpu, "particles.pool", cap * particle_bytes, gpu_only)?;
        let template_bytes = std::mem::size_of::<GpuParticleTemplate>() as u64;
        let templates = storage(gpu, "particles.templates", cap * template_bytes, gpu_only)?;
        let dead = storage(gpu, "particles.dead", cap * INDEX_BYTES, gpu_only)?;
        let alive = [
            storage(gpu, "particles.alive0", cap * INDEX_BYTES, gpu_only)?,
            storage(gpu, "particles.alive1", cap * INDEX_BYTES, gpu_only)?,
        ];
        let counters_bytes = std::mem::size_of::<GpuParticleCounters>() as u64;
        let counters = storage(gpu, "particles.counters", counters_bytes, gpu_only)?;
        let readback = ReadbackRing::new(gpu, "particles.counters.readback", counters_bytes)?;
        let sources = u64::from(desc.max_sources);
        let emitter_bytes = sources * std::mem::size_of::<GpuEmitter>() as u64;
        let emitters = storage(gpu, "particles.emitters", emitter_bytes, MemoryLocation::Staged)?;
        let burst_bytes =
            sources * MAX_BURSTS_PER_SOURCE_FRAME as u64 * std::mem::size_of::<GpuBurst>() as u64;
        let bursts = storage(gpu, "particles.bursts", burst_bytes, MemoryLocation::Staged)?;
        let visible = storage(gpu, "particles.visible", cap * INDEX_BYTES, gpu_only)?;
        let ribbons = RibbonLinks::new(gpu, desc.capacity, desc.max_sources)?;
        let draw_args = gpu.create_buffer(&BufferDesc {
            name: "particles.draw_args",
            size: std::mem::size_of::<GpuDrawIndirect>() as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::INDIRECT_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC,
            location: gpu_only,
        })?;
        // Highest index on top of the stack, so the first particles take indices 0, 1, 2 ...
        let free: Vec<u32> = (0..desc.capacity).rev().collect();
        gpu.upload(&dead, bytemuck::cast_slice(&free))?;
        let empty = GpuParticleCounters { dead: desc.capacity, ..GpuParticleCounters::default() };
        gpu.upload(&counters, bytemuck::bytes_of(&empty))?;
        Ok(GpuParticles {
            pool,
            templates,
            dead,
            alive,
            counters,
            emitters,
            bursts,
            ribbons,
            visible,
            draw_args,
            readback,
            desc: *desc,
            sources: Vec::new(),
            scheduler: BurstScheduler::new(desc.seed),
            next_stream: 0,
            wind: Vec3::ZERO,
            current: 0,
            plan: FramePlan::default(),
            scratch: Vec::new(),
        })
    }

    /// The pool's description.
    pub fn desc(&self) -> &ParticlePoolDesc {
        &self.desc
    }

    /// True while a slot holds a RIBBON source (a removed one's slot is kept until its particles
    /// are gone): `particles.ribbons` runs only then.
    pub fn has_ribbons(&self) -> bool {
        self.sources.iter().any(|s| s.desc.sys.part.flags.contains(particles::PartFlags::RIBBON))
    }

    /// Adds a source and returns its slot. Its random stream is its number in order of addition,
    /// as `particles::sim::Simulation` numbers sources, so the same sources added in the same order
    /// draw the same random numbers. The slot is a new one, or that of a removed source whose
    /// particles have all outlived their lifetime (the old id then names the new source). Fails
    /// when all `max_sources` slots are in use.
    pub fn add_source(&mut self, desc: SourceDesc) -> Result<SourceId> {
        let stream = self.next_stream;
        let source = ScheduledSource::new(desc, stream);
        let slot = match self.sources.iter().position(ScheduledSource::is_finished) {
            Some(free) => {
                self.sources[free] = source;
                free
            }
            None if self.sources.len() < self.desc.max_sources as usize => {
                self.sources.push(source);
                self.sources.len() - 1
            }
            None => {
                return Err(RenderError::Unsupported(format!(
                    "particle pool full: {} sources in use",
                    self.desc.max_sources
                )))
            }
        };
        self.next_stream += 1;
        Ok(SourceId(slot as u32))
    }

    /// Moves a source's object. Returns false for an unknown id.
    pub fn set_source_transform(&mut self, id: SourceId, position: Vec3, rotation: Quat) -> bool {
        self.source_mut(id).map(|s| (s.desc.position, s.desc.rotation) = (position, rotation)).is_some()
    }

    /// Replaces a source's system (a new PSYS block for the same object), as
    /// `particles::sim::Simulation::set_system` does: the next bursts use it, the source's clock
    /// and serials are kept, and particles in flight keep the template values they were born
    /// with. Returns false for an unknown id.
    pub fn set_system(&mut self, id: SourceId, sys: PartSysData) -> bool {
        self.source_mut(id).map(|s| s.set_system(sys)).is_some()
    }

    /// Sets (or clears) a source's target position. Returns false for an unknown id.
    pub fn set_target_position(&mut self, id: SourceId, target: Option<Vec3>) -> bool {
        self.source_mut(id).map(|s| s.desc.target_position = target).is_some()
    }

    /// Stops a source's bursts; its particles live out their lives. Returns false for an unknown id.
    pub fn remove_source(&mut self, id: SourceId) -> bool {
        self.source_mut(id).map(ScheduledSource::remove).is_some()
    }

    /// Sets the region wind, m/s.
    pub fn set_wind(&mut self, wind: Vec3) {
        self.wind = wind;
    }

    /// Sets the live particle limit (`min(RenderMaxPartCount, 8192)`, with the viewer's burst
    /// share), or none (`None`, the default: every candidate kept, as the reference without a
    /// budget). Takes effect on the next [`GpuParticles::prepare`].
    pub fn set_budget(&mut self, max_count: Option<u32>) {
        self.scheduler.set_max_count(max_count);
    }

    /// Sets (or clears) the camera for distance throttling (none by default).
    pub fn set_camera(&mut self, camera: Option<Camera>) {
        self.scheduler.set_camera(camera);
    }

    fn source_mut(&mut self, id: SourceId) -> Option<&mut ScheduledSource> {
        self.sources.get_mut(id.0 as usize)
    }

    /// CPU work of one frame: advances every source's burst clock by the clamped step and writes
    /// this frame's emitters and bursts. Call once per frame, before the frame's simulation is recorded
    /// ([`crate::frame::particles::record_simulation`]).
    pub fn prepare(&mut self, gpu: &Gpu, frame_dt: f32) -> FramePlan {
        if let Some((bytes, list)) = self.readback.take_latest(gpu) {
            let c: GpuParticleCounters = bytemuck::pod_read_unaligned(&bytes);
            self.scheduler.end_frame(if list == 0 { c.alive0 } else { c.alive1 });
        }
        let dt = step_dt(frame_dt);
        self.scratch.clear();
        let schedule = self.scheduler.schedule(&mut self.sources, dt, &mut self.scratch);
        let mut bursts = Vec::with_capacity(self.scratch.len());
        let mut candidates = 0u32;
        for (source, b) in &self.scratch {
            let rotation = self.sources[*source as usize].desc.rotation;
            let stream = self.sources[*source as usize].stream;
            bursts.push(gpu_burst([*source, stream], b, rotation, candidates));
            candidates += b.count;
        }
        let emitters: Vec<GpuEmitter> = self.sources.iter().map(gpu_emitter).collect();
        if bursts.len() > self.desc.max_sources as usize * MAX_BURSTS_PER_SOURCE_FRAME {
            crate::error::bug("particles: more bursts than MAX_BURSTS_PER_SOURCE_FRAME allows");
        }
        if !emitters.is_empty() {
            self.emitters.write(0, bytemuck::cast_slice(&emitters));
        }
        if !bursts.is_empty() {
            self.bursts.write(0, bytemuck::cast_slice(&bursts));
        }
        self.plan = FramePlan {
            dt,
            bursts: bursts.len() as u32,
            candidates,
            bursts_stopped: schedule.bursts_stopped,
            share: schedule.share,
        };
        self.plan
    }

    /// The simulation's push constants for the frame [`GpuParticles::prepare`] scheduled.
    pub fn sim_push(&self) -> ParticleSimPush {
        let (seed_lo, seed_hi) = particles::sim::rng::split_seed(self.desc.seed);
        ParticleSimPush {
            counts: [self.current as u32, self.plan.candidates, self.plan.bursts, self.desc.capacity],
            wind_dt: [self.wind.x, self.wind.y, self.wind.z, self.plan.dt],
            seed: [seed_lo, seed_hi, 0, 0],
            budget: [self.plan.share, 0.0, 0.0, 0.0],
        }
    }

    /// After the frame's `particles.emit` and `particles.update` are recorded (by the frame layer,
    /// [`crate::frame::particles::record_simulation`]): copies the counters into this frame slot's
    /// `particles.counters.readback` (read by a later [`GpuParticles::prepare`] once the frame has
    /// completed) and swaps the alive lists.
    pub fn finish_record(&mut self, rec: &mut Recorder<'_>) {
        // The update filled the other alive list: the one the copy's live count is of.
        let filled = 1 - self.current as u32;
        let readback = self.readback.target_tagged(rec, filled);
        let uses =
            [Use::Buffer(&self.counters, Access::TransferRead), Use::Buffer(readback, Access::TransferWrite)];
        rec.pass(&crate::names::resource("particles", "counters.readback"), &uses, |rec| {
            rec.copy_buffer(&self.counters, readback, self.counters.size);
        });
        rec.barriers(&[Use::Buffer(readback, Access::HostRead)]);
        self.current = 1 - self.current;
        self.plan = FramePlan::default();
    }

    /// The buffers of the current particles: the pool, the alive list holding them and the
    /// counters (what the brick passes read of their carriers).
    pub fn live_buffers(&self) -> [&Buffer; 3] {
        [&self.pool, &self.alive[self.current], &self.counters]
    }

    /// Reads the draw arguments back (tests; it waits for the GPU).
    pub fn read_draw_args(&self, gpu: &mut Gpu) -> Result<GpuDrawIndirect> {
        let bytes = gpu.read_buffer(&self.draw_args)?;
        Ok(bytemuck::pod_read_unaligned(&bytes[..std::mem::size_of::<GpuDrawIndirect>()]))
    }

    /// Reads the visible list back: pool indices of the particles that passed the cull (tests).
    pub fn read_visible(&self, gpu: &mut Gpu) -> Result<Vec<u32>> {
        let n = self.read_draw_args(gpu)?.instance_count as usize;
        let bytes = gpu.read_buffer(&self.visible)?;
        let mut list: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        list.truncate(n);
        Ok(list)
    }

    /// Reads the counters back (tests and statistics; it waits for the GPU).
    pub fn read_counters(&self, gpu: &mut Gpu) -> Result<GpuParticleCounters> {
        let bytes = gpu.read_buffer(&self.counters)?;
        Ok(bytemuck::pod_read_unaligned(&bytes[..std::mem::size_of::<GpuParticleCounters>()]))
    }

    /// Number of live particles (tests and statistics; it waits for the GPU).
    pub fn read_live_count(&self, gpu: &mut Gpu) -> Result<u32> {
        let c = self.read_counters(gpu)?;
        Ok(if self.current == 0 { c.alive0 } else { c.alive1 })
    }

    /// Reads the current alive list back: the pool indices of every live particle (tests).
    pub fn read_live_indices(&self, gpu: &mut Gpu) -> Result<Vec<u32>> {
        let n = self.read_live_count(gpu)? as usize;
        let bytes = gpu.read_buffer(&self.alive[self.current])?;
        let mut list: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        list.truncate(n);
        Ok(list)
    }

    /// Reads every live particle back (tests; it waits for the GPU), in alive-list order.
    pub fn read_live(&self, gpu: &mut Gpu) -> Result<Vec<GpuParticle>> {
        let list = self.read_live_indices(gpu)?;
        let pool_bytes = gpu.read_buffer(&self.pool)?;
        let pool: Vec<GpuParticle> = bytemuck::pod_collect_to_vec(&pool_bytes);
        Ok(list.iter().filter_map(|&i| pool.get(i as usize).copied()).collect())
    }

    /// A pool of `parts.len()` (at least 64) holding exactly `parts` as its live particles, in
    /// slots `0..n`, with `max_sources` sources and no dead slots: the input of the particle fog's
    /// tests and benchmark, which place carriers directly instead of simulating them.
    pub fn with_particles(gpu: &mut Gpu, max_sources: u32, parts: &[GpuParticle]) -> Result<Self> {
        let n = u32::try_from(parts.len()).unwrap_or(u32::MAX);
        let desc = ParticlePoolDesc { capacity: n.max(64), max_sources, seed: 0 };
        let pool = GpuParticles::new(gpu, &desc)?;
        gpu.upload(&pool.pool, bytemuck::cast_slice(parts))?;
        let templates: Vec<GpuParticleTemplate> = parts.iter().map(still_template).collect();
        gpu.upload(&pool.templates, bytemuck::cast_slice(&templates))?;
        let list: Vec<u32> = (0..n).collect();
        gpu.upload(&pool.alive[pool.current], bytemuck::cast_slice(&list))?;
        let counters = if pool.current == 0 {
            GpuParticleCounters { alive0: n, ..GpuParticleCounters::default() }
        } else {
            GpuParticleCounters { alive1: n, ..GpuParticleCounters::default() }
        };
        gpu.upload(&pool.counters, bytemuck::bytes_of(&counters))?;
        Ok(pool)
    }

    /// Reads the free-index stack back (tests; it waits for the GPU).
    pub fn read_dead(&self, gpu: &mut Gpu) -> Result<Vec<u32>> {
        let counters = self.read_counters(gpu)?;
        let bytes = gpu.read_buffer(&self.dead)?;
        let mut list: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        list.truncate(counters.dead as usize);
        Ok(list)
    }

    /// The alive list that holds the current particles (0 or 1).
    pub fn current_list(&self) -> usize {
        self.current
    }
}

/// The pattern kind as the shader's code: 0 drop, 1 explode, 2 angle, 3 cone.
fn pattern_code(sys: &PartSysData) -> u32 {
    match sys.pattern_kind() {
        PatternKind::Drop => 0,
        PatternKind::Explode => 1,
        PatternKind::Angle => 2,
        PatternKind::AngleCone => 3,
    }
}

/// The template of a placed particle that keeps its colour, size and glow and does not
/// accelerate ([`GpuParticles::with_particles`]).
fn still_template(p: &GpuParticle) -> GpuParticleTemplate {
    let [w, h, ..] = p.scale;
    let glow = p.offset_glow[3];
    GpuParticleTemplate {
        start_color: p.color,
        end_color: p.color,
        scales: [w, h, w, h],
        accel: [0.0; 4],
        glow: [glow, glow, 0.0, 0.0],
    }
}

/// One source's constants for this frame.
fn gpu_emitter(s: &ScheduledSource) -> GpuEmitter {
    let d = &s.desc;
    let sys = &d.sys;
    let part = &sys.part;
    let target = d.target_position.unwrap_or(d.position);
    let mut flags = part.flags.0;
    if d.hud {
        flags |= particles::PartFlags::HUD;
    }
    let blend = pair_code((part.blend_func_source, part.blend_func_dest));
    GpuEmitter {
        position_speed_min: d.position.extend(sys.burst_speed_min).to_array(),
        target_speed_max: target.extend(sys.burst_speed_max).to_array(),
        accel_max_age: sys.part_accel.extend(part.max_age).to_array(),
        start_color: part.start_color.to_array(),
        end_color: part.end_color.to_array(),
        scales: [part.start_scale.x, part.start_scale.y, part.end_scale.x, part.end_scale.y],
        angles_glow: [sys.inner_angle, sys.outer_angle, part.start_glow, part.end_glow],
        params: [pattern_code(sys), flags, sys.flags.0, blend],
        axis: (d.rotation * Vec3::Z).extend(if s.object_present() { 1.0 } else { 0.0 }).to_array(),
    }
}

/// One burst's constants: the combined rotation `R * Q` and its candidate range.
fn gpu_burst([slot, stream]: [u32; 2], b: &Burst, object_rotation: Quat, first_candidate: u32) -> GpuBurst {
    GpuBurst {
        rotation: (b.omega_rot * object_rotation).normalize().to_array(),
        ids: [slot, b.serial_base, b.count, first_candidate],
        radius: [b.first_radius_m, b.radius_m, b.drop_at_least, 0.0],
        stream: [stream, 0, 0, 0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stress_capacity_only_applies_above_the_viewer_cap() {
        let capacity = |c| ParticlePoolDesc::for_settings(c).capacity;
        assert_eq!(capacity(8192), HARD_MAX_PARTICLES, "the default holds the viewer's hard cap");
        assert_eq!(capacity(100), HARD_MAX_PARTICLES, "never below the hard cap the budget may ask for");
        assert_eq!(capacity(1_000_000), 1_000_000);
        assert_eq!(capacity(u32::MAX), MAX_CAPACITY);
    }

    #[test]
    fn budget_is_the_setting_capped_at_the_hard_limit_or_unlimited_for_stress_pools() {
        use ParticleBudget::{Limit, Off, Unlimited};
        let budget = ParticleBudget::for_settings;
        assert_eq!(budget(4096, 8192), Limit(4096));
        assert_eq!(budget(20_000, 8192), Limit(HARD_MAX_PARTICLES));
        assert_eq!(budget(0, 8192), Off, "RenderMaxPartCount 0 turns particles off");
        assert_eq!(budget(-5, 8192), Off);
        assert_eq!(budget(4096, 1_000_000), Unlimited);
        assert_eq!(budget(0, 1_000_000), Off, "off even for a stress pool");
    }

    #[test]
    fn pattern_codes_follow_the_viewer_bit_priority() {
        use particles::types::pattern;
        let code = |p: u8| pattern_code(&PartSysData { pattern: p, ..Default::default() });
        assert_eq!(code(pattern::DROP), 0);
        assert_eq!(code(pattern::EXPLODE), 1);
        assert_eq!(code(pattern::ANGLE), 2);
        assert_eq!(code(pattern::ANGLE_CONE), 3);
        assert_eq!(code(pattern::EXPLODE | pattern::DROP), 0);
    }

    #[test]
    fn bursts_rotate_by_omega_after_the_object() {
        let q = Quat::from_rotation_x(0.3);
        let r = Quat::from_rotation_z(0.7);
        let b = Burst {
            serial_base: 5,
            count: 2,
            omega_rot: r,
            first_radius_m: 1.0,
            radius_m: 0.0,
            drop_at_least: 0.25,
        };
        let g = gpu_burst([3, 9], &b, q, 17);
        let v = Vec3::new(0.2, -0.5, 0.8);
        let expected = r * (q * v);
        let got = Quat::from_array(g.rotation) * v;
        assert!((got - expected).length() < 1e-6);
        assert_eq!(g.ids, [3, 5, 2, 17]);
        assert_eq!(g.radius, [1.0, 0.0, 0.25, 0.0]);
        assert_eq!(g.stream[0], 9);
    }
}
