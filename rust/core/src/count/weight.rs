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

    /// `self * 2^64` rounded to the nearest integer (half up), from the float's bits:
    /// `mantissa * 2^(exponent - 1075)`, so `mantissa` shifted by `exponent - 1011`.
    #[inline(always)]
    fn units(self) -> u128 {
        let bits = self.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as u32;
        let fraction = u128::from(bits & ((1 << 52) - 1));
        let mantissa = if exponent == 0 {
            fraction
        } else {
            fraction | (1 << 52)
        };
        // Below exponent 1011 the weight is less than 2^-11 and loses its lowest bits.
        if exponent >= 1011 {
            // Two `u64` shifts (at most 63 for a weight below 2^52), no `u128` one; a
            // refused weight, shifted further, gives a meaningless sum, never used.
            let shift = exponent - 1011;
            let mantissa = mantissa as u64;
            let hi = (mantissa >> 1).wrapping_shr(63u32.wrapping_sub(shift));
            (u128::from(hi) << 64) | u128::from(mantissa.wrapping_shl(shift))
        } else {
            let shift = (1011 - exponent).min(120);
            (mantissa + (1 << (shift - 1))) >> shift
        }
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
}
