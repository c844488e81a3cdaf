//! Where a call releases the GIL, and a long one is watched for a signal (a Ctrl-C).

use std::time::Duration;

use fastcluster_metrics_core::{self as fcm, stop};
use pyo3::prelude::*;

/// How often the caller of a long call looks for a signal (a Ctrl-C).
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// Samples (or table cells) from which a call runs watched: a call on fewer takes a few
/// milliseconds at most, and handing it to the pool would cost more than watching saves.
pub(crate) const LONG: usize = 1 << 20;

/// Runs `work` with the GIL released. A `long` call runs on the pool while this thread
/// looks for a signal every [`WATCH_EVERY`]: on a Ctrl-C the work is asked to stop
/// ([`stop`]) and the signal's exception (`KeyboardInterrupt`) is raised once it has. A
/// run that another caller's interrupt stopped is made again.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    long: bool,
    work: impl Fn() -> T + Send + Sync,
) -> PyResult<T> {
    loop {
        let before = stop::epoch();
        if !stop::requested() {
            let out = if long {
                let mut signal = None;
                let (out, _) = py.detach(|| {
                    fcm::pool::watched(&work, WATCH_EVERY, || {
                        Python::attach(|py| py.check_signals())
                            .map_err(|e| signal = Some(e))
                            .is_err()
                    })
                });
                if let Some(e) = signal {
                    return Err(e);
                }
                out
            } else {
                py.detach(&work)
            };
            if stop::epoch() == before {
                return Ok(out);
            }
        }
        // Another caller's interrupt stopped this run: again once that call has returned.
        py.check_signals()?;
        py.detach(|| std::thread::sleep(Duration::from_millis(1)));
    }
}
