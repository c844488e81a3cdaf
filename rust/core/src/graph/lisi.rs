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
use crate::error::Error;

use super::rows::{check_codes, map_rows, Distance, Graph, Index};

/// The most bisection steps (scib-metrics' and harmonypy's 50).
pub const STEPS: usize = 50;

/// The weights' entropy at `beta` and the weights (normalised), self masked.
#[inline]
fn entropy(dist: &[f64], mask: &[bool], beta: f64, p: &mut [f64]) -> f64 {
    let mut sum = 0.0;
    let mut dsum = 0.0;
    for ((&d, &m), p) in dist.iter().zip(mask).zip(p.iter_mut()) {
        let w = if m { 0.0 } else { (-d * beta).exp() };
        *p = w;
        sum += w;
        dsum += d * w;
    }
    if sum == 0.0 {
        p.iter_mut().for_each(|p| *p = 0.0);
        return 0.0;
    }
    // Divided, not multiplied by the inverse, as scib-metrics does: the inverse of a sum
    // of subnormal weights overflows.
    p.iter_mut().for_each(|p| *p /= sum);
    sum.ln() + beta * dsum / sum
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
        mask: &[bool],
        labels: &[usize],
        target: f64,
        tol: f64,
    ) -> f64 {
        let p = &mut self.p[..dist.len()];
        let mut beta = 1.0f64;
        let mut lo = f64::NEG_INFINITY;
        let mut hi = f64::INFINITY;
        let mut h = entropy(dist, mask, beta, p);
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
            h = entropy(dist, mask, beta, p);
            diff = h - target;
            tries += 1;
        }
        if h == 0.0 {
            return -1.0;
        }
        self.touched.clear();
        for (&l, &w) in labels.iter().zip(p.iter()) {
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
        let mut mask = alloc::with_capacity(widest, "a row's self mask")?;
        let mut labels = alloc::with_capacity(widest, "a row's labels")?;
        let mut scratch = Scratch {
            p: alloc::filled(widest, 0.0f64, "a row's weights")?,
            sums: alloc::filled(n_labels, 0.0f64, "a row's label weights")?,
            stamp: alloc::filled(n_labels, usize::MAX, "the labels' last rows")?,
            touched: alloc::with_capacity(widest, "a row's labels")?,
        };
        for (i, o) in rows.zip(out.iter_mut()) {
            graph.row(i, &mut nb, &mut dist)?;
            mask.clear();
            mask.extend(nb.iter().map(|&j| j == i));
            labels.clear();
            labels.extend(nb.iter().map(|&j| codes[j] as usize));
            *o = scratch.one(i, &dist, &mask, &labels, target, tol);
        }
        Ok(())
    })
}
