//! The block sizes of a uniformly random set partition of `n` items, into `k` blocks
//! (Stirling numbers of the second kind) or into any number of blocks (Bell numbers):
//! the probability `P_b` that a given item's block has `b` items, and from it the
//! expected number of blocks of each size, `n P_b / b`.
//!
//! A given item's block has `b` items in `C(n-1, b-1) S(n-b, k-1)` of the `S(n, k)`
//! partitions into `k` blocks, and in `C(n-1, b-1) B(n-b)` of the `B(n)` partitions into
//! any number, so `P_b` is proportional to those counts. They are summed in the forms
//! that keep every digit:
//!
//! - into `k` blocks, with `S(m, j) = j^m / j! · T(m, j)` and the alternating sum
//!   `T(m, j) = Σ_i (-1)^i C(j, i) (1 - i/j)^m`, `P_b` is proportional to the binomial
//!   probability of `b - 1` successes in `n - 1` trials of probability `1/k` (Loader's
//!   form, a few ulps at any `n`) times `T(n-b, k-1)`. The sum is close to 1 and well
//!   conditioned when `n` is well above `k ln k` (the usual case, clusters of many
//!   items); each sum's condition number is checked, and where it is poor the Stirling
//!   numbers come from their recurrence `S(m, j) = j S(m-1, j) + S(m-1, j-1)` instead, in
//!   floats with a separate exponent (sums of positive terms: a rounding per step), at a
//!   cost of `(k - 1)(n - k + 1)` steps, refused above [`RECURRENCE_STEPS`];
//! - into any number, by Dobinski's formula `B(m) = e^-1 Σ_j j^m / j!`, `P_b` is
//!   proportional to `Σ_j w_j C(n-1, b-1) j^-b` with `w_j = j^n / j!` (positive terms
//!   only), the weights taken relative to the largest.
//!
//! Sizes whose probability is below [`NEGLIGIBLE`] of the most likely size's (and every
//! size past them) are left out: they change no sum by more than a rounding.

use crate::alloc;
use crate::emi::ln_binomial;
use crate::error::Error;
use crate::numeric::Sum;
use crate::stop;

/// ln of the share of the most likely size's probability below which sizes are left out
/// (e^-46 ≈ 1e-20).
const NEGLIGIBLE: f64 = -46.0;

/// The largest condition number (sum of the absolute terms over the sum) accepted of an
/// alternating sum `T(m, j)`: at most 10 bits lost.
const CONDITION: f64 = 1024.0;

/// The most steps of the Stirling recurrence a call may take (about a second).
pub const RECURRENCE_STEPS: u128 = 200_000_000;

/// The block sizes of a random partition: each size with the expected number of blocks
/// of that size, and the probability that two given items share a block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BlockSizes {
    pub(crate) sizes: Vec<(u64, f64)>,
    pub(crate) pair: f64,
}

impl BlockSizes {
    /// From the probabilities `P_b` (not yet normalised) of the sizes `first..`.
    fn from_shares(n: u64, first: u64, shares: &[f64]) -> Result<BlockSizes, Error> {
        let mut total = Sum::default();
        for &s in shares {
            total.add(s);
        }
        let total = total.value();
        let mut pair = Sum::default();
        let mut sizes = alloc::with_capacity(shares.len(), SIZES)?;
        for (b, &s) in (first..).zip(shares) {
            if s > 0.0 {
                let p = s / total;
                sizes.push((b, n as f64 * p / b as f64));
                if n > 1 {
                    pair.add(p * (b - 1) as f64 / (n - 1) as f64);
                }
            }
        }
        Ok(BlockSizes {
            sizes,
            pair: pair.value(),
        })
    }

    /// The sizes of a fixed partition whose blocks are `counts` (size, number of blocks).
    pub(crate) fn fixed(counts: &[(u64, u64)], n: u64) -> Result<BlockSizes, Error> {
        let pairs: u128 = counts
            .iter()
            .map(|&(s, c)| u128::from(c) * u128::from(s) * u128::from(s.saturating_sub(1)))
            .sum();
        let all = u128::from(n) * u128::from(n.saturating_sub(1));
        Ok(BlockSizes {
            sizes: alloc::collect(counts.iter().map(|&(s, c)| (s, c as f64)), SIZES)?,
            pair: if all == 0 {
                0.0
            } else {
                pairs as f64 / all as f64
            },
        })
    }
}

/// What a random partition's sizes are called when refused.
const SIZES: &str = "the block sizes of a random partition";

/// The block sizes of a uniformly random partition of `n` items into `k` blocks
/// (`1 <= k <= n`).
pub(crate) fn into_blocks(n: u64, k: u64) -> Result<BlockSizes, Error> {
    debug_assert!(1 <= k && k <= n);
    if k == 1 {
        return BlockSizes::from_shares(n, n, &[1.0]);
    }
    if k == n {
        return BlockSizes::from_shares(n, 1, &[1.0]);
    }
    match by_alternating_sums(n, k) {
        Some((first, shares)) => BlockSizes::from_shares(n, first, &shares),
        None => by_recurrence(n, k),
    }
}

/// ln T(m, j) (see the module's text), or None where its sum is poorly conditioned.
fn ln_alternating(m: u64, j: u64) -> Option<f64> {
    let (mf, jf) = (m as f64, j as f64);
    let mut sum = Sum::default();
    let mut abs = 1.0;
    sum.add(1.0);
    let mut ln_choose = 0.0;
    let mut last = f64::INFINITY;
    for i in 1..j {
        ln_choose += ((j - i + 1) as f64).ln() - (i as f64).ln();
        let term = (ln_choose + mf * (-(i as f64) / jf).ln_1p()).exp();
        sum.add(if i % 2 == 1 { -term } else { term });
        abs += term;
        // Past the largest term they fall off; stop once they are below a rounding.
        if term < last && term < 1e-18 * abs {
            break;
        }
        last = term;
    }
    // (The i = j term is 0^m = 0 for m >= 1.)
    let t = sum.value();
    (t > 0.0 && abs / t <= CONDITION).then(|| t.ln())
}

/// ln P_b + const of size `b` into `k` blocks, or None where the sum is poorly conditioned.
fn ln_share_blocks(n: u64, k: u64, b: u64) -> Option<f64> {
    let t = ln_alternating(n - b, k - 1)?;
    Some(ln_binomial(b - 1, n - 1, 1, k) + t)
}

/// [`into_blocks`]'s first size and shares by the alternating sums, walking out from the
/// most likely size until the sizes are negligible; None where a sum is poorly
/// conditioned. (Each size costs a sum of up to `k` terms: the sizes are few.)
fn by_alternating_sums(n: u64, k: u64) -> Option<(u64, Vec<f64>)> {
    let last = n - k + 1;
    let mode = (1 + (n - 1) / k).min(last);
    let at_mode = ln_share_blocks(n, k, mode)?;
    let mut top = at_mode;
    let mut down = Vec::new();
    let mut b = mode;
    while b > 1 {
        b -= 1;
        let v = ln_share_blocks(n, k, b)?;
        top = top.max(v);
        down.push(v);
        if v < top + NEGLIGIBLE {
            break;
        }
    }
    let mut up = Vec::new();
    let mut b = mode;
    while b < last {
        b += 1;
        let v = ln_share_blocks(n, k, b)?;
        top = top.max(v);
        up.push(v);
        if v < top + NEGLIGIBLE {
            break;
        }
    }
    let first = mode - down.len() as u64;
    let lns: Vec<f64> = down
        .iter()
        .rev()
        .copied()
        .chain(std::iter::once(at_mode))
        .chain(up)
        .collect();
    Some((first, shares(&lns, top)))
}

/// exp(ln - top) of each, 0 below [`NEGLIGIBLE`].
fn shares(lns: &[f64], top: f64) -> Vec<f64> {
    lns.iter()
        .map(|&v| {
            if v - top < NEGLIGIBLE {
                0.0
            } else {
                (v - top).exp()
            }
        })
        .collect()
}

/// A positive float with its own exponent: `m · 2^e`, `m` in [1, 2) (or 0).
#[derive(Clone, Copy, Debug)]
struct Wide {
    m: f64,
    e: i64,
}

impl Wide {
    const ZERO: Wide = Wide { m: 0.0, e: 0 };
    const ONE: Wide = Wide { m: 1.0, e: 0 };

    fn new(m: f64, e: i64) -> Wide {
        if m == 0.0 {
            return Wide::ZERO;
        }
        let bits = m.to_bits();
        let shift = ((bits >> 52) & 0x7ff) as i64 - 1023;
        let mantissa = f64::from_bits((bits & !(0x7ff << 52)) | (1023 << 52));
        Wide {
            m: mantissa,
            e: e + shift,
        }
    }

    fn times(self, x: f64) -> Wide {
        Wide::new(self.m * x, self.e)
    }

    fn plus(self, other: Wide) -> Wide {
        let (hi, lo) = if other.m == 0.0 || (self.m != 0.0 && self.e >= other.e) {
            (self, other)
        } else {
            (other, self)
        };
        let d = lo.e - hi.e;
        if lo.m == 0.0 || d < -60 {
            return hi;
        }
        Wide::new(
            hi.m + lo.m * f64::from_bits(((d + 1023) as u64) << 52),
            hi.e,
        )
    }

    fn times_wide(self, other: Wide) -> Wide {
        Wide::new(self.m * other.m, self.e + other.e)
    }

    /// Whether it is larger than `other`.
    fn above(self, other: Wide) -> bool {
        other.m == 0.0 || (self.m != 0.0 && (self.e, self.m) > (other.e, other.m))
    }

    /// Its ratio to a larger `top`, as a float (0 below the smallest float).
    fn over(self, top: Wide) -> f64 {
        let d = self.e - top.e;
        if self.m == 0.0 || d < -1000 {
            return 0.0;
        }
        self.m / top.m * 2f64.powi(d as i32)
    }
}

/// [`into_blocks`] by the recurrence of the Stirling numbers (see the module's text).
fn by_recurrence(n: u64, k: u64) -> Result<BlockSizes, Error> {
    let width = n - k + 1;
    let steps = u128::from(k - 1) * u128::from(width);
    if steps > RECURRENCE_STEPS {
        return Err(Error::TooCostly(format!(
            "the sizes of a random partition of {n} items into {k} blocks: n is below \
             about k ln k, where the Stirling numbers' alternating sums lose their digits, \
             and their recurrence would take (k - 1)(n - k + 1) = {steps} steps (at most \
             {RECURRENCE_STEPS})"
        )));
    }
    let w = usize::try_from(width).map_err(|_| Error::TooCostly("too many sizes".into()))?;
    // column[i] = S(j + i, j), for j = 1 .. k - 1.
    let mut column = alloc::filled(w, Wide::ONE, SIZES)?;
    for j in 2..k {
        if stop::requested() {
            return Err(Error::Stopped);
        }
        // S(j + i, j) = j S(j + i - 1, j) + S(j + i - 1, j - 1): the previous column's
        // entry i is S(j - 1 + i, j - 1).
        let jf = j as f64;
        let mut previous = Wide::ZERO; // S(j - 1, j) = 0
        for entry in column.iter_mut() {
            let value = previous.times(jf).plus(*entry);
            *entry = value;
            previous = value;
        }
    }
    // P_b ∝ C(n-1, b-1) S(n-b, k-1), with S(n-b, k-1) = column[n - b - (k - 1)]; each
    // taken over the largest as one division (their logarithms would lose digits).
    let mut products = alloc::with_capacity(w, SIZES)?;
    let mut choose = Wide::ONE;
    for b in 1..=width {
        if b > 1 {
            choose = choose.times((n - b + 1) as f64 / (b - 1) as f64);
        }
        products.push(choose.times_wide(column[(width - b) as usize]));
    }
    let top = products
        .iter()
        .copied()
        .fold(Wide::ZERO, |a, b| if b.above(a) { b } else { a });
    drop(column);
    let shares = alloc::collect(products.iter().map(|p| p.over(top)), SIZES)?;
    drop(products);
    BlockSizes::from_shares(n, 1, &shares)
}

/// The block sizes of a uniformly random partition of `n >= 1` items. (Its lists are of
/// the sizes whose weights are not negligible, some thousands at most.)
pub(crate) fn any_blocks(n: u64) -> Result<BlockSizes, Error> {
    if n == 1 {
        return BlockSizes::from_shares(1, 1, &[1.0]);
    }
    let nf = n as f64;
    // The largest Dobinski weight w_j = j^n / j!: ln w_{j+1} - ln w_j = n ln(1 + 1/j) -
    // ln(j + 1) falls with j; start near n / ln j and step to the top.
    let step = |j: u64| nf * (1.0 / j as f64).ln_1p() - ((j + 1) as f64).ln();
    let mut j = (nf / nf.ln().max(1.0)).max(1.0) as u64;
    for _ in 0..8 {
        j = (nf / (j as f64).ln().max(1.0)).max(1.0) as u64;
    }
    while j > 1 && step(j - 1) < 0.0 {
        j -= 1;
    }
    while step(j) > 0.0 {
        j += 1;
    }
    // ln w relative to the top, out to both sides until negligible. Below the top, j^-b
    // raises a weight by (top / j)^b for blocks of b items: from the top at j_0 down by
    // d, by about e^(b d / j_0), where d is within 10 standard deviations of the weights
    // (j_0 / sqrt n) and b below 300 (blocks average ln n items): e^(3000 / sqrt n).
    // Below 10^4 items every weight is kept; above, those below e^-86.
    let mut below = Vec::new();
    let mut acc = Sum::default();
    let mut i = j;
    while i > 1 {
        i -= 1;
        acc.add(-step(i));
        if n > 10_000 && acc.value() < NEGLIGIBLE - 40.0 {
            break;
        }
        below.push(acc.value());
    }
    let mut above = Vec::new();
    let mut acc = Sum::default();
    let mut i = j;
    loop {
        acc.add(step(i));
        i += 1;
        if acc.value() < NEGLIGIBLE {
            break;
        }
        above.push(acc.value());
    }
    let first = j - below.len() as u64;
    let weights: Vec<(f64, f64)> = below
        .iter()
        .rev()
        .copied()
        .chain(std::iter::once(0.0))
        .chain(above)
        .zip(first..)
        .map(|(ln_w, i)| (ln_w.exp() / i as f64, i as f64))
        .collect();
    // The j = 0 term of B(0) (b = n): 0^0 / 0! = 1, relative to the top weight.
    let ln_top = nf * (j as f64).ln() - libm::lgamma(j as f64 + 1.0);
    // P_b ∝ Σ_j (w_j / j) · C(n-1, b-1) j^-(b-1), the products kept per j as b grows.
    let mut terms: Vec<f64> = weights.iter().map(|&(w, _)| w).collect();
    let mut lns = Vec::new();
    let mut top = f64::NEG_INFINITY;
    for b in 1..=n {
        if b > 1 {
            let grow = (n - b + 1) as f64 / (b - 1) as f64;
            for (t, &(_, i)) in terms.iter_mut().zip(&weights) {
                *t *= grow / i;
            }
        }
        let mut s = Sum::default();
        for &t in &terms {
            s.add(t);
        }
        let mut v = s.value();
        if b == n {
            v += (-ln_top).exp();
        }
        let v = v.ln();
        top = top.max(v);
        lns.push(v);
        if v < top + NEGLIGIBLE {
            break;
        }
    }
    BlockSizes::from_shares(n, 1, &shares(&lns, top))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// S(m, j) for m, j <= `n`, exactly.
    fn stirling(n: usize) -> Vec<Vec<u128>> {
        let mut s = vec![vec![0u128; n + 1]; n + 1];
        s[0][0] = 1;
        for m in 1..=n {
            for j in 1..=m {
                s[m][j] = j as u128 * s[m - 1][j] + s[m - 1][j - 1];
            }
        }
        s
    }

    fn choose(n: u64, k: u64) -> u128 {
        (0..k).fold(1u128, |c, i| c * u128::from(n - i) / u128::from(i + 1))
    }

    fn close(got: f64, want: f64, what: &str) {
        assert!(
            (got - want).abs() <= 1e-13 * want.abs().max(1e-300),
            "{what}: {got} against {want}"
        );
    }

    /// The expected number of blocks of each size, from exact counts: `C(n, b)
    /// count(n - b) / count(n)`, with `count(m)` the partitions of m items counted.
    fn check(got: &BlockSizes, n: u64, count: impl Fn(u64) -> u128, what: &str) {
        let all = count(n) as f64;
        let mut pair = 0.0;
        for b in 1..=n {
            let want = (choose(n, b) * count(n - b)) as f64 / all;
            let found = got
                .sizes
                .iter()
                .find(|&&(s, _)| s == b)
                .map_or(0.0, |&(_, w)| w);
            // Sizes below e^-46 of the likeliest are left out.
            if want > 1e-18 * n as f64 {
                close(found, want, &format!("{what}: size {b}"));
            } else {
                assert!(found <= want * (1.0 + 1e-13), "{what}: size {b}");
            }
            if n > 1 {
                pair += want * (b * (b - 1)) as f64 / (n * (n - 1)) as f64;
            }
        }
        close(got.pair, pair, &format!("{what}: pair"));
    }

    #[test]
    fn into_blocks_equals_stirling_numbers() {
        let s = stirling(34);
        for n in 1..=34u64 {
            for k in 1..=n {
                let got = into_blocks(n, k).unwrap();
                let count = |m: u64| s[m as usize][(k - 1) as usize];
                // C(n, b) S(n - b, k - 1) / S(n, k).
                let all = s[n as usize][k as usize] as f64;
                for b in 1..=n {
                    let want = (choose(n, b) * count(n - b)) as f64 / all;
                    let found = got
                        .sizes
                        .iter()
                        .find(|&&(x, _)| x == b)
                        .map_or(0.0, |&(_, w)| w);
                    if want > 1e-18 * n as f64 {
                        close(found, want, &format!("n {n} k {k} size {b}"));
                    } else {
                        assert!(found <= want * (1.0 + 1e-13), "n {n} k {k} size {b}");
                    }
                }
                let want_pair = if n > 1 {
                    s[(n - 1) as usize][k as usize] as f64 / all
                } else {
                    0.0
                };
                close(got.pair, want_pair, &format!("n {n} k {k} pair"));
            }
        }
    }

    #[test]
    fn any_blocks_equals_bell_numbers() {
        let s = stirling(34);
        let bell = |m: u64| s[m as usize].iter().sum::<u128>();
        for n in 1..=34u64 {
            check(&any_blocks(n).unwrap(), n, bell, &format!("n {n}"));
        }
    }

    #[test]
    fn alternating_sums_and_recurrence_agree() {
        for (n, k) in [(3000u64, 100u64), (2000, 7), (5000, 400), (400, 20)] {
            let (first, shares) = by_alternating_sums(n, k).expect("well conditioned");
            let sums = BlockSizes::from_shares(n, first, &shares).unwrap();
            let steps = by_recurrence(n, k).unwrap();
            let weight = |sizes: &BlockSizes, b: u64| {
                sizes
                    .sizes
                    .iter()
                    .find(|&&(x, _)| x == b)
                    .map_or(0.0, |&(_, w)| w)
            };
            let top = sums.sizes.iter().map(|&(_, w)| w).fold(0.0, f64::max);
            for b in 1..=n - k + 1 {
                let (x, y) = (weight(&sums, b), weight(&steps, b));
                assert!((x - y).abs() <= 1e-12 * top, "n {n} k {k} b {b}: {x} {y}");
            }
            close(sums.pair, steps.pair, &format!("n {n} k {k} pair"));
            // k blocks of n items, on average.
            let blocks: f64 = sums.sizes.iter().map(|&(_, w)| w).sum();
            let items: f64 = sums.sizes.iter().map(|&(b, w)| b as f64 * w).sum();
            close(blocks, k as f64, "blocks");
            close(items, n as f64, "items");
        }
    }

    #[test]
    fn poorly_conditioned_sums_are_refused_and_the_recurrence_has_a_budget() {
        // n below k ln k: the alternating sums cancel.
        assert!(by_alternating_sums(1000, 900).is_none());
        assert!(into_blocks(1000, 900).is_ok());
        let err = into_blocks(1_000_000, 200_000).unwrap_err();
        assert!(matches!(err, Error::TooCostly(_)), "{err:?}");
        assert!(err.to_string().contains("(k - 1)(n - k + 1)"), "{err}");
    }

    #[test]
    fn large_partitions_have_their_numbers_of_blocks_and_items() {
        for (n, k) in [(1_000_000u64, 60u64), (10_000_000, 33), (1_000_000, 20_000)] {
            let sizes = into_blocks(n, k).unwrap();
            let blocks: f64 = sizes.sizes.iter().map(|&(_, w)| w).sum();
            let items: f64 = sizes.sizes.iter().map(|&(b, w)| b as f64 * w).sum();
            close(blocks, k as f64, "blocks");
            close(items, n as f64, "items");
        }
        for n in [1000u64, 1_000_000, 10_000_000] {
            let sizes = any_blocks(n).unwrap();
            let items: f64 = sizes.sizes.iter().map(|&(b, w)| b as f64 * w).sum();
            close(items, n as f64, "items");
            // B(n-1)/B(n) is about ln n / n.
            let ln_n = (n as f64).ln();
            assert!(sizes.pair > 0.5 * ln_n / n as f64 && sizes.pair < 2.0 * ln_n / n as f64);
        }
    }
}
