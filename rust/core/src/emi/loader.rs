//! Loader's saddle-point form of binomial and hypergeometric probabilities (Loader,
//! 2000), accurate to a few ulps however large the counts.

use crate::numeric::ln_count;

/// [`stirlerr`] at 0 to 15 (0 at 0, as R's `sferr_halves`), from 40-digit `mpmath`: every
/// count passed to it is an integer, and `lgamma` for each was much of the cost of a
/// wide table's expected mutual information.
#[allow(clippy::excessive_precision)]
pub(super) const STIRLERR: [f64; 16] = [
    0.0,
    0.081061466795327258219670263594382,
    0.041340695955409294093822081407118,
    0.027677925684998339148789292746245,
    0.020790672103765093111522771767849,
    0.016644691189821192163194865373593,
    0.013876128823070747998745727023763,
    0.011896709945891770095055724117657,
    0.010411265261972096497478567132021,
    0.0092554621827127329177286366904403,
    0.0083305634333628712565095525224219,
    0.0075736754879518407949720242192584,
    0.0069428401072095298656730793281591,
    0.0064089941880042070684396310822381,
    0.0059513701127588477355829270062449,
    0.0055547335519628013710386899850104,
];

/// ln(n!) - ln(sqrt(2πn) (n/e)^n), the error of Stirling's formula (Loader, 2000).
pub(super) fn stirlerr(n: f64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if n <= 15.0 && n.fract() == 0.0 {
        return STIRLERR[n as usize];
    }
    if n <= 15.0 {
        // Small arguments: lgamma is exact enough here (no large cancellation).
        return libm::lgamma(n + 1.0) - (n + 0.5) * n.ln() + n
            - 0.5 * (2.0 * std::f64::consts::PI).ln();
    }
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// 1 / (2j + 1) for j below 24 (0 at 0, unused).
const RECIPROCAL_ODD: [f64; 24] = {
    let mut r = [0.0; 24];
    let mut j = 1;
    while j < 24 {
        r[j] = 1.0 / (2 * j + 1) as f64;
        j += 1;
    }
    r
};

/// x ln(x/m) + m - x, without cancellation when x is close to m (Loader, 2000), given
/// `d = x - m` computed accurately by the caller: when x and m are large (past 2^53) and
/// close, `x - m` in floating point would keep none of the difference's digits.
pub(crate) fn bd0(x: f64, m: f64, d: f64) -> f64 {
    if d.abs() < 0.1 * (x + m) {
        let mut v = d / (x + m);
        let mut s = d * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        // |v| < 0.1: each term is below a hundredth of the last, so about nine terms;
        // their divisors' reciprocals from a table (a division each took half the time).
        let mut j = 1;
        loop {
            ej *= v;
            let s1 = s + ej
                * RECIPROCAL_ODD
                    .get(j)
                    .copied()
                    .unwrap_or(1.0 / (2 * j + 1) as f64);
            if s1 == s {
                return s1;
            }
            s = s1;
            j += 1;
        }
    }
    // x ln(x/m) - d, with x/m = 1 + d/m.
    x * (d / m).ln_1p() - d
}

/// `(u - v) / w` for integers, the difference exact before the one rounding.
fn exact_diff(u: u128, v: u128, w: f64) -> f64 {
    if u >= v {
        (u - v) as f64 / w
    } else {
        -((v - u) as f64 / w)
    }
}

/// ln of the binomial probability of x successes in n trials with success probability
/// p = draws / total, by Loader's saddle-point expansion: accurate to a few ulps of the
/// probability however large n is. Every difference of counts (n - x, total - draws,
/// x - n p) is taken in integers, so counts past 2^53 lose nothing to cancellation.
pub(crate) fn ln_binomial(x: u64, n: u64, draws: u64, total: u64) -> f64 {
    let tf = total as f64;
    let p = draws as f64 / tf;
    let q = (total - draws) as f64 / tf;
    let (xf, nf, rest) = (x as f64, n as f64, (n - x) as f64);
    if draws == 0 {
        return if x == 0 { 0.0 } else { f64::NEG_INFINITY };
    }
    if draws == total {
        return if x == n { 0.0 } else { f64::NEG_INFINITY };
    }
    // x - n p and (n - x) - n q = -(x - n p).
    let d = exact_diff(
        u128::from(x) * u128::from(total),
        u128::from(n) * u128::from(draws),
        tf,
    );
    if x == 0 {
        return if n == 0 {
            0.0
        } else if p < 0.1 {
            -bd0(nf, nf * q, -d) - nf * p
        } else {
            nf * q.ln()
        };
    }
    if x == n {
        return if q < 0.1 {
            -bd0(nf, nf * p, d) - nf * q
        } else {
            nf * p.ln()
        };
    }
    let lc =
        stirlerr(nf) - stirlerr(xf) - stirlerr(rest) - bd0(xf, nf * p, d) - bd0(rest, nf * q, -d);
    // (Most calls have small x: ln x from the table.)
    let ln_x = ln_count(x);
    let lf = (2.0 * std::f64::consts::PI).ln() + ln_x + (rest / nf).ln();
    lc - 0.5 * lf
}

/// ln P(k) for the hypergeometric distribution of k white balls among `b` drawn from
/// `a` white and `n - a` black ones; `ln_draws` is `ln_binomial(b, n, b, n)`, the same
/// for every row.
pub(super) fn ln_pmf(k: u64, a: u64, b: u64, n: u64, ln_draws: f64) -> f64 {
    ln_binomial(k, a, b, n) + ln_binomial(b - k, n - a, b, n) - ln_draws
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emi::testing::ln_hypergeometric;

    #[test]
    fn stirlerr_table_matches_its_definition_and_the_series() {
        for n in 1..=15u32 {
            let x = f64::from(n);
            // The definition, from lgamma: its cancellation leaves a few 1e-15.
            let direct = libm::lgamma(x + 1.0) - (x + 0.5) * x.ln() + x
                - 0.5 * (2.0 * std::f64::consts::PI).ln();
            assert!((STIRLERR[n as usize] - direct).abs() < 1e-14, "n = {n}");
        }
        // At 15 the five-term series used above 15 is off by its next term, 2.2e-16.
        let nn = 225.0;
        let series = (1.0 / 12.0
            - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - 1.0 / 1188.0 / nn) / nn) / nn) / nn)
            / 15.0;
        assert!((STIRLERR[15] - series).abs() < 3e-16);
        assert_eq!(stirlerr(15.0), STIRLERR[15]);
        assert!((stirlerr(16.0) - 0.005_207_655_919_609_64).abs() < 2e-16);
    }

    #[test]
    fn hypergeometric_probabilities_sum_to_one_at_large_n() {
        // lgamma-based logs lose ~1e-9 here (lgamma(1e7) ~ 1.5e8); Loader's form does not.
        for &(white, black, draws) in &[
            (500_000u64, 9_500_000u64, 330_000u64),
            (3, 9_999_997, 5_000_000),
            (40, 60, 50),
        ] {
            let total: f64 = (0..=draws.min(white))
                .map(|k| ln_hypergeometric(k, white, black, draws).exp())
                .sum();
            assert!(
                (total - 1.0).abs() < 1e-12,
                "{white} {black} {draws}: {total}"
            );
        }
    }
}
