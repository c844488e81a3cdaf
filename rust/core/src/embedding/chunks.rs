//! Rows cut into chunks by their count alone, mapped on the pool or in turn: partial
//! results come back in chunk order, so a reduction over them in that order gives the same
//! last bit for any number of threads.

use rayon::prelude::*;

use crate::error::Error;
use crate::stop;

/// Chunks of at most this many rows... and no more than [`MOST`] chunks.
const ROWS: usize = 1 << 12;

/// At most this many chunks (fewer partial results to keep and add up).
const MOST: usize = 64;

/// The rows of each chunk of `n` rows: a function of `n` alone.
pub(crate) fn rows(n: usize) -> usize {
    ROWS.max(n.div_ceil(MOST)).max(1)
}

/// `f(start..end)` of each chunk of `chunk` rows of `n`, in chunk order: on the current
/// rayon pool where `par`, else in turn. Stops at a stop request ([`stop`]).
pub(crate) fn map<R: Send>(
    par: bool,
    n: usize,
    chunk: usize,
    f: impl Fn(std::ops::Range<usize>) -> Result<R, Error> + Sync + Send,
) -> Result<Vec<R>, Error> {
    let count = n.div_ceil(chunk.max(1));
    let one = |c: usize| {
        stop::check()?;
        f(c * chunk..((c + 1) * chunk).min(n))
    };
    if par && count > 1 {
        (0..count).into_par_iter().map(one).collect()
    } else {
        (0..count).map(one).collect()
    }
}
