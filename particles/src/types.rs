//! What a legacy particle system *is*: the viewer's `LLPartSysData` (the source) and `LLPartData`
//! (the particle template), with their enumerations and flag words.
//!
//! Field names follow the viewer (`indra/llmessage/llpartdata.h` 241-273; the flag masks, patterns
//! and blend enum are in the same header). Values are stored as the viewer stores
//! them after decoding: seconds, metres, radians, colours as 0..1 floats. Flag words and enum bytes
//! are kept *raw* (the viewer never validates them), with typed accessors on top.

use std::fmt;
use std::str::FromStr;

use glam::{Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};

/// A 16-byte asset or object id, in canonical byte order (first byte = first two hex digits).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// The null id (`00000000-0000-0000-0000-000000000000`).
    pub const NIL: Uuid = Uuid([0; 16]);

    /// True for the null id.
    pub fn is_nil(&self) -> bool {
        self.0 == [0; 16]
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({self})")
    }
}

/// Why a string is not a UUID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a UUID (want 32 hex digits, optionally hyphenated 8-4-4-4-12): {0:?}")]
pub struct UuidParseError(pub String);

impl FromStr for Uuid {
    type Err = UuidParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || UuidParseError(s.to_owned());
        let t = s.trim();
        let hex: String = if t.len() == 36 {
            let dashes_ok = [8, 13, 18, 23].iter().all(|&i| t.as_bytes()[i] == b'-');
            if !dashes_ok {
                return Err(err());
            }
            t.chars().filter(|&c| c != '-').collect()
        } else if t.len() == 32 {
            t.to_owned()
        } else {
            return Err(err());
        };
        let mut out = [0u8; 16];
        for (i, byte) in out.iter_mut().enumerate() {
            let pair = hex.get(2 * i..2 * i + 2).ok_or_else(err)?;
            *byte = u8::from_str_radix(pair, 16).map_err(|_| err())?;
        }
        Ok(Uuid(out))
    }
}

impl Serialize for Uuid {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Uuid {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Particle flag word (`PSYS_PART_FLAGS`, `LLPartData`'s masks). Kept raw: unknown bits are carried.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PartFlags(pub u32);

impl PartFlags {
    /// Colour and alpha go linearly start -> end over life.
    pub const INTERP_COLOR: u32 = 0x001;
    /// Scale goes linearly start -> end over life.
    pub const INTERP_SCALE: u32 = 0x002;
    /// Particles may not go below the source's current z (reflect, factor 0.75).
    pub const BOUNCE: u32 = 0x004;
    /// Velocity relaxes toward the region wind.
    pub const WIND: u32 = 0x008;
    /// Position kept relative to the moving source (translation only).
    pub const FOLLOW_SRC: u32 = 0x010;
    /// Billboard "up" turned toward the screen-projected velocity.
    pub const FOLLOW_VELOCITY: u32 = 0x020;
    /// Velocity steered toward the target position.
    pub const TARGET_POS: u32 = 0x040;
    /// Position interpolated on the line source -> target.
    pub const TARGET_LINEAR: u32 = 0x080;
    /// Drawn fullbright (unlit).
    pub const EMISSIVE: u32 = 0x100;
    /// Viewer-internal edit beam; no special handling for script systems.
    pub const BEAM: u32 = 0x200;
    /// Successive particles joined into a strip.
    pub const RIBBON: u32 = 0x400;
    /// Extended block carries the glow pair.
    pub const DATA_GLOW: u32 = 0x1_0000;
    /// Extended block carries the blend pair.
    pub const DATA_BLEND: u32 = 0x2_0000;
    /// Viewer-local: source is a HUD attachment.
    pub const HUD: u32 = 0x4000_0000;
    /// Viewer-local: particle marked for deletion.
    pub const DEAD: u32 = 0x8000_0000;

    /// True when every bit of `mask` is set.
    pub fn contains(self, mask: u32) -> bool {
        self.0 & mask == mask
    }

    /// True when any bit of `mask` is set.
    pub fn intersects(self, mask: u32) -> bool {
        self.0 & mask != 0
    }
}

impl fmt::Debug for PartFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PartFlags({:#x})", self.0)
    }
}

/// System (source) flag word (`LLPartSysData`'s flags in `llpartdata.h`). Kept raw.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SysFlags(pub u32);

impl SysFlags {
    /// Defined, never read by the viewer (acceleration is always region-frame).
    pub const OBJ_REL: u32 = 0x01;
    /// Set when the script used ANGLE_BEGIN/END; clear for the legacy INNER/OUTER pair.
    pub const USE_NEW_ANGLE: u32 = 0x02;

    /// True when every bit of `mask` is set.
    pub fn contains(self, mask: u32) -> bool {
        self.0 & mask == mask
    }
}

impl fmt::Debug for SysFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SysFlags({:#x})", self.0)
    }
}

/// Pattern byte constants (`LL_PART_SRC_PATTERN_*`). The wire byte is kept raw in
/// [`PartSysData::pattern`]; [`PartSysData::pattern_kind`] says how the viewer treats it.
pub mod pattern {
    /// Spawn at the source centre with zero velocity.
    pub const DROP: u8 = 0x01;
    /// Random direction on the sphere.
    pub const EXPLODE: u8 = 0x02;
    /// Flat fan in the source's local Y-Z plane.
    pub const ANGLE: u8 = 0x04;
    /// 3-D cone around the source's local +Z.
    pub const ANGLE_CONE: u8 = 0x08;
    /// Not implemented by the viewer: behaves as DROP.
    pub const ANGLE_CONE_EMPTY: u8 = 0x10;
}

/// How the viewer emits for a pattern byte (tested bit-wise in priority order by
/// `LLViewerPartSourceScript::update`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PatternKind {
    /// DROP, 0, ANGLE_CONE_EMPTY and any byte without bits 0x01/0x02/0x04/0x08.
    Drop,
    /// EXPLODE.
    Explode,
    /// ANGLE without the cone bit: a flat fan.
    Angle,
    /// ANGLE_CONE: the fan spun about +Z.
    AngleCone,
}

/// Blend factor values (`LL_PART_BF_*`); identical to the renderer's blend-factor enum (`llrender.h`).
pub mod blend {
    /// GL_ONE.
    pub const ONE: u8 = 0;
    /// GL_ZERO.
    pub const ZERO: u8 = 1;
    /// GL_DST_COLOR.
    pub const DEST_COLOR: u8 = 2;
    /// GL_SRC_COLOR.
    pub const SOURCE_COLOR: u8 = 3;
    /// GL_ONE_MINUS_DST_COLOR.
    pub const ONE_MINUS_DEST_COLOR: u8 = 4;
    /// GL_ONE_MINUS_SRC_COLOR.
    pub const ONE_MINUS_SOURCE_COLOR: u8 = 5;
    /// GL_DST_ALPHA (not valid for scripts).
    pub const UNSUPPORTED_DEST_ALPHA: u8 = 6;
    /// GL_SRC_ALPHA (default source).
    pub const SOURCE_ALPHA: u8 = 7;
    /// GL_ONE_MINUS_DST_ALPHA (not valid for scripts).
    pub const UNSUPPORTED_ONE_MINUS_DEST_ALPHA: u8 = 8;
    /// GL_ONE_MINUS_SRC_ALPHA (default destination).
    pub const ONE_MINUS_SOURCE_ALPHA: u8 = 9;

    /// True for the values a script may set (0..9 except 6 and 8; LL's `validBlendFunc`).
    pub fn is_valid_for_scripts(v: u8) -> bool {
        v <= 9 && v != UNSUPPORTED_DEST_ALPHA && v != UNSUPPORTED_ONE_MINUS_DEST_ALPHA
    }
}

/// The particle template (`LLPartData`): what every particle of a source starts from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartData {
    /// Particle flags (raw word).
    pub flags: PartFlags,
    /// Particle lifetime in seconds.
    pub max_age: f32,
    /// Start colour, RGBA in 0..1 (alpha is PSYS_PART_START_ALPHA).
    pub start_color: Vec4,
    /// End colour, RGBA in 0..1 (used with INTERP_COLOR).
    pub end_color: Vec4,
    /// Start size in metres (x = width, y = height).
    pub start_scale: Vec2,
    /// End size in metres (used with INTERP_SCALE).
    pub end_scale: Vec2,
    /// Start glow in 0..1.
    pub start_glow: f32,
    /// End glow in 0..1 (interpolated whatever the flags).
    pub end_glow: f32,
    /// Blend factor for the source colour (raw byte, see [`blend`]).
    pub blend_func_source: u8,
    /// Blend factor for the destination colour (raw byte, see [`blend`]).
    pub blend_func_dest: u8,
}

impl Default for PartData {
    /// The viewer's constructor defaults (`llpartdata.cpp` 213-241): white, 1 m, 10 s, normal blend.
    fn default() -> Self {
        PartData {
            flags: PartFlags(0),
            max_age: 10.0,
            start_color: Vec4::ONE,
            end_color: Vec4::ONE,
            start_scale: Vec2::ONE,
            end_scale: Vec2::ONE,
            start_glow: 0.0,
            end_glow: 0.0,
            blend_func_source: blend::SOURCE_ALPHA,
            blend_func_dest: blend::ONE_MINUS_SOURCE_ALPHA,
        }
    }
}

impl PartData {
    /// True for the ordinary (SOURCE_ALPHA, ONE_MINUS_SOURCE_ALPHA) pair.
    pub fn is_normal_alpha_blend(&self) -> bool {
        self.blend_func_source == blend::SOURCE_ALPHA && self.blend_func_dest == blend::ONE_MINUS_SOURCE_ALPHA
    }

    /// True when either glow is above zero.
    pub fn has_glow(&self) -> bool {
        self.start_glow > 0.0 || self.end_glow > 0.0
    }
}

/// The source (`LLPartSysData`): how and where particles are emitted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartSysData {
    /// CRC word; 0 means "no particle system" on the wire, otherwise unused.
    pub crc: u32,
    /// System flags (raw word).
    pub flags: SysFlags,
    /// Pattern byte (raw, see [`pattern`]).
    pub pattern: u8,
    /// Source lifetime in seconds; 0 = forever.
    pub max_age: f32,
    /// Age the source already had when this copy was sent, seconds.
    pub start_age: f32,
    /// Inner (or begin) angle, radians.
    pub inner_angle: f32,
    /// Outer (or end) angle, radians.
    pub outer_angle: f32,
    /// Seconds between bursts (the viewer floors decoded values at 0.01).
    pub burst_rate: f32,
    /// Emission radius, metres.
    pub burst_radius: f32,
    /// Minimum emission speed, m/s.
    pub burst_speed_min: f32,
    /// Maximum emission speed, m/s.
    pub burst_speed_max: f32,
    /// Particles per burst.
    pub burst_part_count: u8,
    /// Omega: rotation rate of ANGLE patterns, rad/s, region axes.
    pub angular_velocity: Vec3,
    /// Particle acceleration, m/s^2, region axes.
    pub part_accel: Vec3,
    /// Texture asset id; nil means the viewer's built-in default texture.
    pub part_image_id: Uuid,
    /// Target object id for TARGET_POS / TARGET_LINEAR.
    pub target_uuid: Uuid,
    /// The particle template.
    pub part: PartData,
}

impl Default for PartSysData {
    /// The LL shared-code constructor defaults (`LLPartSysData::LLPartSysData`), CRC 1.
    fn default() -> Self {
        PartSysData {
            crc: 1,
            flags: SysFlags(0),
            pattern: pattern::DROP,
            max_age: 0.0,
            start_age: 0.0,
            inner_angle: 0.0,
            outer_angle: 0.0,
            burst_rate: 0.1,
            burst_radius: 0.0,
            burst_speed_min: 1.0,
            burst_speed_max: 1.0,
            burst_part_count: 1,
            angular_velocity: Vec3::ZERO,
            part_accel: Vec3::ZERO,
            part_image_id: Uuid::NIL,
            target_uuid: Uuid::NIL,
            part: PartData::default(),
        }
    }
}

impl PartSysData {
    /// How the viewer emits for this pattern byte.
    pub fn pattern_kind(&self) -> PatternKind {
        let p = self.pattern;
        if p & pattern::DROP != 0 {
            PatternKind::Drop
        } else if p & pattern::EXPLODE != 0 {
            PatternKind::Explode
        } else if p & pattern::ANGLE_CONE != 0 {
            PatternKind::AngleCone
        } else if p & pattern::ANGLE != 0 {
            PatternKind::Angle
        } else {
            PatternKind::Drop
        }
    }

    /// True when the template uses the ordinary alpha blend pair.
    pub fn is_normal_alpha_blend(&self) -> bool {
        self.part.is_normal_alpha_blend()
    }

    /// True when the system names no texture (the viewer's default texture is used).
    pub fn uses_default_texture(&self) -> bool {
        self.part_image_id.is_nil()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_round_trips_through_text() {
        let text = "5e120ba1-5805-dc57-66b7-f5ac4bd18f86";
        let id: Uuid = text.parse().expect("valid uuid");
        assert_eq!(id.0[0], 0x5e);
        assert_eq!(id.0[15], 0x86);
        assert_eq!(id.to_string(), text);
        let bare: Uuid = "5E120BA15805DC5766B7F5AC4BD18F86".parse().expect("bare hex");
        assert_eq!(bare, id);
        assert!("5e120ba1-5805-dc57-66b7".parse::<Uuid>().is_err());
        assert!("5e120ba1x5805-dc57-66b7-f5ac4bd18f86".parse::<Uuid>().is_err());
    }

    #[test]
    fn pattern_kind_follows_viewer_bit_priority() {
        let kind = |p: u8| PartSysData { pattern: p, ..Default::default() }.pattern_kind();
        assert_eq!(kind(pattern::DROP), PatternKind::Drop);
        assert_eq!(kind(0), PatternKind::Drop);
        assert_eq!(kind(pattern::ANGLE_CONE_EMPTY), PatternKind::Drop);
        assert_eq!(kind(pattern::EXPLODE), PatternKind::Explode);
        assert_eq!(kind(pattern::EXPLODE | pattern::DROP), PatternKind::Drop);
        assert_eq!(kind(pattern::ANGLE), PatternKind::Angle);
        assert_eq!(kind(pattern::ANGLE_CONE), PatternKind::AngleCone);
        assert_eq!(kind(pattern::ANGLE | pattern::ANGLE_CONE), PatternKind::AngleCone);
    }

    #[test]
    fn normal_blend_is_only_the_source_alpha_pair() {
        let mut p = PartData::default();
        assert!(p.is_normal_alpha_blend());
        p.blend_func_dest = blend::ONE;
        assert!(!p.is_normal_alpha_blend());
        assert!(blend::is_valid_for_scripts(blend::ONE_MINUS_SOURCE_ALPHA));
        assert!(!blend::is_valid_for_scripts(blend::UNSUPPORTED_DEST_ALPHA));
        assert!(!blend::is_valid_for_scripts(10));
    }
}
