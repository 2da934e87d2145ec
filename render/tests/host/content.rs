//! What the foreign hosts feed the particle fog: a fog machine's PSYS block (an 86-byte legacy
//! block: angle cone, 4 particles every 0.1 s at 0.3-0.5 m/s, 8 s life, 2 -> 4 m, alpha 0.3 -> 0)
//! and its soft texture's statistics, as a viewer computes them from the decoded texture; and the
//! half floats the hosts read back.

use render::embed::{texture_stats_rgba8, TextureStats};

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
