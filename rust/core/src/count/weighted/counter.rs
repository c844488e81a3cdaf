//! One thread's weighted counter: a dense window of `u128` sums, a hash map beyond it, and
//! its count of one block of samples.

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use crate::alloc;
use crate::count::counter::{drain_into, make_room, DenseCells};
use crate::count::growth::{window_limit, Growth, Place, Span};
use crate::count::squares::{Fused, SLOTS, WHOLE};
use crate::count::weight::{float_split, Weights};
use crate::count::window::CHUNK;
use crate::cpu::{self, Build, Kernel};
use crate::error::Error;
use crate::label::Label;
use crate::pages;
use crate::stop;

/// One thread's weighted counter: a dense window of `u128` sums, and a hash map for
/// pairs outside any affordable window.
pub(super) struct Counter {
    window: Option<Window>,
    sparse: HashMap<(u64, u64), u128, FixedState>,
    /// Once the hash map holds [`SPILL_AT`] pairs (wide tables: many distinct pairs), the
    /// pairs outside the window are appended here instead, summed by the final sort.
    spill: Vec<(u64, u64, u128)>,
    growth: Growth,
    /// The sum of every weight counted.
    pub(super) total: u128,
    /// The OR of the fractional units of every weight counted: 0 when all are whole.
    pub(super) fraction: u64,
    /// Float weights' squares by row of the window, while every sample has fallen in it
    /// ([`Fused`]); `None` for other weights, or once one has not.
    pub(super) squares: Option<Fused>,
    /// Whether `squares` is still being summed (false once given up).
    fusing: bool,
}

/// What a refused spill was building.
const SPILL_WHAT: &str = "the weighted pairs of labels of a table with many cells";

/// Distinct pairs in a counter's hash map beyond which it spills pairs to a list.
const SPILL_AT: usize = 1 << 16;

/// Weights must total less than 2^62 (in units: 2^126), so that no sum overflows.
pub(super) const TOTAL_MAX: u128 = 1 << 126;

/// Sums for keys `a0..a0 + na` × `b0..b0 + nb`, row-major.
struct Window {
    a0: u64,
    b0: u64,
    na: u64,
    nb: u64,
    sums: Vec<u128>,
}

impl Window {
    /// A window of zero sums over keys `a` and `b`; an error if its memory is refused.
    fn new((a_lo, a_hi): (u64, u64), (b_lo, b_hi): (u64, u64)) -> Result<Window, Error> {
        let (na, nb) = (a_hi - a_lo + 1, b_hi - b_lo + 1);
        Ok(Window {
            a0: a_lo,
            b0: b_lo,
            na,
            nb,
            sums: pages::calloc((na * nb) as usize, "a dense window of weighted sums")?,
        })
    }

    fn covers(&self, s: Span) -> bool {
        s.a_lo >= self.a0
            && s.a_hi - self.a0 < self.na
            && s.b_lo >= self.b0
            && s.b_hi - self.b0 < self.nb
    }
}

/// Weighted windows may hold this many cells at most (16 bytes each: 8 MiB).
const WEIGHTED_WINDOW_MAX: u64 = 1 << 19;

/// Keys, cell indices and weights of one chunk.
struct Scratch {
    ka: [u64; CHUNK],
    kb: [u64; CHUNK],
    cells: [u32; CHUNK],
    units: [u128; CHUNK],
    /// Float weights split ([`split_chunk`]): their units' low and high 64 bits, and the
    /// slot, root and whole value of their squares.
    lo: [u64; CHUNK],
    hi: [u64; CHUNK],
    slot: [u32; CHUNK],
    root: [u64; CHUNK],
    extra: [u64; CHUNK],
    /// Each sample's row in the window.
    rows: [u32; CHUNK],
}

/// Counts one block whose first sample is sample `start` of the whole (for errors), with
/// the widest vector instructions the CPU has (the index loop vectorizes).
pub(super) fn count_block<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    w: Weights<'_>,
    start: usize,
) -> Result<Counter, Error> {
    cpu::run_best(&[Build::Avx512, Build::Avx2], CountBlock(a, b, w, start))
}

/// [`count_block_impl`] as a [`Kernel`].
struct CountBlock<'a, A, B>(&'a [A], &'a [B], Weights<'a>, usize);

impl<A: Label, B: Label> Kernel for CountBlock<'_, A, B> {
    type Output = Result<Counter, Error>;

    #[inline(always)]
    fn run(self) -> Result<Counter, Error> {
        count_block_impl(self.0, self.1, self.2, self.3)
    }
}

#[inline(always)]
fn count_block_impl<A: Label, B: Label>(
    a: &[A],
    b: &[B],
    w: Weights<'_>,
    start: usize,
) -> Result<Counter, Error> {
    let limit = window_limit(a.len(), 1).min(WEIGHTED_WINDOW_MAX);
    let mut counter = Counter {
        window: None,
        sparse: HashMap::with_hasher(FixedState::default()),
        spill: Vec::new(),
        growth: Growth::new(limit),
        total: 0,
        fraction: 0,
        squares: None,
        fusing: matches!(w, Weights::F64(_)),
    };
    let mut s = Box::new(Scratch {
        ka: [0; CHUNK],
        kb: [0; CHUNK],
        cells: [0; CHUNK],
        units: [0; CHUNK],
        lo: [0; CHUNK],
        hi: [0; CHUNK],
        slot: [0; CHUNK],
        root: [0; CHUNK],
        extra: [0; CHUNK],
        rows: [0; CHUNK],
    });
    let mut i = 0;
    while i < a.len() {
        stop::check()?;
        let end = (i + CHUNK).min(a.len());
        let chunk = w.range(i, end);
        let added = counter.add_chunk(
            (&a[i..end], &b[i..end]),
            chunk,
            &mut s,
            Span::of_types::<A, B>(),
        );
        match added {
            Err(Error::BadWeight { index, value }) => {
                return Err(Error::BadWeight {
                    index: start + i + index,
                    value,
                })
            }
            Err(error) => return Err(error),
            Ok(()) => {}
        }
        if counter.total >= TOTAL_MAX {
            return Err(Error::WeightTotal);
        }
        i = end;
    }
    Ok(counter)
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

/// For a chunk of float weights `w`: writes each sample's cell in the window `win` and its
/// weight split by [`float_split`] (the slot of its square for [`Fused::add_slots`], the
/// row being the key less the window's first) into `s`, in one loop without a branch,
/// which vectorises; returns the weights' total units and the OR of their fractional
/// units. `None` if a sample falls outside the window, or a weight is refused or -0.0:
/// the general path then takes the chunk (and names a refused weight).
#[inline(always)]
fn split_chunk<A: Label, B: Label>(
    win: &Window,
    (ca, cb): (&[A], &[B]),
    w: &[f64],
    s: &mut Scratch,
) -> Option<(u128, u64)> {
    let m = ca.len();
    let (a0, b0, na, nb) = (win.a0, win.b0, win.na, win.nb);
    let (ca, cb, w) = (&ca[..m], &cb[..m], &w[..m]);
    let (cells, slot) = (&mut s.cells[..m], &mut s.slot[..m]);
    let (lo, hi) = (&mut s.lo[..m], &mut s.hi[..m]);
    let (root, extra) = (&mut s.root[..m], &mut s.extra[..m]);
    let mut odd = 0u64;
    let mut fraction = 0u64;
    // At most 2^10 weights: sums of their units' high halves (below 2^52 each) and of
    // their low halves' 32-bit halves cannot overflow.
    let (mut high, mut low_high, mut low_low) = (0u64, 0u64, 0u64);
    for i in 0..m {
        let da = ca[i].key().wrapping_sub(a0);
        let db = cb[i].key().wrapping_sub(b0);
        odd |= u64::from(da >= na) | u64::from(db >= nb);
        // Fits in u32: weighted windows hold at most 2^19 cells.
        cells[i] = da.wrapping_mul(nb).wrapping_add(db) as u32;
        let x = float_split(w[i].to_bits());
        odd |= u64::from(x.odd);
        lo[i] = x.lo;
        hi[i] = x.hi;
        fraction |= x.lo;
        high += x.hi;
        low_high += x.lo >> 32;
        low_low += x.lo & u64::from(u32::MAX);
        let shift = if x.whole { WHOLE } else { x.shift };
        slot[i] = (da as u32).wrapping_mul(SLOTS).wrapping_add(shift);
        root[i] = x.root;
        extra[i] = if x.whole { x.hi } else { 0 };
    }
    (odd == 0).then(|| {
        let total = (u128::from(high) << 64) + (u128::from(low_high) << 32) + u128::from(low_low);
        (total, fraction)
    })
}

/// A refused weight at an offset in its chunk (the caller adds the chunk's start).
fn bad((index, value): (usize, f64)) -> Error {
    Error::BadWeight { index, value }
}

impl Counter {
    /// Adds one chunk of samples with their weights `w`: in the window, one fused loop
    /// computes the cell indices (and whether all fall inside), a second adds the weights;
    /// elsewhere the weights' units are written out first. The offset of the first refused
    /// weight is an error.
    #[inline(always)]
    fn add_chunk<A: Label, B: Label>(
        &mut self,
        (ca, cb): (&[A], &[B]),
        w: Weights<'_>,
        s: &mut Scratch,
        types: Span,
    ) -> Result<(), Error> {
        let m = ca.len();
        if let (Some(win), Weights::F64(v)) = (&mut self.window, w) {
            if let Some((total, fraction)) = split_chunk(win, (ca, cb), v, s) {
                for ((&c, &l), &h) in s.cells[..m].iter().zip(&s.lo[..m]).zip(&s.hi[..m]) {
                    if let Some(cell) = win.sums.get_mut(c as usize) {
                        *cell += (u128::from(h) << 64) | u128::from(l);
                    }
                }
                self.total += total;
                self.fraction |= fraction;
                if let Some(sq) = &mut self.squares {
                    sq.add_slots(&s.slot[..m], &s.root[..m], &s.extra[..m]);
                }
                #[cfg(test)]
                tests::SPLIT.with(|f| f.set(f.get() + 1));
                return Ok(());
            }
        }
        if let Some(win) = &mut self.window {
            let (a0, b0, na, nb) = (win.a0, win.b0, win.na, win.nb);
            let mut inside = true;
            for (((o, r), &x), &y) in s.cells[..m]
                .iter_mut()
                .zip(&mut s.rows[..m])
                .zip(ca)
                .zip(cb)
            {
                let da = x.key().wrapping_sub(a0);
                let db = y.key().wrapping_sub(b0);
                inside &= (da < na) & (db < nb);
                // Fits in u32: weighted windows hold at most 2^19 cells.
                *o = da.wrapping_mul(nb).wrapping_add(db) as u32;
                *r = da as u32;
            }
            if inside {
                let (total, fraction) = w.add_to(&s.cells[..m], &mut win.sums).map_err(bad)?;
                self.total += total;
                self.fraction |= fraction;
                if let (Some(sq), Weights::F64(v)) = (&mut self.squares, w) {
                    sq.add(&s.rows[..m], v);
                }
                return Ok(());
            }
        }
        w.units_into(&mut s.units[..m]).map_err(bad)?;
        let cw = &s.units[..m];
        self.fraction |= cw.iter().fold(0, |f, &u| f | u as u64);
        let span = Span::new(widen(ca, &mut s.ka[..m]), widen(cb, &mut s.kb[..m]));
        if !self.window.as_ref().is_some_and(|w| w.covers(span)) {
            self.try_grow(span, types);
        }
        let (ka, kb) = (&s.ka[..m], &s.kb[..m]);
        let mut total = 0u128;
        match &mut self.window {
            Some(win) if win.covers(span) => {
                let (a0, b0, nb) = (win.a0, win.b0, win.nb);
                for (((&x, &y), &u), r) in ka.iter().zip(kb).zip(cw).zip(&mut s.rows[..m]) {
                    total += u;
                    win.sums[((x - a0) * nb + (y - b0)) as usize] += u;
                    *r = (x - a0) as u32;
                }
                if let (Some(sq), Weights::F64(v)) = (&mut self.squares, w) {
                    sq.add(&s.rows[..m], v);
                }
            }
            _ if !self.spill.is_empty() => {
                self.stop_fusing();
                make_room(&mut self.spill, ka.len(), true, SPILL_WHAT)?;
                for ((&x, &y), &u) in ka.iter().zip(kb).zip(cw) {
                    total += u;
                    self.spill.push((x, y, u));
                }
            }
            _ => {
                self.stop_fusing();
                for ((&x, &y), &u) in ka.iter().zip(kb).zip(cw) {
                    total += u;
                    *self.sparse.entry((x, y)).or_insert(0) += u;
                }
                if self.sparse.len() >= SPILL_AT {
                    alloc::reserve(&mut self.spill, 2 * SPILL_AT, SPILL_WHAT)?;
                    self.spill
                        .extend(self.sparse.drain().map(|((x, y), u)| (x, y, u)));
                }
            }
        }
        self.total += total;
        Ok(())
    }

    fn try_grow(&mut self, span: Span, types: Span) {
        let place = self.window.as_ref().map(|w| Place {
            a0: w.a0,
            na: w.na,
            b0: w.b0,
            nb: w.nb,
        });
        let Some((a, b)) = self.growth.next(place, span, types) else {
            return;
        };
        // A window refused memory: the pairs outside the old one go to the hash map.
        let Ok(mut window) = Window::new(a, b) else {
            return;
        };
        if self.fusing {
            // The squares' rows follow the window's, or are given up with it.
            let rows = window.na;
            self.squares = match self.squares.take() {
                Some(f) => f.regrow(window.a0, rows),
                None if self.window.is_none() => Fused::new(window.a0, rows),
                None => None,
            };
            self.fusing = self.squares.is_some();
        }
        if let Some(old) = self.window.take() {
            for (i, row) in old.sums.chunks_exact(old.nb as usize).enumerate() {
                let start =
                    ((old.a0 + i as u64 - window.a0) * window.nb + (old.b0 - window.b0)) as usize;
                window.sums[start..start + row.len()].copy_from_slice(row);
            }
        }
        self.window = Some(window);
    }

    /// Gives up summing the squares in the pass: the second pass will.
    fn stop_fusing(&mut self) {
        self.squares = None;
        self.fusing = false;
    }

    /// Appends every non-zero `(key_a, key_b, sum)` ([`drain_into`]).
    pub(super) fn drain_into(self, out: &mut Vec<(u64, u64, u128)>) -> Result<(), Error> {
        let what = "the weighted cells of a table";
        drain_into(out, self.window, self.sparse, self.spill, what)
    }
}

impl DenseCells for Window {
    type Count = u128;

    /// Nothing: the sums are the cells.
    fn fold(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn origin(&self) -> (u64, u64, u64) {
        (self.a0, self.b0, self.nb)
    }

    fn counts(&self) -> &[u128] {
        &self.sums
    }
}

#[cfg(test)]
pub(super) mod tests {
    thread_local! {
        /// How many chunks on this thread were added split ([`super::split_chunk`]).
        pub(in crate::count) static SPLIT: std::cell::Cell<usize> =
            const { std::cell::Cell::new(0) };
    }
}
