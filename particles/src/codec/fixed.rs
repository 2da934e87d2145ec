//! The wire's fixed-point encodings, little-endian: U 8.8 and U 3.5 unsigned, S 8.7 offset-binary.
//!
//! Decoding is the viewer's `LLDataPacker::unpackFixed` (`lldatapacker.cpp` 64-159): the raw integer
//! as `f32`, divided by `2^F`, minus `2^I` when signed. Every raw value is exactly representable, so
//! the decoded value is exact.
//!
//! Encoding is LL's `packFixed` with one correction: clamp to `[min, 2^I]`, add the `2^I` bias when
//! signed, multiply by `2^F` and truncate toward zero, all in `f32` as LL does; then clamp the *raw*
//! value to the field's maximum. LL and libopenmetaverse let the maximum through as `2^(I+F)`, which
//! wraps to raw 0 (a 256 s age becomes 0, an acceleration of +256 becomes -256); we write the
//! largest representable value instead. NaN encodes as 0.

/// One fixed-point field format: `int_bits.frac_bits`, optionally offset-binary signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixed {
    /// Integer bits `I`.
    pub int_bits: u32,
    /// Fraction bits `F`.
    pub frac_bits: u32,
    /// Offset binary: value = raw / 2^F - 2^I.
    pub signed: bool,
}

/// U 8.8 in a U16: ages, burst rate, radius and speeds. 0 ..= 255.99609375, step 1/256.
pub const U8_8: Fixed = Fixed { int_bits: 8, frac_bits: 8, signed: false };
/// U 3.5 in a U8: angles and particle scales. 0 ..= 7.96875, step 1/32.
pub const U3_5: Fixed = Fixed { int_bits: 3, frac_bits: 5, signed: false };
/// S 8.7 in a U16, offset binary: omega and acceleration. -256 ..= 255.9921875, step 1/128.
pub const S8_7: Fixed = Fixed { int_bits: 8, frac_bits: 7, signed: true };

impl Fixed {
    /// Bits the raw value occupies (`I + F`, plus one when signed).
    pub const fn total_bits(self) -> u32 {
        self.int_bits + self.frac_bits + self.signed as u32
    }

    /// Largest raw value the field holds.
    pub const fn raw_max(self) -> u32 {
        (1 << self.total_bits()) - 1
    }

    /// Distance between neighbouring representable values (`2^-F`): the quantisation step.
    pub fn step(self) -> f32 {
        1.0 / (1u32 << self.frac_bits) as f32
    }

    /// Smallest representable value (0, or `-2^I` when signed).
    pub fn min_value(self) -> f32 {
        self.decode(0)
    }

    /// Largest representable value.
    pub fn max_value(self) -> f32 {
        self.decode(self.raw_max())
    }

    /// The value a raw field holds, computed as the viewer computes it.
    pub fn decode(self, raw: u32) -> f32 {
        let value = raw as f32 / (1u32 << self.frac_bits) as f32;
        if self.signed {
            value - (1u32 << self.int_bits) as f32
        } else {
            value
        }
    }

    /// The raw field for `value`: clamped to the representable range, truncated toward zero.
    pub fn encode(self, value: f32) -> u32 {
        let bias = (1u32 << self.int_bits) as f32;
        let min = if self.signed { -bias } else { 0.0 };
        let value = if value.is_nan() { 0.0 } else { value };
        let mut scaled = value.clamp(min, bias);
        if self.signed {
            scaled += bias;
        }
        scaled *= (1u32 << self.frac_bits) as f32;
        // `as` truncates toward zero (and the value is non-negative and finite here).
        (scaled as u32).min(self.raw_max())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_steps_match_the_reference_table() {
        assert_eq!(U8_8.max_value(), 255.0 + 255.0 / 256.0);
        assert_eq!(U8_8.step(), 0.003_906_25);
        assert_eq!(U3_5.max_value(), 7.968_75);
        assert_eq!(U3_5.step(), 0.031_25);
        assert_eq!(S8_7.min_value(), -256.0);
        assert_eq!(S8_7.max_value(), 255.0 + 127.0 / 128.0);
        assert_eq!(S8_7.step(), 0.007_812_5);
        assert_eq!(U3_5.raw_max(), 0xff);
        assert_eq!(S8_7.raw_max(), 0xffff);
    }

    #[test]
    fn encode_truncates_toward_zero() {
        assert_eq!(U8_8.encode(0.1), 25);
        assert_eq!(U3_5.encode(0.05), 1);
        assert_eq!(U3_5.encode(0.02), 0);
        assert_eq!(U3_5.encode(std::f32::consts::PI), 100);
        assert_eq!(U3_5.encode(std::f32::consts::TAU), 201);
        assert_eq!(S8_7.encode(0.0), 0x8000);
        // Just below zero stays below: -0.001 + 256 = 255.999 -> raw 32767 (= -0.0078125).
        assert_eq!(S8_7.encode(-0.001), 0x7fff);
    }

    #[test]
    fn encode_clamps_to_the_field_maximum_instead_of_wrapping() {
        assert_eq!(U8_8.encode(256.0), 0xffff);
        assert_eq!(U8_8.encode(1.0e9), 0xffff);
        assert_eq!(U3_5.encode(8.0), 0xff);
        assert_eq!(S8_7.encode(256.0), 0xffff);
        assert_eq!(S8_7.encode(f32::INFINITY), 0xffff);
        assert_eq!(S8_7.encode(-1000.0), 0);
        assert_eq!(U8_8.encode(-3.0), 0);
        assert_eq!(U8_8.encode(f32::NAN), 0);
        assert_eq!(S8_7.encode(f32::NAN), 0x8000);
    }

    #[test]
    fn every_raw_value_survives_decode_then_encode() {
        for format in [U8_8, U3_5, S8_7] {
            for raw in 0..=format.raw_max() {
                assert_eq!(format.encode(format.decode(raw)), raw, "{format:?} raw {raw}");
            }
        }
    }
}
