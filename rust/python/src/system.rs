//! What the process has: the pool's threads and the memory it may still use.

use fastcluster_metrics_core as fcm;
use pyo3::prelude::*;

/// The number of threads the pool uses in this process.
#[pyfunction]
pub(crate) fn num_threads() -> usize {
    fcm::pool::threads()
}

/// The bytes this process may still use and what limits them, the smaller (`None` where
/// neither can be read); `root` is where `/proc` and `/sys` are found.
#[pyfunction]
#[pyo3(signature = (root = None))]
pub(crate) fn usable_memory(root: Option<std::path::PathBuf>) -> Option<(u64, &'static str)> {
    fcm::usable_memory(root.as_deref().unwrap_or(std::path::Path::new("/")))
}
