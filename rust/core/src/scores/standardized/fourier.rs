//! The same sums as [`super::chain`], from the counts' generating functions at a few
//! frequencies: the cost no longer grows with the partial sums' spread, and categories of
//! one size are taken together.
//!
//! The counts of categories of sizes `c_k` among `d` samples drawn from `N` are independent
//! binomials `Bin(c_k, p)` conditioned on their sum being `d`, for any `p` (here `d / N`,
//! which centres the sum on `d`). So with `B_k(z) = Σ_x P(Bin(c_k, p) = x) z^x`, and
//! `G_k(z)` the same sum weighted by `g_k(x)`:
//!
//! - `E[Σ_k g_k(x_k)] = [z^d] Σ_k G_k Π_{l≠k} B_l / [z^d] Π_l B_l`, and likewise the
//!   expected product of two such sums ([`covariance`]) and the conditional expectations
//!   given one count (`[z^{d-x}]` of the product without that category: [`others`]);
//! - the products are carried at `z = e^{iθ}` like the chain's sums on its states (a
//!   convolution there is a product here), and `[z^e]` taken back by a discrete Fourier
//!   sum over `θ = 2πm/M`.
//!
//! Two things are left out, each below 1e-20 of the sums: the mass of the product beyond
//! `M/2` of its centre (Bernstein's bound gives `M`), and the frequencies past `θ_max`, where
//! `|Π_l B_l(e^{iθ})| ≤ (1 - 2p(1-p)(1 - cos θ))^{N'/2}` (with `N'` the samples outside the
//! largest category) has fallen below it. Each binomial is kept on the window where its
//! probabilities reach 1e-20 of its sum (Bernstein again), widened to the hypergeometric
//! window of [`super::window`] on which the functions are given (they are 0 outside it).
//! About `9.6 M / (2π σ) ≈ 30` frequencies are needed whatever the spread `σ`, so a
//! category costs its window's width times 30, where the chain's cost is that width times
//! its partial sums' (tens of thousands at 1e7 samples).

use std::f64::consts::PI;
use std::ops::{Add, Mul};

use super::window::{Window, BUFFERS};
use crate::alloc;
use crate::error::Error;
use crate::stop;

/// `ln` of the bound on each left-out part, relative to the sums.
const LN_EPS: f64 = -46.0;

/// A complex number.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct C {
    re: f64,
    im: f64,
}

const ONE: C = C { re: 1.0, im: 0.0 };

/// At one frequency, a block of categories' product of transforms and its sum of `Φ` times
/// the others' product.
type Block = (C, C);

impl C {
    fn cis(a: f64) -> C {
        let (im, re) = a.sin_cos();
        C { re, im }
    }

    fn pow(self, mut k: u64) -> C {
        let (mut out, mut base) = (ONE, self);
        while k > 0 {
            if k & 1 == 1 {
                out = out * base;
            }
            base = base * base;
            k >>= 1;
        }
        out
    }
}

impl Add for C {
    type Output = C;
    fn add(self, o: C) -> C {
        C {
            re: self.re + o.re,
            im: self.im + o.im,
        }
    }
}

impl Mul for C {
    type Output = C;
    fn mul(self, o: C) -> C {
        C {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
}

impl Mul<f64> for C {
    type Output = C;
    fn mul(self, s: f64) -> C {
        C {
            re: self.re * s,
            im: self.im * s,
        }
    }
}

/// Phases `e^{iθ(start + o)}` are taken from a direct `sin_cos` every `BLOCK` steps times a
/// table of `e^{iθr}`, `r < BLOCK`: two roundings each, however long the window.
const BLOCK: usize = 32;

/// The frequencies, their weights in the inverse sum and the tilt.
struct Plan {
    /// `θ_m = 2πm / M` for `m = 0..=m_max`.
    thetas: Vec<f64>,
    /// `e^{iθ_m r}` for `r < BLOCK`, frequency by frequency.
    table: Vec<[C; BLOCK]>,
    /// `1/M` for `m = 0` (and `M/2`), `2/M` for the others (their conjugates).
    weights: Vec<f64>,
}

/// Half the width beyond which a sum of independent 0/1 draws of variance `var` has less
/// than `e^LN_EPS` of its mass, by Bernstein's inequality:
/// `P(|X - EX| ≥ t) ≤ 2 exp(-t² / (2 (var + t/3)))`.
fn spread(var: f64) -> f64 {
    let a = -LN_EPS + std::f64::consts::LN_2;
    // t² - (2a/3) t - 2a var = 0.
    a / 3.0 + (a * a / 9.0 + 2.0 * a * var).sqrt()
}

/// The length `M` of the inverse sum and the highest frequency `m_max` kept, for categories
/// of `sizes` (each with its number) among `draws` of `total`, their product having
/// `support` terms.
fn frequencies(sizes: &[(u64, u64)], total: u64, draws: u64, support: u64) -> (u64, u64) {
    let p = draws as f64 / total as f64;
    let pq = p * (1.0 - p);
    let half = spread(total as f64 * pq).ceil() as u64;
    let len = support.min(2 * half + 8).max(1);
    let largest = sizes.iter().map(|&(c, _)| c).max().unwrap_or(0);
    let rest = (total - largest) as f64;
    // |Π B(e^{iθ})| ≤ (1 - 2pq(1 - cos θ))^{rest/2}: below e^LN_EPS once
    // 1 - cos θ ≥ (1 - e^{2 LN_EPS / rest}) / (2pq).
    let need = -(2.0 * LN_EPS / rest).exp_m1() / (2.0 * pq);
    let all = len / 2;
    let m_max = if rest == 0.0 || need >= 2.0 || !need.is_finite() {
        all
    } else {
        let theta = (1.0 - need).acos();
        ((theta * len as f64 / (2.0 * PI)).ceil() as u64 + 1).min(all)
    };
    (len, m_max)
}

/// The work of [`covariance`] or [`others`] on these categories, in the units of
/// [`super::chain::cost`]: each window's width times the frequencies, a term of which
/// takes about a third of the chain's (timed on 33 x 60 tables of 1e3 to 1e5 samples).
pub(super) fn cost(sizes: &[(u64, u64)], total: u64, draws: u64) -> f64 {
    let p = draws as f64 / total as f64;
    let width = |c: u64| (2.0 * spread(c as f64 * p * (1.0 - p))).ceil() as u64 + 1;
    let support = sizes
        .iter()
        .map(|&(c, k)| width(c).saturating_mul(k))
        .fold(1u64, u64::saturating_add);
    let (_, m_max) = frequencies(sizes, total, draws, support);
    (m_max + 1) as f64 * sizes.iter().map(|&(c, _)| width(c)).sum::<u64>() as f64 / 3.0
}

impl Plan {
    fn new(sizes: &[(u64, u64)], total: u64, draws: u64, support: u64) -> Result<Plan, Error> {
        let (len, m_max) = frequencies(sizes, total, draws, support);
        let lf = len as f64;
        let ms = || 0..m_max as usize + 1;
        let thetas = alloc::collect(ms().map(|m| 2.0 * PI * m as f64 / lf), BUFFERS)?;
        let weight = |m: usize| {
            if m == 0 || 2 * m as u64 == len {
                1.0 / lf
            } else {
                2.0 / lf
            }
        };
        let weights = alloc::collect(ms().map(weight), BUFFERS)?;
        let phases = |&t: &f64| std::array::from_fn(|r| C::cis(t * r as f64));
        let table = alloc::collect(thetas.iter().map(phases), BUFFERS)?;
        Ok(Plan {
            thetas,
            table,
            weights,
        })
    }

    fn len(&self) -> usize {
        self.thetas.len()
    }

    /// `visit(o, e^{iθ_m (start + o)})` for `o < n`.
    fn phases(&self, m: usize, start: i64, n: usize, mut visit: impl FnMut(usize, C)) {
        let (theta, table) = (self.thetas[m], &self.table[m]);
        for (q, o0) in (0..n).step_by(BLOCK).enumerate() {
            let base = C::cis(theta * (start + (q * BLOCK) as i64) as f64);
            for (r, &t) in table.iter().enumerate().take(n - o0) {
                visit(o0 + r, base * t);
            }
        }
    }

    /// `[z^e]` of the sums `xs` (one a frequency), `e` counted from the sums' centre.
    fn coefficient(&self, xs: &[C], e: i64) -> f64 {
        xs.iter()
            .zip(&self.thetas)
            .zip(&self.weights)
            .map(|((x, &t), &w)| w * (*x * C::cis(-t * e as f64)).re)
            .sum()
    }
}

/// A category's binomial probabilities (up to a common factor, summing to 1) on its window,
/// which covers its hypergeometric window `hyp`.
struct Binomial {
    lo: u64,
    /// The centre its phases are counted from: `round(c p)`.
    mid: i64,
    b: Vec<f64>,
}

impl Binomial {
    fn new(size: u64, p: f64, hyp: &Window) -> Result<Binomial, Error> {
        let c = size as f64;
        let mean = c * p;
        let half = spread(mean * (1.0 - p));
        let lo = ((mean - half).floor().max(0.0) as u64).min(hyp.lo);
        let hi = ((mean + half).ceil() as u64).min(size).max(hyp.hi());
        let mode = (((size + 1) as f64 * p).floor() as u64).clamp(lo, hi);
        let odds = p / (1.0 - p);
        let mut b = alloc::filled((hi - lo + 1) as usize, 0.0, BUFFERS)?;
        let at = |x: u64| (x - lo) as usize;
        b[at(mode)] = 1.0;
        let mut v = 1.0;
        for x in mode..hi {
            let xf = x as f64;
            v *= (c - xf) / (xf + 1.0) * odds;
            b[at(x + 1)] = v;
        }
        let mut v = 1.0;
        for x in (lo + 1..=mode).rev() {
            let xf = x as f64;
            v *= xf / (c - xf + 1.0) / odds;
            b[at(x - 1)] = v;
        }
        let sum: f64 = b.iter().sum();
        b.iter_mut().for_each(|v| *v /= sum);
        Ok(Binomial {
            lo,
            mid: mean.round() as i64,
            b,
        })
    }

    /// `values` (given on `hyp`) times the probabilities, 0 outside `hyp`.
    fn weigh(&self, hyp: &Window, values: impl Iterator<Item = f64>) -> Result<Vec<f64>, Error> {
        let mut out = alloc::filled(self.b.len(), 0.0, BUFFERS)?;
        let off = (hyp.lo - self.lo) as usize;
        for ((o, v), b) in out[off..].iter_mut().zip(values).zip(&self.b[off..]) {
            *o = v * b;
        }
        Ok(out)
    }

    /// The transforms of `w` (each on this window) at the plan's frequencies.
    fn transform<const K: usize>(&self, plan: &Plan, w: [&[f64]; K]) -> Result<Vec<[C; K]>, Error> {
        let start = self.lo as i64 - self.mid;
        let at = |m: usize| {
            let mut acc = [C::default(); K];
            plan.phases(m, start, self.b.len(), |o, z| {
                for (a, wk) in acc.iter_mut().zip(&w) {
                    *a = *a + z * wk[o];
                }
            });
            acc
        };
        alloc::collect((0..plan.len()).map(at), BUFFERS)
    }
}

/// Each category's binomial on its window, and the plan of the frequencies for their product.
fn prepare(
    sizes: &[(u64, u64)],
    total: u64,
    draws: u64,
    windows: &[&Window],
) -> Result<(Vec<Binomial>, Plan), Error> {
    let p = draws as f64 / total as f64;
    let mut cats = alloc::with_capacity(sizes.len(), BUFFERS)?;
    for (&(c, _), w) in sizes.iter().zip(windows) {
        cats.push(Binomial::new(c, p, w)?);
    }
    // The widest the product can reach: the number of its terms.
    let support = cats
        .iter()
        .zip(sizes)
        .map(|(c, &(_, k))| (c.b.len() as u64 - 1).saturating_mul(k))
        .fold(1u64, u64::saturating_add);
    let plan = Plan::new(sizes, total, draws, support)?;
    Ok((cats, plan))
}

/// See [`super::chain::covariance`]: the covariance of `Σ g(x)` and `Σ f(x)` over the counts
/// of categories of `sizes` (each with its number), `g[k]`, `f[k]` given on `windows[k]`.
/// [`Error::Stopped`] when stopped.
pub(super) fn covariance(
    sizes: &[(u64, u64)],
    total: u64,
    draws: u64,
    windows: &[&Window],
    (g, f): (&[&[f64]], &[&[f64]]),
) -> Result<f64, Error> {
    let (cats, plan) = prepare(sizes, total, draws, windows)?;
    // Probability, Σg, Σf and Σg Σf at each frequency.
    let start = [ONE, C::default(), C::default(), C::default()];
    let mut acc = alloc::filled(plan.len(), start, BUFFERS)?;
    let mut mid = 0i64;
    for (k, cat) in cats.iter().enumerate() {
        stop::check()?;
        let w = windows[k];
        let gb = cat.weigh(w, g[k].iter().copied())?;
        let fb = cat.weigh(w, f[k].iter().copied())?;
        let gfb = cat.weigh(w, g[k].iter().zip(f[k]).map(|(a, b)| a * b))?;
        let count = sizes[k].1;
        let cf = count as f64;
        mid += cat.mid * count as i64;
        for (a, &[b, gt, ft, gft]) in acc
            .iter_mut()
            .zip(&cat.transform(&plan, [&cat.b, &gb, &fb, &gfb])?)
        {
            // `count` categories at once: B^c, c G B^{c-1}, c F B^{c-1},
            // c GF B^{c-1} + c(c-1) G F B^{c-2}.
            let b2 = if count >= 2 { b.pow(count - 2) } else { ONE };
            let b1 = if count >= 2 { b2 * b } else { ONE };
            let bc = b1 * b;
            let (sg, sf) = (gt * b1 * cf, ft * b1 * cf);
            let sgf = gft * b1 * cf + gt * ft * b2 * (cf * (cf - 1.0));
            let [p0, g0, f0, gf0] = *a;
            *a = [
                p0 * bc,
                g0 * bc + p0 * sg,
                f0 * bc + p0 * sf,
                gf0 * bc + g0 * sf + f0 * sg + p0 * sgf,
            ];
        }
    }
    let e = draws as i64 - mid;
    let coef = |i: usize| -> Result<f64, Error> {
        let column = alloc::collect(acc.iter().map(|a| a[i]), BUFFERS)?;
        Ok(plan.coefficient(&column, e))
    };
    let z = coef(0)?;
    let (sg, sf, sgf) = (coef(1)? / z, coef(2)? / z, coef(3)? / z);
    Ok(sgf - sg * sf)
}

/// See [`super::chain::others`]: for one category of each size (of `sizes`, each with its
/// number), `E[Σ_{l≠k} φ_l(x_l) | x_k = x]` at each `x` of its window `windows[k]`, `phi[k]`
/// given there. [`Error::Stopped`] when stopped.
pub(super) fn others(
    sizes: &[(u64, u64)],
    total: u64,
    draws: u64,
    windows: &[&Window],
    phi: &[&[f64]],
) -> Result<Vec<Vec<f64>>, Error> {
    let (cats, plan) = prepare(sizes, total, draws, windows)?;
    let nf = plan.len();
    // Each size's block of `count` categories and of one fewer, as (Π B, Σ Φ Π_{others} B).
    let blocks = |b: C, t: C, count: u64| -> Block {
        if count == 0 {
            return (ONE, C::default());
        }
        let b1 = b.pow(count - 1);
        (b1 * b, t * b1 * count as f64)
    };
    let join = |(p0, s0): Block, (p1, s1): Block| (p0 * p1, s0 * p1 + p0 * s1);
    let mut all = alloc::with_capacity(cats.len(), BUFFERS)?;
    let mut fewer = alloc::with_capacity(cats.len(), BUFFERS)?;
    let mut mid = 0i64;
    for (k, cat) in cats.iter().enumerate() {
        stop::check()?;
        let phib = cat.weigh(windows[k], phi[k].iter().copied())?;
        let count = sizes[k].1;
        mid += cat.mid * count as i64;
        let transforms = cat.transform(&plan, [&cat.b, &phib])?;
        let block = |count: u64| move |&[b, t]: &[C; 2]| blocks(b, t, count);
        all.push(alloc::collect(
            transforms.iter().map(block(count)),
            BUFFERS,
        )?);
        fewer.push(alloc::collect(
            transforms.iter().map(block(count - 1)),
            BUFFERS,
        )?);
    }
    // Products of the blocks before and after each size: after the last, none; then back
    // to the first, each from the one after it.
    let empty = || alloc::filled(nf, (ONE, C::default()), BUFFERS);
    let mut after: Vec<Vec<Block>> = alloc::with_capacity(cats.len() + 1, BUFFERS)?;
    after.push(empty()?);
    for k in (0..cats.len()).rev() {
        let next = &after[after.len() - 1];
        let joined = next.iter().zip(&all[k]).map(|(&x, &y)| join(x, y));
        let joined = alloc::collect(joined, BUFFERS)?;
        after.push(joined);
    }
    after.reverse();
    let z = plan.coefficient(
        &alloc::collect(after[0].iter().map(|x| x.0), BUFFERS)?,
        draws as i64 - mid,
    );
    let mut before = empty()?;
    let mut out = alloc::with_capacity(cats.len(), BUFFERS)?;
    for (k, cat) in cats.iter().enumerate() {
        stop::check()?;
        // The others' Σ Φ Π B, centred on mid less this category's.
        let s = (0..nf).map(|m| join(join(before[m], fewer[k][m]), after[k + 1][m]).1);
        let s = alloc::collect(s, BUFFERS)?;
        let w = windows[k];
        let rest_mid = mid - cat.mid;
        // [z^{d-x}] for x = w.lo + o: e = d - w.lo - o - rest_mid, so the phase
        // e^{-iθ e} = e^{iθ (o - (d - w.lo - rest_mid))}.
        let start = -(draws as i64 - w.lo as i64 - rest_mid);
        let mut num = alloc::filled(w.p.len(), 0.0, BUFFERS)?;
        for (m, (&x, &wt)) in s.iter().zip(&plan.weights).enumerate() {
            plan.phases(m, start, num.len(), |o, ph| num[o] += wt * (x * ph).re);
        }
        // The probability of the others' sum being d - x is the hypergeometric P(x) times
        // [z^d] Π B / b(x), exactly, where its transform would be rounding at the tails.
        let off = (w.lo - cat.lo) as usize;
        for ((u, &q), &b) in num.iter_mut().zip(&w.p).zip(&cat.b[off..]) {
            *u = *u * b / (q * z);
        }
        out.push(num);
        for (x, &y) in before.iter_mut().zip(&all[k]) {
            *x = join(*x, y);
        }
    }
    Ok(out)
}
