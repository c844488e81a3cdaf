//! The labelings of one embedding's samples, checked once: `m` rows of `n` codes, row `l`
//! in `0..k[l]`. Every per-cluster array of the kernels holds all labelings' clusters side
//! by side, labeling `l`'s at `offset[l]..offset[l] + k[l]`.

use crate::alloc;
use crate::error::Error;

/// How a sample's distance to the other clusters, the silhouette's `b`, is taken from its
/// mean distances to each (scib-metrics' `between_cluster_distances`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Between {
    /// The least mean distance to another cluster: scikit-learn's silhouette.
    #[default]
    Nearest,
    /// The mean distance to every sample outside its cluster: BRAS's.
    MeanOther,
    /// The greatest mean distance to another cluster.
    Furthest,
}

impl Between {
    /// The choice of scib-metrics' name for it.
    pub fn from_name(name: &str) -> Option<Between> {
        Some(match name {
            "nearest" => Between::Nearest,
            "mean_other" => Between::MeanOther,
            "furthest" => Between::Furthest,
            _ => return None,
        })
    }
}

/// `m` labelings of `n` samples, checked.
pub(crate) struct Labelings<'a> {
    /// Samples.
    pub(crate) n: usize,
    /// Labeling `l`'s codes are `codes[l * n..(l + 1) * n]`.
    pub(crate) codes: &'a [i64],
    /// Where each labeling's clusters start among all (length `m + 1`).
    pub(crate) offset: Vec<usize>,
    /// Each cluster's size, all labelings' side by side.
    pub(crate) sizes: Vec<u64>,
    /// How the silhouette's `b` is taken.
    pub(crate) between: Between,
}

impl<'a> Labelings<'a> {
    /// `codes` (`m × n`, row by row) checked against `n_labels` (`m` numbers, each at
    /// least 1, each code below its labeling's).
    pub(crate) fn new(n: usize, codes: &'a [i64], n_labels: &[usize]) -> Result<Self, Error> {
        let m = n_labels.len();
        if m == 0 {
            return Err(Error::BadShape("no labeling was given".into()));
        }
        if codes.len() != m.saturating_mul(n) {
            return Err(Error::BadShape(format!(
                "{m} labelings of {n} samples need {} codes, not {}",
                m.saturating_mul(n),
                codes.len()
            )));
        }
        let mut offset = alloc::with_capacity(m + 1, "the labelings' cluster offsets")?;
        offset.push(0usize);
        for &k in n_labels {
            if k == 0 {
                return Err(Error::BadShape("a labeling with no cluster".into()));
            }
            let last = *offset.last().unwrap_or(&0);
            offset.push(last.saturating_add(k));
        }
        let total = offset[m];
        let mut sizes = alloc::filled(total, 0u64, "the clusters' sizes")?;
        for (l, row) in codes.chunks_exact(n.max(1)).take(m).enumerate() {
            let (base, k) = (offset[l], n_labels[l]);
            for &c in row {
                if c < 0 || c as u64 >= k as u64 {
                    return Err(Error::BadShape(format!(
                        "a code {c} outside 0..{k} in labeling {l}"
                    )));
                }
                sizes[base + c as usize] += 1;
            }
        }
        Ok(Labelings {
            n,
            codes,
            offset,
            sizes,
            between: Between::Nearest,
        })
    }

    /// The same labelings, their silhouettes' `b` taken by `between`.
    pub(crate) fn with_between(self, between: Between) -> Self {
        Labelings { between, ..self }
    }

    /// Labelings.
    pub(crate) fn m(&self) -> usize {
        self.offset.len() - 1
    }

    /// Clusters of all labelings together.
    pub(crate) fn total(&self) -> usize {
        self.offset[self.m()]
    }

    /// Sample `i`'s cluster in labeling `l`, among all labelings' clusters.
    #[inline(always)]
    pub(crate) fn cluster(&self, l: usize, i: usize) -> usize {
        self.offset[l] + self.codes[l * self.n + i] as usize
    }
}

/// Sample `i`'s silhouette in labeling `l` from `sums`, its sums of distances to every
/// cluster of every labeling (its own included), as scikit-learn's: `a` the mean distance
/// to the others of its cluster, `b` the least mean distance to another cluster (or, by
/// `between`, the greatest, or the mean distance to every sample outside its cluster),
/// `(b - a) / max(a, b)`; 0 for a cluster of one, with no other cluster, or where
/// `max(a, b)` is 0 (where scikit-learn's `nan_to_num` makes it 0).
#[inline]
pub(crate) fn silhouette(labelings: &Labelings<'_>, sums: &[f64], l: usize, i: usize) -> f64 {
    let Some((own, a)) = own_mean(labelings, sums, l, i) else {
        return 0.0;
    };
    let (from, to) = (labelings.offset[l], labelings.offset[l + 1]);
    let others = sums[from..to]
        .iter()
        .zip(&labelings.sizes[from..to])
        .enumerate()
        .filter(|&(c, (_, &size))| from + c != own && size > 0)
        .map(|(_, (&sum, &size))| (sum, size));
    let b = match labelings.between {
        Between::Nearest => others
            .map(|(sum, size)| sum / size as f64)
            .fold(f64::INFINITY, f64::min),
        Between::Furthest => others
            .map(|(sum, size)| sum / size as f64)
            .fold(f64::NEG_INFINITY, f64::max),
        Between::MeanOther => {
            // Summed cluster by cluster, as scib-metrics' `nansum` over the row.
            let (sum, size) = others.fold((0.0, 0u64), |(s, z), (sum, size)| (s + sum, z + size));
            if size == 0 {
                f64::INFINITY
            } else {
                sum / size as f64
            }
        }
    };
    score(a, b)
}

/// [`silhouette`] under [`Between::Nearest`], the same bits, from `sums` (this sample's,
/// every labeling's clusters) and `near`, each sum times its cluster's reciprocal size
/// (infinite for an empty cluster): a mean within 2.01 units of the last place (`u`) of
/// its quotient. The least of them, `q`, finds the nearest cluster without a division
/// per cluster; only the clusters whose `near` is within `q · (1 + 2⁻⁴⁹)` could hold the
/// least quotient (a quotient rounds within `u` of its value, `near` within `2.01 u`:
/// `(1 + u)(1 + 2.01 u) / (1 - 2.01 u)(1 - u)` is below `1 + 7 u`, `2⁻⁴⁹` is `16 u`), and
/// their quotients are taken. `sums` holds this sample's own cluster's sum corrected
/// (the zero rows of cosine), `near` may not; a NaN in `near` (an empty cluster's
/// `0 · ∞`) is never the least nor within, as an empty cluster is never the nearest.
#[inline(always)]
pub(crate) fn nearest_silhouette(
    labelings: &Labelings<'_>,
    sums: &[f64],
    near: &[f64],
    l: usize,
    i: usize,
) -> f64 {
    debug_assert_eq!(labelings.between, Between::Nearest);
    let Some((own, a)) = own_mean(labelings, sums, l, i) else {
        return 0.0;
    };
    let (from, to) = (labelings.offset[l], labelings.offset[l + 1]);
    let least = |b: f64, v: f64| if v < b { v } else { b };
    let mut q = f64::INFINITY;
    for (c, &v) in near[from..to].iter().enumerate() {
        if from + c != own {
            q = least(q, v);
        }
    }
    if q.is_infinite() {
        return 0.0;
    }
    // (near the underflow the rounding is no longer relative: every quotient is taken)
    let within = if q > f64::MIN_POSITIVE * f64::powi(2.0, 60) {
        q * (1.0 + f64::powi(2.0, -49))
    } else {
        f64::INFINITY
    };
    let mut b = f64::INFINITY;
    for (c, &v) in near[from..to].iter().enumerate() {
        let c = from + c;
        if v <= within && c != own {
            b = least(b, sums[c] / labelings.sizes[c] as f64);
        }
    }
    score(a, b)
}

/// Sample `i`'s cluster in labeling `l` and `a`, its mean distance to the others there;
/// `None` for a cluster of one.
#[inline(always)]
fn own_mean(labelings: &Labelings<'_>, sums: &[f64], l: usize, i: usize) -> Option<(usize, f64)> {
    let own = labelings.cluster(l, i);
    let n_own = labelings.sizes[own];
    (n_own > 1).then(|| (own, sums[own] / (n_own - 1) as f64))
}

/// `(b - a) / max(a, b)`, 0 where `b` is infinite (no other cluster) or `max(a, b)` is 0.
#[inline(always)]
fn score(a: f64, b: f64) -> f64 {
    if b.is_infinite() {
        return 0.0;
    }
    let most = a.max(b);
    if most == 0.0 {
        0.0
    } else {
        (b - a) / most
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_checked() {
        assert!(Labelings::new(3, &[0, 1, 0], &[2]).is_ok());
        assert!(Labelings::new(3, &[0, 1], &[2]).is_err());
        assert!(Labelings::new(3, &[0, 2, 0], &[2]).is_err());
        assert!(Labelings::new(3, &[0, -1, 0], &[2]).is_err());
        assert!(Labelings::new(3, &[0, 0, 0], &[0]).is_err());
        assert!(Labelings::new(3, &[], &[]).is_err());
        let l = Labelings::new(2, &[0, 1, 0, 0], &[2, 3]).unwrap();
        assert_eq!((l.m(), l.total()), (2, 5));
        assert_eq!(l.sizes, [1, 1, 2, 0, 0]);
        assert_eq!(l.cluster(1, 1), 2);
    }

    #[test]
    fn silhouette_edge_cases() {
        let l = Labelings::new(3, &[0, 0, 1], &[2]).unwrap();
        // a = 2, b = 4.
        assert_eq!(silhouette(&l, &[2.0, 4.0], 0, 0), 0.5);
        // A singleton.
        assert_eq!(silhouette(&l, &[3.0, 0.0], 0, 2), 0.0);
        // All at one place.
        assert_eq!(silhouette(&l, &[0.0, 0.0], 0, 0), 0.0);
        let one = Labelings::new(2, &[0, 0], &[1]).unwrap();
        assert_eq!(silhouette(&one, &[1.0], 0, 0), 0.0);
        let one = one.with_between(Between::Furthest);
        assert_eq!(silhouette(&one, &[1.0], 0, 0), 0.0);
    }

    #[test]
    fn the_nearest_from_near_means_has_the_same_bits() {
        // Clusters of sizes whose reciprocals round (3, 7, 49, ...) and sums whose
        // quotients lie one unit of the last place apart, or tie, or are empty.
        let sizes = [1u64, 3, 7, 49, 10, 3, 7, 0, 1_000_003, 2];
        let mut codes = Vec::new();
        for (c, &size) in sizes.iter().enumerate() {
            codes.extend(std::iter::repeat_n(c as i64, size as usize));
        }
        let lab = Labelings::new(codes.len(), &codes, &[sizes.len()]).unwrap();
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut ties = 0;
        for round in 0..20_000 {
            let base = 1.0 + next();
            let sums: Vec<f64> = sizes
                .iter()
                .map(|&size| {
                    let q = match round % 3 {
                        0 => base,
                        1 => f64::from_bits(base.to_bits() + (next() * 3.0) as u64),
                        _ => base * (1.0 + next()),
                    };
                    q * size as f64
                })
                .collect();
            let near: Vec<f64> = sums
                .iter()
                .zip(&sizes)
                .map(|(&s, &size)| {
                    s * if size > 0 {
                        1.0 / size as f64
                    } else {
                        f64::INFINITY
                    }
                })
                .collect();
            for &i in &[0, 1, 4, 11, 60, 70, 1_000_083] {
                let near2 = near.clone();
                let want = silhouette(&lab, &sums, 0, i);
                let got = nearest_silhouette(&lab, &sums, &near, 0, i);
                assert_eq!(got.to_bits(), want.to_bits(), "{round} {i}");
                ties += usize::from(near2.iter().filter(|&&v| v == near2[1]).count() > 1);
            }
        }
        assert!(ties > 1000, "{ties}");
    }

    #[test]
    fn between_clusters() {
        // Sample 0 of cluster 0 (3 samples), clusters 1 and 2 of 1 and 4 samples.
        let codes = [0, 0, 0, 1, 2, 2, 2, 2];
        let sums = [4.0, 3.0, 20.0];
        let of = |between| {
            let l = Labelings::new(8, &codes, &[3])
                .unwrap()
                .with_between(between);
            silhouette(&l, &sums, 0, 0)
        };
        // a = 2; b = 3 (nearest), 5 (furthest), 23 / 5 (mean of the others).
        assert_eq!(of(Between::Nearest), (3.0 - 2.0) / 3.0);
        assert_eq!(of(Between::Furthest), (5.0 - 2.0) / 5.0);
        assert_eq!(of(Between::MeanOther), (23.0 / 5.0 - 2.0) / (23.0 / 5.0));
        assert_eq!(Between::from_name("mean_other"), Some(Between::MeanOther));
        assert_eq!(Between::from_name("mean"), None);
    }
}
