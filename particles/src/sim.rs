//! The deterministic CPU reference simulation of legacy particle systems: the oracle the GPU
//! simulation is tested against.
//!
//! It reproduces the viewer's semantics (`LLViewerPartSim`, `LLViewerPartSourceScript`,
//! `LLViewerPartGroup::updateParticles`, in the viewer's `llviewerpartsim.cpp` and
//! `llviewerpartsource.cpp`; ribbon links as `llvopartgroup.cpp` draws them) step by step:
//!
//! 1. `dt = min(frame_dt, 0.1 s)` ([`MAX_STEP_DT_S`]); negative or non-finite frame times count as 0.
//! 2. Every source updates its clocks and, if due, bursts ([`emit`]): burst timing with the
//!    discarded remainder, source max/start age, omega rotation with the frame `dt`, every pattern,
//!    the radius offset, FOLLOW_SRC/TARGET_LINEAR radius zeroing and ribbon linking.
//! 3. Every particle, the new ones included, is updated in the viewer's order ([`update`]);
//!    dead particles are removed and their ribbon neighbours re-linked ([`ribbons`]).
//! 4. With a budget ([`SimConfig::max_particles`]) the global burst share is re-estimated every 16
//!    frames ([`budget`]).
//!
//! Randomness is counter-based ([`rng`]): every draw is a hash of (seed, source id, emission
//! serial, draw index), so results do not depend on thread scheduling and the GPU can reproduce
//! them. Sources run in parallel on rayon; with a budget, emission runs sequentially in a hashed
//! per-frame order (start index and direction, like the viewer's random start) because sources
//! compete for the same count.
//!
//! Modelled simplifications, each documented where it applies: wind is one uniform region vector
//! ([`Simulation::set_wind`]); distance throttling and sub-pixel skipping apply only when a
//! [`Camera`] is set ([`Simulation::set_camera`]); the 8x slower update of invisible spatial groups
//! is **not modelled** (it needs visibility), and spatial groups do not exist (they only affect
//! culling and draw order); the viewer's `mDelay` start-up ramp is not modelled.

mod budget;
mod emit;
mod ribbons;
pub mod rng;
mod throttle;
mod update;

use glam::{Quat, Vec2, Vec3, Vec4};
use rayon::prelude::*;

use crate::types::{PartFlags, PartSysData};

pub use budget::{Budget, DEFAULT_MAX_PARTICLES, HARD_MAX_PARTICLES, INITIAL_BURST_SHARE, INITIAL_REF_RATE};
use budget::{BudgetGate, Unlimited};
use emit::SourceState;
pub use emit::{
    DRAW_ANGLE, DRAW_AZIMUTH, DRAW_EXPLODE_FIRST, DRAW_SHARE, DRAW_SIDE, DRAW_SPEED, EXPLODE_MAX_TRIES,
    MAX_POSITION_M, MIN_BURST_RATE_S,
};
pub use throttle::{burst_throttle, Camera, Throttle};

/// The viewer's clamp on the simulation step, seconds (`updateSimulation`).
pub const MAX_STEP_DT_S: f32 = 0.1;

/// Stream index used for per-frame draws (source order); never a real source id. The frame index
/// (low 32 bits) is its serial.
const FRAME_STREAM: u32 = u32::MAX;
/// Per-frame draw: the source the budgeted emission starts at (`u(source count)`).
const FRAME_DRAW_START: u32 = 0;
/// Per-frame draw: walk the sources backwards when above one half.
const FRAME_DRAW_DIRECTION: u32 = 1;
/// Probability split of the direction draw.
const HALF: f32 = 0.5;

/// How a simulation is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimConfig {
    /// Seed of every random draw; the same seed and frame sequence give identical particles.
    pub seed: u64,
    /// `RenderMaxPartCount` (min'd with [`HARD_MAX_PARTICLES`]); `None` = no budget at all
    /// (no share drops, no caps), for parity tests.
    pub max_particles: Option<u32>,
}

impl Default for SimConfig {
    /// Seed 0 and the viewer's default budget of [`DEFAULT_MAX_PARTICLES`].
    fn default() -> Self {
        SimConfig { seed: 0, max_particles: Some(DEFAULT_MAX_PARTICLES) }
    }
}

/// Identifies a source within one [`Simulation`]; ids are never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub u32);

/// What to create a source from: the decoded system and where its object is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceDesc {
    /// The particle system. A burst rate below 0.01 s (or NaN) is raised to 0.01 s as the viewer's
    /// decoder does.
    pub sys: PartSysData,
    /// The object's render position, region metres.
    pub position: Vec3,
    /// The object's render rotation (region from local).
    pub rotation: Quat,
    /// The target object's position; `None` = no target (the target is the source itself).
    pub target_position: Option<Vec3>,
    /// True for HUD attachments: particles get the HUD flag.
    pub hud: bool,
}

/// One live particle, with everything the renderer needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Particle {
    /// The source that emitted it.
    pub source: SourceId,
    /// Its emission serial within the source (candidate counter; also its random stream). Serials
    /// wrap after 2^32 candidates (about 47 hours of a source at 255 particles per 0.01 s), beyond
    /// which ribbon look-ups by serial are no longer ordered: the reference simulation is meant
    /// for tests and captures, not for days-long runs.
    pub serial: u32,
    /// Position, region metres.
    pub pos: Vec3,
    /// Velocity, m/s.
    pub vel: Vec3,
    /// Acceleration, m/s^2 (the source's, region axes).
    pub accel: Vec3,
    /// Ribbon edge axis (unit, or zero for the first ribbon particle and non-ribbons).
    pub axis: Vec3,
    /// Current colour, RGBA 0..1.
    pub color: Vec4,
    /// Current size, metres (x = width, y = height).
    pub scale: Vec2,
    /// Current glow, quantised to 1/255 steps.
    pub glow: f32,
    /// Simulated seconds since creation.
    pub age: f32,
    /// Lifetime, seconds.
    pub max_age: f32,
    /// Particle flags (template flags, plus HUD for HUD sources).
    pub flags: PartFlags,
    /// Blend factor for the source colour (raw byte).
    pub blend_func_source: u8,
    /// Blend factor for the destination colour (raw byte).
    pub blend_func_dest: u8,
    /// Serial of the next-newer ribbon particle of the same source (the segment's far end).
    pub parent: Option<u32>,
    /// Serial of the next-older ribbon particle of the same source.
    pub child: Option<u32>,
    /// Start colour (INTERP_COLOR).
    pub start_color: Vec4,
    /// End colour (INTERP_COLOR).
    pub end_color: Vec4,
    /// Start size (INTERP_SCALE).
    pub start_scale: Vec2,
    /// End size (INTERP_SCALE).
    pub end_scale: Vec2,
    /// Start glow.
    pub start_glow: f32,
    /// End glow.
    pub end_glow: f32,
    /// FOLLOW_SRC offset from the source position, metres.
    pub offset: Vec3,
}

/// A read-only view of one source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceView<'a> {
    /// Its id.
    pub id: SourceId,
    /// The system, as modified by the viewer (burst radius zeroed by FOLLOW_SRC/TARGET_LINEAR).
    pub sys: &'a PartSysData,
    /// Current object position.
    pub position: Vec3,
    /// Current object rotation.
    pub rotation: Quat,
    /// Current target position (the source position when there is no target).
    pub target_position: Vec3,
    /// False once it died of old age or was removed: no more bursts.
    pub emitting: bool,
    /// Its live particles, oldest first.
    pub particles: &'a [Particle],
}

/// What happened during one [`Simulation::step`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Index of the frame (0 for the first step).
    pub frame: u64,
    /// The clamped step, seconds.
    pub dt: f32,
    /// Bursts started (after the budget and distance checks).
    pub bursts: u32,
    /// Bursts skipped by distance throttling (sub-pixel or too far to be seen in time).
    pub bursts_skipped_by_distance: u32,
    /// Particles created.
    pub emitted: u32,
    /// Candidates dropped by the global burst share or the distance-limited rate.
    pub dropped_candidates: u32,
    /// Candidates refused at the hard cap.
    pub refused_at_cap: u32,
    /// Particles discarded for a position beyond 1e6 m or non-finite.
    pub discarded_out_of_range: u32,
    /// Particles that died of age.
    pub died: u32,
    /// Live particles after the step.
    pub live: u32,
    /// The global burst share after the step (1 without a budget).
    pub burst_share: f32,
}

/// The reference simulation: sources, their particles, the budget.
#[derive(Debug)]
pub struct Simulation {
    cfg: SimConfig,
    sources: Vec<SourceState>,
    next_id: u32,
    wind: Vec3,
    camera: Option<Camera>,
    frame: u64,
    budget: Option<Budget>,
    last_stats: FrameStats,
}

impl Simulation {
    /// An empty simulation.
    pub fn new(cfg: SimConfig) -> Self {
        Simulation {
            cfg,
            sources: Vec::new(),
            next_id: 0,
            wind: Vec3::ZERO,
            camera: None,
            frame: 0,
            budget: cfg.max_particles.map(Budget::new),
            last_stats: FrameStats::default(),
        }
    }

    /// The configuration it was created with.
    pub fn config(&self) -> SimConfig {
        self.cfg
    }

    /// Adds a source; it bursts on the next [`Simulation::step`].
    pub fn add_source(&mut self, desc: SourceDesc) -> SourceId {
        let id = SourceId(self.next_id);
        self.next_id = match self.next_id.checked_add(1) {
            Some(n) if n != FRAME_STREAM => n,
            _ => source_ids_exhausted(),
        };
        self.sources.push(SourceState::new(id, desc));
        id
    }

    /// Moves a source's object. Returns false for an unknown id.
    pub fn set_source_transform(&mut self, id: SourceId, position: Vec3, rotation: Quat) -> bool {
        self.source_mut(id)
            .map(|s| {
                s.pos = position;
                s.rot = rotation;
            })
            .is_some()
    }

    /// Replaces a source's system, as a new PSYS block for the same object does
    /// (`LLViewerPartSourceScript::unpackPSS` unpacks it into the existing source): the source
    /// keeps its clocks, rotation and serials, the next bursts use the new system, and particles
    /// already in flight keep the template values they were born with (colours, sizes, glow,
    /// acceleration, lifetime, flags, blend). Returns false for an unknown id.
    pub fn set_system(&mut self, id: SourceId, sys: PartSysData) -> bool {
        self.source_mut(id).map(|s| s.set_system(sys)).is_some()
    }

    /// Sets (or clears) the target position. Returns false for an unknown id.
    pub fn set_target_position(&mut self, id: SourceId, target: Option<Vec3>) -> bool {
        self.source_mut(id).map(|s| s.target = target).is_some()
    }

    /// Stops a source (as a null particle block does): no more bursts; its particles live out
    /// their lives around its last position, then it is forgotten. Returns false for an unknown id.
    pub fn remove_source(&mut self, id: SourceId) -> bool {
        self.source_mut(id)
            .map(|s| {
                s.emitting = false;
                s.removed = true;
            })
            .is_some()
    }

    /// Sets the region wind, m/s. One uniform vector stands in for the viewer's wind field.
    pub fn set_wind(&mut self, wind: Vec3) {
        self.wind = wind;
    }

    /// Sets (or clears) the camera. With a camera, bursts are distance-throttled as in the viewer
    /// (`LLViewerPartSourceScript::update`); without one (the default) they are not.
    pub fn set_camera(&mut self, camera: Option<Camera>) {
        self.camera = camera;
    }

    /// Advances one frame of `frame_dt` seconds (clamped to [`MAX_STEP_DT_S`]).
    pub fn step(&mut self, frame_dt: f32) -> FrameStats {
        let dt = if frame_dt.is_finite() { frame_dt.clamp(0.0, MAX_STEP_DT_S) } else { 0.0 };
        let mut stats = FrameStats { frame: self.frame, dt, ..FrameStats::default() };
        let ctx = emit::EmitCtx {
            seed: self.cfg.seed,
            dt,
            camera: self.camera,
            ref_rate: self.budget.map_or(INITIAL_REF_RATE, |b| b.ref_rate),
        };
        let emitted = match self.budget {
            None => self
                .sources
                .par_iter_mut()
                .map(|s| emit::update_source(s, &ctx, &mut Unlimited))
                .reduce(emit::EmitStats::default, emit::EmitStats::merged),
            Some(budget) => self.emit_with_budget(&ctx, budget),
        };
        emitted.add_to(&mut stats);
        let wind = self.wind;
        let updated = self
            .sources
            .par_iter_mut()
            .map(|s| update::update_source_particles(s, dt, wind))
            .reduce(update::UpdateStats::default, update::UpdateStats::merged);
        stats.died = updated.died;
        stats.discarded_out_of_range += updated.discarded;
        self.sources.retain(|s| !(s.removed && s.particles.is_empty()));
        stats.live = self.live_count() as u32;
        stats.burst_share = match self.budget.as_mut() {
            Some(b) => {
                b.end_frame(self.frame, stats.live);
                b.share
            }
            None => 1.0,
        };
        self.frame += 1;
        self.last_stats = stats;
        stats
    }

    /// Emission under a budget: sequential, in the viewer's random start order and direction.
    fn emit_with_budget(&mut self, ctx: &emit::EmitCtx, budget: Budget) -> emit::EmitStats {
        let mut gate =
            BudgetGate { live: self.live_count() as u32, max_count: budget.max_count, share: budget.share };
        let mut total = emit::EmitStats::default();
        let n = self.sources.len();
        if n == 0 {
            return total;
        }
        for i in budget_source_order(self.cfg.seed, self.frame, n) {
            total = total.merged(emit::update_source(&mut self.sources[i], ctx, &mut gate));
        }
        total
    }

    /// Every live particle, source by source (ascending id), oldest first within a source.
    pub fn particles(&self) -> impl Iterator<Item = &Particle> {
        self.sources.iter().flat_map(|s| s.particles.iter())
    }

    /// The live particles of one source, oldest first (empty for an unknown id).
    pub fn source_particles(&self, id: SourceId) -> &[Particle] {
        self.source_ref(id).map_or(&[], |s| s.particles.as_slice())
    }

    /// A view of one source, or `None` once it is unknown or removed and empty.
    pub fn source(&self, id: SourceId) -> Option<SourceView<'_>> {
        self.source_ref(id).map(SourceState::view)
    }

    /// Views of every source still held, ascending id.
    pub fn sources(&self) -> impl Iterator<Item = SourceView<'_>> {
        self.sources.iter().map(SourceState::view)
    }

    /// Number of live particles.
    pub fn live_count(&self) -> usize {
        self.sources.iter().map(|s| s.particles.len()).sum()
    }

    /// Statistics of the last step (all zero before the first).
    pub fn frame_stats(&self) -> FrameStats {
        self.last_stats
    }

    /// The global burst share (1 without a budget).
    pub fn burst_share(&self) -> f32 {
        self.budget.map_or(1.0, |b| b.share)
    }

    fn index_of(&self, id: SourceId) -> Option<usize> {
        self.sources.binary_search_by_key(&id, |s| s.id).ok()
    }

    fn source_ref(&self, id: SourceId) -> Option<&SourceState> {
        self.index_of(id).map(|i| &self.sources[i])
    }

    fn source_mut(&mut self, id: SourceId) -> Option<&mut SourceState> {
        self.index_of(id).map(move |i| &mut self.sources[i])
    }
}

/// Programmer error: more than 2^32 - 1 sources were created in one simulation.
#[cold]
fn source_ids_exhausted() -> ! {
    panic!("particles::sim: source ids exhausted (2^32 - 1 sources created)")
}

/// The order in which `n` sources emit under a budget on frame `frame` (the viewer starts at a
/// random source and walks in a random direction, so that sources share the budget fairly): a
/// hashed start index and direction from the per-frame stream of `seed`.
pub fn budget_source_order(seed: u64, frame: u64, n: usize) -> impl Iterator<Item = usize> {
    let draws = rng::Stream::new(seed, FRAME_STREAM, frame as u32);
    let start = if n == 0 { 0 } else { (draws.u(FRAME_DRAW_START, n as f32) as usize).min(n - 1) };
    let backwards = draws.unit(FRAME_DRAW_DIRECTION) > HALF;
    (0..n).map(move |k| if backwards { (start + n - k) % n } else { (start + k) % n })
}
