//! Tables in which every column has a single non-empty row: each cluster within one
//! class, as all-singleton predictions are. Such a table is as wide as there are
//! clusters, far past any dense window, and hashing or sorting its cells costs far more
//! than one store a sample. Here each cluster's key indexes one `u32` of a dense map
//! holding its class and its count ([`count`]).
//!
//! The map is also what the table is kept as ([`OneRow`], in [`form`]): four bytes a
//! cluster key, against 32 bytes a cluster for a [`Table`](crate::table::Table) (its
//! cell's row, column and count, the column's key and sum); all singletons counted for
//! their measures only are kept as their rows alone ([`Singletons`]). Every measure is
//! computed from these forms directly ([`measures`]); the table is built, in two
//! sequential passes, only when asked for.

mod count;
mod form;
mod measures;

pub(crate) use count::{count_map, count_singletons, key_range, probe, Probe};
pub use form::{OneRow, Singletons};
pub(crate) use measures::Compact;

#[cfg(test)]
mod tests {
    use super::form::{of_rows, one_row_of, COUNT_MAX, ROWS_MAX};
    use super::*;
    use crate::counted::Counted;
    use crate::label::{KeyKind, Label};
    use crate::table::Table;
    use std::collections::BTreeMap;

    /// The table of `a` against `b` in the form `count_compact` keeps it in when the
    /// one-row count applies (`dense_cells` and `threads` given), `None` otherwise.
    fn count<A: Label, B: Label>(
        a: &[A],
        b: &[B],
        dense_cells: u64,
        threads: usize,
        cells: bool,
    ) -> Option<Counted> {
        let probe = probe(a, b, dense_cells, threads)?;
        if !cells {
            if let Some(s) = count_singletons(a, b, &probe, threads).unwrap() {
                return Some(Counted::Singletons(s));
            }
        }
        let map = count_map(a, b, &probe).unwrap()?;
        Some(if map.worth_keeping() {
            Counted::OneRow(map, Default::default())
        } else {
            Counted::Table(map.table().unwrap())
        })
    }

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
        assert!(matches!(
            measures,
            Counted::OneRow(..) | Counted::Singletons(..)
        ));
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
        let (h, want) = (
            counted.entropy_cols().unwrap(),
            table.entropy_cols().unwrap(),
        );
        assert!((h - want).abs() <= 1e-15 * want, "{h} against {want}");
        assert_eq!(
            bits(counted.purity().unwrap()),
            bits(table.purity().unwrap())
        );
        let (mi, want) = (counted.mutual_info().unwrap(), table.mutual_info().unwrap());
        assert!((mi - want).abs() <= 1e-14 * want, "{mi} against {want}");
        let emi = counted.expected_mutual_info().unwrap();
        assert_eq!(bits(emi), bits(table.expected_mutual_info().unwrap()));
        let parts = counted.ami_parts().unwrap();
        assert_eq!(bits(parts.mutual_info), bits(mi));
        assert_eq!(bits(parts.expected), bits(emi));
        assert_eq!(bits(parts.entropy_rows), bits(counted.entropy_rows()));
        assert_eq!(bits(parts.entropy_cols), bits(h));
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
        let mi = counted.mutual_info().unwrap();
        assert!((every - mi) / mi > 1e-9, "{every} against {mi}");
        // 2e8 singletons, all but one in row 0: its cells' terms (1 (ln n - ln a_0), about
        // 5e-9) are all below ε n, the other row's is not.
        let n = 200_000_000u64;
        let o = Singletons {
            rows: of_rows(vec![n - 1, 0, 1], 3, KeyKind::Signed),
        };
        let counted = Counted::Singletons(o);
        assert!(counted.table().is_none());
        assert_eq!(
            (counted.n_rows(), counted.n_cols(), counted.n()),
            (2, n as usize, n)
        );
        let mi = counted.mutual_info().unwrap();
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
