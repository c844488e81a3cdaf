//! Stopping the calls in flight, when their caller was interrupted (a Ctrl-C in Python).
//!
//! The caller that was interrupted holds a [`Request`] until its call has returned. Long
//! loops look at [`requested`] every few thousand samples or so (a relaxed atomic load:
//! nothing measurable) and return early, and the entry points answer [`Error::Stopped`];
//! what a stopped computation returns otherwise (a sum, say) means nothing.
//!
//! Requests are global (the pool's threads serve every caller): a call made by another
//! thread while a request is held also stops. Its caller sees [`epoch`] change between the
//! start and the end of the call (or a request held at its start), and makes the call
//! again once no request is held.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::error::Error;

/// Items between two looks at [`requested`] in loops whose items take about a nanosecond
/// or more each (a look per chunk of [`crate::count`]'s pass is cheaper still).
pub const EVERY: usize = 1 << 16;

/// Requests held now.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Requests made and released so far: a call during which it did not change, and that
/// began with no request held, was not stopped.
static EPOCH: AtomicU64 = AtomicU64::new(0);

/// Whether a stop is requested: long loops return early when it is.
#[inline]
pub fn requested() -> bool {
    HELD.load(Ordering::Relaxed) != 0
}

/// [`Error::Stopped`] if a stop is requested.
#[inline]
pub fn check() -> Result<(), Error> {
    if requested() {
        Err(Error::Stopped)
    } else {
        Ok(())
    }
}

/// Changes whenever a request is made or released.
pub fn epoch() -> u64 {
    EPOCH.load(Ordering::SeqCst)
}

/// A request to stop every computation in flight, held until dropped.
#[must_use = "the request is released when dropped"]
pub struct Request(());

impl Request {
    pub fn new() -> Request {
        HELD.fetch_add(1, Ordering::SeqCst);
        EPOCH.fetch_add(1, Ordering::SeqCst);
        Request(())
    }
}

impl Default for Request {
    fn default() -> Self {
        Request::new()
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        HELD.fetch_sub(1, Ordering::SeqCst);
        EPOCH.fetch_add(1, Ordering::SeqCst);
    }
}
