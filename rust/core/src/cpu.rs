//! What the CPU can do, asked at run time, and the code built for it.
//!
//! Every `#[target_feature]` function of the crate is here, and every check of the
//! CPU's features: the builds of a [`Kernel`] (generic code compiled once more with
//! AVX2 or AVX-512 enabled, called only after the CPU was found to have them), the two
//! loops written with AVX-512 intrinsics (the wide table's mutual-information terms and
//! the compaction of a dense window's row), the cache prefetch hint and the stores of a
//! whole cache line past the caches (a partition's write-combining buffers). The callers
//! choose which builds to try; nothing here knows what it runs.

use std::mem::MaybeUninit;
use std::sync::OnceLock;

use crate::numeric::Sum;

/// Code to run in one of several builds: [`Kernel::run`] is compiled into each build's
/// `#[target_feature]` function here, so it must be `#[inline(always)]` (and whatever
/// it calls, for the whole loop to get the build's instructions).
pub(crate) trait Kernel {
    type Output;
    fn run(self) -> Self::Output;
}

/// A build of the code beyond the baseline: the instruction-set extensions it is
/// compiled with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Build {
    /// AVX2.
    Avx2,
    /// AVX-512 F, VL, BW and DQ.
    Avx512,
    /// AVX-512 F and VL.
    Avx512Vl,
    /// AVX-512 F and DQ.
    Avx512Dq,
}

/// The environment variable that caps the builds the core may run.
pub const CPU_VAR: &str = "FASTCLUSTER_METRICS_CPU";

/// A level of builds: a call runs the best build of its kernel at or below the level in
/// use ([`level`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// The baseline build alone (x86-64's SSE2, or the target's own).
    Baseline,
    /// The AVX2 builds too.
    Avx2,
    /// Every build, AVX-512 too.
    Avx512,
}

impl Level {
    /// Its name, as [`CPU_VAR`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Baseline => "baseline",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The level a build needs.
    fn of(build: Build) -> Level {
        match build {
            Build::Avx2 => Level::Avx2,
            Build::Avx512 | Build::Avx512Vl | Build::Avx512Dq => Level::Avx512,
        }
    }
}

/// The instruction-set extensions the core's builds use that this CPU has, by their
/// names in `/proc/cpuinfo`.
pub fn features() -> Vec<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        let all = [
            ("sse4.2", has!("sse4.2")),
            ("avx", has!("avx")),
            ("avx2", has!("avx2")),
            ("fma", has!("fma")),
            ("avx512f", has!("avx512f")),
            ("avx512vl", has!("avx512vl")),
            ("avx512bw", has!("avx512bw")),
            ("avx512dq", has!("avx512dq")),
        ];
        all.iter()
            .filter(|(_, on)| *on)
            .map(|(name, _)| *name)
            .collect()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Vec::new()
    }
}

/// The best level this CPU can run.
pub fn best() -> Level {
    if cpu_has(Build::Avx512) {
        Level::Avx512
    } else if cpu_has(Build::Avx2) {
        Level::Avx2
    } else {
        Level::Baseline
    }
}

/// The level [`CPU_VAR`] asks for (`baseline`, `avx2` or `avx512`, in any case), or the
/// best this CPU has where it is unset or empty; an error that names the variable, its
/// value and the CPU's features for a value it does not know or a level this CPU cannot
/// run. Read once, when first asked for: the binding asks at import.
pub fn level() -> Result<Level, String> {
    static LEVEL: OnceLock<Result<Level, String>> = OnceLock::new();
    LEVEL
        .get_or_init(|| level_of(std::env::var(CPU_VAR).ok().as_deref()))
        .clone()
}

fn level_of(value: Option<&str>) -> Result<Level, String> {
    let best = best();
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(best);
    };
    let features = features();
    let features = if features.is_empty() {
        "none of the x86-64 extensions".to_string()
    } else {
        features.join(" ")
    };
    let asked = match value.to_ascii_lowercase().as_str() {
        "baseline" => Level::Baseline,
        "avx2" => Level::Avx2,
        "avx512" => Level::Avx512,
        _ => {
            return Err(format!(
                "{CPU_VAR}={value:?} is not a build: give baseline, avx2 or avx512, or leave it \
                 unset for the best this CPU runs ({}; its features: {features})",
                best.name()
            ))
        }
    };
    if asked > best {
        return Err(format!(
            "{CPU_VAR}={value:?} asks for a build this CPU cannot run: it runs {} at most \
             (its features: {features})",
            best.name()
        ));
    }
    Ok(asked)
}

/// Whether this CPU can run `build`, and [`level`] lets it.
#[inline]
pub(crate) fn has(build: Build) -> bool {
    // an unreadable setting caps nothing here: the binding refuses it at import
    cpu_has(build) && level().map_or(true, |level| Level::of(build) <= level)
}

/// Whether this CPU can run `build`, whatever [`level`] says.
#[inline]
fn cpu_has(build: Build) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        match build {
            Build::Avx2 => has!("avx2"),
            Build::Avx512 => {
                has!("avx512f") && has!("avx512vl") && has!("avx512bw") && has!("avx512dq")
            }
            Build::Avx512Vl => has!("avx512f") && has!("avx512vl"),
            Build::Avx512Dq => has!("avx512f") && has!("avx512dq"),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = build;
        false
    }
}

/// `kernel` in the first of `builds` this CPU can run, else in the baseline build.
#[inline]
pub(crate) fn run_best<K: Kernel>(builds: &[Build], kernel: K) -> K::Output {
    let kernel = match builds.iter().find(|&&build| has(build)) {
        Some(&build) => match run_built(build, kernel) {
            Ok(out) => return out,
            Err(kernel) => kernel,
        },
        None => kernel,
    };
    kernel.run()
}

/// `kernel` in `build`, which the caller has found this CPU can run; the kernel back
/// where no build but the baseline exists (for the caller to run it where it is).
#[inline(always)]
fn run_built<K: Kernel>(build: Build, kernel: K) -> Result<K::Output, K> {
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = build;
        Err(kernel)
    }
    #[cfg(target_arch = "x86_64")]
    match build {
        // SAFETY: each function below is safe code compiled with the named extensions;
        // the only requirement for calling it is a CPU that has them, which the caller
        // has just checked with `has(build)`.
        Build::Avx2 => Ok(unsafe { avx2(kernel) }),
        // SAFETY: as above.
        Build::Avx512 => Ok(unsafe { avx512(kernel) }),
        // SAFETY: as above.
        Build::Avx512Vl => Ok(unsafe { avx512_vl(kernel) }),
        // SAFETY: as above.
        Build::Avx512Dq => Ok(unsafe { avx512_dq(kernel) }),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq")]
fn avx512<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
fn avx512_vl<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn avx512_dq<K: Kernel>(kernel: K) -> K::Output {
    kernel.run()
}

/// Asks the CPU to start loading the cache line holding `x`: a hint that reads nothing
/// into the program, so it cannot fault or change a result, whatever `x` points at.
#[inline(always)]
pub fn prefetch<T>(x: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; it dereferences nothing.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// [`prefetch`] for data read once: the line comes into L1 and leaves it first, not
/// pushing out lines that are used again (a partition's line buffers, [`stream_line`]).
#[inline(always)]
pub(crate) fn prefetch_once<T>(x: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; it dereferences nothing.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_NTA};
        _mm_prefetch::<_MM_HINT_NTA>(x.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// A cache line of values, aligned as one: a write-combining buffer of [`stream_line`].
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Line<T: Copy, const N: usize>(pub(crate) [T; N]);

/// Bytes in a cache line.
pub(crate) const LINE: usize = 64;

/// Copies a whole cache line to `dst`, which must start a line (64-byte aligned), with
/// non-temporal stores where the CPU has them: the line is written past the caches,
/// without the read of its old contents that an ordinary store makes first. Other
/// threads see the stores after [`store_fence`]. Falls back to an ordinary copy on other
/// CPUs or a destination that is not one aligned line.
#[inline(always)]
pub(crate) fn stream_line<T: Copy, const N: usize>(dst: &mut [T], line: &Line<T, N>) {
    debug_assert_eq!(std::mem::size_of::<Line<T, N>>(), LINE);
    #[cfg(target_arch = "x86_64")]
    if dst.len() == N
        && std::mem::size_of_val(dst) == LINE
        && (dst.as_ptr() as usize).is_multiple_of(LINE)
    {
        use std::arch::x86_64::{__m128i, _mm_load_si128, _mm_stream_si128};
        let from = line.0.as_ptr().cast::<__m128i>();
        let to = dst.as_mut_ptr().cast::<__m128i>();
        // SAFETY: SSE2, which every x86-64 CPU has; `line` is one aligned line (its
        // type's alignment) and `dst` was just checked to be one, so the four 16-byte
        // loads and stores stay within them, aligned.
        unsafe {
            for k in 0..4 {
                _mm_stream_si128(to.add(k), _mm_load_si128(from.add(k)));
            }
        }
        return;
    }
    dst.copy_from_slice(&line.0[..dst.len()]);
}

/// Orders the non-temporal stores of [`stream_line`] before every later store, for
/// other threads to see them once they see those.
#[inline]
pub(crate) fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE, which every x86-64 CPU has.
    unsafe {
        std::arch::x86_64::_mm_sfence();
    }
}

/// The tables a wide table's mutual-information terms read.
pub(crate) struct MiTables<'a> {
    /// ln k for small k.
    pub(crate) ln_small: &'a [f64],
    /// ln b_j.
    pub(crate) ln_cols: &'a [f64],
    /// ln n - ln a_i.
    pub(crate) row_part: &'a [f64],
    /// Terms below this in size count as zero.
    pub(crate) small: f64,
}

/// [`mi_eights_avx512`] where the CPU has AVX-512 F and DQ: how many cells it summed
/// into `s`; `None` (nothing summed) on other CPUs.
pub(crate) fn mi_eights(
    counts: &[u64],
    rows: &[u32],
    cols: &[u32],
    parts: &MiTables<'_>,
    s: &mut Sum,
) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if has(Build::Avx512Dq) {
        // SAFETY: the CPU has AVX-512F and DQ, just detected; nothing else is required.
        return Some(unsafe { mi_eights_avx512(counts, rows, cols, parts, s) });
    }
    let _ = (counts, rows, cols, parts, s);
    None
}

/// The wide-table mutual information's sum over eights of cells, eight cells to a
/// vector: the same terms as the scalar code (`scores::info`), added in the same order
/// (pairwise within an eight, then into `s`), so the same sum to the bit. Eights with a
/// count past the `ln_small` table or an index past its table are left to the caller,
/// from the first of them: returns how many cells were summed.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn mi_eights_avx512(
    counts: &[u64],
    rows: &[u32],
    cols: &[u32],
    parts: &MiTables<'_>,
    s: &mut Sum,
) -> usize {
    use std::arch::x86_64::*;
    let len = counts.len().min(rows.len()).min(cols.len()) / 8 * 8;
    let below = |n: usize| _mm512_set1_epi64(n.min(i64::MAX as usize) as i64);
    let (count_max, row_max, col_max) = (
        below(parts.ln_small.len()),
        below(parts.row_part.len()),
        below(parts.ln_cols.len()),
    );
    let small = _mm512_set1_pd(parts.small);
    // In registers, not through `s` (a store and reload per eight, on the sum's chain).
    let mut sum = *s;
    let mut j = 0;
    while j < len {
        // SAFETY: `j + 8 <= len` bounds the loads; every index gathered was just checked
        // to be within its table (the eight is left to the caller otherwise).
        unsafe {
            let c = _mm512_loadu_si512(counts.as_ptr().add(j).cast());
            let r = _mm512_cvtepu32_epi64(_mm256_loadu_si256(rows.as_ptr().add(j).cast()));
            let k = _mm512_cvtepu32_epi64(_mm256_loadu_si256(cols.as_ptr().add(j).cast()));
            let inside = _mm512_cmplt_epu64_mask(c, count_max)
                & _mm512_cmplt_epu64_mask(r, row_max)
                & _mm512_cmplt_epu64_mask(k, col_max);
            if inside != 0xff {
                break;
            }
            let ln_nij = _mm512_i64gather_pd::<8>(c, parts.ln_small.as_ptr().cast());
            let ln_col = _mm512_i64gather_pd::<8>(k, parts.ln_cols.as_ptr().cast());
            // The cells are in row order: an eight is most often all of one row.
            let first = _mm512_set1_epi64(_mm512_cvtsi512_si32(r) as i64);
            let row = if _mm512_cmpeq_epi64_mask(r, first) == 0xff {
                _mm512_set1_pd(parts.row_part[rows[j] as usize])
            } else {
                _mm512_i64gather_pd::<8>(r, parts.row_part.as_ptr().cast())
            };
            // n_ij ((ln n_ij - ln b_j) + (ln n - ln a_i)), as the scalar code rounds it.
            let t = _mm512_mul_pd(
                _mm512_cvtepi64_pd(c),
                _mm512_add_pd(_mm512_sub_pd(ln_nij, ln_col), row),
            );
            let keep = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(_mm512_abs_pd(t), small);
            let t = _mm512_maskz_mov_pd(keep, t);
            // ((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7)): a sum of two is the same
            // in either order, so each step adds a lane to its neighbour at 1, 2, then 4.
            let t = _mm512_add_pd(t, _mm512_permute_pd::<0b0101_0101>(t));
            let t = _mm512_add_pd(t, _mm512_permutex_pd::<0b0100_1110>(t));
            let t = _mm256_add_pd(_mm512_castpd512_pd256(t), _mm512_extractf64x4_pd::<1>(t));
            sum.add(_mm256_cvtsd_f64(t));
        }
        j += 8;
    }
    *s = sum;
    j
}

/// [`compact_u16_avx512`] where the CPU has AVX-512F: how many counts it read and how
/// many places it wrote; `None` (nothing done) on other CPUs.
#[inline]
pub(crate) fn compact_u16(
    counts: &[u16],
    position: &[u32],
    cols: &mut [MaybeUninit<u32>],
    cnts: &mut [MaybeUninit<u64>],
) -> Option<(usize, usize)> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F, just detected; nothing else is required.
        return Some(unsafe { compact_u16_avx512(counts, position, cols, cnts) });
    }
    let _ = (counts, position, cols, cnts);
    None
}

/// A dense window's row of `u16` counts compacted sixteen at a time (as the scalar
/// `table::dense::compact_scalar` does one at a time): the non-zero ones and their
/// positions packed together in registers (`vpcompressd`; its form that stores to memory
/// is slow on AMD's Zen 4), then written with masked stores of just the packed lanes
/// (the table of a 33 x 10,000 window of 1e6 samples written in 0.13 ms, against 0.27 ms
/// a count at a time).
/// Returns how many counts it read (a multiple of sixteen; the rest is the caller's) and
/// how many places it wrote.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn compact_u16_avx512(
    counts: &[u16],
    position: &[u32],
    cols: &mut [MaybeUninit<u32>],
    cnts: &mut [MaybeUninit<u64>],
) -> (usize, usize) {
    use std::arch::x86_64::*;
    let places = cols.len().min(cnts.len());
    let n = counts.len().min(position.len());
    let (mut j, mut m) = (0, 0);
    while j + 16 <= n && m < places {
        // SAFETY: `j + 16 <= n` bounds the loads; each store writes lanes `m..m + k` with
        // `k <= places - m` (masked stores touch no memory outside their mask), and the
        // addresses are formed with `wrapping_add`, so none is out of bounds unless used.
        unsafe {
            let c = _mm512_cvtepu16_epi32(_mm256_loadu_si256(counts.as_ptr().add(j).cast()));
            let p = _mm512_loadu_si512(position.as_ptr().add(j).cast());
            let nonzero = _mm512_test_epi32_mask(c, c);
            let k = (nonzero.count_ones() as usize).min(places - m);
            let keep = ((1u32 << k) - 1) as u16;
            let packed = _mm512_maskz_compress_epi32(nonzero, c);
            let cols_at = cols.as_mut_ptr().wrapping_add(m);
            let cnts_at = cnts.as_mut_ptr().wrapping_add(m);
            _mm512_mask_storeu_epi32(
                cols_at.cast(),
                keep,
                _mm512_maskz_compress_epi32(nonzero, p),
            );
            _mm512_mask_storeu_epi64(
                cnts_at.cast(),
                keep as u8,
                _mm512_cvtepu32_epi64(_mm512_castsi512_si256(packed)),
            );
            _mm512_mask_storeu_epi64(
                cnts_at.wrapping_add(8).cast(),
                (keep >> 8) as u8,
                _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(packed)),
            );
            m += k;
        }
        j += 16;
    }
    (j, m)
}

/// Helpers of the tests: each build on its own.
#[cfg(test)]
pub(crate) mod testing {
    use super::{has, run_built, Build, Kernel};

    /// `kernel` in `build`, if this CPU can run it (to compare the builds).
    pub(crate) fn run_on<K: Kernel>(build: Build, kernel: K) -> Option<K::Output> {
        has(build).then(|| run_built(build, kernel).unwrap_or_else(K::run))
    }
}

#[cfg(test)]
mod level_tests {
    use super::*;

    #[test]
    fn unset_or_empty_is_the_best_this_cpu_runs() {
        assert_eq!(level_of(None), Ok(best()));
        assert_eq!(level_of(Some("  ")), Ok(best()));
    }

    #[test]
    fn a_level_at_or_below_the_best_is_taken_in_any_case() {
        assert_eq!(level_of(Some("Baseline")), Ok(Level::Baseline));
        if best() >= Level::Avx2 {
            assert_eq!(level_of(Some("AVX2")), Ok(Level::Avx2));
        }
    }

    #[test]
    fn an_unknown_value_or_a_level_past_the_cpu_names_the_variable_and_the_features() {
        let err = level_of(Some("sse9")).unwrap_err();
        assert!(
            err.contains("FASTCLUSTER_METRICS_CPU=\"sse9\" is not a build"),
            "{err}"
        );
        assert!(err.contains("its features:"), "{err}");
        if best() < Level::Avx512 {
            let err = level_of(Some("avx512")).unwrap_err();
            assert!(err.contains("cannot run"), "{err}");
            assert!(err.contains(best().name()), "{err}");
        }
    }

    #[test]
    fn a_build_is_run_only_at_or_below_the_level() {
        for build in [Build::Avx2, Build::Avx512, Build::Avx512Vl, Build::Avx512Dq] {
            assert!(!has(build) || Level::of(build) <= level().unwrap());
        }
    }
}
