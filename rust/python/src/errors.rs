//! Where a core error becomes a Python exception.

use fastcluster_metrics_core as fcm;
use pyo3::create_exception;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::PyErr;

create_exception!(
    _native,
    NotFiniteError,
    PyValueError,
    "The samples hold NaN or infinity: the core's first pass over them found it, where \
     the caller left that check to it (the caller finds which, for its message)."
);

/// A core error on its way to Python (always a `ValueError`, as in scikit-learn).
pub(crate) struct CoreError(fcm::Error);

impl From<CoreError> for PyErr {
    fn from(e: CoreError) -> PyErr {
        match e.0 {
            // Python's own answer to memory refused; the process goes on.
            fcm::Error::OutOfMemory { .. } | fcm::Error::PastUsable { .. } => {
                PyMemoryError::new_err(e.0.to_string())
            }
            fcm::Error::NotFinite => NotFiniteError::new_err(e.0.to_string()),
            _ => PyValueError::new_err(e.0.to_string()),
        }
    }
}

impl From<fcm::Error> for CoreError {
    fn from(e: fcm::Error) -> Self {
        CoreError(e)
    }
}
