//! The exact silhouette over all pairs (Euclidean and Manhattan distances), never holding
//! the n × n matrix.
//!
//! The samples are sorted by their cluster in the first labeling (and, for Euclidean
//! distances, centred on their mean, which changes no distance and keeps the cancellation
//! of `|x|² + |y|² - 2 x·y` small), then cut into blocks of [`BLOCK`] rows. Each unordered
//! pair of blocks is visited once: its distances come from one GEMM (`x·y`, the crate's
//! register-blocked kernel, [`super::gemm`]) turned into `sqrt(max(0, |x|² + |y|² - 2 x·y))`
//! (exactly 0 from a sample to itself), or from a direct loop of `|x - y|` (Manhattan);
//! while the block is in cache its distances are added into the per-(sample, cluster)
//! sums of both blocks: the first labeling's clusters are runs of the sorted columns
//! (contiguous sums), every other labeling's codes are read per column.
//!
//! The pairs are visited in rounds of a round-robin tournament: within a round no two
//! pairs share a block, so the pool's threads work on disjoint sums, and every block
//! receives its pairs' sums in the same order (round by round) whatever the number of
//! threads: the result is the same to the last bit for any. Sums are `f64`; distances are
//! in the input's type.

use std::sync::Mutex;

use rayon::prelude::*;

use super::chunks;
use super::float::Float;
use super::gemm::Gemm;
use super::labelings::{silhouette, Labelings};
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

/// The samples in cluster order and what the blocks read of them.
struct Sorted<'l, 'a, T> {
    labelings: &'l Labelings<'a>,
    d: usize,
    /// The sorted (and, for Euclidean distances, centred) samples, row by row.
    x: Vec<T>,
    /// Their squared norms (Euclidean distances only).
    norms: Vec<T>,
    /// The sample at each sorted place.
    order: Vec<usize>,
    /// The first labeling's cluster `c` is the sorted places `starts[c]..starts[c + 1]`.
    starts: Vec<usize>,
    /// Every further labeling's cluster (among all labelings') of each sorted place,
    /// labeling by labeling.
    rest: Vec<u32>,
}

/// A thread's buffers: a block's distances, a column of sums, a block packed by column.
struct Scratch<T> {
    dist: Vec<T>,
    column: Vec<f64>,
    packed: Vec<T>,
}

impl<T: Float> Scratch<T> {
    fn new(d: usize) -> Result<Self, Error> {
        Ok(Scratch {
            dist: alloc::filled(BLOCK * BLOCK, T::ZERO, "a block of distances")?,
            column: alloc::filled(BLOCK, 0.0, "a block's column sums")?,
            packed: alloc::filled(BLOCK * d, T::ZERO, "a block packed by column")?,
        })
    }
}

/// Each sample's silhouette in each labeling (`m × n`, labeling by labeling), from all
/// its distances. `par`: on the current rayon pool.
pub(crate) fn silhouettes<T: Gemm>(
    x: &[T],
    d: usize,
    labelings: &Labelings<'_>,
    metric: Pairwise,
    par: bool,
) -> Result<Vec<f64>, Error> {
    let n = labelings.n;
    let ktot = labelings.total();
    let sorted = sort(x, d, labelings, metric, par)?;
    let blocks = n.div_ceil(BLOCK);
    let mut sums = alloc::with_capacity(blocks, "the blocks' sums")?;
    for b in 0..blocks {
        let rows = (n - b * BLOCK).min(BLOCK);
        sums.push(Mutex::new(alloc::filled(
            rows * ktot,
            0.0f64,
            "the per-cluster sums of distances",
        )?));
    }
    let threads = if par { rayon::current_num_threads() } else { 1 };
    let mut scratch = alloc::with_capacity(threads, "the threads' buffers")?;
    for _ in 0..threads {
        scratch.push(Mutex::new(Scratch::new(d)?));
    }
    let visit = |(i, j): (usize, usize)| -> Result<(), Error> {
        stop::check()?;
        let t = if par {
            rayon::current_thread_index().unwrap_or(0) % threads
        } else {
            0
        };
        let mut s = scratch[t].lock().map_err(|_| Error::Stopped)?;
        if i == j {
            let mut a = sums[i].lock().map_err(|_| Error::Stopped)?;
            pair(&sorted, metric, i, j, &mut s, &mut a, None);
        } else {
            let mut a = sums[i].lock().map_err(|_| Error::Stopped)?;
            let mut b = sums[j].lock().map_err(|_| Error::Stopped)?;
            pair(&sorted, metric, i, j, &mut s, &mut a, Some(&mut b));
        }
        Ok(())
    };
    let players = blocks + (blocks & 1);
    for round in 0..players {
        // Round 0: each block with itself; then the tournament's rounds.
        let round_pairs = |q: usize| -> Option<(usize, usize)> {
            if round == 0 {
                return (q < blocks).then_some((q, q));
            }
            let r = round - 1;
            let (a, b) = if q == 0 {
                (r, players - 1)
            } else {
                let p = players - 1;
                ((r + q) % p, (r + p - q) % p)
            };
            let (a, b) = (a.min(b), a.max(b));
            (b < blocks).then_some((a, b))
        };
        let count = if round == 0 { blocks } else { players / 2 };
        if par && count > 1 {
            (0..count)
                .into_par_iter()
                .filter_map(round_pairs)
                .try_for_each(visit)?;
        } else {
            (0..count).filter_map(round_pairs).try_for_each(visit)?;
        }
    }
    let mut out = alloc::filled(labelings.m() * n, 0.0f64, "the silhouettes")?;
    for (b, block) in sums.into_iter().enumerate() {
        let block = block.into_inner().map_err(|_| Error::Stopped)?;
        for (r, row) in block.chunks_exact(ktot.max(1)).enumerate() {
            let i = sorted.order[b * BLOCK + r];
            for l in 0..labelings.m() {
                out[l * n + i] = silhouette(labelings, row, l, i);
            }
        }
    }
    Ok(out)
}

/// The samples sorted by the first labeling's cluster (a counting sort: stable).
fn sort<'l, 'a, T: Float>(
    x: &[T],
    d: usize,
    labelings: &'l Labelings<'a>,
    metric: Pairwise,
    par: bool,
) -> Result<Sorted<'l, 'a, T>, Error> {
    let n = labelings.n;
    let k0 = labelings.offset[1];
    let mut starts = alloc::filled(k0 + 1, 0usize, "the clusters' starts")?;
    for c in 0..k0 {
        starts[c + 1] = starts[c] + labelings.sizes[c] as usize;
    }
    let mut next = starts.clone();
    let mut order = alloc::filled(n, 0usize, "the samples' order")?;
    for i in 0..n {
        let c = labelings.cluster(0, i);
        order[next[c]] = i;
        next[c] += 1;
    }
    let mean = if metric == Pairwise::Euclidean {
        mean(x, n, d, par)?
    } else {
        alloc::filled(d, 0.0f64, "the samples' mean")?
    };
    let mut xs = alloc::with_capacity(n * d, "the samples in cluster order")?;
    for &i in &order {
        let row = &x[i * d..(i + 1) * d];
        if metric == Pairwise::Euclidean {
            xs.extend(
                row.iter()
                    .zip(&mean)
                    .map(|(&v, &m)| T::from_f64(v.to_f64() - m)),
            );
        } else {
            xs.extend_from_slice(row);
        }
    }
    let norms = if metric == Pairwise::Euclidean {
        let mut norms = alloc::with_capacity(n, "the samples' squared norms")?;
        norms.extend(
            xs.chunks_exact(d.max(1))
                .take(n)
                .map(|row| T::from_f64(row.iter().map(|&v| v.to_f64() * v.to_f64()).sum::<f64>())),
        );
        if d == 0 {
            norms.resize(n, T::ZERO);
        }
        norms
    } else {
        Vec::new()
    };
    let m = labelings.m();
    let mut rest = alloc::with_capacity((m - 1) * n, "the further labelings' codes")?;
    for l in 1..m {
        rest.extend(order.iter().map(|&i| labelings.cluster(l, i) as u32));
    }
    Ok(Sorted {
        labelings,
        d,
        x: xs,
        norms,
        order,
        starts,
        rest,
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

/// The runs of the first labeling's clusters within sorted places `from..to`: (cluster,
/// start, end) with start and end relative to `from`.
fn runs(
    starts: &[usize],
    from: usize,
    to: usize,
) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let first = starts.partition_point(|&s| s <= from).saturating_sub(1);
    (first..starts.len() - 1)
        .take_while(move |&c| starts[c] < to)
        .filter_map(move |c| {
            let (s, e) = (starts[c].max(from), starts[c + 1].min(to));
            (s < e).then_some((c, s - from, e - from))
        })
}

/// Block pair `(i, j)`: its distances, added to block `i`'s sums by column cluster and
/// (where `j` is another block) to block `j`'s by row cluster.
fn pair<T: Gemm>(
    sorted: &Sorted<'_, '_, T>,
    metric: Pairwise,
    bi: usize,
    bj: usize,
    scratch: &mut Scratch<T>,
    sums_i: &mut [f64],
    sums_j: Option<&mut [f64]>,
) {
    let n = sorted.labelings.n;
    let d = sorted.d;
    let (i0, j0) = (bi * BLOCK, bj * BLOCK);
    let (rows, cols) = ((n - i0).min(BLOCK), (n - j0).min(BLOCK));
    let xi = &sorted.x[i0 * d..(i0 + rows) * d];
    let xj = &sorted.x[j0 * d..(j0 + cols) * d];
    let dist = &mut scratch.dist[..rows * cols];
    match metric {
        Pairwise::Euclidean => {
            T::a_bt(xi, xj, rows, cols, d, dist);
            cpu::run_best(
                &[Build::Avx2],
                Euclid {
                    dist: &mut *dist,
                    ni: &sorted.norms[i0..i0 + rows],
                    nj: &sorted.norms[j0..j0 + cols],
                },
            );
            if bi == bj {
                for r in 0..rows {
                    dist[r * cols + r] = T::ZERO;
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
                    xi,
                    packed,
                    d,
                },
            );
        }
    }
    let ktot = sorted.labelings.total();
    let m = sorted.labelings.m();
    cpu::run_best(
        &[Build::Avx2],
        Rows {
            dist,
            cols,
            sums: &mut *sums_i,
            ktot,
            runs: &sorted.starts,
            j0,
            rest: &sorted.rest,
            n,
            m,
        },
    );
    if let Some(sums_j) = sums_j {
        cpu::run_best(
            &[Build::Avx2],
            Columns {
                dist,
                rows,
                cols,
                sums: sums_j,
                ktot,
                runs: &sorted.starts,
                i0,
                rest: &sorted.rest,
                n,
                m,
                column: &mut scratch.column[..cols],
            },
        );
    }
}

/// `dist = sqrt(max(0, ni + nj - 2 dist))`, in place.
struct Euclid<'a, T> {
    dist: &'a mut [T],
    ni: &'a [T],
    nj: &'a [T],
}

impl<T: Float> Kernel for Euclid<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let cols = self.nj.len();
        for (row, &a) in self.dist.chunks_exact_mut(cols.max(1)).zip(self.ni) {
            for (v, &b) in row.iter_mut().zip(self.nj) {
                let s = a + b - (*v + *v);
                *v = if s > T::ZERO { s.sqrt() } else { T::ZERO };
            }
        }
    }
}

/// `dist[r][c] = Σ_k |xi[r][k] - xj[c][k]|`, `xj` packed by column (`packed[k][c]`).
struct Manhattan<'a, T> {
    dist: &'a mut [T],
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
            .chunks_exact_mut(cols)
            .zip(self.xi.chunks_exact(d))
        {
            row.fill(T::ZERO);
            for (&v, p) in x.iter().zip(self.packed.chunks_exact(cols)) {
                for (o, &w) in row.iter_mut().zip(p) {
                    *o = *o + (v - w).abs();
                }
            }
        }
    }
}

/// `v`'s sum in `f64`, in four lanes (the same order on every build).
#[inline(always)]
fn sum<T: Float>(v: &[T]) -> f64 {
    let mut lanes = [0.0f64; 4];
    let mut quads = v.chunks_exact(4);
    for q in &mut quads {
        for t in 0..4 {
            lanes[t] += q[t].to_f64();
        }
    }
    let mut s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for &x in quads.remainder() {
        s += x.to_f64();
    }
    s
}

/// A block's distances added to its rows' sums, by the columns' clusters.
struct Rows<'a, T> {
    dist: &'a [T],
    cols: usize,
    sums: &'a mut [f64],
    ktot: usize,
    runs: &'a [usize],
    j0: usize,
    rest: &'a [u32],
    n: usize,
    m: usize,
}

impl<T: Float> Kernel for Rows<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let cols = self.cols;
        let (j0, n) = (self.j0, self.n);
        for (row, out) in self
            .dist
            .chunks_exact(cols)
            .zip(self.sums.chunks_exact_mut(self.ktot))
        {
            for (c, s, e) in runs(self.runs, j0, j0 + cols) {
                out[c] += sum(&row[s..e]);
            }
            for l in 1..self.m {
                let codes = &self.rest[(l - 1) * n + j0..(l - 1) * n + j0 + cols];
                for (&v, &c) in row.iter().zip(codes) {
                    out[c as usize] += v.to_f64();
                }
            }
        }
    }
}

/// A block's distances added to its columns' sums, by the rows' clusters.
struct Columns<'a, T> {
    dist: &'a [T],
    rows: usize,
    cols: usize,
    sums: &'a mut [f64],
    ktot: usize,
    runs: &'a [usize],
    i0: usize,
    rest: &'a [u32],
    n: usize,
    m: usize,
    column: &'a mut [f64],
}

impl<T: Float> Kernel for Columns<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let (cols, ktot) = (self.cols, self.ktot);
        let (i0, n) = (self.i0, self.n);
        for (c, s, e) in runs(self.runs, i0, i0 + self.rows) {
            self.column.fill(0.0);
            for row in self.dist[s * cols..e * cols].chunks_exact(cols) {
                for (a, &v) in self.column.iter_mut().zip(row) {
                    *a += v.to_f64();
                }
            }
            for (q, &a) in self.column.iter().enumerate() {
                self.sums[q * ktot + c] += a;
            }
        }
        for l in 1..self.m {
            let codes = &self.rest[(l - 1) * n + i0..(l - 1) * n + i0 + self.rows];
            for (row, &c) in self.dist.chunks_exact(cols).zip(codes) {
                for (q, &v) in row.iter().enumerate() {
                    self.sums[q * ktot + c as usize] += v.to_f64();
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
    fn the_tournament_visits_each_pair_once() {
        for blocks in 1..12usize {
            let players = blocks + (blocks & 1);
            let mut seen = std::collections::BTreeSet::new();
            for round in 1..players {
                let r = round - 1;
                let mut used = std::collections::BTreeSet::new();
                for q in 0..players / 2 {
                    let (a, b) = if q == 0 {
                        (r, players - 1)
                    } else {
                        let p = players - 1;
                        ((r + q) % p, (r + p - q) % p)
                    };
                    let (a, b) = (a.min(b), a.max(b));
                    assert!(a != b && used.insert(a) && used.insert(b));
                    if b < blocks {
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
        let one = silhouettes(&x, d, &lab, metric, false).unwrap();
        for (g, w) in one.iter().zip(&want) {
            assert!((g - w).abs() <= tol, "{g} {w} {metric:?} n={n}");
        }
        for pool in pools() {
            let got = pool
                .install(|| silhouettes(&x, d, &lab, metric, true))
                .unwrap();
            assert_eq!(got, one, "threads {}", pool.current_num_threads());
        }
    }

    #[test]
    fn equals_the_pair_loops_on_every_thread_count() {
        for metric in [Pairwise::Euclidean, Pairwise::Manhattan] {
            check::<f64>(1, 3, &[1], metric, 1e-12);
            check::<f64>(7, 2, &[3], metric, 1e-12);
            check::<f64>(600, 5, &[4, 1, 9], metric, 1e-10);
            check::<f64>(BLOCK * 3 + 5, 3, &[300], metric, 1e-10);
            check::<f32>(700, 6, &[5, 2], metric, 1e-4);
        }
    }
}
