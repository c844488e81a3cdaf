//! Every measure of a [`Table`], computed from the table alone.
//!
//! The information measures follow scikit-learn's formulas term for term
//! (including its conventions for degenerate tables), with compensated sums;
//! the pair counts are exact integers. The pair sums and the purity are in `pairs`,
//! the entropy and the mutual information in `info`, the expected mutual information
//! in `crate::emi`; the measures of the compact forms of a table are in
//! `crate::one_row::measures`.

mod info;
mod pairs;
mod reduced;
mod standardized;

use crate::emi::EMI_BLOCK;
use crate::pool;
use crate::table::Table;

pub use crate::emi::expected_mutual_info;
pub use info::{entropy, mutual_info};
pub(crate) use pairs::sum_sq;
pub use pairs::{pair_sums, purity, PairSums};
pub use reduced::{reduced_parts, ReducedParts};
pub(crate) use standardized::mutual_info_variance;

/// The adjusted mutual information's parts: [`mutual_info`], [`expected_mutual_info`]
/// and the [`entropy`] of the rows and of the columns, side by side on the pool's
/// threads (the same values, sooner than one after the other).
pub fn ami_parts(t: &Table) -> AmiParts {
    let entropies = || (entropy(&t.row_sums), entropy(&t.col_sums));
    // A small table's parts take a few microseconds, less than waking the pool's threads
    // (tens of microseconds when they sleep between calls).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count;

    fn table(a: &[i64], b: &[i64]) -> Table {
        count(a, b).unwrap()
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
}
