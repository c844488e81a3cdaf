//! Contingency tables and external cluster-comparison measures.
//!
//! One pass over two label slices builds a [`Table`] (the non-zero cells of the
//! contingency table with their counts, the row and column sums, and `n`); every
//! measure in [`scores`] is derived from that table, never from the labels again.
//! [`count_compact`] keeps a table whose every column has one non-empty row (each
//! cluster within one class, as all-singleton predictions are) in the compact form it
//! was counted in, and a table too wide for a window as the partitions it was counted in
//! ([`Partitioned`]); [`Counted`] holds a table in whichever form, and every form answers
//! the same [`Measures`].
//!
//! This crate knows nothing of Python: it works on plain slices of integers and
//! returns [`Error`] for bad input instead of panicking.
//!
//! # Layout
//!
//! Each module holds one concern, and the modules import one another without cycles
//! (`tests/layout.rs` checks it): each module below imports only modules listed before
//! it, and within a folder a submodule imports its siblings but not its parent (but for
//! `table::dense`, which extends the parent's `Table` and which the parent never names).
//! Modules use one another by their own paths, never through this root's re-exports.
//! From the bottom up:
//!
//! - `error`: [`Error`]. `memory`: how much more memory the process may use (its cgroup's
//!   limit, the available memory), for the needs known before they are allocated. `alloc`: allocations that grow with the input, made fallibly (a
//!   refusal is [`Error::OutOfMemory`], not an abort). `label`: the [`Label`] trait (integer labels as
//!   order-preserving `u64` keys) and [`KeyKind`]. [`stop`]: stopping the calls in
//!   flight when their caller is interrupted. [`pool`]: the one thread pool, and a call
//!   run on it while its caller watches for interrupts.
//! - `numeric`: Neumaier's compensated sum and the logarithms of small counts. `pages`:
//!   large zeroed arrays on huge pages.
//! - `cpu`: what the CPU can do, asked at run time, and the code built for it: every
//!   `#[target_feature]` function (the AVX2 and AVX-512 builds of generic loops, the two
//!   loops written with AVX-512 intrinsics) and the cache prefetch hint.
//! - `table`: the [`Table`] and its building from listed cells; `table::sort`, the
//!   sorting and indexing of the cells' keys; `table::dense`, the table of a dense
//!   window of counts.
//! - `emi`: the expected mutual information, over pairs of row and column sizes:
//!   `emi::loader` (Loader's probabilities), `emi::walk` (one pair's sum from its
//!   mode), `emi::lanes` (eight pairs side by side), `emi::strided` (one pair's sum on
//!   a stride).
//! - [`scores`]: every measure of a [`Table`]: `scores::pairs` (pair sums, purity),
//!   `scores::info` (entropy, mutual information), `scores::reduced` (the reduced mutual
//!   information), `scores::standardized` (the variance of the mutual information under
//!   the permutation model), and the adjusted mutual information's parts side by side.
//! - `models`: the random models of clusterings (Gates and Ahn 2017): the expected Rand
//!   index and mutual information when one labeling or both are drawn at random
//!   ([`model_parts`]); `models::blocks`, the block sizes of a random partition (Stirling
//!   and Bell numbers).
//! - `one_row`: tables whose every column has one non-empty row: `one_row::form` (the
//!   compact forms [`OneRow`] and [`Singletons`]), `one_row::count` (their counting),
//!   `one_row::measures` (their measures).
//! - `partitioned`: a table too wide for a window kept as the ranges of cells it was
//!   counted in ([`Partitioned`]): its sums and the measures of its margins without the
//!   cells' [`Table`], which is built when asked for.
//! - `gather`: the value of each sample's cell of a table, aligned with its labels
//!   ([`gather()`]: the per-sample measures).
//! - `dendrogram`: every cut of a dendrogram against one labeling, merge by merge
//!   ([`dendrogram_cuts`]).
//! - `dendrogram_pair`: every pair of cuts of two dendrograms, both trees' merges in turn
//!   ([`dendrogram_pair_cuts`]).
//! - `counted`: [`Counted`], the table in whichever form its count left it, and the
//!   [`Measures`] every form answers.
//! - `count`: the one pass over the labels: the driver ([`count()`], [`count_compact`],
//!   [`count_columns`], [`count_one`]); `count::blocks`, the pass by blocks (each
//!   thread's block counted into its own counter, the counters merged into one table);
//!   `count::window`, dense window counting; `count::counter`, a thread's counter (its
//!   window, the hash map and its spill, and the draining of its cells);
//!   `count::growth`, the window's growth policy; `count::wide`, tables too wide for a
//!   window, counted by partitions of their cells: `count::wide::plan` (the ranges and
//!   how each is counted), `count::wide::partition` (the partition's two passes),
//!   `count::wide::scratch` (a counting thread's buffers), and a kernel for each form of
//!   range, `count::wide::dense`, `count::wide::marked`, `count::wide::sorted` and
//!   `count::wide::hashed`; `count::weighted`, the weighted pass ([`count_weighted`]:
//!   each cell sums its samples' weights exactly), and `count::weighted::counter`, a
//!   thread's weighted counter.
//! - [`embedding`]: measures of a clustering against its embedding, from the samples'
//!   coordinates: the silhouette (`embedding::pairs`, every pair's distance, block pair by
//!   block pair through a GEMM; `embedding::sums`, squared Euclidean and cosine distances
//!   from each cluster's centroid and spread; `embedding::precomputed`, from a matrix of
//!   distances) and the Calinski-Harabasz and Davies-Bouldin indices
//!   (`embedding::centroids`).
//! - [`graph`]: measures of labels over a neighbour graph (scIB's): `graph::rows` (the
//!   graph's rows, checked as they are read, and the pass over them on the pool),
//!   `graph::lisi` (the local inverse Simpson index), `graph::gamma` (the chi-square
//!   tail), `graph::kbet` (kBET's test of each neighbourhood) and `graph::components`
//!   (the connected components within each label).
//! - [`encode`]: string and byte labels (numpy `S`/`U`, Arrow buffers, Python `str`) as dense codes.
//! - `testing` (unit tests only): the generator of test values they share, random trees
//!   and their cuts.
//!
//! `unsafe` is denied at the crate root and allowed in four modules only: `cpu` (calling
//! the `#[target_feature]` functions after the CPU was found to have the features, the
//! AVX-512 intrinsics' loads and masked stores, and the prefetch hint, which reads
//! nothing), `table::dense` (setting the length of the cell vectors after every
//! place was written), `pages` (advising the kernel to back an array with huge
//! pages), and `embedding::gemm` (the GEMM crate's call, on slices checked to fit it).
//! Each `unsafe` block says why it is sound in a `// SAFETY:` comment.
#![deny(unsafe_code)]

mod alloc;
mod count;
mod counted;
#[allow(unsafe_code)]
pub mod cpu;
mod dendrogram;
mod dendrogram_pair;
pub mod embedding;
mod emi;
pub mod encode;
mod error;
mod gather;
pub mod graph;
mod label;
mod memory;
mod models;
mod numeric;
mod one_row;
#[allow(unsafe_code)]
mod pages;
mod partitioned;
pub mod pool;
pub mod scores;
pub mod stop;
mod table;
#[cfg(test)]
mod testing;

pub use alloc::collect as collected;
pub use count::weight::{Weight, Weights, UNIT_BITS, WEIGHT_MAX};
pub use count::weighted::{count_weighted, Weighted};
pub use count::{count, count_columns, count_compact, count_one, Keep};
pub use counted::{Counted, Measures};
pub use cpu::prefetch;
pub use dendrogram::{dendrogram_cuts, CutSums};
pub use dendrogram_pair::{dendrogram_pair_cuts, PairCutSums};
pub use error::Error;
pub use gather::gather;
pub use label::{Constant, KeyKind, Label};
pub use memory::usable_memory;
pub use models::{model_parts, ModelParts, RandomModel, RECURRENCE_STEPS};
pub use one_row::{OneRow, Singletons};
pub use pages::copied;
pub use partitioned::Partitioned;
pub use table::{Keys, Table};
