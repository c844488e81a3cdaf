//! The exact silhouette under squared Euclidean and cosine distances in O(n·k·d), from
//! each cluster's centroid and spread, never pair by pair.
//!
//! For any point `y` and cluster `C` of `n_C` points with centroid `m_C`,
//! `Σ_{j∈C} |y - y_j|² = n_C |y - m_C|² + W_C` with `W_C = Σ_{j∈C} |y_j - m_C|²`: a sum of
//! non-negative terms, with no cancellation however far the cluster lies from the origin
//! (the centring that matters is on each cluster's own centroid). Both `m_C` and `W_C`
//! come from two passes (the second corrects the centroid by the mean of the residuals,
//! and `W_C` by their square), so their error is that of the data's rounding. The sample's
//! own term is `|y - y|² = 0`, so the same sum is `a_i`'s numerator for its own cluster.
//!
//! Cosine: rows are scaled to unit norm (a zero row stays zero, as scikit-learn's
//! `normalize` leaves it) and `1 - u·v = |u - v|² / 2` for unit `u`, `v`; with `z` marking
//! zero rows (whose cosine similarity to anything is 0, their distance 1) this gives
//! `Σ_{j∈C} (1 - u·u_j) = (n_C |u - m_C|² + W_C + n_C z + Z_C) / 2`, `Z_C` the zero rows of
//! `C`. A zero row's distance to itself is 1 there; scikit-learn's matrix has 0 on its
//! diagonal, so that term is taken off the row's own cluster; a unit row's is 0.

use super::chunks;
use super::float::Float;
use super::labelings::{silhouette, Labelings};
use crate::alloc;
use crate::cpu::{self, Build, Kernel};
use crate::error::Error;

/// The distances these sums give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Summed {
    SqEuclidean,
    Cosine,
}

/// Row `i` as the kernel sees it, into `out`; whether it is a zero row (cosine).
#[inline(always)]
fn row<T: Float>(x: &[T], i: usize, d: usize, metric: Summed, out: &mut [f64]) -> bool {
    let src = &x[i * d..(i + 1) * d];
    for (o, &v) in out.iter_mut().zip(src) {
        *o = v.to_f64();
    }
    if metric == Summed::Cosine {
        let norm = out.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm == 0.0 {
            return true;
        }
        for o in out.iter_mut() {
            *o /= norm;
        }
    }
    false
}

/// `|a - b|²`, in four lanes.
#[inline(always)]
fn distance2(a: &[f64], b: &[f64]) -> f64 {
    let mut lanes = [0.0f64; 4];
    let mut qa = a.chunks_exact(4);
    let mut qb = b.chunks_exact(4);
    for (p, q) in (&mut qa).zip(&mut qb) {
        for t in 0..4 {
            let v = p[t] - q[t];
            lanes[t] += v * v;
        }
    }
    let mut s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (p, q) in qa.remainder().iter().zip(qb.remainder()) {
        s += (p - q) * (p - q);
    }
    s
}

/// Per cluster (of every labeling): the centroid, its spread `W`, its zero rows.
pub(crate) struct Clusters {
    pub(crate) centroids: Vec<f64>,
    pub(crate) spread: Vec<f64>,
    zeros: Vec<f64>,
}

/// Each cluster's centroid and spread, in two passes.
pub(crate) fn clusters<T: Float>(
    x: &[T],
    d: usize,
    labelings: &Labelings<'_>,
    metric: Summed,
    par: bool,
) -> Result<Clusters, Error> {
    let n = labelings.n;
    let (m, ktot) = (labelings.m(), labelings.total());
    let chunk = chunks::rows(n);
    // Pass 1: sums of points and zero rows.
    let parts = chunks::map(par, n, chunk, |rows| {
        let mut s = alloc::filled(ktot * d + ktot, 0.0f64, "a chunk's cluster sums")?;
        let mut y = alloc::filled(d, 0.0f64, "a sample")?;
        for i in rows {
            let zero = row(x, i, d, metric, &mut y);
            for l in 0..m {
                let c = labelings.cluster(l, i);
                for (a, &v) in s[c * d..(c + 1) * d].iter_mut().zip(&y) {
                    *a += v;
                }
                if zero {
                    s[ktot * d + c] += 1.0;
                }
            }
        }
        Ok(s)
    })?;
    let mut total = alloc::filled(ktot * d + ktot, 0.0f64, "the cluster sums")?;
    add(&mut total, parts);
    let zeros = total.split_off(ktot * d);
    let mut centroids = total;
    for (c, centroid) in centroids.chunks_exact_mut(d.max(1)).enumerate().take(ktot) {
        let size = labelings.sizes[c].max(1) as f64;
        for v in centroid {
            *v /= size;
        }
    }
    // Pass 2: residuals about the centroids, and their squares.
    let parts = chunks::map(par, n, chunk, |rows| {
        let mut s = alloc::filled(ktot * d + ktot, 0.0f64, "a chunk's cluster residuals")?;
        let mut y = alloc::filled(d, 0.0f64, "a sample")?;
        for i in rows {
            row(x, i, d, metric, &mut y);
            for l in 0..m {
                let c = labelings.cluster(l, i);
                let centroid = &centroids[c * d..(c + 1) * d];
                let mut w = 0.0;
                for ((a, &v), &mu) in s[c * d..(c + 1) * d].iter_mut().zip(&y).zip(centroid) {
                    let r = v - mu;
                    *a += r;
                    w += r * r;
                }
                s[ktot * d + c] += w;
            }
        }
        Ok(s)
    })?;
    let mut total = alloc::filled(ktot * d + ktot, 0.0f64, "the cluster residuals")?;
    add(&mut total, parts);
    let mut spread = total.split_off(ktot * d);
    let residuals = total;
    for c in 0..ktot {
        let size = labelings.sizes[c].max(1) as f64;
        let r = &residuals[c * d..(c + 1) * d];
        let r2: f64 = r.iter().map(|v| v * v).sum();
        spread[c] = (spread[c] - r2 / size).max(0.0);
        for (mu, &v) in centroids[c * d..(c + 1) * d].iter_mut().zip(r) {
            *mu += v / size;
        }
    }
    Ok(Clusters {
        centroids,
        spread,
        zeros,
    })
}

/// `parts` added into `total` in their order.
pub(crate) fn add(total: &mut [f64], parts: Vec<Vec<f64>>) {
    for part in parts {
        for (a, v) in total.iter_mut().zip(part) {
            *a += v;
        }
    }
}

/// Each sample's silhouette in each labeling (`m × n`).
pub(crate) fn silhouettes<T: Float>(
    x: &[T],
    d: usize,
    labelings: &Labelings<'_>,
    metric: Summed,
    par: bool,
) -> Result<Vec<f64>, Error> {
    let n = labelings.n;
    let (m, ktot) = (labelings.m(), labelings.total());
    let clusters = clusters(x, d, labelings, metric, par)?;
    let parts = chunks::map(par, n, chunks::rows(n) / 4 + 1, |rows| {
        let mut out = alloc::filled(rows.len() * m, 0.0f64, "a chunk's silhouettes")?;
        let mut y = alloc::filled(d, 0.0f64, "a sample")?;
        let mut sums = alloc::filled(ktot, 0.0f64, "a sample's sums")?;
        let start = rows.start;
        for i in rows {
            let zero = row(x, i, d, metric, &mut y);
            cpu::run_best(
                &[Build::Avx2],
                Sums {
                    y: &y,
                    zero,
                    d,
                    clusters: &clusters,
                    sizes: &labelings.sizes,
                    metric,
                    sums: &mut sums,
                },
            );
            if zero && metric == Summed::Cosine {
                // a zero row's distance to itself is 0, as everyone's (scikit-learn zeroes
                // the diagonal); the sums above count it as 1
                for l in 0..m {
                    sums[labelings.cluster(l, i)] -= 1.0;
                }
            }
            for l in 0..m {
                out[(i - start) * m + l] = silhouette(labelings, &sums, l, i);
            }
        }
        Ok(out)
    })?;
    let mut out = alloc::filled(m * n, 0.0f64, "the silhouettes")?;
    let mut i = 0;
    for part in parts {
        for row in part.chunks_exact(m) {
            for (l, &s) in row.iter().enumerate() {
                out[l * n + i] = s;
            }
            i += 1;
        }
    }
    Ok(out)
}

/// One sample's sums of distances to every cluster.
struct Sums<'a> {
    y: &'a [f64],
    zero: bool,
    d: usize,
    clusters: &'a Clusters,
    sizes: &'a [u64],
    metric: Summed,
    sums: &'a mut [f64],
}

impl Kernel for Sums<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let d = self.d;
        for (c, s) in self.sums.iter_mut().enumerate() {
            let size = self.sizes[c] as f64;
            let to = distance2(self.y, &self.clusters.centroids[c * d..(c + 1) * d]);
            let v = size * to + self.clusters.spread[c];
            *s = match self.metric {
                Summed::SqEuclidean => v,
                Summed::Cosine => {
                    let z = if self.zero { size } else { 0.0 };
                    0.5 * (v + z + self.clusters.zeros[c])
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::testing::{brute, labels, points, pools};

    fn check<T: Float>(n: usize, d: usize, ks: &[usize], metric: Summed, shift: f64, tol: f64) {
        let x: Vec<T> = points(n, d, 11)
            .into_iter()
            .map(|v| T::from_f64(v + shift))
            .collect();
        let codes = labels(n, ks, 5);
        let lab = Labelings::new(n, &codes, ks).unwrap();
        let x64: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
        let norm = |a: &[f64]| {
            let s = a.iter().map(|v| v * v).sum::<f64>().sqrt();
            if s == 0.0 {
                1.0
            } else {
                s
            }
        };
        let mut want = brute(&x64, d, &lab, |a, b| match metric {
            Summed::SqEuclidean => a.iter().zip(b).map(|(p, q)| (p - q) * (p - q)).sum(),
            Summed::Cosine => {
                1.0 - a.iter().zip(b).map(|(p, q)| p * q).sum::<f64>() / (norm(a) * norm(b))
            }
        });
        if metric == Summed::Cosine && shift == 0.0 && n > 4 && d > 0 {
            // Sample 1 is a zero row: its distance to every other sample is 1, to itself 0,
            // as in scikit-learn.
            let mut sums = vec![0.0; lab.total()];
            for j in (0..n).filter(|&j| j != 1) {
                for l in 0..lab.m() {
                    sums[lab.cluster(l, j)] += 1.0;
                }
            }
            for l in 0..lab.m() {
                want[l * n + 1] = silhouette(&lab, &sums, l, 1);
            }
        }
        let one = silhouettes(&x, d, &lab, metric, false).unwrap();
        for (i, (g, w)) in one.iter().zip(&want).enumerate() {
            assert!((g - w).abs() <= tol, "{i}: {g} {w} {metric:?} n={n}");
        }
        for pool in pools() {
            let got = pool
                .install(|| silhouettes(&x, d, &lab, metric, true))
                .unwrap();
            assert_eq!(got, one);
        }
    }

    #[test]
    fn equals_the_pair_loops_on_every_thread_count() {
        for metric in [Summed::SqEuclidean, Summed::Cosine] {
            check::<f64>(1, 3, &[1], metric, 0.0, 1e-12);
            check::<f64>(9, 2, &[3], metric, 0.0, 1e-12);
            check::<f64>(500, 5, &[4, 1, 9], metric, 0.0, 1e-10);
            check::<f64>(9000, 3, &[7], metric, 0.0, 1e-10);
            check::<f32>(300, 6, &[5, 2], metric, 0.0, 1e-10);
        }
    }

    #[test]
    fn a_cluster_far_from_the_origin_keeps_its_digits() {
        // Points 1e6 away from the origin spread by about 1: the expanded form
        // n|y|² - 2 y·S + Q would lose 12 of 16 digits; the centroid form keeps them.
        check::<f64>(400, 4, &[3], Summed::SqEuclidean, 1e6, 1e-9);
    }
}
