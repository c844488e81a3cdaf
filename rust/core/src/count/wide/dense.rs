//! Dense ranges: each sample adds one to its cell's count in an array of 2^16 counts.

use crate::partitioned::Spans;

use super::partition::{Block, Low};
use super::plan::{CellOffsets, Plan, DENSE_BITS};
use super::scratch::Scratch;

/// The non-zero cells of dense range `r`, of `samples` samples, as (low bits, count), in
/// order, in the scratch's buffer.
pub(super) fn count_dense<'s, T: Low>(
    blocks: &[Block<T>],
    r: usize,
    samples: usize,
    scratch: &'s mut Scratch,
) -> &'s [(u32, u32)] {
    // Every low bit pattern of a u16 indexes the array: no bounds checks.
    scratch.counts.resize(1 << DENSE_BITS, 0);
    let counts = &mut scratch.counts[..1 << DENSE_BITS];
    for block in blocks {
        for &x in block.range(r) {
            counts[x.index()] += 1;
        }
    }
    // Every cell is written at the next free place, which only a non-zero one then
    // takes: no branch on a count (the zero cells of a range fall at random). One
    // test skips a group of eight empty cells, as most are in the widest tables.
    let out = &mut scratch.cells;
    out.resize(samples.min(1 << DENSE_BITS) + 1, (0, 0));
    let mut m = 0;
    for (g, group) in counts.chunks_exact_mut(8).enumerate() {
        if group.iter().fold(0, |acc, &c| acc | c) == 0 {
            continue;
        }
        for (k, c) in group.iter_mut().enumerate() {
            // At most `samples` cells are non-zero: `m` stays below `out.len()`.
            out[m] = ((8 * g + k) as u32, *c);
            m += usize::from(*c != 0);
            *c = 0;
        }
    }
    &out[..m]
}

/// [`tally_range`](super::marked::tally_range) for a dense range: each sample adds one to its cell's count, and what
/// that adds to Σ n_ij² (2c + 1 for a count of c before) and to the non-zero cells; the
/// counts are cleared whole, not read.
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
