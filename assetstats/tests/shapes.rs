//! Verdicts and numbers on procedural shapes, each drawn at two resolutions.

mod common;

use std::f32::consts::PI;

use assetstats::{Shape, TextureStats, GRID};
use common::{cloud_puff, disc, gaussian, heart, render, ring, speckle, star, text};
use image::{Rgba, RgbaImage};

/// The two resolutions every shape is drawn at.
const SIZES: [u32; 2] = [64, 256];

fn stats(img: &RgbaImage) -> TextureStats {
    TextureStats::from_rgba(img).expect("non-empty test image")
}

/// Draws `alpha` at both sizes, checks the verdict at each, and returns the two stats.
fn verdict_at_both_sizes(name: &str, alpha: impl Fn(f32, f32) -> f32, expected: Shape) -> [TextureStats; 2] {
    SIZES.map(|size| {
        let s = stats(&render(size, &alpha));
        assert_eq!(s.shape, expected, "{name} at {size}: {:?}", s.reasons);
        assert_eq!(s.softness > 0.5, expected == Shape::Soft, "{name} at {size}: softness {}", s.softness);
        assert!((0.0..=1.0).contains(&s.softness), "{name}: softness {}", s.softness);
        s
    })
}

#[test]
fn gaussian_blob_is_soft_at_both_sizes() {
    verdict_at_both_sizes("blob", gaussian(0.15), Shape::Soft);
}

#[test]
fn cloud_puff_is_soft_at_both_sizes() {
    verdict_at_both_sizes("cloud puff", cloud_puff(), Shape::Soft);
}

#[test]
fn hard_shapes_are_shaped_at_both_sizes() {
    verdict_at_both_sizes("disc", disc(0.4), Shape::Shaped);
    verdict_at_both_sizes("ring", ring(0.25, 0.4), Shape::Shaped);
    verdict_at_both_sizes("star", star(), Shape::Shaped);
    verdict_at_both_sizes("heart", heart(), Shape::Shaped);
    verdict_at_both_sizes("text", text(), Shape::Shaped);
    verdict_at_both_sizes("speckle", speckle(), Shape::Shaped);
}

#[test]
fn the_ring_is_named_as_rising_and_the_disc_as_a_rim() {
    let ring = stats(&render(128, ring(0.25, 0.4)));
    assert!(ring.reasons.iter().any(|r| r.starts_with("profile_rise")), "{:?}", ring.reasons);
    let disc = stats(&render(128, disc(0.4)));
    assert!(disc.reasons.iter().any(|r| r.starts_with("profile_max_drop")), "{:?}", disc.reasons);
    assert!(!disc.reasons.iter().any(|r| r.starts_with("profile_rise")), "{:?}", disc.reasons);
}

#[test]
fn blob_is_softer_than_disc() {
    for size in SIZES {
        let blob = stats(&render(size, gaussian(0.15)));
        let disc = stats(&render(size, disc(0.4)));
        assert!(blob.softness > disc.softness, "size {size}: {} vs {}", blob.softness, disc.softness);
    }
}

/// Continuum analysis: a Gaussian `exp(-r^2 / 2s^2)` has integral of |grad alpha|^2 over the plane
/// equal to pi, whatever `s`. On the grid this holds to discretisation error (tolerance 5 %) for any
/// `s` small enough that the blob has faded before the texture border (at `s` = 0.15 the border
/// alpha is 0.004; wider blobs are cut off there, and the cut is a real edge that adds energy).
#[test]
fn gaussian_edge_energy_is_pi_for_any_width() {
    for sigma in [0.08, 0.11, 0.15] {
        for size in SIZES {
            let e = stats(&render(size, gaussian(sigma))).edge_energy;
            assert!((e - PI).abs() < 0.05 * PI, "sigma {sigma} size {size}: {e}");
        }
    }
}

/// A hard edge costs about GRID per texture width of outline: for a disc of radius R, between
/// 0.5 and 1.0 times GRID * 2 pi R depending on how the antialiased edge falls on the grid.
/// Across the two resolutions the energy must agree within 5 %.
#[test]
fn disc_edge_energy_is_high_and_resolution_independent() {
    let radius = 0.4;
    let outline = 2.0 * PI * radius;
    let [small, large] = SIZES.map(|size| stats(&render(size, disc(radius))));
    for (s, blob) in [(&small, 64), (&large, 256)].map(|(s, n)| (s, stats(&render(n, gaussian(0.15))))) {
        assert!(s.edge_energy > 10.0 * blob.edge_energy, "{} vs blob {}", s.edge_energy, blob.edge_energy);
        let per_width = s.edge_energy / (GRID as f32 * outline);
        assert!((0.5..=1.0).contains(&per_width), "energy per outline width {per_width}");
    }
    let ratio = small.edge_energy / large.edge_energy;
    assert!((ratio - 1.0).abs() < 0.05, "64 vs 256: {} vs {}", small.edge_energy, large.edge_energy);
}

#[test]
fn statistics_agree_across_resolutions() {
    for (name, alpha) in [
        ("blob", Box::new(gaussian(0.15)) as common::AlphaFn),
        ("cloud", Box::new(cloud_puff())),
        ("star", Box::new(star())),
        ("heart", Box::new(heart())),
    ] {
        let [a, b] = SIZES.map(|size| stats(&render(size, &alpha)));
        assert!((a.mean_alpha - b.mean_alpha).abs() < 0.01, "{name} mean alpha");
        assert!((a.edge_energy / b.edge_energy - 1.0).abs() < 0.05, "{name} edge energy");
        for (pa, pb) in a.radial_profile.iter().zip(&b.radial_profile) {
            assert!(
                (pa - pb).abs() < 0.03,
                "{name} profile {:?} vs {:?}",
                a.radial_profile,
                b.radial_profile
            );
        }
    }
}

/// Gaussian of sigma = 0.15 widths: mean alpha over the unit square is 2 pi sigma^2 (the tails
/// outside the square are negligible); the fraction of pixels above alpha t is pi r_t^2 with
/// r_t = sigma sqrt(2 ln(1/t)).
#[test]
fn blob_mean_alpha_and_coverage_match_analysis() {
    let sigma: f32 = 0.15;
    let s = stats(&render(256, gaussian(sigma)));
    let mean = 2.0 * PI * sigma * sigma;
    assert!((s.mean_alpha - mean).abs() < 0.005, "{} vs {mean}", s.mean_alpha);
    for (cov, t) in s.coverage.iter().zip(assetstats::COVERAGE_THRESHOLDS) {
        let r2 = sigma * sigma * 2.0 * (1.0 / t).ln();
        let expected = PI * r2;
        assert!((cov - expected).abs() < 0.01, "threshold {t}: {cov} vs {expected}");
    }
    // The profile falls monotonically from about 1 at the centre.
    assert!(s.radial_profile[0] > 0.9);
    assert!(s.radial_profile.windows(2).all(|w| w[1] <= w[0]), "{:?}", s.radial_profile);
}

#[test]
fn mean_colour_is_alpha_weighted() {
    // Left half: red at alpha 255; right half: blue at alpha 85 (one third). Weighted mean red is
    // 255 / (255 + 85) = 0.75, blue 0.25.
    let img = RgbaImage::from_fn(
        64,
        64,
        |x, _| {
            if x < 32 {
                Rgba([255, 0, 0, 255])
            } else {
                Rgba([0, 0, 255, 85])
            }
        },
    );
    let s = stats(&img);
    assert!((s.mean_color[0] - 0.75).abs() < 1e-4, "{:?}", s.mean_color);
    assert!(s.mean_color[1].abs() < 1e-6);
    assert!((s.mean_color[2] - 0.25).abs() < 1e-4, "{:?}", s.mean_color);
    // Per channel variance 0.75 * 0.25 for red and blue, 0 for green: mean 0.125.
    assert!((s.color_variance - 0.125).abs() < 1e-4, "{}", s.color_variance);
    // Fully transparent pixels do not tint the mean at all.
    let hidden =
        RgbaImage::from_fn(
            64,
            64,
            |x, _| {
                if x < 32 {
                    Rgba([10, 200, 30, 255])
                } else {
                    Rgba([255, 0, 255, 0])
                }
            },
        );
    let h = stats(&hidden);
    let expected = [10.0 / 255.0, 200.0 / 255.0, 30.0 / 255.0];
    for (got, want) in h.mean_color.iter().zip(expected) {
        assert!((got - want).abs() < 1e-5, "{:?}", h.mean_color);
    }
    assert!(h.color_variance < 1e-6);
}

#[test]
fn a_soft_shape_drawn_in_strong_colours_is_shaped() {
    let soft = render(128, gaussian(0.15));
    // Same alpha; left half red, right half blue.
    let painted = RgbaImage::from_fn(128, 128, |x, y| {
        let a = soft.get_pixel(x, y)[3];
        if x < 64 {
            Rgba([255, 0, 0, a])
        } else {
            Rgba([0, 0, 255, a])
        }
    });
    let s = stats(&painted);
    assert_eq!(s.shape, Shape::Shaped);
    assert!(s.reasons.iter().any(|r| r.starts_with("chroma_variance")), "{:?}", s.reasons);
    // A gentle tint over the same alpha stays soft.
    let tinted =
        RgbaImage::from_fn(128, 128, |x, y| Rgba([200 + (x / 4) as u8, 210, 230, soft.get_pixel(x, y)[3]]));
    assert_eq!(stats(&tinted).shape, Shape::Soft);
}

#[test]
fn opaque_and_empty_textures_are_shaped() {
    let opaque = RgbaImage::from_pixel(64, 64, Rgba([200, 200, 200, 255]));
    let s = stats(&opaque);
    assert_eq!(s.shape, Shape::Shaped);
    // Four hard sides of one texture width each, at GRID per width.
    assert!((s.edge_energy - 4.0 * GRID as f32).abs() < 1.0, "{}", s.edge_energy);
    assert!((s.border_alpha - 1.0).abs() < 1e-6);
    let empty = RgbaImage::from_pixel(64, 64, Rgba([255, 255, 255, 0]));
    let e = stats(&empty);
    assert_eq!(e.shape, Shape::Shaped);
    assert!(e.reasons.iter().any(|r| r.starts_with("mean_alpha")), "{:?}", e.reasons);
}

/// Rotating or mirroring a texture changes nothing that is measured.
#[test]
fn statistics_are_invariant_under_rotation_and_mirroring() {
    for (size, alpha) in [(64, star()), (256, star()), (40, star())] {
        let img = render(size, alpha);
        let base = stats(&img);
        for turned in [
            image::imageops::rotate90(&img),
            image::imageops::rotate180(&img),
            image::imageops::flip_horizontal(&img),
        ] {
            let t = stats(&turned);
            assert!((t.edge_energy - base.edge_energy).abs() < 1e-3 * base.edge_energy, "size {size}");
            assert_eq!(t.mean_alpha, base.mean_alpha);
            for (a, b) in t.radial_profile.iter().zip(&base.radial_profile) {
                assert!((a - b).abs() < 1e-5, "size {size}");
            }
            assert_eq!(t.shape, base.shape);
        }
    }
}

/// Below the grid size the grid takes the nearest pixel: hard edges keep their energy (within 10 %
/// of the 64 x 64 disc's), and a smooth ramp, turned into steps of GRID / n cells, scores GRID / n
/// times its continuum value (pi for the Gaussian; tolerance 10 %). Verdicts do not change.
#[test]
fn small_textures_keep_their_verdicts() {
    let disc_64 = stats(&render(64, disc(0.4))).edge_energy;
    for size in [16u32, 32] {
        let d = stats(&render(size, disc(0.4)));
        assert_eq!(d.shape, Shape::Shaped, "disc at {size}");
        assert!((d.edge_energy / disc_64 - 1.0).abs() < 0.1, "disc at {size}: {}", d.edge_energy);
        let b = stats(&render(size, gaussian(0.15)));
        assert_eq!(b.shape, Shape::Soft, "blob at {size}: {:?}", b.reasons);
        let expected = PI * GRID as f32 / size as f32;
        assert!((b.edge_energy / expected - 1.0).abs() < 0.1, "blob at {size}: {}", b.edge_energy);
        assert_eq!(stats(&render(size, cloud_puff())).shape, Shape::Soft, "cloud at {size}");
        assert_eq!(stats(&render(size, star())).shape, Shape::Shaped, "star at {size}");
    }
}

/// Textures smaller than the grid, or not square, or of odd sizes, are measured without panic and
/// with the same verdict as their 64 x 64 rendering.
#[test]
fn odd_and_small_sizes_keep_the_verdict() {
    for (w, h) in [(1, 1), (3, 7), (32, 32), (48, 100), (100, 48), (65, 64), (333, 129)] {
        let blob_like = RgbaImage::from_fn(w, h, |x, y| {
            let u = (x as f32 + 0.5) / w as f32 - 0.5;
            let v = (y as f32 + 0.5) / h as f32 - 0.5;
            Rgba([255, 255, 255, ((-(u * u + v * v) / 0.045).exp() * 255.0).round() as u8])
        });
        let s = stats(&blob_like);
        assert!(s.softness.is_finite() && s.edge_energy.is_finite(), "{w}x{h}");
        if w >= 32 && h >= 32 {
            assert_eq!(s.shape, Shape::Soft, "{w}x{h}: {:?}", s.reasons);
        }
    }
}
