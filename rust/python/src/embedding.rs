//! Where an embedding's measures are called: the silhouette (from the samples, or from a
//! matrix of distances) and the Calinski-Harabasz and Davies-Bouldin indices.

use fastcluster_metrics_core::embedding::{self as emb, Between, Metric, Points};
use numpy::PyUntypedArrayMethods;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::CoreError;
use crate::interrupt::{interruptible, LONG};
use crate::labels::typed_arrays;

typed_arrays! {
    /// A C-contiguous 2-D float array: an embedding (a sample per row) or a matrix of
    /// distances.
    enum Floats: Ix2, "a 2-D array of float32 or float64" {
        F32(f32), F64(f64),
    }
}

/// The array's values as the core takes them, and its shape.
fn points<'a>(x: &'a Floats<'_>) -> PyResult<(Points<'a>, usize, usize)> {
    Ok(match x {
        Floats::F32(a) => (Points::F32(a.as_slice()?), a.shape()[0], a.shape()[1]),
        Floats::F64(a) => (Points::F64(a.as_slice()?), a.shape()[0], a.shape()[1]),
    })
}

/// The labelings' codes (`m × n`), checked against `n` samples and `m` label counts.
fn labelings<'a>(
    codes: &'a PyReadonlyArray2<'_, i64>,
    n: usize,
    n_labels: &[usize],
) -> PyResult<&'a [i64]> {
    let shape = codes.shape();
    if shape[0] != n_labels.len() || shape[1] != n {
        return Err(PyValueError::new_err(format!(
            "codes of shape ({}, {}) for {} labelings of {n} samples",
            shape[0],
            shape[1],
            n_labels.len()
        )));
    }
    Ok(codes.as_slice()?)
}

/// The silhouettes (`m × n`) as a numpy array.
fn as_array<'py>(
    py: Python<'py>,
    values: Vec<f64>,
    m: usize,
    n: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    PyArray1::from_vec(py, values).reshape([m, n])
}

/// The silhouette's distance to the other clusters of scib-metrics' name for it.
fn between_of(name: &str) -> PyResult<Between> {
    Between::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown between-cluster distance {name:?}")))
}

/// Each sample's silhouette in each labeling (`m × n`), from the samples `x` (`n × d`)
/// under `metric`, `between` taking the distance to the other clusters (GIL released).
/// `rows = (start, stop)`: the silhouettes of those samples alone (`m × (stop - start)`),
/// against all, to the last bit as the whole gives them.
#[pyfunction]
#[pyo3(signature = (x, codes, n_labels, metric, between = "nearest", rows = None))]
pub(crate) fn silhouette_samples<'py>(
    py: Python<'py>,
    x: Floats<'py>,
    codes: PyReadonlyArray2<'py, i64>,
    n_labels: Vec<usize>,
    metric: &str,
    between: &str,
    rows: Option<(usize, usize)>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let metric = Metric::from_name(metric)
        .ok_or_else(|| PyValueError::new_err(format!("unknown metric {metric:?}")))?;
    let between = between_of(between)?;
    let (values, n, d) = points(&x)?;
    let codes = labelings(&codes, n, &n_labels)?;
    let (start, stop) = rows.unwrap_or((0, n));
    if start > stop || stop > n {
        return Err(PyValueError::new_err(format!(
            "rows ({start}, {stop}) outside the {n} samples"
        )));
    }
    let ktot: usize = n_labels.iter().sum();
    let cost = match metric {
        Metric::Euclidean | Metric::Manhattan => n.saturating_mul(stop - start),
        Metric::SqEuclidean | Metric::Cosine => n.saturating_mul(d).saturating_mul(ktot),
    };
    let out = interruptible(py, cost >= LONG, || {
        emb::silhouette_rows(values, n, d, codes, &n_labels, metric, between, start..stop)
    })?
    .map_err(CoreError::from)?;
    as_array(py, out, n_labels.len(), stop - start)
}

/// Each sample's silhouette in each labeling (`m × n`), from the `n × n` matrix of
/// distances `d`, `between` taking the distance to the other clusters (GIL released).
#[pyfunction]
#[pyo3(signature = (d, codes, n_labels, between = "nearest"))]
pub(crate) fn silhouette_precomputed<'py>(
    py: Python<'py>,
    d: Floats<'py>,
    codes: PyReadonlyArray2<'py, i64>,
    n_labels: Vec<usize>,
    between: &str,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let between = between_of(between)?;
    let (values, n, cols) = points(&d)?;
    if cols != n {
        return Err(PyValueError::new_err(format!(
            "a matrix of distances must be square, not of shape ({n}, {cols})"
        )));
    }
    let codes = labelings(&codes, n, &n_labels)?;
    let out = interruptible(py, n.saturating_mul(n) >= LONG, || {
        emb::silhouette_precomputed(values, n, codes, &n_labels, between)
    })?
    .map_err(CoreError::from)?;
    as_array(py, out, n_labels.len(), n)
}

/// The samples `x` (`n × d`) and their one labeling's codes (`n`), checked.
fn one_labeling<'a>(
    x: &'a Floats<'_>,
    codes: &'a PyReadonlyArray1<'_, i64>,
) -> PyResult<(Points<'a>, usize, usize, &'a [i64])> {
    let (values, n, d) = points(x)?;
    let codes = codes.as_slice()?;
    if codes.len() != n {
        return Err(PyValueError::new_err(format!(
            "Found input variables with inconsistent numbers of samples: [{n}, {}]",
            codes.len()
        )));
    }
    Ok((values, n, d, codes))
}

/// scikit-learn's `calinski_harabasz_score` (GIL released).
#[pyfunction]
pub(crate) fn calinski_harabasz(
    py: Python<'_>,
    x: Floats<'_>,
    codes: PyReadonlyArray1<'_, i64>,
    n_labels: usize,
) -> PyResult<f64> {
    let (values, n, d, codes) = one_labeling(&x, &codes)?;
    Ok(interruptible(py, n.saturating_mul(d) >= LONG, || {
        emb::calinski_harabasz(values, n, d, codes, n_labels)
    })?
    .map_err(CoreError::from)?)
}

/// scikit-learn's `davies_bouldin_score` (GIL released).
#[pyfunction]
pub(crate) fn davies_bouldin(
    py: Python<'_>,
    x: Floats<'_>,
    codes: PyReadonlyArray1<'_, i64>,
    n_labels: usize,
) -> PyResult<f64> {
    let (values, n, d, codes) = one_labeling(&x, &codes)?;
    Ok(interruptible(py, n.saturating_mul(d) >= LONG, || {
        emb::davies_bouldin(values, n, d, codes, n_labels)
    })?
    .map_err(CoreError::from)?)
}
