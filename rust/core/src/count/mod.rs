//! The one pass over the labels: the driver.
//!
//! Each thread takes a contiguous block of both label slices ([`blocks`]) and walks it
//! in small chunks. A chunk's labels are widened to `u64` keys (order-preserving,
//! see [`Label`]) in a stack buffer together with their minimum and maximum.
//! When the chunk's key ranges fit the thread's dense window (a small
//! row-major array of counts, [`window`]), each pair is one indexed increment; the
//! window grows ([`growth`]) while it stays below a size limit. Pairs outside any
//! affordable window go to the counter's hash map ([`counter`]). The per-thread
//! counters are merged into one [`Table`]. Weighted samples are counted by [`weighted`]. Tables whose every column has one non-empty
//! row, too wide for a window, are counted by [`crate::one_row`] instead.

mod blocks;
mod counter;
mod growth;
mod squares;
pub(crate) mod weight;
pub(crate) mod weighted;
mod wide;
mod window;

use rayon::prelude::*;

use crate::counted::Counted;
use crate::error::Error;
use crate::label::{Constant, Label};
use crate::one_row;
use crate::pages;
use crate::partitioned::Partitioned;
use crate::pool;
use crate::stop;
use crate::table::Table;

pub(crate) use blocks::count_in;
use blocks::{count_columns_block, merge_windows, PRESCAN};
use counter::Counter;
use growth::WINDOW_MAX;

/// Below this many samples the pass runs on the calling thread.
const PARALLEL_MIN: usize = 1 << 16;

/// Builds the contingency table of two labelings in one pass.
pub fn count<A: Label, B: Label>(a: &[A], b: &[B]) -> Result<Table, Error> {
    let threads = threads_for(a, b)?;
    // Clusters each within one class (all singletons, say), too many for a window.
    if let Some(probe) = probe(a, b, threads) {
        if let Some(map) = one_row::count_map(a, b, &probe)? {
            return map.table();
        }
    }
    count_usual(a, b, threads)
}

/// What a count keeps of a table, for what will be asked of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Its cells: the table will be read whole.
    Cells,
    /// What its measures read, in the form it was counted in: all singletons by their rows
    /// alone ([`Counted::Singletons`]), a wide table by its ranges' cells
    /// ([`Counted::Partitioned`]).
    Measures,
    /// As [`Keep::Measures`], for measures of the margins and Σ n_ij² alone (the pair
    /// counts): a wide table keeps the partition its cells were counted in, not the cells,
    /// and counts them again if they are asked for after all.
    Margins,
}

/// [`count`], keeping a table whose every column has one non-empty row in the compact
/// form it was counted in ([`Counted::OneRow`]) when it has many columns, and what `keep`
/// says of the rest.
pub fn count_compact<A: Label, B: Label>(a: &[A], b: &[B], keep: Keep) -> Result<Counted, Error> {
    let threads = threads_for(a, b)?;
    // Clusters each within one class (all singletons, say), too many for a window.
    if let Some(probe) = probe(a, b, threads) {
        if keep != Keep::Cells {
            if let Some(singletons) = one_row::count_singletons(a, b, &probe, threads)? {
                return Ok(Counted::Singletons(singletons));
            }
        }
        if let Some(map) = one_row::count_map(a, b, &probe)? {
            return Ok(if map.worth_keeping() {
                Counted::OneRow(map, Default::default())
            } else {
                // A map holds its table.
                Counted::Table(map.table()?)
            });
        }
    }
    count_usual_compact(a, b, threads, keep)
}

/// The threads to count `a` and `b` on; an error if their lengths differ.
fn threads_for<A: Label, B: Label>(a: &[A], b: &[B]) -> Result<usize, Error> {
    if a.len() != b.len() {
        return Err(Error::LengthMismatch {
            left: a.len(),
            right: b.len(),
        });
    }
    Ok(if a.len() >= PARALLEL_MIN {
        pool::threads()
    } else {
        1
    })
}

/// The key ranges of `a` and `b` if every column of their table may have one non-empty
/// row and the table is too wide for a window ([`one_row::probe`]); only tried from
/// [`PARALLEL_MIN`] samples.
fn probe<A: Label, B: Label>(a: &[A], b: &[B], threads: usize) -> Option<one_row::Probe> {
    if a.len() < PARALLEL_MIN {
        return None;
    }
    one_row::probe(a, b, 2 * WINDOW_MAX, threads)
}

/// [`count`] by windows and hash maps (or by partitions, [`wide`]), on `threads` threads.
fn count_usual<A: Label, B: Label>(a: &[A], b: &[B], threads: usize) -> Result<Table, Error> {
    if let Some(counted) = count_wide(a, b, threads, true)? {
        return counted.into_table_or_stop();
    }
    count_windows(a, b, threads)
}

/// [`count_usual`], keeping a table counted by partitions as it was counted
/// ([`Counted::Partitioned`]) unless `keep` says its cells will be asked for.
fn count_usual_compact<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    threads: usize,
    keep: Keep,
) -> Result<Counted, Error> {
    if let Some(counted) = count_wide(a, b, threads, keep != Keep::Margins)? {
        return Ok(match keep {
            Keep::Cells => Counted::Table(counted.into_table_or_stop()?),
            Keep::Measures | Keep::Margins => Counted::Partitioned(counted),
        });
    }
    count_windows(a, b, threads).map(Counted::Table)
}

/// [`count`] by windows and hash maps.
fn count_windows<A: Label, B: Label>(a: &[A], b: &[B], threads: usize) -> Result<Table, Error> {
    if threads <= 1 {
        return count_in(a, b, 1);
    }
    // Every step in one visit to the pool: each visit from outside it waits for a pool
    // thread to wake and then for the caller to (about 0.1 ms a visit, on two cores).
    pool::run(|| count_in(a, b, threads))
}

/// Samples looked at, spread over the whole labeling, to guess whether a table is too
/// wide for a window before reading every key.
const GLANCE: usize = 1024;

/// The table of `a` against `b` counted by partitions ([`wide`]), if it is too wide for a
/// window and they can count it, keeping its cells if `cells`. The plan is first made
/// for the key spans of a glance, widened by a sixteenth: the partition's first pass
/// reads every key's bounds as it counts, so no pass over the keys is made for their
/// spans alone, and if a key falls outside, the plan is made again for the spans read.
fn count_wide<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    threads: usize,
    cells: bool,
) -> Result<Option<Partitioned>, Error> {
    let n = a.len();
    if n < PARALLEL_MIN {
        return Ok(None);
    }
    let (ga, gb) = (glance(n, |i| a[i].key()), glance(n, |i| b[i].key()));
    if !looks_wide(ga, gb) {
        return Ok(None);
    }
    let window = 2 * WINDOW_MAX;
    let widen = |(lo, hi): (u64, u64)| {
        let more = (hi - lo) / 16 + 1;
        (lo.saturating_sub(more), hi.saturating_add(more))
    };
    let mut plan = wide::Plan::new(n, widen(ga), widen(gb), window);
    if plan.is_none() {
        let (ra, rb) = pool::run(|| {
            rayon::join(
                || one_row::key_range(a, threads),
                || one_row::key_range(b, threads),
            )
        });
        plan = wide::Plan::new(n, ra, rb, window);
    }
    // A plan for the spans read holds every key: at most one plan more.
    for _ in 0..2 {
        let Some(p) = plan else { break };
        match wide::count(a, b, &p, threads, cells)? {
            wide::Count::Done(counted) => return Ok(Some(*counted)),
            wide::Count::Beyond([ra, rb]) => plan = wide::Plan::new(n, ra, rb, window),
        }
    }
    Ok(None)
}

/// The smallest and largest of `key(i)` over the first samples and [`GLANCE`] spread
/// over all `n` of them (at least [`PARALLEL_MIN`]).
fn glance(n: usize, key: impl Fn(usize) -> u64) -> (u64, u64) {
    let step = n / GLANCE;
    (0..n.min(PRESCAN))
        .chain((0..GLANCE).map(|i| i * step))
        .map(key)
        .fold((u64::MAX, 0), |(lo, hi), k| (lo.min(k), hi.max(k)))
}

/// Whether a table whose keys' glances ([`glance`]) span `a` and `b` looks too wide for
/// a window.
fn looks_wide(a: (u64, u64), b: (u64, u64)) -> bool {
    let span = |(lo, hi): (u64, u64)| u128::from(hi - lo) + 1;
    span(a) * span(b) > u128::from(2 * WINDOW_MAX)
}

/// The one-column table of a single labeling: its class sizes, in one pass.
pub fn count_one<A: Label>(a: &[A]) -> Result<Table, Error> {
    // A slice of a zero-sized type: no memory, and the pass reads only `a`.
    let constant = vec![Constant; a.len()];
    count(a, &constant)
}

/// Builds the tables of one labeling `a` against each column of `b`, a row-major
/// `a.len() × width` matrix (a C-ordered 2-D array of predictions), in one pass over
/// both: each chunk of rows is read once, its columns gathered into a small buffer.
pub fn count_columns<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    width: usize,
) -> Result<Vec<Table>, Error> {
    let n = a.len();
    if n.checked_mul(width) != Some(b.len()) {
        return Err(Error::LengthMismatch {
            left: n,
            right: b.len().checked_div(width).unwrap_or(0),
        });
    }
    if width == 0 {
        return Ok(Vec::new());
    }
    let threads = if n >= PARALLEL_MIN {
        pool::threads()
    } else {
        1
    };
    // Wide tables count by partitions, a column at a time (gathered: a copy of it).
    let looks = |j: usize| {
        looks_wide(
            glance(n, |i| a[i].key()),
            glance(n, |i| b[i * width + j].key()),
        )
    };
    if n >= PARALLEL_MIN && (0..width).any(looks) {
        return (0..width)
            .map(|j| {
                let mut column: Vec<B> = pages::with_capacity(n, "a column of labels")?;
                column.extend(b.iter().skip(j).step_by(width).copied());
                count_usual(a, &column, threads)
            })
            .collect();
    }
    let blocks: Vec<Vec<Counter>> = if threads <= 1 {
        vec![count_columns_block(a, b, width)]
    } else {
        let block = n.div_ceil(threads);
        pool::run(|| {
            a.par_chunks(block)
                .zip(b.par_chunks(block * width))
                .map(|(x, y)| count_columns_block(x, y, width))
                .collect()
        })
    };
    stop::check()?;
    let mut per_column: Vec<Vec<Counter>> = (0..width).map(|_| Vec::new()).collect();
    for counters in blocks {
        for (k, counter) in counters.into_iter().enumerate() {
            per_column[k].push(counter);
        }
    }
    per_column
        .into_iter()
        .map(|mut counters| {
            if let Some(error) = counters.iter_mut().find_map(|c| c.error.take()) {
                return Err(error);
            }
            let counters = merge_windows(counters)?;
            let sorted = counters.len() == 1 && counters[0].is_dense();
            let mut cells = Vec::new();
            for counter in counters {
                counter.drain_into(&mut cells)?;
            }
            Table::from_key_cells(cells, sorted, A::KIND, B::KIND, threads)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::blocks::{count_block, count_block_impl, CountBlock};
    use super::window::CHUNK;
    use super::*;
    use crate::cpu::{self, Build};

    fn naive(a: &[i64], b: &[i64]) -> std::collections::BTreeMap<(i64, i64), u64> {
        let mut m = std::collections::BTreeMap::new();
        for (&x, &y) in a.iter().zip(b) {
            *m.entry((x, y)).or_insert(0) += 1;
        }
        m
    }

    fn as_map(t: &Table) -> std::collections::BTreeMap<(i64, i64), u64> {
        (0..t.cell_count.len())
            .map(|k| {
                let r = t.rows.value(t.cell_row[k] as usize) as i64;
                let c = t.cols.value(t.cell_col[k] as usize) as i64;
                ((r, c), t.cell_count[k])
            })
            .collect()
    }

    /// A small deterministic generator, so the tests need no crate.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn matches_naive_count_on_many_shapes() {
        let mut seed = 7;
        for &(n, ka, kb, spread) in &[
            (0usize, 1u64, 1u64, 1i64),
            (1, 1, 1, 1),
            (1000, 3, 5, 1),
            (5000, 20, 30, 1),
            (200_000, 20, 30, 1),
            (200_000, 1000, 1000, 1),
            // A wide window, made a table by row blocks on each thread; with empty rows
            // and columns between the others (keys two apart).
            (400_000, 300, 300, 1),
            (400_000, 300, 300, 2),
            (70_000, 70_000, 50, 1),
            (100_000, 40, 40, 1 << 40),
            // Hash map past SPILL_AT pairs: spilled pairs, radix-sorted (packable keys)...
            (300_000, 300_000, 3, 1 << 33),
            // ...or comparison-sorted (keys too wide to pack).
            (300_000, 300_000, 300_000, 1 << 40),
        ] {
            let a: Vec<i64> = (0..n)
                .map(|_| (lcg(&mut seed) % ka) as i64 * spread - 3)
                .collect();
            let b: Vec<i64> = (0..n)
                .map(|_| (lcg(&mut seed) % kb) as i64 * spread)
                .collect();
            let t = count(&a, &b).unwrap();
            assert_eq!(as_map(&t), naive(&a, &b), "n={n} ka={ka} kb={kb}");
            assert_eq!(t.n, n as u64);
            assert_eq!(t.row_sums.iter().sum::<u64>(), n as u64);
            assert_eq!(t.col_sums.iter().sum::<u64>(), n as u64);
        }
    }

    /// Wide tables are planned from a glance at the keys: keys the glance missed, beyond
    /// its spans widened, make the count plan again, on every `Keep`, with the answer of
    /// a plain count.
    #[test]
    fn keys_a_glance_misses_are_counted() {
        let mut seed = 3;
        let n = 300_000;
        let a0: Vec<i64> = (0..n).map(|_| (lcg(&mut seed) % 3000) as i64).collect();
        let b0: Vec<i64> = (0..n).map(|_| (lcg(&mut seed) % 2000) as i64).collect();
        // Off the glance's samples (every n / 1024th from the first PRESCAN).
        let off = n - 3;
        assert_ne!(off % (n / GLANCE), 0);
        for (x, y) in [
            (None, None),
            (Some(-40_000), None),
            (None, Some(90_000)),
            (Some(9_999), Some(-1)),
        ] {
            let (mut a, mut b) = (a0.clone(), b0.clone());
            if let Some(x) = x {
                a[off] = x;
            }
            if let Some(y) = y {
                b[off - 1] = y;
            }
            let t = count(&a, &b).unwrap();
            assert_eq!(as_map(&t), naive(&a, &b), "{x:?} {y:?}");
            for keep in [Keep::Cells, Keep::Measures, Keep::Margins] {
                let counted = count_compact(&a, &b, keep).unwrap();
                assert_eq!(counted.into_table().unwrap(), t, "{x:?} {y:?} {keep:?}");
            }
        }
    }

    #[test]
    fn sorted_labels_grow_the_window() {
        let a: Vec<u32> = (0..300_000u32).map(|i| i / 300).collect();
        let b: Vec<u8> = (0..300_000u32).map(|i| (i % 7) as u8).collect();
        let t = count(&a, &b).unwrap();
        assert_eq!(t.rows.keys.len(), 1000);
        assert_eq!(t.cols.keys.len(), 7);
        assert!(t.cell_count.iter().all(|&c| c == 42 || c == 43));
    }

    #[test]
    fn windows_at_the_ends_of_a_type_range_do_not_alias() {
        // Chunk by chunk: labels just below the top of the type's range, then nearer the
        // top (the window grows upwards by its own length, which would reach past the top
        // if it were not clamped), then at the bottom, whose offsets from the window wrap
        // around in the `u32` index loop and must still count as outside.
        fn check<T: Label + Into<i64> + TryFrom<i64>>(top: [T; 3], bottom: &[T]) {
            let mut a = Vec::new();
            for (chunk, &(lo, hi)) in [(top[0], top[1]), (top[2], top[2])].iter().enumerate() {
                let (lo, hi) = (lo.into(), hi.into());
                a.extend((0..CHUNK as i64).map(|i| {
                    if chunk == 0 && i == 0 {
                        lo
                    } else {
                        hi - i % (hi - lo + 1)
                    }
                }));
            }
            let a: Vec<i64> = a
                .into_iter()
                .chain(bottom.iter().map(|&x| x.into()))
                .collect();
            let b: Vec<u8> = (0..a.len()).map(|i| (i % 2) as u8).collect();
            let typed: Vec<T> = a.iter().map(|&x| T::try_from(x).ok().unwrap()).collect();
            let t = count(&typed, &b).unwrap();
            let wide_b: Vec<i64> = b.iter().map(|&x| i64::from(x)).collect();
            assert_eq!(as_map(&t), naive(&a, &wide_b));
        }
        let bottom: Vec<u32> = (0..CHUNK as u32).map(|i| i % 50).collect();
        check([u32::MAX - 99, u32::MAX - 9, u32::MAX - 8], &bottom);
        let bottom: Vec<i16> = (0..CHUNK as i16).map(|i| i16::MIN + i % 50).collect();
        check([i16::MAX - 99, i16::MAX - 9, i16::MAX - 8], &bottom);
        let bottom: Vec<i32> = (0..CHUNK as i32).map(|i| i32::MIN + i % 50).collect();
        check([i32::MAX - 99, i32::MAX - 9, i32::MAX - 8], &bottom);
    }

    #[test]
    fn every_build_of_the_counting_loop_counts_alike() {
        // The baseline, AVX2 and AVX-512 builds of one generic loop, each on this CPU if it
        // can run it: the same cells, whichever the dispatch picks.
        fn cells(c: Counter) -> Vec<(u64, u64, u64)> {
            let mut v = Vec::new();
            c.drain_into(&mut v).unwrap();
            v.sort_unstable();
            v
        }
        let mut seed = 11;
        let a: Vec<i32> = (0..50_000)
            .map(|_| (lcg(&mut seed) % 40) as i32 - 20)
            .collect();
        let b: Vec<u16> = (0..50_000)
            .map(|i| {
                if i % 9 == 0 {
                    lcg(&mut seed) as u16
                } else {
                    (lcg(&mut seed) % 70) as u16
                }
            })
            .collect();
        let w: Vec<i64> = a.iter().map(|&x| i64::from(x) << 40).collect();
        let want = cells(count_block_impl(&a, &b));
        let want_wide = cells(count_block_impl(&w, &b));
        for build in [Build::Avx2, Build::Avx512] {
            if let Some(c) = cpu::testing::run_on(build, CountBlock(&a, &b)) {
                assert_eq!(cells(c), want);
            }
            if let Some(c) = cpu::testing::run_on(build, CountBlock(&w, &b)) {
                assert_eq!(cells(c), want_wide);
            }
        }
        let wide = |v: &[i32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        let b64: Vec<i64> = b.iter().map(|&y| i64::from(y)).collect();
        let total: u64 = want.iter().map(|c| c.2).sum();
        assert_eq!(total, 50_000);
        assert_eq!(as_map(&count(&a, &b).unwrap()), naive(&wide(&a), &b64));
    }

    #[test]
    fn lanes_fold_before_they_overflow() {
        // Tests fold the lanes every 5,000 samples: many folds, same counts.
        let a: Vec<u8> = (0..100_003).map(|i| (i % 3) as u8).collect();
        let b: Vec<u8> = (0..100_003).map(|i| (i % 5 == 0) as u8).collect();
        let t = count(&a, &b).unwrap();
        let wide = |v: &[u8]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        assert_eq!(as_map(&t), naive(&wide(&a), &wide(&b)));
        assert_eq!(t.n, 100_003);
    }

    #[test]
    fn narrow_counts_wrap_past_u16() {
        // 100 x 100 keys: a window too large for lanes, counted in `u16`s.
        let mut seed = 11;
        let mixed = |len: usize, seed: &mut u64| -> (Vec<i64>, Vec<i64>) {
            (0..len)
                .map(|i| {
                    if i % 4 == 0 {
                        ((lcg(seed) % 100) as i64, (lcg(seed) % 100) as i64)
                    } else {
                        (5, 7) // one cell counted 3/4 of the time: it wraps on every thread
                    }
                })
                .unzip()
        };
        let (a, b) = mixed(300_000, &mut seed);
        let t = count(&a, &b).unwrap();
        assert_eq!(as_map(&t), naive(&a, &b));
        // A small window (one cell, counted 100,000 times) that grows into a large one.
        let (mut a, mut b) = (vec![0i64; 100_000], vec![0i64; 100_000]);
        let (c, d) = mixed(100_000, &mut seed);
        a.extend(c);
        b.extend(d);
        let t = count(&a, &b).unwrap();
        assert_eq!(as_map(&t), naive(&a, &b));
        assert_eq!(t.n, 200_000);
    }

    #[test]
    fn windows_grow_a_little_for_keys_just_past_their_ends() {
        // Unsorted keys whose extremes are rare: the first window misses them, and grows
        // by a little (not to twice the keys it needs).
        let mut seed = 5;
        let n = 1_000_000;
        let a: Vec<i64> = (0..n).map(|_| (lcg(&mut seed) % 33) as i64).collect();
        let b: Vec<i64> = (0..n)
            .map(|i| {
                if i == n / 2 {
                    -1
                } else if i == n / 3 {
                    10_000
                } else {
                    (lcg(&mut seed) % 10_000) as i64
                }
            })
            .collect();
        let mut counter = count_block(&a, &b);
        let w = counter.window.take().unwrap();
        assert_eq!((w.a0, w.na), (0i64.key(), 33));
        assert!(w.b0 <= (-1i64).key() && w.nb >= 10_002 && w.nb <= 10_400);
        assert!(counter.is_dense());
    }

    #[test]
    fn extreme_values_are_labels() {
        let a = [i64::MIN, i64::MAX, 0, i64::MIN];
        let b = [u64::MAX, 0, u64::MAX, u64::MAX];
        let t = count(&a, &b).unwrap();
        assert_eq!(t.rows.value(0), i128::from(i64::MIN));
        assert_eq!(t.rows.value(2), i128::from(i64::MAX));
        assert_eq!(t.cols.value(1), i128::from(u64::MAX));
        assert_eq!(
            as_map(&t),
            naive(&[i64::MIN, i64::MAX, 0, i64::MIN], &[-1, 0, -1, -1])
                .into_iter()
                .map(|((x, y), c)| ((x, if y == -1 { u64::MAX as i64 } else { y }), c))
                .collect()
        );
    }

    #[test]
    fn one_labeling_counts_its_class_sizes() {
        let a: Vec<i16> = (0..100_000).map(|i| (i % 7) as i16 - 3).collect();
        let t = count_one(&a).unwrap();
        assert_eq!(t.n_cols(), 1);
        assert_eq!(t.rows.keys.len(), 7);
        assert_eq!(t.rows.value(0), -3);
        assert_eq!(t.row_sums.iter().sum::<u64>(), 100_000);
        assert!(t.row_sums.iter().all(|&c| c == 14_285 || c == 14_286));
    }

    #[test]
    fn columns_of_a_matrix_match_separate_counts() {
        let mut seed = 11;
        for &(n, width, kb) in &[
            (0usize, 3usize, 5u64),
            (5, 1, 5),
            (3000, 4, 7),
            (200_000, 10, 60),
            (100_000, 3, 1 << 40),
        ] {
            let a: Vec<i32> = (0..n).map(|_| (lcg(&mut seed) % 33) as i32).collect();
            let b: Vec<i64> = (0..n * width)
                .map(|_| (lcg(&mut seed) % kb) as i64 - 2)
                .collect();
            let tables = count_columns(&a, &b, width).unwrap();
            assert_eq!(tables.len(), width);
            for (k, t) in tables.iter().enumerate() {
                let column: Vec<i64> = b.iter().skip(k).step_by(width).copied().collect();
                let a64: Vec<i64> = a.iter().map(|&x| i64::from(x)).collect();
                assert_eq!(as_map(t), naive(&a64, &column), "n={n} width={width} k={k}");
                assert_eq!(t.n, n as u64);
            }
        }
        assert!(count_columns(&[1i64, 2], &[1i64, 2, 3], 2).is_err());
        assert!(count_columns(&[1i64, 2], &[0i64; 0], 0).unwrap().is_empty());
    }

    #[test]
    fn length_mismatch_is_an_error() {
        assert_eq!(
            count(&[1i64, 2], &[1i64]).unwrap_err(),
            Error::LengthMismatch { left: 2, right: 1 }
        );
    }

    /// `n` samples of `distinct` pairs of keys spread over 2^40 (each pair drawn at random).
    /// `n` samples, each one of `distinct` spread pairs of labels (pair `j` made from `j`
    /// alone, so that a billion of them need no list).
    fn repeated_pairs(n: usize, distinct: u64, seed: u64) -> (Vec<i64>, Vec<i64>) {
        let mut next = crate::testing::xorshift(seed);
        let spread = |j: u64| {
            let mut x = j.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed;
            x ^= x >> 29;
            x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            (
                (x >> 24) as i64,
                ((x ^ (x >> 31)).wrapping_mul(0x94D0_49BB_1331_11EB) >> 24) as i64,
            )
        };
        (0..n).map(|_| spread(next() % distinct)).unzip()
    }

    fn added_up() -> usize {
        counter::tests::ADDED_UP.with(|f| f.get())
    }

    #[test]
    fn a_spill_refused_memory_adds_up_its_repeated_pairs() {
        // 1e6 samples of 1e5 spread pairs: the spill lists each sample (24 MB), its pairs
        // take 2.4 MB. Allocations from 8 MiB refused: the spill grows by eighths, then is
        // added up in place, more than once.
        let (a, b) = repeated_pairs(1_000_000, 100_000, 3);
        let want = naive(&a, &b);
        let before = added_up();
        let got = crate::alloc::refusing_from(8 << 20, || count_in(&a, &b, 1)).unwrap();
        assert!(added_up() - before >= 2, "{}", added_up() - before);
        assert_eq!(as_map(&got), want);
        assert_eq!(got, count_in(&a, &b, 1).unwrap());
        // Distinct pairs cannot be listed in less: refused, naming the spill.
        let (a, b) = repeated_pairs(1_000_000, 1_000_000_000, 4);
        let got = crate::alloc::refusing_from(8 << 20, || count_in(&a, &b, 1));
        assert!(
            matches!(got, Err(Error::OutOfMemory { what, .. }) if what.contains("pairs of labels")),
            "{got:?}"
        );
    }

    #[test]
    fn counters_merged_in_refused_memory_add_up_their_pairs() {
        // Two threads' counters, the first's spill becoming the list of cells: the second's
        // (19 MB) does not fit beside it under a 4 MiB refusal until both are added up.
        let (a, b) = repeated_pairs(1_000_000, 100_000, 5);
        let (first, second) = (count_block(&a[..200_000], &b[..200_000]), {
            count_block(&a[200_000..], &b[200_000..])
        });
        let before = added_up();
        let got = crate::alloc::refusing_from(4 << 20, || {
            let mut cells = Vec::new();
            first.drain_into(&mut cells)?;
            second.drain_into(&mut cells)?;
            Table::from_key_cells(cells, false, i64::KIND, i64::KIND, 1)
        })
        .unwrap();
        assert_eq!(added_up() - before, 2);
        assert_eq!(as_map(&got), naive(&a, &b));
    }

    #[test]
    fn a_window_refused_memory_leaves_its_pairs_to_the_hash_map() {
        // Four pairs of keys 300 apart: a window of 90,000 cells, or (its memory refused) a
        // hash map of four.
        let mut seed = 17;
        let mut pick = || {
            if lcg(&mut seed).is_multiple_of(2) {
                0i64
            } else {
                299
            }
        };
        let (a, b): (Vec<i64>, Vec<i64>) = (0..200_000).map(|_| (pick(), pick())).unzip();
        assert!(count_block(&a, &b).window.is_some());
        let refused = crate::alloc::refusing_from(1 << 16, || count_block(&a, &b));
        assert!(refused.window.is_none());
        let got = crate::alloc::refusing_from(1 << 16, || count_in(&a, &b, 1)).unwrap();
        assert_eq!(as_map(&got), naive(&a, &b));
    }
}
