//! The table of a dense window of counts (row-major, `u64` or `u16` counts), built
//! without listing its cells first: each row's non-zero counts compacted into the
//! table's cells, wide windows in row blocks on every thread.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use crate::alloc;
use crate::cpu;
use crate::error::Error;
use crate::label::KeyKind;
use crate::pool;

use super::{index, Table};

impl Table {
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
        let bounds = |p: usize| p * na / parts;
        const SUMS: &str = "the row and column sums of a table";
        // One pass for the sums and each row's number of cells.
        let sums = each_part(parts, |p| {
            let mut col_sums = alloc::filled(nb, 0u64, SUMS)?;
            let row = |i: usize| {
                let (mut sum, mut nnz) = (0u64, 0usize);
                for (s, &c) in col_sums.iter_mut().zip(&counts[i * nb..(i + 1) * nb]) {
                    let c: u64 = c.into();
                    *s += c;
                    sum += c;
                    nnz += usize::from(c != 0);
                }
                (sum, nnz)
            };
            let rows: Vec<(u64, usize)> =
                alloc::collect((bounds(p)..bounds(p + 1)).map(row), SUMS)?;
            Ok((col_sums, rows))
        })?;
        let mut all_col_sums = alloc::filled(nb, 0u64, SUMS)?;
        let nonempty = |rows: &[(u64, usize)]| rows.iter().filter(|&&(sum, _)| sum > 0).count();
        let n_rows = sums.iter().map(|(_, rows)| nonempty(rows)).sum();
        let mut row_keys = alloc::with_capacity(n_rows, SUMS)?;
        let mut row_sums = alloc::with_capacity(n_rows, SUMS)?;
        // Per part: its non-empty rows as (row, number of cells).
        let mut part_rows: Vec<Vec<(usize, usize)>> = alloc::with_capacity(parts, SUMS)?;
        for (p, (col_sums, rows)) in sums.iter().enumerate() {
            for (s, &c) in all_col_sums.iter_mut().zip(col_sums) {
                *s += c;
            }
            let mut kept = alloc::with_capacity(nonempty(rows), SUMS)?;
            for (i, &(sum, nnz)) in (bounds(p)..).zip(rows) {
                if sum > 0 {
                    row_keys.push(a0 + i as u64);
                    row_sums.push(sum);
                    kept.push((i, nnz));
                }
            }
            part_rows.push(kept);
        }
        drop(sums);
        index(row_keys.len())?;
        let mut position = alloc::filled(nb, 0u32, "the columns of a table")?;
        let n_cols = all_col_sums.iter().filter(|&&s| s > 0).count();
        let mut col_keys = alloc::with_capacity(n_cols, SUMS)?;
        let mut col_sums = alloc::with_capacity(n_cols, SUMS)?;
        for (j, &s) in all_col_sums.iter().enumerate() {
            position[j] = index(col_keys.len())?;
            if s > 0 {
                col_keys.push(b0 + j as u64);
                col_sums.push(s);
            }
        }
        // Each part writes the cells of its rows into its own stretch of the cells.
        let part_cells = part_rows
            .iter()
            .map(|rows| rows.iter().map(|&(_, k)| k).sum());
        let part_cells: Vec<usize> = alloc::collect(part_cells, SUMS)?;
        let n_cells: usize = part_cells.iter().sum();
        // Not zeroed first (3 MB for 200k cells: a serial pass as long as the parallel
        // writing): every place is written below, before the lengths are set.
        const CELLS: &str = "the cells of a table";
        let mut cell_row: Vec<u32> = alloc::with_capacity(n_cells, CELLS)?;
        let mut cell_col: Vec<u32> = alloc::with_capacity(n_cells, CELLS)?;
        let mut cell_count: Vec<u64> = alloc::with_capacity(n_cells, CELLS)?;
        let mut stretches = alloc::with_capacity(parts, CELLS)?;
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
}

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
        // Sixteen at a time where the CPU has AVX-512F; the rest one at a time.
        if let Some((j, m)) = cpu::compact_u16(counts, position, cols, cnts) {
            return m + compact_scalar(
                &counts[j..],
                &position[j..],
                &mut cols[m..],
                &mut cnts[m..],
            );
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

/// Windows of at least this many cells become tables on every thread.
const DENSE_PARALLEL: usize = 1 << 16;

/// `f` of each part `0..parts`, in order: on the pool's threads when there are several
/// (as many as the threads: few). The first error if any.
fn each_part<R: Send>(
    parts: usize,
    f: impl Fn(usize) -> Result<R, Error> + Sync + Send,
) -> Result<Vec<R>, Error> {
    if parts > 1 {
        pool::run(|| (0..parts).into_par_iter().map(f).collect())
    } else {
        (0..parts).map(f).collect()
    }
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
        // SAFETY: every place was initialized (with the marker) when created.
        let read = |v: &[MaybeUninit<u64>]| v.iter().map(|x| unsafe { x.assume_init() }).collect();
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
                // The AVX-512 loop (and the scalar one for the rest), where the CPU has it.
                if cpu::compact_u16(&[], &[], &mut [], &mut []).is_some() {
                    let avx512 = |c: &[u16], p: &[u32], o: &mut [_], n: &mut [_]| {
                        let (j, m) = cpu::compact_u16(c, p, o, n).unwrap_or_default();
                        m + compact_scalar(&c[j..], &p[j..], &mut o[m..], &mut n[m..])
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
}
