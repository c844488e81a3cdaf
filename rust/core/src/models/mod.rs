//! Random models of clusterings (Gates and Ahn, 2017, "The impact of random models on
//! clustering similarity"): the expected Rand index and the expected mutual information
//! of a table when one labeling or both are drawn at random.
//!
//! - `perm`: both labelings a random permutation of the items with their cluster sizes
//!   (the hypergeometric model of scikit-learn's ARI and AMI); `perm1`: the truth fixed and
//!   the prediction so drawn: the same expectations;
//! - `num1`: the truth fixed, the prediction uniform over the partitions with its number
//!   of clusters; `num`: both uniform over the partitions with their numbers of clusters;
//! - `all1`: the truth fixed, the prediction uniform over all partitions; `all`: both.
//!
//! A labeling drawn at random is described by its expected block sizes ([`blocks`]);
//! the expected mutual information is then the sum of scikit-learn's per-pair terms over
//! pairs of sizes weighted by their expected numbers (a block of a random partition with
//! `b` items holds a uniformly random `b`-subset: its overlap with a fixed block is
//! hypergeometric), and the expected Rand index follows from the probability that two
//! items share a block on each side.

mod blocks;

use crate::emi::emi_of_weighted_sizes;
use crate::error::Error;

pub use blocks::RECURRENCE_STEPS;
use blocks::{any_blocks, into_blocks, BlockSizes};

/// How the two labelings are drawn at random (see the module's text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandomModel {
    Perm,
    Perm1,
    Num,
    Num1,
    All,
    All1,
}

impl RandomModel {
    /// clusim's names, in its order.
    pub const NAMES: [&'static str; 6] = ["perm", "perm1", "num", "num1", "all", "all1"];

    /// The model of clusim's name, if it is one.
    pub fn from_name(name: &str) -> Option<RandomModel> {
        Some(match name {
            "perm" => RandomModel::Perm,
            "perm1" => RandomModel::Perm1,
            "num" => RandomModel::Num,
            "num1" => RandomModel::Num1,
            "all" => RandomModel::All,
            "all1" => RandomModel::All1,
            _ => return None,
        })
    }
}

/// What a random model expects of a table with these margins.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelParts {
    /// The probability that two given items share a true class: exact `Σ a(a-1) / n(n-1)`
    /// where the truth is fixed (or permuted), its expectation where it is drawn.
    pub pair_rows: f64,
    /// The same of the predicted clusters.
    pub pair_cols: f64,
    /// Whether each side is drawn as a new partition (`num`, `all`): false where its
    /// sizes are kept (then its pair probability is the observed one).
    pub random_rows: bool,
    pub random_cols: bool,
    /// The expected mutual information (nats), when asked for.
    pub expected_mi: Option<f64>,
}

/// The expectations of `model` for a table of `n` items whose distinct row and column
/// sizes are `rows` and `cols` (each with its number), rows the fixed side of the
/// one-sided models; with `emi`, the expected mutual information too.
///
/// Errors: [`Error::TooCostly`] where the block sizes of a partition into a given number
/// of blocks need more than [`RECURRENCE_STEPS`] steps (`n` below about `k ln k`, `k`
/// and `n - k` both large), [`Error::Stopped`] when interrupted, [`Error::OutOfMemory`]
/// when the sizes' lists are refused.
pub fn model_parts(
    rows: &[(u64, u64)],
    cols: &[(u64, u64)],
    n: u64,
    model: RandomModel,
    emi: bool,
) -> Result<ModelParts, Error> {
    let side = |sizes: &[(u64, u64)], random: Option<bool>| -> Result<BlockSizes, Error> {
        let k: u64 = sizes.iter().map(|&(_, c)| c).sum();
        match random {
            None => BlockSizes::fixed(sizes, n),
            Some(false) if n > 0 => into_blocks(n, k),
            Some(true) if n > 0 => any_blocks(n),
            Some(_) => BlockSizes::fixed(sizes, n),
        }
    };
    // None: kept; Some(false): drawn with its number of blocks; Some(true): any number.
    let (how_rows, how_cols) = match model {
        RandomModel::Perm | RandomModel::Perm1 => (None, None),
        RandomModel::Num1 => (None, Some(false)),
        RandomModel::Num => (Some(false), Some(false)),
        RandomModel::All1 => (None, Some(true)),
        RandomModel::All => (Some(true), Some(true)),
    };
    let r = side(rows, how_rows)?;
    let c = side(cols, how_cols)?;
    // A side that is one block (for sure) shares nothing with the other.
    let one_block = |s: &BlockSizes| s.sizes.len() == 1 && s.sizes[0].0 == n;
    let expected_mi = emi
        .then(|| {
            if n == 0 || one_block(&r) || one_block(&c) {
                Ok(0.0)
            } else {
                emi_of_weighted_sizes(&r.sizes, &c.sizes, n)
            }
        })
        .transpose()?;
    Ok(ModelParts {
        pair_rows: r.pair,
        pair_cols: c.pair,
        random_rows: how_rows.is_some(),
        random_cols: how_cols.is_some(),
        expected_mi,
    })
}
