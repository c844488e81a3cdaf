//! A counted table in either of its forms, and every measure of it.

use std::sync::OnceLock;

use crate::one_row::OneRow;
use crate::scores::{self, AmiParts, PairSums};
use crate::table::{Keys, Table};

/// A counted table, in the form its count left it: a [`Table`], or a table whose every
/// column has one non-empty row (each cluster within one class) kept as the map it was
/// counted in ([`OneRow`]: four bytes a cluster key, where a [`Table`] takes 32 a
/// cluster), or, for all singletons counted for their measures only, as its rows alone.
/// A map's [`Table`] is built the first time it is asked for. Every measure is computed
/// from any form.
#[derive(Debug)]
pub enum Counted {
    Table(Table),
    OneRow(OneRow, OnceLock<Option<Table>>),
}

impl Counted {
    /// The table as a [`Table`] (built from the map the first time, for a [`OneRow`]);
    /// `None` for singletons counted for their measures only.
    pub fn table(&self) -> Option<&Table> {
        match self {
            Counted::Table(t) => Some(t),
            Counted::OneRow(o, full) => full.get_or_init(|| o.table()).as_ref(),
        }
    }

    /// The [`Table`], taken; `None` for singletons counted for their measures only.
    pub fn into_table(self) -> Option<Table> {
        match self {
            Counted::Table(t) => Some(t),
            Counted::OneRow(o, full) => full.into_inner().unwrap_or_else(|| o.table()),
        }
    }

    /// Number of samples.
    pub fn n(&self) -> u64 {
        match self {
            Counted::Table(t) => t.n,
            Counted::OneRow(o, _) => o.n(),
        }
    }

    pub fn n_rows(&self) -> usize {
        match self {
            Counted::Table(t) => t.n_rows(),
            Counted::OneRow(o, _) => o.n_rows(),
        }
    }

    pub fn n_cols(&self) -> usize {
        match self {
            Counted::Table(t) => t.n_cols(),
            Counted::OneRow(o, _) => o.n_cols(),
        }
    }

    /// Number of non-zero cells.
    pub fn nnz(&self) -> usize {
        match self {
            Counted::Table(t) => t.cell_count.len(),
            Counted::OneRow(o, _) => o.n_cols(),
        }
    }

    /// The rows' keys.
    pub fn rows(&self) -> &Keys {
        match self {
            Counted::Table(t) => &t.rows,
            Counted::OneRow(o, _) => o.rows(),
        }
    }

    pub fn row_sums(&self) -> &[u64] {
        match self {
            Counted::Table(t) => &t.row_sums,
            Counted::OneRow(o, _) => o.row_sums(),
        }
    }

    /// See [`scores::pair_sums`].
    pub fn pair_sums(&self) -> PairSums {
        match self {
            Counted::Table(t) => scores::pair_sums(t),
            Counted::OneRow(o, _) => scores::one_row::pair_sums(o),
        }
    }

    /// The [`scores::entropy`] of the rows.
    pub fn entropy_rows(&self) -> f64 {
        scores::entropy(self.row_sums())
    }

    /// The [`scores::entropy`] of the columns.
    pub fn entropy_cols(&self) -> f64 {
        match self {
            Counted::Table(t) => scores::entropy(&t.col_sums),
            Counted::OneRow(o, _) => scores::one_row::entropy_cols(o),
        }
    }

    /// See [`scores::mutual_info`].
    pub fn mutual_info(&self) -> f64 {
        match self {
            Counted::Table(t) => scores::mutual_info(t),
            Counted::OneRow(o, _) => scores::one_row::mutual_info(o),
        }
    }

    /// See [`scores::expected_mutual_info`].
    pub fn expected_mutual_info(&self) -> f64 {
        match self {
            Counted::Table(t) => scores::expected_mutual_info(t),
            Counted::OneRow(o, _) => scores::one_row::expected_mutual_info(o),
        }
    }

    /// See [`scores::ami_parts`].
    pub fn ami_parts(&self) -> AmiParts {
        match self {
            Counted::Table(t) => scores::ami_parts(t),
            Counted::OneRow(o, _) => scores::one_row::ami_parts(o),
        }
    }

    /// See [`scores::purity`].
    pub fn purity(&self) -> f64 {
        match self {
            Counted::Table(t) => scores::purity(t),
            // Each cluster's majority is all of it.
            Counted::OneRow(..) => 1.0,
        }
    }
}
