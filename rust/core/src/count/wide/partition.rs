//! The partition of a block of samples by the ranges of their cell numbers: a first pass
//! counts each range's samples ([`sizes`]), a second copies their low bits into place
//! ([`partition`]), a cache line at a time.

use crate::cpu::{self, prefetch_once, store_fence, stream_line, Build, Kernel, Line, LINE};
use crate::error::Error;
use crate::label::Label;
use crate::pages::{self, Zero};
use crate::stop;

use super::plan::{Bounds, Plan};

/// Samples between two looks at [`stop::requested`].
const CHUNK: usize = 1 << 14;
/// Samples between the partition's second pass and the keys it asks the CPU to load,
/// every eighth sample ([`prefetch_once`]): 2 kB of `i64` keys a side ahead.
const READ_AHEAD: usize = 256;

/// The low bits of a cell number within its range.
pub(super) trait Low: Zero + Default + Ord + Send + Sync + 'static {
    /// A cache line of them.
    type Line: Copy + AsMut<[Self]> + Lined<Self>;
    fn of(cell: u64) -> Self;
    fn index(self) -> usize;
}

/// A cache line's buffer of low bits: made empty, and written out whole.
pub(super) trait Lined<T>: Sized {
    const LEN: usize;
    fn empty() -> Self;
    fn stream(&self, dst: &mut [T]);
}

impl<T: Copy + Default, const N: usize> Lined<T> for Line<T, N> {
    const LEN: usize = N;
    fn empty() -> Self {
        Line([T::default(); N])
    }
    #[inline(always)]
    fn stream(&self, dst: &mut [T]) {
        stream_line(dst, self)
    }
}

impl<T: Copy, const N: usize> AsMut<[T]> for Line<T, N> {
    fn as_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl Low for u16 {
    type Line = Line<u16, { LINE / 2 }>;
    #[inline(always)]
    fn of(cell: u64) -> Self {
        cell as u16
    }
    #[inline(always)]
    fn index(self) -> usize {
        usize::from(self)
    }
}

impl Low for u32 {
    type Line = Line<u32, { LINE / 4 }>;
    #[inline(always)]
    fn of(cell: u64) -> Self {
        cell as u32
    }
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
}

/// One block of samples, partitioned: range `r` holds `items[starts[r]..starts[r + 1]]`.
pub(super) struct Block<T> {
    pub(super) starts: Vec<usize>,
    pub(super) items: Vec<T>,
}

impl<T> Block<T> {
    pub(super) fn range(&self, r: usize) -> &[T] {
        &self.items[self.starts[r]..self.starts[r + 1]]
    }
}

/// The partition's first pass over a block: the samples of each range (range `r`'s at
/// `r + 1`, and those outside the plan's spans last), and the keys' bounds.
pub(super) fn sizes<A: Label, B: Label>(a: &[A], b: &[B], plan: &Plan) -> (Vec<usize>, Bounds) {
    cpu::run_best(&VECTOR, Sizes { a, b, plan })
}

/// Samples whose ranges [`Sizes`] finds in one loop (vectorized, with the keys' bounds),
/// then counts in another: 12 % off the whole count of two fine clusterings at 1e7, 17 %
/// off 50 classes against 2e5 clusters. (The second pass's cell numbers found the same
/// way took 4 % longer.)
const AT_ONCE: usize = 512;

/// The builds of that loop: AVX-512's 64-bit products and bounds are single
/// instructions.
const VECTOR: [Build; 2] = [Build::Avx512, Build::Avx2];

/// [`sizes`] as a [`Kernel`].
struct Sizes<'a, A, B> {
    a: &'a [A],
    b: &'a [B],
    plan: &'a Plan,
}

impl<A: Label, B: Label> Kernel for Sizes<'_, A, B> {
    type Output = (Vec<usize>, Bounds);

    #[inline(always)]
    fn run(self) -> Self::Output {
        let plan = self.plan;
        let mut starts = vec![0usize; plan.ranges + 2];
        let ([mut a_lo, mut b_lo], [mut a_hi, mut b_hi]) = ([u64::MAX; 2], [0u64; 2]);
        let mut ranges = [0u32; AT_ONCE];
        for (x, y) in self.a.chunks(CHUNK).zip(self.b.chunks(CHUNK)) {
            if stop::requested() {
                break;
            }
            for (x, y) in x.chunks(AT_ONCE).zip(y.chunks(AT_ONCE)) {
                let ranges = &mut ranges[..x.len()];
                for ((r, &p), &q) in ranges.iter_mut().zip(x).zip(y) {
                    let (p, q) = (p.key(), q.key());
                    (a_lo, a_hi) = (a_lo.min(p), a_hi.max(p));
                    (b_lo, b_hi) = (b_lo.min(q), b_hi.max(q));
                    // At most `RANGES_MAX`: a `u32`.
                    *r = plan.range_of(p, q) as u32;
                }
                for &r in ranges.iter() {
                    starts[r as usize + 1] += 1;
                }
            }
        }
        starts.pop();
        (starts, [(a_lo, a_hi), (b_lo, b_hi)])
    }
}

/// The samples of one block, by range of their cell numbers, `starts` holding each
/// range's count at `r + 1` ([`sizes`]): their low bits copied into place through a
/// cache line's buffer a range, each full line written out past the caches
/// ([`stream_line`]: no read of the line it replaces, as an ordinary scattered store makes).
/// The pair counts at 1e7: a million labels a side 90 ms, against 135 ms with a plain
/// scatter; 50 classes against 2e5 clusters 64 ms, against 77.
pub(super) fn partition<A: Label, B: Label, T: Low>(
    a: &[A],
    b: &[B],
    plan: &Plan,
    mut starts: Vec<usize>,
) -> Result<Block<T>, Error> {
    let shift = plan.shift;
    for r in 0..plan.ranges {
        starts[r + 1] += starts[r];
    }
    let mut next = starts.clone();
    let mut items = pages::zeroed::<T>(a.len(), "the partition of a wide table's samples")?;
    let per = T::Line::LEN;
    // Items before the first that starts a line: item `i` is at `phase(i)` in its line.
    let lead = (items.as_ptr() as usize).wrapping_neg() % LINE / std::mem::size_of::<T>();
    let phase = |i: usize| (i + per - lead) % per;
    let mut lines = vec![T::Line::empty(); plan.ranges];
    for (x, y) in a.chunks(CHUNK).zip(b.chunks(CHUNK)) {
        if stop::requested() {
            break;
        }
        for (i, (&p, &q)) in x.iter().zip(y).enumerate() {
            // The keys pass through L1 once: loaded so as not to push out the lines of
            // the ranges, which fill all of it at 512 ranges (a million labels a side at
            // 1e7, the whole count on two threads 44.0 to 42.6 ms, best of 5, the builds
            // in turn).
            if i % 8 == 0 {
                prefetch_once(x.as_ptr().wrapping_add(i + READ_AHEAD));
                prefetch_once(y.as_ptr().wrapping_add(i + READ_AHEAD));
            }
            let cell = plan.cell(p, q);
            let r = (cell >> shift) as usize;
            let at = next[r];
            next[r] = at + 1;
            let k = phase(at);
            let line = &mut lines[r];
            line.as_mut()[k] = T::of(cell);
            if k + 1 == per {
                // The line of items `at + 1 - per ..= at` is full; the range may start
                // within it, after another range's items.
                let start = starts[r];
                if at + 1 >= start + per {
                    line.stream(&mut items[at + 1 - per..=at]);
                } else {
                    items[start..=at].copy_from_slice(&line.as_mut()[k + 1 - (at + 1 - start)..]);
                }
            }
        }
    }
    // Each range's last line, partly filled.
    for (r, line) in lines.iter_mut().enumerate() {
        let end = next[r];
        let from = starts[r].max(end.saturating_sub(phase(end)));
        let k = phase(end);
        items[from..end].copy_from_slice(&line.as_mut()[k - (end - from)..k]);
    }
    store_fence();
    Ok(Block { starts, items })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::wide::plan::Mode;
    use crate::testing::xorshift;

    /// The partition written a line at a time holds each range's samples in their order,
    /// as a plain scatter does: ranges empty, shorter than a line and starting mid-line,
    /// on items of every alignment the allocator gives (the lengths vary it).
    #[test]
    fn partitions_written_by_lines_hold_each_range_in_order() {
        fn check<T: Low + std::fmt::Debug>(a: &[i64], b: &[u32], plan: &Plan) {
            let block = partition::<i64, u32, T>(a, b, plan, sizes(a, b, plan).0).unwrap();
            let mut cells: Vec<u64> = a.iter().zip(b).map(|(&x, &y)| plan.cell(x, y)).collect();
            // A stable sort by range: each range's samples in their order.
            cells.sort_by_key(|&c| c >> plan.shift);
            let expect: Vec<T> = cells.iter().map(|&c| T::of(c)).collect();
            assert_eq!(block.items, expect, "{} {plan:?}", a.len());
            for r in 0..plan.ranges {
                let inside = cells.iter().filter(|&&c| (c >> plan.shift) as usize == r);
                assert_eq!(block.range(r).len(), inside.count());
            }
        }
        let mut next = xorshift(3);
        for n in (0..200).chain([1000, 4095, 4097, 20_001]) {
            for &(ka, kb) in &[(3u64, 5_000u64), (300, 300_000), (1, 70_000)] {
                let a: Vec<i64> = (0..n).map(|_| (next() % ka) as i64).collect();
                let b: Vec<u32> = (0..n).map(|_| (next() % kb) as u32).collect();
                // The keys' spans (a signed key is its value with the sign bit flipped).
                let numbers = (
                    (0i64.key(), (ka as i64 - 1).key()),
                    (0u32.key(), (kb as u32 - 1).key()),
                );
                let plan = Plan::new(n.max(1), numbers.0, numbers.1, 1 << 10).unwrap();
                if plan.mode == Mode::Dense {
                    check::<u16>(&a, &b, &plan);
                } else {
                    check::<u32>(&a, &b, &plan);
                }
            }
        }
    }
}
