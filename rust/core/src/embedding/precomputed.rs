//! The silhouette from a given matrix of distances: each row read once, its distances
//! summed per cluster of every labeling (the diagonal included, as scikit-learn sums it;
//! the caller checks that it is 0).

use super::chunks;
use super::float::Float;
use super::labelings::{silhouette, Labelings};
use crate::alloc;
use crate::error::Error;

/// Each sample's silhouette in each labeling (`m × n`), from the `n × n` matrix `dist`.
pub(crate) fn silhouettes<T: Float>(
    dist: &[T],
    labelings: &Labelings<'_>,
    par: bool,
) -> Result<Vec<f64>, Error> {
    let n = labelings.n;
    let (m, ktot) = (labelings.m(), labelings.total());
    if dist.len() != n.saturating_mul(n) {
        return Err(Error::BadShape(format!(
            "a matrix of distances of {n} samples has {} values, not {}",
            n.saturating_mul(n),
            dist.len()
        )));
    }
    // Rows per chunk: about 2^20 distances each.
    let chunk = ((1usize << 20) / n.max(1)).max(1);
    let parts = chunks::map(par, n, chunk, |rows| {
        let mut out = alloc::filled(rows.len() * m, 0.0f64, "a chunk's silhouettes")?;
        let mut sums = alloc::filled(ktot, 0.0f64, "a sample's sums")?;
        let start = rows.start;
        for i in rows {
            sums.fill(0.0);
            let row = &dist[i * n..(i + 1) * n];
            for l in 0..m {
                let codes = &labelings.codes[l * n..(l + 1) * n];
                let base = labelings.offset[l];
                for (&v, &c) in row.iter().zip(codes) {
                    sums[base + c as usize] += v.to_f64();
                }
            }
            for l in 0..m {
                out[(i - start) * m + l] = silhouette(labelings, &sums, l, i);
            }
        }
        Ok(out)
    })?;
    let mut out = alloc::filled(m * n, 0.0f64, "the silhouettes")?;
    let mut i = 0;
    for part in parts {
        for row in part.chunks_exact(m) {
            for (l, &s) in row.iter().enumerate() {
                out[l * n + i] = s;
            }
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::testing::{brute, labels, points, pools};

    #[test]
    fn equals_the_pair_loops_on_every_thread_count() {
        for (n, ks) in [(1usize, vec![1usize]), (8, vec![3]), (300, vec![5, 2, 1])] {
            let x = points(n, 3, 2);
            let codes = labels(n, &ks, 9);
            let lab = Labelings::new(n, &codes, &ks).unwrap();
            let f = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(p, q)| (p - q).abs()).sum::<f64>();
            let mut dist = vec![0.0f64; n * n];
            for i in 0..n {
                for j in 0..n {
                    dist[i * n + j] = f(&x[i * 3..i * 3 + 3], &x[j * 3..j * 3 + 3]);
                }
            }
            let want = brute(&x, 3, &lab, f);
            let one = silhouettes(&dist, &lab, false).unwrap();
            for (g, w) in one.iter().zip(&want) {
                assert!((g - w).abs() < 1e-12);
            }
            for pool in pools() {
                assert_eq!(
                    pool.install(|| silhouettes(&dist, &lab, true)).unwrap(),
                    one
                );
            }
            let dist32: Vec<f32> = dist.iter().map(|&v| v as f32).collect();
            let got = silhouettes(&dist32, &lab, false).unwrap();
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-5);
            }
        }
        let lab = Labelings::new(2, &[0, 1], &[2]).unwrap();
        assert!(silhouettes(&[0.0f64; 3], &lab, false).is_err());
    }
}
