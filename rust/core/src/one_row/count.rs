//! Counting a table every column of which has a single non-empty row: each cluster's
//! key indexes one `u32` of a dense map holding its class and its count (one store a
//! sample, no pairs listed), or, for all singletons counted for their measures only,
//! one bit a cluster key.

use rayon::prelude::*;

use crate::alloc;
use crate::cpu::{self, prefetch, Build, Kernel};
use crate::error::Error;
use crate::label::Label;
use crate::memory;
use crate::pages;
use crate::pool;
use crate::stop;

use super::form::{of_rows, one_row_of, OneRow, Singletons, COUNT_MAX, KEEP_MAP_MIN, ROWS_MAX};

/// Samples read first to decide whether to try the map: their key ranges must be too
/// wide for a dense window, and no cluster among them in two classes.
const PROBE: usize = 1 << 12;

/// The key ranges of a table that may have one non-empty row a column, found by
/// [`probe`].
pub(crate) struct Probe {
    /// The rows' keys, lowest and highest.
    a: (u64, u64),
    /// The columns' lowest key, and the highest less it.
    b_lo: u64,
    width: u64,
}

/// The key ranges of `a` (rows) and `b` (columns) when every column may have one
/// non-empty row, the rows' keys span at most [`ROWS_MAX`] + 1 values and the columns'
/// at most a few times the samples; `None` otherwise (then the caller counts as usual,
/// having spent a look at the first samples, or a pass over the keys' ranges).
/// `dense_cells` is the largest window the usual count affords: tables within it are
/// left to it.
pub(crate) fn probe<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    dense_cells: u64,
    threads: usize,
) -> Option<Probe> {
    let n = a.len();
    let m = n.min(PROBE);
    if m == 0 {
        return None;
    }
    let range = |keys: &mut dyn Iterator<Item = u64>| {
        keys.fold((u64::MAX, 0), |(lo, hi), k| (lo.min(k), hi.max(k)))
    };
    let (a_lo, a_hi) = range(&mut a[..m].iter().map(|x| x.key()));
    let (b_lo, b_hi) = range(&mut b[..m].iter().map(|y| y.key()));
    let span = |lo: u64, hi: u64| u128::from(hi - lo) + 1;
    let wide = span(a_lo, a_hi) * span(b_lo, b_hi) > u128::from(dense_cells);
    if !wide || a_hi - a_lo > ROWS_MAX || !one_row_each(&a[..m], &b[..m]) {
        return None;
    }
    let ((a_lo, a_hi), (b_lo, b_hi)) =
        pool::run(|| rayon::join(|| key_range(a, threads), || key_range(b, threads)));
    let width = b_hi - b_lo;
    if a_hi - a_lo > ROWS_MAX || width >= u64::from(u32::MAX) || width / 4 > n as u64 {
        return None;
    }
    Some(Probe {
        a: (a_lo, a_hi),
        b_lo,
        width,
    })
}

/// The table of `a` against `b` as its map, if every column has one non-empty row (of
/// at most [`COUNT_MAX`] samples); `None` at the first sample that shows otherwise.
pub(crate) fn count_map<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    probe: &Probe,
) -> Result<Option<OneRow>, Error> {
    let Some(map) = fill(a, b, probe.a.0, probe.b_lo, probe.width as usize + 1)? else {
        return Ok(None);
    };
    Ok(Some(one_row_of(map, probe.a, probe.b_lo, A::KIND, B::KIND)))
}

/// The table of `a` against `b` as its rows alone, if it has more than
/// [`KEEP_MAP_MIN`] samples and every cluster is a singleton: counted with one bit a
/// cluster key. `None` otherwise.
pub(crate) fn count_singletons<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    probe: &Probe,
    threads: usize,
) -> Result<Option<Singletons>, Error> {
    let n = a.len();
    if n <= KEEP_MAP_MIN {
        return Ok(None);
    }
    let sizes = (probe.width as usize + 1, threads);
    let Some(rows) = singletons(a, b, probe.a, probe.b_lo, sizes)? else {
        return Ok(None);
    };
    Ok(Some(Singletons {
        rows: of_rows(rows, probe.a.0, A::KIND),
    }))
}

/// Per row offset from `a_lo`, its number of samples, if no two samples share a column
/// key: one bit a key of `width` from `b_lo` (a 32nd of a map's bytes, so within the
/// caches far longer). `None` at the first key seen twice.
fn singletons<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    (a_lo, a_hi): (u64, u64),
    b_lo: u64,
    (width, threads): (usize, usize),
) -> Result<Option<Vec<u64>>, Error> {
    let words = width.div_ceil(64);
    let offsets = (a_hi - a_lo) as usize + 1;
    // Each thread marks its block of samples in bits of its own; then no key may be in
    // two threads' bits (a count of 1e6 singletons: 1.8-2.0 ms, against 2.9-3.6 ms
    // marked on one thread).
    let what = "the bits of a table's singletons";
    let block = |(x, y): (&[A], &[B])| -> Result<_, Error> {
        let mut seen = pages::zeroed::<u64>(words, what)?;
        let mut rows = alloc::filled(offsets, 0u64, what)?;
        // Prefetching only pays where the bits are past the caches nearest the core (it
        // costs about as many instructions as the rest).
        let seen_ok = if words > FAR_WORDS {
            mark::<A, B, true>(x, y, (a_lo, b_lo), &mut seen, &mut rows)
        } else {
            mark::<A, B, false>(x, y, (a_lo, b_lo), &mut seen, &mut rows)
        };
        Ok(seen_ok.then_some((seen, rows)))
    };
    let size = a.len().div_ceil(threads).max(1);
    let mut parts: Vec<Option<(Vec<u64>, Vec<u64>)>> = if threads > 1 {
        pool::run(|| {
            a.par_chunks(size)
                .zip(b.par_chunks(size))
                .map(block)
                .collect::<Result<_, _>>()
        })?
    } else {
        vec![block((a, b))?]
    };
    let Some((mut seen, mut rows)) = parts.pop().flatten() else {
        return Ok(None);
    };
    for part in parts {
        let Some((other, other_rows)) = part else {
            return Ok(None);
        };
        for (w, o) in seen.iter_mut().zip(other) {
            if *w & o != 0 {
                return Ok(None);
            }
            *w |= o;
        }
        for (r, o) in rows.iter_mut().zip(other_rows) {
            *r += o;
        }
    }
    Ok(Some(rows))
}

/// Words of bits past which [`mark`] prefetches (512 kB).
const FAR_WORDS: usize = 1 << 16;

/// [`singletons`]' loop: whether every column key was new.
#[inline(always)]
fn mark<A: Label, B: Label, const FAR: bool>(
    a: &[A],
    b: &[B],
    (a_lo, b_lo): (u64, u64),
    seen: &mut [u64],
    rows: &mut [u64],
) -> bool {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        // A stopped pass gives up, as at a key seen twice.
        if i % stop::EVERY == 0 && stop::requested() {
            return false;
        }
        if FAR {
            let ahead = b.get(i + AHEAD);
            if let Some(w) = ahead.and_then(|y| seen.get(((y.key() - b_lo) / 64) as usize)) {
                prefetch(w);
            }
        }
        let k = y.key() - b_lo;
        let (word, bit) = (&mut seen[(k / 64) as usize], 1u64 << (k % 64));
        if *word & bit != 0 {
            return false;
        }
        *word |= bit;
        rows[(x.key() - a_lo) as usize] += 1;
    }
    true
}

/// Whether no column key among these samples comes with two row keys.
fn one_row_each<A: Label, B: Label>(a: &[A], b: &[B]) -> bool {
    let mut pairs: Vec<(u64, u64)> = b
        .iter()
        .map(|y| y.key())
        .zip(a.iter().map(|x| x.key()))
        .collect();
    pairs.sort_unstable();
    pairs
        .windows(2)
        .all(|w| w[0].0 != w[1].0 || w[0].1 == w[1].1)
}

/// The smallest and largest key, on `threads` threads.
pub(crate) fn key_range<T: Label>(x: &[T], threads: usize) -> (u64, u64) {
    let block = x.len().div_ceil(threads).max(1);
    x.par_chunks(block)
        .map(key_bounds)
        .reduce(|| (u64::MAX, 0), |(a, b), (c, d)| (a.min(c), b.max(d)))
}

/// The smallest and largest key of `x` (`(u64::MAX, 0)` for none), with AVX-512's
/// 64-bit minimum and maximum where the CPU has them (the baseline build compares and
/// selects a key at a time).
fn key_bounds<T: Label>(x: &[T]) -> (u64, u64) {
    cpu::run_best(&[Build::Avx512Vl], KeyBounds(x))
}

/// [`key_bounds`] as a [`Kernel`].
struct KeyBounds<'a, T>(&'a [T]);

impl<T: Label> Kernel for KeyBounds<'_, T> {
    type Output = (u64, u64);

    #[inline(always)]
    fn run(self) -> (u64, u64) {
        self.0.iter().fold((u64::MAX, 0), |(lo, hi), v| {
            (lo.min(v.key()), hi.max(v.key()))
        })
    }
}

/// How many samples ahead [`fill`] prefetches its slot.
const AHEAD: usize = 32;

/// The map: for each column key from `b_lo`, 0 (no sample) or its row's offset from
/// `a_lo` plus one, and its count above bit 16. `None` as soon as a column has two rows
/// or more than [`COUNT_MAX`] samples. On one thread: the stores are random over the
/// map, and two threads (each its own range of columns, reading every sample) were
/// slower.
fn fill<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    a_lo: u64,
    b_lo: u64,
    width: usize,
) -> Result<Option<Vec<u32>>, Error> {
    let what = "a one-row table's map";
    memory::check(width.saturating_mul(4), what)?;
    let mut map = pages::zeroed::<u32>(width, what)?;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if i % stop::EVERY == 0 && stop::requested() {
            return Ok(None);
        }
        // A store to a random slot of a map larger than the caches: ask for the slot of
        // the sample [`AHEAD`] further on now (1e7 samples: 160-172 ms, against 195-217).
        if let Some(s) = b
            .get(i + AHEAD)
            .and_then(|y| map.get((y.key() - b_lo) as usize))
        {
            prefetch(s);
        }
        let row = (x.key() - a_lo) as u32 + 1;
        let slot = &mut map[(y.key() - b_lo) as usize];
        if *slot == 0 {
            *slot = row | 1 << 16;
        } else if *slot & 0xffff == row && *slot >> 16 < COUNT_MAX {
            *slot += 1 << 16;
        } else {
            return Ok(None);
        }
    }
    Ok(Some(map))
}
