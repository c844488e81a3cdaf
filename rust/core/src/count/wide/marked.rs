//! Marked ranges: each sample sets its cell's bit in a bitmap of the range's cells, or,
//! set already, in a second.

use crate::partitioned::Spans;

use super::partition::{Block, Low};
use super::plan::{CellOffsets, Plan};
use super::scratch::Scratch;

/// The non-zero cells of range `r`, whose low `bits` number its cells, as (low bits,
/// count), in order, in `scratch.cells`: each sample sets its cell's bit in a bitmap, or,
/// set already, in a second, or, set there too, is put aside; the bits are read out in
/// order (a few cells a word written whatever the word holds, the next cell written over
/// those that were not cells: no branch on a word), each cell's count one, or two if
/// its second bit is set, and the samples put aside added to their cells' counts.
pub(super) fn mark_range<T: Low>(blocks: &[Block<T>], r: usize, bits: u32, scratch: &mut Scratch) {
    let words = 1usize << (bits - 6);
    let mask = (1u32 << bits).wrapping_sub(1);
    // The bits of the range's number a cell's low bits hold (as `T::of` keeps them).
    let high = ((r as u64) << bits) as u32;
    let samples: usize = blocks.iter().map(|b| b.range(r).len()).sum();
    let marks = &mut scratch.marks;
    marks.resize(2 * words, 0);
    let (once, twice) = marks[..2 * words].split_at_mut(words);
    let again = &mut scratch.keys;
    again.clear();
    for block in blocks {
        for &x in block.range(r) {
            let k = x.index() as u32 & mask;
            let (word, bit) = ((k >> 6) as usize, 1u64 << (k & 63));
            let held = once[word];
            if held & bit != 0 {
                let held = twice[word];
                if held & bit != 0 {
                    again.push(high | k);
                }
                twice[word] = held | bit;
            }
            once[word] = held | bit;
        }
    }
    const AT_ONCE: usize = 2;
    let out = &mut scratch.cells;
    out.clear();
    out.resize(samples + AT_ONCE, (0, 0));
    let slots = &mut out[..];
    let mut m = 0;
    for (w, (one, two)) in once.iter_mut().zip(twice.iter_mut()).enumerate() {
        let (mut v, both) = (std::mem::take(one), std::mem::take(two));
        let base = high | (w as u32) << 6;
        let cell = |v: u64| {
            let t = v.trailing_zeros();
            (base | t, 1 + ((both >> (t & 63)) as u32 & 1))
        };
        // At most `samples` cells are set: `m` and the slots after it stay in `out`.
        let mut at = m;
        for slot in 0..AT_ONCE {
            slots[m + slot] = cell(v);
            at += usize::from(v != 0);
            v &= v.wrapping_sub(1);
        }
        while v != 0 {
            slots[at] = cell(v);
            v &= v - 1;
            at += 1;
        }
        m = at;
    }
    out.truncate(m);
    again.sort_unstable();
    let mut from = 0;
    for &k in again.iter() {
        from += out[from..].partition_point(|&(low, _)| low < k);
        out[from].1 += 1;
    }
}

/// The sums of marked range `r` added to `spans` without its cells, for a count that
/// keeps none: each sample adds one to its row and column (found by [`Divisor`]) and sets
/// its cell's bit in a bitmap, or, set already, in a second. A cell of one sample sets one
/// bit, a cell of two sets both, and a cell of `2 + m` puts `m` samples aside, so Σ n_ij²
/// and the non-zero cells come from the samples that found a bit set and the runs of those
/// put aside. The bitmaps are cleared whole, not read (reading them out took two thirds of
/// counting the ranges of two fine clusterings).
///
/// [`Divisor`]: super::plan::Divisor
pub(super) fn tally_range<T: Low>(
    blocks: &[Block<T>],
    r: usize,
    plan: &Plan,
    scratch: &mut Scratch,
    spans: &mut Spans,
) {
    let words = 1usize << (plan.shift - 6);
    let mask = ((1u64 << plan.shift) - 1) as u32;
    let at = CellOffsets::new(plan, r);
    let marks = &mut scratch.marks;
    marks.resize(2 * words, 0);
    let (once, twice) = marks[..2 * words].split_at_mut(words);
    let again = &mut scratch.keys;
    again.clear();
    let (rows, mut cols) = spans.sample_sides();
    let (mut samples, mut seconds) = (0usize, 0usize);
    for block in blocks {
        let range = block.range(r);
        samples += range.len();
        for &x in range {
            let k = x.index() as u32 & mask;
            let (word, bit) = ((k >> 6) as usize, 1u64 << (k & 63));
            let held = once[word];
            if held & bit != 0 {
                let held = twice[word];
                if held & bit != 0 {
                    again.push(k);
                } else {
                    seconds += 1;
                }
                twice[word] = held | bit;
            }
            once[word] = held | bit;
            let (i, j) = at.of(u64::from(k));
            rows[i] += 1;
            cols.add(j);
        }
    }
    once.fill(0);
    twice.fill(0);
    again.sort_unstable();
    // Cells of two or more samples: `seconds`; of three or more: the runs put aside.
    let (mut more, mut more_sq) = (0u128, 0u128);
    for run in again.chunk_by(|x, y| x == y) {
        let c = 2 + run.len() as u128;
        (more, more_sq) = (more + 1, more_sq + c * c);
    }
    let nnz = samples - seconds - again.len();
    let (seconds, ones) = (seconds as u128, (nnz - seconds) as u128);
    spans.add_cells(ones + 4 * (seconds - more) + more_sq, nnz);
}
