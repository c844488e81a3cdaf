//! Each sample's cell of a table: one value per cell (a per-sample measure's value, which
//! depends on the cell's count and its row and column sums only) handed back per sample,
//! aligned with the labels, in a second pass over them.
//!
//! A side's keys are found in a dense index over their span where it is small, else in a
//! hash map; a cell in a dense matrix of the values where the shape is small, else by a
//! binary search among its row's cells (sorted by column; rows hold few cells where the
//! shape is large). Every lookup is read-only, so the pass splits across threads freely.

use foldhash::fast::FixedState;
use hashbrown::HashMap;
use rayon::prelude::*;

use crate::alloc;
use crate::error::Error;
use crate::label::Label;
use crate::pages;
use crate::pool;
use crate::stop;
use crate::table::Table;

/// Spans of keys up to this many (or 8 per distinct key) are indexed densely (16 MB).
const DENSE_SPAN_MAX: u64 = 1 << 22;

/// Shapes up to this many cells (or one per sample) keep their cells in a dense matrix.
const DENSE_CELLS_MAX: usize = 1 << 21;

/// Samples a thread gathers between two looks at [`stop::requested`].
const BLOCK: usize = stop::EVERY;

/// The index of each key of one side of a table; a key it does not hold gets `len`, the
/// index of a row (or column) of absent cells.
enum Index {
    /// `slot[key - min]` is the key's index.
    Dense { min: u64, slot: Vec<u32>, len: u32 },
    Hashed {
        map: HashMap<u64, u32, FixedState>,
        len: u32,
    },
}

impl Index {
    fn of(keys: &[u64]) -> Result<Index, Error> {
        const WHAT: &str = "the index of a table's labels";
        let len = keys.len() as u32;
        let (Some(&min), Some(&max)) = (keys.first(), keys.last()) else {
            return Ok(Index::Dense {
                min: 0,
                slot: Vec::new(),
                len,
            });
        };
        let span = max - min;
        Ok(if span < DENSE_SPAN_MAX.max(8 * keys.len() as u64) {
            let mut slot = alloc::filled(span as usize + 1, len, WHAT)?;
            for (i, &k) in keys.iter().enumerate() {
                slot[(k - min) as usize] = i as u32;
            }
            Index::Dense { min, slot, len }
        } else {
            let mut map = HashMap::with_hasher(FixedState::default());
            alloc::reserve_map(&mut map, keys.len(), WHAT)?;
            for (i, &k) in keys.iter().enumerate() {
                map.insert(k, i as u32);
            }
            Index::Hashed { map, len }
        })
    }

    #[inline(always)]
    fn get(&self, key: u64) -> usize {
        match self {
            Index::Dense { min, slot, len } => {
                let at = key.wrapping_sub(*min) as usize;
                slot.get(at).copied().unwrap_or(*len) as usize
            }
            Index::Hashed { map, len } => map.get(&key).copied().unwrap_or(*len) as usize,
        }
    }
}

/// The cell of each (row, column), as an index into the values; `nnz` where no cell is.
enum Cells<'a> {
    /// Row-major over the shape with a row and a column of absent cells added (the places
    /// of the keys an [`Index`] does not hold).
    Dense { width: usize, cell: Vec<u32> },
    /// `start[r]..start[r + 1]` are row `r`'s cells, their columns increasing.
    Rows { start: Vec<usize>, col: &'a [u32] },
}

impl<'a> Cells<'a> {
    fn of(table: &'a Table, samples: usize) -> Result<Cells<'a>, Error> {
        const WHAT: &str = "the index of a table's cells";
        let (r, c) = (table.n_rows(), table.n_cols());
        let absent = table.cell_count.len() as u32;
        Ok(match (r + 1).checked_mul(c + 1) {
            Some(size) if size <= DENSE_CELLS_MAX.max(samples) => {
                let width = c + 1;
                let mut cell = alloc::filled(size, absent, WHAT)?;
                for (k, (&i, &j)) in table.cell_row.iter().zip(&table.cell_col).enumerate() {
                    cell[i as usize * width + j as usize] = k as u32;
                }
                Cells::Dense { width, cell }
            }
            _ => {
                let mut start = alloc::filled(r + 2, 0usize, WHAT)?;
                for &i in &table.cell_row {
                    start[i as usize + 1] += 1;
                }
                for i in 0..=r {
                    start[i + 1] += start[i];
                }
                Cells::Rows {
                    start,
                    col: &table.cell_col,
                }
            }
        })
    }

    #[inline(always)]
    fn get(&self, i: usize, j: usize, absent: usize) -> usize {
        match self {
            Cells::Dense { width, cell } => cell[i * width + j] as usize,
            Cells::Rows { start, col } => {
                let (s, e) = (start[i], start[i + 1]);
                match col[s..e].binary_search(&(j as u32)) {
                    Ok(k) => s + k,
                    Err(_) => absent,
                }
            }
        }
    }
}

/// The value of each sample's cell: `values[k]` is the value of the table's `k`-th cell
/// (in the order of `cell_row`, `cell_col`), and the samples' labels `a` (rows) and `b`
/// (columns) are those the table was counted from. A sample whose labels the table does
/// not hold gets `absent` (samples of weight 0 in cells of no weight), or is an error
/// ([`Error::NotInTable`]) where `absent` is None.
pub fn gather<A: Label, B: Label>(
    table: &Table,
    a: &[A],
    b: &[B],
    values: &[f64],
    absent: Option<f64>,
) -> Result<Vec<f64>, Error> {
    if a.len() != b.len() {
        return Err(Error::LengthMismatch {
            left: a.len(),
            right: b.len(),
        });
    }
    let nnz = table.cell_count.len();
    if values.len() != nnz {
        return Err(Error::LengthMismatch {
            left: nnz,
            right: values.len(),
        });
    }
    let rows = Index::of(&table.rows.keys)?;
    let cols = Index::of(&table.cols.keys)?;
    let cells = Cells::of(table, a.len())?;
    // The values, then the value of a sample in no cell (at index `nnz`).
    let mut ext = alloc::with_capacity(nnz + 1, "each cell's value")?;
    ext.extend_from_slice(values);
    ext.push(absent.unwrap_or(f64::NAN));
    let fill = |out: &mut [f64], a: &[A], b: &[B]| -> Result<(), Error> {
        stop::check()?;
        // The common case, its lookups without a branch: each side's keys and the cells
        // indexed densely.
        let missed = match (&rows, &cols, &cells) {
            (
                Index::Dense {
                    min: row_min,
                    slot: row_slot,
                    len: row_len,
                },
                Index::Dense {
                    min: col_min,
                    slot: col_slot,
                    len: col_len,
                },
                Cells::Dense { width, cell },
            ) => fill_with(out, a, b, &ext, |x, y| {
                let i = row_slot
                    .get(x.wrapping_sub(*row_min) as usize)
                    .unwrap_or(row_len);
                let j = col_slot
                    .get(y.wrapping_sub(*col_min) as usize)
                    .unwrap_or(col_len);
                cell[*i as usize * width + *j as usize] as usize
            }),
            _ => fill_with(out, a, b, &ext, |x, y| {
                cells.get(rows.get(x), cols.get(y), nnz)
            }),
        };
        if missed > 0 && absent.is_none() {
            return Err(Error::NotInTable);
        }
        Ok(())
    };
    let mut out = pages::zeroed::<f64>(a.len(), "each sample's value")?;
    if pool::threads() > 1 && a.len() > BLOCK {
        pool::run(|| {
            out.par_chunks_mut(BLOCK)
                .zip(a.par_chunks(BLOCK).zip(b.par_chunks(BLOCK)))
                .try_for_each(|(o, (a, b))| fill(o, a, b))
        })?;
    } else {
        for ((o, a), b) in out
            .chunks_mut(BLOCK)
            .zip(a.chunks(BLOCK))
            .zip(b.chunks(BLOCK))
        {
            fill(o, a, b)?;
        }
    }
    Ok(out)
}

/// Writes each sample's value, its cell found by `cell_of` (`ext`'s last index where it is
/// in none); returns how many samples are in no cell.
#[inline(always)]
fn fill_with<A: Label, B: Label>(
    out: &mut [f64],
    a: &[A],
    b: &[B],
    ext: &[f64],
    cell_of: impl Fn(u64, u64) -> usize,
) -> usize {
    let absent = ext.len() - 1;
    let mut missed = 0usize;
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        let k = cell_of(x.key(), y.key());
        missed += usize::from(k == absent);
        *o = ext[k];
    }
    missed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count;

    fn brute(a: &[i64], b: &[i64], t: &Table) -> Vec<f64> {
        // The value of a cell is its count times 1000 plus its row, to tell cells apart.
        a.iter()
            .zip(b)
            .map(|(&x, &y)| {
                let m = a.iter().zip(b).filter(|&(&p, &q)| p == x && q == y).count();
                let i = t.rows.keys.binary_search(&x.key()).unwrap();
                (m * 1000 + i) as f64
            })
            .collect()
    }

    fn values(t: &Table) -> Vec<f64> {
        t.cell_count
            .iter()
            .zip(&t.cell_row)
            .map(|(&c, &i)| (c * 1000 + u64::from(i)) as f64)
            .collect()
    }

    #[test]
    fn gathers_each_samples_cell() {
        let a = [3i64, 3, -7, 1 << 40, 3, -7, 0];
        let b = [5i64, 6, 5, 5, 5, 1 << 50, 6];
        let t = count(&a, &b).unwrap();
        assert_eq!(
            gather(&t, &a, &b, &values(&t), None).unwrap(),
            brute(&a, &b, &t)
        );
    }

    #[test]
    fn gathers_dense_keys_in_blocks() {
        // Keys in small spans (indexed densely), a small shape (a dense matrix of cells),
        // more samples than a block.
        let n = 3 * BLOCK + 17;
        let a: Vec<i32> = (0..n).map(|i| (i * 7 % 13) as i32 - 5).collect();
        let b: Vec<u16> = (0..n)
            .map(|i| (i as u64 * i as u64 % 11) as u16 + 100)
            .collect();
        let t = count(&a, &b).unwrap();
        let v = values(&t);
        let got = gather(&t, &a, &b, &v, None).unwrap();
        for (k, (&x, &y)) in a.iter().zip(&b).enumerate().step_by(997) {
            let i = t.rows.keys.binary_search(&x.key()).unwrap();
            let m = a
                .iter()
                .zip(&b)
                .filter(|&(&p, &q)| p == x && q == y)
                .count();
            assert_eq!(got[k], (m * 1000 + i) as f64);
        }
        let other: Vec<u16> = b.iter().map(|&y| if y == 100 { 111 } else { y }).collect();
        assert_eq!(gather(&t, &a, &other, &v, None), Err(Error::NotInTable));
        let got = gather(&t, &a, &other, &v, Some(-1.0)).unwrap();
        assert!(got.iter().zip(&b).all(|(&g, &y)| (g == -1.0) == (y == 100)));
    }

    #[test]
    fn gathers_through_sparse_rows_and_hashed_keys() {
        // Spread keys (hashed) and a shape past the dense matrix's limit (rows searched).
        let n = 5000usize;
        let a: Vec<i64> = (0..n).map(|i| (i as i64 % 1700) * 1_000_003).collect();
        let b: Vec<i64> = (0..n).map(|i| (i as i64 * 7 % 1900) << 30).collect();
        let t = count(&a, &b).unwrap();
        assert!(t.n_rows() * t.n_cols() > DENSE_CELLS_MAX.max(n));
        let got = gather(&t, &a, &b, &values(&t), None).unwrap();
        let want = brute(&a, &b, &t);
        assert_eq!(got, want);
    }

    #[test]
    fn refuses_labels_not_in_the_table() {
        let a = [1i64, 2, 2];
        let b = [1i64, 1, 2];
        let t = count(&a, &b).unwrap();
        let v = values(&t);
        assert_eq!(
            gather(&t, &[1i64, 9, 2], &b, &v, None),
            Err(Error::NotInTable)
        );
        assert_eq!(
            gather(&t, &[1i64, 1, 1], &b, &v, None),
            Err(Error::NotInTable)
        );
        let got = gather(&t, &[1i64, 9, 1], &b, &v, Some(-1.0)).unwrap();
        assert_eq!(got[1..], [-1.0, -1.0]);
        assert!(matches!(
            gather(&t, &a[..2], &b, &v, None),
            Err(Error::LengthMismatch { .. })
        ));
        assert!(matches!(
            gather(&t, &a, &b, &v[..1], None),
            Err(Error::LengthMismatch { .. })
        ));
    }
}
