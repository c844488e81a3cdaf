//! The one call into the GEMM crate: `C = A · Bᵀ` for row-major blocks.
//!
//! `matrixmultiply` (register-blocked AVX2/FMA and AVX-512 kernels chosen at run time,
//! packing its panels itself, no threads of its own here) measured as fast as faer's
//! `gemm` on this project's 2-core AMD EPYC (AVX2) for the silhouette's 256 × 256 × 50
//! blocks, single-threaded: dgemm 7.8 and 8.0, sgemm 15.5 and 14.7 billion multiply-adds
//! a second, and it brings two small crates where `gemm` brings a dozen.

use super::float::Float;

/// An element type that has a GEMM.
pub(crate) trait Gemm: Float + super::columns::Tiles {
    /// `c[i * ldc + j] = Σ_k a[i * d + k] · b[j * d + k]` for `i < m`, `j < n` (`ldc >= n`).
    fn a_bt(a: &[Self], b: &[Self], m: usize, n: usize, d: usize, c: &mut [Self], ldc: usize);
}

macro_rules! gemm {
    ($t:ty, $f:path) => {
        impl Gemm for $t {
            #[inline]
            fn a_bt(a: &[$t], b: &[$t], m: usize, n: usize, d: usize, c: &mut [$t], ldc: usize) {
                if m == 0 || n == 0 {
                    return;
                }
                assert!(a.len() >= m * d && b.len() >= n * d);
                assert!(ldc >= n && c.len() >= (m - 1) * ldc + n);
                if d == 0 {
                    c.chunks_mut(ldc).take(m).for_each(|r| r[..n].fill(0.0));
                    return;
                }
                // SAFETY: the assertions above keep every element the call reads (A: m rows
                // of d at stride d; Bᵀ: n columns of d, each a row of `b`) and writes (C: m
                // rows of n at stride ldc) inside the slices; `c` is borrowed mutably, so it
                // overlaps neither input. Strides fit `isize`: they are at most a slice's
                // length.
                unsafe {
                    $f(
                        m,
                        d,
                        n,
                        1.0,
                        a.as_ptr(),
                        d as isize,
                        1,
                        b.as_ptr(),
                        1,
                        d as isize,
                        0.0,
                        c.as_mut_ptr(),
                        ldc as isize,
                        1,
                    );
                }
            }
        }
    };
}

gemm!(f32, matrixmultiply::sgemm);
gemm!(f64, matrixmultiply::dgemm);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_times_b_transposed() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let b = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0];
        let mut c = [0.0f64; 8];
        f64::a_bt(&a, &b, 2, 4, 3, &mut c, 4);
        assert_eq!(c, [4.0, 2.0, 12.0, 6.0, 10.0, 5.0, 30.0, 15.0]);
        let mut wide = [-1.0f64; 10];
        f64::a_bt(&a, &b, 2, 4, 3, &mut wide, 6);
        assert_eq!(
            wide,
            [4.0, 2.0, 12.0, 6.0, -1.0, -1.0, 10.0, 5.0, 30.0, 15.0]
        );
        let af: Vec<f32> = a.iter().map(|&v| v as f32).collect();
        let bf: Vec<f32> = b.iter().map(|&v| v as f32).collect();
        let mut cf = [0.0f32; 8];
        f32::a_bt(&af, &bf, 2, 4, 3, &mut cf, 4);
        assert_eq!(cf, [4.0, 2.0, 12.0, 6.0, 10.0, 5.0, 30.0, 15.0]);
    }
}
