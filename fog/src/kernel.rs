//! A density carrier's mass and kernel: what one converted particle puts into the bricks.
//!
//! **Mass**: a carrier's mass is its optical cross-section in m²,
//! `m = size_x * size_y * alpha * tex_mean_alpha * w * Density * Strength`. A billboard of that
//! size and opacity, seen head-on, removes `alpha * tex_mean_alpha` of the light over its area on
//! average, so its area-integrated optical depth is `m` (at `w = Density = Strength = 1`); a blob
//! whose extinction integrates to `m` over space has the same area-integrated optical depth seen
//! from *any* direction. That is why the cross-fade from billboard to fog changes no coverage on
//! average.
//!
//! **Width law**: the kernel is an isotropic Gaussian whose standard deviation grows with the
//! particle's size and age, `sigma² = (k s)² + 2 D age`, with `s = sqrt(size_x size_y)` and:
//! - `k = sqrt(tex_mean_alpha / 2 pi)` (clamped to `[KERNEL_K_MIN, KERNEL_K_MAX]`): a sprite whose
//!   alpha falls off as a 2D Gaussian with peak 1 covers `2 pi sigma²` of its `s²` square, i.e. has
//!   mean alpha `2 pi sigma² / s²`; so `k s` is the standard deviation of the sprite's own
//!   footprint (0.24 s for the typical soft puff with mean alpha 0.35).
//! - `D = KERNEL_DIFFUSION_M2_PER_S`, a small turbulent diffusion (0.001 m²/s: 0.14 m of extra
//!   spread after 10 s): the particle's own size curve (start to end scale) is the creator's
//!   spreading; diffusion adds the mixing that billboards cannot show, without outrunning it (at
//!   0.005 m²/s the fog machine's cloud covered a quarter more of the frame than its billboards).
//!
//! **Splat width** ([`splat_sigma_m`]): the march sees the cells trilinearly, so a kernel
//! splatted with `sigma` arrives with the variance of the cell's box (`v²/12`) and of the
//! trilinear tent (`v²/6`) added on each axis, `v` the voxel of its level. On coarse levels (the
//! voxel may be up to 2 sigma) that doubled the variance and the fog covered more than its
//! billboards; the splat therefore uses `sqrt(sigma² - v²/4)`, at least `v/4`, so what the
//! march sees has the kernel's own width.
//!
//! The peak falls as `m / (2 pi sigma²)^(3/2)` while the integral stays `m`: the smoke spreads and
//! thins, and the alpha fade over life (through `alpha`) sets its dissipation.
//!
//! **Cell weights**: on each axis the Gaussian is integrated over every cell it touches
//! (`Phi(b) - Phi(a)`, with an erf accurate to 1.5e-7), then renormalised over those cells, so a
//! kernel narrower than a voxel still deposits exactly its mass (never a point sample).
//!
//! **Fixed point**: the bricks accumulate extinction in units of `1 / EXTINCTION_UNITS_PER_INV_M`
//! per metre with integer atomics. A carrier's total, `m / voxel_volume` in those units, is
//! rounded stochastically (a hashed uniform per carrier and frame), so a million tiny carriers lose
//! nothing on average; its cells take the floor of their share and the remainder goes to its
//! peak cell (per z slab, as the GPU splits a carrier over slab threads), so the cells sum to the
//! carrier's integer total exactly.

/// Standard deviation of the sprite footprint per unit size, lower bound.
pub const KERNEL_K_MIN: f32 = 0.1;
/// Standard deviation of the sprite footprint per unit size, upper bound (a fully opaque square
/// has mean alpha 1: `sqrt(1 / 2 pi)` = 0.4).
pub const KERNEL_K_MAX: f32 = 0.4;
/// Turbulent diffusion coefficient of the kernel, m²/s.
pub const KERNEL_DIFFUSION_M2_PER_S: f32 = 0.001;
/// Fixed-point units per 1/m of extinction in the accumulation bricks.
pub const EXTINCTION_UNITS_PER_INV_M: f32 = 16384.0;
/// A carrier whose total exceeds this many units is refused as absurd (it would overflow cells).
pub const MAX_CARRIER_UNITS: f32 = 1.0e9;
/// Tint and emission accumulate `units x channel x TINT_SCALE` (keeps their sums below the
/// extinction's).
pub const TINT_SCALE: f32 = 1.0 / 16.0;
/// A carrier larger than this (m, either size) is refused as absurd.
pub const MAX_CARRIER_SIZE_M: f32 = 1000.0;

/// The kernel's standard deviation (m) for a particle of `size_m` (x, y), `age_s` and texture
/// mean alpha `tex_mean_alpha` (module docs, width law).
/// The standard deviation the splat uses for a kernel of `sigma_m` on voxels of `voxel_m`: the
/// kernel's own width less what the cells and their trilinear reconstruction add (module docs).
pub fn splat_sigma_m(sigma_m: f32, voxel_m: f32) -> f32 {
    (sigma_m * sigma_m - 0.25 * voxel_m * voxel_m).max(0.0).sqrt().max(SPLAT_SIGMA_MIN_VOXELS * voxel_m)
}

/// The narrowest splat, in voxels.
pub const SPLAT_SIGMA_MIN_VOXELS: f32 = 0.25;

/// A carrier's kernel standard deviation (m) at `age_s` for a sprite of `size_m` whose texture's
/// mean alpha is `tex_mean_alpha` (module docs).
pub fn kernel_sigma_m(size_m: [f32; 2], age_s: f32, tex_mean_alpha: f32) -> f32 {
    let s = (size_m[0] * size_m[1]).max(0.0).sqrt();
    let k = (tex_mean_alpha / std::f32::consts::TAU).sqrt().clamp(KERNEL_K_MIN, KERNEL_K_MAX);
    ((k * s) * (k * s) + 2.0 * KERNEL_DIFFUSION_M2_PER_S * age_s.max(0.0)).sqrt()
}

/// `erf(x)`, Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7), as the GPU computes it.
pub fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [0.254_829_6, -0.284_496_74, 1.421_413_7, -1.453_152_1, 1.061_405_4];
    let ax = x.abs();
    let t = 1.0 / (1.0 + P * ax);
    let poly = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))));
    let y = 1.0 - poly * (-ax * ax).exp();
    y.copysign(x)
}

/// The standard normal CDF.
pub fn phi(x: f32) -> f32 {
    0.5 * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The renormalised weights of cells `lo..=hi` (edge `voxel_m`) for a Gaussian at `mu` with
/// `sigma` on one axis: each cell's integral over the integral across all of them (the telescoped
/// sum of the cell integrals), as `fog.brick_splat` computes them cell by cell; entries past
/// `hi - lo` are zero. A degenerate kernel puts everything in [`peak_cell`].
pub fn axis_weights(mu: f32, sigma: f32, voxel_m: f32, (lo, hi): (i32, i32)) -> [f32; 10] {
    let cdf = |cell: i32| phi((cell as f32 * voxel_m - mu) / sigma);
    let norm = cdf(hi + 1) - cdf(lo);
    let inv_norm = if norm > 0.0 { 1.0 / norm } else { 0.0 };
    let peak = peak_cell(mu, voxel_m, (lo, hi));
    std::array::from_fn(|i| {
        let i = i as i32;
        if lo + i > hi {
            0.0
        } else if inv_norm == 0.0 {
            if i == peak {
                1.0
            } else {
                0.0
            }
        } else {
            (cdf(lo + i + 1) - cdf(lo + i)) * inv_norm
        }
    })
}

/// The cell holding `mu` (the one with the largest share of a centred Gaussian), relative to `lo`.
pub fn peak_cell(mu: f32, voxel_m: f32, (lo, hi): (i32, i32)) -> i32 {
    ((mu / voxel_m).floor() as i32).clamp(lo, hi) - lo
}

/// The PCG hash (Jarzynski and Olano 2020), as the GPU computes it.
pub fn pcg_hash(v: u32) -> u32 {
    let state = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

/// The uniform in `[0, 1)` that rounds carrier `key`'s total in frame `frame`.
pub fn rounding_uniform(key: u32, frame: u32) -> f32 {
    (pcg_hash(key ^ pcg_hash(frame)) >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// A carrier's integer total in extinction units on a level with voxel edge `voxel_m`: `mass_m2`
/// over the voxel volume, rounded stochastically with `u` in `[0, 1)`.
pub fn carrier_units(mass_m2: f32, voxel_m: f32, u: f32) -> u32 {
    let exact = mass_m2 / (voxel_m * voxel_m * voxel_m) * EXTINCTION_UNITS_PER_INV_M;
    (exact + u).floor() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in
            [(0.0, 0.0), (0.5, 0.520_499_9), (1.0, 0.842_700_8), (2.0, 0.995_322_3), (-1.0, -0.842_700_8)]
        {
            assert!((erf(x) - want).abs() < 3e-7, "erf({x}) = {} not {want}", erf(x));
        }
    }

    #[test]
    fn sub_voxel_kernels_keep_all_their_weight() {
        let w = axis_weights(0.031, 0.004, 0.075, (0, 0));
        assert_eq!(w[0], 1.0);
        let w = axis_weights(0.074, 0.01, 0.075, (0, 1));
        assert!((w[0] + w[1] - 1.0).abs() < 1e-6 && w[1] > 0.2, "{w:?}");
    }

    #[test]
    fn the_kernel_widens_with_age_and_size() {
        let a = kernel_sigma_m([1.0, 1.0], 0.0, 0.35);
        assert!((a - 0.236).abs() < 0.002, "{a}");
        assert!(kernel_sigma_m([1.0, 1.0], 10.0, 0.35) > a);
        assert!(kernel_sigma_m([2.0, 2.0], 0.0, 0.35) > 1.99 * a);
    }

    #[test]
    fn stochastic_rounding_is_unbiased_for_tiny_carriers() {
        // 0.3 units each: floor would give 0, stochastic rounding 0.3 on average.
        let voxel = 0.1;
        let mass = 0.3 / EXTINCTION_UNITS_PER_INV_M * voxel * voxel * voxel;
        let total: u64 =
            (0..100_000).map(|k| u64::from(carrier_units(mass, voxel, rounding_uniform(k, 7)))).sum();
        assert!((total as f64 / 100_000.0 - 0.3).abs() < 0.01, "{total}");
    }
}
