//! Each class's sum of its samples' squared weights, exactly: pair counts sum `w(x) w(y)`
//! over unordered pairs of distinct samples, `(c^2 - s) / 2` in a cell of weight `c` whose
//! samples' squares sum to `s`. A whole-number weight `k` stands for `k` samples of weight
//! 1 (squares summing to `k`), any other weight `w` for one sample (`w^2`).
//!
//! A weight of `u` units of 2^-64 squares to `u^2` units of 2^-128, below 2^232 (a weight
//! is below 2^52); a class's sum, below 2^252 (the weights total less than 2^62), is held
//! in four 64-bit limbs, least significant first. Sums of integers are exact: a class's
//! sum depends on neither the order of the samples nor the number of threads. The pass
//! adds to cheaper sums first: float weights by exponent ([`Buckets`], one product per
//! sample), other weights by three products ([`Running`]).

use rayon::prelude::*;

use crate::alloc;
use crate::error::Error;
use crate::label::Label;
use crate::pool;
use crate::stop;

use super::weight::{float_split, Weight, Weights};

/// A sum of squared weights in units of 2^-128: four limbs, least significant first.
pub type Squares = [u64; 4];

/// What a refused allocation was building.
const WHAT: &str = "each class's sum of squared weights";

/// Below this many samples the pass runs on the calling thread.
const PARALLEL_MIN: usize = 1 << 16;

/// Each row's sum of its samples' squares ([`add_sample`]), in units of 2^-128: `a` holds the
/// samples' row keys, `rows` the table's row keys (sorted, distinct). A sample whose key
/// is not a row weighs 0 (its class was left out of the table). The weights were checked
/// by the counting pass.
pub fn row_squares<A: Label>(
    a: &[A],
    w: Weights<'_>,
    rows: &[u64],
    threads: usize,
) -> Result<Vec<Squares>, Error> {
    let index = RowIndex::new(rows)?;
    let parts: Vec<Result<Vec<Squares>, Error>> = if threads <= 1 || a.len() < PARALLEL_MIN {
        vec![block(a, w, &index, rows)]
    } else {
        let size = a.len().div_ceil(threads);
        pool::run(|| {
            a.par_chunks(size)
                .enumerate()
                .map(|(k, x)| {
                    let start = k * size;
                    block(x, w.range(start, start + x.len()), &index, rows)
                })
                .collect()
        })
    };
    let mut sums = alloc::filled(rows.len(), [0u64; 4], WHAT)?;
    for part in parts {
        for (s, p) in sums.iter_mut().zip(part?) {
            add(s, &p);
        }
    }
    Ok(sums)
}

fn block<A: Label>(
    a: &[A],
    w: Weights<'_>,
    index: &RowIndex,
    rows: &[u64],
) -> Result<Vec<Squares>, Error> {
    let n = rows.len();
    match w {
        Weights::F64(w) if n <= BUCKET_ROWS => by_index(a, w, index, rows, Buckets::new(n)),
        Weights::F64(w) => by_index(
            a,
            w,
            index,
            rows,
            alloc::filled(n, Running::default(), WHAT)?,
        ),
        Weights::I64(w) => by_index(
            a,
            w,
            index,
            rows,
            alloc::filled(n, Running::default(), WHAT)?,
        ),
        Weights::U64(w) => by_index(
            a,
            w,
            index,
            rows,
            alloc::filled(n, Running::default(), WHAT)?,
        ),
    }
}

/// Finds each sample's row ([`RowIndex`]) and adds its weight to `sums`.
fn by_index<A: Label, W: Weight, S: RowSums<W>>(
    a: &[A],
    w: &[W],
    index: &RowIndex,
    rows: &[u64],
    sums: S,
) -> Result<Vec<Squares>, Error> {
    fn go<A: Label, W: Weight, S: RowSums<W>>(
        a: &[A],
        w: &[W],
        row_of: impl Fn(u64) -> Option<usize>,
        mut sums: S,
    ) -> Result<Vec<Squares>, Error> {
        for (xs, ws) in a.chunks(FLUSH_EVERY).zip(w.chunks(FLUSH_EVERY)) {
            for (xs, ws) in xs.chunks(stop::EVERY).zip(ws.chunks(stop::EVERY)) {
                stop::check()?;
                for (&x, &v) in xs.iter().zip(ws) {
                    if let Some(r) = row_of(x.key()) {
                        sums.add(r, v);
                    }
                }
            }
            sums.flush();
        }
        sums.totals()
    }
    match index {
        RowIndex::Dense { start, position } => go(
            a,
            w,
            |key| {
                let p = *position.get(key.wrapping_sub(*start) as usize)?;
                (p != RowIndex::ABSENT).then_some(p as usize)
            },
            sums,
        ),
        RowIndex::Search => go(a, w, |key| rows.binary_search(&key).ok(), sums),
    }
}

/// Samples between two [`RowSums::flush`] calls: [`Buckets`] add at most this many
/// squares below 2^106 to a `u128`, which therefore cannot overflow.
const FLUSH_EVERY: usize = 1 << 22;

/// Each row's sum of its samples' squares, as it is being added up.
trait RowSums<W> {
    /// Adds a sample of weight `w` to row `r` ([`add_sample`]'s rule).
    fn add(&mut self, r: usize, w: W);
    /// Called after every [`FLUSH_EVERY`] samples.
    fn flush(&mut self) {}
    /// Each row's sum in units of 2^-128.
    fn totals(self) -> Result<Vec<Squares>, Error>;
}

impl<W: Weight> RowSums<W> for Vec<Running> {
    #[inline(always)]
    fn add(&mut self, r: usize, w: W) {
        self[r].add(w.units());
    }

    fn totals(self) -> Result<Vec<Squares>, Error> {
        alloc::collect(self.iter().map(Running::total), WHAT)
    }
}

/// At most this many rows sum float weights by exponent ([`Buckets`]: 1.5 MiB at most).
const BUCKET_ROWS: usize = 1024;

/// Float weights summed by exponent: a weight of at least 2^-12 is `m 2^(k - 64)` for its
/// 53-bit mantissa `m` and `k = exponent - 1011` in `0..64` (a weight is below 2^52), so
/// exactly `m << k` units of 2^-64, and its square `m^2 << 2k` units of 2^-128. Each row
/// adds `m^2` (below 2^106) to the `u128` of its `k`: one product and one add per sample.
/// At most [`FLUSH_EVERY`] (2^22) of them are added before [`RowSums::flush`] moves the
/// `u128`s into the rows' 256-bit sums, so none overflows. Whole weights add their value to
/// the slot [`WHOLE`]; smaller weights (rounded to units `u`) add `u^2` to the slot of
/// `k = 0` ([`float_split`]). Float-weighted ARI at 1e7: 32.6 ms, against 59 ms with three
/// products a sample.
struct Buckets {
    /// [`SLOTS`] a row: the sums of `m^2` by `k`, then ([`WHOLE`]) of the whole weights.
    by_shift: Vec<u128>,
    sums: Vec<Squares>,
}

/// A row's slots in [`Buckets::by_shift`]: one for each shift `k`, and [`WHOLE`].
pub(super) const SLOTS: u32 = 65;

/// The slot of whole weights: their values, as squares shifted by `2 * 64`, are units of
/// 2^-128 times 2^128.
pub(super) const WHOLE: u32 = 64;

impl Buckets {
    fn new(rows: usize) -> Buckets {
        Buckets {
            by_shift: vec![0; rows * SLOTS as usize],
            sums: vec![[0; 4]; rows],
        }
    }
}

impl RowSums<f64> for Buckets {
    #[inline(always)]
    fn add(&mut self, r: usize, w: f64) {
        let x = float_split(w.to_bits());
        let shift = if x.whole { WHOLE } else { x.shift };
        let extra = if x.whole { x.hi } else { 0 };
        self.by_shift[r * SLOTS as usize + shift as usize] +=
            u128::from(x.root) * u128::from(x.root) + u128::from(extra);
    }

    fn flush(&mut self) {
        for (acc, row) in self
            .sums
            .iter_mut()
            .zip(self.by_shift.chunks_exact_mut(SLOTS as usize))
        {
            for (k, sum) in row.iter_mut().enumerate() {
                if *sum != 0 {
                    add_shifted(acc, *sum, 2 * k as u32);
                    *sum = 0;
                }
            }
        }
    }

    fn totals(mut self) -> Result<Vec<Squares>, Error> {
        self.flush();
        Ok(self.sums)
    }
}

/// Float weights' squares summed inside the counting pass ([`super::weighted`]), for rows
/// of keys `first..first + rows` (a counter's dense window): the second pass over the
/// labels and the weights is then not needed. At most [`BUCKET_ROWS`] rows.
pub(super) struct Fused {
    first: u64,
    buckets: Buckets,
    /// Samples added since the last flush.
    added: usize,
}

impl Fused {
    /// Sums for the rows of keys `first..first + rows`; `None` past [`BUCKET_ROWS`] rows.
    pub(super) fn new(first: u64, rows: u64) -> Option<Fused> {
        (rows <= BUCKET_ROWS as u64).then(|| Fused {
            first,
            buckets: Buckets::new(rows as usize),
            added: 0,
        })
    }

    /// Adds each weight `w[k]` to the row of key `first + rows[k]`.
    #[inline(always)]
    pub(super) fn add(&mut self, rows: &[u32], w: &[f64]) {
        if self.added + w.len() > FLUSH_EVERY {
            self.buckets.flush();
            self.added = 0;
        }
        self.added += w.len();
        for (&r, &v) in rows.iter().zip(w) {
            self.buckets.add(r as usize, v);
        }
    }

    /// Adds `root[k]^2 + extra[k]` to each slot `slot[k]` (`row * SLOTS + shift`, the row's
    /// key less `first`): weights split by [`float_split`], without a branch on them.
    ///
    #[inline(always)]
    pub(super) fn add_slots(&mut self, slot: &[u32], root: &[u64], extra: &[u64]) {
        if self.added + slot.len() > FLUSH_EVERY {
            self.buckets.flush();
            self.added = 0;
        }
        self.added += slot.len();
        let by_shift = &mut self.buckets.by_shift;
        for ((&s, &r), &e) in slot.iter().zip(root).zip(extra) {
            if let Some(sum) = by_shift.get_mut(s as usize) {
                *sum += u128::from(r) * u128::from(r) + u128::from(e);
            }
        }
    }

    /// The same sums for the rows of keys `first..first + rows` (which hold the current
    /// ones); `None` past [`BUCKET_ROWS`] rows.
    pub(super) fn regrow(mut self, first: u64, rows: u64) -> Option<Fused> {
        let mut out = Fused::new(first, rows)?;
        self.buckets.flush();
        let shift = (self.first - first) as usize;
        let old = self.buckets;
        let new = &mut out.buckets;
        new.sums[shift..][..old.sums.len()].copy_from_slice(&old.sums);
        Some(out)
    }

    /// Each row's sum, with the key of the first.
    fn totals(self) -> Result<(u64, Vec<Squares>), Error> {
        Ok((self.first, self.buckets.totals()?))
    }
}

/// The sums of every counter's [`Fused`] rows, for the rows of `keys` (sorted, distinct).
pub(super) fn fused_squares(parts: Vec<Fused>, keys: &[u64]) -> Result<Vec<Squares>, Error> {
    let mut out = alloc::filled(keys.len(), [0u64; 4], WHAT)?;
    for part in parts {
        let (first, sums) = part.totals()?;
        let last = first + sums.len() as u64;
        let from = keys.partition_point(|&k| k < first);
        for (acc, &k) in out[from..].iter_mut().zip(&keys[from..]) {
            if k >= last {
                break;
            }
            add(acc, &sums[(k - first) as usize]);
        }
    }
    Ok(out)
}

/// A row's running sum of squares, cheap to add to. A weight of `u` units (below 2^116)
/// splits as `h 2^58 + l` (`h`, `l` below 2^58), so `u^2 = h^2 2^116 + 2 h l 2^58 + l^2`:
/// three products below 2^116, each added to a `u128` whose overflows are counted. Whole
/// weights add their value to `whole`. No branch depends on the weight.
#[derive(Clone, Copy, Default)]
struct Running {
    hh: u128,
    hl: u128,
    ll: u128,
    whole: u128,
    carries: [u64; 3],
}

impl Running {
    /// Adds a sample of `u` units ([`add_sample`]'s rule).
    #[inline(always)]
    fn add(&mut self, u: u128) {
        const LOW: u64 = (1 << 58) - 1;
        // All ones when `u` has a fractional part, else zero.
        let real = 0u64.wrapping_sub(u64::from(u as u64 != 0));
        let h = ((u >> 58) as u64) & real;
        let l = (u as u64) & LOW & real;
        self.whole += (u >> 64) & u128::from(!real);
        let sums = [
            u128::from(h) * u128::from(h),
            u128::from(h) * u128::from(l),
            u128::from(l) * u128::from(l),
        ];
        for ((acc, carry), x) in [&mut self.hh, &mut self.hl, &mut self.ll]
            .into_iter()
            .zip(&mut self.carries)
            .zip(sums)
        {
            let (sum, overflow) = acc.overflowing_add(x);
            *acc = sum;
            *carry += u64::from(overflow);
        }
    }

    /// The sum in units of 2^-128.
    fn total(&self) -> Squares {
        let mut acc = [0u64; 4];
        for (part, carry, shift) in [
            (self.hh, self.carries[0], 116),
            (self.hl, self.carries[1], 59),
            (self.ll, self.carries[2], 0),
        ] {
            add_shifted(&mut acc, part, shift);
            add_shifted(&mut acc, u128::from(carry), shift + 128);
        }
        add_at(&mut acc, 2, self.whole);
        acc
    }
}

/// Adds `v * 2^shift` to `acc` (the sum stays below 2^256).
fn add_shifted(acc: &mut Squares, v: u128, shift: u32) {
    let (k, bits) = ((shift / 64) as usize, shift % 64);
    let wide = [v as u64, (v >> 64) as u64, 0];
    for j in (0..3).rev() {
        let limb = if bits == 0 {
            wide[j]
        } else {
            (wide[j] << bits) | if j > 0 { wide[j - 1] >> (64 - bits) } else { 0 }
        };
        if k + j < 4 {
            add_at(acc, k + j, u128::from(limb));
        }
    }
}

/// Finds a key's row: directly over the key range when it is narrow, by binary search
/// otherwise.
enum RowIndex {
    Dense { start: u64, position: Vec<u32> },
    Search,
}

impl RowIndex {
    const ABSENT: u32 = u32::MAX;

    fn new(rows: &[u64]) -> Result<RowIndex, Error> {
        let (Some(&first), Some(&last)) = (rows.first(), rows.last()) else {
            return Ok(RowIndex::Search);
        };
        if last - first > 4 * rows.len() as u64 + 4096 || rows.len() >= Self::ABSENT as usize {
            return Ok(RowIndex::Search);
        }
        let mut position = alloc::filled((last - first) as usize + 1, Self::ABSENT, WHAT)?;
        for (i, &k) in rows.iter().enumerate() {
            position[(k - first) as usize] = i as u32;
        }
        Ok(RowIndex::Dense {
            start: first,
            position,
        })
    }
}

/// Adds a sample of `u` units to `acc` (the rule [`Running`] adds by, one sample at a time:
/// the tests' oracle): `u / 2^64` squared, or `u / 2^64` itself when it
/// is a whole number (that many samples of weight 1).
#[cfg(test)]
fn add_sample(acc: &mut Squares, u: u128) {
    if u as u64 == 0 {
        add_at(acc, 2, u >> 64);
    } else {
        add_square(acc, u);
    }
}

/// Adds `u * u` to `acc`.
#[cfg(test)]
fn add_square(acc: &mut Squares, u: u128) {
    let (high, low) = (u >> 64, u & u128::from(u64::MAX));
    let middle = high * low;
    add_at(acc, 0, low * low);
    add_at(acc, 1, middle);
    add_at(acc, 1, middle);
    add_at(acc, 2, high * high);
}

/// Adds `v * 2^(64 k)` to `acc` (no carry leaves the last limb: sums stay below 2^256).
#[inline(always)]
fn add_at(acc: &mut Squares, k: usize, v: u128) {
    let mut carry = v;
    for limb in acc[k..].iter_mut() {
        if carry == 0 {
            break;
        }
        let s = u128::from(*limb) + (carry & u128::from(u64::MAX));
        *limb = s as u64;
        carry = (carry >> 64) + (s >> 64);
    }
}

/// Adds `other` to `acc`.
fn add(acc: &mut Squares, other: &Squares) {
    for (k, &limb) in other.iter().enumerate() {
        add_at(acc, k, u128::from(limb));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    fn value(s: &Squares) -> (u128, u128) {
        // (high 128 bits, low 128 bits)
        (
            (u128::from(s[3]) << 64) | u128::from(s[2]),
            (u128::from(s[1]) << 64) | u128::from(s[0]),
        )
    }

    #[test]
    fn running_sums_equal_adding_each_square_in_256_bits() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let max = (1u128 << 116) - 1;
        let mut samples: Vec<u128> = vec![max; 20_000];
        samples.extend([1u128 << 64, 7u128 << 64, ((1u128 << 52) - 1) << 64, 1, 0]);
        for _ in 0..20_000 {
            let u = ((u128::from(next()) << 64) | u128::from(next())) & max;
            // Some whole numbers among the real ones.
            samples.push(if next().is_multiple_of(4) {
                u & !u128::from(u64::MAX)
            } else {
                u
            });
        }
        let mut running = Running::default();
        let mut want = [0u64; 4];
        for &u in &samples {
            running.add(u);
            add_sample(&mut want, u);
        }
        // 20,000 maximal squares overflow each u128 part several times.
        assert!(running.carries.iter().all(|&c| c > 0));
        assert_eq!(running.total(), want);
    }

    #[test]
    fn float_buckets_equal_adding_each_square_in_256_bits() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut weights = vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            5e-324,
            2f64.powi(-12),
            2f64.powi(-11),
            2f64.powi(-13) * 3.0,
            0.1,
            1.0,
            7.0,
            2f64.powi(51),
            2f64.powi(52) - 1.0,
            2f64.powi(52) - 0.5,
            (2f64.powi(52) - 1.0) / 2.0,
        ];
        // Every bit of the mantissa used, over the whole range of magnitudes; whole numbers;
        // the same large weight more than 2^22 times (more than a u128 holds).
        for _ in 0..50_000 {
            let scale = 2f64.powi((next() % 70) as i32 - 18);
            let w = (next() >> 11) as f64 / 2f64.powi(53) * scale;
            weights.push(if next().is_multiple_of(5) {
                w.floor()
            } else {
                w
            });
        }
        let random = weights.len();
        weights.extend(std::iter::repeat_n(2f64.powi(52) - 0.5, 4_500_000));
        let mut buckets = Buckets::new(3);
        let mut want = vec![[0u64; 4]; 3];
        for (i, &w) in weights.iter().enumerate() {
            let r = if i < random { i % 3 } else { 0 };
            buckets.add(r, w);
            // As `by_index` does: 2^22 squares below 2^106 fill a u128 at most.
            if i % FLUSH_EVERY == FLUSH_EVERY - 1 {
                buckets.flush();
            }
            add_sample(&mut want[r], w.units());
        }
        assert_eq!(buckets.totals().unwrap(), want);
    }

    #[test]
    fn many_rows_of_float_weights_sum_without_buckets() {
        // More rows than [`BUCKET_ROWS`]: each float weight goes to its row's `Running` sum.
        let rows: Vec<u64> = (0..3000).collect();
        let a: Vec<u64> = (0..100_000u64).map(|i| (i * 7919) % 3000).collect();
        let w: Vec<f64> = (0..100_000u32).map(|i| f64::from(i % 29) / 7.0).collect();
        let got = row_squares(&a, Weights::F64(&w), &rows, 2).unwrap();
        let mut want = vec![[0u64; 4]; rows.len()];
        for (&x, &v) in a.iter().zip(&w) {
            add_sample(&mut want[x as usize], v.units());
        }
        assert!(rows.len() > BUCKET_ROWS);
        assert_eq!(got, want);
    }

    #[test]
    fn squares_are_exact_in_256_bits() {
        let mut acc = [0u64; 4];
        add_square(&mut acc, 3);
        assert_eq!(value(&acc), (0, 9));
        // (2^64)^2 = 2^128.
        let mut acc = [0u64; 4];
        add_square(&mut acc, 1 << 64);
        assert_eq!(value(&acc), (1, 0));
        // (2^116 - 1)^2 = 2^232 - 2^117 + 1.
        let mut acc = [0u64; 4];
        let u = (1u128 << 116) - 1;
        add_square(&mut acc, u);
        let (high, low) = value(&acc);
        assert_eq!(low, 1u128.wrapping_sub(1 << 117));
        assert_eq!(high, (1 << 104) - 1);
        // Carries across every limb: 2^64 - 1 squared twice.
        let mut acc = [u64::MAX; 4];
        acc[3] = 0;
        add_square(&mut acc, 1);
        assert_eq!(acc, [0, 0, 0, 1]);
    }

    #[test]
    fn rows_sum_their_samples_squares_on_any_thread_count() {
        let a: Vec<u32> = (0..200_000u32).map(|i| (i * 7919) % 13 + 100).collect();
        let w: Vec<f64> = (0..200_000u32).map(|i| f64::from(i % 17) / 8.0).collect();
        let rows: Vec<u64> = (100..113).collect();
        let one = row_squares(&a, Weights::F64(&w), &rows, 1).unwrap();
        let two = row_squares(&a, Weights::F64(&w), &rows, 2).unwrap();
        assert_eq!(one, two);
        for (r, s) in rows.iter().zip(&one) {
            // Each weight is k/8: its square is k^2/64 = k^2 * 2^122 units of 2^-128, or
            // k/8 = 8k * 2^122 units when it is whole.
            let want: u128 = a
                .iter()
                .zip(&w)
                .filter(|(&x, _)| u64::from(x) == *r)
                .map(|(_, &v)| {
                    let k = (v * 8.0) as u128;
                    if k.is_multiple_of(8) {
                        8 * k
                    } else {
                        k * k
                    }
                })
                .sum();
            assert_eq!(value(s), (want >> 6, (want & 63) << 122));
        }
        // Sparse keys find their rows by binary search; a key outside the rows is skipped.
        // Whole weights count as that many samples of weight 1: 2.0 adds 2, 1.0 adds 1.
        let a = [5u64, 1 << 40, 5, 7];
        let w = [0.5, 2.0, 1.0, 3.0];
        let got = row_squares(&a, Weights::F64(&w), &[5, 1 << 40], 1).unwrap();
        assert_eq!(value(&got[0]), (1, 1 << 126));
        assert_eq!(value(&got[1]), (2, 0));
        let w = [0.5, 2.5, 1.0, 3.0];
        let got = row_squares(&a, Weights::F64(&w), &[5, 1 << 40], 1).unwrap();
        assert_eq!(value(&got[1]), (6, 1 << 126));
    }
}
