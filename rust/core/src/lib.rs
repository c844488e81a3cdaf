//! Contingency tables and external cluster-comparison measures.
//!
//! One pass over two label slices builds a [`Table`] (the non-zero cells of the
//! contingency table with their counts, the row and column sums, and `n`); every
//! measure in [`scores`] is derived from that table, never from the labels again.
//! [`count_compact`] keeps a table whose every column has one non-empty row (each
//! cluster within one class, as all-singleton predictions are) in the compact form it
//! was counted in ([`Counted`]); its measures come from that form.
//!
//! This crate knows nothing of Python: it works on plain slices of integers and
//! returns [`Error`] for bad input instead of panicking. Its `unsafe` is confined to
//! `count.rs`: calling the AVX2 and AVX-512 builds of the counting loop after the CPU
//! was found to have those instructions, and a cache prefetch hint (which reads nothing).
#![deny(unsafe_code)]

mod count;
mod counted;
pub mod encode;
mod error;
mod label;
mod one_row;
pub mod pool;
pub mod scores;
mod table;

pub use count::{count, count_columns, count_compact, count_one};
pub use counted::Counted;
pub use error::Error;
pub use label::{Constant, KeyKind, Label};
pub use one_row::OneRow;
pub use table::{Keys, Table};
