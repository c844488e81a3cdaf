//! The one pass over the labels.
//!
//! Each thread takes a contiguous block of both label slices and walks it in
//! small chunks. A chunk's labels are widened to `u64` keys (order-preserving,
//! see [`Label`]) in a stack buffer together with their minimum and maximum.
//! When the chunk's key ranges fit the thread's dense window (a small
//! row-major array of counts), each pair is one indexed increment; the window
//! grows (doubling) while it stays below a size limit. Pairs outside any
//! affordable window go to a hash map with a fixed-seed hasher. The per-thread
//! counters are merged by key into one [`Table`].

use foldhash::fast::FixedState;
use hashbrown::HashMap;
use rayon::prelude::*;

use crate::counted::Counted;
use crate::label::{Constant, Label};
use crate::one_row;
use crate::pool;
use crate::table::Table;
use crate::Error;

/// Labels handled per chunk: two `u64` buffers of this length stay in L1.
const CHUNK: usize = 1024;
/// Below this many samples the pass runs on the calling thread.
const PARALLEL_MIN: usize = 1 << 16;
/// Bounds of the dense window, in cells, per thread.
const WINDOW_MIN: u64 = 1 << 12;
const WINDOW_MAX: u64 = 1 << 21;

/// Builds the contingency table of two labelings in one pass.
pub fn count<A: Label, B: Label>(a: &[A], b: &[B]) -> Result<Table, Error> {
    let counted = count_compact(a, b, true)?;
    // Counted with its cells: every form holds its table.
    Ok(counted.into_table().unwrap_or_else(|| unreachable!()))
}

/// [`count`], keeping a table whose every column has one non-empty row in the compact
/// form it was counted in ([`Counted::OneRow`]) when it has many columns. Unless `cells`
/// (its cells will be asked for), a table of singletons is counted and kept by its rows
/// alone.
pub fn count_compact<A: Label, B: Label>(a: &[A], b: &[B], cells: bool) -> Result<Counted, Error> {
    if a.len() != b.len() {
        return Err(Error::LengthMismatch {
            left: a.len(),
            right: b.len(),
        });
    }
    let n = a.len();
    let threads = if n >= PARALLEL_MIN {
        pool::threads()
    } else {
        1
    };
    // Clusters each within one class (all singletons, say), too many for a window.
    if n >= PARALLEL_MIN {
        if let Some(counted) = one_row::count(a, b, 2 * WINDOW_MAX, threads, cells) {
            return Ok(counted);
        }
    }
    if threads <= 1 {
        return count_in(a, b, 1).map(Counted::Table);
    }
    // Every step in one visit to the pool: each visit from outside it waits for a pool
    // thread to wake and then for the caller to (about 0.1 ms between the two).
    pool::run(|| count_in(a, b, threads)).map(Counted::Table)
}

/// [`count`] on `threads` threads, from a thread of the pool if more than one.
pub(crate) fn count_in<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    threads: usize,
) -> Result<Table, Error> {
    let n = a.len();
    let counters: Vec<Counter> = if threads <= 1 {
        vec![count_block(a, b)]
    } else {
        let block = n.div_ceil(threads);
        pool::run(|| {
            a.par_chunks(block)
                .zip(b.par_chunks(block))
                .map(|(x, y)| count_block(x, y))
                .collect()
        })
    };
    let mut counters = merge_windows(counters);
    if let [counter] = &mut counters[..] {
        if counter.is_dense() {
            if let Some(w) = &mut counter.window {
                if let Some(narrow) = w.narrow_only() {
                    return Table::from_dense(w.a0, w.b0, w.nb as usize, narrow, A::KIND, B::KIND);
                }
                w.fold();
                return Table::from_dense(w.a0, w.b0, w.nb as usize, &w.counts, A::KIND, B::KIND);
            }
        }
    }
    let mut cells = Vec::new();
    let sorted = counters.len() == 1 && counters[0].is_dense();
    for counter in counters {
        counter.drain_into(&mut cells);
    }
    Table::from_key_cells(cells, sorted, A::KIND, B::KIND, threads)
}

/// Per-thread counters that counted everything in their windows are added into one
/// window spanning them all (when that stays affordable): a sequential pass instead of
/// sorting their cells, which for wide tables (a million cells) cost more than counting.
fn merge_windows(counters: Vec<Counter>) -> Vec<Counter> {
    if counters.len() < 2 || !counters.iter().all(|c| c.is_dense() && c.window.is_some()) {
        return counters;
    }
    let windows = counters.iter().filter_map(|c| c.window.as_ref());
    let (mut a_lo, mut a_hi, mut b_lo, mut b_hi) = (u64::MAX, 0, u64::MAX, 0);
    for w in windows {
        a_lo = a_lo.min(w.a0);
        a_hi = a_hi.max(w.a0 + (w.na - 1));
        b_lo = b_lo.min(w.b0);
        b_hi = b_hi.max(w.b0 + (w.nb - 1));
    }
    let merged_cells = cells((a_lo, a_hi), (b_lo, b_hi));
    let total: u64 = counters
        .iter()
        .filter_map(|c| c.window.as_ref())
        .map(|w| w.na * w.nb)
        .sum();
    // Affordable: no bigger than the windows together (plus a little), and than the cap.
    if !merged_cells.is_some_and(|m| m <= total.max(WINDOW_MIN) * 2 && m <= 2 * WINDOW_MAX) {
        return counters;
    }
    // Into a window that already spans them all (the usual case: every thread saw every
    // label), else into a new one: no allocation, and one pass fewer, for wide tables.
    let mut windows: Vec<Window> = counters.into_iter().filter_map(|c| c.window).collect();
    let spans_all = |w: &Window| {
        w.a0 == a_lo && w.na == a_hi - a_lo + 1 && w.b0 == b_lo && w.nb == b_hi - b_lo + 1
    };
    let mut merged = match windows.iter().position(spans_all) {
        Some(k) => windows.swap_remove(k),
        None => Window::new((a_lo, a_hi), (b_lo, b_hi)),
    };
    for w in windows {
        merged.absorb(w);
    }
    let mut out = Counter::new(0);
    out.window = Some(merged);
    vec![out]
}

/// The one-column table of a single labeling: its class sizes, in one pass.
pub fn count_one<A: Label>(a: &[A]) -> Result<Table, Error> {
    // A slice of a zero-sized type: no memory, and the pass reads only `a`.
    let constant = vec![Constant; a.len()];
    count(a, &constant)
}

/// Counts one block, with the widest vector instructions the CPU has: the
/// fused index loop vectorizes with AVX2 (measured 1.4-1.7x faster than the
/// baseline x86-64 build on this project's machine).
fn count_block<A: Label, B: Label>(a: &[A], b: &[B]) -> Counter {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512dq")
    {
        return count_block_avx512_checked(a, b);
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return count_block_avx2_checked(a, b);
    }
    count_block_impl(a, b)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn count_block_avx2_checked<A: Label, B: Label>(a: &[A], b: &[B]) -> Counter {
    // SAFETY: `count_block_avx2` is plain safe code compiled with AVX2 enabled; the only
    // requirement for calling it is a CPU with AVX2, which the caller has just detected.
    unsafe { count_block_avx2(a, b) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn count_block_avx2<A: Label, B: Label>(a: &[A], b: &[B]) -> Counter {
    count_block_impl(a, b)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn count_block_avx512_checked<A: Label, B: Label>(a: &[A], b: &[B]) -> Counter {
    // SAFETY: as for `count_block_avx2_checked`, with the AVX-512 features just detected.
    unsafe { count_block_avx512(a, b) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq")]
fn count_block_avx512<A: Label, B: Label>(a: &[A], b: &[B]) -> Counter {
    count_block_impl(a, b)
}

/// The smallest and largest key of `x` (`(u64::MAX, 0)` for none), with AVX-512's
/// 64-bit minimum and maximum where the CPU has them (the baseline build compares and
/// selects a key at a time).
pub(crate) fn key_bounds<T: Label>(x: &[T]) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
    {
        #[allow(unsafe_code)]
        // SAFETY: `key_bounds_avx512` is plain safe code compiled with AVX-512F and VL,
        // which the CPU has (just detected).
        return unsafe { key_bounds_avx512(x) };
    }
    key_bounds_impl(x)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
fn key_bounds_avx512<T: Label>(x: &[T]) -> (u64, u64) {
    key_bounds_impl(x)
}

#[inline(always)]
fn key_bounds_impl<T: Label>(x: &[T]) -> (u64, u64) {
    x.iter().fold((u64::MAX, 0), |(lo, hi), v| {
        (lo.min(v.key()), hi.max(v.key()))
    })
}

#[inline(always)]
fn count_block_impl<A: Label, B: Label>(a: &[A], b: &[B]) -> Counter {
    let mut counter = Counter::new(window_limit(a.len(), 1));
    let mut scratch = Scratch::new();
    let n = a.len();
    counter.first_window(&a[..n.min(PRESCAN)], &b[..n.min(PRESCAN)]);
    let mut i = 0;
    while i < n {
        let end = (i + CHUNK).min(n);
        let ahead = end..(end + CHUNK).min(n);
        counter.add_chunk(
            (&a[i..end], &b[i..end]),
            (&a[ahead.clone()], &b[ahead]),
            &mut scratch,
        );
        i = end;
    }
    counter
}

/// Samples whose key ranges size the first window: the first chunk alone (1,024 samples
/// of 10,000 clusters miss about 10 at each end) made windows grow once, by doubling,
/// to twice the cells they needed, every one of which is zeroed and read.
const PRESCAN: usize = 16 * CHUNK;

/// The dense window's size limit for a block of `n` samples shared by `tables` counters.
fn window_limit(n: usize, tables: usize) -> u64 {
    // Zeroing and draining a window cell costs a nanosecond or two; hashing one sample
    // costs ten or more. A window of up to 4n cells pays for itself.
    (n as u64)
        .saturating_mul(4)
        .clamp(WINDOW_MIN, (WINDOW_MAX / tables as u64).max(WINDOW_MIN))
}

/// Per-chunk buffers: cell indices and widened keys.
struct Scratch {
    cells: [u32; CHUNK],
    ka: [u64; CHUNK],
    kb: [u64; CHUNK],
}

impl Scratch {
    fn new() -> Self {
        Scratch {
            cells: [0; CHUNK],
            ka: [0; CHUNK],
            kb: [0; CHUNK],
        }
    }
}

/// Builds the tables of one labeling `a` against each column of `b`, a row-major
/// `a.len() × width` matrix (a C-ordered 2-D array of predictions), in one pass over
/// both: each chunk of rows is read once, its columns gathered into a small buffer.
pub fn count_columns<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    width: usize,
) -> Result<Vec<Table>, Error> {
    let n = a.len();
    if n.checked_mul(width) != Some(b.len()) {
        return Err(Error::LengthMismatch {
            left: n,
            right: b.len().checked_div(width).unwrap_or(0),
        });
    }
    if width == 0 {
        return Ok(Vec::new());
    }
    let threads = if n >= PARALLEL_MIN {
        pool::threads()
    } else {
        1
    };
    let blocks: Vec<Vec<Counter>> = if threads <= 1 {
        vec![count_columns_block(a, b, width)]
    } else {
        let block = n.div_ceil(threads);
        pool::run(|| {
            a.par_chunks(block)
                .zip(b.par_chunks(block * width))
                .map(|(x, y)| count_columns_block(x, y, width))
                .collect()
        })
    };
    let mut per_column: Vec<Vec<Counter>> = (0..width).map(|_| Vec::new()).collect();
    for counters in blocks {
        for (k, counter) in counters.into_iter().enumerate() {
            per_column[k].push(counter);
        }
    }
    per_column
        .into_iter()
        .map(|counters| {
            let counters = merge_windows(counters);
            let sorted = counters.len() == 1 && counters[0].is_dense();
            let mut cells = Vec::new();
            for counter in counters {
                counter.drain_into(&mut cells);
            }
            Table::from_key_cells(cells, sorted, A::KIND, B::KIND, threads)
        })
        .collect()
}

fn count_columns_block<A: Label, B: Label>(a: &[A], b: &[B], width: usize) -> Vec<Counter> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return count_columns_block_avx2_checked(a, b, width);
    }
    count_columns_block_impl(a, b, width)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn count_columns_block_avx2_checked<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    width: usize,
) -> Vec<Counter> {
    // SAFETY: as for `count_block_avx2_checked`: safe code compiled with AVX2, called
    // only after AVX2 was detected.
    unsafe { count_columns_block_avx2(a, b, width) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn count_columns_block_avx2<A: Label, B: Label>(a: &[A], b: &[B], width: usize) -> Vec<Counter> {
    count_columns_block_impl(a, b, width)
}

#[inline(always)]
fn count_columns_block_impl<A: Label, B: Label>(a: &[A], b: &[B], width: usize) -> Vec<Counter> {
    let limit = window_limit(a.len(), width);
    let mut counters: Vec<Counter> = (0..width).map(|_| Counter::new(limit)).collect();
    let mut scratch = Scratch::new();
    let mut column = [B::default(); CHUNK];
    for (ca, rows) in a.chunks(CHUNK).zip(b.chunks(CHUNK * width)) {
        let m = ca.len();
        for (k, counter) in counters.iter_mut().enumerate() {
            for (dst, row) in column[..m].iter_mut().zip(rows.chunks_exact(width)) {
                *dst = row[k];
            }
            // The gathered column is in L1 already: nothing to read ahead.
            counter.add_chunk((ca, &column[..m]), (&[], &[]), &mut scratch);
        }
    }
    counters
}

/// Writes the keys of `src` into `dst`; returns their minimum and maximum.
#[inline(always)]
fn widen<T: Label>(src: &[T], dst: &mut [u64]) -> (u64, u64) {
    let mut lo = u64::MAX;
    let mut hi = 0;
    for (d, &s) in dst.iter_mut().zip(src) {
        let k = s.key();
        *d = k;
        lo = lo.min(k);
        hi = hi.max(k);
    }
    (lo, hi)
}

/// The key ranges of one chunk (inclusive).
#[derive(Clone, Copy)]
struct Span {
    a_lo: u64,
    a_hi: u64,
    b_lo: u64,
    b_hi: u64,
}

impl Span {
    fn new((a_lo, a_hi): (u64, u64), (b_lo, b_hi): (u64, u64)) -> Span {
        Span {
            a_lo,
            a_hi,
            b_lo,
            b_hi,
        }
    }

    /// The key ranges of the label types `A` and `B`.
    fn of_types<A: Label, B: Label>() -> Span {
        Span::new((A::KEY_MIN, A::KEY_MAX), (B::KEY_MIN, B::KEY_MAX))
    }
}

/// Distinct pairs in a counter's hash map beyond which it spills pairs to a list.
const SPILL_AT: usize = 1 << 16;
/// Windows of at most this many cells count in four interleaved copies.
const LANES_MAX: u64 = 1 << 13;
/// The `u32` lanes are folded into the `u64` counts before they have counted more
/// samples than this (in tests, often, so that folding is exercised).
#[cfg(not(test))]
const LANE_FOLD: u64 = u32::MAX as u64;
#[cfg(test)]
const LANE_FOLD: u64 = 5000;

/// Dense counts for keys `a0..a0 + na` × `b0..b0 + nb`, row-major.
struct Window {
    a0: u64,
    b0: u64,
    na: u64,
    nb: u64,
    /// The counts folded so far; empty (not allocated) until something is folded.
    counts: Vec<u64>,
    /// For small windows, four `u32` copies of the counts, interleaved (`cell * 4 + j`),
    /// counted into instead of `counts`: consecutive samples increment different copies,
    /// so repeats of one cell (frequent when there are few cells) do not wait on each
    /// other's stores, and the copies take half the cache of `u64` ones. Folded into
    /// `counts` before they could overflow. Empty for large windows.
    lanes: Vec<[u32; 4]>,
    /// Samples counted into `lanes` since they were last folded.
    in_lanes: u64,
    /// For large windows, the counts modulo 2^16: a quarter of the cache of `u64` ones
    /// (33 x 10,000 cells: 660 kB, within L2, where `u64` counts missed it on most
    /// increments). Empty for small windows.
    narrow: Vec<u16>,
    /// The cell of each increment that wrapped a `narrow` count to 0 (2^16 more each).
    wraps: Vec<u32>,
}

impl Window {
    fn covers(&self, s: Span) -> bool {
        s.a_lo >= self.a0
            && s.a_hi - self.a0 < self.na
            && s.b_lo >= self.b0
            && s.b_hi - self.b0 < self.nb
    }

    /// Writes the cell index of each pair into `out`; false if any pair lies
    /// outside the window (then `out` is meaningless).
    #[inline(always)]
    fn index<A: Label, B: Label>(&self, a: &[A], b: &[B], out: &mut [u32]) -> bool {
        if A::KEY_MAX - A::KEY_MIN <= u64::from(u32::MAX)
            && B::KEY_MAX - B::KEY_MIN <= u64::from(u32::MAX)
        {
            return self.index_small(a, b, out);
        }
        let (a0, b0, na, nb) = (self.a0, self.b0, self.na, self.nb);
        let mut inside = true;
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            let da = x.key().wrapping_sub(a0);
            let db = y.key().wrapping_sub(b0);
            inside &= (da < na) & (db < nb);
            // Fits in u32: windows hold at most WINDOW_MAX cells.
            *o = da.wrapping_mul(nb).wrapping_add(db) as u32;
        }
        inside
    }

    /// [`Window::index`] for labels of at most 32 bits, in `u32` arithmetic on each key's
    /// offset from its type's smallest key (twice the vector lanes of `u64`). Exact because
    /// the window lies within the types' key ranges ([`Counter::try_grow`] clamps it): with
    /// `r0 = a0 - KEY_MIN` and `r0 + na <= 2^32`, an offset `r` below `r0` wraps to
    /// `r - r0 + 2^32 >= 2^32 - r0 >= na`, so it is outside, as it should be.
    #[inline(always)]
    fn index_small<A: Label, B: Label>(&self, a: &[A], b: &[B], out: &mut [u32]) -> bool {
        let a0 = (self.a0 - A::KEY_MIN) as u32;
        let b0 = (self.b0 - B::KEY_MIN) as u32;
        let (na, nb) = (self.na as u32, self.nb as u32);
        let mut inside = true;
        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
            let da = (x.key().wrapping_sub(A::KEY_MIN) as u32).wrapping_sub(a0);
            let db = (y.key().wrapping_sub(B::KEY_MIN) as u32).wrapping_sub(b0);
            inside &= (da < na) & (db < nb);
            *o = da.wrapping_mul(nb).wrapping_add(db);
        }
        inside
    }

    fn new(a: (u64, u64), b: (u64, u64)) -> Self {
        let na = a.1 - a.0 + 1;
        let nb = b.1 - b.0 + 1;
        let size = (na * nb) as usize;
        let lanes = na * nb <= LANES_MAX;
        Window {
            a0: a.0,
            b0: b.0,
            na,
            nb,
            counts: Vec::new(),
            lanes: vec![[0u32; 4]; if lanes { size } else { 0 }],
            in_lanes: 0,
            narrow: vec![0u16; if lanes { 0 } else { size }],
            wraps: Vec::new(),
        }
    }

    fn size(&self) -> usize {
        (self.na * self.nb) as usize
    }

    /// The folded counts, allocated (zero) on first use.
    fn counts_mut(&mut self) -> &mut [u64] {
        if self.counts.is_empty() {
            self.counts = vec![0u64; self.size()];
        }
        &mut self.counts
    }

    /// The window's counts when nothing was folded and no count passed 2^16 - 1: the
    /// `narrow` ones, read as they are.
    fn narrow_only(&self) -> Option<&[u16]> {
        (self.counts.is_empty() && self.wraps.is_empty() && !self.narrow.is_empty())
            .then_some(&self.narrow[..])
    }

    /// Adds one to each cell; meanwhile prefetches each cache line of the next chunk
    /// (`ahead`), so its loads overlap this loop instead of stalling the next index loop.
    #[inline(always)]
    fn add_cells<A: Label, B: Label>(&mut self, cells: &[u32], ahead: (&[A], &[B])) {
        let step_a = 64 / std::mem::size_of::<A>().max(1);
        let step_b = 64 / std::mem::size_of::<B>().max(1);
        let touch = |i: usize| {
            if let Some(x) = ahead.0.get(i * step_a) {
                prefetch(x);
            }
            if let Some(y) = ahead.1.get(i * step_b) {
                prefetch(y);
            }
        };
        if self.lanes.is_empty() {
            let (narrow, wraps) = (&mut self.narrow[..], &mut self.wraps);
            for (i, c) in cells.chunks(4).enumerate() {
                touch(i);
                for &c in c {
                    let v = narrow[c as usize].wrapping_add(1);
                    narrow[c as usize] = v;
                    if v == 0 {
                        wraps.push(c);
                    }
                }
            }
            return;
        }
        if self.in_lanes + cells.len() as u64 > LANE_FOLD {
            self.fold_lanes();
        }
        self.in_lanes += cells.len() as u64;
        let lanes = &mut self.lanes[..];
        let mut quads = cells.chunks_exact(4);
        for (i, q) in (&mut quads).enumerate() {
            touch(i);
            lanes[q[0] as usize][0] += 1;
            lanes[q[1] as usize][1] += 1;
            lanes[q[2] as usize][2] += 1;
            lanes[q[3] as usize][3] += 1;
        }
        for &c in quads.remainder() {
            lanes[c as usize][0] += 1;
        }
    }

    /// Adds the lanes into `counts` and zeroes them.
    fn fold_lanes(&mut self) {
        self.counts_mut();
        for (c, l) in self.counts.iter_mut().zip(self.lanes.iter_mut()) {
            *c += l.iter().map(|&x| u64::from(x)).sum::<u64>();
            l.fill(0);
        }
        self.in_lanes = 0;
    }

    /// Adds the lanes or narrow counts into `counts` and drops them.
    fn fold(&mut self) {
        if !self.lanes.is_empty() {
            self.fold_lanes();
            self.lanes = Vec::new();
        }
        if !self.narrow.is_empty() {
            let narrow = std::mem::take(&mut self.narrow);
            let wraps = std::mem::take(&mut self.wraps);
            let counts = self.counts_mut();
            for (c, &x) in counts.iter_mut().zip(&narrow) {
                *c += u64::from(x);
            }
            for &w in &wraps {
                counts[w as usize] += 1 << 16;
            }
        }
        self.counts_mut();
    }

    /// Adds the counts of `other`, a window within this one.
    fn absorb(&mut self, mut other: Window) {
        let (da, db, nb, onb) = (other.a0 - self.a0, other.b0 - self.b0, self.nb, other.nb);
        let offset = |i: u64| ((da + i) * nb + db) as usize;
        let row = |i: u64| (i * onb) as usize..((i + 1) * onb) as usize;
        if self.narrow.is_empty() {
            // Into `counts`; the lanes stay, to count on.
            self.counts_mut();
            other.fold();
            for i in 0..other.na {
                let start = offset(i);
                let src = &other.counts[row(i)];
                for (d, &c) in self.counts[start..start + src.len()].iter_mut().zip(src) {
                    *d += c;
                }
            }
        } else if !other.narrow.is_empty() {
            if (da, db, onb) == (0, 0, nb) && self.narrow.len() >= MERGE_PARALLEL {
                // The same cells (each thread's window, as a rule): in blocks on every thread.
                let block = self.narrow.len().div_ceil(pool::threads()).max(1);
                let wraps: Vec<Vec<u32>> = pool::run(|| {
                    self.narrow
                        .par_chunks_mut(block)
                        .zip(other.narrow.par_chunks(block))
                        .enumerate()
                        .map(|(k, (dst, src))| add_wrapping(dst, src, k * block))
                        .collect()
                });
                self.wraps.extend(wraps.into_iter().flatten());
            } else {
                for i in 0..other.na {
                    let start = offset(i);
                    let src = &other.narrow[row(i)];
                    let dst = &mut self.narrow[start..start + src.len()];
                    self.wraps.extend(add_wrapping(dst, src, start));
                }
            }
            for &w in &other.wraps {
                let (i, j) = (u64::from(w) / onb, u64::from(w) % onb);
                self.wraps.push((offset(i) + j as usize) as u32);
            }
        } else {
            other.fold();
            for i in 0..other.na {
                let start = offset(i);
                for (j, &c) in other.counts[row(i)].iter().enumerate() {
                    self.add_narrow(start + j, c);
                }
            }
        }
    }

    /// Adds `v` to a narrow window's cell `k`.
    fn add_narrow(&mut self, k: usize, v: u64) {
        let sum = u64::from(self.narrow[k]) + (v & 0xffff);
        self.narrow[k] = sum as u16;
        for _ in 0..(v >> 16) + (sum >> 16) {
            self.wraps.push(k as u32);
        }
    }

    /// Counts pairs of keys the window covers.
    #[inline]
    fn add(&mut self, ka: &[u64], kb: &[u64]) {
        let (a0, b0, nb) = (self.a0, self.b0, self.nb);
        let mut cells = [0u32; CHUNK];
        for (chunk_a, chunk_b) in ka.chunks(CHUNK).zip(kb.chunks(CHUNK)) {
            for ((o, &x), &y) in cells.iter_mut().zip(chunk_a).zip(chunk_b) {
                *o = ((x - a0) * nb + (y - b0)) as u32;
            }
            self.add_cells::<u64, u64>(&cells[..chunk_a.len()], (&[], &[]));
        }
    }
}

/// Adds `src` into `dst` modulo 2^16; returns `start` plus the place of each cell that
/// wrapped (one more 2^16 each).
fn add_wrapping(dst: &mut [u16], src: &[u16], start: usize) -> Vec<u32> {
    let mut carry = 0;
    for (d, &c) in dst.iter_mut().zip(src) {
        let sum = u32::from(*d) + u32::from(c);
        *d = sum as u16;
        carry |= sum >> 16;
    }
    if carry == 0 {
        return Vec::new();
    }
    // A cell wrapped exactly where its new count is below the one added.
    let wrapped = dst
        .iter()
        .zip(src)
        .enumerate()
        .filter(|(_, (&d, &c))| d < c);
    wrapped.map(|(j, _)| (start + j) as u32).collect()
}

/// Narrow windows of at least this many cells are added on every thread.
const MERGE_PARALLEL: usize = 1 << 16;

struct Counter {
    window: Option<Window>,
    sparse: HashMap<(u64, u64), u64, FixedState>,
    /// Once the hash map holds `SPILL_AT` pairs (many distinct pairs, such as
    /// all-singleton clusters), pairs outside the window are appended here instead
    /// and sorted once at the end, which is several times faster than hashing them.
    spill: Vec<(u64, u64, u64)>,
    limit: u64,
    /// The window has grown to its limit and grows no more.
    full: bool,
    /// Times the window grew by a little ([`nudge`]).
    nudges: u8,
}

impl Counter {
    fn new(limit: u64) -> Self {
        Counter {
            window: None,
            sparse: HashMap::with_hasher(FixedState::default()),
            spill: Vec::new(),
            limit,
            full: false,
            nudges: 0,
        }
    }

    /// Whether every pair went to the window (its cells then come out sorted).
    fn is_dense(&self) -> bool {
        self.sparse.is_empty() && self.spill.is_empty()
    }

    /// Creates the window, if affordable, for the key ranges of the first samples.
    fn first_window<A: Label, B: Label>(&mut self, a: &[A], b: &[B]) {
        if a.is_empty() {
            return;
        }
        let range = |keys: &mut dyn Iterator<Item = u64>| {
            keys.fold((u64::MAX, 0), |(lo, hi), k| (lo.min(k), hi.max(k)))
        };
        let span = Span::new(
            range(&mut a.iter().map(|x| x.key())),
            range(&mut b.iter().map(|y| y.key())),
        );
        self.try_grow(span, Span::of_types::<A, B>());
    }

    /// Counts one chunk (at most `CHUNK` pairs); `ahead` is the next chunk, to prefetch.
    #[inline(always)]
    fn add_chunk<A: Label, B: Label>(
        &mut self,
        (ca, cb): (&[A], &[B]),
        ahead: (&[A], &[B]),
        s: &mut Scratch,
    ) {
        let m = ca.len();
        // Fast path: the chunk falls in the window; one fused loop computes every cell index.
        if let Some(w) = &mut self.window {
            if w.index(ca, cb, &mut s.cells[..m]) {
                w.add_cells(&s.cells[..m], ahead);
                return;
            }
        }
        let span = Span::new(widen(ca, &mut s.ka[..m]), widen(cb, &mut s.kb[..m]));
        self.add(&s.ka[..m], &s.kb[..m], span, Span::of_types::<A, B>());
    }

    /// Counts pairs of keys within `span`; `types` is the key range of the label types.
    fn add(&mut self, ka: &[u64], kb: &[u64], span: Span, types: Span) {
        if !self.window.as_ref().is_some_and(|w| w.covers(span)) {
            self.try_grow(span, types);
        }
        match &mut self.window {
            Some(w) if w.covers(span) => w.add(ka, kb),
            _ if !self.spill.is_empty() => {
                self.spill
                    .extend(ka.iter().zip(kb).map(|(&x, &y)| (x, y, 1)));
            }
            _ => {
                for (&x, &y) in ka.iter().zip(kb) {
                    *self.sparse.entry((x, y)).or_insert(0) += 1;
                }
                if self.sparse.len() >= SPILL_AT {
                    self.spill.reserve(2 * SPILL_AT);
                    self.spill
                        .extend(self.sparse.drain().map(|((x, y), c)| (x, y, c)));
                }
            }
        }
    }

    /// Grows (or creates) the window to cover `span`, with room to spare, if
    /// that stays within the limit; otherwise leaves it as it is.
    /// The window never reaches past the key range of the label types (`types`), which
    /// [`Window::index_small`] relies on.
    fn try_grow(&mut self, span: Span, types: Span) {
        if self.full {
            return;
        }
        let (a, b) = match &self.window {
            None => ((span.a_lo, span.a_hi), (span.b_lo, span.b_hi)),
            // Keys just past a window's ends (unsorted labels whose extremes the first
            // samples missed): a little more room, not twice as much, a few times.
            Some(w)
                if self.nudges < NUDGES
                    && near(w.a0, w.na, span.a_lo, span.a_hi)
                    && near(w.b0, w.nb, span.b_lo, span.b_hi) =>
            {
                self.nudges += 1;
                (
                    nudge(w.a0, w.na, span.a_lo, span.a_hi),
                    nudge(w.b0, w.nb, span.b_lo, span.b_hi),
                )
            }
            Some(w) => (
                grow(w.a0, w.na, span.a_lo, span.a_hi),
                grow(w.b0, w.nb, span.b_lo, span.b_hi),
            ),
        };
        let exact = match &self.window {
            None => (a, b),
            Some(w) => (
                union(w.a0, w.na, span.a_lo, span.a_hi),
                union(w.b0, w.nb, span.b_lo, span.b_hi),
            ),
        };
        let fits = |(a, b): ((u64, u64), (u64, u64))| cells(a, b).is_some_and(|c| c <= self.limit);
        let (a, b) = if fits((a, b)) {
            (a, b)
        } else if fits(exact) {
            // The last growth: as large as the limit allows in the direction the labels
            // grew, and never again (copying a near-limit window per chunk costs more
            // than counting the rest in the hash map).
            self.full = true;
            match &self.window {
                None => exact,
                Some(w) => {
                    let (ea, eb) = exact;
                    let na = ea.1 - ea.0 + 1;
                    let nb = eb.1 - eb.0 + 1;
                    if eb != (w.b0, w.b0 + w.nb - 1) {
                        (ea, extend(eb, w.b0, self.limit / na))
                    } else {
                        (extend(ea, w.a0, self.limit / nb), eb)
                    }
                }
            }
        } else {
            return;
        };
        let a = (a.0.max(types.a_lo), a.1.min(types.a_hi));
        let b = (b.0.max(types.b_lo), b.1.min(types.b_hi));
        let mut window = Window::new(a, b);
        if let Some(old) = self.window.take() {
            window.absorb(old);
        }
        self.window = Some(window);
    }

    /// Appends every non-zero `(key_a, key_b, count)`; the window's come in key order.
    fn drain_into(self, out: &mut Vec<(u64, u64, u64)>) {
        if let Some(mut w) = self.window {
            w.fold();
            for (i, row) in w.counts.chunks_exact(w.nb as usize).enumerate() {
                let ka = w.a0 + i as u64;
                for (j, &c) in row.iter().enumerate() {
                    if c != 0 {
                        out.push((ka, w.b0 + j as u64, c));
                    }
                }
            }
        }
        out.extend(self.sparse.into_iter().map(|((x, y), c)| (x, y, c)));
        out.extend(self.spill);
    }
}

/// Asks the CPU to start loading the cache line holding `x`: a hint that reads nothing
/// into the program, so it cannot fault or change a result.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; it dereferences nothing.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
}

/// The inclusive range `[lo, hi]` covering `start..start + len` and `[s_lo, s_hi]`.
fn union(start: u64, len: u64, s_lo: u64, s_hi: u64) -> (u64, u64) {
    (start.min(s_lo), (start + (len - 1)).max(s_hi))
}

/// How many times a counter's window may grow by a little ([`nudge`]) before it grows
/// only by doubling (which keeps the copying linear however the labels come).
const NUDGES: u8 = 4;

/// Whether `[s_lo, s_hi]` reaches past `start..start + len` by at most `len / 16`.
fn near(start: u64, len: u64, s_lo: u64, s_hi: u64) -> bool {
    let below = start.saturating_sub(s_lo);
    let above = s_hi.saturating_sub(start + (len - 1));
    below.max(above) <= len / 16
}

/// Like [`union`], with `len / 64` keys to spare on a side that has to move.
fn nudge(start: u64, len: u64, s_lo: u64, s_hi: u64) -> (u64, u64) {
    let (mut lo, mut hi) = union(start, len, s_lo, s_hi);
    if lo < start {
        lo = lo.saturating_sub(len / 64);
    }
    if hi > start + (len - 1) {
        hi = hi.saturating_add(len / 64);
    }
    (lo, hi)
}

/// Like [`union`], but a side that has to move moves by at least the current
/// length, so a window that keeps growing is copied only a logarithmic number of times.
fn grow(start: u64, len: u64, s_lo: u64, s_hi: u64) -> (u64, u64) {
    let (mut lo, mut hi) = union(start, len, s_lo, s_hi);
    if lo < start {
        lo = lo.min(start.saturating_sub(len));
    }
    if hi > start + (len - 1) {
        hi = hi.max((start + (len - 1)).saturating_add(len));
    }
    (lo, hi)
}

/// The range `r` (which covers the old window starting at `old_start`) widened to
/// `len` keys on the side where it grew past the old window.
fn extend(r: (u64, u64), old_start: u64, len: u64) -> (u64, u64) {
    let len = len.max(r.1 - r.0 + 1);
    if r.0 < old_start {
        (r.1.saturating_sub(len - 1), r.1)
    } else {
        (r.0, r.0.saturating_add(len - 1))
    }
}

fn cells(a: (u64, u64), b: (u64, u64)) -> Option<u64> {
    (a.1 - a.0)
        .checked_add(1)?
        .checked_mul((b.1 - b.0).checked_add(1)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[i64], b: &[i64]) -> std::collections::BTreeMap<(i64, i64), u64> {
        let mut m = std::collections::BTreeMap::new();
        for (&x, &y) in a.iter().zip(b) {
            *m.entry((x, y)).or_insert(0) += 1;
        }
        m
    }

    fn as_map(t: &Table) -> std::collections::BTreeMap<(i64, i64), u64> {
        (0..t.cell_count.len())
            .map(|k| {
                let r = t.rows.value(t.cell_row[k] as usize) as i64;
                let c = t.cols.value(t.cell_col[k] as usize) as i64;
                ((r, c), t.cell_count[k])
            })
            .collect()
    }

    /// A small deterministic generator, so the tests need no crate.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn matches_naive_count_on_many_shapes() {
        let mut seed = 7;
        for &(n, ka, kb, spread) in &[
            (0usize, 1u64, 1u64, 1i64),
            (1, 1, 1, 1),
            (1000, 3, 5, 1),
            (5000, 20, 30, 1),
            (200_000, 20, 30, 1),
            (200_000, 1000, 1000, 1),
            // A wide window, made a table by row blocks on each thread; with empty rows
            // and columns between the others (keys two apart).
            (400_000, 300, 300, 1),
            (400_000, 300, 300, 2),
            (70_000, 70_000, 50, 1),
            (100_000, 40, 40, 1 << 40),
            // Hash map past SPILL_AT pairs: spilled pairs, radix-sorted (packable keys)...
            (300_000, 300_000, 3, 1 << 33),
            // ...or comparison-sorted (keys too wide to pack).
            (300_000, 300_000, 300_000, 1 << 40),
        ] {
            let a: Vec<i64> = (0..n)
                .map(|_| (lcg(&mut seed) % ka) as i64 * spread - 3)
                .collect();
            let b: Vec<i64> = (0..n)
                .map(|_| (lcg(&mut seed) % kb) as i64 * spread)
                .collect();
            let t = count(&a, &b).unwrap();
            assert_eq!(as_map(&t), naive(&a, &b), "n={n} ka={ka} kb={kb}");
            assert_eq!(t.n, n as u64);
            assert_eq!(t.row_sums.iter().sum::<u64>(), n as u64);
            assert_eq!(t.col_sums.iter().sum::<u64>(), n as u64);
        }
    }

    #[test]
    fn sorted_labels_grow_the_window() {
        let a: Vec<u32> = (0..300_000u32).map(|i| i / 300).collect();
        let b: Vec<u8> = (0..300_000u32).map(|i| (i % 7) as u8).collect();
        let t = count(&a, &b).unwrap();
        assert_eq!(t.rows.keys.len(), 1000);
        assert_eq!(t.cols.keys.len(), 7);
        assert!(t.cell_count.iter().all(|&c| c == 42 || c == 43));
    }

    #[test]
    fn windows_at_the_ends_of_a_type_range_do_not_alias() {
        // Chunk by chunk: labels just below the top of the type's range, then nearer the
        // top (the window grows upwards by its own length, which would reach past the top
        // if it were not clamped), then at the bottom, whose offsets from the window wrap
        // around in the `u32` index loop and must still count as outside.
        fn check<T: Label + Into<i64> + TryFrom<i64>>(top: [T; 3], bottom: &[T]) {
            let mut a = Vec::new();
            for (chunk, &(lo, hi)) in [(top[0], top[1]), (top[2], top[2])].iter().enumerate() {
                let (lo, hi) = (lo.into(), hi.into());
                a.extend((0..CHUNK as i64).map(|i| {
                    if chunk == 0 && i == 0 {
                        lo
                    } else {
                        hi - i % (hi - lo + 1)
                    }
                }));
            }
            let a: Vec<i64> = a
                .into_iter()
                .chain(bottom.iter().map(|&x| x.into()))
                .collect();
            let b: Vec<u8> = (0..a.len()).map(|i| (i % 2) as u8).collect();
            let typed: Vec<T> = a.iter().map(|&x| T::try_from(x).ok().unwrap()).collect();
            let t = count(&typed, &b).unwrap();
            let wide_b: Vec<i64> = b.iter().map(|&x| i64::from(x)).collect();
            assert_eq!(as_map(&t), naive(&a, &wide_b));
        }
        let bottom: Vec<u32> = (0..CHUNK as u32).map(|i| i % 50).collect();
        check([u32::MAX - 99, u32::MAX - 9, u32::MAX - 8], &bottom);
        let bottom: Vec<i16> = (0..CHUNK as i16).map(|i| i16::MIN + i % 50).collect();
        check([i16::MAX - 99, i16::MAX - 9, i16::MAX - 8], &bottom);
        let bottom: Vec<i32> = (0..CHUNK as i32).map(|i| i32::MIN + i % 50).collect();
        check([i32::MAX - 99, i32::MAX - 9, i32::MAX - 8], &bottom);
    }

    #[test]
    fn every_build_of_the_counting_loop_counts_alike() {
        // The baseline, AVX2 and AVX-512 builds of one generic loop, each on this CPU if it
        // can run it: the same cells, whichever the dispatch picks.
        fn cells(c: Counter) -> Vec<(u64, u64, u64)> {
            let mut v = Vec::new();
            c.drain_into(&mut v);
            v.sort_unstable();
            v
        }
        let mut seed = 11;
        let a: Vec<i32> = (0..50_000)
            .map(|_| (lcg(&mut seed) % 40) as i32 - 20)
            .collect();
        let b: Vec<u16> = (0..50_000)
            .map(|i| {
                if i % 9 == 0 {
                    lcg(&mut seed) as u16
                } else {
                    (lcg(&mut seed) % 70) as u16
                }
            })
            .collect();
        let w: Vec<i64> = a.iter().map(|&x| i64::from(x) << 40).collect();
        let want = cells(count_block_impl(&a, &b));
        let want_wide = cells(count_block_impl(&w, &b));
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                assert_eq!(cells(count_block_avx2_checked(&a, &b)), want);
                assert_eq!(cells(count_block_avx2_checked(&w, &b)), want_wide);
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
            {
                assert_eq!(cells(count_block_avx512_checked(&a, &b)), want);
                assert_eq!(cells(count_block_avx512_checked(&w, &b)), want_wide);
            }
        }
        let wide = |v: &[i32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        let b64: Vec<i64> = b.iter().map(|&y| i64::from(y)).collect();
        let total: u64 = want.iter().map(|c| c.2).sum();
        assert_eq!(total, 50_000);
        assert_eq!(as_map(&count(&a, &b).unwrap()), naive(&wide(&a), &b64));
    }

    #[test]
    fn lanes_fold_before_they_overflow() {
        // Tests fold the lanes every 5,000 samples: many folds, same counts.
        let a: Vec<u8> = (0..100_003).map(|i| (i % 3) as u8).collect();
        let b: Vec<u8> = (0..100_003).map(|i| (i % 5 == 0) as u8).collect();
        let t = count(&a, &b).unwrap();
        let wide = |v: &[u8]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        assert_eq!(as_map(&t), naive(&wide(&a), &wide(&b)));
        assert_eq!(t.n, 100_003);
    }

    #[test]
    fn wide_narrow_windows_add_in_blocks() {
        // 300 x 300 cells (past MERGE_PARALLEL): added in blocks on every thread, with
        // about half of the cells wrapping, in every block, and wraps carried over.
        let mut seed = 5;
        let (a, b) = ((0, 299), (0, 299));
        let (mut x, mut y) = (Window::new(a, b), Window::new(a, b));
        assert!(x.narrow.len() >= MERGE_PARALLEL);
        for c in x.narrow.iter_mut().chain(y.narrow.iter_mut()) {
            *c = (lcg(&mut seed) % 65536) as u16;
        }
        x.wraps = vec![7];
        y.wraps = vec![3, 89_999, 3];
        let wraps = |w: &Window, k: usize| w.wraps.iter().filter(|&&c| c as usize == k).count();
        let expected: Vec<u64> = (0..x.size())
            .map(|k| {
                u64::from(x.narrow[k])
                    + u64::from(y.narrow[k])
                    + (wraps(&x, k) + wraps(&y, k)) as u64 * 65536
            })
            .collect();
        x.absorb(y);
        x.fold();
        assert_eq!(x.counts, expected);
    }

    #[test]
    fn narrow_counts_wrap_past_u16() {
        // 100 x 100 keys: a window too large for lanes, counted in `u16`s.
        let mut seed = 11;
        let mixed = |len: usize, seed: &mut u64| -> (Vec<i64>, Vec<i64>) {
            (0..len)
                .map(|i| {
                    if i % 4 == 0 {
                        ((lcg(seed) % 100) as i64, (lcg(seed) % 100) as i64)
                    } else {
                        (5, 7) // one cell counted 3/4 of the time: it wraps on every thread
                    }
                })
                .unzip()
        };
        let (a, b) = mixed(300_000, &mut seed);
        let t = count(&a, &b).unwrap();
        assert_eq!(as_map(&t), naive(&a, &b));
        // A small window (one cell, counted 100,000 times) that grows into a large one.
        let (mut a, mut b) = (vec![0i64; 100_000], vec![0i64; 100_000]);
        let (c, d) = mixed(100_000, &mut seed);
        a.extend(c);
        b.extend(d);
        let t = count(&a, &b).unwrap();
        assert_eq!(as_map(&t), naive(&a, &b));
        assert_eq!(t.n, 200_000);
    }

    #[test]
    fn windows_grow_a_little_for_keys_just_past_their_ends() {
        // Unsorted keys whose extremes are rare: the first window misses them, and grows
        // by a little (not to twice the keys it needs).
        let mut seed = 5;
        let n = 1_000_000;
        let a: Vec<i64> = (0..n).map(|_| (lcg(&mut seed) % 33) as i64).collect();
        let b: Vec<i64> = (0..n)
            .map(|i| {
                if i == n / 2 {
                    -1
                } else if i == n / 3 {
                    10_000
                } else {
                    (lcg(&mut seed) % 10_000) as i64
                }
            })
            .collect();
        let mut counter = count_block(&a, &b);
        let w = counter.window.take().unwrap();
        assert_eq!((w.a0, w.na), (0i64.key(), 33));
        assert!(w.b0 <= (-1i64).key() && w.nb >= 10_002 && w.nb <= 10_400);
        assert!(counter.is_dense());
    }

    #[test]
    fn extreme_values_are_labels() {
        let a = [i64::MIN, i64::MAX, 0, i64::MIN];
        let b = [u64::MAX, 0, u64::MAX, u64::MAX];
        let t = count(&a, &b).unwrap();
        assert_eq!(t.rows.value(0), i128::from(i64::MIN));
        assert_eq!(t.rows.value(2), i128::from(i64::MAX));
        assert_eq!(t.cols.value(1), i128::from(u64::MAX));
        assert_eq!(
            as_map(&t),
            naive(&[i64::MIN, i64::MAX, 0, i64::MIN], &[-1, 0, -1, -1])
                .into_iter()
                .map(|((x, y), c)| ((x, if y == -1 { u64::MAX as i64 } else { y }), c))
                .collect()
        );
    }

    #[test]
    fn one_labeling_counts_its_class_sizes() {
        let a: Vec<i16> = (0..100_000).map(|i| (i % 7) as i16 - 3).collect();
        let t = count_one(&a).unwrap();
        assert_eq!(t.n_cols(), 1);
        assert_eq!(t.rows.keys.len(), 7);
        assert_eq!(t.rows.value(0), -3);
        assert_eq!(t.row_sums.iter().sum::<u64>(), 100_000);
        assert!(t.row_sums.iter().all(|&c| c == 14_285 || c == 14_286));
    }

    #[test]
    fn columns_of_a_matrix_match_separate_counts() {
        let mut seed = 11;
        for &(n, width, kb) in &[
            (0usize, 3usize, 5u64),
            (5, 1, 5),
            (3000, 4, 7),
            (200_000, 10, 60),
            (100_000, 3, 1 << 40),
        ] {
            let a: Vec<i32> = (0..n).map(|_| (lcg(&mut seed) % 33) as i32).collect();
            let b: Vec<i64> = (0..n * width)
                .map(|_| (lcg(&mut seed) % kb) as i64 - 2)
                .collect();
            let tables = count_columns(&a, &b, width).unwrap();
            assert_eq!(tables.len(), width);
            for (k, t) in tables.iter().enumerate() {
                let column: Vec<i64> = b.iter().skip(k).step_by(width).copied().collect();
                let a64: Vec<i64> = a.iter().map(|&x| i64::from(x)).collect();
                assert_eq!(as_map(t), naive(&a64, &column), "n={n} width={width} k={k}");
                assert_eq!(t.n, n as u64);
            }
        }
        assert!(count_columns(&[1i64, 2], &[1i64, 2, 3], 2).is_err());
        assert!(count_columns(&[1i64, 2], &[0i64; 0], 0).unwrap().is_empty());
    }

    #[test]
    fn length_mismatch_is_an_error() {
        assert_eq!(
            count(&[1i64, 2], &[1i64]).unwrap_err(),
            Error::LengthMismatch { left: 2, right: 1 }
        );
    }
}
