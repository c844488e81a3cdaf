//! Measures of a clustering against the embedding it was made from: the silhouette
//! (scikit-learn's `silhouette_samples`, for several labelings of one embedding at once),
//! and the Calinski-Harabasz and Davies-Bouldin indices.
//!
//! - `labelings`: the labelings checked once, and a sample's silhouette from its sums of
//!   distances to every cluster.
//! - `chunks`: rows mapped by chunks whose partial results are added in a fixed order.
//! - `float` and `gemm`: the element types, and the one call into the GEMM crate.
//! - `runs`: a block of distances added into its rows' clusters' sums, a cluster's rows
//!   at a time.
//! - `columns`: a block of distances added by columns, four rows at a time.
//! - `pairs`: the exact silhouette over all pairs (Euclidean, Manhattan), block pair by
//!   block pair, each unordered pair once.
//! - `sums`: the exact silhouette under squared Euclidean and cosine distances in
//!   O(n·k·d), from each cluster's centroid and spread.
//! - `precomputed`: the silhouette from a given matrix of distances.
//! - `centroids`: the Calinski-Harabasz and Davies-Bouldin indices.
//!
//! Every result is the same to the last bit for any number of threads.

mod centroids;
mod chunks;
#[allow(unsafe_code)]
mod columns;
mod float;
#[allow(unsafe_code)]
mod gemm;
mod labelings;
mod pairs;
mod precomputed;
mod runs;
mod sums;
#[cfg(test)]
mod testing;

use std::ops::Range;

use crate::error::Error;
use crate::pool;

pub use labelings::Between;

/// An embedding's (or a matrix of distances') values, row by row.
#[derive(Debug, Clone, Copy)]
pub enum Points<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl Points<'_> {
    fn len(&self) -> usize {
        match self {
            Points::F32(x) => x.len(),
            Points::F64(x) => x.len(),
        }
    }
}

/// The distance of a silhouette computed from the samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    Euclidean,
    SqEuclidean,
    Cosine,
    Manhattan,
}

impl Metric {
    /// The metric of scikit-learn's name for it.
    pub fn from_name(name: &str) -> Option<Metric> {
        Some(match name {
            "euclidean" => Metric::Euclidean,
            "sqeuclidean" => Metric::SqEuclidean,
            "cosine" => Metric::Cosine,
            "manhattan" => Metric::Manhattan,
            _ => return None,
        })
    }
}

fn shape(x: &Points<'_>, n: usize, d: usize) -> Result<(), Error> {
    if x.len() != n.saturating_mul(d) {
        return Err(Error::BadShape(format!(
            "{n} samples of {d} dimensions need {} values, not {}",
            n.saturating_mul(d),
            x.len()
        )));
    }
    Ok(())
}

/// `f(par)` on the pool, `par` telling whether it has several threads.
fn pooled<R: Send>(f: impl FnOnce(bool) -> R + Send) -> R {
    let par = pool::threads() > 1;
    pool::run(move || f(par))
}

/// Each sample's silhouette (scikit-learn's `silhouette_samples`) in each of `m`
/// labelings: `x` holds `n` samples of `d` values, `codes` the labelings (`m × n`, row `l`
/// in `0..n_labels[l]`), `between` how the distance to the other clusters is taken.
/// Returns `m × n` values, labeling by labeling.
pub fn silhouette_samples(
    x: Points<'_>,
    n: usize,
    d: usize,
    codes: &[i64],
    n_labels: &[usize],
    metric: Metric,
    between: Between,
) -> Result<Vec<f64>, Error> {
    silhouette_rows(x, n, d, codes, n_labels, metric, between, 0..n)
}

/// The silhouettes of [`silhouette_samples`] of the samples `rows` alone (`m × rows.len()`,
/// labeling by labeling), each to the last bit as the whole gives it: a row block of a
/// distributed array scored on the worker that holds it, against all samples.
#[allow(clippy::too_many_arguments)]
pub fn silhouette_rows(
    x: Points<'_>,
    n: usize,
    d: usize,
    codes: &[i64],
    n_labels: &[usize],
    metric: Metric,
    between: Between,
    rows: Range<usize>,
) -> Result<Vec<f64>, Error> {
    shape(&x, n, d)?;
    if rows.start > rows.end || rows.end > n {
        return Err(Error::BadShape(format!(
            "samples {}..{} of {n}",
            rows.start, rows.end
        )));
    }
    let labelings = labelings::Labelings::new(n, codes, n_labels)?.with_between(between);
    let lab = &labelings;
    let r = rows.clone();
    let summed = |metric: sums::Summed, par: bool| -> Result<Vec<f64>, Error> {
        // O(n·k·d) for all samples: the rows are cut from the whole.
        let all = match x {
            Points::F32(x) => sums::silhouettes(x, d, lab, metric, par),
            Points::F64(x) => sums::silhouettes(x, d, lab, metric, par),
        }?;
        if r.len() == n {
            return Ok(all);
        }
        let mut out = crate::alloc::with_capacity(lab.m() * r.len(), "the silhouettes")?;
        for l in 0..lab.m() {
            out.extend_from_slice(&all[l * n + r.start..l * n + r.end]);
        }
        Ok(out)
    };
    pooled(|par| match (x, metric) {
        (Points::F32(x), Metric::Euclidean) => {
            pairs::silhouettes(x, d, lab, pairs::Pairwise::Euclidean, rows, par)
        }
        (Points::F64(x), Metric::Euclidean) => {
            pairs::silhouettes(x, d, lab, pairs::Pairwise::Euclidean, rows, par)
        }
        (Points::F32(x), Metric::Manhattan) => {
            pairs::silhouettes(x, d, lab, pairs::Pairwise::Manhattan, rows, par)
        }
        (Points::F64(x), Metric::Manhattan) => {
            pairs::silhouettes(x, d, lab, pairs::Pairwise::Manhattan, rows, par)
        }
        (_, Metric::SqEuclidean) => summed(sums::Summed::SqEuclidean, par),
        (_, Metric::Cosine) => summed(sums::Summed::Cosine, par),
    })
}

/// Each sample's silhouette in each labeling from the `n × n` matrix of distances `dist`
/// (scikit-learn's `metric="precomputed"`).
pub fn silhouette_precomputed(
    dist: Points<'_>,
    n: usize,
    codes: &[i64],
    n_labels: &[usize],
    between: Between,
) -> Result<Vec<f64>, Error> {
    let labelings = labelings::Labelings::new(n, codes, n_labels)?.with_between(between);
    let lab = &labelings;
    pooled(|par| match dist {
        Points::F32(dist) => precomputed::silhouettes(dist, lab, par),
        Points::F64(dist) => precomputed::silhouettes(dist, lab, par),
    })
}

/// scikit-learn's `calinski_harabasz_score` of `codes` (`n` codes in `0..n_labels`).
pub fn calinski_harabasz(
    x: Points<'_>,
    n: usize,
    d: usize,
    codes: &[i64],
    n_labels: usize,
) -> Result<f64, Error> {
    shape(&x, n, d)?;
    let labelings = labelings::Labelings::new(n, codes, &[n_labels])?;
    let lab = &labelings;
    pooled(|par| match x {
        Points::F32(x) => centroids::calinski_harabasz(x, d, lab, par),
        Points::F64(x) => centroids::calinski_harabasz(x, d, lab, par),
    })
}

/// scikit-learn's `davies_bouldin_score` of `codes` (`n` codes in `0..n_labels`).
pub fn davies_bouldin(
    x: Points<'_>,
    n: usize,
    d: usize,
    codes: &[i64],
    n_labels: usize,
) -> Result<f64, Error> {
    shape(&x, n, d)?;
    let labelings = labelings::Labelings::new(n, codes, &[n_labels])?;
    let lab = &labelings;
    pooled(|par| match x {
        Points::F32(x) => centroids::davies_bouldin(x, d, lab, par),
        Points::F64(x) => centroids::davies_bouldin(x, d, lab, par),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked() {
        let x = [0.0f64; 6];
        assert!(silhouette_samples(
            Points::F64(&x),
            3,
            2,
            &[0, 1, 1],
            &[2],
            Metric::Euclidean,
            Between::Nearest
        )
        .is_ok());
        assert!(matches!(
            silhouette_samples(
                Points::F64(&x),
                4,
                2,
                &[0, 1, 1, 0],
                &[2],
                Metric::Euclidean,
                Between::Nearest,
            ),
            Err(Error::BadShape(_))
        ));
        assert!(silhouette_samples(
            Points::F64(&x),
            3,
            2,
            &[0, 1],
            &[2],
            Metric::Cosine,
            Between::Nearest
        )
        .is_err());
        assert!(
            silhouette_precomputed(Points::F64(&x), 3, &[0, 1, 1], &[2], Between::Nearest).is_err()
        );
        assert!(calinski_harabasz(Points::F64(&x), 3, 2, &[0, 2, 1], 2).is_err());
        assert!(davies_bouldin(Points::F32(&[0.0; 5]), 3, 2, &[0, 1, 1], 2).is_err());
        assert_eq!(Metric::from_name("cosine"), Some(Metric::Cosine));
        assert_eq!(Metric::from_name("l1"), None);
    }
}
