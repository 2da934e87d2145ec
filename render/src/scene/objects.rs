//! Objects, lights and fog volumes: the shape or kind keyword picks which parameters apply; a
//! parameter of another shape or kind is an error at that parameter, a missing one an error at the
//! keyword.

use glam::{Vec2, Vec3};

use super::error::SceneError;
use super::model::{FogVolume, Light, LightKind, Object, Shape, Transform, VolumeShape};
use super::parse::{fov, Ctx, DEFAULT_FOG_ALBEDO, MAX_COORD_M};
use super::raw::{RawFogVolume, RawLight, RawObject, S};

/// Default object albedo, linear RGB.
const DEFAULT_ALBEDO: Vec3 = Vec3::new(0.6, 0.6, 0.6);
/// Default light intensity, candela-like.
const DEFAULT_LIGHT_INTENSITY: f32 = 10.0;
/// Default light range, m.
const DEFAULT_LIGHT_RANGE_M: f32 = 10.0;
/// Default spot inner half-angle, degrees.
const DEFAULT_SPOT_INNER_DEG: f32 = 20.0;
/// Default spot outer half-angle, degrees.
const DEFAULT_SPOT_OUTER_DEG: f32 = 30.0;
/// Largest spot outer half-angle, degrees (a hemisphere).
const MAX_SPOT_OUTER_DEG: f32 = 90.0;
/// Default projector field of view, degrees.
const DEFAULT_PROJECTOR_FOV_DEG: f32 = 45.0;
/// Second Life's projector focus range, both signs.
const MAX_PROJECTOR_FOCUS: f32 = 20.0;
/// |cos| above which a projector's up vector counts as parallel to its direction.
const PARALLEL_COS: f32 = 0.999;
/// Default samples per side of a procedural heightfield.
const DEFAULT_HEIGHTFIELD_RESOLUTION: u32 = 32;
/// Largest heightfield resolution accepted (samples per side), to bound memory.
pub const MAX_HEIGHTFIELD_RESOLUTION: u32 = 1024;
/// Default spatial frequency of a procedural heightfield, 1/m.
const DEFAULT_HEIGHTFIELD_FREQUENCY: f32 = 0.1;
/// Largest spatial frequency of a procedural heightfield, 1/m (one noise cell per millimetre;
/// far above it, positions times frequency overflow and every height is NaN).
const MAX_HEIGHTFIELD_FREQUENCY: f32 = 1000.0;

/// Every `[[object]]`.
pub(crate) fn objects(ctx: &Ctx<'_>, raw: &[RawObject]) -> Result<Vec<Object>, SceneError> {
    raw.iter()
        .enumerate()
        .map(|(i, o)| {
            Ok(Object {
                name: o.name.clone().unwrap_or_else(|| format!("object {i}")),
                shape: shape(ctx, o)?,
                transform: Transform {
                    position: ctx.v3_or(&o.position, Vec3::ZERO, "position")?,
                    rotation: ctx.rotation(&o.rotation, "rotation")?,
                    scale: positive_v3(ctx, &o.scale, "scale")?,
                },
                albedo: ctx.color_or(&o.albedo, DEFAULT_ALBEDO, "albedo")?,
                emissive: ctx.non_negative_v3_or(&o.emissive, Vec3::ZERO, "emissive")?,
            })
        })
        .collect()
}

fn positive_v3(ctx: &Ctx<'_>, v: &Option<super::raw::V3>, what: &str) -> Result<Vec3, SceneError> {
    let Some(v) = v else { return Ok(Vec3::ONE) };
    let s = ctx.v3(v, what)?;
    if s.cmpgt(Vec3::ZERO).all() {
        Ok(s)
    } else {
        Err(ctx.invalid(v.span(), format!("{what} components must be > 0")))
    }
}

/// Rejects each present parameter that the shape or kind `keyword` does not use.
fn reject_extra(
    ctx: &Ctx<'_>,
    keyword: &str,
    extra: &[(&str, Option<std::ops::Range<usize>>)],
) -> Result<(), SceneError> {
    match extra.iter().find_map(|(name, span)| span.clone().map(|s| (name, s))) {
        Some((name, span)) => Err(ctx.invalid(span, format!("`{name}` does not apply to {keyword:?}"))),
        None => Ok(()),
    }
}

fn span_of<T>(v: &Option<S<T>>) -> Option<std::ops::Range<usize>> {
    v.as_ref().map(S::span)
}

/// A required parameter, or an error at the keyword naming it.
fn need<'r, T>(
    ctx: &Ctx<'_>,
    v: &'r Option<S<T>>,
    keyword: &S<String>,
    name: &str,
) -> Result<&'r S<T>, SceneError> {
    v.as_ref().ok_or_else(|| ctx.invalid(keyword.span(), format!("{:?} needs `{name}`", keyword.get_ref())))
}

/// A size of exactly `N` positive extents.
fn size<const N: usize>(ctx: &Ctx<'_>, v: &S<Vec<f32>>) -> Result<[f32; N], SceneError> {
    let bad = || ctx.invalid(v.span(), format!("size must be {N} numbers in (0, {MAX_COORD_M}] m"));
    let arr: [f32; N] = v.get_ref().as_slice().try_into().map_err(|_| bad())?;
    if arr.iter().all(|x| x.is_finite() && *x > 0.0 && *x <= MAX_COORD_M) {
        Ok(arr)
    } else {
        Err(bad())
    }
}

fn shape(ctx: &Ctx<'_>, o: &RawObject) -> Result<Shape, SceneError> {
    let kw = o.shape.get_ref().as_str();
    let procedural = [
        ("amplitude", span_of(&o.amplitude)),
        ("frequency", span_of(&o.frequency)),
        ("seed", span_of(&o.seed)),
        ("heights", span_of(&o.heights)),
        ("resolution", span_of(&o.resolution)),
    ];
    let round = [("radius", span_of(&o.radius)), ("height", span_of(&o.height))];
    match kw {
        "plane" | "box" => {
            reject_extra(ctx, kw, &round)?;
            reject_extra(ctx, kw, &procedural)?;
            let s = need(ctx, &o.size, &o.shape, "size")?;
            Ok(if kw == "plane" {
                Shape::Plane { size: Vec2::from_array(size::<2>(ctx, s)?) }
            } else {
                Shape::Box { size: Vec3::from_array(size::<3>(ctx, s)?) }
            })
        }
        "sphere" => {
            reject_extra(ctx, kw, &[("size", span_of(&o.size)), ("height", span_of(&o.height))])?;
            reject_extra(ctx, kw, &procedural)?;
            let radius = ctx.length(need(ctx, &o.radius, &o.shape, "radius")?, "radius")?;
            Ok(Shape::Sphere { radius })
        }
        "cylinder" => {
            reject_extra(ctx, kw, &[("size", span_of(&o.size))])?;
            reject_extra(ctx, kw, &procedural)?;
            let radius = ctx.length(need(ctx, &o.radius, &o.shape, "radius")?, "radius")?;
            let height = ctx.length(need(ctx, &o.height, &o.shape, "height")?, "height")?;
            Ok(Shape::Cylinder { radius, height })
        }
        "heightfield" => {
            reject_extra(ctx, kw, &round)?;
            heightfield(ctx, o)
        }
        other => Err(ctx.invalid(
            o.shape.span(),
            format!("unknown shape {other:?} (want plane, box, sphere, cylinder or heightfield)"),
        )),
    }
}

fn heightfield(ctx: &Ctx<'_>, o: &RawObject) -> Result<Shape, SceneError> {
    let size = Vec2::from_array(size::<2>(ctx, need(ctx, &o.size, &o.shape, "size")?)?);
    let resolution = match &o.resolution {
        Some(r) if (2..=MAX_HEIGHTFIELD_RESOLUTION).contains(r.get_ref()) => *r.get_ref(),
        Some(r) => {
            return Err(ctx.invalid(
                r.span(),
                format!("resolution must be in 2..={MAX_HEIGHTFIELD_RESOLUTION} samples per side"),
            ))
        }
        None if o.heights.is_some() => {
            return Err(ctx.invalid(o.shape.span(), "a heightfield with `heights` needs `resolution`"))
        }
        None => DEFAULT_HEIGHTFIELD_RESOLUTION,
    };
    let count = (resolution as usize) * (resolution as usize);
    let heights = if let Some(h) = &o.heights {
        let extra = [
            ("amplitude", span_of(&o.amplitude)),
            ("frequency", span_of(&o.frequency)),
            ("seed", span_of(&o.seed)),
        ];
        reject_extra(ctx, "heightfield with explicit heights", &extra)?;
        if h.get_ref().len() != count || h.get_ref().iter().any(|x| !x.is_finite() || x.abs() > MAX_COORD_M) {
            return Err(ctx.invalid(
                h.span(),
                format!(
                    "heights must hold resolution^2 = {count} finite numbers in -{MAX_COORD_M}..={MAX_COORD_M} m \
                     (found {} numbers)",
                    h.get_ref().len()
                ),
            ));
        }
        h.get_ref().clone()
    } else {
        let amplitude = need(ctx, &o.amplitude, &o.shape, "heights` or `amplitude")?;
        let amplitude = ctx.in_range(amplitude, "amplitude", -MAX_COORD_M, MAX_COORD_M)?;
        let frequency = ctx.opt(&o.frequency, DEFAULT_HEIGHTFIELD_FREQUENCY, |c, v| {
            c.positive(v, "frequency")?;
            c.in_range(v, "frequency", 0.0, MAX_HEIGHTFIELD_FREQUENCY)
        })?;
        let seed = o.seed.as_ref().map_or(0, |s| *s.get_ref());
        procedural_heights(size, resolution, amplitude, frequency, seed)
    };
    Ok(Shape::Heightfield { size, resolution, heights })
}

/// Value noise: a hashed value in -1..=1 at each integer lattice point, blended with smoothstep
/// weights; sampled at the grid's metric positions times `frequency`, scaled by `amplitude`.
pub(crate) fn procedural_heights(
    size: Vec2,
    resolution: u32,
    amplitude: f32,
    frequency: f32,
    seed: u32,
) -> Vec<f32> {
    let steps = (resolution - 1) as f32;
    let mut out = Vec::with_capacity((resolution * resolution) as usize);
    for j in 0..resolution {
        for i in 0..resolution {
            let p = Vec2::new(i as f32 / steps - 0.5, j as f32 / steps - 0.5) * size * frequency;
            out.push(amplitude * value_noise(p, seed));
        }
    }
    out
}

fn value_noise(p: Vec2, seed: u32) -> f32 {
    let cell = p.floor();
    let f = p - cell;
    let w = f * f * (Vec2::splat(3.0) - 2.0 * f);
    let (x, y) = (cell.x as i32, cell.y as i32);
    let v = |dx: i32, dy: i32| lattice(x.wrapping_add(dx), y.wrapping_add(dy), seed);
    let bottom = v(0, 0) + (v(1, 0) - v(0, 0)) * w.x;
    let top = v(0, 1) + (v(1, 1) - v(0, 1)) * w.x;
    bottom + (top - bottom) * w.y
}

/// A hash of a lattice point to -1..=1 (integer finaliser of MurmurHash3's fmix32).
fn lattice(x: i32, y: i32, seed: u32) -> f32 {
    const PRIME_X: u32 = 0x8da6_b343;
    const PRIME_Y: u32 = 0xd816_3841;
    let mut h = (x as u32).wrapping_mul(PRIME_X) ^ (y as u32).wrapping_mul(PRIME_Y) ^ seed;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    (h as f32 / u32::MAX as f32) * 2.0 - 1.0
}

/// Every `[[light]]`.
pub(crate) fn lights(ctx: &Ctx<'_>, raw: &[RawLight]) -> Result<Vec<Light>, SceneError> {
    raw.iter()
        .enumerate()
        .map(|(i, l)| {
            Ok(Light {
                name: l.name.clone().unwrap_or_else(|| format!("light {i}")),
                kind: light_kind(ctx, l)?,
                position: ctx.v3(&l.position, "position")?,
                color: ctx.non_negative_v3_or(&l.color, Vec3::ONE, "color")?,
                intensity: ctx
                    .opt(&l.intensity, DEFAULT_LIGHT_INTENSITY, |c, v| c.non_negative(v, "intensity"))?,
                range: ctx.opt(&l.range, DEFAULT_LIGHT_RANGE_M, |c, v| c.length(v, "range"))?,
                shadows: l.shadows.unwrap_or(false),
                volumetric: l.volumetric.unwrap_or(true),
                history: l.history.unwrap_or(true),
            })
        })
        .collect()
}

fn light_kind(ctx: &Ctx<'_>, l: &RawLight) -> Result<LightKind, SceneError> {
    let kw = l.kind.get_ref().as_str();
    let directional = [("direction", span_of(&l.direction))];
    let spot = [("inner_deg", span_of(&l.inner_deg)), ("outer_deg", span_of(&l.outer_deg))];
    let projector = [
        ("up", span_of(&l.up)),
        ("fov_deg", span_of(&l.fov_deg)),
        ("texture", span_of(&l.texture)),
        ("focus", span_of(&l.focus)),
    ];
    match kw {
        "point" => {
            reject_extra(ctx, kw, &directional)?;
            reject_extra(ctx, kw, &spot)?;
            reject_extra(ctx, kw, &projector)?;
            Ok(LightKind::Point)
        }
        "spot" => {
            reject_extra(ctx, kw, &projector)?;
            let direction = ctx.direction(need(ctx, &l.direction, &l.kind, "direction")?, "direction")?;
            let outer_deg =
                ctx.opt(&l.outer_deg, DEFAULT_SPOT_OUTER_DEG, |c, v| c.positive(v, "outer_deg"))?;
            if outer_deg > MAX_SPOT_OUTER_DEG {
                let span = span_of(&l.outer_deg).unwrap_or(l.kind.span());
                return Err(ctx.invalid(span, format!("outer_deg must be <= {MAX_SPOT_OUTER_DEG}")));
            }
            let inner_default = DEFAULT_SPOT_INNER_DEG.min(outer_deg);
            let inner_deg =
                ctx.opt(&l.inner_deg, inner_default, |c, v| c.in_range(v, "inner_deg", 0.0, outer_deg))?;
            Ok(LightKind::Spot { direction, inner_deg, outer_deg })
        }
        "projector" => {
            reject_extra(ctx, kw, &spot)?;
            projector_kind(ctx, l)
        }
        other => Err(ctx
            .invalid(l.kind.span(), format!("unknown light kind {other:?} (want point, spot or projector)"))),
    }
}

fn projector_kind(ctx: &Ctx<'_>, l: &RawLight) -> Result<LightKind, SceneError> {
    let direction = ctx.direction(need(ctx, &l.direction, &l.kind, "direction")?, "direction")?;
    let texture = ctx.texture_ref(need(ctx, &l.texture, &l.kind, "texture")?, "projector texture")?;
    let up = match &l.up {
        Some(v) => {
            let up = ctx.direction(v, "up")?;
            if up.dot(direction).abs() > PARALLEL_COS {
                return Err(ctx.invalid(v.span(), "up must not be parallel to direction"));
            }
            up
        }
        None if direction.z.abs() > PARALLEL_COS => Vec3::X,
        None => Vec3::Z,
    };
    let up = (up - direction * up.dot(direction)).normalize();
    Ok(LightKind::Projector {
        direction,
        up,
        fov_deg: ctx.opt(&l.fov_deg, DEFAULT_PROJECTOR_FOV_DEG, |c, v| fov(c, v, "fov_deg"))?,
        texture,
        focus: ctx
            .opt(&l.focus, 0.0, |c, v| c.in_range(v, "focus", -MAX_PROJECTOR_FOCUS, MAX_PROJECTOR_FOCUS))?,
    })
}

/// Every `[[fog_volume]]`.
pub(crate) fn fog_volumes(ctx: &Ctx<'_>, raw: &[RawFogVolume]) -> Result<Vec<FogVolume>, SceneError> {
    raw.iter()
        .map(|v| {
            let shape = match v.shape.get_ref().as_str() {
                "box" => {
                    reject_extra(ctx, "box", &[("radius", span_of(&v.radius))])?;
                    let h = need(ctx, &v.half_extents, &v.shape, "half_extents")?;
                    let half_extents = ctx.v3(h, "half_extents")?;
                    if !half_extents.cmpgt(Vec3::ZERO).all() {
                        return Err(ctx.invalid(h.span(), "half_extents must be > 0"));
                    }
                    VolumeShape::Box { half_extents }
                }
                "sphere" => {
                    reject_extra(ctx, "sphere", &[("half_extents", span_of(&v.half_extents))])?;
                    let radius = ctx.length(need(ctx, &v.radius, &v.shape, "radius")?, "radius")?;
                    VolumeShape::Sphere { radius }
                }
                other => {
                    return Err(ctx.invalid(
                        v.shape.span(),
                        format!("unknown fog_volume shape {other:?} (want box or sphere)"),
                    ))
                }
            };
            Ok(FogVolume {
                shape,
                center: ctx.v3(&v.center, "center")?,
                density: ctx.non_negative(&v.density, "density")?,
                albedo: ctx.color_or(&v.albedo, DEFAULT_FOG_ALBEDO, "albedo")?,
            })
        })
        .collect()
}
