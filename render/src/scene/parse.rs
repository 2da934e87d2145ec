//! Text -> [`Scene`]: TOML through serde (`raw`), then every value checked and defaulted here, each
//! failure located at the offending value's span.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use glam::{Quat, Vec3, Vec4};

use super::error::{line_column, SceneError};
use super::model::{Ambient, Camera, CameraKey, HeightFog, Scene, Sun};
use super::raw::{RawCamera, RawCameraKey, RawHeightFog, RawScene, RawSettings, RawSun, S, V3};
use super::{objects, psys};

/// Default vertical field of view, degrees.
pub const DEFAULT_FOV_Y_DEG: f32 = 60.0;
/// Default sun direction (toward the sun), before normalisation: high in the south-east-ish sky.
const DEFAULT_SUN_DIRECTION: Vec3 = Vec3::new(0.5, 0.3, 0.8);
/// Default sun colour, linear RGB.
const DEFAULT_SUN_COLOR: Vec3 = Vec3::new(1.0, 0.95, 0.9);
/// Default sun illuminance, relative units (a white surface facing it reaches radiance ~0.95).
const DEFAULT_SUN_ILLUMINANCE: f32 = 3.0;
/// Default sky ambient radiance, linear RGB.
const DEFAULT_SKY: Vec3 = Vec3::new(0.10, 0.12, 0.15);
/// Default ground ambient radiance, linear RGB.
const DEFAULT_GROUND: Vec3 = Vec3::new(0.04, 0.04, 0.04);
/// Default height-fog falloff, 1/m.
const DEFAULT_FOG_FALLOFF: f32 = 0.1;
/// Default fog albedo (height fog and fog volumes), linear RGB.
pub(crate) const DEFAULT_FOG_ALBEDO: Vec3 = Vec3::new(0.9, 0.9, 0.9);
/// Default Henyey-Greenstein g of the height fog.
const DEFAULT_FOG_ANISOTROPY: f32 = 0.2;
/// Shortest vector accepted as a direction, m (or unitless).
pub(crate) const MIN_DIRECTION_LENGTH: f32 = 1e-6;
/// Largest coordinate, extent or vector component accepted, m (m/s, rad/s for velocities): a
/// 390 x 390-region grid. Beyond it the renderer's `f32` positions lose centimetre precision and the
/// view and shadow matrices overflow, so geometry or the camera would silently vanish.
pub const MAX_COORD_M: f32 = 100_000.0;
/// Largest field of view accepted (exclusive), degrees.
pub(crate) const MAX_FOV_DEG: f32 = 180.0;

/// Length of a `'''` or `"""` string delimiter, bytes.
const LITERAL_MULTILINE_DELIMITER: usize = 3;
/// Length of a `'` or `"` string delimiter, bytes.
const SINGLE_LINE_DELIMITER: usize = 1;

/// Parsing state: the text (for spans), the file (for messages), resolved textures and warnings.
pub(crate) struct Ctx<'a> {
    text: &'a str,
    file: &'a Path,
    pub textures: BTreeMap<String, PathBuf>,
    pub warnings: Vec<String>,
}

impl Ctx<'_> {
    /// A semantic error at byte range `span`.
    pub fn invalid(&self, span: Range<usize>, message: impl Into<String>) -> SceneError {
        let (line, column) = line_column(self.text, span.start);
        SceneError::Invalid { file: self.file.to_path_buf(), line, column, message: message.into() }
    }

    /// A finite number.
    pub fn num(&self, v: &S<f32>, what: &str) -> Result<f32, SceneError> {
        let x = *v.get_ref();
        if x.is_finite() {
            Ok(x)
        } else {
            Err(self.invalid(v.span(), format!("{what} must be a finite number, not {x}")))
        }
    }

    /// A finite number `>= 0`.
    pub fn non_negative(&self, v: &S<f32>, what: &str) -> Result<f32, SceneError> {
        let x = self.num(v, what)?;
        if x >= 0.0 {
            Ok(x)
        } else {
            Err(self.invalid(v.span(), format!("{what} must be >= 0, not {x}")))
        }
    }

    /// A finite number `> 0`.
    pub fn positive(&self, v: &S<f32>, what: &str) -> Result<f32, SceneError> {
        let x = self.num(v, what)?;
        if x > 0.0 {
            Ok(x)
        } else {
            Err(self.invalid(v.span(), format!("{what} must be > 0, not {x}")))
        }
    }

    /// A finite number in `lo..=hi`.
    pub fn in_range(&self, v: &S<f32>, what: &str, lo: f32, hi: f32) -> Result<f32, SceneError> {
        let x = self.num(v, what)?;
        if (lo..=hi).contains(&x) {
            Ok(x)
        } else {
            Err(self.invalid(v.span(), format!("{what} must be in {lo}..={hi}, not {x}")))
        }
    }

    /// An optional number with a default, checked by `check`.
    pub fn opt<F>(&self, v: &Option<S<f32>>, default: f32, check: F) -> Result<f32, SceneError>
    where
        F: Fn(&Self, &S<f32>) -> Result<f32, SceneError>,
    {
        v.as_ref().map_or(Ok(default), |v| check(self, v))
    }

    /// A vector of finite numbers.
    fn finite_v3(&self, v: &V3, what: &str) -> Result<Vec3, SceneError> {
        let out = Vec3::from_array(*v.get_ref());
        if out.is_finite() {
            Ok(out)
        } else {
            Err(self.invalid(v.span(), format!("{what} must hold finite numbers")))
        }
    }

    /// A vector of finite numbers, each within `±`[`MAX_COORD_M`].
    pub fn v3(&self, v: &V3, what: &str) -> Result<Vec3, SceneError> {
        let out = self.finite_v3(v, what)?;
        match out.to_array().into_iter().find(|x| x.abs() > MAX_COORD_M) {
            Some(x) => Err(self.invalid(
                v.span(),
                format!(
                    "{what}: {x} is out of range; each component must be in -{MAX_COORD_M}..={MAX_COORD_M}"
                ),
            )),
            None => Ok(out),
        }
    }

    /// A length (radius, height, extent) in `(0, MAX_COORD_M]` metres.
    pub fn length(&self, v: &S<f32>, what: &str) -> Result<f32, SceneError> {
        let x = self.positive(v, what)?;
        if x <= MAX_COORD_M {
            Ok(x)
        } else {
            Err(self.invalid(v.span(), format!("{what} must be at most {MAX_COORD_M} m, not {x}")))
        }
    }

    /// An optional vector with a default.
    pub fn v3_or(&self, v: &Option<V3>, default: Vec3, what: &str) -> Result<Vec3, SceneError> {
        v.as_ref().map_or(Ok(default), |v| self.v3(v, what))
    }

    /// An optional colour (each channel in 0..=1) with a default.
    pub fn color_or(&self, v: &Option<V3>, default: Vec3, what: &str) -> Result<Vec3, SceneError> {
        let Some(v) = v else { return Ok(default) };
        let c = self.v3(v, what)?;
        if c.cmpge(Vec3::ZERO).all() && c.cmple(Vec3::ONE).all() {
            Ok(c)
        } else {
            Err(self.invalid(v.span(), format!("{what} channels must be in 0..=1")))
        }
    }

    /// An optional non-negative vector (emissive colour, light colour) with a default.
    pub fn non_negative_v3_or(&self, v: &Option<V3>, default: Vec3, what: &str) -> Result<Vec3, SceneError> {
        let Some(v) = v else { return Ok(default) };
        let c = self.v3(v, what)?;
        if c.cmpge(Vec3::ZERO).all() {
            Ok(c)
        } else {
            Err(self.invalid(v.span(), format!("{what} must not be negative")))
        }
    }

    /// A non-zero vector, normalised (any finite length: only its direction is kept).
    pub fn direction(&self, v: &V3, what: &str) -> Result<Vec3, SceneError> {
        let d = self.finite_v3(v, what)?;
        match d.try_normalize() {
            Some(unit) if d.length() >= MIN_DIRECTION_LENGTH => Ok(unit),
            _ => {
                Err(self
                    .invalid(v.span(), format!("{what} must not be a zero-length (or overflowing) vector")))
            }
        }
    }

    /// A rotation: `[x, y, z]` Euler degrees applied as `Rz * Ry * Rx`, or `[x, y, z, w]`.
    pub fn rotation(&self, v: &Option<S<Vec<f32>>>, what: &str) -> Result<Quat, SceneError> {
        let Some(v) = v else { return Ok(Quat::IDENTITY) };
        let bad = |msg: &str| self.invalid(v.span(), format!("{what}: {msg}"));
        let c = v.get_ref();
        if c.iter().any(|x| !x.is_finite()) {
            return Err(bad("must hold finite numbers"));
        }
        match *c.as_slice() {
            [x, y, z] => Ok(Quat::from_rotation_z(z.to_radians())
                * Quat::from_rotation_y(y.to_radians())
                * Quat::from_rotation_x(x.to_radians())),
            [x, y, z, w] => {
                let q = Vec4::new(x, y, z, w);
                match q.try_normalize() {
                    Some(unit) if q.length() >= MIN_DIRECTION_LENGTH => Ok(Quat::from_vec4(unit)),
                    _ => Err(bad("a zero (or overflowing) quaternion is not a rotation")),
                }
            }
            _ => Err(bad("want [x, y, z] Euler degrees or an [x, y, z, w] quaternion")),
        }
    }

    /// Byte offset in the file of 1-based (`line`, `column`) of a string value's content, when the
    /// file holds the content verbatim (literal strings, basic strings without escapes); otherwise
    /// the value's start.
    pub fn offset_in_string(&self, value: &S<String>, line: u32, column: u32) -> usize {
        let content = value.get_ref();
        let start = value.span().start;
        let candidates = [LITERAL_MULTILINE_DELIMITER, SINGLE_LINE_DELIMITER].map(|delim| {
            let after = start + delim;
            let skip = match self.text.get(after..) {
                Some(rest) if delim == LITERAL_MULTILINE_DELIMITER && rest.starts_with("\r\n") => 2,
                Some(rest) if delim == LITERAL_MULTILINE_DELIMITER && rest.starts_with('\n') => 1,
                _ => 0,
            };
            after + skip
        });
        let Some(base) = candidates
            .into_iter()
            .find(|&c| self.text.get(c..).is_some_and(|rest| rest.starts_with(content.as_str())))
        else {
            return start;
        };
        let mut offset = 0;
        for (i, text_line) in content.split_inclusive('\n').enumerate() {
            if i + 1 == line as usize {
                let in_line: usize =
                    text_line.chars().take(column.saturating_sub(1) as usize).map(char::len_utf8).sum();
                return base + offset + in_line;
            }
            offset += text_line.len();
        }
        start
    }

    /// Checks that `name` is a key of `[textures]`.
    pub fn texture_ref(&self, name: &S<String>, what: &str) -> Result<String, SceneError> {
        let n = name.get_ref();
        if self.textures.contains_key(n) {
            Ok(n.clone())
        } else {
            let known: Vec<&str> = self.textures.keys().map(String::as_str).collect();
            Err(self.invalid(
                name.span(),
                format!("{what}: unknown texture {n:?} (known in [textures]: {known:?})"),
            ))
        }
    }
}

/// Parses scene text; `origin` is the scene file (messages, relative texture paths).
pub(crate) fn parse_scene(text: &str, origin: &Path) -> Result<Scene, SceneError> {
    let raw: RawScene = toml::from_str(text).map_err(|e| {
        let (line, column) = line_column(text, e.span().map_or(0, |s| s.start));
        SceneError::Malformed {
            file: origin.to_path_buf(),
            line,
            column,
            message: e.message().trim().to_owned(),
        }
    })?;
    let mut ctx = Ctx { text, file: origin, textures: BTreeMap::new(), warnings: Vec::new() };
    ctx.textures = textures(&ctx, &raw.textures, origin)?;
    let objects = objects::objects(&ctx, &raw.object)?;
    let lights = objects::lights(&ctx, &raw.light)?;
    let fog_volumes = objects::fog_volumes(&ctx, &raw.fog_volume)?;
    let particles = psys::sources(&mut ctx, &raw.particles)?;
    Ok(Scene {
        camera: camera(&ctx, &raw.camera)?,
        camera_path: camera_path(&ctx, &raw.camera_path)?,
        sun: sun(&ctx, raw.sun.as_ref())?,
        ambient: ambient(&ctx, raw.ambient.as_ref())?,
        height_fog: height_fog(&ctx, raw.height_fog.as_ref())?,
        objects,
        lights,
        fog_volumes,
        particles,
        settings: settings(&ctx, &raw.settings)?,
        wind: ctx.v3_or(&raw.wind, Vec3::ZERO, "wind")?,
        textures: std::mem::take(&mut ctx.textures),
        warnings: std::mem::take(&mut ctx.warnings),
    })
}

fn textures(
    ctx: &Ctx<'_>,
    raw: &BTreeMap<String, S<String>>,
    origin: &Path,
) -> Result<BTreeMap<String, PathBuf>, SceneError> {
    let base = origin.parent().unwrap_or(Path::new(""));
    let mut out = BTreeMap::new();
    for (name, rel) in raw {
        let path = base.join(rel.get_ref());
        let problem = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => None,
            Ok(m) => Some(format!("is not a regular file ({})", crate::input::file_kind(&m))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist".to_owned()),
            Err(e) => Some(format!("cannot be read: {e}")),
        };
        if let Some(problem) = problem {
            return Err(
                ctx.invalid(rel.span(), format!("texture {name:?}: file {} {problem}", path.display()))
            );
        }
        out.insert(name.clone(), path);
    }
    Ok(out)
}

fn camera(ctx: &Ctx<'_>, raw: &RawCamera) -> Result<Camera, SceneError> {
    let position = ctx.v3(&raw.position, "camera position")?;
    let target = ctx.v3(&raw.target, "camera target")?;
    if (target - position).length() < MIN_DIRECTION_LENGTH {
        return Err(ctx.invalid(raw.target.span(), "camera target equals its position"));
    }
    let fov_y_deg = ctx.opt(&raw.fov_y_deg, DEFAULT_FOV_Y_DEG, |c, v| fov(c, v, "fov_y_deg"))?;
    let exposure = ctx.opt(&raw.exposure, 1.0, |c, v| c.positive(v, "exposure"))?;
    Ok(Camera { position, target, fov_y_deg, exposure })
}

/// A field of view in degrees, strictly inside (0, 180).
pub(crate) fn fov(ctx: &Ctx<'_>, v: &S<f32>, what: &str) -> Result<f32, SceneError> {
    let x = ctx.num(v, what)?;
    if x > 0.0 && x < MAX_FOV_DEG {
        Ok(x)
    } else {
        Err(ctx.invalid(v.span(), format!("{what} must be inside (0, 180) degrees, not {x}")))
    }
}

fn camera_path(ctx: &Ctx<'_>, raw: &[RawCameraKey]) -> Result<Vec<CameraKey>, SceneError> {
    let mut out: Vec<CameraKey> = Vec::with_capacity(raw.len());
    for k in raw {
        let time_s = ctx.num(&k.time_s, "camera_path time_s")?;
        if let Some(prev) = out.last() {
            if time_s <= prev.time_s {
                return Err(ctx.invalid(
                    k.time_s.span(),
                    format!("camera_path times must increase: {time_s} after {}", prev.time_s),
                ));
            }
        }
        let position = ctx.v3(&k.position, "camera_path position")?;
        let target = ctx.v3(&k.target, "camera_path target")?;
        if (target - position).length() < MIN_DIRECTION_LENGTH {
            return Err(ctx.invalid(k.target.span(), "camera_path target equals its position"));
        }
        out.push(CameraKey { time_s, position, target });
    }
    Ok(out)
}

fn sun(ctx: &Ctx<'_>, raw: Option<&RawSun>) -> Result<Sun, SceneError> {
    let Some(raw) = raw else {
        return Ok(Sun::default());
    };
    let d = Sun::default();
    Ok(Sun {
        direction: match &raw.direction {
            Some(v) => ctx.direction(v, "sun direction")?,
            None => d.direction,
        },
        color: ctx.non_negative_v3_or(&raw.color, d.color, "sun color")?,
        illuminance: ctx.opt(&raw.illuminance, d.illuminance, |c, v| c.non_negative(v, "illuminance"))?,
        shadows: raw.shadows.unwrap_or(d.shadows),
    })
}

fn ambient(ctx: &Ctx<'_>, raw: Option<&super::raw::RawAmbient>) -> Result<Ambient, SceneError> {
    let d = Ambient::default();
    let Some(raw) = raw else { return Ok(d) };
    Ok(Ambient {
        sky: ctx.non_negative_v3_or(&raw.sky, d.sky, "ambient sky")?,
        ground: ctx.non_negative_v3_or(&raw.ground, d.ground, "ambient ground")?,
    })
}

fn height_fog(ctx: &Ctx<'_>, raw: Option<&RawHeightFog>) -> Result<HeightFog, SceneError> {
    let d = HeightFog::default();
    let Some(raw) = raw else { return Ok(d) };
    let g_limit = 1.0 - f32::EPSILON;
    Ok(HeightFog {
        density: ctx.opt(&raw.density, d.density, |c, v| c.non_negative(v, "height_fog density"))?,
        falloff: ctx.opt(&raw.falloff, d.falloff, |c, v| c.non_negative(v, "height_fog falloff"))?,
        base_height: raw.base_height.unwrap_or(d.base_height),
        albedo: ctx.color_or(&raw.albedo, d.albedo, "height_fog albedo")?,
        anisotropy: ctx.opt(&raw.anisotropy, d.anisotropy, |c, v| {
            c.in_range(v, "height_fog anisotropy", -g_limit, g_limit)
        })?,
    })
}

fn settings(ctx: &Ctx<'_>, raw: &RawSettings) -> Result<Vec<(String, String)>, SceneError> {
    raw.0
        .iter()
        .map(|(name, value)| {
            let text = match value.get_ref() {
                toml::Value::Boolean(b) => b.to_string(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => format!("{f:?}"),
                toml::Value::String(s) => s.clone(),
                _ => {
                    return Err(ctx.invalid(
                        value.span(),
                        format!("setting {name}: want a bool, integer, float or string"),
                    ))
                }
            };
            Ok((name.clone(), text))
        })
        .collect()
}

impl Default for Sun {
    fn default() -> Self {
        Sun {
            direction: DEFAULT_SUN_DIRECTION.normalize(),
            color: DEFAULT_SUN_COLOR,
            illuminance: DEFAULT_SUN_ILLUMINANCE,
            shadows: true,
        }
    }
}

impl Default for Ambient {
    fn default() -> Self {
        Ambient { sky: DEFAULT_SKY, ground: DEFAULT_GROUND }
    }
}

impl Default for HeightFog {
    fn default() -> Self {
        HeightFog {
            density: 0.0,
            falloff: DEFAULT_FOG_FALLOFF,
            base_height: 0.0,
            albedo: DEFAULT_FOG_ALBEDO,
            anisotropy: DEFAULT_FOG_ANISOTROPY,
        }
    }
}
