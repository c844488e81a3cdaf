//! The information measures of a [`Table`]: the entropy of a labeling and the mutual
//! information of two, as scikit-learn's, with compensated sums.

use crate::alloc;
use crate::cpu::{self, MiTables};
use crate::error::Error;
use crate::numeric::{ln_count, ln_small, Sum, LN_SMALL};
use crate::pool;
use crate::stop;
use crate::table::Table;

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
/// [`Error::OutOfMemory`] if a wide table's per-row and per-column logarithms are refused.
pub fn mutual_info(t: &Table) -> Result<f64, Error> {
    if t.n_rows() == 1 || t.n_cols() == 1 || t.n == 0 {
        return Ok(0.0);
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
        let what = "the mutual information's logarithms of the row and column sums";
        let row_part = alloc::collect(t.row_sums.iter().map(|&a| ln_n - ln_count(a)), what)?;
        let ln_cols = alloc::collect(t.col_sums.iter().map(|&b| ln_count(b)), what)?;
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
            // A stopped sum returns early: its value means nothing.
            if stop::requested() {
                return Sum::default();
            }
            let r = block * MI_BLOCK..cells.min((block + 1) * MI_BLOCK);
            parts.sum(
                &t.cell_count[r.clone()],
                &t.cell_row[r.clone()],
                &t.cell_col[r],
            )
        };
        let blocks = cells.div_ceil(MI_BLOCK);
        let mut sums = alloc::filled(blocks, Sum::default(), what)?;
        pool::fill(&mut sums, block_sum);
        let mut total = Sum::default();
        for b in sums {
            total.add(b.sum);
            total.add(b.carry);
        }
        s.add(total.value() / n);
    }
    Ok(s.value().max(0.0))
}

/// The tables a wide table's mutual-information terms read.
type MiParts<'a> = MiTables<'a>;

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
    /// themselves), then into a compensated sum (not one compensated addition per cell,
    /// about 10 cycles each).
    /// Eight to a vector where the CPU has AVX-512, to the same bit.
    fn sum(&self, counts: &[u64], rows: &[u32], cols: &[u32]) -> Sum {
        let mut s = Sum::default();
        if let Some(done) = cpu::mi_eights(counts, rows, cols, self, &mut s) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count;

    fn table(a: &[i64], b: &[i64]) -> Table {
        count(a, b).unwrap()
    }

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
    fn entropy_conventions() {
        assert_eq!(entropy(&[]), 1.0);
        assert_eq!(entropy(&[5]), 0.0);
        assert!((entropy(&[1, 1]) - std::f64::consts::LN_2).abs() < 1e-15);
    }

    #[test]
    fn mutual_info_of_identical_labelings_is_their_entropy() {
        let a = [0, 0, 1, 2, 2, 2];
        let t = table(&a, &a);
        assert!((mutual_info(&t).unwrap() - entropy(&t.row_sums)).abs() < 1e-15);
    }
}
