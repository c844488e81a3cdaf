//! The exact silhouette over all pairs (Euclidean and Manhattan distances), never holding
//! the n × n matrix.
//!
//! The samples keep their given order (centred on their mean for Euclidean distances, which
//! changes no distance and keeps the cancellation of `|x|² + |y|² - 2 x·y` small) and are
//! cut into blocks of [`BLOCK`] rows. Each unordered pair of blocks `(i, j)`, `i < j`, is
//! visited once: its distances `D` come from one GEMM (`x·y`, the crate's register-blocked
//! kernel, [`super::gemm`]) turned into `sqrt(max(0, |x|² + |y|² - 2 x·y))` (exactly 0 from
//! a sample to itself), or from a direct loop of `|x - y|` (Manhattan). While `D` is in
//! cache, its rows (block `i`'s samples against block `j`'s) are added in `f64` to block
//! `j`'s sums of their clusters, in every labeling, `S_j[c][..] += Σ_{a in c} D[a][..]`,
//! a cluster's rows at a time ([`super::runs`]); its columns go into block `i`'s sums
//! one by one, four rows at a time ([`super::columns`]).
//!
//! The sums are kept cluster by cluster (`S[c]` a run over the block's samples), not sample
//! by sample, because then a cluster's rows add into one contiguous run, and a sample's sum
//! for a cluster receives its terms in one order whatever the labelings: the other block's
//! samples of that cluster in turn, the blocks in the order of the rounds below. A labeling
//! scored among many (a resolution sweep) thus gets the same bits as scored alone, and the
//! sweep costs one GEMM for all.
//!
//! The pairs are visited in rounds of a round-robin tournament: within a round no two
//! pairs share a block, so the pool's threads work on disjoint sums, and every block
//! receives its pairs' sums in the same order (round by round) whatever the number of
//! threads: the result is the same to the last bit for any. [`silhouettes`] of a range of
//! samples (the Dask path: a row block on each worker) visits only those blocks' pairs, in
//! the same rounds and orientation, and gets the same bits as the whole. Sums are `f64`;
//! distances are in the input's type.

use std::ops::Range;
use std::sync::Mutex;

use rayon::prelude::*;

use super::chunks;
use super::columns::AddColumns;
use super::float::Float;
use super::gemm::Gemm;
use super::labelings::{silhouette, Labelings};
use super::runs::{AddRuns, Orders};
use crate::alloc;
use crate::cpu::{self, Build, Kernel};
use crate::error::Error;
use crate::stop;

/// Rows in a block: a 256 × 256 block of distances is 256 KiB in `f32`, 512 KiB in `f64`
/// (in the L2 cache of the machines measured), and its GEMM long enough for the packing
/// to cost little.
pub(crate) const BLOCK: usize = 256;

/// The distances computed pair by pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pairwise {
    Euclidean,
    Manhattan,
}

/// The samples as the blocks read them.
struct Prepared<'l, 'a, T> {
    labelings: &'l Labelings<'a>,
    d: usize,
    /// The samples (centred, for Euclidean distances), row by row.
    x: Vec<T>,
    /// Their squared norms (Euclidean distances only).
    norms: Vec<T>,
    /// Each sample's cluster (among all labelings') in each labeling, labeling by labeling.
    clusters: Vec<u32>,
    /// Each block's samples in each labeling's cluster order.
    orders: Orders,
}

/// A thread's buffers: a block's distances, a block packed by column.
struct Scratch<T> {
    dist: Vec<T>,
    packed: Vec<T>,
}

impl<T: Float> Scratch<T> {
    fn new(d: usize) -> Result<Self, Error> {
        Ok(Scratch {
            dist: alloc::filled(BLOCK * stride(BLOCK), T::ZERO, "a block of distances")?,
            packed: alloc::filled(BLOCK * d, T::ZERO, "a block packed by column")?,
        })
    }
}

/// The blocks of `n` samples.
fn blocks(n: usize) -> usize {
    n.div_ceil(BLOCK)
}

/// The rows of block `b`.
fn rows_of(n: usize, b: usize) -> usize {
    (n - b * BLOCK).min(BLOCK)
}

/// The distance between two clusters' runs of sums in a block of `rows`, and between two
/// rows of a block of distances `rows` wide: 8 more than the rows, so that runs 2 KiB apart
/// do not all fall in the same two sets of the L1 cache (a strip of a block's rows, read
/// in a labeling's order, took twice as long without).
fn stride(rows: usize) -> usize {
    rows + 8
}

/// Players of the tournament of `blocks` blocks (one idle each round when odd).
fn players(blocks: usize) -> usize {
    blocks + (blocks & 1)
}

/// Block `a`'s partner in round `round >= 1` of the tournament of `players` (even): block
/// `players - 1` sits still, the others turn around it.
fn partner(a: usize, round: usize, players: usize) -> usize {
    let (r, p) = (round - 1, players - 1);
    if a == p {
        r
    } else if a == r {
        p
    } else {
        (2 * r + p - a) % p
    }
}

/// Each sample's silhouette in each labeling (`m × len`, labeling by labeling) for the
/// samples `range`, from all their distances. `par`: on the current rayon pool.
pub(crate) fn silhouettes<T: Gemm>(
    x: &[T],
    d: usize,
    labelings: &Labelings<'_>,
    metric: Pairwise,
    range: Range<usize>,
    par: bool,
) -> Result<Vec<f64>, Error> {
    let n = labelings.n;
    let ktot = labelings.total();
    let prepared = prepare(x, d, labelings, metric, par)?;
    let all = blocks(n);
    let (first, last) = if range.is_empty() {
        (0, 0)
    } else {
        (range.start / BLOCK, range.end.div_ceil(BLOCK))
    };
    let mut sums = alloc::with_capacity(last - first, "the blocks' sums")?;
    for b in first..last {
        sums.push(Mutex::new(alloc::filled(
            stride(rows_of(n, b)) * ktot,
            0.0f64,
            "the per-cluster sums of distances",
        )?));
    }
    let threads = if par { rayon::current_num_threads() } else { 1 };
    let mut scratch = alloc::with_capacity(threads, "the threads' buffers")?;
    for _ in 0..threads {
        scratch.push(Mutex::new(Scratch::new(d)?));
    }
    let thread = || {
        if par {
            rayon::current_thread_index().unwrap_or(0) % threads
        } else {
            0
        }
    };
    let lock = |b: usize| sums[b - first].lock().map_err(|_| Error::Stopped);
    let players = players(all);
    if first == 0 && last == all {
        // Every block: each pair once, both sides' sums from it, round by round.
        let visit = |(i, j): (usize, usize)| -> Result<(), Error> {
            stop::check()?;
            let mut s = scratch[thread()].lock().map_err(|_| Error::Stopped)?;
            let mut a = lock(i)?;
            if i == j {
                pair(&prepared, metric, i, j, &mut s, None, Some(&mut a));
            } else {
                let mut b = lock(j)?;
                pair(&prepared, metric, i, j, &mut s, Some(&mut a), Some(&mut b));
            }
            Ok(())
        };
        for round in 0..players {
            let round_pairs = |q: usize| -> Option<(usize, usize)> {
                if round == 0 {
                    return (q < all).then_some((q, q));
                }
                let (a, b) = (q, partner(q, round, players));
                (a < b && b < all).then_some((a, b))
            };
            let count = if round == 0 { all } else { players };
            if par && count > 1 {
                (0..count)
                    .into_par_iter()
                    .filter_map(round_pairs)
                    .try_for_each(visit)?;
            } else {
                (0..count).filter_map(round_pairs).try_for_each(visit)?;
            }
        }
    } else {
        // Some blocks: each with every block, in the rounds' order and each pair in the
        // orientation the whole would give it, its sums alone taken.
        let one = |a: usize| -> Result<(), Error> {
            let mut own = lock(a)?;
            for round in 0..players {
                stop::check()?;
                let b = if round == 0 {
                    a
                } else {
                    partner(a, round, players)
                };
                if b >= all {
                    continue;
                }
                let mut s = scratch[thread()].lock().map_err(|_| Error::Stopped)?;
                if a < b {
                    pair(&prepared, metric, a, b, &mut s, Some(&mut own), None);
                } else {
                    pair(&prepared, metric, b, a, &mut s, None, Some(&mut own));
                }
            }
            Ok(())
        };
        if par && last - first > 1 {
            (first..last).into_par_iter().try_for_each(one)?;
        } else {
            (first..last).try_for_each(one)?;
        }
    }
    let m = labelings.m();
    let len = range.len();
    let mut out = alloc::filled(m * len, 0.0f64, "the silhouettes")?;
    let mut row = alloc::filled(ktot, 0.0f64, "a sample's sums")?;
    for (b, block) in (first..last).zip(sums) {
        let block = block.into_inner().map_err(|_| Error::Stopped)?;
        let rows = rows_of(n, b);
        for r in 0..rows {
            let i = b * BLOCK + r;
            if !range.contains(&i) {
                continue;
            }
            for (c, v) in row.iter_mut().enumerate() {
                *v = block[c * stride(rows) + r];
            }
            for l in 0..m {
                out[l * len + (i - range.start)] = silhouette(labelings, &row, l, i);
            }
        }
    }
    Ok(out)
}

/// The samples centred (Euclidean) with their squared norms, and every labeling's clusters.
fn prepare<'l, 'a, T: Float>(
    x: &[T],
    d: usize,
    labelings: &'l Labelings<'a>,
    metric: Pairwise,
    par: bool,
) -> Result<Prepared<'l, 'a, T>, Error> {
    let n = labelings.n;
    let (xs, norms) = if metric == Pairwise::Euclidean {
        let mean = mean(x, n, d, par)?;
        let mut xs = alloc::with_capacity(n * d, "the centred samples")?;
        for row in x.chunks_exact(d.max(1)).take(if d == 0 { 0 } else { n }) {
            xs.extend(
                row.iter()
                    .zip(&mean)
                    .map(|(&v, &m)| T::from_f64(v.to_f64() - m)),
            );
        }
        let mut norms = alloc::filled(n, T::ZERO, "the samples' squared norms")?;
        if d > 0 {
            for (o, row) in norms.iter_mut().zip(xs.chunks_exact(d)) {
                *o = T::from_f64(row.iter().map(|&v| v.to_f64() * v.to_f64()).sum::<f64>());
            }
        }
        (xs, norms)
    } else {
        let mut xs = alloc::with_capacity(n * d, "the samples")?;
        xs.extend_from_slice(&x[..n * d]);
        (xs, Vec::new())
    };
    let m = labelings.m();
    let mut clusters = alloc::with_capacity(m * n, "the labelings' clusters")?;
    for l in 0..m {
        clusters.extend((0..n).map(|i| labelings.cluster(l, i) as u32));
    }
    let orders = Orders::new(&clusters, n, m, BLOCK)?;
    Ok(Prepared {
        labelings,
        d,
        x: xs,
        norms,
        clusters,
        orders,
    })
}

/// The mean of the rows, in `f64`, summed by chunks in a fixed order.
pub(crate) fn mean<T: Float>(x: &[T], n: usize, d: usize, par: bool) -> Result<Vec<f64>, Error> {
    let parts = chunks::map(par, n, chunks::rows(n), |rows| {
        let mut s = alloc::filled(d, 0.0f64, "a chunk's sum of samples")?;
        for i in rows {
            for (a, &v) in s.iter_mut().zip(&x[i * d..(i + 1) * d]) {
                *a += v.to_f64();
            }
        }
        Ok(s)
    })?;
    let mut total = alloc::filled(d, 0.0f64, "the samples' mean")?;
    for part in parts {
        for (a, v) in total.iter_mut().zip(part) {
            *a += v;
        }
    }
    for a in &mut total {
        *a /= n.max(1) as f64;
    }
    Ok(total)
}

/// Block pair `(bi, bj)`, `bi <= bj`: its distances `D` (block `bi`'s rows against block
/// `bj`'s), added to `sums_j` (block `bj`'s) by the rows' clusters and, from `Dᵀ`, to
/// `sums_i` (block `bi`'s, never given for `bi == bj`) by the columns'.
fn pair<T: Gemm>(
    p: &Prepared<'_, '_, T>,
    metric: Pairwise,
    bi: usize,
    bj: usize,
    scratch: &mut Scratch<T>,
    sums_i: Option<&mut [f64]>,
    sums_j: Option<&mut [f64]>,
) {
    let n = p.labelings.n;
    let d = p.d;
    let (i0, j0) = (bi * BLOCK, bj * BLOCK);
    let (rows, cols) = (rows_of(n, bi), rows_of(n, bj));
    let xi = &p.x[i0 * d..(i0 + rows) * d];
    let xj = &p.x[j0 * d..(j0 + cols) * d];
    let pitch = stride(cols);
    let dist = &mut scratch.dist[..rows * pitch];
    match metric {
        Pairwise::Euclidean => {
            T::a_bt(xi, xj, rows, cols, d, dist, pitch);
            cpu::run_best(
                &[Build::Avx2],
                Euclid {
                    dist: &mut *dist,
                    pitch,
                    ni: &p.norms[i0..i0 + rows],
                    nj: &p.norms[j0..j0 + cols],
                },
            );
            if bi == bj {
                for r in 0..rows {
                    dist[r * pitch + r] = T::ZERO;
                }
            }
        }
        Pairwise::Manhattan => {
            let packed = &mut scratch.packed[..cols * d];
            for c in 0..cols {
                for k in 0..d {
                    packed[k * cols + c] = xj[c * d + k];
                }
            }
            cpu::run_best(
                &[Build::Avx2],
                Manhattan {
                    dist: &mut *dist,
                    pitch,
                    xi,
                    packed,
                    d,
                },
            );
        }
    }
    let ktot = p.labelings.total();
    if let Some(sums_j) = sums_j {
        let sums = &mut sums_j[..ktot * stride(cols)];
        add(p, dist, rows, cols, i0, sums);
    }
    if let Some(sums_i) = sums_i {
        cpu::run_best(
            &[Build::Avx2],
            AddColumns {
                dist,
                rows,
                cols,
                pitch,
                clusters: &p.clusters,
                first: j0,
                n,
                m: p.labelings.m(),
                sums: &mut sums_i[..ktot * stride(rows)],
                stride: stride(rows),
            },
        );
    }
}

/// The `rows` rows of `dist` (`cols` wide, [`stride`]`(cols)` apart; the samples
/// `first..`) added, in `f64`, to the sums (cluster by cluster, [`stride`]`(cols)` apart)
/// of their clusters in every labeling.
fn add<T: Float>(
    p: &Prepared<'_, '_, T>,
    dist: &[T],
    rows: usize,
    cols: usize,
    first: usize,
    sums: &mut [f64],
) {
    cpu::run_best(
        &[Build::Avx512, Build::Avx2],
        AddRuns {
            dist,
            rows,
            cols,
            pitch: stride(cols),
            orders: &p.orders,
            first,
            m: p.labelings.m(),
            sums,
            stride: stride(cols),
        },
    );
}

/// `dist = sqrt(max(0, ni + nj - 2 dist))`, in place (rows `pitch` apart).
struct Euclid<'a, T> {
    dist: &'a mut [T],
    pitch: usize,
    ni: &'a [T],
    nj: &'a [T],
}

impl<T: Float> Kernel for Euclid<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        for (row, &a) in self.dist.chunks_mut(self.pitch.max(1)).zip(self.ni) {
            for (v, &b) in row.iter_mut().zip(self.nj) {
                let s = a + b - (*v + *v);
                *v = if s > T::ZERO { s.sqrt() } else { T::ZERO };
            }
        }
    }
}

/// `dist[r][c] = Σ_k |xi[r][k] - xj[c][k]|` (rows `pitch` apart), `xj` packed by column
/// (`packed[k][c]`).
struct Manhattan<'a, T> {
    dist: &'a mut [T],
    pitch: usize,
    xi: &'a [T],
    packed: &'a [T],
    d: usize,
}

impl<T: Float> Kernel for Manhattan<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let d = self.d;
        let cols = self.packed.len().checked_div(d).unwrap_or(0);
        if cols == 0 {
            self.dist.fill(T::ZERO);
            return;
        }
        for (row, x) in self
            .dist
            .chunks_mut(self.pitch)
            .zip(self.xi.chunks_exact(d))
        {
            let row = &mut row[..cols];
            row.fill(T::ZERO);
            for (&v, p) in x.iter().zip(self.packed.chunks_exact(cols)) {
                for (o, &w) in row.iter_mut().zip(p) {
                    *o = *o + (v - w).abs();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::testing::{brute, labels, points, pools};

    #[test]
    fn the_tournament_pairs_each_block_with_every_other_once() {
        for blocks in 1..12usize {
            let players = players(blocks);
            let mut seen = std::collections::BTreeSet::new();
            for round in 1..players {
                for a in 0..players {
                    let b = partner(a, round, players);
                    assert!(b != a && b < players);
                    assert_eq!(partner(b, round, players), a);
                    if a < b && b < blocks {
                        assert!(seen.insert((a, b)));
                    }
                }
            }
            assert_eq!(seen.len(), blocks * (blocks - 1) / 2);
        }
    }

    fn check<T: Gemm>(n: usize, d: usize, ks: &[usize], metric: Pairwise, tol: f64) {
        let x: Vec<T> = points(n, d, 7).into_iter().map(T::from_f64).collect();
        let codes = labels(n, ks, 3);
        let lab = Labelings::new(n, &codes, ks).unwrap();
        let x64: Vec<f64> = x.iter().map(|v| v.to_f64()).collect();
        let want = brute(&x64, d, &lab, |a, b| match metric {
            Pairwise::Euclidean => a
                .iter()
                .zip(b)
                .map(|(p, q)| (p - q) * (p - q))
                .sum::<f64>()
                .sqrt(),
            Pairwise::Manhattan => a.iter().zip(b).map(|(p, q)| (p - q).abs()).sum(),
        });
        let one = silhouettes(&x, d, &lab, metric, 0..n, false).unwrap();
        for (g, w) in one.iter().zip(&want) {
            assert!((g - w).abs() <= tol, "{g} {w} {metric:?} n={n}");
        }
        for pool in pools() {
            let got = pool
                .install(|| silhouettes(&x, d, &lab, metric, 0..n, true))
                .unwrap();
            assert_eq!(got, one, "threads {}", pool.current_num_threads());
        }
        // Each labeling alone gets the bits it gets among the others.
        let m = ks.len();
        for (l, &k) in ks.iter().enumerate() {
            let alone = Labelings::new(n, &codes[l * n..(l + 1) * n], &[k]).unwrap();
            let got = silhouettes(&x, d, &alone, metric, 0..n, false).unwrap();
            assert_eq!(got, one[l * n..(l + 1) * n], "labeling {l} of {m}");
        }
        // A range of samples gets the bits of the whole.
        for range in [0..n.min(3), n / 3..n, n / 2..n / 2 + n.min(BLOCK + 7) / 2] {
            let (s, len) = (range.start, range.len());
            let got = silhouettes(&x, d, &lab, metric, range, false).unwrap();
            for l in 0..m {
                assert_eq!(got[l * len..(l + 1) * len], one[l * n + s..l * n + s + len]);
            }
        }
    }

    #[test]
    fn equals_the_pair_loops_on_every_thread_count() {
        for metric in [Pairwise::Euclidean, Pairwise::Manhattan] {
            check::<f64>(1, 3, &[1], metric, 1e-12);
            check::<f64>(7, 2, &[3], metric, 1e-12);
            check::<f64>(600, 5, &[4, 1, 9], metric, 1e-10);
            check::<f64>(BLOCK * 3 + 5, 3, &[300], metric, 1e-10);
            check::<f64>(BLOCK * 4, 2, &[3, 5], metric, 1e-10);
            check::<f32>(700, 6, &[5, 2], metric, 1e-4);
        }
    }
}
