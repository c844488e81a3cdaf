//! Labels that are not integers (strings, bytes) become dense `u32` codes, numbered
//! in sorted label order, in one hashing pass: the integer counting pass then
//! reads the codes, and the table's order is the labels' sorted order.

use std::hash::Hash;

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use rayon::prelude::*;

use crate::error::Error;
use crate::pages;
use crate::pool;
use crate::stop;

mod arrow;
mod key;

pub use arrow::{encode_arrow, Bitmap, StrChunk};

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
    K: Hash + Eq + Ord + Copy + Send + Sync,
    I: ExactSizeIterator<Item = Option<K>>,
{
    encode_until(items.len(), items.map(Some)).map(|c| c.unwrap_or_default())
}

/// Like [`encode`], for items that may turn out not to be encodable: the first
/// outer `None` stops the pass and gives `Ok(None)`. `len` is the number of items.
pub fn encode_until<K, I>(len: usize, items: I) -> Result<Option<Codes>, Error>
where
    K: Hash + Eq + Ord + Copy + Send + Sync,
    I: Iterator<Item = Option<Option<K>>>,
{
    let mut codes = pages::zeroed::<u32>(len);
    match encode_block(&mut codes, 0, items)? {
        Some(block) => finish(codes, len.max(1), vec![block]).map(Some),
        None => Ok(None),
    }
}

/// What a block of samples leaves besides its codes (written in first-seen order).
struct Block<K> {
    /// Each local code's label and the global index of its first sample.
    uniques: Vec<(K, usize)>,
    missing: usize,
}

/// Writes local first-seen codes of `items` into `out` (one per item, in order).
fn encode_block<K, I>(out: &mut [u32], offset: usize, items: I) -> Result<Option<Block<K>>, Error>
where
    K: Hash + Eq + Copy,
    I: Iterator<Item = Option<Option<K>>>,
{
    let mut map: HashMap<K, u32, FixedState> = HashMap::with_hasher(FixedState::default());
    let mut uniques: Vec<(K, usize)> = Vec::new();
    let mut missing = 0;
    for (i, (slot, item)) in out.iter_mut().zip(items).enumerate() {
        if i % stop::EVERY == 0 {
            stop::check()?;
        }
        let Some(item) = item else {
            return Ok(None);
        };
        let Some(key) = item else {
            missing += 1;
            *slot = MISSING;
            continue;
        };
        // Most items are labels seen before: a lookup, and an insertion only for new ones.
        if let Some(&code) = map.get(&key) {
            *slot = code;
            continue;
        }
        let next = uniques.len() as u32;
        if next == MISSING {
            return Err(Error::TooManyLabels);
        }
        map.insert(key, next);
        uniques.push((key, offset + i));
        *slot = next;
    }
    Ok(Some(Block { uniques, missing }))
}

/// Renumbers `codes` (blocks of `block` samples, each coded in its own
/// first-seen order) by the sorted order of the labels.
fn finish<K: Hash + Eq + Ord + Copy + Send + Sync>(
    codes: Vec<u32>,
    block: usize,
    blocks: Vec<Block<K>>,
) -> Result<Codes, Error> {
    let lengths = (0..blocks.len())
        .map(|i| block.min(codes.len() - (i * block).min(codes.len())))
        .collect::<Vec<_>>();
    finish_blocks(codes, &lengths, blocks)
}

/// [`finish`] for blocks of any lengths (`lengths[i]` samples in block `i`, in order).
fn finish_blocks<K: Hash + Eq + Ord + Copy + Send + Sync>(
    mut codes: Vec<u32>,
    lengths: &[usize],
    blocks: Vec<Block<K>>,
) -> Result<Codes, Error> {
    // Global first-seen codes, and each block's map from its local codes to them.
    let mut map: HashMap<K, u32, FixedState> = HashMap::with_hasher(FixedState::default());
    let mut uniques: Vec<(K, usize)> = Vec::new();
    let mut remaps = Vec::with_capacity(blocks.len());
    for b in &blocks {
        let mut remap = Vec::with_capacity(b.uniques.len());
        for &(key, first) in &b.uniques {
            let next = uniques.len() as u32;
            remap.push(*map.entry(key).or_insert_with(|| {
                uniques.push((key, first));
                next
            }));
            if next == MISSING {
                return Err(Error::TooManyLabels);
            }
        }
        remaps.push(remap);
    }
    let mut order: Vec<u32> = (0..uniques.len() as u32).collect();
    order.sort_unstable_by(|&x, &y| uniques[x as usize].0.cmp(&uniques[y as usize].0));
    let mut rank = vec![0u32; uniques.len()];
    for (r, &o) in order.iter().enumerate() {
        rank[o as usize] = r as u32;
    }
    for remap in &mut remaps {
        for c in remap.iter_mut() {
            *c = rank[*c as usize];
        }
    }
    let recode = |codes: &mut [u32], remap: &Vec<u32>| {
        for c in codes.iter_mut().filter(|c| **c != MISSING) {
            *c = remap[*c as usize];
        }
    };
    if remaps.len() > 1 {
        let mut parts = Vec::with_capacity(lengths.len());
        let mut rest = codes.as_mut_slice();
        for &len in lengths {
            let (part, tail) = rest.split_at_mut(len);
            parts.push(part);
            rest = tail;
        }
        pool::run(|| {
            parts
                .into_par_iter()
                .zip(&remaps)
                .for_each(|(c, r)| recode(c, r))
        });
    } else if let Some(r) = remaps.first() {
        recode(&mut codes, r);
    }
    Ok(Codes {
        codes,
        first: order.iter().map(|&o| uniques[o as usize].1).collect(),
        missing: blocks.iter().map(|b| b.missing).sum(),
    })
}

/// Below this many items, strings are hashed on the calling thread.
const PARALLEL_MIN: usize = 1 << 15;

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
