//! The weighted pass: each sample adds its weight to its cell, in one pass over the
//! labels and the weights.
//!
//! A weight is added as an exact integer number of units of 2^-64 (a float rounded to
//! the nearest unit, half up; an integer shifted), in a `u128` per cell: sums of such
//! integers are exact, so a cell's sum depends on neither the order of the samples nor
//! the number of threads. The caller checks the weights first (finite, non-negative,
//! totalling less than 2^62, so that no sum can overflow). Each thread adds into a dense
//! window of cells while the keys stay within an affordable rectangle ([`growth`]'s
//! policy), and into a hash map beyond it; the threads' cells merge by key.
//!
//! [`growth`]: super::growth

mod counter;

use rayon::prelude::*;

use crate::alloc;
use crate::error::Error;
use crate::label::Label;
use crate::pool;
use crate::stop;
use crate::table::{sort_cells, Table};

use super::squares::{fused_squares, row_squares, Squares};
use super::weight::{Weights, UNIT_BITS};
use counter::{count_block, Counter, TOTAL_MAX};

/// Below this many samples the pass runs on the calling thread.
const PARALLEL_MIN: usize = 1 << 16;

/// The weighted table: `table` holds the cells (row-major), their rows and columns and
/// the label keys; when every weight is a whole number its counts are the cells' sums
/// (each sample counts as that many samples) and `units` and `squares` are `None`.
/// Otherwise its counts are not the sums (each is 1), `units` holds each cell's sum in
/// units of 2^-64, in the same order, and `squares` each row's sum of its samples'
/// squared weights in units of 2^-128 (for the pairs of distinct samples; a whole weight
/// `k` stands for `k` samples of weight 1).
pub struct Weighted {
    pub table: Table,
    pub units: Option<Vec<u128>>,
    pub squares: Option<Vec<Squares>>,
}

impl Weighted {
    /// Each row's sum of `units`, and each column's.
    pub fn margins(&self, units: &[u128]) -> Result<(Vec<u128>, Vec<u128>), Error> {
        const WHAT: &str = "the weighted sums of a table's rows and columns";
        let t = &self.table;
        let mut rows = alloc::filled(t.n_rows(), 0u128, WHAT)?;
        let mut cols = alloc::filled(t.n_cols(), 0u128, WHAT)?;
        for ((&r, &c), &u) in t.cell_row.iter().zip(&t.cell_col).zip(units) {
            rows[r as usize] += u;
            cols[c as usize] += u;
        }
        Ok((rows, cols))
    }
}

/// The table of `a` against `b` whose cells sum the weights `w` of their samples, in
/// one pass over the three slices, which also checks the weights: the first refused
/// one is an error ([`Weight::refused`]), so is a total of 2^62 or more. Cells whose
/// weights sum to zero are left out (a sample of weight 0 is no sample), so are classes
/// and clusters left empty. When some weight is not a whole number, each row's squared
/// weights are summed too: float weights in the pass itself while every sample falls in
/// its thread's dense window ([`Fused`]), otherwise by a second pass over `a` and `w`
/// (`row_squares`).
///
/// [`Weight::refused`]: super::weight::Weight::refused
/// [`Fused`]: super::squares::Fused
pub fn count_weighted<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    w: Weights<'_>,
) -> Result<Weighted, Error> {
    for (left, right) in [(a.len(), b.len()), (a.len(), w.len())] {
        if left != right {
            return Err(Error::LengthMismatch { left, right });
        }
    }
    let n = a.len();
    let threads = if n >= PARALLEL_MIN {
        pool::threads()
    } else {
        1
    };
    let counters: Vec<Result<Counter, Error>> = if threads <= 1 {
        vec![count_block(a, b, w, 0)]
    } else {
        let block = n.div_ceil(threads);
        pool::run(|| {
            a.par_chunks(block)
                .zip(b.par_chunks(block))
                .enumerate()
                .map(|(k, (x, y))| {
                    let start = k * block;
                    count_block(x, y, w.range(start, start + x.len()), start)
                })
                .collect()
        })
    };
    let counters = counters.into_iter().collect::<Result<Vec<_>, _>>()?;
    let total = counters.iter().map(|c| c.total).sum::<u128>();
    if total >= TOTAL_MAX {
        return Err(Error::WeightTotal);
    }
    let whole = counters.iter().all(|c| c.fraction == 0);
    // The squares summed by the pass itself, if every counter could (float weights, every
    // sample in its dense window of at most `BUCKET_ROWS` rows).
    let mut fused = counters
        .iter()
        .all(|c| c.squares.is_some())
        .then(|| Vec::with_capacity(counters.len()));
    let mut cells = Vec::new();
    for mut counter in counters {
        if let (Some(parts), Some(f)) = (&mut fused, counter.squares.take()) {
            parts.push(f);
        }
        counter.drain_into(&mut cells)?;
    }
    stop::check()?;
    // Wide tables sort millions of cells: the sort stops on request.
    sort_cells(&mut cells, threads)?;
    cells.retain(|c| c.2 != 0);
    cells.shrink_to_fit();
    // Whole weights sum to whole counts (below 2^62); otherwise the counts are
    // placeholders and the sums kept.
    let keyed = alloc::collect(
        cells
            .iter()
            .map(|&(x, y, u)| (x, y, if whole { (u >> UNIT_BITS) as u64 } else { 1 })),
        "the cells of a weighted table",
    )?;
    let units = if whole {
        None
    } else {
        Some(alloc::collect(
            cells.iter().map(|c| c.2),
            "the weighted sums of a table's cells",
        )?)
    };
    let table = Table::from_key_cells(keyed, true, A::KIND, B::KIND, threads)?;
    let squares = if whole {
        None
    } else if let Some(parts) = fused {
        #[cfg(test)]
        tests::FUSED.with(|f| f.set(f.get() + 1));
        Some(fused_squares(parts, &table.rows.keys)?)
    } else {
        Some(row_squares(a, w, &table.rows.keys, threads)?)
    };
    Ok(Weighted {
        table,
        units,
        squares,
    })
}

#[cfg(test)]
mod tests {
    use super::counter::tests::SPLIT;
    use super::*;
    use crate::count::weight::Weight;
    use crate::count::window::CHUNK;

    trait AsWeights {
        fn weights(&self) -> Weights<'_>;
    }
    impl AsWeights for Vec<f64> {
        fn weights(&self) -> Weights<'_> {
            Weights::F64(self)
        }
    }
    impl AsWeights for [f64; 5] {
        fn weights(&self) -> Weights<'_> {
            Weights::F64(self)
        }
    }
    impl AsWeights for Vec<i64> {
        fn weights(&self) -> Weights<'_> {
            Weights::I64(self)
        }
    }
    impl AsWeights for [u64; 5] {
        fn weights(&self) -> Weights<'_> {
            Weights::U64(self)
        }
    }
    fn wf<W: AsWeights>(w: &W) -> Weights<'_> {
        w.weights()
    }

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn sums_match_a_naive_sum_on_every_shape_and_thread_count() {
        let mut seed = 3;
        for &(n, ka, kb) in &[
            (0usize, 1u64, 1u64),
            (5, 2, 2),
            (200_000, 20, 30),
            (200_000, 5_000, 5_000),
            (300_000, 300_000, 3),
        ] {
            let a: Vec<i64> = (0..n).map(|_| (lcg(&mut seed) % ka) as i64 - 5).collect();
            let b: Vec<u32> = (0..n).map(|_| (lcg(&mut seed) % kb) as u32).collect();
            let w: Vec<f64> = (0..n)
                .map(|_| (lcg(&mut seed) % 1000) as f64 / 7.0)
                .collect();
            let mut naive = std::collections::BTreeMap::new();
            for ((&x, &y), &v) in a.iter().zip(&b).zip(&w) {
                *naive.entry((x, y)).or_insert(0u128) += v.units();
            }
            naive.retain(|_, u| *u != 0);
            let got = count_weighted(&a, &b, wf(&w)).unwrap();
            let t = &got.table;
            let units = got.units.clone().unwrap_or_default();
            let mut map = std::collections::BTreeMap::new();
            for ((&r, &c), &u) in t.cell_row.iter().zip(&t.cell_col).zip(&units) {
                let x = t.rows.value(r as usize) as i64;
                let y = t.cols.value(c as usize) as u32;
                map.insert((x, y), u);
            }
            assert_eq!(map, naive, "n={n}");
            let (rows, cols) = got.margins(&units).unwrap();
            assert_eq!(rows.iter().sum::<u128>(), naive.values().sum::<u128>());
            assert_eq!(cols.iter().sum::<u128>(), naive.values().sum::<u128>());
        }
    }

    thread_local! {
        /// How many calls on this thread took their squares from the counting pass.
        pub(super) static FUSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn split_chunks_sum_as_the_general_path_does() {
        let mut seed = 5;
        let mut next = || lcg(&mut seed);
        // One thread (below `PARALLEL_MIN`), one window of 12 x 9 cells.
        let n: usize = 50_000;
        let a: Vec<i64> = (0..n).map(|_| (next() % 12) as i64).collect();
        let b: Vec<u16> = (0..n).map(|_| (next() % 9) as u16).collect();
        // Real weights, whole ones, zeros, weights below 2^-12 and below 2^-64.
        let w: Vec<f64> = (0..n)
            .map(|_| match next() % 6 {
                0 => (next() % 4) as f64,
                1 => (next() % 1000) as f64 * 1e-7,
                2 => (next() % 1000) as f64 * 1e-21,
                _ => (next() % 100_000) as f64 / 7.0,
            })
            .collect();
        // The same weights with a -0.0 in every chunk (the weight of a 0.0, but sent to
        // the general path).
        let mut general = w.clone();
        general.iter_mut().step_by(CHUNK).for_each(|x| *x = -0.0);
        let mut split = w.clone();
        split.iter_mut().step_by(CHUNK).for_each(|x| *x = 0.0);
        let count = |w: &[f64]| {
            let before = SPLIT.with(|f| f.get());
            let got = count_weighted(&a, &b, Weights::F64(w)).unwrap();
            (got, SPLIT.with(|f| f.get()) - before)
        };
        let ((want, none), (got, chunks)) = (count(&general), count(&split));
        assert_eq!((none, chunks), (0, n.div_ceil(CHUNK) - 1));
        assert_eq!(got.units, want.units);
        assert_eq!(got.squares, want.squares);
        assert_eq!(got.table.cell_row, want.table.cell_row);
        assert_eq!(got.table.cell_col, want.table.cell_col);
        // A naive sum of each cell's units.
        let mut naive = std::collections::BTreeMap::new();
        for ((&x, &y), &v) in a.iter().zip(&b).zip(&split) {
            *naive.entry((x, y)).or_insert(0u128) += v.units();
        }
        assert_eq!(got.units.unwrap(), naive.into_values().collect::<Vec<_>>());
    }

    #[test]
    fn squares_summed_in_the_pass_equal_the_second_pass() {
        let mut seed = 11;
        let mut next = || lcg(&mut seed);
        // (samples, keys of a in the first half, in the second, keys of b, fused)
        for &(n, ka1, ka2, kb, fused) in &[
            (200_000usize, 20u64, 20u64, 30u64, true),
            (1_000, 3, 3, 4, true),
            // The window grows midway: the squares' rows follow it.
            (300_000, 5, 900, 40, true),
            // More rows than the buckets hold, or keys spread past any window.
            (200_000, 20, 3_000, 10, false),
            (100_000, 1 << 40, 1 << 40, 1 << 40, false),
        ] {
            let a: Vec<i64> = (0..n)
                .map(|i| (next() % if i < n / 2 { ka1 } else { ka2 }) as i64 - 7)
                .collect();
            let b: Vec<u64> = (0..n).map(|_| next() % kb).collect();
            // Real weights, whole ones, zeros and weights below 2^-12 (the buckets' `small`).
            let w: Vec<f64> = (0..n)
                .map(|_| match next() % 5 {
                    0 => (next() % 4) as f64,
                    1 => (next() % 1000) as f64 * 1e-7,
                    _ => (next() % 100_000) as f64 / 7.0,
                })
                .collect();
            let before = FUSED.with(|f| f.get());
            let got = count_weighted(&a, &b, wf(&w)).unwrap();
            assert_eq!(
                FUSED.with(|f| f.get()) - before,
                usize::from(fused),
                "n={n}"
            );
            let keys = &got.table.rows.keys;
            let want = row_squares(&a, wf(&w), keys, 1).unwrap();
            assert_eq!(got.squares.unwrap(), want, "n={n} ka={ka2}");
        }
    }

    #[test]
    fn whole_weights_give_the_table_of_repeated_samples() {
        let a = [1i64, 1, 2, 2, 3];
        let b = [0u8, 0, 1, 1, 1];
        let w = [2.0f64, 1.0, 1.0, 0.0, 0.0];
        let got = count_weighted(&a, &b, wf(&w)).unwrap();
        assert!(got.units.is_none() && got.squares.is_none());
        let t = &got.table;
        assert_eq!(t.cell_count, vec![3, 1]);
        assert_eq!(t.n, 4);
        // Weights of 0.5 sum to a whole cell, but are not whole: the sums are kept, and
        // each row's sum of squares in units of 2^-128: 3 for class 1 (whole weights are
        // samples of weight 1), 1/2 for class 2.
        let w = [2.0f64, 1.0, 0.5, 0.5, 0.0];
        let got = count_weighted(&a, &b, wf(&w)).unwrap();
        assert_eq!(got.units, Some(vec![3 << 64, 1 << 64]));
        assert_eq!(got.squares, Some(vec![[0, 0, 3, 0], [0, 1 << 63, 0, 0]]));
        // Class 3 weighs nothing: it is not in the table.
        assert_eq!(t.rows.keys.len(), 2);
        let w = [2u64, 1, 1, 1, 4];
        let got = count_weighted(&a, &b, wf(&w)).unwrap();
        assert_eq!(got.table.cell_count, vec![3, 2, 4]);
        assert!(count_weighted(&a, &b, Weights::F64(&[1.0f64; 4])).is_err());
    }

    #[test]
    fn refused_weights_are_errors_naming_the_first() {
        let n = 200_000;
        let a: Vec<i64> = (0..n).map(|i| i % 7).collect();
        let b: Vec<u8> = (0..n).map(|i| (i % 5) as u8).collect();
        for bad in [
            -1.0,
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            2f64.powi(52),
            -1e-300,
        ] {
            let mut w = vec![1.0f64; n as usize];
            w[150_001] = bad;
            w[170_000] = bad;
            match count_weighted(&a, &b, wf(&w)) {
                Err(Error::BadWeight { index, .. }) => assert_eq!(index, 150_001),
                other => panic!("{bad}: {:?}", other.map(|_| ())),
            }
        }
        let mut w = vec![1.0f64; n as usize];
        w[9] = -0.0;
        assert!(count_weighted(&a, &b, wf(&w)).is_ok());
        let w = vec![-3i64; n as usize];
        assert!(matches!(
            count_weighted(&a, &b, wf(&w)),
            Err(Error::BadWeight { index: 0, .. })
        ));
        let w = vec![2f64.powi(51); n as usize];
        assert_eq!(
            count_weighted(&a, &b, wf(&w)).err(),
            Some(Error::WeightTotal)
        );
    }

    #[test]
    fn a_weighted_spill_refused_memory_adds_up_its_repeated_pairs() {
        // 1e6 samples of 1e5 pairs spread over 2^40, real weights: the spill lists each
        // sample (32 MB). Allocations from 8 MiB refused: its repeated pairs are added up.
        let mut next = crate::testing::xorshift(8);
        let pairs: Vec<(i64, i64)> = (0..100_000)
            .map(|_| ((next() >> 24) as i64, (next() >> 24) as i64))
            .collect();
        let (a, b): (Vec<i64>, Vec<i64>) = (0..1_000_000)
            .map(|_| pairs[next() as usize % pairs.len()])
            .unzip();
        let w: Vec<f64> = (0..a.len()).map(|_| (next() % 1000) as f64 / 7.0).collect();
        let cells = || -> Result<Vec<(u64, u64, u128)>, Error> {
            let mut cells = Vec::new();
            count_block(&a, &b, Weights::F64(&w), 0)?.drain_into(&mut cells)?;
            sort_cells(&mut cells, 1)?;
            Ok(cells)
        };
        let added_up = || crate::count::counter::tests::ADDED_UP.with(|f| f.get());
        let want = cells().unwrap();
        let before = added_up();
        let got = crate::alloc::refusing_from(8 << 20, cells).unwrap();
        assert!(added_up() - before >= 2, "{}", added_up() - before);
        assert_eq!(got, want);
        // A naive sum of units, pair by pair.
        let mut naive = std::collections::BTreeMap::new();
        for ((&x, &y), &v) in a.iter().zip(&b).zip(&w) {
            *naive.entry((x.key(), y.key())).or_insert(0u128) += Weight::units(v);
        }
        let naive: Vec<(u64, u64, u128)> = naive
            .into_iter()
            .filter(|&(_, u)| u != 0)
            .map(|((x, y), u)| (x, y, u))
            .collect();
        let got: Vec<(u64, u64, u128)> = got.into_iter().filter(|c| c.2 != 0).collect();
        assert_eq!(got, naive);
    }
}
