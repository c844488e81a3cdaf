//! The hashing pass shared by every kind of string label: blocks of items coded in
//! first-seen order (each block on its own thread), then renumbered once by the sorted
//! order of the labels.

use std::hash::Hash;

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use rayon::prelude::*;

use crate::alloc;
use crate::error::Error;
use crate::pages;
use crate::pool;
use crate::stop;

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
pub(super) fn encode_until<K, I>(len: usize, items: I) -> Result<Option<Codes>, Error>
where
    K: Hash + Eq + Ord + Copy + Send + Sync,
    I: Iterator<Item = Option<Option<K>>>,
{
    let mut codes = pages::zeroed::<u32>(len, CODES)?;
    match encode_block(&mut codes, 0, items)? {
        Some(block) => finish(codes, len.max(1), vec![block]).map(Some),
        None => Ok(None),
    }
}

/// What a block of samples leaves besides its codes (written in first-seen order).
pub(super) struct Block<K> {
    /// Each local code's label and the global index of its first sample.
    uniques: Vec<(K, usize)>,
    missing: usize,
}

/// Writes local first-seen codes of `items` into `out` (one per item, in order).
pub(super) fn encode_block<K, I>(
    out: &mut [u32],
    offset: usize,
    items: I,
) -> Result<Option<Block<K>>, Error>
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
        alloc::room_for_one(&mut map, WHAT)?;
        map.insert(key, next);
        alloc::push(&mut uniques, (key, offset + i), WHAT)?;
        *slot = next;
    }
    Ok(Some(Block { uniques, missing }))
}

/// Renumbers `codes` (blocks of `block` samples, each coded in its own
/// first-seen order) by the sorted order of the labels.
pub(super) fn finish<K: Hash + Eq + Ord + Copy + Send + Sync>(
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
pub(super) fn finish_blocks<K: Hash + Eq + Ord + Copy + Send + Sync>(
    mut codes: Vec<u32>,
    lengths: &[usize],
    blocks: Vec<Block<K>>,
) -> Result<Codes, Error> {
    // Global first-seen codes, and each block's map from its local codes to them.
    let mut map: HashMap<K, u32, FixedState> = HashMap::with_hasher(FixedState::default());
    let most = blocks.iter().map(|b| b.uniques.len()).max().unwrap_or(0);
    alloc::reserve_map(&mut map, most, WHAT)?;
    let mut uniques: Vec<(K, usize)> = alloc::with_capacity(most, WHAT)?;
    let mut remaps = Vec::with_capacity(blocks.len());
    for b in &blocks {
        let mut remap = alloc::with_capacity(b.uniques.len(), WHAT)?;
        for &(key, first) in &b.uniques {
            let next = uniques.len() as u32;
            if next == MISSING {
                return Err(Error::TooManyLabels);
            }
            alloc::room_for_one(&mut map, WHAT)?;
            let code = *map.entry(key).or_insert(next);
            if code == next {
                alloc::push(&mut uniques, (key, first), WHAT)?;
            }
            remap.push(code);
        }
        remaps.push(remap);
    }
    let mut order: Vec<u32> = alloc::collect(0..uniques.len() as u32, WHAT)?;
    order.sort_unstable_by(|&x, &y| uniques[x as usize].0.cmp(&uniques[y as usize].0));
    let mut rank = alloc::filled(uniques.len(), 0u32, WHAT)?;
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
        first: alloc::collect(order.iter().map(|&o| uniques[o as usize].1), WHAT)?,
        missing: blocks.iter().map(|b| b.missing).sum(),
    })
}

/// What a refused allocation was building.
const WHAT: &str = "the distinct labels of a labeling";

/// What a refused allocation of a labeling's codes was building.
pub(super) const CODES: &str = "the codes of a labeling";

/// Below this many items, strings are hashed on the calling thread.
pub(super) const PARALLEL_MIN: usize = 1 << 15;
