//! A counted table in whichever form its count left it, and what every form answers.

use std::sync::OnceLock;

use crate::alloc;
use crate::emi::size_counts;
use crate::error::Error;
use crate::models::{model_parts, ModelParts, RandomModel};
use crate::one_row::{Compact, OneRow, Singletons};
use crate::partitioned::Partitioned;
use crate::scores::{self, AmiParts, PairSums};
use crate::table::{Keys, Table};

/// What every form of a counted table answers: its shape and sums, and every measure.
pub trait Measures {
    /// Number of samples.
    fn n(&self) -> u64;
    fn n_rows(&self) -> usize;
    fn n_cols(&self) -> usize;
    /// Number of non-zero cells.
    fn nnz(&self) -> usize;
    /// The rows' keys.
    fn rows(&self) -> &Keys;
    fn row_sums(&self) -> &[u64];
    /// See [`scores::pair_sums`].
    fn pair_sums(&self) -> PairSums;
    /// The [`scores::entropy`] of the rows.
    fn entropy_rows(&self) -> f64 {
        scores::entropy(self.row_sums())
    }
    /// The [`scores::entropy`] of the columns.
    fn entropy_cols(&self) -> Result<f64, Error>;
    /// See [`scores::mutual_info`].
    fn mutual_info(&self) -> Result<f64, Error>;
    /// See [`scores::expected_mutual_info`].
    fn expected_mutual_info(&self) -> Result<f64, Error>;
    /// See [`scores::ami_parts`].
    fn ami_parts(&self) -> Result<AmiParts, Error>;
    /// See [`scores::purity`].
    fn purity(&self) -> Result<f64, Error>;
    /// The columns' distinct sizes, each with its number of columns.
    fn col_sizes(&self) -> Result<Vec<(u64, u64)>, Error>;
}

impl Measures for Table {
    fn n(&self) -> u64 {
        self.n
    }

    fn n_rows(&self) -> usize {
        Table::n_rows(self)
    }

    fn n_cols(&self) -> usize {
        Table::n_cols(self)
    }

    fn nnz(&self) -> usize {
        self.cell_count.len()
    }

    fn rows(&self) -> &Keys {
        &self.rows
    }

    fn row_sums(&self) -> &[u64] {
        &self.row_sums
    }

    fn pair_sums(&self) -> PairSums {
        scores::pair_sums(self)
    }

    fn entropy_cols(&self) -> Result<f64, Error> {
        Ok(scores::entropy(&self.col_sums))
    }

    fn mutual_info(&self) -> Result<f64, Error> {
        scores::mutual_info(self)
    }

    fn expected_mutual_info(&self) -> Result<f64, Error> {
        scores::expected_mutual_info(self)
    }

    fn ami_parts(&self) -> Result<AmiParts, Error> {
        scores::ami_parts(self)
    }

    fn purity(&self) -> Result<f64, Error> {
        scores::purity(self)
    }

    fn col_sizes(&self) -> Result<Vec<(u64, u64)>, Error> {
        size_counts(&self.col_sums)
    }
}

/// The measures of a compact form ([`OneRow`], [`Singletons`]): its shape from its own
/// methods, its measures from [`Compact`]'s (written once for both forms). Only
/// delegation: one line a method.
macro_rules! compact_measures {
    ($form:ty) => {
        impl Measures for $form {
            fn n(&self) -> u64 {
                <$form>::n(self)
            }

            fn n_rows(&self) -> usize {
                <$form>::n_rows(self)
            }

            fn n_cols(&self) -> usize {
                <$form>::n_cols(self)
            }

            /// One cell a column.
            fn nnz(&self) -> usize {
                <$form>::n_cols(self)
            }

            fn rows(&self) -> &Keys {
                <$form>::rows(self)
            }

            fn row_sums(&self) -> &[u64] {
                <$form>::row_sums(self)
            }

            fn pair_sums(&self) -> PairSums {
                <$form as Compact>::pair_sums(self)
            }

            fn entropy_cols(&self) -> Result<f64, Error> {
                <$form as Compact>::entropy_cols(self)
            }

            fn mutual_info(&self) -> Result<f64, Error> {
                Ok(<$form as Compact>::mutual_info(self))
            }

            fn expected_mutual_info(&self) -> Result<f64, Error> {
                <$form as Compact>::expected_mutual_info(self)
            }

            fn ami_parts(&self) -> Result<AmiParts, Error> {
                <$form as Compact>::ami_parts(self)
            }

            /// Each cluster's majority is all of it.
            fn purity(&self) -> Result<f64, Error> {
                Ok(1.0)
            }

            fn col_sizes(&self) -> Result<Vec<(u64, u64)>, Error> {
                <$form as Compact>::col_sizes(self)
            }
        }
    };
}

compact_measures!(OneRow);
compact_measures!(Singletons);

/// A partitioned table's sums and the measures of its margins from its own methods; the
/// measures that read its cells from its [`Table`] (built the first time).
impl Measures for Partitioned {
    fn n(&self) -> u64 {
        Partitioned::n(self)
    }

    fn n_rows(&self) -> usize {
        Partitioned::n_rows(self)
    }

    fn n_cols(&self) -> usize {
        Partitioned::n_cols(self)
    }

    fn nnz(&self) -> usize {
        Partitioned::nnz(self)
    }

    fn rows(&self) -> &Keys {
        Partitioned::rows(self)
    }

    fn row_sums(&self) -> &[u64] {
        Partitioned::row_sums(self)
    }

    fn pair_sums(&self) -> PairSums {
        Partitioned::pair_sums(self)
    }

    fn entropy_cols(&self) -> Result<f64, Error> {
        Ok(scores::entropy(self.col_sums()))
    }

    fn mutual_info(&self) -> Result<f64, Error> {
        scores::mutual_info(self.try_table()?)
    }

    fn expected_mutual_info(&self) -> Result<f64, Error> {
        Partitioned::expected_mutual_info(self)
    }

    fn ami_parts(&self) -> Result<AmiParts, Error> {
        scores::ami_parts(self.try_table()?)
    }

    fn purity(&self) -> Result<f64, Error> {
        scores::purity(self.try_table()?)
    }

    fn col_sizes(&self) -> Result<Vec<(u64, u64)>, Error> {
        size_counts(self.col_sums())
    }
}

/// A counted table, in the form its count left it. Every measure is computed from any
/// form ([`Measures`]).
#[derive(Debug)]
pub enum Counted {
    /// A [`Table`].
    Table(Table),
    /// A table whose every column has one non-empty row (each cluster within one class),
    /// kept as the map it was counted in ([`OneRow`]: four bytes a cluster key, where a
    /// [`Table`] takes 32 a cluster); its [`Table`] is built the first time it is asked
    /// for.
    OneRow(OneRow, OnceLock<Table>),
    /// All singletons counted for their measures only, kept as their rows alone
    /// ([`Singletons`]): it has no cells.
    Singletons(Singletons),
    /// A table too wide for a window, counted for its measures by partitions of its
    /// cells and kept as counted ([`Partitioned`]: 8 bytes a cell); its [`Table`] is built
    /// the first time it is asked for.
    Partitioned(Partitioned),
}

/// `$f` of the form of `$counted`, as [`Measures`] answers it.
macro_rules! of_form {
    ($counted:expr, $f:ident) => {
        match $counted {
            Counted::Table(t) => Measures::$f(t),
            Counted::OneRow(o, _) => Measures::$f(o),
            Counted::Singletons(s) => Measures::$f(s),
            Counted::Partitioned(p) => Measures::$f(p),
        }
    };
}

impl Counted {
    /// Whether it holds its cells: not all singletons, which have none, nor a wide table
    /// counted for its pair counts alone ([`crate::Keep::Margins`]) until its cells are
    /// first asked for.
    pub fn holds_cells(&self) -> bool {
        match self {
            Counted::Table(_) | Counted::OneRow(..) => true,
            Counted::Singletons(_) => false,
            Counted::Partitioned(p) => p.cells_counted(),
        }
    }

    /// Builds, fallibly, what its measures read and build the first time they are asked
    /// for: a wide table's sides, and with `cells` (for the measures of its cells) its
    /// [`Table`]. Once it has returned `Ok`, they allocate nothing; without it, an
    /// allocation they make that the system refuses aborts the process, as the standard
    /// library's do. A refusal leaves the table as it was.
    pub fn ready(&self, cells: bool) -> Result<(), Error> {
        match self {
            Counted::Partitioned(p) => p.ready(cells),
            _ => Ok(()),
        }
    }

    /// The table as a [`Table`] (built the first time, for a [`OneRow`] or a
    /// [`Partitioned`]); `None` for [`Singletons`], which have no cells.
    pub fn table(&self) -> Option<&Table> {
        alloc::or_abort(self.try_table())
    }

    /// [`Counted::table`], built fallibly: a refusal leaves it to be built by the next
    /// call.
    pub fn try_table(&self) -> Result<Option<&Table>, Error> {
        Ok(match self {
            Counted::Table(t) => Some(t),
            Counted::OneRow(o, full) => Some(alloc::once(full, || o.table())?),
            Counted::Singletons(_) => None,
            Counted::Partitioned(p) => Some(p.try_table()?),
        })
    }

    /// The [`Table`], taken; `None` for [`Singletons`], which have no cells.
    pub fn into_table(self) -> Option<Table> {
        match self {
            Counted::Table(t) => Some(t),
            Counted::OneRow(o, full) => Some(
                full.into_inner()
                    .unwrap_or_else(|| alloc::or_abort(o.table())),
            ),
            Counted::Singletons(_) => None,
            Counted::Partitioned(p) => Some(p.into_table()),
        }
    }

    /// Number of samples.
    pub fn n(&self) -> u64 {
        of_form!(self, n)
    }

    pub fn n_rows(&self) -> usize {
        of_form!(self, n_rows)
    }

    pub fn n_cols(&self) -> usize {
        of_form!(self, n_cols)
    }

    /// Number of non-zero cells.
    pub fn nnz(&self) -> usize {
        of_form!(self, nnz)
    }

    /// The rows' keys.
    pub fn rows(&self) -> &Keys {
        of_form!(self, rows)
    }

    pub fn row_sums(&self) -> &[u64] {
        of_form!(self, row_sums)
    }

    /// See [`scores::pair_sums`].
    pub fn pair_sums(&self) -> PairSums {
        of_form!(self, pair_sums)
    }

    /// The [`scores::entropy`] of the rows.
    pub fn entropy_rows(&self) -> f64 {
        of_form!(self, entropy_rows)
    }

    /// The [`scores::entropy`] of the columns.
    pub fn entropy_cols(&self) -> Result<f64, Error> {
        of_form!(self, entropy_cols)
    }

    /// See [`scores::mutual_info`].
    pub fn mutual_info(&self) -> Result<f64, Error> {
        of_form!(self, mutual_info)
    }

    /// See [`scores::expected_mutual_info`].
    pub fn expected_mutual_info(&self) -> Result<f64, Error> {
        of_form!(self, expected_mutual_info)
    }

    /// See [`scores::ami_parts`].
    pub fn ami_parts(&self) -> Result<AmiParts, Error> {
        of_form!(self, ami_parts)
    }

    /// See [`scores::purity`].
    pub fn purity(&self) -> Result<f64, Error> {
        of_form!(self, purity)
    }

    /// The variance of the mutual information (nats) when one labeling is permuted at
    /// random (the permutation model), for the standardized mutual information; 0.0 where
    /// every permutation gives the same value. See `scores::standardized`.
    pub fn mutual_info_variance(&self) -> Result<f64, Error> {
        let cols = of_form!(self, col_sizes)?;
        scores::mutual_info_variance(&size_counts(self.row_sums())?, &cols, self.n())
    }

    /// What `model` expects of a table with these margins (rows the fixed side of the
    /// one-sided models): see [`model_parts`].
    pub fn model_parts(&self, model: RandomModel, emi: bool) -> Result<ModelParts, Error> {
        let cols = of_form!(self, col_sizes)?;
        model_parts(&size_counts(self.row_sums())?, &cols, self.n(), model, emi)
    }
}
