//! The forward and backward passes over the partial sums of a row's (or a column's) counts,
//! a Markov chain, on every state of each partial sum's window. The passes start each
//! category's conditional distributions from the highest state's and mix in one draw at a
//! time, so no probability is recomputed from factorials.

use std::ops::Range;

use super::window::{window, Window, BUFFERS};
use crate::alloc;
use crate::error::Error;
use crate::stop;

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
) -> Result<(), Error> {
    // The range worked on spans the conditional windows of the highest and the lowest
    // state (the mass moves up with each draw, so none may start below it) and `xw`.
    let top = states.hi();
    let first = window(draws - top, size, pop)?;
    let last = window(draws - states.lo, size, pop)?;
    let lo = first.lo.min(xw.lo);
    let hi = last.hi().max(xw.hi()).max(first.hi());
    let len = (hi - lo + 1) as usize;
    q.clear();
    alloc::reserve_exact(q, len, BUFFERS)?;
    q.resize(len, 0.0);
    q[(first.lo - lo) as usize..][..first.p.len()].copy_from_slice(&first.p);
    let mut spare = alloc::filled(q.len(), 0.0, BUFFERS)?;
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
    Ok(())
}

/// The windows of the partial sums `s_k = x_0 + … + x_{k-1}`, `k = 0..=K`, of the counts
/// of categories of `sizes` (summing to `total`) among `draws` samples drawn at random,
/// and the samples left before each category.
fn chain(sizes: &[u64], total: u64, draws: u64) -> Result<(Vec<Window>, Vec<u64>), Error> {
    let (mut prefix, mut pops) = (0u64, alloc::with_capacity(sizes.len(), BUFFERS)?);
    let mut states = alloc::with_capacity(sizes.len() + 1, BUFFERS)?;
    states.push(window(draws, 0, total)?);
    for &c in sizes {
        pops.push(total - prefix);
        prefix += c;
        states.push(window(draws, prefix, total)?);
    }
    Ok((states, pops))
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
/// expected sums of the `g` and the `f` so far and of their product. [`Error::Stopped`]
/// when stopped.
pub(super) fn covariance(
    sizes: &[u64],
    total: u64,
    draws: u64,
    windows: &[&Window],
    (g, f): (&[&[f64]], &[&[f64]]),
) -> Result<f64, Error> {
    let (states, pops) = chain(sizes, total, draws)?;
    let mut q = Vec::new();
    // Probability, Σg, Σf and Σg Σf on each state, side by side.
    let mut cur_acc = vec![[1.0, 0.0, 0.0, 0.0]];
    for k in 0..sizes.len() {
        stop::check()?;
        let (cur, next, w, gk, fk) = (&states[k], &states[k + 1], windows[k], g[k], f[k]);
        let mut acc = alloc::filled(next.p.len(), [0.0; 4], BUFFERS)?;
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
        })?;
        cur_acc = acc;
    }
    let [p, sg, sf, sgf] = cur_acc[0];
    Ok(sgf / p - (sg / p) * (sf / p))
}

/// For the counts `x_k` of categories of `sizes` (summing to `total`) among `draws`
/// samples drawn at random, and a function `phi[k]` of each count given on the window of
/// its distribution (`windows[k]`): `E[Σ_{l≠k} φ_l(x_l) | x_k = x]` for each `k` and each
/// `x` of its window. [`Error::Stopped`] when stopped.
pub(super) fn others(
    sizes: &[u64],
    total: u64,
    draws: u64,
    windows: &[&Window],
    phi: &[&[f64]],
) -> Result<Vec<Vec<f64>>, Error> {
    let k_all = sizes.len();
    let (states, pops) = chain(sizes, total, draws)?;
    let mut q = Vec::new();
    // Forward: the probability of each state and the expected sum of the φ so far on it.
    let mut alpha: Vec<Vec<f64>> = alloc::with_capacity(k_all, BUFFERS)?;
    let mut sums: Vec<Vec<f64>> = alloc::with_capacity(k_all, BUFFERS)?;
    alpha.push(vec![1.0]);
    sums.push(vec![0.0]);
    for k in 0..k_all {
        stop::check()?;
        let (cur, next, w, ph) = (&states[k], &states[k + 1], windows[k], phi[k]);
        let mut a_next = alloc::filled(next.p.len(), 0.0, BUFFERS)?;
        let mut s_next = alloc::filled(next.p.len(), 0.0, BUFFERS)?;
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
        })?;
        if k + 1 < k_all {
            alpha.push(a_next);
            sums.push(s_next);
        }
    }
    // Backward: the expected sum of the φ still to come from each state, and, category by
    // category, the expected sum of the others' φ jointly with each count.
    let mut out = alloc::filled(k_all, Vec::new(), BUFFERS)?;
    let mut beta_next = alloc::filled(states[k_all].p.len(), 0.0, BUFFERS)?;
    for k in (0..k_all).rev() {
        stop::check()?;
        let (cur, next, w, ph) = (&states[k], &states[k + 1], windows[k], phi[k]);
        let mut beta = alloc::filled(cur.p.len(), 0.0, BUFFERS)?;
        let mut num = alloc::filled(w.p.len(), 0.0, BUFFERS)?;
        let mut den = alloc::filled(w.p.len(), 0.0, BUFFERS)?;
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
        })?;
        // In place: the numerators become the expectations.
        for (u, &v) in num.iter_mut().zip(&den) {
            *u = if v > 0.0 { *u / v } else { 0.0 };
        }
        out[k] = num;
        beta_next = beta;
    }
    Ok(out)
}

/// The work of [`covariance`] or [`others`] on categories of `sizes` (each with its number)
/// among `draws` of `total`: each category's window of states times its own window's width,
/// from their standard deviations.
pub(super) fn cost(sizes: &[(u64, u64)], total: u64, draws: u64) -> f64 {
    let (nf, d) = (total as f64, draws as f64);
    let fpc = d * (nf - d) / (nf - 1.0).max(1.0);
    let width = |q: f64| 17.6 * (fpc * q * (1.0 - q)).max(0.0).sqrt() + 1.0;
    let mut prefix = 0u64;
    let mut work = 0.0;
    for &(c, k) in sizes {
        let wx = width(c as f64 / nf);
        for _ in 0..k {
            prefix += c;
            work += width(prefix as f64 / nf) * (2.0 * wx + 1.0);
        }
    }
    work
}
