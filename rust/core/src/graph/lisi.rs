//! The local inverse Simpson index (Korsunsky et al. 2019), as scib-metrics' `lisi_knn`
//! computes it (`scib_metrics.utils.compute_simpson_index`): each cell's neighbours weighted
//! by `exp(-beta·d)` (the distances as given, not squared; the cell itself, where it is
//! among them, weighted 0), `beta` found by bisection from 1 until the weights' entropy is
//! within `tol` of `ln(perplexity)` (at most 50 steps, doubling or halving `beta` until the
//! target is bracketed), then the inverse of the Simpson index `Σ_l p_l²` of the labels'
//! total weights `p_l`. A cell whose weights' entropy ends at 0 gets −1, as there (the
//! Simpson index −1, the inverse −1).
//!
//! scib-metrics computes in float32 (JAX), this in float64 with the same steps; the
//! bisection may stop a step apart where the entropy ends within float32's error of the
//! tolerance.

use crate::alloc;
use crate::cpu::{self, Build, Kernel};
use crate::error::Error;

use super::exp::exp_nonpositive;
use super::rows::{check_codes, map_rows, Distance, Graph, Index};

/// The most bisection steps (scib-metrics' and harmonypy's 50).
pub const STEPS: usize = 50;

/// The weights' entropy at `beta`, and the weights (normalised) in `p`; `keep` is 0 for
/// the cell itself, 1 for the others. The exponentials in one vectorised loop, the sums in
/// four lanes added in a fixed order (the same bits in every build).
#[inline(always)]
fn entropy(dist: &[f64], keep: &[f64], beta: f64, p: &mut [f64]) -> f64 {
    for ((&d, &k), p) in dist.iter().zip(keep).zip(p.iter_mut()) {
        *p = exp_nonpositive(-d * beta) * k;
    }
    let (mut sum, mut dsum) = ([0.0f64; 4], [0.0f64; 4]);
    let mut quads = dist.chunks_exact(4).zip(p.chunks_exact(4));
    for (d, w) in &mut quads {
        for j in 0..4 {
            sum[j] += w[j];
            dsum[j] += d[j] * w[j];
        }
    }
    let tail = dist.len() - dist.len() % 4;
    for (&d, &w) in dist[tail..].iter().zip(&p[tail..]) {
        sum[0] += w;
        dsum[0] += d * w;
    }
    let sum = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    let dsum = (dsum[0] + dsum[1]) + (dsum[2] + dsum[3]);
    if sum == 0.0 {
        p.iter_mut().for_each(|p| *p = 0.0);
        return 0.0;
    }
    // Divided, not multiplied by the inverse, as scib-metrics does: the inverse of a sum
    // of subnormal weights overflows.
    p.iter_mut().for_each(|p| *p /= sum);
    sum.ln() + beta * dsum / sum
}

/// A row's bisection for the `beta` whose weights' entropy is within `tol` of `target`:
/// the entropy it ends at, its weights left in `p`. A [`Kernel`], for the exponentials to
/// be vector code of the best build.
struct Calibrate<'a> {
    dist: &'a [f64],
    keep: &'a [f64],
    p: &'a mut [f64],
    target: f64,
    tol: f64,
}

impl Kernel for Calibrate<'_> {
    type Output = f64;

    #[inline(always)]
    fn run(self) -> f64 {
        let Calibrate {
            dist,
            keep,
            p,
            target,
            tol,
        } = self;
        let mut beta = 1.0f64;
        let mut lo = f64::NEG_INFINITY;
        let mut hi = f64::INFINITY;
        let mut h = entropy(dist, keep, beta, p);
        let mut diff = h - target;
        let mut tries = 0;
        while diff.abs() >= tol && tries < STEPS {
            if diff > 0.0 {
                lo = beta;
                beta = if hi == f64::INFINITY {
                    beta * 2.0
                } else {
                    (beta + hi) / 2.0
                };
            } else {
                hi = beta;
                beta = if lo == f64::NEG_INFINITY {
                    beta / 2.0
                } else {
                    (beta + lo) / 2.0
                };
            }
            h = entropy(dist, keep, beta, p);
            diff = h - target;
            tries += 1;
        }
        h
    }
}

/// A chunk's buffers: a row's weights, and each label's total weight in it.
struct Scratch {
    p: Vec<f64>,
    sums: Vec<f64>,
    /// The last row in which each label was met.
    stamp: Vec<usize>,
    /// The labels met in this row, in the order met.
    touched: Vec<usize>,
}

impl Scratch {
    /// Row `row`'s LISI from its neighbours' distances, labels and self mask.
    fn one(
        &mut self,
        row: usize,
        dist: &[f64],
        keep: &[f64],
        labels: &[usize],
        target: f64,
        tol: f64,
    ) -> f64 {
        let p = &mut self.p[..dist.len()];
        let kernel = Calibrate {
            dist,
            keep,
            p,
            target,
            tol,
        };
        let h = cpu::run_best(&[Build::Avx512, Build::Avx2], kernel);
        if h == 0.0 {
            return -1.0;
        }
        self.touched.clear();
        for (&l, &w) in labels.iter().zip(self.p.iter()) {
            if self.stamp[l] != row {
                self.stamp[l] = row;
                self.touched.push(l);
            }
            self.sums[l] += w;
        }
        let mut simpson = 0.0;
        for &l in &self.touched {
            simpson += self.sums[l] * self.sums[l];
            self.sums[l] = 0.0;
        }
        1.0 / simpson
    }
}

/// Each cell's LISI of the labels `codes` (`0..n_labels`, one a cell) over the graph, at
/// the given perplexity and tolerance (scib-metrics' `1e-5`).
pub fn lisi<I: Index, D: Distance>(
    graph: &Graph<'_, I, D>,
    codes: &[i64],
    n_labels: usize,
    perplexity: f64,
    tol: f64,
) -> Result<Vec<f64>, Error> {
    let n = graph.n();
    check_codes(codes, n, n_labels)?;
    if !(perplexity > 0.0 && perplexity.is_finite()) {
        return Err(Error::BadShape(format!(
            "perplexity must be a positive number, not {perplexity}"
        )));
    }
    let target = perplexity.ln();
    let widest = graph.widest();
    map_rows(n, 1, 0.0f64, "the cells' LISI", |rows, out| {
        let mut nb = alloc::with_capacity(widest, "a row's neighbours")?;
        let mut dist = alloc::with_capacity(widest, "a row's distances")?;
        let mut keep = alloc::with_capacity(widest, "a row's self mask")?;
        let mut labels = alloc::with_capacity(widest, "a row's labels")?;
        let mut scratch = Scratch {
            p: alloc::filled(widest, 0.0f64, "a row's weights")?,
            sums: alloc::filled(n_labels, 0.0f64, "a row's label weights")?,
            stamp: alloc::filled(n_labels, usize::MAX, "the labels' last rows")?,
            touched: alloc::with_capacity(widest, "a row's labels")?,
        };
        for (i, o) in rows.zip(out.iter_mut()) {
            graph.row(i, &mut nb, &mut dist)?;
            keep.clear();
            keep.extend(nb.iter().map(|&j| if j == i { 0.0f64 } else { 1.0 }));
            labels.clear();
            labels.extend(nb.iter().map(|&j| codes[j] as usize));
            *o = scratch.one(i, &dist, &keep, &labels, target, tol);
        }
        Ok(())
    })
}
