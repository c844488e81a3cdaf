//! Tables too wide for a dense window: a hundred thousand metacells against thirty cell
//! types, two fine clusterings, a million labels a side. Counted by partitions, as
//! analytical databases aggregate: each pair of keys is one cell number,
//! `(key_a - a_lo) * stride + (key_b - b_lo)`, in rows of `nb` numbers or, for the widest
//! tables, of the power of two at or above it; a first pass counts the samples of each range
//! of cell numbers (their top bits), a second copies each sample's low bits into its
//! range (a cache line at a time, past the caches), and each range is then counted within
//! a core's cache, ranges in parallel: in a dense array of 2^16 counts when the table has
//! at most [`DENSE_PER_SAMPLE`](plan::DENSE_PER_SAMPLE) cells a sample, as bits set in a
//! bitmap of its cells up to [`MARKED_PER_SAMPLE`](plan::MARKED_PER_SAMPLE), by sorting
//! its some ten thousand samples otherwise. The plan may be made for spans guessed from a
//! glance at the keys: the first pass reads every key's bounds, and the count stops there
//! if a key is beyond the plan. Ranges are in cell order, so the cells come out sorted by
//! row, then column, as a
//! [`crate::Table`] holds them, and are kept as counted ([`Partitioned`]); or, for the
//! pair counts alone, only their sums are kept, with the partition to count the cells
//! again from if they are asked for. Those sums of ranges too sparse for a dense array
//! are added up from the samples, with no cell counted ([`tally_range`],
//! [`tally_hashed`]). The counters' hash maps and their spill, which count such tables
//! otherwise, took 0.9 to 2.3 s for the four wide shapes of `benches/test_bench_wide.py`
//! at 1e7 samples; partitions take 23 to 43 ms for ARI.
//!
//! This module holds the count's driver and its dispatch of each range to its kernel;
//! [`plan`] the plan (the ranges, how each is counted, a range's rows and columns),
//! [`partition`] the partition's two passes, [`scratch`] a counting thread's buffers,
//! and one file each the kernels of the forms of range: [`dense`] (an array of counts),
//! [`marked`] (a bitmap of cells), [`sorted`] (a radix sort and its runs) and [`hashed`]
//! (a sorted range's sums tallied through hash tables).

mod dense;
mod hashed;
mod marked;
mod partition;
mod plan;
mod scratch;
mod sorted;

use rayon::prelude::*;

use crate::alloc;
use crate::error::Error;
use crate::label::Label;
use crate::memory;
use crate::pages;
use crate::pool;
use crate::stop;

use crate::partitioned::{Cells, Partitioned, RangeCells, Spans};

use dense::tally_dense;
use hashed::tally_hashed;
use marked::{mark_range, tally_range};
use partition::{partition, sizes, Block, Low};
pub(super) use plan::Plan;
use plan::{Bounds, Mode, DENSE_BITS};
use scratch::Scratch;
use sorted::{runs, sort_range};

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

/// The non-zero cells of range `r` as (low bits, count), in order, in the scratch's
/// buffer. A dense range's are counted here, not in a function of [`dense`] of their own:
/// that changed the code of the whole of this function (under callgrind, 0.8 % more
/// instructions in it for marked and sorted ranges, even inlined).
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
}
