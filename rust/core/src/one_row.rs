//! Tables in which every column has a single non-empty row: each cluster within one
//! class, as all-singleton predictions are. Such a table is as wide as there are
//! clusters, far past any dense window, and hashing or sorting its cells cost tens of
//! nanoseconds a sample. Here each cluster's key indexes one `u32` of a dense map
//! holding its class and its count: one store a sample, no pairs listed, and the table
//! comes out of the map in two sequential passes.

use rayon::prelude::*;

use crate::label::Label;
use crate::pool;
use crate::table::Table;
use crate::Error;

/// Samples read first to decide whether to try the map: their key ranges must be too
/// wide for a dense window, and no cluster among them in two classes.
const PROBE: usize = 1 << 12;
/// Row offsets the map holds (in its low 16 bits, plus one: 0 is an empty slot).
const ROWS_MAX: u64 = (1 << 16) - 2;
/// A cluster's count in the map's high 16 bits, at most.
const COUNT_MAX: u32 = (1 << 16) - 1;

/// The table of `a` (rows) against `b` (columns) when every column has one non-empty row,
/// the rows' keys span at most [`ROWS_MAX`] + 1 values and the columns' at most a few
/// times the samples; `None` otherwise (then the caller counts as usual, having spent a
/// look at the first samples, or a pass over the keys' ranges, or, where a cluster turns
/// out to hold two classes, the samples up to it). `dense_cells` is the largest window
/// the usual count affords: tables within it are left to it.
pub(crate) fn count<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    dense_cells: u64,
    threads: usize,
) -> Option<Result<Table, Error>> {
    let n = a.len();
    let m = n.min(PROBE);
    if m == 0 {
        return None;
    }
    let range = |keys: &mut dyn Iterator<Item = u64>| {
        keys.fold((u64::MAX, 0), |(lo, hi), k| (lo.min(k), hi.max(k)))
    };
    let (a_lo, a_hi) = range(&mut a[..m].iter().map(|x| x.key()));
    let (b_lo, b_hi) = range(&mut b[..m].iter().map(|y| y.key()));
    let span = |lo: u64, hi: u64| u128::from(hi - lo) + 1;
    let wide = span(a_lo, a_hi) * span(b_lo, b_hi) > u128::from(dense_cells);
    if !wide || a_hi - a_lo > ROWS_MAX || !one_row_each(&a[..m], &b[..m]) {
        return None;
    }
    let ((a_lo, a_hi), (b_lo, b_hi)) =
        pool::run(|| rayon::join(|| key_range(a, threads), || key_range(b, threads)));
    let width = b_hi - b_lo;
    if a_hi - a_lo > ROWS_MAX || width >= u64::from(u32::MAX) || width / 4 > n as u64 {
        return None;
    }
    let map = fill(a, b, a_lo, b_lo, width as usize + 1)?;
    Some(table_of(&map, a_lo, b_lo, A::KIND, B::KIND))
}

/// Whether no column key among these samples comes with two row keys.
fn one_row_each<A: Label, B: Label>(a: &[A], b: &[B]) -> bool {
    let mut pairs: Vec<(u64, u64)> = b
        .iter()
        .map(|y| y.key())
        .zip(a.iter().map(|x| x.key()))
        .collect();
    pairs.sort_unstable();
    pairs
        .windows(2)
        .all(|w| w[0].0 != w[1].0 || w[0].1 == w[1].1)
}

/// The smallest and largest key, on `threads` threads.
fn key_range<T: Label>(x: &[T], threads: usize) -> (u64, u64) {
    let fold = |s: &[T]| {
        s.iter().fold((u64::MAX, 0), |(lo, hi), v| {
            (lo.min(v.key()), hi.max(v.key()))
        })
    };
    let block = x.len().div_ceil(threads).max(1);
    x.par_chunks(block)
        .map(fold)
        .reduce(|| (u64::MAX, 0), |(a, b), (c, d)| (a.min(c), b.max(d)))
}

/// The map: for each column key from `b_lo`, 0 (no sample) or its row's offset from
/// `a_lo` plus one, and its count above bit 16. `None` as soon as a column has two rows
/// or more than [`COUNT_MAX`] samples. On one thread: the stores are random over the
/// map, and two threads (each its own range of columns, reading every sample) were
/// slower.
fn fill<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    a_lo: u64,
    b_lo: u64,
    width: usize,
) -> Option<Vec<u32>> {
    let mut map = vec![0u32; width];
    for (x, y) in a.iter().zip(b) {
        let row = (x.key() - a_lo) as u32 + 1;
        let slot = &mut map[(y.key() - b_lo) as usize];
        if *slot == 0 {
            *slot = row | 1 << 16;
        } else if *slot & 0xffff == row && *slot >> 16 < COUNT_MAX {
            *slot += 1 << 16;
        } else {
            return None;
        }
    }
    Some(map)
}

/// The table held by a filled map: rows in key order, columns in key order, cells row by
/// row (a count of each row's cells, then each cell to its place).
fn table_of(
    map: &[u32],
    a_lo: u64,
    b_lo: u64,
    row_kind: crate::KeyKind,
    col_kind: crate::KeyKind,
) -> Result<Table, Error> {
    let mut row_cells = vec![0usize; ROWS_MAX as usize + 2];
    let mut cols = 0usize;
    for &slot in map {
        if slot != 0 {
            row_cells[(slot & 0xffff) as usize] += 1;
            cols += 1;
        }
    }
    // Row offsets present, their places, and where each row's cells start.
    let mut row_keys = Vec::new();
    let mut row_index = vec![0u32; row_cells.len()];
    let mut start = vec![0usize; row_cells.len()];
    let mut total = 0;
    for (r, &c) in row_cells.iter().enumerate().skip(1) {
        if c > 0 {
            row_index[r] = u32::try_from(row_keys.len()).map_err(|_| Error::TooManyLabels)?;
            row_keys.push(a_lo + (r as u64 - 1));
            start[r] = total;
            total += c;
        }
    }
    let mut row_sums = vec![0u64; row_keys.len()];
    let mut col_keys = Vec::with_capacity(cols);
    let mut col_sums = Vec::with_capacity(cols);
    // One cell a column, so only the cells' columns are placed one by one (each to its
    // row's next place: a write stream a row); their rows are runs, and their counts
    // their columns' sums.
    let mut cell_row = Vec::with_capacity(cols);
    for (r, &c) in row_cells.iter().enumerate().skip(1) {
        cell_row.resize(cell_row.len() + c, row_index[r]);
    }
    let mut cell_col = vec![0u32; cols];
    for (j, &slot) in map.iter().enumerate() {
        if slot == 0 {
            continue;
        }
        let (r, c) = ((slot & 0xffff) as usize, u64::from(slot >> 16));
        let col = u32::try_from(col_keys.len()).map_err(|_| Error::TooManyLabels)?;
        col_keys.push(b_lo + j as u64);
        col_sums.push(c);
        cell_col[start[r]] = col;
        start[r] += 1;
        row_sums[row_index[r] as usize] += c;
    }
    let cell_count = cell_col.iter().map(|&j| col_sums[j as usize]).collect();
    Ok(Table::assemble(
        (row_kind, row_keys, row_sums),
        (col_kind, col_keys, col_sums),
        (cell_row, cell_col, cell_count),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    /// Every sample's pair counted, by label value.
    fn naive<A: Label, B: Label>(a: &[A], b: &[B]) -> BTreeMap<(u64, u64), u64> {
        let mut m = BTreeMap::new();
        for (x, y) in a.iter().zip(b) {
            *m.entry((x.key(), y.key())).or_insert(0) += 1;
        }
        m
    }

    /// The table's cells by key, after checking its order and its sums.
    fn cells(t: &Table) -> BTreeMap<(u64, u64), u64> {
        assert!(t.rows.keys.windows(2).all(|w| w[0] < w[1]));
        assert!(t.cols.keys.windows(2).all(|w| w[0] < w[1]));
        let at = |k: usize| (t.cell_row[k], t.cell_col[k]);
        assert!(
            (1..t.cell_count.len()).all(|k| at(k - 1) < at(k)),
            "cells out of order"
        );
        let (mut rows, mut cols) = (vec![0; t.row_sums.len()], vec![0; t.col_sums.len()]);
        let mut m = BTreeMap::new();
        for k in 0..t.cell_count.len() {
            let (r, c) = (t.cell_row[k] as usize, t.cell_col[k] as usize);
            rows[r] += t.cell_count[k];
            cols[c] += t.cell_count[k];
            m.insert((t.rows.keys[r], t.cols.keys[c]), t.cell_count[k]);
        }
        assert_eq!(rows, t.row_sums);
        assert_eq!(cols, t.col_sums);
        assert_eq!(t.n, t.row_sums.iter().sum::<u64>());
        m
    }

    /// The map's table, which must be taken, against the naive count and the usual one
    /// (the same table to the last field).
    fn by_map<A: Label, B: Label>(a: &[A], b: &[B]) {
        let t = count(a, b, 1 << 22, 2).expect("the map applies").unwrap();
        assert_eq!(cells(&t), naive(a, b));
        assert_eq!(t, crate::count::count_in(a, b, 1).unwrap());
    }

    #[test]
    fn clusters_within_one_class_are_counted_by_the_map() {
        let mut seed = 11;
        let n = 300_000usize;
        // All singletons: a permutation of keys from a negative start, 20 classes.
        let mut p: Vec<i64> = (0..n as i64).map(|i| i - 100_000).collect();
        for i in (1..n).rev() {
            p.swap(i, lcg(&mut seed) as usize % (i + 1));
        }
        let t: Vec<i64> = (0..n).map(|_| (lcg(&mut seed) % 20) as i64 - 7).collect();
        by_map(&t, &p);
        // Clusters of 1 to 4 samples, each within one class (its key's class), keys
        // three apart (empty columns between), classes as u8 with a gap.
        let b: Vec<i32> = (0..n)
            .map(|_| (lcg(&mut seed) % (n as u64 / 2)) as i32 * 3)
            .collect();
        let a: Vec<u8> = b.iter().map(|&y| ((y / 3) % 7) as u8 * 2).collect();
        by_map(&a, &b);
        // Class keys at the map's limit: offsets 0 and ROWS_MAX.
        let a: Vec<u32> = b
            .iter()
            .map(|&y| if y % 2 == 0 { 5 } else { 5 + ROWS_MAX as u32 })
            .collect();
        by_map(&a, &b);
    }

    #[test]
    fn other_tables_are_left_to_the_usual_count() {
        let mut seed = 12;
        let n = 300_000usize;
        let b: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % n as i64).collect();
        let a: Vec<i64> = (0..n).map(|_| (lcg(&mut seed) % 20) as i64).collect();
        // A cluster in two classes, past the first samples looked at: the map is given
        // up on reaching it; then the usual count.
        let (mut a2, mut b2) = (a.clone(), b.clone());
        b2[200_000] = b2[10];
        a2[200_000] = a2[10] + 1;
        // A cluster of 70,000 samples of one class: past the map's counts.
        let (mut a3, mut b3) = (a.clone(), b.clone());
        for k in 0..70_000 {
            (a3[k], b3[k]) = (3, 0);
        }
        // Classes spanning more than the map's row offsets; then clusters too sparse.
        let a4: Vec<i64> = a.iter().map(|&x| x * 10_000).collect();
        let b5: Vec<i64> = b.iter().map(|&y| y * 5).collect();
        for (a, b) in [(&a2, &b2), (&a3, &b3), (&a4, &b), (&a, &b5)] {
            assert!(count(a, b, 1 << 22, 2).is_none());
            assert_eq!(cells(&crate::count(a, b).unwrap()), naive(a, b));
        }
        // Narrow enough for a window: not tried.
        let b6: Vec<i64> = b.iter().map(|&y| y % 1000).collect();
        assert!(count(&a, &b6, 1 << 22, 2).is_none());
    }
}
