//! The `Table` class: a contingency table counted in Rust, and its measures, each computed
//! with the GIL released; and `table_from_cells`, a table given by its cells.

use fastcluster_metrics_core::{self as fcm, KeyKind, Label};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::CoreError;
use crate::interrupt::{interruptible, LONG};
use crate::labels::{with_slice, Labels};

fn gather_against<A: Label>(
    py: Python<'_>,
    table: &fcm::Table,
    a: &[A],
    b: &Labels<'_>,
    values: &[f64],
    absent: Option<f64>,
) -> PyResult<Vec<f64>> {
    let long = a.len() >= LONG;
    with_slice!(b, |b| Ok(interruptible(py, long, || fcm::gather(
        table, a, b, values, absent
    ))?
    .map_err(CoreError::from)?))
}

/// A sparse contingency table: rows are the classes of `labels_true`, columns
/// the clusters of `labels_pred`, both in sorted label order.
#[pyclass(frozen, module = "fastcluster_metrics._native")]
pub(crate) struct Table {
    inner: fcm::Counted,
}

impl Table {
    pub(crate) fn counted(inner: fcm::Counted) -> Table {
        Table { inner }
    }

    pub(crate) fn of(table: fcm::Table) -> Table {
        Table::counted(fcm::Counted::Table(table))
    }

    /// Whether its measures may take long (then they run watched, [`interruptible`]): a
    /// table with many rows and columns (the expected mutual information goes over the
    /// pairs of their sizes) or cells.
    fn long(&self) -> bool {
        let (r, c) = (self.inner.n_rows(), self.inner.n_cols());
        r.saturating_mul(c) >= 1 << 12 || self.inner.nnz() >= LONG
    }

    /// The table as a [`fcm::Table`] (built the first time, from a compact form, with
    /// the GIL released); an error for a table counted for its measures only.
    fn full(&self, py: Python<'_>) -> PyResult<&fcm::Table> {
        py.detach(|| self.inner.try_table())
            .map_err(CoreError::from)?
            .ok_or_else(|| {
                PyValueError::new_err(
                    "this table was counted for its measures only: it has no cells",
                )
            })
    }

    /// Builds what its measures read (with `cells`, the measures of its cells), with the
    /// GIL released: a `MemoryError` if the system refuses the memory, which the
    /// measures' own reads would not survive ([`fcm::Counted::ready`]).
    fn ready(&self, py: Python<'_>, cells: bool) -> PyResult<&fcm::Counted> {
        py.detach(|| self.inner.ready(cells))
            .map_err(CoreError::from)?;
        Ok(&self.inner)
    }
}

/// `data` copied into a new NumPy array, the copy made fallibly (NumPy's own allocation,
/// as `PyArray1::from_slice` makes it, panics when refused).
fn array_of<'py, T: numpy::Element + Copy>(
    py: Python<'py>,
    data: &[T],
) -> PyResult<Bound<'py, PyArray1<T>>> {
    let copy = fcm::copied(data, "a copy of a table's array").map_err(CoreError::from)?;
    Ok(PyArray1::from_vec(py, copy))
}

fn keys_array<'py>(py: Python<'py>, keys: &fcm::Keys) -> PyResult<Bound<'py, PyAny>> {
    Ok(match keys.kind {
        KeyKind::Signed => {
            let values = keys.signed_values().map_err(CoreError::from)?;
            PyArray1::from_vec(py, values).into_any()
        }
        KeyKind::Unsigned => array_of(py, &keys.keys)?.into_any(),
    })
}

#[pymethods]
impl Table {
    /// Number of samples.
    #[getter]
    fn n(&self) -> u64 {
        self.inner.n()
    }

    /// (number of classes, number of clusters).
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.inner.n_rows(), self.inner.n_cols())
    }

    /// Number of non-zero cells.
    #[getter]
    fn nnz(&self) -> usize {
        self.inner.nnz()
    }

    /// Whether it holds its cells: not for all singletons counted without them, nor for a
    /// wide table counted for its pair counts alone (``count(..., margins=True)``) until a
    /// measure of its cells asks for them.
    #[getter]
    fn holds_cells(&self) -> bool {
        self.inner.holds_cells()
    }

    /// The sorted class labels (int64 or uint64).
    fn row_keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        keys_array(py, self.ready(py, false)?.rows())
    }

    /// The sorted cluster labels (int64 or uint64).
    fn col_keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        keys_array(py, &self.full(py)?.cols)
    }

    fn row_sums<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        array_of(py, self.ready(py, false)?.row_sums())
    }

    fn col_sums<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        array_of(py, &self.full(py)?.col_sums)
    }

    /// The value of each sample's cell: `values` holds one per cell (in the order of
    /// [`Table::cells`]), the labels are those the table was counted from; a sample in no
    /// cell gets `absent` (an error where it is None).
    #[pyo3(signature = (labels_true, labels_pred, values, absent = None))]
    fn gather<'py>(
        &self,
        py: Python<'py>,
        labels_true: Labels<'_>,
        labels_pred: Labels<'_>,
        values: PyReadonlyArray1<'_, f64>,
        absent: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let table = self.full(py)?;
        let values = values.as_slice()?;
        let out = with_slice!(&labels_true, |a| gather_against(
            py,
            table,
            a,
            &labels_pred,
            values,
            absent
        ))?;
        Ok(PyArray1::from_vec(py, out))
    }

    /// The non-zero cells as (row indices, column indices, counts), row-major.
    #[allow(clippy::type_complexity)]
    fn cells<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<u64>>,
    )> {
        let t = self.full(py)?;
        Ok((
            array_of(py, &t.cell_row)?,
            array_of(py, &t.cell_col)?,
            array_of(py, &t.cell_count)?,
        ))
    }

    /// (n, Σ n_ij², Σ a_i², Σ b_j²) as exact Python integers.
    fn pair_sums(&self) -> (u128, u128, u128, u128) {
        let s = self.inner.pair_sums();
        (s.n, s.cells_sq, s.rows_sq, s.cols_sq)
    }

    fn entropy_rows(&self, py: Python<'_>) -> PyResult<f64> {
        Ok(self.ready(py, false)?.entropy_rows())
    }

    fn entropy_cols(&self, py: Python<'_>) -> PyResult<f64> {
        let counted = self.ready(py, false)?;
        Ok(interruptible(py, self.long(), || counted.entropy_cols())?.map_err(CoreError::from)?)
    }

    fn mutual_info(&self, py: Python<'_>) -> PyResult<f64> {
        let counted = self.ready(py, true)?;
        Ok(interruptible(py, self.long(), || counted.mutual_info())?.map_err(CoreError::from)?)
    }

    fn expected_mutual_info(&self, py: Python<'_>) -> PyResult<f64> {
        let counted = self.ready(py, false)?;
        let emi = interruptible(py, self.long(), || counted.expected_mutual_info())?;
        Ok(emi.map_err(CoreError::from)?)
    }

    /// (mutual information, its expected value, entropy of the rows, of the columns),
    /// computed side by side.
    fn ami_parts(&self, py: Python<'_>) -> PyResult<(f64, f64, f64, f64)> {
        let counted = self.ready(py, true)?;
        let p = interruptible(py, self.long(), || counted.ami_parts())?.map_err(CoreError::from)?;
        Ok((p.mutual_info, p.expected, p.entropy_rows, p.entropy_cols))
    }

    fn purity(&self, py: Python<'_>) -> PyResult<f64> {
        Ok(self.ready(py, true)?.purity().map_err(CoreError::from)?)
    }

    /// What a random model (clusim's name) expects of a table with these margins: (the
    /// probability that two items share a class, a cluster; whether each side is drawn;
    /// the expected mutual information when `emi`, else None).
    fn model_parts(
        &self,
        py: Python<'_>,
        model: &str,
        emi: bool,
    ) -> PyResult<(f64, f64, bool, bool, Option<f64>)> {
        let model = fcm::RandomModel::from_name(model).ok_or_else(|| {
            PyValueError::new_err(format!(
                "random_model must be one of {:?}: got {model:?}",
                fcm::RandomModel::NAMES
            ))
        })?;
        // Random sides have many sizes (thousands at a million samples): watched.
        let long = self.long() || self.inner.n() >= 1 << 16;
        let counted = self.ready(py, false)?;
        let p = interruptible(py, long, || counted.model_parts(model, emi))?
            .map_err(CoreError::from)?;
        Ok((
            p.pair_rows,
            p.pair_cols,
            p.random_rows,
            p.random_cols,
            p.expected_mi,
        ))
    }

    /// The variance of the mutual information (nats) when one labeling is permuted at
    /// random: 0.0 where every permutation gives the same value.
    fn mutual_info_variance(&self, py: Python<'_>) -> PyResult<f64> {
        // Seconds past a billion samples (whole weights): watched.
        let long = self.long() || self.inner.n() >= 1 << 12;
        let counted = self.ready(py, false)?;
        Ok(interruptible(py, long, || counted.mutual_info_variance())?.map_err(CoreError::from)?)
    }

    /// The reduced mutual informations (bits) of the table, its transpose, the columns with
    /// themselves and the rows with themselves: Dirichlet-multinomial, or flat with `flat`.
    fn reduced_parts(&self, py: Python<'_>, flat: bool) -> PyResult<(f64, f64, f64, f64)> {
        let t = self.full(py)?;
        let p = py
            .detach(|| fcm::scores::reduced_parts(t, flat))
            .map_err(CoreError::from)?;
        Ok((
            p.truth_given_pred,
            p.pred_given_truth,
            p.pred_self,
            p.truth_self,
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "Table(n={}, shape=({}, {}), nnz={})",
            self.inner.n(),
            self.inner.n_rows(),
            self.inner.n_cols(),
            self.inner.nnz()
        )
    }
}

/// A table given by its shape and cells (repeated cells add; zeros are dropped).
#[pyfunction]
pub(crate) fn table_from_cells(
    py: Python<'_>,
    n_rows: usize,
    n_cols: usize,
    rows: PyReadonlyArray1<'_, i64>,
    cols: PyReadonlyArray1<'_, i64>,
    counts: PyReadonlyArray1<'_, i64>,
) -> PyResult<Table> {
    let (r, c, v) = (rows.as_slice()?, cols.as_slice()?, counts.as_slice()?);
    let inner = interruptible(py, r.len() >= LONG, || {
        fcm::Table::from_cells(n_rows, n_cols, r, c, v)
    })?
    .map_err(CoreError::from)?;
    Ok(Table::of(inner))
}
