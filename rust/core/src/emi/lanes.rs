//! The sums of up to eight pairs side by side, a vector lane each, for pairs whose
//! probabilities step by one: the same terms as [`pair_walk`], without branches. The
//! expected mutual information of a 33 x 60 table of 1e6 samples, on one thread: 1.33 ms,
//! against 3.02 ms with each pair walked alone.

use crate::cpu::{self, Build, Kernel};
use crate::numeric::{ln_small, Sum, LN_SMALL};

use super::strided::{STOP, STRIDE_SD};
use super::walk::{pair_walk, Start};

/// Pairs summed side by side by [`emi_lanes`], one to a lane.
pub(super) const LANES: usize = 8;

/// How far [`emi_lanes`] moves a pair's start from its mode, at most.
const REBASE_STEPS: u64 = 16;

/// Terms of bd0's series in [`emi_lanes`], where |v| < 1/3: the next would be below
/// 2^-60 of the series, and the series at most a twelfth of bd0.
const SERIES: usize = 18;

/// 1 / (2j + 1) for j in 1..=[`SERIES`].
const SERIES_COEF: [f64; SERIES] = {
    let mut r = [0.0; SERIES];
    let mut j = 0;
    while j < SERIES {
        r[j] = 1.0 / (2 * j + 3) as f64;
        j += 1;
    }
    r
};

/// Whether [`emi_lanes`] can sum this pair: its probabilities step by one (a standard
/// deviation below [`STRIDE_SD`], see [`pair_walk`]) and n k - a b is exact in doubles.
pub(super) fn fits_lanes(st: &Start) -> bool {
    st.doubles && st.sd < STRIDE_SD
}

/// Up to [`LANES`] pairs' starts, a field to an array, for [`emi_lanes`]. The counts
/// are exact in doubles (below 2^53).
#[derive(Default)]
struct LaneStarts {
    /// The lanes holding a pair.
    live: [bool; LANES],
    m: [f64; LANES],
    p_m: [f64; LANES],
    lo: [f64; LANES],
    hi: [f64; LANES],
    /// a - m and b - m.
    a_m: [f64; LANES],
    b_m: [f64; LANES],
    /// n - a - b + m, the 2x2 table's fourth cell at the mode.
    fourth_m: [f64; LANES],
    mu: [f64; LANES],
    ln_mu: [f64; LANES],
    abf: [f64; LANES],
    factor: [f64; LANES],
    /// The stride of every lane's terms: the smallest of theirs.
    h: u64,
}

/// [`pair_walk`]'s sums of up to [`LANES`] pairs of one table (`starts`, each passing
/// [`fits_lanes`]), side by side: each stride takes every lane's ratios and next term
/// without branches, and each lane stops adding at its own tail bound. The terms are
/// [`pair_walk`]'s but for bd0 between a tenth and half of the mean away from it, which
/// comes from the series here ([`SERIES`] terms) and from ln1p there;
/// the sums are added one term at a time, on the lanes' common stride (at most each
/// one's own: the Poisson summation bound holds for any stride up to it). Additions,
/// multiplications, divisions and comparisons only, which vectors round as scalars do:
/// the same sums on every CPU. A lane that would need ln k past the [`ln_small`] table
/// is summed again alone.
pub(super) fn emi_lanes(starts: &[Start]) -> [f64; LANES] {
    let (w, same) = lane_starts(starts);
    let nf = starts.first().map_or(1.0, |st| st.n as f64);
    let ln: &[f64; LN_SMALL as usize] = ln_small().try_into().expect("LN_SMALL entries");
    let (mut out, past_table) = if same {
        cpu::run_best(&[Build::Avx512Dq], Lanes::<true>(&w, nf, ln))
    } else {
        cpu::run_best(&[Build::Avx512Dq], Lanes::<false>(&w, nf, ln))
    };
    for (i, st) in starts.iter().enumerate() {
        if past_table[i] {
            out[i] = pair_walk(st);
        }
    }
    out
}

/// The lanes of [`emi_lanes`] and whether they all start from the same count.
fn lane_starts(starts: &[Start]) -> (LaneStarts, bool) {
    assert!(starts.len() <= LANES);
    let mut w = LaneStarts::default();
    let n = starts.first().map_or(1, |st| st.n);
    for (i, st) in starts.iter().enumerate() {
        debug_assert!(fits_lanes(st) && st.n == n);
        w.live[i] = true;
        w.m[i] = st.m as f64;
        w.p_m[i] = st.p_m;
        w.lo[i] = st.lo as f64;
        w.hi[i] = st.hi as f64;
        w.a_m[i] = (st.a - st.m) as f64;
        w.b_m[i] = (st.b - st.m) as f64;
        w.fourth_m[i] = ((st.n - st.a) - (st.b - st.m)) as f64;
        w.mu[i] = st.mu;
        w.ln_mu[i] = st.ln_mu;
        w.abf[i] = st.abf;
        w.factor[i] = st.factor;
    }
    w.h = starts.iter().map(|st| st.h).min().unwrap_or(1);
    // Every lane from the same count, when each has it in its support near its mode:
    // the probability there by the ratios from the mode (a few steps; log-concave
    // probabilities keep each walk's tail bound valid from wherever it starts).
    let k0 = starts.get(starts.len() / 2).map_or(0, |st| st.m);
    let same = starts
        .iter()
        .all(|st| (st.lo..=st.hi).contains(&k0) && st.m.abs_diff(k0) <= REBASE_STEPS);
    if same {
        for (i, st) in starts.iter().enumerate() {
            let (a, b) = (st.a as f64, st.b as f64);
            let fourth = |k: u64| ((st.n - st.a) - (st.b - k)) as f64;
            let mut p = st.p_m;
            for k in st.m..k0 {
                p *= (a - k as f64) * (b - k as f64) / ((k + 1) as f64 * fourth(k + 1));
            }
            for k in (k0 + 1..=st.m).rev() {
                p *= k as f64 * fourth(k) / ((a - k as f64 + 1.0) * (b - k as f64 + 1.0));
            }
            w.m[i] = k0 as f64;
            w.p_m[i] = p;
            w.a_m[i] = (st.a - k0) as f64;
            w.b_m[i] = (st.b - k0) as f64;
            w.fourth_m[i] = fourth(k0);
        }
    }
    // Lanes without a pair walk with the first one (and add nothing).
    for i in starts.len()..LANES {
        w.m[i] = w.m[0];
    }
    (w, same)
}

/// [`lanes`] as a [`Kernel`]: the lanes' starts, n as a float, and the ln table.
struct Lanes<'a, const SAME: bool>(&'a LaneStarts, f64, &'a [f64; LN_SMALL as usize]);

impl<const SAME: bool> Kernel for Lanes<'_, SAME> {
    type Output = ([f64; LANES], [bool; LANES]);

    #[inline(always)]
    fn run(self) -> Self::Output {
        lanes::<SAME>(self.0, self.1, self.2)
    }
}

/// bd0(k, μ) near the mean (|k - μ| < μ/2, so |v| < 1/3), by its series: with
/// v = d / (k + μ), k ln(k/μ) - d = d v + 2 k v Σ_{j≥1} v^(2j) / (2j+1), to
/// j = [`SERIES`].
#[inline(always)]
fn lane_series(kf: f64, d: f64, mu: f64) -> f64 {
    let v = d / (kf + mu);
    let v2 = v * v;
    // Σ_j c_j v2^j by Estrin's scheme (pairs, then pairs of pairs: four dependent
    // multiply-adds where Horner's has seventeen); every coefficient and power is
    // positive, so no rounding cancels.
    let c = &SERIES_COEF;
    let e: [f64; 9] = std::array::from_fn(|j| c[2 * j] + c[2 * j + 1] * v2);
    let v4 = v2 * v2;
    let f: [f64; 5] = std::array::from_fn(|j| {
        if j < 4 {
            e[2 * j] + e[2 * j + 1] * v4
        } else {
            e[8]
        }
    });
    let v8 = v4 * v4;
    let (g0, g1, g2) = (f[0] + f[1] * v8, f[2] + f[3] * v8, f[4]);
    let v16 = v8 * v8;
    let h = g0 + v16 * (g1 + v16 * g2);
    d * v + 2.0 * kf * v * v2 * h
}

/// bd0(k, μ) away from the mean (|k - μ| ≥ μ/2), as k (ln k - ln μ) - d, with ln k
/// from the table; at k = 0 the table's ln 1 = 0 leaves -d = μ, bd0(0, μ).
#[inline(always)]
fn lane_table(kf: f64, d: f64, ln_mu: f64, ln_k: f64) -> f64 {
    kf * (ln_k - ln_mu) - d
}

/// ln k from the table, for k a count as a float (1 at 0; the last entry past it).
#[inline(always)]
fn ln_at(kf: f64, ln: &[f64; LN_SMALL as usize]) -> f64 {
    ln[(kf as usize).clamp(1, LN_SMALL as usize - 1)]
}

/// Each lane's compensated sum (a [`Sum`], a field to an array: the vectors' layout),
/// the size of what it has added, and whether it needed ln k past the table.
#[derive(Default)]
struct LaneSums {
    sum: [f64; LANES],
    carry: [f64; LANES],
    mass: [f64; LANES],
    past_table: [bool; LANES],
}

/// The terms at the counts `kf` (probabilities `p`, `q` times those a stride before)
/// added to the lanes still `live`, which stay live while above their tail bound and
/// not `at_end` of their support.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lane_step<const SAME: bool>(
    w: &LaneStarts,
    nf: f64,
    ln: &[f64; LN_SMALL as usize],
    kf: &[f64; LANES],
    p: &[f64; LANES],
    q: &[f64; LANES],
    at_end: &[bool; LANES],
    acc: &mut LaneSums,
    live: &mut [bool; LANES],
) {
    let (inv_n, hf) = (1.0 / nf, w.h as f64);
    let mut d = [0.0; LANES];
    let mut near = false;
    for i in 0..LANES {
        d[i] = (nf * kf[i] - w.abf[i]) * inv_n;
        near |= live[i] && d[i].abs() * 2.0 < w.mu[i];
    }
    // Every lane at the same count (most often): one ln k for all.
    let mut ln_k = [ln_at(kf[0], ln); LANES];
    if !SAME {
        for i in 0..LANES {
            ln_k[i] = ln_at(kf[i], ln);
        }
    }
    let mut bd = [0.0; LANES];
    // The series only while some lane is near its mean: a few steps of each walk.
    if near {
        for i in 0..LANES {
            bd[i] = if d[i].abs() * 2.0 >= w.mu[i] {
                lane_table(kf[i], d[i], w.ln_mu[i], ln_k[i])
            } else {
                lane_series(kf[i], d[i], w.mu[i])
            };
        }
    } else {
        for i in 0..LANES {
            bd[i] = lane_table(kf[i], d[i], w.ln_mu[i], ln_k[i]);
        }
    }
    let tiny = f64::MIN_POSITIVE;
    for i in 0..LANES {
        let past = live[i] && d[i].abs() * 2.0 >= w.mu[i] && kf[i] >= LN_SMALL as f64;
        acc.past_table[i] |= past;
        let x = if live[i] {
            hf * (p[i] * bd[i] * inv_n)
        } else {
            0.0
        };
        let mut s = Sum {
            sum: acc.sum[i],
            carry: acc.carry[i],
        };
        s.add(x);
        (acc.sum[i], acc.carry[i]) = (s.sum, s.carry);
        acc.mass[i] += x.abs();
        let tail = q[i] < 1.0
            && hf * p[i] * w.factor[i] * q[i] <= (acc.mass[i] * STOP + tiny) * (1.0 - q[i]);
        live[i] = live[i] && !tail && !at_end[i] && !past;
    }
}

/// The body of [`emi_lanes`]: `nf` is n as a float. The sums, and the lanes that
/// needed ln k past the table (their sums are meaningless).
#[inline(always)]
fn lanes<const SAME: bool>(
    w: &LaneStarts,
    nf: f64,
    ln: &[f64; LN_SMALL as usize],
) -> ([f64; LANES], [bool; LANES]) {
    let mut acc = LaneSums::default();
    // The mode's term (a ratio of 1 ends no lane).
    let mut live = w.live;
    let ones = [1.0; LANES];
    lane_step::<SAME>(
        w,
        nf,
        ln,
        &w.m,
        &w.p_m,
        &ones,
        &[false; LANES],
        &mut acc,
        &mut live,
    );
    let plus_one = |x: [f64; LANES]| x.map(|x| x + 1.0);
    // Upward: P(k+1) = P(k) (a-k)(b-k) / ((k+1)(n-a-b+k+1)).
    let (num, den) = ([w.a_m, w.b_m], [plus_one(w.m), plus_one(w.fourth_m)]);
    lane_walk::<SAME, true>(w, nf, ln, num, den, &mut acc, &mut live);
    // Downward: P(k-1) = P(k) k (n-a-b+k) / ((a-k+1)(b-k+1)).
    let (num, den) = ([w.m, w.fourth_m], [plus_one(w.a_m), plus_one(w.b_m)]);
    lane_walk::<SAME, false>(w, nf, ln, num, den, &mut acc, &mut live);
    (
        std::array::from_fn(|i| acc.sum[i] + acc.carry[i]),
        acc.past_table,
    )
}

/// The lanes' walks from their modes (whose terms are in `acc`), upward (`UP`) or
/// downward, until each lane's tail bound or its support's end: each step's ratio is
/// `num[0] num[1] / (den[0] den[1])`, whose factors step down and up by one. On a stride,
/// the steps' ratios multiplied four at a time (numerators and denominators apart, one
/// division per four), as in `pair_walk`; `q`, their product over the stride.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lane_walk<const SAME: bool, const UP: bool>(
    w: &LaneStarts,
    nf: f64,
    ln: &[f64; LN_SMALL as usize],
    [mut x, mut y]: [[f64; LANES]; 2],
    [mut u, mut v]: [[f64; LANES]; 2],
    acc: &mut LaneSums,
    live: &mut [bool; LANES],
) {
    let (h, hf) = (w.h, w.h as f64);
    let ones = [1.0; LANES];
    let (mut p, mut kf) = (w.p_m, w.m);
    let mut at_end = [false; LANES];
    // The lanes with a term a stride on.
    *live = std::array::from_fn(|i| {
        w.live[i]
            && if UP {
                w.m[i] + hf <= w.hi[i]
            } else {
                w.m[i] - hf >= w.lo[i]
            }
    });
    while live.iter().any(|&l| l) {
        let mut q = ones;
        let mut left = h;
        while left > 0 {
            let (mut num, mut den) = (ones, ones);
            for _ in 0..left.min(4) {
                for i in 0..LANES {
                    num[i] *= x[i] * y[i];
                    den[i] *= u[i] * v[i];
                    (x[i], y[i], u[i], v[i]) = (x[i] - 1.0, y[i] - 1.0, u[i] + 1.0, v[i] + 1.0);
                }
            }
            for i in 0..LANES {
                let r = num[i] / den[i];
                p[i] *= r;
                q[i] *= r;
            }
            left -= left.min(4);
        }
        for i in 0..LANES {
            if UP {
                kf[i] += hf;
                at_end[i] = kf[i] + hf > w.hi[i];
            } else {
                // The count is the numerator's first factor.
                kf[i] = x[i];
                at_end[i] = kf[i] - hf < w.lo[i];
            }
        }
        lane_step::<SAME>(w, nf, ln, &kf, &p, &q, &at_end, acc, live);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emi::loader::ln_binomial;
    use crate::emi::testing::pair_start;

    #[test]
    fn lanes_sum_as_each_pair_alone() {
        // Eights (and fewer) of pairs that fit the lanes: of one mode, of modes a few
        // apart (walks from a common count, away from some modes) and far apart (each
        // from its own); a term at each count and on a stride. Each lane against the pair's own walk; and the vector code
        // against the scalar code, to the bit.
        let mut s = 0x5eed_u64;
        let mut rnd = |m: u64| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) % m.max(1)
        };
        let ln: &[f64; LN_SMALL as usize] = ln_small().try_into().unwrap();
        let (mut rebased, mut apart, mut strided) = (0, 0, 0);
        for case in 0..600 {
            let n = [1_000u64, 100_000, 1_000_000, 1 << 40][case % 4];
            let spread = [0u64, 4, 60][case / 4 % 3];
            let (a0, b0) = (1 + rnd(n - 1), 1 + rnd(4000.min(n - 1)));
            let mut starts = Vec::new();
            for _ in 0..1 + case % 8 {
                let a = (a0 + rnd(spread * (a0 / 100 + 1) + 1)).min(n);
                let b = (b0 + rnd(spread + 1)).min(n);
                let ln_n = (n as f64).ln();
                if let Some(st) = pair_start(a, b, n, ln_n, ln_binomial(b, n, b, n)) {
                    if fits_lanes(&st) {
                        starts.push(st);
                    }
                }
            }
            if starts.is_empty() {
                continue;
            }
            starts.sort_by_key(|st| st.m);
            let (w, same) = lane_starts(&starts);
            rebased += usize::from(same && starts.iter().any(|st| st.m != starts[0].m));
            apart += usize::from(!same);
            strided += usize::from(w.h > 1);
            let got = emi_lanes(&starts);
            for (st, &x) in starts.iter().zip(&got) {
                let y = pair_walk(st);
                assert!(
                    (x - y).abs() <= 3e-15 * y.abs(),
                    "{st:?}: lanes {x:e}, alone {y:e}"
                );
            }
            // The vector build (eight lanes to a vector), where the CPU has it.
            let nf = n as f64;
            let (v, scalar) = if same {
                (
                    cpu::testing::run_on(Build::Avx512Dq, Lanes::<true>(&w, nf, ln)),
                    lanes::<true>(&w, nf, ln),
                )
            } else {
                (
                    cpu::testing::run_on(Build::Avx512Dq, Lanes::<false>(&w, nf, ln)),
                    lanes::<false>(&w, nf, ln),
                )
            };
            if let Some(v) = v {
                assert_eq!(v.0.map(f64::to_bits), scalar.0.map(f64::to_bits));
                assert_eq!(v.1, scalar.1);
            }
        }
        // Both ways of starting were taken, and eights on a stride.
        assert!(
            rebased > 20 && apart > 20 && strided > 20,
            "{rebased} {apart} {strided}"
        );
    }

    #[test]
    fn lanes_past_the_ln_table_sum_alone() {
        // No tail bound (a huge factor): the walk reaches counts past the ln table far
        // from the mean (μ = 3,000, sd = 51: 1.5 μ = 4,500 at 29 sd, where the terms are
        // still far from underflow), where the lanes have no logarithm. That lane is
        // flagged, and emi_lanes sums it alone.
        let (a, b, n) = (100_000u64, 30_000u64, 1_000_000u64);
        let mut st = pair_start(a, b, n, (n as f64).ln(), ln_binomial(b, n, b, n)).unwrap();
        assert!(fits_lanes(&st) && st.h > 1);
        st.factor = 1e300;
        let (w, same) = lane_starts(&[st]);
        let ln: &[f64; LN_SMALL as usize] = ln_small().try_into().unwrap();
        let (_, past) = if same {
            lanes::<true>(&w, n as f64, ln)
        } else {
            lanes::<false>(&w, n as f64, ln)
        };
        assert!(past[0] && !past[1..].iter().any(|&x| x));
        let alone = pair_walk(&st);
        assert!(alone > 0.0);
        assert_eq!(emi_lanes(&[st])[0].to_bits(), alone.to_bits());
    }
}
