//! Dense ranges: each sample adds one to its cell's count in an array of 2^16 counts. Their
//! cells are counted in the dispatch itself (`count_range`); their sums alone, here.

use crate::partitioned::Spans;

use super::partition::{Block, Low};
use super::plan::{CellOffsets, Plan, DENSE_BITS};
use super::scratch::Scratch;

/// [`tally_range`] for a dense range: each sample adds one to its cell's count, and what
/// that adds to Σ n_ij² (2c + 1 for a count of c before) and to the non-zero cells; the
/// counts are cleared whole, not read.
///
/// [`tally_range`]: super::marked::tally_range
pub(super) fn tally_dense<T: Low>(
    blocks: &[Block<T>],
    r: usize,
    plan: &Plan,
    scratch: &mut Scratch,
    spans: &mut Spans,
) {
    let at = CellOffsets::new(plan, r);
    scratch.counts.resize(1 << DENSE_BITS, 0);
    let counts = &mut scratch.counts[..1 << DENSE_BITS];
    let (rows, mut cols) = spans.sample_sides();
    let (mut sq, mut nnz) = (0u64, 0usize);
    for block in blocks {
        for &x in block.range(r) {
            let k = x.index() & ((1 << DENSE_BITS) - 1);
            let c = counts[k];
            counts[k] = c + 1;
            sq += 2 * u64::from(c) + 1;
            nnz += usize::from(c == 0);
            let (i, j) = at.of(k as u64);
            rows[i] += 1;
            cols.add(j);
        }
    }
    counts.fill(0);
    spans.add_cells(u128::from(sq), nnz);
}
