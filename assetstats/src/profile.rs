//! The radial alpha profile about the texture centre, and the three numbers read from it.
//!
//! The profile is the mean grid alpha in [`RADIAL_BINS`] rings of equal width about the alpha
//! centroid, with radius measured in half-widths (0 at the centroid, 1 half a texture width away;
//! cells beyond are left out). How alpha falls off tells the shapes apart:
//!
//! * a soft blob falls smoothly: a Gaussian of standard deviation `s` half-widths loses at most
//!   `exp(-1/2) / (s * RADIAL_BINS)` of its peak per ring (0.13 for `s` = 0.3);
//! * a hard disc drops at once: most of its peak is lost within one ring ([`ProfileShape::max_drop`]);
//! * a ring rises then falls ([`ProfileShape::rise`]);
//! * a sparkle (bright point core with a faint halo) loses half its peak very close to the centre
//!   but keeps a tenth of it far out ([`ProfileShape::core_halo_ratio`]): for a Gaussian the ratio
//!   of the half-peak radius to the tenth-peak radius is `sqrt(ln 2 / ln 10)` = 0.55 whatever its
//!   width, for an exponential falloff `ln 2 / ln 10` = 0.30, for a core-plus-halo glint far less.

use crate::scan::GRID;

/// Number of rings in the radial profile; each is 1/16 of a half-width (2 grid cells) wide.
pub const RADIAL_BINS: usize = 16;

/// Peak alpha below which the profile's shape numbers are not read (an empty texture has no shape).
const MIN_PEAK_ALPHA: f32 = 0.02;

/// Profile level, as a fraction of the peak, that defines the core radius.
const CORE_LEVEL: f32 = 0.5;
/// Profile level, as a fraction of the peak, that defines the halo radius.
const HALO_LEVEL: f32 = 0.1;

/// What the radial profile says about the texture's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ProfileShape {
    /// Largest rise of the profile going outward, above the lowest value nearer the centre, as a
    /// fraction of the peak (0 for anything that only falls; about 1 for a ring).
    pub rise: f32,
    /// Largest fall between neighbouring rings, as a fraction of the peak.
    pub max_drop: f32,
    /// Radius where the profile first falls below half its peak, over the radius where it first
    /// falls below a tenth (both counted outward from the peak; 1 if it never does within the
    /// inscribed circle).
    pub core_halo_ratio: f32,
}

/// Mean grid alpha per ring about `centre` (in half-widths from the texture centre: the alpha
/// centroid, so an off-centre puff is profiled about itself); cells farther than one half-width
/// from it are left out.
pub(crate) fn radial_profile(grid: &[f32], centre: [f32; 2]) -> [f32; RADIAL_BINS] {
    let half = GRID as f32 / 2.0;
    let mut sum = [0.0f32; RADIAL_BINS];
    let mut count = [0u32; RADIAL_BINS];
    for (i, &alpha) in grid.iter().enumerate() {
        let dx = ((i % GRID) as f32 + 0.5 - half) / half - centre[0];
        let dy = ((i / GRID) as f32 + 0.5 - half) / half - centre[1];
        let ring = ((dx * dx + dy * dy).sqrt() * RADIAL_BINS as f32) as usize;
        if ring < RADIAL_BINS {
            sum[ring] += alpha;
            count[ring] += 1;
        }
    }
    let mut profile = [0.0f32; RADIAL_BINS];
    for ((p, s), n) in profile.iter_mut().zip(sum).zip(count) {
        *p = if n == 0 { 0.0 } else { s / n as f32 };
    }
    profile
}

/// Reads rise, steepest drop and core/halo ratio from a profile.
pub(crate) fn profile_shape(profile: &[f32; RADIAL_BINS]) -> ProfileShape {
    let (peak_bin, peak) =
        profile
            .iter()
            .copied()
            .enumerate()
            .fold((0, 0.0f32), |best, (i, v)| if v > best.1 { (i, v) } else { best });
    if peak < MIN_PEAK_ALPHA {
        return ProfileShape { rise: 0.0, max_drop: 0.0, core_halo_ratio: 1.0 };
    }
    let mut rise = 0.0f32;
    let mut lowest = profile[0];
    let mut max_drop = 0.0f32;
    for pair in profile.windows(2) {
        lowest = lowest.min(pair[0]);
        rise = rise.max(pair[1] - lowest);
        max_drop = max_drop.max(pair[0] - pair[1]);
    }
    let core = crossing_radius(profile, peak_bin, CORE_LEVEL * peak);
    let halo = crossing_radius(profile, peak_bin, HALO_LEVEL * peak);
    ProfileShape { rise: rise / peak, max_drop: max_drop / peak, core_halo_ratio: core / halo }
}

/// Radius (half-widths) where the profile, going outward from `start`, first falls below `level`,
/// interpolated linearly between ring centres; 1 if it never does.
fn crossing_radius(profile: &[f32; RADIAL_BINS], start: usize, level: f32) -> f32 {
    let centre = |i: usize| (i as f32 + 0.5) / RADIAL_BINS as f32;
    for i in start..RADIAL_BINS - 1 {
        let (a, b) = (profile[i], profile[i + 1]);
        if b < level {
            let t = if a > b { (a - level) / (a - b) } else { 0.0 };
            return centre(i) + t.clamp(0.0, 1.0) / RADIAL_BINS as f32;
        }
    }
    1.0
}
