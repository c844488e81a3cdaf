//! The sum of one pair's terms walked outward from its mode, a term at a time (or on a
//! stride), with the ratio of consecutive probabilities, until a bound on the rest is
//! below [`STOP`] of what was summed.

use crate::numeric::{ln_small, Sum, LN_SMALL};

use super::loader::{bd0, ln_pmf};
use super::strided::{pair_emi_strided, STOP, STRIDE_SD};

/// Where a pair's sum ([`pair_walk`]) starts, and what each of its terms needs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Start {
    pub(super) a: u64,
    pub(super) b: u64,
    pub(super) n: u64,
    /// The support, lo..=hi, and the mode clamped to it.
    pub(super) lo: u64,
    pub(super) hi: u64,
    pub(super) m: u64,
    /// The probability at the mode.
    pub(super) p_m: f64,
    /// The mean, a b / n, its logarithm, and a b.
    pub(super) mu: f64,
    pub(super) ln_mu: f64,
    pub(super) abf: f64,
    /// A bound on each term's size over its probability.
    pub(super) factor: f64,
    /// The standard deviation of the count.
    pub(super) sd: f64,
    /// The stride of the terms (see [`pair_walk`]).
    pub(super) h: u64,
    pub(super) ln_draws: f64,
    /// n hi and a b are at most 2^53, so n k - a b is exact in doubles.
    pub(super) doubles: bool,
}

/// The start of a pair's sum, of a row and a column size given with their logarithms;
/// `None` when its support is empty or only 0 (no terms).
pub(super) fn pair_start_ln(
    (a, ln_a): (u64, f64),
    (b, ln_b): (u64, f64),
    n: u64,
    ln_n: f64,
    ln_draws: f64,
) -> Option<Start> {
    // a + b may pass u64::MAX (a given table with n near it); the result is at most a.
    // The support starts at 0 when a + b <= n: the k = 0 term is not zero in the form
    // summed here (below).
    let lo = (u128::from(a) + u128::from(b)).saturating_sub(u128::from(n)) as u64;
    let hi = a.min(b);
    if lo > hi || hi == 0 {
        return None;
    }
    let (af, bf, nf) = (a as f64, b as f64, n as f64);
    let ln_ab = ln_a + ln_b;
    let ln_hi = if a <= b { ln_a } else { ln_b };
    // In u64 where it fits (a u128 division is a library call).
    let wide = || (((a as u128 + 1) * (b as u128 + 1)) / (n as u128 + 2)) as u64;
    let mode = a
        .checked_add(1)
        .zip(b.checked_add(1))
        .and_then(|(x, y)| x.checked_mul(y))
        .zip(n.checked_add(2))
        .map_or_else(wide, |(xy, z)| xy / z);
    let m = mode.clamp(lo, hi);
    let p_m = ln_pmf(m, a, b, n, ln_draws).exp();
    let ab = u128::from(a) * u128::from(b);
    let doubles = u128::from(n) * u128::from(hi) <= 1 << 53 && ab <= 1 << 53;
    let (inv_n, abf) = (1.0 / nf, ab as f64);
    // |k ln(k/μ) - (k - μ)| / n ≤ (hi/n) · max(|ln(n/(ab))|, |ln(n hi/(ab))|) + max(hi, μ)/n
    // on lo..=hi.
    let factor = (hi as f64 / nf) * (ln_n - ln_ab).abs().max((ln_n + ln_hi - ln_ab).abs())
        + (hi as f64).max(abf * inv_n) * inv_n;
    // Standard deviation of the hypergeometric count.
    let sd = (bf * (af / nf) * ((nf - af) / nf) * ((nf - bf) / (nf - 1.0).max(1.0))).sqrt();
    // A stride for the terms (their logarithms are most of the cost) while the
    // probabilities still step by one: by Poisson summation, as in `pair_emi_strided`,
    // h Σ_j g(m + j h) differs from Σ_k g(k) by terms of order exp(-2π² sd² / h²) =
    // exp(-8π²) ≈ 5e-35 for h ≤ sd/2, provided the support's ends are far out in the
    // tails (12 sd: below e^-72) and the logarithm's branch point at k = 0 is far in
    // units of h (the mean is at least the variance, so at least 2 sd / h · sd ≥ 32 h).
    let h = if sd >= 16.0 && (m - lo) as f64 >= 12.0 * sd && (hi - m) as f64 >= 12.0 * sd {
        (sd / 2.0) as u64
    } else {
        1
    };
    Some(Start {
        a,
        b,
        n,
        lo,
        hi,
        m,
        p_m,
        mu: abf * inv_n,
        ln_mu: (abf / nf).ln(),
        abf,
        factor,
        sd,
        h,
        ln_draws,
        doubles,
    })
}

/// A pair's sum from its start, a term at a time (or on a stride).
pub(super) fn pair_walk(st: &Start) -> f64 {
    let Start {
        a,
        b,
        n,
        lo,
        hi,
        m,
        p_m,
        mu,
        ln_mu,
        abf,
        factor,
        sd,
        h,
        ln_draws,
        doubles,
    } = *st;
    let nf = n as f64;
    // The cells of the 2x2 table at k, in integers (exact even past 2^53): k, a - k,
    // b - k and the fourth, n - a - b + k, as (n - a) - (b - k): no overflow, as the
    // fourth cell is at least 0 for k in lo..=hi.
    let fourth = |k: u64| ((n - a) - (b - k)) as f64;
    let ln_prob = |k: u64| ln_pmf(k, a, b, n, ln_draws);
    let ab = u128::from(a) * u128::from(b);
    let (inv_n, inv_ab) = (1.0 / nf, 1.0 / abf);
    // With μ = ab/n the mean of k, Σ_k P(k) (k - μ) = 0 over the whole support, so
    //   Σ_k P(k) (k/n) ln(k/μ) = (1/n) Σ_k P(k) [k ln(k/μ) - (k - μ)],
    // a sum of non-negative terms (Loader's bd0(k, μ); μ at k = 0): no cancellation
    // between the terms below and above the mean, which the first form has (it loses
    // up to a factor of about the standard deviation). ln(k/μ) = ln1p((n k - a b)/(a b)),
    // with n k - a b exact: in doubles when every product is below 2^53, else in integers.
    let ln_small = ln_small();
    // The term at k (`kf`: k as a float, which the callers keep), of probability p.
    let term = |k: u64, kf: f64, p: f64| {
        let diff = if doubles {
            nf * kf - abf
        } else {
            let nk = u128::from(n) * u128::from(k);
            if nk >= ab {
                (nk - ab) as f64
            } else {
                -((ab - nk) as f64)
            }
        };
        // bd0(k, μ) = k ln(k/μ) - (k - μ), with d = k - μ from the exact difference.
        // Near the mean (|d| < (k + μ)/10) by Loader's series: there k ln(k/μ) and d agree
        // in all but about the last log10(2μ/|d|) digits, and taking their difference lost
        // those (5e-14 of the sum at a standard deviation of 250). At least μ/2 from the
        // mean, with ln k from a table less ln μ, which loses at most a few ulps of the
        // term there (|ln(k/μ)| ≥ ln 1.5, and bd0 ≥ 0.1 μ); else with ln1p.
        let d = diff * inv_n;
        let bd = if k == 0 {
            -d
        } else if d.abs() < 0.1 * (kf + mu) {
            bd0(kf, mu, d)
        } else if d.abs() * 2.0 >= mu && k < LN_SMALL {
            kf * (ln_small[k as usize] - ln_mu) - d
        } else {
            kf * (diff * inv_ab).ln_1p() - d
        };
        p * bd * inv_n
    };
    if sd >= STRIDE_SD {
        return pair_emi_strided(m, lo, hi, (sd / 16.0) as u64, factor, |k| {
            let p = ln_prob(k).exp();
            (p, term(k, k as f64, p))
        });
    }
    let mut s = Sum::default();
    let t = h as f64 * term(m, m as f64, p_m);
    s.add(t);
    let mut mass = t.abs();
    // Upward: P(k+1) = P(k) (a-k)(b-k) / ((k+1)(n-a-b+k+1)).
    // The four factors start exact at the mode and step by one (exact below 2^53; past
    // it, off by a few units in counts of 2^53 or more).
    let up = Steps::<true> {
        k: m,
        p: p_m,
        num: [(a - m) as f64, (b - m) as f64],
        den: [(m + 1) as f64, if m < hi { fourth(m + 1) } else { 0.0 }],
    };
    walk_side(up, st, &term, &ln_prob, &mut s, &mut mass);
    // Downward: P(k-1) = P(k) k (n-a-b+k) / ((a-k+1)(b-k+1)).
    let down = Steps::<false> {
        k: m,
        p: p_m,
        num: [m as f64, fourth(m)],
        den: [(a - m + 1) as f64, (b - m + 1) as f64],
    };
    walk_side(down, st, &term, &ln_prob, &mut s, &mut mass);
    s.value()
}

/// A walk from the mode, upward (`UP`) or downward: the count `k` and its probability
/// `p`, and the ratio of the next probability to `p`, `num[0] num[1] / (den[0] den[1])`,
/// whose factors step down and up by one a step.
struct Steps<const UP: bool> {
    k: u64,
    p: f64,
    num: [f64; 2],
    den: [f64; 2],
}

impl<const UP: bool> Steps<UP> {
    /// The counts left to the support's end (`lo..=hi`) this way.
    #[inline(always)]
    fn left(&self, lo: u64, hi: u64) -> u64 {
        if UP {
            hi - self.k
        } else {
            self.k - lo
        }
    }

    /// One step: the new k as a float, and the ratio.
    #[inline(always)]
    fn step(&mut self) -> (f64, f64) {
        let r = self.num[0] * self.num[1] / (self.den[0] * self.den[1]);
        let kf = if UP { self.den[0] } else { self.num[0] - 1.0 };
        self.advance();
        self.p *= r;
        self.k = if UP { self.k + 1 } else { self.k - 1 };
        (kf, r)
    }

    /// The ratio's factors one step on.
    #[inline(always)]
    fn advance(&mut self) {
        let ([x, y], [u, v]) = (self.num, self.den);
        (self.num, self.den) = ([x - 1.0, y - 1.0], [u + 1.0, v + 1.0]);
    }

    /// `h` steps, their ratios multiplied four at a time (numerators and denominators
    /// apart, one division per four: the divisions were most of the time).
    #[inline(always)]
    fn stride(&mut self, h: u64) {
        let mut left = h;
        while left > 0 {
            let g = left.min(4);
            let (mut num, mut den) = (1.0, 1.0);
            for _ in 0..g {
                num *= self.num[0] * self.num[1];
                den *= self.den[0] * self.den[1];
                self.advance();
            }
            self.p *= num / den;
            left -= g;
        }
        self.k = if UP { self.k + h } else { self.k - h };
    }

    /// The count as a float, after [`Steps::stride`].
    #[inline(always)]
    fn kf(&self) -> f64 {
        if UP {
            self.den[0] - 1.0
        } else {
            self.num[0]
        }
    }
}

/// [`pair_walk`]'s terms one way from the mode (`w`, whose term is in `s` already) added
/// to `s`, and their size to `mass`, until the tail bound or the support's end; `term`
/// is the term at a count (and the count as a float) of a probability, `ln_prob` the
/// logarithm of a count's probability.
#[inline(always)]
fn walk_side<const UP: bool>(
    mut w: Steps<UP>,
    st: &Start,
    term: &impl Fn(u64, f64, f64) -> f64,
    ln_prob: &impl Fn(u64) -> f64,
    s: &mut Sum,
    mass: &mut f64,
) {
    let Start {
        lo, hi, factor, h, ..
    } = *st;
    let hf = h as f64;
    let tiny = f64::MIN_POSITIVE;
    // Without a stride, four terms at a time: added pairwise (they are non-negative), one
    // compensated addition and one look at the tail bound for the four (which then
    // covers the last one's tail: a term or three more than one at a time, fewer
    // dependent steps per term).
    let mut done = false;
    if h == 1 {
        while w.left(lo, hi) >= 4 {
            let (f0, _) = w.step();
            let t0 = term(w.k, f0, w.p);
            let (f1, _) = w.step();
            let t1 = term(w.k, f1, w.p);
            let (f2, _) = w.step();
            let t2 = term(w.k, f2, w.p);
            let (f3, r) = w.step();
            let t3 = term(w.k, f3, w.p);
            let t = (t0 + t1) + (t2 + t3);
            s.add(t);
            *mass += t.abs();
            if r < 1.0 && w.p * factor * r <= (*mass * STOP + tiny) * (1.0 - r) {
                done = true;
                break;
            }
        }
    } else {
        // On a stride: h steps of the probability between terms; the tail bound from the
        // ratio over the stride, which falls off past the mode as the single steps' do.
        let (mut prev, mut stepped) = (w.p, 0);
        while w.left(lo, hi) >= h {
            w.stride(h);
            stepped += h;
            if stepped >= ANCHOR_STEPS {
                // The steps' rounding, a random walk of about an ulp a step, grows with
                // their number: Loader's probability again every so many steps.
                w.p = ln_prob(w.k).exp();
                stepped = 0;
            }
            let t = hf * term(w.k, w.kf(), w.p);
            s.add(t);
            *mass += t.abs();
            let q = w.p / prev;
            prev = w.p;
            if q < 1.0 && hf * w.p * factor * q <= (*mass * STOP + tiny) * (1.0 - q) {
                break;
            }
        }
        done = true;
    }
    // After a step to k (probability p, ratio r from the last): on every h-th step add the
    // term, and stop once the rest, every term on the stride or not, is below the tail
    // bound (past the mode the probabilities fall off at least geometrically).
    let mut until = h;
    while !done && w.left(lo, hi) > 0 {
        let (kf, r) = w.step();
        until -= 1;
        if until > 0 {
            continue;
        }
        until = h;
        let t = hf * term(w.k, kf, w.p);
        s.add(t);
        *mass += t.abs();
        if r < 1.0 && hf * w.p * factor * r <= (*mass * STOP + tiny) * (1.0 - r) {
            break;
        }
    }
}

/// Steps of the ratio recurrence on a stride between probabilities from Loader's formula
/// (about 1e-15 of drift; 3,000 steps, 12 standard deviations of 250, drifted 5e-14).
const ANCHOR_STEPS: u64 = 256;
