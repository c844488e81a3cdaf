//! Sorted ranges: the samples of a range sorted by their low bits, a radix sort of a few
//! passes, and their runs counted.

use super::partition::{Block, Low};

/// The runs of equal values of sorted `keys`, as (value, length), found without a branch
/// a key: most cells of a table this wide hold one sample, and a loop that ends with each
/// run would mispredict its end about once a key. `starts` is scratch; the runs replace
/// what `out` held.
pub(super) fn runs(keys: &[u32], starts: &mut Vec<u32>, out: &mut Vec<(u32, u32)>) {
    out.clear();
    if keys.is_empty() {
        return;
    }
    if starts.len() <= keys.len() {
        starts.resize(keys.len() + 1, 0);
    }
    starts[0] = 0;
    // Run `j` starts at `starts[j]`; each key writes its index where the next run would
    // start, kept only if it does.
    let mut j = 0;
    for (i, pair) in keys.windows(2).enumerate() {
        starts[j + 1] = i as u32 + 1;
        j += usize::from(pair[0] != pair[1]);
    }
    starts[j + 1] = keys.len() as u32;
    out.extend(
        starts[..j + 2]
            .windows(2)
            .map(|w| (keys[w[0] as usize], w[1] - w[0])),
    );
}

/// Digits of [`sort_range`]: 2^11 counts, 8 kB, stay in L1.
const DIGIT_BITS: u32 = 11;

/// The samples of range `r` of every block sorted by their low `bits` (their bits above,
/// the range's, are the same), least significant digit first: every digit's counts taken
/// in one read of the samples, the first pass reading them where the partition put them
/// (no copy first), the last writing `buffers.0`, whose first values it returns.
/// `buffers.1` and `hist` are scratch.
pub(super) fn sort_range<'k, T: Low>(
    blocks: &[Block<T>],
    r: usize,
    bits: u32,
    buffers: (&'k mut Vec<u32>, &mut Vec<u32>),
    hist: &mut Vec<u32>,
) -> &'k [u32] {
    let n: usize = blocks.iter().map(|b| b.range(r).len()).sum();
    let passes = bits.div_ceil(DIGIT_BITS).max(1);
    let digit = bits.div_ceil(passes);
    let (mask, width) = ((1u32 << digit) - 1, 1usize << digit);
    let digit_of = |k: u32, pass: u32| ((k >> (pass * digit)) & mask) as usize;
    hist.clear();
    hist.resize(passes as usize * width, 0);
    for block in blocks {
        for &x in block.range(r) {
            let k = x.index() as u32;
            for (pass, counts) in (0..passes).zip(hist.chunks_exact_mut(width)) {
                counts[digit_of(k, pass)] += 1;
            }
        }
    }
    for counts in hist.chunks_exact_mut(width) {
        let mut at = 0;
        for c in counts.iter_mut() {
            (*c, at) = (at, at + *c);
        }
    }
    let (keys, spare) = buffers;
    for buffer in [&mut *keys, &mut *spare] {
        if buffer.len() < n {
            buffer.resize(n, 0);
        }
    }
    // The passes write the two buffers in turn, the last one `keys`.
    let (mut from, mut to) = if passes % 2 == 1 {
        (&mut spare[..n], &mut keys[..n])
    } else {
        (&mut keys[..n], &mut spare[..n])
    };
    let mut counts = hist.chunks_exact_mut(width);
    if let Some(first) = counts.next() {
        for block in blocks {
            for &x in block.range(r) {
                let k = x.index() as u32;
                let slot = &mut first[digit_of(k, 0)];
                to[*slot as usize] = k;
                *slot += 1;
            }
        }
    }
    for (pass, next) in (1..passes).zip(counts) {
        std::mem::swap(&mut from, &mut to);
        for &k in from.iter() {
            let slot = &mut next[digit_of(k, pass)];
            to[*slot as usize] = k;
            *slot += 1;
        }
    }
    let keys: &'k Vec<u32> = keys;
    &keys[..n]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    /// A range's samples, split over blocks, sort as `sort_unstable` sorts them, for one,
    /// two and three passes, with the range's own bits above the low ones.
    #[test]
    fn ranges_sort_by_their_low_bits_in_every_number_of_passes() {
        let mut next = xorshift(9);
        let (mut keys, mut spare, mut hist) = (vec![5; 50], Vec::new(), Vec::new());
        for bits in 1..=32u32 {
            for n in [0usize, 1, 2, 37, 5000] {
                let low = |x: u64| (x & ((1u64 << bits) - 1)) as u32;
                // Range 3 (bits above the low ones) of two blocks, between other ranges.
                let high = if bits < 32 { 3u32 << bits } else { 0 };
                let block = |len: usize, next: &mut dyn FnMut() -> u64| {
                    let items: Vec<u32> = (0..len).map(|_| high | low(next())).collect();
                    let before = (next() % 4) as usize;
                    let mut padded = vec![1; before];
                    padded.extend(&items);
                    padded.push(2);
                    // Ranges 0 and 1 empty, 2 and 4 hold the padding, 3 the items.
                    let starts = vec![0, 0, 0, before, before + len, padded.len()];
                    (
                        Block {
                            starts,
                            items: padded,
                        },
                        items,
                    )
                };
                let (one, mut expect) = block(n / 3, &mut next);
                let (two, more) = block(n - n / 3, &mut next);
                expect.extend(more);
                expect.sort_unstable();
                let blocks = [one, two];
                let sorted = sort_range(&blocks, 3, bits, (&mut keys, &mut spare), &mut hist);
                assert_eq!(sorted, &expect[..], "{bits} {n}");
            }
        }
    }

    #[test]
    fn runs_of_sorted_keys_are_counted_as_a_plain_loop_counts_them() {
        let mut next = xorshift(5);
        // Buffers that held other values: whatever they held is overwritten.
        let (mut starts, mut out) = (vec![9; 400], vec![(7, 7)]);
        for n in 0..300usize {
            for spread in [1u64, 3, 1 << 20] {
                let mut keys: Vec<u32> = (0..n).map(|_| (next() % spread) as u32).collect();
                keys.sort_unstable();
                let mut expect: Vec<(u32, u32)> = Vec::new();
                for &k in &keys {
                    match expect.last_mut() {
                        Some((last, count)) if *last == k => *count += 1,
                        _ => expect.push((k, 1)),
                    }
                }
                runs(&keys, &mut starts, &mut out);
                assert_eq!(out, expect, "{n} {spread}");
            }
        }
    }
}
