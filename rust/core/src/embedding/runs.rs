//! A block of distances added into the per-cluster sums of its rows' clusters, in every
//! labeling: the rows taken in the labeling's cluster order (each block's samples sorted
//! by cluster, stably, once a call), so that a cluster's rows are one run whose sum builds
//! in registers, [`STRIP`] columns at a time, and meets the sums in memory once a run.
//!
//! Adding each row into its cluster's sums directly read and wrote them once a row and
//! labeling: a resolution sweep's 20 labelings hold some 400 clusters, whose sums over a
//! block (400 × 256 `f64`) are past the L2 cache. Runs write them once a cluster, and
//! took a sweep of 20 labelings of 2e4 × 50 from 2.03 s to 1.72 s on a 2-core AMD EPYC
//! (Zen 2, AVX2), one labeling's time unchanged. (Taking the columns this way too, from a
//! transposed copy, gave the sweep 1.58 s but one labeling 15% more: the copy.)
//!
//! Each sum takes its terms in one order whatever the other labelings and the build (the
//! additions are elementwise, no fused multiply-add): a run's rows in sample order, added
//! from zero, the run's total added to the sum. A labeling alone gets the bits it gets
//! in a sweep.

use super::float::Float;
use crate::cpu::Kernel;

/// Columns summed at once: 32 `f64` accumulators, eight AVX2 or four AVX-512 registers,
/// enough independent additions to keep the adders busy.
pub(crate) const STRIP: usize = 32;

/// One block's samples in each labeling's cluster order.
pub(crate) struct Orders {
    /// `order[l * n + b * block..][..rows]`: block `b`'s rows (numbered within it) by
    /// cluster of labeling `l`, each cluster's in sample order.
    order: Vec<u16>,
    /// The cluster (among all labelings') of each of those rows.
    cluster: Vec<u32>,
    n: usize,
}

impl Orders {
    /// The orders of the blocks of `block` samples of `clusters` (`m × n`, labeling by
    /// labeling, among all labelings' clusters).
    pub(crate) fn new(
        clusters: &[u32],
        n: usize,
        m: usize,
        block: usize,
    ) -> Result<Self, crate::error::Error> {
        assert!(block <= 1 << 16);
        let mut order = crate::alloc::with_capacity(m * n, "the blocks' cluster orders")?;
        let mut cluster = crate::alloc::with_capacity(m * n, "the blocks' sorted clusters")?;
        for l in 0..m {
            let of = &clusters[l * n..(l + 1) * n];
            for start in (0..n).step_by(block.max(1)) {
                let rows = (n - start).min(block);
                let from = order.len();
                order.extend(0..rows as u16);
                let part = &mut order[from..];
                part.sort_by_key(|&r| of[start + r as usize]);
                cluster.extend(part.iter().map(|&r| of[start + r as usize]));
            }
        }
        Ok(Orders { order, cluster, n })
    }

    /// Labeling `l`'s order of the `rows` samples from `first`, and their clusters.
    pub(crate) fn of(&self, l: usize, first: usize, rows: usize) -> (&[u16], &[u32]) {
        let at = l * self.n + first;
        (&self.order[at..at + rows], &self.cluster[at..at + rows])
    }
}

/// The `rows` rows of `dist` (`cols` wide, `pitch` apart; the samples `first..`), each row's values
/// added to its cluster's run of sums (cluster `c`'s at `stride · c`) in each of the `m`
/// labelings of `orders`. By strips of [`STRIP`] columns, every labeling's runs over one
/// strip before the next, so that the strip stays in cache while the rows are read in
/// each labeling's order.
pub(crate) struct AddRuns<'a, T> {
    pub(crate) dist: &'a [T],
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) pitch: usize,
    pub(crate) orders: &'a Orders,
    pub(crate) first: usize,
    pub(crate) m: usize,
    pub(crate) sums: &'a mut [f64],
    pub(crate) stride: usize,
}

impl<T: Float> Kernel for AddRuns<'_, T> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        let AddRuns {
            dist,
            rows,
            cols,
            pitch,
            orders,
            first,
            m,
            sums,
            stride,
        } = self;
        if rows == 0 {
            return;
        }
        for from in (0..cols).step_by(STRIP) {
            for l in 0..m {
                let (order, cluster) = orders.of(l, first, rows);
                if cols - from >= STRIP {
                    strip::<T, STRIP>(dist, pitch, order, cluster, sums, stride, from);
                } else {
                    for t in from..cols {
                        strip::<T, 1>(dist, pitch, order, cluster, sums, stride, t);
                    }
                }
            }
        }
    }
}

/// Columns `from..from + W` of [`AddRuns`].
#[inline(always)]
fn strip<T: Float, const W: usize>(
    dist: &[T],
    pitch: usize,
    order: &[u16],
    cluster: &[u32],
    sums: &mut [f64],
    stride: usize,
    from: usize,
) {
    let mut acc = [0.0f64; W];
    let mut current = cluster[0];
    for (&r, &c) in order.iter().zip(cluster) {
        if c != current {
            flush(&mut acc, sums, current as usize * stride + from);
            current = c;
        }
        let at = r as usize * pitch + from;
        let row: &[T; W] = dist[at..at + W].try_into().expect("W values");
        for t in 0..W {
            acc[t] += row[t].to_f64();
        }
    }
    flush(&mut acc, sums, current as usize * stride + from);
}

/// A run's totals added to its sums at `at`, and the run started again.
#[inline(always)]
fn flush<const W: usize>(acc: &mut [f64; W], sums: &mut [f64], at: usize) {
    let s: &mut [f64; W] = (&mut sums[at..at + W]).try_into().expect("W sums");
    for t in 0..W {
        s[t] += acc[t];
        acc[t] = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_add_each_row_into_its_cluster() {
        let (rows, cols, k) = (37usize, 45usize, 5usize);
        let dist: Vec<f64> = (0..rows * cols).map(|v| (v % 97) as f64 * 0.25).collect();
        let clusters: Vec<u32> = (0..rows).map(|r| ((r * 7) % k) as u32).collect();
        let orders = Orders::new(&clusters, rows, 1, 16).unwrap();
        let stride = cols + 3;
        let mut sums = vec![0.0f64; k * stride];
        let mut want = vec![0.0f64; k * stride];
        for start in (0..rows).step_by(16) {
            let block = (rows - start).min(16);
            AddRuns {
                dist: &dist[start * cols..(start + block) * cols],
                rows: block,
                cols,
                pitch: cols,
                orders: &orders,
                first: start,
                m: 1,
                sums: &mut sums,
                stride,
            }
            .run();
        }
        for r in 0..rows {
            for c in 0..cols {
                want[clusters[r] as usize * stride + c] += dist[r * cols + c];
            }
        }
        assert_eq!(sums, want);
    }
}
