//! Hashed ranges: the sums of a sorted range tallied for a count that keeps no cells, each
//! sample placed in a hash table of the range's cells ([`tally_hashed`]).

use crate::partitioned::{ColumnBytes, Spans};

use super::partition::{Block, Low};
use super::plan::{CellOffsets, Plan};
use super::scratch::Scratch;

/// Slots of the first table of [`tally_hashed`] at most: 2^17 `u16`s (256 kB) stay in L2
/// beside the columns' bytes, and a range of 2^14 samples fills a sixth of them.
const SLOT_BITS: u32 = 17;
/// Slots of its second table at most (64 kB), for the samples that found their slot
/// taken (one in fourteen at 2^14 samples a range).
const SPILL_BITS: u32 = 14;
/// The multipliers of the two tables' hashes (odd: the top bits of the product mix all
/// of a key's bits).
const SEEDS: [u32; 2] = [0x9E37_79B1, 0x85EB_CA6B];

/// [`tally_range`] for a sorted range, of more cells than a bitmap could hold: each
/// sample goes to a slot of a hash table found by its key, its cell's low bits (and, in a
/// loop of its own, adds one to its row and column). The first sample of a cell takes the
/// slot if it is free;
/// every later sample of that cell finds its own key there and is a repeat; a sample whose
/// slot holds another key goes, with every sample of its cell after it, to a second table
/// placed the same way, and what that one cannot place is sorted. So each cell is placed
/// once or sorted, and Σ n_ij² and the non-zero cells come from the cells placed, the runs
/// of their repeats, and the runs of those sorted, with no second look at a slot. (A
/// bitmap of hashed cells needed one, to find the first samples of the hashes set twice:
/// 15 ms of the ranges' 66 for a million labels a side at 1e7 on one thread. The ranges
/// took 68.7 ms that way and 66.5 ms this way, median of 8, the builds in turn.) The
/// first table keeps a `u16` of each key ([`Quotients`]), the second the key; tables are
/// cleared whole, not read.
///
/// [`tally_range`]: super::marked::tally_range
pub(super) fn tally_hashed<T: Low>(
    blocks: &[Block<T>],
    r: usize,
    plan: &Plan,
    scratch: &mut Scratch,
    spans: &mut Spans,
) {
    let mask = ((1u64 << plan.shift) - 1) as u32;
    let at = CellOffsets::new(plan, r);
    let size: usize = blocks.iter().map(|b| b.range(r).len()).sum();
    let Scratch {
        quotients,
        slots,
        keys: rest,
        spare: spilled,
        hist: repeats,
        ..
    } = scratch;
    let first = Quotients::new(plan.shift, size);
    if quotients.len() < first.slots() {
        quotients.resize(first.slots(), 0);
    }
    let quotients = &mut quotients[..first.slots()];
    rest.resize(size, 0);
    let mut left = 0;
    for block in blocks {
        left = place_all(quotients, first, block.range(r), mask, rest, left);
    }
    // The sides in a loop of their own, over the range as it stays in L2: each loop's
    // loads wait on fewer others (a million labels a side at 1e7, one thread: the
    // ranges' tally 63.4 ms in one loop, 59.3 in two, best of 5).
    let (rows, mut cols) = spans.sample_sides();
    for block in blocks {
        add_sides(rows, &mut cols, at, block.range(r), mask);
    }
    let mut placed = size - left;
    repeats.clear();
    spilled.clear();
    first.sort_out(quotients, &rest[..left], repeats, spilled);
    // The second table: the spilled samples placed in turn, those left written over them.
    let bits = (spilled.len().max(1).next_power_of_two().ilog2() + 3).clamp(6, SPILL_BITS);
    slots.resize(slots.len().max(1 << bits), 0);
    let mut left = 0;
    for i in 0..spilled.len() {
        let k = spilled[i];
        left = place(&mut slots[..1 << bits], bits, SEEDS[1], k, spilled, left);
    }
    placed += spilled.len() - left;
    rest.clear();
    sort_out(
        &mut slots[..1 << bits],
        SEEDS[1],
        &spilled[..left],
        repeats,
        rest,
    );
    // A cell placed counts one, and `m` repeats add (1 + m)² - 1.
    let (mut nnz, mut cells_sq) = (placed, placed as u128);
    repeats.sort_unstable();
    for run in repeats.chunk_by(|x, y| x == y) {
        let m = run.len() as u128;
        cells_sq += m * m + 2 * m;
    }
    rest.sort_unstable();
    for run in rest.chunk_by(|x, y| x == y) {
        let c = run.len() as u128;
        (nnz, cells_sq) = (nnz + 1, cells_sq + c * c);
    }
    spans.add_cells(cells_sq, nnz);
}

/// Places the keys of `samples`, their low bits by `mask`, in the first table of
/// [`tally_hashed`], those left written to `left` from `at` on; returns the number left.
/// A loop of its own, not inlined into the range's count: its values stay in registers
/// (the ranges' tally of a million labels a side at 1e7 on one thread, 51.5 ms inlined,
/// 49.1 apart, with [`add_sides`] apart too; best of 5).
#[inline(never)]
fn place_all<T: Low>(
    table: &mut [u16],
    hash: Quotients,
    samples: &[T],
    mask: u32,
    left: &mut [u32],
    mut at: usize,
) -> usize {
    for &x in samples {
        at = hash.place(table, x.index() as u32 & mask, left, at);
    }
    at
}

/// The first table of [`tally_hashed`], for keys of `key_bits` bits: a key's hash, the
/// key times an odd number modulo 2^key_bits, is one-to-one, so a slot, numbered by the
/// hash's top `bits` bits, need keep only its low `low` bits to tell its key from every
/// other key of that slot: a `u16` a slot, with its top bit set (a slot is free at 0),
/// where a `u32` would keep the key. Tables half as large leave more of L2 to the
/// columns' bytes: a million labels a side at 1e7, the whole count on one thread 94.7 to
/// 89.1 ms, on two 48.8 to 46.7 (best of 5, the builds in turn).
#[derive(Debug, Clone, Copy)]
struct Quotients {
    bits: u32,
    low: u32,
    /// The keys' bits.
    mask: u32,
}

impl Quotients {
    /// The table for `samples` keys of `key_bits` bits (32 at most): one slot in eight
    /// taken, in at most 2^[`SLOT_BITS`] slots, and in enough for their low bits to fit a
    /// `u16` below its top bit.
    fn new(key_bits: u32, samples: usize) -> Quotients {
        let bits = (samples.max(1).next_power_of_two().ilog2() + 3)
            .clamp(6, SLOT_BITS)
            .max(key_bits.saturating_sub(15));
        Quotients {
            bits,
            low: key_bits.saturating_sub(bits),
            mask: ((1u64 << key_bits) - 1) as u32,
        }
    }

    fn slots(self) -> usize {
        1 << self.bits
    }

    /// The slot of key `k` and what the slot keeps of it.
    #[inline(always)]
    fn split(self, k: u32) -> (usize, u16) {
        let hash = k.wrapping_mul(SEEDS[0]) & self.mask;
        let low = hash & ((1 << self.low) - 1);
        ((hash >> self.low) as usize, low as u16 | 1 << 15)
    }

    /// Places key `k` in its slot if that is free, else writes it to `left[at]`; returns
    /// the number left. No branch: a slot taken is a coin toss in the later samples of a
    /// range.
    #[inline(always)]
    fn place(self, slots: &mut [u16], k: u32, left: &mut [u32], at: usize) -> usize {
        let (s, kept) = self.split(k);
        let held = slots[s];
        let free = held == 0;
        slots[s] = if free { kept } else { held };
        left[at] = k;
        at + usize::from(!free)
    }

    /// The keys left by [`Quotients::place`] in `slots`, each a repeat of the key in its
    /// slot or spilled; then the slots cleared.
    fn sort_out(
        self,
        slots: &mut [u16],
        left: &[u32],
        repeats: &mut Vec<u32>,
        spilled: &mut Vec<u32>,
    ) {
        for &k in left {
            let (s, kept) = self.split(k);
            if slots[s] == kept {
                repeats.push(k);
            } else {
                spilled.push(k);
            }
        }
        slots.fill(0);
    }
}

/// Adds each sample of `samples` (its low bits by `mask`) to its row's sum and its
/// column's, found by `at`. A loop of its own, as [`place_all`].
#[inline(never)]
fn add_sides<T: Low>(
    rows: &mut [u32],
    cols: &mut ColumnBytes<'_>,
    at: CellOffsets,
    samples: &[T],
    mask: u32,
) {
    for &x in samples {
        let (i, j) = at.of(u64::from(x.index() as u32 & mask));
        rows[i] += 1;
        cols.add(j);
    }
}

/// The slot of key `k` in a table of `2^bits` slots, by the hash of `seed`.
#[inline(always)]
fn slot_of(k: u32, bits: u32, seed: u32) -> usize {
    (k.wrapping_mul(seed) >> (32 - bits)) as usize
}

/// Places key `k` in its slot if that is free (a slot holds its key plus one, 0 when
/// free), else writes it to `left[at]`; returns the number left. No branch: a slot taken
/// is a coin toss in the later samples of a range.
#[inline(always)]
fn place(slots: &mut [u32], bits: u32, seed: u32, k: u32, left: &mut [u32], at: usize) -> usize {
    let s = slot_of(k, bits, seed);
    let held = slots[s];
    let key = k.wrapping_add(1);
    // The key 2^32 - 1 (of a range of 2^32 cells) has no slot: it is always left.
    let free = held == 0 && key != 0;
    slots[s] = if free { key } else { held };
    left[at] = k;
    at + usize::from(!free)
}

/// The keys left by [`place`] in `slots` (a power of two of them), each a repeat of the
/// key in its slot or spilled; then the slots cleared.
fn sort_out(
    slots: &mut [u32],
    seed: u32,
    left: &[u32],
    repeats: &mut Vec<u32>,
    spilled: &mut Vec<u32>,
) {
    let bits = slots.len().ilog2();
    for &k in left {
        let key = k.wrapping_add(1);
        if key != 0 && slots[slot_of(k, bits, seed)] == key {
            repeats.push(k);
        } else {
            spilled.push(k);
        }
    }
    slots.fill(0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count_in;
    use crate::count::wide::count;
    use crate::count::wide::plan::Mode;
    use crate::testing::xorshift;

    /// A sorted range of 2^32 cells tallies the cell of the largest low bits, which has no
    /// slot, and cells whose samples fill both tables, as the table counts them.
    #[test]
    fn hashed_ranges_tally_every_key_and_full_tables() {
        use crate::counted::Measures;
        let mut next = xorshift(23);
        // Columns a power of two, so that the low bits 2^32 - 1 are a cell's, not padding.
        let nb = 1u64 << 17;
        for (n, repeats) in [(3_000usize, 3usize), (3_000, 1), (120_000, 0)] {
            let mut a: Vec<u32> = (0..n).map(|_| (next() % 100_000) as u32).collect();
            let mut b: Vec<u32> = (0..n).map(|_| (next() % nb) as u32).collect();
            (a[0], b[0], a[1], b[1]) = (0, 0, 99_999, nb as u32 - 1);
            let plan = Plan::new(n, (0, 99_999), (0, nb - 1), 1 << 12).expect("wide enough");
            assert_eq!((plan.mode, plan.shift, plan.stride), (Mode::Sorted, 32, nb));
            // The cell of low bits 2^32 - 1 in the first range, `repeats` times.
            let last = (1u64 << 32) - 1;
            for i in 0..repeats {
                (a[2 + i], b[2 + i]) = ((last / plan.stride) as u32, (last % plan.stride) as u32);
            }
            if repeats == 0 {
                // Half the samples in a hundred cells of the first range: a table of
                // 2^17 slots with some ninety thousand samples, most of them repeats,
                // and cells spilled whole to the second table and past it.
                for i in 0..n / 2 {
                    (a[i + 2], b[i + 2]) = ((i % 100) as u32, (i % 7) as u32);
                }
            }
            let table = count_in(&a, &b, 1).unwrap();
            for threads in [1, 2] {
                let tallied = count(&a, &b, &plan, threads, false).unwrap().done();
                assert_eq!(
                    tallied.pair_sums(),
                    Measures::pair_sums(&table),
                    "{n} {repeats}"
                );
                assert_eq!(
                    Measures::nnz(&tallied),
                    table.cell_count.len(),
                    "{n} {repeats}"
                );
                assert_eq!(tallied.col_sums(), &table.col_sums[..], "{n} {repeats}");
            }
        }
    }

    /// The first table of a hashed range keeps a `u16` of each key, and no two keys of
    /// one slot keep the same: every key of up to 20 bits, and random keys of more, for
    /// ranges of few samples and of many.
    #[test]
    fn quotients_tell_every_key_of_a_slot_apart() {
        let mut next = xorshift(29);
        for key_bits in [6, 13, 20, 26, 31, 32] {
            for samples in [0, 100, 1 << 14, 1 << 20] {
                let table = Quotients::new(key_bits, samples);
                assert!(table.bits <= SLOT_BITS.max(key_bits.saturating_sub(15)));
                let keys: Vec<u32> = if key_bits <= 20 {
                    (0..1u32 << key_bits).collect()
                } else {
                    (0..200_000)
                        .map(|_| next() as u32 >> (32 - key_bits))
                        .collect()
                };
                let mut seen = std::collections::HashMap::new();
                for &k in &keys {
                    let (slot, kept) = table.split(k);
                    assert!(slot < table.slots() && kept >> 15 == 1, "{key_bits} {k}");
                    let first = *seen.entry((slot, kept)).or_insert(k);
                    assert_eq!(first, k, "{key_bits} bits, {samples} samples");
                }
            }
        }
    }
}
