//! Where labels are counted into tables: the `count*` functions, one generic function per
//! kind of input and a `match` over the label arrays' dtypes.

use fastcluster_metrics_core::{self as fcm, Label};
use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::CoreError;
use crate::interrupt::{interruptible, LONG};
use crate::labels::{typed_arrays, with_slice, Labels, Matrix};
use crate::table::Table;

fn count_matrix<A: Label, B: Label + numpy::Element>(
    py: Python<'_>,
    a: &[A],
    b: &PyReadonlyArray2<'_, B>,
) -> PyResult<Vec<fcm::Table>> {
    let width = b.shape()[1];
    let b = b.as_slice()?;
    let long = b.len() >= LONG;
    Ok(interruptible(py, long, || fcm::count_columns(a, b, width))?.map_err(CoreError::from)?)
}

fn count_against_matrix<A: Label>(
    py: Python<'_>,
    a: &[A],
    m: &Matrix<'_>,
) -> PyResult<Vec<fcm::Table>> {
    match m {
        Matrix::I64(b) => count_matrix(py, a, b),
        Matrix::I32(b) => count_matrix(py, a, b),
        Matrix::I16(b) => count_matrix(py, a, b),
        Matrix::I8(b) => count_matrix(py, a, b),
        Matrix::U64(b) => count_matrix(py, a, b),
        Matrix::U32(b) => count_matrix(py, a, b),
        Matrix::U16(b) => count_matrix(py, a, b),
        Matrix::U8(b) => count_matrix(py, a, b),
    }
}

/// The tables of one labeling against every column of a C-contiguous 2-D array,
/// in one pass over both (GIL released).
#[pyfunction]
pub(crate) fn count_columns(
    py: Python<'_>,
    labels_true: Labels<'_>,
    labels_pred: Matrix<'_>,
) -> PyResult<Vec<Table>> {
    let tables = with_slice!(&labels_true, |a| count_against_matrix(py, a, &labels_pred))?;
    Ok(tables.into_iter().map(Table::of).collect())
}

fn count_against<A: Label>(
    py: Python<'_>,
    a: &[A],
    b: &Labels<'_>,
    keep: fcm::Keep,
) -> PyResult<fcm::Counted> {
    let long = a.len() >= LONG;
    with_slice!(b, |b| Ok(interruptible(py, long, || fcm::count_compact(
        a, b, keep
    ))?
    .map_err(CoreError::from)?))
}

/// The contingency table of two labelings, in one pass over them (GIL released). With
/// `cells=False` its cells (and cluster keys and sizes) may be left out, for a table
/// whose measures alone are wanted; with `margins=True` too, for measures of its margins
/// and sums of squares alone (a wide table's cells are then counted only if asked for).
#[pyfunction]
#[pyo3(signature = (labels_true, labels_pred, cells = true, margins = false))]
pub(crate) fn count(
    py: Python<'_>,
    labels_true: Labels<'_>,
    labels_pred: Labels<'_>,
    cells: bool,
    margins: bool,
) -> PyResult<Table> {
    let keep = match (cells, margins) {
        (true, _) => fcm::Keep::Cells,
        (false, false) => fcm::Keep::Measures,
        (false, true) => fcm::Keep::Margins,
    };
    let inner = with_slice!(&labels_true, |a| count_against(py, a, &labels_pred, keep))?;
    Ok(Table::counted(inner))
}

typed_arrays! {
    /// Sample weights (the core refuses negative, non-finite and huge ones).
    enum Weights: Ix1, "a 1-D array of float64, int64 or uint64 weights" {
        F64(f64), I64(i64), U64(u64),
    }
}

fn count_weighted_as<A: Label>(
    py: Python<'_>,
    a: &[A],
    b: &Labels<'_>,
    w: fcm::Weights<'_>,
) -> PyResult<fcm::Weighted> {
    let long = a.len() >= LONG;
    with_slice!(b, |b| Ok(interruptible(py, long, || fcm::count_weighted(
        a, b, w
    ))?
    .map_err(CoreError::from)?))
}

/// What the weighted sums handed to Python are, if their memory is refused.
const WEIGHTED_SUMS: &str = "the weighted sums of a table";

/// Units of 2**-64 as the nearest float.
fn unit_values(units: &[u128]) -> Result<Vec<f64>, fcm::Error> {
    let scale = 2f64.powi(-(fcm::UNIT_BITS as i32));
    fcm::collected(units.iter().map(|&u| u as f64 * scale), WEIGHTED_SUMS)
}

type Sums<'py> = (
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<f64>>,
    f64,
    Bound<'py, PyArray1<u64>>,
);

/// The table of two labelings whose cells sum their samples' weights, in one pass over
/// the labels and the weights (GIL released). Returns the table and None when every
/// weight is a whole number (the table's counts are then the sums); otherwise a table
/// whose counts are placeholders (1) and the sums: each cell's in units of 2**-64 (high
/// and low 64 bits), as floats the cells', the rows', the columns' and the total, and
/// each row's sum of squared weights in units of 2**-128 (four 64-bit limbs per row,
/// least significant first).
#[pyfunction]
pub(crate) fn count_weighted<'py>(
    py: Python<'py>,
    labels_true: Labels<'_>,
    labels_pred: Labels<'_>,
    weights: Weights<'_>,
) -> PyResult<(Table, Option<Sums<'py>>)> {
    let w = match &weights {
        Weights::F64(x) => fcm::Weights::F64(x.as_slice()?),
        Weights::I64(x) => fcm::Weights::I64(x.as_slice()?),
        Weights::U64(x) => fcm::Weights::U64(x.as_slice()?),
    };
    let weighted = with_slice!(&labels_true, |a| count_weighted_as(py, a, &labels_pred, w))?;
    let parts = weighted.units.as_ref().zip(weighted.squares.as_ref());
    let sums = parts.map(|(units, squares)| -> Result<Sums<'py>, fcm::Error> {
        let (rows, cols) = weighted.margins(units)?;
        let total: u128 = rows.iter().sum();
        let half =
            |shift: u32| fcm::collected(units.iter().map(|&u| (u >> shift) as u64), WEIGHTED_SUMS);
        let limbs = (0..squares.len() * 4).map(|i| squares[i / 4][i % 4]);
        Ok((
            PyArray1::from_vec(py, half(64)?),
            PyArray1::from_vec(py, half(0)?),
            PyArray1::from_vec(py, unit_values(units)?),
            PyArray1::from_vec(py, unit_values(&rows)?),
            PyArray1::from_vec(py, unit_values(&cols)?),
            total as f64 * 2f64.powi(-(fcm::UNIT_BITS as i32)),
            PyArray1::from_vec(py, fcm::collected(limbs, WEIGHTED_SUMS)?),
        ))
    });
    let sums = sums.transpose().map_err(CoreError::from)?;
    Ok((Table::of(weighted.table), sums))
}

/// The one-column table of a single labeling (its class sizes), reading only that labeling.
#[pyfunction]
pub(crate) fn count_one(py: Python<'_>, labels: Labels<'_>) -> PyResult<Table> {
    let inner = with_slice!(&labels, |a| interruptible(py, a.len() >= LONG, || {
        fcm::count_one(a)
    })?
    .map_err(CoreError::from))?;
    Ok(Table::of(inner))
}
