//! A block of distances added by columns into the sums of its columns' clusters, four rows
//! at a time ([`AddColumns`]), with AVX2: four rows' runs of four values turned into four
//! columns in registers (`unpack` and `permute2f128`, the classic 4 × 4 transpose), where
//! the portable loop compiles to four scalar loads and inserts per column (measured at a
//! fifth of a single labeling's time on float32 data). The additions are the portable
//! loop's, in its order, so the sums are the same to the bit on every build.

use super::float::Float;
use crate::cpu::Kernel;

/// Each column `q` of `dist` (`rows × cols`, rows `pitch` apart; the samples `first + q`)
/// added, in `f64`, to the sums (cluster by cluster, `stride` apart) of its sample's
/// cluster in every labeling: the rows of `Dᵀ`, read from four rows of `dist` at a time
/// rather than from a transposed copy (which cost a sixth of a single labeling's time).
/// Each sum takes the columns in turn: in sample order, not by cluster as the rows are
/// ([`super::runs`]), for the columns to be read four at a time.
pub(crate) struct AddColumns<'a, T> {
    pub(super) dist: &'a [T],
    pub(super) rows: usize,
    pub(super) cols: usize,
    pub(super) pitch: usize,
    pub(super) clusters: &'a [u32],
    pub(super) first: usize,
    pub(super) n: usize,
    pub(super) m: usize,
    pub(super) sums: &'a mut [f64],
    /// The distance between two clusters' sums.
    pub(super) stride: usize,
}

impl<T: Float + Tiles> Kernel for AddColumns<'_, T> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let (rows, cols) = (self.rows, self.cols);
        if cols == 0 {
            return;
        }
        let clusters = &self.clusters[..(self.m - 1) * self.n + self.first + cols];
        let stride = self.stride;
        let whole = rows / 4 * 4;
        let tiles = cols / 4 * 4;
        for r0 in (0..whole).step_by(4) {
            let p = self.pitch;
            let row = |t: usize| &self.dist[(r0 + t) * p..(r0 + t) * p + cols];
            let (d0, d1, d2, d3) = (row(0), row(1), row(2), row(3));
            let mut to = Target {
                clusters,
                n: self.n,
                first: self.first,
                m: self.m,
                sums: &mut *self.sums,
                stride,
                r0,
            };
            let from = if T::add_tiles([d0, d1, d2, d3], tiles, &mut to) {
                tiles
            } else {
                0
            };
            for q in from..cols {
                let column = [
                    d0[q].to_f64(),
                    d1[q].to_f64(),
                    d2[q].to_f64(),
                    d3[q].to_f64(),
                ];
                for l in 0..self.m {
                    let c = clusters[l * self.n + self.first + q] as usize;
                    let s = &mut self.sums[c * stride + r0..c * stride + r0 + 4];
                    for t in 0..4 {
                        s[t] += column[t];
                    }
                }
            }
        }
        for r in whole..rows {
            let p = self.pitch;
            for (q, &v) in self.dist[r * p..r * p + cols].iter().enumerate() {
                for l in 0..self.m {
                    let c = clusters[l * self.n + self.first + q] as usize;
                    self.sums[c * stride + r] += v.to_f64();
                }
            }
        }
    }
}

/// Where four rows' columns go: row `r0`'s run of four in the sums of column `q`'s cluster
/// in every labeling (`clusters[l * n + first + q]`), the clusters' sums `stride` apart.
/// (Read by the AVX2 path alone: on other architectures the portable loop does the work.)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct Target<'a> {
    pub(super) clusters: &'a [u32],
    pub(super) n: usize,
    pub(super) first: usize,
    pub(super) m: usize,
    pub(super) sums: &'a mut [f64],
    pub(super) stride: usize,
    pub(super) r0: usize,
}

/// An element type whose four-row strips have an AVX2 path.
pub(crate) trait Tiles: Sized {
    /// Columns `0..tiles` (a multiple of four) of the four rows `rows` added to `to`, in
    /// column order; false (nothing done) where AVX2 is not to be used.
    fn add_tiles(rows: [&[Self]; 4], tiles: usize, to: &mut Target<'_>) -> bool;
}

macro_rules! tiles {
    ($t:ty, $f:ident) => {
        impl Tiles for $t {
            #[inline]
            fn add_tiles(rows: [&[$t]; 4], tiles: usize, to: &mut Target<'_>) -> bool {
                #[cfg(target_arch = "x86_64")]
                if crate::cpu::has(crate::cpu::Build::Avx2) {
                    assert!(rows.iter().all(|r| r.len() >= tiles) && tiles % 4 == 0);
                    // SAFETY: the CPU has AVX2 and the setting allows it, just checked; the
                    // function reads and writes only through slices indexed with checks.
                    unsafe { $f(rows, tiles, to) };
                    return true;
                }
                let _ = (rows, tiles, to);
                false
            }
        }
    };
}

tiles!(f32, tiles_f32);
tiles!(f64, tiles_f64);

/// Column `q`'s four values (rows `r0..r0 + 4`) added to its clusters' sums.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn add(to: &mut Target<'_>, q: usize, column: std::arch::x86_64::__m256d) {
    use std::arch::x86_64::*;
    for l in 0..to.m {
        let c = to.clusters[l * to.n + to.first + q] as usize;
        let at = c * to.stride + to.r0;
        let s = &mut to.sums[at..at + 4];
        // SAFETY: `s` holds the four `f64` read and written.
        unsafe {
            _mm256_storeu_pd(
                s.as_mut_ptr(),
                _mm256_add_pd(_mm256_loadu_pd(s.as_ptr()), column),
            )
        };
    }
}

/// The first four values of `s`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn four_f64(s: &[f64]) -> std::arch::x86_64::__m256d {
    let s = &s[..4];
    // SAFETY: `s` holds the four `f64` read.
    unsafe { std::arch::x86_64::_mm256_loadu_pd(s.as_ptr()) }
}

/// The first four values of `s`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn four_f32(s: &[f32]) -> std::arch::x86_64::__m128 {
    let s = &s[..4];
    // SAFETY: `s` holds the four `f32` read.
    unsafe { std::arch::x86_64::_mm_loadu_ps(s.as_ptr()) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn tiles_f64(rows: [&[f64]; 4], tiles: usize, to: &mut Target<'_>) {
    use std::arch::x86_64::*;
    let [r0, r1, r2, r3] = rows;
    for q0 in (0..tiles).step_by(4) {
        let (a, b) = (four_f64(&r0[q0..]), four_f64(&r1[q0..]));
        let (c, e) = (four_f64(&r2[q0..]), four_f64(&r3[q0..]));
        let (t0, t1) = (_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b));
        let (t2, t3) = (_mm256_unpacklo_pd(c, e), _mm256_unpackhi_pd(c, e));
        add(to, q0, _mm256_permute2f128_pd::<0x20>(t0, t2));
        add(to, q0 + 1, _mm256_permute2f128_pd::<0x20>(t1, t3));
        add(to, q0 + 2, _mm256_permute2f128_pd::<0x31>(t0, t2));
        add(to, q0 + 3, _mm256_permute2f128_pd::<0x31>(t1, t3));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn tiles_f32(rows: [&[f32]; 4], tiles: usize, to: &mut Target<'_>) {
    use std::arch::x86_64::*;
    let [r0, r1, r2, r3] = rows;
    for q0 in (0..tiles).step_by(4) {
        let (a, b) = (four_f32(&r0[q0..]), four_f32(&r1[q0..]));
        let (c, e) = (four_f32(&r2[q0..]), four_f32(&r3[q0..]));
        let (t0, t1) = (_mm_unpacklo_ps(a, b), _mm_unpackhi_ps(a, b));
        let (t2, t3) = (_mm_unpacklo_ps(c, e), _mm_unpackhi_ps(c, e));
        add(to, q0, _mm256_cvtps_pd(_mm_movelh_ps(t0, t2)));
        add(to, q0 + 1, _mm256_cvtps_pd(_mm_movehl_ps(t2, t0)));
        add(to, q0 + 2, _mm256_cvtps_pd(_mm_movelh_ps(t1, t3)));
        add(to, q0 + 3, _mm256_cvtps_pd(_mm_movehl_ps(t3, t1)));
    }
}
