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
//! * **Ballistic speed** ([`Measures::ballistic_speed_m_per_s`]): the same RMS with the
//!   acceleration's upward part left out: how fast a particle is thrown (the burst speed), blown
//!   (the wind) or pushed sideways and down (falling). Sparks, jets, bursts and rain are fast this
//!   way. Rising is how creators make smoke and steam buoyant: a plume launched at 0.5 m/s and
//!   pushed up at 1-3 m/s^2 reaches 8-15 m/s by the end of its life while its puffs grow to metres,
//!   and whether that looks fast depends on the puff's size (the sizes per second), not on an
//!   absolute speed. The acceleration is in region axes (`updateParticles`), so up is known.
//! * **Sizes per second** ([`Measures::sizes_per_s`]): how many of its own sizes a particle moves
//!   each second *as seen*: the mean over the particle's life of `speed(t) / size(t)` at the same
//!   age, weighted by how much of the picture the particle is at that age, `alpha(t) size(t)^2`
//!   (4-point Gauss-Legendre over the normalised age; `speed(t)` is the RMS over emission
//!   directions of `|v0 + a t|` with the wind drift at that age). A plume whose puffs grow while
//!   buoyancy speeds them up, and fade out as they go, moves about one of its sizes a second all its
//!   life; dividing the RMS speed (dominated by the fast, faded end of life) by the mean size (small
//!   early puffs included) read it as half again faster. What a person judges as a streak is the
//!   motion of what they see, so motion hidden in a continuous stream (below) does not count:
//!   each age's speed is taken times `1 - continuity(t)`. [`Measures::stream_continuity`] is the
//!   share of the seen motion so hidden.
//! * **Life** ([`Measures::life_s`]): the particle max age, shortened to the source's remaining
//!   life (`max_age - start_age`) when the source is mortal: a source that dies quickly is a
//!   short-lived effect.
//! * **Spreading** ([`Measures::spreading`]): how far the smoke of one moment spreads over a
//!   particle's life: the width of what the puffs emitted together cover when they die over the
//!   width at their birth. The width at age `t` is `2 (r + spread t) + s(t)`: the emission sphere
//!   (radius `r`) widened by the spread travel of the cloud ([`Cloud`]) plus a puff's size then.
//!   Smoke, steam and mist are aerosols that dilute into the air: a puff's material spreads over a
//!   growing region while its column density falls as `1 / spreading^2`, which is what the density
//!   bricks draw (mass conserved, the kernel growing while its peak drops). Flames burn out where
//!   they are and drops fall as drops; neither spreads.
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
//! * **Continuous streams**: a steady source refills the place its puffs move out of. Where the
//!   puffs of an age overlap the ones emitted before and after them, the picture there is a
//!   column standing still while the puffs slide through it (a smokestack's plume), and their
//!   motion is not seen; where they are apart, each puff is seen moving. At each age `t` the
//!   *layers* (puffs covering a point of the stream) are the smaller of two counts: the puffs of
//!   that age within a size-sided cube, `rate s^3 / V'(t)` (`V'` the growth of the young capsule's
//!   volume, `pi (2 r r' (l + 4/3 r) + r^2 (l' + 4/3 r'))`: the slice its puffs of age `t` sweep,
//!   `r'` the spread's rate), and the bursts covering it along the path, `s / (v(t) burst_rate)`
//!   (a burst every second leaves gaps between its slabs however many puffs it holds). The
//!   continuity is `smoothstep(1, 2, layers)` ([`STREAM_LAYERS_APART`],
//!   [`STREAM_LAYERS_CONTINUOUS`]): soft puffs one size apart are seen as separate puffs, half a
//!   size apart as one column. The speed is in the count, so a faster stream of the same rate is
//!   thinner: it cannot outrun its own continuity. The model assumes steady emission; a mortal
//!   source's column has a moving front and tail, and short sources are left to the life rules.
//!   A lone particle ([`seen_sizes_per_s`]) has no stream.

use glam::Vec3;
use particles::types::{PartFlags, PartSysData, PatternKind};
use settings::Settings;

use super::factors::smoothstep;
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

/// Puffs covering a point of the stream (module docs, "Continuous streams") at or below which
/// the puffs of an age are seen apart, and their whole motion counts. One layer is a chain of
/// puffs one size apart: a soft puff (a Gaussian of sigma about a quarter of its size,
/// `fog::kernel`'s width law for the usual mean alpha 0.35) spaced one size from the next gives
/// the chain's density a contrast of 65 % (`(max - min) / (max + min)`; about
/// `2 e^(-2 pi^2 k^2)` for `k` = 0.24): separate puffs, each seen moving (test:
/// `the_layer_limits_are_where_soft_puffs_part_and_where_they_merge`).
pub const STREAM_LAYERS_APART: f32 = 1.0;
/// Puffs covering a point of the stream at or above which the stream is continuous and none of
/// its motion is seen: spaced half a size apart, the same soft puffs give a contrast of 2.5 %, and
/// what is seen is a column standing still while the puffs slide through it.
pub const STREAM_LAYERS_CONTINUOUS: f32 = 2.0;

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
    /// RMS over the life of the speed a particle is thrown or falls with, m/s: the launch, the
    /// wind drift and the acceleration less its upward part (module docs, "Ballistic speed").
    pub ballistic_speed_m_per_s: f32,
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
    /// from a streak (module docs, "Sizes per second"). Motion hidden in a continuous stream does
    /// not count.
    pub sizes_per_s: f32,
    /// Share of the seen motion hidden in a continuous stream, 0..1 (module docs, "Continuous
    /// streams"): 0 for puffs apart all their life, 1 for a column that stands still.
    pub stream_continuity: f32,
    /// Width of what the puffs of one moment cover at the end of their life over the width at
    /// their birth (module docs, "Spreading"); 1 for puffs that neither grow nor spread apart.
    pub spreading: f32,
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
    let (speed_m_per_s, ballistic_speed_m_per_s) = rms_speeds_m_per_s(sys, particle_life_s);
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
    let packing = Packing {
        growth: &growth,
        rate_per_s: emitted_per_s,
        burst_interval_s: burst_interval_s(sys),
        alive: alive_estimate,
        cloud_overlap,
    };
    let seen = seen_over_life(sys, &sizes, particle_life_s, &packing);
    let spreading = growth.spreading(sys, particle_life_s);
    let interp = part.flags.contains(PartFlags::INTERP_COLOR);
    let colour = if interp { (part.start_color + part.end_color) * 0.5 } else { part.start_color };
    let texture_alpha = ctx.texture.map_or(1.0, |t| t.mean_alpha.clamp(0.0, 1.0));
    Measures {
        size_m,
        speed_m_per_s,
        ballistic_speed_m_per_s,
        particle_life_s,
        source_life_s,
        life_s,
        emitted_per_s,
        alive_estimate,
        alive,
        volume_per_particle_m3,
        overlap: seen.overlap,
        sizes_per_s: seen.sizes_per_s,
        stream_continuity: seen.stream_continuity,
        spreading,
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
    rms_speeds_m_per_s(sys, life_s).0
}

/// RMS over the life `life_s` of the speed a particle is thrown or falls with, m/s (module docs,
/// "Ballistic speed"): as [`rms_speed_m_per_s`] with the acceleration's upward part left out.
pub fn ballistic_rms_m_per_s(sys: &PartSysData, life_s: f32) -> f32 {
    rms_speeds_m_per_s(sys, life_s).1
}

/// The RMS speed and the ballistic RMS speed over the life `life_s`, m/s: launch and wind drift
/// are common to both; the ballistic one takes the acceleration less its upward part.
fn rms_speeds_m_per_s(sys: &PartSysData, life_s: f32) -> (f32, f32) {
    let v0 = emission_rms_m_per_s(sys);
    let wind_sq = if sys.part.flags.contains(PartFlags::WIND) {
        let w = TYPICAL_REGION_WIND_M_PER_S;
        w * w * wind_drift_mean_square(life_s)
    } else {
        0.0
    };
    let still_sq = v0 * v0 + wind_sq;
    let a = sys.part_accel;
    // `min` would drop a NaN upward part; a NaN anywhere keeps the speed unreadable.
    let falling = if a.z.is_nan() { a.z } else { a.z.min(0.0) };
    let (all_sq, thrown_sq) = (a.length_squared(), a.x * a.x + a.y * a.y + falling * falling);
    let per_accel_sq = life_s * life_s / 3.0;
    let rms = |accel_sq: f32| finite_or((still_sq + accel_sq * per_accel_sq).sqrt(), f32::INFINITY);
    (rms(all_sq), rms(thrown_sq))
}

/// Own sizes travelled per second as seen over a life of `life_s` by a lone particle, with no
/// stream around it (module docs, "Sizes per second"): `sum w alpha s v / sum w alpha s^2` over the
/// Gauss-Legendre nodes, which is the visibility-weighted mean of `v / s` without dividing by a size
/// that may be 0. A system that is invisible throughout is weighted by size alone; a zero size
/// throughout moves infinitely many sizes per second. [`Measures::sizes_per_s`] is this with the
/// motion hidden in a continuous stream taken out.
pub fn seen_sizes_per_s(sys: &PartSysData, life_s: f32) -> f32 {
    let packing = Packing {
        growth: &Growth::of(sys),
        rate_per_s: 0.0,
        burst_interval_s: f32::INFINITY,
        alive: 0.0,
        cloud_overlap: 0.0,
    };
    seen_over_life(sys, &node_sizes_m(sys), life_s, &packing).sizes_per_s
}

/// What is seen over a life (module docs, "Sizes per second", "Continuous streams" and "Packing").
struct Seen {
    sizes_per_s: f32,
    stream_continuity: f32,
    overlap: f32,
}

/// The emission as it fills the cloud: the particles up to age `t` (`rate t` of them, at most
/// `alive`) in the capsule they have filled, sized as at that age (for the overlap: at least the
/// whole cloud's `cloud_overlap`), and the particles of age `t` in the slice of it swept then (for
/// the stream's continuity).
struct Packing<'a> {
    growth: &'a Growth,
    rate_per_s: f32,
    burst_interval_s: f32,
    alive: f32,
    cloud_overlap: f32,
}

/// The capsule of the particles up to one age and how fast it grows then.
struct Young {
    radius_m: f32,
    length_m: f32,
    /// Growth of the radius, m/s: the spread's rate (also while the puff size sets the radius,
    /// which makes the swept slice larger and the stream thinner: the cautious side).
    radius_m_per_s: f32,
    /// `length * d(length)/dt`, m^2/s: `e e' + a a' + d d'` of the length's three parts (divided
    /// by the length only where the continuity needs it).
    length_rate_m2_per_s: f32,
}

impl Packing<'_> {
    /// The capsule at age `t_s` for puffs of `size_m`, `drift_m` and `drift_m_per_s` the wind drift
    /// and its speed by then.
    fn young_at(&self, t_s: f32, size_m: f32, drift_m: f32, drift_m_per_s: f32) -> Young {
        let g = self.growth;
        let radius_m = (g.radius_m + g.spread_m_per_s * t_s).max(0.5 * size_m);
        let (emitted, accelerated) = (g.common_m_per_s * t_s, g.half_accel_m_per_s2 * t_s * t_s);
        let length_m = (emitted * emitted + accelerated * accelerated + drift_m * drift_m).sqrt();
        let length_rate_m2_per_s = g.common_m_per_s * emitted
            + 2.0 * g.half_accel_m_per_s2 * t_s * accelerated
            + drift_m * drift_m_per_s;
        Young { radius_m, length_m, radius_m_per_s: g.spread_m_per_s, length_rate_m2_per_s }
    }

    /// Billboards crossed by a line of sight through the young capsule (module docs, "Packing").
    fn overlap_at(&self, young: &Young, t_s: f32, size_m: f32) -> f32 {
        let (r, half_length) = (young.radius_m, 0.5 * young.length_m);
        let area = std::f32::consts::PI * r * (half_length + r);
        let young_overlap = (self.rate_per_s * t_s).min(self.alive) * size_m * size_m / area;
        // `max` takes the whole cloud's figure when `young_overlap` is NaN (no particle, no area).
        young_overlap.max(self.cloud_overlap)
    }

    /// How continuous the stream is where its puffs of size `size_m` move at `speed_m_per_s`, 0
    /// (puffs apart) to 1 (a column standing still) (module docs, "Continuous streams"). The two
    /// counts are compared with the limits before dividing: most streams are clearly apart or
    /// clearly continuous.
    fn continuity_at(&self, young: &Young, size_m: f32, speed_m_per_s: f32) -> f32 {
        // Spacing of the bursts along the path; NaN fails every comparison below: apart.
        let gap_m = speed_m_per_s * self.burst_interval_s;
        if !(self.rate_per_s > 0.0 && speed_m_per_s > 0.0 && size_m > STREAM_LAYERS_APART * gap_m) {
            return 0.0;
        }
        // d/dt of the capsule volume pi r^2 (l + 4/3 r), the slice the puffs of this age sweep,
        // and the puff volume emitted per second, both times the length where there is one (so
        // that its rate `l' = length_rate / l` needs no division).
        let (r, l, dr) = (young.radius_m, young.length_m, young.radius_m_per_s);
        let (swept, cover) = if l > 0.0 {
            let l_dl = young.length_rate_m2_per_s;
            let swept = 2.0 * r * dr * (l + 4.0 / 3.0 * r) * l + r * r * (l_dl + 4.0 / 3.0 * dr * l);
            (std::f32::consts::PI * swept, self.rate_per_s * size_m * size_m * size_m * l)
        } else {
            (4.0 * std::f32::consts::PI * r * r * dr, self.rate_per_s * size_m * size_m * size_m)
        };
        if swept.is_nan() || cover <= STREAM_LAYERS_APART * swept {
            return 0.0;
        }
        if size_m >= STREAM_LAYERS_CONTINUOUS * gap_m && cover >= STREAM_LAYERS_CONTINUOUS * swept {
            return 1.0;
        }
        // The smaller of `size / gap` and `cover / swept`, with one division.
        let layers = if size_m * swept <= cover * gap_m { size_m / gap_m } else { cover / swept };
        smoothstep(STREAM_LAYERS_APART, STREAM_LAYERS_CONTINUOUS, layers)
    }
}

/// Sizes per second (less the motion hidden in a continuous stream), the share hidden, and the
/// overlap as seen: each age weighted by `alpha s^2` (by `s^2` alone for a system invisible
/// throughout).
fn seen_over_life(sys: &PartSysData, sizes: &[f32; 4], life_s: f32, packing: &Packing) -> Seen {
    let part = &sys.part;
    let v0 = emission_rms_m_per_s(sys);
    let (still_sq, accel_sq) = (v0 * v0, sys.part_accel.length_squared());
    let wind = part.flags.contains(PartFlags::WIND);
    let a0 = finite_or(part.start_color.w, 1.0).clamp(0.0, 1.0);
    let fade = part.flags.contains(PartFlags::INTERP_COLOR);
    let a1 = if fade { finite_or(part.end_color.w, 1.0).clamp(0.0, 1.0) } else { a0 };
    // Per age: the motion seen apart, the area, the area times the overlap, all the motion.
    let (mut seen, mut any) = ([0.0f32; 4], [0.0f32; 4]);
    for i in 0..GL_NODES.len() {
        let (f, g) = (GL_NODES[i], GL_WEIGHTS[i]);
        let t = f * life_s;
        let e = if wind { (-WIND_RELAX_PER_S * t).exp() } else { 1.0 };
        let drift = TYPICAL_REGION_WIND_M_PER_S * (1.0 - e);
        let speed = (still_sq + accel_sq * t * t + drift * drift).sqrt();
        let size = finite_or_zero(sizes[i]);
        let drift_m = if wind { drift_distance_m(t, e) } else { 0.0 };
        let young = packing.young_at(t, size, drift_m, drift);
        let motion = size * speed;
        let apart = 1.0 - packing.continuity_at(&young, size, speed);
        let terms = [motion * apart, size * size, size * size * packing.overlap_at(&young, t, size), motion];
        let alpha = a0 + (a1 - a0) * f;
        for k in 0..4 {
            any[k] += g * terms[k];
            seen[k] += g * alpha * terms[k];
        }
    }
    let w = if seen[1] > 0.0 { seen } else { any };
    let sizes_per_s = w[0] / w[1];
    let hidden = 1.0 - w[0] / w[3];
    Seen {
        sizes_per_s: if sizes_per_s.is_finite() { sizes_per_s } else { f32::INFINITY },
        stream_continuity: if hidden.is_finite() { hidden.clamp(0.0, 1.0) } else { 0.0 },
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
    f32::from(sys.burst_part_count) / burst_interval_s(sys)
}

/// Seconds between bursts: the burst rate, at least one frame at [`REFERENCE_FRAME_RATE_HZ`].
pub fn burst_interval_s(sys: &PartSysData) -> f32 {
    finite_or_zero(sys.burst_rate).max(1.0 / REFERENCE_FRAME_RATE_HZ)
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

    /// [`Measures::spreading`] over a particle life of `life_s`: the width `2 (r + spread t) + s`
    /// at death over the width at birth; 1 where neither is readable and positive, infinite for
    /// puffs born with no width that gain one.
    fn spreading(&self, sys: &PartSysData, life_s: f32) -> f32 {
        let part = &sys.part;
        let size = |v: glam::Vec2| finite_or_zero((v.x * v.y).abs().sqrt());
        let start = size(part.start_scale);
        let end = if part.flags.contains(PartFlags::INTERP_SCALE) { size(part.end_scale) } else { start };
        let born = 2.0 * self.radius_m + start;
        let dies = finite_or_zero(2.0 * (self.radius_m + self.spread_m_per_s * life_s) + end);
        if born > 0.0 {
            finite_or(dies / born, f32::INFINITY)
        } else if dies > 0.0 {
            f32::INFINITY
        } else {
            1.0
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
