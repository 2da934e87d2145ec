//! Verdicts on procedural sprites shaped after the real particle sprites labelled in
//! `assetstats/data/sprite_labels.json` (Kenney's particle pack): a clumpy off-centre smoke puff,
//! a muzzle flash, a thin trace, a five-ray glint. Each is judged white (how many viewer particle
//! textures are made) and grey with brightness following alpha (how the pack ships them): the
//! verdict must come from the alpha alone.

mod common;

use assetstats::{Shape, TextureStats};
use common::render;
use image::{Rgba, RgbaImage};

const SIZE: u32 = 128;

fn stats(img: &RgbaImage) -> TextureStats {
    TextureStats::from_rgba(img).expect("stats")
}

/// The same alpha, grey with brightness equal to alpha (as the real pack's sprites are drawn).
fn grey_shaded(img: &RgbaImage) -> RgbaImage {
    let mut out = img.clone();
    for px in out.pixels_mut() {
        let a = px[3];
        *px = Rgba([a, a, a, a]);
    }
    out
}

fn gauss(u: f32, v: f32, cu: f32, cv: f32, s: f32) -> f32 {
    (-((u - cu).powi(2) + (v - cv).powi(2)) / (2.0 * s * s)).exp()
}

/// A clumpy smoke puff: overlapping soft blobs, off-centre (like smoke_03 / smoke_08).
fn clumpy_puff(u: f32, v: f32) -> f32 {
    const CLUMPS: [(f32, f32, f32, f32); 6] = [
        (0.42, 0.45, 0.09, 0.8),
        (0.55, 0.40, 0.08, 0.7),
        (0.50, 0.56, 0.10, 0.8),
        (0.36, 0.58, 0.07, 0.6),
        (0.62, 0.55, 0.07, 0.6),
        (0.46, 0.33, 0.06, 0.5),
    ];
    CLUMPS.iter().map(|&(cu, cv, s, a)| a * gauss(u, v, cu, cv, s)).sum::<f32>().min(1.0)
}

/// A muzzle flash: a soft bright base and a long tapering tongue upward (like muzzle_01..05).
fn muzzle(u: f32, v: f32) -> f32 {
    let base = gauss(u, v, 0.5, 0.75, 0.08);
    let t = ((0.8 - v) / 0.6).clamp(0.0, 1.0);
    let half_width = 0.1 * (1.0 - t) + 0.01;
    let tongue =
        if v < 0.8 && v > 0.2 { (-(u - 0.5).powi(2) / (2.0 * half_width * half_width)).exp() } else { 0.0 };
    (base + 0.9 * tongue).min(1.0)
}

/// A thin vertical trace with soft ends (like trace_01..07).
fn trace(u: f32, v: f32) -> f32 {
    let across = (-(u - 0.5).powi(2) / (2.0 * 0.012f32.powi(2))).exp();
    let along = (-(v - 0.5).powi(2) / (2.0 * 0.2f32.powi(2))).exp();
    across * along
}

/// A glint: a small core with five thin rays (like star_06..08, scorch spikes).
fn glint(u: f32, v: f32) -> f32 {
    let (dx, dy) = (u - 0.5, v - 0.5);
    let r = (dx * dx + dy * dy).sqrt();
    let theta = dy.atan2(dx);
    let arms = (2.5 * theta).cos().abs().powi(60);
    (gauss(u, v, 0.5, 0.5, 0.04) + arms * (-r / 0.25).exp()).min(1.0)
}

fn both_ways(alpha: fn(f32, f32) -> f32) -> [TextureStats; 2] {
    let white = render(SIZE, alpha);
    [stats(&white), stats(&grey_shaded(&white))]
}

#[test]
fn a_clumpy_off_centre_smoke_puff_is_soft_white_and_grey() {
    for s in both_ways(clumpy_puff) {
        assert_eq!(s.shape, Shape::Soft, "{:?}", s.reasons);
        assert!(s.alpha_centroid[0].abs() + s.alpha_centroid[1].abs() > 0.02, "{:?}", s.alpha_centroid);
    }
}

#[test]
fn a_white_muzzle_flash_is_shaped_by_its_alpha() {
    for s in both_ways(muzzle) {
        assert_eq!(s.shape, Shape::Shaped, "{:?}", s);
        assert!(s.alpha_anisotropy > assetstats::ANISOTROPY_MAX, "{}", s.alpha_anisotropy);
    }
}

#[test]
fn a_white_trace_is_shaped_as_elongated_and_thin() {
    for s in both_ways(trace) {
        assert_eq!(s.shape, Shape::Shaped);
        assert!(s.alpha_anisotropy > 0.9, "{}", s.alpha_anisotropy);
        assert!(s.thin_fraction > assetstats::THIN_FRACTION_MAX, "{}", s.thin_fraction);
    }
}

#[test]
fn a_white_five_ray_glint_is_shaped() {
    for s in both_ways(glint) {
        assert_eq!(s.shape, Shape::Shaped, "{:?}", s);
        assert!(
            s.reasons.iter().any(|r| r.starts_with("angular_variation") || r.starts_with("thin_fraction")),
            "{:?}",
            s.reasons
        );
    }
}

#[test]
fn grey_shading_does_not_make_a_blob_shaped_but_hue_does() {
    let white = render(SIZE, |u, v| gauss(u, v, 0.5, 0.5, 0.15));
    let grey = stats(&grey_shaded(&white));
    assert_eq!(grey.shape, Shape::Soft, "{:?}", grey.reasons);
    assert!(grey.chroma_variance < 1e-6 && grey.color_variance > 0.01);
}

#[test]
fn round_shapes_have_no_anisotropy_and_lines_have_much() {
    let blob = stats(&render(SIZE, |u, v| gauss(u, v, 0.5, 0.5, 0.15)));
    assert!(blob.alpha_anisotropy < 0.02 && blob.angular_variation < 0.05, "{blob:?}");
    assert!(blob.thin_fraction < 0.05, "{}", blob.thin_fraction);
    // A 2:1 ellipse has l2 / l1 = 1/4: anisotropy 0.75.
    let ellipse = stats(&render(SIZE, |u, v| {
        (-((u - 0.5).powi(2) / (2.0 * 0.12f32.powi(2)) + (v - 0.5).powi(2) / (2.0 * 0.06f32.powi(2)))).exp()
    }));
    assert!((ellipse.alpha_anisotropy - 0.75).abs() < 0.03, "{}", ellipse.alpha_anisotropy);
}
