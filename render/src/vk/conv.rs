//! Conversions for texel data the CPU writes or reads (half floats).

/// IEEE half to single precision.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let mant = f32::from(h & 0x3ff);
    match exp {
        0 => sign * mant * 2f32.powi(-24),
        31 if mant == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + mant / 1024.0) * 2f32.powi(exp - 15),
    }
}

/// Single to IEEE half precision, rounding to nearest (overflow saturates to infinity).
pub fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a >= 65_520.0 {
        return sign | 0x7c00;
    }
    if a < 6.103_515_6e-5 {
        // Subnormal half: a multiple of 2^-24.
        return sign | (a * 16_777_216.0).round() as u16;
    }
    let exp = ((a.to_bits() >> 23) as i32) - 127;
    let mant = (a / 2f32.powi(exp) - 1.0) * 1024.0;
    let mut m = mant.round() as u32;
    let mut e = (exp + 15) as u32;
    if m == 1024 {
        m = 0;
        e += 1;
    }
    sign | ((e << 10) as u16) | m as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_round_trip() {
        for x in [0.0f32, 1.0, -2.0, 0.5, 0.1, 3.25, 1e-5, 60_000.0, 0.367_879] {
            let back = f16_to_f32(f32_to_f16(x));
            assert!((back - x).abs() <= x.abs() * 1e-3 + 6e-8, "{x} -> {back}");
        }
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());
        assert_eq!(f16_to_f32(f32_to_f16(1e9)), f32::INFINITY);
    }
}
