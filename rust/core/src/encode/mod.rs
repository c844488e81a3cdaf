//! Labels that are not integers (strings, bytes) become dense `u32` codes, numbered
//! in sorted label order, in one hashing pass: the integer counting pass then
//! reads the codes, and the table's order is the labels' sorted order.

use std::hash::Hash;

use rayon::prelude::*;

use crate::error::Error;
use crate::pages;
use crate::pool;

mod arrow;
mod blocks;
mod key;

pub use arrow::{encode_arrow, Bitmap, StrChunk};
pub use blocks::{encode, encode_until, Codes, MISSING};
use blocks::{encode_block, finish, PARALLEL_MIN};

/// Encodes fixed-width items, in parallel blocks when it pays.
fn encode_chunks<'a, K, F>(data: &'a [u8], width: usize, key: F) -> Result<Codes, Error>
where
    K: Hash + Eq + Ord + Copy + Send + Sync,
    F: Fn(&'a [u8]) -> K + Sync,
{
    let n = data.len() / width;
    let threads = if n >= PARALLEL_MIN {
        pool::threads()
    } else {
        1
    };
    let block = n.div_ceil(threads).max(1);
    let mut codes = pages::zeroed::<u32>(n);
    let run = |(i, (bytes, out)): (usize, (&'a [u8], &mut [u32]))| {
        encode_block(
            out,
            i * block,
            bytes.chunks_exact(width).map(|s| Some(Some(key(s)))),
        )
    };
    let blocks: Result<Vec<_>, Error> = if threads <= 1 {
        data.chunks(block * width)
            .zip(codes.chunks_mut(block))
            .enumerate()
            .map(run)
            .collect()
    } else {
        pool::run(|| {
            data.par_chunks(block * width)
                .zip(codes.par_chunks_mut(block))
                .enumerate()
                .map(run)
                .collect()
        })
    };
    // Fixed-width items are never missing nor refused: every block is Some.
    finish(codes, block, blocks?.into_iter().flatten().collect())
}

/// Encodes a numpy fixed-width string array given as its raw bytes: `S`
/// (bytes, ordered bytewise) or, with `unicode`, `U` (UCS-4, ordered by code point).
pub fn encode_fixed(data: &[u8], width: usize, unicode: bool) -> Result<Codes, Error> {
    // numpy has no zero-width items (it widens `U0`/`S0` to one character), and without
    // a width the number of items is unknown.
    if width == 0 || !data.len().is_multiple_of(width) || (unicode && !width.is_multiple_of(4)) {
        return Err(Error::BadItemWidth);
    }
    if unicode {
        encode_chunks(data, width, key::Ucs4)
    } else {
        encode_chunks(data, width, |s| key::Bytes::new(s, None))
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
    fn parallel_blocks_agree_with_one_block() {
        // Large enough to be split across threads; labels first seen in different blocks.
        let n = 200_000usize;
        let mut data = Vec::with_capacity(n * 3);
        for i in 0..n {
            let v = ((i * 7919) % 1009) as u32 + if i > n / 2 { 5000 } else { 0 };
            data.extend_from_slice(&format!("{:03}", v % 1000).as_bytes()[..3]);
        }
        let par = encode_fixed(&data, 3, false).unwrap();
        let one = encode(data.chunks_exact(3).map(Some)).unwrap();
        assert_eq!(par, one);
        assert_eq!(par.first.len(), 1000);
        for (rank, &first) in par.first.iter().enumerate() {
            assert_eq!(par.codes[first] as usize, rank);
        }
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
            encode_fixed(b"", 0, false).unwrap_err(),
            Error::BadItemWidth
        );
    }
}
