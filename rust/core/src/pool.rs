//! The one thread pool of the library.
//!
//! Sized by `FASTCLUSTER_METRICS_NUM_THREADS`, else by the number of cores. A
//! process forked after the pool started has none of its threads: there every
//! call runs on the calling thread instead of waiting forever on the dead pool.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{LazyLock, Mutex};
use std::time::Duration;

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::stop;

/// The environment variable that sets the number of threads.
pub const THREADS_VAR: &str = "FASTCLUSTER_METRICS_NUM_THREADS";

struct Pool {
    pool: Option<ThreadPool>,
    threads: usize,
    pid: u32,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| {
    let threads = configured_threads();
    let pool = if threads > 1 {
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("fastcluster-metrics-{i}"))
            .build()
            .ok()
    } else {
        None
    };
    let threads = if pool.is_some() { threads } else { 1 };
    Pool {
        pool,
        threads,
        pid: std::process::id(),
    }
});

fn configured_threads() -> usize {
    std::env::var(THREADS_VAR)
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn live_pool() -> Option<&'static ThreadPool> {
    let pool = &*POOL;
    if pool.pid == std::process::id() {
        pool.pool.as_ref()
    } else {
        None
    }
}

/// How many threads a parallel step may use in this process (1 in a forked child).
pub fn threads() -> usize {
    if live_pool().is_some() {
        POOL.threads
    } else {
        1
    }
}

/// `f(i)` into each `out[i]`: on the pool's threads where there are several and `out` has
/// more than one place. The same values either way, each place written from its index.
pub(crate) fn fill<T: Send>(out: &mut [T], f: impl Fn(usize) -> T + Sync + Send) {
    if out.len() > 1 && threads() > 1 {
        run(|| out.par_iter_mut().enumerate().for_each(|(i, x)| *x = f(i)));
    } else {
        out.iter_mut().enumerate().for_each(|(i, x)| *x = f(i));
    }
}

/// Runs `f` inside the pool, so that rayon's parallel iterators in it use the
/// pool's threads. Callers only use parallel iterators when [`threads`] > 1.
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match live_pool() {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// Runs `f` on the calling thread with a scope whose spawned work runs on the pool's
/// threads (the calling thread may hold what the work must not: Python's GIL); `None`
/// where there is no pool (one thread, or a forked child).
pub fn in_place_scope<'s, R>(f: impl FnOnce(&rayon::Scope<'s>) -> R) -> Option<R> {
    live_pool().map(|pool| pool.in_place_scope(f))
}

/// Runs `work` on a thread of the pool (on a thread of its own where there is no pool)
/// while the calling thread asks `interrupted` every `every` whether to stop it; once it
/// says so, a [`stop::Request`] is held until `work` has returned. Returns the work's
/// output (meaningless if stopped) and whether it was asked to stop.
pub fn watched<T: Send>(
    work: impl FnOnce() -> T + Send,
    every: Duration,
    mut interrupted: impl FnMut() -> bool,
) -> (T, bool) {
    let (tx, rx) = mpsc::channel();
    let job = move || {
        // The receiver waits until this is sent; it is gone only if the caller panicked.
        let _ = tx.send(work());
    };
    let mut wait = || -> Option<(T, bool)> {
        let mut request = None;
        loop {
            match rx.recv_timeout(every) {
                Ok(out) => return Some((out, request.is_some())),
                Err(RecvTimeoutError::Timeout) => {
                    if request.is_none() && interrupted() {
                        request = Some(stop::Request::new());
                    }
                }
                // The work panicked: the scope below raises its panic once this returns.
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    };
    let out = match live_pool() {
        Some(pool) => pool.in_place_scope(|s| {
            s.spawn(|_| job());
            wait()
        }),
        // A thread of its own; where the system refuses one (its stack is address space:
        // refused under a cap), the work runs here, not watched.
        None => {
            let job = Mutex::new(Some(job));
            let run_job = || {
                if let Some(job) = job.lock().ok().and_then(|mut j| j.take()) {
                    job();
                }
            };
            std::thread::scope(|s| {
                if std::thread::Builder::new()
                    .spawn_scoped(s, run_job)
                    .is_err()
                {
                    run_job();
                }
                wait()
            })
        }
    };
    out.expect("the work of a watched call panicked")
}
