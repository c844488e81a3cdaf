//! A wide table kept as the ranges of cell numbers it was counted in (by partitions, in
//! `count/wide/`): each range's non-zero cells as low bits and counts, 8 bytes a cell,
//! and each side's sums, added up as the ranges were counted. Its pair sums and every
//! measure of its margins come from those; the [`Table`] (16 bytes a cell, each cell's
//! row and column numbered among the keys present) is built only when it is asked for:
//! for its cells, or for a measure that reads them (the mutual information, the purity).
//! For ARI on a million labels a side at 1e7 samples, building the table took longer
//! than counting it.

use std::sync::OnceLock;

use rayon::prelude::*;

use crate::alloc;
use crate::cpu::prefetch;
use crate::emi::{emi_of_sizes, size_counts};
use crate::error::Error;
use crate::label::KeyKind;
use crate::pages;
use crate::pool;
use crate::scores::PairSums;
use crate::stop;
use crate::table::{Keys, Table};

/// Column numbers between a lookup's load and its use.
const AHEAD: usize = 16;
/// Columns whose sums (`u32`, 128 kB) stay in L2: added to as the cells come, with no
/// loads ahead.
const NEAR_COLS: usize = 1 << 15;

/// How a wide table's cells are numbered: the cell of keys `(x, y)` is
/// `(x - a_lo) * stride + (y - b_lo)`, for `na` keys `a_lo..` and `nb` keys `b_lo..`, in
/// rows of `stride` numbers (`nb`, or a power of two above it: the numbers past `nb` in a
/// row are no cell's); range `r` holds the numbers whose bits above `shift` are `r`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CellNumbers {
    pub(crate) a_lo: u64,
    pub(crate) b_lo: u64,
    pub(crate) na: u64,
    pub(crate) nb: u64,
    pub(crate) stride: u64,
    pub(crate) shift: u32,
}

/// One side of a partitioned table: the keys with samples, their sums, and each key's
/// number among them by its offset in the side's span (`None`: every key of the span has
/// samples, a key's number is its offset).
#[derive(Debug)]
struct Side {
    keys: Keys,
    sums: Vec<u64>,
    number: Option<Vec<u32>>,
}

impl Side {
    /// The side of the sums `span` over keys `lo..lo + span.len()`.
    fn of(span: &[u32], lo: u64, kind: KeyKind) -> Result<Side, Error> {
        let present = span.iter().filter(|&&s| s != 0).count();
        let mut keys = pages::with_capacity(present, "a wide table's keys")?;
        let mut sums = pages::with_capacity(present, "a wide table's sums")?;
        let number = if present == span.len() {
            keys.extend((0..span.len() as u64).map(|i| lo + i));
            sums.extend(span.iter().map(|&s| u64::from(s)));
            None
        } else {
            let mut number = pages::zeroed::<u32>(span.len(), "a wide table's key numbers")?;
            for (i, &s) in span.iter().enumerate() {
                if s != 0 {
                    number[i] = keys.len() as u32;
                    keys.push(lo + i as u64);
                    sums.push(u64::from(s));
                }
            }
            Some(number)
        };
        Ok(Side {
            keys: Keys { kind, keys },
            sums,
            number,
        })
    }

    /// The number of the key at offset `i` of the span.
    #[inline(always)]
    fn number(&self, i: u64) -> u32 {
        match &self.number {
            Some(number) => number[i as usize],
            None => i as u32,
        }
    }
}

/// One side's sums as counted, over its key span, with what the pair counts read of them;
/// its [`Side`] is built the first time it is asked for (for ARI on a million labels a
/// side, the two sides' keys, sums and numbers are 40 MB of fresh memory to fill).
#[derive(Debug)]
struct Sums {
    span: Vec<u32>,
    lo: u64,
    kind: KeyKind,
    /// Keys with samples.
    present: usize,
    /// Σ of the sums and of their squares.
    total: u64,
    total_sq: u128,
    side: OnceLock<Side>,
}

impl Sums {
    fn new(span: Vec<u32>, lo: u64, kind: KeyKind) -> Sums {
        // The sums add up to fewer than 2^32 samples, so their squares to less than 2^64.
        let (mut present, mut total, mut total_sq) = (0usize, 0u64, 0u64);
        for &s in &span {
            present += usize::from(s != 0);
            total += u64::from(s);
            total_sq += u64::from(s) * u64::from(s);
        }
        Sums {
            span,
            lo,
            kind,
            present,
            total,
            total_sq: total_sq.into(),
            side: OnceLock::new(),
        }
    }

    fn side(&self) -> Result<&Side, Error> {
        alloc::once(&self.side, || Side::of(&self.span, self.lo, self.kind))
    }
}

/// Each range's non-zero cells, in order: range `r`'s as (cell number less `r << shift`,
/// count).
pub(crate) type RangeCells = Vec<Vec<(u32, u32)>>;

/// A table's cells as counted, or to be counted (from the partition the count kept) the
/// first time they are asked for.
pub(crate) enum Cells {
    Counted(RangeCells),
    Later(
        OnceLock<RangeCells>,
        Box<dyn Fn() -> Result<RangeCells, Error> + Send + Sync>,
    ),
}

impl Cells {
    /// Cells that `count` counts when first asked for.
    pub(crate) fn later(
        count: impl Fn() -> Result<RangeCells, Error> + Send + Sync + 'static,
    ) -> Cells {
        Cells::Later(OnceLock::new(), Box::new(count))
    }

    fn get(&self) -> Result<&RangeCells, Error> {
        match self {
            Cells::Counted(cells) => Ok(cells),
            Cells::Later(cells, count) => alloc::once(cells, count),
        }
    }
}

impl std::fmt::Debug for Cells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ranges = |cells: &RangeCells| cells.len();
        match self {
            Cells::Counted(cells) => write!(f, "Counted({} ranges)", ranges(cells)),
            Cells::Later(cells, _) => match cells.get() {
                Some(cells) => write!(f, "Later(counted: {} ranges)", ranges(cells)),
                None => write!(f, "Later(not counted)"),
            },
        }
    }
}

/// One thread's sums over the ranges it counted: each side's over its key span (`u32`: a
/// plan counts fewer than 2^32 samples), Σ n_ij², the non-zero cells, and a buffer of a
/// range's column offsets.
#[derive(Debug)]
pub(crate) struct Spans {
    rows: Vec<u32>,
    cols: Vec<u32>,
    cells_sq: u128,
    nnz: usize,
    buffer: Vec<u32>,
    /// Columns' sums of samples added one at a time, modulo 256 ([`Spans::sample_sides`]).
    bytes: Vec<u8>,
}

impl Spans {
    /// Zero sums over the spans of `plan`, with the columns' bytes ([`Spans::sample_sides`])
    /// if `samples` are to be added one at a time.
    pub(crate) fn new(plan: &CellNumbers, samples: bool) -> Result<Spans, Error> {
        let what = "a thread's sums of a wide table's sides";
        Ok(Spans {
            rows: pages::zeroed(plan.na as usize, what)?,
            cols: pages::zeroed(plan.nb as usize, what)?,
            cells_sq: 0,
            nnz: 0,
            buffer: Vec::new(),
            bytes: if samples {
                alloc::filled(plan.nb as usize, 0, what)?
            } else {
                Vec::new()
            },
        })
    }

    /// Adds the cells of range `r`: (low bits, count), in order.
    pub(crate) fn add(&mut self, plan: &CellNumbers, r: usize, cells: &[(u32, u32)]) {
        if self.cols.len() <= NEAR_COLS {
            self.add_as(plan, r, cells, |_, cols, j, c| cols[j as usize] += c);
        } else {
            self.add_as(plan, r, cells, |buffer, _, j, _| buffer.push(j));
            // Columns come in no order: their sums are loaded a few cells ahead.
            let (cols, buffer) = (&mut self.cols, &self.buffer);
            for (i, (&j, &(_, c))) in buffer.iter().zip(cells).enumerate() {
                if let Some(&ahead) = buffer.get(i + AHEAD) {
                    prefetch(&cols[ahead as usize]);
                }
                cols[j as usize] += c;
            }
        }
    }

    /// Adds each cell's count to its row's sum, its square to Σ n_ij², and gives its
    /// column offset and count to `col` (with the buffer, emptied, and the columns' sums).
    #[inline(always)]
    fn add_as(
        &mut self,
        plan: &CellNumbers,
        r: usize,
        cells: &[(u32, u32)],
        mut col: impl FnMut(&mut Vec<u32>, &mut [u32], u32, u32),
    ) {
        let mut at = Rows::new(plan, r);
        // Fewer than 2^32 samples: Σ n_ij² < 2^64 for a range, a row's sum < 2^32.
        let mut sq = 0u64;
        let (rows, cols, buffer) = (&mut self.rows, &mut self.cols, &mut self.buffer);
        buffer.clear();
        // A row's cells come one after another: its sum is added up apart and stored
        // once (not loaded and stored again a cell, each add waiting for the last).
        let (mut row, mut sum) = (0, 0u32);
        for &(low, c) in cells {
            let (i, j) = at.of(low);
            if i as usize != row {
                rows[row] += sum;
                (row, sum) = (i as usize, 0);
            }
            sum += c;
            sq += u64::from(c) * u64::from(c);
            col(buffer, cols, j as u32, c);
        }
        rows[row] += sum;
        self.cells_sq += u128::from(sq);
        self.nnz += cells.len();
    }

    /// The sums a range whose samples are added one at a time adds to: the rows', and the
    /// columns' as a byte a column ([`ColumnBytes`]).
    pub(crate) fn sample_sides(&mut self) -> (&mut [u32], ColumnBytes<'_>) {
        debug_assert_eq!(
            self.bytes.len(),
            self.cols.len(),
            "sums made for cells only"
        );
        (
            &mut self.rows,
            ColumnBytes {
                bytes: &mut self.bytes,
                cols: &mut self.cols,
            },
        )
    }

    /// The bytes of the columns' sums added to the sums, and dropped.
    fn settle(&mut self) {
        for (sum, byte) in self.cols.iter_mut().zip(std::mem::take(&mut self.bytes)) {
            *sum += u32::from(byte);
        }
    }

    /// Adds Σ n_ij² and the number of the non-zero cells of a range whose samples were
    /// added one at a time.
    pub(crate) fn add_cells(&mut self, cells_sq: u128, nnz: usize) {
        self.cells_sq += cells_sq;
        self.nnz += nnz;
    }

    /// The sums of both threads' ranges.
    pub(crate) fn merge(mut self, mut other: Spans) -> Spans {
        self.rows
            .iter_mut()
            .zip(&other.rows)
            .for_each(|(x, y)| *x += y);
        let bytes = (
            std::mem::take(&mut self.bytes),
            std::mem::take(&mut other.bytes),
        );
        if bytes.0.len() == self.cols.len() && bytes.1.len() == other.cols.len() {
            // Both threads' sums and bytes in one pass, not three.
            for (((x, y), a), b) in self
                .cols
                .iter_mut()
                .zip(other.cols)
                .zip(bytes.0)
                .zip(bytes.1)
            {
                *x += y + u32::from(a) + u32::from(b);
            }
        } else {
            (self.bytes, other.bytes) = bytes;
            self.settle();
            other.settle();
            self.cols
                .iter_mut()
                .zip(other.cols)
                .for_each(|(x, y)| *x += y);
        }
        self.cells_sq += other.cells_sq;
        self.nnz += other.nnz;
        self
    }
}

/// The columns' sums of samples added one at a time: a byte a column, and 256 added to
/// the column's sum each time its byte wraps. The bytes of a million columns (1 MB) mostly
/// stay in L2, where their sums (4 MB) would not: a sample's add waits less (the pair
/// counts of a million labels a side at 1e7: 64.4 ms, against 67.9 with `u32` sums).
pub(crate) struct ColumnBytes<'s> {
    bytes: &'s mut [u8],
    cols: &'s mut [u32],
}

impl ColumnBytes<'_> {
    /// Adds a sample of column offset `j`.
    #[inline(always)]
    pub(crate) fn add(&mut self, j: usize) {
        let byte = self.bytes[j].wrapping_add(1);
        self.bytes[j] = byte;
        if byte == 0 {
            self.cols[j] += 256;
        }
    }
}

/// A wide table as counted: its ranges' cells (or the partition to count them from), its
/// sides, Σ n_ij², and its [`Table`] once built.
#[derive(Debug)]
pub struct Partitioned {
    plan: CellNumbers,
    cells: Cells,
    rows: Box<Sums>,
    cols: Box<Sums>,
    nnz: usize,
    cells_sq: u128,
    n: u64,
    threads: usize,
    table: OnceLock<Table>,
}

impl Partitioned {
    /// The table of the `cells` numbered by `plan` (keys of `kinds`) and their `spans`, to
    /// be built on `threads` threads.
    pub(crate) fn new(
        cells: Cells,
        mut spans: Spans,
        plan: CellNumbers,
        kinds: (KeyKind, KeyKind),
        threads: usize,
    ) -> Partitioned {
        spans.settle();
        let rows = Box::new(Sums::new(spans.rows, plan.a_lo, kinds.0));
        let cols = Box::new(Sums::new(spans.cols, plan.b_lo, kinds.1));
        let n = rows.total;
        Partitioned {
            plan,
            cells,
            rows,
            cols,
            nnz: spans.nnz,
            cells_sq: spans.cells_sq,
            n,
            threads,
            table: OnceLock::new(),
        }
    }

    /// Whether its cells are counted: false until they are first asked for, if the count
    /// kept only the partition to count them from ([`Cells::Later`]).
    pub fn cells_counted(&self) -> bool {
        match &self.cells {
            Cells::Counted(_) => true,
            Cells::Later(cells, _) => cells.get().is_some(),
        }
    }

    /// Number of samples.
    pub fn n(&self) -> u64 {
        self.n
    }

    pub fn n_rows(&self) -> usize {
        self.rows.present
    }

    pub fn n_cols(&self) -> usize {
        self.cols.present
    }

    /// Number of non-zero cells.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Builds, fallibly, what the accessors below read and build the first time they are
    /// asked for: both sides, and the [`Table`] too with `cells`. Once it has returned
    /// `Ok`, they allocate nothing; without it, an allocation they make that the system
    /// refuses aborts the process (as the standard library's do).
    pub fn ready(&self, cells: bool) -> Result<(), Error> {
        self.rows.side()?;
        self.cols.side()?;
        if cells {
            self.try_table()?;
        }
        Ok(())
    }

    /// The rows' keys.
    pub fn rows(&self) -> &Keys {
        &alloc::or_abort(self.rows.side()).keys
    }

    pub fn row_sums(&self) -> &[u64] {
        &alloc::or_abort(self.rows.side()).sums
    }

    pub fn col_sums(&self) -> &[u64] {
        &alloc::or_abort(self.cols.side()).sums
    }

    /// See [`crate::scores::pair_sums`].
    pub fn pair_sums(&self) -> PairSums {
        PairSums {
            n: u128::from(self.n),
            cells_sq: self.cells_sq,
            rows_sq: self.rows.total_sq,
            cols_sq: self.cols.total_sq,
        }
    }

    /// See [`crate::scores::expected_mutual_info`]: it reads the sums alone.
    pub fn expected_mutual_info(&self) -> Result<f64, Error> {
        if self.n_rows() == 1 || self.n_cols() == 1 || self.n == 0 {
            return Ok(0.0);
        }
        emi_of_sizes(
            &size_counts(self.row_sums())?,
            &size_counts(self.col_sums())?,
            self.n,
        )
    }

    /// The [`Table`], built the first time it is asked for (whole: a stop request does
    /// not cut it short, as it is kept).
    pub fn table(&self) -> &Table {
        alloc::or_abort(self.try_table())
    }

    /// [`Partitioned::table`], built fallibly: a refusal leaves it to be built by the next
    /// call.
    pub fn try_table(&self) -> Result<&Table, Error> {
        alloc::once(&self.table, || self.build(false))
    }

    /// The [`Table`], taken.
    pub fn into_table(mut self) -> Table {
        self.table
            .take()
            .unwrap_or_else(|| alloc::or_abort(self.build(false)))
    }

    /// The [`Table`], taken, or [`Error::Stopped`] if a stop was requested meanwhile.
    pub(crate) fn into_table_or_stop(self) -> Result<Table, Error> {
        let table = self.build(true)?;
        stop::check()?;
        Ok(table)
    }

    /// The table's cells: each range's, written into its own part of the three arrays,
    /// ranges in parallel; rows and columns numbered among the keys with samples. A
    /// `stoppable` build stopped gives a table with cells left out, for the caller's next
    /// [`stop::check`] to report.
    fn build(&self, stoppable: bool) -> Result<Table, Error> {
        let total = self.nnz;
        // Each side built before the ranges are placed in parallel.
        let (rows_side, cols_side) = (self.rows.side()?, self.cols.side()?);
        let ranges = self.cells.get()?;
        let what = "a wide table's cells";
        let mut cell_row = pages::zeroed::<u32>(total, what)?;
        let mut cell_col = pages::zeroed::<u32>(total, what)?;
        let mut cell_count = pages::zeroed::<u64>(total, what)?;
        let mut parts = alloc::with_capacity(ranges.len(), what)?;
        {
            let (mut rows, mut cols, mut counts) =
                (&mut cell_row[..], &mut cell_col[..], &mut cell_count[..]);
            for (r, cells) in ranges.iter().enumerate() {
                let k = cells.len();
                let (r_here, r_rest) = rows.split_at_mut(k);
                let (c_here, c_rest) = cols.split_at_mut(k);
                let (n_here, n_rest) = counts.split_at_mut(k);
                parts.push((r, &cells[..], r_here, c_here, n_here));
                (rows, cols, counts) = (r_rest, c_rest, n_rest);
            }
        }
        let place = |(r, cells, rows, cols, counts): Part<'_>| {
            if stoppable && stop::requested() {
                return;
            }
            let mut at = Rows::new(&self.plan, r);
            for (((&(low, c), rw), cl), ct) in cells
                .iter()
                .zip(&mut *rows)
                .zip(&mut *cols)
                .zip(&mut *counts)
            {
                let (row, col) = at.of(low);
                *rw = row as u32;
                *cl = col as u32;
                *ct = u64::from(c);
            }
            // Rows change once in many cells; columns come in no order, their numbers
            // loaded a few cells ahead.
            if let Some(number) = &cols_side.number {
                for i in 0..cols.len() {
                    if let Some(&ahead) = cols.get(i + AHEAD) {
                        prefetch(&number[ahead as usize]);
                    }
                    cols[i] = number[cols[i] as usize];
                }
            }
            if rows_side.number.is_some() {
                let mut last = (u32::MAX, 0);
                for rw in rows.iter_mut() {
                    if *rw != last.0 {
                        last = (*rw, rows_side.number(u64::from(*rw)));
                    }
                    *rw = last.1;
                }
            }
        };
        if self.threads > 1 {
            // A run of ranges a thread (rayon splits a run in two only where each half
            // holds the least).
            let each = (parts.len() / self.threads).max(1);
            pool::run(|| parts.into_par_iter().with_min_len(each).for_each(place));
        } else {
            parts.into_iter().for_each(place);
        }
        let what = "a wide table's keys and sums";
        Ok(Table::assemble(
            (
                self.rows.kind,
                pages::copied(&rows_side.keys.keys, what)?,
                pages::copied(&rows_side.sums, what)?,
            ),
            (
                self.cols.kind,
                pages::copied(&cols_side.keys.keys, what)?,
                pages::copied(&cols_side.sums, what)?,
            ),
            (cell_row, cell_col, cell_count),
        ))
    }
}

/// One range's cells and the parts of the table's arrays they are written to.
type Part<'a> = (
    usize,
    &'a [(u32, u32)],
    &'a mut [u32],
    &'a mut [u32],
    &'a mut [u64],
);

/// The row and column offsets of a range's cells, taken in order: a division only where
/// the row changes.
struct Rows {
    base: u64,
    stride: u64,
    row: u64,
    row_start: u64,
    row_end: u64,
}

impl Rows {
    fn new(plan: &CellNumbers, r: usize) -> Rows {
        Rows {
            base: (r as u64) << plan.shift,
            stride: plan.stride,
            row: 0,
            row_start: 0,
            row_end: 0,
        }
    }

    /// The (row, column) offsets of the cell with these low bits, at or after the last.
    #[inline(always)]
    fn of(&mut self, low: u32) -> (u64, u64) {
        let cell = self.base | u64::from(low);
        if cell >= self.row_end {
            self.row = cell / self.stride;
            self.row_start = self.row * self.stride;
            self.row_end = self.row_start + self.stride;
        }
        (self.row, cell - self.row_start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_spans_hold_both_threads_columns_however_each_added_them() {
        let plan = CellNumbers {
            a_lo: 0,
            b_lo: 0,
            na: 3,
            nb: 5,
            stride: 8,
            shift: 32,
        };
        // Columns 1 and 4 one sample at a time (column 1's byte wraps once), or the same
        // samples as the cells of row 2.
        let samples = [(1usize, 300u32), (4, 2)];
        let one_at_a_time = || {
            let mut spans = Spans::new(&plan, true).unwrap();
            let (rows, mut cols) = spans.sample_sides();
            for &(j, c) in &samples {
                for _ in 0..c {
                    rows[2] += 1;
                    cols.add(j);
                }
            }
            spans
        };
        let as_cells = || {
            let mut spans = Spans::new(&plan, false).unwrap();
            let cells: Vec<(u32, u32)> = samples.iter().map(|&(j, c)| (16 + j as u32, c)).collect();
            spans.add(&plan, 0, &cells);
            spans
        };
        for (x, y) in [
            (one_at_a_time(), one_at_a_time()),
            (one_at_a_time(), as_cells()),
            (as_cells(), one_at_a_time()),
            (as_cells(), as_cells()),
        ] {
            let mut merged = x.merge(y);
            merged.settle();
            assert_eq!(merged.cols, [0, 600, 0, 0, 4]);
            assert_eq!(merged.rows, [0, 0, 604]);
        }
    }
}
