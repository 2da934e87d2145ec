//! The CPU twin of the brick splat: mass is conserved exactly in fixed point, the filtered field
//! integrates to it, poisoned carriers are refused and counted.

use fog::bricks::{BrickLayout, DISTANCE_LEVEL0_VOXELS};
use fog::density::{export_grid, Field};
use fog::splat::{splat, Carrier};
use glam::Vec3;

fn carrier(key: u32, position: Vec3, size: f32, age_s: f32) -> Carrier {
    Carrier {
        key,
        system: 0,
        position,
        size_m: [size, size],
        age_s,
        alpha: 0.4,
        tex_mean_alpha: 0.35,
        weight: 1.0,
        density_scale: 1.0,
        tint: [0.8, 0.7, 0.6],
        emissive: false,
        billboard_match: 0.0,
    }
}

fn expected_mass(cs: &[Carrier]) -> f64 {
    cs.iter().map(|c| f64::from(c.mass_m2())).sum()
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-30)
}

/// Carriers of sizes from 0.1 to 10 voxels (kernel sigma), at ages 0..20 s, scattered off-grid.
fn sweep(voxel: f32, camera: Vec3) -> Vec<Carrier> {
    let mut out = Vec::new();
    let mut key = 0;
    for &sigma_vox in &[0.1f32, 0.3, 1.0, 3.0, 10.0] {
        for &age in &[0.0f32, 2.0, 20.0] {
            for j in 0..4 {
                // sigma = 0.24 size for this texture: size = sigma / 0.236.
                let size = sigma_vox * voxel / 0.236;
                let p =
                    camera + Vec3::new(0.37 + j as f32 * 0.91, -0.23 * j as f32, 0.11) * (1.0 + sigma_vox);
                out.push(carrier(key, p, size, age));
                key += 1;
            }
        }
    }
    out
}

#[test]
fn the_twin_conserves_mass_across_sizes_ages_and_voxel_sizes() {
    for &voxel in &[0.025f32, 0.05, 0.075, 0.1, 0.2, 0.25] {
        let camera = Vec3::new(3.3, -1.7, 1.2);
        let cs = sweep(voxel, camera);
        let layout = BrickLayout::new(voxel, camera);
        let s = splat(&cs, &layout, camera, 3);
        assert_eq!(s.counts.carriers as usize, cs.len());
        let want = expected_mass(&cs);
        assert!(
            relative(s.mass_m2(voxel), want) < 1e-4,
            "voxel {voxel}: units {} vs {want}",
            s.mass_m2(voxel)
        );
        let field = Field::from_accum(voxel, &s.bricks);
        assert!(relative(field.mass_m2(), want) < 1e-4, "voxel {voxel}: cells {} vs {want}", field.mass_m2());
    }
}

#[test]
fn the_exported_grid_integrates_to_the_mass_with_its_centroid_on_the_carriers() {
    for &voxel in &[0.05f32, 0.1, 0.2] {
        let camera = Vec3::new(0.0, -6.0, 1.5);
        // A plume: puffs growing with height, some straddling the distance-level boundary.
        let cs: Vec<Carrier> = (0..60)
            .map(|i| {
                let t = i as f32 / 60.0;
                let p = Vec3::new(0.3 * (i as f32 * 1.7).sin(), 0.2 * (i as f32).cos(), 0.2 + 3.0 * t);
                carrier(i, p, 0.3 + 1.2 * t, 8.0 * t)
            })
            .collect();
        let layout = BrickLayout::new(voxel, camera);
        let s = splat(&cs, &layout, camera, 11);
        let field = Field::from_accum(voxel, &s.bricks);
        let grid = export_grid(&field, 0.0, (1, 1), |p| field.extinction_at(p)).expect("bricks");
        let want = expected_mass(&cs);
        let got = grid.integral_m2();
        assert!(relative(got, want) < 0.005, "voxel {voxel}: grid {got} vs carriers {want}");
        let mass_centroid = cs.iter().map(|c| c.position * c.mass_m2()).sum::<Vec3>() / want as f32;
        let centroid = grid.centroid().expect("mass");
        assert!(centroid.distance(mass_centroid) < voxel, "voxel {voxel}: {centroid} vs {mass_centroid}");
    }
}

#[test]
fn kernels_across_a_level_boundary_keep_their_mass() {
    let voxel = 0.075;
    let camera = Vec3::ZERO;
    let edge = DISTANCE_LEVEL0_VOXELS * voxel;
    let cs: Vec<Carrier> =
        (0..20).map(|i| carrier(i, Vec3::new(edge - 0.5 + 0.05 * i as f32, 0.0, 0.0), 0.2, 0.0)).collect();
    let s = splat(&cs, &BrickLayout::new(voxel, camera), camera, 0);
    assert!(s.counts.units[0] > 0 && s.counts.units[1] > 0, "both levels used: {:?}", s.counts.units);
    let field = Field::from_accum(voxel, &s.bricks);
    let grid = export_grid(&field, 0.0, (1, 1), |p| field.extinction_at(p)).expect("bricks");
    assert!(relative(grid.integral_m2(), expected_mass(&cs)) < 0.005);
}

#[test]
fn a_million_tiny_carriers_lose_no_mass_to_rounding() {
    let voxel = 0.1;
    let camera = Vec3::ZERO;
    // Each carries a tenth of a fixed-point unit: floor rounding would splat nothing.
    let unit_mass = voxel * voxel * voxel / fog::kernel::EXTINCTION_UNITS_PER_INV_M;
    let cs: Vec<Carrier> = (0..1_000_000u32)
        .map(|i| {
            let mut c = carrier(
                i,
                Vec3::new((i % 100) as f32 * 0.013, (i / 100 % 100) as f32 * 0.011, 0.5),
                0.01,
                0.0,
            );
            c.alpha = 0.1 * unit_mass / (0.01 * 0.01 * 0.35);
            c
        })
        .collect();
    let s = splat(&cs, &BrickLayout::new(voxel, camera), camera, 5);
    let want = expected_mass(&cs);
    assert!(relative(s.mass_m2(voxel), want) < 0.005, "{} vs {want}", s.mass_m2(voxel));
}

#[test]
fn poisoned_carriers_are_refused_and_counted_without_touching_others() {
    let camera = Vec3::ZERO;
    let good = carrier(0, Vec3::new(1.0, 0.0, 0.0), 0.5, 1.0);
    let mut bad = Vec::new();
    for f in [f32::NAN, f32::INFINITY, -1.0, 2000.0] {
        let mut c = carrier(1, Vec3::new(1.0, 0.0, 0.0), 0.5, 1.0);
        c.size_m[0] = f;
        bad.push(c);
    }
    let mut c = carrier(2, Vec3::new(f32::NAN, 0.0, 0.0), 0.5, 1.0);
    bad.push(c);
    c = carrier(3, Vec3::new(1.0, 0.0, 0.0), 0.5, f32::NEG_INFINITY);
    bad.push(c);
    c = carrier(4, Vec3::new(1.0, 0.0, 0.0), 0.5, 1.0);
    c.alpha = f32::NAN;
    bad.push(c);
    let layout = BrickLayout::new(0.075, camera);
    let alone = splat(&[good], &layout, camera, 0);
    let mut all = bad.clone();
    all.push(good);
    let mixed = splat(&all, &layout, camera, 0);
    assert_eq!(mixed.counts.poisoned as usize, bad.len());
    assert_eq!(mixed.counts.carriers, 1);
    assert_eq!(mixed.counts.units, alone.counts.units);
    for (k, b) in &alone.bricks {
        assert_eq!(mixed.bricks[k].extinction, b.extinction);
    }
}

#[test]
fn a_brick_tint_is_the_mass_weighted_mean_of_its_carriers() {
    let voxel = 0.1;
    let camera = Vec3::ZERO;
    // Two small kernels well inside one brick (cells 1..6 of brick 0 on each axis).
    let at = Vec3::splat(0.35);
    let red = Carrier { tint: [1.0, 0.0, 0.0], alpha: 0.2, ..carrier(1, at, 0.1, 0.0) };
    let blue = Carrier {
        tint: [0.0, 0.0, 1.0],
        alpha: 0.6,
        emissive: true,
        billboard_match: 1.0,
        ..carrier(2, at, 0.1, 0.0)
    };
    let s = splat(&[red, blue], &BrickLayout::new(voxel, camera), camera, 3);
    let holding: Vec<_> = s.bricks.values().filter_map(|b| b.mean_tint()).collect();
    assert_eq!(holding.len(), 1, "one brick holds both kernels");
    let [r, g, b, emissive] = holding[0];
    // Mass is proportional to alpha: a quarter red, three quarters blue (and emissive).
    for (got, want) in [(r, 0.25), (g, 0.0), (b, 0.75), (emissive, 0.75)] {
        assert!((got - want).abs() < 0.01, "tint {:?}", holding[0]);
    }
    // The billboard match is weighted the same way: the blue carrier's 1 over three quarters.
    let matched: Vec<f32> = s.bricks.values().filter_map(|b| b.billboard_match()).collect();
    assert!((matched[0] - 0.75).abs() < 0.01, "billboard match {matched:?}");
}

/// The variance along x of the field the march sees from carrier `c` alone (cell averages,
/// trilinear), and the voxel of the level it went to.
fn seen_variance(c: &Carrier, voxel: f32, camera: Vec3) -> (f32, f32) {
    let s = splat(std::slice::from_ref(c), &BrickLayout::new(voxel, camera), camera, 1);
    let field = Field::from_accum(voxel, &s.bricks);
    let level = field.finest_level().expect("splatted");
    let vox = fog::bricks::level_voxel_m(voxel, level);
    let h = vox / 6.0;
    let n = (6.0 * c.sigma_m() / h) as i32;
    let (mut m0, mut m1, mut m2) = (0.0f64, 0.0f64, 0.0f64);
    for i in -n..=n {
        let x = f64::from(i as f32 * h);
        let mut column = 0.0f64;
        for j in -n..=n {
            for k in -n..=n {
                let p = c.position + Vec3::new(i as f32 * h, j as f32 * h, k as f32 * h);
                column += f64::from(field.extinction_at(p));
            }
        }
        m0 += column;
        m1 += column * x;
        m2 += column * x * x;
    }
    ((m2 / m0 - (m1 / m0).powi(2)) as f32, vox)
}

#[test]
fn the_march_sees_kernels_with_their_own_width_on_coarse_levels_too() {
    // Kernels on levels whose voxels are 0.6 to 2 sigma, at eight offsets across a voxel: what
    // the march sees (cell averages, trilinear) spreads on average as the kernel's own sigma
    // (within 10 % of the variance), not sigma² plus the cells' and the tent's v²/4.
    let camera = Vec3::new(0.0, -3.0, 0.0);
    for &(voxel, size) in &[(0.05f32, 1.0f32), (0.1, 2.0), (0.075, 3.0)] {
        let at = |x: f32| carrier(1, Vec3::new(x, 0.021, -0.017), size, 0.0);
        let sigma = at(0.0).sigma_m();
        let (_, vox) = seen_variance(&at(0.0), voxel, camera);
        let mean: f32 =
            (0..8).map(|i| seen_variance(&at((i as f32 + 0.5) * vox / 8.0), voxel, camera).0 / 8.0).sum();
        assert!(vox > 0.5 * sigma, "a coarse level ({vox} m voxels for sigma {sigma})");
        assert!(
            (mean / (sigma * sigma) - 1.0).abs() < 0.1,
            "voxel {vox}: the march sees a variance of {mean} on average, the kernel's is {}",
            sigma * sigma
        );
    }
}
