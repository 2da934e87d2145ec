//! What the foreign hosts feed the particle fog: a fog machine's PSYS block (an 86-byte legacy
//! block: angle cone, 4 particles every 0.1 s at 0.3-0.5 m/s, 8 s life, 2 -> 4 m, alpha 0.3 -> 0)
//! and its soft texture's statistics, as a viewer computes them from the decoded texture; and the
//! half floats the hosts read back.

use glam::Vec3;
use render::embed::{texture_stats_rgba8, Carrier, TextureStats};

/// The fog machine's PSYS block, hex (the C host carries the same).
pub const FOG_MACHINE: &str =
    "010000000200000008000000000009190000004c008000040080008000800080008000808dcd4a482d37\
    49099f78f7a9eb4ef90300000000000000000000000000000000030000000008cccccc4de6e6e60040408080";

/// The bytes of a hex string.
pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex")).collect()
}

/// A soft Gaussian blob's statistics: the fog machine's texture.
pub fn soft_texture() -> TextureStats {
    let n = 64u32;
    let texels: Vec<u8> = (0..n * n)
        .flat_map(|i| {
            let (x, y) = ((i % n) as f32 / n as f32 - 0.5, (i / n) as f32 / n as f32 - 0.5);
            [255, 255, 255, (255.0 * (-(x * x + y * y) / 0.045).exp()) as u8]
        })
        .collect();
    texture_stats_rgba8(n, n, &texels).expect("stats")
}

/// A viewer's own particles of system `system`: `count` in a ball of radius 1 m around `centre`,
/// spread by a fixed hash, 2 m wide, white at alpha 0.4, one second old.
pub fn ball(centre: Vec3, system: u32, count: u32) -> Vec<Carrier> {
    (0..count)
        .map(|i| {
            let h = |k: u32| {
                ((i.wrapping_mul(2_654_435_761) ^ k.wrapping_mul(40_503)) % 10_007) as f32 / 10_007.0
            };
            let dir = Vec3::new(h(1) - 0.5, h(2) - 0.5, h(3) - 0.5).normalize_or_zero();
            let p = centre + dir * h(4).cbrt();
            Carrier {
                position_age: [p.x, p.y, p.z, 1.0],
                color: [1.0, 1.0, 1.0, 0.4],
                size: [2.0, 2.0],
                system,
                flags: 0,
            }
        })
        .collect()
}

/// The IEEE half-float nearest below `v` (normal values and 0; what a host writes into RGBA16F).
pub fn to_f16(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&exp), "{v} is not a normal half");
    sign | ((exp as u16) << 10) | ((bits >> 13) & 0x3ff) as u16
}

/// An IEEE half-float's value (the HDR targets' RGBA16F texels read back).
pub fn f16(h: u16) -> f32 {
    let (e, m) = ((h >> 10) & 0x1f, f32::from(h & 0x3ff));
    let v = if e == 0 { m * 2f32.powi(-24) } else { (1.0 + m / 1024.0) * 2f32.powi(i32::from(e) - 15) };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}
