//! The plan of a wide table's count: how a pair of keys makes a cell number, which range
//! of cell numbers it falls in and how that range is counted ([`Mode`]), and where a
//! range's cells lie in rows and columns ([`CellOffsets`]).

use crate::label::Label;
use crate::partitioned::CellNumbers;

/// Low bits of a dense range: its 2^16 `u32` counts (256 kB) stay in L2.
pub(super) const DENSE_BITS: u32 = 16;
/// Dense ranges are read whole, every cell: faster than sorting while the table has at
/// most this many cells a sample (at 1e6 samples, 4.3 cells a sample sorted in 17 ms
/// against 23 ms dense; at 3e6, 3.3 cells a sample took the same either way).
const DENSE_PER_SAMPLE: u64 = 4;
/// Ranges are counted as a bitmap of their cells, a bit a cell, while the table has at
/// most this many cells a sample: a word of 64 cells read out costs less than the sort's
/// passes over the sample or two it holds. (At 1e7 samples on one thread, counting the
/// ranges took 48 ms against 61 sorted at 6.4 cells a sample, 54 against 63 at 14, 58
/// against 64 at 40, but 69 against 64 at 90.)
const MARKED_PER_SAMPLE: u64 = 64;
/// Low bits of a marked range at most: its bitmap (256 kB) stays in L2.
const MARKED_BITS: u32 = 21;
/// Samples a sorted range holds on average: their `u32`s and their copy sort within L2,
/// and the ranges are few enough for the partition's line buffers (64 bytes a range) to
/// stay in L1 (a million labels a side at 1e7: 512 ranges, 10 % faster than 2048).
const SORTED_SAMPLES: u64 = 1 << 14;
/// Ranges at most: each thread's second pass writes to all of them at once. (Ranges
/// number n / 2^14 or fewer but where `u32` low bits need more: a million labels a side.)
const RANGES_MAX: u64 = 1 << 16;
/// The most key values one side may span: its sums are an array over them.
const SIDE_MAX: u64 = 1 << 26;

/// How a table is partitioned: its key ranges and cell numbers' ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    a_lo: u64,
    b_lo: u64,
    na: u64,
    nb: u64,
    /// The cell numbers of a row: `nb`, or for sorted ranges the power of two at or above
    /// it, so that a range's samples find their rows and columns by shifts
    /// ([`CellOffsets`]).
    pub(super) stride: u64,
    /// A cell's range is its number shifted right by this much; its low bits fit a `u32`.
    pub(super) shift: u32,
    pub(super) ranges: usize,
    /// How each range is counted.
    pub(super) mode: Mode,
    /// Whether the sums of a count that keeps no cells are added up from the samples
    /// ([`tally_range`], [`tally_hashed`], [`tally_dense`]): where ranges are marked or
    /// sorted, or dense with a cell or more a sample (a dense range's counts read out cost
    /// less where the cells are fewer: metacells, 0.4 cells a sample, 24 ms read out
    /// against 29 ms tallied; 50 classes against 2e5 clusters, a cell a sample, 32 against
    /// 29.5 ms); and where [`Divisor`] divides a cell's offset from its range's first row (so far as `u32` low
    /// bits reach, always), with two columns or more.
    ///
    /// [`tally_range`]: super::marked::tally_range
    /// [`tally_hashed`]: super::hashed::tally_hashed
    /// [`tally_dense`]: super::dense::tally_dense
    pub(super) tallies: bool,
}

/// How a range's cells are counted from its samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// In an array of counts, every cell (low bits `u16`).
    Dense,
    /// As bits set in a bitmap of its cells, the samples that find theirs set already
    /// counted apart (`u32`).
    Marked,
    /// By sorting its samples (`u32`).
    Sorted,
}

impl Plan {
    /// The plan for `n` samples whose keys span `a` and `b` (inclusive), if their table is
    /// wider than `window` cells and this path can count it: fewer than 2^32 samples,
    /// sides of at most a few times `n` values, and cell numbers that fit.
    pub(crate) fn new(n: usize, a: (u64, u64), b: (u64, u64), window: u64) -> Option<Plan> {
        let n = n as u64;
        let side_max = (4 * n).clamp(1 << 20, SIDE_MAX);
        let na = (a.1.checked_sub(a.0)?).checked_add(1)?;
        let nb = (b.1.checked_sub(b.0)?).checked_add(1)?;
        if n > u64::from(u32::MAX) || na > side_max || nb > side_max {
            return None;
        }
        let cells = na.checked_mul(nb)?;
        if cells <= window {
            return None;
        }
        let dense = cells <= DENSE_PER_SAMPLE * n && (cells >> DENSE_BITS) < RANGES_MAX;
        let shift = if dense {
            DENSE_BITS
        } else {
            narrow_shift(n, cells)?
        };
        let mode = if dense {
            Mode::Dense
        } else if cells <= MARKED_PER_SAMPLE * n && (6..=MARKED_BITS).contains(&shift) {
            Mode::Marked
        } else {
            Mode::Sorted
        };
        // Sorted ranges, the widest tables', in rows of a power of two: a sample's row and
        // column are two shifts, not a division (a million labels a side at 1e7, the
        // ranges' tally on one thread: 63.4 ms in rows of `nb`, 55.8 in rows of 2^20 with
        // the loops apart, best of 5; with the loops apart alone, 59.3).
        let (stride, shift, numbers) = match mode {
            Mode::Sorted => Some(nb.next_power_of_two())
                .and_then(|stride| {
                    let numbers = na.checked_mul(stride)?;
                    Some((stride, narrow_shift(n, numbers)?, numbers))
                })
                .unwrap_or((nb, shift, cells)),
            Mode::Dense | Mode::Marked => (nb, shift, cells),
        };
        Some(Plan {
            a_lo: a.0,
            b_lo: b.0,
            na,
            nb,
            stride,
            shift,
            ranges: ((numbers - 1) >> shift) as usize + 1,
            mode,
            tallies: (mode != Mode::Dense || cells >= n)
                && nb > 1
                && (stride.is_power_of_two()
                    || Divisor::new(stride).divides_up_to((stride - 1) + ((1u64 << shift) - 1))),
        })
    }

    pub(super) fn numbers(&self) -> CellNumbers {
        CellNumbers {
            a_lo: self.a_lo,
            b_lo: self.b_lo,
            na: self.na,
            nb: self.nb,
            stride: self.stride,
            shift: self.shift,
        }
    }

    #[inline(always)]
    pub(super) fn cell<A: Label, B: Label>(&self, x: A, y: B) -> u64 {
        (x.key() - self.a_lo) * self.stride + (y.key() - self.b_lo)
    }

    /// The range of the cell of keys `x` and `y`, or [`Plan::ranges`] if they are outside
    /// its spans (their number wraps).
    #[inline(always)]
    pub(super) fn range_of(&self, x: u64, y: u64) -> usize {
        let cell = (x.wrapping_sub(self.a_lo))
            .wrapping_mul(self.stride)
            .wrapping_add(y.wrapping_sub(self.b_lo));
        (cell >> self.shift).min(self.ranges as u64) as usize
    }

    /// Whether keys within `bounds` are all within its spans.
    pub(super) fn holds(&self, bounds: &Bounds) -> bool {
        let within = |(lo, hi): (u64, u64), start: u64, len: u64| {
            lo > hi || (lo >= start && hi - start < len)
        };
        within(bounds[0], self.a_lo, self.na) && within(bounds[1], self.b_lo, self.nb)
    }
}

/// The shift of marked or sorted ranges for `numbers` cell numbers: some ten thousand
/// samples a range, and ranges narrow enough for `u32` low bits; `None` if they would be
/// more than [`RANGES_MAX`].
fn narrow_shift(n: u64, numbers: u64) -> Option<u32> {
    let bits = u64::BITS - (numbers - 1).leading_zeros();
    let log_ranges = (n / SORTED_SAMPLES)
        .max(1)
        .ilog2()
        .max(bits.saturating_sub(32));
    (log_ranges <= RANGES_MAX.ilog2()).then(|| bits.saturating_sub(log_ranges))
}

/// Each side's smallest and largest key, `(u64::MAX, 0)` for none.
pub(crate) type Bounds = [(u64, u64); 2];

/// The row and column offsets of a range's cells by their low bits, in any order: the
/// range's first cell is column `first_col` of row `first_row`, and a cell's row and
/// column are those of `first_col + k` in rows of `stride` ([`Plan`]'s `tallies`).
#[derive(Clone, Copy)]
pub(super) struct CellOffsets {
    first_row: usize,
    first_col: u64,
    by: Stride,
}

/// How a cell's number is split into its row and column: by a shift where rows are a
/// power of two long, else by a [`Divisor`].
#[derive(Clone, Copy)]
enum Stride {
    Shift(u32),
    Divide(Divisor),
}

impl CellOffsets {
    pub(super) fn new(plan: &Plan, r: usize) -> CellOffsets {
        let base = (r as u64) << plan.shift;
        CellOffsets {
            first_row: (base / plan.stride) as usize,
            first_col: base % plan.stride,
            by: if plan.stride.is_power_of_two() {
                Stride::Shift(plan.stride.ilog2())
            } else {
                Stride::Divide(Divisor::new(plan.stride))
            },
        }
    }

    /// The (row, column) offsets of the cell of low bits `k`.
    #[inline(always)]
    pub(super) fn of(&self, k: u64) -> (usize, usize) {
        let x = self.first_col + k;
        let (i, j) = match self.by {
            Stride::Shift(log) => (x >> log, x & ((1 << log) - 1)),
            Stride::Divide(by) => by.div_rem(x),
        };
        (self.first_row + i as usize, j as usize)
    }
}

/// Division by a fixed divisor `d` of two or more as a product and a shift (Lemire,
/// Kaser and Kurz, "Faster remainder by direct computation", 2019, theorem 1: exact for
/// numerators below 2^(64 - ⌈log2 d⌉)).
#[derive(Clone, Copy)]
struct Divisor {
    /// ⌈2^64 / d⌉.
    m: u64,
    d: u64,
}

impl Divisor {
    fn new(d: u64) -> Divisor {
        debug_assert!(d > 1);
        Divisor {
            m: u64::MAX / d + 1,
            d,
        }
    }

    /// Whether every numerator up to `x` is divided exactly.
    fn divides_up_to(self, x: u64) -> bool {
        let log_d = u64::BITS - (self.d - 1).leading_zeros();
        x.checked_ilog2().map_or(0, |b| b + 1) + log_d <= 64
    }

    /// `(x / d, x % d)`.
    #[inline(always)]
    fn div_rem(self, x: u64) -> (u64, u64) {
        let q = ((u128::from(self.m) * u128::from(x)) >> 64) as u64;
        (q, x - q * self.d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    #[test]
    fn divisor_divides_as_far_as_it_says() {
        let mut next = xorshift(19);
        let mut divisors: Vec<u64> = vec![2, 3, 7, 641, 20_000, 1 << 20, (1 << 26) - 1, 1 << 26];
        divisors.extend(
            (0..300)
                .map(|_| next() >> (32 + next() % 32))
                .filter(|&d| d > 1),
        );
        for d in divisors {
            let by = Divisor::new(d);
            let log_d = 64 - (d - 1).leading_zeros();
            let top = u64::MAX >> log_d;
            assert!(by.divides_up_to(top) && (top == u64::MAX || !by.divides_up_to(top + 1)));
            let mut numerators = vec![0, 1, d - 1, d, top, top - 1, top / d * d];
            numerators.push((top / d * d).saturating_sub(1));
            numerators.extend((0..2_000).map(|_| (next() & top) >> (next() % 64)));
            for x in numerators.into_iter().filter(|&x| x <= top) {
                assert_eq!(by.div_rem(x), (x / d, x % d), "{x} / {d}");
            }
        }
    }

    #[test]
    fn plans_pick_dense_or_sorted_ranges_and_refuse_what_they_cannot_hold() {
        let dense = Plan::new(10_000_000, (0, 49), (0, 199_999), 1 << 22).unwrap();
        assert_eq!(dense.mode, Mode::Dense);
        assert_eq!(dense.ranges, (10_000_000 - 1) / (1 << 16) + 1);
        assert_eq!(dense.stride, 200_000);
        let sorted = Plan::new(10_000_000, (0, 999_999), (0, 999_999), 1 << 22).unwrap();
        assert_eq!((sorted.mode, sorted.stride), (Mode::Sorted, 1 << 20));
        assert!(sorted.shift <= 32 && sorted.ranges <= 4096);
        // 2e7 labels of 1e7 values each: 1e14 cells in rows of 2^24, 1.7e14 numbers, low
        // bits of 32 in some 39,000 ranges.
        let huge = Plan::new(20_000_000, (0, 9_999_999), (0, 9_999_999), 1 << 22).unwrap();
        assert_eq!(
            (huge.shift, huge.ranges as u64, huge.stride),
            (32, (((10_000_000u64 << 24) - 1) >> 32) + 1, 1 << 24)
        );
        // Rows of a power of two would need 2^17 ranges here: they stay `nb` long.
        let (na, nb) = (3 << 22, (1 << 24) + 1);
        let tight = Plan::new(1 << 23, (0, na - 1), (0, nb - 1), 1 << 22).unwrap();
        assert_eq!(
            (tight.mode, tight.stride, tight.shift),
            (Mode::Sorted, nb, 32)
        );
        assert_eq!(tight.ranges as u64, ((na * nb - 1) >> 32) + 1);
        assert!((sorted.ranges as u64) << sorted.shift >= 1_000_000_000_000);
        assert_eq!(Plan::new(1000, (0, 9), (0, 9), 1 << 12), None);
        assert_eq!(Plan::new(1 << 20, (0, 1 << 40), (0, 9), 1 << 12), None);
        assert_eq!(Plan::new(1 << 20, (0, u64::MAX), (0, 9), 1 << 12), None);
        // 2^26 values a side: 2^52 cells would need 2^20 ranges.
        assert_eq!(
            Plan::new(1 << 26, (0, (1 << 26) - 1), (0, (1 << 26) - 1), 1 << 22),
            None
        );
    }
}
