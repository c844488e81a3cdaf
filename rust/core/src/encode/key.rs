//! Labels as hash keys: the bytes of short labels packed in one `u128`, compared and
//! hashed as a number, longer labels as their slices, and numpy `U` items as their code
//! points. Each key orders as its label.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// Up to this many bytes are packed.
const SHORT: usize = 15;

/// `len` ≤ [`SHORT`] bytes from the most significant byte of a `u128` down, zero-padded,
/// and `len` in the lowest byte: the numbers' order is the bytes' order. `word` holds the
/// bytes from its first (and whatever follows them).
#[inline(always)]
fn pack(word: [u8; 16], len: usize) -> u128 {
    // Keep the first `len` bytes (a shift by 128 is out of range: len 0 keeps none).
    let keep = u128::MAX
        .checked_shr(8 * len as u32)
        .map_or(u128::MAX, |m| !m);
    (u128::from_be_bytes(word) & keep & !0xff) | len as u128
}

/// The low `keep` bytes of `x` (`keep` ≤ 8).
#[inline(always)]
fn low(x: u64, keep: usize) -> u128 {
    u128::from(x & u64::MAX.checked_shr(64 - 8 * keep as u32).unwrap_or(0))
}

/// [`pack`] of `bytes` (at most [`SHORT`]), read as two overlapping words, not copied.
#[inline(always)]
fn load(bytes: &[u8]) -> u128 {
    let len = bytes.len();
    let word = |at: usize| u64::from_be_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
    let half = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]));
    let high = if len >= 8 {
        // Bytes 0..8, then bytes 8..len: the last len - 8 of the word ending at len.
        (u128::from(word(0)) << 64) | (low(word(len - 8), len - 8) << (64 - 8 * (len - 8)))
    } else if len >= 4 {
        let rest = low(u64::from(half(len - 4)), len - 4);
        (u128::from(half(0)) << 96) | (rest << (96 - 8 * (len - 4)))
    } else {
        bytes
            .iter()
            .enumerate()
            .fold(0, |v, (i, &b)| v | (u128::from(b) << (120 - 8 * i)))
    };
    high | len as u128
}

/// An item's bytes as a hash key: up to [`SHORT`] bytes packed in a `u128` (compared
/// and hashed as one number, most labels), longer ones as their slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bytes<'a> {
    /// The bytes from the most significant byte down, zero-padded, and the length in the
    /// lowest byte: the numbers' order is the bytes' order.
    Short(u128),
    Long(&'a [u8]),
}

impl<'a> Bytes<'a> {
    /// The key of `bytes`; `window` is the 16 bytes from its start, where the buffer
    /// holds them (read at once rather than copied byte by byte).
    #[inline(always)]
    pub(super) fn new(bytes: &'a [u8], window: Option<&[u8]>) -> Bytes<'a> {
        let len = bytes.len();
        if len > SHORT {
            return Bytes::Long(bytes);
        }
        match window {
            Some(w) => {
                let mut word = [0u8; 16];
                word.copy_from_slice(w);
                Bytes::Short(pack(word, len))
            }
            None => Bytes::Short(load(bytes)),
        }
    }

    /// The key of an item of `len` ≤ 15 bytes given as the first `len` bytes of `word`
    /// (the rest ignored).
    #[inline(always)]
    pub(super) fn inline(word: [u8; 16], len: usize) -> Bytes<'a> {
        debug_assert!(len <= SHORT);
        Bytes::Short(pack(word, len))
    }

    /// The item's bytes (a short one's copied into `buffer`).
    fn bytes<'b>(&'b self, buffer: &'b mut [u8; 16]) -> &'b [u8] {
        match *self {
            Bytes::Short(word) => {
                *buffer = word.to_be_bytes();
                &buffer[..(word & 0xff) as usize]
            }
            Bytes::Long(bytes) => bytes,
        }
    }
}

impl Hash for Bytes<'_> {
    /// A short key as its number, a long one as its bytes; no tag is needed, as the two
    /// never hold items of the same length (and a derived hash's tag costs a multiply).
    #[inline(always)]
    fn hash<H: Hasher>(&self, state: &mut H) {
        match *self {
            Bytes::Short(word) => state.write_u128(word),
            Bytes::Long(bytes) => state.write(bytes),
        }
    }
}

impl Ord for Bytes<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        if let (Bytes::Short(a), Bytes::Short(b)) = (self, other) {
            return a.cmp(b);
        }
        let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
        self.bytes(&mut x).cmp(other.bytes(&mut y))
    }
}

impl PartialOrd for Bytes<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A numpy `U` item of at most four code points (16 bytes) as one number: its bytes as
/// they lie, zero-padded, compared for equality and hashed as a number, ordered by code
/// point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Ucs4Short(u128);

impl Ucs4Short {
    /// The bits of a `width`-byte item's number ([`Ucs4Short::new`]'s `keep`).
    pub(super) fn keep(width: usize) -> u128 {
        let mut keep = [0u8; 16];
        keep[..width].fill(0xff);
        u128::from_ne_bytes(keep)
    }

    /// The key of the item of `width` bytes at the start of `rest` (the bytes from it to
    /// the end of its block), read at once where `rest` holds 16 bytes; `keep` is
    /// [`Ucs4Short::keep`] of `width`.
    #[inline(always)]
    pub(super) fn new(rest: &[u8], width: usize, keep: u128) -> Self {
        let word = match rest.first_chunk::<16>() {
            Some(w) => u128::from_ne_bytes(*w),
            None => {
                let mut word = [0u8; 16];
                word[..width].copy_from_slice(&rest[..width]);
                u128::from_ne_bytes(word)
            }
        };
        Ucs4Short(word & keep)
    }

    fn points(self) -> [u32; 4] {
        let b = self.0.to_ne_bytes();
        std::array::from_fn(|i| {
            u32::from_ne_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
        })
    }
}

impl Ord for Ucs4Short {
    fn cmp(&self, other: &Self) -> Ordering {
        self.points().cmp(&other.points())
    }
}

impl PartialOrd for Ucs4Short {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One item of a numpy `U` array as a key: UCS-4 code points in native byte order, padded
/// with zeros, ordered by code point (as numpy and Python order strings). (Packing short
/// Latin-1 items into a `u128`, as [`Bytes`] does, ran no faster: same instruction count.
/// Nor did items of up to 64 bytes read as words, compared without `memcmp` and hashed by
/// pairs of words: 141 ms against 139 ms for 1e7 `U11` items on one thread.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Ucs4<'a>(pub(super) &'a [u8]);

impl Ord for Ucs4<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        let point = |c: &[u8]| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]);
        let a = self.0.chunks_exact(4).map(point);
        a.cmp(other.0.chunks_exact(4).map(point))
    }
}

impl PartialOrd for Ucs4<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keys_order_as_their_bytes() {
        let words: [&[u8]; 25] = [
            b"",
            b"\0",
            b"a",
            b"a\0",
            b"ab",
            b"abc",
            b"ab\xff",
            b"abcd",
            b"abcde",
            b"abcdef",
            b"abcdefg",
            b"abcdeff",
            b"abcdefgh",
            b"abcdefgi",
            b"abcdefghi",
            b"abcdefgh\0i",
            b"abcdefghijkl",
            b"abcdefghijklm",
            b"abcdefghijklmn",
            b"abcdefghijklmno",
            b"abcdefghijklmnop",
            b"abcdefghijklmno\0",
            b"\xff\xff",
            b"\xff\xff\xff\xff\xff",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff",
        ];
        let data: Vec<u8> = words.concat();
        let mut start = 0;
        let mut items = Vec::new();
        for w in words {
            let end = start + w.len();
            items.push(Bytes::new(&data[start..end], data.get(start..start + 16)));
            items.push(Bytes::new(w, None));
            start = end;
        }
        for (x, wx) in items.iter().zip(words.iter().flat_map(|w| [w, w])) {
            assert_eq!(x.bytes(&mut [0; 16]), *wx);
            for (y, wy) in items.iter().zip(words.iter().flat_map(|w| [w, w])) {
                assert_eq!(x.cmp(y), wx.cmp(wy), "{wx:?} {wy:?}");
                assert_eq!(x == y, wx == wy);
            }
        }
    }
}
