//! What the unit tests share: a small generator of test values.

/// A xorshift64 generator of test values from `seed` (non-zero).
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
