//! The kernels against brute force on small random graphs.

use super::components::components;
use super::gamma::gammaincc;
use super::kbet::kbet;
use super::lisi::lisi;
use super::rows::{Graph, Rows};
use crate::testing::xorshift;

/// A random graph of `n` cells, `k` neighbours a row (the cell itself first where
/// `with_self`), distances in `[0, 4)`, and `n_labels` labels.
fn random(
    n: usize,
    k: usize,
    n_labels: usize,
    with_self: bool,
    seed: u64,
) -> (Vec<i64>, Vec<f64>, Vec<i64>) {
    let mut next = xorshift(seed);
    let mut idx = Vec::new();
    let mut dist = Vec::new();
    for i in 0..n {
        for c in 0..k {
            if with_self && c == 0 {
                idx.push(i as i64);
                dist.push(0.0);
            } else {
                // Any cell but the cell itself.
                let j = (i as u64 + 1 + next() % (n as u64 - 1)) % n as u64;
                idx.push(j as i64);
                dist.push((next() % 4000) as f64 / 1000.0);
            }
        }
    }
    let codes = (0..n).map(|_| (next() % n_labels as u64) as i64).collect();
    (idx, dist, codes)
}

#[test]
fn lisi_of_equal_distances_is_the_inverse_simpson_of_the_shares() {
    // Equal distances: every weight the same whatever beta, so LISI = 1 / Σ share².
    let n = 6;
    let idx: Vec<i64> = (0..n as i64)
        .flat_map(|i| [i, (i + 1) % 6, (i + 2) % 6, (i + 3) % 6])
        .collect();
    let dist: Vec<f64> = (0..n).flat_map(|_| [0.0, 1.0, 1.0, 1.0]).collect();
    let codes = [0, 0, 1, 1, 2, 2];
    let g = Graph::new(n, Rows::Fixed(4), &idx, &dist).unwrap();
    let out = lisi(&g, &codes, 3, 3.0, 1e-5).unwrap();
    for i in 0..n {
        let mut share = [0.0f64; 3];
        for c in 1..4 {
            share[codes[(i + c) % 6] as usize] += 1.0 / 3.0;
        }
        let want = 1.0 / share.iter().map(|s| s * s).sum::<f64>();
        assert!((out[i] - want).abs() < 1e-12, "{i}: {} {want}", out[i]);
    }
}

#[test]
fn lisi_calibrates_the_perplexity() {
    let (idx, dist, codes) = random(300, 30, 4, true, 7);
    let g = Graph::new(300, Rows::Fixed(30), &idx, &dist).unwrap();
    let out = lisi(&g, &codes, 4, 10.0, 1e-5).unwrap();
    for (i, &l) in out.iter().enumerate() {
        assert!((1.0 - 1e-12..=4.0 + 1e-12).contains(&l), "{i}: {l}");
        // Brute force: the weights at the beta of a fine scan whose entropy is ln 10.
        let row = &dist[i * 30..(i + 1) * 30];
        let nbs = &idx[i * 30..(i + 1) * 30];
        let h = |beta: f64| {
            let w: Vec<f64> = row
                .iter()
                .zip(nbs)
                .map(|(&d, &j)| {
                    if j == i as i64 {
                        0.0
                    } else {
                        (-d * beta).exp()
                    }
                })
                .collect();
            let s: f64 = w.iter().sum();
            let e = s.ln() + beta * row.iter().zip(&w).map(|(d, w)| d * w).sum::<f64>() / s;
            (e, w, s)
        };
        let (mut lo, mut hi) = (1e-9f64, 1e3f64);
        for _ in 0..200 {
            let mid = (lo * hi).sqrt();
            if h(mid).0 > 10f64.ln() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let (_, w, s) = h(lo);
        let mut p = [0.0f64; 4];
        for (wj, &j) in w.iter().zip(nbs) {
            p[codes[j as usize] as usize] += wj / s;
        }
        let want = 1.0 / p.iter().map(|x| x * x).sum::<f64>();
        assert!((l - want).abs() < 1e-3 * want, "{i}: {l} {want}");
    }
}

#[test]
fn lisi_of_a_cell_alone_is_minus_one() {
    let idx = [0i64, 1];
    let dist = [0.0f64, 0.0];
    let g = Graph::new(2, Rows::Fixed(1), &idx, &dist).unwrap();
    assert_eq!(lisi(&g, &[0, 1], 2, 1.0, 1e-5).unwrap(), vec![-1.0, -1.0]);
}

#[test]
fn kbet_is_the_chi_square_of_each_neighbourhood() {
    for (n_batches, seed) in [(1usize, 3u64), (3, 5), (70, 9)] {
        let (idx, dist, _) = random(200, 12, n_batches, true, seed);
        let codes: Vec<i64> = (0..200).map(|i| (i % n_batches) as i64).collect();
        let g = Graph::new(200, Rows::Fixed(12), &idx, &dist).unwrap();
        let out = kbet(&g, &codes, n_batches, false).unwrap();
        let mut total = vec![0.0f64; n_batches];
        codes.iter().for_each(|&c| total[c as usize] += 1.0);
        for i in 0..200 {
            let mut count = vec![0.0f64; n_batches];
            idx[i * 12..(i + 1) * 12]
                .iter()
                .for_each(|&j| count[codes[j as usize] as usize] += 1.0);
            let stat: f64 = (0..n_batches)
                .map(|b| {
                    let e = total[b] / 200.0 * 12.0;
                    (count[b] - e).powi(2) / e
                })
                .sum();
            assert!((out[2 * i] - stat).abs() < 1e-9 * stat.max(1.0), "{i}");
            let p = gammaincc((n_batches as f64 - 1.0) / 2.0, stat / 2.0);
            let same =
                (out[2 * i + 1] - p).abs() < 1e-12 || (p.is_nan() && out[2 * i + 1].is_nan());
            assert!(same, "{i}: {} {p}", out[2 * i + 1]);
        }
    }
}

#[test]
fn kbet_counts_the_cell_itself_where_it_is_not_stored() {
    // The same graph without each row's first (self) entry, in offsets form.
    let (idx, dist, codes) = random(100, 8, 3, true, 11);
    let full = Graph::new(100, Rows::Fixed(8), &idx, &dist).unwrap();
    let want = kbet(&full, &codes, 3, false).unwrap();
    let keep: Vec<usize> = (0..idx.len()).filter(|p| p % 8 != 0).collect();
    let idx2: Vec<i64> = keep.iter().map(|&p| idx[p]).collect();
    let dist2: Vec<f64> = keep.iter().map(|&p| dist[p]).collect();
    let offsets: Vec<i64> = (0..=100).map(|i| i * 7).collect();
    let csr = Graph::new(100, Rows::Offsets(&offsets), &idx2, &dist2).unwrap();
    assert_eq!(kbet(&csr, &codes, 3, true).unwrap(), want);
}

/// Which cells each cell reaches within its label (itself included).
fn reach(n: usize, k: usize, idx: &[i64], codes: &[i64], both_ways: bool) -> Vec<Vec<bool>> {
    let mut r = vec![vec![false; n]; n];
    for i in 0..n {
        r[i][i] = true;
        for &j in &idx[i * k..(i + 1) * k] {
            let j = j as usize;
            if codes[i] == codes[j] {
                r[i][j] = true;
                if both_ways {
                    r[j][i] = true;
                }
            }
        }
    }
    for m in 0..n {
        for i in 0..n {
            if r[i][m] {
                let through = r[m].clone();
                r[i].iter_mut().zip(through).for_each(|(x, y)| *x |= y);
            }
        }
    }
    r
}

#[test]
fn components_against_reachability() {
    for seed in 1..6u64 {
        let (n, k) = (60, 2);
        let (idx, dist, codes) = random(n, k, 3, false, seed);
        let g = Graph::new(n, Rows::Fixed(k), &idx, &dist).unwrap();
        for strong in [false, true] {
            let comp = components(&g, &codes, 3, strong).unwrap();
            let r = reach(n, k, &idx, &codes, !strong);
            for i in 0..n {
                for j in 0..n {
                    let together = r[i][j] && r[j][i];
                    assert_eq!(comp[i] == comp[j], together, "{seed} {strong} {i} {j}");
                }
            }
        }
    }
}

#[test]
fn bad_graphs_are_refused() {
    let idx = [0i64, 5];
    let dist = [0.0f64, 1.0];
    let g = Graph::new(2, Rows::Fixed(1), &idx, &dist).unwrap();
    let e = lisi(&g, &[0, 1], 2, 1.0, 1e-5).unwrap_err().to_string();
    assert!(e.contains("neighbour index 5"), "{e}");
    let dist = [0.0f64, f64::NAN];
    let idx = [0i64, 1];
    let g = Graph::new(2, Rows::Fixed(1), &idx, &dist).unwrap();
    assert!(kbet(&g, &[0, 1], 2, false).is_err());
    assert!(components(&g, &[0, 1], 2, true).is_err());
    assert!(Graph::new(3, Rows::Fixed(1), &idx, &dist).is_err());
    assert!(Graph::new(2, Rows::Offsets(&[0, 2, 1]), &idx, &dist).is_err());
    let g = Graph::new(2, Rows::Fixed(1), &idx, &[0.0f64, 1.0]).unwrap();
    assert!(lisi(&g, &[0], 2, 1.0, 1e-5).is_err());
}
