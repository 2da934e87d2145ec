//! The default particle texture look-alike and its shipped statistics.

use assetstats::{
    default_particle_texture, default_texture_stats, Shape, StatsCache, TextureKey, TextureStats,
    CORE_HALO_RATIO_MIN, DEFAULT_TEXTURE_SIZE,
};

/// Relative tolerance between the shipped constants and a fresh computation (the constants are
/// rounded to four significant digits).
const SHIPPED_TOLERANCE: f32 = 2e-3;

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= SHIPPED_TOLERANCE * a.abs().max(b.abs()).max(0.01)
}

#[test]
fn shipped_stats_match_a_fresh_computation() {
    let shipped = default_texture_stats();
    let fresh = TextureStats::from_rgba(&default_particle_texture()).expect("default texture");
    assert_eq!((shipped.width, shipped.height), (fresh.width, fresh.height));
    let pairs = [
        ("mean_alpha", shipped.mean_alpha, fresh.mean_alpha),
        ("edge_energy", shipped.edge_energy, fresh.edge_energy),
        ("color_variance", shipped.color_variance, fresh.color_variance),
        ("border_alpha", shipped.border_alpha, fresh.border_alpha),
        ("profile_rise", shipped.profile_rise, fresh.profile_rise),
        ("profile_max_drop", shipped.profile_max_drop, fresh.profile_max_drop),
        ("core_halo_ratio", shipped.core_halo_ratio, fresh.core_halo_ratio),
        ("softness", shipped.softness, fresh.softness),
        ("chroma_variance", shipped.chroma_variance, fresh.chroma_variance),
        ("alpha_anisotropy", shipped.alpha_anisotropy, fresh.alpha_anisotropy),
        ("angular_variation", shipped.angular_variation, fresh.angular_variation),
        ("thin_fraction", shipped.thin_fraction, fresh.thin_fraction),
        ("spikiness", shipped.spikiness, fresh.spikiness),
    ];
    for (name, a, b) in pairs {
        assert!(close(a, b), "{name}: shipped {a} vs fresh {b}");
    }
    let arrays = [
        ("mean_color", shipped.mean_color.to_vec(), fresh.mean_color.to_vec()),
        ("coverage", shipped.coverage.to_vec(), fresh.coverage.to_vec()),
        ("radial_profile", shipped.radial_profile.to_vec(), fresh.radial_profile.to_vec()),
    ];
    for (name, a, b) in arrays {
        assert!(a.iter().zip(&b).all(|(x, y)| close(*x, *y)), "{name}: shipped {a:?} vs fresh {b:?}");
    }
    assert_eq!(shipped.shape, fresh.shape);
    assert_eq!(shipped.reasons, fresh.reasons);
    assert!(shipped.is_default && !fresh.is_default);
}

/// The look-alike follows the reference description: 128 x 128, RGB white everywhere, a full-alpha
/// core, a halo falling to alpha about 2..5 at the middle of the sides, and faint rays and ring.
#[test]
fn texture_follows_the_reference_description() {
    let img = default_particle_texture();
    assert_eq!(img.dimensions(), (DEFAULT_TEXTURE_SIZE, DEFAULT_TEXTURE_SIZE));
    assert!(img.pixels().all(|p| p[0] == 255 && p[1] == 255 && p[2] == 255));
    let c = DEFAULT_TEXTURE_SIZE / 2;
    assert!(img.get_pixel(c, c)[3] >= 250, "bright core");
    for (x, y) in [(0, c), (DEFAULT_TEXTURE_SIZE - 1, c), (c, 0), (c, DEFAULT_TEXTURE_SIZE - 1)] {
        let a = img.get_pixel(x, y)[3];
        assert!((2..=5).contains(&a), "edge alpha {a} at ({x}, {y})");
    }
    // A ray (along the x axis) is brighter than the halo between rays at the same radius.
    let r = DEFAULT_TEXTURE_SIZE / 4;
    let on_ray = img.get_pixel(c + r, c)[3];
    let d = (r as f32 / std::f32::consts::SQRT_2) as u32;
    let between = img.get_pixel(c + d, c + d)[3];
    assert!(on_ray > between + 5, "ray {on_ray} vs between {between}");
    // The ring makes the profile rise locally somewhere outside the core.
    let s = default_texture_stats();
    assert!(s.profile_rise > 0.0, "{:?}", s.radial_profile);
}

/// The core + halo sparkle is shaped, and the reason names the sparkle check.
#[test]
fn default_texture_is_a_shaped_sparkle() {
    let s = default_texture_stats();
    assert_eq!(s.shape, Shape::Shaped);
    assert!(s.core_halo_ratio < CORE_HALO_RATIO_MIN);
    assert!(s.reasons.iter().any(|r| r.starts_with("core_halo_ratio")), "{:?}", s.reasons);
}

#[test]
fn null_uuid_means_the_default_texture() {
    let key = TextureKey::uuid("00000000-0000-0000-0000-000000000000");
    assert!(key.is_default());
    assert!(!TextureKey::uuid("5e120ba1-5805-dc57-66b7-f5ac4bd18f86").is_default());
    // UUID text is case-insensitive and trimmed.
    assert_eq!(
        TextureKey::uuid(" 5E120BA1-5805-DC57-66B7-F5AC4BD18F86"),
        TextureKey::uuid("5e120ba1-5805-dc57-66b7-f5ac4bd18f86")
    );
    let cache = StatsCache::in_memory();
    let s = cache.get(&key).expect("the default texture is always known");
    assert!(s.is_default);
    assert_eq!(cache.computations(), 0, "no image work for the default texture");
}
