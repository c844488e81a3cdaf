//! The pyo3 binding: dtype dispatch, GIL release, error mapping. Nothing clever;
//! every loop over samples lives in `fastcluster_metrics_core`.
//!
//! A module by concern: [`labels`] (where an input array gets its dtype), [`errors`] (where
//! a core error becomes a Python exception), [`interrupt`] (GIL release, and a long call
//! watched for Ctrl-C), [`count`] (labels counted into tables), [`table`] (the `Table`
//! class), [`dendrogram`] (the sums of dendrograms' cuts), [`embedding`] (the measures of
//! a clustering against its embedding), [`graph`] (the measures of labels over a
//! neighbour graph), [`encode`] (string labels as codes) and
//! [`system`] (threads, memory). This file registers what Python sees.

mod count;
mod dendrogram;
mod embedding;
mod encode;
mod errors;
mod graph;
mod interrupt;
mod labels;
mod system;
mod table;

use fastcluster_metrics_core as fcm;
use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    system::check_cpu()?;
    m.add_function(wrap_pyfunction!(count::count, m)?)?;
    m.add_function(wrap_pyfunction!(system::usable_memory, m)?)?;
    m.add_function(wrap_pyfunction!(count::count_one, m)?)?;
    m.add_function(wrap_pyfunction!(count::count_weighted, m)?)?;
    m.add_function(wrap_pyfunction!(count::count_columns, m)?)?;
    m.add_function(wrap_pyfunction!(table::table_from_cells, m)?)?;
    m.add_function(wrap_pyfunction!(dendrogram::dendrogram_cuts, m)?)?;
    m.add_function(wrap_pyfunction!(dendrogram::dendrogram_pair_cuts, m)?)?;
    m.add_function(wrap_pyfunction!(system::num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(system::cpu_info, m)?)?;
    m.add_function(wrap_pyfunction!(embedding::silhouette_samples, m)?)?;
    m.add_function(wrap_pyfunction!(embedding::silhouette_precomputed, m)?)?;
    m.add_function(wrap_pyfunction!(embedding::calinski_harabasz, m)?)?;
    m.add_function(wrap_pyfunction!(embedding::davies_bouldin, m)?)?;
    m.add_function(wrap_pyfunction!(graph::graph_lisi, m)?)?;
    m.add_function(wrap_pyfunction!(graph::graph_kbet, m)?)?;
    m.add_function(wrap_pyfunction!(graph::graph_components, m)?)?;
    m.add_function(wrap_pyfunction!(graph::gammaincc, m)?)?;
    m.add_function(wrap_pyfunction!(encode::encode_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(encode::encode_arrow_views, m)?)?;
    m.add_function(wrap_pyfunction!(encode::encode_fixed, m)?)?;
    m.add_function(wrap_pyfunction!(encode::encode_objects, m)?)?;
    m.add("MISSING", fcm::encode::MISSING)?;
    m.add_class::<table::Table>()?;
    m.add("THREADS_VAR", fcm::pool::THREADS_VAR)?;
    m.add("CPU_VAR", fcm::cpu::CPU_VAR)?;
    m.add(
        "NotFiniteError",
        m.py().get_type::<errors::NotFiniteError>(),
    )?;
    Ok(())
}
