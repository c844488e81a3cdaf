//! Measures of labels over a neighbour graph (scIB's, as scib-metrics computes them): each
//! cell's local inverse Simpson index (LISI), kBET's chi-square test of each
//! neighbourhood's batch mix, and the connected components within each label (graph
//! connectivity).
//!
//! - `rows`: the graph as the kernels read it ([`Graph`]: each cell's neighbours and their
//!   distances, `k` a row or rows of their own lengths), checked row by row as it is read,
//!   and the pass over the rows in chunks on the pool.
//! - `lisi`: each cell's perplexity calibrated by bisection (its steps replayed from the
//!   band's edges, found by Newton's method), then the inverse Simpson index of its
//!   neighbours' labels.
//! - `exp`: `e^x` for `x <= 0` in plain arithmetic, for the bisection's vector loops.
//! - `gamma`: the regularised upper incomplete gamma function (the chi-square tail).
//! - `kbet`: each neighbourhood's chi-square statistic and p-value.
//! - `components`: the weakly or strongly connected components of the subgraph within
//!   each label (union-find; Tarjan's algorithm, without recursion, on a copy of the edges
//!   within labels, its cells numbered label by label).
//!
//! Every kernel is one pass over the rows, O(n·k) time and O(n) memory above the graph
//! (Tarjan's search: also 4 bytes an edge within labels, at most half an int64 graph),
//! and the same to the last bit for any number of threads (each row's value is its own;
//! the components are found in one sequential pass).

mod components;
mod exp;
mod gamma;
mod kbet;
mod lisi;
mod rows;
#[cfg(test)]
mod tests;

pub use components::components;
pub use gamma::gammaincc;
pub use kbet::kbet;
pub use lisi::lisi;
pub use rows::{Distance, Graph, Index, Rows};
