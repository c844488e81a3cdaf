//! `e^x` for `x <= 0` in plain `f64` additions and multiplications: the LISI's
//! bisection takes a row's exponentials some twenty times, and the C library's `exp` is a
//! call per value that no loop vectorises. This one, inlined into a loop over a row,
//! becomes vector code in every build, and gives the same bits in each (no fused
//! multiply-add, which Rust never forms unasked; the rounding to an integer by adding
//! `1.5 · 2^52`, exact in round-to-nearest).
//!
//! Cody and Waite's reduction `x = k ln 2 + r`, `|r| <= ln 2 / 2`, with `ln 2` in two parts;
//! `e^r` from its Taylor series to degree 13, summed by Estrin's scheme (the first term
//! left out is below `4e-18`); `2^k` built in the exponent field as two factors, so that
//! results down to the least subnormal come out. Within 2 ulp of the exact value over `[-745, 0]`; 0 below.

/// `1.5 · 2^52`: adding it rounds a number of magnitude below `2^51` to an integer.
const SHIFT: f64 = 6_755_399_441_055_744.0;
/// `ln 2` in a high part of 32 bits (exact in products with `k`) and the rest.
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// Below this, `e^x` is under half the least subnormal: 0.
const LEAST: f64 = -745.2;

/// The Taylor coefficients `1 / j!` for `j = 2..=13`.
const C: [f64; 12] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5_040.0,
    1.0 / 40_320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
];

/// `e^x` for `x <= 0` (a positive `x` is taken as 0, giving 1; `x` must not be NaN).
#[inline(always)]
pub(crate) fn exp_nonpositive(x: f64) -> f64 {
    let x = x.clamp(LEAST, 0.0);
    let t = x * std::f64::consts::LOG2_E + SHIFT;
    let k = t - SHIFT;
    let r = (x - k * LN2_HI) - k * LN2_LO;
    // Estrin's scheme: the same sum as Horner's in a quarter of the dependent steps, so
    // that the row's vectors overlap in the pipeline.
    let r2 = r * r;
    let r4 = r2 * r2;
    let r8 = r4 * r4;
    let q = |j: usize| C[j] + C[j + 1] * r;
    let s0 = q(0) + q(2) * r2;
    let s1 = q(4) + q(6) * r2;
    let s2 = q(8) + q(10) * r2;
    let p = (s0 + s1 * r4) + s2 * r8;
    let er = 1.0 + r + r2 * p;
    // k in -1075..=0, as an integer from t's low bits; 2^k = 2^k1 · 2^k2, each a normal
    // number, k1 = floor(k / 2) by a logical shift of k + 2048 (vector code has no
    // arithmetic shift of 64-bit lanes before AVX-512).
    let ki = t.to_bits().wrapping_sub(SHIFT.to_bits()).wrapping_add(2048);
    let k1 = (ki >> 1).wrapping_sub(1024);
    let k2 = ki.wrapping_sub(2048).wrapping_sub(k1);
    let s1 = f64::from_bits(k1.wrapping_add(1023) << 52);
    let s2 = f64::from_bits(k2.wrapping_add(1023) << 52);
    er * s1 * s2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance in units in the last place.
    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn within_two_ulp_of_the_c_library() {
        let mut worst = 0;
        let mut x = 0.0f64;
        // A dense walk over [-745, 0], and the ends.
        while x > -745.0 {
            let (ours, libm) = (exp_nonpositive(x), x.exp());
            if libm >= f64::MIN_POSITIVE {
                worst = worst.max(ulps(ours, libm));
            } else {
                // subnormal: within one of the least subnormal
                assert!((ours - libm).abs() <= 5e-324, "{x}: {ours} {libm}");
            }
            x -= 0.000_731_3;
        }
        assert!(worst <= 2, "{worst} ulp");
        assert_eq!(exp_nonpositive(0.0), 1.0);
        assert_eq!(exp_nonpositive(-0.0), 1.0);
        assert_eq!(exp_nonpositive(-746.0), 0.0);
        assert_eq!(exp_nonpositive(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp_nonpositive(-1e300), 0.0);
        assert_eq!(exp_nonpositive(-std::f64::consts::LN_2), 0.5);
    }
}
