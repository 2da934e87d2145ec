//! What a particle system looks like as a whole effect: size, speed, life, population, packing.
//!
//! Definitions (this project's, chosen to match how a person judges the effect; viewer semantics
//! from the viewer's `LLViewerPartSourceScript::update` and `LLViewerPartGroup::updateParticles`):
//!
//! * **Size** ([`Measures::size_m`]): the time-averaged geometric mean `sqrt(x * y)` of the
//!   particle's scale over its life. With `INTERP_SCALE` the scale goes linearly from start to end
//!   (`updateParticles`), otherwise it stays at start. The average is a 4-point Gauss-Legendre
//!   quadrature over the normalised age, exact when x and y are proportional.
//! * **Speed** ([`Measures::speed_m_per_s`]): the RMS over the particle's life of `|v0 + a t|`,
//!   plus wind drift. DROP, unknown patterns and ANGLE_CONE_EMPTY emit at rest whatever the speed
//!   rules say (`LLViewerPartSourceScript`); other patterns draw the speed uniformly in [min, max], so
//!   `E|v0|^2 = (min^2 + min max + max^2) / 3`. The emission direction is taken as uncorrelated
//!   with the acceleration (the object's rotation is unknown here), so the RMS is
//!   `sqrt(E|v0|^2 + |a|^2 L^2 / 3)`. With `WIND` the velocity relaxes toward the region wind at
//!   0.1/s (`updateParticles`); the drift `w (1 - e^(-0.1 t))` for a wind of
//!   [`TYPICAL_REGION_WIND_M_PER_S`] is added in quadrature (its RMS over the life). A slowly
//!   rising smoke plume is therefore slow; a spark shower or a falling rain sheet is fast.
//! * **Sizes per second** ([`Measures::sizes_per_s`]): how many of its own sizes a particle moves
//!   each second *as seen*: the mean over the particle's life of `speed(t) / size(t)` at the same
//!   age, weighted by how much of the picture the particle is at that age, `alpha(t) size(t)^2`
//!   (4-point Gauss-Legendre over the normalised age; `speed(t)` is the RMS over emission
//!   directions of `|v0 + a t|` with the wind drift at that age). A plume whose puffs grow while
//!   buoyancy speeds them up, and fade out as they go, moves about one of its sizes a second all its
//!   life; dividing the RMS speed (dominated by the fast, faded end of life) by the mean size (small
//!   early puffs included) read it as half again faster. What a person judges as a streak is the
//!   motion of what they see.
//! * **Life** ([`Measures::life_s`]): the particle max age, shortened to the source's remaining
//!   life (`max_age - start_age`) when the source is mortal: a source that dies quickly is a
//!   short-lived effect.
//! * **Alive**: the live count when the simulation knows it, otherwise the steady-state estimate
//!   `emitted per second * min(particle life, source life)`, capped at `RenderMaxPartCount`.
//!   Bursts happen at most once per frame (the viewer's burst timer drops its remainder), taken at
//!   [`REFERENCE_FRAME_RATE_HZ`].
//! * **Cloud** ([`Cloud`]): the particles fill a capsule. Its radius is the emission radius plus
//!   the mean *spread* travel (the direction-random part of the emission speed: all of it for
//!   EXPLODE, `sin(max angle)` of it for ANGLE patterns; at least half a particle); its length is
//!   the *common* travel over a life (the cone axis part `|cos(mean angle)|` of the emission speed,
//!   the acceleration `a L^2 / 2` and the wind drift `w (L - (1 - e^(-kL)) / k)`, in quadrature,
//!   since their directions are unknown). The legacy INNER/OUTER tilt is ignored.
//! * **Packing**: the spacing between neighbours is `cbrt(volume / alive estimate)`
//!   ([`Measures::spacing_m()`]). The overlap ([`Measures::overlap`]) is how many billboards a typical
//!   line of sight through the cloud crosses: total billboard area over the cloud's mean projected
//!   area (Cauchy: surface / 4), `alive size^2 / (S / 4)`, which is `(size / spacing)^2` times the
//!   cloud depth in spacings. It is size against spacing, weighted by how deep the cloud is; and it
//!   is taken *as seen*: at each age `t` the particles up to that age (`rate t`, at most the alive
//!   estimate) in the capsule they have filled by then, sized as at `t`, at least the whole
//!   cloud's figure, averaged over the ages with the weights of the sizes per second
//!   (`alpha(t) size(t)^2`). A spray from a point is dense near its source, where its puffs are
//!   young and opaque, and sparse far out, where they have faded; spreading them evenly through
//!   the whole capsule read such smoke as a few scattered sprites. A still cloud, every age
//!   filling the same capsule, keeps the whole cloud's figure.

use glam::Vec3;
use particles::types::{PartFlags, PartSysData, PatternKind};
use settings::Settings;

use super::SystemContext;

/// Region wind assumed for `WIND` particles, m/s: a light breeze (Second Life region wind rarely
/// exceeds a few m/s near the ground).
pub const TYPICAL_REGION_WIND_M_PER_S: f32 = 1.0;

/// Rate at which a `WIND` particle's velocity relaxes toward the wind, 1/s (`updateParticles`).
pub const WIND_RELAX_PER_S: f32 = 0.1;

/// `1 /` [`WIND_RELAX_PER_S`], seconds (a multiplication where the drift is summed per age).
const WIND_RELAX_TIME_S: f32 = 1.0 / WIND_RELAX_PER_S;

/// Frame rate at which burst timing is judged, Hz: bursts happen at most once per frame.
pub const REFERENCE_FRAME_RATE_HZ: f32 = 60.0;

/// Gauss-Legendre nodes on [0, 1] (4 points) for averages over the normalised age.
const GL_NODES: [f32; 4] = [0.069_431_84, 0.330_009_5, 0.669_990_5, 0.930_568_16];

/// Gauss-Legendre weights matching [`GL_NODES`] (sum 1).
const GL_WEIGHTS: [f32; 4] = [0.173_927_42, 0.326_072_58, 0.326_072_58, 0.173_927_42];

/// Rec. 709 luma weights for linear RGB.
const LUMA: Vec3 = Vec3::new(0.2126, 0.7152, 0.0722);

/// The measured effect, all in SI units. See the module docs for the definitions.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Measures {
    /// Time-averaged geometric-mean particle size, metres.
    pub size_m: f32,
    /// RMS particle speed over its life including wind drift, m/s.
    pub speed_m_per_s: f32,
    /// Particle max age, seconds.
    pub particle_life_s: f32,
    /// Remaining source life, seconds; infinite for a source that lives forever.
    pub source_life_s: f32,
    /// Effect life: the particle life, shortened to the source life, seconds.
    pub life_s: f32,
    /// Particles emitted per second.
    pub emitted_per_s: f32,
    /// Steady-state alive estimate from the descriptor alone.
    pub alive_estimate: f32,
    /// Particles alive as used by the `alive` factor: the live count when known, else the estimate.
    pub alive: f32,
    /// Cloud volume per particle (alive estimate), cubic metres; see [`Measures::spacing_m`].
    pub volume_per_particle_m3: f32,
    /// Billboards crossed by a typical line of sight through the cloud where its particles are
    /// seen (dimensionless; module docs, "Packing").
    pub overlap: f32,
    /// Particle alpha averaged over life, times the texture's mean alpha when known.
    pub alpha: f32,
    /// Own sizes travelled per second as seen, 1/s (infinite for a zero size): what tells a drift
    /// from a streak (module docs, "Sizes per second").
    pub sizes_per_s: f32,
    /// Luminance of the particle colour averaged over life (Rec. 709, 0..1).
    pub luminance: f32,
    /// Largest glow, start or end, 0..1.
    pub glow: f32,
}

impl Measures {
    /// Typical distance between neighbouring particles, metres: the cube root of the volume per
    /// particle (computed on demand: the score does not need it).
    pub fn spacing_m(&self) -> f32 {
        self.volume_per_particle_m3.cbrt()
    }
}

/// Measures a system (see the module docs for each definition).
pub fn measure(sys: &PartSysData, ctx: &SystemContext, settings: &Settings) -> Measures {
    let part = &sys.part;
    let particle_life_s = finite_or_zero(part.max_age).max(0.0);
    let source_life_s = source_life_s(sys);
    let life_s = particle_life_s.min(source_life_s);
    let sizes = node_sizes_m(sys);
    let size_m = mean_size_of(sys, &sizes);
    let speed_m_per_s = rms_speed_m_per_s(sys, particle_life_s);
    let emitted_per_s = emitted_per_s(sys);
    let cap = settings.max_part_count.max(0) as f32;
    let alive_estimate = (emitted_per_s * life_s).min(cap);
    let alive = ctx.live_count.map_or(alive_estimate, |n| n as f32);
    let growth = Growth::of(sys);
    let cloud = growth.at(particle_life_s, size_m, growth.drift_m(particle_life_s));
    let volume_per_particle_m3 = if alive_estimate >= 1.0 {
        finite_or_zero(cloud.volume_m3() / alive_estimate)
    } else {
        f32::INFINITY
    };
    let projected = cloud.mean_projected_area_m2();
    let cloud_overlap = if projected > 0.0 { alive_estimate * size_m * size_m / projected } else { 0.0 };
    let packing =
        Packing { growth: &growth, rate_per_s: emitted_per_s, alive: alive_estimate, cloud_overlap };
    let seen = seen_over_life(sys, &sizes, particle_life_s, &packing);
    let interp = part.flags.contains(PartFlags::INTERP_COLOR);
    let colour = if interp { (part.start_color + part.end_color) * 0.5 } else { part.start_color };
    let texture_alpha = ctx.texture.map_or(1.0, |t| t.mean_alpha.clamp(0.0, 1.0));
    Measures {
        size_m,
        speed_m_per_s,
        particle_life_s,
        source_life_s,
        life_s,
        emitted_per_s,
        alive_estimate,
        alive,
        volume_per_particle_m3,
        overlap: seen.overlap,
        sizes_per_s: seen.sizes_per_s,
        alpha: finite_or(colour.w, 1.0).clamp(0.0, 1.0) * texture_alpha,
        luminance: finite_or_zero(colour.truncate().clamp(Vec3::ZERO, Vec3::ONE).dot(LUMA)),
        glow: finite_or(part.start_glow, 1.0).max(finite_or(part.end_glow, 1.0)).max(0.0),
    }
}

/// Remaining life of the source in seconds; infinite when it lives forever (`max_age` 0).
pub fn source_life_s(sys: &PartSysData) -> f32 {
    let max_age = finite_or_zero(sys.max_age);
    if max_age <= 0.0 {
        f32::INFINITY
    } else {
        (max_age - finite_or_zero(sys.start_age)).max(0.0)
    }
}

/// Time-averaged geometric mean `sqrt(x * y)` of the particle scale over its life, metres.
pub fn mean_size_m(sys: &PartSysData) -> f32 {
    mean_size_of(sys, &node_sizes_m(sys))
}

/// The geometric-mean size `sqrt(x y)` at each of [`GL_NODES`], metres (unchecked: NaN or infinite
/// where the scale is).
fn node_sizes_m(sys: &PartSysData) -> [f32; 4] {
    let part = &sys.part;
    let start = part.start_scale.abs();
    if !part.flags.contains(PartFlags::INTERP_SCALE) {
        return [(start.x * start.y).sqrt(); 4];
    }
    let end = part.end_scale.abs();
    GL_NODES.map(|f| {
        let s = start.lerp(end, f);
        (s.x * s.y).sqrt()
    })
}

/// [`mean_size_m`] from the node sizes: the start size without `INTERP_SCALE`, else the
/// quadrature; 0 when unreadable.
fn mean_size_of(sys: &PartSysData, sizes: &[f32; 4]) -> f32 {
    if !sys.part.flags.contains(PartFlags::INTERP_SCALE) {
        return finite_or_zero(sizes[0]);
    }
    finite_or_zero(sizes.iter().zip(GL_WEIGHTS).map(|(s, w)| w * s).sum())
}

/// RMS emission speed, m/s: 0 for DROP-like patterns, else `sqrt((min^2 + min max + max^2) / 3)`.
pub fn emission_rms_m_per_s(sys: &PartSysData) -> f32 {
    match sys.pattern_kind() {
        PatternKind::Drop => 0.0,
        _ => {
            let (a, b) = (sys.burst_speed_min.abs(), sys.burst_speed_max.abs());
            finite_or(((a * a + a * b + b * b) / 3.0).sqrt(), f32::INFINITY)
        }
    }
}

/// RMS speed over the particle's life `life_s`, with wind drift when `WIND` is set, m/s.
pub fn rms_speed_m_per_s(sys: &PartSysData, life_s: f32) -> f32 {
    let v0 = emission_rms_m_per_s(sys);
    let accel_sq = sys.part_accel.length_squared() * life_s * life_s / 3.0;
    let wind_sq = if sys.part.flags.contains(PartFlags::WIND) {
        let w = TYPICAL_REGION_WIND_M_PER_S;
        w * w * wind_drift_mean_square(life_s)
    } else {
        0.0
    };
    finite_or((v0 * v0 + accel_sq + wind_sq).sqrt(), f32::INFINITY)
}

/// Own sizes travelled per second as seen over a life of `life_s` (module docs, "Sizes per
/// second"): `sum w alpha s v / sum w alpha s^2` over the Gauss-Legendre nodes, which is the
/// visibility-weighted mean of `v / s` without dividing by a size that may be 0. A system that is
/// invisible throughout is weighted by size alone; a zero size throughout moves infinitely many
/// sizes per second.
pub fn seen_sizes_per_s(sys: &PartSysData, life_s: f32) -> f32 {
    let packing = Packing { growth: &Growth::of(sys), rate_per_s: 0.0, alive: 0.0, cloud_overlap: 0.0 };
    seen_over_life(sys, &node_sizes_m(sys), life_s, &packing).sizes_per_s
}

/// What is seen over a life (module docs, "Sizes per second" and "Packing").
struct Seen {
    sizes_per_s: f32,
    overlap: f32,
}

/// The packing of one age: the particles up to age `t` (`rate t` of them, at most `alive`) in the
/// cloud they have filled, sized as at that age; at least the whole cloud's `cloud_overlap`.
struct Packing<'a> {
    growth: &'a Growth,
    rate_per_s: f32,
    alive: f32,
    cloud_overlap: f32,
}

impl Packing<'_> {
    fn overlap_at(&self, t_s: f32, size_m: f32, drift_m: f32) -> f32 {
        let g = self.growth;
        let radius = (g.radius_m + g.spread_m_per_s * t_s).max(0.5 * size_m);
        let (emitted, accelerated) = (g.common_m_per_s * t_s, g.half_accel_m_per_s2 * t_s * t_s);
        let half_length = 0.5 * (emitted * emitted + accelerated * accelerated + drift_m * drift_m).sqrt();
        let area = std::f32::consts::PI * radius * (half_length + radius);
        let young = (self.rate_per_s * t_s).min(self.alive) * size_m * size_m / area;
        // `max` takes the whole cloud's figure when `young` is NaN (no particle, no area).
        young.max(self.cloud_overlap)
    }
}

/// Sizes per second and overlap as seen: each age weighted by `alpha s^2` (by `s^2` alone for a
/// system invisible throughout).
fn seen_over_life(sys: &PartSysData, sizes: &[f32; 4], life_s: f32, packing: &Packing) -> Seen {
    let part = &sys.part;
    let v0 = emission_rms_m_per_s(sys);
    let (still_sq, accel_sq) = (v0 * v0, sys.part_accel.length_squared());
    let wind = part.flags.contains(PartFlags::WIND);
    let a0 = finite_or(part.start_color.w, 1.0).clamp(0.0, 1.0);
    let fade = part.flags.contains(PartFlags::INTERP_COLOR);
    let a1 = if fade { finite_or(part.end_color.w, 1.0).clamp(0.0, 1.0) } else { a0 };
    let (mut seen, mut any) = ([0.0f32; 3], [0.0f32; 3]);
    for i in 0..GL_NODES.len() {
        let (f, g) = (GL_NODES[i], GL_WEIGHTS[i]);
        let t = f * life_s;
        let e = if wind { (-WIND_RELAX_PER_S * t).exp() } else { 1.0 };
        let drift = TYPICAL_REGION_WIND_M_PER_S * (1.0 - e);
        let speed = (still_sq + accel_sq * t * t + drift * drift).sqrt();
        let size = finite_or_zero(sizes[i]);
        let drift_m = if wind { drift_distance_m(t, e) } else { 0.0 };
        let terms = [size * speed, size * size, size * size * packing.overlap_at(t, size, drift_m)];
        let alpha = a0 + (a1 - a0) * f;
        for k in 0..3 {
            any[k] += g * terms[k];
            seen[k] += g * alpha * terms[k];
        }
    }
    let w = if seen[1] > 0.0 { seen } else { any };
    let sizes_per_s = w[0] / w[1];
    Seen {
        sizes_per_s: if sizes_per_s.is_finite() { sizes_per_s } else { f32::INFINITY },
        overlap: finite_or(w[2] / w[1], packing.cloud_overlap),
    }
}

/// Mean over `[0, life]` of `(1 - e^(-k t))^2` with `k` = [`WIND_RELAX_PER_S`]: the fraction of the
/// wind speed (squared) a `WIND` particle has picked up, on average over its life.
pub fn wind_drift_mean_square(life_s: f32) -> f32 {
    let x = WIND_RELAX_PER_S * life_s;
    if x <= 1e-4 {
        return 0.0;
    }
    let e = (-x).exp();
    1.0 - 2.0 * (1.0 - e) / x + (1.0 - e * e) / (2.0 * x)
}

/// Particles emitted per second: `count / burst_rate`, with at most one burst per frame.
pub fn emitted_per_s(sys: &PartSysData) -> f32 {
    let rate_s = finite_or_zero(sys.burst_rate).max(1.0 / REFERENCE_FRAME_RATE_HZ);
    f32::from(sys.burst_part_count) / rate_s
}

/// The region a system's particles fill: a capsule (module docs, "Cloud").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cloud {
    /// Capsule radius, metres.
    pub radius_m: f32,
    /// Capsule length (between the end caps), metres.
    pub length_m: f32,
}

impl Cloud {
    /// The cloud of a system whose particles have mean size `size_m` and live `life_s`.
    pub fn of(sys: &PartSysData, size_m: f32, life_s: f32) -> Cloud {
        let growth = Growth::of(sys);
        growth.at(life_s, size_m, growth.drift_m(life_s))
    }

    /// Capsule volume, cubic metres.
    pub fn volume_m3(&self) -> f32 {
        let (r, l) = (self.radius_m, self.length_m);
        std::f32::consts::PI * r * r * (l + 4.0 / 3.0 * r)
    }

    /// Mean projected area over all view directions (a quarter of the surface, Cauchy), m^2.
    pub fn mean_projected_area_m2(&self) -> f32 {
        let (r, l) = (self.radius_m, self.length_m);
        std::f32::consts::PI * r * (0.5 * l + r)
    }
}

/// How the cloud grows with the age of its oldest particles (module docs, "Cloud"): the emission
/// radius, the spread and common parts of the emission speed, half the acceleration.
#[derive(Debug, Clone, Copy)]
struct Growth {
    radius_m: f32,
    spread_m_per_s: f32,
    common_m_per_s: f32,
    half_accel_m_per_s2: f32,
    wind: bool,
}

impl Growth {
    fn of(sys: &PartSysData) -> Growth {
        let (common, spread, radius) = match sys.pattern_kind() {
            PatternKind::Drop => (0.0, 0.0, 0.0),
            PatternKind::Explode => (0.0, 1.0, sys.burst_radius),
            PatternKind::Angle | PatternKind::AngleCone => {
                let (a, b) = (sys.inner_angle.abs(), sys.outer_angle.abs());
                let hi = a.max(b).min(std::f32::consts::PI);
                let mid = 0.5 * (a.min(b) + hi);
                (mid.cos().abs(), hi.min(std::f32::consts::FRAC_PI_2).sin(), sys.burst_radius)
            }
        };
        let v0 = emission_rms_m_per_s(sys);
        Growth {
            radius_m: finite_or_zero(radius).abs(),
            spread_m_per_s: 0.5 * spread * v0,
            common_m_per_s: common * v0,
            half_accel_m_per_s2: 0.5 * sys.part_accel.length(),
            wind: sys.part.flags.contains(PartFlags::WIND),
        }
    }

    /// Wind drift by age `t_s`, metres (0 without `WIND`).
    fn drift_m(&self, t_s: f32) -> f32 {
        if self.wind {
            drift_distance_m(t_s, (-WIND_RELAX_PER_S * t_s).exp())
        } else {
            0.0
        }
    }

    /// The capsule holding the particles up to age `t_s`, of size `size_m`, `drift_m` the wind
    /// drift by then.
    fn at(&self, t_s: f32, size_m: f32, drift_m: f32) -> Cloud {
        let radius_m = (self.radius_m + self.spread_m_per_s * t_s).max(0.5 * size_m);
        let emitted = self.common_m_per_s * t_s;
        let accelerated = self.half_accel_m_per_s2 * t_s * t_s;
        let length_m = (emitted * emitted + accelerated * accelerated + drift_m * drift_m).sqrt();
        Cloud { radius_m: finite_or_zero(radius_m), length_m: finite_or_zero(length_m) }
    }
}

/// Distance a `WIND` particle has drifted by age `t_s`, metres, given `e = e^(-k t)`:
/// `w (t - (1 - e) / k)`.
fn drift_distance_m(t_s: f32, e: f32) -> f32 {
    TYPICAL_REGION_WIND_M_PER_S * (t_s - (1.0 - e) * WIND_RELAX_TIME_S)
}

/// `x`, or `fallback` when it is NaN or infinite. Fallbacks are conservative: an unreadable speed is
/// infinitely fast, an unreadable alpha opaque, an unreadable glow full.
fn finite_or(x: f32, fallback: f32) -> f32 {
    if x.is_finite() {
        x
    } else {
        fallback
    }
}

/// `x`, or 0 when it is NaN or infinite (descriptors come from outside): an unreadable size is too
/// small, an unreadable life too short.
fn finite_or_zero(x: f32) -> f32 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}
