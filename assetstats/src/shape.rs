//! Shape statistics of the alpha alone, on the analysis grid: what a person sees in the sprite's
//! outline whatever its colour.
//!
//! All three are read from the [`GRID`] x [`GRID`] alpha grid (see `scan`), about the alpha
//! centroid `c = sum(a p) / sum(a)` (so an off-centre puff is judged by its own shape):
//!
//! * **Anisotropy** ([`AlphaShape::anisotropy`]): `1 - l2 / l1`, where `l1 >= l2` are the
//!   eigenvalues of the alpha-weighted second central moments (the covariance of the alpha mass).
//!   0 for anything with round (or square, or n-fold, n >= 3) symmetry; 0.75 for a 2:1 ellipse;
//!   near 1 for a streak, flame tongue, slash or spark line. A rotated anisotropic sprite looks
//!   different: this is what makes `FOLLOW_VELOCITY` visible.
//! * **Angular variation** ([`AlphaShape::angular_variation`]): the alpha mass in
//!   [`ANGULAR_SECTORS`] equal sectors about the centroid, weighted by distance from it (so the
//!   outer outline counts, not the dense core); the coefficient of variation (standard deviation
//!   over mean) of the sector masses. A round blob or a ragged cloud puff varies little from
//!   sector to sector; a star, a muzzle flash's petals, a heart's lobes or a spark's rays vary a
//!   lot, whatever their colour.
//! * **Thin fraction** ([`AlphaShape::thin_fraction`]): the share of the alpha mass that a grey
//!   morphological opening (erosion then dilation) with a square of side `2 *`
//!   [`OPENING_RADIUS`]` + 1` cells removes: structures thinner than that (rays, lines, hair-thin
//!   glints, scratches, text strokes) vanish, smooth falloffs do not (an opening only trims a
//!   smooth function's peaks by the rise across a few cells).
//!
//! Sources: moments and morphological opening are textbook image analysis (Gonzalez & Woods,
//! *Digital Image Processing*, chapters 9 and 11); the choices of weights and sizes are this
//! project's, tuned on a labelled set of real sprites (see the crate README).

use crate::scan::GRID;

/// Number of equal angular sectors about the alpha centroid for [`AlphaShape::angular_variation`].
pub const ANGULAR_SECTORS: usize = 16;

/// Radius, in grid cells, of the square structuring element of the opening (a 5 x 5 square: at
/// the 64-cell grid, structures under 5/64 of the texture width are thin).
pub const OPENING_RADIUS: usize = 2;

/// Number of equal angular sectors for [`AlphaShape::spikiness`] (narrow, so a ray fills one).
pub const SPIKE_SECTORS: usize = 32;

/// Fraction of the grid's peak alpha that defines a sector's reach for [`AlphaShape::spikiness`].
pub const SPIKE_LEVEL: f32 = 0.08;

/// Alpha mass below which the shape numbers are not read (an empty texture has no shape).
const MIN_MASS: f64 = 1e-3;

/// The shape of the alpha, from the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct AlphaShape {
    /// Alpha centroid, in half-widths from the texture centre (x right, y down).
    pub centroid: [f32; 2],
    /// `1 - l2 / l1` of the second central moments, in [0, 1].
    pub anisotropy: f32,
    /// Coefficient of variation of the distance-weighted alpha mass over the sectors.
    pub angular_variation: f32,
    /// Share of the alpha mass removed by the opening, in [0, 1].
    pub thin_fraction: f32,
    /// Longest reach over the median reach of the sectors (1 for a disc; large for rays).
    pub spikiness: f32,
}

/// Measures the alpha shape of a grid.
pub(crate) fn alpha_shape(grid: &[f32]) -> AlphaShape {
    let Some(m) = Moments::of(grid) else {
        return AlphaShape {
            centroid: [0.0; 2],
            anisotropy: 0.0,
            angular_variation: 0.0,
            thin_fraction: 0.0,
            spikiness: 1.0,
        };
    };
    let half = GRID as f64 / 2.0;
    AlphaShape {
        centroid: [((m.cx - half) / half) as f32, ((m.cy - half) / half) as f32],
        anisotropy: m.anisotropy(),
        angular_variation: angular_variation(grid, m.cx, m.cy, (m.xx + m.yy).sqrt()),
        thin_fraction: thin_fraction(grid, m.mass),
        spikiness: spikiness(grid, m.cx, m.cy),
    }
}

/// Longest over median sector reach about `(cx, cy)`: a sector's reach is the farthest cell in it
/// whose alpha is at least [`SPIKE_LEVEL`] of the grid's peak (in cells, at least half a cell).
fn spikiness(grid: &[f32], cx: f64, cy: f64) -> f32 {
    let peak = grid.iter().copied().fold(0.0f32, f32::max);
    let level = SPIKE_LEVEL * peak;
    let mut reach = [0.5f64; SPIKE_SECTORS];
    let per_radian = SPIKE_SECTORS as f64 / std::f64::consts::TAU;
    for (i, &a) in grid.iter().enumerate() {
        if a < level || a <= 0.0 {
            continue;
        }
        let dx = (i % GRID) as f64 + 0.5 - cx;
        let dy = (i / GRID) as f64 + 0.5 - cy;
        let angle = dy.atan2(dx) + std::f64::consts::PI;
        let s = ((angle * per_radian) as usize).min(SPIKE_SECTORS - 1);
        reach[s] = reach[s].max((dx * dx + dy * dy).sqrt());
    }
    let longest = reach.iter().copied().fold(0.0f64, f64::max);
    reach.sort_by(f64::total_cmp);
    let median = 0.5 * (reach[SPIKE_SECTORS / 2 - 1] + reach[SPIKE_SECTORS / 2]);
    (longest / median) as f32
}

/// Zeroth, first and second central moments of the grid alpha (cell centres at `i + 0.5`).
struct Moments {
    mass: f64,
    cx: f64,
    cy: f64,
    xx: f64,
    yy: f64,
    xy: f64,
}

impl Moments {
    fn of(grid: &[f32]) -> Option<Moments> {
        let (mut mass, mut sx, mut sy, mut sxx, mut syy, mut sxy) = (0.0f64, 0.0, 0.0, 0.0, 0.0, 0.0);
        for (i, &a) in grid.iter().enumerate() {
            let a = f64::from(a);
            let x = (i % GRID) as f64 + 0.5;
            let y = (i / GRID) as f64 + 0.5;
            mass += a;
            sx += a * x;
            sy += a * y;
            sxx += a * x * x;
            syy += a * y * y;
            sxy += a * x * y;
        }
        if mass < MIN_MASS {
            return None;
        }
        let (cx, cy) = (sx / mass, sy / mass);
        Some(Moments {
            mass,
            cx,
            cy,
            xx: sxx / mass - cx * cx,
            yy: syy / mass - cy * cy,
            xy: sxy / mass - cx * cy,
        })
    }

    /// `1 - l2 / l1` of the covariance matrix `[[xx, xy], [xy, yy]]`.
    fn anisotropy(&self) -> f32 {
        let mean = 0.5 * (self.xx + self.yy);
        let diff = (0.25 * (self.xx - self.yy).powi(2) + self.xy * self.xy).sqrt();
        let (l1, l2) = (mean + diff, (mean - diff).max(0.0));
        if l1 <= 0.0 {
            0.0
        } else {
            (1.0 - l2 / l1) as f32
        }
    }
}

/// Coefficient of variation of the alpha mass per sector about `(cx, cy)`, counting only the
/// outer alpha: cells farther than the RMS radius `rms` of the alpha mass.
fn angular_variation(grid: &[f32], cx: f64, cy: f64, rms: f64) -> f32 {
    let mut sectors = [0.0f64; ANGULAR_SECTORS];
    let per_radian = ANGULAR_SECTORS as f64 / std::f64::consts::TAU;
    for (i, &a) in grid.iter().enumerate() {
        if a <= 0.0 {
            continue;
        }
        let dx = (i % GRID) as f64 + 0.5 - cx;
        let dy = (i / GRID) as f64 + 0.5 - cy;
        if dx * dx + dy * dy <= rms * rms {
            continue;
        }
        let angle = dy.atan2(dx) + std::f64::consts::PI;
        let s = ((angle * per_radian) as usize).min(ANGULAR_SECTORS - 1);
        sectors[s] += f64::from(a);
    }
    let mean = sectors.iter().sum::<f64>() / ANGULAR_SECTORS as f64;
    if mean <= 0.0 {
        return 0.0;
    }
    let var = sectors.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / ANGULAR_SECTORS as f64;
    (var.sqrt() / mean) as f32
}

/// Share of the alpha mass `mass` removed by the grey opening with a square of radius
/// [`OPENING_RADIUS`] (alpha 0 outside the texture).
fn thin_fraction(grid: &[f32], mass: f64) -> f32 {
    let eroded = separable(grid, OPENING_RADIUS, f32::min, 0.0);
    let opened = separable(&eroded, OPENING_RADIUS, f32::max, 0.0);
    let kept: f64 = opened.iter().map(|&a| f64::from(a)).sum();
    ((mass - kept) / mass).clamp(0.0, 1.0) as f32
}

/// A square min or max filter of radius `r`, as a row pass then a column pass; cells outside the
/// grid read `outside`.
fn separable(grid: &[f32], r: usize, op: fn(f32, f32) -> f32, outside: f32) -> Vec<f32> {
    let pass = |src: &[f32], step_x: bool| -> Vec<f32> {
        let mut out = vec![0.0f32; GRID * GRID];
        for (i, cell) in out.iter_mut().enumerate() {
            let (x, y) = (i % GRID, i / GRID);
            let pos = if step_x { x } else { y };
            let mut acc = src[i];
            for d in 1..=r {
                let lo = pos
                    .checked_sub(d)
                    .map_or(outside, |p| src[if step_x { y * GRID + p } else { p * GRID + x }]);
                let hi = if pos + d < GRID {
                    src[if step_x { y * GRID + pos + d } else { (pos + d) * GRID + x }]
                } else {
                    outside
                };
                acc = op(op(acc, lo), hi);
            }
            *cell = acc;
        }
        out
    };
    pass(&pass(grid, true), false)
}
