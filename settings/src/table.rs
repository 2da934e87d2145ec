//! The documentation table: one [`SettingDesc`] per setting, the single place that states each
//! setting's name, type, default, range, comment and persistence.
//!
//! Name-based access ([`crate::Settings::get`], [`crate::Settings::set`]), validation, the
//! command-line helpers and `settings.xml` persistence all go through this table. The viewer's own
//! names and conventions are kept: `Render...` names, the LLControlGroup types (`Boolean`, `S32`,
//! `U32`, `F32`, see `indra/llxml/llcontrol.cpp`), `Persist` 0 for debug-only switches, and
//! `RenderMaxPartCount` with the viewer's default 4096 and hard cap 8192 (`LL_MAX_PARTICLE_COUNT`,
//! `indra/newview/llviewerpartsim.cpp`). Ranges of the froxel settings follow published froxel
//! fog (Unreal, Frostbite, HDRP, Godot: 64-128 depth slices; Assassin's Creed IV: a fixed 160x90
//! grid; Unreal's history weight and Godot's reprojection amount: 0.9).

use crate::SettingsError;

/// A setting's type, named as the viewer's `settings.xml` names it in `Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingType {
    /// `Boolean`: stored as `<integer>1</integer>` / `<integer>0</integer>`.
    Boolean,
    /// `S32`: a signed 32-bit integer.
    S32,
    /// `U32`: an unsigned 32-bit integer (stored as an LLSD integer).
    U32,
    /// `F32`: a 32-bit float (stored as an LLSD real).
    F32,
}

impl SettingType {
    /// The `Type` string of `settings.xml`.
    pub fn as_str(self) -> &'static str {
        match self {
            SettingType::Boolean => "Boolean",
            SettingType::S32 => "S32",
            SettingType::U32 => "U32",
            SettingType::F32 => "F32",
        }
    }
}

/// A setting's value, tagged with its type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SettingValue {
    /// A `Boolean` value.
    Boolean(bool),
    /// An `S32` value.
    S32(i32),
    /// A `U32` value.
    U32(u32),
    /// An `F32` value.
    F32(f32),
}

impl SettingValue {
    /// The value's type.
    pub fn ty(self) -> SettingType {
        match self {
            SettingValue::Boolean(_) => SettingType::Boolean,
            SettingValue::S32(_) => SettingType::S32,
            SettingValue::U32(_) => SettingType::U32,
            SettingValue::F32(_) => SettingType::F32,
        }
    }

    /// The value as an `f64` (booleans as 0 and 1), exact for every type, used for range checks.
    pub fn as_f64(self) -> f64 {
        match self {
            SettingValue::Boolean(b) => f64::from(u8::from(b)),
            SettingValue::S32(i) => f64::from(i),
            SettingValue::U32(u) => f64::from(u),
            SettingValue::F32(f) => f64::from(f),
        }
    }
}

impl std::fmt::Display for SettingValue {
    /// Booleans as `true`/`false`, numbers in their shortest exact form (`0.7`, not `0.69999999`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SettingValue::Boolean(b) => write!(f, "{b}"),
            SettingValue::S32(i) => write!(f, "{i}"),
            SettingValue::U32(u) => write!(f, "{u}"),
            SettingValue::F32(x) => write!(f, "{x}"),
        }
    }
}

/// The documentation of one setting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SettingDesc {
    /// The viewer-style name, e.g. `RenderVKParticleFog`.
    pub name: &'static str,
    /// The type, as written in `Type`.
    pub ty: SettingType,
    /// The default value.
    pub default: SettingValue,
    /// The smallest accepted value (`false` for booleans).
    pub min: SettingValue,
    /// The largest accepted value (`true` for booleans).
    pub max: SettingValue,
    /// One line: meaning, unit and cost; written as `Comment`.
    pub comment: &'static str,
    /// Whether the setting is written back to `settings.xml` (`Persist`).
    pub persist: bool,
}

const fn desc(
    name: &'static str,
    (default, min, max): (SettingValue, SettingValue, SettingValue),
    comment: &'static str,
    persist: bool,
) -> SettingDesc {
    let ty = match default {
        SettingValue::Boolean(_) => SettingType::Boolean,
        SettingValue::S32(_) => SettingType::S32,
        SettingValue::U32(_) => SettingType::U32,
        SettingValue::F32(_) => SettingType::F32,
    };
    SettingDesc { name, ty, default, min, max, comment, persist }
}

const fn boolean(default: bool) -> (SettingValue, SettingValue, SettingValue) {
    use SettingValue::Boolean;
    (Boolean(default), Boolean(false), Boolean(true))
}

const fn f32s(default: f32, min: f32, max: f32) -> (SettingValue, SettingValue, SettingValue) {
    use SettingValue::F32;
    (F32(default), F32(min), F32(max))
}

const fn u32s(default: u32, min: u32, max: u32) -> (SettingValue, SettingValue, SettingValue) {
    use SettingValue::U32;
    (U32(default), U32(min), U32(max))
}

const fn s32s(default: i32, min: i32, max: i32) -> (SettingValue, SettingValue, SettingValue) {
    use SettingValue::S32;
    (S32(default), S32(min), S32(max))
}

/// Every setting of this crate, in the order `list` prints them.
pub const SETTINGS: &[SettingDesc] = &[
    desc("RenderVKVolumetricFog", boolean(true),
        "Froxel volumetric fog (the host's fog); particle fog needs it on. Cost: the froxel passes, about 1-2 ms per frame at the default grid.", true),
    desc("RenderVKParticleFog", boolean(false),
        "Master toggle: convert fog-like particle systems into volumetric density. Cost: brick splat and march, bounded by RenderVKParticleFogBrickBudgetMB.", true),
    desc("RenderVKParticleFogStrength", f32s(1.0, 0.0, 4.0),
        "Multiplier on the density of converted particle systems (dimensionless; 1 = the billboards' own opacity, 0 hides them). No cost.", true),
    desc("RenderVKParticleFogThreshold", f32s(0.7, 0.2, 1.0),
        "Fog-likeness score (0-1) above which a particle system converts; it reverts below threshold - 0.2 and blends in between. Lower converts more systems (more bricks).", true),
    desc("RenderVKParticleFogDensity", f32s(1.0, 0.0, 8.0),
        "Multiplier on the mass converted particles carry (dimensionless; 1 = the billboards' own opacity). No cost.", true),
    desc("RenderVKParticleFogBillow", f32s(0.5, 0.0, 1.0),
        "Curl-noise detail strength: fraction of converted density modulated by billowing noise (0 = smooth). Cost: noise lookups per march step when above 0.", true),
    desc("RenderVKParticleFogBillowScale", f32s(2.0, 0.25, 16.0),
        "Billow noise period in metres (smaller = finer detail). No cost.", true),
    desc("RenderVKParticleFogBillowSpeed", f32s(0.3, 0.0, 5.0),
        "Advection speed of the billow noise in metres per second. No cost.", true),
    desc("RenderVKParticleFogDebug", s32s(0, 0, 5),
        "Particle fog debug view: 0 off, 1 tint converted systems, 2 draw brick bounds, 3 tint and bounds, 4 write <scene>_transmittance.png, 5 write <scene>_coverage.png. Not saved.", false),
    desc("RenderVKParticleFogBrickBudgetMB", u32s(128, 16, 2048),
        "The most GPU memory for density bricks in MiB (the pool holds what the bricks in use need, up to this); systems that do not fit keep their billboards.", true),
    desc("RenderVKParticleFogVoxelSize", f32s(0.075, 0.025, 0.25),
        "Near-camera voxel edge in metres; halving it costs 8x the brick memory for the same volume.", true),
    desc("RenderVKParticleFogRange", f32s(64.0, 8.0, 256.0),
        "Distance in metres beyond which converted systems keep their billboards. Cost grows with the volume covered.", true),
    desc("RenderVKParticleFogMarchDivisor", u32s(0, 0, 8),
        "Ray-march the particle fog once per N x N pixels (depth-aware upsample to every pixel); 0 picks N from the image height (1 below 540 rows, 2 at 720p, 3 at 1080p, 6 at 2160p). Cost falls with N squared.", true),
    desc("RenderVKParticleFogAttachments", boolean(false),
        "Also convert particle systems worn on avatars; off keeps attachments as billboards.", true),
    desc("RenderMaxPartCount", s32s(4096, 0, 8192),
        "Maximum number of particles (0 turns particles off; capped at 8192 as in the viewer).", true),
    desc("RenderVKVolumetricFogGridX", u32s(160, 16, 512),
        "Froxel grid width in cells. Cost scales with GridX * GridY * GridZ.", true),
    desc("RenderVKVolumetricFogGridY", u32s(90, 9, 288),
        "Froxel grid height in cells. Cost scales with GridX * GridY * GridZ.", true),
    desc("RenderVKVolumetricFogGridZ", u32s(64, 16, 256),
        "Froxel grid depth slices. Cost scales with GridX * GridY * GridZ.", true),
    desc("RenderVKVolumetricFogHistoryWeight", f32s(0.9, 0.0, 0.98),
        "Fraction of the previous frame's fog kept by temporal reprojection (0 = none; higher is smoother but ghosts). No cost.", true),
    desc("RenderVKVolumetricFogRange", f32s(96.0, 16.0, 1024.0),
        "Far end of the froxel grid in metres; longer spreads the same slices thinner. No cost.", true),
    desc("RenderVKVolumetricFogReference", boolean(false),
        "Draw the host fog by a per-pixel ray-march instead of the froxels, for tests and judging quality (project option). Very slow. Not saved.", false),
    desc("RenderVKParticleCapacity", u32s(8192, 1, 4_000_000),
        "GPU particle pool capacity in particles, for stress tests (project option, not a viewer one). Memory grows linearly with it.", true),
];

/// The description of `name` (exact, case-sensitive, as the viewer matches names).
pub fn find(name: &str) -> Option<&'static SettingDesc> {
    SETTINGS.iter().find(|d| d.name == name)
}

/// The description of `name`, or [`SettingsError::UnknownSetting`] with the closest known name.
pub fn find_or_err(name: &str) -> Result<&'static SettingDesc, SettingsError> {
    find(name).ok_or_else(|| SettingsError::UnknownSetting {
        name: name.to_owned(),
        suggestion: closest_name(name),
    })
}

/// The largest edit distance at which an unknown name still gets a suggestion.
const MAX_SUGGESTION_DISTANCE: usize = 3;

/// The known name closest to `name` (ignoring case), if it is within a few edits.
fn closest_name(name: &str) -> Option<&'static str> {
    let lower = name.to_lowercase();
    SETTINGS
        .iter()
        .map(|d| (edit_distance(&lower, &d.name.to_lowercase()), d.name))
        .filter(|(dist, _)| *dist <= MAX_SUGGESTION_DISTANCE)
        .min_by_key(|(dist, _)| *dist)
        .map(|(_, n)| n)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev_diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev_diag + cost);
            prev_diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

impl SettingDesc {
    /// The accepted range as text, e.g. `0.2..=1`, or `0, 1, true or false` for booleans.
    pub fn range_text(&self) -> String {
        match self.ty {
            SettingType::Boolean => "0, 1, true or false".to_owned(),
            _ => format!("{}..={}", self.min, self.max),
        }
    }

    /// Whether `value` (of this setting's type) is within `min..=max`.
    fn in_range(&self, value: SettingValue) -> bool {
        let v = value.as_f64();
        v >= self.min.as_f64() && v <= self.max.as_f64()
    }

    /// `value` if it has this setting's type and lies in its range; otherwise the error a user sees.
    pub fn check(&self, value: SettingValue) -> Result<SettingValue, SettingsError> {
        if value.ty() != self.ty {
            return Err(SettingsError::InvalidValue {
                setting: self.name,
                text: value.to_string(),
                expected: self.expected_text(),
            });
        }
        if !self.in_range(value) {
            return Err(SettingsError::OutOfRange {
                setting: self.name,
                value: value.to_string(),
                range: self.range_text(),
            });
        }
        Ok(value)
    }

    /// `value` clamped into `min..=max` (same type assumed), and whether it had to be clamped.
    pub fn clamp(&self, value: SettingValue) -> (SettingValue, bool) {
        if self.in_range(value) {
            return (value, false);
        }
        let below = value.as_f64() < self.min.as_f64();
        (if below { self.min } else { self.max }, true)
    }

    /// Parses `text` as this setting's type and checks the range.
    pub fn parse_text(&self, text: &str) -> Result<SettingValue, SettingsError> {
        let t = text.trim();
        let invalid = || SettingsError::InvalidValue {
            setting: self.name,
            text: text.to_owned(),
            expected: self.expected_text(),
        };
        let value = match self.ty {
            SettingType::Boolean => SettingValue::Boolean(match t.to_ascii_lowercase().as_str() {
                "1" | "true" => true,
                "0" | "false" => false,
                _ => return Err(invalid()),
            }),
            SettingType::S32 => SettingValue::S32(t.parse().map_err(|_| invalid())?),
            SettingType::U32 => SettingValue::U32(t.parse().map_err(|_| invalid())?),
            SettingType::F32 => {
                let x: f32 = t.parse().map_err(|_| invalid())?;
                if !x.is_finite() {
                    return Err(invalid());
                }
                SettingValue::F32(x)
            }
        };
        self.check(value)
    }

    /// What a value of this setting must look like, for messages.
    pub fn expected_text(&self) -> String {
        match self.ty {
            SettingType::Boolean => "Boolean (0, 1, true or false)".to_owned(),
            SettingType::S32 => format!("S32 integer in {}", self.range_text()),
            SettingType::U32 => format!("U32 integer in {}", self.range_text()),
            SettingType::F32 => format!("finite F32 number in {}", self.range_text()),
        }
    }
}
