//! The helper threads of the threaded FFT product: started on first use,
//! parked between uses, so that a product's phases start none.
//!
//! Why not a scoped thread a phase: a thread spawned right after the
//! previous phase's thread returned found that thread's core still busy
//! tearing it down, and Linux placed it on the caller's core, where it
//! waited until the caller's own share was done: on a 2-core AMD EPYC
//! Zen 4 every other phase of a 65 536-word product ran on one core (the
//! measurements are in `docs/notes/gf2x.md`). A parked helper is woken on
//! the core it slept on, which is idle.
//!
//! One caller at a time uses the helpers (a `try_lock`); a second
//! concurrent product runs its shares on its own thread, as its caller's
//! thread is already one more busy core.
#![allow(unsafe_code)]

use std::boxed::Box;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};
use std::vec::Vec;

/// A posted share: `run(data)`, where `data` points to the poster's
/// [`Share`], alive until the helper reports the job finished.
struct Job {
    run: unsafe fn(*const ()),
    data: *const (),
}

// SAFETY: `data` points to a `Share<T, F>` with `T: Send` and `F: Sync`
// (enforced by `for_each`'s bounds), which the helper uses through a
// shared reference while the poster waits; `run` is a plain function.
unsafe impl Send for Job {}

/// How long a helper that finished a job, or a caller waiting for a
/// helper, spins before it sleeps: longer than the serial steps between a
/// product's phases, so that within a product nobody sleeps. A sleeping
/// helper was sometimes woken on the caller's core (29 of 125 phases in one
/// process on the Zen 4), which serialised that phase.
const SPIN: Duration = Duration::from_micros(500);

/// Spins until `ready()` or [`SPIN`] has passed; whether it became ready.
/// It yields the core every 64 checks, in case the thread it waits for
/// was placed on the same one.
fn spin_until(ready: impl Fn() -> bool) -> bool {
    let start = Instant::now();
    loop {
        for _ in 0..64 {
            if ready() {
                return true;
            }
            core::hint::spin_loop();
        }
        if start.elapsed() > SPIN {
            return ready();
        }
        std::thread::yield_now();
    }
}

/// One helper thread's mailbox.
struct Helper {
    /// The posted job, taken by the helper; `pending` says one is there.
    job: Mutex<Option<Job>>,
    pending: AtomicBool,
    posted: Condvar,
    /// Jobs finished, and whether one panicked.
    finished: AtomicU64,
    panicked: AtomicBool,
    /// For a waiter that stopped spinning.
    sleep: Mutex<()>,
    done: Condvar,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // No code panics while holding these locks; recover the data anyway.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Helper {
    fn new() -> Helper {
        Helper {
            job: Mutex::new(None),
            pending: AtomicBool::new(false),
            posted: Condvar::new(),
            finished: AtomicU64::new(0),
            panicked: AtomicBool::new(false),
            sleep: Mutex::new(()),
            done: Condvar::new(),
        }
    }

    /// The helper thread's loop: take a job, run it, report it.
    fn serve(&self) {
        loop {
            spin_until(|| self.pending.load(Ordering::Acquire));
            let job = {
                let mut slot = lock(&self.job);
                loop {
                    if let Some(job) = slot.take() {
                        self.pending.store(false, Ordering::Relaxed);
                        break job;
                    }
                    slot = self
                        .posted
                        .wait(slot)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            };
            // SAFETY: `job` was posted by `for_each` with its matching
            // `run`, and its data stays alive until `finished` moves below.
            let ok = catch_unwind(AssertUnwindSafe(|| unsafe { (job.run)(job.data) })).is_ok();
            if !ok {
                self.panicked.store(true, Ordering::Relaxed);
            }
            self.finished.fetch_add(1, Ordering::Release);
            // Under the lock: a waiter checks `finished` under it before it
            // sleeps, so this notification cannot fall between the two.
            drop(lock(&self.sleep));
            self.done.notify_all();
        }
    }

    fn post(&self, job: Job) {
        *lock(&self.job) = Some(job);
        self.pending.store(true, Ordering::Release);
        self.posted.notify_one();
    }

    fn finished(&self) -> u64 {
        self.finished.load(Ordering::Acquire)
    }

    /// Waits until `count` jobs have finished; whether one panicked.
    fn wait(&self, count: u64) -> bool {
        if !spin_until(|| self.finished() >= count) {
            let mut g = lock(&self.sleep);
            while self.finished() < count {
                g = self.done.wait(g).unwrap_or_else(PoisonError::into_inner);
            }
        }
        self.panicked.swap(false, Ordering::Relaxed)
    }
}

/// The helpers started so far (they never exit) and the process that
/// started them, behind the one-user lock. A child process made by `fork`
/// has none of its parent's threads: its first product here starts its own
/// (the parent's stay unused in its copy of this list's memory).
static HELPERS: OnceLock<Mutex<(u32, Vec<&'static Helper>)>> = OnceLock::new();

/// The helpers, at least `n` of them if they can be started; `None` while
/// another product uses them.
fn helpers(n: usize) -> Option<MutexGuard<'static, (u32, Vec<&'static Helper>)>> {
    let all = HELPERS.get_or_init(|| Mutex::new((std::process::id(), Vec::new())));
    let mut guard = match all.try_lock() {
        Ok(g) => g,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return None,
    };
    let pid = std::process::id();
    if guard.0 != pid {
        *guard = (pid, Vec::new());
    }
    while guard.1.len() < n {
        let h: &'static Helper = Box::leak(Box::new(Helper::new()));
        let started = std::thread::Builder::new()
            .name(std::format!("fieldwork-gf2x-{}", guard.1.len() + 1))
            .spawn(move || h.serve());
        if started.is_err() {
            break;
        }
        guard.1.push(h);
    }
    Some(guard)
}

/// A share as the helper sees it.
struct Share<'a, T, F> {
    items: Mutex<Vec<T>>,
    f: &'a F,
}

/// Runs `share.f` on each item of the share `data` points to.
///
/// # Safety
/// `data` must point to a live `Share<T, F>`.
unsafe fn run_share<T, F: Fn(T)>(data: *const ()) {
    // SAFETY: the caller's contract.
    let share = unsafe { &*data.cast::<Share<'_, T, F>>() };
    let items = core::mem::take(&mut *lock(&share.items));
    items.into_iter().for_each(share.f);
}

/// Waits, also while unwinding, for the helpers given jobs to finish them.
struct Waiter<'a> {
    posted: Vec<(&'a Helper, u64)>,
}

impl Waiter<'_> {
    /// Waits; whether a helper's job panicked.
    fn wait_all(&mut self) -> bool {
        let mut panicked = false;
        for (h, count) in self.posted.drain(..) {
            panicked |= h.wait(count);
        }
        panicked
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        self.wait_all();
    }
}

/// Runs `f` on every item, dealing the items to at most `threads` threads
/// (the calling thread among them) in contiguous equal shares; the calling
/// thread takes the first share.
pub(super) fn for_each<T: Send, F: Fn(T) + Sync>(threads: usize, items: Vec<T>, f: F) {
    let n = items.len();
    let threads = threads.min(n).max(1);
    let list = if threads > 1 {
        helpers(threads - 1)
    } else {
        None
    };
    let Some(list) = list.filter(|l| !l.1.is_empty()) else {
        items.into_iter().for_each(f);
        return;
    };
    let threads = threads.min(list.1.len() + 1);
    let per = n.div_ceil(threads);
    let mut it = items.into_iter();
    let mine: Vec<T> = it.by_ref().take(per).collect();
    let mut shares: Vec<Share<'_, T, F>> = Vec::with_capacity(threads - 1);
    loop {
        let s: Vec<T> = it.by_ref().take(per).collect();
        if s.is_empty() {
            break;
        }
        shares.push(Share {
            items: Mutex::new(s),
            f: &f,
        });
    }
    // Declared after `shares`: dropped (waiting for the helpers) first.
    let mut waiter = Waiter {
        posted: Vec::with_capacity(shares.len()),
    };
    for (share, &h) in shares.iter().zip(list.1.iter()) {
        let count = h.finished() + 1;
        h.post(Job {
            run: run_share::<T, F>,
            data: core::ptr::from_ref(share).cast(),
        });
        waiter.posted.push((h, count));
    }
    mine.into_iter().for_each(&f);
    if waiter.wait_all() {
        resume_unwind(Box::new("a gf2x helper thread panicked"));
    }
}
