//! The pyo3 binding: dtype dispatch, GIL release, error mapping. Nothing clever;
//! every loop over samples lives in `fastcluster_metrics_core`.

use std::time::Duration;

use fastcluster_metrics_core::encode::{self, Codes};
use fastcluster_metrics_core::{self as fcm, stop, KeyKind, Label};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyString, PyTuple};

/// An enum of read-only arrays, a variant per element type, taken by a type check per
/// variant. pyo3's derive would build each failed variant's error, and numpy's names the
/// dtype by calling `str()` on it: Python code, where a pending Ctrl-C is raised and then
/// lost as an "unraisable" error, so the call went on as if no signal had come.
macro_rules! typed_arrays {
    (
        $(#[$doc:meta])*
        enum $name:ident: $dim:ident, $what:literal { $($variant:ident($t:ty)),+ $(,)? }
    ) => {
        $(#[$doc])*
        enum $name<'py> {
            $($variant(numpy::PyReadonlyArray<'py, $t, numpy::$dim>)),+
        }

        impl<'a, 'py> FromPyObject<'a, 'py> for $name<'py> {
            type Error = PyErr;

            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                $(
                    if let Ok(a) = obj.cast::<numpy::PyArray<$t, numpy::$dim>>() {
                        let a = numpy::PyArrayMethods::try_readonly(&a.to_owned())?;
                        return Ok(Self::$variant(a));
                    }
                )+
                Err(PyTypeError::new_err(concat!("expected ", $what)))
            }
        }
    };
}

/// A core error on its way to Python (always a `ValueError`, as in scikit-learn).
struct CoreError(fcm::Error);

impl From<CoreError> for PyErr {
    fn from(e: CoreError) -> PyErr {
        match e.0 {
            // Python's own answer to memory refused; the process goes on.
            fcm::Error::OutOfMemory { .. } | fcm::Error::PastUsable { .. } => {
                PyMemoryError::new_err(e.0.to_string())
            }
            _ => PyValueError::new_err(e.0.to_string()),
        }
    }
}

impl From<fcm::Error> for CoreError {
    fn from(e: fcm::Error) -> Self {
        CoreError(e)
    }
}

/// How often the caller of a long call looks for a signal (a Ctrl-C).
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// Samples (or table cells) from which a call runs watched: a call on fewer takes a few
/// milliseconds at most, and handing it to the pool would cost more than watching saves.
const LONG: usize = 1 << 20;

/// Runs `work` with the GIL released. A `long` call runs on the pool while this thread
/// looks for a signal every [`WATCH_EVERY`]: on a Ctrl-C the work is asked to stop
/// ([`stop`]) and the signal's exception (`KeyboardInterrupt`) is raised once it has. A
/// run that another caller's interrupt stopped is made again.
fn interruptible<T: Send>(
    py: Python<'_>,
    long: bool,
    work: impl Fn() -> T + Send + Sync,
) -> PyResult<T> {
    loop {
        let before = stop::epoch();
        if !stop::requested() {
            let out = if long {
                let mut signal = None;
                let (out, _) = py.detach(|| {
                    fcm::pool::watched(&work, WATCH_EVERY, || {
                        Python::attach(|py| py.check_signals())
                            .map_err(|e| signal = Some(e))
                            .is_err()
                    })
                });
                if let Some(e) = signal {
                    return Err(e);
                }
                out
            } else {
                py.detach(&work)
            };
            if stop::epoch() == before {
                return Ok(out);
            }
        }
        // Another caller's interrupt stopped this run: again once that call has returned.
        py.check_signals()?;
        py.detach(|| std::thread::sleep(Duration::from_millis(1)));
    }
}

typed_arrays! {
    /// A 1-D integer label array of any width and signedness (numpy bool arrives as `uint8`).
    enum Labels: Ix1, "a 1-D array of integers (int8 to int64 or uint8 to uint64)" {
        I64(i64), I32(i32), I16(i16), I8(i8), U64(u64), U32(u32), U16(u16), U8(u8),
    }
}

/// Calls `$f` with the labels as a slice of their own type (never copied).
macro_rules! with_slice {
    ($labels:expr, |$s:ident| $body:expr) => {
        match $labels {
            Labels::I64(x) => {
                let $s = x.as_slice()?;
                $body
            }
            Labels::I32(x) => {
                let $s = x.as_slice()?;
                $body
            }
            Labels::I16(x) => {
                let $s = x.as_slice()?;
                $body
            }
            Labels::I8(x) => {
                let $s = x.as_slice()?;
                $body
            }
            Labels::U64(x) => {
                let $s = x.as_slice()?;
                $body
            }
            Labels::U32(x) => {
                let $s = x.as_slice()?;
                $body
            }
            Labels::U16(x) => {
                let $s = x.as_slice()?;
                $body
            }
            Labels::U8(x) => {
                let $s = x.as_slice()?;
                $body
            }
        }
    };
}

typed_arrays! {
    /// A C-contiguous 2-D integer array: one labeling per column.
    enum Matrix: Ix2, "a 2-D array of integers (int8 to int64 or uint8 to uint64)" {
        I64(i64), I32(i32), I16(i16), I8(i8), U64(u64), U32(u32), U16(u16), U8(u8),
    }
}

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
fn count_columns(
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
fn count(
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
    Ok(Table { inner })
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
fn count_weighted<'py>(
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
fn count_one(py: Python<'_>, labels: Labels<'_>) -> PyResult<Table> {
    let inner = with_slice!(&labels, |a| interruptible(py, a.len() >= LONG, || {
        fcm::count_one(a)
    })?
    .map_err(CoreError::from))?;
    Ok(Table::of(inner))
}

/// A table given by its shape and cells (repeated cells add; zeros are dropped).
#[pyfunction]
fn table_from_cells(
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
fn dendrogram_cuts<'py>(
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
fn dendrogram_pair_cuts<'py>(
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

type CodesOut<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<usize>>,
    usize,
);

fn codes_out(py: Python<'_>, c: Codes) -> CodesOut<'_> {
    (
        PyArray1::from_vec(py, c.codes),
        PyArray1::from_vec(py, c.first),
        c.missing,
    )
}

/// Codes (in sorted label order) of a numpy `S` or `U` array given as its
/// contiguous bytes, hashed without the GIL. Returns (codes, first index of
/// each distinct label, number missing = 0).
#[pyfunction]
fn encode_fixed<'py>(
    py: Python<'py>,
    data: PyReadonlyArray1<'py, u8>,
    width: usize,
    unicode: bool,
) -> PyResult<CodesOut<'py>> {
    let bytes = data.as_slice()?;
    let long = bytes.len() / width.max(1) >= LONG;
    let codes = interruptible(py, long, || encode::encode_fixed(bytes, width, unicode))?
        .map_err(CoreError::from)?;
    Ok(codes_out(py, codes))
}

typed_arrays! {
    /// The offsets of one chunk of an Arrow `string` (`i32`) or `large_string` (`i64`) array.
    enum ArrowOffsets: Ix1, "Arrow offsets (int32 or int64)" {
        Narrow(i32), Wide(i64),
    }
}

/// One chunk of an Arrow string array: (its `len + 1` offsets, its data buffer, its
/// validity bitmap or None, the bit of its first item).
type ArrowChunk<'py> = (
    ArrowOffsets<'py>,
    PyReadonlyArray1<'py, u8>,
    Option<PyReadonlyArray1<'py, u8>>,
    usize,
);

/// Codes (in bytewise sorted order, which is code point order for UTF-8) of an Arrow
/// string or binary array given as its chunks' buffers, hashed in place without the GIL.
/// Null items get code 2**32 - 1. Returns (codes, first index of each distinct label,
/// number missing).
#[pyfunction]
fn encode_arrow<'py>(py: Python<'py>, chunks: Vec<ArrowChunk<'py>>) -> PyResult<CodesOut<'py>> {
    let mut narrow = Vec::new();
    let mut wide = Vec::new();
    for (offsets, data, bits, bit) in &chunks {
        let data = data.as_slice()?;
        let valid = match bits {
            Some(b) => Some(encode::Bitmap {
                bits: b.as_slice()?,
                offset: *bit,
            }),
            None => None,
        };
        match offsets {
            ArrowOffsets::Narrow(o) => narrow.push(encode::StrChunk {
                offsets: o.as_slice()?,
                data,
                valid,
            }),
            ArrowOffsets::Wide(o) => wide.push(encode::StrChunk {
                offsets: o.as_slice()?,
                data,
                valid,
            }),
        }
    }
    if !narrow.is_empty() && !wide.is_empty() {
        return Err(PyValueError::new_err(
            "an Arrow array's chunks mix 32-bit and 64-bit offsets",
        ));
    }
    let n = chunks
        .iter()
        .map(|c| c.0.len().saturating_sub(1))
        .sum::<usize>();
    let codes = interruptible(py, n >= LONG, || {
        if wide.is_empty() {
            encode::encode_arrow(&narrow)
        } else {
            encode::encode_arrow(&wide)
        }
    })?
    .map_err(CoreError::from)?;
    Ok(codes_out(py, codes))
}

/// One chunk of an Arrow `string_view` or `binary_view` array: (its views from its first
/// item, 16 bytes a row, its data buffers, its validity bitmap or None, the bit of its
/// first item).
type ViewChunk<'py> = (
    PyReadonlyArray2<'py, u8>,
    Vec<PyReadonlyArray1<'py, u8>>,
    Option<PyReadonlyArray1<'py, u8>>,
    usize,
);

/// [`encode_arrow`] for an Arrow `string_view` or `binary_view` array (polars' strings).
#[pyfunction]
fn encode_arrow_views<'py>(
    py: Python<'py>,
    chunks: Vec<ViewChunk<'py>>,
) -> PyResult<CodesOut<'py>> {
    let mut buffers = Vec::with_capacity(chunks.len());
    for (views, data, _, _) in &chunks {
        if views.shape()[1] != 16 {
            return Err(PyValueError::new_err("Arrow views are 16 bytes each"));
        }
        let data = data
            .iter()
            .map(|d| d.as_slice())
            .collect::<Result<Vec<_>, _>>()?;
        buffers.push((views.as_slice()?.as_chunks::<16>().0, data));
    }
    let mut parts = Vec::with_capacity(chunks.len());
    for ((views, data), (_, _, bits, bit)) in buffers.iter().zip(&chunks) {
        parts.push(encode::ViewChunk {
            views,
            buffers: data,
            valid: match bits {
                Some(b) => Some(encode::Bitmap {
                    bits: b.as_slice()?,
                    offset: *bit,
                }),
                None => None,
            },
        });
    }
    let n = parts.iter().map(|c| c.views.len()).sum::<usize>();
    let codes =
        interruptible(py, n >= LONG, || encode::encode_views(&parts))?.map_err(CoreError::from)?;
    Ok(codes_out(py, codes))
}

impl ArrowOffsets<'_> {
    fn len(&self) -> usize {
        match self {
            ArrowOffsets::Narrow(o) => o.len(),
            ArrowOffsets::Wide(o) => o.len(),
        }
    }
}

/// How many items ahead an object array's objects are asked for.
const AHEAD: usize = 16;

/// Codes of an object array of `str`, read from CPython's string data with no
/// Python-level loop. `None`, float NaN and the objects in `missing_values`
/// are missing labels (code 2**32 - 1). Returns None when an item is anything
/// else (the caller then takes the general path).
#[pyfunction]
fn encode_objects<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray1<'py, Py<PyAny>>,
    missing_values: &Bound<'py, PyTuple>,
) -> PyResult<Option<CodesOut<'py>>> {
    let items = labels.as_slice()?;
    let is_missing = |obj: &Bound<'py, PyAny>| {
        obj.is_none()
            || obj.cast::<PyFloat>().is_ok_and(|f| f.value().is_nan())
            || missing_values.iter().any(|m| obj.is(&m))
    };
    // Each item's UTF-8 bytes are found here, with the GIL held (as long as the array
    // holds its objects, the bytes of each `str` stay where they are), a block at a time,
    // while the pool's threads read and hash the blocks found before: nothing of Python's
    // runs meanwhile.
    let codes = encode::encode_found(items.len(), |range, found| {
        for i in range {
            // The objects may lie anywhere in memory: asking for those a few items ahead
            // (their headers, and the line where a short string's characters end) overlaps
            // the waits. (numpy's own objects lie in order, where this gains 5-10 %.)
            if let Some(ahead) = items.get(i + AHEAD) {
                let at = ahead.as_ptr().cast::<u8>();
                fcm::prefetch(at);
                fcm::prefetch(at.wrapping_add(63));
            }
            // The GIL is held throughout: signals are looked for every so many items.
            if i % stop::EVERY == 0 {
                py.check_signals()?;
            }
            let obj = items[i].bind(py);
            // A `str` is told by its type alone (no call into CPython), a subclass's by
            // its type's flags.
            let text = obj
                .cast_exact::<PyString>()
                .or_else(|_| obj.cast::<PyString>());
            match text {
                Ok(s) => match s.to_str() {
                    Ok(s) => found.push(Some(s.as_bytes())),
                    // Not encodable as UTF-8 (a lone surrogate).
                    Err(_) => return Ok(false),
                },
                Err(_) if is_missing(obj) => found.push(None),
                Err(_) => return Ok(false),
            }
        }
        Ok::<_, PyErr>(true)
    })?
    .map_err(CoreError::from)?;
    Ok(codes.map(|c| codes_out(py, c)))
}

/// The number of threads the pool uses in this process.
#[pyfunction]
fn num_threads() -> usize {
    fcm::pool::threads()
}

/// The bytes this process may still use and what limits them, the smaller (`None` where
/// neither can be read); `root` is where `/proc` and `/sys` are found.
#[pyfunction]
#[pyo3(signature = (root = None))]
fn usable_memory(root: Option<std::path::PathBuf>) -> Option<(u64, &'static str)> {
    fcm::usable_memory(root.as_deref().unwrap_or(std::path::Path::new("/")))
}

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
struct Table {
    inner: fcm::Counted,
}

impl Table {
    fn of(table: fcm::Table) -> Table {
        Table {
            inner: fcm::Counted::Table(table),
        }
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

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(count, m)?)?;
    m.add_function(wrap_pyfunction!(usable_memory, m)?)?;
    m.add_function(wrap_pyfunction!(count_one, m)?)?;
    m.add_function(wrap_pyfunction!(count_weighted, m)?)?;
    m.add_function(wrap_pyfunction!(count_columns, m)?)?;
    m.add_function(wrap_pyfunction!(table_from_cells, m)?)?;
    m.add_function(wrap_pyfunction!(dendrogram_cuts, m)?)?;
    m.add_function(wrap_pyfunction!(dendrogram_pair_cuts, m)?)?;
    m.add_function(wrap_pyfunction!(num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(encode_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(encode_arrow_views, m)?)?;
    m.add_function(wrap_pyfunction!(encode_fixed, m)?)?;
    m.add_function(wrap_pyfunction!(encode_objects, m)?)?;
    m.add("MISSING", encode::MISSING)?;
    m.add_class::<Table>()?;
    m.add("THREADS_VAR", fcm::pool::THREADS_VAR)?;
    Ok(())
}
