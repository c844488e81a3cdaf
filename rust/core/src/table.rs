//! The contingency table: the one structure every measure is computed from.

use foldhash::fast::FixedState;
use hashbrown::HashMap;
use rayon::prelude::*;
use std::mem::MaybeUninit;

use crate::label::KeyKind;
use crate::pool;
use crate::Error;

/// The sorted distinct labels of one side of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    pub kind: KeyKind,
    /// Strictly increasing keys; their order is the order of the label values.
    pub keys: Vec<u64>,
}

impl Keys {
    /// The label value of the `i`-th class (or cluster).
    pub fn value(&self, i: usize) -> i128 {
        self.kind.value(self.keys[i])
    }
}

/// A sparse contingency table. Rows are the classes of the first labeling
/// (`labels_true`), columns the clusters of the second, both in label order.
/// Only non-zero cells are stored, sorted by row, then column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub rows: Keys,
    pub cols: Keys,
    pub cell_row: Vec<u32>,
    pub cell_col: Vec<u32>,
    pub cell_count: Vec<u64>,
    pub row_sums: Vec<u64>,
    pub col_sums: Vec<u64>,
    pub n: u64,
}

impl Table {
    /// Builds the table from `(key_a, key_b, count)` triples with non-zero
    /// counts; a pair may appear several times (its counts are added).
    /// `sorted` promises the triples are already sorted and distinct.
    pub(crate) fn from_key_cells(
        mut cells: Vec<(u64, u64, u64)>,
        sorted: bool,
        row_kind: KeyKind,
        col_kind: KeyKind,
        threads: usize,
    ) -> Result<Table, Error> {
        if !sorted {
            if !radix_sort(&mut cells) {
                if threads > 1 && cells.len() > 1 << 16 {
                    pool::run(|| cells.par_sort_unstable_by_key(|&(a, b, _)| (a, b)));
                } else {
                    cells.sort_unstable_by_key(|&(a, b, _)| (a, b));
                }
            }
            cells.dedup_by(|next, kept| {
                let same = next.0 == kept.0 && next.1 == kept.1;
                if same {
                    kept.2 += next.2;
                }
                same
            });
        }
        let (col_keys, col_index) = column_keys(&cells);
        let mut row_keys = Vec::new();
        let mut cell_row = Vec::with_capacity(cells.len());
        let mut cell_col = Vec::with_capacity(cells.len());
        let mut cell_count = Vec::with_capacity(cells.len());
        let mut row_sums = Vec::new();
        let mut col_sums = vec![0u64; col_keys.len()];
        for &(a, b, c) in &cells {
            if row_keys.last() != Some(&a) {
                row_keys.push(a);
                row_sums.push(0);
            }
            let j = col_index.get(&col_keys, b);
            if let Some(s) = row_sums.last_mut() {
                *s += c;
            }
            col_sums[j] += c;
            cell_row.push(index(row_keys.len() - 1)?);
            cell_col.push(index(j)?);
            cell_count.push(c);
        }
        Ok(Table::assemble(
            (row_kind, row_keys, row_sums),
            (col_kind, col_keys, col_sums),
            (cell_row, cell_col, cell_count),
        ))
    }

    /// Builds the table from a dense row-major array of counts for row keys `a0..` and
    /// column keys `b0..b0 + nb` (a counting window), without listing its cells first:
    /// empty rows and columns are dropped.
    pub(crate) fn from_dense<C: DenseCount>(
        a0: u64,
        b0: u64,
        nb: usize,
        counts: &[C],
        row_kind: KeyKind,
        col_kind: KeyKind,
    ) -> Result<Table, Error> {
        let nb = nb.max(1);
        let na = counts.len() / nb;
        // Wide windows in row blocks, one per thread.
        let parts = if counts.len() >= DENSE_PARALLEL {
            pool::threads().min(na).max(1)
        } else {
            1
        };
        let bounds: Vec<usize> = (0..=parts).map(|p| p * na / parts).collect();
        // One pass for the sums and each row's number of cells.
        let sums = each_part(parts, |p| {
            let mut col_sums = vec![0u64; nb];
            let rows: Vec<(u64, usize)> = (bounds[p]..bounds[p + 1])
                .map(|i| {
                    let (mut sum, mut nnz) = (0u64, 0usize);
                    for (s, &c) in col_sums.iter_mut().zip(&counts[i * nb..(i + 1) * nb]) {
                        let c: u64 = c.into();
                        *s += c;
                        sum += c;
                        nnz += usize::from(c != 0);
                    }
                    (sum, nnz)
                })
                .collect();
            (col_sums, rows)
        });
        let mut all_col_sums = vec![0u64; nb];
        let mut row_keys = Vec::new();
        let mut row_sums = Vec::new();
        // Per part: its non-empty rows as (row, number of cells).
        let mut part_rows: Vec<Vec<(usize, usize)>> = Vec::with_capacity(parts);
        for (p, (col_sums, rows)) in sums.iter().enumerate() {
            for (s, &c) in all_col_sums.iter_mut().zip(col_sums) {
                *s += c;
            }
            let mut nonempty = Vec::new();
            for (i, &(sum, nnz)) in (bounds[p]..).zip(rows) {
                if sum > 0 {
                    row_keys.push(a0 + i as u64);
                    row_sums.push(sum);
                    nonempty.push((i, nnz));
                }
            }
            part_rows.push(nonempty);
        }
        index(row_keys.len())?;
        let mut position = vec![0u32; nb];
        let mut col_keys = Vec::new();
        let mut col_sums = Vec::new();
        for (j, &s) in all_col_sums.iter().enumerate() {
            position[j] = index(col_keys.len())?;
            if s > 0 {
                col_keys.push(b0 + j as u64);
                col_sums.push(s);
            }
        }
        // Each part writes the cells of its rows into its own stretch of the cells.
        let part_cells: Vec<usize> = part_rows
            .iter()
            .map(|rows| rows.iter().map(|&(_, k)| k).sum())
            .collect();
        let n_cells: usize = part_cells.iter().sum();
        // Not zeroed first (3 MB for 200k cells: a serial pass as long as the parallel
        // writing): every place is written below, before the lengths are set.
        let mut cell_row: Vec<u32> = Vec::with_capacity(n_cells);
        let mut cell_col: Vec<u32> = Vec::with_capacity(n_cells);
        let mut cell_count: Vec<u64> = Vec::with_capacity(n_cells);
        let mut stretches = Vec::with_capacity(parts);
        let (mut rest_row, mut rest_col, mut rest_count) = (
            &mut cell_row.spare_capacity_mut()[..n_cells],
            &mut cell_col.spare_capacity_mut()[..n_cells],
            &mut cell_count.spare_capacity_mut()[..n_cells],
        );
        let mut first_row = 0;
        for (rows, &k) in part_rows.iter().zip(&part_cells) {
            let (r, rr) = std::mem::take(&mut rest_row).split_at_mut(k);
            let (c, rc) = std::mem::take(&mut rest_col).split_at_mut(k);
            let (n, rn) = std::mem::take(&mut rest_count).split_at_mut(k);
            (rest_row, rest_col, rest_count) = (rr, rc, rn);
            stretches.push(Stretch {
                rows,
                first_row,
                cell_row: r,
                cell_col: c,
                cell_count: n,
            });
            first_row += rows.len();
        }
        let write = |st: Stretch<'_>| {
            let mut k = 0;
            for (r, &(i, nnz)) in (st.first_row..).zip(st.rows) {
                let placed = C::compact(
                    &counts[i * nb..(i + 1) * nb],
                    &position,
                    &mut st.cell_col[k..k + nnz],
                    &mut st.cell_count[k..k + nnz],
                );
                // The row's count of non-zero cells came from these same counts.
                assert_eq!(placed, nnz, "a dense row's cells changed while being read");
                st.cell_row[k..k + nnz].fill(MaybeUninit::new(r as u32));
                k += nnz;
            }
        };
        if parts > 1 {
            pool::run(|| stretches.into_par_iter().for_each(write));
        } else {
            stretches.into_iter().for_each(write);
        }
        #[allow(unsafe_code)]
        // SAFETY: the stretches split the first `n_cells` places of each vector, and each
        // was written in full: `cell_row` by `fill`, `cell_col` and `cell_count` by
        // `compact`, which wrote `placed` places of each, asserted to be all of them.
        unsafe {
            cell_row.set_len(n_cells);
            cell_col.set_len(n_cells);
            cell_count.set_len(n_cells);
        }
        Ok(Table::assemble(
            (row_kind, row_keys, row_sums),
            (col_kind, col_keys, col_sums),
            (cell_row, cell_col, cell_count),
        ))
    }

    /// The table of each side's (key kind, keys, sums) and of its cells (row, column,
    /// count); `n` from the sums.
    pub(crate) fn assemble(
        (row_kind, row_keys, row_sums): (KeyKind, Vec<u64>, Vec<u64>),
        (col_kind, col_keys, col_sums): (KeyKind, Vec<u64>, Vec<u64>),
        (cell_row, cell_col, cell_count): (Vec<u32>, Vec<u32>, Vec<u64>),
    ) -> Table {
        let n = row_sums.iter().sum();
        Table {
            rows: Keys {
                kind: row_kind,
                keys: row_keys,
            },
            cols: Keys {
                kind: col_kind,
                keys: col_keys,
            },
            cell_row,
            cell_col,
            cell_count,
            row_sums,
            col_sums,
            n,
        }
    }

    /// Builds a table of the given shape from cells given by position, as a
    /// user hands over a contingency matrix: rows `0..n_rows` and columns
    /// `0..n_cols` keep their places (empty ones included), repeated cells are
    /// added, zero counts dropped, negative counts refused.
    pub fn from_cells(
        n_rows: usize,
        n_cols: usize,
        rows: &[i64],
        cols: &[i64],
        counts: &[i64],
    ) -> Result<Table, Error> {
        if rows.len() != cols.len() || rows.len() != counts.len() {
            return Err(Error::CellOutOfBounds);
        }
        index(n_rows)?;
        index(n_cols)?;
        let mut cells = Vec::with_capacity(counts.len());
        // Every sum the table holds is at most this total, so checking it once suffices.
        let mut total = 0u64;
        for ((&r, &c), &v) in rows.iter().zip(cols).zip(counts) {
            if v < 0 {
                return Err(Error::NegativeCount);
            }
            total = total.checked_add(v as u64).ok_or(Error::CountOverflow)?;
            let (Ok(r), Ok(c)) = (u64::try_from(r), u64::try_from(c)) else {
                return Err(Error::CellOutOfBounds);
            };
            if r >= n_rows as u64 || c >= n_cols as u64 {
                return Err(Error::CellOutOfBounds);
            }
            if v > 0 {
                cells.push((r, c, v as u64));
            }
        }
        let mut table =
            Table::from_key_cells(cells, false, KeyKind::Unsigned, KeyKind::Unsigned, 1)?;
        // Re-index onto the full shape, keeping empty rows and columns.
        let full = |keys: &[u64], idx: &mut [u32], sums: &[u64], len: usize| {
            for i in idx.iter_mut() {
                *i = keys[*i as usize] as u32;
            }
            let mut all = vec![0u64; len];
            for (&k, &s) in keys.iter().zip(sums) {
                all[k as usize] = s;
            }
            all
        };
        table.row_sums = full(
            &table.rows.keys,
            &mut table.cell_row,
            &table.row_sums,
            n_rows,
        );
        table.col_sums = full(
            &table.cols.keys,
            &mut table.cell_col,
            &table.col_sums,
            n_cols,
        );
        table.rows.keys = (0..n_rows as u64).collect();
        table.cols.keys = (0..n_cols as u64).collect();
        Ok(table)
    }

    pub fn n_rows(&self) -> usize {
        self.row_sums.len()
    }

    pub fn n_cols(&self) -> usize {
        self.col_sums.len()
    }
}

/// Sorts many cells by (row key, column key) with an LSD radix sort when both key
/// ranges pack into one `u64` (always so for codes, ids and moderate label values):
/// the pair becomes `(a - a_min) * b_range + (b - b_min)`, and only the digits that
/// vary are sorted. Returns false, leaving `cells` as they were, otherwise.
fn radix_sort(cells: &mut [(u64, u64, u64)]) -> bool {
    const BITS: u32 = 11;
    const RADIX: usize = 1 << BITS;
    if cells.len() < 1 << 12 {
        return false;
    }
    let (mut a_lo, mut a_hi, mut b_lo, mut b_hi) = (u64::MAX, 0, u64::MAX, 0);
    for &(a, b, _) in cells.iter() {
        a_lo = a_lo.min(a);
        a_hi = a_hi.max(a);
        b_lo = b_lo.min(b);
        b_hi = b_hi.max(b);
    }
    // Keys spanning all of u64 do not pack (the range's size, 2^64, was computed before
    // this check, and overflowed in debug builds: found by cargo fuzz).
    let Some(b_range) = (b_hi - b_lo).checked_add(1) else {
        return false;
    };
    let Some(max) = (a_hi - a_lo)
        .checked_mul(b_range)
        .and_then(|m| m.checked_add(b_hi - b_lo))
    else {
        return false;
    };
    let mut keyed: Vec<(u64, u64)> = cells
        .iter()
        .map(|&(a, b, c)| ((a - a_lo) * b_range + (b - b_lo), c))
        .collect();
    let mut buffer = vec![(0u64, 0u64); keyed.len()];
    let passes = (u64::BITS - max.leading_zeros()).div_ceil(BITS);
    for pass in 0..passes {
        let shift = pass * BITS;
        let mut start = [0usize; RADIX];
        for &(k, _) in &keyed {
            start[((k >> shift) as usize) & (RADIX - 1)] += 1;
        }
        let mut total = 0;
        for s in start.iter_mut() {
            let count = *s;
            *s = total;
            total += count;
        }
        for &item in &keyed {
            let d = ((item.0 >> shift) as usize) & (RADIX - 1);
            buffer[start[d]] = item;
            start[d] += 1;
        }
        std::mem::swap(&mut keyed, &mut buffer);
    }
    for (cell, &(k, c)) in cells.iter_mut().zip(&keyed) {
        *cell = (a_lo + k / b_range, b_lo + k % b_range, c);
    }
    true
}

/// The sorted distinct column keys of `cells`, and an index from key to position. When
/// the keys span a range not much wider than there are cells (a table counted in a dense
/// window, or small labels), they are found by marking the range, not by sorting: for
/// wide tables (hundreds of thousands of cells) sorting cost more than counting.
fn column_keys(cells: &[(u64, u64, u64)]) -> (Vec<u64>, ColIndex) {
    let (lo, hi) = cells
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), c| (lo.min(c.1), hi.max(c.1)));
    if lo <= hi && hi - lo < 4 * (cells.len() as u64).max(1024) {
        const ABSENT: u32 = u32::MAX;
        let mut position = vec![ABSENT; (hi - lo) as usize + 1];
        for c in cells {
            position[(c.1 - lo) as usize] = 0;
        }
        let mut keys = Vec::new();
        for (offset, p) in position.iter_mut().enumerate() {
            if *p != ABSENT {
                // At most `cells.len()` keys; the caller refuses more than u32 can index.
                *p = keys.len() as u32;
                keys.push(lo + offset as u64);
            }
        }
        return (
            keys,
            ColIndex::Dense {
                start: lo,
                position,
            },
        );
    }
    let mut keys: Vec<u64> = cells.iter().map(|c| c.1).collect();
    keys.sort_unstable();
    keys.dedup();
    let index = ColIndex::new(&keys, cells.len());
    (keys, index)
}

/// Finds a column key's position among the sorted distinct column keys: by binary
/// search for few columns, by a direct lookup over the key range when it is not much
/// wider than the table, and by hashing otherwise.
enum ColIndex {
    Search,
    Dense { start: u64, position: Vec<u32> },
    Hashed(HashMap<u64, u32, FixedState>),
}

impl ColIndex {
    fn new(keys: &[u64], n_cells: usize) -> Self {
        let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
            return ColIndex::Search;
        };
        if keys.len() <= 256 || keys.len() > u32::MAX as usize {
            return ColIndex::Search;
        }
        let range = last - first;
        if range < 4 * (n_cells as u64).max(keys.len() as u64) {
            let mut position = vec![0u32; range as usize + 1];
            for (j, &k) in keys.iter().enumerate() {
                position[(k - first) as usize] = j as u32;
            }
            return ColIndex::Dense {
                start: first,
                position,
            };
        }
        let mut map = HashMap::with_capacity_and_hasher(keys.len(), FixedState::default());
        for (j, &k) in keys.iter().enumerate() {
            map.insert(k, j as u32);
        }
        ColIndex::Hashed(map)
    }

    #[inline]
    fn get(&self, keys: &[u64], key: u64) -> usize {
        match self {
            ColIndex::Search => keys.binary_search(&key).unwrap_or_default(),
            ColIndex::Dense { start, position } => position[(key - start) as usize] as usize,
            ColIndex::Hashed(map) => map.get(&key).copied().unwrap_or_default() as usize,
        }
    }
}

/// One part of a dense window's rows, and where their cells go.
struct Stretch<'a> {
    /// The part's non-empty rows: (row in the window, number of cells).
    rows: &'a [(usize, usize)],
    /// The table row of the first of them.
    first_row: usize,
    cell_row: &'a mut [MaybeUninit<u32>],
    cell_col: &'a mut [MaybeUninit<u32>],
    cell_count: &'a mut [MaybeUninit<u64>],
}

/// The count type of a dense window.
pub(crate) trait DenseCount: Copy + Into<u64> + Sync {
    /// Writes the non-zero counts of one row and the `position` of each (its column in
    /// the table), in order, into `cols` and `cnts`, and returns how many it wrote: all
    /// of their places when they are as long as the row has non-zero counts.
    fn compact(
        counts: &[Self],
        position: &[u32],
        cols: &mut [MaybeUninit<u32>],
        cnts: &mut [MaybeUninit<u64>],
    ) -> usize {
        compact_scalar(counts, position, cols, cnts)
    }
}

impl DenseCount for u64 {}

impl DenseCount for u16 {
    fn compact(
        counts: &[u16],
        position: &[u32],
        cols: &mut [MaybeUninit<u32>],
        cnts: &mut [MaybeUninit<u64>],
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            #[allow(unsafe_code)]
            // SAFETY: the CPU has AVX-512F, just detected; nothing else is required.
            return unsafe { compact_u16_avx512(counts, position, cols, cnts) };
        }
        compact_scalar(counts, position, cols, cnts)
    }
}

/// [`DenseCount::compact`] with no branch on the count (a wide window's zero cells fall
/// at random, and mispredicting them cost more than the counting): every cell is written
/// at the next free place, which only a non-zero one then takes; once the places are
/// all taken, the rest of the row is zero (a branch taken once).
fn compact_scalar<C: Copy + Into<u64>>(
    counts: &[C],
    position: &[u32],
    cols: &mut [MaybeUninit<u32>],
    cnts: &mut [MaybeUninit<u64>],
) -> usize {
    let places = cols.len().min(cnts.len());
    let mut m = 0;
    for (&c, &p) in counts.iter().zip(position) {
        if m == places {
            break;
        }
        let c: u64 = c.into();
        cols[m].write(p);
        cnts[m].write(c);
        m += usize::from(c != 0);
    }
    m
}

/// [`compact_scalar`] for `u16` counts sixteen at a time: the non-zero ones and their
/// positions packed together in registers (`vpcompressd`; its form that stores to memory
/// is slow on AMD's Zen 4), then written with masked stores of just the packed lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(unsafe_code)]
fn compact_u16_avx512(
    counts: &[u16],
    position: &[u32],
    cols: &mut [MaybeUninit<u32>],
    cnts: &mut [MaybeUninit<u64>],
) -> usize {
    use std::arch::x86_64::*;
    let places = cols.len().min(cnts.len());
    let n = counts.len().min(position.len());
    let (mut j, mut m) = (0, 0);
    while j + 16 <= n && m < places {
        // SAFETY: `j + 16 <= n` bounds the loads; each store writes lanes `m..m + k` with
        // `k <= places - m` (masked stores touch no memory outside their mask), and the
        // addresses are formed with `wrapping_add`, so none is out of bounds unless used.
        unsafe {
            let c = _mm512_cvtepu16_epi32(_mm256_loadu_si256(counts.as_ptr().add(j).cast()));
            let p = _mm512_loadu_si512(position.as_ptr().add(j).cast());
            let nonzero = _mm512_test_epi32_mask(c, c);
            let k = (nonzero.count_ones() as usize).min(places - m);
            let keep = ((1u32 << k) - 1) as u16;
            let packed = _mm512_maskz_compress_epi32(nonzero, c);
            let cols_at = cols.as_mut_ptr().wrapping_add(m);
            let cnts_at = cnts.as_mut_ptr().wrapping_add(m);
            _mm512_mask_storeu_epi32(
                cols_at.cast(),
                keep,
                _mm512_maskz_compress_epi32(nonzero, p),
            );
            _mm512_mask_storeu_epi64(
                cnts_at.cast(),
                keep as u8,
                _mm512_cvtepu32_epi64(_mm512_castsi512_si256(packed)),
            );
            _mm512_mask_storeu_epi64(
                cnts_at.wrapping_add(8).cast(),
                (keep >> 8) as u8,
                _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(packed)),
            );
            m += k;
        }
        j += 16;
    }
    m + compact_scalar(&counts[j..], &position[j..], &mut cols[m..], &mut cnts[m..])
}

/// Windows of at least this many cells become tables on every thread.
const DENSE_PARALLEL: usize = 1 << 16;

/// `f` of each part `0..parts`, in order: on the pool's threads when there are several.
fn each_part<R: Send>(parts: usize, f: impl Fn(usize) -> R + Sync + Send) -> Vec<R> {
    if parts > 1 {
        pool::run(|| (0..parts).into_par_iter().map(f).collect())
    } else {
        (0..parts).map(f).collect()
    }
}

fn index(i: usize) -> Result<u32, Error> {
    u32::try_from(i).map_err(|_| Error::TooManyLabels)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The non-zero counts of a row and their positions, as `compact` should place them.
    fn nonzero(counts: &[u64], position: &[u32]) -> (Vec<u32>, Vec<u64>) {
        counts
            .iter()
            .zip(position)
            .filter(|(&c, _)| c != 0)
            .map(|(&c, &p)| (p, c))
            .unzip()
    }

    type Compact<C> = fn(&[C], &[u32], &mut [MaybeUninit<u32>], &mut [MaybeUninit<u64>]) -> usize;

    fn compacted<C: DenseCount>(
        compact: Compact<C>,
        counts: &[C],
        position: &[u32],
        places: usize,
    ) -> (Vec<u32>, Vec<u64>) {
        // Places start as a marker, so that a place left unwritten shows.
        let mut cols = vec![MaybeUninit::new(u32::MAX); places];
        let mut cnts = vec![MaybeUninit::new(u64::MAX); places];
        let placed = compact(counts, position, &mut cols, &mut cnts);
        assert_eq!(placed, places);
        #[allow(unsafe_code)]
        // SAFETY: every place was initialized (with the marker) when created.
        let read = |v: &[MaybeUninit<u64>]| v.iter().map(|x| unsafe { x.assume_init() }).collect();
        #[allow(unsafe_code)]
        // SAFETY: as above.
        let cols = cols.iter().map(|x| unsafe { x.assume_init() }).collect();
        (cols, read(&cnts))
    }

    #[test]
    fn rows_compact_alike_on_every_path() {
        // Row lengths around the 16 lanes of the AVX-512 path, densities from empty to
        // full, counts across the whole of u16, and positions with gaps (empty columns).
        let mut seed = 3u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        for len in [0usize, 1, 5, 15, 16, 17, 31, 32, 33, 100, 1000] {
            for density in [0u64, 1, 10, 50, 90, 100] {
                let wide: Vec<u64> = (0..len)
                    .map(|_| {
                        if next() % 100 < density {
                            1 + next() % 65535
                        } else {
                            0
                        }
                    })
                    .collect();
                let narrow: Vec<u16> = wide.iter().map(|&c| c as u16).collect();
                let position: Vec<u32> = (0..len as u32).map(|j| 3 * j + 1).collect();
                let expected = nonzero(&wide, &position);
                let places = expected.0.len();
                assert_eq!(
                    compacted(u16::compact, &narrow, &position, places),
                    expected
                );
                assert_eq!(compacted(u64::compact, &wide, &position, places), expected);
                assert_eq!(
                    compacted(compact_scalar, &narrow, &position, places),
                    expected
                );
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512f") {
                    #[allow(unsafe_code)]
                    // SAFETY: the CPU has AVX-512F, just detected.
                    let avx512 = |c: &[u16], p: &[u32], o: &mut [_], n: &mut [_]| unsafe {
                        compact_u16_avx512(c, p, o, n)
                    };
                    assert_eq!(compacted(avx512, &narrow, &position, places), expected);
                }
            }
        }
    }

    #[test]
    fn dense_windows_of_narrow_and_wide_counts_make_one_table() {
        // 40 x 2,000 cells (past DENSE_PARALLEL: in row blocks), some rows and columns
        // empty, the same counts held as u16 and as u64.
        let (na, nb) = (40usize, 2000usize);
        let mut seed = 9u64;
        let wide: Vec<u64> = (0..na * nb)
            .map(|k| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (i, j) = (k / nb, k % nb);
                if i % 7 == 3 || j % 13 == 5 || (seed >> 33).is_multiple_of(3) {
                    0
                } else {
                    1 + (seed >> 40) % 60000
                }
            })
            .collect();
        assert!(wide.len() >= DENSE_PARALLEL);
        let narrow: Vec<u16> = wide.iter().map(|&c| c as u16).collect();
        let kind = KeyKind::Unsigned;
        let t = Table::from_dense(100, 200, nb, &narrow, kind, kind).unwrap();
        assert_eq!(
            t,
            Table::from_dense(100, 200, nb, &wide, kind, kind).unwrap()
        );
        let mut cells = Vec::new();
        for (k, &c) in wide.iter().enumerate() {
            if c != 0 {
                cells.push((100 + (k / nb) as u64, 200 + (k % nb) as u64, c));
            }
        }
        assert_eq!(
            t,
            Table::from_key_cells(cells, true, kind, kind, 1).unwrap()
        );
        assert_eq!(t.rows.keys.len(), (0..na).filter(|i| i % 7 != 3).count());
    }

    #[test]
    fn keys_spanning_all_of_u64_do_not_pack() {
        // 5,000 cells (enough to radix-sort) whose column keys run from 0 to u64::MAX.
        let mut cells: Vec<(u64, u64, u64)> = (0..5000u64).map(|i| (i % 7, i * 31, 1)).collect();
        cells.push((3, u64::MAX, 1));
        cells.push((3, 0, 2));
        let before = cells.clone();
        assert!(!radix_sort(&mut cells));
        assert_eq!(cells, before);
        let t =
            Table::from_key_cells(cells, false, KeyKind::Unsigned, KeyKind::Unsigned, 1).unwrap();
        assert_eq!(t.n, 5003);
        assert_eq!(t.cols.keys.last(), Some(&u64::MAX));
    }

    #[test]
    fn from_cells_keeps_shape_and_adds_repeats() {
        let t = Table::from_cells(3, 2, &[0, 2, 2, 0], &[1, 0, 0, 0], &[4, 1, 2, 0]).unwrap();
        assert_eq!(t.row_sums, vec![4, 0, 3]);
        assert_eq!(t.col_sums, vec![3, 4]);
        assert_eq!(t.cell_row, vec![0, 2]);
        assert_eq!(t.cell_col, vec![1, 0]);
        assert_eq!(t.cell_count, vec![4, 3]);
        assert_eq!(t.n, 7);
        assert_eq!(t.n_rows(), 3);
    }

    #[test]
    fn from_cells_refuses_bad_cells() {
        assert_eq!(
            Table::from_cells(1, 1, &[0], &[0], &[-1]).unwrap_err(),
            Error::NegativeCount
        );
        assert_eq!(
            Table::from_cells(1, 1, &[1], &[0], &[1]).unwrap_err(),
            Error::CellOutOfBounds
        );
        assert_eq!(
            Table::from_cells(2, 1, &[0, 1, 0], &[0, 0, 0], &[i64::MAX, i64::MAX, 2]).unwrap_err(),
            Error::CountOverflow
        );
    }
}
