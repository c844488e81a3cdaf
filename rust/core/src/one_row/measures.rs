//! The measures of a compact table ([`OneRow`], [`Singletons`]): each column's one cell
//! is its column's sum, so what the cells give, the column sums give.

use crate::emi::{emi_of_sizes, size_counts, small_size_counts};
use crate::error::Error;
use crate::numeric::{ln_count, Sum};
use crate::pool;
use crate::scores::{entropy, sum_sq, AmiParts, PairSums};

use super::form::{OneRow, Rows, Singletons, COUNT_MAX};

/// A compact form: what the measures read of it, and its measures (one cell a column,
/// whose count is the column's sum), written once for every form.
pub(crate) trait Compact: Sync + Sized {
    fn rows(&self) -> &Rows;
    fn n_cols(&self) -> usize;
    /// Σ b_j².
    fn cols_sq(&self) -> u128;
    /// The columns' distinct sizes, each with its number of columns.
    fn col_sizes(&self) -> Result<Vec<(u64, u64)>, Error>;
    /// Into `kept` (by a row offset plus one), the sum of each row's cells whose count
    /// is at least `least` of the row, if the form has its cells and some row leaves
    /// out a cell; false (nothing written) otherwise.
    fn kept_cells(&self, least: &[u64], kept: &mut [u64]) -> bool;

    /// See [`crate::scores::pair_sums`]; Σ n_ij² is Σ b_j².
    fn pair_sums(&self) -> PairSums {
        PairSums {
            n: u128::from(self.rows().n),
            cells_sq: self.cols_sq(),
            rows_sq: sum_sq(&self.rows().sums),
            cols_sq: self.cols_sq(),
        }
    }

    /// The [`entropy`] of the columns, from their distinct sizes: each size's term once,
    /// times how many columns have it (one rounding more than a term a column, summed
    /// over far fewer terms; a term a column, a pass over the map, took 40 ms for 1e7
    /// singletons).
    fn entropy_cols(&self) -> Result<f64, Error> {
        Ok(entropy_of_sizes(
            &self.col_sizes()?,
            self.n_cols(),
            self.rows().n,
        ))
    }

    /// See [`crate::scores::mutual_info`] and [`mutual_info`]. (Its per-row vectors are
    /// of at most [`super::form::ROWS_MAX`] rows: they do not grow with the input.)
    fn mutual_info(&self) -> f64 {
        mutual_info(self)
    }

    /// See [`crate::scores::expected_mutual_info`].
    fn expected_mutual_info(&self) -> Result<f64, Error> {
        emi_of_cols(self, &self.col_sizes()?)
    }

    /// See [`crate::scores::ami_parts`] and [`ami_parts`].
    fn ami_parts(&self) -> Result<AmiParts, Error> {
        ami_parts(self)
    }
}

impl Compact for OneRow {
    fn rows(&self) -> &Rows {
        &self.rows
    }

    fn n_cols(&self) -> usize {
        self.n_cols
    }

    fn cols_sq(&self) -> u128 {
        self.cols_sq
    }

    fn col_sizes(&self) -> Result<Vec<(u64, u64)>, Error> {
        small_size_counts(
            self.slots().map(|s| u64::from(s >> 16)),
            u64::from(COUNT_MAX),
        )
    }

    fn kept_cells(&self, least: &[u64], kept: &mut [u64]) -> bool {
        if !least.iter().any(|&c| c > 1) {
            return false;
        }
        for slot in self.slots() {
            let (r, c) = ((slot & 0xffff) as usize, u64::from(slot >> 16));
            if c >= least[r] {
                kept[r] += c;
            }
        }
        true
    }
}

impl Compact for Singletons {
    fn rows(&self) -> &Rows {
        &self.rows
    }

    fn n_cols(&self) -> usize {
        self.rows.n as usize
    }

    /// Every column one sample: Σ n_ij² and Σ b_j² are n.
    fn cols_sq(&self) -> u128 {
        u128::from(self.rows.n)
    }

    fn col_sizes(&self) -> Result<Vec<(u64, u64)>, Error> {
        Ok(vec![(1, self.rows.n)])
    }

    fn kept_cells(&self, _: &[u64], _: &mut [u64]) -> bool {
        false
    }
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

/// See [`crate::scores::mutual_info`]. A cell's term, n_ij ((ln n_ij - ln b_j) +
/// (ln n - ln a_i)), is b_j (ln n - ln a_i) here: a row's terms add up to
/// (ln n - ln a_i) times the sum of its cells that are not below machine epsilon, which
/// is all of them unless n² ε (ln n - ln a_i) exceeds 1 (n past 6e7 at least). No
/// logarithm a column, and one rounding a row instead of one a cell.
fn mutual_info(o: &impl Compact) -> f64 {
    let rows = o.rows();
    if rows.keys.keys.len() == 1 || o.n_cols() == 1 || rows.n == 0 {
        return 0.0;
    }
    let n = rows.n as f64;
    let ln_n = n.ln();
    let small = f64::EPSILON * n;
    // By a slot's row offset plus one: ln n - ln a_i, and the smallest count whose
    // term is not below `small` (the terms grow with the count).
    let row_part: Vec<f64> = rows
        .row_of
        .iter()
        .map(|&r| match r {
            u32::MAX => 0.0,
            r => ln_n - ln_count(rows.sums[r as usize]),
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
    if !o.kept_cells(&least, &mut kept) {
        // Every cell kept, or (singletons) every cell of a row whose count-1 cells are.
        for ((r, k), &c) in rows.row_of.iter().zip(kept.iter_mut()).zip(&least) {
            if *r != u32::MAX && c <= 1 {
                *k = rows.sums[*r as usize];
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

/// [`crate::scores::expected_mutual_info`] given the columns' sizes (0.0 for a single
/// row or column).
fn emi_of_cols(o: &impl Compact, cols: &[(u64, u64)]) -> Result<f64, Error> {
    let rows = o.rows();
    if rows.keys.keys.len() == 1 || o.n_cols() == 1 || rows.n == 0 {
        return Ok(0.0);
    }
    emi_of_sizes(&size_counts(&rows.sums)?, cols, rows.n)
}

/// See [`crate::scores::ami_parts`]; the columns' sizes are counted once for two of them.
fn ami_parts(o: &impl Compact) -> Result<AmiParts, Error> {
    let cols = o.col_sizes()?;
    let rows = o.rows();
    let expected = || emi_of_cols(o, &cols);
    let entropies = || {
        (
            entropy(&rows.sums),
            entropy_of_sizes(&cols, o.n_cols(), rows.n),
        )
    };
    let ((mutual_info, expected), (entropy_rows, entropy_cols)) = if pool::threads() > 1 {
        pool::run(|| rayon::join(|| rayon::join(|| mutual_info(o), expected), entropies))
    } else {
        ((mutual_info(o), expected()), entropies())
    };
    Ok(AmiParts {
        mutual_info,
        expected: expected?,
        entropy_rows,
        entropy_cols,
    })
}
