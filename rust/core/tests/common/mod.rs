//! Checks shared by the property tests (`tests/fuzz.rs`) and the cargo-fuzz targets
//! (`rust/core/fuzz`): a naive reference count and the invariants every table and score keeps.
#![allow(dead_code)]

use std::collections::BTreeMap;

use fastcluster_metrics_core::{count, count_compact, scores, Counted, Error, Keep, Label, Table};

pub type Cells = BTreeMap<(i128, i128), u64>;

pub fn naive<A: Label + Into<i128>, B: Label + Into<i128>>(a: &[A], b: &[B]) -> Cells {
    let mut m = Cells::new();
    for (&x, &y) in a.iter().zip(b) {
        *m.entry((x.into(), y.into())).or_insert(0) += 1;
    }
    m
}

pub fn cells_of(t: &Table) -> Cells {
    (0..t.cell_count.len())
        .map(|k| {
            let r = t.rows.value(t.cell_row[k] as usize);
            let c = t.cols.value(t.cell_col[k] as usize);
            ((r, c), t.cell_count[k])
        })
        .collect()
}

/// The invariants every table keeps: sorted distinct keys, sorted non-zero cells,
/// sums that agree with the cells.
pub fn check_invariants(t: &Table) {
    assert!(t.rows.keys.windows(2).all(|w| w[0] < w[1]));
    assert!(t.cols.keys.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(t.rows.keys.len(), t.row_sums.len());
    assert_eq!(t.cols.keys.len(), t.col_sums.len());
    let pos: Vec<(u32, u32)> = t
        .cell_row
        .iter()
        .copied()
        .zip(t.cell_col.iter().copied())
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]));
    assert!(t.cell_count.iter().all(|&c| c > 0));
    let mut rows = vec![0u64; t.n_rows()];
    let mut cols = vec![0u64; t.n_cols()];
    for k in 0..t.cell_count.len() {
        rows[t.cell_row[k] as usize] += t.cell_count[k];
        cols[t.cell_col[k] as usize] += t.cell_count[k];
    }
    assert_eq!(rows, t.row_sums);
    assert_eq!(cols, t.col_sums);
    assert_eq!(t.row_sums.iter().sum::<u64>(), t.n);
}

/// Scores of any valid table: exact pair sums, finite bounded information measures.
pub fn check_scores(t: &Table) {
    let s = scores::pair_sums(t);
    let sq = |v: &[u64]| {
        v.iter()
            .map(|&c| u128::from(c) * u128::from(c))
            .sum::<u128>()
    };
    assert_eq!(s.n, u128::from(t.n));
    assert_eq!(s.cells_sq, sq(&t.cell_count));
    assert_eq!(s.rows_sq, sq(&t.row_sums));
    assert_eq!(s.cols_sq, sq(&t.col_sums));
    let h_rows = scores::entropy(&t.row_sums);
    let h_cols = scores::entropy(&t.col_sums);
    let mi = scores::mutual_info(t).unwrap();
    let emi = scores::expected_mutual_info(t).unwrap();
    let purity = scores::purity(t).unwrap();
    for v in [h_rows, h_cols, mi, emi, purity] {
        assert!(v.is_finite(), "{v}");
    }
    if t.n > 0 {
        let bound = h_rows.min(h_cols) + 1e-9 * (1.0 + h_rows.max(h_cols));
        assert!(
            mi >= -1e-12 && mi <= bound,
            "mi={mi} h=({h_rows}, {h_cols})"
        );
        assert!(emi >= -1e-12 && emi <= bound, "emi={emi}");
        assert!((0.0..=1.0).contains(&purity));
    }
}

/// Checks a table given by cells `(row, col, count)`, as a user hands over a contingency
/// matrix: it builds with exactly the given non-zero cells, or fails with the right error.
pub fn check_from_cells(n_rows: usize, n_cols: usize, cells: &[(i64, i64, i64)]) {
    let rows: Vec<i64> = cells.iter().map(|c| c.0).collect();
    let cols: Vec<i64> = cells.iter().map(|c| c.1).collect();
    let counts: Vec<i64> = cells.iter().map(|c| c.2).collect();
    match Table::from_cells(n_rows, n_cols, &rows, &cols, &counts) {
        Ok(t) => {
            assert_eq!(t.n_rows(), n_rows);
            assert_eq!(t.n_cols(), n_cols);
            let mut want = Cells::new();
            for &(r, c, v) in cells {
                assert!(v >= 0 && usize::try_from(r).is_ok_and(|r| r < n_rows));
                assert!(usize::try_from(c).is_ok_and(|c| c < n_cols));
                if v > 0 {
                    *want.entry((i128::from(r), i128::from(c))).or_insert(0) += v as u64;
                }
            }
            assert_eq!(cells_of(&t), want);
            check_scores(&t);
        }
        Err(Error::NegativeCount) => assert!(counts.iter().any(|&v| v < 0)),
        Err(Error::CellOutOfBounds) => {
            let outside = cells.iter().any(|&(r, c, _)| {
                !usize::try_from(r).is_ok_and(|r| r < n_rows)
                    || !usize::try_from(c).is_ok_and(|c| c < n_cols)
            });
            assert!(outside);
        }
        Err(Error::CountOverflow) => {
            let total: i128 = counts.iter().map(|&v| i128::from(v.max(0))).sum();
            assert!(total > i128::from(u64::MAX));
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

/// Two tables over disjoint samples (`..cut` and `cut..`), merged by adding their cells
/// as `Contingency.__add__` merges them, equal the table of all the samples.
pub fn check_merge<A: Label + Into<i128>, B: Label + Into<i128>>(a: &[A], b: &[B], cut: usize) {
    let halves = [
        count(&a[..cut], &b[..cut]).unwrap(),
        count(&a[cut..], &b[cut..]).unwrap(),
    ];
    let whole = count(a, b).unwrap();
    // Positions in the whole table's rows and columns, as the Python layer aligns them.
    let position = |keys: &[i128], v: i128| keys.binary_search(&v).unwrap() as i64;
    let row_values: Vec<i128> = (0..whole.n_rows()).map(|i| whole.rows.value(i)).collect();
    let col_values: Vec<i128> = (0..whole.n_cols()).map(|i| whole.cols.value(i)).collect();
    let (mut rows, mut cols, mut counts) = (vec![], vec![], vec![]);
    for t in &halves {
        for k in 0..t.cell_count.len() {
            rows.push(position(&row_values, t.rows.value(t.cell_row[k] as usize)));
            cols.push(position(&col_values, t.cols.value(t.cell_col[k] as usize)));
            counts.push(t.cell_count[k] as i64);
        }
    }
    let merged = Table::from_cells(whole.n_rows(), whole.n_cols(), &rows, &cols, &counts).unwrap();
    assert_eq!(merged.cell_count, whole.cell_count);
    assert_eq!(merged.cell_row, whole.cell_row);
    assert_eq!(merged.cell_col, whole.cell_col);
    assert_eq!(scores::pair_sums(&merged), scores::pair_sums(&whole));
    assert_eq!(
        scores::mutual_info(&merged).unwrap().to_bits(),
        scores::mutual_info(&whole).unwrap().to_bits()
    );
}

/// Counts `a` against `b` (equal lengths) and checks the table against the naive count,
/// its invariants and its scores; also the class sizes of `a` alone.
pub fn check_count<A: Label + Into<i128>, B: Label + Into<i128>>(a: &[A], b: &[B]) {
    let t = count(a, b).unwrap();
    check_invariants(&t);
    assert_eq!(cells_of(&t), naive(a, b));
    check_scores(&t);
    check_counted(&count_compact(a, b, Keep::Cells).unwrap(), &t);
    for keep in [Keep::Measures, Keep::Margins] {
        let measures = count_compact(a, b, keep).unwrap();
        check_counted(&measures, &t);
        if let Some(table) = measures.table() {
            assert_eq!(table, &t);
        }
    }
    let one = fastcluster_metrics_core::count_one(a).unwrap();
    check_invariants(&one);
    assert_eq!(one.row_sums, t.row_sums);
    assert_eq!(one.rows, t.rows);
}

/// A counted table in either form has the table `t`, and the measures of `t`: to the bit,
/// but for the mutual information and the columns' entropy (a compact form sums them a
/// row and a size at a time).
pub fn check_counted(c: &Counted, t: &Table) {
    assert!(c.table().is_none_or(|table| table == t));
    assert_eq!(
        (c.n(), c.n_rows(), c.n_cols(), c.nnz()),
        (t.n, t.n_rows(), t.n_cols(), t.cell_count.len())
    );
    assert_eq!((c.rows(), c.row_sums()), (&t.rows, &t.row_sums[..]));
    assert_eq!(c.pair_sums(), scores::pair_sums(t));
    let bits = |x: f64| x.to_bits();
    assert_eq!(bits(c.entropy_rows()), bits(scores::entropy(&t.row_sums)));
    let (h, want) = (c.entropy_cols().unwrap(), scores::entropy(&t.col_sums));
    assert!((h - want).abs() <= 1e-15 * want, "{h} against {want}");
    assert_eq!(bits(c.purity().unwrap()), bits(scores::purity(t).unwrap()));
    let (mi, want) = (c.mutual_info().unwrap(), scores::mutual_info(t).unwrap());
    assert!((mi - want).abs() <= 1e-14 * want, "{mi} against {want}");
    let emi = c.expected_mutual_info().unwrap();
    assert_eq!(bits(emi), bits(scores::expected_mutual_info(t).unwrap()));
    let parts = c.ami_parts().unwrap();
    assert_eq!(
        [
            parts.mutual_info,
            parts.expected,
            parts.entropy_rows,
            parts.entropy_cols
        ]
        .map(bits),
        [mi, emi, c.entropy_rows(), c.entropy_cols().unwrap()].map(bits)
    );
}
