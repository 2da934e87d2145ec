//! CPU-side scheduling for the GPU particle simulation: per source, per frame, which bursts happen
//! and with which constants. No per-particle work happens here; the GPU draws every random number
//! itself from the same counter-based streams as [`crate::sim`] ([`crate::sim::rng`]).
//!
//! [`SourceClock`] mirrors the reference's source update (`LLViewerPartSourceScript::update`,
//! reference `../shared/reference/sl-particles.md` 5.2; the code in `sim/emit.rs`) without a
//! budget or a camera: `elapsed += dt`, `pending = elapsed - last_emit`; the source stops when
//! `max_age != 0` and `start_age + elapsed + pending > max_age`; `pending` is capped at
//! `max(1 s, 10 * burst_rate)`; bursts repeat while `pending > burst_rate` (strictly), or once on
//! the first update; each burst first advances the omega rotation `R` by `|omega| * dt` (frame
//! `dt`), then emits `burst_part_count` candidates with consecutive serials, sets
//! `last_emit = elapsed` and subtracts one `burst_rate` (the remainder is discarded at the next
//! burst). FOLLOW_SRC and TARGET_LINEAR zero the burst radius after the source's first candidate,
//! which [`Burst::first_radius_m`] carries.
//!
//! Not modelled here (the GPU path's first version): the global burst share and distance
//! throttling, which the reference applies only with a budget or a camera.

use glam::Quat;

use crate::sim::{MAX_STEP_DT_S, MIN_BURST_RATE_S};
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

    /// Advances one frame of clamped step `dt` ([`step_dt`]) and appends this frame's bursts to
    /// `out`.
    pub fn step(&mut self, sys: &PartSysData, dt: f32, out: &mut Vec<Burst>) {
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
            out.push(self.burst(sys));
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
}
