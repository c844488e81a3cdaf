/// How the `u64` keys of one side of a table map back to label values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyKind {
    /// Signed integers: the key is the value's two's complement with the sign bit
    /// flipped, so that key order is value order.
    Signed,
    /// Unsigned integers (and booleans read as `u8`): the key is the value.
    Unsigned,
}

impl KeyKind {
    /// The label value of `key`, widened to `i128` (which holds every `i64` and `u64`).
    pub fn value(self, key: u64) -> i128 {
        match self {
            KeyKind::Signed => i128::from((key ^ SIGN) as i64),
            KeyKind::Unsigned => i128::from(key),
        }
    }
}

const SIGN: u64 = 1 << 63;

/// An integer label type that can be counted: mapped to a `u64` key whose order
/// is the order of the values, so sorted keys are sorted labels.
pub trait Label: Copy + Ord + Default + Send + Sync {
    const KIND: KeyKind;
    /// The keys of the type's smallest and largest values.
    const KEY_MIN: u64;
    const KEY_MAX: u64;
    fn key(self) -> u64;
}

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl Label for $t {
            const KIND: KeyKind = KeyKind::Signed;
            const KEY_MIN: u64 = (<$t>::MIN as i64 as u64) ^ SIGN;
            const KEY_MAX: u64 = (<$t>::MAX as i64 as u64) ^ SIGN;
            #[inline(always)]
            fn key(self) -> u64 {
                (self as i64 as u64) ^ SIGN
            }
        }
    )*};
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Label for $t {
            const KIND: KeyKind = KeyKind::Unsigned;
            const KEY_MIN: u64 = 0;
            const KEY_MAX: u64 = <$t>::MAX as u64;
            #[inline(always)]
            fn key(self) -> u64 {
                self as u64
            }
        }
    )*};
}

/// The label of every sample when only one labeling is counted (its class sizes
/// are a one-column table). Zero-sized: a slice of them occupies no memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Constant;

impl Label for Constant {
    const KIND: KeyKind = KeyKind::Unsigned;
    const KEY_MIN: u64 = 0;
    const KEY_MAX: u64 = 0;
    #[inline(always)]
    fn key(self) -> u64 {
        0
    }
}

signed!(i8, i16, i32, i64);
unsigned!(u8, u16, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_preserve_order_and_round_trip() {
        let values = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for w in values.windows(2) {
            assert!(w[0].key() < w[1].key());
        }
        for v in values {
            assert_eq!(KeyKind::Signed.value(v.key()), i128::from(v));
        }
        assert_eq!(
            KeyKind::Unsigned.value(u64::MAX.key()),
            i128::from(u64::MAX)
        );
        assert_eq!((-3i8).key(), (-3i64).key());
        assert_eq!(i8::KEY_MIN, i8::MIN.key());
        assert_eq!(i32::KEY_MAX, i32::MAX.key());
        assert_eq!(u16::KEY_MAX, u16::MAX.key());
    }
}
