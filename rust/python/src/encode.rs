//! Where string labels become codes: numpy `S`/`U` arrays, Arrow string, binary and view
//! arrays, and object arrays of `str`, each hashed by the core's `encode`.

use fastcluster_metrics_core::encode::{self, Codes};
use fastcluster_metrics_core::{self as fcm, stop};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyString, PyTuple};

use crate::errors::CoreError;
use crate::interrupt::{interruptible, LONG};
use crate::labels::typed_arrays;

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
pub(crate) fn encode_fixed<'py>(
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
pub(crate) fn encode_arrow<'py>(
    py: Python<'py>,
    chunks: Vec<ArrowChunk<'py>>,
) -> PyResult<CodesOut<'py>> {
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
pub(crate) fn encode_arrow_views<'py>(
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
pub(crate) fn encode_objects<'py>(
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
