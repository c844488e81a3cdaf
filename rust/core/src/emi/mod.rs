//! The expected mutual information of a table (the hypergeometric model of Vinh, Epps
//! and Bailey, 2010), as scikit-learn's: its sum over pairs of distinct row and column
//! sizes, in fixed blocks. A pair's sum is walked from its mode ([`walk`]), eight pairs
//! side by side where they fit the lanes ([`lanes`]), or taken on a stride of
//! samples for wide distributions ([`strided`]); every probability comes from Loader's
//! formula ([`loader`]).

mod lanes;
mod loader;
mod strided;
mod walk;

use crate::alloc;
use crate::error::Error;
use crate::numeric::Sum;
use crate::pool;
use crate::stop;
use crate::table::Table;

use lanes::{emi_lanes, fits_lanes, LANES};
pub(crate) use loader::{bd0, ln_binomial};
use walk::{pair_start_ln, pair_walk, Start};

/// Expected mutual information of two random labelings with the table's
/// row and column sums (the hypergeometric model of Vinh, Epps and Bailey,
/// 2010), as scikit-learn's `expected_mutual_information`: 0.0 when either
/// side has a single row or column.
///
/// scikit-learn sums every term of every (row, column) pair with nine
/// `lgamma` calls each. Here pairs with equal sizes are summed once, and each
/// pair's sum starts at the mode of its hypergeometric distribution, walks
/// outward with the ratio of consecutive probabilities (no `lgamma` per term),
/// and stops once a bound on the remaining tail (the probabilities decay at
/// least geometrically past the mode) is below 2^-60 of what was summed.
/// Pairs whose probabilities step by one are walked eight side by side, a
/// vector lane each.
///
/// [`Error::OutOfMemory`] if the sizes' lists or the blocks' sums are refused.
pub fn expected_mutual_info(t: &Table) -> Result<f64, Error> {
    if t.n_rows() == 1 || t.n_cols() == 1 || t.n == 0 {
        return Ok(0.0);
    }
    emi_of_sizes(&size_counts(&t.row_sums)?, &size_counts(&t.col_sums)?, t.n)
}

/// [`expected_mutual_info`] of a table with more than one row and column, of `n` samples,
/// whose distinct row and column sums are `rows` and `cols`, each with its number.
pub(crate) fn emi_of_sizes(rows: &[(u64, u64)], cols: &[(u64, u64)], n: u64) -> Result<f64, Error> {
    let weighted =
        |sizes: &[(u64, u64)]| alloc::collect(sizes.iter().map(|&(s, c)| (s, c as f64)), SIZES);
    emi_of_weighted_sizes(&weighted(rows)?, &weighted(cols)?, n)
}

/// What the expected mutual information's lists of sizes are called when refused.
const SIZES: &str = "the expected mutual information's lists of sizes";

/// [`emi_of_sizes`] where each size has a weight, not a number: its expected number of
/// blocks under a random model (`crate::models`).
pub(crate) fn emi_of_weighted_sizes(
    rows: &[(u64, f64)],
    cols: &[(u64, f64)],
    n: u64,
) -> Result<f64, Error> {
    let ln_n = (n as f64).ln();
    // The pairs in fixed blocks, each summed on its own and the blocks' sums added in
    // order: the same result on any number of threads.
    let pairs = rows.len() * cols.len();
    // The part of each hypergeometric probability that depends on the column size alone.
    let ln_draws = alloc::collect(cols.iter().map(|&(b, _)| ln_binomial(b, n, b, n)), SIZES)?;
    let with_ln = |sizes: &[(u64, f64)]| {
        alloc::collect(sizes.iter().map(|&(k, _)| (k, (k as f64).ln())), SIZES)
    };
    let (rows_ln, cols_ln) = (with_ln(rows)?, with_ln(cols)?);
    // Pairs that fit the lanes are summed eight at a time, the others one by one; then
    // the block's pairs are added in order.
    let block_sum = |block: usize| {
        // A stopped sum returns early: its value means nothing.
        if stop::requested() {
            return Sum::default();
        }
        let first = block * EMI_BLOCK;
        let last = pairs.min(first + EMI_BLOCK);
        let mut value = [0.0; EMI_BLOCK];
        let mut lanes: Vec<(usize, Start)> = Vec::with_capacity(EMI_BLOCK);
        for p in first..last {
            let (i, j) = (p / cols.len(), p % cols.len());
            match pair_start_ln(rows_ln[i], cols_ln[j], n, ln_n, ln_draws[j]) {
                None => {}
                Some(st) if fits_lanes(&st) => lanes.push((p - first, st)),
                Some(st) => value[p - first] = pair_walk(&st),
            }
        }
        // By stride and mode: eights of pairs that walk alike, most often the same counts.
        lanes.sort_unstable_by_key(|&(q, st)| (st.h, st.m, q));
        for eight in lanes.chunks(LANES) {
            let starts: Vec<Start> = eight.iter().map(|&(_, st)| st).collect();
            for (&(q, _), v) in eight.iter().zip(emi_lanes(&starts)) {
                value[q] = v;
            }
        }
        let mut s = Sum::default();
        for p in first..last {
            let (ca, cb) = (rows[p / cols.len()].1, cols[p % cols.len()].1);
            s.add(ca * cb * value[p - first]);
        }
        s
    };
    let blocks = pairs.div_ceil(EMI_BLOCK);
    let mut sums = alloc::filled(
        blocks,
        Sum::default(),
        "the expected mutual information's sums",
    )?;
    pool::fill(&mut sums, block_sum);
    let mut total = Sum::default();
    for s in sums {
        total.add(s.sum);
        total.add(s.carry);
    }
    Ok(total.value())
}

/// Size pairs per block of the expected mutual information's sum.
pub(crate) const EMI_BLOCK: usize = 64;

/// The distinct non-zero sizes in `sums`, each with how often it occurs.
/// [`Error::OutOfMemory`] if their list is refused.
pub(crate) fn size_counts(sums: &[u64]) -> Result<Vec<(u64, u64)>, Error> {
    // Many sizes below a small bound (10,000 clusters of a million samples): counted in
    // an array, not sorted (which was most of the serial part of the sum).
    let max = sums.iter().copied().max().unwrap_or(0);
    if max < 1 << 16 && max <= 8 * sums.len() as u64 {
        return small_size_counts(sums.iter().copied(), max);
    }
    const WHAT: &str = "a list of sizes";
    let mut v = alloc::with_capacity(sums.iter().filter(|&&s| s > 0).count(), WHAT)?;
    v.extend(sums.iter().copied().filter(|&s| s > 0));
    v.sort_unstable();
    // Added up in place: the distinct sizes are no more than the sizes.
    let mut out: Vec<(u64, u64)> = Vec::new();
    for s in v {
        match out.last_mut() {
            Some((size, count)) if *size == s => *count += 1,
            _ => alloc::push(&mut out, (s, 1), WHAT)?,
        }
    }
    Ok(out)
}

/// [`size_counts`] of sizes of at most `max` (below 2^16), counted in an array.
pub(crate) fn small_size_counts(
    sums: impl Iterator<Item = u64>,
    max: u64,
) -> Result<Vec<(u64, u64)>, Error> {
    const WHAT: &str = "a list of sizes";
    let mut count = alloc::filled(max as usize + 1, 0u64, WHAT)?;
    for s in sums {
        count[s as usize] += 1;
    }
    let distinct = count[1..].iter().filter(|&&c| c > 0).count();
    let mut out = alloc::with_capacity(distinct, WHAT)?;
    out.extend(
        (1..=max)
            .zip(&count[1..])
            .filter(|&(_, &c)| c > 0)
            .map(|(s, &c)| (s, c)),
    );
    Ok(out)
}

/// Helpers of the tests: the reference forms of what the sums compute.
#[cfg(test)]
pub(super) mod testing {
    use super::loader::ln_binomial;
    use super::walk::{pair_start_ln, pair_walk, Start};

    pub(in crate::emi) fn ln_factorial(k: u64) -> f64 {
        libm::lgamma(k as f64 + 1.0)
    }

    /// ln P(k) for the hypergeometric distribution: k white balls among `draws`
    /// drawn from `white` white and `black` black ones (R's `dhyper`, in logs).
    pub(in crate::emi) fn ln_hypergeometric(k: u64, white: u64, black: u64, draws: u64) -> f64 {
        let total = white + black;
        ln_binomial(k, white, draws, total) + ln_binomial(draws - k, black, draws, total)
            - ln_binomial(draws, total, draws, total)
    }

    /// Σ_k P(k) · (k/n) · ln(n k / (a b)) over the hypergeometric P of a cell with
    /// row sum `a`, column sum `b`, `n` samples; `ln_draws` is `ln_binomial(b, n, b, n)`,
    /// the last part of [`ln_hypergeometric`], the same for every row.
    pub(in crate::emi) fn pair_emi(a: u64, b: u64, n: u64, ln_n: f64, ln_draws: f64) -> f64 {
        pair_start(a, b, n, ln_n, ln_draws).map_or(0.0, |st| pair_walk(&st))
    }

    /// The start of a pair's sum; `None` when its support is empty or only 0 (no terms).
    pub(in crate::emi) fn pair_start(
        a: u64,
        b: u64,
        n: u64,
        ln_n: f64,
        ln_draws: f64,
    ) -> Option<Start> {
        pair_start_ln(
            (a, (a as f64).ln()),
            (b, (b as f64).ln()),
            n,
            ln_n,
            ln_draws,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::testing::ln_factorial;
    use super::*;
    use crate::count::count;

    #[test]
    fn emi_of_counts_past_2_pow_53() {
        // A diagonal table [[big, 0], [0, 166]]: at big = 7.2e16 the recurrence's
        // differences of counts (n - a - b + k and the like), taken in floating point,
        // rounded to 0 and the sum became NaN (found by the cargo-fuzz target
        // `table_cells`). References: the full sum in 50-digit arithmetic (mpmath).
        for (big, want) in [
            (1u64 << 40, 3.990_724_692_559_609_7e-19),
            (1 << 50, 5.312_604_660_965_71e-25),
            (71_828_041_629_302_604, 1.527_284_438_027_44e-28),
        ] {
            let t = Table::from_cells(2, 2, &[0, 1], &[0, 1], &[big as i64, 166]).unwrap();
            let got = expected_mutual_info(&t).unwrap();
            assert!((got - want).abs() <= 1e-13 * want, "{big}: {got} vs {want}");
        }
    }

    #[test]
    fn size_counts_by_counting_and_by_sorting_agree() {
        let naive = |sums: &[u64]| {
            let mut m = std::collections::BTreeMap::new();
            for &s in sums.iter().filter(|&&s| s > 0) {
                *m.entry(s).or_insert(0u64) += 1;
            }
            m.into_iter().collect::<Vec<_>>()
        };
        let mut seed = 9u64;
        for (len, bound) in [
            (0usize, 1u64),
            (5, 3),
            (1000, 100),
            (1000, 1 << 20),
            (50, 65_536),
        ] {
            let sums: Vec<u64> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    (seed >> 33) % bound
                })
                .collect();
            assert_eq!(size_counts(&sums).unwrap(), naive(&sums), "{len} {bound}");
        }
        assert_eq!(size_counts(&[0, 0]).unwrap(), vec![]);
        assert_eq!(
            size_counts(&[u64::MAX, 1, u64::MAX]).unwrap(),
            vec![(1, 1), (u64::MAX, 2)]
        );
    }

    #[test]
    fn emi_to_a_few_ulps() {
        // Pairs whose mean μ = ab/n is small, as in a wide table: their terms away from μ
        // take ln k from a table. References: the full sum in 40-digit arithmetic (mpmath).
        // The code before that table (and before `STIRLERR`) was up to 8e-15 off on these.
        for (n, a, b, want) in [
            (1_000_000i64, 19_970i64, 680i64, 5.066_616_612_978_56e-7),
            (1_000_000, 30_303, 97, 5.480_994_855_232_226e-7),
            (10_000, 9_987, 3_486, 5.271_990_590_779_295e-5),
            (100, 83, 24, 5.290_171_107_248_764e-3),
            // Large means, on a stride (standard deviations 37 and 247): near the mean,
            // k ln(k/μ) - (k - μ) by Loader's series (as a difference it was 3.6e-15 and
            // 5.2e-14 off).
            (1_000_000, 50_000, 33_333, 5.000_502_172_878_159e-7),
            (1_000_000, 503_441, 419_307, 5.000_007_767_925_156e-7),
        ] {
            // A 2x2 table with row sums (a, n - a) and column sums (b, n - b).
            let k = a.min(b);
            let cells = [k, a - k, b - k, n - a - b + k];
            let t = Table::from_cells(2, 2, &[0, 0, 1, 1], &[0, 1, 0, 1], &cells).unwrap();
            let got = expected_mutual_info(&t).unwrap();
            assert!(
                (got - want).abs() <= 2e-15 * want,
                "{n} {a} {b}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn row_and_column_sums_past_half_of_u64() {
        // a + b > u64::MAX for the cell's row and column sums (found by the fuzz harness).
        let big = i64::MAX;
        let t = Table::from_cells(2, 2, &[0, 1, 1], &[0, 0, 1], &[big, big, 1]).unwrap();
        let emi = expected_mutual_info(&t).unwrap();
        assert!(emi.is_finite() && emi.abs() < 1e-9, "{emi}");
    }

    #[test]
    fn huge_tables_take_bounded_work() {
        let half = 1u64 << 62;
        let t = Table::from_cells(
            2,
            2,
            &[0, 0, 1, 1],
            &[0, 1, 0, 1],
            &[half as i64, 1, 1, half as i64],
        )
        .unwrap();
        let start = std::time::Instant::now();
        let emi = expected_mutual_info(&t).unwrap();
        // Exactly it is a tiny positive number; rounding may leave it a tiny negative one.
        assert!(emi.is_finite() && emi.abs() < 1e-9, "{emi}");
        assert!(start.elapsed().as_secs_f64() < 1.0);
    }

    /// scikit-learn's EMI loop, term for term, for the cross-check.
    fn emi_reference(a: &[u64], b: &[u64], n: u64) -> f64 {
        let mut emi = 0.0;
        let nf = n as f64;
        for &ai in a {
            for &bj in b {
                let start = (ai + bj).saturating_sub(n).max(1);
                for nij in start..=ai.min(bj) {
                    let term2 = (nf * nij as f64).ln() - (ai as f64).ln() - (bj as f64).ln();
                    let gln = ln_factorial(ai)
                        + ln_factorial(bj)
                        + ln_factorial(n - ai)
                        + ln_factorial(n - bj)
                        - ln_factorial(nij)
                        - ln_factorial(n)
                        - ln_factorial(ai - nij)
                        - ln_factorial(bj - nij)
                        - ln_factorial(n + nij - ai - bj);
                    emi += nij as f64 / nf * term2 * gln.exp();
                }
            }
        }
        emi
    }

    fn table(a: &[i64], b: &[i64]) -> Table {
        count(a, b).unwrap()
    }

    #[test]
    fn emi_matches_the_full_sum() {
        let mut seed = 3u64;
        for &(n, ka, kb) in &[
            (10usize, 2, 3),
            (50, 4, 4),
            (300, 5, 7),
            (2000, 3, 40),
            (400, 400, 3),
        ] {
            let mut next = || {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                (seed >> 33) as i64
            };
            let a: Vec<i64> = (0..n).map(|_| next() % ka).collect();
            let b: Vec<i64> = (0..n).map(|_| next() % kb).collect();
            let t = table(&a, &b);
            let want = emi_reference(&t.row_sums, &t.col_sums, t.n);
            let got = expected_mutual_info(&t).unwrap();
            assert!(
                (got - want).abs() <= 1e-11 * want.abs().max(1e-3),
                "n={n}: {got} vs {want}"
            );
        }
    }
}
