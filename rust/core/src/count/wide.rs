//! Tables too wide for a dense window: a hundred thousand metacells against thirty cell
//! types, two fine clusterings, a million labels a side. Counted by partitions, as
//! analytical databases aggregate: each pair of keys is one cell number,
//! `(key_a - a_lo) * stride + (key_b - b_lo)`, in rows of `nb` numbers or, for the widest
//! tables, of the power of two at or above it; a first pass counts the samples of each range
//! of cell numbers (their top bits), a second copies each sample's low bits into its
//! range (a cache line at a time, past the caches), and each range is then counted within
//! a core's cache, ranges in parallel: in a dense array of 2^16 counts when the table has
//! at most [`DENSE_PER_SAMPLE`] cells a sample, as bits set in a bitmap of its cells up
//! to [`MARKED_PER_SAMPLE`], by sorting its some ten thousand samples otherwise. The
//! plan may be made for spans guessed from a glance at the keys: the first pass reads
//! every key's bounds, and the count stops there if a key is beyond the plan. Ranges are
//! in cell order, so the cells come out sorted by row, then column, as a
//! [`crate::Table`] holds them, and are kept as counted ([`Partitioned`]); or, for the
//! pair counts alone, only their sums are kept, with the partition to count the cells
//! again from if they are asked for. Those sums of ranges too sparse for a dense array
//! are added up from the samples, with no cell counted ([`tally_range`],
//! [`tally_hashed`]). The counters' hash maps and their spill, which count such tables
//! otherwise, took 0.9 to 2.3 s for the four wide shapes of `benches/test_bench_wide.py`
//! at 1e7 samples; partitions take 23 to 43 ms for ARI.

use rayon::prelude::*;

use crate::alloc;
use crate::cpu::{self, prefetch_once, store_fence, stream_line, Build, Kernel, Line, LINE};
use crate::error::Error;
use crate::label::Label;
use crate::memory;
use crate::pages::{self, Zero};
use crate::pool;
use crate::stop;

use crate::partitioned::{CellNumbers, Cells, ColumnBytes, Partitioned, RangeCells, Spans};

/// Low bits of a dense range: its 2^16 `u32` counts (256 kB) stay in L2.
const DENSE_BITS: u32 = 16;
/// Dense ranges are read whole, every cell: faster than sorting while the table has at
/// most this many cells a sample (at 1e6 samples, 4.3 cells a sample sorted in 17 ms
/// against 23 ms dense; at 3e6, 3.3 cells a sample took the same either way).
const DENSE_PER_SAMPLE: u64 = 4;
/// Ranges are counted as a bitmap of their cells, a bit a cell, while the table has at
/// most this many cells a sample: a word of 64 cells read out costs less than the sort's
/// passes over the sample or two it holds. (At 1e7 samples on one thread, counting the
/// ranges took 48 ms against 61 sorted at 6.4 cells a sample, 54 against 63 at 14, 58
/// against 64 at 40, but 69 against 64 at 90.)
const MARKED_PER_SAMPLE: u64 = 64;
/// Low bits of a marked range at most: its bitmap (256 kB) stays in L2.
const MARKED_BITS: u32 = 21;
/// Samples a sorted range holds on average: their `u32`s and their copy sort within L2,
/// and the ranges are few enough for the partition's line buffers (64 bytes a range) to
/// stay in L1 (a million labels a side at 1e7: 512 ranges, 10 % faster than 2048).
const SORTED_SAMPLES: u64 = 1 << 14;
/// Ranges at most: each thread's second pass writes to all of them at once. (Ranges
/// number n / 2^14 or fewer but where `u32` low bits need more: a million labels a side.)
const RANGES_MAX: u64 = 1 << 16;
/// The most key values one side may span: its sums are an array over them.
const SIDE_MAX: u64 = 1 << 26;
/// Samples between two looks at [`stop::requested`].
const CHUNK: usize = 1 << 14;
/// Samples between the partition's second pass and the keys it asks the CPU to load,
/// every eighth sample ([`prefetch_once`]): 2 kB of `i64` keys a side ahead.
const READ_AHEAD: usize = 256;

/// How a table is partitioned: its key ranges and cell numbers' ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Plan {
    a_lo: u64,
    b_lo: u64,
    na: u64,
    nb: u64,
    /// The cell numbers of a row: `nb`, or for sorted ranges the power of two at or above
    /// it, so that a range's samples find their rows and columns by shifts
    /// ([`CellOffsets`]).
    stride: u64,
    /// A cell's range is its number shifted right by this much; its low bits fit a `u32`.
    shift: u32,
    ranges: usize,
    /// How each range is counted.
    mode: Mode,
    /// Whether the sums of a count that keeps no cells are added up from the samples
    /// ([`tally_range`], [`tally_hashed`], [`tally_dense`]): where ranges are marked or
    /// sorted, or dense with a cell or more a sample (a dense range's counts read out cost
    /// less where the cells are fewer: metacells, 0.4 cells a sample, 24 ms read out
    /// against 29 ms tallied; 50 classes against 2e5 clusters, a cell a sample, 32 against
    /// 29.5 ms); and where [`Divisor`] divides a cell's offset from its range's first row (so far as `u32` low
    /// bits reach, always), with two columns or more.
    tallies: bool,
}

/// How a range's cells are counted from its samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// In an array of counts, every cell (low bits `u16`).
    Dense,
    /// As bits set in a bitmap of its cells, the samples that find theirs set already
    /// counted apart (`u32`).
    Marked,
    /// By sorting its samples (`u32`).
    Sorted,
}

impl Plan {
    /// The plan for `n` samples whose keys span `a` and `b` (inclusive), if their table is
    /// wider than `window` cells and this path can count it: fewer than 2^32 samples,
    /// sides of at most a few times `n` values, and cell numbers that fit.
    pub(super) fn new(n: usize, a: (u64, u64), b: (u64, u64), window: u64) -> Option<Plan> {
        let n = n as u64;
        let side_max = (4 * n).clamp(1 << 20, SIDE_MAX);
        let na = (a.1.checked_sub(a.0)?).checked_add(1)?;
        let nb = (b.1.checked_sub(b.0)?).checked_add(1)?;
        if n > u64::from(u32::MAX) || na > side_max || nb > side_max {
            return None;
        }
        let cells = na.checked_mul(nb)?;
        if cells <= window {
            return None;
        }
        let dense = cells <= DENSE_PER_SAMPLE * n && (cells >> DENSE_BITS) < RANGES_MAX;
        let shift = if dense {
            DENSE_BITS
        } else {
            narrow_shift(n, cells)?
        };
        let mode = if dense {
            Mode::Dense
        } else if cells <= MARKED_PER_SAMPLE * n && (6..=MARKED_BITS).contains(&shift) {
            Mode::Marked
        } else {
            Mode::Sorted
        };
        // Sorted ranges, the widest tables', in rows of a power of two: a sample's row and
        // column are two shifts, not a division (a million labels a side at 1e7, the
        // ranges' tally on one thread: 63.4 ms in rows of `nb`, 55.8 in rows of 2^20 with
        // the loops apart, best of 5; with the loops apart alone, 59.3).
        let (stride, shift, numbers) = match mode {
            Mode::Sorted => Some(nb.next_power_of_two())
                .and_then(|stride| {
                    let numbers = na.checked_mul(stride)?;
                    Some((stride, narrow_shift(n, numbers)?, numbers))
                })
                .unwrap_or((nb, shift, cells)),
            Mode::Dense | Mode::Marked => (nb, shift, cells),
        };
        Some(Plan {
            a_lo: a.0,
            b_lo: b.0,
            na,
            nb,
            stride,
            shift,
            ranges: ((numbers - 1) >> shift) as usize + 1,
            mode,
            tallies: (mode != Mode::Dense || cells >= n)
                && nb > 1
                && (stride.is_power_of_two()
                    || Divisor::new(stride).divides_up_to((stride - 1) + ((1u64 << shift) - 1))),
        })
    }

    fn numbers(&self) -> CellNumbers {
        CellNumbers {
            a_lo: self.a_lo,
            b_lo: self.b_lo,
            na: self.na,
            nb: self.nb,
            stride: self.stride,
            shift: self.shift,
        }
    }

    #[inline(always)]
    fn cell<A: Label, B: Label>(&self, x: A, y: B) -> u64 {
        (x.key() - self.a_lo) * self.stride + (y.key() - self.b_lo)
    }

    /// The range of the cell of keys `x` and `y`, or [`Plan::ranges`] if they are outside
    /// its spans (their number wraps).
    #[inline(always)]
    fn range_of(&self, x: u64, y: u64) -> usize {
        let cell = (x.wrapping_sub(self.a_lo))
            .wrapping_mul(self.stride)
            .wrapping_add(y.wrapping_sub(self.b_lo));
        (cell >> self.shift).min(self.ranges as u64) as usize
    }

    /// Whether keys within `bounds` are all within its spans.
    fn holds(&self, bounds: &Bounds) -> bool {
        let within = |(lo, hi): (u64, u64), start: u64, len: u64| {
            lo > hi || (lo >= start && hi - start < len)
        };
        within(bounds[0], self.a_lo, self.na) && within(bounds[1], self.b_lo, self.nb)
    }
}

/// The shift of marked or sorted ranges for `numbers` cell numbers: some ten thousand
/// samples a range, and ranges narrow enough for `u32` low bits; `None` if they would be
/// more than [`RANGES_MAX`].
fn narrow_shift(n: u64, numbers: u64) -> Option<u32> {
    let bits = u64::BITS - (numbers - 1).leading_zeros();
    let log_ranges = (n / SORTED_SAMPLES)
        .max(1)
        .ilog2()
        .max(bits.saturating_sub(32));
    (log_ranges <= RANGES_MAX.ilog2()).then(|| bits.saturating_sub(log_ranges))
}

/// Each side's smallest and largest key, `(u64::MAX, 0)` for none.
pub(super) type Bounds = [(u64, u64); 2];

/// A count by a plan: done, or not begun as keys were read outside its spans.
#[derive(Debug)]
pub(super) enum Count {
    Done(Box<Partitioned>),
    /// The keys' bounds, as read by the partition's first pass.
    Beyond(Bounds),
}

#[cfg(test)]
impl Count {
    fn done(self) -> Partitioned {
        match self {
            Count::Done(counted) => *counted,
            Count::Beyond(bounds) => panic!("keys beyond the plan: {bounds:?}"),
        }
    }
}

/// The low bits of a cell number within its range.
trait Low: Zero + Default + Ord + Send + Sync + 'static {
    /// A cache line of them.
    type Line: Copy + AsMut<[Self]> + Lined<Self>;
    fn of(cell: u64) -> Self;
    fn index(self) -> usize;
}

/// A cache line's buffer of low bits: made empty, and written out whole.
trait Lined<T>: Sized {
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
struct Block<T> {
    starts: Vec<usize>,
    items: Vec<T>,
}

impl<T> Block<T> {
    fn range(&self, r: usize) -> &[T] {
        &self.items[self.starts[r]..self.starts[r + 1]]
    }
}

/// Counts the table of `a` against `b` by `plan`, on `threads` threads. Unless `cells`,
/// its cells are not kept but its partition is, for them to be counted again the first
/// time they are asked for: measures of the margins and Σ n_ij² (ARI) need only the sums
/// added up as the ranges are counted, and each range's cells written out cost about as
/// much as counting them (the pair counts of two fine clusterings of 2e4 at 1e7: 62 ms
/// keeping the partition, 87 ms keeping the cells).
pub(super) fn count<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    plan: &Plan,
    threads: usize,
    cells: bool,
) -> Result<Count, Error> {
    pool::run(|| {
        if plan.mode == Mode::Dense {
            count_by::<A, B, u16>(a, b, plan, threads, cells)
        } else {
            count_by::<A, B, u32>(a, b, plan, threads, cells)
        }
    })
}

/// The table as counted: the blocks partitioned in parallel, then the ranges counted in
/// parallel, each thread taking a run of them and adding up their sums as it goes; each
/// range's non-zero cells kept as (low bits, count), in order, if `keep`.
fn count_by<A: Label, B: Label, T: Low>(
    a: &[A],
    b: &[B],
    plan: &Plan,
    threads: usize,
    keep: bool,
) -> Result<Count, Error> {
    let block = a.len().div_ceil(threads).max(1);
    let chunks = || a.par_chunks(block).zip(b.par_chunks(block));
    let firsts: Vec<(Vec<usize>, Bounds)> = if threads > 1 {
        chunks().map(|(x, y)| sizes(x, y, plan)).collect()
    } else {
        vec![sizes(a, b, plan)]
    };
    stop::check()?;
    let bounds = merged(firsts.iter().map(|(_, bounds)| bounds));
    if !plan.holds(&bounds) {
        return Ok(Count::Beyond(bounds));
    }
    // Known before it is allocated: refused if the process may not use it (past a cgroup's
    // limit the pages would be promised, and the process killed as they are written).
    let what = "the partition of a wide table's samples";
    memory::check(a.len().saturating_mul(std::mem::size_of::<T>()), what)?;
    let blocks: Vec<Block<T>> = if threads > 1 {
        chunks()
            .zip(firsts)
            .map(|((x, y), (starts, _))| partition(x, y, plan, starts))
            .collect::<Result<_, _>>()?
    } else {
        firsts
            .into_iter()
            .map(|(starts, _)| partition(a, b, plan, starts))
            .collect::<Result<_, _>>()?
    };
    stop::check()?;
    let numbers = plan.numbers();
    // A thread's buffers and sums, and the ranges it counted (or the memory refused).
    type Counting = Result<(Scratch, Spans, Vec<(usize, Vec<(u32, u32)>)>), Error>;
    let tally = !keep && plan.tallies;
    let fresh =
        || -> Counting { Ok((Scratch::default(), Spans::new(&numbers, tally)?, Vec::new())) };
    let what = "a wide table's cells";
    let each = |counting: Counting, r: usize| -> Counting {
        let (mut scratch, mut spans, mut ranges) = counting?;
        if tally {
            if !stop::requested() {
                match plan.mode {
                    Mode::Dense => tally_dense(&blocks, r, plan, &mut scratch, &mut spans),
                    Mode::Marked => tally_range(&blocks, r, plan, &mut scratch, &mut spans),
                    Mode::Sorted => tally_hashed(&blocks, r, plan, &mut scratch, &mut spans),
                }
            }
        } else if !stop::requested() {
            let cells = count_range(&blocks, r, plan, &mut scratch);
            spans.add(&numbers, r, cells);
            if keep {
                alloc::push(&mut ranges, (r, pages::copied(cells, what)?), what)?;
            }
        }
        Ok((scratch, spans, ranges))
    };
    let (_, spans, mut ranges) = if threads > 1 {
        (0..plan.ranges)
            .into_par_iter()
            .with_min_len(run(plan, threads))
            .fold(fresh, each)
            .reduce_with(|x, y| {
                let ((s, x, mut r1), (_, y, r2)) = (x?, y?);
                alloc::extend(&mut r1, r2.into_iter(), what)?;
                Ok((s, x.merge(y), r1))
            })
            .unwrap_or_else(fresh)
    } else {
        (0..plan.ranges).try_fold(fresh()?, |counting, r| each(Ok(counting), r))
    }?;
    stop::check()?;
    let kinds = (A::KIND, B::KIND);
    let cells = if keep {
        ranges.sort_unstable_by_key(|&(r, _)| r);
        Cells::Counted(alloc::collect(
            ranges.into_iter().map(|(_, cells)| cells),
            what,
        )?)
    } else {
        let plan = *plan;
        Cells::later(move || recount(&blocks, &plan, threads))
    };
    Ok(Count::Done(Box::new(Partitioned::new(
        cells, spans, numbers, kinds, threads,
    ))))
}

/// Ranges a thread takes in a run (rayon splits a run in two only where each half holds
/// the least).
fn run(plan: &Plan, threads: usize) -> usize {
    (plan.ranges / threads).max(1)
}

/// Each range's cells counted again from the kept partition, ranges in parallel (whole:
/// a stop request does not cut it short, as the cells are kept).
fn recount<T: Low>(blocks: &[Block<T>], plan: &Plan, threads: usize) -> Result<RangeCells, Error> {
    let each = |scratch: &mut Scratch, r: usize| {
        pages::copied(
            count_range(blocks, r, plan, scratch),
            "a wide table's cells",
        )
    };
    if threads > 1 {
        pool::run(|| {
            (0..plan.ranges)
                .into_par_iter()
                .with_min_len(run(plan, threads))
                .map_init(Scratch::default, each)
                .collect()
        })
    } else {
        let mut scratch = Scratch::default();
        (0..plan.ranges).map(|r| each(&mut scratch, r)).collect()
    }
}

/// Each side's bounds of `bounds`, merged.
fn merged<'b>(bounds: impl Iterator<Item = &'b Bounds>) -> Bounds {
    bounds.fold([(u64::MAX, 0); 2], |[a, b], [x, y]| {
        let both = |(lo, hi): (u64, u64), (l, h): (u64, u64)| (lo.min(l), hi.max(h));
        [both(a, *x), both(b, *y)]
    })
}

/// The partition's first pass over a block: the samples of each range (range `r`'s at
/// `r + 1`, and those outside the plan's spans last), and the keys' bounds.
fn sizes<A: Label, B: Label>(a: &[A], b: &[B], plan: &Plan) -> (Vec<usize>, Bounds) {
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
fn partition<A: Label, B: Label, T: Low>(
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

/// A counting thread's buffers: the dense counts and their cells, the samples to sort and
/// their copy, a marked range's bitmaps, or a hashed range's tables (`quotients`, then
/// `slots`, with its samples left and spilled in `keys` and `spare`, and its repeats in
/// `hist`).
#[derive(Default)]
struct Scratch {
    counts: Vec<u32>,
    cells: Vec<(u32, u32)>,
    keys: Vec<u32>,
    spare: Vec<u32>,
    hist: Vec<u32>,
    marks: Vec<u64>,
    slots: Vec<u32>,
    quotients: Vec<u16>,
}

/// The non-zero cells of range `r` as (low bits, count), in order, in the scratch's
/// buffer.
fn count_range<'s, T: Low>(
    blocks: &[Block<T>],
    r: usize,
    plan: &Plan,
    scratch: &'s mut Scratch,
) -> &'s [(u32, u32)] {
    let samples: usize = blocks.iter().map(|b| b.range(r).len()).sum();
    if plan.mode == Mode::Marked {
        mark_range(blocks, r, plan.shift, scratch);
        return &scratch.cells;
    }
    if plan.mode == Mode::Dense {
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
    } else {
        let keys = sort_range(
            blocks,
            r,
            plan.shift,
            (&mut scratch.keys, &mut scratch.spare),
            &mut scratch.hist,
        );
        runs(keys, &mut scratch.spare, &mut scratch.cells);
        &scratch.cells
    }
}

/// The non-zero cells of range `r`, whose low `bits` number its cells, as (low bits,
/// count), in order, in `scratch.cells`: each sample sets its cell's bit in a bitmap, or,
/// set already, in a second, or, set there too, is put aside; the bits are read out in
/// order (a few cells a word written whatever the word holds, the next cell written over
/// those that were not cells: no branch on a word), each cell's count one, or two if
/// its second bit is set, and the samples put aside added to their cells' counts.
fn mark_range<T: Low>(blocks: &[Block<T>], r: usize, bits: u32, scratch: &mut Scratch) {
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
fn tally_range<T: Low>(
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
fn tally_hashed<T: Low>(
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

/// [`tally_range`] for a dense range: each sample adds one to its cell's count, and what
/// that adds to Σ n_ij² (2c + 1 for a count of c before) and to the non-zero cells; the
/// counts are cleared whole, not read.
fn tally_dense<T: Low>(
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

/// The row and column offsets of a range's cells by their low bits, in any order: the
/// range's first cell is column `first_col` of row `first_row`, and a cell's row and
/// column are those of `first_col + k` in rows of `stride` ([`Plan`]'s `tallies`).
#[derive(Clone, Copy)]
struct CellOffsets {
    first_row: usize,
    first_col: u64,
    by: Stride,
}

/// How a cell's number is split into its row and column: by a shift where rows are a
/// power of two long, else by a [`Divisor`].
#[derive(Clone, Copy)]
enum Stride {
    Shift(u32),
    Divide(Divisor),
}

impl CellOffsets {
    fn new(plan: &Plan, r: usize) -> CellOffsets {
        let base = (r as u64) << plan.shift;
        CellOffsets {
            first_row: (base / plan.stride) as usize,
            first_col: base % plan.stride,
            by: if plan.stride.is_power_of_two() {
                Stride::Shift(plan.stride.ilog2())
            } else {
                Stride::Divide(Divisor::new(plan.stride))
            },
        }
    }

    /// The (row, column) offsets of the cell of low bits `k`.
    #[inline(always)]
    fn of(&self, k: u64) -> (usize, usize) {
        let x = self.first_col + k;
        let (i, j) = match self.by {
            Stride::Shift(log) => (x >> log, x & ((1 << log) - 1)),
            Stride::Divide(by) => by.div_rem(x),
        };
        (self.first_row + i as usize, j as usize)
    }
}

/// Division by a fixed divisor `d` of two or more as a product and a shift (Lemire,
/// Kaser and Kurz, "Faster remainder by direct computation", 2019, theorem 1: exact for
/// numerators below 2^(64 - ⌈log2 d⌉)).
#[derive(Clone, Copy)]
struct Divisor {
    /// ⌈2^64 / d⌉.
    m: u64,
    d: u64,
}

impl Divisor {
    fn new(d: u64) -> Divisor {
        debug_assert!(d > 1);
        Divisor {
            m: u64::MAX / d + 1,
            d,
        }
    }

    /// Whether every numerator up to `x` is divided exactly.
    fn divides_up_to(self, x: u64) -> bool {
        let log_d = u64::BITS - (self.d - 1).leading_zeros();
        x.checked_ilog2().map_or(0, |b| b + 1) + log_d <= 64
    }

    /// `(x / d, x % d)`.
    #[inline(always)]
    fn div_rem(self, x: u64) -> (u64, u64) {
        let q = ((u128::from(self.m) * u128::from(x)) >> 64) as u64;
        (q, x - q * self.d)
    }
}

/// The runs of equal values of sorted `keys`, as (value, length), found without a branch
/// a key: most cells of a table this wide hold one sample, and a loop that ends with each
/// run would mispredict its end about once a key. `starts` is scratch; the runs replace
/// what `out` held.
fn runs(keys: &[u32], starts: &mut Vec<u32>, out: &mut Vec<(u32, u32)>) {
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
fn sort_range<'k, T: Low>(
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
    use crate::count::count_in;
    use crate::table::Table;
    use crate::testing::xorshift;

    fn both(a: &[i64], b: &[u32], window: u64) -> Option<(Table, Plan)> {
        let range = |k: &mut dyn Iterator<Item = u64>| {
            k.fold((u64::MAX, 0), |(l, h), x| (l.min(x), h.max(x)))
        };
        let ra = range(&mut a.iter().map(|x| x.key()));
        let rb = range(&mut b.iter().map(|x| x.key()));
        let plan = Plan::new(a.len(), ra, rb, window)?;
        let one = count(a, b, &plan, 1, true)
            .unwrap()
            .done()
            .into_table_or_stop()
            .unwrap();
        let two = count(a, b, &plan, 2, true)
            .unwrap()
            .done()
            .into_table_or_stop()
            .unwrap();
        assert_eq!(one, two);
        Some((one, plan))
    }

    #[test]
    fn dense_and_sorted_ranges_give_the_usual_table() {
        let mut next = xorshift(7);
        let mut kinds = Vec::new();
        for &(n, ka, kb) in &[
            (100_000usize, 50u64, 20_000u64),
            (80_000, 1, 300_000),
            (60_000, 3000, 3000),
            (40_000, 100_000, 90_000),
            (70_000, 7, 1 << 20),
            // Seven cells a sample: marked, with cells of one to a dozen samples.
            (100_000, 700, 1000),
        ] {
            let a: Vec<i64> = (0..n).map(|_| (next() % ka) as i64 - 3).collect();
            let b: Vec<u32> = (0..n).map(|_| (next() % kb) as u32 + 5).collect();
            let (table, plan) = both(&a, &b, 1 << 12).expect("wide enough");
            assert_eq!(
                table,
                count_in(&a, &b, 1).unwrap(),
                "{n} {ka} {kb} {plan:?}"
            );
            kinds.push(plan.mode);
        }
        for mode in [Mode::Dense, Mode::Marked, Mode::Sorted] {
            assert!(kinds.contains(&mode), "{mode:?}");
        }
    }

    #[test]
    fn kept_as_counted_a_table_answers_as_its_built_table() {
        use crate::counted::Measures;
        let mut next = xorshift(11);
        for &(n, ka, kb, threads) in &[
            (200_000usize, 50u64, 4_000u64, 2),
            (200_000, 50, 4_000, 1),
            (90_000, 40_000, 40_000, 2),
            (90_000, 40_000, 40_000, 1),
            (90_000, 3_000, 1_000, 2),
            // Keys missing from both spans: rows and columns are renumbered.
            (30_000, 200_000, 300_000, 2),
        ] {
            let a: Vec<i64> = (0..n).map(|_| (next() % ka) as i64 * 3 - 7).collect();
            let b: Vec<u32> = (0..n).map(|_| (next() % kb) as u32).collect();
            let (range_a, range_b) = (
                (
                    a.iter().map(|x| x.key()).min().unwrap(),
                    a.iter().map(|x| x.key()).max().unwrap(),
                ),
                (
                    u64::from(*b.iter().min().unwrap()),
                    u64::from(*b.iter().max().unwrap()),
                ),
            );
            let plan = Plan::new(n, range_a, range_b, 1 << 12).expect("wide enough");
            assert_eq!(plan.mode == Mode::Dense, ka == 50);
            for keep in [true, false] {
                let kept = count(&a, &b, &plan, threads, keep).unwrap().done();
                let table = count_in(&a, &b, 1).unwrap();
                let case = format!("{n} {ka} {kb} {threads} {keep}");
                assert_eq!(kept.n(), table.n, "{case}");
                assert_eq!(
                    (kept.n_rows(), kept.n_cols()),
                    (table.n_rows(), table.n_cols())
                );
                assert_eq!(Measures::nnz(&kept), table.cell_count.len(), "{case}");
                assert_eq!(Measures::rows(&kept), &table.rows, "{case}");
                assert_eq!(kept.row_sums(), &table.row_sums[..], "{case}");
                assert_eq!(kept.col_sums(), &table.col_sums[..], "{case}");
                assert_eq!(kept.pair_sums(), Measures::pair_sums(&table), "{case}");
                assert_eq!(Measures::col_sizes(&kept), Measures::col_sizes(&table));
                assert_eq!(
                    Measures::entropy_cols(&kept),
                    Measures::entropy_cols(&table)
                );
                let emi = Measures::expected_mutual_info(&table).unwrap();
                assert_eq!(kept.expected_mutual_info().unwrap(), emi, "{case}");
                assert!(emi > 0.0, "{case}");
                // Not kept, the cells are not counted for the measures of the sums.
                let debug = format!("{kept:?}");
                assert_eq!(debug.contains("Later(not counted)"), !keep, "{case}");
                // Measures of the cells: from the table, built when first asked for.
                assert_eq!(Measures::mutual_info(&kept), Measures::mutual_info(&table));
                assert_eq!(Measures::purity(&kept), Measures::purity(&table));
                assert_eq!(kept.table(), &table, "{case}");
                assert_eq!(kept.into_table(), table, "{case}");
            }
        }
    }

    /// A plan whose spans miss keys (made from a glance) counts nothing and gives the
    /// bounds of every key, read as its first pass counts, on one thread or two.
    #[test]
    fn ranges_tallied_give_the_sums_of_their_cells() {
        use crate::counted::Measures;
        let mut next = xorshift(17);
        let mut modes = Vec::new();
        for &(n, ka, kb, heavy) in &[
            (90_000usize, 3_000u64, 1_000u64, 0u64),
            (90_000, 1_000, 3_000, 40),
            (60_000, 3, 400_000, 200),
            (120_000, 4_000, 1_500, 5),
            (100_000, 60_000, 50_000, 0),
            (100_000, 60_000, 50_000, 300),
            (150_000, 7, 590_000, 70),
            (200_000, 300_000, 300_000, 1000),
            (200_000, 100_000, 100_000, 3000),
            (3_000, 100_000, 100_000, 1),
            (100_000, 50, 4_000, 30),
            (200_000, 20, 15_000, 500),
            (200_000, 100_000, 2, 0),
        ] {
            let mut a: Vec<i64> = (0..n).map(|_| (next() % ka) as i64 - 11).collect();
            let mut b: Vec<u32> = (0..n).map(|_| (next() % kb) as u32 + 3).collect();
            // Cells of many samples, some in one range, some across the last ranges.
            for i in 0..heavy as usize {
                let k = next() as usize % n;
                a[k] = (i % 7) as i64 - 11;
                b[k] = 3 + (i % 5) as u32;
                a[n - 1 - i] = ka as i64 - 12;
                b[n - 1 - i] = kb as u32 + 2 - (i % 3) as u32;
            }
            if heavy == 1 {
                // One cell of two samples, the only one of its range.
                (a[1], b[1]) = (a[0], b[0]);
            }
            let range = |k: &mut dyn Iterator<Item = u64>| {
                k.fold((u64::MAX, 0), |(l, h), x| (l.min(x), h.max(x)))
            };
            let plan = Plan::new(
                n,
                range(&mut a.iter().map(|x| x.key())),
                range(&mut b.iter().map(|x| x.key())),
                1 << 12,
            )
            .expect("wide enough");
            assert!(plan.tallies, "{plan:?}");
            modes.push(plan.mode);
            let table = count_in(&a, &b, 1).unwrap();
            for threads in [1, 2] {
                let tallied = count(&a, &b, &plan, threads, false).unwrap().done();
                let case = format!("{n} {ka} {kb} {heavy} {threads}");
                assert_eq!(tallied.row_sums(), &table.row_sums[..], "{case}");
                assert_eq!(tallied.col_sums(), &table.col_sums[..], "{case}");
                assert_eq!(tallied.pair_sums(), Measures::pair_sums(&table), "{case}");
                assert_eq!(Measures::nnz(&tallied), table.cell_count.len(), "{case}");
                // Its cells, counted when asked for, are the table's.
                assert_eq!(tallied.table(), &table, "{case}");
            }
        }
        for mode in [Mode::Dense, Mode::Marked, Mode::Sorted] {
            assert!(modes.contains(&mode), "{mode:?}");
        }
    }

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

    #[test]
    fn divisor_divides_as_far_as_it_says() {
        let mut next = xorshift(19);
        let mut divisors: Vec<u64> = vec![2, 3, 7, 641, 20_000, 1 << 20, (1 << 26) - 1, 1 << 26];
        divisors.extend(
            (0..300)
                .map(|_| next() >> (32 + next() % 32))
                .filter(|&d| d > 1),
        );
        for d in divisors {
            let by = Divisor::new(d);
            let log_d = 64 - (d - 1).leading_zeros();
            let top = u64::MAX >> log_d;
            assert!(by.divides_up_to(top) && (top == u64::MAX || !by.divides_up_to(top + 1)));
            let mut numerators = vec![0, 1, d - 1, d, top, top - 1, top / d * d];
            numerators.push((top / d * d).saturating_sub(1));
            numerators.extend((0..2_000).map(|_| (next() & top) >> (next() % 64)));
            for x in numerators.into_iter().filter(|&x| x <= top) {
                assert_eq!(by.div_rem(x), (x / d, x % d), "{x} / {d}");
            }
        }
    }

    #[test]
    fn keys_beyond_a_plan_give_their_bounds() {
        let mut next = xorshift(13);
        let n = 50_000;
        let mut a: Vec<i64> = (0..n).map(|_| (next() % 3000) as i64).collect();
        let mut b: Vec<u32> = (0..n).map(|_| (next() % 3000) as u32 + 10).collect();
        let plan = Plan::new(n, (0i64.key(), 2999i64.key()), (10, 3009), 1 << 12).unwrap();
        for threads in [1, 2] {
            assert!(matches!(
                count(&a, &b, &plan, threads, true).unwrap(),
                Count::Done(_)
            ));
        }
        let expect = |a: &[i64], b: &[u32]| {
            let side = |k: &mut dyn Iterator<Item = u64>| {
                k.fold((u64::MAX, 0), |(l, h), x| (l.min(x), h.max(x)))
            };
            [
                side(&mut a.iter().map(|x| x.key())),
                side(&mut b.iter().map(|x| x.key())),
            ]
        };
        // One key below a side's span, one above the other's, at either end of the samples.
        for (i, j) in [(0, n - 1), (n - 1, 0), (n / 2, n / 2 + 1)] {
            let (x, y) = (a[i], b[j]);
            (a[i], b[j]) = (-5, 4000);
            for threads in [1, 2] {
                match count(&a, &b, &plan, threads, false).unwrap() {
                    Count::Beyond(bounds) => assert_eq!(bounds, expect(&a, &b), "{i} {j}"),
                    Count::Done(_) => panic!("counted keys beyond the plan: {i} {j}"),
                }
            }
            (a[i], b[j]) = (x, y);
        }
    }

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

    #[test]
    fn plans_pick_dense_or_sorted_ranges_and_refuse_what_they_cannot_hold() {
        let dense = Plan::new(10_000_000, (0, 49), (0, 199_999), 1 << 22).unwrap();
        assert_eq!(dense.mode, Mode::Dense);
        assert_eq!(dense.ranges, (10_000_000 - 1) / (1 << 16) + 1);
        assert_eq!(dense.stride, 200_000);
        let sorted = Plan::new(10_000_000, (0, 999_999), (0, 999_999), 1 << 22).unwrap();
        assert_eq!((sorted.mode, sorted.stride), (Mode::Sorted, 1 << 20));
        assert!(sorted.shift <= 32 && sorted.ranges <= 4096);
        // 2e7 labels of 1e7 values each: 1e14 cells in rows of 2^24, 1.7e14 numbers, low
        // bits of 32 in some 39,000 ranges.
        let huge = Plan::new(20_000_000, (0, 9_999_999), (0, 9_999_999), 1 << 22).unwrap();
        assert_eq!(
            (huge.shift, huge.ranges, huge.stride),
            (32, (((10_000_000 << 24) - 1) >> 32) + 1, 1 << 24)
        );
        // Rows of a power of two would need 2^17 ranges here: they stay `nb` long.
        let (na, nb) = (3 << 22, (1 << 24) + 1);
        let tight = Plan::new(1 << 23, (0, na - 1), (0, nb - 1), 1 << 22).unwrap();
        assert_eq!(
            (tight.mode, tight.stride, tight.shift),
            (Mode::Sorted, nb, 32)
        );
        assert_eq!(tight.ranges as u64, ((na * nb - 1) >> 32) + 1);
        assert!((sorted.ranges as u64) << sorted.shift >= 1_000_000_000_000);
        assert_eq!(Plan::new(1000, (0, 9), (0, 9), 1 << 12), None);
        assert_eq!(Plan::new(1 << 20, (0, 1 << 40), (0, 9), 1 << 12), None);
        assert_eq!(Plan::new(1 << 20, (0, u64::MAX), (0, 9), 1 << 12), None);
        // 2^26 values a side: 2^52 cells would need 2^20 ranges.
        assert_eq!(
            Plan::new(1 << 26, (0, (1 << 26) - 1), (0, (1 << 26) - 1), 1 << 22),
            None
        );
    }
}
