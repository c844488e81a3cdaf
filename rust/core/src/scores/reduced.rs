//! The reduced mutual information of a table (rows: the truth `g`, columns: the candidate
//! `c`), in bits: the mutual information less the information needed to describe the table's
//! margins, which plain mutual information leaves out and which grows with the number of
//! clusters.
//!
//! - Dirichlet-multinomial reduction (Jerdee, Kirkley & Newman 2024, "Normalized mutual
//!   information is a biased measure for classification and community detection"): the truth
//!   described alone, its group sizes under a Dirichlet-multinomial prior, against the truth
//!   described column by column, each column's cells under one; each prior's concentration
//!   `α` is the one that describes the sizes in the fewest bits.
//! - Flat reduction (Newman, Cantwell & Young 2020): the microcanonical mutual information
//!   less the logarithm of the number of tables with the table's margins, estimated as Jerdee,
//!   Kirkley & Newman (2023, "Efficient estimation of the number of contingency tables")
//!   do ("EC").
//!
//! Both as the authors' package `clustering-mi` computes them: every `α` found by the same
//! golden-section search in `ln α` over `[1e-4, 1e4]` to a width of `1e-5`, so that the
//! values agree with theirs to rounding. Sizes are grouped by value (a size that occurs `m`
//! times is one `lgamma` times `m`), so a table of many cells costs its distinct counts.

use crate::emi::size_counts;
use crate::error::Error;
use crate::table::Table;

/// The four reduced mutual informations that the normalisations combine, in bits: of the
/// table (`truth_given_pred`: what the candidate tells of the truth), of its transpose, and
/// of each labeling with itself (its reduced entropy).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReducedParts {
    /// `I(c; g)`: the table, truth as rows.
    pub truth_given_pred: f64,
    /// `I(g; c)`: the transposed table.
    pub pred_given_truth: f64,
    /// `I(c; c)`: the candidate with itself.
    pub pred_self: f64,
    /// `I(g; g)`: the truth with itself.
    pub truth_self: f64,
}

/// The reduced mutual informations of `t` (Dirichlet-multinomial, or flat with `flat`);
/// [`Error::OutOfMemory`] if the lists of sizes are refused.
pub fn reduced_parts(t: &Table, flat: bool) -> Result<ReducedParts, Error> {
    let rows = size_counts(&t.row_sums)?;
    let cols = size_counts(&t.col_sums)?;
    let cells = size_counts(&t.cell_count)?;
    let rmi = if flat { flat_rmi } else { dirichlet_rmi };
    Ok(ReducedParts {
        truth_given_pred: rmi(&rows, &cols, &cells),
        pred_given_truth: rmi(&cols, &rows, &cells),
        pred_self: rmi(&cols, &cols, &cols),
        truth_self: rmi(&rows, &rows, &rows),
    })
}

/// `ln x!` of a real `x`.
fn ln_factorial(x: f64) -> f64 {
    libm::lgamma(x + 1.0)
}

/// `ln C(n, m)` of reals.
fn ln_binomial(n: f64, m: f64) -> f64 {
    ln_factorial(n) - ln_factorial(m) - ln_factorial(n - m)
}

/// `Σ m ln x!` over sizes `x` occurring `m` times.
fn sum_ln_factorial(sizes: &[(u64, u64)]) -> f64 {
    sizes
        .iter()
        .map(|&(x, m)| m as f64 * ln_factorial(x as f64))
        .sum()
}

fn total(sizes: &[(u64, u64)]) -> (f64, f64) {
    let n = sizes.iter().map(|&(x, m)| x as f64 * m as f64).sum();
    let q = sizes.iter().map(|&(_, m)| m as f64).sum();
    (n, q)
}

/// The Dirichlet-multinomial reduced mutual information of a table whose rows (the labeling
/// described) have sizes `rows`, columns `cols` and non-zero cells `cells` (each as distinct
/// values with their counts), in bits.
fn dirichlet_rmi(rows: &[(u64, u64)], cols: &[(u64, u64)], cells: &[(u64, u64)]) -> f64 {
    let (n, q_rows) = total(rows);
    if n == 0.0 {
        return 0.0;
    }
    // The rows' sizes alone: ln C(n + qα - 1, qα - 1) - Σ ln C(n_g + α - 1, α - 1).
    let sizes_alone = |alpha: f64| {
        let mut h = ln_binomial(n + q_rows * alpha - 1.0, q_rows * alpha - 1.0);
        for &(x, m) in rows {
            h -= m as f64 * ln_binomial(x as f64 + alpha - 1.0, alpha - 1.0);
        }
        h
    };
    // Each column's cells: Σ_c ln C(n_c + qα - 1, qα - 1) - Σ_cells ln C(n_gc + α - 1, α - 1).
    let by_column = |alpha: f64| {
        let mut h = 0.0;
        for &(x, m) in cols {
            h += m as f64 * ln_binomial(x as f64 + q_rows * alpha - 1.0, q_rows * alpha - 1.0);
        }
        for &(x, m) in cells {
            h -= m as f64 * ln_binomial(x as f64 + alpha - 1.0, alpha - 1.0);
        }
        h
    };
    let h_alone = min_golden_ln(sizes_alone) + ln_factorial(n) - sum_ln_factorial(rows);
    let h_given = min_golden_ln(by_column) + sum_ln_factorial(cols) - sum_ln_factorial(cells);
    (h_alone - h_given) / std::f64::consts::LN_2
}

/// The flat reduced mutual information (bits): the microcanonical mutual information less
/// the EC estimate of ln Ω(column sums, row sums).
fn flat_rmi(rows: &[(u64, u64)], cols: &[(u64, u64)], cells: &[(u64, u64)]) -> f64 {
    let (n, _) = total(rows);
    if n == 0.0 {
        return 0.0;
    }
    let mi =
        ln_factorial(n) - sum_ln_factorial(rows) - sum_ln_factorial(cols) + sum_ln_factorial(cells);
    (mi - ln_tables(cols, rows)) / std::f64::consts::LN_2
}

/// The EC estimate of ln Ω, the number of tables with row sums `rs` and column sums `cs`
/// (Jerdee, Kirkley & Newman 2023), in nats. Where every column sum is 1 the count is exact:
/// `n! / Π r!`. (`clustering-mi` 0.2.2 returns `ln (n+1)! - Σ ln (r+1)!` there, in nats where
/// the other branch is in bits.)
fn ln_tables(rs: &[(u64, u64)], cs: &[(u64, u64)]) -> f64 {
    let (n, m) = total(rs);
    let (_, columns) = total(cs);
    if columns == n {
        return ln_factorial(n) - sum_ln_factorial(rs);
    }
    let squares: f64 = cs
        .iter()
        .map(|&(x, k)| k as f64 * (x as f64) * (x as f64))
        .sum();
    let alpha = (n * n - n + (n * n - squares) / m) / (squares - n);
    let mut h = -ln_binomial(n + m * alpha - 1.0, m * alpha - 1.0);
    for &(x, k) in rs {
        h += k as f64 * ln_binomial(x as f64 + alpha - 1.0, alpha - 1.0);
    }
    for &(x, k) in cs {
        h += k as f64 * ln_binomial(x as f64 + m - 1.0, m - 1.0);
    }
    h
}

/// The minimum of `f(α)` for `α` in `[1e-4, 1e4]`, found by golden-section search in `ln α`
/// to a width of `1e-5`, and `f` at the middle of the last interval: `clustering-mi`'s
/// search, step for step.
fn min_golden_ln(f: impl Fn(f64) -> f64) -> f64 {
    const TOL: f64 = 1e-5;
    let (mut a, mut b) = (1e-4f64.ln(), 1e4f64.ln());
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let resphi = 2.0 - phi;
    let mut c = a + resphi * (b - a);
    let mut d = b - resphi * (b - a);
    let (mut fc, mut fd) = (f(c.exp()), f(d.exp()));
    while (c - d).abs() > TOL {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = a + resphi * (b - a);
            fc = f(c.exp());
        } else {
            a = c;
            c = d;
            fc = fd;
            d = b - resphi * (b - a);
            fd = f(d.exp());
        }
    }
    f(((a + b) / 2.0).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count;

    #[test]
    fn flat_count_of_tables_is_exact_for_single_columns() {
        // Row sums 2 and 1 over three columns of one: 3! / (2! 1!) = 3 tables.
        let got = ln_tables(&[(2, 1), (1, 1)], &[(1, 3)]);
        assert!((got - 3f64.ln()).abs() < 1e-14);
    }

    #[test]
    fn a_labeling_tells_all_of_itself_and_identical_labelings_agree() {
        let a: Vec<i64> = (0..300).map(|i| (i * 7 % 13) as i64).collect();
        let t = count(&a, &a).unwrap();
        for flat in [false, true] {
            let p = reduced_parts(&t, flat).unwrap();
            assert!((p.truth_given_pred - p.truth_self).abs() < 1e-9 * p.truth_self.abs());
            assert!((p.pred_given_truth - p.pred_self).abs() < 1e-9 * p.pred_self.abs());
        }
    }
}
