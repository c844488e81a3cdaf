//! The variance of the mutual information when one labeling is permuted at random (the
//! permutation model of the adjusted mutual information), for the standardized mutual
//! information of Romano, Bailey, Nguyen and Verspoor (2014).
//!
//! With `e_ij = a_i b_j / n`, the mutual information in nats times `n` is
//! `S = Σ_ij g_ij(n_ij)`, `g_ij(x) = x ln(x / e_ij) - x + e_ij` (the added terms sum to 0).
//! Romano et al. sum `E[g_ij g_kl]` over every pair of cells, the pairs in different rows
//! and columns through a triple sum; here the variance is taken by rows instead:
//!
//! - `Var S = Σ_i Cov(A_i, S)` with `A_i = Σ_j g_ij(n_ij)`, and since `A_i` is fixed by row
//!   `i`, `Cov(A_i, S) = Cov(A_i, E[S | row i])`.
//! - Given row `i`, the other rows are a random permutation of the other samples, so
//!   `E[S | row i] = Σ_j f_ij(n_ij)` with `f_ij(x) = g_ij(x) + E[Σ_{k≠i} g_kj(n_kj) | n_ij = x]`.
//! - Then `Cov(A_i, Σ_j f_ij) = Σ_j E[g_ij(n_ij) (f_ij(n_ij) + E[Σ_{l≠j} f_il(n_il) | n_ij])]`,
//!   every function centred on its mean.
//!
//! Both conditional expectations are of one kind ([`others`]): the counts of a column over
//! the rows (or of a row over the columns) are a multivariate hypergeometric vector, and
//! its partial sums `x_1 + … + x_k` a Markov chain, walked forward and backward. The cost
//! grows as `n` times the square of the number of standard deviations kept (below); rows
//! and columns of equal sizes are computed once.
//!
//! Every distribution is kept where its probabilities are at least [`CUT`] of its mode's
//! (about 8.8 standard deviations on each side of its mean for a wide one): the mass left
//! out of each is of the order of 1e-17, and the variance agrees with Romano et al.'s sum
//! over pairs of cells (computed on every probability) to 4e-13 at n = 300 (the tests
//! below). The passes start each category's conditional distributions from the highest
//! state's and mix in one draw at a time, so no probability is recomputed from factorials.

use std::ops::Range;

use rayon::prelude::*;

use crate::emi::bd0;
#[cfg(test)]
use crate::emi::size_counts;
use crate::pool;
use crate::stop;

/// Probabilities below this fraction of their distribution's mode are left out.
const CUT: f64 = 1.0 / (1u64 << 56) as f64;

/// A hypergeometric count's probabilities from `lo`, normalized, where they are at least
/// [`CUT`] of the mode's.
#[derive(Debug, Clone)]
struct Window {
    lo: u64,
    p: Vec<f64>,
}

impl Window {
    fn hi(&self) -> u64 {
        self.lo + self.p.len() as u64 - 1
    }
}

/// The count of white samples among `draws` drawn from `total`, `white` of them white.
fn window(draws: u64, white: u64, total: u64) -> Window {
    let lo = (draws + white).saturating_sub(total);
    let hi = draws.min(white);
    let mode = ((u128::from(draws) + 1) * (u128::from(white) + 1) / (u128::from(total) + 2)) as u64;
    let m = mode.clamp(lo, hi);
    let (d, w, black) = (draws as f64, white as f64, (total - white) as f64);
    // The ratios of consecutive probabilities, outward from the mode.
    let mut up = Vec::new();
    let (mut v, mut x) = (1.0, m);
    while x < hi {
        let xf = x as f64;
        v *= (w - xf) * (d - xf) / ((xf + 1.0) * (black - d + xf + 1.0));
        if v < CUT {
            break;
        }
        up.push(v);
        x += 1;
    }
    let mut down = Vec::new();
    let (mut v, mut x) = (1.0, m);
    while x > lo {
        let xf = x as f64;
        v *= xf * (black - d + xf) / ((w - xf + 1.0) * (d - xf + 1.0));
        if v < CUT {
            break;
        }
        down.push(v);
        x -= 1;
    }
    let mut p = Vec::with_capacity(down.len() + 1 + up.len());
    p.extend(down.iter().rev());
    p.push(1.0);
    p.extend(&up);
    let total_p: f64 = p.iter().sum();
    p.iter_mut().for_each(|q| *q /= total_p);
    Window {
        lo: m - down.len() as u64,
        p,
    }
}

/// The conditional probabilities of category `k`'s count given each state `s` of the
/// partial sum before it, from the highest state down, on the window `xw` of its
/// marginal: `visit(s, q)` with `q[x - xw.lo]`. Each state has one more draw left than
/// the one above it, and one more draw mixes the probabilities into a second buffer (two
/// products a count, no division), starting from the highest state's own window.
fn conditionals(
    states: &Window,
    xw: &Window,
    (draws, size, pop): (u64, u64, u64),
    q: &mut Vec<f64>,
    mut visit: impl FnMut(u64, &[f64]),
) {
    // The range worked on spans the conditional windows of the highest and the lowest
    // state (the mass moves up with each draw, so none may start below it) and `xw`.
    let top = states.hi();
    let first = window(draws - top, size, pop);
    let last = window(draws - states.lo, size, pop);
    let lo = first.lo.min(xw.lo);
    let hi = last.hi().max(xw.hi()).max(first.hi());
    q.clear();
    q.resize((hi - lo + 1) as usize, 0.0);
    q[(first.lo - lo) as usize..][..first.p.len()].copy_from_slice(&first.p);
    let mut spare = vec![0.0; q.len()];
    let off = (xw.lo - lo) as usize;
    let (c, m) = (size as f64, pop as f64);
    for s in (states.lo..=top).rev() {
        if s < top {
            // From n = draws - s - 1 draws to n + 1: P'(x) = P(x) (m - n - c + x) / (m - n)
            // + P(x - 1) (c - x + 1) / (m - n), into the spare buffer (a loop the compiler
            // vectorizes).
            let n = (draws - s - 1) as f64;
            let inv = 1.0 / (m - n);
            let x0 = lo as f64;
            let (stay0, move0) = ((m - n - c + x0) * inv, (c - x0 + 1.0) * inv);
            spare[0] = q[0] * stay0;
            for (i, (out, pair)) in spare[1..].iter_mut().zip(q.windows(2)).enumerate() {
                let di = (i + 1) as f64 * inv;
                *out = pair[1] * (stay0 + di) + pair[0] * (move0 - di);
            }
            std::mem::swap(q, &mut spare);
        }
        visit(s, &q[off..][..xw.p.len()]);
    }
}

/// The windows of the partial sums `s_k = x_0 + … + x_{k-1}`, `k = 0..=K`, of the counts
/// of categories of `sizes` (summing to `total`) among `draws` samples drawn at random,
/// and the samples left before each category.
fn chain(sizes: &[u64], total: u64, draws: u64) -> (Vec<Window>, Vec<u64>) {
    let (mut prefix, mut pops) = (0u64, Vec::with_capacity(sizes.len()));
    let mut states = Vec::with_capacity(sizes.len() + 1);
    states.push(window(draws, 0, total));
    for &c in sizes {
        pops.push(total - prefix);
        prefix += c;
        states.push(window(draws, prefix, total));
    }
    (states, pops)
}

/// The counts of a category from the state `s` that land in the next states' window: their
/// indices into the category's window `w` and the indices of the states they reach in
/// `next`.
fn targets(w: &Window, next: &Window, s: u64) -> Option<(Range<usize>, Range<usize>)> {
    let from = w.lo.max(next.lo.saturating_sub(s));
    let to = w.hi().min(next.hi().checked_sub(s)?);
    if from > to {
        return None;
    }
    let xs = (from - w.lo) as usize..(to - w.lo) as usize + 1;
    let t = (s + from - next.lo) as usize..(s + to - next.lo) as usize + 1;
    Some((xs, t))
}

/// For the counts `x_k` of categories of `sizes` (summing to `total`) among `draws`
/// samples drawn at random and two functions `g[k]`, `f[k]` of each count given on the
/// window of its distribution (`windows[k]`): the covariance of `Σ_k g_k(x_k)` and
/// `Σ_k f_k(x_k)`, in one forward pass carrying, on each state, its probability, the
/// expected sums of the `g` and the `f` so far and of their product. `None` when stopped.
fn covariance(
    sizes: &[u64],
    total: u64,
    draws: u64,
    windows: &[&Window],
    (g, f): (&[&[f64]], &[&[f64]]),
) -> Option<f64> {
    let (states, pops) = chain(sizes, total, draws);
    let mut q = Vec::new();
    // Probability, Σg, Σf and Σg Σf on each state, side by side.
    let mut cur_acc = vec![[1.0, 0.0, 0.0, 0.0]];
    for k in 0..sizes.len() {
        if stop::requested() {
            return None;
        }
        let (cur, next, w, gk, fk) = (&states[k], &states[k + 1], windows[k], g[k], f[k]);
        let mut acc = vec![[0.0; 4]; next.p.len()];
        conditionals(cur, w, (draws, sizes[k], pops[k]), &mut q, |s, q| {
            let [p, sg, sf, sgf] = cur_acc[(s - cur.lo) as usize];
            let Some((xs, t)) = targets(w, next, s).filter(|_| p != 0.0) else {
                return;
            };
            for (((a, &qv), &gx), &fx) in acc[t]
                .iter_mut()
                .zip(&q[xs.clone()])
                .zip(&gk[xs.clone()])
                .zip(&fk[xs])
            {
                a[0] += p * qv;
                a[1] += (sg + p * gx) * qv;
                a[2] += (sf + p * fx) * qv;
                a[3] += (sgf + sg * fx + sf * gx + p * gx * fx) * qv;
            }
        });
        cur_acc = acc;
    }
    let [p, sg, sf, sgf] = cur_acc[0];
    Some(sgf / p - (sg / p) * (sf / p))
}

/// For the counts `x_k` of categories of `sizes` (summing to `total`) among `draws`
/// samples drawn at random, and a function `phi[k]` of each count given on the window of
/// its distribution (`windows[k]`): `E[Σ_{l≠k} φ_l(x_l) | x_k = x]` for each `k` and each
/// `x` of its window. `None` when stopped.
fn others(
    sizes: &[u64],
    total: u64,
    draws: u64,
    windows: &[&Window],
    phi: &[&[f64]],
) -> Option<Vec<Vec<f64>>> {
    let k_all = sizes.len();
    let (states, pops) = chain(sizes, total, draws);
    let mut q = Vec::new();
    // Forward: the probability of each state and the expected sum of the φ so far on it.
    let mut alpha: Vec<Vec<f64>> = Vec::with_capacity(k_all);
    let mut sums: Vec<Vec<f64>> = Vec::with_capacity(k_all);
    alpha.push(vec![1.0]);
    sums.push(vec![0.0]);
    for k in 0..k_all {
        if stop::requested() {
            return None;
        }
        let (cur, next, w, ph) = (&states[k], &states[k + 1], windows[k], phi[k]);
        let mut a_next = vec![0.0; next.p.len()];
        let mut s_next = vec![0.0; next.p.len()];
        let (a_cur, f_cur) = (&alpha[k], &sums[k]);
        conditionals(cur, w, (draws, sizes[k], pops[k]), &mut q, |s, q| {
            let si = (s - cur.lo) as usize;
            let (a, f) = (a_cur[si], f_cur[si]);
            let Some((xs, t)) = targets(w, next, s).filter(|_| a != 0.0) else {
                return;
            };
            for (((an, sn), &qv), &p) in a_next[t.clone()]
                .iter_mut()
                .zip(&mut s_next[t])
                .zip(&q[xs.clone()])
                .zip(&ph[xs])
            {
                let aq = a * qv;
                *an += aq;
                *sn += f * qv + aq * p;
            }
        });
        if k + 1 < k_all {
            alpha.push(a_next);
            sums.push(s_next);
        }
    }
    // Backward: the expected sum of the φ still to come from each state, and, category by
    // category, the expected sum of the others' φ jointly with each count.
    let mut out = vec![Vec::new(); k_all];
    let mut beta_next = vec![0.0; states[k_all].p.len()];
    for k in (0..k_all).rev() {
        if stop::requested() {
            return None;
        }
        let (cur, next, w, ph) = (&states[k], &states[k + 1], windows[k], phi[k]);
        let mut beta = vec![0.0; cur.p.len()];
        let mut num = vec![0.0; w.p.len()];
        let mut den = vec![0.0; w.p.len()];
        let (a_cur, f_cur) = (&alpha[k], &sums[k]);
        conditionals(cur, w, (draws, sizes[k], pops[k]), &mut q, |s, q| {
            let si = (s - cur.lo) as usize;
            let (a, f) = (a_cur[si], f_cur[si]);
            let Some((xs, t)) = targets(w, next, s) else {
                return;
            };
            let (mut ahead, mut mass) = (0.0, 0.0);
            for ((((&qv, &bn), &p), nu), de) in q[xs.clone()]
                .iter()
                .zip(&beta_next[t])
                .zip(&ph[xs.clone()])
                .zip(&mut num[xs.clone()])
                .zip(&mut den[xs])
            {
                ahead += qv * (p + bn);
                mass += qv;
                *nu += qv * (f + a * bn);
                *de += a * qv;
            }
            beta[si] = if mass > 0.0 { ahead / mass } else { 0.0 };
        });
        out[k] = num
            .iter()
            .zip(&den)
            .map(|(&u, &v)| if v > 0.0 { u / v } else { 0.0 })
            .collect();
        beta_next = beta;
    }
    Some(out)
}

/// `f` of `0..k`, in order, on the pool's threads (on this thread where there is no pool).
fn map_all<T: Send>(k: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    if pool::threads() > 1 {
        pool::run(|| (0..k).into_par_iter().map(f).collect())
    } else {
        (0..k).map(f).collect()
    }
}

/// Whether every table with these row and column sizes (each with its number) has the
/// same mutual information: one row or column, rows or columns of one sample each, or
/// two rows of `n - 1` and 1 samples and columns of one size (or the same with rows and
/// columns swapped).
fn constant_mutual_info(rows: &[(u64, u64)], cols: &[(u64, u64)], n: u64) -> bool {
    let number = |s: &[(u64, u64)]| s.iter().map(|&(_, c)| c).sum::<u64>();
    let singletons = |s: &[(u64, u64)]| s.iter().all(|&(size, _)| size == 1);
    let one_and_rest = |s: &[(u64, u64)]| s == [(1, 1), (n - 1, 1)];
    number(rows) <= 1
        || number(cols) <= 1
        || singletons(rows)
        || singletons(cols)
        || (one_and_rest(rows) && cols.len() == 1)
        || (one_and_rest(cols) && rows.len() == 1)
}

/// The variance of the mutual information (nats) of tables of `n` samples with these
/// distinct row and column sizes (each with its number) under the permutation model; 0.0
/// where it is constant ([`constant_mutual_info`]). `None` when stopped.
pub(crate) fn mutual_info_variance(ra: &[(u64, u64)], cb: &[(u64, u64)], n: u64) -> Option<f64> {
    if n == 0 || constant_mutual_info(ra, cb, n) {
        return Some(0.0);
    }
    let (na, nb) = (ra.len(), cb.len());
    let nf = n as f64;
    // Each pair of a row size and a column size: its count's window and g on it, centred.
    let cells: Vec<(Window, Vec<f64>)> = map_all(na * nb, |p| {
        let (a, b) = (ra[p / nb].0, cb[p % nb].0);
        let w = window(b, a, n);
        let e = a as f64 * (b as f64 / nf);
        let g: Vec<f64> = (w.lo..=w.hi())
            .map(|x| {
                if x == 0 {
                    e
                } else {
                    let xf = x as f64;
                    bd0(xf, e, xf - e)
                }
            })
            .collect();
        let mean: f64 = g.iter().zip(&w.p).map(|(v, q)| v * q).sum();
        let g = g.iter().map(|v| v - mean).collect();
        (w, g)
    });
    let cell = |i: usize, j: usize| &cells[i * nb + j];
    // Every row (column), as the index of its distinct size.
    let expand = |d: &[(u64, u64)]| -> Vec<usize> {
        d.iter()
            .enumerate()
            .flat_map(|(i, &(_, c))| std::iter::repeat_n(i, c as usize))
            .collect()
    };
    let (row_of, col_of) = (expand(ra), expand(cb));
    let row_sizes: Vec<u64> = row_of.iter().map(|&i| ra[i].0).collect();
    let col_sizes: Vec<u64> = col_of.iter().map(|&j| cb[j].0).collect();
    // The first row of each distinct size.
    let mut first_row = vec![0; na];
    for (pos, &i) in row_of.iter().enumerate().rev() {
        first_row[i] = pos;
    }
    // By columns: E[Σ_{k≠i} g_kj | n_ij = x], for each distinct column size j and row size i.
    let by_columns: Vec<Option<Vec<Vec<f64>>>> = map_all(nb, |j| {
        let windows: Vec<&Window> = row_of.iter().map(|&i| &cell(i, j).0).collect();
        let phi: Vec<&[f64]> = row_of.iter().map(|&i| cell(i, j).1.as_slice()).collect();
        let all = others(&row_sizes, n, cb[j].0, &windows, &phi)?;
        Some(first_row.iter().map(|&pos| all[pos].clone()).collect())
    });
    let mut h = Vec::with_capacity(nb);
    for col in by_columns {
        h.push(col?);
    }
    // f = g + h, centred, for each pair of sizes.
    let f: Vec<Vec<f64>> = (0..na * nb)
        .map(|p| {
            let (i, j) = (p / nb, p % nb);
            let (w, g) = cell(i, j);
            let v: Vec<f64> = g.iter().zip(&h[j][i]).map(|(x, y)| x + y).collect();
            let mean: f64 = v.iter().zip(&w.p).map(|(x, q)| x * q).sum();
            v.iter().map(|x| x - mean).collect()
        })
        .collect();
    // By rows: Cov(A_i, Σ_j f_ij) for each distinct row size, times its number.
    let by_rows: Vec<Option<f64>> = map_all(na, |i| {
        let windows: Vec<&Window> = col_of.iter().map(|&j| &cell(i, j).0).collect();
        let phi: Vec<&[f64]> = col_of.iter().map(|&j| f[i * nb + j].as_slice()).collect();
        let g: Vec<&[f64]> = col_of.iter().map(|&j| cell(i, j).1.as_slice()).collect();
        let cov = covariance(&col_sizes, n, ra[i].0, &windows, (&g, &phi))?;
        Some(ra[i].1 as f64 * cov)
    });
    let mut var = 0.0;
    for cov in by_rows {
        var += cov?;
    }
    Some((var / (nf * nf)).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table with these sums, with its probability, by recursion over cells.
    fn tables(rows: &[u64], cols: &[u64]) -> Vec<(Vec<Vec<u64>>, f64)> {
        fn ln_fact(k: u64) -> f64 {
            (1..=k).map(|v| (v as f64).ln()).sum()
        }
        let n: u64 = rows.iter().sum();
        let mut out = Vec::new();
        let mut t = vec![vec![0u64; cols.len()]; rows.len()];
        fn fill(
            i: usize,
            j: usize,
            rows_left: &mut [u64],
            cols_left: &mut [u64],
            t: &mut [Vec<u64>],
            out: &mut Vec<Vec<Vec<u64>>>,
        ) {
            let (r, c) = (t.len(), t[0].len());
            if i == r {
                if cols_left.iter().all(|&x| x == 0) {
                    out.push(t.to_vec());
                }
                return;
            }
            let (ni, nj) = if j + 1 == c { (i + 1, 0) } else { (i, j + 1) };
            let hi = rows_left[i].min(cols_left[j]);
            let lo = if j + 1 == c { rows_left[i] } else { 0 };
            if lo > hi {
                return;
            }
            for x in lo..=hi {
                t[i][j] = x;
                rows_left[i] -= x;
                cols_left[j] -= x;
                fill(ni, nj, rows_left, cols_left, t, out);
                rows_left[i] += x;
                cols_left[j] += x;
            }
            t[i][j] = 0;
        }
        let mut all = Vec::new();
        fill(
            0,
            0,
            &mut rows.to_vec(),
            &mut cols.to_vec(),
            &mut t,
            &mut all,
        );
        let base: f64 = rows.iter().chain(cols).map(|&x| ln_fact(x)).sum::<f64>() - ln_fact(n);
        for tab in all {
            let cells: f64 = tab.iter().flatten().map(|&x| ln_fact(x)).sum();
            out.push((tab, (base - cells).exp()));
        }
        out
    }

    fn mi(t: &[Vec<u64>], rows: &[u64], cols: &[u64], n: u64) -> f64 {
        let nf = n as f64;
        let mut s = 0.0;
        for (i, row) in t.iter().enumerate() {
            for (j, &x) in row.iter().enumerate() {
                if x > 0 {
                    let xf = x as f64;
                    s += xf / nf * (xf * nf / (rows[i] as f64 * cols[j] as f64)).ln();
                }
            }
        }
        s
    }

    #[test]
    fn variance_matches_every_table() {
        let cases: &[(&[u64], &[u64])] = &[
            (&[2, 2], &[1, 3]),
            (&[3, 2, 1], &[2, 2, 2]),
            (&[4, 3, 2], &[5, 4]),
            (&[1, 2, 3, 4], &[3, 3, 4]),
            (&[5, 4, 3], &[2, 2, 3, 5]),
            (&[6, 1, 1, 2], &[7, 3]),
            (&[3, 3, 3, 3], &[4, 4, 4]),
        ];
        for &(rows, cols) in cases {
            let n: u64 = rows.iter().sum();
            let all = tables(rows, cols);
            let total: f64 = all.iter().map(|(_, p)| p).sum();
            assert!((total - 1.0).abs() < 1e-12, "{rows:?} {cols:?}: {total}");
            let mean: f64 = all.iter().map(|(t, p)| p * mi(t, rows, cols, n)).sum();
            let var: f64 = all
                .iter()
                .map(|(t, p)| p * (mi(t, rows, cols, n) - mean).powi(2))
                .sum();
            let got = of_sums(rows, cols, n).unwrap();
            assert!(
                (got - var).abs() <= 1e-12 * var,
                "{rows:?} {cols:?}: {got} against {var}"
            );
        }
    }

    /// Every probability of a hypergeometric count, from `lgamma`.
    fn pmf(draws: u64, white: u64, total: u64) -> (u64, Vec<f64>) {
        let lf = |k: u64| libm::lgamma(k as f64 + 1.0);
        let lc = |n: u64, k: u64| lf(n) - lf(k) - lf(n - k);
        let lo = (draws + white).saturating_sub(total);
        let hi = draws.min(white);
        let all = lc(total, draws);
        let p = (lo..=hi)
            .map(|x| (lc(white, x) + lc(total - white, draws - x) - all).exp())
            .collect();
        (lo, p)
    }

    /// Romano et al.'s sum over pairs of cells, E[S²] - E[S]², with S = n MI = Σ g_ij.
    fn by_pairs_of_cells(rows: &[u64], cols: &[u64], n: u64) -> f64 {
        let g = |a: u64, b: u64, x: u64| {
            let e = a as f64 * b as f64 / n as f64;
            if x == 0 {
                e
            } else {
                let xf = x as f64;
                xf * (xf / e).ln() - xf + e
            }
        };
        // E[g_kl(n_kl) | given draws d of row k's a_k... ]: the mean of g over Hyp(d, w, t).
        let mean = |d: u64, w: u64, t: u64, a: u64, b: u64| -> f64 {
            let (lo, p) = pmf(d, w, t);
            p.iter()
                .enumerate()
                .map(|(i, q)| q * g(a, b, lo + i as u64))
                .sum()
        };
        let (mut s1, mut s2) = (0.0, 0.0);
        for (i, &a) in rows.iter().enumerate() {
            for (j, &b) in cols.iter().enumerate() {
                let (lo, p) = pmf(a, b, n);
                for (xi, &px) in p.iter().enumerate() {
                    let x = lo + xi as u64;
                    let gx = g(a, b, x);
                    s1 += px * gx;
                    let mut inner = gx;
                    for (l, &bl) in cols.iter().enumerate() {
                        if l != j {
                            inner += mean(a - x, bl, n - b, a, bl);
                        }
                    }
                    for (k, &ak) in rows.iter().enumerate() {
                        if k == i {
                            continue;
                        }
                        inner += mean(b - x, ak, n - a, ak, b);
                        for (l, &bl) in cols.iter().enumerate() {
                            if l == j {
                                continue;
                            }
                            let (zlo, pz) = pmf(a - x, bl, n - b);
                            for (zi, &qz) in pz.iter().enumerate() {
                                let z = zlo + zi as u64;
                                inner += qz * mean(ak, bl - z, n - a, ak, bl);
                            }
                        }
                    }
                    s2 += px * gx * inner;
                }
            }
        }
        let nf = n as f64;
        (s2 - s1 * s1) / (nf * nf)
    }

    #[test]
    fn variance_matches_the_sum_over_pairs_of_cells() {
        for (rows, cols) in [
            (vec![40u64, 25, 15], vec![30u64, 20, 20, 10]),
            (vec![100, 60, 40], vec![90, 70, 40]),
            (vec![150, 100, 50], vec![120, 80, 60, 40]),
        ] {
            let n: u64 = rows.iter().sum();
            let want = by_pairs_of_cells(&rows, &cols, n);
            let got = of_sums(&rows, &cols, n).unwrap();
            assert!(
                (got - want).abs() <= 1e-10 * want,
                "{rows:?} {cols:?}: {got} against {want}"
            );
        }
    }

    fn of_sums(rows: &[u64], cols: &[u64], n: u64) -> Option<f64> {
        mutual_info_variance(&size_counts(rows), &size_counts(cols), n)
    }

    #[test]
    fn constant_cases_are_zero_and_others_are_not() {
        assert_eq!(of_sums(&[4, 1], &[1, 1, 1, 1, 1], 5), Some(0.0));
        assert_eq!(of_sums(&[5, 1], &[2, 2, 2], 6), Some(0.0));
        assert_eq!(of_sums(&[2, 2, 2], &[1, 5], 6), Some(0.0));
        assert!(of_sums(&[5, 1], &[2, 4], 6).unwrap() > 0.0);
    }
}
