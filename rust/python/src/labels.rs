//! Where an input array gets its dtype: a `FromPyObject` enum per kind of input, a variant
//! per element type, and the label arrays (1-D, and 2-D with a labeling per column).

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
        pub(crate) enum $name<'py> {
            $($variant(numpy::PyReadonlyArray<'py, $t, numpy::$dim>)),+
        }

        impl<'a, 'py> pyo3::FromPyObject<'a, 'py> for $name<'py> {
            type Error = pyo3::PyErr;

            fn extract(obj: pyo3::Borrowed<'a, 'py, pyo3::PyAny>) -> pyo3::PyResult<Self> {
                $(
                    if let Ok(a) = obj.cast::<numpy::PyArray<$t, numpy::$dim>>() {
                        let a = numpy::PyArrayMethods::try_readonly(&a.to_owned())?;
                        return Ok(Self::$variant(a));
                    }
                )+
                Err(pyo3::exceptions::PyTypeError::new_err(concat!("expected ", $what)))
            }
        }
    };
}

pub(crate) use typed_arrays;

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
            $crate::labels::Labels::I64(x) => {
                let $s = x.as_slice()?;
                $body
            }
            $crate::labels::Labels::I32(x) => {
                let $s = x.as_slice()?;
                $body
            }
            $crate::labels::Labels::I16(x) => {
                let $s = x.as_slice()?;
                $body
            }
            $crate::labels::Labels::I8(x) => {
                let $s = x.as_slice()?;
                $body
            }
            $crate::labels::Labels::U64(x) => {
                let $s = x.as_slice()?;
                $body
            }
            $crate::labels::Labels::U32(x) => {
                let $s = x.as_slice()?;
                $body
            }
            $crate::labels::Labels::U16(x) => {
                let $s = x.as_slice()?;
                $body
            }
            $crate::labels::Labels::U8(x) => {
                let $s = x.as_slice()?;
                $body
            }
        }
    };
}

pub(crate) use with_slice;

typed_arrays! {
    /// A C-contiguous 2-D integer array: one labeling per column.
    enum Matrix: Ix2, "a 2-D array of integers (int8 to int64 or uint8 to uint64)" {
        I64(i64), I32(i32), I16(i16), I8(i8), U64(u64), U32(u32), U16(u16), U8(u8),
    }
}
