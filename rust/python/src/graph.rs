//! Where the neighbour graph's measures are called: each cell's LISI, kBET's statistics and
//! p-values, and the connected components within each label. The graph arrives as its two
//! arrays (indices `int32` or `int64`, distances `float32` or `float64`, flat), cut into
//! rows by `k` a row or by `offsets` (a CSR matrix's `indptr`, as `int64`).

use fastcluster_metrics_core as fcm;
use fcm::graph::{Distance, Graph, Index, Rows};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::CoreError;
use crate::interrupt::{interruptible, LONG};
use crate::labels::typed_arrays;

typed_arrays! {
    /// A graph's neighbour indices.
    enum Indices: Ix1, "a 1-D array of int32 or int64 neighbour indices" {
        I32(i32), I64(i64),
    }
}

typed_arrays! {
    /// A graph's distances.
    enum Distances: Ix1, "a 1-D array of float32 or float64 distances" {
        F32(f32), F64(f64),
    }
}

/// A core error as Python sees it; a graph that does not hold together is a plain
/// `ValueError` saying what is wrong.
fn error(e: fcm::Error) -> PyErr {
    match e {
        fcm::Error::BadShape(what) => PyValueError::new_err(what),
        e => CoreError::from(e).into(),
    }
}

/// The rows of `n` cells: `k` a row, or between `offsets`.
fn rows<'a>(
    k: Option<usize>,
    offsets: &'a Option<PyReadonlyArray1<'_, i64>>,
) -> PyResult<Rows<'a>> {
    match (k, offsets) {
        (Some(k), None) => Ok(Rows::Fixed(k)),
        (None, Some(o)) => Ok(Rows::Offsets(o.as_slice()?)),
        _ => Err(PyValueError::new_err("give either k or offsets")),
    }
}

/// What a kernel is asked of one graph.
enum Ask<'a> {
    Lisi {
        codes: &'a [i64],
        n_labels: usize,
        perplexity: f64,
        tol: f64,
    },
    Kbet {
        codes: &'a [i64],
        n_batches: usize,
        with_self: bool,
    },
    Components {
        codes: &'a [i64],
        n_labels: usize,
        strong: bool,
    },
}

enum Answer {
    Floats(Vec<f64>),
    Ints(Vec<i64>),
}

fn answer<I: Index, D: Distance>(
    n: usize,
    rows: Rows<'_>,
    indices: &[I],
    distances: &[D],
    ask: &Ask<'_>,
) -> Result<Answer, fcm::Error> {
    let g = Graph::new(n, rows, indices, distances)?;
    Ok(match *ask {
        Ask::Lisi {
            codes,
            n_labels,
            perplexity,
            tol,
        } => Answer::Floats(fcm::graph::lisi(&g, codes, n_labels, perplexity, tol)?),
        Ask::Kbet {
            codes,
            n_batches,
            with_self,
        } => Answer::Floats(fcm::graph::kbet(&g, codes, n_batches, with_self)?),
        Ask::Components {
            codes,
            n_labels,
            strong,
        } => Answer::Ints(fcm::graph::components(&g, codes, n_labels, strong)?),
    })
}

/// The kernel's answer on the graph's arrays (GIL released, watched for Ctrl-C when long).
fn call(
    py: Python<'_>,
    n: usize,
    k: Option<usize>,
    offsets: Option<PyReadonlyArray1<'_, i64>>,
    indices: Indices<'_>,
    distances: Distances<'_>,
    ask: Ask<'_>,
) -> PyResult<Answer> {
    let rows = rows(k, &offsets)?;
    let out = match (&indices, &distances) {
        (Indices::I32(i), Distances::F32(d)) => {
            let (i, d) = (i.as_slice()?, d.as_slice()?);
            interruptible(py, i.len() >= LONG, || answer(n, rows, i, d, &ask))?
        }
        (Indices::I32(i), Distances::F64(d)) => {
            let (i, d) = (i.as_slice()?, d.as_slice()?);
            interruptible(py, i.len() >= LONG, || answer(n, rows, i, d, &ask))?
        }
        (Indices::I64(i), Distances::F32(d)) => {
            let (i, d) = (i.as_slice()?, d.as_slice()?);
            interruptible(py, i.len() >= LONG, || answer(n, rows, i, d, &ask))?
        }
        (Indices::I64(i), Distances::F64(d)) => {
            let (i, d) = (i.as_slice()?, d.as_slice()?);
            interruptible(py, i.len() >= LONG, || answer(n, rows, i, d, &ask))?
        }
    };
    out.map_err(error)
}

fn floats(a: Answer) -> Vec<f64> {
    match a {
        Answer::Floats(v) => v,
        Answer::Ints(v) => v.into_iter().map(|x| x as f64).collect(),
    }
}

/// Each cell's LISI of the labels `codes` (`0..n_labels`) over the graph.
#[pyfunction]
#[pyo3(signature = (n, k, offsets, indices, distances, codes, n_labels, perplexity, tol))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn graph_lisi<'py>(
    py: Python<'py>,
    n: usize,
    k: Option<usize>,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    indices: Indices<'py>,
    distances: Distances<'py>,
    codes: PyReadonlyArray1<'py, i64>,
    n_labels: usize,
    perplexity: f64,
    tol: f64,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let codes = codes.as_slice()?;
    let ask = Ask::Lisi {
        codes,
        n_labels,
        perplexity,
        tol,
    };
    let out = call(py, n, k, offsets, indices, distances, ask)?;
    Ok(PyArray1::from_vec(py, floats(out)))
}

/// Each cell's kBET statistic and p-value (`n × 2`) of the batches `codes`
/// (`0..n_batches`) over the graph; `with_self` counts each cell among its neighbours
/// where the graph does not hold it.
#[pyfunction]
#[pyo3(signature = (n, k, offsets, indices, distances, codes, n_batches, with_self))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn graph_kbet<'py>(
    py: Python<'py>,
    n: usize,
    k: Option<usize>,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    indices: Indices<'py>,
    distances: Distances<'py>,
    codes: PyReadonlyArray1<'py, i64>,
    n_batches: usize,
    with_self: bool,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let codes = codes.as_slice()?;
    let ask = Ask::Kbet {
        codes,
        n_batches,
        with_self,
    };
    let out = call(py, n, k, offsets, indices, distances, ask)?;
    PyArray1::from_vec(py, floats(out)).reshape([n, 2])
}

/// Each cell's component (the index of one cell of it) within its label (`codes`,
/// `0..n_labels`): weakly or strongly connected.
#[pyfunction]
#[pyo3(signature = (n, k, offsets, indices, distances, codes, n_labels, strong))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn graph_components<'py>(
    py: Python<'py>,
    n: usize,
    k: Option<usize>,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    indices: Indices<'py>,
    distances: Distances<'py>,
    codes: PyReadonlyArray1<'py, i64>,
    n_labels: usize,
    strong: bool,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let codes = codes.as_slice()?;
    let ask = Ask::Components {
        codes,
        n_labels,
        strong,
    };
    match call(py, n, k, offsets, indices, distances, ask)? {
        Answer::Ints(v) => Ok(PyArray1::from_vec(py, v)),
        Answer::Floats(_) => Err(PyValueError::new_err("components are integers")),
    }
}

/// The regularised upper incomplete gamma function `Q(a, x)` (scipy's `gammaincc`), the
/// one kBET's p-values come from.
#[pyfunction]
pub(crate) fn gammaincc(a: f64, x: f64) -> f64 {
    fcm::graph::gammaincc(a, x)
}
