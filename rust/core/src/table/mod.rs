//! The contingency table: the one structure every measure is computed from, and its
//! building from listed cells. Its building from a dense window is in [`dense`], the
//! sorting and indexing of listed cells' keys in [`sort`].

#[allow(unsafe_code)]
mod dense;
mod sort;

use crate::alloc;
use crate::error::Error;
use crate::label::KeyKind;
use crate::pages;
use crate::stop;

use sort::column_keys;
pub(crate) use sort::sort_cells;

/// Shapes of at most this many cells (or four a listed cell) are counted in a dense array
/// by [`Table::from_cells`] (8 MB).
const DENSE_CELLS_MIN: u64 = 1 << 20;

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

    /// The label values of keys of [`KeyKind::Signed`], in order.
    pub fn signed_values(&self) -> Result<Vec<i64>, Error> {
        let values = self.keys.iter().map(|&k| self.kind.value(k) as i64);
        alloc::collect(values, "a table's labels")
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
            sort_cells(&mut cells, threads)?;
        }
        // Repeated pairs were added up: the room they took goes back before the table's
        // own arrays are made, and those are made at their exact lengths.
        cells.shrink_to_fit();
        const WHAT: &str = "the cells of a table";
        const ROWS: &str = "the rows of a table";
        let (col_keys, col_index) = column_keys(&cells)?;
        let n_rows = cells.first().map_or(0, |_| {
            1 + cells.windows(2).filter(|w| w[0].0 != w[1].0).count()
        });
        let mut row_keys = alloc::with_capacity(n_rows, ROWS)?;
        let mut row_sums = alloc::with_capacity(n_rows, ROWS)?;
        let mut cell_row = alloc::with_capacity(cells.len(), WHAT)?;
        let mut cell_col = alloc::with_capacity(cells.len(), WHAT)?;
        let mut cell_count = alloc::with_capacity(cells.len(), WHAT)?;
        let mut col_sums = alloc::filled(col_keys.len(), 0u64, "the column sums of a table")?;
        for (p, part) in cells.chunks(stop::EVERY).enumerate() {
            stop::check()?;
            for (i, &(a, b, c)) in part.iter().enumerate() {
                if row_keys.last() != Some(&a) {
                    row_keys.push(a);
                    row_sums.push(0);
                }
                let j = col_index.get(&col_keys, b, p * stop::EVERY + i);
                if let Some(s) = row_sums.last_mut() {
                    *s += c;
                }
                col_sums[j] += c;
                cell_row.push(index(row_keys.len() - 1)?);
                cell_col.push(index(j)?);
                cell_count.push(c);
            }
        }
        Ok(Table::assemble(
            (row_kind, row_keys, row_sums),
            (col_kind, col_keys, col_sums),
            (cell_row, cell_col, cell_count),
        ))
    }
}

impl Table {
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
        }
        let space = (n_rows as u64).saturating_mul(n_cols as u64);
        let mut table = if space <= 4 * counts.len() as u64 + DENSE_CELLS_MIN {
            // Few cells of the shape are empty (tables of chunks merged, say): counted in
            // place, which costs less than sorting them.
            let mut dense =
                pages::zeroed::<u64>(space as usize, "a table's cells, counted in place")?;
            for ((&r, &c), &v) in rows.iter().zip(cols).zip(counts) {
                dense[r as usize * n_cols + c as usize] += v as u64;
            }
            Table::from_dense(0, 0, n_cols, &dense, KeyKind::Unsigned, KeyKind::Unsigned)?
        } else {
            let mut cells = alloc::with_capacity(counts.len(), "the cells of a table")?;
            cells.extend(
                rows.iter()
                    .zip(cols)
                    .zip(counts)
                    .filter(|(_, &v)| v > 0)
                    .map(|((&r, &c), &v)| (r as u64, c as u64, v as u64)),
            );
            Table::from_key_cells(cells, false, KeyKind::Unsigned, KeyKind::Unsigned, 1)?
        };
        // Re-index onto the full shape, keeping empty rows and columns.
        let full = |keys: &[u64], idx: &mut [u32], sums: &[u64], len: usize| {
            for i in idx.iter_mut() {
                *i = keys[*i as usize] as u32;
            }
            let mut all = alloc::filled(len, 0u64, "the sums of a table's rows or columns")?;
            for (&k, &s) in keys.iter().zip(sums) {
                all[k as usize] = s;
            }
            let every = alloc::collect((0..len).map(|k| k as u64), "the labels of a table")?;
            Ok::<_, Error>((all, every))
        };
        (table.row_sums, table.rows.keys) = full(
            &table.rows.keys,
            &mut table.cell_row,
            &table.row_sums,
            n_rows,
        )?;
        (table.col_sums, table.cols.keys) = full(
            &table.cols.keys,
            &mut table.cell_col,
            &table.col_sums,
            n_cols,
        )?;
        Ok(table)
    }

    pub fn n_rows(&self) -> usize {
        self.row_sums.len()
    }

    pub fn n_cols(&self) -> usize {
        self.col_sums.len()
    }
}

pub(crate) fn index(i: usize) -> Result<u32, Error> {
    u32::try_from(i).map_err(|_| Error::TooManyLabels)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn from_cells_adds_repeats_alike_in_place_and_sorted() {
        use std::collections::BTreeMap;
        let mut next = crate::testing::xorshift(11);
        // 300 x 200 cells in place (few of the shape), 3e5 x 2e5 by sorting.
        for scale in [1u64, 1000] {
            let (n_rows, n_cols) = (300 * scale, 200 * scale);
            let m = 5000;
            let rows: Vec<i64> = (0..m)
                .map(|_| (next() % (n_rows / 50)) as i64 * 50)
                .collect();
            let cols: Vec<i64> = (0..m).map(|_| (next() % n_cols) as i64 % 97).collect();
            let counts: Vec<i64> = (0..m).map(|_| (next() % 4) as i64).collect();
            let t =
                Table::from_cells(n_rows as usize, n_cols as usize, &rows, &cols, &counts).unwrap();
            let mut want = BTreeMap::new();
            for ((&r, &c), &v) in rows.iter().zip(&cols).zip(&counts) {
                if v > 0 {
                    *want.entry((r as u32, c as u32)).or_insert(0u64) += v as u64;
                }
            }
            let got: BTreeMap<(u32, u32), u64> = t
                .cell_row
                .iter()
                .zip(&t.cell_col)
                .zip(&t.cell_count)
                .map(|((&r, &c), &v)| ((r, c), v))
                .collect();
            assert_eq!(got, want);
            assert_eq!(t.cell_row.len(), want.len());
            let order: Vec<(u32, u32)> = t
                .cell_row
                .iter()
                .copied()
                .zip(t.cell_col.iter().copied())
                .collect();
            assert!(
                order.windows(2).all(|w| w[0] < w[1]),
                "cells by row, then column"
            );
            assert_eq!((t.n_rows(), t.n_cols()), (n_rows as usize, n_cols as usize));
            assert_eq!(t.row_sums.iter().sum::<u64>(), t.n);
        }
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
