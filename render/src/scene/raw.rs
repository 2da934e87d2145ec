//! The scene file as TOML text says it: serde structs with spans, before any checking beyond
//! types. `deny_unknown_fields` everywhere, so a misspelt key is an error at that key.
//! `scenes/README.md` documents every key; [`super::parse`] turns these into the model.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use toml::Spanned;

/// A spanned `[x, y, z]`.
pub(crate) type V3 = Spanned<[f32; 3]>;
/// A spanned scalar.
pub(crate) type S<T> = Spanned<T>;

/// The whole file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScene {
    pub wind: Option<V3>,
    pub camera: RawCamera,
    #[serde(default)]
    pub camera_path: Vec<RawCameraKey>,
    pub sun: Option<RawSun>,
    pub ambient: Option<RawAmbient>,
    pub height_fog: Option<RawHeightFog>,
    #[serde(default)]
    pub object: Vec<RawObject>,
    #[serde(default)]
    pub light: Vec<RawLight>,
    #[serde(default)]
    pub fog_volume: Vec<RawFogVolume>,
    #[serde(default)]
    pub particles: Vec<RawParticles>,
    #[serde(default)]
    pub textures: BTreeMap<String, S<String>>,
    #[serde(default)]
    pub settings: RawSettings,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCamera {
    pub position: V3,
    pub target: V3,
    pub fov_y_deg: Option<S<f32>>,
    pub exposure: Option<S<f32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCameraKey {
    pub time_s: S<f32>,
    pub position: V3,
    pub target: V3,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSun {
    pub direction: Option<V3>,
    pub color: Option<V3>,
    pub illuminance: Option<S<f32>>,
    pub shadows: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAmbient {
    pub sky: Option<V3>,
    pub ground: Option<V3>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawHeightFog {
    pub density: Option<S<f32>>,
    pub falloff: Option<S<f32>>,
    pub base_height: Option<f32>,
    pub albedo: Option<V3>,
    pub anisotropy: Option<S<f32>>,
}

/// An object: the shape keyword plus every shape's parameters (checked against the shape later).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawObject {
    pub name: Option<String>,
    pub shape: S<String>,
    pub size: Option<S<Vec<f32>>>,
    pub radius: Option<S<f32>>,
    pub height: Option<S<f32>>,
    pub resolution: Option<S<u32>>,
    pub heights: Option<S<Vec<f32>>>,
    pub amplitude: Option<S<f32>>,
    pub frequency: Option<S<f32>>,
    pub seed: Option<S<u32>>,
    pub position: Option<V3>,
    pub rotation: Option<S<Vec<f32>>>,
    pub scale: Option<V3>,
    pub albedo: Option<V3>,
    pub emissive: Option<V3>,
}

/// A light: the kind keyword plus every kind's parameters.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLight {
    pub name: Option<String>,
    pub kind: S<String>,
    pub position: V3,
    pub color: Option<V3>,
    pub intensity: Option<S<f32>>,
    pub range: Option<S<f32>>,
    pub shadows: Option<bool>,
    pub volumetric: Option<bool>,
    pub history: Option<bool>,
    pub direction: Option<V3>,
    pub inner_deg: Option<S<f32>>,
    pub outer_deg: Option<S<f32>>,
    pub up: Option<V3>,
    pub fov_deg: Option<S<f32>>,
    pub texture: Option<S<String>>,
    pub focus: Option<S<f32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFogVolume {
    pub shape: S<String>,
    pub center: V3,
    pub density: S<f32>,
    pub half_extents: Option<V3>,
    pub radius: Option<S<f32>>,
    pub albedo: Option<V3>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawParticles {
    pub name: S<String>,
    pub position: V3,
    pub rotation: Option<S<Vec<f32>>>,
    pub texture: Option<S<String>>,
    pub lsl: Option<S<String>>,
    pub hex: Option<S<String>>,
    pub system: Option<S<RawSystem>>,
    pub motion: Option<S<RawMotion>>,
    pub angular_velocity: Option<V3>,
    pub attachment: Option<bool>,
    pub hud: Option<bool>,
    pub target: Option<V3>,
    pub object: Option<S<String>>,
    pub link: Option<S<i64>>,
    #[serde(rename = "override")]
    pub fog_override: Option<S<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMotion {
    pub kind: S<String>,
    pub velocity: Option<V3>,
    pub keys: Option<S<Vec<[f32; 4]>>>,
    pub looped: Option<bool>,
}

/// `[particles.system]`: the descriptor's fields (names follow the CLI's JSON descriptor).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSystem {
    pub pattern: Option<S<String>>,
    pub max_age: Option<S<f32>>,
    pub burst_rate: Option<S<f32>>,
    pub burst_radius: Option<S<f32>>,
    pub burst_speed_min: Option<S<f32>>,
    pub burst_speed_max: Option<S<f32>>,
    pub burst_part_count: Option<S<i64>>,
    pub inner_angle: Option<S<f32>>,
    pub outer_angle: Option<S<f32>>,
    pub angular_velocity: Option<V3>,
    pub part_accel: Option<V3>,
    pub part_flags: Option<Vec<S<String>>>,
    pub part_max_age: Option<S<f32>>,
    pub start_color: Option<V3>,
    pub end_color: Option<V3>,
    pub start_alpha: Option<S<f32>>,
    pub end_alpha: Option<S<f32>>,
    pub start_scale: Option<S<[f32; 2]>>,
    pub end_scale: Option<S<[f32; 2]>>,
    pub start_glow: Option<S<f32>>,
    pub end_glow: Option<S<f32>>,
    pub blend_func_source: Option<S<i64>>,
    pub blend_func_dest: Option<S<i64>>,
}

/// `[settings]` in file order: `(name, value)`.
#[derive(Default)]
pub(crate) struct RawSettings(pub Vec<(String, S<toml::Value>)>);

impl<'de> Deserialize<'de> for RawSettings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = RawSettings;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of setting overrides")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawSettings, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry()? {
                    out.push((k, v));
                }
                Ok(RawSettings(out))
            }
        }
        d.deserialize_map(InOrder)
    }
}
