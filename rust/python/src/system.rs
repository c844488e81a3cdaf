//! What the process has: the pool's threads, the memory it may still use, the CPU's builds.

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

/// The CPU's features the core's builds use, the best build it runs, and the build in use
/// (`FASTCLUSTER_METRICS_CPU` caps it): what `show_versions()` prints.
#[pyfunction]
pub(crate) fn cpu_info() -> PyResult<(Vec<&'static str>, &'static str, &'static str)> {
    let level = check_cpu()?;
    Ok((fcm::cpu::features(), fcm::cpu::best().name(), level.name()))
}

/// The build `FASTCLUSTER_METRICS_CPU` asks for, or a `ValueError` naming the variable, its
/// value and the CPU's features: raised at import, before any kernel could run a build this
/// CPU lacks.
pub(crate) fn check_cpu() -> PyResult<fcm::cpu::Level> {
    fcm::cpu::level().map_err(pyo3::exceptions::PyValueError::new_err)
}
