//! Every measure, computed from a [`Table`] alone.
//!
//! The information measures follow scikit-learn's formulas term for term
//! (including its conventions for degenerate tables), with compensated sums;
//! the pair counts are exact integers.

use rayon::prelude::*;

use crate::pool;
use crate::Table;

/// The exact sums every pair-counting measure is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairSums {
    /// Number of samples.
    pub n: u128,
    /// Σ n_ij² over the cells.
    pub cells_sq: u128,
    /// Σ a_i² over the row sums.
    pub rows_sq: u128,
    /// Σ b_j² over the column sums.
    pub cols_sq: u128,
}

fn sum_sq(xs: &[u64]) -> u128 {
    xs.iter().map(|&x| u128::from(x) * u128::from(x)).sum()
}

/// Σ n_ij², Σ a_i², Σ b_j² and n, exact (`u128` holds them for any n < 2^64).
pub fn pair_sums(t: &Table) -> PairSums {
    PairSums {
        n: u128::from(t.n),
        cells_sq: sum_sq(&t.cell_count),
        rows_sq: sum_sq(&t.row_sums),
        cols_sq: sum_sq(&t.col_sums),
    }
}

/// Neumaier's compensated sum.
#[derive(Default, Clone, Copy)]
struct Sum {
    sum: f64,
    carry: f64,
}

impl Sum {
    #[inline(always)]
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.carry += (self.sum - t) + x;
        } else {
            self.carry += (x - t) + self.sum;
        }
        self.sum = t;
    }

    fn value(self) -> f64 {
        self.sum + self.carry
    }
}

/// Shannon entropy (natural log) of the labeling whose class sizes are
/// `counts` (zeros ignored): 1.0 for no samples and 0.0 for one class, as
/// scikit-learn's `entropy`.
pub fn entropy(counts: &[u64]) -> f64 {
    let nonzero = counts.iter().filter(|&&c| c > 0).count();
    match nonzero {
        0 => return 1.0,
        1 => return 0.0,
        _ => {}
    }
    let total: u64 = counts.iter().sum();
    let (total, ln_total) = (total as f64, (total as f64).ln());
    let mut s = Sum::default();
    for &c in counts.iter().filter(|&&c| c > 0) {
        let ln_c = ln_count(c);
        let c = c as f64;
        s.add((c / total) * (ln_c - ln_total));
    }
    -s.value()
}

/// Tables with more cells than this are "wide": [`mutual_info`] takes no logarithm per cell.
const WIDE_TABLE: usize = 1 << 14;
/// Cells per block of a wide table's mutual information.
const MI_BLOCK: usize = 1 << 14;

/// Mutual information (natural log) of the table, as scikit-learn's
/// `mutual_info_score`: 0.0 when either side has a single row or column;
/// per-cell terms smaller than machine epsilon count as zero; never negative.
pub fn mutual_info(t: &Table) -> f64 {
    if t.n_rows() == 1 || t.n_cols() == 1 || t.n == 0 {
        return 0.0;
    }
    let n = t.n as f64;
    let ln_n = n.ln();
    let ln_outer = |k: usize| {
        (t.row_sums[t.cell_row[k] as usize] as f64 * t.col_sums[t.cell_col[k] as usize] as f64).ln()
    };
    let mut s = Sum::default();
    let mut add = |k: usize, ln_nij: f64, ln_outer: f64| {
        let p = t.cell_count[k] as f64 / n;
        let term = p * (ln_nij - ln_n) + p * (-ln_outer + ln_n + ln_n);
        if term.abs() >= f64::EPSILON {
            s.add(term);
        }
    };
    if t.cell_count.len() <= WIDE_TABLE {
        // scikit-learn's terms, to the bit: ln of the product a_i b_j (which scikit-learn
        // forms in int64, overflowing past 2^63; the float product cannot).
        for k in 0..t.cell_count.len() {
            add(k, (t.cell_count[k] as f64).ln(), ln_outer(k));
        }
    } else {
        // A wide table: the logarithms of the row and column sums once each and of small
        // counts from a table, not two per cell (ln a_i + ln b_j differs from ln(a_i b_j)
        // by an ulp or so); the cells in fixed blocks, each summed on its own and their
        // sums added in order (the same result on any number of threads).
        let ln_small = ln_small();
        // Per row, ln n - ln a_i (one rounding, shared by the row's cells).
        let row_part: Vec<f64> = t.row_sums.iter().map(|&a| ln_n - ln_count(a)).collect();
        let ln_cols: Vec<f64> = t.col_sums.iter().map(|&b| ln_count(b)).collect();
        let cells = t.cell_count.len();
        // Each cell's n_ij ((ln n_ij - ln b_j) + (ln n - ln a_i)), summed and divided by n
        // once at the end; scikit-learn's p_ij (...) below machine epsilon counts as zero.
        let small = f64::EPSILON * n;
        let parts = MiParts {
            ln_small,
            ln_cols: &ln_cols,
            row_part: &row_part,
            small,
        };
        let block_sum = |block: usize| {
            let r = block * MI_BLOCK..cells.min((block + 1) * MI_BLOCK);
            parts.sum(
                &t.cell_count[r.clone()],
                &t.cell_row[r.clone()],
                &t.cell_col[r],
            )
        };
        let blocks = cells.div_ceil(MI_BLOCK);
        let sums: Vec<Sum> = if pool::threads() > 1 {
            pool::run(|| (0..blocks).into_par_iter().map(block_sum).collect())
        } else {
            (0..blocks).map(block_sum).collect()
        };
        let mut total = Sum::default();
        for b in sums {
            total.add(b.sum);
            total.add(b.carry);
        }
        s.add(total.value() / n);
    }
    s.value().max(0.0)
}

/// The tables a wide table's mutual-information terms read.
struct MiParts<'a> {
    /// ln k for small k.
    ln_small: &'a [f64],
    /// ln b_j.
    ln_cols: &'a [f64],
    /// ln n - ln a_i.
    row_part: &'a [f64],
    /// Terms below this in size count as zero.
    small: f64,
}

impl MiParts<'_> {
    /// A cell's n_ij ((ln n_ij - ln b_j) + (ln n - ln a_i)), or 0 if below `small` in size.
    #[inline(always)]
    fn term(&self, c: u64, row: u32, col: u32) -> f64 {
        let ln_nij = if c < LN_SMALL {
            self.ln_small[c as usize]
        } else {
            (c as f64).ln()
        };
        // A cell's count is below 2^63 (a slice's length, or an i64 given by the user):
        // the signed conversion is one instruction, the unsigned one several.
        let term =
            c as i64 as f64 * ((ln_nij - self.ln_cols[col as usize]) + self.row_part[row as usize]);
        if term.abs() >= self.small {
            term
        } else {
            0.0
        }
    }

    /// The sum of the terms of some cells: eight terms at a time added pairwise (their
    /// rounding, at most 3 ulps of their magnitudes, is below that of the terms
    /// themselves), then into a compensated sum (one compensated addition per cell took
    /// about 10 cycles). Eight to a vector where the CPU has AVX-512, to the same bit.
    fn sum(&self, counts: &[u64], rows: &[u32], cols: &[u32]) -> Sum {
        let mut s = Sum::default();
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            #[allow(unsafe_code)]
            // SAFETY: the CPU has AVX-512F and DQ, just detected; nothing else is required.
            let done = unsafe { mi_eights_avx512(counts, rows, cols, self, &mut s) };
            self.sum_scalar(&counts[done..], &rows[done..], &cols[done..], &mut s);
            return s;
        }
        self.sum_scalar(counts, rows, cols, &mut s);
        s
    }

    /// [`MiParts::sum`] without vectors, into `s`.
    fn sum_scalar(&self, counts: &[u64], rows: &[u32], cols: &[u32], s: &mut Sum) {
        let eights = counts
            .chunks_exact(8)
            .zip(rows.chunks_exact(8))
            .zip(cols.chunks_exact(8));
        for ((c, r), k) in eights {
            // In registers, not through an array (whose stores and wider reloads stalled).
            let (t0, t1) = (self.term(c[0], r[0], k[0]), self.term(c[1], r[1], k[1]));
            let (t2, t3) = (self.term(c[2], r[2], k[2]), self.term(c[3], r[3], k[3]));
            let (t4, t5) = (self.term(c[4], r[4], k[4]), self.term(c[5], r[5], k[5]));
            let (t6, t7) = (self.term(c[6], r[6], k[6]), self.term(c[7], r[7], k[7]));
            s.add(((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7)));
        }
        for j in counts.len() / 8 * 8..counts.len() {
            s.add(self.term(counts[j], rows[j], cols[j]));
        }
    }
}

/// The wide-table mutual information's sum over eights of cells, eight cells to a
/// vector: the same terms, added in the same order (pairwise within an eight, then into
/// `s`), so the same sum to the bit. Eights with a count past the `ln_small` table or an
/// index past its table are left to the caller, from the first of them: returns how
/// many cells were summed.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
#[allow(unsafe_code)]
fn mi_eights_avx512(
    counts: &[u64],
    rows: &[u32],
    cols: &[u32],
    parts: &MiParts<'_>,
    s: &mut Sum,
) -> usize {
    use std::arch::x86_64::*;
    let len = counts.len().min(rows.len()).min(cols.len()) / 8 * 8;
    let below = |n: usize| _mm512_set1_epi64(n.min(i64::MAX as usize) as i64);
    let (count_max, row_max, col_max) = (
        below(parts.ln_small.len()),
        below(parts.row_part.len()),
        below(parts.ln_cols.len()),
    );
    let small = _mm512_set1_pd(parts.small);
    // In registers, not through `s` (a store and reload per eight, on the sum's chain).
    let mut sum = *s;
    let mut j = 0;
    while j < len {
        // SAFETY: `j + 8 <= len` bounds the loads; every index gathered was just checked
        // to be within its table (the eight is left to the caller otherwise).
        unsafe {
            let c = _mm512_loadu_si512(counts.as_ptr().add(j).cast());
            let r = _mm512_cvtepu32_epi64(_mm256_loadu_si256(rows.as_ptr().add(j).cast()));
            let k = _mm512_cvtepu32_epi64(_mm256_loadu_si256(cols.as_ptr().add(j).cast()));
            let inside = _mm512_cmplt_epu64_mask(c, count_max)
                & _mm512_cmplt_epu64_mask(r, row_max)
                & _mm512_cmplt_epu64_mask(k, col_max);
            if inside != 0xff {
                break;
            }
            let ln_nij = _mm512_i64gather_pd::<8>(c, parts.ln_small.as_ptr().cast());
            let ln_col = _mm512_i64gather_pd::<8>(k, parts.ln_cols.as_ptr().cast());
            // The cells are in row order: an eight is most often all of one row.
            let first = _mm512_set1_epi64(_mm512_cvtsi512_si32(r) as i64);
            let row = if _mm512_cmpeq_epi64_mask(r, first) == 0xff {
                _mm512_set1_pd(parts.row_part[rows[j] as usize])
            } else {
                _mm512_i64gather_pd::<8>(r, parts.row_part.as_ptr().cast())
            };
            // n_ij ((ln n_ij - ln b_j) + (ln n - ln a_i)), as the scalar code rounds it.
            let t = _mm512_mul_pd(
                _mm512_cvtepi64_pd(c),
                _mm512_add_pd(_mm512_sub_pd(ln_nij, ln_col), row),
            );
            let keep = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(_mm512_abs_pd(t), small);
            let t = _mm512_maskz_mov_pd(keep, t);
            // ((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7)): a sum of two is the same
            // in either order, so each step adds a lane to its neighbour at 1, 2, then 4.
            let t = _mm512_add_pd(t, _mm512_permute_pd::<0b0101_0101>(t));
            let t = _mm512_add_pd(t, _mm512_permutex_pd::<0b0100_1110>(t));
            let t = _mm256_add_pd(_mm512_castpd512_pd256(t), _mm512_extractf64x4_pd::<1>(t));
            sum.add(_mm256_cvtsd_f64(t));
        }
        j += 8;
    }
    *s = sum;
    j
}

/// Purity: (1/n) Σ_j max_i n_ij, the share of samples in the majority class of
/// their cluster (rows are classes, columns clusters). 1.0 for no samples.
pub fn purity(t: &Table) -> f64 {
    if t.n == 0 {
        return 1.0;
    }
    let mut best = vec![0u64; t.n_cols()];
    for (&j, &c) in t.cell_col.iter().zip(&t.cell_count) {
        let b = &mut best[j as usize];
        *b = (*b).max(c);
    }
    best.iter().sum::<u64>() as f64 / t.n as f64
}

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
pub fn expected_mutual_info(t: &Table) -> f64 {
    if t.n_rows() == 1 || t.n_cols() == 1 || t.n == 0 {
        return 0.0;
    }
    emi_of_sizes(&size_counts(&t.row_sums), &size_counts(&t.col_sums), t.n)
}

/// [`expected_mutual_info`] of a table with more than one row and column, of `n` samples,
/// whose distinct row and column sums are `rows` and `cols`, each with its number.
fn emi_of_sizes(rows: &[(u64, u64)], cols: &[(u64, u64)], n: u64) -> f64 {
    let ln_n = (n as f64).ln();
    // The pairs in fixed blocks, each summed on its own and the blocks' sums added in
    // order: the same result on any number of threads.
    let pairs = rows.len() * cols.len();
    // The part of each hypergeometric probability that depends on the column size alone.
    let ln_draws: Vec<f64> = cols.iter().map(|&(b, _)| ln_binomial(b, n, b, n)).collect();
    let with_ln = |sizes: &[(u64, u64)]| -> Vec<(u64, f64)> {
        sizes.iter().map(|&(k, _)| (k, (k as f64).ln())).collect()
    };
    let (rows_ln, cols_ln) = (with_ln(rows), with_ln(cols));
    // Pairs that fit the lanes are summed eight at a time, the others one by one; then
    // the block's pairs are added in order.
    let block_sum = |block: usize| {
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
            s.add((ca as f64) * (cb as f64) * value[p - first]);
        }
        s
    };
    let blocks = pairs.div_ceil(EMI_BLOCK);
    let sums: Vec<Sum> = if blocks > 1 && pool::threads() > 1 {
        pool::run(|| (0..blocks).into_par_iter().map(block_sum).collect())
    } else {
        (0..blocks).map(block_sum).collect()
    };
    let mut total = Sum::default();
    for s in sums {
        total.add(s.sum);
        total.add(s.carry);
    }
    total.value()
}

/// Size pairs per block of the expected mutual information's sum (a block takes tens
/// of microseconds).
const EMI_BLOCK: usize = 64;

/// The adjusted mutual information's parts: [`mutual_info`], [`expected_mutual_info`]
/// and the [`entropy`] of the rows and of the columns, side by side on the pool's
/// threads (the same values, sooner than one after the other).
pub fn ami_parts(t: &Table) -> AmiParts {
    let entropies = || (entropy(&t.row_sums), entropy(&t.col_sums));
    // A small table's parts take a few microseconds: less than waking the pool's threads
    // (tens of microseconds here when they sleep between calls).
    let small = t.n_rows().saturating_mul(t.n_cols()) <= EMI_BLOCK;
    let ((mutual_info, expected), (entropy_rows, entropy_cols)) = if pool::threads() > 1 && !small {
        pool::run(|| {
            rayon::join(
                || rayon::join(|| mutual_info(t), || expected_mutual_info(t)),
                entropies,
            )
        })
    } else {
        ((mutual_info(t), expected_mutual_info(t)), entropies())
    };
    AmiParts {
        mutual_info,
        expected,
        entropy_rows,
        entropy_cols,
    }
}

/// See [`ami_parts`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AmiParts {
    pub mutual_info: f64,
    pub expected: f64,
    pub entropy_rows: f64,
    pub entropy_cols: f64,
}

/// The distinct non-zero sizes in `sums`, each with how often it occurs.
fn size_counts(sums: &[u64]) -> Vec<(u64, u64)> {
    // Many sizes below a small bound (10,000 clusters of a million samples): counted in
    // an array, not sorted (which was most of the serial part of the sum).
    let max = sums.iter().copied().max().unwrap_or(0);
    if max < 1 << 16 && max <= 8 * sums.len() as u64 {
        return small_size_counts(sums.iter().copied(), max);
    }
    let mut v: Vec<u64> = sums.iter().copied().filter(|&s| s > 0).collect();
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for s in v {
        match out.last_mut() {
            Some((size, count)) if *size == s => *count += 1,
            _ => out.push((s, 1)),
        }
    }
    out
}

/// [`size_counts`] of sizes of at most `max` (below 2^16), counted in an array.
fn small_size_counts(sums: impl Iterator<Item = u64>, max: u64) -> Vec<(u64, u64)> {
    let mut count = vec![0u64; max as usize + 1];
    for s in sums {
        count[s as usize] += 1;
    }
    (1..=max)
        .zip(&count[1..])
        .filter(|&(_, &c)| c > 0)
        .map(|(s, &c)| (s, c))
        .collect()
}

/// Relative size of the tail bound at which a pair's EMI sum stops (2^-60).
const STOP: f64 = 1.0 / (1u64 << 60) as f64;

#[cfg(test)]
fn ln_factorial(k: u64) -> f64 {
    libm::lgamma(k as f64 + 1.0)
}

/// [`stirlerr`] at 0 to 15 (0 at 0, as R's `sferr_halves`), from 40-digit `mpmath`: every
/// count passed to it is an integer, and `lgamma` for each was much of the cost of a
/// wide table's expected mutual information.
#[allow(clippy::excessive_precision)]
const STIRLERR: [f64; 16] = [
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
fn stirlerr(n: f64) -> f64 {
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
fn bd0(x: f64, m: f64, d: f64) -> f64 {
    if d.abs() < 0.1 * (x + m) {
        let mut v = d / (x + m);
        let mut s = d * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        // |v| < 0.1: each term is below a hundredth of the last, so about nine terms;
        // their divisors' reciprocals from a table (a division each was half the time).
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
fn ln_binomial(x: u64, n: u64, draws: u64, total: u64) -> f64 {
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

#[cfg(test)]
/// ln P(k) for the hypergeometric distribution: k white balls among `draws`
/// drawn from `white` white and `black` black ones (R's `dhyper`, in logs).
fn ln_hypergeometric(k: u64, white: u64, black: u64, draws: u64) -> f64 {
    let total = white + black;
    ln_binomial(k, white, draws, total) + ln_binomial(draws - k, black, draws, total)
        - ln_binomial(draws, total, draws, total)
}

/// Σ_k P(k) · (k/n) · ln(n k / (a b)) over the hypergeometric P of a cell with
/// row sum `a`, column sum `b`, `n` samples; `ln_draws` is `ln_binomial(b, n, b, n)`,
/// the last part of [`ln_hypergeometric`], the same for every row.
#[cfg(test)]
fn pair_emi(a: u64, b: u64, n: u64, ln_n: f64, ln_draws: f64) -> f64 {
    pair_start(a, b, n, ln_n, ln_draws).map_or(0.0, |st| pair_walk(&st))
}

/// Where a pair's sum in [`pair_emi`] starts, and what each of its terms needs.
#[derive(Debug, Clone, Copy)]
struct Start {
    a: u64,
    b: u64,
    n: u64,
    /// The support, lo..=hi, and the mode clamped to it.
    lo: u64,
    hi: u64,
    m: u64,
    /// The probability at the mode.
    p_m: f64,
    /// The mean, a b / n, its logarithm, and a b.
    mu: f64,
    ln_mu: f64,
    abf: f64,
    /// A bound on each term's size over its probability.
    factor: f64,
    /// The standard deviation of the count.
    sd: f64,
    /// The stride of the terms (see [`pair_walk`]).
    h: u64,
    ln_draws: f64,
    /// n hi and a b are at most 2^53, so n k - a b is exact in doubles.
    doubles: bool,
}

/// ln_hypergeometric(k, a, n - a, b), to the bit; `ln_draws` as in [`pair_emi`].
fn ln_pmf(k: u64, a: u64, b: u64, n: u64, ln_draws: f64) -> f64 {
    ln_binomial(k, a, b, n) + ln_binomial(b - k, n - a, b, n) - ln_draws
}

/// The start of a pair's sum; `None` when its support is empty or only 0 (no terms).
#[cfg(test)]
fn pair_start(a: u64, b: u64, n: u64, ln_n: f64, ln_draws: f64) -> Option<Start> {
    pair_start_ln(
        (a, (a as f64).ln()),
        (b, (b as f64).ln()),
        n,
        ln_n,
        ln_draws,
    )
}

/// [`pair_start`] of a row and a column size given with their logarithms.
fn pair_start_ln(
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
fn pair_walk(st: &Start) -> f64 {
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
    let tiny = f64::MIN_POSITIVE;
    if sd >= STRIDE_SD {
        return pair_emi_strided(m, lo, hi, (sd / 16.0) as u64, factor, |k| {
            let p = ln_prob(k).exp();
            (p, term(k, k as f64, p))
        });
    }
    let hf = h as f64;
    let mut s = Sum::default();
    let t = hf * term(m, m as f64, p_m);
    s.add(t);
    let mut mass = t.abs();
    // After a step to k (probability p, ratio r from the last): on every h-th step add the
    // term, and say whether the rest, every term on the stride or not, is below the tail
    // bound (past the mode the probabilities fall off at least geometrically).
    let stride_done =
        |until: &mut u64, k: u64, kf: f64, p: f64, r: f64, s: &mut Sum, mass: &mut f64| {
            *until -= 1;
            if *until > 0 {
                return false;
            }
            *until = h;
            let t = hf * term(k, kf, p);
            s.add(t);
            *mass += t.abs();
            r < 1.0 && hf * p * factor * r <= (*mass * STOP + tiny) * (1.0 - r)
        };
    // Upward: P(k+1) = P(k) (a-k)(b-k) / ((k+1)(n-a-b+k+1)).
    // The four factors start exact at the mode and step by one (exact below 2^53; past
    // it, off by a few units in counts of 2^53 or more).
    let mut p = p_m;
    let mut k = m;
    let (mut ak, mut bk) = ((a - m) as f64, (b - m) as f64);
    let (mut k1, mut d1) = ((m + 1) as f64, if m < hi { fourth(m + 1) } else { 0.0 });
    // One step up: the new k as a float, and the ratio.
    macro_rules! up {
        () => {{
            let r = ak * bk / (k1 * d1);
            let kf = k1;
            (ak, bk, k1, d1) = (ak - 1.0, bk - 1.0, k1 + 1.0, d1 + 1.0);
            p *= r;
            k += 1;
            (kf, r)
        }};
    }
    // Without a stride, four terms at a time: added pairwise (they are non-negative), one
    // compensated addition and one look at the tail bound for the four (which then
    // covers the last one's tail: a term or three more than one at a time, fewer
    // dependent steps per term).
    let mut done = false;
    if h == 1 {
        while hi - k >= 4 {
            let (f0, _) = up!();
            let t0 = term(k, f0, p);
            let (f1, _) = up!();
            let t1 = term(k, f1, p);
            let (f2, _) = up!();
            let t2 = term(k, f2, p);
            let (f3, r) = up!();
            let t3 = term(k, f3, p);
            let t = (t0 + t1) + (t2 + t3);
            s.add(t);
            mass += t.abs();
            if r < 1.0 && p * factor * r <= (mass * STOP + tiny) * (1.0 - r) {
                done = true;
                break;
            }
        }
    } else {
        // On a stride: h steps of the probability between terms, their ratios multiplied
        // four at a time (numerators and denominators apart, one division per four: the
        // divisions were most of the time); the tail bound from the ratio over the stride,
        // which falls off past the mode as the single steps' do.
        let (mut prev, mut stepped) = (p, 0);
        while hi - k >= h {
            let mut left = h;
            while left > 0 {
                let g = left.min(4);
                let (mut num, mut den) = (1.0, 1.0);
                for _ in 0..g {
                    num *= ak * bk;
                    den *= k1 * d1;
                    (ak, bk, k1, d1) = (ak - 1.0, bk - 1.0, k1 + 1.0, d1 + 1.0);
                }
                p *= num / den;
                left -= g;
            }
            k += h;
            stepped += h;
            if stepped >= ANCHOR_STEPS {
                // The steps' rounding, a random walk of about an ulp a step, grows with
                // their number: Loader's probability again every so many steps.
                p = ln_prob(k).exp();
                stepped = 0;
            }
            let t = hf * term(k, k1 - 1.0, p);
            s.add(t);
            mass += t.abs();
            let q = p / prev;
            prev = p;
            if q < 1.0 && hf * p * factor * q <= (mass * STOP + tiny) * (1.0 - q) {
                break;
            }
        }
        done = true;
    }
    let mut until = h;
    while !done && k < hi {
        let (kf, r) = up!();
        if stride_done(&mut until, k, kf, p, r, &mut s, &mut mass) {
            break;
        }
    }
    // Downward: P(k-1) = P(k) k (n-a-b+k) / ((a-k+1)(b-k+1)).
    let mut p = p_m;
    let mut k = m;
    let (mut kf, mut dk) = (m as f64, fourth(m));
    let (mut ak, mut bk) = ((a - m + 1) as f64, (b - m + 1) as f64);
    macro_rules! down {
        () => {{
            let r = kf * dk / (ak * bk);
            (kf, dk, ak, bk) = (kf - 1.0, dk - 1.0, ak + 1.0, bk + 1.0);
            p *= r;
            k -= 1;
            (kf, r)
        }};
    }
    let mut done = false;
    if h == 1 {
        while k - lo >= 4 {
            let (f0, _) = down!();
            let t0 = term(k, f0, p);
            let (f1, _) = down!();
            let t1 = term(k, f1, p);
            let (f2, _) = down!();
            let t2 = term(k, f2, p);
            let (f3, r) = down!();
            let t3 = term(k, f3, p);
            let t = (t0 + t1) + (t2 + t3);
            s.add(t);
            mass += t.abs();
            if r < 1.0 && p * factor * r <= (mass * STOP + tiny) * (1.0 - r) {
                done = true;
                break;
            }
        }
    } else {
        // On a stride, as upward.
        let (mut prev, mut stepped) = (p, 0);
        while k - lo >= h {
            let mut left = h;
            while left > 0 {
                let g = left.min(4);
                let (mut num, mut den) = (1.0, 1.0);
                for _ in 0..g {
                    num *= kf * dk;
                    den *= ak * bk;
                    (kf, dk, ak, bk) = (kf - 1.0, dk - 1.0, ak + 1.0, bk + 1.0);
                }
                p *= num / den;
                left -= g;
            }
            k -= h;
            stepped += h;
            if stepped >= ANCHOR_STEPS {
                p = ln_prob(k).exp();
                stepped = 0;
            }
            let t = hf * term(k, kf, p);
            s.add(t);
            mass += t.abs();
            let q = p / prev;
            prev = p;
            if q < 1.0 && hf * p * factor * q <= (mass * STOP + tiny) * (1.0 - q) {
                break;
            }
        }
        done = true;
    }
    let mut until = h;
    while !done && k > lo {
        let (kf, r) = down!();
        if stride_done(&mut until, k, kf, p, r, &mut s, &mut mass) {
            break;
        }
    }
    s.value()
}

/// Pairs summed side by side by [`emi_lanes`], one to a lane.
const LANES: usize = 8;

/// How far [`emi_lanes`] moves a pair's start from its mode, at most.
const REBASE_STEPS: u64 = 16;

/// Terms of bd0's series in [`emi_lanes`], where |v| < 1/3: the next would be below
/// 2^-60 of the series, and the series at most a twelfth of bd0.
const SERIES: usize = 18;

/// 1 / (2j + 1) for j in 1..=[`SERIES`].
const SERIES_COEF: [f64; SERIES] = {
    let mut r = [0.0; SERIES];
    let mut j = 0;
    while j < SERIES {
        r[j] = 1.0 / (2 * j + 3) as f64;
        j += 1;
    }
    r
};

/// Whether [`emi_lanes`] can sum this pair: its probabilities step by one (a standard
/// deviation below [`STRIDE_SD`], see [`pair_walk`]) and n k - a b is exact in doubles.
fn fits_lanes(st: &Start) -> bool {
    st.doubles && st.sd < STRIDE_SD
}

/// Up to [`LANES`] pairs' starts, a field to an array, for [`emi_lanes`]. The counts
/// are exact in doubles (below 2^53).
#[derive(Default)]
struct LaneStarts {
    /// The lanes holding a pair.
    live: [bool; LANES],
    m: [f64; LANES],
    p_m: [f64; LANES],
    lo: [f64; LANES],
    hi: [f64; LANES],
    /// a - m and b - m.
    a_m: [f64; LANES],
    b_m: [f64; LANES],
    /// n - a - b + m, the 2x2 table's fourth cell at the mode.
    fourth_m: [f64; LANES],
    mu: [f64; LANES],
    ln_mu: [f64; LANES],
    abf: [f64; LANES],
    factor: [f64; LANES],
    /// The stride of every lane's terms: the smallest of theirs.
    h: u64,
}

/// [`pair_walk`]'s sums of up to [`LANES`] pairs of one table (`starts`, each passing
/// [`fits_lanes`]), side by side: each stride takes every lane's ratios and next term
/// without branches, and each lane stops adding at its own tail bound. The terms are
/// [`pair_walk`]'s but for bd0 between a tenth and half of the mean away from it, which
/// comes from the series here ([`SERIES`] terms) and from ln1p there;
/// the sums are added one term at a time, on the lanes' common stride (at most each
/// one's own: the Poisson summation bound holds for any stride up to it). Additions,
/// multiplications, divisions and comparisons only, which vectors round as scalars do:
/// the same sums on every CPU. A lane that would need ln k past the [`ln_small`] table
/// is summed again alone.
fn emi_lanes(starts: &[Start]) -> [f64; LANES] {
    let (w, same) = lane_starts(starts);
    let nf = starts.first().map_or(1.0, |st| st.n as f64);
    let ln: &[f64; LN_SMALL as usize] = ln_small().try_into().expect("LN_SMALL entries");
    let run = || {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            #[allow(unsafe_code)]
            // SAFETY: the CPU has AVX-512F and DQ, just detected; nothing else is required.
            return unsafe {
                if same {
                    lanes_avx512::<true>(&w, nf, ln)
                } else {
                    lanes_avx512::<false>(&w, nf, ln)
                }
            };
        }
        if same {
            lanes::<true>(&w, nf, ln)
        } else {
            lanes::<false>(&w, nf, ln)
        }
    };
    let (mut out, past_table) = run();
    for (i, st) in starts.iter().enumerate() {
        if past_table[i] {
            out[i] = pair_walk(st);
        }
    }
    out
}

/// The lanes of [`emi_lanes`] and whether they all start from the same count.
fn lane_starts(starts: &[Start]) -> (LaneStarts, bool) {
    assert!(starts.len() <= LANES);
    let mut w = LaneStarts::default();
    let n = starts.first().map_or(1, |st| st.n);
    for (i, st) in starts.iter().enumerate() {
        debug_assert!(fits_lanes(st) && st.n == n);
        w.live[i] = true;
        w.m[i] = st.m as f64;
        w.p_m[i] = st.p_m;
        w.lo[i] = st.lo as f64;
        w.hi[i] = st.hi as f64;
        w.a_m[i] = (st.a - st.m) as f64;
        w.b_m[i] = (st.b - st.m) as f64;
        w.fourth_m[i] = ((st.n - st.a) - (st.b - st.m)) as f64;
        w.mu[i] = st.mu;
        w.ln_mu[i] = st.ln_mu;
        w.abf[i] = st.abf;
        w.factor[i] = st.factor;
    }
    w.h = starts.iter().map(|st| st.h).min().unwrap_or(1);
    // Every lane from the same count, when each has it in its support near its mode:
    // the probability there by the ratios from the mode (a few steps; log-concave
    // probabilities keep each walk's tail bound valid from wherever it starts).
    let k0 = starts.get(starts.len() / 2).map_or(0, |st| st.m);
    let same = starts
        .iter()
        .all(|st| (st.lo..=st.hi).contains(&k0) && st.m.abs_diff(k0) <= REBASE_STEPS);
    if same {
        for (i, st) in starts.iter().enumerate() {
            let (a, b) = (st.a as f64, st.b as f64);
            let fourth = |k: u64| ((st.n - st.a) - (st.b - k)) as f64;
            let mut p = st.p_m;
            for k in st.m..k0 {
                p *= (a - k as f64) * (b - k as f64) / ((k + 1) as f64 * fourth(k + 1));
            }
            for k in (k0 + 1..=st.m).rev() {
                p *= k as f64 * fourth(k) / ((a - k as f64 + 1.0) * (b - k as f64 + 1.0));
            }
            w.m[i] = k0 as f64;
            w.p_m[i] = p;
            w.a_m[i] = (st.a - k0) as f64;
            w.b_m[i] = (st.b - k0) as f64;
            w.fourth_m[i] = fourth(k0);
        }
    }
    // Lanes without a pair walk with the first one (and add nothing).
    for i in starts.len()..LANES {
        w.m[i] = w.m[0];
    }
    (w, same)
}

/// [`lanes`] compiled for AVX-512 (eight lanes to a vector).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn lanes_avx512<const SAME: bool>(
    w: &LaneStarts,
    nf: f64,
    ln: &[f64; LN_SMALL as usize],
) -> ([f64; LANES], [bool; LANES]) {
    lanes::<SAME>(w, nf, ln)
}

/// bd0(k, μ) near the mean (|k - μ| < μ/2, so |v| < 1/3), by its series: with
/// v = d / (k + μ), k ln(k/μ) - d = d v + 2 k v Σ_{j≥1} v^(2j) / (2j+1), to
/// j = [`SERIES`].
#[inline(always)]
fn lane_series(kf: f64, d: f64, mu: f64) -> f64 {
    let v = d / (kf + mu);
    let v2 = v * v;
    // Σ_j c_j v2^j by Estrin's scheme (pairs, then pairs of pairs: four dependent
    // multiply-adds where Horner's has seventeen); every coefficient and power is
    // positive, so no rounding cancels.
    let c = &SERIES_COEF;
    let e: [f64; 9] = std::array::from_fn(|j| c[2 * j] + c[2 * j + 1] * v2);
    let v4 = v2 * v2;
    let f: [f64; 5] = std::array::from_fn(|j| {
        if j < 4 {
            e[2 * j] + e[2 * j + 1] * v4
        } else {
            e[8]
        }
    });
    let v8 = v4 * v4;
    let (g0, g1, g2) = (f[0] + f[1] * v8, f[2] + f[3] * v8, f[4]);
    let v16 = v8 * v8;
    let h = g0 + v16 * (g1 + v16 * g2);
    d * v + 2.0 * kf * v * v2 * h
}

/// bd0(k, μ) away from the mean (|k - μ| ≥ μ/2), as k (ln k - ln μ) - d, with ln k
/// from the table; at k = 0 the table's ln 1 = 0 leaves -d = μ, bd0(0, μ).
#[inline(always)]
fn lane_table(kf: f64, d: f64, ln_mu: f64, ln_k: f64) -> f64 {
    kf * (ln_k - ln_mu) - d
}

/// ln k from the table, for k a count as a float (1 at 0; the last entry past it).
#[inline(always)]
fn ln_at(kf: f64, ln: &[f64; LN_SMALL as usize]) -> f64 {
    ln[(kf as usize).clamp(1, LN_SMALL as usize - 1)]
}

/// Each lane's compensated sum (a [`Sum`], a field to an array: the vectors' layout),
/// the size of what it has added, and whether it needed ln k past the table.
#[derive(Default)]
struct LaneSums {
    sum: [f64; LANES],
    carry: [f64; LANES],
    mass: [f64; LANES],
    past_table: [bool; LANES],
}

/// The terms at the counts `kf` (probabilities `p`, `q` times those a stride before)
/// added to the lanes still `live`, which stay live while above their tail bound and
/// not `at_end` of their support.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lane_step<const SAME: bool>(
    w: &LaneStarts,
    nf: f64,
    ln: &[f64; LN_SMALL as usize],
    kf: &[f64; LANES],
    p: &[f64; LANES],
    q: &[f64; LANES],
    at_end: &[bool; LANES],
    acc: &mut LaneSums,
    live: &mut [bool; LANES],
) {
    let (inv_n, hf) = (1.0 / nf, w.h as f64);
    let mut d = [0.0; LANES];
    let mut near = false;
    for i in 0..LANES {
        d[i] = (nf * kf[i] - w.abf[i]) * inv_n;
        near |= live[i] && d[i].abs() * 2.0 < w.mu[i];
    }
    // Every lane at the same count (most often): one ln k for all.
    let mut ln_k = [ln_at(kf[0], ln); LANES];
    if !SAME {
        for i in 0..LANES {
            ln_k[i] = ln_at(kf[i], ln);
        }
    }
    let mut bd = [0.0; LANES];
    // The series only while some lane is near its mean: a few steps of each walk.
    if near {
        for i in 0..LANES {
            bd[i] = if d[i].abs() * 2.0 >= w.mu[i] {
                lane_table(kf[i], d[i], w.ln_mu[i], ln_k[i])
            } else {
                lane_series(kf[i], d[i], w.mu[i])
            };
        }
    } else {
        for i in 0..LANES {
            bd[i] = lane_table(kf[i], d[i], w.ln_mu[i], ln_k[i]);
        }
    }
    let tiny = f64::MIN_POSITIVE;
    for i in 0..LANES {
        let past = live[i] && d[i].abs() * 2.0 >= w.mu[i] && kf[i] >= LN_SMALL as f64;
        acc.past_table[i] |= past;
        let x = if live[i] {
            hf * (p[i] * bd[i] * inv_n)
        } else {
            0.0
        };
        let mut s = Sum {
            sum: acc.sum[i],
            carry: acc.carry[i],
        };
        s.add(x);
        (acc.sum[i], acc.carry[i]) = (s.sum, s.carry);
        acc.mass[i] += x.abs();
        let tail = q[i] < 1.0
            && hf * p[i] * w.factor[i] * q[i] <= (acc.mass[i] * STOP + tiny) * (1.0 - q[i]);
        live[i] = live[i] && !tail && !at_end[i] && !past;
    }
}

/// The body of [`emi_lanes`]: `nf` is n as a float. The sums, and the lanes that
/// needed ln k past the table (their sums are meaningless).
#[inline(always)]
fn lanes<const SAME: bool>(
    w: &LaneStarts,
    nf: f64,
    ln: &[f64; LN_SMALL as usize],
) -> ([f64; LANES], [bool; LANES]) {
    let (h, hf) = (w.h, w.h as f64);
    let mut acc = LaneSums::default();
    // The mode's term (a ratio of 1 ends no lane).
    let mut live = w.live;
    let ones = [1.0; LANES];
    lane_step::<SAME>(
        w,
        nf,
        ln,
        &w.m,
        &w.p_m,
        &ones,
        &[false; LANES],
        &mut acc,
        &mut live,
    );
    // On a stride, the steps' ratios multiplied four at a time (numerators and
    // denominators apart, one division per four), as in `pair_walk`; `q`, their product
    // over the stride.
    let mut at_end = [false; LANES];
    // Upward: P(k+1) = P(k) (a-k)(b-k) / ((k+1)(n-a-b+k+1)).
    let (mut p, mut kf) = (w.p_m, w.m);
    let (mut ak, mut bk, mut k1, mut d1) = (w.a_m, w.b_m, [0.0; LANES], [0.0; LANES]);
    for i in 0..LANES {
        k1[i] = w.m[i] + 1.0;
        d1[i] = w.fourth_m[i] + 1.0;
        live[i] = w.live[i] && w.m[i] + hf <= w.hi[i];
    }
    while live.iter().any(|&l| l) {
        let mut q = ones;
        let mut left = h;
        while left > 0 {
            let (mut num, mut den) = (ones, ones);
            for _ in 0..left.min(4) {
                for i in 0..LANES {
                    num[i] *= ak[i] * bk[i];
                    den[i] *= k1[i] * d1[i];
                    (ak[i], bk[i], k1[i], d1[i]) =
                        (ak[i] - 1.0, bk[i] - 1.0, k1[i] + 1.0, d1[i] + 1.0);
                }
            }
            for i in 0..LANES {
                let r = num[i] / den[i];
                p[i] *= r;
                q[i] *= r;
            }
            left -= left.min(4);
        }
        for i in 0..LANES {
            kf[i] += hf;
            at_end[i] = kf[i] + hf > w.hi[i];
        }
        lane_step::<SAME>(w, nf, ln, &kf, &p, &q, &at_end, &mut acc, &mut live);
    }
    // Downward: P(k-1) = P(k) k (n-a-b+k) / ((a-k+1)(b-k+1)).
    let (mut p, mut kf, mut dk) = (w.p_m, w.m, w.fourth_m);
    let (mut ak, mut bk) = (w.a_m, w.b_m);
    for i in 0..LANES {
        ak[i] += 1.0;
        bk[i] += 1.0;
        live[i] = w.live[i] && w.m[i] - hf >= w.lo[i];
    }
    while live.iter().any(|&l| l) {
        let mut q = ones;
        let mut left = h;
        while left > 0 {
            let (mut num, mut den) = (ones, ones);
            for _ in 0..left.min(4) {
                for i in 0..LANES {
                    num[i] *= kf[i] * dk[i];
                    den[i] *= ak[i] * bk[i];
                    (kf[i], dk[i], ak[i], bk[i]) =
                        (kf[i] - 1.0, dk[i] - 1.0, ak[i] + 1.0, bk[i] + 1.0);
                }
            }
            for i in 0..LANES {
                let r = num[i] / den[i];
                p[i] *= r;
                q[i] *= r;
            }
            left -= left.min(4);
        }
        for i in 0..LANES {
            at_end[i] = kf[i] - hf < w.lo[i];
        }
        lane_step::<SAME>(w, nf, ln, &kf, &p, &q, &at_end, &mut acc, &mut live);
    }
    (
        std::array::from_fn(|i| acc.sum[i] + acc.carry[i]),
        acc.past_table,
    )
}

/// Steps of the ratio recurrence on a stride between probabilities from Loader's formula
/// (about 1e-15 of drift; 3,000 steps, 12 standard deviations of 250, drifted 5e-14).
const ANCHOR_STEPS: u64 = 256;

/// Counts whose logarithm [`ln_small`] holds.
const LN_SMALL: u64 = 1 << 12;

/// ln x, from [`ln_small`] where it holds it (the same value).
fn ln_count(x: u64) -> f64 {
    ln_small()
        .get(x as usize)
        .copied()
        .unwrap_or_else(|| (x as f64).ln())
}

/// ln k for k in 0..[`LN_SMALL`] (-inf at 0), computed once.
fn ln_small() -> &'static [f64] {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| (0..LN_SMALL).map(|k| (k as f64).ln()).collect())
}

/// Above this standard deviation a pair's terms are summed on a stride (about
/// 16 samples per standard deviation) instead of one by one.
const STRIDE_SD: f64 = 256.0;

/// Σ_k g(k) over lo..=hi for a smooth bell-shaped g (a hypergeometric term whose
/// standard deviation is at least `STRIDE_SD`, its mode `m` far from 0), as
/// `h Σ_j g(m + j h)`. By Poisson summation both sums differ from the integral of g
/// by terms of order exp(-2π² sd² / h²) = exp(-512 π²): far below rounding. Each
/// sample's probability comes from Loader's formula, so the work per pair is a
/// few hundred terms however large n is (n = 2^63 included).
fn pair_emi_strided(
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

/// The measures of a table kept as its one-row map ([`OneRow`]): each column's one cell
/// is its column's sum, so what the cells give, the column sums give.
pub(crate) mod one_row {
    use super::*;
    use crate::one_row::{OneRow, COUNT_MAX};

    /// See [`super::pair_sums`]; Σ n_ij² is Σ b_j².
    pub(crate) fn pair_sums(o: &OneRow) -> PairSums {
        PairSums {
            n: u128::from(o.n),
            cells_sq: o.cols_sq,
            rows_sq: sum_sq(&o.row_sums),
            cols_sq: o.cols_sq,
        }
    }

    /// The [`entropy`] of the columns, from their distinct sizes: each size's term once,
    /// times how many columns have it (one rounding more than a term a column, summed
    /// over far fewer terms; 10^7 singletons: 40 ms to a pass over the map).
    pub(crate) fn entropy_cols(o: &OneRow) -> f64 {
        entropy_of_sizes(&col_sizes(o), o.n_cols, o.n)
    }

    /// [`entropy`] of `columns` sizes (`sizes`: each distinct size and its number)
    /// adding up to `total`.
    fn entropy_of_sizes(sizes: &[(u64, u64)], columns: usize, total: u64) -> f64 {
        match columns {
            0 => return 1.0,
            1 => return 0.0,
            _ => {}
        }
        let (total, ln_total) = (total as f64, (total as f64).ln());
        let mut s = Sum::default();
        for &(c, k) in sizes {
            s.add(k as f64 * ((c as f64 / total) * (ln_count(c) - ln_total)));
        }
        -s.value()
    }

    /// The columns' distinct sizes, each with its number of columns.
    fn col_sizes(o: &OneRow) -> Vec<(u64, u64)> {
        match o.slots() {
            Some(slots) => {
                small_size_counts(slots.map(|s| u64::from(s >> 16)), u64::from(COUNT_MAX))
            }
            None => vec![(1, o.n)],
        }
    }

    /// See [`mutual_info`]. A cell's term, n_ij ((ln n_ij - ln b_j) + (ln n - ln a_i)), is
    /// b_j (ln n - ln a_i) here: a row's terms add up to (ln n - ln a_i) times the sum of
    /// its cells that are not below machine epsilon, which is all of them unless
    /// n² ε (ln n - ln a_i) exceeds 1 (n past 6e7 at least). No logarithm a column, and
    /// one rounding a row instead of one a cell.
    pub(crate) fn mutual_info(o: &OneRow) -> f64 {
        if o.n_rows() == 1 || o.n_cols == 1 || o.n == 0 {
            return 0.0;
        }
        let n = o.n as f64;
        let ln_n = n.ln();
        let small = f64::EPSILON * n;
        // By a slot's row offset plus one: ln n - ln a_i, and the smallest count whose
        // term is not below `small` (the terms grow with the count).
        let row_part: Vec<f64> = o
            .row_of
            .iter()
            .map(|&r| match r {
                u32::MAX => 0.0,
                r => ln_n - ln_count(o.row_sums[r as usize]),
            })
            .collect();
        let kept_from = |part: f64| -> u64 {
            let kept = |c: u64| (c as i64 as f64 * part).abs() >= small;
            let mut c = ((small / part) as u64).saturating_sub(2).max(1);
            while c <= u64::from(COUNT_MAX) && !kept(c) {
                c += 1;
            }
            c
        };
        let least: Vec<u64> = row_part.iter().map(|&p| kept_from(p)).collect();
        let mut kept = vec![0u64; row_part.len()];
        match o.slots() {
            Some(slots) if least.iter().any(|&c| c > 1) => {
                for slot in slots {
                    let (r, c) = ((slot & 0xffff) as usize, u64::from(slot >> 16));
                    if c >= least[r] {
                        kept[r] += c;
                    }
                }
            }
            // Every cell kept, or (singletons) every cell of a row whose count-1 cells are.
            _ => {
                for ((r, k), &c) in o.row_of.iter().zip(kept.iter_mut()).zip(&least) {
                    if *r != u32::MAX && c <= 1 {
                        *k = o.row_sums[*r as usize];
                    }
                }
            }
        }
        let mut total = Sum::default();
        for (&part, &k) in row_part.iter().zip(&kept) {
            if k > 0 {
                total.add(k as f64 * part);
            }
        }
        (total.value() / n).max(0.0)
    }

    /// See [`expected_mutual_info`].
    pub(crate) fn expected_mutual_info(o: &OneRow) -> f64 {
        emi_of_cols(o, &col_sizes(o))
    }

    /// [`expected_mutual_info`] given the columns' sizes (0.0 for a single row or column).
    fn emi_of_cols(o: &OneRow, cols: &[(u64, u64)]) -> f64 {
        if o.n_rows() == 1 || o.n_cols == 1 || o.n == 0 {
            return 0.0;
        }
        emi_of_sizes(&size_counts(&o.row_sums), cols, o.n)
    }

    /// See [`ami_parts`]; the columns' sizes are counted once for two of them.
    pub(crate) fn ami_parts(o: &OneRow) -> AmiParts {
        let cols = col_sizes(o);
        let expected = || emi_of_cols(o, &cols);
        let entropies = || (entropy(&o.row_sums), entropy_of_sizes(&cols, o.n_cols, o.n));
        let ((mutual_info, expected), (entropy_rows, entropy_cols)) = if pool::threads() > 1 {
            pool::run(|| rayon::join(|| rayon::join(|| mutual_info(o), expected), entropies))
        } else {
            ((mutual_info(o), expected()), entropies())
        };
        AmiParts {
            mutual_info,
            expected,
            entropy_rows,
            entropy_cols,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count;

    #[test]
    fn wide_mi_sums_alike_with_and_without_vectors() {
        // Eights of one row and of two, counts past the ln table (those eights and the
        // rest go to the scalar code), and a tail of fewer than eight.
        let mut seed = 17u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let ln_cols: Vec<f64> = (0..500).map(|j| ((j + 2) as f64).ln()).collect();
        let row_part: Vec<f64> = (0..40).map(|i| 20.0 - ((i + 3) as f64).ln()).collect();
        let parts = MiParts {
            ln_small: ln_small(),
            ln_cols: &ln_cols,
            row_part: &row_part,
            small: 1e-9,
        };
        for big in [0, 1, 50] {
            let len = 1003;
            let counts: Vec<u64> = (0..len)
                .map(|_| {
                    if next(1000) < big {
                        LN_SMALL + next(100_000)
                    } else {
                        1 + next(300)
                    }
                })
                .collect();
            let mut rows: Vec<u32> = (0..len).map(|_| next(40) as u32).collect();
            rows.sort_unstable();
            let cols: Vec<u32> = (0..len).map(|_| next(500) as u32).collect();
            let mut scalar = Sum::default();
            parts.sum_scalar(&counts, &rows, &cols, &mut scalar);
            let s = parts.sum(&counts, &rows, &cols);
            assert_eq!(
                (s.sum.to_bits(), s.carry.to_bits()),
                (scalar.sum.to_bits(), scalar.carry.to_bits())
            );
            assert!(s.value() > 0.0);
        }
    }

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
    fn lanes_sum_as_each_pair_alone() {
        // Eights (and fewer) of pairs that fit the lanes: of one mode, of modes a few
        // apart (walks from a common count, away from some modes) and far apart (each
        // from its own); a term at each count and on a stride. Each lane against the pair's own walk; and the vector code
        // against the scalar code, to the bit.
        let mut s = 0x5eed_u64;
        let mut rnd = |m: u64| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) % m.max(1)
        };
        let ln: &[f64; LN_SMALL as usize] = ln_small().try_into().unwrap();
        let (mut rebased, mut apart, mut strided) = (0, 0, 0);
        for case in 0..600 {
            let n = [1_000u64, 100_000, 1_000_000, 1 << 40][case % 4];
            let spread = [0u64, 4, 60][case / 4 % 3];
            let (a0, b0) = (1 + rnd(n - 1), 1 + rnd(4000.min(n - 1)));
            let mut starts = Vec::new();
            for _ in 0..1 + case % 8 {
                let a = (a0 + rnd(spread * (a0 / 100 + 1) + 1)).min(n);
                let b = (b0 + rnd(spread + 1)).min(n);
                let ln_n = (n as f64).ln();
                if let Some(st) = pair_start(a, b, n, ln_n, ln_binomial(b, n, b, n)) {
                    if fits_lanes(&st) {
                        starts.push(st);
                    }
                }
            }
            if starts.is_empty() {
                continue;
            }
            starts.sort_by_key(|st| st.m);
            let (w, same) = lane_starts(&starts);
            rebased += usize::from(same && starts.iter().any(|st| st.m != starts[0].m));
            apart += usize::from(!same);
            strided += usize::from(w.h > 1);
            let got = emi_lanes(&starts);
            for (st, &x) in starts.iter().zip(&got) {
                let y = pair_walk(st);
                assert!(
                    (x - y).abs() <= 3e-15 * y.abs(),
                    "{st:?}: lanes {x:e}, alone {y:e}"
                );
            }
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512dq")
            {
                let nf = n as f64;
                #[allow(unsafe_code)]
                // SAFETY: the CPU has AVX-512F and DQ, just detected.
                let (v, scalar) = unsafe {
                    if same {
                        (lanes_avx512::<true>(&w, nf, ln), lanes::<true>(&w, nf, ln))
                    } else {
                        (
                            lanes_avx512::<false>(&w, nf, ln),
                            lanes::<false>(&w, nf, ln),
                        )
                    }
                };
                assert_eq!(v.0.map(f64::to_bits), scalar.0.map(f64::to_bits));
                assert_eq!(v.1, scalar.1);
            }
        }
        // Both ways of starting were taken, and eights on a stride.
        assert!(
            rebased > 20 && apart > 20 && strided > 20,
            "{rebased} {apart} {strided}"
        );
    }

    #[test]
    fn lanes_past_the_ln_table_sum_alone() {
        // No tail bound (a huge factor): the walk reaches counts past the ln table far
        // from the mean (μ = 3,000, sd = 51: 1.5 μ = 4,500 at 29 sd, where the terms are
        // still far from underflow), where the lanes have no logarithm. That lane is
        // flagged, and emi_lanes sums it alone.
        let (a, b, n) = (100_000u64, 30_000u64, 1_000_000u64);
        let mut st = pair_start(a, b, n, (n as f64).ln(), ln_binomial(b, n, b, n)).unwrap();
        assert!(fits_lanes(&st) && st.h > 1);
        st.factor = 1e300;
        let (w, same) = lane_starts(&[st]);
        let ln: &[f64; LN_SMALL as usize] = ln_small().try_into().unwrap();
        let (_, past) = if same {
            lanes::<true>(&w, n as f64, ln)
        } else {
            lanes::<false>(&w, n as f64, ln)
        };
        assert!(past[0] && !past[1..].iter().any(|&x| x));
        let alone = pair_walk(&st);
        assert!(alone > 0.0);
        assert_eq!(emi_lanes(&[st])[0].to_bits(), alone.to_bits());
    }

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
            let got = expected_mutual_info(&t);
            assert!((got - want).abs() <= 1e-13 * want, "{big}: {got} vs {want}");
        }
    }

    #[test]
    fn ami_parts_side_by_side_equal_each_alone() {
        let mut seed = 3u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) as i64
        };
        for (rows, cols) in [(20, 30), (33, 3000)] {
            let a: Vec<i64> = (0..200_000).map(|_| next() % rows).collect();
            let b: Vec<i64> = a.iter().map(|&x| (x * 7 + next() % 50) % cols).collect();
            let t = table(&a, &b);
            let parts = ami_parts(&t);
            assert_eq!(parts.mutual_info.to_bits(), mutual_info(&t).to_bits());
            assert_eq!(parts.expected.to_bits(), expected_mutual_info(&t).to_bits());
            assert_eq!(parts.entropy_rows.to_bits(), entropy(&t.row_sums).to_bits());
            assert_eq!(parts.entropy_cols.to_bits(), entropy(&t.col_sums).to_bits());
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
            assert_eq!(size_counts(&sums), naive(&sums), "{len} {bound}");
        }
        assert_eq!(size_counts(&[0, 0]), vec![]);
        assert_eq!(
            size_counts(&[u64::MAX, 1, u64::MAX]),
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
            let got = expected_mutual_info(&t);
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
        let emi = expected_mutual_info(&t);
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
        let emi = expected_mutual_info(&t);
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
    fn pair_sums_are_exact() {
        let t = table(&[0, 0, 1, 1, 1], &[0, 1, 1, 1, 2]);
        let s = pair_sums(&t);
        assert_eq!(s.n, 5);
        assert_eq!(s.cells_sq, 1 + 1 + 4 + 1);
        assert_eq!(s.rows_sq, 4 + 9);
        assert_eq!(s.cols_sq, 1 + 9 + 1);
    }

    #[test]
    fn entropy_conventions() {
        assert_eq!(entropy(&[]), 1.0);
        assert_eq!(entropy(&[5]), 0.0);
        assert!((entropy(&[1, 1]) - std::f64::consts::LN_2).abs() < 1e-15);
    }

    #[test]
    fn mutual_info_of_identical_labelings_is_their_entropy() {
        let a = [0, 0, 1, 2, 2, 2];
        let t = table(&a, &a);
        assert!((mutual_info(&t) - entropy(&t.row_sums)).abs() < 1e-15);
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
            let got = expected_mutual_info(&t);
            assert!(
                (got - want).abs() <= 1e-11 * want.abs().max(1e-3),
                "n={n}: {got} vs {want}"
            );
        }
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

    #[test]
    fn purity_counts_majorities() {
        let t = table(&[0, 0, 1, 1, 1, 2], &[0, 0, 0, 1, 1, 1]);
        assert!((purity(&t) - 4.0 / 6.0).abs() < 1e-15);
    }
}
