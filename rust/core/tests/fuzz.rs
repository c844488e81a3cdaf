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
use fastcluster_metrics_core::{
    count, count_columns, count_one, count_weighted, Error, Weight, Weights,
};
use proptest::prelude::*;

mod common;
use common::{cells_of, check_count, check_from_cells, check_invariants, check_merge, naive};

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
    /// Whole-number weights give the table of the labels repeated that many times; any
    /// weights give each cell the exact sum of its samples' units; bad weights are errors.
    #[test]
    fn weighted_counts_match_repeated_and_naive_sums(
        (a, b) in pairs(
            prop_oneof![-3i64..3, Just(i64::MIN), any::<i64>()],
            prop_oneof![0u16..4, any::<u16>()],
            300,
        ),
        seed in any::<u64>(),
        fractional in any::<bool>(),
    ) {
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let whole: Vec<u64> = a.iter().map(|_| next() % 4).collect();
        if !fractional {
            match count_weighted(&a, &b, Weights::U64(&whole)) {
                Ok(w) => {
                    let ra: Vec<i64> = a.iter().zip(&whole)
                        .flat_map(|(&x, &k)| std::iter::repeat_n(x, k as usize)).collect();
                    let rb: Vec<u16> = b.iter().zip(&whole)
                        .flat_map(|(&y, &k)| std::iter::repeat_n(y, k as usize)).collect();
                    prop_assert!(w.units.is_none());
                    prop_assert_eq!(&w.table, &count(&ra, &rb).unwrap());
                }
                Err(e) => prop_assert!(false, "whole weights refused: {e}"),
            }
        } else {
            let real: Vec<f64> = whole.iter().map(|&k| k as f64 / 3.0 + 1e-9).collect();
            let w = count_weighted(&a, &b, Weights::F64(&real)).unwrap();
            let mut naive_sums: BTreeMap<(i64, u16), u128> = BTreeMap::new();
            for ((&x, &y), &v) in a.iter().zip(&b).zip(&real) {
                *naive_sums.entry((x, y)).or_insert(0) += v.units();
            }
            let units = w.units.clone().unwrap_or_default();
            let t = &w.table;
            let mut got = BTreeMap::new();
            for ((&r, &c), &u) in t.cell_row.iter().zip(&t.cell_col).zip(&units) {
                got.insert((t.rows.value(r as usize) as i64, t.cols.value(c as usize) as u16), u);
            }
            prop_assert_eq!(got, naive_sums);
        }
        if !a.is_empty() {
            let mut bad = vec![1.0f64; a.len()];
            let at = (seed as usize) % a.len();
            bad[at] = -0.5;
            let refused = matches!(
                count_weighted(&a, &b, Weights::F64(&bad)),
                Err(Error::BadWeight { index, .. }) if index == at
            );
            prop_assert!(refused);
        }
    }

    #[test]
    fn counts_of_wide_labels_match_naive(
        (a, b) in pairs(
            prop_oneof![-3i64..3, Just(i64::MIN), Just(i64::MAX), any::<i64>()],
            prop_oneof![0u64..4, Just(u64::MAX), Just(1 << 63), any::<u64>()],
            600,
        )
    ) {
        check_count(&a, &b);
    }

    #[test]
    fn counts_of_narrow_labels_match_naive(
        (a, b) in pairs(any::<i8>(), prop_oneof![0u16..5, any::<u16>()], 3000)
    ) {
        check_count(&a, &b);
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
        check_from_cells(n_rows, n_cols, &cells);
    }

    #[test]
    fn merged_cells_equal_the_count_of_the_concatenation(
        (a, b) in pairs(0u8..6, 0u8..5, 300),
        split in any::<prop::sample::Index>(),
    ) {
        let cut = if a.is_empty() { 0 } else { split.index(a.len() + 1) };
        check_merge(&a, &b, cut);
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
