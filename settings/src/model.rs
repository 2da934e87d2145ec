//! [`Settings`]: the typed, documented form of every setting, the one the renderer reads.
//!
//! Each field's doc comment states the setting's viewer name, meaning, unit, default, range and cost.
//! The same facts live in [`crate::SETTINGS`]; tests check that the two, the `Default` impl and the
//! README table agree (bevy's `VolumetricFog` docs once said 0.8 where the code said 0.5; this crate
//! cannot drift that way silently).

use crate::table::{find_or_err, SettingDesc, SettingValue};
use crate::SettingsError;

/// What the particle-fog debug view draws or writes (`RenderVKParticleFogDebug`, S32 0..=5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FogDebugMode {
    /// 0: no debug drawing.
    #[default]
    Off,
    /// 1: tint converted particle systems.
    Tint,
    /// 2: draw the bounds of allocated bricks.
    Bounds,
    /// 3: tint and bounds.
    TintAndBounds,
    /// 4: `render` also writes `<scene>_transmittance.png`, the particle fog's transmittance from
    /// the camera to the opaque depth (16-bit linear greyscale, 65535 = 1).
    Transmittance,
    /// 5: `render` also writes `<scene>_coverage.png`, 1 - the transmittance of every particle
    /// system (billboards and particle fog) to the opaque depth (16-bit linear greyscale).
    Coverage,
}

impl FogDebugMode {
    /// The mode for the setting's integer value, or `None` outside 0..=5.
    pub fn from_i32(value: i32) -> Option<FogDebugMode> {
        match value {
            0 => Some(FogDebugMode::Off),
            1 => Some(FogDebugMode::Tint),
            2 => Some(FogDebugMode::Bounds),
            3 => Some(FogDebugMode::TintAndBounds),
            4 => Some(FogDebugMode::Transmittance),
            5 => Some(FogDebugMode::Coverage),
            _ => None,
        }
    }

    /// The setting's integer value for this mode.
    pub fn as_i32(self) -> i32 {
        match self {
            FogDebugMode::Off => 0,
            FogDebugMode::Tint => 1,
            FogDebugMode::Bounds => 2,
            FogDebugMode::TintAndBounds => 3,
            FogDebugMode::Transmittance => 4,
            FogDebugMode::Coverage => 5,
        }
    }

    /// Whether converted systems are tinted.
    pub fn tints(self) -> bool {
        matches!(self, FogDebugMode::Tint | FogDebugMode::TintAndBounds)
    }

    /// Whether brick bounds are drawn.
    pub fn draws_bounds(self) -> bool {
        matches!(self, FogDebugMode::Bounds | FogDebugMode::TintAndBounds)
    }

    /// Whether `render` writes the particle fog's transmittance image.
    pub fn writes_transmittance(self) -> bool {
        self == FogDebugMode::Transmittance
    }

    /// Whether `render` writes the coverage image of every particle system.
    pub fn writes_coverage(self) -> bool {
        self == FogDebugMode::Coverage
    }
}

/// Every setting of the particle-fog subsystem, typed. `Default` gives the documented defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `RenderVKVolumetricFog`: the host's froxel volumetric fog; particle fog needs it on.
    /// Default: `true`. Cost: the froxel passes, about 1-2 ms per frame at the default grid.
    pub volumetric_fog: bool,
    /// `RenderVKParticleFog`: master toggle converting fog-like particle systems into volumetric
    /// density. Default: `false`. Cost: brick splat and march, bounded by the brick budget.
    pub particle_fog: bool,
    /// `RenderVKParticleFogStrength`: multiplier on converted density (dimensionless; 1 = the
    /// billboards' own opacity, 0 hides converted systems). Each carrier's mass is its
    /// optical cross-section `size_x * size_y * alpha * tex_mean_alpha * w` times Density times
    /// Strength. Default: `1`. Range: `0..=4`. No cost.
    pub particle_fog_strength: f32,
    /// `RenderVKParticleFogThreshold`: fog-likeness score (0-1) above which a system converts; it
    /// reverts below threshold - 0.2 and blends in between. Default: `0.7`. Range: `0.2..=1` (the
    /// lower bound keeps the revert level at or above 0). Lower converts more systems.
    pub particle_fog_threshold: f32,
    /// `RenderVKParticleFogDensity`: multiplier on the mass converted particles carry
    /// (dimensionless; 1 = the billboards' own opacity, so the cross-fade keeps the coverage;
    /// 2 = twice as thick). Default: `1`. Range: `0..=8`. No cost.
    pub particle_fog_density: f32,
    /// `RenderVKParticleFogBillow`: curl-noise detail strength, the fraction of converted density
    /// modulated by billowing noise (0 = smooth). Default: `0.5`. Range: `0..=1`. Cost: noise lookups
    /// per march step when above 0.
    pub particle_fog_billow: f32,
    /// `RenderVKParticleFogBillowScale`: billow noise period in metres. Default: `2`.
    /// Range: `0.25..=16`. No cost.
    pub particle_fog_billow_scale_m: f32,
    /// `RenderVKParticleFogBillowSpeed`: advection speed of the billow noise in m/s.
    /// Default: `0.3`. Range: `0..=5`. No cost.
    pub particle_fog_billow_speed_m_per_s: f32,
    /// `RenderVKParticleFogDebug` (S32 0-5, not saved): tint converted systems and/or draw brick
    /// bounds (1-3), or write the particle fog's transmittance (4) or all particles' coverage (5)
    /// beside the frame. Default: `0`. Range: `0..=5`. Cost: none at 0, 4 and 5 (a readback per
    /// written frame); 2 and 3 a small draw per brick in use.
    pub particle_fog_debug: FogDebugMode,
    /// `RenderVKParticleFogBrickBudgetMB`: the most GPU memory for density bricks in MiB (the
    /// brick pool holds what the bricks in use need, up to this); systems that do not fit keep
    /// their billboards. Default: `128`. Range: `16..=2048`.
    pub particle_fog_brick_budget_mb: u32,
    /// `RenderVKParticleFogVoxelSize`: near-camera voxel edge in metres. Default: `0.075`.
    /// Range: `0.025..=0.25`: at 0.025 m a 16³ brick spans 0.4 m and the default budget covers only
    /// a few metres of plume; at 0.25 m the viewer's default 1 m particle (kernel sigma about 0.5 m)
    /// still gets the spacing <= sigma/2 that splatting needs. Cost: halving it costs 8x the memory.
    pub particle_fog_voxel_size_m: f32,
    /// `RenderVKParticleFogRange`: distance in metres beyond which converted systems keep their
    /// billboards. Default: `64`. Range: `8..=256`. Cost grows with the volume covered.
    pub particle_fog_range_m: f32,
    /// `RenderVKParticleFogMarchDivisor`: the particle fog is ray-marched once per N x N pixels
    /// and brought to every pixel by a depth-aware upsample; 0 picks N from the image height
    /// (1 below 540 rows, 2 at 720p, 3 at 1080p, 6 at 2160p). Default: `0`. Range: `0..=8`.
    pub particle_fog_march_divisor: u32,
    /// `RenderVKParticleFogAttachments`: also convert particle systems worn on avatars.
    /// Default: `false` (attachments stay billboards).
    pub particle_fog_attachments: bool,
    /// `RenderMaxPartCount`: maximum number of particles, as in the viewer (0 turns particles off).
    /// Default: `4096`. Range: `0..=8192` (the viewer's hard cap `LL_MAX_PARTICLE_COUNT`).
    pub max_part_count: i32,
    /// `RenderVKVolumetricFogGridX`: froxel grid width in cells. Default: `160`.
    /// Range: `16..=512`. Cost scales with X * Y * Z.
    pub froxel_grid_x: u32,
    /// `RenderVKVolumetricFogGridY`: froxel grid height in cells. Default: `90`.
    /// Range: `9..=288`. Cost scales with X * Y * Z.
    pub froxel_grid_y: u32,
    /// `RenderVKVolumetricFogGridZ`: froxel grid depth slices. Default: `64`.
    /// Range: `16..=256`. Cost scales with X * Y * Z.
    pub froxel_grid_z: u32,
    /// `RenderVKVolumetricFogHistoryWeight`: fraction of the previous frame's fog kept by temporal
    /// reprojection. Default: `0.9`. Range: `0..=0.98` (1 would never forget). No cost.
    pub froxel_history_weight: f32,
    /// `RenderVKVolumetricFogRange`: far end of the froxel grid in metres. Default: `96`.
    /// Range: `16..=1024`. No cost; a longer range spreads the same slices thinner.
    pub froxel_range_m: f32,
    /// `RenderVKVolumetricFogReference` (not saved): draw the host fog by a per-pixel ray-march
    /// in fine steps instead of the froxel lookup (a project option for tests and for judging the
    /// froxel fog). Default: `false`. Cost: hundreds of lit steps per pixel, far too slow for use.
    pub volumetric_fog_reference: bool,
    /// `RenderVKParticleCapacity`: GPU particle pool capacity in particles, for stress tests (a
    /// project option, not a viewer one). Default: `8192`. Range: `1..=4000000`. Memory grows
    /// linearly with it.
    pub particle_capacity: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            volumetric_fog: true,
            particle_fog: false,
            particle_fog_strength: 1.0,
            particle_fog_threshold: 0.7,
            particle_fog_density: 1.0,
            particle_fog_billow: 0.5,
            particle_fog_billow_scale_m: 2.0,
            particle_fog_billow_speed_m_per_s: 0.3,
            particle_fog_debug: FogDebugMode::Off,
            particle_fog_brick_budget_mb: 128,
            particle_fog_voxel_size_m: 0.075,
            particle_fog_range_m: 64.0,
            particle_fog_march_divisor: 0,
            particle_fog_attachments: false,
            max_part_count: 4096,
            froxel_grid_x: 160,
            froxel_grid_y: 90,
            froxel_grid_z: 64,
            froxel_history_weight: 0.9,
            froxel_range_m: 96.0,
            volumetric_fog_reference: false,
            particle_capacity: 8192,
        }
    }
}

impl Settings {
    /// The value of the setting called `name`.
    pub fn get(&self, name: &str) -> Result<SettingValue, SettingsError> {
        use SettingValue::{Boolean, F32, S32, U32};
        let desc = find_or_err(name)?;
        Ok(match desc.name {
            "RenderVKVolumetricFog" => Boolean(self.volumetric_fog),
            "RenderVKParticleFog" => Boolean(self.particle_fog),
            "RenderVKParticleFogStrength" => F32(self.particle_fog_strength),
            "RenderVKParticleFogThreshold" => F32(self.particle_fog_threshold),
            "RenderVKParticleFogDensity" => F32(self.particle_fog_density),
            "RenderVKParticleFogBillow" => F32(self.particle_fog_billow),
            "RenderVKParticleFogBillowScale" => F32(self.particle_fog_billow_scale_m),
            "RenderVKParticleFogBillowSpeed" => F32(self.particle_fog_billow_speed_m_per_s),
            "RenderVKParticleFogDebug" => S32(self.particle_fog_debug.as_i32()),
            "RenderVKParticleFogBrickBudgetMB" => U32(self.particle_fog_brick_budget_mb),
            "RenderVKParticleFogVoxelSize" => F32(self.particle_fog_voxel_size_m),
            "RenderVKParticleFogRange" => F32(self.particle_fog_range_m),
            "RenderVKParticleFogMarchDivisor" => U32(self.particle_fog_march_divisor),
            "RenderVKParticleFogAttachments" => Boolean(self.particle_fog_attachments),
            "RenderMaxPartCount" => S32(self.max_part_count),
            "RenderVKVolumetricFogGridX" => U32(self.froxel_grid_x),
            "RenderVKVolumetricFogGridY" => U32(self.froxel_grid_y),
            "RenderVKVolumetricFogGridZ" => U32(self.froxel_grid_z),
            "RenderVKVolumetricFogHistoryWeight" => F32(self.froxel_history_weight),
            "RenderVKVolumetricFogRange" => F32(self.froxel_range_m),
            "RenderVKVolumetricFogReference" => Boolean(self.volumetric_fog_reference),
            "RenderVKParticleCapacity" => U32(self.particle_capacity),
            other => unlisted(other),
        })
    }

    /// Sets the setting called `name`, rejecting a value of the wrong type or outside the range.
    pub fn set(&mut self, name: &str, value: SettingValue) -> Result<(), SettingsError> {
        let desc = find_or_err(name)?;
        let value = desc.check(value)?;
        self.store(desc, value);
        Ok(())
    }

    /// Sets a setting from text (`true`, `0.5`, `4096`), with the error naming the setting and its
    /// accepted type or range when the text does not fit.
    pub fn set_text(&mut self, name: &str, text: &str) -> Result<(), SettingsError> {
        let desc = find_or_err(name)?;
        let value = desc.parse_text(text)?;
        self.store(desc, value);
        Ok(())
    }

    /// Stores a value already checked against `desc` (type and range).
    pub(crate) fn store(&mut self, desc: &SettingDesc, value: SettingValue) {
        use SettingValue::{Boolean, F32, S32, U32};
        match (desc.name, value) {
            ("RenderVKVolumetricFog", Boolean(b)) => self.volumetric_fog = b,
            ("RenderVKParticleFog", Boolean(b)) => self.particle_fog = b,
            ("RenderVKParticleFogStrength", F32(x)) => self.particle_fog_strength = x,
            ("RenderVKParticleFogThreshold", F32(x)) => self.particle_fog_threshold = x,
            ("RenderVKParticleFogDensity", F32(x)) => self.particle_fog_density = x,
            ("RenderVKParticleFogBillow", F32(x)) => self.particle_fog_billow = x,
            ("RenderVKParticleFogBillowScale", F32(x)) => self.particle_fog_billow_scale_m = x,
            ("RenderVKParticleFogBillowSpeed", F32(x)) => self.particle_fog_billow_speed_m_per_s = x,
            ("RenderVKParticleFogDebug", S32(i)) => {
                self.particle_fog_debug = FogDebugMode::from_i32(i).unwrap_or_default();
            }
            ("RenderVKParticleFogBrickBudgetMB", U32(u)) => self.particle_fog_brick_budget_mb = u,
            ("RenderVKParticleFogVoxelSize", F32(x)) => self.particle_fog_voxel_size_m = x,
            ("RenderVKParticleFogRange", F32(x)) => self.particle_fog_range_m = x,
            ("RenderVKParticleFogMarchDivisor", U32(u)) => self.particle_fog_march_divisor = u,
            ("RenderVKParticleFogAttachments", Boolean(b)) => self.particle_fog_attachments = b,
            ("RenderMaxPartCount", S32(i)) => self.max_part_count = i,
            ("RenderVKVolumetricFogGridX", U32(u)) => self.froxel_grid_x = u,
            ("RenderVKVolumetricFogGridY", U32(u)) => self.froxel_grid_y = u,
            ("RenderVKVolumetricFogGridZ", U32(u)) => self.froxel_grid_z = u,
            ("RenderVKVolumetricFogHistoryWeight", F32(x)) => self.froxel_history_weight = x,
            ("RenderVKVolumetricFogRange", F32(x)) => self.froxel_range_m = x,
            ("RenderVKVolumetricFogReference", Boolean(b)) => self.volumetric_fog_reference = b,
            ("RenderVKParticleCapacity", U32(u)) => self.particle_capacity = u,
            (other, _) => unlisted(other),
        }
    }
}

/// A setting in the table that `get`/`store` do not handle: a bug in this crate, caught by the
/// tests that walk the whole table.
#[cold]
fn unlisted(name: &str) -> ! {
    panic!("setting {name} is in SETTINGS but not wired to a Settings field (or has the wrong type)")
}
