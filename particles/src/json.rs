//! The JSON form of a descriptor, shared by the CLI (`particle-fog psys decode|encode`) and the
//! LSL importer.
//!
//! ```json
//! {"status": "ok",
//!  "system":   {"crc": 1, "flags": 0, "pattern": 1, "max_age": 0.0, "start_age": 0.0,
//!               "inner_angle": 0.0, "outer_angle": 0.0, "burst_rate": 0.09765625,
//!               "burst_radius": 0.0, "burst_speed_min": 1.0, "burst_speed_max": 1.0,
//!               "burst_part_count": 1, "angular_velocity": [0.0, 0.0, 0.0],
//!               "part_accel": [0.0, 0.0, 0.0],
//!               "part_image_id": "5e120ba1-5805-dc57-66b7-f5ac4bd18f86",
//!               "target_uuid": "00000000-0000-0000-0000-000000000000"},
//!  "particle": {"flags": 132354, "max_age": 10.0, "start_color": [1.0, 1.0, 1.0, 1.0],
//!               "end_color": [1.0, 1.0, 0.0, 0.0], "start_scale": [1.0, 1.0],
//!               "end_scale": [0.0, 0.0], "start_glow": 0.0, "end_glow": 0.0,
//!               "blend_func_source": 2, "blend_func_dest": 1}}
//! ```
//!
//! Units are [`PartSysData`]'s: seconds, metres, radians, colours and glow as 0..1; flags, pattern,
//! count and blend factors as integers; UUIDs as lowercase hyphenated strings. Decoded values are
//! written as the `f32` the viewer computes (shortest text that reads back to the same `f32`).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::codec::{self, Decoded};
use crate::types::{PartData, PartFlags, PartSysData, SysFlags, Uuid};

/// Exit code of `psys decode` for a system or "no system".
pub const EXIT_OK: i32 = 0;
/// Exit code of `psys decode` for a rejected block or bad hex.
pub const EXIT_REJECTED: i32 = 3;

/// The source part of a descriptor (field names are the contract; see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)] // Each field is the `PartSysData` field of the same name.
pub struct SystemJson {
    pub crc: u32,
    pub flags: u32,
    pub pattern: u8,
    pub max_age: f32,
    pub start_age: f32,
    pub inner_angle: f32,
    pub outer_angle: f32,
    pub burst_rate: f32,
    pub burst_radius: f32,
    pub burst_speed_min: f32,
    pub burst_speed_max: f32,
    pub burst_part_count: u8,
    pub angular_velocity: [f32; 3],
    pub part_accel: [f32; 3],
    pub part_image_id: Uuid,
    pub target_uuid: Uuid,
}

/// The particle template part of a descriptor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)] // Each field is the `PartData` field of the same name.
pub struct ParticleJson {
    pub flags: u32,
    pub max_age: f32,
    pub start_color: [f32; 4],
    pub end_color: [f32; 4],
    pub start_scale: [f32; 2],
    pub end_scale: [f32; 2],
    pub start_glow: f32,
    pub end_glow: f32,
    pub blend_func_source: u8,
    pub blend_func_dest: u8,
}

/// A whole descriptor: `{"system": {...}, "particle": {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DescriptorJson {
    /// The source.
    pub system: SystemJson,
    /// The particle template.
    pub particle: ParticleJson,
}

/// Why a JSON text is not a descriptor; every case names the field (`system.burst_rate`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    /// Not JSON at all.
    #[error("not valid JSON: {0}")]
    Syntax(String),
    /// JSON, but the named value is not an object.
    #[error("{path}: expected a JSON object")]
    NotAnObject {
        /// Where (`<top level>`, `system` or `particle`).
        path: String,
    },
    /// A `status` other than `"ok"`: the text describes no system.
    #[error("status: {found} (only \"ok\" descriptors can be encoded)")]
    Status {
        /// The status value as JSON text.
        found: String,
    },
    /// A required field is absent.
    #[error("{path}: missing field")]
    Missing {
        /// The field.
        path: String,
    },
    /// A field the format does not have (a typo, most often).
    #[error("{path}: unknown field")]
    Unknown {
        /// The field.
        path: String,
    },
    /// A field of the wrong type or out of its integer range.
    #[error("{path}: {message}")]
    Invalid {
        /// The field.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A descriptor the encoder refuses: it would not mean the particle system it describes.
    #[error("{0}")]
    Refused(#[from] codec::Refusal),
    /// A number that is NaN or infinite: built so in code, or a JSON number beyond the `f32` range.
    #[error("{path}: not a finite f32 number")]
    NotFinite {
        /// The field.
        path: String,
    },
}

impl From<&PartSysData> for DescriptorJson {
    fn from(sys: &PartSysData) -> Self {
        let p = &sys.part;
        DescriptorJson {
            system: SystemJson {
                crc: sys.crc,
                flags: sys.flags.0,
                pattern: sys.pattern,
                max_age: sys.max_age,
                start_age: sys.start_age,
                inner_angle: sys.inner_angle,
                outer_angle: sys.outer_angle,
                burst_rate: sys.burst_rate,
                burst_radius: sys.burst_radius,
                burst_speed_min: sys.burst_speed_min,
                burst_speed_max: sys.burst_speed_max,
                burst_part_count: sys.burst_part_count,
                angular_velocity: sys.angular_velocity.to_array(),
                part_accel: sys.part_accel.to_array(),
                part_image_id: sys.part_image_id,
                target_uuid: sys.target_uuid,
            },
            particle: ParticleJson {
                flags: p.flags.0,
                max_age: p.max_age,
                start_color: p.start_color.to_array(),
                end_color: p.end_color.to_array(),
                start_scale: p.start_scale.to_array(),
                end_scale: p.end_scale.to_array(),
                start_glow: p.start_glow,
                end_glow: p.end_glow,
                blend_func_source: p.blend_func_source,
                blend_func_dest: p.blend_func_dest,
            },
        }
    }
}

impl TryFrom<DescriptorJson> for PartSysData {
    type Error = JsonError;

    /// Fails only on a NaN or infinite number, naming its field. Everything else is representable:
    /// [`crate::codec::encode`] clamps out-of-range values.
    fn try_from(d: DescriptorJson) -> Result<Self, JsonError> {
        let (s, p) = (&d.system, &d.particle);
        let scalars = [
            ("system.max_age", s.max_age),
            ("system.start_age", s.start_age),
            ("system.inner_angle", s.inner_angle),
            ("system.outer_angle", s.outer_angle),
            ("system.burst_rate", s.burst_rate),
            ("system.burst_radius", s.burst_radius),
            ("system.burst_speed_min", s.burst_speed_min),
            ("system.burst_speed_max", s.burst_speed_max),
            ("particle.max_age", p.max_age),
            ("particle.start_glow", p.start_glow),
            ("particle.end_glow", p.end_glow),
        ];
        let vectors: [(&str, &[f32]); 6] = [
            ("system.angular_velocity", &s.angular_velocity),
            ("system.part_accel", &s.part_accel),
            ("particle.start_color", &p.start_color),
            ("particle.end_color", &p.end_color),
            ("particle.start_scale", &p.start_scale),
            ("particle.end_scale", &p.end_scale),
        ];
        let bad = scalars.iter().find(|(_, v)| !v.is_finite()).map(|(path, _)| *path).or_else(|| {
            vectors.iter().find(|(_, v)| v.iter().any(|x| !x.is_finite())).map(|(path, _)| *path)
        });
        if let Some(path) = bad {
            return Err(JsonError::NotFinite { path: path.to_owned() });
        }
        Ok(PartSysData {
            crc: s.crc,
            flags: SysFlags(s.flags),
            pattern: s.pattern,
            max_age: s.max_age,
            start_age: s.start_age,
            inner_angle: s.inner_angle,
            outer_angle: s.outer_angle,
            burst_rate: s.burst_rate,
            burst_radius: s.burst_radius,
            burst_speed_min: s.burst_speed_min,
            burst_speed_max: s.burst_speed_max,
            burst_part_count: s.burst_part_count,
            angular_velocity: s.angular_velocity.into(),
            part_accel: s.part_accel.into(),
            part_image_id: s.part_image_id,
            target_uuid: s.target_uuid,
            part: PartData {
                flags: PartFlags(p.flags),
                max_age: p.max_age,
                start_color: p.start_color.into(),
                end_color: p.end_color.into(),
                start_scale: p.start_scale.into(),
                end_scale: p.end_scale.into(),
                start_glow: p.start_glow,
                end_glow: p.end_glow,
                blend_func_source: p.blend_func_source,
                blend_func_dest: p.blend_func_dest,
            },
        })
    }
}

/// `psys decode`: hex in, report and exit code out.
///
/// * `{"status":"ok","system":{...},"particle":{...}}`, exit [`EXIT_OK`];
/// * `{"status":"none"}`, exit [`EXIT_OK`];
/// * `{"status":"rejected","reason":"..."}`, exit [`EXIT_REJECTED`] (bad hex included).
pub fn decode_report(hex: &str) -> (Value, i32) {
    let rejected = |reason: String| (json!({"status": "rejected", "reason": reason}), EXIT_REJECTED);
    let block = match codec::parse_hex(hex) {
        Ok(block) => block,
        Err(e) => return rejected(format!("bad hex: {e}")),
    };
    match codec::decode(&block) {
        Decoded::System(sys) => {
            let d = DescriptorJson::from(&sys);
            (json!({"status": "ok", "system": d.system, "particle": d.particle}), EXIT_OK)
        }
        Decoded::NoSystem(_) => (json!({"status": "none"}), EXIT_OK),
        Decoded::Rejected(reason) => rejected(reason.to_string()),
    }
}

/// `psys encode`: a descriptor (the `decode_report` shape; `"status"` optional, `"ok"` if present)
/// in, the block as lowercase hex out. Refuses what [`encode_from_json_checked`] refuses; the
/// warnings for clamped values are dropped (use that function to show them).
pub fn encode_from_json(text: &str) -> Result<String, JsonError> {
    encode_from_json_checked(text).map(|e| e.hex)
}

/// A block encoded from JSON, with a warning for each value the encoder changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The block as lowercase hex.
    pub hex: String,
    /// One text per changed value, naming its field (`system.burst_rate: -1 is outside ...`).
    pub warnings: Vec<String>,
}

/// Like [`encode_from_json`], but refuses what [`codec::check`] refuses (a CRC of 0, a blend factor
/// no simulator sends) and returns the warnings for every value the encoder clamps or rewrites.
pub fn encode_from_json_checked(text: &str) -> Result<Encoded, JsonError> {
    let descriptor = descriptor_from_json(text)?;
    let sys = PartSysData::try_from(descriptor)?;
    let warnings = codec::check(&sys)?;
    Ok(Encoded { hex: codec::to_hex(&codec::encode(&sys)), warnings })
}

/// Parses a descriptor with errors that name the field (`system.burst_rate: invalid type: ...`),
/// which serde's own messages for nested structs do not.
pub fn descriptor_from_json(text: &str) -> Result<DescriptorJson, JsonError> {
    let value: Value = serde_json::from_str(text).map_err(|e| JsonError::Syntax(e.to_string()))?;
    let top = Fields::new(&value, "")?;
    if let Some(status) = top.obj.get("status") {
        if status != "ok" {
            return Err(JsonError::Status { found: status.to_string() });
        }
    }
    if let Some(key) = top.obj.keys().find(|k| !["status", "system", "particle"].contains(&k.as_str())) {
        return Err(JsonError::Unknown { path: key.clone() });
    }
    let system = system_from(&Fields::new(top.value("system")?, "system")?)?;
    let particle = particle_from(&Fields::new(top.value("particle")?, "particle")?)?;
    Ok(DescriptorJson { system, particle })
}

fn system_from(f: &Fields<'_>) -> Result<SystemJson, JsonError> {
    let system = SystemJson {
        crc: f.get("crc")?,
        flags: f.get("flags")?,
        pattern: f.get("pattern")?,
        max_age: f.get("max_age")?,
        start_age: f.get("start_age")?,
        inner_angle: f.get("inner_angle")?,
        outer_angle: f.get("outer_angle")?,
        burst_rate: f.get("burst_rate")?,
        burst_radius: f.get("burst_radius")?,
        burst_speed_min: f.get("burst_speed_min")?,
        burst_speed_max: f.get("burst_speed_max")?,
        burst_part_count: f.get("burst_part_count")?,
        angular_velocity: f.get("angular_velocity")?,
        part_accel: f.get("part_accel")?,
        part_image_id: f.get("part_image_id")?,
        target_uuid: f.get("target_uuid")?,
    };
    f.reject_unknown(&system)?;
    Ok(system)
}

fn particle_from(f: &Fields<'_>) -> Result<ParticleJson, JsonError> {
    let particle = ParticleJson {
        flags: f.get("flags")?,
        max_age: f.get("max_age")?,
        start_color: f.get("start_color")?,
        end_color: f.get("end_color")?,
        start_scale: f.get("start_scale")?,
        end_scale: f.get("end_scale")?,
        start_glow: f.get("start_glow")?,
        end_glow: f.get("end_glow")?,
        blend_func_source: f.get("blend_func_source")?,
        blend_func_dest: f.get("blend_func_dest")?,
    };
    f.reject_unknown(&particle)?;
    Ok(particle)
}

/// One JSON object and where it sits, for field-by-field reads whose errors carry the path.
struct Fields<'a> {
    obj: &'a Map<String, Value>,
    section: &'static str,
}

impl<'a> Fields<'a> {
    fn new(value: &'a Value, section: &'static str) -> Result<Self, JsonError> {
        let path = if section.is_empty() { "<top level>" } else { section };
        match value {
            Value::Object(obj) => Ok(Fields { obj, section }),
            _ => Err(JsonError::NotAnObject { path: path.to_owned() }),
        }
    }

    fn path(&self, field: &str) -> String {
        if self.section.is_empty() {
            field.to_owned()
        } else {
            format!("{}.{field}", self.section)
        }
    }

    fn value(&self, field: &str) -> Result<&'a Value, JsonError> {
        self.obj.get(field).ok_or_else(|| JsonError::Missing { path: self.path(field) })
    }

    fn get<T: DeserializeOwned>(&self, field: &str) -> Result<T, JsonError> {
        T::deserialize(self.value(field)?)
            .map_err(|e| JsonError::Invalid { path: self.path(field), message: e.to_string() })
    }

    /// Fails on a key that `parsed` (built from this object) does not serialize: a typo or an
    /// unsupported field.
    fn reject_unknown<T: Serialize>(&self, parsed: &T) -> Result<(), JsonError> {
        let known = serde_json::to_value(parsed).ok();
        let known = known.as_ref().and_then(Value::as_object);
        match self.obj.keys().find(|k| !known.is_some_and(|m| m.contains_key(*k))) {
            Some(key) => Err(JsonError::Unknown { path: self.path(key) }),
            None => Ok(()),
        }
    }
}
