//! The scene model: what the host renderer draws, in Second Life coordinates (Z up, metres).
//!
//! Radiometric scale: linear, renderer-relative units. An illuminance `E` falling head-on on a
//! white diffuse surface gives an outgoing radiance of `E / pi`; the display maps
//! `radiance * exposure = 1.0` to white (see [`Camera::exposure`]). Point-like lights use an intensity
//! `I` whose irradiance at distance `d` is `I / d^2` (candela-like). Colours are linear RGB
//! multipliers in 0..1 (emissive colours may exceed 1).

use std::collections::BTreeMap;
use std::path::PathBuf;

use glam::{Mat4, Quat, Vec2, Vec3};

/// A whole scene, as loaded from a scene file.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// The camera (also supplies fov and exposure when a [`Scene::camera_path`] is given).
    pub camera: Camera,
    /// Camera keyframes sorted by strictly increasing time; empty for a still camera.
    pub camera_path: Vec<CameraKey>,
    /// The directional sun light.
    pub sun: Sun,
    /// Hemispheric ambient light.
    pub ambient: Ambient,
    /// Exponential height fog filling the whole scene.
    pub height_fog: HeightFog,
    /// Opaque objects, in file order.
    pub objects: Vec<Object>,
    /// Local lights, in file order.
    pub lights: Vec<Light>,
    /// Local fog volumes, in file order.
    pub fog_volumes: Vec<FogVolume>,
    /// Particle sources, in file order.
    pub particles: Vec<ParticleSource>,
    /// Texture name -> file path, resolved relative to the scene file's folder (the file exists).
    pub textures: BTreeMap<String, PathBuf>,
    /// Setting overrides `(NAME, VALUE text)` in file order, e.g. `("RenderVKParticleFog", "true")`.
    pub settings: Vec<(String, String)>,
    /// Region wind velocity, m/s (region axes).
    pub wind: Vec3,
    /// Non-fatal findings (e.g. LSL rules only known at run time), one readable line each.
    pub warnings: Vec<String>,
}

/// A perspective camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position, m.
    pub position: Vec3,
    /// Point looked at, m (never equal to `position`).
    pub target: Vec3,
    /// Vertical field of view, degrees, in (0, 180). Default 60.
    pub fov_y_deg: f32,
    /// Linear exposure multiplier applied to radiance before display (EV-like), > 0. Default 1.
    pub exposure: f32,
}

/// One camera keyframe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraKey {
    /// Time of the key, s.
    pub time_s: f32,
    /// Eye position at that time, m.
    pub position: Vec3,
    /// Point looked at, m.
    pub target: Vec3,
}

/// The sun: a directional light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sun {
    /// Unit vector from the scene toward the sun. Default `normalize(0.5, 0.3, 0.8)`.
    pub direction: Vec3,
    /// Linear RGB colour. Default `[1.0, 0.95, 0.9]`.
    pub color: Vec3,
    /// Illuminance on a surface facing the sun, relative units. Default 3.0.
    pub illuminance: f32,
    /// Whether the sun casts shadows. Default true.
    pub shadows: bool,
}

/// Hemispheric ambient light: radiance from the upper and lower hemispheres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ambient {
    /// Radiance from the sky (+Z hemisphere), linear RGB. Default `[0.10, 0.12, 0.15]`.
    pub sky: Vec3,
    /// Radiance from the ground (-Z hemisphere), linear RGB. Default `[0.04, 0.04, 0.04]`.
    pub ground: Vec3,
}

/// Exponential height fog: extinction `density * exp(-falloff * (z - base_height))`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeightFog {
    /// Extinction coefficient at `base_height`, 1/m, >= 0. Default 0 (no fog).
    pub density: f32,
    /// Exponential falloff with height, 1/m, >= 0. Default 0.1.
    pub falloff: f32,
    /// Height of the reference level, m. Default 0.
    pub base_height: f32,
    /// Single-scattering albedo, linear RGB in 0..1. Default `[0.9, 0.9, 0.9]`.
    pub albedo: Vec3,
    /// Henyey-Greenstein asymmetry `g`, in (-1, 1). Default 0.2.
    pub anisotropy: f32,
}

/// An opaque, diffuse object.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Name for labels and messages. Default `object N` (N = 0-based index).
    pub name: String,
    /// Geometry in object space.
    pub shape: Shape,
    /// Object-to-world transform.
    pub transform: Transform,
    /// Diffuse albedo, linear RGB in 0..1. Default `[0.6, 0.6, 0.6]`.
    pub albedo: Vec3,
    /// Emitted radiance, linear RGB, >= 0. Default 0.
    pub emissive: Vec3,
}

/// Object geometry in object space (see [`super::mesh_for`] for the tessellation).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A rectangle in the XY plane at z = 0, facing +Z, centred on the origin.
    Plane {
        /// Full extent along X and Y, m.
        size: Vec2,
    },
    /// An axis-aligned box centred on the origin.
    Box {
        /// Full extent along X, Y and Z, m.
        size: Vec3,
    },
    /// A sphere centred on the origin.
    Sphere {
        /// Radius, m.
        radius: f32,
    },
    /// A closed cylinder along Z, centred on the origin (z from -height/2 to +height/2).
    Cylinder {
        /// Radius, m.
        radius: f32,
        /// Full height, m.
        height: f32,
    },
    /// A height grid over a rectangle in the XY plane centred on the origin, top surface only.
    Heightfield {
        /// Full extent along X and Y, m.
        size: Vec2,
        /// Samples per side (>= 2); the grid has `resolution^2` samples.
        resolution: u32,
        /// Heights (z, m), row-major: sample `(i, j)` (i along X, j along Y) at `j * resolution + i`.
        /// A procedural heightfield is expanded to this list at load time.
        heights: Vec<f32>,
    },
}

/// Object-to-world transform: scale, then rotate, then translate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation, m. Default 0.
    pub position: Vec3,
    /// Rotation (unit quaternion). TOML: `[x, y, z]` Euler degrees applied as `Rz * Ry * Rx`
    /// (X first), or `[x, y, z, w]` quaternion (normalised on load). Default identity.
    pub rotation: Quat,
    /// Per-axis scale, > 0. Default 1.
    pub scale: Vec3,
}

impl Transform {
    /// The object-to-world matrix: scale, then rotate, then translate.
    pub fn world_from_object(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.position)
    }
}

impl Default for Transform {
    fn default() -> Self {
        Transform { position: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE }
    }
}

/// A local light.
#[derive(Clone, Debug, PartialEq)]
pub struct Light {
    /// Name for labels and messages. Default `light N`.
    pub name: String,
    /// Point, spot or projector, with the kind's parameters.
    pub kind: LightKind,
    /// Position, m.
    pub position: Vec3,
    /// Linear RGB colour. Default `[1, 1, 1]`.
    pub color: Vec3,
    /// Intensity, candela-like (irradiance `intensity / d^2`), >= 0. Default 10.
    pub intensity: f32,
    /// Range beyond which the light is cut off, m, > 0. Default 10.
    pub range: f32,
    /// Whether the light casts shadows. Default false.
    pub shadows: bool,
    /// Whether the light scatters in fog (froxels, bricks). Default true.
    pub volumetric: bool,
    /// Whether the light's fog contribution may use temporal history. Default true.
    pub history: bool,
}

/// The kind of a local light and its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum LightKind {
    /// Omnidirectional.
    Point,
    /// A cone with a smooth edge.
    Spot {
        /// Unit axis of the cone.
        direction: Vec3,
        /// Half-angle of the full-intensity core, degrees, 0 <= inner <= outer. Default 20.
        inner_deg: f32,
        /// Half-angle where intensity reaches zero, degrees, in (0, 90]. Default 30.
        outer_deg: f32,
    },
    /// A Second Life projector: a spot light that projects a texture.
    Projector {
        /// Unit axis of the projection.
        direction: Vec3,
        /// Unit up vector of the image, orthogonalised against `direction`. Default +Z
        /// (+X when the direction is vertical).
        up: Vec3,
        /// Full vertical field of view, degrees, in (0, 180). Default 45.
        fov_deg: f32,
        /// Texture name, a key of [`Scene::textures`].
        texture: String,
        /// Second Life projector focus (blur control; 0 = sharp), in -20..=20. Default 0.
        focus: f32,
    },
}

/// A local, constant-density fog volume.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FogVolume {
    /// Extent around `center`.
    pub shape: VolumeShape,
    /// Centre, m.
    pub center: Vec3,
    /// Extinction coefficient inside, 1/m, >= 0.
    pub density: f32,
    /// Single-scattering albedo, linear RGB in 0..1. Default `[0.9, 0.9, 0.9]`.
    pub albedo: Vec3,
}

/// Shape of a fog volume (axis-aligned, centred on [`FogVolume::center`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VolumeShape {
    /// An axis-aligned box.
    Box {
        /// Half extents along X, Y and Z, m, > 0.
        half_extents: Vec3,
    },
    /// A sphere.
    Sphere {
        /// Radius, m, > 0.
        radius: f32,
    },
}

/// A particle source: a legacy particle system attached to a (possibly moving) prim.
#[derive(Clone, Debug, PartialEq)]
pub struct ParticleSource {
    /// Name for labels and messages (required, unique is advised).
    pub name: String,
    /// The descriptor, as the viewer would hold it.
    pub system: particles::PartSysData,
    /// Texture name as given (a key of [`Scene::textures`]); `None` = the viewer's default texture.
    pub texture: Option<String>,
    /// Source position at time 0, m.
    pub position: Vec3,
    /// Source prim rotation (same TOML forms as [`Transform::rotation`]). Default identity.
    pub rotation: Quat,
    /// How the source prim moves. Default [`Motion::None`].
    pub motion: Motion,
    /// Spin of the source prim, rad/s, region axes. Default 0.
    pub angular_velocity: Vec3,
    /// Whether the source is an avatar attachment. Default false.
    pub attachment: bool,
    /// Whether the source is a HUD attachment (drawn in HUD space). Default false.
    pub hud: bool,
    /// Target position for TARGET_POS / TARGET_LINEAR, m; `None` = the source itself.
    pub target: Option<Vec3>,
    /// The object id and link number its per-object override is kept under (`object`, `link`;
    /// without `object`, an id derived from the name).
    pub key: fog::SystemKey,
    /// The scene's per-object override (`override`). Default [`fog::Override::Auto`].
    pub fog_override: fog::Override,
}

/// Motion of a particle source prim.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    /// At rest.
    None,
    /// Constant velocity.
    Linear {
        /// Velocity, m/s.
        velocity: Vec3,
    },
    /// Piecewise-linear path through keyed positions.
    Path {
        /// `(time s, offset m)` keys with strictly increasing times (at least one); the offset is
        /// added to [`ParticleSource::position`].
        keys: Vec<(f32, Vec3)>,
        /// Whether the path repeats after the last key (period = last time - first time).
        looped: bool,
    },
}

impl ParticleSource {
    /// The source position at time `t_s` seconds: [`ParticleSource::position`] plus the motion's
    /// offset (linear: `velocity * t`; path: linear between keys, clamped to the first and last
    /// key, or wrapped over `[first, last)` when looped).
    pub fn position_at(&self, t_s: f32) -> Vec3 {
        self.position + self.motion.offset_at(t_s)
    }
}

impl Motion {
    /// Offset from the source's rest position at time `t_s` seconds (see
    /// [`ParticleSource::position_at`]); zero for a non-finite time.
    pub fn offset_at(&self, t_s: f32) -> Vec3 {
        if !t_s.is_finite() {
            return Vec3::ZERO;
        }
        match self {
            Motion::None => Vec3::ZERO,
            Motion::Linear { velocity } => *velocity * t_s,
            Motion::Path { keys, looped } => path_offset(keys, *looped, t_s),
        }
    }
}

fn path_offset(keys: &[(f32, Vec3)], looped: bool, t_s: f32) -> Vec3 {
    let (Some(&(t0, p0)), Some(&(t1, p1))) = (keys.first(), keys.last()) else {
        return Vec3::ZERO;
    };
    let period = t1 - t0;
    let t = if looped && period > 0.0 { t0 + (t_s - t0).rem_euclid(period) } else { t_s };
    if t <= t0 {
        return p0;
    }
    if t >= t1 {
        return p1;
    }
    let next = keys.partition_point(|k| k.0 <= t);
    let ((ta, pa), (tb, pb)) = (keys[next - 1], keys[next]);
    pa.lerp(pb, (t - ta) / (tb - ta))
}
