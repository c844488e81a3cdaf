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
use crate::error::Error;
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
pub fn ami_parts(t: &Table) -> Result<AmiParts, Error> {
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
    Ok(AmiParts {
        mutual_info: mutual_info?,
        expected: expected?,
        entropy_rows,
        entropy_cols,
    })
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
            let parts = ami_parts(&t).unwrap();
            assert_eq!(
                parts.mutual_info.to_bits(),
                mutual_info(&t).unwrap().to_bits()
            );
            let expected = expected_mutual_info(&t).unwrap();
            assert_eq!(parts.expected.to_bits(), expected.to_bits());
            assert_eq!(parts.entropy_rows.to_bits(), entropy(&t.row_sums).to_bits());
            assert_eq!(parts.entropy_cols.to_bits(), entropy(&t.col_sums).to_bits());
        }
    }

    #[test]
    fn measures_refused_their_buffers_say_so_and_the_next_call_is_right() {
        // A wide table of 40,000 columns (its logarithms, maxima and sizes past 64 KiB),
        // column sums spread past the sizes' counting array (sorted).
        let mut seed = 11u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            (seed >> 33) as i64
        };
        let a: Vec<i64> = (0..400_000).map(|_| next() % 1000).collect();
        let b: Vec<i64> = (0..400_000)
            .map(|i| if i < 40_000 { i } else { next() % 7 })
            .collect();
        let t = table(&a, &b);
        assert!(t.cell_count.len() > 1 << 14 && t.n_cols() == 40_000);
        let refused = |what: &str, got: Result<f64, Error>| match got {
            Err(Error::OutOfMemory { what: w, bytes }) => {
                assert!(w.contains(what) && bytes >= 1 << 16, "{w} {bytes}")
            }
            other => panic!("{what}: {other:?}"),
        };
        let under_cap =
            |f: &dyn Fn() -> Result<f64, Error>| crate::alloc::refusing_from(1 << 16, f);
        refused("logarithms", under_cap(&|| mutual_info(&t)));
        refused("column maxima", under_cap(&|| purity(&t)));
        refused("sizes", under_cap(&|| expected_mutual_info(&t)));
        refused(
            "sizes",
            under_cap(&|| reduced_parts(&t, false).map(|p| p.truth_self)),
        );
        // The next calls, uncapped, against the table's own sums.
        let n = t.n as f64;
        let mut best = std::collections::HashMap::new();
        let mut mi = 0.0;
        for k in 0..t.cell_count.len() {
            let (i, j, c) = (t.cell_row[k] as usize, t.cell_col[k], t.cell_count[k]);
            let e = best.entry(j).or_insert(0u64);
            *e = (*e).max(c);
            let outer = t.row_sums[i] as f64 * t.col_sums[j as usize] as f64;
            mi += c as f64 / n * (c as f64 * n / outer).ln();
        }
        let got = mutual_info(&t).unwrap();
        assert!((got - mi).abs() < 1e-10 * mi, "{got} against {mi}");
        let majority: u64 = best.values().sum();
        assert_eq!(purity(&t).unwrap(), majority as f64 / n);
        let emi = expected_mutual_info(&t).unwrap();
        assert!(emi > 0.0 && emi <= entropy(&t.row_sums), "{emi}");
    }
}
