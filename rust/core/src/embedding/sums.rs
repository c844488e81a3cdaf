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
use super::labelings::{nearest_silhouette, silhouette, Between, Labelings};
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

/// Lanes of the sums of squares below: one AVX-512 register of `f64`, two of AVX2.
const LANES: usize = 8;

/// `|a - b|²`, in [`LANES`] lanes (the same additions in every build).
#[inline(always)]
fn distance2(a: &[f64], b: &[f64]) -> f64 {
    let mut lanes = [0.0f64; LANES];
    let mut qa = a.chunks_exact(LANES);
    let mut qb = b.chunks_exact(LANES);
    for (p, q) in (&mut qa).zip(&mut qb) {
        for t in 0..LANES {
            let v = p[t] - q[t];
            lanes[t] += v * v;
        }
    }
    let mut s = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3]))
        + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
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

/// Rows of a block, read twice: the second time from the cache (256 KiB of `f64`).
fn block_rows(d: usize) -> usize {
    ((1usize << 15) / d.max(1)).max(8)
}

/// Adds samples `(count_b, mean_b, m2_b)` to `(count, mean, m2)`: a count, a mean and the
/// sum of squared distances to that mean, merged as Chan, Golub and LeVeque do. Every term
/// added is non-negative, so no digits cancel however far from the origin the samples are.
#[inline]
fn merge(count: &mut f64, mean: &mut [f64], m2: &mut f64, count_b: f64, mean_b: &[f64], m2_b: f64) {
    let total = *count + count_b;
    let share = count_b / total;
    let mut far = 0.0;
    for (a, &b) in mean.iter_mut().zip(mean_b) {
        let delta = b - *a;
        *a += delta * share;
        far += delta * delta;
    }
    *m2 += m2_b + far * (*count * share);
    *count = total;
}

/// Each cluster's centroid and spread, in one pass over the samples. The rows come in
/// blocks that are read twice, the second time from the cache: once for each cluster's
/// mean within the block, once for the squared distances to it; the blocks' moments are
/// then merged ([`merge`]), block by block within a chunk and chunk by chunk in order.
pub(crate) fn clusters<T: Float>(
    x: &[T],
    d: usize,
    labelings: &Labelings<'_>,
    metric: Summed,
    par: bool,
) -> Result<Clusters, Error> {
    let n = labelings.n;
    let ktot = labelings.total();
    let block = block_rows(d);
    // Per chunk: each cluster's count, mean (k × d), squared distances, zero rows.
    let parts = chunks::map(par, n, chunks::rows(n), |rows| {
        let mut count = alloc::filled(ktot, 0.0f64, "a chunk's cluster sizes")?;
        let mut mean = alloc::filled(ktot * d, 0.0f64, "a chunk's cluster means")?;
        let mut m2 = alloc::filled(ktot, 0.0f64, "a chunk's cluster spreads")?;
        let mut zeros = alloc::filled(ktot, 0.0f64, "a chunk's zero rows")?;
        let mut b_count = alloc::filled(ktot, 0.0f64, "a block's cluster sizes")?;
        let mut b_mean = alloc::filled(ktot * d, 0.0f64, "a block's cluster means")?;
        let mut b_m2 = alloc::filled(ktot, 0.0f64, "a block's cluster spreads")?;
        let mut touched = alloc::with_capacity(ktot, "a block's clusters")?;
        let mut y = alloc::filled(d, 0.0f64, "a sample")?;
        let mut at = rows.start;
        while at < rows.end {
            let part = at..(at + block).min(rows.end);
            at = part.end;
            cpu::run_best(
                &[Build::Avx512, Build::Avx2],
                Moments {
                    x,
                    d,
                    labelings,
                    metric,
                    rows: part,
                    count: &mut b_count,
                    mean: &mut b_mean,
                    m2: &mut b_m2,
                    zeros: &mut zeros,
                    touched: &mut touched,
                    y: &mut y,
                },
            );
            for &c in &touched {
                let cluster = c * d..(c + 1) * d;
                merge(
                    &mut count[c],
                    &mut mean[cluster.clone()],
                    &mut m2[c],
                    b_count[c],
                    &b_mean[cluster.clone()],
                    b_m2[c],
                );
                b_count[c] = 0.0;
                b_m2[c] = 0.0;
                b_mean[cluster].iter_mut().for_each(|v| *v = 0.0);
            }
            touched.clear();
        }
        Ok((count, mean, m2, zeros))
    })?;
    let mut count = alloc::filled(ktot, 0.0f64, "the cluster sizes")?;
    let mut centroids = alloc::filled(ktot * d, 0.0f64, "the cluster means")?;
    let mut spread = alloc::filled(ktot, 0.0f64, "the cluster spreads")?;
    let mut zeros = alloc::filled(ktot, 0.0f64, "the zero rows")?;
    for (p_count, p_mean, p_m2, p_zeros) in parts {
        for c in 0..ktot {
            if p_count[c] > 0.0 {
                let cluster = c * d..(c + 1) * d;
                merge(
                    &mut count[c],
                    &mut centroids[cluster.clone()],
                    &mut spread[c],
                    p_count[c],
                    &p_mean[cluster],
                    p_m2[c],
                );
            }
            zeros[c] += p_zeros[c];
        }
    }
    finite(&centroids)?;
    finite(&spread)?;
    Ok(Clusters {
        centroids,
        spread,
        zeros,
    })
}

/// One block of rows of [`clusters`]' pass, added into the block's per-cluster arrays:
/// each cluster's count, its sum then mean, the squared distances to that mean, its
/// zero rows; the clusters touched are listed in `touched`.
struct Moments<'a, 'l, T> {
    x: &'a [T],
    d: usize,
    labelings: &'a Labelings<'l>,
    metric: Summed,
    rows: std::ops::Range<usize>,
    count: &'a mut [f64],
    mean: &'a mut [f64],
    m2: &'a mut [f64],
    zeros: &'a mut [f64],
    touched: &'a mut Vec<usize>,
    y: &'a mut [f64],
}

impl<T: Float> Kernel for Moments<'_, '_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let (d, m, lab) = (self.d, self.labelings.m(), self.labelings);
        for i in self.rows.clone() {
            let zero = row(self.x, i, d, self.metric, self.y);
            for l in 0..m {
                let c = lab.cluster(l, i);
                if self.count[c] == 0.0 {
                    self.touched.push(c);
                }
                self.count[c] += 1.0;
                for (a, &v) in self.mean[c * d..(c + 1) * d].iter_mut().zip(&*self.y) {
                    *a += v;
                }
                if zero {
                    self.zeros[c] += 1.0;
                }
            }
        }
        for &c in self.touched.iter() {
            let size = self.count[c];
            self.mean[c * d..(c + 1) * d]
                .iter_mut()
                .for_each(|v| *v /= size);
        }
        for i in self.rows {
            row(self.x, i, d, self.metric, self.y);
            for l in 0..m {
                let c = lab.cluster(l, i);
                self.m2[c] += distance2(self.y, &self.mean[c * d..(c + 1) * d]);
            }
        }
    }
}

/// `parts` added into `total` in their order.
pub(crate) fn add(total: &mut [f64], parts: Vec<Vec<f64>>) {
    for part in parts {
        for (a, v) in total.iter_mut().zip(part) {
            *a += v;
        }
    }
}

/// The samples' finiteness, from their sums: a NaN or an infinity among the samples makes
/// the sum it is added into NaN or infinite, so the first pass over them checks it at no
/// cost (the callers leave this check to it).
pub(crate) fn finite(sums: &[f64]) -> Result<(), Error> {
    if sums.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(Error::NotFinite)
    }
}

/// Rows of a block of the silhouettes' pass: a multiple of every [`Chunk`]'s rows.
const BLOCK: usize = 64;

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
    // The centroids transposed, dimension by dimension, and the clusters' numbers, in
    // whole groups of lanes (the padding's sums are computed and left unread).
    let width = ktot.next_multiple_of(LANES);
    let mut across = alloc::filled(d * width, 0.0f64, "the centroids, transposed")?;
    let mut sizes = alloc::filled(width, 0.0f64, "the clusters' sizes")?;
    let mut inverse = alloc::filled(width, f64::INFINITY, "the clusters' sizes' inverses")?;
    let mut spread = alloc::filled(width, 0.0f64, "the clusters' spreads")?;
    let mut zeros = alloc::filled(width, 0.0f64, "the clusters' zero rows")?;
    for c in 0..ktot {
        for j in 0..d {
            across[j * width + c] = clusters.centroids[c * d + j];
        }
        sizes[c] = labelings.sizes[c] as f64;
        if sizes[c] > 0.0 {
            inverse[c] = 1.0 / sizes[c];
        }
        spread[c] = clusters.spread[c];
        zeros[c] = clusters.zeros[c];
    }
    let shared = Shared {
        x,
        d,
        labelings,
        metric,
        across: &across,
        width,
        sizes: &sizes,
        inverse: &inverse,
        spread: &spread,
        zeros: &zeros,
    };
    let parts = chunks::map(par, n, chunks::rows(n) / 4 + 1, |rows| {
        let mut out = alloc::filled(rows.len() * m, 0.0f64, "a chunk's silhouettes")?;
        let mut scratch = Scratch {
            ys: alloc::filled(BLOCK * d, 0.0f64, "a block's samples")?,
            sums: alloc::filled(BLOCK * width, 0.0f64, "a block's sums")?,
            near: alloc::filled(width, 0.0f64, "a sample's means")?,
        };
        let chunk = Chunk::<T, 8> {
            shared: &shared,
            rows,
            scratch: &mut scratch,
            out: &mut out,
        };
        // as many rows at once as leave registers for the loads beside the accumulators
        if cpu::has(Build::Avx512) {
            cpu::run_best(&[Build::Avx512], chunk);
        } else if cpu::has(Build::Avx2) {
            cpu::run_best(&[Build::Avx2], chunk.by::<4>());
        } else {
            chunk.by::<2>().run();
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

/// What every chunk of [`silhouettes`] reads: the samples, and the clusters' centroids
/// (transposed, `width` apart), sizes, their inverses (infinite for an empty cluster),
/// spreads and zero rows, in groups of [`LANES`].
struct Shared<'a, 'l, T> {
    x: &'a [T],
    d: usize,
    labelings: &'a Labelings<'l>,
    metric: Summed,
    across: &'a [f64],
    width: usize,
    sizes: &'a [f64],
    inverse: &'a [f64],
    spread: &'a [f64],
    zeros: &'a [f64],
}

/// A chunk's working arrays: a block's samples and sums, a sample's near means.
struct Scratch {
    ys: Vec<f64>,
    sums: Vec<f64>,
    near: Vec<f64>,
}

/// The silhouettes of a chunk's samples, into `out` (sample by sample, `m` each), block by
/// block: the squared distances of [`BLOCK`] samples to every centroid, `R` samples by
/// [`LANES`] centroids at once in registers while the dimensions stream past; from them
/// each sample's sums and means, and its silhouettes. Each distance is added up
/// dimension by dimension, so every `R` and every build gives the same bits.
struct Chunk<'a, 'b, 'l, T, const R: usize> {
    shared: &'a Shared<'b, 'l, T>,
    rows: std::ops::Range<usize>,
    scratch: &'a mut Scratch,
    out: &'a mut [f64],
}

impl<'a, 'b, 'l, T, const R: usize> Chunk<'a, 'b, 'l, T, R> {
    /// The same chunk, `S` rows at once.
    fn by<const S: usize>(self) -> Chunk<'a, 'b, 'l, T, S> {
        Chunk {
            shared: self.shared,
            rows: self.rows,
            scratch: self.scratch,
            out: self.out,
        }
    }
}

impl<T: Float, const R: usize> Kernel for Chunk<'_, '_, '_, T, R> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let p = self.shared;
        let (d, width, lab) = (p.d, p.width, p.labelings);
        let m = lab.m();
        let Scratch { ys, sums, near } = self.scratch;
        let mut zero = [false; BLOCK];
        let start = self.rows.start;
        let mut at = start;
        while at < self.rows.end {
            let part = at..(at + BLOCK).min(self.rows.end);
            at = part.end;
            for (r, i) in part.clone().enumerate() {
                zero[r] = row(p.x, i, d, p.metric, &mut ys[r * d..(r + 1) * d]);
            }
            distances::<R>(ys, d, p.across, width, sums);
            for (r, i) in part.enumerate() {
                let sums = &mut sums[r * width..(r + 1) * width];
                let clusters = sums.iter_mut().zip(p.sizes).zip(p.spread).zip(p.zeros);
                match p.metric {
                    Summed::SqEuclidean => {
                        for (((s, &size), &spread), _) in clusters {
                            *s = size * *s + spread;
                        }
                    }
                    Summed::Cosine => {
                        // a zero row is at 1 from everything: `size` more to each cluster
                        let z = if zero[r] { 1.0 } else { 0.0 };
                        for (((s, &size), &spread), &zeros) in clusters {
                            *s = 0.5 * ((size * *s + spread) + z * size + zeros);
                        }
                    }
                }
                for ((near, &s), &inverse) in near.iter_mut().zip(&*sums).zip(p.inverse) {
                    *near = s * inverse;
                }
                if zero[r] && p.metric == Summed::Cosine {
                    // a zero row's distance to itself is 0, as everyone's (scikit-learn
                    // zeroes the diagonal); the sums above count it as 1
                    for l in 0..m {
                        sums[lab.cluster(l, i)] -= 1.0;
                    }
                }
                let out = &mut self.out[(i - start) * m..(i - start + 1) * m];
                for (l, o) in out.iter_mut().enumerate() {
                    *o = if lab.between == Between::Nearest {
                        nearest_silhouette(lab, sums, near, l, i)
                    } else {
                        silhouette(lab, sums, l, i)
                    };
                }
            }
        }
    }
}

/// The squared distances of the [`BLOCK`] samples `ys` (`d` apart) to every centroid
/// (`across`, transposed `width` apart), into `out` (`width` apart).
#[inline(always)]
fn distances<const R: usize>(ys: &[f64], d: usize, across: &[f64], width: usize, out: &mut [f64]) {
    let rows = ys.chunks_exact(R * d.max(1));
    for (ys, out) in rows.zip(out.chunks_exact_mut(R * width)) {
        for t in (0..width).step_by(LANES) {
            let mut acc = [[0.0f64; LANES]; R];
            for j in 0..d {
                let at = j * width + t;
                let Some(lane) = across.get(at..at + LANES) else {
                    break;
                };
                // (the check of each index keeps the compiler from vectorising across the
                // rows, with the sums in memory, rather than across the centroids)
                for (r, acc) in acc.iter_mut().enumerate() {
                    let y = ys[r * d + j];
                    for (a, &c) in acc.iter_mut().zip(lane) {
                        // c - y, not y - c: the same square, with y broadcast
                        let v = c - y;
                        *a += v * v;
                    }
                }
            }
            for (r, acc) in acc.iter().enumerate() {
                out[r * width + t..r * width + t + LANES].copy_from_slice(acc);
            }
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
    fn nan_and_infinity_are_refused_by_the_first_pass() {
        let lab = Labelings::new(5, &[0, 1, 0, 1, 1, 1, 0, 0, 0, 1], &[2, 2]).unwrap();
        for metric in [Summed::SqEuclidean, Summed::Cosine] {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                for at in 0..10 {
                    let mut x = points(5, 2, 3);
                    x[at] = bad;
                    let got = silhouettes(&x, 2, &lab, metric, false);
                    assert!(
                        matches!(got, Err(Error::NotFinite)),
                        "{metric:?} {bad} {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_cluster_far_from_the_origin_keeps_its_digits() {
        // Points 1e6 away from the origin spread by about 1: the expanded form
        // n|y|² - 2 y·S + Q would lose 12 of 16 digits; the centroid form keeps them.
        check::<f64>(400, 4, &[3], Summed::SqEuclidean, 1e6, 1e-9);
    }
}
