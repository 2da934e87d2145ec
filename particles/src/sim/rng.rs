//! Counter-based random numbers for the reference simulation.
//!
//! Every random draw is a pure function of `(seed, source id, emission serial, draw index)`; there is
//! no generator state. The GPU simulation can therefore reproduce any draw of any particle from the
//! same four inputs, in any order and on any thread, and two runs with the same seed and frame
//! sequence draw identical numbers.
//!
//! The mixing function is the PCG hash (`pcg_hash`) recommended by Jarzynski and Olano, "Hash
//! Functions for GPU Rendering", JCGT 9(3), 2020: one LCG step followed by PCG's RXS-M-XS output
//! permutation. Several inputs are folded by nesting: `h(a, b) = pcg(a + pcg(b))`. Only wrapping
//! `u32` multiplication, addition, shifts and xor are used, so the GLSL port is line for line:
//!
//! ```glsl
//! uint pcg_hash(uint v) {
//!     uint state = v * 747796405u + 2891336453u;
//!     uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
//!     return (word >> 22u) ^ word;
//! }
//! uint draw_bits(uvec2 seed, uint source, uint serial, uint index) {
//!     uint h = pcg_hash(index);
//!     h = pcg_hash(serial + h);
//!     h = pcg_hash(source + h);
//!     h = pcg_hash(seed.y + h);   // high 32 bits of the u64 seed
//!     return pcg_hash(seed.x + h); // low 32 bits
//! }
//! float unit_from_bits(uint h) { return float(h >> 8u) * (1.0 / 16777216.0); }
//! ```
//!
//! `unit_from_bits` keeps the top 24 bits, so the conversion to float and the scaling by 2^-24 are
//! exact in IEEE single precision: `[0, 1)` on a 2^-24 grid, identical on CPU and GPU. `u(a)` (the
//! viewer's `ll_frand(a)`) is `a * unit`, one correctly rounded multiplication.
//!
//! The draws are bit-exact across CPU and GPU; what is built from them with `sin`/`cos`/`sqrt`
//! (pattern directions) is not, since GLSL transcendentals are not correctly rounded, so GPU
//! results are compared against this simulation within a tolerance.

/// Multiplier of the LCG step inside [`pcg_hash`] (PCG's 32-bit default multiplier).
const PCG_MULTIPLIER: u32 = 747_796_405;
/// Increment of the LCG step inside [`pcg_hash`].
const PCG_INCREMENT: u32 = 2_891_336_453;
/// Multiplier of PCG's RXS-M-XS output permutation.
const PCG_OUTPUT_MULTIPLIER: u32 = 277_803_737;
/// Bits dropped so that the remaining 24 fit an f32 mantissa exactly.
const UNIT_SHIFT: u32 = 8;
/// 2^-24: scales a 24-bit integer onto `[0, 1)`.
const UNIT_SCALE: f32 = 1.0 / 16_777_216.0;

/// The PCG hash of one 32-bit word (Jarzynski and Olano 2020).
#[inline]
pub fn pcg_hash(v: u32) -> u32 {
    let state = v.wrapping_mul(PCG_MULTIPLIER).wrapping_add(PCG_INCREMENT);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(PCG_OUTPUT_MULTIPLIER);
    (word >> 22) ^ word
}

/// The 32 random bits of draw `index` of emission `serial` of `source` under `seed`.
#[inline]
pub fn draw_bits(seed: u64, source: u32, serial: u32, index: u32) -> u32 {
    let (seed_lo, seed_hi) = split_seed(seed);
    let mut h = pcg_hash(index);
    h = pcg_hash(serial.wrapping_add(h));
    h = pcg_hash(source.wrapping_add(h));
    h = pcg_hash(seed_hi.wrapping_add(h));
    pcg_hash(seed_lo.wrapping_add(h))
}

/// Maps 32 random bits onto `[0, 1)` exactly (top 24 bits times 2^-24).
#[inline]
pub fn unit_from_bits(bits: u32) -> f32 {
    (bits >> UNIT_SHIFT) as f32 * UNIT_SCALE
}

/// The u64 seed as the two u32 words the GPU receives (low, high).
#[inline]
pub fn split_seed(seed: u64) -> (u32, u32) {
    (seed as u32, (seed >> 32) as u32)
}

/// The random stream of one emission candidate: draws are addressed by index, not consumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    seed: u64,
    source: u32,
    serial: u32,
}

impl Stream {
    /// The stream of candidate `serial` of `source` under `seed`.
    pub fn new(seed: u64, source: u32, serial: u32) -> Self {
        Stream { seed, source, serial }
    }

    /// Draw `index` mapped onto `[0, 1)`.
    #[inline]
    pub fn unit(&self, index: u32) -> f32 {
        unit_from_bits(draw_bits(self.seed, self.source, self.serial, index))
    }

    /// The viewer's `u(a)` (`ll_frand(a)`): uniform on `[0, a)` (or `(a, 0]` for negative `a`).
    #[inline]
    pub fn u(&self, index: u32, a: f32) -> f32 {
        a * self.unit(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_an_independent_implementation() {
        // Expected values from a separate Python implementation of the published algorithm.
        assert_eq!(pcg_hash(0), 129_708_002);
        assert_eq!(pcg_hash(1), 2_831_084_092);
        assert_eq!(pcg_hash(0xdead_beef), 1_730_779_506);
        assert_eq!(draw_bits(0x0123_4567_89ab_cdef, 7, 11, 3), 443_074_416);
    }

    #[test]
    fn units_are_in_range_and_roughly_uniform() {
        let s = Stream::new(42, 7, 3);
        let n = 20_000u32;
        let mut sum = 0.0f64;
        let mut low_quarter = 0u32;
        for i in 0..n {
            let x = s.unit(i);
            assert!((0.0..1.0).contains(&x), "draw {i} = {x}");
            sum += f64::from(x);
            if x < 0.25 {
                low_quarter += 1;
            }
        }
        let mean = sum / f64::from(n);
        assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
        let frac = f64::from(low_quarter) / f64::from(n);
        assert!((frac - 0.25).abs() < 0.015, "P(x<0.25) = {frac}");
    }

    #[test]
    fn every_input_changes_the_draw() {
        let base = draw_bits(1, 2, 3, 4);
        assert_ne!(base, draw_bits(2, 2, 3, 4));
        assert_ne!(base, draw_bits(1 | (1 << 40), 2, 3, 4));
        assert_ne!(base, draw_bits(1, 3, 3, 4));
        assert_ne!(base, draw_bits(1, 2, 4, 4));
        assert_ne!(base, draw_bits(1, 2, 3, 5));
        assert_eq!(base, draw_bits(1, 2, 3, 4));
    }

    #[test]
    fn unit_conversion_is_exact_at_the_ends() {
        assert_eq!(unit_from_bits(0), 0.0);
        assert_eq!(unit_from_bits(u32::MAX), 1.0 - UNIT_SCALE);
        assert!(unit_from_bits(u32::MAX) < 1.0);
    }
}
