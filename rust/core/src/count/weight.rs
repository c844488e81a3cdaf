//! A sample weight and its exact units: each weight is an integer number of units of
//! 2^-64 (a float rounded to the nearest unit, half up; an integer shifted), so that
//! sums of weights are exact integers. [`Weights`] holds one weight per sample, of one
//! of the types the caller holds, and checks them as it reads them.

/// Bits of a weight below the units point: a weight `w` is `w * 2^UNIT_BITS` units.
pub const UNIT_BITS: u32 = 64;

/// Weights at least this large are refused: a chunk's sum then fits in 126 bits.
pub const WEIGHT_MAX: f64 = 4_503_599_627_370_496.0; // 2^52

/// A sample weight: a non-negative float or integer, as units of 2^-64.
pub trait Weight: Copy + Send + Sync {
    /// Whether the weight is refused: negative, not finite, or at least [`WEIGHT_MAX`].
    fn refused(self) -> bool;
    /// The weight in units of 2^-64 (a weight that is not refused).
    fn units(self) -> u128;
    /// The weight as a float, for error messages.
    fn value(self) -> f64;
}

impl Weight for f64 {
    #[inline(always)]
    fn refused(self) -> bool {
        // Positive floats order as their bits; negative ones (sign bit), NaN and infinity
        // lie above 2^52's bits. -0.0 is a weight of 0.
        let bits = self.to_bits();
        bits >= WEIGHT_MAX.to_bits() && bits != (-0.0f64).to_bits()
    }

    fn value(self) -> f64 {
        self
    }

    /// `self * 2^64` rounded to the nearest integer (half up), from the float's bits
    /// ([`float_split`]).
    #[inline(always)]
    fn units(self) -> u128 {
        let x = float_split(self.to_bits());
        (u128::from(x.hi) << 64) | u128::from(x.lo)
    }
}

impl Weight for u64 {
    #[inline(always)]
    fn refused(self) -> bool {
        self >= 1 << 52
    }

    fn value(self) -> f64 {
        self as f64
    }

    #[inline(always)]
    fn units(self) -> u128 {
        u128::from(self) << UNIT_BITS
    }
}

impl Weight for i64 {
    #[inline(always)]
    fn refused(self) -> bool {
        (self as u64) >= 1 << 52
    }

    fn value(self) -> f64 {
        self as f64
    }

    #[inline(always)]
    fn units(self) -> u128 {
        u128::from(self as u64) << UNIT_BITS
    }
}

/// A float weight's units, and what its square adds ([`float_split`]).
#[derive(Clone, Copy)]
pub(super) struct Split {
    /// The units' low and high 64 bits ([`Weight::units`]).
    pub lo: u64,
    pub hi: u64,
    /// A weight that is not a whole number squares to `root^2 << 2 shift` units of
    /// 2^-128; a whole one (`whole`) stands for `hi` samples of weight 1, and `root` is 0.
    pub root: u64,
    pub shift: u32,
    pub whole: bool,
    /// Whether the weight is refused, or is -0.0 (then the rest is meaningless).
    pub odd: bool,
}

/// [`Split`] of the float of bits `bits`, without a branch, so that a loop over a chunk of
/// weights vectorises: converting weights one by one, between adding each to its cell
/// and its square to its row, took most of a weighted pass. The same units as
/// [`Weight::units`]; the same squares as `squares`' sums (a weight of at least 2^-12 is
/// `m << k` units for its 53-bit mantissa `m` and `k = exponent - 1011`, squared
/// `m^2 << 2k`; a smaller one is its units `u`, squared `u^2`).
#[inline(always)]
pub(super) fn float_split(bits: u64) -> Split {
    // The sign and the exponent: refused from 2^52 (1075) up, and for any sign bit.
    let exponent = bits >> 52;
    let mantissa = (bits & ((1 << 52) - 1)) | (u64::from(exponent != 0) << 52);
    let shift = exponent.wrapping_sub(1011);
    let normal = shift < 64;
    // Below 2^-12: rounded to the nearest unit, half up (past 63 bits of shift, 0).
    let down = 1011u64.wrapping_sub(exponent).clamp(1, 63);
    let small = (mantissa + (1 << (down - 1))) >> down;
    let lo = if normal {
        mantissa.wrapping_shl(shift as u32)
    } else {
        small
    };
    let hi = if normal {
        (mantissa >> 1).wrapping_shr(63u32.wrapping_sub(shift as u32))
    } else {
        0
    };
    let whole = lo == 0;
    let root = if normal { mantissa } else { lo };
    Split {
        lo,
        hi,
        root: if whole { 0 } else { root },
        shift: if normal { shift as u32 } else { 0 },
        whole,
        odd: exponent >= 1075,
    }
}

/// One weight per sample, of one of the types the caller holds.
#[derive(Clone, Copy)]
pub enum Weights<'a> {
    F64(&'a [f64]),
    I64(&'a [i64]),
    U64(&'a [u64]),
}

impl<'a> Weights<'a> {
    pub fn len(&self) -> usize {
        match self {
            Weights::F64(w) => w.len(),
            Weights::I64(w) => w.len(),
            Weights::U64(w) => w.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn range(&self, start: usize, end: usize) -> Weights<'a> {
        match *self {
            Weights::F64(w) => Weights::F64(&w[start..end]),
            Weights::I64(w) => Weights::I64(&w[start..end]),
            Weights::U64(w) => Weights::U64(&w[start..end]),
        }
    }

    /// Adds each weight to `sums[cells[k]]` and returns their total and the OR of their
    /// fractional units (0 when all are whole numbers); the offset of the first refused
    /// weight if any (then `sums` is meaningless). One loop over the chunk.
    #[inline(always)]
    pub(super) fn add_to(
        &self,
        cells: &[u32],
        sums: &mut [u128],
    ) -> Result<(u128, u64), (usize, f64)> {
        #[inline(always)]
        fn go<W: Weight>(
            w: &[W],
            cells: &[u32],
            sums: &mut [u128],
        ) -> Result<(u128, u64), (usize, f64)> {
            let mut refused = false;
            let mut total = 0u128;
            let mut fraction = 0u64;
            for (&c, &x) in cells.iter().zip(w) {
                refused |= x.refused();
                let u = x.units();
                total = total.wrapping_add(u);
                fraction |= u as u64;
                if let Some(cell) = sums.get_mut(c as usize) {
                    *cell = cell.wrapping_add(u);
                }
            }
            if refused {
                let i = w.iter().position(|&x| x.refused()).unwrap_or(0);
                return Err((i, w[i].value()));
            }
            Ok((total, fraction))
        }
        match self {
            Weights::F64(w) => go(w, cells, sums),
            Weights::I64(w) => go(w, cells, sums),
            Weights::U64(w) => go(w, cells, sums),
        }
    }

    /// Writes the units of the weights into `out`; the offset of the first refused one
    /// if any (then `out` is meaningless).
    pub(super) fn units_into(&self, out: &mut [u128]) -> Result<(), (usize, f64)> {
        fn go<W: Weight>(w: &[W], out: &mut [u128]) -> Result<(), (usize, f64)> {
            if w.iter().fold(false, |r, &x| r | x.refused()) {
                let i = w.iter().position(|&x| x.refused()).unwrap_or(0);
                return Err((i, w[i].value()));
            }
            for (o, &x) in out.iter_mut().zip(w) {
                *o = x.units();
            }
            Ok(())
        }
        match self {
            Weights::F64(w) => go(w, out),
            Weights::I64(w) => go(w, out),
            Weights::U64(w) => go(w, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_weights_become_units_of_two_to_the_minus_64() {
        assert_eq!(1.0f64.units(), 1 << 64);
        assert_eq!(0.5f64.units(), 1 << 63);
        assert_eq!(0.0f64.units(), 0);
        assert_eq!(3.0f64.units(), 3 << 64);
        assert_eq!(2f64.powi(51).units(), 1 << 115);
        assert_eq!((2f64.powi(52) - 1.0).units(), ((1u128 << 52) - 1) << 64);
        // 0.1 is 0x1.999999999999ap-4: its 53 bits shifted to the units point.
        assert_eq!(
            0.1f64.units(),
            0x1999_9999_9999_9a00_0000_0000_0000_0000 >> 64
        );
        // Below 2^-64 a weight rounds to the nearest unit: 0.6 and 0.4 units.
        assert_eq!((0.6 * 2f64.powi(-64)).units(), 1);
        assert_eq!((0.4 * 2f64.powi(-64)).units(), 0);
        assert_eq!(f64::MIN_POSITIVE.units(), 0);
        assert_eq!(7u64.units(), 7 << 64);
        assert_eq!(7i64.units(), 7 << 64);
    }

    /// `w * 2^64` rounded half up, from `w = m 2^e` in 128-bit integers: the oracle of
    /// [`float_split`]'s units.
    fn units_by_definition(w: f64) -> u128 {
        let bits = w.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i32;
        let fraction = u128::from(bits & ((1 << 52) - 1));
        let (m, e) = if exponent == 0 {
            (fraction, -1074)
        } else {
            (fraction | (1 << 52), exponent - 1075)
        };
        let shift = e + 64;
        if shift >= 0 {
            m << shift
        } else if shift > -100 {
            (m + (1 << (-shift - 1))) >> -shift
        } else {
            0
        }
    }

    #[test]
    fn split_floats_have_the_units_and_squares_of_the_one_by_one_conversion() {
        let mut next = crate::testing::xorshift(5);
        let mut weights = vec![0.0, 1.0, 0.5, 3.0, 0.1, 2f64.powi(-12), 2f64.powi(-13)];
        weights.extend([
            f64::MIN_POSITIVE,
            5e-324,
            2f64.powi(51),
            2f64.powi(52) - 1.0,
        ]);
        weights.extend([
            0.6 * 2f64.powi(-64),
            1.5 * 2f64.powi(-64),
            2f64.powi(-11) * 1.7,
        ]);
        for _ in 0..100_000 {
            let r = next();
            // Any exponent from 2^-70 to 2^51, any mantissa.
            let exponent = 1023 - 70 + (r >> 56) % 122;
            weights.push(f64::from_bits((exponent << 52) | (next() >> 12)));
            weights.push((r % 1000) as f64 / 8.0);
        }
        for w in weights {
            let split = float_split(w.to_bits());
            let u = units_by_definition(w);
            assert!(!split.odd && !w.refused(), "{w}");
            assert_eq!(
                (u128::from(split.hi) << 64) | u128::from(split.lo),
                u,
                "{w}"
            );
            assert_eq!(split.whole, u as u64 == 0, "{w}");
            // The square in units of 2^-128 (below 2^232: as two parts).
            if split.whole {
                assert_eq!(split.root, 0);
            } else {
                let root = u128::from(split.root);
                let square = root * root;
                let k = 2 * split.shift;
                // `u^2 = square << k`: compare `u` with `root << shift`.
                assert_eq!(root << split.shift, u, "{w}");
                assert!(k < 128 && square.leading_zeros() >= 22, "{w}");
            }
        }
        for w in [-1.0, -0.0, f64::NAN, f64::INFINITY, 2f64.powi(52), -5e-324] {
            assert!(float_split(w.to_bits()).odd, "{w}");
        }
    }
}
