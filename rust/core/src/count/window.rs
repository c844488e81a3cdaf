//! Dense window counting: a small row-major array of counts for a rectangle of key
//! pairs, each pair in it one indexed increment. Small windows count in four
//! interleaved `u32` copies, large ones in `u16`s with a list of wraps; either is
//! folded into `u64` counts when read. Windows add into one another (merging threads).

use rayon::prelude::*;

use crate::cpu::prefetch;
use crate::error::Error;
use crate::label::Label;
use crate::pages;
use crate::pool;

use super::growth::Span;

/// Labels handled per chunk: two `u64` buffers of this length stay in L1.
pub(super) const CHUNK: usize = 1024;
/// Windows of at most this many cells count in four interleaved copies.
const LANES_MAX: u64 = 1 << 13;
/// The `u32` lanes are folded into the `u64` counts before they have counted more
/// samples than this (in tests, often, so that folding is exercised).
#[cfg(not(test))]
const LANE_FOLD: u64 = u32::MAX as u64;
#[cfg(test)]
const LANE_FOLD: u64 = 5000;

/// Dense counts for keys `a0..a0 + na` × `b0..b0 + nb`, row-major.
pub(super) struct Window {
    pub(super) a0: u64,
    pub(super) b0: u64,
    pub(super) na: u64,
    pub(super) nb: u64,
    /// The counts folded so far; empty (not allocated) until something is folded.
    pub(super) counts: Vec<u64>,
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
    pub(super) narrow: Vec<u16>,
    /// The cell of each increment that wrapped a `narrow` count to 0 (2^16 more each).
    pub(super) wraps: Vec<u32>,
}

impl Window {
    pub(super) fn covers(&self, s: Span) -> bool {
        s.a_lo >= self.a0
            && s.a_hi - self.a0 < self.na
            && s.b_lo >= self.b0
            && s.b_hi - self.b0 < self.nb
    }

    /// Writes the cell index of each pair into `out`; false if any pair lies
    /// outside the window (then `out` is meaningless).
    #[inline(always)]
    pub(super) fn index<A: Label, B: Label>(&self, a: &[A], b: &[B], out: &mut [u32]) -> bool {
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
    /// the window lies within the types' key ranges (`Growth::next` clamps it): with
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

    /// A window of zero counts over keys `a` and `b`; an error if its memory is refused.
    pub(super) fn new(a: (u64, u64), b: (u64, u64)) -> Result<Self, Error> {
        const WHAT: &str = "a dense window of counts";
        let na = a.1 - a.0 + 1;
        let nb = b.1 - b.0 + 1;
        let size = (na * nb) as usize;
        let lanes = na * nb <= LANES_MAX;
        Ok(Window {
            a0: a.0,
            b0: b.0,
            na,
            nb,
            counts: Vec::new(),
            lanes: pages::calloc(if lanes { size } else { 0 }, WHAT)?,
            in_lanes: 0,
            narrow: pages::calloc(if lanes { 0 } else { size }, WHAT)?,
            wraps: Vec::new(),
        })
    }

    pub(super) fn size(&self) -> usize {
        (self.na * self.nb) as usize
    }

    /// The folded counts, allocated (zero) on first use; an error, and the window left as
    /// it was, if their memory is refused.
    fn counts_mut(&mut self) -> Result<&mut [u64], Error> {
        if self.counts.is_empty() {
            self.counts = pages::calloc(self.size(), "the folded counts of a dense window")?;
        }
        Ok(&mut self.counts)
    }

    /// The window's counts when nothing was folded and no count passed 2^16 - 1: the
    /// `narrow` ones, read as they are.
    pub(super) fn narrow_only(&self) -> Option<&[u16]> {
        (self.counts.is_empty() && self.wraps.is_empty() && !self.narrow.is_empty())
            .then_some(&self.narrow[..])
    }

    /// Adds one to each cell; meanwhile prefetches each cache line of the next chunk
    /// (`ahead`), so its loads overlap this loop instead of stalling the next index loop
    /// (1e7 int64 labels on one thread: 10.7 ms, against 13.9 ms without).
    #[inline(always)]
    pub(super) fn add_cells<A: Label, B: Label>(
        &mut self,
        cells: &[u32],
        ahead: (&[A], &[B]),
    ) -> Result<(), Error> {
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
            return Ok(());
        }
        if self.in_lanes + cells.len() as u64 > LANE_FOLD {
            self.fold_lanes()?;
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
        Ok(())
    }

    /// Adds the lanes into `counts` and zeroes them.
    fn fold_lanes(&mut self) -> Result<(), Error> {
        self.counts_mut()?;
        for (c, l) in self.counts.iter_mut().zip(self.lanes.iter_mut()) {
            *c += l.iter().map(|&x| u64::from(x)).sum::<u64>();
            l.fill(0);
        }
        self.in_lanes = 0;
        Ok(())
    }

    /// Adds the lanes or narrow counts into `counts` and drops them. Only the counts are
    /// allocated, first: refused, the window is left as it was.
    pub(super) fn fold(&mut self) -> Result<(), Error> {
        self.counts_mut()?;
        if !self.lanes.is_empty() {
            self.fold_lanes()?;
            self.lanes = Vec::new();
        }
        if !self.narrow.is_empty() {
            let narrow = std::mem::take(&mut self.narrow);
            let wraps = std::mem::take(&mut self.wraps);
            let counts = &mut self.counts;
            for (c, &x) in counts.iter_mut().zip(&narrow) {
                *c += u64::from(x);
            }
            for &w in &wraps {
                counts[w as usize] += 1 << 16;
            }
        }
        Ok(())
    }

    /// Adds the counts of `other`, a window within this one. Refused the memory of the
    /// folded counts, neither window has changed.
    pub(super) fn absorb(&mut self, other: &mut Window) -> Result<(), Error> {
        let (da, db, nb, onb) = (other.a0 - self.a0, other.b0 - self.b0, self.nb, other.nb);
        let offset = |i: u64| ((da + i) * nb + db) as usize;
        let row = |i: u64| (i * onb) as usize..((i + 1) * onb) as usize;
        if self.narrow.is_empty() {
            // Into `counts`; the lanes stay, to count on.
            self.counts_mut()?;
            other.fold()?;
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
            other.fold()?;
            for i in 0..other.na {
                let start = offset(i);
                for (j, &c) in other.counts[row(i)].iter().enumerate() {
                    self.add_narrow(start + j, c);
                }
            }
        }
        Ok(())
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
    pub(super) fn add(&mut self, ka: &[u64], kb: &[u64]) -> Result<(), Error> {
        let (a0, b0, nb) = (self.a0, self.b0, self.nb);
        let mut cells = [0u32; CHUNK];
        for (chunk_a, chunk_b) in ka.chunks(CHUNK).zip(kb.chunks(CHUNK)) {
            for ((o, &x), &y) in cells.iter_mut().zip(chunk_a).zip(chunk_b) {
                *o = ((x - a0) * nb + (y - b0)) as u32;
            }
            self.add_cells::<u64, u64>(&cells[..chunk_a.len()], (&[], &[]))?;
        }
        Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the tests need no crate.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn refused_folded_counts_leave_both_windows_as_they_were() {
        // A window of lanes (small) and one of narrow counts (wide), 2,000 samples each
        // (below the fold of the lanes): their folded counts refused, they count the same
        // as before.
        let mut seed = 9;
        let fill = |w: &mut Window, seed: &mut u64| {
            let cells: Vec<u32> = (0..2_000)
                .map(|_| (lcg(seed) % w.size() as u64) as u32)
                .collect();
            w.add_cells::<u64, u64>(&cells, (&[], &[])).unwrap();
            cells
        };
        for (a, b) in [((0, 9), (0, 19)), ((0, 999), (0, 1999))] {
            let (mut x, mut y) = (Window::new(a, b).unwrap(), Window::new(a, b).unwrap());
            let mut want = vec![0u64; x.size()];
            for c in fill(&mut x, &mut seed)
                .into_iter()
                .chain(fill(&mut y, &mut seed))
            {
                want[c as usize] += 1;
            }
            let folded = |r: Result<(), Error>| matches!(r, Err(Error::OutOfMemory { what, .. }) if what.contains("folded"));
            assert!(folded(crate::alloc::refusing_from(1, || y.fold())));
            if !x.lanes.is_empty() {
                // Lanes fold into the counts to absorb (narrow counts add up in place).
                assert!(folded(crate::alloc::refusing_from(1, || x.absorb(&mut y))));
            }
            x.absorb(&mut y).unwrap();
            x.fold().unwrap();
            assert_eq!(x.counts, want);
        }
    }

    #[test]
    fn wide_narrow_windows_add_in_blocks() {
        // 300 x 300 cells (past MERGE_PARALLEL): added in blocks on every thread, with
        // about half of the cells wrapping, in every block, and wraps carried over.
        let mut seed = 5;
        let (a, b) = ((0, 299), (0, 299));
        let (mut x, mut y) = (Window::new(a, b).unwrap(), Window::new(a, b).unwrap());
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
        x.absorb(&mut y).unwrap();
        x.fold().unwrap();
        assert_eq!(x.counts, expected);
    }
}
