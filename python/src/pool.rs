//! The worker threads of long calls (`BatchEnv` steps, `perft`), shared by
//! every object of the package, and the wait that lets Ctrl-C through
//! while they work.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::value_error;

/// Most threads a call may ask for.
pub(crate) const MAX_THREADS: usize = 64;

/// How often a waiting call lets Python run its signal handlers.
const SIGNAL_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// The pools made so far, by their number of threads: one of each size for
/// the whole process, made when first asked for, so that no call pays for
/// starting threads.
static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());

/// The machine's cores (1 when unknown).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// A thread count from Python: `None` is `default`; else 1 to
/// [`MAX_THREADS`].
pub(crate) fn thread_count(threads: Option<i64>, default: usize) -> PyResult<usize> {
    match threads {
        None => Ok(default.clamp(1, MAX_THREADS)),
        Some(t) if (1..=MAX_THREADS as i64).contains(&t) => Ok(t as usize),
        Some(t) => Err(value_error(format!("threads {t}: expected 1 to {MAX_THREADS}"))),
    }
}

/// The shared pool of `threads` threads.
pub(crate) fn pool(threads: usize) -> PyResult<Arc<ThreadPool>> {
    let mut pools = POOLS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, pool)) = pools.iter().find(|(size, _)| *size == threads) {
        return Ok(Arc::clone(pool));
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("monte-{threads}-{i}"))
        .build()
        .map_err(|error| value_error(format!("cannot start {threads} threads: {error}")))?;
    let pool = Arc::new(pool);
    pools.push((threads, Arc::clone(&pool)));
    Ok(pool)
}

/// Wait for what `receiver` brings, without holding the GIL, in slices
/// between which Python's signal handlers run. On a signal (Ctrl-C:
/// KeyboardInterrupt) set `stop`, wait for the work to notice it and
/// return, and raise the signal's exception.
pub(crate) fn wait_interruptibly<R: Send>(
    py: Python<'_>,
    mut receiver: mpsc::Receiver<R>,
    stop: &AtomicBool,
) -> PyResult<R> {
    loop {
        let (back, waited) = py.detach(move || {
            let waited = receiver.recv_timeout(SIGNAL_CHECK_INTERVAL);
            (receiver, waited)
        });
        receiver = back;
        match waited {
            Ok(result) => return Ok(result),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(interrupt) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    // The stopped work returns soon; other Python threads
                    // run meanwhile.
                    let _ = py.detach(move || receiver.recv());
                    return Err(interrupt);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(value_error("the work ended without a result"));
            }
        }
    }
}

/// Run `work` on `pool` (over whose threads it may spread with rayon)
/// while this thread waits interruptibly: on Ctrl-C `stop` is set, and
/// `work` should return soon after it sees it.
pub(crate) fn run_interruptibly<R, F>(py: Python<'_>, pool: &ThreadPool, stop: &AtomicBool, work: F) -> PyResult<R>
where
    R: Send,
    F: FnOnce() -> R + Send,
{
    let (sender, receiver) = mpsc::channel();
    pool.in_place_scope(|scope| {
        scope.spawn(move |_| {
            // The receiver is gone only after an error in the wait, which
            // is reported there.
            let _ = sender.send(work());
        });
        wait_interruptibly(py, receiver, stop)
    })
}
