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
//!
//! The bisection's steps are taken without computing most of them ([`replay`]): the two
//! edges of the band of `beta` that ends it are found first by Newton's method, and each
//! step's side of the band follows from the entropy falling as `beta` grows, so that a
//! row takes about half the bisection's passes over its exponentials, and ends at the
//! bisection's own `beta`, bit for bit. Rows where the band cannot be
//! found (a perplexity the row cannot reach, an entropy too flat) are bisected.

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

/// The weights' entropy at `beta` and its slope `dH/d(ln beta) = -Var(beta·d)` (under the
/// weights), for the search of [`replay`]. The distances are taken from `near`, the
/// nearest kept neighbour's: `H = ln Σ e^(-e) + E[e]` for `e = beta·(d - near)`, the same
/// entropy, whose weights never all vanish and whose variance loses no digits to a large
/// mean. `None` where no neighbour is kept or a value is not finite.
#[inline(always)]
fn entropy_slope(dist: &[f64], keep: &[f64], beta: f64, near: f64) -> Option<(f64, f64)> {
    let (mut sum, mut esum, mut eesum) = ([0.0f64; 4], [0.0f64; 4], [0.0f64; 4]);
    let mut quads = dist.chunks_exact(4).zip(keep.chunks_exact(4));
    for (d, k) in &mut quads {
        for j in 0..4 {
            let e = beta * (d[j] - near);
            let w = exp_nonpositive(-e) * k[j];
            sum[j] += w;
            esum[j] += e * w;
            eesum[j] += e * e * w;
        }
    }
    let tail = dist.len() - dist.len() % 4;
    for (&d, &k) in dist[tail..].iter().zip(&keep[tail..]) {
        let e = beta * (d - near);
        let w = exp_nonpositive(-e) * k;
        sum[0] += w;
        esum[0] += e * w;
        eesum[0] += e * e * w;
    }
    let sum = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    let mean = ((esum[0] + esum[1]) + (esum[2] + esum[3])) / sum;
    let var = ((eesum[0] + eesum[1]) + (eesum[2] + eesum[3])) / sum - mean * mean;
    let h = sum.ln() + mean;
    (sum > 0.0 && h.is_finite() && var.is_finite() && var > 0.0).then_some((h, -var))
}

/// The `ln beta` at which the weights' entropy is `level`, by Newton's method in `ln beta`
/// from `beta` (its entropy and slope `at`), kept within the bracket of the points seen,
/// and the slope at the last point computed; `None` where it does not settle within
/// [`SOLVE_STEPS`] (the caller then bisects).
#[inline(always)]
fn solve(
    dist: &[f64],
    keep: &[f64],
    near: f64,
    level: f64,
    beta: f64,
    at: (f64, f64),
) -> Option<(f64, f64)> {
    let (mut u, (mut h, mut slope)) = (beta.ln(), at);
    let (mut below, mut above) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut last = f64::INFINITY;
    for _ in 0..SOLVE_STEPS {
        // The entropy falls as beta grows: above the level, the root lies at a larger beta.
        if h > level {
            below = below.max(u);
        } else {
            above = above.min(u);
        }
        let newton = u + (level - h) / slope;
        let step = (newton - u).abs() / u.abs().max(1.0);
        // Settled: the step at the rounding of ln beta, or the entropy at the level to its
        // rounding; or a step below 1e-6 that is below the square of the one before (the
        // quadratic convergence of Newton's method, under way), so that the next would be
        // below 1e-12 (a thousandth of MARGIN): taken without computing the entropy there.
        if step <= 1e-12
            || (h - level).abs() <= 1e-14 * level.abs().max(1.0)
            || (step <= 1e-6 && step <= last * last)
        {
            return newton.is_finite().then_some((newton, slope));
        }
        last = step;
        // A step of at most a factor e² in beta (far from the root the tangent overshoots),
        // and within the bracket.
        let mut next = u + (newton - u).clamp(-2.0, 2.0);
        if !(next > below && next < above) {
            next = (below + above) / 2.0;
        }
        match entropy_slope(dist, keep, next.exp(), near) {
            Some(at) => (u, (h, slope)) = (next, at),
            None => return None,
        }
    }
    None
}

/// Steps of Newton's method before [`solve`] gives up (it settles in two to six).
const SOLVE_STEPS: usize = 40;

/// How close (relatively) a bisection step may come to the band's edges before its
/// entropy is computed, not read off the edges.
const MARGIN: f64 = 1e-9;

/// The same steps as [`Calibrate`]'s bisection, each decided without its exponentials:
/// the band of `beta` whose entropy lies within `tol` of `target` is found first (its two
/// edges by Newton's method, a handful of passes over the row), and a step's side of the
/// band follows from the entropy falling as `beta` grows. A step within [`MARGIN`] of an
/// edge has its entropy computed, as the bisection does. The bisection's own arithmetic on
/// `beta` gives the same steps, so the `beta` it ends at, and the weights there, are the
/// bisection's, bit for bit, in about half its passes over the row (10 to 12 against 20
/// on scIB's rows of 30 neighbours). `None` where the band is not found (the caller
/// bisects).
#[inline(always)]
fn replay(dist: &[f64], keep: &[f64], p: &mut [f64], target: f64, tol: f64) -> Option<f64> {
    // The nearest kept neighbour's distance.
    let near = dist
        .iter()
        .zip(keep)
        .filter(|&(_, &k)| k != 0.0)
        .map(|(&d, _)| d)
        .fold(f64::INFINITY, f64::min);
    let first = entropy_slope(dist, keep, 1.0, near)?;
    // The band's edges: the entropy is target + tol at `lo_edge`, target - tol at
    // `hi_edge`, about 2 tol / |slope| further in ln beta (a step or two from there).
    let (lo_u, slope) = solve(dist, keep, near, target + tol, 1.0, first)?;
    // Where the entropy is this flat, its rounding is no longer far below a step within
    // MARGIN of an edge: the bisection's own decisions are then taken.
    if slope.abs() * MARGIN < 1e-11 {
        return None;
    }
    let guess = (lo_u - 2.0 * tol / slope).exp();
    let at = entropy_slope(dist, keep, guess, near)?;
    let (hi_u, slope) = solve(dist, keep, near, target - tol, guess, at)?;
    if slope.abs() * MARGIN < 1e-11 {
        return None;
    }
    let (lo_edge, hi_edge) = (lo_u.exp(), hi_u.exp());
    // Past beta·near = 700 the bisection's own weights (not shifted) begin to vanish, and
    // its entropy with them: it is left to take its steps there.
    if !(lo_edge < hi_edge && hi_edge.is_finite() && hi_edge * near < 700.0) {
        return None;
    }
    let close = |beta: f64, edge: f64| (beta - edge).abs() <= MARGIN * edge;
    // The entropy's distance from the target at `beta`: read off the band where `beta`
    // is clear of its edges (0 inside, ±2 tol outside: only the side and |diff| < tol
    // matter), computed where it is near one.
    let diff = |beta: f64, p: &mut [f64]| {
        if close(beta, lo_edge) || close(beta, hi_edge) {
            entropy(dist, keep, beta, p) - target
        } else if beta < lo_edge {
            2.0 * tol
        } else if beta > hi_edge {
            -2.0 * tol
        } else {
            0.0
        }
    };
    let mut beta = 1.0f64;
    let mut lo = f64::NEG_INFINITY;
    let mut hi = f64::INFINITY;
    let mut d = diff(beta, p);
    let mut tries = 0;
    while d.abs() >= tol && tries < STEPS {
        if d > 0.0 {
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
        d = diff(beta, p);
        tries += 1;
    }
    Some(entropy(dist, keep, beta, p))
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
        if let Some(h) = replay(dist, keep, p, target, tol) {
            return h;
        }
        bisect(dist, keep, p, target, tol)
    }
}

/// The bisection itself: `beta` from 1, doubled or halved until the target is bracketed,
/// then halved intervals, until the entropy is within `tol` of `target` or [`STEPS`].
#[inline(always)]
fn bisect(dist: &[f64], keep: &[f64], p: &mut [f64], target: f64, tol: f64) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (the tests' rows).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Rows of every kind the graphs give: sorted uniform distances with the cell first at
    /// 0, scaled from tiny to huge, ties, duplicates at 0, rows of one and two neighbours,
    /// and perplexities from 1 to more than the row holds.
    fn rows() -> Vec<(Vec<f64>, Vec<f64>, f64)> {
        let mut rng = Lcg(7);
        let mut out = Vec::new();
        for case in 0..4000 {
            let k = [1, 2, 3, 5, 15, 30, 90][case % 7];
            let scale = [1e-3, 0.1, 1.0, 7.0, 50.0, 1e3][(case / 7) % 6];
            let mut d: Vec<f64> = (0..k).map(|_| rng.next() * scale).collect();
            d.sort_by(f64::total_cmp);
            let mut keep = vec![1.0; k];
            if case % 3 != 0 {
                d[0] = 0.0;
                keep[0] = 0.0;
            }
            if case % 11 == 0 && k > 3 {
                d[1] = d[2]; // a tie
            }
            if case % 13 == 0 && k > 3 {
                d[1] = 0.0; // a duplicate of the cell
            }
            let perplexity = [1.0, 2.0, (k / 3).max(1) as f64, k as f64, 2.0 * k as f64][case % 5];
            out.push((d, keep, perplexity));
        }
        out
    }

    #[test]
    fn the_replay_ends_where_the_bisection_does_bit_for_bit() {
        let all = rows();
        for tol in [1e-5, 1e-3, 1e-8] {
            let mut replayed = 0;
            for (i, (d, keep, perplexity)) in all.iter().enumerate() {
                let target = perplexity.ln();
                let (mut p1, mut p2) = (vec![0.0; d.len()], vec![0.0; d.len()]);
                let want = bisect(d, keep, &mut p1, target, tol);
                if let Some(got) = replay(d, keep, &mut p2, target, tol) {
                    replayed += 1;
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "row {i}, {tol}: {got} {want}"
                    );
                    for (a, b) in p1.iter().zip(&p2) {
                        assert_eq!(a.to_bits(), b.to_bits(), "row {i}, {tol}");
                    }
                }
            }
            // Rows whose perplexity their neighbours cannot reach are left to the bisection;
            // the rest are compared.
            assert!(
                replayed * 8 > all.len(),
                "{tol}: {replayed} of {}",
                all.len()
            );
        }
    }

    #[test]
    fn typical_rows_take_the_replay() {
        // 29 neighbours at uniform distances, the cell first, perplexity 10 (scIB's rows).
        let mut rng = Lcg(11);
        let mut replayed = 0;
        for _ in 0..2000 {
            let mut d: Vec<f64> = (0..30).map(|_| rng.next()).collect();
            d.sort_by(f64::total_cmp);
            d[0] = 0.0;
            let mut keep = vec![1.0; 30];
            keep[0] = 0.0;
            let mut p = vec![0.0; 30];
            replayed += usize::from(replay(&d, &keep, &mut p, 10f64.ln(), 1e-5).is_some());
        }
        assert!(replayed >= 1990, "{replayed}");
    }
}
