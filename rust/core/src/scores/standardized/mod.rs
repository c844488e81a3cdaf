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
//! Both conditional expectations are of one kind: the counts of a column over the rows (or
//! of a row over the columns) are a multivariate hypergeometric vector. Two methods give
//! them, and each pass takes the one its cost estimate says is less work:
//!
//! - [`chain`]: its partial sums `x_1 + … + x_k` are a Markov chain, walked forward and
//!   backward. Its cost is each count's window times its partial sums' (the square of the
//!   number of standard deviations kept, times `n`): small tables, narrow distributions.
//! - [`fourier`]: the same sums from the counts' generating functions at about 30
//!   frequencies, categories of one size together: each window's width times 30, so the
//!   cost grows as `√n` and not with the number of equal-sized categories.
//!
//! Every distribution is kept where its probabilities are at least [`window::CUT`] of its
//! mode's (about 8.8 standard deviations on each side of its mean for a wide one): the
//! mass left out of each is of the order of 1e-17. The variance agrees with every table
//! of small margins to 1e-12 and with Romano et al.'s sum over pairs of cells (computed on
//! every probability) to 4e-13 at n = 300, by either method; the two methods agree to
//! 1e-14 on shapes up to 5e4 samples (the tests below).

mod chain;
mod fourier;
mod window;

use crate::alloc;
use crate::emi::bd0;
#[cfg(test)]
use crate::emi::size_counts;
use crate::error::Error;
use crate::pool;
use crate::stop;
use window::{window, Window, BUFFERS};

/// How the passes over a row's or a column's counts are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))] // the tests force either method
pub(crate) enum Method {
    /// Over the partial sums, one draw at a time ([`chain`]).
    Chain,
    /// From the generating functions at a few frequencies ([`fourier`]).
    Fourier,
    /// Whichever [`chain::cost`] and [`fourier::cost`] say is less work, pass by pass.
    Cheaper,
}

impl Method {
    fn fourier(self, sizes: &[(u64, u64)], total: u64, draws: u64) -> bool {
        match self {
            Method::Chain => false,
            Method::Fourier => true,
            Method::Cheaper => {
                fourier::cost(sizes, total, draws) < chain::cost(sizes, total, draws)
            }
        }
    }
}

/// `f` of `0..k`, in order, on the pool's threads (on this thread where there is no pool);
/// the first error if any.
fn map_all<T: Send>(
    k: usize,
    f: impl Fn(usize) -> Result<T, Error> + Sync + Send,
) -> Result<Vec<T>, Error> {
    let mut out: Vec<Option<Result<T, Error>>> = alloc::with_capacity(k, BUFFERS)?;
    out.resize_with(k, || None);
    pool::fill(&mut out, |i| Some(f(i)));
    let mut done = alloc::with_capacity(k, BUFFERS)?;
    for x in out.into_iter().flatten() {
        done.push(x?);
    }
    Ok(done)
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
/// where it is constant ([`constant_mutual_info`]). [`Error::Stopped`] when stopped,
/// [`Error::OutOfMemory`] when its distributions are refused.
pub(crate) fn mutual_info_variance(
    ra: &[(u64, u64)],
    cb: &[(u64, u64)],
    n: u64,
) -> Result<f64, Error> {
    variance_by(ra, cb, n, Method::Cheaper)
}

/// [`mutual_info_variance`] with its passes taken by `method`.
pub(crate) fn variance_by(
    ra: &[(u64, u64)],
    cb: &[(u64, u64)],
    n: u64,
    method: Method,
) -> Result<f64, Error> {
    if n == 0 || constant_mutual_info(ra, cb, n) {
        return Ok(0.0);
    }
    let (na, nb) = (ra.len(), cb.len());
    let nf = n as f64;
    // Each pair of a row size and a column size: its count's window and g on it, centred.
    let cells: Vec<(Window, Vec<f64>)> = map_all(na * nb, |p| {
        // Each a window as wide as its count's spread (35,000 terms at n = 8e9).
        stop::check()?;
        let (a, b) = (ra[p / nb].0, cb[p % nb].0);
        let w = window(b, a, n)?;
        let e = a as f64 * (b as f64 / nf);
        let g_at = |x: u64| {
            if x == 0 {
                e
            } else {
                let xf = x as f64;
                bd0(xf, e, xf - e)
            }
        };
        let mut g = alloc::collect((0..w.p.len()).map(|o| g_at(w.lo + o as u64)), BUFFERS)?;
        let mean: f64 = g.iter().zip(&w.p).map(|(v, q)| v * q).sum();
        g.iter_mut().for_each(|v| *v -= mean);
        Ok((w, g))
    })?;
    let cell = |i: usize, j: usize| &cells[i * nb + j];
    // Every row (column), as the index of its distinct size.
    let expand = |d: &[(u64, u64)]| -> Result<Vec<usize>, Error> {
        let all = d.iter().map(|&(_, c)| c as usize).sum();
        let mut v = alloc::with_capacity(all, BUFFERS)?;
        for (i, &(_, c)) in d.iter().enumerate() {
            v.extend(std::iter::repeat_n(i, c as usize));
        }
        Ok(v)
    };
    let (row_of, col_of) = (expand(ra)?, expand(cb)?);
    let row_sizes = alloc::collect(row_of.iter().map(|&i| ra[i].0), BUFFERS)?;
    let col_sizes = alloc::collect(col_of.iter().map(|&j| cb[j].0), BUFFERS)?;
    // The first row of each distinct size.
    let mut first_row = alloc::filled(na, 0, BUFFERS)?;
    for (pos, &i) in row_of.iter().enumerate().rev() {
        first_row[i] = pos;
    }
    // By columns: E[Σ_{k≠i} g_kj | n_ij = x], for each distinct column size j and row size i.
    let h: Vec<Vec<Vec<f64>>> = map_all(nb, |j| {
        if method.fourier(ra, n, cb[j].0) {
            let windows = alloc::collect((0..na).map(|i| &cell(i, j).0), BUFFERS)?;
            let phi = alloc::collect((0..na).map(|i| cell(i, j).1.as_slice()), BUFFERS)?;
            return fourier::others(ra, n, cb[j].0, &windows, &phi);
        }
        let windows = alloc::collect(row_of.iter().map(|&i| &cell(i, j).0), BUFFERS)?;
        let phi = alloc::collect(row_of.iter().map(|&i| cell(i, j).1.as_slice()), BUFFERS)?;
        let mut all = chain::others(&row_sizes, n, cb[j].0, &windows, &phi)?;
        // Each distinct size's first row, moved out (the rest are dropped).
        let firsts = first_row.iter().map(|&pos| std::mem::take(&mut all[pos]));
        alloc::collect(firsts, BUFFERS)
    })?;
    // f = g + h, centred, for each pair of sizes.
    let mut f: Vec<Vec<f64>> = alloc::with_capacity(na * nb, BUFFERS)?;
    for p in 0..na * nb {
        let (i, j) = (p / nb, p % nb);
        let (w, g) = cell(i, j);
        let mut v = alloc::collect(g.iter().zip(&h[j][i]).map(|(x, y)| x + y), BUFFERS)?;
        let mean: f64 = v.iter().zip(&w.p).map(|(x, q)| x * q).sum();
        v.iter_mut().for_each(|x| *x -= mean);
        f.push(v);
    }
    // By rows: Cov(A_i, Σ_j f_ij) for each distinct row size, times its number.
    let by_rows: Vec<f64> = map_all(na, |i| {
        if method.fourier(cb, n, ra[i].0) {
            let windows = alloc::collect((0..nb).map(|j| &cell(i, j).0), BUFFERS)?;
            let phi = alloc::collect((0..nb).map(|j| f[i * nb + j].as_slice()), BUFFERS)?;
            let g = alloc::collect((0..nb).map(|j| cell(i, j).1.as_slice()), BUFFERS)?;
            let cov = fourier::covariance(cb, n, ra[i].0, &windows, (&g, &phi))?;
            return Ok(ra[i].1 as f64 * cov);
        }
        let windows = alloc::collect(col_of.iter().map(|&j| &cell(i, j).0), BUFFERS)?;
        let phi = alloc::collect(col_of.iter().map(|&j| f[i * nb + j].as_slice()), BUFFERS)?;
        let g = alloc::collect(col_of.iter().map(|&j| cell(i, j).1.as_slice()), BUFFERS)?;
        let cov = chain::covariance(&col_sizes, n, ra[i].0, &windows, (&g, &phi))?;
        Ok(ra[i].1 as f64 * cov)
    })?;
    let mut var = 0.0;
    for cov in by_rows {
        var += cov;
    }
    Ok((var / (nf * nf)).max(0.0))
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
            for method in [Method::Chain, Method::Fourier] {
                let got = of_sums_by(rows, cols, n, method).unwrap();
                assert!(
                    (got - var).abs() <= 1e-12 * var,
                    "{method:?} {rows:?} {cols:?}: {got} against {var}"
                );
            }
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
    fn refused_distributions_say_so_and_the_next_call_is_right() {
        let (rows, cols) = (
            size_counts(&[40, 25, 15]).unwrap(),
            size_counts(&[30, 20, 20, 10]).unwrap(),
        );
        for method in [Method::Chain, Method::Fourier] {
            let got = crate::alloc::refusing_from(64, || variance_by(&rows, &cols, 80, method));
            assert!(
                matches!(got, Err(Error::OutOfMemory { what, .. }) if what.contains("standardized")),
                "{got:?}"
            );
            let want = by_pairs_of_cells(&[40, 25, 15], &[30, 20, 20, 10], 80);
            let got = variance_by(&rows, &cols, 80, method).unwrap();
            assert!((got - want).abs() <= 1e-10 * want, "{got} against {want}");
        }
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
            for method in [Method::Chain, Method::Fourier] {
                let got = of_sums_by(&rows, &cols, n, method).unwrap();
                assert!(
                    (got - want).abs() <= 1e-10 * want,
                    "{method:?} {rows:?} {cols:?}: {got} against {want}"
                );
            }
        }
    }

    fn of_sums(rows: &[u64], cols: &[u64], n: u64) -> Result<f64, Error> {
        let (rows, cols) = (size_counts(rows)?, size_counts(cols)?);
        mutual_info_variance(&rows, &cols, n)
    }

    fn of_sums_by(rows: &[u64], cols: &[u64], n: u64, method: Method) -> Result<f64, Error> {
        variance_by(&size_counts(rows)?, &size_counts(cols)?, n, method)
    }

    /// Sizes summing to `n`: `k` parts from a seeded generator, spread as `spread` says.
    fn sizes(n: u64, k: usize, seed: u64, spread: u32) -> Vec<u64> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let weights: Vec<u64> = (0..k).map(|_| 1 + next() % (1u64 << spread)).collect();
        let total: u64 = weights.iter().sum();
        let mut out: Vec<u64> = weights
            .iter()
            .map(|w| (w * (n - k as u64) / total) + 1)
            .collect();
        let short = n - out.iter().sum::<u64>();
        out[0] += short;
        out
    }

    #[test]
    fn both_methods_agree_on_wide_and_narrow_shapes() {
        // Shapes where each method is the cheaper one, and where a category holds most
        // samples, many share one size, or hold a handful of samples.
        let mut cases: Vec<(Vec<u64>, Vec<u64>)> = vec![
            (sizes(20_000, 6, 1, 4), sizes(20_000, 9, 2, 3)),
            (sizes(50_000, 12, 3, 6), sizes(50_000, 20, 4, 1)),
            (
                vec![45_000, 3_000, 1_500, 400, 90, 10],
                sizes(50_000, 7, 5, 2),
            ),
            (sizes(30_000, 5, 6, 2), vec![100; 300]),
            (
                sizes(30_000, 4, 7, 0),
                [vec![20; 1000], vec![13; 500], vec![3_500]].concat(),
            ),
            (vec![2, 3, 5, 7, 9_983], sizes(10_000, 30, 8, 8)),
        ];
        cases.push((cases[0].1.clone(), cases[0].0.clone()));
        for (rows, cols) in &cases {
            let n: u64 = rows.iter().sum();
            assert_eq!(n, cols.iter().sum::<u64>());
            let chain = of_sums_by(rows, cols, n, Method::Chain).unwrap();
            let fourier = of_sums_by(rows, cols, n, Method::Fourier).unwrap();
            assert!(
                (chain - fourier).abs() <= 1e-13 * chain,
                "{} rows, {} columns: {chain} against {fourier}",
                rows.len(),
                cols.len()
            );
        }
    }

    #[test]
    fn constant_cases_are_zero_and_others_are_not() {
        assert_eq!(of_sums(&[4, 1], &[1, 1, 1, 1, 1], 5), Ok(0.0));
        assert_eq!(of_sums(&[5, 1], &[2, 2, 2], 6), Ok(0.0));
        assert_eq!(of_sums(&[2, 2, 2], &[1, 5], 6), Ok(0.0));
        assert!(of_sums(&[5, 1], &[2, 4], 6).unwrap() > 0.0);
    }
}
