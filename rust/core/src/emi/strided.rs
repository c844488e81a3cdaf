//! The sum of one pair's terms on a stride, each probability from Loader's formula:
//! for pairs whose standard deviation is past [`STRIDE_SD`].

use crate::numeric::Sum;

/// Relative size of the tail bound at which a pair's EMI sum stops (2^-60).
pub(super) const STOP: f64 = 1.0 / (1u64 << 60) as f64;

/// Above this standard deviation a pair's terms are summed on a stride (about
/// 16 samples per standard deviation) instead of one by one.
pub(super) const STRIDE_SD: f64 = 256.0;

/// Σ_k g(k) over lo..=hi for a smooth bell-shaped g (a hypergeometric term whose
/// standard deviation is at least `STRIDE_SD`, its mode `m` far from 0), as
/// `h Σ_j g(m + j h)`. By Poisson summation both sums differ from the integral of g
/// by terms of order exp(-2π² sd² / h²) = exp(-512 π²): far below rounding. Each
/// sample's probability comes from Loader's formula, so the work per pair is a
/// few hundred terms however large n is (n = 2^63 included).
pub(super) fn pair_emi_strided(
    m: u64,
    lo: u64,
    hi: u64,
    h: u64,
    factor: f64,
    g: impl Fn(u64) -> (f64, f64),
) -> f64 {
    let hf = h as f64;
    let tiny = f64::MIN_POSITIVE;
    let mut s = Sum::default();
    let (p_m, first) = g(m);
    s.add(hf * first);
    let mut mass = (hf * first).abs();
    for up in [true, false] {
        let mut k = m;
        let mut prev = p_m;
        loop {
            k = match if up {
                k.checked_add(h)
            } else {
                k.checked_sub(h)
            } {
                Some(next) if (lo..=hi).contains(&next) => next,
                _ => break,
            };
            let (p, t) = g(k);
            s.add(hf * t);
            mass += (hf * t).abs();
            // Past the mode the probabilities fall off faster than geometrically
            // (they are log-concave), with ratio at most q from here on; each term
            // is at most its probability times `factor`.
            let q = p / prev;
            prev = p;
            if q < 1.0 && hf * p * factor * q / (1.0 - q) <= mass * STOP + tiny {
                break;
            }
        }
    }
    s.value()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emi::loader::ln_binomial;
    use crate::emi::testing::{ln_hypergeometric, pair_emi};

    #[test]
    fn strided_sums_equal_term_by_term_sums() {
        // Pairs whose standard deviation is just above the stride thresholds (16: terms on
        // a stride, probabilities by the recurrence; 256: both on a stride): the strided
        // sum against every term, each probability from Loader's formula.
        for &(a, b, n) in &[
            (30_000u64, 16_700u64, 1_000_000u64),
            (300_000, 400_000, 1_000_000),
            (600_000, 500_000, 1_000_000),
            (2_000_000, 3_000_000, 9_000_000),
            (40_000_000, 1_000_000, 100_000_000),
        ] {
            let ln_n = (n as f64).ln();
            let strided = pair_emi(a, b, n, ln_n, ln_binomial(b, n, b, n));
            let lo = (a + b).saturating_sub(n).max(1);
            let (af, bf, nf) = (a as f64, b as f64, n as f64);
            let mut exact = Sum::default();
            let mut mass = 0.0;
            for k in lo..=a.min(b) {
                let p = ln_hypergeometric(k, a, n - a, b);
                if p < -800.0 {
                    continue;
                }
                let kf = k as f64;
                let diff = (n as i128) * (k as i128) - (a as i128) * (b as i128);
                let t = p.exp() * (kf / nf) * (diff as f64 / (af * bf)).ln_1p();
                exact.add(t);
                mass += t.abs();
            }
            // The terms change sign at the mean and nearly cancel: both sums are exact to
            // rounding of the terms' total size, and so is their difference.
            let (x, y) = (strided, exact.value());
            assert!(
                (x - y).abs() <= 1e-14 * mass,
                "a={a} b={b} n={n}: {x} vs {y}, {mass}"
            );
        }
    }
}
