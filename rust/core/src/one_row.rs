//! Tables in which every column has a single non-empty row: each cluster within one
//! class, as all-singleton predictions are. Such a table is as wide as there are
//! clusters, far past any dense window, and hashing or sorting its cells cost tens of
//! nanoseconds a sample. Here each cluster's key indexes one `u32` of a dense map
//! holding its class and its count: one store a sample, no pairs listed.
//!
//! The map is also what the table is kept as ([`OneRow`]): four bytes a cluster key,
//! against 32 bytes a cluster for a [`Table`] (its cell's row, column and count, the
//! column's key and sum). Every measure is computed from the map directly; the
//! [`Table`] is built, in two sequential passes, only when asked for.

use rayon::prelude::*;

use crate::count::{key_bounds, prefetch};
use crate::counted::Counted;
use crate::label::{KeyKind, Label};
use crate::pool;
use crate::table::{Keys, Table};

/// Samples read first to decide whether to try the map: their key ranges must be too
/// wide for a dense window, and no cluster among them in two classes.
const PROBE: usize = 1 << 12;
/// Row offsets the map holds (in its low 16 bits, plus one: 0 is an empty slot).
const ROWS_MAX: u64 = (1 << 16) - 2;
/// A cluster's count in the map's high 16 bits, at most.
pub(crate) const COUNT_MAX: u32 = (1 << 16) - 1;
/// Tables of at most this many clusters are handed over as a [`Table`] (it takes at
/// most a few megabytes), so that small and narrow tables take the one usual path.
const KEEP_MAP_MIN: usize = 1 << 16;

/// A table every column of which has a single non-empty row, kept as the map it was
/// counted in: its columns are the non-zero slots of the map, in key order. Or, counted
/// for its measures only, a table of singletons (every cluster a single sample), kept as
/// its rows alone: which cluster is in which row is not kept, nor the clusters' keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneRow {
    /// The rows (classes) present.
    pub(crate) rows: Keys,
    pub(crate) row_sums: Vec<u64>,
    /// By a slot's row offset plus one (its low 16 bits): the row's index, or `u32::MAX`
    /// for no row.
    pub(crate) row_of: Vec<u32>,
    pub(crate) col_kind: KeyKind,
    /// The key of the map's first slot.
    pub(crate) b_lo: u64,
    /// Per column key from `b_lo`: 0 for no sample, or its row's offset plus one and
    /// its count above bit 16. `None` for singletons counted for their measures only.
    pub(crate) map: Option<Vec<u32>>,
    pub(crate) n_cols: usize,
    /// Σ b_j² (each column's one cell is its sum).
    pub(crate) cols_sq: u128,
    pub(crate) n: u64,
}

impl OneRow {
    /// Number of samples.
    pub fn n(&self) -> u64 {
        self.n
    }

    pub fn n_rows(&self) -> usize {
        self.rows.keys.len()
    }

    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// The rows' keys.
    pub fn rows(&self) -> &Keys {
        &self.rows
    }

    pub fn row_sums(&self) -> &[u64] {
        &self.row_sums
    }

    /// The map's non-empty slots: each column's row offset plus one, and its count above
    /// bit 16. None for singletons counted for their measures only.
    pub(crate) fn slots(&self) -> Option<impl Iterator<Item = u32> + Clone + '_> {
        let map = self.map.as_ref()?;
        Some(map.iter().copied().filter(|&slot| slot != 0))
    }

    /// The same table as a [`Table`]: rows in key order, columns in key order, cells row
    /// by row (a count of each row's cells, then each cell to its place). `None` for
    /// singletons counted for their measures only.
    pub fn table(&self) -> Option<Table> {
        let map = self.map.as_ref()?;
        let rows = self.n_rows();
        let mut row_cells = vec![0usize; rows];
        for &slot in map.iter().filter(|&&slot| slot != 0) {
            row_cells[self.row_of[(slot & 0xffff) as usize] as usize] += 1;
        }
        // Where each row's cells start.
        let mut start = Vec::with_capacity(rows);
        let mut total = 0;
        for &c in &row_cells {
            start.push(total);
            total += c;
        }
        let cols = self.n_cols;
        let mut col_keys = Vec::with_capacity(cols);
        let mut col_sums = Vec::with_capacity(cols);
        // One cell a column, so only the cells' columns are placed one by one (each to its
        // row's next place: a write stream a row); their rows are runs, and their counts
        // their columns' sums. Column indices fit `u32`: the map is narrower.
        let mut cell_row = Vec::with_capacity(cols);
        for (r, &c) in row_cells.iter().enumerate() {
            cell_row.resize(cell_row.len() + c, r as u32);
        }
        let mut cell_col = vec![0u32; cols];
        for (j, &slot) in map.iter().enumerate() {
            if slot == 0 {
                continue;
            }
            let r = self.row_of[(slot & 0xffff) as usize] as usize;
            cell_col[start[r]] = col_keys.len() as u32;
            start[r] += 1;
            col_keys.push(self.b_lo + j as u64);
            col_sums.push(u64::from(slot >> 16));
        }
        let cell_count = cell_col.iter().map(|&j| col_sums[j as usize]).collect();
        Some(Table::assemble(
            (
                self.rows.kind,
                self.rows.keys.clone(),
                self.row_sums.clone(),
            ),
            (self.col_kind, col_keys, col_sums),
            (cell_row, cell_col, cell_count),
        ))
    }
}

/// The table of `a` (rows) against `b` (columns) when every column has one non-empty row,
/// the rows' keys span at most [`ROWS_MAX`] + 1 values and the columns' at most a few
/// times the samples; `None` otherwise (then the caller counts as usual, having spent a
/// look at the first samples, or a pass over the keys' ranges, or, where a cluster turns
/// out to hold two classes, the samples up to it). `dense_cells` is the largest window
/// the usual count affords: tables within it are left to it. A table of more than
/// [`KEEP_MAP_MIN`] columns is kept as its map. Unless `cells` (the cells will be asked
/// for), all singletons are counted with one bit a cluster key, and kept as their rows.
pub(crate) fn count<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    dense_cells: u64,
    threads: usize,
    cells: bool,
) -> Option<Counted> {
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
    if !cells && n > KEEP_MAP_MIN {
        let sizes = (width as usize + 1, threads);
        if let Some(rows) = singletons(a, b, (a_lo, a_hi), b_lo, sizes) {
            return Some(Counted::OneRow(
                of_rows(rows, a_lo, (A::KIND, B::KIND), None, (n, n as u128)),
                std::sync::OnceLock::new(),
            ));
        }
    }
    let map = fill(a, b, a_lo, b_lo, width as usize + 1)?;
    let t = one_row_of(map, (a_lo, a_hi), b_lo, A::KIND, B::KIND);
    Some(if t.n_cols > KEEP_MAP_MIN {
        Counted::OneRow(t, std::sync::OnceLock::new())
    } else {
        // A map holds its table.
        Counted::Table(t.table()?)
    })
}

/// Per row offset from `a_lo`, its number of samples, if no two samples share a column
/// key: one bit a key of `width` from `b_lo` (a 32nd of a map's bytes, so within the
/// caches far longer). `None` at the first key seen twice.
fn singletons<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    (a_lo, a_hi): (u64, u64),
    b_lo: u64,
    (width, threads): (usize, usize),
) -> Option<Vec<u64>> {
    let words = width.div_ceil(64);
    let offsets = (a_hi - a_lo) as usize + 1;
    // Each thread marks its block of samples in bits of its own; then no key may be in
    // two threads' bits.
    let block = |(x, y): (&[A], &[B])| {
        let mut seen = vec![0u64; words];
        let mut rows = vec![0u64; offsets];
        // Prefetching only pays where the bits are past the caches nearest the core (it
        // costs about as many instructions as the rest).
        let seen_ok = if words > FAR_WORDS {
            mark::<A, B, true>(x, y, (a_lo, b_lo), &mut seen, &mut rows)
        } else {
            mark::<A, B, false>(x, y, (a_lo, b_lo), &mut seen, &mut rows)
        };
        seen_ok.then_some((seen, rows))
    };
    let size = a.len().div_ceil(threads).max(1);
    let mut parts: Vec<Option<(Vec<u64>, Vec<u64>)>> = if threads > 1 {
        pool::run(|| {
            a.par_chunks(size)
                .zip(b.par_chunks(size))
                .map(block)
                .collect()
        })
    } else {
        vec![block((a, b))]
    };
    let (mut seen, mut rows) = parts.pop()??;
    for part in parts {
        let (other, other_rows) = part?;
        for (w, o) in seen.iter_mut().zip(other) {
            if *w & o != 0 {
                return None;
            }
            *w |= o;
        }
        for (r, o) in rows.iter_mut().zip(other_rows) {
            *r += o;
        }
    }
    Some(rows)
}

/// Words of bits past which [`mark`] prefetches (512 kB).
const FAR_WORDS: usize = 1 << 16;

/// [`singletons`]' loop: whether every column key was new.
#[inline(always)]
fn mark<A: Label, B: Label, const FAR: bool>(
    a: &[A],
    b: &[B],
    (a_lo, b_lo): (u64, u64),
    seen: &mut [u64],
    rows: &mut [u64],
) -> bool {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if FAR {
            let ahead = b.get(i + AHEAD);
            if let Some(w) = ahead.and_then(|y| seen.get(((y.key() - b_lo) / 64) as usize)) {
                prefetch(w);
            }
        }
        let k = y.key() - b_lo;
        let (word, bit) = (&mut seen[(k / 64) as usize], 1u64 << (k % 64));
        if *word & bit != 0 {
            return false;
        }
        *word |= bit;
        rows[(x.key() - a_lo) as usize] += 1;
    }
    true
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
    let block = x.len().div_ceil(threads).max(1);
    x.par_chunks(block)
        .map(key_bounds)
        .reduce(|| (u64::MAX, 0), |(a, b), (c, d)| (a.min(c), b.max(d)))
}

/// How many samples ahead [`fill`] prefetches its slot.
const AHEAD: usize = 32;

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
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        // A store to a random slot of a map larger than the caches: ask for the slot of
        // the sample [`AHEAD`] further on now (1e7 singletons: about a tenth sooner).
        if let Some(s) = b
            .get(i + AHEAD)
            .and_then(|y| map.get((y.key() - b_lo) as usize))
        {
            prefetch(s);
        }
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

/// The table held by a filled map, in one pass over it: the rows present with their
/// sums, the number of columns and Σ b_j².
fn one_row_of(
    map: Vec<u32>,
    (a_lo, a_hi): (u64, u64),
    b_lo: u64,
    row_kind: KeyKind,
    col_kind: KeyKind,
) -> OneRow {
    let offsets = (a_hi - a_lo) as usize + 2;
    let mut sums = vec![0u64; offsets];
    let mut cols = 0usize;
    let mut cols_sq = 0u128;
    // Squares summed in `u64` a block at a time: 2^16 squares below 2^32 each.
    for block in map.chunks(1 << 16) {
        let mut sq = 0u64;
        for &slot in block.iter().filter(|&&slot| slot != 0) {
            let c = u64::from(slot >> 16);
            sums[(slot & 0xffff) as usize] += c;
            cols += 1;
            sq += c * c;
        }
        cols_sq += u128::from(sq);
    }
    sums.remove(0);
    of_rows(
        sums,
        a_lo,
        (row_kind, col_kind),
        Some((map, b_lo)),
        (cols, cols_sq),
    )
}

/// The table of `sums` (per row offset from `a_lo`; zero for no row), of `map` (with its
/// first key), of `n_cols` columns and Σ b_j² `cols_sq`.
fn of_rows(
    sums: Vec<u64>,
    a_lo: u64,
    (row_kind, col_kind): (KeyKind, KeyKind),
    map: Option<(Vec<u32>, u64)>,
    (n_cols, cols_sq): (usize, u128),
) -> OneRow {
    let mut row_of = vec![u32::MAX; sums.len() + 1];
    let mut keys = Vec::new();
    let mut row_sums = Vec::new();
    for (r, &s) in sums.iter().enumerate() {
        if s > 0 {
            row_of[r + 1] = keys.len() as u32;
            keys.push(a_lo + r as u64);
            row_sums.push(s);
        }
    }
    let n = row_sums.iter().sum();
    let (map, b_lo) = match map {
        Some((map, b_lo)) => (Some(map), b_lo),
        None => (None, 0),
    };
    OneRow {
        rows: Keys {
            kind: row_kind,
            keys,
        },
        row_sums,
        row_of,
        col_kind,
        b_lo,
        map,
        n_cols,
        cols_sq,
        n,
    }
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

    /// The map's table, which must be taken and kept as the map, against the naive count
    /// and the usual one (the same table to the last field), and its measures against
    /// the usual table's; also counted for its measures only (all singletons: by their
    /// rows alone, without a table).
    fn by_map<A: Label, B: Label>(a: &[A], b: &[B]) {
        let counted = count(a, b, 1 << 22, 2, true).expect("the map applies");
        assert!(matches!(counted, Counted::OneRow(..)));
        let t = counted.table().expect("a map holds its table");
        assert_eq!(cells(t), naive(a, b));
        assert_eq!(*t, crate::count::count_in(a, b, 1).unwrap());
        same_measures(&counted, t);
        let measures = count(a, b, 1 << 22, 2, false).expect("the map applies");
        let singletons = t.n_cols() == a.len();
        assert!(matches!(measures, Counted::OneRow(..)));
        assert_eq!(measures.table().is_none(), singletons);
        same_measures(&measures, t);
        let one_thread = count(a, b, 1 << 22, 1, false).expect("the map applies");
        assert_eq!(one_thread.table().is_none(), singletons);
        same_measures(&one_thread, t);
    }

    /// The measures of a table kept as its map are those of its [`Table`]: to the bit,
    /// but for the mutual information and the columns' entropy (summed a row and a size
    /// at a time, not a cell and a column at a time).
    fn same_measures(counted: &Counted, t: &Table) {
        let table = Counted::Table(t.clone());
        let bits = |x: f64| x.to_bits();
        assert_eq!(
            (
                counted.n(),
                counted.n_rows(),
                counted.n_cols(),
                counted.nnz()
            ),
            (t.n, t.n_rows(), t.n_cols(), t.cell_count.len())
        );
        assert_eq!(
            (counted.rows(), counted.row_sums()),
            (&t.rows, &t.row_sums[..])
        );
        assert_eq!(counted.pair_sums(), table.pair_sums());
        assert_eq!(bits(counted.entropy_rows()), bits(table.entropy_rows()));
        let (h, want) = (counted.entropy_cols(), table.entropy_cols());
        assert!((h - want).abs() <= 1e-15 * want, "{h} against {want}");
        assert_eq!(bits(counted.purity()), bits(table.purity()));
        let (mi, want) = (counted.mutual_info(), table.mutual_info());
        assert!((mi - want).abs() <= 1e-14 * want, "{mi} against {want}");
        let emi = counted.expected_mutual_info();
        assert_eq!(bits(emi), bits(table.expected_mutual_info()));
        let parts = counted.ami_parts();
        assert_eq!(bits(parts.mutual_info), bits(mi));
        assert_eq!(bits(parts.expected), bits(emi));
        assert_eq!(bits(parts.entropy_rows), bits(counted.entropy_rows()));
        assert_eq!(bits(parts.entropy_cols), bits(counted.entropy_cols()));
    }

    #[test]
    fn cells_below_epsilon_are_left_out_of_the_mutual_information() {
        // 2e8 samples, all but one in row 0: ln n - ln a_0 is about 5e-9, so a row-0
        // cell's term n_ij (ln n - ln a_0) is below ε n (4.4e-8) for n_ij up to 8.
        // Those cells count as zero (as scikit-learn's terms below ε do).
        let full = 3_052;
        let mut map = vec![0u32; 70_000];
        for slot in &mut map[..full] {
            *slot = 1 | COUNT_MAX << 16;
        }
        let small = (full..70_000 - 1).map(|j| 1 + (j % 30) as u32);
        for (slot, c) in map[full..70_000 - 1].iter_mut().zip(small) {
            *slot = 1 | c << 16;
        }
        map[70_000 - 1] = 2 | 1 << 16;
        let o = one_row_of(map, (7, 8), 0, KeyKind::Signed, KeyKind::Unsigned);
        let counted = Counted::OneRow(o, Default::default());
        let t = counted.table().unwrap();
        same_measures(&counted, t);
        // Against the sum over every cell: the cells left out make a difference.
        let n = t.n as f64;
        let every: f64 = (0..t.cell_count.len())
            .map(|k| {
                let (c, a) = (
                    t.cell_count[k] as f64,
                    t.row_sums[t.cell_row[k] as usize] as f64,
                );
                c / n * (n / a).ln()
            })
            .sum();
        let mi = counted.mutual_info();
        assert!((every - mi) / mi > 1e-9, "{every} against {mi}");
        // 2e8 singletons, all but one in row 0: its cells' terms (1 (ln n - ln a_0), about
        // 5e-9) are all below ε n, the other row's is not.
        let n = 200_000_000u64;
        let o = of_rows(
            vec![n - 1, 0, 1],
            3,
            (KeyKind::Signed, KeyKind::Signed),
            None,
            (n as usize, n as u128),
        );
        let counted = Counted::OneRow(o, Default::default());
        assert!(counted.table().is_none());
        assert_eq!(
            (counted.n_rows(), counted.n_cols(), counted.n()),
            (2, n as usize, n)
        );
        let mi = counted.mutual_info();
        let want = (n as f64).ln() / n as f64;
        assert!((mi - want).abs() < 1e-15 * want, "{mi} against {want}");
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
        // The last sample joins the first one's cluster: the bits are given up (on merging
        // the two threads' bits), for the map (one cluster of two); or the second sample
        // does (within one thread's bits).
        for k in [n - 1, 1] {
            let (mut t2, mut p2) = (t.clone(), p.clone());
            (t2[k], p2[k]) = (t[0], p[0]);
            by_map(&t2, &p2);
        }
        let (mut t2, mut p2) = (t.clone(), p.clone());
        (t2[n - 1], p2[n - 1]) = (t[0], p[0]);
        // ... or in another class: the map is given up too.
        t2[n - 1] = t[0] + 1;
        assert!(count(&t2, &p2, 1 << 22, 2, false).is_none());
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
        // 50,000 clusters, keys 20 apart: counted by the map, handed over as a Table.
        let b: Vec<i64> = (0..n)
            .map(|_| (lcg(&mut seed) % 50_000) as i64 * 20)
            .collect();
        let a: Vec<i64> = b.iter().map(|&y| (y / 20) % 13).collect();
        match count(&a, &b, 1 << 22, 2, true) {
            Some(Counted::Table(t)) => {
                assert!(t.n_cols() > 49_000);
                assert_eq!(t, crate::count::count_in(&a, &b, 1).unwrap());
            }
            other => panic!("not a Table from the map: {other:?}"),
        }
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
            assert!(count(a, b, 1 << 22, 2, true).is_none());
            assert!(count(a, b, 1 << 22, 2, false).is_none());
            assert_eq!(cells(&crate::count(a, b).unwrap()), naive(a, b));
        }
        // Narrow enough for a window: not tried.
        let b6: Vec<i64> = b.iter().map(|&y| y % 1000).collect();
        assert!(count(&a, &b6, 1 << 22, 2, true).is_none());
    }
}
