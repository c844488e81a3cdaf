//! The compact forms of a table every column of which has a single non-empty row: the
//! map it was counted in ([`OneRow`]), or, for all singletons counted for their
//! measures only, its rows alone ([`Singletons`]).

use crate::alloc;
use crate::error::Error;
use crate::label::KeyKind;
use crate::table::{Keys, Table};

/// Row offsets the map holds (in its low 16 bits, plus one: 0 is an empty slot).
pub(super) const ROWS_MAX: u64 = (1 << 16) - 2;
/// A cluster's count in the map's high 16 bits, at most.
pub(super) const COUNT_MAX: u32 = (1 << 16) - 1;
/// Tables of at most this many clusters are handed over as a [`Table`] (it takes at
/// most a few megabytes), so that small and narrow tables take the one usual path.
pub(super) const KEEP_MAP_MIN: usize = 1 << 16;

/// The rows (classes) of a compact table, with their sums.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rows {
    /// The rows present.
    pub(super) keys: Keys,
    pub(super) sums: Vec<u64>,
    /// By a row offset plus one (a map slot's low 16 bits): the row's index, or
    /// `u32::MAX` for no row.
    pub(super) row_of: Vec<u32>,
    /// Number of samples.
    pub(super) n: u64,
}

/// A table every column of which has a single non-empty row, kept as the map it was
/// counted in: its columns are the non-zero slots of the map, in key order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneRow {
    pub(super) rows: Rows,
    pub(super) col_kind: KeyKind,
    /// The key of the map's first slot.
    pub(super) b_lo: u64,
    /// Per column key from `b_lo`: 0 for no sample, or its row's offset plus one and
    /// its count above bit 16.
    pub(super) map: Vec<u32>,
    pub(super) n_cols: usize,
    /// Σ b_j² (each column's one cell is its sum).
    pub(super) cols_sq: u128,
}

/// A table of singletons (every cluster a single sample), counted for its measures
/// only and kept as its rows alone: which cluster is in which row is not kept, nor the
/// clusters' keys. It has as many columns as samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Singletons {
    pub(super) rows: Rows,
}

impl OneRow {
    /// Number of samples.
    pub fn n(&self) -> u64 {
        self.rows.n
    }

    pub fn n_rows(&self) -> usize {
        self.rows.keys.keys.len()
    }

    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// The rows' keys.
    pub fn rows(&self) -> &Keys {
        &self.rows.keys
    }

    pub fn row_sums(&self) -> &[u64] {
        &self.rows.sums
    }

    /// Whether the map is worth keeping rather than its [`Table`]: for more than
    /// [`KEEP_MAP_MIN`] columns.
    pub(crate) fn worth_keeping(&self) -> bool {
        self.n_cols > KEEP_MAP_MIN
    }

    /// The map's non-empty slots: each column's row offset plus one, and its count above
    /// bit 16.
    pub(super) fn slots(&self) -> impl Iterator<Item = u32> + Clone + '_ {
        self.map.iter().copied().filter(|&slot| slot != 0)
    }

    /// The same table as a [`Table`]: rows in key order, columns in key order, cells row
    /// by row (a count of each row's cells, then each cell to its place).
    pub fn table(&self) -> Result<Table, Error> {
        let map = &self.map;
        let rows = self.n_rows();
        let row_of = &self.rows.row_of;
        // Rows are few (at most `ROWS_MAX`); columns as many as the samples.
        let mut row_cells = vec![0usize; rows];
        for &slot in map.iter().filter(|&&slot| slot != 0) {
            row_cells[row_of[(slot & 0xffff) as usize] as usize] += 1;
        }
        // Where each row's cells start.
        let mut start = Vec::with_capacity(rows);
        let mut total = 0;
        for &c in &row_cells {
            start.push(total);
            total += c;
        }
        let cols = self.n_cols;
        let what = "the table of a one-row map";
        let mut col_keys = alloc::with_capacity(cols, what)?;
        let mut col_sums = alloc::with_capacity(cols, what)?;
        // One cell a column, so only the cells' columns are placed one by one (each to its
        // row's next place: a write stream a row); their rows are runs, and their counts
        // their columns' sums. Column indices fit `u32`: the map is narrower.
        let mut cell_row = alloc::with_capacity(cols, what)?;
        for (r, &c) in row_cells.iter().enumerate() {
            cell_row.resize(cell_row.len() + c, r as u32);
        }
        let mut cell_col = alloc::filled(cols, 0u32, what)?;
        for (j, &slot) in map.iter().enumerate() {
            if slot == 0 {
                continue;
            }
            let r = row_of[(slot & 0xffff) as usize] as usize;
            cell_col[start[r]] = col_keys.len() as u32;
            start[r] += 1;
            col_keys.push(self.b_lo + j as u64);
            col_sums.push(u64::from(slot >> 16));
        }
        let cell_count = alloc::collect(cell_col.iter().map(|&j| col_sums[j as usize]), what)?;
        Ok(Table::assemble(
            (
                self.rows.keys.kind,
                self.rows.keys.keys.clone(),
                self.rows.sums.clone(),
            ),
            (self.col_kind, col_keys, col_sums),
            (cell_row, cell_col, cell_count),
        ))
    }
}

impl Singletons {
    /// Number of samples (and of columns).
    pub fn n(&self) -> u64 {
        self.rows.n
    }

    pub fn n_rows(&self) -> usize {
        self.rows.keys.keys.len()
    }

    pub fn n_cols(&self) -> usize {
        self.rows.n as usize
    }

    /// The rows' keys.
    pub fn rows(&self) -> &Keys {
        &self.rows.keys
    }

    pub fn row_sums(&self) -> &[u64] {
        &self.rows.sums
    }
}

/// The table held by a filled map, in one pass over it: the rows present with their
/// sums, the number of columns and Σ b_j².
pub(super) fn one_row_of(
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
    OneRow {
        rows: of_rows(sums, a_lo, row_kind),
        col_kind,
        b_lo,
        map,
        n_cols: cols,
        cols_sq,
    }
}

/// The rows of `sums` (per row offset from `a_lo`; zero for no row).
pub(super) fn of_rows(sums: Vec<u64>, a_lo: u64, row_kind: KeyKind) -> Rows {
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
    Rows {
        keys: Keys {
            kind: row_kind,
            keys,
        },
        sums: row_sums,
        row_of,
        n,
    }
}
