//! Property-based fuzzing of the core's public entry points: label streams of every
//! width (counted alone, in pairs and as matrix columns), tables given by cells and
//! merged by adding cells, string encoding, and every score. Each case must either
//! return an error or a result equal to a naive reference; nothing may panic.
//!
//! CI runs the default number of cases. The long run (see README, "Hardening"):
//!
//! ```sh
//! PROPTEST_CASES=200000 cargo test -p fastcluster-metrics-core --release --test fuzz
//! ```

use std::collections::BTreeMap;

use fastcluster_metrics_core::encode::{encode_fixed, MISSING};
use fastcluster_metrics_core::{count, count_columns, count_one, scores, Error, Label, Table};
use proptest::prelude::*;

type Cells = BTreeMap<(i128, i128), u64>;

fn naive<A: Label + Into<i128>, B: Label + Into<i128>>(a: &[A], b: &[B]) -> Cells {
    let mut m = Cells::new();
    for (&x, &y) in a.iter().zip(b) {
        *m.entry((x.into(), y.into())).or_insert(0) += 1;
    }
    m
}

fn cells_of(t: &Table) -> Cells {
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
fn check_invariants(t: &Table) {
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
fn check_scores(t: &Table) {
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
    let mi = scores::mutual_info(t);
    let emi = scores::expected_mutual_info(t);
    let purity = scores::purity(t);
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

/// Labels drawn from few values (dense window), or anywhere in the type's range (hash).
fn labels<T: std::fmt::Debug + Clone + 'static>(
    few: impl Strategy<Value = T> + Clone + 'static,
    any: impl Strategy<Value = T> + Clone + 'static,
    max_len: usize,
) -> impl Strategy<Value = Vec<T>> {
    prop_oneof![
        prop::collection::vec(few.clone(), 0..max_len),
        prop::collection::vec(prop_oneof![few, any], 0..max_len),
    ]
}

fn pairs<A, B>(
    a: impl Strategy<Value = A> + Clone + 'static,
    b: impl Strategy<Value = B> + Clone + 'static,
    max_len: usize,
) -> impl Strategy<Value = (Vec<A>, Vec<B>)>
where
    A: std::fmt::Debug + Clone + 'static,
    B: std::fmt::Debug + Clone + 'static,
{
    (0..max_len).prop_flat_map(move |n| {
        (
            prop::collection::vec(a.clone(), n),
            prop::collection::vec(b.clone(), n),
        )
    })
}

proptest! {
    #[test]
    fn counts_of_wide_labels_match_naive(
        (a, b) in pairs(
            prop_oneof![-3i64..3, Just(i64::MIN), Just(i64::MAX), any::<i64>()],
            prop_oneof![0u64..4, Just(u64::MAX), Just(1 << 63), any::<u64>()],
            600,
        )
    ) {
        let t = count(&a, &b).unwrap();
        check_invariants(&t);
        prop_assert_eq!(cells_of(&t), naive(&a, &b));
        check_scores(&t);
    }

    #[test]
    fn counts_of_narrow_labels_match_naive(
        (a, b) in pairs(any::<i8>(), prop_oneof![0u16..5, any::<u16>()], 3000)
    ) {
        let t = count(&a, &b).unwrap();
        check_invariants(&t);
        prop_assert_eq!(cells_of(&t), naive(&a, &b));
        check_scores(&t);
    }

    #[test]
    fn mismatched_lengths_are_errors(a in labels(0i32..3, any::<i32>(), 50),
                                     b in labels(0i32..3, any::<i32>(), 50)) {
        let got = count(&a, &b);
        if a.len() == b.len() {
            prop_assert!(got.is_ok());
        } else {
            prop_assert_eq!(got.unwrap_err(), Error::LengthMismatch { left: a.len(), right: b.len() });
        }
    }

    #[test]
    fn one_labeling_counts_its_classes(a in labels(0u8..4, any::<u8>(), 2000)) {
        let t = count_one(&a).unwrap();
        check_invariants(&t);
        let mut want = BTreeMap::new();
        for &x in &a {
            *want.entry(x).or_insert(0u64) += 1;
        }
        let got: BTreeMap<u8, u64> = (0..t.n_rows())
            .map(|i| (t.rows.value(i) as u8, t.row_sums[i]))
            .collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn matrix_columns_match_separate_counts(
        width in 0usize..6,
        (a, b) in pairs(0i16..40, prop_oneof![0i64..9, any::<i64>()], 400),
        extra in any::<bool>(),
    ) {
        // `b` is reused as a row-major matrix: its first rows × width values.
        let rows = b.len().checked_div(width).map_or(a.len(), |r| a.len().min(r));
        let a = &a[..rows];
        let mut m = b[..rows * width].to_vec();
        if extra {
            m.push(1); // a buffer that is not a whole number of rows
            prop_assert!(count_columns(a, &m, width).is_err());
            return Ok(());
        }
        let tables = count_columns(a, &m, width).unwrap();
        prop_assert_eq!(tables.len(), width);
        for (k, t) in tables.iter().enumerate() {
            check_invariants(t);
            let column: Vec<i64> = m.iter().skip(k).step_by(width.max(1)).copied().collect();
            prop_assert_eq!(cells_of(t), naive(a, &column));
        }
    }

    #[test]
    fn given_cells_build_or_refuse(
        n_rows in 0usize..6,
        n_cols in 0usize..6,
        cells in prop::collection::vec(
            (-1i64..7, -1i64..7, prop_oneof![0i64..5, Just(-1), Just(i64::MAX)]), 0..20),
    ) {
        let rows: Vec<i64> = cells.iter().map(|c| c.0).collect();
        let cols: Vec<i64> = cells.iter().map(|c| c.1).collect();
        let counts: Vec<i64> = cells.iter().map(|c| c.2).collect();
        match Table::from_cells(n_rows, n_cols, &rows, &cols, &counts) {
            Ok(t) => {
                prop_assert_eq!(t.n_rows(), n_rows);
                prop_assert_eq!(t.n_cols(), n_cols);
                let mut want = Cells::new();
                for &(r, c, v) in &cells {
                    prop_assert!(v >= 0 && (0..n_rows as i64).contains(&r));
                    prop_assert!((0..n_cols as i64).contains(&c));
                    if v > 0 {
                        *want.entry((i128::from(r), i128::from(c))).or_insert(0) += v as u64;
                    }
                }
                prop_assert_eq!(cells_of(&t), want);
                check_scores(&t);
            }
            Err(Error::NegativeCount) => prop_assert!(counts.iter().any(|&v| v < 0)),
            Err(Error::CellOutOfBounds) => {
                let outside = cells.iter().any(|&(r, c, _)| {
                    r < 0 || c < 0 || r >= n_rows as i64 || c >= n_cols as i64
                });
                prop_assert!(outside);
            }
            Err(Error::CountOverflow) => {
                let total: i128 = counts.iter().map(|&v| i128::from(v.max(0))).sum();
                prop_assert!(total > i128::from(u64::MAX));
            }
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }

    #[test]
    fn merged_cells_equal_the_count_of_the_concatenation(
        (a, b) in pairs(0u8..6, 0u8..5, 300),
        split in any::<prop::sample::Index>(),
    ) {
        // Two tables over disjoint samples, merged by adding their cells, equal the
        // table of all the samples (as `Contingency.__add__` merges them).
        let cut = if a.is_empty() { 0 } else { split.index(a.len() + 1) };
        let halves = [count(&a[..cut], &b[..cut]).unwrap(), count(&a[cut..], &b[cut..]).unwrap()];
        let (mut rows, mut cols, mut counts) = (vec![], vec![], vec![]);
        for t in &halves {
            for k in 0..t.cell_count.len() {
                rows.push(t.rows.value(t.cell_row[k] as usize) as i64);
                cols.push(t.cols.value(t.cell_col[k] as usize) as i64);
                counts.push(t.cell_count[k] as i64);
            }
        }
        let merged = Table::from_cells(6, 5, &rows, &cols, &counts).unwrap();
        let whole = count(&a, &b).unwrap();
        let nonempty: Cells = cells_of(&merged);
        prop_assert_eq!(nonempty, cells_of(&whole));
        prop_assert_eq!(scores::pair_sums(&merged), scores::pair_sums(&whole));
        prop_assert_eq!(scores::mutual_info(&merged).to_bits(), scores::mutual_info(&whole).to_bits());
    }

    #[test]
    fn fixed_width_strings_encode_in_order(
        data in prop::collection::vec(prop_oneof![Just(0u8), 97u8..100, any::<u8>()], 0..400),
        width in 0usize..9,
        unicode in any::<bool>(),
    ) {
        match encode_fixed(&data, width, unicode) {
            Ok(c) => {
                prop_assert!(width > 0);
                prop_assert_eq!(c.codes.len(), data.len() / width);
                prop_assert_eq!(c.missing, 0);
                let items: Vec<&[u8]> = data.chunks_exact(width).collect();
                let key = |s: &[u8]| -> Vec<u32> {
                    if unicode {
                        s.chunks_exact(4).map(|p| u32::from_ne_bytes([p[0], p[1], p[2], p[3]])).collect()
                    } else {
                        s.iter().map(|&x| u32::from(x)).collect()
                    }
                };
                for (i, x) in items.iter().enumerate() {
                    prop_assert!(c.codes[i] != MISSING);
                    prop_assert_eq!(&items[c.first[c.codes[i] as usize]], x);
                    for (j, y) in items.iter().enumerate().take(i) {
                        prop_assert_eq!(c.codes[i].cmp(&c.codes[j]), key(x).cmp(&key(y)));
                    }
                }
            }
            Err(e) => {
                prop_assert_eq!(e, Error::BadItemWidth);
                prop_assert!(width == 0 || data.len() % width != 0 || (unicode && width % 4 != 0));
            }
        }
    }
}

proptest! {
    // Each case counts over 65k samples: a sixteenth of the cases.
    #![proptest_config(ProptestConfig {
        cases: (ProptestConfig::default().cases / 16).max(4),
        ..ProptestConfig::default()
    })]
    #[test]
    fn counts_across_threads_match_naive(
        seed in any::<u64>(),
        n in 65_536usize..140_000,
        spread in prop_oneof![Just(1u32), Just(1 << 20)],
        k in 1u32..300,
    ) {
        // Long enough to be split across threads; per-thread tables merge by key.
        let mut s = seed | 1;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let a: Vec<u32> = (0..n).map(|_| (next() % u64::from(k)) as u32 * spread).collect();
        let b: Vec<i32> = (0..n).map(|_| (next() % 50) as i32 - 25).collect();
        let t = count(&a, &b).unwrap();
        check_invariants(&t);
        prop_assert_eq!(cells_of(&t), naive(&a, &b));
    }
}
