//! Labels that are not integers (strings, bytes) become dense `u32` codes, numbered
//! in sorted label order, in one hashing pass: the integer counting pass then
//! reads the codes, and the table's order is the labels' sorted order.

use std::cmp::Ordering;
use std::hash::Hash;

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use crate::Error;

/// The code that marks a missing label; it sorts after every real label.
pub const MISSING: u32 = u32::MAX;

/// Dense codes for a labeling.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Codes {
    /// One code per sample: the rank of its label among the distinct labels,
    /// or [`MISSING`].
    pub codes: Vec<u32>,
    /// For each distinct label in sorted order, the index of its first sample.
    pub first: Vec<usize>,
    /// How many samples are [`MISSING`].
    pub missing: usize,
}

/// Encodes `items` (`None` is a missing label); `K`'s order is the label order.
pub fn encode<K, I>(items: I) -> Result<Codes, Error>
where
    K: Hash + Eq + Ord + Copy,
    I: ExactSizeIterator<Item = Option<K>>,
{
    encode_until(items.len(), items.map(Some)).map(|c| c.unwrap_or_default())
}

/// Like [`encode`], for items that may turn out not to be encodable: the first
/// outer `None` stops the pass and gives `Ok(None)`.
pub fn encode_until<K, I>(len: usize, items: I) -> Result<Option<Codes>, Error>
where
    K: Hash + Eq + Ord + Copy,
    I: Iterator<Item = Option<Option<K>>>,
{
    let mut map: HashMap<K, u32, FixedState> = HashMap::with_hasher(FixedState::default());
    let mut uniques: Vec<(K, usize)> = Vec::new();
    let mut codes = Vec::with_capacity(len);
    let mut missing = 0;
    for (i, item) in items.enumerate() {
        let Some(item) = item else {
            return Ok(None);
        };
        let Some(key) = item else {
            missing += 1;
            codes.push(MISSING);
            continue;
        };
        let next = uniques.len();
        let code = *map.entry(key).or_insert_with(|| {
            uniques.push((key, i));
            next as u32
        });
        codes.push(code);
    }
    if uniques.len() >= MISSING as usize {
        return Err(Error::TooManyLabels);
    }
    let mut order: Vec<u32> = (0..uniques.len() as u32).collect();
    order.sort_unstable_by(|&x, &y| uniques[x as usize].0.cmp(&uniques[y as usize].0));
    let mut rank = vec![0u32; uniques.len()];
    for (r, &o) in order.iter().enumerate() {
        rank[o as usize] = r as u32;
    }
    for c in codes.iter_mut().filter(|c| **c != MISSING) {
        *c = rank[*c as usize];
    }
    let first = order.iter().map(|&o| uniques[o as usize].1).collect();
    Ok(Some(Codes {
        codes,
        first,
        missing,
    }))
}

/// One item of a numpy `U` array: UCS-4 code points in native byte order,
/// padded with zeros. Ordered by code point, as numpy and Python order strings.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Ucs4<'a>(&'a [u8]);

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

/// Encodes a numpy fixed-width string array given as its raw bytes: `S`
/// (bytes, ordered bytewise) or, with `unicode`, `U` (UCS-4, ordered by code point).
pub fn encode_fixed(data: &[u8], width: usize, unicode: bool) -> Result<Codes, Error> {
    if width == 0 {
        // Every item of a zero-width array is the empty string.
        return encode((0..data.len()).map(|_| Some(())));
    }
    if data.len() % width != 0 || (unicode && width % 4 != 0) {
        return Err(Error::BadItemWidth);
    }
    let items = data.chunks_exact(width);
    if unicode {
        encode(items.map(|s| Some(Ucs4(s))))
    } else {
        encode(items.map(Some))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_sorted_order_and_keep_missing() {
        let items = [Some("b"), None, Some("a"), Some("b"), Some("c"), None];
        let c = encode(items.into_iter()).unwrap();
        assert_eq!(c.codes, vec![1, MISSING, 0, 1, 2, MISSING]);
        assert_eq!(c.first, vec![2, 0, 4]);
        assert_eq!(c.missing, 2);
    }

    #[test]
    fn fixed_width_unicode_orders_by_code_point() {
        // "é" (U+00E9) sorts after "z" (U+007A); bytewise little-endian it would not.
        let mut data = Vec::new();
        for s in ["z", "\u{e9}", "a", "z"] {
            let mut item = [0u8; 8];
            for (i, ch) in s.chars().enumerate() {
                item[4 * i..4 * i + 4].copy_from_slice(&(ch as u32).to_ne_bytes());
            }
            data.extend_from_slice(&item);
        }
        let c = encode_fixed(&data, 8, true).unwrap();
        assert_eq!(c.codes, vec![1, 2, 0, 1]);
    }

    #[test]
    fn fixed_width_bytes() {
        let c = encode_fixed(b"b\0abb\0", 2, false).unwrap();
        assert_eq!(c.codes, vec![1, 0, 1]);
        assert_eq!(
            encode_fixed(b"abc", 2, false).unwrap_err(),
            Error::BadItemWidth
        );
        assert_eq!(
            encode_fixed(b"", 0, false).unwrap().codes,
            Vec::<u32>::new()
        );
    }
}
