//! The Calinski-Harabasz and Davies-Bouldin indices, from each cluster's centroid.
//! Calinski-Harabasz needs the clusters' centroids and spreads alone: one pass
//! ([`super::sums::clusters`]). Davies-Bouldin's mean distances to the centroids need a
//! second: the clusters' sums, then each sample's distance to its centroid. Sums in `f64`,
//! by chunks in a fixed order.

use super::chunks;
use super::float::Float;
use super::labelings::Labelings;
use super::sums::{add, clusters, finite, Summed};
use crate::alloc;
use crate::error::Error;

/// Per cluster: its centroid (`k × d`) and the sum of its samples' distances to it.
struct Spread {
    /// Each cluster's sum over its size, as scikit-learn's `mean`: clusters whose means are
    /// equal get the same centroid (Davies-Bouldin's distances between centroids, and the
    /// spreads around them), where centroids merged from parts may differ by a rounding
    /// and make a ratio of noise.
    centroids: Vec<f64>,
    distances: Vec<f64>,
}

fn spread<T: Float>(
    x: &[T],
    d: usize,
    labelings: &Labelings<'_>,
    par: bool,
) -> Result<Spread, Error> {
    let n = labelings.n;
    let k = labelings.total();
    let chunk = chunks::rows(n);
    let parts = chunks::map(par, n, chunk, |rows| {
        let mut s = alloc::filled(k * d, 0.0f64, "a chunk's cluster sums")?;
        for i in rows {
            let c = labelings.cluster(0, i);
            for (a, &v) in s[c * d..(c + 1) * d].iter_mut().zip(&x[i * d..(i + 1) * d]) {
                *a += v.to_f64();
            }
        }
        Ok(s)
    })?;
    let mut centroids = alloc::filled(k * d, 0.0f64, "the cluster sums")?;
    add(&mut centroids, parts);
    finite(&centroids)?;
    for (c, centroid) in centroids.chunks_exact_mut(d.max(1)).take(k).enumerate() {
        let size = labelings.sizes[c].max(1) as f64;
        for v in centroid {
            *v /= size;
        }
    }
    let parts = chunks::map(par, n, chunk, |rows| {
        let mut s = alloc::filled(k, 0.0f64, "a chunk's distances to the centroids")?;
        for i in rows {
            let c = labelings.cluster(0, i);
            let w: f64 = x[i * d..(i + 1) * d]
                .iter()
                .zip(&centroids[c * d..(c + 1) * d])
                .map(|(&v, &mu)| (v.to_f64() - mu) * (v.to_f64() - mu))
                .sum();
            s[c] += w.sqrt();
        }
        Ok(s)
    })?;
    let mut distances = alloc::filled(k, 0.0f64, "the distances to the centroids")?;
    add(&mut distances, parts);
    Ok(Spread {
        centroids,
        distances,
    })
}

/// scikit-learn's Calinski-Harabasz index: `extra (n - k) / (intra (k - 1))`, 1 where
/// `intra` is 0.
pub(crate) fn calinski_harabasz<T: Float>(
    x: &[T],
    d: usize,
    labelings: &Labelings<'_>,
    par: bool,
) -> Result<f64, Error> {
    let (n, k) = (labelings.n, labelings.total());
    let s = clusters(x, d, labelings, Summed::SqEuclidean, par)?;
    let mut mean = alloc::filled(d, 0.0f64, "the samples' mean")?;
    for (c, centroid) in s.centroids.chunks_exact(d.max(1)).take(k).enumerate() {
        let size = labelings.sizes[c] as f64;
        for (a, &v) in mean.iter_mut().zip(centroid) {
            *a += size * v;
        }
    }
    mean.iter_mut().for_each(|a| *a /= n.max(1) as f64);
    let mut extra = 0.0;
    for c in 0..k {
        let centroid = &s.centroids[c * d..(c + 1) * d];
        let to: f64 = centroid
            .iter()
            .zip(&mean)
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        extra += labelings.sizes[c] as f64 * to;
    }
    let intra: f64 = s.spread.iter().sum();
    Ok(if intra == 0.0 {
        1.0
    } else {
        extra * (n as f64 - k as f64) / (intra * (k as f64 - 1.0))
    })
}

/// scikit-learn's Davies-Bouldin index: the mean over clusters of the largest
/// `(s_k + s_l) / D_kl`, `s` the mean distance to the centroid and `D` the centroids'
/// distance (a pair at distance 0 counts 0); 0 where every `s` or every `D` is within
/// 1e-8 of 0 (`np.allclose`).
pub(crate) fn davies_bouldin<T: Float>(
    x: &[T],
    d: usize,
    labelings: &Labelings<'_>,
    par: bool,
) -> Result<f64, Error> {
    let k = labelings.total();
    let s = spread(x, d, labelings, par)?;
    let intra: Vec<f64> = (0..k)
        .map(|c| s.distances[c] / labelings.sizes[c].max(1) as f64)
        .collect();
    let mut between = alloc::filled(k * k, 0.0f64, "the centroids' distances")?;
    for a in 0..k {
        for b in 0..k {
            if a != b {
                let (p, q) = (
                    &s.centroids[a * d..(a + 1) * d],
                    &s.centroids[b * d..(b + 1) * d],
                );
                between[a * k + b] = p
                    .iter()
                    .zip(q)
                    .map(|(u, v)| (u - v) * (u - v))
                    .sum::<f64>()
                    .sqrt();
            }
        }
    }
    let close = |v: &f64| v.abs() <= 1e-8;
    if intra.iter().all(close) || between.iter().all(close) {
        return Ok(0.0);
    }
    let mut total = 0.0;
    for a in 0..k {
        let mut most = f64::NEG_INFINITY;
        for b in 0..k {
            let dist = between[a * k + b];
            let ratio = if dist == 0.0 {
                0.0
            } else {
                (intra[a] + intra[b]) / dist
            };
            most = most.max(ratio);
        }
        total += most;
    }
    Ok(total / k as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::testing::{labels, points, pools};

    /// The indices by their textbook definitions, pair of loops by pair of loops.
    fn textbook(x: &[f64], d: usize, codes: &[i64], k: usize) -> (f64, f64) {
        let n = codes.len();
        let mut cent = vec![0.0; k * d];
        let mut size = vec![0.0; k];
        for i in 0..n {
            let c = codes[i] as usize;
            size[c] += 1.0;
            for t in 0..d {
                cent[c * d + t] += x[i * d + t];
            }
        }
        let mut mean = vec![0.0; d];
        for i in 0..n {
            for t in 0..d {
                mean[t] += x[i * d + t] / n as f64;
            }
        }
        for c in 0..k {
            for t in 0..d {
                cent[c * d + t] /= size[c];
            }
        }
        let dist =
            |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| (p - q) * (p - q)).sum::<f64>();
        let (mut extra, mut intra) = (0.0, 0.0);
        let mut s = vec![0.0; k];
        for c in 0..k {
            extra += size[c] * dist(&cent[c * d..(c + 1) * d], &mean);
        }
        for i in 0..n {
            let c = codes[i] as usize;
            let v = dist(&x[i * d..(i + 1) * d], &cent[c * d..(c + 1) * d]);
            intra += v;
            s[c] += v.sqrt() / size[c];
        }
        let ch = extra * (n - k) as f64 / (intra * (k - 1) as f64);
        let mut db = 0.0;
        for a in 0..k {
            let mut most: f64 = 0.0;
            for b in 0..k {
                if a != b {
                    let dd = dist(&cent[a * d..(a + 1) * d], &cent[b * d..(b + 1) * d]).sqrt();
                    most = most.max((s[a] + s[b]) / dd);
                }
            }
            db += most / k as f64;
        }
        (ch, db)
    }

    #[test]
    fn equal_the_textbook_on_every_thread_count() {
        for (n, k) in [(10usize, 3usize), (777, 5), (20000, 4)] {
            let x = points(n, 3, 4);
            let codes = labels(n, &[k], 8);
            let lab = Labelings::new(n, &codes, &[k]).unwrap();
            let (ch, db) = textbook(&x, 3, &codes, k);
            let got_ch = calinski_harabasz(&x, 3, &lab, false).unwrap();
            let got_db = davies_bouldin(&x, 3, &lab, false).unwrap();
            assert!((got_ch - ch).abs() <= 1e-10 * ch, "{got_ch} {ch}");
            assert!((got_db - db).abs() <= 1e-10 * db, "{got_db} {db}");
            for pool in pools() {
                assert_eq!(
                    pool.install(|| calinski_harabasz(&x, 3, &lab, true))
                        .unwrap(),
                    got_ch
                );
                assert_eq!(
                    pool.install(|| davies_bouldin(&x, 3, &lab, true)).unwrap(),
                    got_db
                );
            }
        }
    }

    #[test]
    fn nan_and_infinity_are_refused_by_the_first_pass() {
        let lab = Labelings::new(4, &[0, 0, 1, 1], &[2]).unwrap();
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let x = [0.0, 1.0, 2.0, bad, 4.0, 5.0, 6.0, bad];
            assert!(matches!(
                calinski_harabasz(&x, 2, &lab, false),
                Err(Error::NotFinite)
            ));
            assert!(matches!(
                davies_bouldin(&x, 2, &lab, false),
                Err(Error::NotFinite)
            ));
        }
        let x = [f32::NAN, 1.0, 2.0, 3.0];
        let lab = Labelings::new(4, &[0, 0, 1, 1], &[2]).unwrap();
        assert!(matches!(
            calinski_harabasz(&x, 1, &lab, false),
            Err(Error::NotFinite)
        ));
    }

    #[test]
    fn degenerate_clusterings() {
        // All samples equal: intra is 0, CH is 1 and DB 0.
        let x = [1.0f64; 12];
        let lab = Labelings::new(6, &[0, 0, 1, 1, 2, 2], &[3]).unwrap();
        assert_eq!(calinski_harabasz(&x, 2, &lab, false).unwrap(), 1.0);
        assert_eq!(davies_bouldin(&x, 2, &lab, false).unwrap(), 0.0);
        // Singletons: intra 0 for each cluster.
        let x = [0.0f64, 1.0, 3.0];
        let lab = Labelings::new(3, &[0, 1, 2], &[3]).unwrap();
        assert_eq!(calinski_harabasz(&x, 1, &lab, false).unwrap(), 1.0);
        assert_eq!(davies_bouldin(&x, 1, &lab, false).unwrap(), 0.0);
        // Two clusters with one centroid: that pair counts 0.
        let x = [-1.0f64, 1.0, -2.0, 2.0, 5.0, 6.0];
        let lab = Labelings::new(6, &[0, 0, 1, 1, 2, 2], &[3]).unwrap();
        let db = davies_bouldin(&x, 1, &lab, false).unwrap();
        let want = ((1.0 + 0.5) / 5.5 + (2.0 + 0.5) / 5.5 + (2.0 + 0.5) / 5.5) / 3.0;
        assert!((db - want).abs() < 1e-14, "{db} {want}");
    }
}
