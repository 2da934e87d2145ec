//! The CPU twin of `fog.brick_march`: one ray through the particle fog's [`Field`], stepped as the
//! GPU steps it, giving its transmittance, optical depth, in-scattered light and where the fog
//! starts and ends (the `cloud` image).
//!
//! Stepping (mirrors `march.comp`): the ray is clipped to the box of the bricks in use and to the
//! opaque surface. Where no level has an occupied brick (one whose 10³ atlas voxels, apron
//! included, hold any extinction) the ray jumps to the exit of the brick holding the point on the
//! finest level whose clip window (around the camera, [`BrickLayout`]) holds it; inside occupied
//! bricks it steps one voxel of the finest occupied level, the first step after a jump shortened by the ray's jitter. Each step samples the field at
//! its midpoint and integrates analytically (transmittance `exp(-sigma dt)`, in-scatter
//! `source * (1 - exp(-sigma dt))`); the march stops at [`MIN_TRANSMITTANCE`] or after
//! [`MAX_STEPS`]. The density is read at the point the billow warp ([`Billow::warp`]) moves the
//! midpoint to, weighted by the warp's Jacobian determinant so that the billows move density
//! without creating or destroying it ([`Billow::extinction_at`]), as the GPU reads it.

use std::collections::HashMap;

use glam::{IVec3, Mat3, Vec3};

use crate::bricks::{self, BrickLayout, BRICK_VOXELS, LEVELS};
use crate::density::Field;

/// The march stops when the transmittance falls below this.
pub const MIN_TRANSMITTANCE: f32 = 0.01;
/// Loop iterations per ray (steps and jumps).
pub const MAX_STEPS: usize = 384;
/// How far past a brick's exit a jump lands, m.
pub const EMPTY_STEP_EPS_M: f32 = 1e-3;
/// Shortest first step, as a fraction of a voxel.
const MIN_FIRST_STEP: f32 = 0.05;

/// A ray from `origin` along the unit `dir`, ending at the opaque surface `t_surface` m away
/// (`f32::INFINITY` for the sky).
#[derive(Clone, Copy, Debug)]
pub struct Ray {
    /// Start (the camera), m.
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
    /// Distance to the opaque surface, m.
    pub t_surface: f32,
}

/// What the particle fog does along one ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Marched {
    /// Transmittance from the origin to the end of the march.
    pub transmittance: f32,
    /// Optical depth summed over the steps.
    pub optical_depth: f32,
    /// Light scattered toward the origin: the sum of `source * (1 - exp(-sigma dt))` weighted by
    /// the transmittance in front of each step.
    pub in_scatter: Vec3,
    /// Where the first step with fog starts and the last ends, m (`None`: no fog on the ray).
    pub span: Option<(f32, f32)>,
}

/// The billow warp (`RenderVKParticleFogBillow*` at a time): a divergence-free displacement, a
/// sum of four curl modes `cos(k.p + phase) (k x a) / |k|^2`, advected at `speed_m_per_s`; two
/// copies half a period apart are cross-faded so no copy is advected long enough to stretch
/// (`billow_point` in `march.comp`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Billow {
    /// Strength, 0..1 (0: the splatted field itself).
    pub strength: f32,
    /// Period, m.
    pub scale_m: f32,
    /// Drift, m/s.
    pub speed_m_per_s: f32,
    /// Time, s.
    pub time_s: f32,
}

impl Billow {
    /// No warp.
    pub const NONE: Billow = Billow { strength: 0.0, scale_m: 1.0, speed_m_per_s: 0.0, time_s: 0.0 };

    /// The farthest the warp moves a point, m (a bound: every mode at its largest).
    pub fn max_displacement_m(&self) -> f32 {
        if self.strength <= 0.0 {
            return 0.0;
        }
        let modes: f32 = (0..4)
            .map(|i| {
                let k = CURL_K[i] * (std::f32::consts::TAU / self.scale_m) * (1.0 + 0.37 * i as f32);
                k.cross(CURL_A[i]).length() / k.dot(k)
            })
            .sum();
        self.strength * self.scale_m * BILLOW_AMPLITUDE * modes
    }

    /// The point whose density the march sees at `p`.
    pub fn warp(&self, p: Vec3) -> Vec3 {
        self.warp_with_jacobian(p).0
    }

    /// The point whose density the march sees at `p`, and the Jacobian determinant of the warp
    /// there (at least 0): the factor that density read through the warp is weighted by so that
    /// the warp moves it without creating or destroying it ([`Billow::extinction_at`]).
    pub fn warp_with_jacobian(&self, p: Vec3) -> (Vec3, f32) {
        if self.strength <= 0.0 {
            return (p, 1.0);
        }
        let t = self.speed_m_per_s * self.time_s / self.scale_m;
        let (a, b) = (t.fract(), (t + 0.5).fract());
        let wa = 1.0 - (2.0 * a - 1.0).abs();
        let tau = std::f32::consts::TAU;
        let (da, ja) = self.curl_modes(p, tau * a);
        let (db, jb) = self.curl_modes(p + Vec3::new(17.3, -9.1, 4.7), tau * b);
        let amplitude = self.strength * self.scale_m * BILLOW_AMPLITUDE;
        let jacobian = Mat3::IDENTITY + (ja * wa + jb * (1.0 - wa)) * amplitude;
        (p + amplitude * (wa * da + (1.0 - wa) * db), jacobian.determinant().max(0.0))
    }

    /// The extinction (1/m) the march sees at `p`: the field at the warped point times the
    /// warp's Jacobian determinant. By the change of variables `y = warp(p)`, the integral of
    /// that over space is the field's own wherever the warp is one-to-one (the determinant stays
    /// above 0: at every `strength` up to 1 with `scale_m` up to 2 m, and up to 0.5 at 4 m).
    pub fn extinction_at(&self, field: &Field, p: Vec3) -> f32 {
        let (q, jacobian) = self.warp_with_jacobian(p);
        field.extinction_at(q) * jacobian
    }

    /// The curl modes at `p` with phase `phase` and their derivative (column `j`: the modes'
    /// derivative along axis `j`).
    fn curl_modes(&self, p: Vec3, phase: f32) -> (Vec3, Mat3) {
        (0..4).fold((Vec3::ZERO, Mat3::ZERO), |(d, jac), i| {
            let k = CURL_K[i] * (std::f32::consts::TAU / self.scale_m) * (1.0 + 0.37 * i as f32);
            let c = k.cross(CURL_A[i]) / k.dot(k);
            let arg = k.dot(p) + phase * (1.0 + 0.5 * i as f32);
            let dc = c * -arg.sin();
            (d + arg.cos() * c, jac + Mat3::from_cols(dc * k.x, dc * k.y, dc * k.z))
        })
    }
}

/// Displacement of the warp at strength 1, in periods per unit of the curl modes: strong enough to
/// billow, weak enough that the warp stays one-to-one at the sliders' defaults and well beyond
/// ([`Billow::extinction_at`]).
pub const BILLOW_AMPLITUDE: f32 = 0.35;

/// The curl modes' wave vectors (times 2 pi / scale) and amplitudes (`curl_modes` in march.comp).
const CURL_K: [Vec3; 4] = [
    Vec3::new(1.0, 0.6, 0.3),
    Vec3::new(-0.4, 1.1, 0.7),
    Vec3::new(0.8, -0.5, 1.2),
    Vec3::new(0.3, 0.9, -1.0),
];
const CURL_A: [Vec3; 4] = [
    Vec3::new(0.2, -0.7, 0.6),
    Vec3::new(0.9, 0.1, -0.3),
    Vec3::new(-0.5, 0.6, 0.4),
    Vec3::new(0.6, 0.5, 0.2),
];

/// A [`Field`] ready to be marched: each brick's peak extinction, apron included.
pub struct MarchField<'f> {
    field: &'f Field,
    peaks: HashMap<(usize, IVec3), f32>,
    bounds: Option<(Vec3, Vec3)>,
    layout: BrickLayout,
}

impl<'f> MarchField<'f> {
    /// Prepares `field`, whose clip windows were centred on `camera`.
    pub fn new(field: &'f Field, camera: Vec3) -> MarchField<'f> {
        let peaks =
            field.bricks.keys().map(|&(level, b)| ((level, b), apron_peak(field, level, b))).collect();
        let layout = BrickLayout::new(field.voxel_size_m, camera);
        MarchField { field, peaks, bounds: field.bounds(), layout }
    }

    /// The brick edge (m) of the finest level whose clip window holds `p` (the coarsest level
    /// when none does).
    fn window_brick_m(&self, p: Vec3) -> f32 {
        let level = (0..LEVELS)
            .find(|&l| {
                let cell = (p / self.layout.voxel_m(l)).floor().as_ivec3();
                self.layout.page_index(l, bricks::brick_of(cell)).is_some()
            })
            .unwrap_or(LEVELS - 1);
        self.layout.voxel_m(level) * BRICK_VOXELS as f32
    }

    /// Marches `ray` with the first-step `jitter` (0..1, [`start_jitter`] on the GPU) through the
    /// field warped by `billow`; `source` gives the light a unit of extinction scatters toward the
    /// origin at a point.
    pub fn march(&self, ray: &Ray, jitter: f32, billow: &Billow, source: impl Fn(Vec3) -> Vec3) -> Marched {
        let mut out = Marched { transmittance: 1.0, optical_depth: 0.0, in_scatter: Vec3::ZERO, span: None };
        let Some((lo, hi)) = self.bounds else { return out };
        let Some((t0, t1)) = ray_box(ray.origin, ray.dir, lo, hi) else { return out };
        let t1 = t1.min(ray.t_surface);
        let mut t = t0;
        let mut first = true;
        for _ in 0..MAX_STEPS {
            if t >= t1 || out.transmittance <= MIN_TRANSMITTANCE {
                break;
            }
            let p = ray.origin + ray.dir * t;
            let Some(voxel) = self.occupied_voxel(p) else {
                t += brick_exit(p, ray.dir, self.window_brick_m(p)) + EMPTY_STEP_EPS_M;
                first = true;
                continue;
            };
            let dt = (voxel * if first { jitter.max(MIN_FIRST_STEP) } else { 1.0 }).min(t1 - t);
            first = false;
            let mid = ray.origin + ray.dir * (t + 0.5 * dt);
            let sigma = billow.extinction_at(self.field, mid);
            if sigma > 0.0 {
                let absorbed = 1.0 - (-sigma * dt).exp();
                out.in_scatter += out.transmittance * source(mid) * absorbed;
                out.optical_depth += sigma * dt;
                out.span = Some((out.span.map_or(t, |s| s.0), t + dt));
                out.transmittance *= 1.0 - absorbed;
            }
            t += dt;
        }
        out
    }

    /// The voxel edge of the finest level with an occupied brick at `p`.
    fn occupied_voxel(&self, p: Vec3) -> Option<f32> {
        (0..bricks::LEVELS).find_map(|level| {
            let vox = bricks::level_voxel_m(self.field.voxel_size_m, level);
            let b = bricks::brick_of((p / vox).floor().as_ivec3());
            self.peaks.get(&(level, b)).filter(|&&peak| peak > 0.0).map(|_| vox)
        })
    }
}

/// The interleaved gradient noise (Jimenez 2014) the GPU jitters ray `px` with in frame `frame`.
pub fn start_jitter(px: [u32; 2], frame: u32) -> f32 {
    let o = 5.588238 * (frame % 64) as f32;
    let (x, y) = (px[0] as f32 + o, px[1] as f32 + o);
    let inner = (x * 0.06711056 + y * 0.00583715).fract();
    (52.982_918 * inner).fract()
}

/// The largest extinction of the 10³ cells brick `b` of `level` stores (its 8³ and a one-cell
/// apron from its neighbours).
fn apron_peak(field: &Field, level: usize, b: IVec3) -> f32 {
    let base = b * BRICK_VOXELS - IVec3::ONE;
    let n = BRICK_VOXELS + 2;
    let mut peak = 0.0f32;
    for i in 0..n * n * n {
        let c = base + IVec3::new(i % n, (i / n) % n, i / (n * n));
        peak = peak.max(field.cell(level, c));
    }
    peak
}

/// Entry and exit distances of the ray through the box, entry clamped to 0.
fn ray_box(o: Vec3, d: Vec3, lo: Vec3, hi: Vec3) -> Option<(f32, f32)> {
    let inv = d.recip();
    let (a, b) = ((lo - o) * inv, (hi - o) * inv);
    let (tmin, tmax) = (a.min(b), a.max(b));
    let t0 = tmin.max_element().max(0.0);
    let t1 = tmax.min_element();
    (t1 > t0).then_some((t0, t1))
}

/// Distance along `d` from `p` to the exit of the cube of edge `edge` (world-aligned) holding `p`.
fn brick_exit(p: Vec3, d: Vec3, edge: f32) -> f32 {
    let lo = (p / edge).floor() * edge;
    let hi = lo + Vec3::splat(edge);
    ((lo - p) / d).max((hi - p) / d).min_element()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A field of `n`³ level-0 bricks of uniform extinction `sigma`, from the origin.
    fn block(sigma: f32, n: i32, voxel: f32) -> Field {
        let mut field = Field { voxel_size_m: voxel, ..Field::default() };
        for i in 0..n * n * n {
            let b = IVec3::new(i % n, (i / n) % n, i / (n * n));
            field.bricks.insert((0, b), vec![sigma; 512]);
        }
        field
    }

    #[test]
    fn transmittance_through_a_uniform_block_is_beer_lambert() {
        // 4 bricks of 8 voxels of 0.1 m: a 3.2 m cube; the ray runs inside it, away from the
        // edges where the trilinear field ramps to 0, and stops at a surface.
        let (sigma, length) = (1.3, 2.0);
        let field = block(sigma, 4, 0.1);
        let mf = MarchField::new(&field, Vec3::ZERO);
        let ray = Ray { origin: Vec3::new(0.6, 1.6, 1.6), dir: Vec3::X, t_surface: length };
        for jitter in [0.0, 0.37, 0.99] {
            let m = mf.march(&ray, jitter, &Billow::NONE, |_| Vec3::ONE);
            let expected = (-sigma * length).exp();
            assert!((m.transmittance / expected - 1.0).abs() < 0.005, "{} vs {expected}", m.transmittance);
            assert!((m.optical_depth - sigma * length).abs() < 1e-4);
            // A constant source scatters source * (1 - T) in all.
            assert!((m.in_scatter.x - (1.0 - expected)).abs() < 1e-4, "{:?}", m.in_scatter);
            assert_eq!(m.span, Some((0.0, length)));
        }
    }

    #[test]
    fn a_ray_that_misses_the_bricks_or_stops_in_front_of_them_sees_nothing() {
        let field = block(2.0, 2, 0.1);
        let mf = MarchField::new(&field, Vec3::ZERO);
        let miss = Ray { origin: Vec3::new(-1.0, 5.0, 0.5), dir: Vec3::X, t_surface: f32::INFINITY };
        let blocked = Ray { origin: Vec3::new(-1.0, 0.8, 0.8), dir: Vec3::X, t_surface: 0.5 };
        for ray in [miss, blocked] {
            let m = mf.march(&ray, 0.5, &Billow::NONE, |_| Vec3::ONE);
            assert_eq!((m.transmittance, m.optical_depth, m.span), (1.0, 0.0, None));
        }
    }

    #[test]
    fn empty_bricks_are_skipped_and_the_march_stops_when_opaque() {
        // Two bricks 3 m apart, the first empty: the ray crosses the gap in a few jumps and the
        // dense second brick stops it near T = 0.01.
        let mut field = Field { voxel_size_m: 0.1, ..Field::default() };
        field.bricks.insert((0, IVec3::new(0, 0, 0)), vec![0.0; 512]);
        field.bricks.insert((0, IVec3::new(4, 0, 0)), vec![50.0; 512]);
        let mf = MarchField::new(&field, Vec3::ZERO);
        let ray = Ray { origin: Vec3::new(-0.5, 0.4, 0.4), dir: Vec3::X, t_surface: f32::INFINITY };
        let m = mf.march(&ray, 0.5, &Billow::NONE, |_| Vec3::ZERO);
        assert!(m.transmittance <= MIN_TRANSMITTANCE && m.transmittance > 1e-4, "{m:?}");
        let (front, _) = m.span.expect("fog");
        assert!((front - 3.7).abs() < 0.11, "fog starts where the trilinear ramp does: {front}");
    }

    #[test]
    fn the_billow_warp_moves_density_without_creating_it() {
        // A cloud of a few bricks with a smooth bump; its mass seen through the warp (sampled on a
        // fine grid) stays within 0.5 % of the unwarped mass, while the density moves (without
        // the Jacobian's weight it changed by 2 %).
        let voxel = 0.1;
        let mut field = Field { voxel_size_m: voxel, ..Field::default() };
        for i in 0..27 {
            let b = IVec3::new(i % 3, (i / 3) % 3, i / 9);
            let cells = (0..512)
                .map(|c| {
                    let cell = b * BRICK_VOXELS + IVec3::new(c % 8, (c / 8) % 8, c / 64);
                    let p = (cell.as_vec3() + 0.5) * voxel - Vec3::splat(1.2);
                    (-p.length_squared() / 0.3).exp()
                })
                .collect();
            field.bricks.insert((0, b), cells);
        }
        let billow = Billow { strength: 1.0, scale_m: 2.0, speed_m_per_s: 0.3, time_s: 7.3 };
        let h = 0.05;
        let mass = |warp: &Billow| -> (f64, f64) {
            let (mut m, mut moved) = (0.0, 0.0);
            for i in 0..(3.6f32 / h) as i32 {
                for j in 0..(3.6f32 / h) as i32 {
                    for k in 0..(3.6f32 / h) as i32 {
                        let p = (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * h - Vec3::splat(0.6);
                        let e = f64::from(warp.extinction_at(&field, p));
                        m += e;
                        moved += (e - f64::from(field.extinction_at(p))).abs();
                    }
                }
            }
            (m * f64::from(h).powi(3), moved * f64::from(h).powi(3))
        };
        let (still, _) = mass(&Billow::NONE);
        let (warped, moved) = mass(&billow);
        assert!((warped / still - 1.0).abs() < 0.005, "mass {still} -> {warped}");
        assert!(moved > 0.1 * still, "the warp moves density ({moved} of {still})");
    }

    #[test]
    fn jitter_is_the_gpus_interleaved_gradient_noise() {
        // Values of the formula in march.comp worked by hand for two rays.
        assert!((start_jitter([0, 0], 0) - 0.0).abs() < 1e-6);
        let x = 3.0f32 * 0.06711056 + 5.0 * 0.00583715;
        assert!((start_jitter([3, 5], 0) - (52.982_918 * x.fract()).fract()).abs() < 1e-6);
        for f in 0..64 {
            let j = start_jitter([17, 9], f);
            assert!((0.0..1.0).contains(&j));
        }
    }
}
