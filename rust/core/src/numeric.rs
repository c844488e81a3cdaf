//! Numerical building blocks of the measures: Neumaier's compensated sum and the
//! logarithms of small counts, computed once.

/// Neumaier's compensated sum.
#[derive(Default, Clone, Copy)]
pub(crate) struct Sum {
    pub(crate) sum: f64,
    pub(crate) carry: f64,
}

impl Sum {
    #[inline(always)]
    pub(crate) fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.carry += (self.sum - t) + x;
        } else {
            self.carry += (x - t) + self.sum;
        }
        self.sum = t;
    }

    pub(crate) fn value(self) -> f64 {
        self.sum + self.carry
    }
}

/// Counts whose logarithm [`ln_small`] holds.
pub(crate) const LN_SMALL: u64 = 1 << 12;

/// ln x, from [`ln_small`] where it holds it (the same value).
pub(crate) fn ln_count(x: u64) -> f64 {
    // (`try_from`, not `as`: a count past 2^32 must not wrap to a small index on 32 bits.)
    usize::try_from(x)
        .ok()
        .and_then(|i| ln_small().get(i))
        .copied()
        .unwrap_or_else(|| (x as f64).ln())
}

/// ln k for k in 0..[`LN_SMALL`] (-inf at 0), computed once.
pub(crate) fn ln_small() -> &'static [f64] {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| (0..LN_SMALL).map(|k| (k as f64).ln()).collect())
}
