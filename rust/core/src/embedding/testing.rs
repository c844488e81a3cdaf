//! (Unit tests only) random embeddings and labelings, the silhouette by its pair loops,
//! and pools of several sizes.

use super::labelings::{silhouette, Labelings};

/// A small generator of values (splitmix64).
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `n × d` values in -1..1, with a few repeated rows and a zero row.
pub(crate) fn points(n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    let mut x: Vec<f64> = (0..n * d)
        .map(|_| (next(&mut s) >> 11) as f64 / (1u64 << 52) as f64 - 1.0)
        .collect();
    if n > 4 && d > 0 {
        x.copy_within(0..d, 3 * d);
        x[d..2 * d].fill(0.0);
    }
    x
}

/// `ks.len()` labelings of `n` samples, labeling `l` using each of `0..ks[l]` (where
/// `n` allows).
pub(crate) fn labels(n: usize, ks: &[usize], seed: u64) -> Vec<i64> {
    let mut s = seed;
    let mut out = Vec::new();
    for &k in ks {
        out.extend((0..n).map(|i| {
            if i < k {
                i as i64
            } else {
                (next(&mut s) % k as u64) as i64
            }
        }));
    }
    out
}

/// The silhouettes (`m × n`) from every pair's distance `f`, pair by pair.
pub(crate) fn brute(
    x: &[f64],
    d: usize,
    lab: &Labelings<'_>,
    f: impl Fn(&[f64], &[f64]) -> f64,
) -> Vec<f64> {
    let n = lab.n;
    let mut out = vec![0.0; lab.m() * n];
    for i in 0..n {
        let mut sums = vec![0.0; lab.total()];
        for j in 0..n {
            if i != j {
                let v = f(&x[i * d..(i + 1) * d], &x[j * d..(j + 1) * d]);
                for l in 0..lab.m() {
                    sums[lab.cluster(l, j)] += v;
                }
            }
        }
        for l in 0..lab.m() {
            out[l * n + i] = silhouette(lab, &sums, l, i);
        }
    }
    out
}

/// Pools of 1, 2, 3 and 5 threads.
pub(crate) fn pools() -> Vec<rayon::ThreadPool> {
    [1, 2, 3, 5]
        .into_iter()
        .map(|t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
        })
        .collect()
}
