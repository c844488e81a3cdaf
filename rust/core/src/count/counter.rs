//! One thread's counter: its dense window, and for pairs outside any affordable window
//! a hash map with a fixed-seed hasher, which past [`SPILL_AT`] distinct pairs spills
//! pairs to a list instead, sorted once at the end. Where memory for the list is refused,
//! its repeated pairs are added up in place to make room ([`make_room`]).

use std::ops::AddAssign;

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use crate::alloc;
use crate::error::Error;
use crate::label::Label;
use crate::memory;
use crate::stop;
use crate::table::sort_cells;

use super::growth::{Growth, Place, Span};
use super::window::{Window, CHUNK};

/// Distinct pairs in a counter's hash map beyond which it spills pairs to a list.
const SPILL_AT: usize = 1 << 16;

/// What a refused spill was building.
const SPILL_WHAT: &str = "the pairs of labels of a table with many cells";

/// A pair of keys and its count.
type Pair = (u64, u64, u64);

/// The repeated pairs of `pairs` (each with its count or sum) added up in place, each pair
/// then listed once, sorted.
fn add_up<T>(pairs: &mut Vec<(u64, u64, T)>) -> Result<(), Error>
where
    T: Copy + Default + Send + AddAssign,
{
    #[cfg(test)]
    tests::ADDED_UP.with(|f| f.set(f.get() + 1));
    sort_cells(pairs, 1)
}

/// Room for `more` pairs in `pairs` (pairs of keys and their counts or sums, a pair
/// perhaps listed more than once). `amortised` (a list that grows by chunks): its room
/// doubled, or where that is refused an eighth more; otherwise just `more`. A growth is
/// refused by the system or as more than the process may use ([`memory::check`], before
/// its pages are written). Where every growth is refused, the repeated pairs are added
/// up in place (sorted, each pair then once), which needs no memory: the room that frees
/// is used if it is a quarter of the list or more (less, and a list that grows would be
/// sorted again and again), else the refusal is returned.
pub(super) fn make_room<T>(
    pairs: &mut Vec<(u64, u64, T)>,
    more: usize,
    amortised: bool,
    what: &'static str,
) -> Result<(), Error>
where
    T: Copy + Default + Send + AddAssign,
{
    if pairs.capacity() - pairs.len() >= more {
        return Ok(());
    }
    let grow = |pairs: &mut Vec<(u64, u64, T)>, step: usize| {
        memory::check(
            step.saturating_mul(std::mem::size_of::<(u64, u64, T)>()),
            what,
        )?;
        alloc::reserve_exact(pairs, step, what)
    };
    let len = pairs.len();
    let (steps, tries) = if amortised {
        ([len.max(more), (len / 8).max(more)], 2)
    } else {
        ([more, more], 1)
    };
    let mut refusal = None;
    for &step in &steps[..tries] {
        match grow(pairs, step) {
            Err(error) if alloc::is_refusal(&error) => refusal = Some(error),
            done => return done,
        }
    }
    let refusal = refusal.unwrap_or(Error::OutOfMemory { what, bytes: 0 });
    add_up(pairs)?;
    if amortised && len - pairs.len() < len / 4 {
        return Err(refusal);
    }
    if pairs.capacity() - pairs.len() >= more {
        return Ok(());
    }
    grow(pairs, more).map_err(|_| refusal)
}

/// The pairs of `from` appended to `out`, which grows by exactly that much; where that is
/// refused, the repeated pairs of `out` ([`make_room`]), then of `from`, are added up in
/// place. `from` is copied in parts, each after a look for a stop.
pub(super) fn append_pairs<T>(
    out: &mut Vec<(u64, u64, T)>,
    mut from: Vec<(u64, u64, T)>,
    what: &'static str,
) -> Result<(), Error>
where
    T: Copy + Default + Send + AddAssign,
{
    if let Err(error) = make_room(out, from.len(), false, what) {
        if !alloc::is_refusal(&error) {
            return Err(error);
        }
        add_up(&mut from)?;
        from.shrink_to_fit();
        make_room(out, from.len(), false, what)?;
    }
    for part in from.chunks(stop::EVERY) {
        stop::check()?;
        out.extend_from_slice(part);
    }
    Ok(())
}

/// Per-chunk buffers: cell indices and widened keys.
pub(super) struct Scratch {
    cells: [u32; CHUNK],
    ka: [u64; CHUNK],
    kb: [u64; CHUNK],
}

impl Scratch {
    pub(super) fn new() -> Self {
        Scratch {
            cells: [0; CHUNK],
            ka: [0; CHUNK],
            kb: [0; CHUNK],
        }
    }
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

pub(super) struct Counter {
    pub(super) window: Option<Window>,
    sparse: HashMap<(u64, u64), u64, FixedState>,
    /// Once the hash map holds `SPILL_AT` pairs (many distinct pairs, such as
    /// all-singleton clusters), pairs outside the window are appended here instead
    /// and sorted once at the end, which costs less than hashing them.
    spill: Vec<(u64, u64, u64)>,
    growth: Growth,
    /// Memory refused for the spill: the counter counts no more, and the pass returns it.
    pub(super) error: Option<Error>,
}

impl Counter {
    pub(super) fn new(limit: u64) -> Self {
        Counter {
            window: None,
            sparse: HashMap::with_hasher(FixedState::default()),
            spill: Vec::new(),
            growth: Growth::new(limit),
            error: None,
        }
    }

    /// Whether every pair went to the window (its cells then come out sorted).
    pub(super) fn is_dense(&self) -> bool {
        self.sparse.is_empty() && self.spill.is_empty()
    }

    /// Creates the window, if affordable, for the key ranges of the first samples.
    pub(super) fn first_window<A: Label, B: Label>(&mut self, a: &[A], b: &[B]) {
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
    pub(super) fn add_chunk<A: Label, B: Label>(
        &mut self,
        (ca, cb): (&[A], &[B]),
        ahead: (&[A], &[B]),
        s: &mut Scratch,
    ) {
        let m = ca.len();
        // Fast path: the chunk falls in the window; one fused loop computes every cell index.
        if let Some(w) = &mut self.window {
            if w.index(ca, cb, &mut s.cells[..m]) {
                if let Err(error) = w.add_cells(&s.cells[..m], ahead) {
                    self.error.get_or_insert(error);
                }
                return;
            }
        }
        let span = Span::new(widen(ca, &mut s.ka[..m]), widen(cb, &mut s.kb[..m]));
        self.add(&s.ka[..m], &s.kb[..m], span, Span::of_types::<A, B>());
    }

    /// Counts pairs of keys within `span`; `types` is the key range of the label types.
    fn add(&mut self, ka: &[u64], kb: &[u64], span: Span, types: Span) {
        if self.error.is_some() {
            return;
        }
        if !self.window.as_ref().is_some_and(|w| w.covers(span)) {
            self.try_grow(span, types);
        }
        let spilled = match &mut self.window {
            Some(w) if w.covers(span) => w.add(ka, kb),
            _ if !self.spill.is_empty() => make_room(&mut self.spill, ka.len(), true, SPILL_WHAT)
                .map(|()| {
                    self.spill
                        .extend(ka.iter().zip(kb).map(|(&x, &y)| (x, y, 1)));
                }),
            _ => {
                for (&x, &y) in ka.iter().zip(kb) {
                    *self.sparse.entry((x, y)).or_insert(0) += 1;
                }
                if self.sparse.len() >= SPILL_AT {
                    alloc::reserve(&mut self.spill, 2 * SPILL_AT, SPILL_WHAT).map(|()| {
                        self.spill
                            .extend(self.sparse.drain().map(|((x, y), c)| (x, y, c)));
                    })
                } else {
                    Ok(())
                }
            }
        };
        self.error = spilled.err();
    }

    /// Grows (or creates) the window to cover `span`, with room to spare, if
    /// that stays within the limit ([`Growth::next`]) and its memory is not refused;
    /// otherwise leaves it as it is (the pairs outside it go to the hash map).
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
        let Ok(mut window) = Window::new(a, b) else {
            return;
        };
        // Refused the memory to fold the old window's counts into the new one, the old one
        // stays.
        if let Some(old) = &mut self.window {
            if window.absorb(old).is_err() {
                return;
            }
        }
        self.window = Some(window);
    }

    /// Appends every non-zero `(key_a, key_b, count)` ([`drain_into`]).
    pub(super) fn drain_into(self, out: &mut Vec<Pair>) -> Result<(), Error> {
        let what = "the cells of a table";
        drain_into(out, self.window, self.sparse, self.spill, what)
    }
}

/// A counter's dense window, as [`drain_into`] reads it.
pub(super) trait DenseCells {
    /// A cell's count or sum.
    type Count: Copy + Default + PartialEq + Send + AddAssign;
    /// Adds into the cells whatever the window holds apart from them.
    fn fold(&mut self) -> Result<(), Error>;
    /// The first row's key, the first column's, and the cells of a row.
    fn origin(&self) -> (u64, u64, u64);
    /// The cells, row-major.
    fn counts(&self) -> &[Self::Count];
}

impl DenseCells for Window {
    type Count = u64;

    /// Its lanes and narrow counts ([`Window::fold`]).
    fn fold(&mut self) -> Result<(), Error> {
        Window::fold(self)
    }

    fn origin(&self) -> (u64, u64, u64) {
        (self.a0, self.b0, self.nb)
    }

    fn counts(&self) -> &[u64] {
        &self.counts
    }
}

/// Appends every non-zero `(key_a, key_b, count)` of a counter: of its `window` (in key
/// order), its `sparse` hash map and its `spill`. The spill (hundreds of megabytes at tens
/// of millions of spread keys) becomes `out` if `out` is empty, and is otherwise copied in
/// parts, each after a look for a stop. `out` grows by exactly what is added
/// ([`append_pairs`]); `what` names it where its memory is refused.
pub(super) fn drain_into<W: DenseCells>(
    out: &mut Vec<(u64, u64, W::Count)>,
    window: Option<W>,
    sparse: HashMap<(u64, u64), W::Count, FixedState>,
    mut spill: Vec<(u64, u64, W::Count)>,
    what: &'static str,
) -> Result<(), Error> {
    if out.is_empty() && out.capacity() < spill.len() {
        std::mem::swap(out, &mut spill);
    }
    if let Some(mut w) = window {
        w.fold()?;
        let zero = W::Count::default();
        let (a0, b0, nb) = w.origin();
        let counts = w.counts();
        let cells = counts.iter().filter(|&&c| c != zero).count();
        make_room(out, cells, false, what)?;
        for (i, row) in counts.chunks_exact(nb as usize).enumerate() {
            let ka = a0 + i as u64;
            for (j, &c) in row.iter().enumerate() {
                if c != zero {
                    out.push((ka, b0 + j as u64, c));
                }
            }
        }
    }
    make_room(out, sparse.len(), false, what)?;
    out.extend(sparse.into_iter().map(|((x, y), c)| (x, y, c)));
    append_pairs(out, spill, what)
}

#[cfg(test)]
pub(super) mod tests {
    thread_local! {
        /// How many lists of pairs were added up in place on this thread ([`super::add_up`]).
        pub(in crate::count) static ADDED_UP: std::cell::Cell<usize> =
            const { std::cell::Cell::new(0) };
    }
}
