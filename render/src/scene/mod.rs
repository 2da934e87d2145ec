//! Scene files: what the host renderer draws, read from TOML.
//!
//! A scene is Second Life-style content in SL coordinates (Z up, metres): a camera (optionally
//! keyframed), a sun, hemispheric ambient light, height fog, simple opaque objects, local lights
//! (point, spot, projector), fog volumes and legacy particle sources. `scenes/README.md` is the
//! format reference, with every key, unit and default.
//!
//! # Algorithm
//!
//! 1. The text is deserialised into span-carrying structs (`toml` + `serde`, unknown keys denied);
//!    a TOML error's byte span becomes [`SceneError::Malformed`] with a 1-based line and column.
//! 2. Every value is checked and defaulted; a bad one becomes [`SceneError::Invalid`] at its span.
//!    Texture paths resolve against the scene file's folder and must exist.
//! 3. A particle system comes from exactly one of: an LSL rule list (`particles::lsl::import` on a
//!    wrapping `default { state_entry() { llParticleSystem(list); } }`), a PSYS hex block
//!    (`particles::codec::decode`, the viewer's decoder) or TOML fields over
//!    `PartSysData::default()` (the viewer's `LLPartSysData` constructor defaults).
//! 4. [`mesh_for`] tessellates object shapes on the CPU; no Vulkan is involved anywhere here.

mod error;
mod mesh;
mod model;
mod objects;
mod parse;
mod psys;
mod raw;

use std::path::Path;

pub use error::SceneError;
pub use mesh::{mesh_for, Mesh, ROUND_SEGMENTS, SPHERE_RINGS};
pub use model::{
    Ambient, Camera, CameraKey, FogVolume, HeightFog, Light, LightKind, Motion, Object, ParticleSource,
    Scene, Shape, Sun, Transform, VolumeShape,
};
pub use objects::MAX_HEIGHTFIELD_RESOLUTION;
pub use parse::{DEFAULT_FOV_Y_DEG, MAX_COORD_M};

/// Reads and parses the scene file at `path`: a regular file of at most
/// [`crate::input::MAX_SCENE_BYTES`].
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    let text = crate::input::read_text(path, crate::input::MAX_SCENE_BYTES, "a scene file")
        .map_err(SceneError::Io)?;
    parse(&text, path)
}

/// Parses scene `text`; `origin` is the scene file's path, used in messages and as the base of
/// relative texture paths (its parent folder).
pub fn parse(text: &str, origin: &Path) -> Result<Scene, SceneError> {
    parse::parse_scene(text, origin)
}

impl Scene {
    /// The camera at time `t_s` seconds: position and target interpolated linearly between the
    /// [`Scene::camera_path`] keys (clamped to the first and last), field of view and exposure from
    /// [`Scene::camera`]. Without a path, the still camera.
    pub fn camera_at(&self, t_s: f32) -> Camera {
        let keys = &self.camera_path;
        let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
            return self.camera;
        };
        let at = |position, target| Camera { position, target, ..self.camera };
        if t_s.is_nan() || t_s <= first.time_s {
            return at(first.position, first.target);
        }
        if t_s >= last.time_s {
            return at(last.position, last.target);
        }
        let next = keys.partition_point(|k| k.time_s <= t_s);
        let (a, b) = (&keys[next - 1], &keys[next]);
        let f = (t_s - a.time_s) / (b.time_s - a.time_s);
        at(a.position.lerp(b.position, f), a.target.lerp(b.target, f))
    }
}
