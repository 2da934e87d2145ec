//! CPU-side scheduling for the GPU particle simulation: per source, per frame, which bursts happen
//! and with which constants. No per-particle work happens here; the GPU draws every random number
//! itself from the same counter-based streams as [`crate::sim`] ([`crate::sim::rng`]).
//!
//! [`SourceClock`] mirrors the reference's source update (`LLViewerPartSourceScript::update` in
//! the viewer's `llviewerpartsource.cpp`; the code in `sim/emit.rs`) without a
//! budget or a camera: `elapsed += dt`, `pending = elapsed - last_emit`; the source stops when
//! `max_age != 0` and `start_age + elapsed + pending > max_age`; `pending` is capped at
//! `max(1 s, 10 * burst_rate)`; bursts repeat while `pending > burst_rate` (strictly), or once on
//! the first update; each burst first advances the omega rotation `R` by `|omega| * dt` (frame
//! `dt`), then emits `burst_part_count` candidates with consecutive serials, sets
//! `last_emit = elapsed` and subtracts one `burst_rate` (the remainder is discarded at the next
//! burst). FOLLOW_SRC and TARGET_LINEAR zero the burst radius after the source's first candidate,
//! which [`Burst::first_radius_m`] carries.
//!
//! [`BurstScheduler`] runs every source's clock in one frame with the reference's budget and
//! distance throttle (`sim/budget.rs`, `sim/throttle.rs`): with a budget, sources go in the
//! viewer's hashed start order and direction ([`crate::sim::budget_source_order`]); before each
//! burst a source stops for the frame when the live count is above `RenderMaxPartCount`, or when
//! distance throttling skips it; otherwise each candidate is later dropped on the GPU with
//! probability `max(1 - share, throttle)` from the same hashed draw as the reference. The share
//! and the adaptive reference rate move every 16 frames from the live count the GPU reports
//! ([`BurstScheduler::end_frame`]).
//!
//! One approximation: the CPU does not see which candidates the GPU drops, so the limit test
//! counts this frame's earlier candidates as if all were kept (the reference counts the kept
//! ones). It can only stop a source earlier than the reference, and only within a frame in
//! which the live count is already near the limit.

use glam::Quat;

use crate::sim::{
    budget_source_order, burst_throttle, Budget, Camera, SourceDesc, Throttle, INITIAL_REF_RATE,
    MAX_STEP_DT_S, MIN_BURST_RATE_S,
};
use crate::types::{PartFlags, PartSysData};

/// `pending` never exceeds `max(this, 10 * burst_rate)`, seconds (as in the reference).
const MIN_PENDING_CAP_S: f32 = 1.0;
/// `pending` never exceeds `max(1 s, this * burst_rate)`.
const PENDING_CAP_BURSTS: f32 = 10.0;

/// Most bursts one source can start in one frame: `pending <= dt + burst_rate` after a burst
/// frame, with `dt <= 0.1 s` and `burst_rate >= 0.01 s`, allows 11; one more for rounding.
pub const MAX_BURSTS_PER_SOURCE_FRAME: usize = 12;

/// The reference's frame step: `min(frame_dt, 0.1 s)`; negative or non-finite times count as 0.
pub fn step_dt(frame_dt: f32) -> f32 {
    if frame_dt.is_finite() {
        frame_dt.clamp(0.0, MAX_STEP_DT_S)
    } else {
        0.0
    }
}

/// One burst of one source in one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Burst {
    /// Serial of its first candidate; the others follow consecutively.
    pub serial_base: u32,
    /// Candidates (`burst_part_count`).
    pub count: u32,
    /// The omega rotation `R` after this burst's advance.
    pub omega_rot: Quat,
    /// Emission radius of the first candidate, metres.
    pub first_radius_m: f32,
    /// Emission radius of the other candidates, metres.
    pub radius_m: f32,
    /// Each candidate is dropped with at least this probability (distance throttling).
    pub drop_at_least: f32,
}

/// What the budget and the distance throttle allow before a burst.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BurstGate {
    /// No more bursts this frame (above the particle limit, or throttled away).
    Stop,
    /// Burst, each candidate dropped with at least this probability.
    Emit(f32),
}

/// The burst clock of one source (the reference's `elapsed` / `last_emit` / `R` / serial state).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourceClock {
    /// Seconds since the source was created.
    pub elapsed: f32,
    /// `elapsed` at the last burst.
    pub last_emit: f32,
    /// The omega rotation `R`.
    pub omega_rot: Quat,
    /// False once the source died of old age or was stopped.
    pub emitting: bool,
    /// Serial of the next candidate.
    pub next_serial: u32,
    /// The current burst radius (zeroed after the first candidate by FOLLOW_SRC/TARGET_LINEAR).
    pub radius_m: f32,
    /// The burst rate, floored at [`MIN_BURST_RATE_S`], seconds.
    pub burst_rate_s: f32,
}

impl SourceClock {
    /// A fresh clock for `sys` (clocks at zero, `R` = identity).
    pub fn new(sys: &PartSysData) -> Self {
        SourceClock {
            elapsed: 0.0,
            last_emit: 0.0,
            omega_rot: Quat::IDENTITY,
            emitting: true,
            next_serial: 0,
            radius_m: sys.burst_radius,
            burst_rate_s: sys.burst_rate.max(MIN_BURST_RATE_S),
        }
    }

    /// Advances one frame of clamped step `dt` ([`step_dt`]) with no budget and no camera, and
    /// appends this frame's bursts to `out`.
    pub fn step(&mut self, sys: &PartSysData, dt: f32, out: &mut Vec<Burst>) {
        self.step_gated(sys, dt, &mut |_| BurstGate::Emit(0.0), out);
    }

    /// As [`SourceClock::step`], asking `gate` (with the burst's candidate count) before each
    /// burst, after the omega advance, as the reference's loop does.
    pub fn step_gated(
        &mut self,
        sys: &PartSysData,
        dt: f32,
        gate: &mut impl FnMut(u32) -> BurstGate,
        out: &mut Vec<Burst>,
    ) {
        let before = self.elapsed;
        self.elapsed += dt;
        if !self.emitting {
            return;
        }
        let mut pending = self.elapsed - self.last_emit;
        if sys.max_age != 0.0 && sys.start_age + self.elapsed + pending > sys.max_age {
            self.emitting = false;
            return;
        }
        let rate = self.burst_rate_s;
        pending = pending.min(MIN_PENDING_CAP_S.max(PENDING_CAP_BURSTS * rate));
        let mut first = before <= 0.0;
        while pending > rate || first {
            first = false;
            self.advance_omega(sys, dt);
            let BurstGate::Emit(drop_at_least) = gate(u32::from(sys.burst_part_count)) else {
                self.last_emit = self.elapsed;
                break;
            };
            out.push(Burst { drop_at_least, ..self.burst(sys) });
            self.last_emit = self.elapsed;
            pending -= rate;
        }
    }

    /// The next burst's constants; consumes its serials and applies the radius zeroing.
    fn burst(&mut self, sys: &PartSysData) -> Burst {
        let count = u32::from(sys.burst_part_count);
        let first_radius_m = self.radius_m;
        if count > 0 && sys.part.flags.intersects(PartFlags::FOLLOW_SRC | PartFlags::TARGET_LINEAR) {
            self.radius_m = 0.0;
        }
        let burst = Burst {
            serial_base: self.next_serial,
            count,
            omega_rot: self.omega_rot,
            first_radius_m,
            radius_m: self.radius_m,
            drop_at_least: 0.0,
        };
        self.next_serial = self.next_serial.wrapping_add(count);
        burst
    }

    /// `R := R * rotation(|omega| * dt about omega)`, or identity when omega is zero.
    fn advance_omega(&mut self, sys: &PartSysData, dt: f32) {
        let omega = sys.angular_velocity;
        let mag = omega.length();
        self.omega_rot = if mag != 0.0 {
            (Quat::from_axis_angle(omega / mag, mag * dt) * self.omega_rot).normalize()
        } else {
            Quat::IDENTITY
        };
    }
}

/// One source as the scheduler keeps it: its description and its clock.
#[derive(Clone, Copy, Debug)]
pub struct ScheduledSource {
    /// What the source emits, where.
    pub desc: SourceDesc,
    /// Its burst clock.
    pub clock: SourceClock,
    /// Its random stream: its number in order of addition (the reference's source id).
    pub stream: u32,
    /// `clock.elapsed` when it was removed.
    pub removed_at_s: Option<f32>,
    /// The longest particle lifetime of any system it had (particles in flight keep the
    /// lifetime they were born with when [`ScheduledSource::set_system`] changes it), seconds.
    pub longest_life_s: f32,
}

impl ScheduledSource {
    /// A fresh source drawing from random stream `stream` (the burst rate floored at
    /// [`MIN_BURST_RATE_S`], as the reference does).
    pub fn new(desc: SourceDesc, stream: u32) -> Self {
        let mut desc = desc;
        desc.sys.burst_rate = desc.sys.burst_rate.max(MIN_BURST_RATE_S);
        let longest_life_s = desc.sys.part.max_age;
        ScheduledSource {
            clock: SourceClock::new(&desc.sys),
            desc,
            stream,
            removed_at_s: None,
            longest_life_s,
        }
    }

    /// Takes `sys` for the next bursts, as the reference's `Simulation::set_system` does: the
    /// clock (elapsed time, last burst, `R`, serials) is kept; the burst rate (floored) and the
    /// burst radius come from the new system. Particles in flight keep their template values
    /// (the GPU copies them at birth).
    pub fn set_system(&mut self, sys: PartSysData) {
        self.desc.sys = sys;
        self.desc.sys.burst_rate = sys.burst_rate.max(MIN_BURST_RATE_S);
        self.clock.burst_rate_s = self.desc.sys.burst_rate;
        self.clock.radius_m = sys.burst_radius;
        self.longest_life_s = self.longest_life_s.max(sys.part.max_age);
    }

    /// Stops its bursts and forgets its object; its particles live out their lives.
    pub fn remove(&mut self) {
        self.clock.emitting = false;
        self.removed_at_s.get_or_insert(self.clock.elapsed);
    }

    /// False once the source object was removed (its particles live on without it).
    pub fn object_present(&self) -> bool {
        self.removed_at_s.is_none()
    }

    /// True once it was removed and every particle it made has outlived its lifetime (with one
    /// clamped step of margin): its slot may take a new source.
    pub fn is_finished(&self) -> bool {
        self.removed_at_s.is_some_and(|at| self.clock.elapsed - at > self.longest_life_s + MAX_STEP_DT_S)
    }
}

/// What one frame of scheduling produced.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Schedule {
    /// Bursts scheduled.
    pub bursts: u32,
    /// Candidates scheduled.
    pub candidates: u32,
    /// Bursts stopped by the particle limit or by distance throttling.
    pub bursts_stopped: u32,
    /// The burst share every candidate is kept with (1 without a budget).
    pub share: f32,
}

/// The per-frame CPU half of the GPU particle path: clocks, budget, throttle (module docs).
#[derive(Clone, Debug)]
pub struct BurstScheduler {
    seed: u64,
    budget: Option<Budget>,
    camera: Option<Camera>,
    frame: u64,
    live: u32,
}

impl BurstScheduler {
    /// A scheduler without a budget or a camera; `seed` is the simulation seed.
    pub fn new(seed: u64) -> Self {
        BurstScheduler { seed, budget: None, camera: None, frame: 0, live: 0 }
    }

    /// Sets the particle limit (`min(RenderMaxPartCount, 8192)`), keeping the share and reference
    /// rate learnt so far; `None` removes the budget (no share, no limit).
    pub fn set_max_count(&mut self, max_count: Option<u32>) {
        self.budget = match (max_count, self.budget) {
            (None, _) => None,
            (Some(n), Some(b)) => Some(Budget { max_count: Budget::new(n).max_count, ..b }),
            (Some(n), None) => Some(Budget::new(n)),
        };
    }

    /// Sets (or clears) the camera for distance throttling.
    pub fn set_camera(&mut self, camera: Option<Camera>) {
        self.camera = camera;
    }

    /// The share candidates are kept with this frame (1 without a budget).
    pub fn share(&self) -> f32 {
        self.budget.map_or(1.0, |b| b.share)
    }

    /// Advances every source by the clamped step `dt` and appends `(source index, burst)` pairs in
    /// the order their candidates are numbered.
    pub fn schedule(
        &mut self,
        sources: &mut [ScheduledSource],
        dt: f32,
        out: &mut Vec<(u32, Burst)>,
    ) -> Schedule {
        let mut plan = Schedule { share: self.share(), ..Schedule::default() };
        let ref_rate = self.budget.map_or(INITIAL_REF_RATE, |b| b.ref_rate);
        let limit = self.budget.map(|b| b.max_count);
        let mut scratch = Vec::new();
        let order: Vec<usize> = match self.budget {
            Some(_) => budget_source_order(self.seed, self.frame, sources.len()).collect(),
            None => (0..sources.len()).collect(),
        };
        let mut pending_live = self.live;
        let mut stopped = 0;
        for i in order {
            let src = &mut sources[i];
            let (sys, position, camera) = (src.desc.sys, src.desc.position, self.camera);
            let mut gate = |count: u32| {
                if limit.is_some_and(|max| pending_live > max) {
                    stopped += 1;
                    return BurstGate::Stop;
                }
                match burst_throttle(&sys, position, camera.as_ref(), ref_rate) {
                    Throttle::Skip => {
                        stopped += 1;
                        BurstGate::Stop
                    }
                    Throttle::DropAtLeast(p) => {
                        pending_live = pending_live.saturating_add(count);
                        BurstGate::Emit(p)
                    }
                }
            };
            scratch.clear();
            src.clock.step_gated(&sys, dt, &mut gate, &mut scratch);
            for b in &scratch {
                plan.bursts += 1;
                plan.candidates += b.count;
                out.push((i as u32, *b));
            }
        }
        plan.bursts_stopped = stopped;
        plan
    }

    /// Ends the frame with the live count the GPU reported after its update: the budget's share and
    /// reference rate move every 16 frames, as in the reference.
    pub fn end_frame(&mut self, live: u32) {
        if let Some(b) = self.budget.as_mut() {
            b.end_frame(self.frame, live);
        }
        self.live = live;
        self.frame += 1;
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::sim::{SimConfig, Simulation, SourceDesc};
    use crate::types::pattern;

    /// A burst rate and a frame step that binary floats hold exactly: with them the first update
    /// bursts, frames 1 and 2 wait (pending 0.0625 and 0.125, not above the rate), frame 3 bursts.
    const RATE: f32 = 0.125;
    const DT: f32 = 0.0625;

    fn sys(rate: f32, count: u8, max_age: f32) -> PartSysData {
        let mut s = PartSysData { burst_rate: rate, burst_part_count: count, max_age, ..Default::default() };
        s.part.max_age = 0.35;
        s
    }

    fn desc(sys: PartSysData) -> SourceDesc {
        SourceDesc {
            sys,
            position: Vec3::new(10.0, 20.0, 30.0),
            rotation: Quat::IDENTITY,
            target_position: None,
            hud: false,
        }
    }

    /// The clock's bursts and candidates equal the reference's, frame by frame.
    fn assert_matches_reference(s: PartSysData, dts: &[f32]) {
        let mut sim = Simulation::new(SimConfig { seed: 3, max_particles: None });
        sim.add_source(desc(s));
        let mut clock = SourceClock::new(&s);
        for (frame, &frame_dt) in dts.iter().enumerate() {
            let stats = sim.step(frame_dt);
            let mut bursts = Vec::new();
            clock.step(&s, step_dt(frame_dt), &mut bursts);
            assert_eq!(bursts.len() as u32, stats.bursts, "frame {frame} bursts");
            let candidates: u32 = bursts.iter().map(|b| b.count).sum();
            assert_eq!(candidates, stats.emitted, "frame {frame} candidates");
        }
    }

    #[test]
    fn burst_counts_match_the_reference_for_several_rates() {
        let dts: Vec<f32> = (0..40).map(|i| [0.016, 0.033, 0.05, 0.2, 0.007][i % 5]).collect();
        for (rate, count) in [(0.0, 3), (0.01, 2), (0.05, 4), (0.1, 1), (0.37, 7)] {
            assert_matches_reference(sys(rate, count, 0.0), &dts);
        }
    }

    #[test]
    fn a_source_max_age_stops_bursts_as_in_the_reference() {
        let dts = [0.05f32; 30];
        assert_matches_reference(sys(0.05, 2, 0.6), &dts);
        let mut clock = SourceClock::new(&sys(0.05, 2, 0.6));
        let mut bursts = Vec::new();
        for _ in 0..30 {
            clock.step(&sys(0.05, 2, 0.6), 0.05, &mut bursts);
        }
        // The source dies once 2 * elapsed > 0.6 s (pending equals elapsed minus the last burst).
        assert!(!clock.emitting);
        assert!(bursts.len() < 12, "{} bursts after the source's max age", bursts.len());
    }

    #[test]
    fn a_fast_source_bursts_several_times_per_frame_with_consecutive_serials() {
        let s = sys(0.01, 5, 0.0);
        let mut clock = SourceClock::new(&s);
        let mut bursts = Vec::new();
        clock.step(&s, 0.05, &mut bursts);
        // First update: pending 0.05 > 0.01 four times (0.05, 0.04, 0.03, 0.02 in exact
        // arithmetic; float rounding may leave the last at 0.01 + ulp): 4 or 5 bursts.
        assert!((4..=5).contains(&bursts.len()), "{}", bursts.len());
        for (k, b) in bursts.iter().enumerate() {
            assert_eq!(b.serial_base, 5 * k as u32);
        }
        assert!(bursts.len() <= MAX_BURSTS_PER_SOURCE_FRAME);
    }

    #[test]
    fn follow_src_zeroes_the_radius_after_the_first_candidate() {
        let mut s = sys(RATE, 3, 0.0);
        s.burst_radius = 2.0;
        s.part.flags = PartFlags(PartFlags::FOLLOW_SRC);
        let mut clock = SourceClock::new(&s);
        let mut bursts = Vec::new();
        for _ in 0..4 {
            clock.step(&s, DT, &mut bursts);
        }
        assert_eq!(bursts.len(), 2);
        assert_eq!((bursts[0].first_radius_m, bursts[0].radius_m), (2.0, 0.0));
        assert_eq!((bursts[1].first_radius_m, bursts[1].radius_m), (0.0, 0.0));
        s.part.flags = PartFlags(0);
        let mut plain = SourceClock::new(&s);
        let mut b = Vec::new();
        for _ in 0..4 {
            plain.step(&s, DT, &mut b);
        }
        assert_eq!(b.len(), 2);
        assert!(b.iter().all(|b| b.first_radius_m == 2.0 && b.radius_m == 2.0));
    }

    #[test]
    fn omega_advances_per_burst_by_the_frame_step() {
        let mut s = sys(RATE, 1, 0.0);
        s.pattern = pattern::ANGLE;
        s.angular_velocity = Vec3::new(0.0, 0.0, 2.0);
        let mut clock = SourceClock::new(&s);
        let mut bursts = Vec::new();
        for _ in 0..4 {
            clock.step(&s, DT, &mut bursts);
        }
        // Each burst advances R by |omega| * dt = 0.125 rad about +Z.
        assert_eq!(bursts.len(), 2);
        let (axis, angle) = bursts[1].omega_rot.to_axis_angle();
        assert!((angle - 0.25).abs() < 1e-5 && (axis - Vec3::Z).length() < 1e-5, "{axis} {angle}");
    }

    #[test]
    fn step_dt_clamps_like_the_reference() {
        assert_eq!(step_dt(0.5), MAX_STEP_DT_S);
        assert_eq!(step_dt(-1.0), 0.0);
        assert_eq!(step_dt(f32::NAN), 0.0);
        assert_eq!(step_dt(0.02), 0.02);
    }

    fn scheduled(sys: PartSysData, x: f32) -> ScheduledSource {
        let mut d = desc(sys);
        d.position = Vec3::new(x, 0.0, 0.0);
        ScheduledSource::new(d, 0)
    }

    #[test]
    fn the_scheduler_skips_and_thins_bursts_by_distance_as_the_reference() {
        let camera = Camera { position: Vec3::ZERO, pixels_per_metre: 100.0 };
        let mut s = sys(0.05, 5, 0.0);
        s.part.start_scale = glam::Vec2::splat(0.5);
        s.part.end_scale = glam::Vec2::splat(0.5);
        s.part.max_age = 10.0;
        // Visible to 50 m: 40 m untouched, 80 m thinned (travel 30 * 0.0625 = 1.875 s of 10 s),
        // 250 m skipped.
        let mut sources = [scheduled(s, 40.0), scheduled(s, 80.0), scheduled(s, 250.0)];
        let mut sim = Simulation::new(SimConfig { seed: 3, max_particles: None });
        for src in &sources {
            sim.add_source(src.desc);
        }
        sim.set_camera(Some(camera));
        let mut scheduler = BurstScheduler::new(3);
        scheduler.set_camera(Some(camera));
        for frame in 0..20 {
            let mut out = Vec::new();
            let plan = scheduler.schedule(&mut sources, DT, &mut out);
            let stats = sim.step(DT);
            assert_eq!(plan.bursts, stats.bursts, "frame {frame}");
            assert_eq!(plan.bursts_stopped, stats.bursts_skipped_by_distance, "frame {frame}");
            assert!(out.iter().all(|(i, _)| *i != 2), "the far source never bursts");
            for (i, b) in &out {
                let expected = if *i == 1 { 1.875 / 10.0 } else { 0.0 };
                assert!((b.drop_at_least - expected).abs() < 1e-6, "source {i}: {}", b.drop_at_least);
            }
            scheduler.end_frame(stats.live);
        }
    }

    #[test]
    fn a_budget_starts_at_half_share_and_a_new_limit_keeps_what_was_learnt() {
        let mut scheduler = BurstScheduler::new(0);
        assert_eq!(scheduler.share(), 1.0, "no budget keeps every candidate");
        scheduler.set_max_count(Some(4096));
        assert_eq!(scheduler.share(), crate::sim::INITIAL_BURST_SHARE);
        scheduler.end_frame(10);
        let learnt = scheduler.share();
        assert!(learnt > crate::sim::INITIAL_BURST_SHARE);
        scheduler.set_max_count(Some(100_000));
        assert_eq!(scheduler.share(), learnt, "changing RenderMaxPartCount keeps the share");
        scheduler.set_max_count(None);
        assert_eq!(scheduler.share(), 1.0);
    }

    #[test]
    fn above_the_limit_a_source_stops_bursting_for_the_frame() {
        let s = sys(0.01, 10, 0.0);
        let mut sources = [scheduled(s, 0.0), scheduled(s, 1.0)];
        let mut scheduler = BurstScheduler::new(0);
        scheduler.set_max_count(Some(100));
        let mut out = Vec::new();
        scheduler.schedule(&mut sources, DT, &mut out);
        scheduler.end_frame(101);
        out.clear();
        let plan = scheduler.schedule(&mut sources, DT, &mut out);
        assert!(out.is_empty() && plan.bursts_stopped == 2, "{out:?}");
    }

    #[test]
    fn a_source_is_not_finished_while_particles_of_an_earlier_longer_lived_system_may_live() {
        let mut long = sys(RATE, 1, 0.0);
        long.part.max_age = 2.0;
        let mut short = long;
        short.part.max_age = 0.25;
        let mut s = scheduled(long, 0.0);
        s.set_system(short);
        s.remove();
        let mut bursts = Vec::new();
        // One second after removal: past the short lifetime, not past the long one.
        for _ in 0..16 {
            s.clock.step(&s.desc.sys, DT, &mut bursts);
        }
        assert!(!s.is_finished(), "particles born under the 2 s system may still be in flight");
        for _ in 0..32 {
            s.clock.step(&s.desc.sys, DT, &mut bursts);
        }
        assert!(s.is_finished());
    }

    #[test]
    fn bursts_after_a_system_change_match_the_reference() {
        let first = sys(RATE, 2, 0.0);
        let mut second = sys(0.0, 5, 0.0);
        second.burst_radius = 1.5;
        second.part.flags = PartFlags(PartFlags::FOLLOW_SRC);
        let mut sim = Simulation::new(SimConfig { seed: 3, max_particles: None });
        let id = sim.add_source(desc(first));
        let mut s = ScheduledSource::new(desc(first), 0);
        for frame in 0..12 {
            if frame == 5 {
                assert!(sim.set_system(id, second));
                s.set_system(second);
            }
            let stats = sim.step(DT);
            let mut bursts = Vec::new();
            s.clock.step(&s.desc.sys, DT, &mut bursts);
            let candidates: u32 = bursts.iter().map(|b| b.count).sum();
            assert_eq!(candidates, stats.emitted, "frame {frame} candidates");
            let serials: Vec<u32> = sim.source_particles(id).iter().map(|p| p.serial).collect();
            assert_eq!(serials.last().map(|l| l + 1).unwrap_or(0), s.clock.next_serial, "frame {frame}");
        }
    }
}
