//! The dendrograms' functions: the sums of every cut of one dendrogram against a labeling,
//! and of the tables of two dendrograms' cuts, each sum an array.

use fastcluster_metrics_core as fcm;
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::CoreError;
use crate::interrupt::{interruptible, LONG};

/// What the arrays of a dendrogram's cuts build, when refused.
const CUT_SUMS: &str = "the sums of a dendrogram's cuts";

/// One value of each cut, as an array.
fn cut_values<'py, C, T: numpy::Element>(
    py: Python<'py>,
    cuts: &[C],
    f: impl Fn(&C) -> T,
) -> PyResult<Bound<'py, PyArray1<T>>> {
    let values = fcm::collected(cuts.iter().map(f), CUT_SUMS).map_err(CoreError::from)?;
    Ok(PyArray1::from_vec(py, values))
}

/// One count of each cut as uint64: an error past 2**64 - 1.
fn cut_sums<'py, C>(
    py: Python<'py>,
    cuts: &[C],
    f: impl Fn(&C) -> u128,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    if cuts.iter().any(|c| f(c) > u128::from(u64::MAX)) {
        return Err(PyValueError::new_err("a sum of squares past 2**64 - 1"));
    }
    cut_values(py, cuts, |c| f(c) as u64)
}

/// The sums of a dendrogram's cuts ([`fcm::dendrogram_cuts`]), one array per sum, by name:
/// the counts as uint64 (a sum of squares past 2**64 - 1 is an error), the rest float64.
#[pyfunction]
pub(crate) fn dendrogram_cuts<'py>(
    py: Python<'py>,
    classes: PyReadonlyArray1<'py, u32>,
    n_classes: usize,
    merges: PyReadonlyArray2<'py, u64>,
    order: PyReadonlyArray1<'py, u64>,
    record: PyReadonlyArray1<'py, u64>,
    emi: bool,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    const WHAT: &str = "a dendrogram's merges";
    let classes = classes.as_slice()?;
    let pairs = fcm::collected(
        merges.as_slice()?.chunks_exact(2).map(|p| (p[0], p[1])),
        WHAT,
    )
    .map_err(CoreError::from)?;
    let index = |xs: &[u64]| -> PyResult<Vec<usize>> {
        let items = xs.iter().map(|&x| usize::try_from(x).unwrap_or(usize::MAX));
        Ok(fcm::collected(items, WHAT).map_err(CoreError::from)?)
    };
    let (order, record) = (index(order.as_slice()?)?, index(record.as_slice()?)?);
    let long = classes.len() >= LONG / 16;
    let cuts = interruptible(py, long, || {
        fcm::dendrogram_cuts(classes, n_classes, &pairs, &order, &record, emi)
    })?
    .map_err(CoreError::from)?;
    let wide = |f: fn(&fcm::CutSums) -> u128| cut_sums(py, &cuts, f);
    let ints = |f: fn(&fcm::CutSums) -> u64| cut_values(py, &cuts, f);
    let floats = |f: fn(&fcm::CutSums) -> f64| cut_values(py, &cuts, f);
    let out = pyo3::types::PyDict::new(py);
    out.set_item("merges", ints(|c| c.merges as u64)?)?;
    out.set_item("clusters", ints(|c| c.clusters)?)?;
    out.set_item("nnz", ints(|c| c.nnz)?)?;
    out.set_item("majority", ints(|c| c.majority)?)?;
    out.set_item("best_cluster", ints(|c| c.best_cluster)?)?;
    out.set_item("cells_sq", wide(|c| c.cells_sq)?)?;
    out.set_item("cols_sq", wide(|c| c.cols_sq)?)?;
    out.set_item("cells_xlnx", floats(|c| c.cells_xlnx)?)?;
    out.set_item("cols_xlnx", floats(|c| c.cols_xlnx)?)?;
    out.set_item("emi", floats(|c| c.emi)?)?;
    Ok(out)
}

/// The sums of the tables of two dendrograms' cuts ([`fcm::dendrogram_pair_cuts`]), one
/// array per sum, by name: the counts and sums of squares as uint64 (past 2**64 - 1 is an
/// error), the sums of cubes and of `x ln x` as float64.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dendrogram_pair_cuts<'py>(
    py: Python<'py>,
    n: usize,
    merges1: PyReadonlyArray2<'py, u64>,
    order1: PyReadonlyArray1<'py, u64>,
    merges2: PyReadonlyArray2<'py, u64>,
    order2: PyReadonlyArray1<'py, u64>,
    steps1: PyReadonlyArray1<'py, u64>,
    steps2: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    const WHAT: &str = "a dendrogram's merges";
    let pairs = |z: &PyReadonlyArray2<'py, u64>| -> PyResult<Vec<(u64, u64)>> {
        let items = z.as_slice()?.chunks_exact(2).map(|p| (p[0], p[1]));
        Ok(fcm::collected(items, WHAT).map_err(CoreError::from)?)
    };
    let index = |xs: &PyReadonlyArray1<'py, u64>| -> PyResult<Vec<usize>> {
        let items = xs.as_slice()?.iter();
        let items = items.map(|&x| usize::try_from(x).unwrap_or(usize::MAX));
        Ok(fcm::collected(items, WHAT).map_err(CoreError::from)?)
    };
    if steps1.len() != steps2.len() {
        return Err(PyValueError::new_err("steps1 and steps2 differ in length"));
    }
    let (z1, z2) = (pairs(&merges1)?, pairs(&merges2)?);
    let (o1, o2) = (index(&order1)?, index(&order2)?);
    let (s1, s2) = (index(&steps1)?, index(&steps2)?);
    let steps = fcm::collected(s1.into_iter().zip(s2), WHAT).map_err(CoreError::from)?;
    let cuts = interruptible(py, n >= LONG / 16, || {
        fcm::dendrogram_pair_cuts(n, (&z1, &o1), (&z2, &o2), &steps)
    })?
    .map_err(CoreError::from)?;
    let wide = |f: fn(&fcm::PairCutSums) -> u128| cut_sums(py, &cuts, f);
    let floats = |f: fn(&fcm::PairCutSums) -> f64| cut_values(py, &cuts, f);
    let out = pyo3::types::PyDict::new(py);
    out.set_item("merges1", wide(|c| c.merges.0 as u128)?)?;
    out.set_item("merges2", wide(|c| c.merges.1 as u128)?)?;
    out.set_item("nnz", wide(|c| u128::from(c.nnz))?)?;
    out.set_item("cells_sq", wide(|c| c.cells_sq)?)?;
    out.set_item("rows_sq", wide(|c| c.rows_sq)?)?;
    out.set_item("cols_sq", wide(|c| c.cols_sq)?)?;
    out.set_item("rows_cubed", floats(|c| c.rows_cubed as f64)?)?;
    out.set_item("cols_cubed", floats(|c| c.cols_cubed as f64)?)?;
    out.set_item("cells_xlnx", floats(|c| c.cells_xlnx)?)?;
    out.set_item("rows_xlnx", floats(|c| c.rows_xlnx)?)?;
    out.set_item("cols_xlnx", floats(|c| c.cols_xlnx)?)?;
    Ok(out)
}
