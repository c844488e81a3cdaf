//! The pair-counting sums and the purity: exact integer sums over a [`Table`].

use crate::alloc;
use crate::error::Error;
use crate::table::Table;

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

pub(crate) fn sum_sq(xs: &[u64]) -> u128 {
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

/// Purity: (1/n) Σ_j max_i n_ij, the share of samples in the majority class of
/// their cluster (rows are classes, columns clusters). 1.0 for no samples.
/// [`Error::OutOfMemory`] if the columns' maxima are refused.
pub fn purity(t: &Table) -> Result<f64, Error> {
    if t.n == 0 {
        return Ok(1.0);
    }
    let mut best = alloc::filled(t.n_cols(), 0u64, "the purity's column maxima")?;
    for (&j, &c) in t.cell_col.iter().zip(&t.cell_count) {
        let b = &mut best[j as usize];
        *b = (*b).max(c);
    }
    Ok(best.iter().sum::<u64>() as f64 / t.n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count;

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
    fn purity_counts_majorities() {
        let t = table(&[0, 0, 1, 1, 1, 2], &[0, 0, 0, 1, 1, 1]);
        assert!((purity(&t).unwrap() - 4.0 / 6.0).abs() < 1e-15);
    }
}
