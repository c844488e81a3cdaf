//! The growth policy of a counter's dense window: how large the first window is, how it
//! grows when a chunk's keys fall outside it (a little for keys just past its ends, by
//! doubling otherwise, clamped to the label types' key ranges), and the size limit
//! past which it grows no more.

use crate::label::Label;

/// Bounds of the dense window, in cells, per thread.
pub(crate) const WINDOW_MIN: u64 = 1 << 12;
pub(crate) const WINDOW_MAX: u64 = 1 << 21;

/// The dense window's size limit for a block of `n` samples shared by `tables` counters.
pub(super) fn window_limit(n: usize, tables: usize) -> u64 {
    // Zeroing and draining a window cell (a nanosecond or two) is far cheaper than
    // hashing one sample (ten or more): a window of up to 4n cells pays for itself.
    (n as u64)
        .saturating_mul(4)
        .clamp(WINDOW_MIN, (WINDOW_MAX / tables as u64).max(WINDOW_MIN))
}

/// The key ranges of one chunk (inclusive).
#[derive(Clone, Copy)]
pub(super) struct Span {
    pub(super) a_lo: u64,
    pub(super) a_hi: u64,
    pub(super) b_lo: u64,
    pub(super) b_hi: u64,
}

impl Span {
    pub(super) fn new((a_lo, a_hi): (u64, u64), (b_lo, b_hi): (u64, u64)) -> Span {
        Span {
            a_lo,
            a_hi,
            b_lo,
            b_hi,
        }
    }

    /// The key ranges of the label types `A` and `B`.
    pub(super) fn of_types<A: Label, B: Label>() -> Span {
        Span::new((A::KEY_MIN, A::KEY_MAX), (B::KEY_MIN, B::KEY_MAX))
    }
}

/// A window's place: keys `a0..a0 + na` × `b0..b0 + nb`.
#[derive(Clone, Copy)]
pub(super) struct Place {
    pub(super) a0: u64,
    pub(super) na: u64,
    pub(super) b0: u64,
    pub(super) nb: u64,
}

/// One counter's window growth: its size limit, and how it has grown so far.
pub(super) struct Growth {
    pub(super) limit: u64,
    /// The window has grown to its limit and grows no more.
    full: bool,
    /// Times the window grew by a little ([`nudge`]).
    nudges: u8,
}

impl Growth {
    pub(super) fn new(limit: u64) -> Self {
        Growth {
            limit,
            full: false,
            nudges: 0,
        }
    }

    /// The key ranges (inclusive) of the window to replace the window at `current` (or
    /// to create, for none) so that it covers `span`, with room to spare, if that stays
    /// within the limit; `None` to leave it as it is.
    /// The window never reaches past the key range of the label types (`types`), which
    /// `Window::index_small` relies on.
    pub(super) fn next(
        &mut self,
        current: Option<Place>,
        span: Span,
        types: Span,
    ) -> Option<((u64, u64), (u64, u64))> {
        if self.full {
            return None;
        }
        let (a, b) = match current {
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
        let exact = match current {
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
            match current {
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
            return None;
        };
        let a = (a.0.max(types.a_lo), a.1.min(types.a_hi));
        let b = (b.0.max(types.b_lo), b.1.min(types.b_hi));
        Some((a, b))
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

pub(super) fn cells(a: (u64, u64), b: (u64, u64)) -> Option<u64> {
    (a.1 - a.0)
        .checked_add(1)?
        .checked_mul((b.1 - b.0).checked_add(1)?)
}
