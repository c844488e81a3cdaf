//! Labels that are not integers (strings, bytes) become dense `u32` codes, numbered
//! in sorted label order, in one hashing pass: the integer counting pass then
//! reads the codes, and the table's order is the labels' sorted order.

use std::hash::Hash;
use std::ops::Range;
use std::sync::mpsc;

use rayon::prelude::*;

use crate::alloc;
use crate::error::Error;
use crate::pages;
use crate::pool;

mod arrow;
mod blocks;
mod key;

pub use arrow::{encode_arrow, encode_views, Bitmap, StrChunk, ViewChunk};
pub use blocks::{encode, Codes, MISSING};
use blocks::{encode_block, finish, CODES, PARALLEL_MIN};

/// Items of a block of [`encode_found`]: its slices (16 bytes each) stay in L2.
const MADE_BLOCK: usize = 1 << 15;

/// Like [`encode`], for labels whose bytes `find` finds on the calling thread,
/// a block of items at a time (`find(items, found)` pushes the bytes of `items`; `None`:
/// missing; false: an item is not a label, and the pass stops with `Ok(None)`), while the
/// pool's threads read and hash the blocks found before: Python `str` objects, whose bytes
/// are found under the GIL, then hashed (ARI of two object arrays of 1e6 names on two
/// threads: 14.9 ms, against 20.6 ms found and hashed on the calling thread). An error of
/// `find` stops the pass and is given as it is; the pass's own, inside.
pub fn encode_found<'a, E>(
    n: usize,
    mut find: impl FnMut(Range<usize>, &mut Vec<Option<&'a [u8]>>) -> Result<bool, E>,
) -> Result<Result<Option<Codes>, Error>, E> {
    // One thread: every label found, then hashed.
    let serial = |find: &mut dyn FnMut(_, &mut _) -> Result<bool, E>| {
        let mut found: Vec<Option<&[u8]>> = match alloc::with_capacity(n, "the labels' bytes") {
            Ok(found) => found,
            Err(e) => return Ok(Err(e)),
        };
        if !find(0..n, &mut found)? {
            return Ok(Ok(None));
        }
        Ok(encode_chunks(&found, 1, |part| {
            part.iter()
                .map(|item| item.map(|b| key::Bytes::new(b, None)))
        })
        .map(Some))
    };
    if n < PARALLEL_MIN || pool::threads() <= 1 {
        return serial(&mut find);
    }
    let mut codes = match pages::zeroed::<u32>(n, CODES) {
        Ok(codes) => codes,
        Err(e) => return Ok(Err(e)),
    };
    let (done, results) = mpsc::channel();
    let (give, free) = mpsc::channel::<Vec<Option<&'a [u8]>>>();
    // A block being found and one being hashed on each thread.
    for _ in 0..=pool::threads() {
        let _ = give.send(Vec::with_capacity(MADE_BLOCK));
    }
    let made = pool::in_place_scope(|scope| {
        for (b, out) in codes.chunks_mut(MADE_BLOCK).enumerate() {
            // A buffer is given back as each block is hashed (or the hashing panicked,
            // which the scope raises).
            let Ok(mut found) = free.recv() else { break };
            found.clear();
            let start = b * MADE_BLOCK;
            if !find(start..start + out.len(), &mut found)? {
                return Ok(false);
            }
            let (done, give) = (done.clone(), give.clone());
            scope.spawn(move |_| {
                let items = found
                    .iter()
                    .map(|x| Some(x.map(|b| key::Bytes::new(b, None))));
                let _ = done.send((b, encode_block(out, start, items)));
                let _ = give.send(found);
            });
        }
        Ok(true)
    });
    // The scope is over: every block spawned is hashed.
    match made {
        None => return serial(&mut find),
        Some(made) => {
            if !made? {
                return Ok(Ok(None));
            }
        }
    }
    drop(done);
    let mut blocks: Vec<_> = results.into_iter().collect();
    blocks.sort_unstable_by_key(|&(b, _)| b);
    let blocks: Result<Vec<_>, Error> = blocks.into_iter().map(|(_, block)| block).collect();
    let blocks = match blocks {
        Ok(blocks) => blocks.into_iter().flatten().collect(),
        Err(e) => return Ok(Err(e)),
    };
    Ok(finish(codes, MADE_BLOCK, blocks).map(Some))
}

/// Encodes fixed-width items, in parallel blocks when it pays: each item is `width` of
/// `data`'s values (bytes of a fixed-width string, or one slice), and `keys` gives the
/// keys (`None`: missing) of a block's items from the block's values.
fn encode_chunks<'a, T, K, I, F>(data: &'a [T], width: usize, keys: F) -> Result<Codes, Error>
where
    T: Sync,
    K: Hash + Eq + Ord + Copy + Send + Sync,
    I: Iterator<Item = Option<K>>,
    F: Fn(&'a [T]) -> I + Sync,
{
    let n = data.len() / width;
    let threads = if n >= PARALLEL_MIN {
        pool::threads()
    } else {
        1
    };
    let block = n.div_ceil(threads).max(1);
    let mut codes = pages::zeroed::<u32>(n, CODES)?;
    let run = |(i, (values, out)): (usize, (&'a [T], &mut [u32]))| {
        encode_block(out, i * block, keys(values).map(Some))
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
    // Every item is a label or missing, none refused: every block is Some.
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
    if unicode && width <= 16 {
        // Each item read with the bytes after it, 16 at once.
        let keep = key::Ucs4Short::keep(width);
        encode_chunks(data, width, |bytes| {
            let items = bytes.len() / width;
            (0..items).map(move |j| Some(key::Ucs4Short::new(&bytes[j * width..], width, keep)))
        })
    } else if unicode {
        encode_chunks(data, width, |bytes| {
            bytes.chunks_exact(width).map(|s| Some(key::Ucs4(s)))
        })
    } else {
        encode_chunks(data, width, |bytes| {
            bytes
                .chunks_exact(width)
                .map(|s| Some(key::Bytes::new(s, None)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels found a block at a time while the blocks before are hashed give the codes of
    /// the one serial pass (short and long labels, missing ones, first seen in any block);
    /// an item that is not a label, or an error of the finder, stops it, whichever block
    /// it is in.
    #[test]
    fn labels_found_while_hashed_code_as_one_pass() {
        let mut next = crate::testing::xorshift(19);
        for n in [0usize, 5, 1000, 2 * PARALLEL_MIN + 3, 5 * MADE_BLOCK + 11] {
            let labels: Vec<Option<String>> = (0..n)
                .map(|_| match next() % 40 {
                    0 => None,
                    1 => Some(format!("a long label, past fifteen bytes {}", next() % 30)),
                    _ => Some(format!("cluster {}", next() % (n as u64 / 50 + 2))),
                })
                .collect();
            let serial = encode(
                labels
                    .iter()
                    .map(|l| l.as_deref().map(|l| key::Bytes::new(l.as_bytes(), None))),
            )
            .unwrap();
            let mut asked = Vec::new();
            let made = encode_found(n, |items: Range<usize>, found: &mut Vec<_>| {
                asked.push(items.clone());
                found.extend(
                    labels[items]
                        .iter()
                        .map(|l| l.as_deref().map(str::as_bytes)),
                );
                Ok::<_, ()>(true)
            });
            assert_eq!(made, Ok(Ok(Some(serial))), "{n}");
            // Every item asked for once, in order.
            assert_eq!(asked.iter().map(|r| r.len()).sum::<usize>(), n);
            assert!(asked.windows(2).all(|w| w[0].end == w[1].start));
            for stop in [0, n / 2, n.saturating_sub(1)] {
                if n == 0 {
                    continue;
                }
                let find = |items: Range<usize>, found: &mut Vec<_>, fail: bool| {
                    if items.contains(&stop) {
                        return if fail { Err("stop") } else { Ok(false) };
                    }
                    found.extend(items.map(|_| None));
                    Ok(true)
                };
                let refused = encode_found(n, |items, found| find(items, found, false));
                assert_eq!(refused, Ok(Ok(None)), "{n} {stop}");
                let failed = encode_found(n, |items, found| find(items, found, true));
                assert_eq!(failed, Err("stop"), "{n} {stop}");
            }
        }
    }

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

    /// Codes of fixed-width items by brute force: each item's rank among the distinct
    /// items, ordered by `order`'s keys.
    fn ranks<T: Ord>(data: &[u8], width: usize, order: impl Fn(&[u8]) -> T) -> Vec<u32> {
        let keys: std::collections::BTreeSet<T> = data.chunks(width).map(&order).collect();
        let keys: Vec<T> = keys.into_iter().collect();
        data.chunks(width)
            .map(|item| keys.binary_search(&order(item)).unwrap() as u32)
            .collect()
    }

    #[test]
    fn fixed_width_items_of_every_width_order_as_numpy_does() {
        // Items from a few values that differ in one byte or one code point at any place,
        // including zeros, 0xff and code points past the Basic Multilingual Plane.
        let points = [0u32, 1, 0x41, 0xe9, 0x100, 0xff00, 0x1_0000, 0x10_ffff];
        let bytes = [0u8, 1, 0x41, 0x7f, 0x80, 0xfe, 0xff];
        let mut state = 7u64;
        let mut next = |k: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % k
        };
        for chars in 1..=20 {
            let width = 4 * chars;
            // Few distinct items (mostly equal but for a place or two), many samples; large
            // enough at small widths to be split in parallel blocks.
            let n = if chars <= 3 { 40_000 } else { 3_000 };
            let bases: Vec<Vec<u32>> = (0..5)
                .map(|_| (0..chars).map(|_| points[next(points.len())]).collect())
                .collect();
            let mut data = Vec::with_capacity(n * width);
            for _ in 0..n {
                let mut item = bases[next(bases.len())].clone();
                item[next(chars)] = points[next(points.len())];
                data.extend(item.iter().flat_map(|p| p.to_ne_bytes()));
            }
            let want = ranks(&data, width, |it| {
                it.chunks(4)
                    .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
                    .collect::<Vec<_>>()
            });
            assert_eq!(
                encode_fixed(&data, width, true).unwrap().codes,
                want,
                "U{chars}"
            );
        }
        for width in 1..=80 {
            let n = if width <= 12 { 40_000 } else { 3_000 };
            let bases: Vec<Vec<u8>> = (0..5)
                .map(|_| (0..width).map(|_| bytes[next(bytes.len())]).collect())
                .collect();
            let mut data = Vec::with_capacity(n * width);
            for _ in 0..n {
                let mut item = bases[next(bases.len())].clone();
                item[next(width)] = bytes[next(bytes.len())];
                data.extend_from_slice(&item);
            }
            let want = ranks(&data, width, <[u8]>::to_vec);
            assert_eq!(
                encode_fixed(&data, width, false).unwrap().codes,
                want,
                "S{width}"
            );
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
