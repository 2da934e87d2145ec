//! Source update and particle creation (`LLViewerPartSourceScript::update`, `llviewerpartsource.cpp`).
//!
//! Per frame: `elapsed += dt`, `pending = elapsed - last_emit`; the source dies (stops bursting)
//! when `max_age != 0` and `start_age + elapsed + pending > max_age`; `pending` is capped at
//! `max(1 s, 10 * burst_rate)`; then the loop runs while `pending > burst_rate` (strictly), or once
//! unconditionally on the first update (`elapsed` was 0 before it). Each burst first advances the
//! omega rotation `R` by `|omega| * dt` (the FRAME `dt`) about omega, or resets it to identity when
//! omega is zero, then (budget permitting) emits `burst_part_count` candidates, sets
//! `last_emit = elapsed` and subtracts one `burst_rate`: any fractional remainder is discarded at
//! the next burst, so bursts snap to whole frames.
//!
//! Candidate `serial` of source `id` draws from [`Stream`]`(seed, id, serial)` at fixed indices
//! ([`DRAW_SHARE`] ...). Directions: DROP and unknown patterns none; EXPLODE rejection-samples the
//! cube `[-1,1)^3` until `0.01 <= |d|^2 <= 1` and normalises (not rotated); ANGLE / ANGLE_CONE take
//! `theta = inner + u(outer - inner)`, negated with probability 1/2, rotate +Z by theta about +X,
//! spin by `u(4 pi)` about +Z for the cone, tilt by `outer` about +X when USE_NEW_ANGLE is clear,
//! then apply the object rotation Q and the omega rotation R.

use glam::{Quat, Vec3};

use super::budget::EmitGate;
use super::rng::Stream;
use super::throttle::{burst_throttle, Camera, Throttle};
use super::{Particle, SourceDesc, SourceId, SourceView};
use crate::types::{PartFlags, PartSysData, PatternKind, SysFlags};

/// Draw index: the burst-share drop test.
pub const DRAW_SHARE: u32 = 0;
/// Draw index: the speed `u(max - min)`.
pub const DRAW_SPEED: u32 = 1;
/// Draw index: the polar angle `u(outer - inner)`.
pub const DRAW_ANGLE: u32 = 2;
/// Draw index: the side (negate theta when below 1/2).
pub const DRAW_SIDE: u32 = 3;
/// Draw index: the cone azimuth `u(4 pi)`.
pub const DRAW_AZIMUTH: u32 = 4;
/// First draw index of EXPLODE's rejection sampling; try `k` uses this + 3k, +1, +2 for x, y, z.
pub const DRAW_EXPLODE_FIRST: u32 = 5;
/// EXPLODE tries before giving up and using +Z (acceptance is about 52 %, so never in practice).
pub const EXPLODE_MAX_TRIES: u32 = 64;
/// Smallest accepted `|d|^2` of an EXPLODE sample (the viewer's 0.01).
const EXPLODE_MIN_LEN_SQ: f32 = 0.01;
/// The viewer's floor on the burst rate, seconds (applied by its decoder).
pub const MIN_BURST_RATE_S: f32 = 0.01;
/// `pending` never exceeds `max(this, 10 * burst_rate)`, seconds.
const MIN_PENDING_CAP_S: f32 = 1.0;
/// `pending` never exceeds `max(1 s, this * burst_rate)`.
const PENDING_CAP_BURSTS: f32 = 10.0;
/// The cone azimuth spans `u(4 pi)` in the viewer (twice round the circle).
const CONE_AZIMUTH_SPAN_RAD: f32 = 4.0 * std::f32::consts::PI;
/// Probability split of the side draw.
const HALF: f32 = 0.5;
/// Positions beyond this distance from the region origin are discarded, metres.
pub const MAX_POSITION_M: f32 = 1.0e6;

/// What every source sees during one frame's emission.
pub(crate) struct EmitCtx {
    /// The simulation seed.
    pub seed: u64,
    /// The clamped frame step, seconds.
    pub dt: f32,
    /// The camera for distance throttling, if any.
    pub camera: Option<Camera>,
    /// The adaptive reference rate of distance throttling.
    pub ref_rate: f32,
}

/// Emission counters, summed over sources.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EmitStats {
    pub bursts: u32,
    pub skipped_by_distance: u32,
    pub emitted: u32,
    pub dropped_candidates: u32,
    pub refused_at_cap: u32,
    pub discarded: u32,
}

impl EmitStats {
    /// The sum of two sets of counters.
    pub fn merged(self, o: EmitStats) -> EmitStats {
        EmitStats {
            bursts: self.bursts + o.bursts,
            skipped_by_distance: self.skipped_by_distance + o.skipped_by_distance,
            emitted: self.emitted + o.emitted,
            dropped_candidates: self.dropped_candidates + o.dropped_candidates,
            refused_at_cap: self.refused_at_cap + o.refused_at_cap,
            discarded: self.discarded + o.discarded,
        }
    }

    /// Copies the counters into the frame statistics.
    pub fn add_to(self, s: &mut super::FrameStats) {
        s.bursts += self.bursts;
        s.bursts_skipped_by_distance += self.skipped_by_distance;
        s.emitted += self.emitted;
        s.dropped_candidates += self.dropped_candidates;
        s.refused_at_cap += self.refused_at_cap;
        s.discarded_out_of_range += self.discarded;
    }
}

/// One source and its particles (`LLViewerPartSourceScript` plus its particles).
#[derive(Clone, Debug)]
pub(crate) struct SourceState {
    pub id: SourceId,
    /// The system; `burst_radius` is zeroed by FOLLOW_SRC / TARGET_LINEAR.
    pub sys: PartSysData,
    pub pos: Vec3,
    pub rot: Quat,
    pub target: Option<Vec3>,
    pub hud: bool,
    /// Seconds since the source was created (`mLastUpdateTime`).
    pub elapsed: f32,
    /// `elapsed` at the last burst (`mLastPartTime`).
    pub last_emit: f32,
    /// The omega rotation `R`.
    pub omega_rot: Quat,
    pub emitting: bool,
    pub removed: bool,
    /// Serial of the next candidate.
    pub next_serial: u32,
    /// Serial of the newest particle still alive (`mLastPart`).
    pub last_part: Option<u32>,
    /// Live particles in ascending serial order.
    pub particles: Vec<Particle>,
}

impl SourceState {
    /// A fresh source (clocks at zero, R = identity).
    pub fn new(id: SourceId, desc: SourceDesc) -> Self {
        let mut sys = desc.sys;
        sys.burst_rate = sys.burst_rate.max(MIN_BURST_RATE_S);
        SourceState {
            id,
            sys,
            pos: desc.position,
            rot: desc.rotation,
            target: desc.target_position,
            hud: desc.hud,
            elapsed: 0.0,
            last_emit: 0.0,
            omega_rot: Quat::IDENTITY,
            emitting: true,
            removed: false,
            next_serial: 0,
            last_part: None,
            particles: Vec::new(),
        }
    }

    /// Takes `sys` for the next bursts (the burst rate floored as in [`SourceState::new`]);
    /// clocks, serials and particles are kept.
    pub fn set_system(&mut self, sys: PartSysData) {
        self.sys = sys;
        self.sys.burst_rate = sys.burst_rate.max(MIN_BURST_RATE_S);
    }

    /// The public view.
    pub fn view(&self) -> SourceView<'_> {
        SourceView {
            id: self.id,
            sys: &self.sys,
            position: self.pos,
            rotation: self.rot,
            target_position: self.target.unwrap_or(self.pos),
            emitting: self.emitting,
            particles: &self.particles,
        }
    }
}

/// One frame of one source: clocks, death, and the burst loop.
pub(crate) fn update_source(src: &mut SourceState, ctx: &EmitCtx, gate: &mut impl EmitGate) -> EmitStats {
    let mut stats = EmitStats::default();
    let before = src.elapsed;
    src.elapsed += ctx.dt;
    if !src.emitting {
        return stats;
    }
    let mut pending = src.elapsed - src.last_emit;
    let sys = &src.sys;
    if sys.max_age != 0.0 && sys.start_age + src.elapsed + pending > sys.max_age {
        src.emitting = false;
        return stats;
    }
    let rate = src.sys.burst_rate;
    pending = pending.min(MIN_PENDING_CAP_S.max(PENDING_CAP_BURSTS * rate));
    let mut first = before <= 0.0;
    while pending > rate || first {
        first = false;
        advance_omega(src, ctx.dt);
        if gate.above_limit() {
            src.last_emit = src.elapsed;
            break;
        }
        let limited = match burst_throttle(&src.sys, src.pos, ctx.camera.as_ref(), ctx.ref_rate) {
            Throttle::Skip => {
                stats.skipped_by_distance += 1;
                src.last_emit = src.elapsed;
                break;
            }
            Throttle::DropAtLeast(probability) => probability,
        };
        stats.bursts += 1;
        for _ in 0..src.sys.burst_part_count {
            emit_candidate(src, ctx.seed, limited, gate, &mut stats);
        }
        src.last_emit = src.elapsed;
        pending -= rate;
    }
    stats
}

/// `R := R * rotation(|omega| * dt about omega)`, or identity when omega is zero.
fn advance_omega(src: &mut SourceState, dt: f32) {
    let omega = src.sys.angular_velocity;
    let mag = omega.length();
    src.omega_rot = if mag != 0.0 {
        (Quat::from_axis_angle(omega / mag, mag * dt) * src.omega_rot).normalize()
    } else {
        Quat::IDENTITY
    };
}

/// One candidate: share test, pattern, range check, hard cap, ribbon link.
fn emit_candidate(
    src: &mut SourceState,
    seed: u64,
    limited: f32,
    gate: &mut impl EmitGate,
    stats: &mut EmitStats,
) {
    let serial = src.next_serial;
    src.next_serial = src.next_serial.wrapping_add(1);
    let draws = Stream::new(seed, src.id.0, serial);
    if !gate.keep_candidate(draws.unit(DRAW_SHARE), limited) {
        stats.dropped_candidates += 1;
        return;
    }
    let sys = &src.sys;
    let dir = emission_direction(sys, &draws, src.rot, src.omega_rot);
    let (pos, vel) = match dir {
        None => (src.pos, Vec3::ZERO),
        Some(d) => {
            let speed = sys.burst_speed_min + draws.u(DRAW_SPEED, sys.burst_speed_max - sys.burst_speed_min);
            (src.pos + sys.burst_radius * d, d * speed)
        }
    };
    if sys.part.flags.intersects(PartFlags::FOLLOW_SRC | PartFlags::TARGET_LINEAR) {
        src.sys.burst_radius = 0.0;
    }
    if !position_in_range(pos) {
        stats.discarded += 1;
        return;
    }
    if !gate.admit() {
        stats.refused_at_cap += 1;
        return;
    }
    let mut p = new_particle(src, serial, pos, vel);
    super::ribbons::link_new(src, &mut p);
    src.particles.push(p);
    stats.emitted += 1;
}

/// The unit emission direction for `sys`'s pattern, or `None` for DROP-like patterns.
pub(crate) fn emission_direction(sys: &PartSysData, draws: &Stream, q: Quat, r: Quat) -> Option<Vec3> {
    match sys.pattern_kind() {
        PatternKind::Drop => None,
        PatternKind::Explode => Some(explode_direction(draws)),
        kind @ (PatternKind::Angle | PatternKind::AngleCone) => {
            let (inner, outer) = (sys.inner_angle, sys.outer_angle);
            let mut theta = inner + draws.u(DRAW_ANGLE, outer - inner);
            if draws.unit(DRAW_SIDE) < HALF {
                theta = -theta;
            }
            let mut d = Quat::from_rotation_x(theta) * Vec3::Z;
            if kind == PatternKind::AngleCone {
                d = Quat::from_rotation_z(draws.u(DRAW_AZIMUTH, CONE_AZIMUTH_SPAN_RAD)) * d;
            }
            if !sys.flags.contains(SysFlags::USE_NEW_ANGLE) {
                d = Quat::from_rotation_x(outer) * d;
            }
            Some(r * (q * d))
        }
    }
}

/// EXPLODE: rejection sampling in the cube until `0.01 <= |d|^2 <= 1`, normalised.
fn explode_direction(draws: &Stream) -> Vec3 {
    for k in 0..EXPLODE_MAX_TRIES {
        let i = DRAW_EXPLODE_FIRST + 3 * k;
        let d = Vec3::new(draws.u(i, 2.0) - 1.0, draws.u(i + 1, 2.0) - 1.0, draws.u(i + 2, 2.0) - 1.0);
        let len_sq = d.length_squared();
        if (EXPLODE_MIN_LEN_SQ..=1.0).contains(&len_sq) {
            return d / len_sq.sqrt();
        }
    }
    Vec3::Z
}

/// The viewer's `put` test: finite and within 1e6 m of the region origin.
pub(crate) fn position_in_range(pos: Vec3) -> bool {
    pos.is_finite() && pos.length_squared() <= MAX_POSITION_M * MAX_POSITION_M
}

/// A particle copied from the source's template (`LLViewerPart::init` and the creation code).
fn new_particle(src: &SourceState, serial: u32, pos: Vec3, vel: Vec3) -> Particle {
    let part = &src.sys.part;
    let mut flags = part.flags;
    if src.hud {
        flags.0 |= PartFlags::HUD;
    }
    Particle {
        source: src.id,
        serial,
        pos,
        vel,
        accel: src.sys.part_accel,
        axis: Vec3::ZERO,
        color: part.start_color,
        scale: part.start_scale,
        glow: part.start_glow,
        age: 0.0,
        max_age: part.max_age,
        flags,
        blend_func_source: part.blend_func_source,
        blend_func_dest: part.blend_func_dest,
        parent: None,
        child: None,
        start_color: part.start_color,
        end_color: part.end_color,
        start_scale: part.start_scale,
        end_scale: part.end_scale,
        start_glow: part.start_glow,
        end_glow: part.end_glow,
        offset: Vec3::ZERO,
    }
}
